//! The task-level pipeline: inputs, variants, the per-rule report, and [`transform_task`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use avrlab_java::{
    DeclarationTable, JavaSource, LineRange, MethodQuery, TextEdit, find_method, identifier_tokens,
    methods, methods_at_line, parse,
};

use crate::diff::{anchor_correspondence, changed_hunks, line_correspondence, unified_diff};
use crate::receiver::{FileTypes, type_parameters};
use crate::rename::{self, RenameKind, RenameMap, RenameScope};
use crate::scope::{Resolution, resolve, resolve_within};
use crate::structure::{RuleCtx, Site, find_sites, temp_placeholder};

/// One rewrite rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Identifier renaming with WordNet synonyms.
    Rename,
    /// `if (c) A else B` → `if (!c) B else A`.
    IfFlip,
    /// `for` → `while`.
    ForToWhile,
    /// `while` → `for`.
    WhileToFor,
    /// Enhanced `for` → iterator loop (an `Iterable`) or indexed loop (an array).
    ForEachToFor,
    /// A ternary assignment/return → if-else.
    TernaryToIf,
    /// An if-else of two assignments/returns → ternary.
    IfToTernary,
    /// `switch` → if / else-if chain.
    SwitchToIf,
    /// If / else-if chain comparing one variable → `switch`.
    IfToSwitch,
    /// `a.b().c()` → a temporary for `a.b()`.
    CallChainSplit,
    /// A temporary used once as a receiver → inline call chain.
    CallChainMerge,
    /// An argument → a temporary declared before the call.
    ArgumentExtract,
    /// A temporary used once as an argument → the argument expression.
    ArgumentInline,
    /// Swap adjacent independent statements.
    StatementReorder,
}

impl Rule {
    /// Every structure rule, in the order `structure` and `both` try them (rarer rewrites first, so
    /// that they win when sites overlap).
    pub const STRUCTURE: [Rule; 13] = [
        Rule::SwitchToIf,
        Rule::IfToSwitch,
        Rule::ForToWhile,
        Rule::WhileToFor,
        Rule::TernaryToIf,
        Rule::IfToTernary,
        Rule::CallChainSplit,
        Rule::CallChainMerge,
        Rule::ArgumentExtract,
        Rule::ArgumentInline,
        Rule::ForEachToFor,
        Rule::IfFlip,
        Rule::StatementReorder,
    ];

    /// The kebab-case name (`for-to-while`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Rename => "rename",
            Rule::IfFlip => "if-flip",
            Rule::ForToWhile => "for-to-while",
            Rule::WhileToFor => "while-to-for",
            Rule::ForEachToFor => "foreach-to-for",
            Rule::TernaryToIf => "ternary-to-if",
            Rule::IfToTernary => "if-to-ternary",
            Rule::SwitchToIf => "switch-to-if",
            Rule::IfToSwitch => "if-to-switch",
            Rule::CallChainSplit => "call-chain-split",
            Rule::CallChainMerge => "call-chain-merge",
            Rule::ArgumentExtract => "argument-extract",
            Rule::ArgumentInline => "argument-inline",
            Rule::StatementReorder => "statement-reorder",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which rewrites to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Identifier renaming only.
    Rename,
    /// Every applicable structure rule.
    Structure,
    /// Structure rules, then renaming.
    Both,
    /// One rule.
    Rule(Rule),
}

impl Variant {
    /// The rules this variant applies: renaming first, then the structure rules in
    /// [`Rule::STRUCTURE`] order.
    pub fn rules(self) -> Vec<Rule> {
        match self {
            Variant::Rename => vec![Rule::Rename],
            Variant::Structure => Rule::STRUCTURE.to_vec(),
            Variant::Both => std::iter::once(Rule::Rename)
                .chain(Rule::STRUCTURE)
                .collect(),
            Variant::Rule(r) => vec![r],
        }
    }
}

/// A variant name that is none of `rename`, `structure`, `both` or a rule's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parse variant `{0}`: expected rename, structure, both or a rule name")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "rename" => Ok(Variant::Rename),
            "structure" => Ok(Variant::Structure),
            "both" => Ok(Variant::Both),
            _ => Rule::STRUCTURE
                .iter()
                .find(|r| r.name() == s)
                .map(|r| Variant::Rule(*r))
                .ok_or_else(|| UnknownVariant(s.to_owned())),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Variant::Rename => f.write_str("rename"),
            Variant::Structure => f.write_str("structure"),
            Variant::Both => f.write_str("both"),
            Variant::Rule(r) => f.write_str(r.name()),
        }
    }
}

