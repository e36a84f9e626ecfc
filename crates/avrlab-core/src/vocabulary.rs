//! The words avrlab stores and compares, as enums. Each is written with `as_str` and read back
//! with `parse`; a word that is not one of its enum's is an [`UnknownWord`] naming what it should
//! have been, so a reader never takes a misspelling for a different value.

use std::fmt;

/// A stored word that is not one of its enum's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a known {what} (one of: {known})")]
pub struct UnknownWord {
    /// What the word should have named (`outcome`, `test status` …).
    pub what: &'static str,
    /// The word found.
    pub value: String,
    /// The words that would have been understood, comma-separated.
    pub known: String,
}

impl UnknownWord {
    /// The error for `value`, which is none of `known`.
    pub(crate) fn new(what: &'static str, value: &str, known: &[&str]) -> Self {
        Self {
            what,
            value: value.to_owned(),
            known: known.join(", "),
        }
    }
}

/// Declares a vocabulary enum with `ALL` (declaration order), `as_str`, `parse` and `Display`.
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
                    _ => Err(UnknownWord::new($what, word, &[$($word,)+])),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            /// The stored word, as a string.
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

/// What validating one candidate showed.
///
/// Written by hand rather than with `vocabulary!`: its [`Outcome::ALL`] is in report order, which
/// is not the declaration order that `Ord` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The candidate does not apply, or touches files it may not change.
    ApplyFailed,
    /// The project does not compile with the candidate.
    Uncompilable,
    /// A proof-of-vulnerability test still fails: the vulnerability is not fixed.
    PovFailing,
    /// The PoV tests pass but a regression test fails.
    RegressionBroken,
    /// A build or test run outlived its limit and was killed.
    Timeout,
    /// Every oracle test passes.
    Plausible,
    /// The evidence does not support a verdict (no test ran, reports disagree with the build, a
    /// test was skipped, the tree was killed for its output).
    Indeterminate,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Self; 7] = [
        Self::Plausible,
        Self::PovFailing,
        Self::RegressionBroken,
        Self::Uncompilable,
        Self::ApplyFailed,
        Self::Timeout,
        Self::Indeterminate,
    ];

    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApplyFailed => "ApplyFailed",
            Self::Uncompilable => "Uncompilable",
            Self::PovFailing => "PovFailing",
            Self::RegressionBroken => "RegressionBroken",
            Self::Timeout => "Timeout",
            Self::Plausible => "Plausible",
            Self::Indeterminate => "Indeterminate",
        }
    }

    /// Reads a stored name.
    pub fn parse(word: &str) -> Result<Self, UnknownWord> {
        Self::ALL
            .into_iter()
            .find(|o| o.as_str() == word)
            .ok_or_else(|| UnknownWord::new("outcome", word, &Self::ALL.map(Self::as_str)))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Outcome {
    /// The stored name, as a string.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

vocabulary! {
    /// A stage of validation.
    Phase, "phase" {
        /// Writing the candidate into the workspace.
        Apply => "apply",
        /// Building the project with it.
        Compile => "compile",
        /// Running the proof-of-vulnerability tests.
        Pov => "pov",
        /// Running the regression tests.
        Regression => "regression",
        /// Running the regression phase once more, in a fresh JVM, after tests failed in it: a
        /// test that then passes is flaky on the candidate, and the verdict `Indeterminate`.
        RegressionRerun => "regression-rerun",
    }
}

vocabulary! {
    /// One test's result, as its report gave it.
    TestStatus, "test status" {
        /// It passed.
        Passed => "passed",
        /// An assertion failed.
        Failed => "failed",
        /// The test threw something other than an assertion error.
        Errored => "errored",
        /// It did not run.
        Skipped => "skipped",
    }
}

vocabulary! {
    /// Which validation back end decided a verdict.
    Engine, "engine" {
        /// A fresh test JVM per candidate, Maven re-judging a sample (`--engine fast`).
        Fast => "fast",
        /// The task's own build tool, a sandboxed build and test run per candidate
        /// (`--engine maven`), for a Maven task.
        Maven => "maven",
        /// The same for a Gradle task.
        Gradle => "gradle",
        /// The same for an Ant task.
        Ant => "ant",
    }
}

vocabulary! {
    /// Why a candidate was judged by both engines.
    CheckKind, "check kind" {
        /// The fast path's PoV tests passed and `--confirm all` has Maven confirm every such
        /// verdict.
        Confirmation => "confirmation",
        /// The candidate fell in the random sample of verdicts Maven re-judges.
        Sample => "sample",
        /// Something the candidate's code reached for, at run time or in its diff, could forge or
        /// spoil the fast path's answer (the reasons are kept with the verdict as its flags).
        Flag => "flag",
        /// The engines disagreed on an earlier candidate of the same task.
        Disagreement => "disagreement",
    }
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
        /// The answer cost more than the model's `max_cost_per_sample`: not validated.
        OverCostCap => "OverCostCap",
    }
}

vocabulary! {
    /// How one sample of an eval run ended, for the run's denominators: a verdict the candidate
    /// earned, a failure of the model (counted against it), or a failure of the infrastructure
    /// (never counted: the model was not heard).
    ItemClass, "item class" {
        /// The sample's candidate has a verdict (a duplicate shares its first's).
        Judged => "judged",
        /// The model's answer gave nothing to judge: empty, no code, an unreadable diff, a diff
        /// that does not apply, fewer samples than asked, a prompt longer than its context, an
        /// answer that cost more than the model may spend on one sample.
        ModelFailure => "model-failure",
        /// The infrastructure failed the item: the model was not heard (its call failed after its
        /// retries, timed out, or the answer did not arrive whole), or the candidate's validation
        /// was (its test JVM killed from outside). Never in a score's denominator; `--retry
        /// errored` asks (or validates) again.
        Errored => "errored",
    }
}

impl ItemClass {
    /// The class of a sample whose candidate earned `outcome`: a diff that does not apply is the
    /// model's failure, every other verdict a judgement.
    pub fn of_outcome(outcome: Outcome) -> Self {
        match outcome {
            Outcome::ApplyFailed => Self::ModelFailure,
            Outcome::Plausible
            | Outcome::PovFailing
            | Outcome::RegressionBroken
            | Outcome::Uncompilable
            | Outcome::Timeout
            | Outcome::Indeterminate => Self::Judged,
        }
    }
}

vocabulary! {
    /// Why an errored item was not judged: the model was not heard on a sample, or the
    /// infrastructure failed a candidate's validation.
    ErrorCause, "error cause" {
        /// The server kept answering 429 or 5xx through every retry.
        HttpStatus => "http-status",
        /// Every attempt ran past the time limit (a command model's included).
        Timeout => "timeout",
        /// The endpoint could not be reached.
        Unreachable => "unreachable",
        /// The answer was not the JSON the protocol promises (cut short, say).
        MalformedResponse => "malformed-response",
        /// The server refused the request itself (a 4xx other than auth, rate limit, context).
        Rejected => "rejected",
        /// A command model's program exited unsuccessfully.
        CommandFailed => "command-failed",
        /// Validation: the candidate's test JVM (or its sandbox, or the build tool running it) was
        /// killed by a signal the harness did not send and the candidate is not known to have
        /// caused (no OOM kill in its cgroup). Killed the same way again on a retry, the candidate
        /// is taken to have done it itself, and the verdict is its own.
        Killed => "killed",
        /// Validation: the machine's disk was full (a write failed for want of room, or a phase
        /// failed while the work folder's file system had no room left).
        DiskFull => "disk-full",
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
    /// What differential testing against the reference fix showed of a plausible candidate: the
    /// methods it or the fix changed, called on generated inputs in both versions (and in the
    /// vulnerable state, to tell what the fix is meant to change).
    Differential, "differential verdict" {
        /// On some input the candidate shows something other than the reference fix, where the
        /// fix behaves as the vulnerable state did, or where the candidate still does: evidence
        /// that it is wrong (it never counts correct without an auditor).
        Divergent => "Divergent",
        /// It differs only on inputs the fix itself changes (the vulnerability's inputs), and
        /// there blocks them otherwise than the fix — another exception, another safe value:
        /// weaker evidence, for an auditor to judge.
        DivergentOnVulnerableInputs => "DivergentOnVulnerableInputs",
        /// Every input tried showed the same in both versions.
        NoDivergence => "NoDivergence",
        /// Not compared (with the reason): a version does not compile, no input could be made.
        NotApplicable => "NotApplicable",
    }
}

impl Differential {
    /// The audit label the verdict stands for when auditors are compared with differential
    /// testing: `Divergent` is evidence of a wrong fix (`incorrect`), `NoDivergence` of a right
    /// one (`correct`); the weaker `DivergentOnVulnerableInputs` and `NotApplicable` stand for
    /// none (such candidates are left out of the comparison).
    pub fn as_audit_label(self) -> Option<AuditLabel> {
        match self {
            Self::Divergent => Some(AuditLabel::Incorrect),
            Self::NoDivergence => Some(AuditLabel::Correct),
            Self::DivergentOnVulnerableInputs | Self::NotApplicable => None,
        }
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

/// `count` and its noun, plural unless the count is one: "1 worker", "2 workers".
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of every enum reads back from its word, and each word is unique.
    macro_rules! round_trips {
        ($($name:ident),+) => {$(
            let mut seen = std::collections::HashSet::new();
            for value in $name::ALL.iter().copied() {
                assert_eq!($name::parse(value.as_str()), Ok(value), "{}", stringify!($name));
                assert_eq!(value.to_string(), value.as_str());
                assert!(seen.insert(value.as_str()), "{} repeats `{value}`", stringify!($name));
            }
            assert!($name::parse("no such word").is_err(), "{}", stringify!($name));
            assert!($name::parse("").is_err(), "{}", stringify!($name));
        )+};
    }

    #[test]
    fn every_word_reads_back() {
        round_trips!(
            Outcome,
            Phase,
            TestStatus,
            Engine,
            CheckKind,
            RunMode,
            Extraction,
            ItemClass,
            ErrorCause,
            Correctness,
            Differential,
            AuditLabel,
            ReviewDecision,
            TestGroupResult
        );
        assert_eq!(Outcome::ALL.len(), 7, "ALL lists every outcome");
    }

    #[test]
    fn unknown_words_are_refused_by_name() {
        let error = Extraction::parse("Candidate").unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Candidate` is not a known extraction result (one of: candidate, duplicate, NoAnswer, EmptyAnswer, NoCode, UnclosedMethod, MalformedDiff, OverCostCap)"
        );
        // Spellings are exact: a stored word is never matched up to case.
        assert_eq!(
            Outcome::parse("plausible").unwrap_err().to_string(),
            "`plausible` is not a known outcome (one of: Plausible, PovFailing, RegressionBroken, Uncompilable, ApplyFailed, Timeout, Indeterminate)"
        );
        assert_eq!(TestStatus::parse("Passed").unwrap_err().what, "test status");
        assert_eq!(Engine::parse("plain-mvn").unwrap_err().what, "engine");
        assert_eq!(CheckKind::parse("Sample").unwrap_err().what, "check kind");
        assert_eq!(Phase::parse("PoV").unwrap_err().what, "phase");
    }
}
