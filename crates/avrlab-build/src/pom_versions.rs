//! What a project's poms say about the versions of other projects' artifacts, read as XML with
//! where each version is written, so that build-file repairs (`snapshots`, `lombok`) can replace
//! it in place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quick_xml::Reader;
use quick_xml::events::Event;

/// The poms of a project: each one's path, text and what it says.
pub(crate) type Poms = Vec<(PathBuf, String, PomVersions)>;

/// A version of another project that a pom names, and where its text sits.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub group: String,
    pub artifact: String,
    /// The version as written (`2.0.0.BUILD-SNAPSHOT` or `${springdata.commons}`).
    pub version: String,
    /// The byte range of the written version in the pom's text.
    pub span: (usize, usize),
}

/// What one pom says that matters here.
#[derive(Debug, Default)]
pub(crate) struct PomVersions {
    /// Its own group (or its parent's) and artifact.
    pub own: Option<(String, String)>,
    /// `<properties>` entries: name → (value, byte range of the value).
    pub properties: BTreeMap<String, (String, (usize, usize))>,
    /// Its parent, dependencies (managed or not, in profiles too), plug-ins and extensions.
    pub named: Vec<Named>,
}

/// The elements whose `groupId`/`artifactId`/`version` name an artifact: a parent, dependencies
/// (managed or not, in profiles too), plug-ins, build extensions and the compiler plug-in's
/// annotation processor paths.
const ARTIFACT_ELEMENTS: [&str; 5] = ["parent", "dependency", "plugin", "extension", "path"];

/// An artifact element being read: its name's depth in the path, and what was read of it.
#[derive(Default)]
struct Open {
    depth: usize,
    group: Option<String>,
    artifact: Option<String>,
    version: Option<(String, (usize, usize))>,
}

/// Reads `text` (one pom); `None` when it is not well-formed XML.
pub(crate) fn read_versions(text: &str) -> Option<PomVersions> {
    let mut reader = Reader::from_str(text);
    let mut path: Vec<String> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut pom = PomVersions::default();
    let (mut group, mut artifact, mut parent_group) = (None, None, None);
    loop {
        let before = usize::try_from(reader.buffer_position()).ok()?;
        let event = reader.read_event().ok()?;
        let after = usize::try_from(reader.buffer_position()).ok()?;
        match event {
            Event::Start(start) => {
                let name: String = start.local_name().as_ref().to_owned();
                if ARTIFACT_ELEMENTS.contains(&name.as_str()) {
                    open.push(Open {
                        depth: path.len() + 1,
                        ..Open::default()
                    });
                }
                path.push(name);
            }
            Event::End(_) => {
                if open.last().is_some_and(|o| o.depth == path.len()) {
                    let done = open.pop()?;
                    let is_plugin = path.last().is_some_and(|n| n == "plugin");
                    let group = done
                        .group
                        .or_else(|| is_plugin.then(|| "org.apache.maven.plugins".to_owned()));
                    if let (Some(group), Some(artifact), Some((version, span))) =
                        (group, done.artifact, done.version)
                    {
                        pom.named.push(Named {
                            group,
                            artifact,
                            version,
                            span,
                        });
                    }
                }
                path.pop();
            }
            Event::Text(_) => {
                let raw = &text[before..after];
                let value = raw.trim();
                let start = before + (raw.len() - raw.trim_start().len());
                let span = (start, start + value.len());
                let at: Vec<&str> = path.iter().map(String::as_str).collect();
                match at.as_slice() {
                    ["project", "groupId"] => group = Some(value.to_owned()),
                    ["project", "artifactId"] => artifact = Some(value.to_owned()),
                    ["project", "parent", "groupId"] => parent_group = Some(value.to_owned()),
                    ["project", "properties", name] => {
                        pom.properties
                            .insert((*name).to_owned(), (value.to_owned(), span));
                    }
                    _ => {}
                }
                if let Some(current) = open.last_mut()
                    && current.depth + 1 == path.len()
                {
                    match at.last() {
                        Some(&"groupId") => current.group = Some(value.to_owned()),
                        Some(&"artifactId") => current.artifact = Some(value.to_owned()),
                        Some(&"version") => current.version = Some((value.to_owned(), span)),
                        _ => {}
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    pom.own = group.or(parent_group).zip(artifact);
    Some(pom)
}

/// Whether `repository` holds a pom of `group:artifact:version`.
pub(crate) fn holds_pom(repository: &Path, group: &str, artifact: &str, version: &str) -> bool {
    let dir = repository
        .join(group.replace('.', "/"))
        .join(artifact)
        .join(version);
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".pom"))
    })
}

/// Every pom of `project` read, shallowest first (the root pom before its modules'); poms that
/// are not XML left out.
pub(crate) fn read_project(project: &Path) -> Poms {
    let mut poms: Vec<_> = crate::reactor::walk_poms(project)
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let versions = read_versions(&text)?;
            Some((path, text, versions))
        })
        .collect();
    poms.sort_by_key(|(path, _, _)| path.components().count());
    poms
}

/// `springdata.commons` for `${springdata.commons}`; `None` for anything else.
pub(crate) fn property_name(version: &str) -> Option<&str> {
    version.strip_prefix("${")?.strip_suffix('}')
}

/// `text` with each edit (a byte range of it and its replacement) made; ranges do not overlap.
pub(crate) fn apply_edits(text: &str, mut edits: Vec<((usize, usize), String)>) -> String {
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.0));
    let mut out = text.to_owned();
    for ((start, end), replacement) in edits {
        out.replace_range(start..end, &replacement);
    }
    out
}