/// The buggy method and the lines the fix changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetMethod {
    /// Project-relative path of the file.
    pub file: String,
    /// The method's name, if known (a check; the lines decide).
    pub method: Option<String>,
    /// The method's lines in the vulnerable file.
    pub method_lines: LineRange,
    /// Lines the fix replaces (`[n, n-1]`: insertion before `n`).
    pub hunks: Vec<LineRange>,
}

/// Everything [`transform_task`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSources {
    /// Every Java file of the project in the vulnerable state (tests too), by project-relative path.
    pub files: BTreeMap<String, String>,
    /// The method to transform.
    pub target: TargetMethod,
    /// The fixed version of each file the reference fix changes (may be empty: no reference).
    pub fixed_files: BTreeMap<String, String>,
    /// The Java version the project builds with (`var` is used only from 10 on).
    pub java_version: u32,
}

/// The localization of the transformed task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Localization {
    /// Project-relative path of the (possibly renamed) file.
    pub file: String,
    /// The (possibly renamed) method name.
    pub method: String,
    /// The method's lines in the transformed vulnerable file.
    pub method_lines: LineRange,
    /// The lines the translated reference fix replaces.
    pub hunks: Vec<LineRange>,
}

/// What happened at one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOutcome {
    /// The rewrite is in the output.
    Applied {
        /// What changed, e.g. ``Local `count` → `tally` ``.
        detail: String,
    },
    /// The rule could apply here in form but not safely, or its result was dropped.
    Declined {
        /// Why.
        reason: String,
    },
}

/// One rule's outcome at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleReport {
    /// The rule.
    pub rule: Rule,
    /// The (original) file.
    pub file: String,
    /// 1-based line in the original vulnerable file.
    pub line: usize,
    /// Applied or declined, and why.
    pub outcome: RuleOutcome,
}

impl RuleReport {
    /// Whether the rewrite is in the output.
    pub fn applied(&self) -> bool {
        matches!(self.outcome, RuleOutcome::Applied { .. })
    }
}

/// The transformed task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformOutput {
    /// Every project Java file after the transformation, by (possibly renamed) path.
    pub files: BTreeMap<String, String>,
    /// The fixed version of each file the reference changes, transformed alike, by new path.
    pub fixed_files: BTreeMap<String, String>,
    /// (old path, new path) for each file a class rename moved.
    pub file_renames: Vec<(String, String)>,
    /// Where the bug is in the transformed code.
    pub localization: Localization,
    /// The reference fix as a unified diff against the transformed files (empty without a fix).
    pub reference_diff: String,
    /// The renames; its `restore` translates text back to the original names.
    pub rename_map: RenameMap,
    /// One entry per considered site, applied or declined.
    pub report: Vec<RuleReport>,
}

impl TransformOutput {
    /// How many rewrites were applied.
    pub fn applied_count(&self) -> usize {
        self.report.iter().filter(|r| r.applied()).count()
    }

    /// The path a project file has after the transformation (a renamed class moves its file).
    pub fn new_path<'a>(&'a self, original: &'a str) -> &'a str {
        self.file_renames
            .iter()
            .find(|(old, _)| old == original)
            .map_or(original, |(_, new)| new.as_str())
    }

    /// Where another localized method of the same task (not the transformed target) is in the
    /// transformed code: its lines follow the target's rewrites, its name follows the renames, and
    /// its hunks are the translated reference's changes inside it. `None` when the method's first
    /// line did not survive unchanged (it cannot be found again with certainty).
    pub fn relocate(&self, input: &TaskSources, other: &TargetMethod) -> Option<Localization> {
        let original = input.files.get(&other.file)?;
        let file = self.new_path(&other.file).to_owned();
        let transformed = self.files.get(&file)?;
        let corr = line_correspondence(original, transformed);
        // Renaming keeps line counts and structure rules change lines only inside the target, so
        // the nearest unchanged line at or before the method's first line anchors it (its own
        // first line changes when its name or a parameter type is renamed).
        let first = other.method_lines.start.checked_sub(1)?;
        let start = (0..=first)
            .rev()
            .find_map(|i| corr.get(i).copied().flatten().map(|n| n + (first - i)))?;
        let method = methods_at_line(&parse(transformed), start)
            .into_iter()
            .find(|m| m.lines.start == start)?;
        let hunks = relocated_hunks(
            original,
            transformed,
            self.fixed_files.get(&file).map(String::as_str),
            method.lines,
            &other.hunks,
        );
        Some(Localization {
            file,
            method: method.name,
            method_lines: method.lines,
            hunks,
        })
    }
}

