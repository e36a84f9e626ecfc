//! The datasets' own localization of a vulnerability (the buggy lines and the method that holds
//! them), read from VJBench's `vul_location.json` and `VJBench_data.json`, and the rule that
//! decides whether an imported task uses it or the localization derived from the fix.
//!
//! The study (Wu et al., ISSTA 2023, "How Effective Are Neural Networks for Fixing Security
//! Vulnerabilities") builds every model input from `vul_location.json`: Codex's published input
//! for Json-sanitizer-1 masks its lines 547–554, where the fix's diff removes 544–553. A task that
//! marks the dataset's lines shows a model what the paper showed it, and published hunk-level
//! generations fit into it. So the dataset's lines win wherever they are usable; the fix decides
//! only where the dataset is silent or unusable (and the task records which, and why).

use std::path::Path;

use serde::Deserialize;

use crate::dataset::{DatasetError, DatasetKind, DatasetLocation, DatasetRow, line_ranges};
use crate::task::Localization;

/// The file name of VJBench's location records (beside `VJBench_dataset.csv`).
pub const VUL_LOCATION_FILE: &str = "vul_location.json";

/// One record of `vul_location.json`: Vul4J's ids as they are (`VUL4J-10`), VJBench's under
/// aliases (`VUL4J-10014` is Json-sanitizer-1), found by CVE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VulLocation {
    /// The record's id (`VUL4J-41`, `VUL4J-1007`).
    pub vul_id: String,
    pub cve: Option<String>,
    /// The buggy file, relative to the repository root; `None` for fixes over several files.
    pub file: Option<String>,
    /// `buggy_line`: 1-based inclusive ranges (a single line `[n]` is `(n, n)`).
    pub buggy_lines: Vec<(u32, u32)>,
    /// `buggy_method_with_comment`: the method's range, its leading comment included.
    pub method_lines: Vec<(u32, u32)>,
    /// `replace`, `insertion` or `deletion`.
    pub bug_type: Option<String>,
}

#[derive(Deserialize)]
struct RawVulLocation {
    vul_id: String,
    #[serde(rename = "CVE_id", default)]
    cve: Option<String>,
    #[serde(default)]
    buggy_file: Option<String>,
    #[serde(default)]
    buggy_line: Vec<Vec<u32>>,
    #[serde(default)]
    buggy_method_with_comment: Vec<Vec<u32>>,
    #[serde(default)]
    bug_type: Option<String>,
}

/// Reads `vul_location.json`.
pub fn read_vul_locations(path: &Path) -> Result<Vec<VulLocation>, DatasetError> {
    let text = std::fs::read_to_string(path).map_err(|source| DatasetError::Read {
        path: path.to_owned(),
        source,
    })?;
    let raw: Vec<RawVulLocation> =
        serde_json::from_str(&text).map_err(|source| DatasetError::Json {
            path: path.to_owned(),
            source,
        })?;
    Ok(raw
        .into_iter()
        .map(|r| VulLocation {
            vul_id: r.vul_id.trim().to_owned(),
            cve: r.cve.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
            file: r.buggy_file.filter(|f| !f.trim().is_empty()),
            buggy_lines: line_ranges(&r.buggy_line),
            method_lines: line_ranges(&r.buggy_method_with_comment),
            bug_type: r.bug_type.filter(|t| !t.is_empty()),
        })
        .collect())
}

/// The dataset's location of one row, and what was noticed on the way to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocationLookup {
    /// `None` when the dataset gives no buggy lines for the row.
    pub location: Option<DatasetLocation>,
    /// One sentence per thing a task should record (two files that disagree, a record skipped).
    pub notes: Vec<String>,
}

