//! The reviewer's prompt and the strict reading of its answer: accept or reject with a reason,
//! and `unparseable` for an answer that is neither clearly one nor the other (never guessed).

use avrlab_core::ReviewDecision;

use crate::method::VulnerableMethod;
use crate::render::{ChatMessage, Prompt, Role};

/// The instruction every review starts with: it asks for a first line the parser can read.
const SYSTEM: &str = "You review security patches for Java code. ACCEPT means the proposed \
change fixes the vulnerability without breaking the method; REJECT means it does not. Reply in \
exactly this form, two lines:\nVERDICT: ACCEPT or REJECT\nREASON: one sentence";

/// The review prompt of one candidate: the vulnerable method, the candidate, the CWE.
pub fn review_prompt(method: &VulnerableMethod, kind: &str, candidate: &str) -> Prompt {
    let cwe = if method.cwe.is_empty() {
        "unknown".to_owned()
    } else {
        method
            .cwe
            .iter()
            .map(|c| format!("CWE-{} ({})", c.id, c.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let shown = if kind == "diff" {
        format!("The proposed patch (unified diff):\n```diff\n{candidate}\n```")
    } else {
        format!("The proposed new version of the method:\n```java\n{candidate}\n```")
    };
    let user = format!(
        "Vulnerability: {cwe}\nFile: {}\n\nThe vulnerable method:\n```java\n{}\n```\n\n{shown}\n\n\
         Does the proposed change fix the vulnerability? Reply with VERDICT: ACCEPT or VERDICT: REJECT, then REASON: one sentence.",
        method.file, method.source
    );
    Prompt::Chat {
        messages: vec![
            ChatMessage {
                role: Role::System,
                content: SYSTEM.into(),
            },
            ChatMessage {
                role: Role::User,
                content: user,
            },
        ],
    }
}

/// The decision word a line opens with (after markdown emphasis and a `verdict:`-style label).
fn leading_word(line: &str) -> Option<(ReviewDecision, &str)> {
    let mut rest = line
        .trim()
        .trim_start_matches(['*', '#', '>', '-', '`', ' ']);
    for label in ["verdict", "decision", "answer"] {
        if rest
            .get(..label.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(label))
        {
            let after = rest[label.len()..].trim_start_matches(['*', ' ']);
            if let Some(after) = after.strip_prefix(':') {
                rest = after.trim_start_matches(['*', ' ', '`']);
            }
        }
    }
    for (word, decision) in [
        ("accept", ReviewDecision::Accept),
        ("reject", ReviewDecision::Reject),
    ] {
        if rest
            .get(..word.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(word))
        {
            let after = &rest[word.len()..];
            // `ACCEPTED`/`rejects` count; `acceptable`, `acceptance` do not.
            let tail = after.trim_start_matches(['e', 'E', 'd', 'D', 's', 'S']);
            let cut = after.len() - tail.len();
            if cut <= 2 && !tail.starts_with(|c: char| c.is_alphanumeric()) {
                return Some((decision, tail));
            }
        }
    }
    None
}

/// The answer to the prompt's question in a sentence: "The proposed change fixes the
/// vulnerability" or "… does not fix the vulnerability" (what small models write instead of the
/// decision word), with what follows it.
fn sentence_decision(line: &str) -> Option<(ReviewDecision, &str)> {
    let line = line.trim();
    let lower = line.to_ascii_lowercase();
    let mut rest = lower.as_str();
    for article in ["the ", "this "] {
        rest = rest.strip_prefix(article).unwrap_or(rest);
    }
    rest = rest.strip_prefix("proposed ").unwrap_or(rest);
    rest = ["change ", "patch ", "fix ", "candidate "]
        .iter()
        .find_map(|subject| rest.strip_prefix(subject))?;
    let (decision, after) = [
        ("fixes the vulnerability", ReviewDecision::Accept),
        ("does not fix the vulnerability", ReviewDecision::Reject),
        ("doesn't fix the vulnerability", ReviewDecision::Reject),
    ]
    .iter()
    .find_map(|(phrase, decision)| rest.strip_prefix(phrase).map(|after| (*decision, after)))?;
    if after.starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    // The same position in the original line (ASCII lowercasing keeps byte offsets).
    Some((decision, &line[lower.len() - after.len()..]))
}

/// Whether a line holds both decision words (`VERDICT: ACCEPT or REJECT` copied from the
/// instruction): such a line decides nothing.
fn names_both(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.contains("accept") && lower.contains("reject")
}

/// A reason as written, without leading punctuation or a `Reason:` label.
fn clean_reason(text: &str) -> String {
    let text = text
        .trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '*' | ':' | '.' | '-' | ',' | '`')
        })
        .trim();
    match text.get(..7) {
        Some(label) if label.eq_ignore_ascii_case("reason:") => text[7..].trim().to_owned(),
        _ => text.to_owned(),
    }
}