/// The hunks of a method in the transformed file: the translated reference's changes inside the
/// method when there is a fixed version, else the original hunks carried over line by line.
fn relocated_hunks(
    original: &str,
    transformed: &str,
    fixed: Option<&str>,
    method_lines: LineRange,
    original_hunks: &[LineRange],
) -> Vec<LineRange> {
    if let Some(f) = fixed {
        return changed_hunks(transformed, f)
            .into_iter()
            .filter(|h| method_lines.touches(*h) || method_lines.contains(*h))
            .collect();
    }
    let corr = line_correspondence(original, transformed);
    let map = |l: usize| corr.get(l.wrapping_sub(1)).copied().flatten();
    original_hunks
        .iter()
        .map(|h| {
            if h.is_insertion() {
                let s = map(h.start).unwrap_or(h.start);
                LineRange::new(s, s - 1)
            } else {
                LineRange::new(map(h.start).unwrap_or(h.start), map(h.end).unwrap_or(h.end))
            }
        })
        .collect()
}

/// Why a task cannot be transformed at all (declined rules are not errors: they are in the report).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The target or a fixed file is not among the inputs.
    #[error("transform task: file `{0}` is not among the project files")]
    UnknownFile(String),
    /// The target file or a fixed file has syntax errors, so no rewrite can be trusted.
    #[error("transform task: `{file}` does not parse (line {line}, column {column}: {message})")]
    Unparsable {
        /// The file.
        file: String,
        /// 1-based line of the first error.
        line: usize,
        /// 1-based column of the first error.
        column: usize,
        /// The first error.
        message: String,
    },
    /// The target method is not at the given lines.
    #[error("transform task: cannot find the target method in `{file}`")]
    MethodNotFound {
        /// The file searched.
        file: String,
        /// What the locator said.
        #[source]
        source: avrlab_java::LocateError,
    },
}

fn parse_clean(file: &str, text: &str) -> Result<JavaSource, TransformError> {
    let src = parse(text);
    match src.errors().first() {
        Some(e) => Err(TransformError::Unparsable {
            file: file.to_owned(),
            line: e.line,
            column: e.column,
            message: e.message.clone(),
        }),
        None => Ok(src),
    }
}

/// Transforms a task. See the crate documentation for the contract.
pub fn transform_task(
    input: &TaskSources,
    variant: Variant,
    seed: u64,
) -> Result<TransformOutput, TransformError> {
    transform_with_rules(input, &variant.rules(), seed)
}