/// The dataset's location of `row`: its `vul_location.json` record (Vul4J rows by id, VJBench
/// rows by CVE and, where `VJBench_data.json` names one, by file), else the buggy lines that
/// `VJBench_data.json` gives (already on the row). `vul_location.json` wins where both speak,
/// since it is the file the study's inputs were made from; a disagreement is noted.
pub fn dataset_location(
    kind: DatasetKind,
    row: &DatasetRow,
    records: &[VulLocation],
) -> LocationLookup {
    let mut notes = Vec::new();
    let from_json = row.location.as_ref().filter(|l| !l.buggy_lines.is_empty());
    let candidates: Vec<&VulLocation> = match kind {
        DatasetKind::Vul4j => records
            .iter()
            .filter(|r| r.vul_id.eq_ignore_ascii_case(&row.dataset_id))
            .collect(),
        DatasetKind::Vjbench => records
            .iter()
            .filter(|r| row.cve.is_some() && r.cve == row.cve)
            .filter(|r| match (&row.location, &r.file) {
                (Some(json), Some(file)) => json.file == *file,
                _ => true,
            })
            .collect(),
    };
    let usable: Vec<&VulLocation> = candidates
        .iter()
        .copied()
        .filter(|r| r.file.is_some() && !r.buggy_lines.is_empty())
        .collect();
    let record = match usable.as_slice() {
        [] => None,
        [one] => Some(*one),
        [first, rest @ ..] => {
            if rest
                .iter()
                .all(|r| r.file == first.file && r.buggy_lines == first.buggy_lines)
            {
                Some(*first)
            } else {
                notes.push(format!(
                    "{VUL_LOCATION_FILE} has {} records for {} that disagree; none is used",
                    usable.len(),
                    row.cve.as_deref().unwrap_or(&row.dataset_id)
                ));
                None
            }
        }
    };
    // A Vul4J id names the record; its CVE must agree, or the record is another vulnerability's.
    let record = record.filter(|r| match (&r.cve, &row.cve) {
        (Some(theirs), Some(ours)) if theirs != ours => {
            notes.push(format!(
                "{VUL_LOCATION_FILE} record {} is for {theirs}, not {ours}; not used",
                r.vul_id
            ));
            false
        }
        _ => true,
    });
    if let Some(record) = record {
        let file = record.file.clone().unwrap_or_default();
        if let Some(json) = from_json
            && (json.file != file || json.buggy_lines != record.buggy_lines)
        {
            notes.push(format!(
                "VJBench_data.json gives buggy lines {} where {VUL_LOCATION_FILE} gives {}; {VUL_LOCATION_FILE}'s are used (the study's inputs were made from it)",
                show_ranges(&json.buggy_lines),
                show_ranges(&record.buggy_lines)
            ));
        }
        return LocationLookup {
            location: Some(DatasetLocation {
                source: format!("{VUL_LOCATION_FILE}, record {}", record.vul_id),
                file,
                buggy_lines: record.buggy_lines.clone(),
                method_lines: record.method_lines.clone(),
                bug_type: record.bug_type.clone(),
            }),
            notes,
        };
    }
    LocationLookup {
        location: from_json.cloned(),
        notes,
    }
}