/// Reads a reviewer's answer. The first non-empty line must open with accept or reject (or
/// `Verdict: …`), or say in a sentence that the proposed change fixes / does not fix the
/// vulnerability; it must not name both decisions, and no later line may open with the other
/// one. Anything else is `Unparseable`. The reason is what follows the decision (a `Reason:`
/// label removed), else the next line.
pub fn parse_review(answer: &str) -> (ReviewDecision, String) {
    let lines: Vec<&str> = answer.lines().filter(|l| !l.trim().is_empty()).collect();
    let Some(first) = lines.first() else {
        return (ReviewDecision::Unparseable, String::new());
    };
    if names_both(first) {
        return (ReviewDecision::Unparseable, String::new());
    }
    let Some((decision, tail)) = leading_word(first).or_else(|| sentence_decision(first)) else {
        return (ReviewDecision::Unparseable, String::new());
    };
    if lines[1..]
        .iter()
        .any(|l| leading_word(l).is_some_and(|(other, _)| other != decision))
    {
        return (ReviewDecision::Unparseable, String::new());
    }
    let reason = match clean_reason(tail) {
        tail if tail.is_empty() => lines.get(1).map(|l| clean_reason(l)).unwrap_or_default(),
        tail => tail,
    };
    (decision, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_strictly() {
        let cases: &[(&str, ReviewDecision, &str)] = &[
            (
                "ACCEPT: the path is now checked against the target folder.",
                ReviewDecision::Accept,
                "the path is now checked against the target folder.",
            ),
            (
                "reject - it still concatenates user input",
                ReviewDecision::Reject,
                "it still concatenates user input",
            ),
            (
                "**Verdict:** REJECT\nThe check can be bypassed.",
                ReviewDecision::Reject,
                "The check can be bypassed.",
            ),
            (
                "VERDICT: ACCEPT\nREASON: lookups are no longer resolved in messages.",
                ReviewDecision::Accept,
                "lookups are no longer resolved in messages.",
            ),
            (
                "The proposed change does not fix the vulnerability. It still resolves lookups.",
                ReviewDecision::Reject,
                "It still resolves lookups.",
            ),
            (
                "The proposed change fixes the vulnerability without breaking the method.",
                ReviewDecision::Accept,
                "without breaking the method.",
            ),
            // The instruction copied back decides nothing.
            (
                "VERDICT: ACCEPT or REJECT\nREASON: one sentence",
                ReviewDecision::Unparseable,
                "",
            ),
            (
                "The proposed change fixes the vulnerabilityscanner.",
                ReviewDecision::Unparseable,
                "",
            ),
            ("Accepted.", ReviewDecision::Accept, ""),
            ("\n\n  Rejects the fix", ReviewDecision::Reject, "the fix"),
            // Neither word first: never guessed from words further in.
            (
                "The patch looks fine, I would accept it.",
                ReviewDecision::Unparseable,
                "",
            ),
            ("Acceptable, mostly.", ReviewDecision::Unparseable, ""),
            (
                "ACCEPT\nREJECT: on second thought",
                ReviewDecision::Unparseable,
                "",
            ),
            ("", ReviewDecision::Unparseable, ""),
            ("public void extract() {", ReviewDecision::Unparseable, ""),
            ("éééé accept", ReviewDecision::Unparseable, ""),
        ];
        for (answer, decision, reason) in cases {
            assert_eq!(
                parse_review(answer),
                (*decision, (*reason).to_owned()),
                "{answer:?}"
            );
        }
    }

    #[test]
    fn the_prompt_shows_the_code_the_candidate_and_the_cwe() {
        let method = VulnerableMethod {
            file: "src/main/java/A.java".into(),
            method_name: "run".into(),
            source: "void run() { exec(input); }".into(),
            method_start_line: 3,
            buggy_lines: Vec::new(),
            cwe: vec![crate::CweInfo {
                id: 78,
                name: "OS Command Injection".into(),
                description: String::new(),
            }],
            class_context: None,
        };
        let Prompt::Chat { messages } =
            review_prompt(&method, "replacement:method:0", "void run() {}")
        else {
            panic!("a chat prompt");
        };
        let user = &messages[1].content;
        for part in [
            "CWE-78 (OS Command Injection)",
            "void run() { exec(input); }",
            "void run() {}",
            "VERDICT: ACCEPT or VERDICT: REJECT",
        ] {
            assert!(user.contains(part), "{part} in {user}");
        }
    }
}