/// Transforms a task with exactly the given rules (any order; structure rules run in
/// [`Rule::STRUCTURE`] order, then renaming). A caller that verifies by execution uses it to retry
/// without the rules that failed verification.
pub fn transform_with_rules(
    input: &TaskSources,
    rules: &[Rule],
    seed: u64,
) -> Result<TransformOutput, TransformError> {
    let target_file = input.target.file.clone();
    let target_text = input
        .files
        .get(&target_file)
        .ok_or_else(|| TransformError::UnknownFile(target_file.clone()))?;
    let target_src = parse_clean(&target_file, target_text)?;
    for (path, text) in &input.fixed_files {
        if !input.files.contains_key(path) {
            return Err(TransformError::UnknownFile(path.clone()));
        }
        parse_clean(path, text)?;
    }
    let method = find_method(
        &target_src,
        MethodQuery {
            name: input.target.method.as_deref(),
            line: Some(input.target.method_lines.start),
        },
    )
    .map_err(|source| TransformError::MethodNotFound {
        file: target_file.clone(),
        source,
    })?;
    let method_start = method.lines.start;
    let original_name = method.name.clone();

    let mut files = input.files.clone();
    let mut fixed = input.fixed_files.clone();
    let mut report = Vec::new();

    // Declarations come from the project files that parse.
    let mut decls = DeclarationTable::new();
    let mut parsed: BTreeMap<String, JavaSource> = BTreeMap::new();
    let mut unparsable: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in &files {
        // The target was parsed above; a tree clone is a reference-count bump.
        let src = if *path == target_file {
            target_src.clone()
        } else {
            parse(text)
        };
        if src.errors().is_empty() {
            decls.add_file(path, &src);
            parsed.insert(path.clone(), src);
        } else {
            unparsable.insert(path.clone(), text.clone());
        }
    }

    // Names a rewrite may not introduce: every identifier-shaped token of the project, vulnerable
    // and fixed (comments and strings too, which only makes the set safer).
    // Deduplicated by hash first: a large file has tens of thousands of tokens, a few thousand
    // distinct.
    let distinct: std::collections::HashSet<&str> = files
        .values()
        .chain(fixed.values())
        .flat_map(|t| identifier_tokens(t).map(|(_, tok)| tok))
        .collect();
    let used: BTreeSet<String> = distinct.into_iter().map(str::to_owned).collect();
    // The target file as last rewritten, parsed (incrementally), when a rewrite changed it.
    let mut target_now: Option<JavaSource> = None;
    let structure_rules: Vec<Rule> = Rule::STRUCTURE
        .into_iter()
        .filter(|r| rules.contains(r))
        .collect();
    if !structure_rules.is_empty() {
        let mut used = used.clone();
        let (new_vul, new_fix, rule_reports) = apply_structure(
            StructureInput {
                file: &target_file,
                vul: &parsed[&target_file],
                fixed: fixed.get(&target_file).map(String::as_str),
                method_start,
                java_version: input.java_version,
                decls: &decls,
            },
            &structure_rules,
            &mut used,
        );
        report.extend(rule_reports);
        files.insert(target_file.clone(), new_vul.text().to_owned());
        if let Some(f) = new_fix {
            fixed.insert(target_file.clone(), f);
        }
        target_now = Some(new_vul.clone());
        parsed.insert(target_file.clone(), new_vul);
    }

    let mut rename_map = RenameMap::default();
    let mut file_renames = Vec::new();
    if rules.contains(&Rule::Rename) {
        let (map, notes, renamed) = apply_rename(
            &RenameInput {
                parsed: &parsed,
                unparsable: &unparsable,
                decls: &decls,
                fixed: &fixed,
                used: &used,
                target_file: &target_file,
                method_start,
            },
            seed,
        );
        for (line, detail, applied) in notes {
            report.push(RuleReport {
                rule: Rule::Rename,
                file: target_file.clone(),
                line,
                outcome: if applied {
                    RuleOutcome::Applied { detail }
                } else {
                    RuleOutcome::Declined { reason: detail }
                },
            });
        }
        if let Some(renamed) = renamed {
            files = renamed.files;
            fixed = renamed.fixed;
            target_now = Some(renamed.target);
            rename_map = map;
            // A renamed top-level type moves its file.
            for e in rename_map
                .entries
                .iter()
                .filter(|e| e.kind == RenameKind::Type)
            {
                let suffix = format!("{}.java", e.original);
                let moved: Vec<String> = files
                    .keys()
                    .filter(|p| p.rsplit('/').next() == Some(suffix.as_str()))
                    .cloned()
                    .collect();
                for old in moved {
                    let new = format!("{}{}.java", &old[..old.len() - suffix.len()], e.renamed);
                    if let Some(t) = files.remove(&old) {
                        files.insert(new.clone(), t);
                    }
                    if let Some(t) = fixed.remove(&old) {
                        fixed.insert(new.clone(), t);
                    }
                    file_renames.push((old, new));
                }
            }
        } else if !map.is_empty() {
            report.push(RuleReport {
                rule: Rule::Rename,
                file: target_file.clone(),
                line: method_start,
                outcome: RuleOutcome::Declined {
                    reason: "renaming produced a file that does not parse; dropped".to_owned(),
                },
            });
        }
    }

    let new_target = file_renames
        .iter()
        .find(|(old, _)| *old == target_file)
        .map_or(target_file.clone(), |(_, new)| new.clone());
    let final_src = target_now.unwrap_or(target_src);
    let method_now = methods_at_line(&final_src, method_start)
        .into_iter()
        .find(|m| m.lines.start == method_start)
        .expect("rewrites keep the target method's first line");
    let hunks = relocated_hunks(
        target_text,
        &files[&new_target],
        fixed.get(&new_target).map(String::as_str),
        method_now.lines,
        &input.target.hunks,
    );
    let mut reference_diff = String::new();
    for (path, text) in &fixed {
        reference_diff.push_str(&unified_diff(path, path, &files[path], text));
    }
    let _ = original_name;
    Ok(TransformOutput {
        localization: Localization {
            file: new_target,
            method: method_now.name,
            method_lines: method_now.lines,
            hunks,
        },
        files,
        fixed_files: fixed,
        file_renames,
        reference_diff,
        rename_map,
        report,
    })
}

