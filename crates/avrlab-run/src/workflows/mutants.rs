//! Mechanical candidates for throughput benchmarks: mutations of a task's localized method (a
//! statement deleted, a condition negated, a constant changed; one point, then two), chosen with
//! a seeded generator so that the same seed gives the same candidates. They stand in for a repair tool's
//! output: mostly wrong, some not compiling, a few equivalent to the original.

use avrlab_validate::{Candidate, ReplacementTarget};

/// One mutant: a label saying what changed, and the method's new text.
#[derive(Debug, Clone)]
pub(crate) struct Mutant {
    pub label: String,
    pub candidate: Candidate,
}

/// Operator swaps that negate a condition or shift a boundary; each is tried both ways.
const OPERATOR_SWAPS: [(&str, &str); 4] = [
    (" == ", " != "),
    (" < ", " >= "),
    (" > ", " <= "),
    (" && ", " || "),
];

/// One place in the method that can change: line index, and the line's new text (`None`: the
/// line is deleted).
#[derive(Debug, Clone)]
struct Point {
    line: usize,
    new_text: Option<String>,
    kind: &'static str,
}

/// Every single-point mutation of `method` (the text of the localized method's lines).
fn points(method: &str) -> Vec<Point> {
    let lines: Vec<&str> = method.lines().collect();
    let mut points = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let code = line.trim();
        if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
            continue;
        }
        // The first and last lines are the signature and the closing brace.
        if index > 0 && index + 1 < lines.len() && code.ends_with(';') {
            points.push(Point {
                line: index,
                new_text: None,
                kind: "delete",
            });
        }
        for (a, b) in OPERATOR_SWAPS {
            for (from, to) in [(a, b), (b, a)] {
                for (at, _) in line.match_indices(from) {
                    let mut changed = line.to_string();
                    changed.replace_range(at..at + from.len(), to);
                    points.push(Point {
                        line: index,
                        new_text: Some(changed),
                        kind: "negate",
                    });
                }
            }
        }
        for (from, to) in [("true", "false"), ("false", "true")] {
            for (at, _) in line.match_indices(from) {
                let mut changed = line.to_string();
                changed.replace_range(at..at + from.len(), to);
                points.push(Point {
                    line: index,
                    new_text: Some(changed),
                    kind: "constant",
                });
            }
        }
        // Integer literals (not part of a name): n becomes n + 1.
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i].is_ascii_digit()
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            if !starts {
                i += 1;
                continue;
            }
            let end = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            let literal_ends = end == bytes.len()
                || !(bytes[end].is_ascii_alphanumeric()
                    || bytes[end] == b'.'
                    || bytes[end] == b'_');
            if literal_ends && let Ok(n) = line[i..end].parse::<u64>() {
                let mut changed = line.to_string();
                changed.replace_range(i..end, &(n + 1).to_string());
                points.push(Point {
                    line: index,
                    new_text: Some(changed),
                    kind: "constant",
                });
            }
            i = end;
        }
    }
    points
}

