//! The rule for optional environment repairs (library and plug-in substitutions under a
//! substitute JDK, `avrlab_build::OPTIONAL_REPAIRS`): a repair is kept only where the baseline
//! with it lets more regression tests count than the baseline without it. The first warm-up of
//! a task state takes both baselines and records the decision, keyed by the state as it is
//! before the optional repairs; every later materialization of that state reads it.
//!
//! Only build files differ between the two states, so the state without a repair is made by
//! rewriting the task state's poms: from their text before the optional repairs, with the
//! other repairs applied again.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::baseline::Baseline;

/// A pom of a task state: its path relative to the state, and its text.
pub type PomText = (PathBuf, String);

/// What the comparison of one repair's two baselines decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairDecision {
    /// The repair's name (`avrlab_build::OPTIONAL_REPAIRS`).
    pub name: String,
    pub kept: bool,
    /// Counted and ran tests of the baseline with the repair.
    pub with: (usize, usize),
    /// The same without it; `None` where the build without it did not get as far as the tests.
    pub without: Option<(usize, usize)>,
}

impl RepairDecision {
    /// Keeps the repair unless the baseline without it counts as many tests or more.
    pub fn decide(name: &str, with: &Baseline, without: Option<&Baseline>) -> Self {
        let without = without.map(|b| (b.counted, b.ran));
        let kept = without.is_none_or(|(counted, _)| with.counted > counted);
        Self {
            name: name.to_owned(),
            kept,
            with: (with.counted, with.ran),
            without,
        }
    }

    /// Whether a test ran in either baseline: a decision taken where none did (a build avrlab
    /// could not run yet) compared nothing, and is neither kept nor read back.
    pub fn informed(&self) -> bool {
        self.with.1 > 0 || self.without.is_some_and(|(_, ran)| ran > 0)
    }

    /// One line for notes and `bench check`.
    pub fn describe(&self) -> String {
        let without = match self.without {
            Some((counted, ran)) => format!("{counted} of {ran} without"),
            None => "without it the build does not get as far as the tests".to_owned(),
        };
        format!(
            "repair {}: {}: the baseline counts {} of {} regression tests with it, {without}",
            self.name,
            if self.kept { "kept" } else { "declined" },
            self.with.0,
            self.with.1
        )
    }

    fn to_line(&self) -> String {
        let without = self
            .without
            .map_or("none".to_owned(), |(c, r)| format!("{c}/{r}"));
        format!(
            "{}\t{}\t{}/{}\t{without}",
            self.name,
            if self.kept { "kept" } else { "declined" },
            self.with.0,
            self.with.1
        )
    }

    fn from_line(line: &str) -> Option<Self> {
        let parts: Vec<&str> = line.trim().split('\t').collect();
        let [name, kept, with, without] = parts.as_slice() else {
            return None;
        };
        let pair = |text: &str| -> Option<(usize, usize)> {
            let (a, b) = text.split_once('/')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        };
        Some(Self {
            name: (*name).to_owned(),
            kept: match *kept {
                "kept" => true,
                "declined" => false,
                _ => return None,
            },
            with: pair(with)?,
            without: match *without {
                "none" => None,
                other => Some(pair(other)?),
            },
        })
    }
}

/// Where the decision on `name` for the task state keyed `key` is kept.
pub(crate) fn decision_path(root: &Path, task: &str, key: &str, name: &str) -> PathBuf {
    root.join(format!("{task}-{key}-{name}.txt"))
}

/// The decision recorded earlier, if a readable one is there.
pub(crate) fn load_decision(path: &Path) -> Option<RepairDecision> {
    RepairDecision::from_line(&std::fs::read_to_string(path).ok()?).filter(RepairDecision::informed)
}

pub(crate) fn store_decision(path: &Path, decision: &RepairDecision) -> std::io::Result<()> {
    if !decision.informed() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, decision.to_line())?;
    std::fs::rename(partial, path)
}