struct StructureInput<'a> {
    file: &'a str,
    vul: &'a JavaSource,
    fixed: Option<&'a str>,
    method_start: usize,
    java_version: u32,
    decls: &'a DeclarationTable,
}

/// A site found in the vulnerable file with its twin in the fixed file (if there is a fixed file).
struct Pair {
    vul: Site,
    fix: Option<Site>,
}

fn method_node_at<'a>(src: &'a JavaSource, start_line: usize) -> Option<avrlab_java::Node<'a>> {
    methods_at_line(src, start_line)
        .into_iter()
        .find(|m| m.lines.start == start_line)
        .and_then(|m| m.node(src))
}

fn apply_structure(
    input: StructureInput<'_>,
    rules: &[Rule],
    used: &mut BTreeSet<String>,
) -> (JavaSource, Option<String>, Vec<RuleReport>) {
    let mut reports = Vec::new();
    let vul_src = input.vul;
    let fix_src = input.fixed.map(parse);
    let corr = input
        .fixed
        .map(|f| anchor_correspondence(input.vul.text(), f));
    let map_line = |l: usize| -> Option<usize> {
        corr.as_ref()
            .map_or(Some(l), |c| c.get(l.wrapping_sub(1)).copied().flatten())
    };
    let Some(vul_method) = method_node_at(vul_src, input.method_start) else {
        return (input.vul.clone(), input.fixed.map(str::to_owned), reports);
    };
    let fix_method = fix_src.as_ref().and_then(|src| {
        let line = map_line(input.method_start)?;
        method_node_at(src, line)
    });
    let vul_res = resolve_within(vul_src, vul_method);
    let fix_res = fix_src
        .as_ref()
        .zip(fix_method)
        .map(|(src, m)| resolve_within(src, m));
    let vul_ctx = RuleCtx {
        src: vul_src,
        method: vul_method,
        java_version: input.java_version,
        decls: input.decls,
        res: &vul_res,
    };
    let fix_ctx =
        fix_src
            .as_ref()
            .zip(fix_method)
            .zip(fix_res.as_ref())
            .map(|((src, method), res)| RuleCtx {
                src,
                method,
                java_version: input.java_version,
                decls: input.decls,
                res,
            });
    let declined = |site: &Site, reason: String| RuleReport {
        rule: site.rule,
        file: input.file.to_owned(),
        line: site.line,
        outcome: RuleOutcome::Declined { reason },
    };
    let mut pairs = Vec::new();
    for &rule in rules {
        let vul_sites = find_sites(rule, &vul_ctx);
        let fix_sites = fix_ctx.as_ref().map(|c| find_sites(rule, c));
        for site in vul_sites {
            if let Err(reason) = &site.outcome {
                reports.push(declined(&site, reason.clone()));
                continue;
            }
            let twin = match (&fix_sites, input.fixed) {
                (_, None) => None,
                (None, Some(_)) => {
                    reports.push(declined(&site, "the fixed method was not found".to_owned()));
                    continue;
                }
                (Some(fs), Some(_)) => {
                    let mapped: Option<Vec<_>> = site
                        .anchors
                        .iter()
                        .map(|a| {
                            map_line(a.line).map(|l| {
                                let mut b = a.clone();
                                b.line = l;
                                b
                            })
                        })
                        .collect();
                    let found = mapped.and_then(|m| fs.iter().find(|f| f.anchors == m).cloned());
                    match found {
                        None => {
                            reports.push(declined(
                                &site,
                                "the site overlaps the fix and has no twin in the fixed version"
                                    .to_owned(),
                            ));
                            continue;
                        }
                        Some(f) if f.outcome.is_err() => {
                            let why = f.outcome.clone().err().unwrap_or_default();
                            reports.push(declined(
                                &site,
                                format!("declined in the fixed version: {why}"),
                            ));
                            continue;
                        }
                        Some(f) => Some(f),
                    }
                }
            };
            pairs.push(Pair {
                vul: site,
                fix: twin,
            });
        }
    }
    // Keep sites whose extents do not overlap (in both files), in rule order.
    let mut chosen: Vec<Pair> = Vec::new();
    for pair in pairs {
        let overlaps =
            |a: &Site, b: &Site| a.extent.start < b.extent.end && b.extent.start < a.extent.end;
        let clash = chosen.iter().any(|c| {
            overlaps(&c.vul, &pair.vul)
                || matches!((&c.fix, &pair.fix), (Some(x), Some(y)) if overlaps(x, y))
        });
        if clash {
            reports.push(declined(&pair.vul, "overlaps another rewrite".to_owned()));
        } else {
            chosen.push(pair);
        }
    }
    // Name the temporaries: the same fresh name in both files.
    for pair in &mut chosen {
        let names: Vec<String> = pair
            .vul
            .temps
            .iter()
            .map(|hint| {
                let name = fresh_name(hint, used);
                used.insert(name.clone());
                name
            })
            .collect();
        for site in std::iter::once(&mut pair.vul).chain(pair.fix.as_mut()) {
            if let Ok(edits) = &mut site.outcome {
                for e in edits.iter_mut() {
                    for (i, n) in names.iter().enumerate() {
                        e.replacement = e.replacement.replace(&temp_placeholder(i), n);
                    }
                }
            }
        }
    }
    // Apply all at once; when the result does not parse, add sites one by one and keep those that do.
    let edits_of = |sites: &[&Pair], fix: bool| -> Vec<TextEdit> {
        sites
            .iter()
            .flat_map(|p| {
                let s = if fix { p.fix.as_ref() } else { Some(&p.vul) };
                s.and_then(|s| s.outcome.clone().ok()).unwrap_or_default()
            })
            .collect()
    };
    let attempt = |sites: &[&Pair]| -> Option<(JavaSource, Option<String>)> {
        let v = input.vul.edit(&edits_of(sites, false)).ok()?.source;
        if !v.errors().is_empty() {
            return None;
        }
        let f = match &fix_src {
            Some(fixed) => {
                let f = fixed.edit(&edits_of(sites, true)).ok()?.source;
                if !f.errors().is_empty() {
                    return None;
                }
                Some(f.text().to_owned())
            }
            None => None,
        };
        Some((v, f))
    };
    let all: Vec<&Pair> = chosen.iter().collect();
    let (kept, result) = match attempt(&all) {
        Some(r) => (all, r),
        None => {
            let mut kept: Vec<&Pair> = Vec::new();
            let mut result = (input.vul.clone(), input.fixed.map(str::to_owned));
            for p in &chosen {
                let mut trial = kept.clone();
                trial.push(p);
                match attempt(&trial) {
                    Some(r) => {
                        kept = trial;
                        result = r;
                    }
                    None => reports.push(declined(
                        &p.vul,
                        "the rewritten file did not re-parse; dropped".to_owned(),
                    )),
                }
            }
            (kept, result)
        }
    };
    for p in kept {
        reports.push(RuleReport {
            rule: p.vul.rule,
            file: input.file.to_owned(),
            line: p.vul.line,
            outcome: RuleOutcome::Applied {
                detail: format!("{} at line {}", p.vul.rule, p.vul.line),
            },
        });
    }
    reports.sort_by_key(|r| (r.line, r.rule));
    (result.0, result.1, reports)
}

