//! The words the store keeps in its text columns, as enums: each is written with `as_str` and
//! read back with `parse`, so a report compares enums, never spellings, and a value the store
//! does not know is an error naming the column, not a silently different row.

/// A stored word that is not one of its enum's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a known {what} (one of: {known})")]
pub struct UnknownWord {
    pub what: &'static str,
    pub value: String,
    pub known: String,
}

macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident => $word:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The word stored for this value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $word,)+
                }
            }

            /// The value a stored word names.
            pub fn parse(word: &str) -> Result<Self, UnknownWord> {
                match word {
                    $($word => Ok(Self::$variant),)+
                    _ => Err(UnknownWord {
                        what: $what,
                        value: word.to_owned(),
                        known: Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", "),
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// What a run validates.
    RunMode, "run mode" {
        /// Each task's vulnerable state and reference fix.
        Reference => "reference",
        /// Candidates from a predictions file.
        Patches => "patches",
        /// Candidates a model generates in the run.
        Eval => "eval",
    }
}

vocabulary! {
    /// What became of one model answer.
    Extraction, "extraction result" {
        /// A new candidate, validated.
        Candidate => "candidate",
        /// The same candidate as an earlier sample of the task: it shares that verdict.
        Duplicate => "duplicate",
        /// The model gave no answer (an error for this prompt, or fewer samples than asked).
        NoAnswer => "NoAnswer",
        /// The answer was empty.
        EmptyAnswer => "EmptyAnswer",
        /// The answer held no code.
        NoCode => "NoCode",
        /// A prefix completion never closed the method.
        UnclosedMethod => "UnclosedMethod",
        /// The answer's diff could not be read.
        MalformedDiff => "MalformedDiff",
    }
}

vocabulary! {
    /// How a candidate compares with the reference fix, beyond its test verdict.
    Correctness, "correctness" {
        /// The localized file becomes the reference fix's, up to layout and comments.
        Exact => "Exact",
        /// The localized file becomes the reference fix's up to what cannot change what it does:
        /// local names, braces around one statement, parentheses around a primary (the syntax
        /// tree, `avrlab_java::equivalence_key`).
        Equivalent => "Equivalent",
        /// Not known to be correct (it may still be).
        Unknown => "Unknown",
    }
}

impl Correctness {
    /// Shown correct by comparison with the reference fix (no audit needed).
    pub fn is_proven(self) -> bool {
        matches!(self, Self::Exact | Self::Equivalent)
    }
}

vocabulary! {
    /// A person's judgement of a plausible candidate that no automatic check proved correct.
    AuditLabel, "audit label" {
        /// It fixes the vulnerability as the reference does (semantically).
        Correct => "correct",
        /// It passes the tests without really fixing the vulnerability, or breaks something.
        Incorrect => "incorrect",
        /// The auditor could not decide.
        Unsure => "unsure",
    }
}

vocabulary! {
    /// What a reviewer model said of a candidate.
    ReviewDecision, "review decision" {
        /// It judged the candidate a fix.
        Accept => "accept",
        /// It judged the candidate not a fix.
        Reject => "reject",
        /// It answered, but neither clearly accept nor clearly reject: recorded, never guessed.
        Unparseable => "unparseable",
        /// It gave no answer (an error for this prompt).
        NoAnswer => "no-answer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_and_others_are_refused() {
        for mode in RunMode::ALL {
            assert_eq!(RunMode::parse(mode.as_str()), Ok(*mode));
        }
        for extraction in Extraction::ALL {
            assert_eq!(Extraction::parse(extraction.as_str()), Ok(*extraction));
        }
        for correctness in Correctness::ALL {
            assert_eq!(Correctness::parse(correctness.as_str()), Ok(*correctness));
        }
        for decision in ReviewDecision::ALL {
            assert_eq!(ReviewDecision::parse(decision.as_str()), Ok(*decision));
        }
        let error = Extraction::parse("Candidate").unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Candidate` is not a known extraction result (one of: candidate, duplicate, NoAnswer, EmptyAnswer, NoCode, UnclosedMethod, MalformedDiff)"
        );
    }
}

vocabulary! {
    /// How one group of tests (functional or security) judged a feature prediction.
    TestGroupResult, "test group result" {
        /// Every test of the group passed (functional: apart from the expected failures).
        Pass => "pass",
        /// A test of the group failed, or the prediction did not apply or compile.
        Fail => "fail",
        /// The evidence does not say (no test ran, unusable reports, a timeout).
        Undecided => "undecided",
    }
}