/// `547–554, 600` for messages.
pub fn show_ranges(ranges: &[(u32, u32)]) -> String {
    ranges
        .iter()
        .map(|&(a, b)| {
            if b + 1 == a {
                format!("before {a}")
            } else if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A method or constructor of the vulnerable file, as the Java parser found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSpan {
    pub name: String,
    /// 1-based inclusive lines, from its first annotation or modifier to its closing brace.
    pub lines: (u32, u32),
}

/// What the importer knows of the vulnerable file the dataset names.
#[derive(Debug, Clone)]
pub struct VulnerableFile<'a> {
    /// The path as the task names it (relative to the project root).
    pub path: &'a str,
    /// Its number of lines.
    pub line_count: u32,
    /// Every method and constructor in it.
    pub methods: &'a [MethodSpan],
}

/// `[[localization]]` from the dataset's buggy lines: each range grouped under the innermost
/// method that holds it, with the method's range as the parser gives it (the declaration, which
/// replacements and prompts cut out; the dataset's range may start at the leading comment).
/// A range outside every method (Vul4J's records mark where a fix adds a new method, as
/// VUL4J-9's line 144) is left out with a note, as the fix-derived localization leaves out
/// changes outside methods. `Err` says, in a sentence, why the dataset's lines cannot be used
/// for this file at all: a range past its end (the record is of another version of the file), no
/// range inside a method, or a range outside the dataset's own method ranges.
pub fn localize_from_dataset(
    location: &DatasetLocation,
    file: &VulnerableFile<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<Localization>, String> {
    if location.buggy_lines.is_empty() {
        return Err("the dataset gives no buggy lines".into());
    }
    if let Some(&(a, b)) = location.buggy_lines.iter().find(|r| r.1 > file.line_count) {
        return Err(format!(
            "the dataset's buggy lines {} lie outside {} ({} lines)",
            show_ranges(&[(a, b)]),
            file.path,
            file.line_count
        ));
    }
    let mut out: Vec<Localization> = Vec::new();
    let mut outside = Vec::new();
    for &(a, b) in &location.buggy_lines {
        let Some(method) = file
            .methods
            .iter()
            .filter(|m| m.lines.0 <= a && b <= m.lines.1)
            .min_by_key(|m| m.lines.1 - m.lines.0)
        else {
            outside.push((a, b));
            continue;
        };
        if !location.method_lines.is_empty()
            && !location.method_lines.iter().any(|&(s, e)| s <= a && b <= e)
        {
            return Err(format!(
                "the dataset's buggy lines {} lie outside its own method range {}",
                show_ranges(&[(a, b)]),
                show_ranges(&location.method_lines)
            ));
        }
        match out.iter_mut().find(|l| l.method_lines == method.lines) {
            Some(existing) => existing.hunks.push((a, b)),
            None => out.push(Localization {
                file: file.path.to_owned(),
                method: method.name.clone(),
                method_lines: method.lines,
                hunks: vec![(a, b)],
            }),
        }
    }
    if out.is_empty() {
        return Err(format!(
            "the dataset's buggy lines {} of {} lie outside every method",
            show_ranges(&outside),
            file.path
        ));
    }
    if !outside.is_empty() {
        notes.push(format!(
            "the dataset's buggy lines {} of {} lie outside every method and are left out",
            show_ranges(&outside),
            file.path
        ));
    }
    for loc in &out {
        let dataset_range = location
            .method_lines
            .iter()
            .find(|&&(s, e)| loc.hunks.iter().all(|&(a, b)| s <= a && b <= e));
        if let Some(&(s, e)) = dataset_range
            && (s, e) != loc.method_lines
        {
            notes.push(format!(
                "the dataset gives {s}–{e} for {}() (`buggy_method_with_comment` may include its leading comment); the parser's declaration {}–{} is the localized method",
                loc.method, loc.method_lines.0, loc.method_lines.1
            ));
        }
    }
    Ok(out)
}

/// Where a task's localization came from, as `[provenance] localization` records it.
pub const DERIVED_FROM_FIX: &str = "derived from the fix diff";

/// The localization an imported task gets, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalizationChoice {
    pub localization: Vec<Localization>,
    /// `dataset: vul_location.json, record VUL4J-10014` or [`DERIVED_FROM_FIX`].
    pub source: String,
}

/// The rule: the dataset's lines where it gives them and they fit the vulnerable file (inside
/// it, each range inside one method); else the localization derived from the fix, with a note
/// saying why the dataset's were not used. Falling back keeps the task: the derived localization
/// always matches the reference fix, and the note keeps the difference from the paper visible.
pub fn choose_localization(
    location: Option<&DatasetLocation>,
    file: Option<&VulnerableFile<'_>>,
    derived: Vec<Localization>,
    notes: &mut Vec<String>,
) -> LocalizationChoice {
    let derived_choice = |localization| LocalizationChoice {
        localization,
        source: DERIVED_FROM_FIX.to_owned(),
    };
    let Some(location) = location else {
        return derived_choice(derived);
    };
    let Some(file) = file else {
        notes.push(format!(
            "the dataset's buggy file {} is not a file the fix changes; the localization is derived from the fix",
            location.file
        ));
        return derived_choice(derived);
    };
    let mut own_notes = Vec::new();
    match localize_from_dataset(location, file, &mut own_notes) {
        Ok(localization) => {
            notes.extend(own_notes);
            for other in &derived {
                let covered = localization
                    .iter()
                    .any(|l| l.file == other.file && l.method_lines == other.method_lines);
                if !covered {
                    notes.push(format!(
                        "the fix also changes {}() ({}, lines {}–{}), which the dataset does not localize",
                        other.method, other.file, other.method_lines.0, other.method_lines.1
                    ));
                }
            }
            if let Some(first) = derived.first()
                && localization
                    .iter()
                    .map(|l| &l.hunks)
                    .ne(derived.iter().map(|l| &l.hunks))
            {
                notes.push(format!(
                    "buggy lines {} from the dataset; the fix's diff changes {} of {}()",
                    show_ranges(
                        &localization
                            .iter()
                            .flat_map(|l| l.hunks.iter().copied())
                            .collect::<Vec<_>>()
                    ),
                    show_ranges(&first.hunks),
                    first.method
                ));
            }
            LocalizationChoice {
                localization,
                source: format!("dataset: {}", location.source),
            }
        }
        Err(why) => {
            notes.push(if derived.is_empty() {
                format!(
                    "{why} ({}); the fix changes no method either, so the task has no localization",
                    location.source
                )
            } else {
                format!(
                    "{why} ({}); the localization is derived from the fix",
                    location.source
                )
            });
            derived_choice(derived)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::dataset::{read_vjbench, read_vul4j};

    fn datasets() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets")
    }

    fn records() -> Vec<VulLocation> {
        read_vul_locations(&datasets().join("vjbench").join(VUL_LOCATION_FILE)).unwrap()
    }

    #[test]
    fn reads_the_real_location_records() {
        let records = records();
        assert_eq!(records.len(), 94);
        let json = records.iter().find(|r| r.vul_id == "VUL4J-10014").unwrap();
        assert_eq!(json.cve.as_deref(), Some("CVE-2020-13973"));
        assert_eq!(
            json.file.as_deref(),
            Some("src/main/java/com/google/json/JsonSanitizer.java")
        );
        assert_eq!(json.buggy_lines, [(547, 554)]);
        assert_eq!(json.method_lines, [(511, 645)]);
        assert_eq!(json.bug_type.as_deref(), Some("replace"));
        // A single line `[[311]]` is the range 311–311.
        let plexus = records.iter().find(|r| r.vul_id == "VUL4J-41").unwrap();
        assert_eq!(plexus.buggy_lines, [(311, 311)]);
    }

    #[test]
    fn line_ranges_take_single_lines_and_drop_what_is_no_range() {
        let raw = vec![
            vec![5],
            vec![7, 9],
            vec![],
            vec![9, 7],
            vec![0],
            vec![1, 2, 3],
        ];
        assert_eq!(line_ranges(&raw), [(5, 5), (7, 9)]);
    }

    #[test]
    fn a_missing_locations_file_is_a_read_error() {
        let error = read_vul_locations(Path::new("/nonexistent/vul_location.json")).unwrap_err();
        assert!(matches!(error, DatasetError::Read { .. }), "{error}");
    }

    /// VJBench rows find their record under its alias by CVE; Vul4J rows by id.
    #[test]
    fn finds_each_datasets_record_and_prefers_vul_location_json() {
        let records = records();
        let vjbench = read_vjbench(&DatasetKind::Vjbench.default_file(&datasets())).unwrap();
        let row = |id: &str| vjbench.rows.iter().find(|r| r.dataset_id == id).unwrap();

        let found = dataset_location(DatasetKind::Vjbench, row("Json-sanitizer-1"), &records);
        let location = found.location.unwrap();
        assert_eq!(location.source, "vul_location.json, record VUL4J-10014");
        assert_eq!(location.buggy_lines, [(547, 554)]);
        // VJBench_data.json says 547–553; the disagreement is recorded.
        assert_eq!(found.notes.len(), 1, "{:?}", found.notes);
        assert!(found.notes[0].contains("547–553"), "{}", found.notes[0]);

        let jinjava = dataset_location(DatasetKind::Vjbench, row("Jinjava-1"), &records);
        assert_eq!(jinjava.location.unwrap().buggy_lines, [(23, 23)]);
        assert!(jinjava.notes.is_empty(), "{:?}", jinjava.notes);

        // No record and no lines in VJBench_data.json: the dataset is silent.
        let torpedo = dataset_location(DatasetKind::Vjbench, row("TorpedoQuery-1"), &records);
        assert_eq!(torpedo, LocationLookup::default());

        let vul4j = read_vul4j(&DatasetKind::Vul4j.default_file(&datasets())).unwrap();
        let v41 = vul4j
            .rows
            .iter()
            .find(|r| r.dataset_id == "VUL4J-41")
            .unwrap();
        let found = dataset_location(DatasetKind::Vul4j, v41, &records);
        let location = found.location.unwrap();
        assert_eq!(location.source, "vul_location.json, record VUL4J-41");
        assert_eq!(
            location.file,
            "src/main/java/org/codehaus/plexus/archiver/AbstractUnArchiver.java"
        );
        assert_eq!(location.buggy_lines, [(311, 311)]);
        assert_eq!(location.method_lines, [(303, 361)]);
    }

    #[test]
    fn a_vul4j_record_of_another_cve_is_not_used() {
        let vul4j = read_vul4j(&DatasetKind::Vul4j.default_file(&datasets())).unwrap();
        let mut row = vul4j
            .rows
            .iter()
            .find(|r| r.dataset_id == "VUL4J-41")
            .unwrap()
            .clone();
        row.cve = Some("CVE-0000-0001".into());
        let found = dataset_location(DatasetKind::Vul4j, &row, &records());
        assert!(found.location.is_none());
        assert!(
            found.notes[0].contains("not CVE-0000-0001"),
            "{:?}",
            found.notes
        );
    }

    fn location(lines: &[(u32, u32)], methods: &[(u32, u32)]) -> DatasetLocation {
        DatasetLocation {
            source: "vul_location.json, record X".into(),
            file: "A.java".into(),
            buggy_lines: lines.to_vec(),
            method_lines: methods.to_vec(),
            bug_type: None,
        }
    }

    fn methods() -> Vec<MethodSpan> {
        vec![
            MethodSpan {
                name: "outer".into(),
                lines: (10, 60),
            },
            MethodSpan {
                name: "sanitize".into(),
                lines: (20, 40),
            },
            MethodSpan {
                name: "other".into(),
                lines: (70, 80),
            },
        ]
    }

    fn derived() -> Vec<Localization> {
        vec![Localization {
            file: "A.java".into(),
            method: "sanitize".into(),
            method_lines: (20, 40),
            hunks: vec![(24, 33)],
        }]
    }

    #[test]
    fn the_datasets_lines_win_inside_the_innermost_method() {
        let methods = methods();
        let file = VulnerableFile {
            path: "A.java",
            line_count: 90,
            methods: &methods,
        };
        let mut notes = Vec::new();
        let chosen = choose_localization(
            Some(&location(&[(27, 34)], &[(18, 40)])),
            Some(&file),
            derived(),
            &mut notes,
        );
        assert_eq!(chosen.source, "dataset: vul_location.json, record X");
        assert_eq!(chosen.localization.len(), 1);
        let loc = &chosen.localization[0];
        assert_eq!(loc.method, "sanitize");
        assert_eq!(loc.method_lines, (20, 40), "the declaration's range");
        assert_eq!(loc.hunks, [(27, 34)]);
        // The comment-inclusive range and the fix's other lines are both recorded.
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("18–40"), "{}", notes[0]);
        assert!(notes[1].contains("24–33"), "{}", notes[1]);
    }

    #[test]
    fn ranges_in_two_methods_give_two_entries_and_an_unlocalized_fixed_method_is_noted() {
        let methods = methods();
        let file = VulnerableFile {
            path: "A.java",
            line_count: 90,
            methods: &methods,
        };
        let mut notes = Vec::new();
        let mut fix = derived();
        fix.push(Localization {
            file: "A.java".into(),
            method: "outer".into(),
            method_lines: (10, 60),
            hunks: vec![(50, 50)],
        });
        let chosen = choose_localization(
            Some(&location(&[(25, 25), (30, 31), (75, 75)], &[])),
            Some(&file),
            fix,
            &mut notes,
        );
        let got: Vec<_> = chosen
            .localization
            .iter()
            .map(|l| (l.method.as_str(), l.hunks.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("sanitize", vec![(25, 25), (30, 31)]),
                ("other", vec![(75, 75)])
            ]
        );
        assert!(
            notes.iter().any(|n| n.contains("also changes outer()")),
            "{notes:?}"
        );
    }

    /// VUL4J-9's record marks line 144, between two methods, where the fix adds one.
    #[test]
    fn a_range_outside_every_method_is_left_out_when_others_are_inside() {
        let methods = methods();
        let file = VulnerableFile {
            path: "A.java",
            line_count: 90,
            methods: &methods,
        };
        let mut notes = Vec::new();
        let chosen = choose_localization(
            Some(&location(&[(24, 33), (65, 65)], &[])),
            Some(&file),
            derived(),
            &mut notes,
        );
        assert_eq!(chosen.source, "dataset: vul_location.json, record X");
        assert_eq!(chosen.localization, derived());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("lines 65 of A.java lie outside every method and are left out"),
            "{}",
            notes[0]
        );
    }

    #[test]
    fn insertion_points_read_as_such() {
        assert_eq!(
            show_ranges(&[(659, 658), (5, 5), (7, 9)]),
            "before 659, 5, 7–9"
        );
    }

    #[test]
    fn unusable_dataset_lines_fall_back_to_the_fix_with_the_reason() {
        let methods = methods();
        let file = VulnerableFile {
            path: "A.java",
            line_count: 90,
            methods: &methods,
        };
        let cases = [
            (location(&[(95, 96)], &[]), "outside A.java (90 lines)"),
            (
                location(&[(30, 31), (95, 95)], &[]),
                "95 lie outside A.java",
            ),
            (
                location(&[(62, 65)], &[]),
                "62–65 of A.java lie outside every method",
            ),
            (
                location(&[(55, 65), (62, 62)], &[]),
                "55–65, 62 of A.java lie outside every method",
            ),
            (
                location(&[(30, 31)], &[(70, 80)]),
                "outside its own method range 70–80",
            ),
        ];
        for (location, why) in cases {
            let mut notes = Vec::new();
            let chosen = choose_localization(Some(&location), Some(&file), derived(), &mut notes);
            assert_eq!(chosen.source, DERIVED_FROM_FIX);
            assert_eq!(chosen.localization, derived());
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(notes[0].contains(why), "{} lacks {why}", notes[0]);
            assert!(notes[0].contains("derived from the fix"), "{}", notes[0]);
        }
        // A file the fix does not change, and a silent dataset.
        let mut notes = Vec::new();
        let chosen = choose_localization(
            Some(&location(&[(30, 31)], &[])),
            None,
            derived(),
            &mut notes,
        );
        assert_eq!(chosen.source, DERIVED_FROM_FIX);
        assert!(notes[0].contains("not a file the fix changes"), "{notes:?}");
        let mut notes = Vec::new();
        let chosen = choose_localization(None, Some(&file), derived(), &mut notes);
        assert_eq!(chosen.source, DERIVED_FROM_FIX);
        assert!(notes.is_empty());
    }
}