/// `hint`, or `hint2`, `hint3`… — the first not in `used` and not reserved.
fn fresh_name(hint: &str, used: &BTreeSet<String>) -> String {
    let ok = |n: &str| !used.contains(n) && !avrlab_java::is_reserved_word(n);
    if ok(hint) {
        return hint.to_owned();
    }
    (2..)
        .map(|i| format!("{hint}{i}"))
        .find(|n| ok(n))
        .expect("an unused numbered name exists")
}

/// What renaming reads.
struct RenameInput<'a> {
    parsed: &'a BTreeMap<String, JavaSource>,
    unparsable: &'a BTreeMap<String, String>,
    decls: &'a DeclarationTable,
    fixed: &'a BTreeMap<String, String>,
    used: &'a BTreeSet<String>,
    target_file: &'a str,
    method_start: usize,
}

/// The renamed project: every file's text, the fixed files', and the target file parsed.
struct Renamed {
    files: BTreeMap<String, String>,
    fixed: BTreeMap<String, String>,
    target: JavaSource,
}

fn apply_rename(
    input: &RenameInput<'_>,
    seed: u64,
) -> (RenameMap, Vec<(usize, String, bool)>, Option<Renamed>) {
    let RenameInput {
        parsed,
        unparsable,
        decls,
        fixed,
        used,
        target_file,
        method_start,
    } = *input;
    let target_src = &parsed[target_file];
    let Some(method) = methods_at_line(target_src, method_start)
        .into_iter()
        .find(|m| m.lines.start == method_start)
    else {
        return (RenameMap::default(), Vec::new(), None);
    };
    let paths: BTreeSet<String> = parsed.keys().chain(unparsable.keys()).cloned().collect();
    let resolutions: BTreeMap<&str, Resolution> = parsed
        .iter()
        .map(|(p, s)| (p.as_str(), resolve(s)))
        .collect();
    let type_params: BTreeMap<&str, BTreeSet<String>> = parsed
        .iter()
        .map(|(p, s)| (p.as_str(), type_parameters(s)))
        .collect();
    let types: BTreeMap<String, FileTypes<'_>> = parsed
        .iter()
        .map(|(p, src)| {
            let p = p.as_str();
            let t = FileTypes {
                src,
                res: &resolutions[p],
                decls,
                type_params: &type_params[p],
            };
            (p.to_owned(), t)
        })
        .collect();
    let scope = RenameScope {
        files: parsed,
        unparsable,
        decls,
        target_file,
        target_method: method.bytes.clone(),
        used,
        paths: &paths,
        types: &types,
    };
    let plan = rename::plan(&scope, &resolutions[target_file], seed);
    if plan.map.is_empty() {
        return (plan.map, plan.notes, None);
    }
    let rename_file = |types: &FileTypes<'_>, target_range: Option<std::ops::Range<usize>>| {
        let edits = rename::edits_for_file(&plan.map, types, target_range);
        let edited = types.src.edit(&edits).ok()?.source;
        edited.errors().is_empty().then_some(edited)
    };
    let mut renamed_target = None;
    let mut new_files = BTreeMap::new();
    for (path, types) in &types {
        let range = (path == target_file).then(|| method.bytes.clone());
        match rename_file(types, range) {
            Some(t) => {
                new_files.insert(path.clone(), t.text().to_owned());
                if path == target_file {
                    renamed_target = Some(t);
                }
            }
            None => return (plan.map, plan.notes, None),
        };
    }
    for (path, text) in unparsable {
        new_files.insert(path.clone(), text.clone());
    }
    let corr = fixed
        .get(target_file)
        .map(|f| line_correspondence(target_src.text(), f));
    let mut new_fixed = BTreeMap::new();
    for (path, text) in fixed {
        let src = parse(text);
        let range = if path == target_file {
            let line = corr
                .as_ref()
                .and_then(|c| c.get(method_start - 1).copied().flatten());
            let m = line
                .map_or_else(|| methods(&src), |l| methods_at_line(&src, l))
                .into_iter()
                .find(|m| Some(m.lines.start) == line || (line.is_none() && m.name == method.name));
            m.map(|m| m.bytes)
        } else {
            None
        };
        let res = resolve(&src);
        let tparams = type_parameters(&src);
        let types = FileTypes {
            src: &src,
            res: &res,
            decls,
            type_params: &tparams,
        };
        match rename_file(&types, range) {
            Some(t) => new_fixed.insert(path.clone(), t.text().to_owned()),
            None => return (plan.map, plan.notes, None),
        };
    }
    let target = renamed_target.expect("the target file is among the parsed files");
    (
        plan.map,
        plan.notes,
        Some(Renamed {
            files: new_files,
            fixed: new_fixed,
            target,
        }),
    )
}