/// The poms of `project` (relative paths) and their text.
pub(crate) fn read_poms(project: &Path) -> std::io::Result<Vec<PomText>> {
    let mut poms = Vec::new();
    for entry in walkdir::WalkDir::new(project)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".git")))
    {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_file() && entry.file_name() == "pom.xml" {
            let rel = entry
                .path()
                .strip_prefix(project)
                .unwrap_or(entry.path())
                .to_owned();
            poms.push((rel, std::fs::read_to_string(entry.path())?));
        }
    }
    Ok(poms)
}

/// Writes `poms` over the poms of `project`, keeping each file's permissions (a sealed state's
/// poms are read-only to everyone, the host's own writes aside).
pub(crate) fn write_poms(project: &Path, poms: &[PomText]) -> std::io::Result<()> {
    for (rel, text) in poms {
        let path = project.join(rel);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        let mode = std::fs::metadata(&path)?.permissions().mode();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode | 0o200))?;
        std::fs::write(&path, text)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(counted: usize, ran: usize) -> Baseline {
        Baseline {
            counted,
            ran,
            ..Baseline::default()
        }
    }

    #[test]
    fn a_repair_is_kept_only_when_more_tests_count_with_it() {
        let helps =
            RepairDecision::decide("byte-buddy", &baseline(510, 513), Some(&baseline(190, 513)));
        assert!(helps.kept);
        assert_eq!(
            helps.describe(),
            "repair byte-buddy: kept: the baseline counts 510 of 513 regression tests with it, 190 of 513 without"
        );
        let idle = RepairDecision::decide("byte-buddy", &baseline(84, 85), Some(&baseline(84, 85)));
        assert!(!idle.kept);
        assert!(idle.describe().contains("declined"));
        let needed = RepairDecision::decide("bundle-plugin", &baseline(2822, 2827), None);
        assert!(needed.kept);
        assert!(
            needed
                .describe()
                .ends_with("without it the build does not get as far as the tests")
        );
    }

    #[test]
    fn decisions_survive_a_round_trip_and_a_broken_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        for decision in [
            RepairDecision::decide("nashorn", &baseline(3, 4), None),
            RepairDecision::decide("byte-buddy", &baseline(3, 4), Some(&baseline(4, 4))),
        ] {
            let path = decision_path(dir.path(), "t", "k", &decision.name);
            store_decision(&path, &decision).unwrap();
            assert_eq!(load_decision(&path), Some(decision));
        }
        // Where no test ran on either side, nothing was compared: not kept, not read back.
        let blind = RepairDecision::decide("bundle-plugin", &baseline(0, 0), Some(&baseline(0, 0)));
        let path = decision_path(dir.path(), "t", "k", &blind.name);
        store_decision(&path, &blind).unwrap();
        assert!(!path.exists());
        std::fs::write(&path, "bundle-plugin\tdeclined\t0/0\t0/0").unwrap();
        assert_eq!(load_decision(&path), None);
        let broken = dir.path().join("broken.txt");
        std::fs::write(&broken, "byte-buddy\tmaybe\t1/2\tnone").unwrap();
        assert_eq!(load_decision(&broken), None);
    }

    #[test]
    fn poms_are_rewritten_in_a_sealed_state_and_stay_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let module = dir.path().join("m");
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<a/>").unwrap();
        std::fs::write(module.join("pom.xml"), "<b/>").unwrap();
        crate::cache_seal::seal_tree(dir.path()).unwrap();
        let mut poms = read_poms(dir.path()).unwrap();
        assert_eq!(poms.len(), 2);
        let root = poms
            .iter_mut()
            .find(|(rel, _)| rel == Path::new("pom.xml"))
            .unwrap();
        root.1 = "<a2/>".into();
        write_poms(dir.path(), &poms).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("pom.xml")).unwrap(),
            "<a2/>"
        );
        let mode = std::fs::metadata(dir.path().join("pom.xml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o444);
        // Made writable again for the temporary folder to go.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&module, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