/// SplitMix64: a small, well-known generator, enough to pick mutants reproducibly.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Up to `count` distinct mutants of `method` (localization entry `target`), in an order fixed
/// by `seed`: every single-point mutant first, then, when more are asked for than the method has
/// points, two-point mutants (two points on different lines). Fewer when even those run out.
pub(crate) fn mutants(method: &str, target: usize, count: usize, seed: u64) -> Vec<Mutant> {
    let mut all = points(method);
    // Fisher–Yates with the seeded generator.
    let mut state = seed;
    for i in (1..all.len()).rev() {
        let j = (next(&mut state) % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    let mut chosen: Vec<Vec<usize>> = (0..all.len()).take(count).map(|i| vec![i]).collect();
    let n = all.len() as u64;
    let mut seen = std::collections::HashSet::new();
    let mut attempts = 0;
    while chosen.len() < count && n >= 2 && attempts < count * 50 {
        attempts += 1;
        let a = (next(&mut state) % n) as usize;
        let b = (next(&mut state) % n) as usize;
        if all[a].line == all[b].line {
            continue;
        }
        let pair = (a.min(b), a.max(b));
        if seen.insert(pair) {
            chosen.push(vec![pair.0, pair.1]);
        }
    }
    let lines: Vec<&str> = method.lines().collect();
    chosen
        .into_iter()
        .enumerate()
        .map(|(number, combination)| {
            let picked: Vec<&Point> = combination.iter().map(|&i| &all[i]).collect();
            let mut text = String::new();
            for (index, line) in lines.iter().enumerate() {
                match picked.iter().find(|p| p.line == index) {
                    Some(point) => {
                        if let Some(changed) = &point.new_text {
                            text.push_str(changed);
                            text.push('\n');
                        }
                    }
                    None => {
                        text.push_str(line);
                        text.push('\n');
                    }
                }
            }
            let what: Vec<String> = picked
                .iter()
                .map(|p| format!("{}-line{}", p.kind, p.line + 1))
                .collect();
            Mutant {
                label: format!("mutant-{number:04}-{}", what.join("+")),
                candidate: Candidate::Replacement {
                    target: ReplacementTarget::Method(target),
                    text,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METHOD: &str = "int f(int a, boolean b) {\n    int x = 2;\n    if (a == 3 && b) {\n        x = x + 10;\n    }\n    return x;\n}\n";

    fn text(m: &Mutant) -> &str {
        match &m.candidate {
            Candidate::Replacement { text, .. } => text,
            other => panic!("not a replacement: {other:?}"),
        }
    }

    #[test]
    fn every_kind_of_mutation_is_found() {
        let all = mutants(METHOD, 0, 1000, 7);
        let texts: Vec<&str> = all.iter().map(text).collect();
        // Deletions of the three statements, the swapped operators, the changed constants.
        assert!(texts.iter().any(|t| !t.contains("int x = 2;")));
        assert!(texts.iter().any(|t| t.contains("if (a != 3 && b)")));
        assert!(texts.iter().any(|t| t.contains("if (a == 3 || b)")));
        assert!(texts.iter().any(|t| t.contains("int x = 3;")));
        assert!(texts.iter().any(|t| t.contains("x = x + 11;")));
        // The signature's line and the closing brace are never deleted.
        assert!(
            texts
                .iter()
                .all(|t| t.starts_with("int f(int a, boolean b) {"))
        );
        assert!(texts.iter().all(|t| t.ends_with("}\n")));
        // No mutant is the original, and none repeats.
        assert!(texts.iter().all(|t| *t != METHOD));
        let mut unique = texts.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), texts.len());
    }

    #[test]
    fn the_seed_fixes_the_choice_and_order() {
        let a = mutants(METHOD, 0, 4, 1);
        assert_eq!(
            a.iter().map(text).collect::<Vec<_>>(),
            mutants(METHOD, 0, 4, 1)
                .iter()
                .map(text)
                .collect::<Vec<_>>()
        );
        assert_ne!(
            a.iter().map(text).collect::<Vec<_>>(),
            mutants(METHOD, 0, 4, 2)
                .iter()
                .map(text)
                .collect::<Vec<_>>()
        );
        assert_eq!(a.len(), 4);
    }

    #[test]
    fn past_the_single_points_come_distinct_two_point_mutants() {
        let singles = mutants(METHOD, 0, 1000, 3)
            .iter()
            .filter(|m| !m.label.contains('+'))
            .count();
        let all = mutants(METHOD, 0, singles + 5, 3);
        assert_eq!(all.len(), singles + 5);
        let texts: Vec<&str> = all.iter().map(text).collect();
        let mut unique = texts.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), texts.len());
        assert!(all[singles..].iter().all(|m| m.label.contains('+')));
    }

    #[test]
    fn a_name_with_digits_is_not_a_literal() {
        let all = mutants("void g() {\n    call2(v1);\n}\n", 0, 100, 0);
        assert!(
            all.iter()
                .all(|m| !text(m).contains("call3") && !text(m).contains("v2"))
        );
    }
}
