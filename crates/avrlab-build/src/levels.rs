//! Old projects write their Java language level into the build file (`<source>1.5</source>`),
//! where no command-line property reaches it, and a newer JDK refuses levels it no longer
//! compiles (JDK 17: below 7; JDK 20 and later: below 8). When a JDK substitutes for the task's,
//! those levels are raised to the substitute's floor in the task state's build files: an explicit,
//! recorded change of the build, never of the sources. The same holds for a compiler the build
//! file names that cannot run on the substitute: plexus' `javac-with-errorprone` runs the javac
//! that error-prone bundles, which cannot read a newer JDK's module image (retrofit, VUL4J-76), so
//! the substitute's own javac (`javac`) compiles instead; error-prone's checks are lints, and
//! the classes are the same.

use std::path::Path;

/// The build-file elements that hold a language level.
const LEVEL_ELEMENTS: [&str; 11] = [
    "source",
    "target",
    "release",
    "testSource",
    "testTarget",
    "maven.compiler.source",
    "maven.compiler.target",
    "maven.compiler.release",
    "maven.compile.source",
    "maven.compile.target",
    "maven.compiler.testSource",
];

/// The major version a level names: `1.5` → 5, `11` → 11; `None` for anything else (a property
/// reference, an empty element).
pub(crate) fn major(level: &str) -> Option<u32> {
    let level = level.trim();
    let digits = level.strip_prefix("1.").unwrap_or(level);
    digits.parse().ok()
}

/// Raises, in one build file's text, every language level below `floor` to `level` (the
/// spelling the substitution compiles at, `1.7` or `8`). Returns the new text and one note per
/// kind of change.
pub fn raise_levels_in(text: &str, floor: u32, level: &str) -> (String, Vec<String>) {
    let mut out = text.to_owned();
    let mut notes = Vec::new();
    for element in LEVEL_ELEMENTS {
        let (open, close) = (format!("<{element}>"), format!("</{element}>"));
        let mut rebuilt = String::with_capacity(out.len());
        let mut rest = out.as_str();
        let mut raised = Vec::new();
        while let Some(at) = rest.find(&open) {
            let value_start = at + open.len();
            let Some(len) = rest[value_start..].find(&close) else {
                break;
            };
            let value = &rest[value_start..value_start + len];
            rebuilt.push_str(&rest[..value_start]);
            match major(value) {
                Some(found) if found < floor => {
                    rebuilt.push_str(level);
                    raised.push(value.trim().to_owned());
                }
                _ => rebuilt.push_str(value),
            }
            rest = &rest[value_start + len..];
        }
        rebuilt.push_str(rest);
        out = rebuilt;
        if !raised.is_empty() {
            raised.dedup();
            notes.push(format!(
                "<{element}>{}</{element}> raised to {level}",
                raised.join(", ")
            ));
        }
    }
    (out, notes)
}

/// Compilers a build file may name that a substitute JDK cannot run: plexus' error-prone
/// compiler. The plug-in's dependencies still carry error-prone's copy of javac's classes, which
/// would shadow the JDK's own in the plug-in's class loader, so javac runs forked (the JDK's
/// `bin/javac`).
const OLD_COMPILERS: [&str; 1] = ["javac-with-errorprone"];

/// Replaces, in one build file's text, every compiler of [`OLD_COMPILERS`] by a forked `javac`;
/// one note per kind.
pub fn replace_old_compilers_in(text: &str) -> (String, Vec<String>) {
    let mut out = text.to_owned();
    let mut notes = Vec::new();
    for old in OLD_COMPILERS {
        let element = format!("<compilerId>{old}</compilerId>");
        if out.contains(&element) {
            // A configuration that sets `fork` itself keeps its word (a second element would
            // make the configuration ambiguous).
            let fork = if out.contains("<fork>") {
                ""
            } else {
                "<fork>true</fork>"
            };
            out = out.replace(&element, &format!("<compilerId>javac</compilerId>{fork}"));
            notes.push(format!(
                "{element} replaced by javac{} (error-prone's bundled javac of the task's era cannot read the substitute's module image)",
                if fork.is_empty() { "" } else { ", forked" }
            ));
        }
    }
    (out, notes)
}

/// The JUnit that stands in for JUnit 3: it runs JUnit 3 `TestCase` classes as they are, and
/// Surefire's JUnit 4 provider selects single test methods, which its JUnit 3 provider cannot (it
/// runs the whole class, so a PoV run of one method would report others: VUL4J-42).
pub const JUNIT3_SUBSTITUTE: &str = "4.13.2";

/// Replaces, in one build file's text, the version of every `junit:junit` 3.x dependency by
/// [`JUNIT3_SUBSTITUTE`]; one note if it did.
pub fn replace_junit3_in(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut replaced = Vec::new();
    let mut properties: Vec<String> = Vec::new();
    while let Some(at) = rest.find("<dependency>") {
        let Some(len) = rest[at..].find("</dependency>") else {
            break;
        };
        let block = &rest[at..at + len];
        out.push_str(&rest[..at]);
        // The dependency's own coordinates, not those of an artifact it excludes (CXF excludes
        // junit:junit from maven-plugin-annotations 3.4).
        let own = match (block.find("<exclusions>"), block.find("</exclusions>")) {
            (Some(from), Some(to)) if from < to => {
                format!("{}{}", &block[..from], &block[to..])
            }
            _ => block.to_owned(),
        };
        let is_junit = own.contains("<groupId>junit</groupId>")
            && own.contains("<artifactId>junit</artifactId>");
        let version = block
            .find("<version>3.")
            .map(|v| v + "<version>".len())
            .and_then(|v| Some((v, v + block[v..].find('<')?)));
        match version {
            Some((start, end)) if is_junit => {
                replaced.push(block[start..end].trim().to_owned());
                out.push_str(&block[..start]);
                out.push_str(JUNIT3_SUBSTITUTE);
                out.push_str(&block[end..]);
            }
            _ => {
                // A version written through a property (`${version.junit}`, XStream): the
                // property is replaced where this pom sets it to a 3.x.
                if is_junit
                    && let Some(name) = between(&own, "<version>${", "}</version>")
                    && !properties.iter().any(|p| p == name)
                {
                    properties.push(name.to_owned());
                }
                out.push_str(block);
            }
        }
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    for name in properties {
        let open = format!("<{name}>3.");
        let Some(at) = out.find(&open) else {
            continue;
        };
        let start = at + open.len() - "3.".len();
        let Some(end) = out[start..].find('<').map(|e| start + e) else {
            continue;
        };
        replaced.push(out[start..end].trim().to_owned());
        out.replace_range(start..end, JUNIT3_SUBSTITUTE);
    }
    let notes = replaced
        .first()
        .map(|old| {
            vec![format!(
                "junit:junit {old} replaced by {JUNIT3_SUBSTITUTE} (it runs the JUnit 3 tests as they are, and Surefire selects single test methods only with JUnit 4)"
            )]
        })
        .unwrap_or_default();
    (out, notes)
}

/// The text between the first `open` and the `close` after it.
pub(crate) fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = start + text[start..].find(close)?;
    Some(&text[start..end])
}

/// Replaces JUnit 3 by [`JUNIT3_SUBSTITUTE`] in every `pom.xml` of `project`, whatever the JDK.
/// Returns one note per changed file, relative to `project`.
pub fn replace_junit3(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, replace_junit3_in)
}

/// Where the project's poms name no `junit:junit` themselves and a parent pom in `repository`
/// gives them JUnit 3 (plexus-utils inherits 3.8.2 from `org.codehaus.plexus:plexus`), declares
/// [`JUNIT3_SUBSTITUTE`] as a test dependency in the project's root pom, which overrides the
/// inherited one. Returns the note, if it did.
pub fn override_inherited_junit3(
    project: &Path,
    repository: &Path,
) -> std::io::Result<Vec<String>> {
    let root = project.join("pom.xml");
    let Ok(text) = std::fs::read_to_string(&root) else {
        return Ok(Vec::new());
    };
    let declares_junit = crate::reactor::walk_poms(project).iter().any(|pom| {
        std::fs::read_to_string(pom).is_ok_and(|t| t.contains("<artifactId>junit</artifactId>"))
    });
    if declares_junit {
        return Ok(Vec::new());
    }
    let inherited = crate::older_api::ancestor_poms(&text, repository)
        .into_iter()
        .find(|(_, parent)| !replace_junit3_in(parent).1.is_empty())
        .map(|(name, _)| name);
    let Some(parent) = inherited else {
        return Ok(Vec::new());
    };
    let dependency = format!(
        "<dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
         <version>{JUNIT3_SUBSTITUTE}</version><scope>test</scope></dependency>"
    );
    let Some(adapted) = insert_in_pom(&text, &["project", "dependencies"], &dependency) else {
        return Ok(Vec::new());
    };
    std::fs::write(&root, adapted)?;
    Ok(vec![format!(
        "pom.xml: junit:junit {JUNIT3_SUBSTITUTE} declared as a test dependency over the JUnit 3 that {parent} gives it (Surefire selects single test methods only with JUnit 4)"
    )])
}

/// The Byte Buddy that stands in for an older one under a substitute JDK: releases before 1.10
/// cannot define classes for JDK 13 and later (nor 1.6 for JDK 11), so Mockito 2, which brings
/// them, cannot mock anything there, and whole suites error (jinjava: 279 of 502 tests).
pub const BYTE_BUDDY_SUBSTITUTE: &str = "1.14.12";

/// Under a substitute JDK, pins `net.bytebuddy:byte-buddy` and `byte-buddy-agent` to
/// [`BYTE_BUDDY_SUBSTITUTE`] in the root pom's `<dependencyManagement>` (which overrides what a
/// parent pom or Mockito's own pom asks for), where the project uses Mockito or Byte Buddy and the
/// root pom does not manage Byte Buddy itself. The project uses them where a pom of it or of one
/// of its parents in `repository` names them, or where its Java sources import them: Mockito
/// often comes with another dependency (Spring Boot's `spring-boot-starter-test`, PowerMock),
/// which no pom of the project names. Returns the note, if it did.
pub fn pin_byte_buddy(project: &Path, repository: &Path) -> std::io::Result<Vec<String>> {
    let root = project.join("pom.xml");
    let Ok(text) = std::fs::read_to_string(&root) else {
        return Ok(Vec::new());
    };
    let names_it = |t: &str| {
        t.contains("<groupId>org.mockito</groupId>")
            || t.contains("<groupId>net.bytebuddy</groupId>")
    };
    // Mockito often comes from a parent pom (spring-data-rest's `spring-data-parent`).
    let uses_it = crate::reactor::walk_poms(project)
        .iter()
        .any(|pom| std::fs::read_to_string(pom).is_ok_and(|t| names_it(&t)))
        || crate::older_api::ancestor_poms(&text, repository)
            .iter()
            .any(|(_, pom)| names_it(pom))
        || sources_import(project, &["org.mockito.", "net.bytebuddy."]);
    if !uses_it || text.contains("<groupId>net.bytebuddy</groupId>") {
        return Ok(Vec::new());
    }
    let Some(adapted) = pin_byte_buddy_in(&text) else {
        return Ok(Vec::new());
    };
    std::fs::write(&root, adapted)?;
    Ok(vec![format!(
        "pom.xml: net.bytebuddy:byte-buddy and byte-buddy-agent pinned to {BYTE_BUDDY_SUBSTITUTE} \
         in <dependencyManagement> (the Byte Buddy that Mockito brings for the task's JDK cannot \
         define classes on the substitute JDK, so no mock could be made)"
    )])
}

/// Whether a Java source of `project` (outside build output and hidden folders) names a package
/// that starts with one of `packages` in an import.
fn sources_import(project: &Path, packages: &[&str]) -> bool {
    walkdir::WalkDir::new(project)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.') || (e.file_type().is_dir() && name == "target"))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
        .any(|e| {
            std::fs::read_to_string(e.path()).is_ok_and(|text| {
                text.lines().any(|line| {
                    let line = line.trim_start();
                    let Some(rest) = line.strip_prefix("import ") else {
                        return false;
                    };
                    let name = rest
                        .trim_start()
                        .strip_prefix("static ")
                        .unwrap_or(rest)
                        .trim_start();
                    packages.iter().any(|p| name.starts_with(p))
                })
            })
        })
}

/// The root pom's text with Byte Buddy pinned in its top-level `<dependencyManagement>` (made
/// where there is none); `None` when the text has no place for it.
fn pin_byte_buddy_in(text: &str) -> Option<String> {
    let entries: String = ["byte-buddy", "byte-buddy-agent"]
        .iter()
        .map(|artifact| {
            format!(
                "<dependency><groupId>net.bytebuddy</groupId><artifactId>{artifact}</artifactId>\
                 <version>{BYTE_BUDDY_SUBSTITUTE}</version></dependency>"
            )
        })
        .collect();
    insert_in_pom(
        text,
        &["project", "dependencyManagement", "dependencies"],
        &entries,
    )
}

/// The maven-bundle-plugin that stands in for an older one under a substitute JDK: the bnd in
/// releases before 5 fails on JDK 17 (`ConcurrentModificationException` in the `manifest` goal,
/// which Apache Commons' parent poms bind to every build: commons-configuration, VUL4J-9).
pub const BUNDLE_PLUGIN_SUBSTITUTE: &str = "5.1.9";

/// Under a substitute JDK, where the project's poms or their parents in `repository` use
/// `org.apache.felix:maven-bundle-plugin` at a version before 5 (written out or through a
/// property), pins it to [`BUNDLE_PLUGIN_SUBSTITUTE`]: in the root pom's `<pluginManagement>`
/// (which overrides an inherited version) and in place of each old version the project's poms
/// write themselves. Returns the notes, if it did.
pub fn pin_bundle_plugin(project: &Path, repository: &Path) -> std::io::Result<Vec<String>> {
    let root = project.join("pom.xml");
    let Ok(text) = std::fs::read_to_string(&root) else {
        return Ok(Vec::new());
    };
    let own: Vec<String> = crate::reactor::walk_poms(project)
        .iter()
        .filter_map(|pom| std::fs::read_to_string(pom).ok())
        .collect();
    let ancestors: Vec<String> = crate::older_api::ancestor_poms(&text, repository)
        .into_iter()
        .map(|(_, pom)| pom)
        .collect();
    let all: Vec<&str> = own.iter().chain(&ancestors).map(String::as_str).collect();
    let Some(old) = all
        .iter()
        .filter_map(|pom| bundle_plugin_version(pom, &all))
        .find(|v| is_before_5(v))
    else {
        return Ok(Vec::new());
    };
    let mut notes = adapt_poms(project, |pom| {
        let (adapted, replaced) = replace_bundle_plugin_versions(pom);
        let notes = if replaced {
            vec![format!(
                "maven-bundle-plugin {old} replaced by {BUNDLE_PLUGIN_SUBSTITUTE} (the bnd of releases before 5 fails on the substitute JDK)"
            )]
        } else {
            Vec::new()
        };
        (adapted, notes)
    })?;
    let text = std::fs::read_to_string(&root)?;
    if let Some(adapted) = manage_bundle_plugin_in(&text) {
        std::fs::write(&root, adapted)?;
        notes.push(format!(
            "pom.xml: org.apache.felix:maven-bundle-plugin {BUNDLE_PLUGIN_SUBSTITUTE} in <pluginManagement> over the inherited {old} (the bnd of releases before 5 fails on the substitute JDK with ConcurrentModificationException)"
        ));
    }
    Ok(notes)
}

/// The version a pom gives maven-bundle-plugin, a `${property}` resolved in any of `poms`.
fn bundle_plugin_version(pom: &str, poms: &[&str]) -> Option<String> {
    let at = pom.find("<artifactId>maven-bundle-plugin</artifactId>")?;
    let rest = &pom[at..];
    let end = rest.find("</plugin>").unwrap_or(rest.len());
    let open = rest[..end].find("<version>")? + "<version>".len();
    let close = open + rest[open..].find("</version>")?;
    let version = rest[open..close].trim();
    match version.strip_prefix("${").and_then(|v| v.strip_suffix('}')) {
        Some(property) => {
            let tag = format!("<{property}>");
            poms.iter().find_map(|p| {
                let at = p.find(&tag)? + tag.len();
                let len = p[at..].find('<')?;
                Some(p[at..at + len].trim().to_owned())
            })
        }
        None => Some(version.to_owned()),
    }
}

fn is_before_5(version: &str) -> bool {
    version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m < 5)
}

/// The pom with each literal maven-bundle-plugin version before 5 replaced, and whether one was.
fn replace_bundle_plugin_versions(pom: &str) -> (String, bool) {
    let marker = "<artifactId>maven-bundle-plugin</artifactId>";
    let mut out = String::with_capacity(pom.len());
    let mut rest = pom;
    let mut replaced = false;
    while let Some(at) = rest.find(marker) {
        let after = at + marker.len();
        out.push_str(&rest[..after]);
        rest = &rest[after..];
        let end = rest.find("</plugin>").unwrap_or(rest.len());
        if let Some(open) = rest[..end].find("<version>") {
            let start = open + "<version>".len();
            if let Some(len) = rest[start..].find("</version>") {
                let version = rest[start..start + len].trim();
                if is_before_5(version) {
                    out.push_str(&rest[..start]);
                    out.push_str(BUNDLE_PLUGIN_SUBSTITUTE);
                    rest = &rest[start + len..];
                    replaced = true;
                }
            }
        }
    }
    out.push_str(rest);
    (out, replaced)
}

/// The root pom with maven-bundle-plugin managed at [`BUNDLE_PLUGIN_SUBSTITUTE`] in its
/// top-level `<build>` (see [`manage_plugin_in`]).
fn manage_bundle_plugin_in(text: &str) -> Option<String> {
    let entry = format!(
        "<plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId>\
         <version>{BUNDLE_PLUGIN_SUBSTITUTE}</version></plugin>"
    );
    manage_plugin_in(text, "maven-bundle-plugin", &entry)
}

/// The root pom with the plug-in entry `entry` for `artifact` in its top-level
/// `<pluginManagement>` (made where there is none, in a `<build>` made where there is none);
/// `None` when the root pom manages the plug-in already or has no place for it.
fn manage_plugin_in(text: &str, artifact: &str, entry: &str) -> Option<String> {
    if let Some((open, close)) = element_span(text, &["project", "build", "pluginManagement"])
        && text[open..close].contains(&format!("<artifactId>{artifact}</artifactId>"))
    {
        return None;
    }
    insert_in_pom(
        text,
        &["project", "build", "pluginManagement", "plugins"],
        entry,
    )
}

/// The Nashorn that JavaScript in Ant scripts runs on from JDK 15, which removed the JDK's own.
pub const NASHORN: &str = "org.openjdk.nashorn:nashorn-core:15.4";

/// On a substitute JDK without Nashorn (15 and later), where the project's poms or their parents
/// in `repository` run JavaScript in an antrun `<script>` (Apache Sling's parent pom does, in
/// every build: sling-xss, VUL4J-25), gives maven-antrun-plugin [`NASHORN`] as a dependency in
/// the root pom's `<pluginManagement>`. Returns the note, if it did.
pub fn add_nashorn_to_antrun(project: &Path, repository: &Path) -> std::io::Result<Vec<String>> {
    let root = project.join("pom.xml");
    let Ok(text) = std::fs::read_to_string(&root) else {
        return Ok(Vec::new());
    };
    let scripts = |pom: &str| {
        pom.contains("maven-antrun-plugin")
            && pom
                .to_ascii_lowercase()
                .contains("<script language=\"javascript\"")
    };
    let own = crate::reactor::walk_poms(project)
        .iter()
        .any(|pom| std::fs::read_to_string(pom).is_ok_and(|t| scripts(&t)));
    let inherited = crate::older_api::ancestor_poms(&text, repository)
        .into_iter()
        .find(|(_, pom)| scripts(pom))
        .map(|(name, _)| name);
    let from = match (own, inherited) {
        (true, _) => "the project's poms".to_owned(),
        (false, Some(parent)) => parent,
        (false, None) => return Ok(Vec::new()),
    };
    let mut parts = NASHORN.split(':');
    let (Some(group), Some(artifact), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Ok(Vec::new());
    };
    let entry = format!(
        "<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-antrun-plugin</artifactId>\
         <dependencies><dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>\
         <version>{version}</version></dependency></dependencies></plugin>"
    );
    let Some(adapted) = manage_plugin_in(&text, "maven-antrun-plugin", &entry) else {
        return Ok(Vec::new());
    };
    std::fs::write(&root, adapted)?;
    Ok(vec![format!(
        "pom.xml: maven-antrun-plugin given {NASHORN} in <pluginManagement> (the JavaScript of an antrun <script> in {from} needs Nashorn, which the substitute JDK no longer has)"
    )])
}

/// Rewrites every `pom.xml` of `project` (build output and version-control folders aside) with
/// `adapt`; returns one note per changed file, relative to `project`.
pub(crate) fn adapt_poms(
    project: &Path,
    adapt: impl Fn(&str) -> (String, Vec<String>),
) -> std::io::Result<Vec<String>> {
    let mut notes = Vec::new();
    let walker = walkdir::WalkDir::new(project)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".git")));
    for entry in walker {
        let entry = entry?;
        if !entry.file_type().is_file() || entry.file_name() != "pom.xml" {
            continue;
        }
        let text = std::fs::read_to_string(entry.path())?;
        let (adapted, changes) = adapt(&text);
        if changes.is_empty() {
            continue;
        }
        std::fs::write(entry.path(), adapted)?;
        let relative = entry.path().strip_prefix(project).unwrap_or(entry.path());
        notes.push(format!("{}: {}", relative.display(), changes.join("; ")));
    }
    Ok(notes)
}

/// The modules JDK 11 removed (JEP 320): their APIs are on every JVM's boot class path again
/// under a substitution (see `access::REMOVED_PLATFORM_APIS`), but a JVM asked to add one of them
/// as a module does not start ("Module java.xml.bind not found").
const REMOVED_MODULES: [&str; 9] = [
    "java.activation",
    "java.corba",
    "java.se.ee",
    "java.transaction",
    "java.xml.bind",
    "java.xml.ws",
    "java.xml.ws.annotation",
    "jdk.xml.bind",
    "jdk.xml.ws",
];

/// [`drop_removed_modules_in`] for every `pom.xml` of `project`: for a JDK 11 or newer standing in
/// for an older one, whose JVMs would not start with a pom's `--add-modules java.xml.bind` (written
/// for JDK 9 and 10, as XStream's test `argLine` has it).
pub fn drop_removed_modules(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, drop_removed_modules_in)
}

/// The pom with the [`REMOVED_MODULES`] taken out of every `--add-modules` list (the option
/// dropped where none is left), and a note naming them.
fn drop_removed_modules_in(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut dropped: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("--add-modules") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "--add-modules".len()..];
        let separator = match after.chars().next() {
            Some('=') => "=",
            Some(' ') => " ",
            _ => {
                out.push_str("--add-modules");
                rest = after;
                continue;
            }
        };
        let list_start = separator.len();
        let list_len = after[list_start..]
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | ',' | '_' | '-')))
            .unwrap_or(after.len() - list_start);
        let list = &after[list_start..list_start + list_len];
        let (removed, kept): (Vec<&str>, Vec<&str>) = list
            .split(',')
            .filter(|m| !m.is_empty())
            .partition(|m| REMOVED_MODULES.contains(m));
        rest = &after[list_start + list_len..];
        if removed.is_empty() {
            out.push_str("--add-modules");
            out.push_str(separator);
            out.push_str(list);
            continue;
        }
        dropped.extend(removed.iter().map(|m| (*m).to_owned()));
        if kept.is_empty() {
            // The option goes, with one space beside it.
            if rest.starts_with(' ') {
                rest = &rest[1..];
            } else if out.ends_with(' ') {
                out.pop();
            }
        } else {
            out.push_str("--add-modules");
            out.push_str(separator);
            out.push_str(&kept.join(","));
        }
    }
    out.push_str(rest);
    let notes = match dropped.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "--add-modules {} dropped (modules JDK 11 removed; their APIs are on the boot class path)",
            dropped.join(",")
        )],
    };
    (out, notes)
}

/// Raises the language levels below `floor` in every `pom.xml` of `project` (build output and
/// version-control folders aside), and replaces the compilers the substitute cannot run. Returns
/// one note per changed file, relative to `project`.
pub fn raise_language_levels(
    project: &Path,
    floor: u32,
    level: &str,
) -> std::io::Result<Vec<String>> {
    adapt_poms(project, |text| {
        let (raised, mut changes) = raise_levels_in(text, floor, level);
        let (raised, replaced) = replace_old_compilers_in(&raised);
        changes.extend(replaced);
        let (raised, forks) = fork_from_command_line_in(&raised);
        changes.extend(forks);
        (raised, changes)
    })
}

/// Leaves the compiler plug-in's `<fork>` to the command line (`-Dmaven.compiler.fork`) where a
/// pom turns forking off, literally or through a property of its own (CXF's
/// `${cxf.compiler.fork}`): the configuration outranks the command line, so javac could not be
/// forked at `--release` (see `older_api`) and compiled against the substitute's own API. Without
/// that property Maven reads `false`, as before; a pom that forks (`true`) is left alone.
pub fn fork_from_command_line_in(text: &str) -> (String, Vec<String>) {
    const COMPILER: &str = "<artifactId>maven-compiler-plugin</artifactId>";
    const FROM_COMMAND_LINE: &str = "<fork>${maven.compiler.fork}</fork>";
    let mut out = String::with_capacity(text.len());
    let mut notes = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(COMPILER) {
        let block_end = rest[at..].find("</plugin>").map_or(rest.len(), |e| at + e);
        out.push_str(&rest[..at]);
        let mut block = rest[at..block_end].to_owned();
        let mut from = 0;
        while let Some(open) = block[from..].find("<fork>").map(|o| from + o) {
            let Some(close) = block[open..].find("</fork>").map(|c| open + c) else {
                break;
            };
            let value = block[open + "<fork>".len()..close].trim().to_owned();
            let off =
                value == "false" || (value.starts_with("${") && value != "${maven.compiler.fork}");
            if off {
                block.replace_range(open..close + "</fork>".len(), FROM_COMMAND_LINE);
                notes.push(format!(
                    "maven-compiler-plugin <fork>{value}</fork> left to -Dmaven.compiler.fork (javac is forked to compile at the task's --release)"
                ));
                from = open + FROM_COMMAND_LINE.len();
            } else {
                from = close;
            }
        }
        out.push_str(&block);
        rest = &rest[block_end..];
    }
    out.push_str(rest);
    (out, notes)
}

/// Plug-ins that fetch a file from a web address while the project builds (not from a
/// repository): download-maven-plugin's `wget`, which Apache HttpClient and CXF use for the
/// public suffix list.
const BUILD_DOWNLOADERS: [&str; 1] = ["download-maven-plugin"];

/// Plug-ins that drive `apt`, the annotation processing tool that left the JDK with JDK 8
/// (its processors run inside javac since JDK 6): MyFaces Tobago's, which Struts 2 uses to
/// write its tag library descriptors, and the Codehaus one.
const APT_DRIVERS: [&str; 2] = ["maven-apt-plugin", "apt-maven-plugin"];

/// Plug-ins that write a pom for installing and deploying beside the project's own pom
/// (`.flattened-pom.xml`): a test run, whose project is read-only outside `target/`, fails on
/// them (Apollo-1), and nothing a test run does reads what they write.
const POM_WRITERS: [&str; 1] = ["flatten-maven-plugin"];

/// [`skip_pom_writers_in`] for every `pom.xml` of `project`; one note per changed file.
pub fn skip_pom_writers(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, skip_pom_writers_in)
}

/// Binds every execution of a [`POM_WRITERS`] plug-in in one pom to the phase `none`.
pub fn skip_pom_writers_in(text: &str) -> (String, Vec<String>) {
    unbind_plugins_in(
        text,
        &POM_WRITERS,
        "it writes a pom for installing beside the project's pom, which test runs keep read-only and do not need",
    )
}

/// Plug-ins that start `rmic`, the RMI stub compiler JDK 15 removed. Since Java 5 the JVM makes
/// RMI stubs itself, so tests rarely need what it would write.
const RMIC_DRIVERS: [&str; 1] = ["rmic-maven-plugin"];

/// Binds every execution of a [`BUILD_DOWNLOADERS`] plug-in in one pom to the phase `none`, so
/// that it does not run (the plug-in's own `skip` exists only in some releases). Returns the text
/// and one note per plug-in whose executions were unbound.
pub fn skip_build_downloads_in(text: &str) -> (String, Vec<String>) {
    unbind_plugins_in(
        text,
        &BUILD_DOWNLOADERS,
        "it fetches a file from the web while the project builds, which an offline test run cannot",
    )
}

/// Binds every execution of an [`APT_DRIVERS`] plug-in in one pom to the phase `none`: on
/// JDK 8 and newer there is no `apt` for it to start. Returns the text and one note per plug-in.
pub fn skip_apt_in(text: &str) -> (String, Vec<String>) {
    unbind_plugins_in(
        text,
        &APT_DRIVERS,
        "it starts apt, which JDK 8 and newer do not have; what it would generate is missing",
    )
}

/// Binds every execution of an [`RMIC_DRIVERS`] plug-in in one pom to the phase `none`: from
/// JDK 15 on there is no `rmic` for it to run. Returns the text and one note per plug-in.
pub fn skip_rmic_in(text: &str) -> (String, Vec<String>) {
    unbind_plugins_in(
        text,
        &RMIC_DRIVERS,
        "it runs rmic, which JDK 15 and newer do not have; the JVM makes RMI stubs itself since Java 5",
    )
}

/// Every execution of each of `plugins` bound to the phase `none`, with one note per plug-in
/// saying how many and `why`.
fn unbind_plugins_in(text: &str, plugins: &[&str], why: &str) -> (String, Vec<String>) {
    let mut out = text.to_owned();
    let mut notes = Vec::new();
    for plugin in plugins {
        let (unbound, count) = unbind_executions(&out, plugin);
        if count > 0 {
            notes.push(format!(
                "{plugin}: {count} execution(s) bound to no phase ({why})"
            ));
        }
        out = unbound;
    }
    (out, notes)
}

/// The pom with every `<execution>` of the plug-in `artifact` bound to the phase `none` (its
/// `<phase>` rewritten, or one added), and how many there were.
fn unbind_executions(text: &str, artifact: &str) -> (String, usize) {
    unbind_executions_where(text, artifact, |_| true)
}

/// [`unbind_executions`] for the executions (their text, `<execution>…`) that `chosen` accepts;
/// the others are left as they are.
pub(crate) fn unbind_executions_where(
    text: &str,
    artifact: &str,
    chosen: impl Fn(&str) -> bool,
) -> (String, usize) {
    let marker = format!("<artifactId>{artifact}</artifactId>");
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut rest = text;
    while let Some(at) = rest.find(&marker) {
        let block_end = rest[at..].find("</plugin>").map_or(rest.len(), |e| at + e);
        let block = &rest[at..block_end];
        let span = block
            .find("<executions>")
            .zip(block.find("</executions>"))
            .filter(|(open, close)| open < close);
        let Some((open, close)) = span else {
            out.push_str(&rest[..block_end]);
            rest = &rest[block_end..];
            continue;
        };
        out.push_str(&rest[..at + open]);
        let mut executions = &block[open..close];
        while let Some(start) = executions.find("<execution>") {
            let Some(len) = executions[start..].find("</execution>") else {
                break;
            };
            let execution = &executions[start..start + len];
            out.push_str(&executions[..start]);
            match (execution.find("<phase>"), execution.find("</phase>")) {
                _ if !chosen(execution) => out.push_str(execution),
                (Some(p), Some(q)) if execution[p + "<phase>".len()..q].trim() == "none" => {
                    out.push_str(execution);
                }
                (Some(p), Some(q)) if p < q => {
                    out.push_str(&execution[..p]);
                    out.push_str("<phase>none");
                    out.push_str(&execution[q..]);
                    count += 1;
                }
                _ => {
                    out.push_str("<execution><phase>none</phase>");
                    out.push_str(&execution["<execution>".len()..]);
                    count += 1;
                }
            }
            executions = &executions[start + len..];
        }
        out.push_str(executions);
        rest = &rest[at + close..];
    }
    out.push_str(rest);
    (out, count)
}

/// [`skip_build_downloads_in`] for every `pom.xml` of `project`; one note per changed file.
pub fn skip_build_downloads(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, skip_build_downloads_in)
}

/// [`skip_apt_in`] for every `pom.xml` of `project`; one note per changed file.
pub fn skip_apt(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, skip_apt_in)
}

/// [`skip_rmic_in`] for every `pom.xml` of `project`; one note per changed file.
pub fn skip_rmic(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, skip_rmic_in)
}

/// The Surefire release that first passes an empty `<systemPropertyVariables>` entry to the
/// tests as the empty string (SUREFIRE-649); the releases before it leave the property unset.
const SUREFIRE_PASSES_EMPTY: (u32, u32) = (2, 18);

/// avrlab runs its own Surefire ([`crate::maven::SUREFIRE_GOAL`]) with the pom's configuration.
/// Where a pom pins a Surefire before 2.18, the `<systemPropertyVariables>` entries that the pinned
/// release leaves unset are left out of that configuration: those empty as written, and those
/// that are only a `${property}` which the pom's own `<properties>` leave empty and no profile
/// with an `<activation>` sets (a profile avrlab cannot activate, one named only by `-P`, does
/// not count). Santuario (VUL4J-21) sets `javax.xml.bind.JAXBContext` so, and under the newer
/// Surefire the JAXB API looked for a factory class named "". Returns the text and the notes.
pub fn leave_empty_properties_unset_in(text: &str) -> (String, Vec<String>) {
    const SUREFIRE: &str = "<artifactId>maven-surefire-plugin</artifactId>";
    const OPEN: &str = "<systemPropertyVariables>";
    const CLOSE: &str = "</systemPropertyVariables>";
    let properties = element_span(text, &["project", "properties"])
        .map(|(open, close)| child_elements(&text[open..close]))
        .unwrap_or_default();
    let set_by_active_profiles: Vec<String> = text
        .split("<profile>")
        .skip(1)
        .filter_map(|profile| profile.split("</profile>").next())
        .filter(|profile| profile.contains("<activation>"))
        .filter_map(|profile| {
            let open = profile.find("<properties>")? + "<properties>".len();
            let close = open + profile[open..].find("</properties>")?;
            Some(child_elements(&profile[open..close]))
        })
        .flatten()
        .map(|child| child.name)
        .collect();
    let resolve = |value: &str| -> Option<String> {
        match value
            .trim()
            .strip_prefix("${")
            .and_then(|v| v.strip_suffix('}'))
        {
            Some(name) if set_by_active_profiles.iter().any(|n| n == name) => None,
            Some(name) => properties
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.value.trim().to_owned()),
            None => Some(value.trim().to_owned()),
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut notes = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(SUREFIRE) {
        let block_end = rest[at..].find("</plugin>").map_or(rest.len(), |e| at + e);
        let block = &rest[at..block_end];
        let version = block
            .split("<version>")
            .nth(1)
            .and_then(|v| v.split("</version>").next())
            .and_then(&resolve)
            .and_then(|v| release_of(&v));
        let variables = block.find(OPEN).and_then(|open| {
            let start = at + open + OPEN.len();
            rest[start..].find(CLOSE).map(|len| (start, start + len))
        });
        let (Some(version), Some((start, end))) = (version, variables) else {
            out.push_str(&rest[..block_end]);
            rest = &rest[block_end..];
            continue;
        };
        if version >= SUREFIRE_PASSES_EMPTY {
            out.push_str(&rest[..block_end]);
            rest = &rest[block_end..];
            continue;
        }
        out.push_str(&rest[..start]);
        let inner = &rest[start..end];
        let mut kept = 0;
        let mut dropped = Vec::new();
        for child in child_elements(inner) {
            if resolve(&child.value).is_some_and(|v| v.is_empty()) {
                out.push_str(&inner[kept..child.start]);
                kept = child.end;
                dropped.push(child.name);
            }
        }
        out.push_str(&inner[kept..]);
        if !dropped.is_empty() {
            notes.push(format!(
                "<systemPropertyVariables> {} left unset, as the pinned Surefire {}.{} leaves an empty value (avrlab's newer Surefire would set it to \"\")",
                dropped.join(", "),
                version.0,
                version.1
            ));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, notes)
}

/// `2.17` → (2, 17); `None` for anything else.
fn release_of(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim().split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().unwrap_or("0").parse().ok()?;
    Some((major, minor))
}

/// One child element of an XML fragment: where it sits (from its start tag to the end of its end
/// tag), its local name and its raw text (empty for `<name/>`).
#[derive(Debug)]
struct Child {
    start: usize,
    end: usize,
    name: String,
    value: String,
}

/// The top-level elements of `fragment` (the content of one element); what cannot be read as
/// XML ends the list there.
fn child_elements(fragment: &str) -> Vec<Child> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(fragment);
    let mut children = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<(usize, usize, String)> = None;
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(0);
        let Ok(event) = reader.read_event() else {
            break;
        };
        let after = usize::try_from(reader.buffer_position()).unwrap_or(0);
        match event {
            Event::Start(start) => {
                if depth == 0 {
                    let name: String = start.local_name().as_ref().to_owned();
                    open = Some((before, after, name));
                }
                depth += 1;
            }
            Event::Empty(empty) if depth == 0 => children.push(Child {
                start: before,
                end: after,
                name: empty.local_name().as_ref().to_owned(),
                value: String::new(),
            }),
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some((start, content, name)) = open.take()
                {
                    children.push(Child {
                        start,
                        end: after,
                        name,
                        value: fragment[content..before].to_owned(),
                    });
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    children
}

/// Leaves out, in every `pom.xml` of `project`, the Surefire system properties that the pinned
/// Surefire leaves unset (see [`leave_empty_properties_unset_in`]). Returns one note per file.
pub fn leave_empty_properties_unset(project: &Path) -> std::io::Result<Vec<String>> {
    adapt_poms(project, leave_empty_properties_unset_in)
}

/// Where the first element at `path` (local names from the root, `["project", "build"]`) sits in
/// a pom: the end of its start tag and the start of its end tag. Read as XML, so that an element
/// of the same name elsewhere (a plug-in's `<dependencies>`, a profile's `<build>`) is never taken
/// for it; `None` where there is no such element or the text is not well-formed up to it.
fn element_span(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut at: Vec<String> = Vec::new();
    let mut open: Option<usize> = None;
    loop {
        let before = usize::try_from(reader.buffer_position()).ok()?;
        match reader.read_event().ok()? {
            Event::Start(start) => {
                at.push(start.local_name().as_ref().to_owned());
                if open.is_none() && at == path {
                    open = Some(usize::try_from(reader.buffer_position()).ok()?);
                }
            }
            Event::End(_) => {
                if let Some(open) = open
                    && at == path
                {
                    return Some((open, before));
                }
                at.pop();
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The pom with `content` put first inside the element at `path`, which is made (with the
/// elements above it that are missing) where there is none; the root `project` takes new
/// elements before its end tag. `None` when the text has no `project` element.
pub(crate) fn insert_in_pom(text: &str, path: &[&str], content: &str) -> Option<String> {
    if let Some((open, close)) = element_span(text, path) {
        let at = if path.len() == 1 { close } else { open };
        return Some(format!("{}{content}{}", &text[..at], &text[at..]));
    }
    let (name, parent) = path.split_last()?;
    if parent.is_empty() {
        return None;
    }
    insert_in_pom(text, parent, &format!("<{name}>{content}</{name}>\n  "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_jdk_11_removed_leave_add_modules_lists() {
        let pom = "<surefire.argline>--add-modules java.activation,java.xml.bind --illegal-access=permit</surefire.argline>\
                   <argLine>--add-modules=java.xml.ws,jdk.incubator.foo -Xmx1g</argLine>\
                   <arg>--add-modules</arg><arg>java.sql</arg>";
        let (out, notes) = drop_removed_modules_in(pom);
        assert_eq!(
            out,
            "<surefire.argline>--illegal-access=permit</surefire.argline>\
             <argLine>--add-modules=jdk.incubator.foo -Xmx1g</argLine>\
             <arg>--add-modules</arg><arg>java.sql</arg>"
        );
        assert_eq!(
            notes,
            [
                "--add-modules java.activation,java.xml.bind,java.xml.ws dropped (modules JDK 11 removed; their APIs are on the boot class path)"
            ]
        );
        assert_eq!(drop_removed_modules_in(&out), (out.clone(), Vec::new()));
    }

    #[test]
    fn a_build_time_download_is_bound_to_no_phase() {
        let pom = "<plugins><plugin><artifactId>download-maven-plugin</artifactId><version>1.2.0</version>\
            <executions><execution><id>psl</id><phase>generate-sources</phase><goals><goal>wget</goal></goals>\
            </execution><execution><id>other</id><goals><goal>wget</goal></goals></execution></executions>\
            </plugin><plugin><artifactId>maven-jar-plugin</artifactId><executions><execution>\
            <phase>package</phase></execution></executions></plugin></plugins>";
        let (out, notes) = skip_build_downloads_in(pom);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("2 execution(s)"), "{notes:?}");
        assert!(out.contains("<id>psl</id><phase>none</phase>"), "{out}");
        assert!(
            out.contains("<execution><phase>none</phase><id>other</id>"),
            "{out}"
        );
        assert!(
            out.contains("<phase>package</phase>"),
            "another plug-in is left alone: {out}"
        );
        let (again, more) = skip_build_downloads_in(&out);
        assert_eq!(again.matches("<phase>none</phase>").count(), 2, "{again}");
        assert_eq!(
            (again.clone(), more),
            (out, Vec::new()),
            "binding to none again changes nothing"
        );
        assert_eq!(
            skip_build_downloads_in("<project/>"),
            ("<project/>".to_owned(), Vec::new())
        );
    }

    #[test]
    fn an_apt_driver_is_bound_to_no_phase_and_other_plugins_are_not() {
        // Struts 2.3's core pom, cut down: Tobago's apt plug-in after the compiler.
        let pom = "<plugins><plugin><artifactId>maven-compiler-plugin</artifactId><executions>\
            <execution><phase>compile</phase></execution></executions></plugin><plugin>\
            <groupId>org.apache.myfaces.tobago</groupId><artifactId>maven-apt-plugin</artifactId>\
            <executions><execution><phase>generate-resources</phase><goals><goal>execute</goal>\
            </goals></execution></executions></plugin></plugins>";
        let (out, notes) = skip_apt_in(pom);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("maven-apt-plugin: 1 execution(s)"),
            "{notes:?}"
        );
        assert!(out.contains("<phase>compile</phase>"), "{out}");
        assert!(!out.contains("generate-resources"), "{out}");
        assert_eq!(skip_apt_in(&out), (out.clone(), Vec::new()));
        assert_eq!(skip_build_downloads_in(pom), (pom.to_owned(), Vec::new()));
        assert_eq!(skip_rmic_in(pom), (pom.to_owned(), Vec::new()));
    }

    #[test]
    fn a_pom_writer_is_bound_to_no_phase() {
        // Apollo's root pom, cut down.
        let pom = "<plugin><groupId>org.codehaus.mojo</groupId><artifactId>flatten-maven-plugin</artifactId>\
            <version>1.1.0</version><executions><execution><id>flatten</id><phase>process-resources</phase>\
            <goals><goal>flatten</goal></goals></execution><execution><id>flatten.clean</id>\
            <phase>clean</phase><goals><goal>clean</goal></goals></execution></executions></plugin>";
        let (out, notes) = skip_pom_writers_in(pom);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("flatten-maven-plugin: 2 execution(s)"),
            "{notes:?}"
        );
        assert!(!out.contains("process-resources"), "{out}");
        assert_eq!(skip_pom_writers_in(&out), (out.clone(), Vec::new()));
    }

    #[test]
    fn an_rmic_driver_is_bound_to_no_phase() {
        // Quartz's core pom (VJBench Quartz-1), cut down.
        let pom = "<plugin><groupId>org.codehaus.mojo</groupId><artifactId>rmic-maven-plugin</artifactId>\
            <version>1.1</version><executions><execution><id>rmic-process-classes</id>\
            <goals><goal>rmic</goal></goals></execution></executions></plugin>";
        let (out, notes) = skip_rmic_in(pom);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("rmic-maven-plugin: 1 execution(s)"),
            "{notes:?}"
        );
        assert!(
            out.contains("<execution><phase>none</phase><id>rmic-process-classes</id>"),
            "{out}"
        );
        assert_eq!(skip_apt_in(pom), (pom.to_owned(), Vec::new()));
    }

    /// Santuario's pom (VUL4J-21), cut down: Surefire 2.17 in `<pluginManagement>`, a system
    /// property from a property left empty unless a profile named only by `-P` sets it.
    const OLD_SUREFIRE: &str = "<project><profiles>\
        <profile><id>moxy</id><properties><jaxb.class>org.Moxy</jaxb.class></properties></profile>\
        <profile><id>jdk</id><activation><jdk>1.8</jdk></activation><properties><maybe>x</maybe></properties></profile>\
        </profiles><properties><jaxb.class /><maybe></maybe><sf>2.17</sf></properties>\
        <build><pluginManagement><plugins><plugin>\
        <artifactId>maven-surefire-plugin</artifactId><version>${sf}</version><configuration>\
        <systemPropertyVariables>\
        <product.version>${project.version}</product.version>\
        <javax.xml.bind.JAXBContext>${jaxb.class}</javax.xml.bind.JAXBContext>\
        <empty/><blank>  </blank><by.profile>${maybe}</by.profile>\
        </systemPropertyVariables></configuration></plugin></plugins></pluginManagement></build></project>";

    #[test]
    fn an_older_surefire_leaves_empty_system_properties_unset_and_a_newer_one_is_left_alone() {
        let (out, notes) = leave_empty_properties_unset_in(OLD_SUREFIRE);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("javax.xml.bind.JAXBContext, empty, blank left unset")
                && notes[0].contains("Surefire 2.17"),
            "{notes:?}"
        );
        assert!(
            !out.contains("JAXBContext") && !out.contains("<empty/>"),
            "{out}"
        );
        assert!(
            out.contains("<product.version>${project.version}</product.version>")
                && out.contains("<by.profile>${maybe}</by.profile>"),
            "a property that is not empty here, or that an activated profile may set, stays: {out}"
        );
        assert_eq!(leave_empty_properties_unset_in(&out).1.len(), 0);
        for newer in ["2.18", "3.2.5"] {
            let pom = OLD_SUREFIRE.replace("<sf>2.17</sf>", &format!("<sf>{newer}</sf>"));
            assert_eq!(
                leave_empty_properties_unset_in(&pom),
                (pom.clone(), Vec::new())
            );
        }
        let unpinned = OLD_SUREFIRE.replace("<version>${sf}</version>", "");
        assert_eq!(leave_empty_properties_unset_in(&unpinned).1.len(), 0);
    }

    #[test]
    fn a_compiler_fork_turned_off_is_left_to_the_command_line() {
        let pom = "<plugin><artifactId>maven-compiler-plugin</artifactId><configuration>\
                   <fork>${cxf.compiler.fork}</fork></configuration><executions><execution>\
                   <configuration><fork>true</fork></configuration></execution></executions></plugin>\
                   <plugin><artifactId>other</artifactId><fork>false</fork></plugin>\
                   <plugin><artifactId>maven-compiler-plugin</artifactId><fork>false</fork></plugin>";
        let (out, notes) = fork_from_command_line_in(pom);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(
            out.matches("<fork>${maven.compiler.fork}</fork>").count(),
            2,
            "{out}"
        );
        assert!(out.contains("<fork>true</fork>"), "{out}");
        assert!(
            out.contains("<artifactId>other</artifactId><fork>false</fork>"),
            "{out}"
        );
        assert_eq!(fork_from_command_line_in(&out).1.len(), 0);
    }

    #[test]
    fn byte_buddy_is_pinned_where_the_project_manages_or_declares_dependencies() {
        let managed = "<project><dependencyManagement><dependencies><dependency>x</dependency>\
                       </dependencies></dependencyManagement><dependencies></dependencies></project>";
        let out = pin_byte_buddy_in(managed).unwrap();
        assert!(out.starts_with(
            "<project><dependencyManagement><dependencies><dependency><groupId>net.bytebuddy</groupId>\
             <artifactId>byte-buddy</artifactId><version>1.14.12</version></dependency>"
        ));
        assert!(
            out.contains("<artifactId>byte-buddy-agent</artifactId><version>1.14.12</version>")
        );
        assert!(out.ends_with("<dependency>x</dependency></dependencies></dependencyManagement><dependencies></dependencies></project>"));
        // No management yet: a block of its own in the project, not inside the build's
        // plug-in dependencies.
        let plain = "<project><build><plugins><plugin><dependencies></dependencies></plugin>\
                     </plugins></build><dependencies><dependency>y</dependency></dependencies></project>";
        let out = pin_byte_buddy_in(plain).unwrap();
        let (open, close) =
            element_span(&out, &["project", "dependencyManagement", "dependencies"]).unwrap();
        assert!(out[open..close].contains("byte-buddy-agent"), "{out}");
        assert!(
            out.contains("<dependencies><dependency>y</dependency></dependencies>"),
            "{out}"
        );
    }

    /// Real poms put `<dependencyManagement>` after `<profiles>` (Openfire) and `<dependencies>`
    /// in places other than `<build>` (CXF's `<reporting>` plug-ins): the pin goes into the
    /// project's own management, once, and the pom stays one Maven can read.
    #[test]
    fn pins_go_into_the_projects_own_elements_wherever_the_pom_puts_them() {
        let openfire = "<project><profiles><profile><dependencyManagement><dependencies>\
            </dependencies></dependencyManagement></profile></profiles>\
            <dependencyManagement><dependencies><dependency>a</dependency></dependencies>\
            </dependencyManagement></project>";
        let out = pin_byte_buddy_in(openfire).unwrap();
        assert_eq!(out.matches("<dependencyManagement>").count(), 2, "{out}");
        let (open, close) =
            element_span(&out, &["project", "dependencyManagement", "dependencies"]).unwrap();
        assert!(
            out[open..close].contains("byte-buddy") && out[open..close].contains("a</dependency>"),
            "{out}"
        );
        let cxf = "<project><reporting><plugins><plugin><dependencies><dependency>r</dependency>\
            </dependencies></plugin></plugins></reporting><dependencies><dependency>d</dependency>\
            </dependencies></project>";
        let out = pin_byte_buddy_in(cxf).unwrap();
        let (open, close) = element_span(&out, &["project", "reporting"]).unwrap();
        assert!(!out[open..close].contains("byte-buddy"), "{out}");
        assert!(element_span(&out, &["project", "dependencyManagement", "dependencies"]).is_some());
        // A plug-in managed in a profile's build is not the project's: managed again at the top.
        let profiled = "<project><profiles><profile><build><pluginManagement><plugins><plugin>\
            <artifactId>maven-bundle-plugin</artifactId></plugin></plugins></pluginManagement>\
            </build></profile></profiles></project>";
        let out = manage_bundle_plugin_in(profiled).unwrap();
        let (open, close) =
            element_span(&out, &["project", "build", "pluginManagement", "plugins"]).unwrap();
        assert!(out[open..close].contains("5.1.9"), "{out}");
        assert_eq!(manage_bundle_plugin_in(&out), None, "managed once");
    }

    #[test]
    fn byte_buddy_is_pinned_only_for_projects_that_use_mockito() {
        let dir = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        let pom = dir.path().join("pom.xml");
        std::fs::write(&pom, "<project><dependencies><dependency><groupId>junit</groupId></dependency></dependencies></project>").unwrap();
        assert!(
            pin_byte_buddy(dir.path(), repository.path())
                .unwrap()
                .is_empty()
        );
        std::fs::write(&pom, "<project><dependencies><dependency><groupId>org.mockito</groupId></dependency></dependencies></project>").unwrap();
        let notes = pin_byte_buddy(dir.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with(
            "pom.xml: net.bytebuddy:byte-buddy and byte-buddy-agent pinned to 1.14.12"
        ));
        // Pinned once: the project now manages Byte Buddy itself.
        assert!(
            pin_byte_buddy(dir.path(), repository.path())
                .unwrap()
                .is_empty()
        );
    }

    /// Mockito that another dependency brings (Spring Boot's test starter): no pom names it, the
    /// tests import it. A comment or a string that names it is no import.
    #[test]
    fn byte_buddy_is_pinned_where_the_tests_import_mockito() {
        let dir = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pom.xml"),
            "<project><dependencies><dependency><groupId>org.springframework.boot</groupId>\
             <artifactId>spring-boot-starter-test</artifactId></dependency></dependencies></project>",
        )
        .unwrap();
        let test = dir.path().join("src/test/java/a/ServiceTest.java");
        std::fs::create_dir_all(test.parent().unwrap()).unwrap();
        std::fs::write(
            &test,
            "package a;\n// uses org.mockito.Mockito elsewhere\nclass ServiceTest { String s = \"import org.mockito.Mock;\"; }\n",
        )
        .unwrap();
        // Build output is not the project's source.
        let output = dir.path().join("target/generated-test-sources/B.java");
        std::fs::create_dir_all(output.parent().unwrap()).unwrap();
        std::fs::write(&output, "import org.mockito.Mock;\n").unwrap();
        assert!(
            pin_byte_buddy(dir.path(), repository.path())
                .unwrap()
                .is_empty()
        );
        std::fs::write(
            &test,
            "package a;\n\nimport static org.mockito.Mockito.mock;\n\nclass ServiceTest {}\n",
        )
        .unwrap();
        let notes = pin_byte_buddy(dir.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn byte_buddy_is_pinned_where_a_parent_pom_brings_mockito() {
        let dir = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pom.xml"),
            "<project><parent><groupId>org.example</groupId><artifactId>base</artifactId>\
             <version>2</version></parent><artifactId>app</artifactId></project>",
        )
        .unwrap();
        assert!(
            pin_byte_buddy(dir.path(), repository.path())
                .unwrap()
                .is_empty()
        );
        let parent = repository.path().join("org/example/base/2");
        std::fs::create_dir_all(&parent).unwrap();
        std::fs::write(
            parent.join("base-2.pom"),
            "<project><dependencies><dependency><groupId>org.mockito</groupId>\
             <artifactId>mockito-core</artifactId></dependency></dependencies></project>",
        )
        .unwrap();
        let notes = pin_byte_buddy(dir.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn levels_below_the_floor_are_raised_and_the_rest_kept() {
        let pom = "<plugin><configuration>\n  <source>1.5</source>\n  <target>1.5</target>\n  \
                   <encoding>UTF-8</encoding>\n</configuration></plugin>\n\
                   <properties><maven.compiler.source>1.6</maven.compiler.source>\
                   <java.version>1.5</java.version></properties>\n\
                   <plugin><configuration><source>${jdk}</source><target>11</target>\
                   </configuration></plugin>";
        let (out, notes) = raise_levels_in(pom, 7, "1.7");
        assert_eq!(
            out,
            "<plugin><configuration>\n  <source>1.7</source>\n  <target>1.7</target>\n  \
             <encoding>UTF-8</encoding>\n</configuration></plugin>\n\
             <properties><maven.compiler.source>1.7</maven.compiler.source>\
             <java.version>1.5</java.version></properties>\n\
             <plugin><configuration><source>${jdk}</source><target>11</target>\
             </configuration></plugin>"
        );
        assert_eq!(
            notes,
            vec![
                "<source>1.5</source> raised to 1.7",
                "<target>1.5</target> raised to 1.7",
                "<maven.compiler.source>1.6</maven.compiler.source> raised to 1.7",
            ]
        );
        let (same, none) = raise_levels_in(&out, 7, "1.7");
        assert_eq!((same.as_str(), none.len()), (out.as_str(), 0));
    }

    /// retrofit (VUL4J-76) compiles through error-prone's bundled javac, which cannot read JDK
    /// 17's module image; the substitute's javac compiles it instead.
    #[test]
    fn an_error_prone_compiler_gives_way_to_javac() {
        let pom = "<plugin><artifactId>maven-compiler-plugin</artifactId><configuration>\
                   <compilerId>javac-with-errorprone</compilerId>\
                   <forceJavacCompilerUse>true</forceJavacCompilerUse></configuration></plugin>";
        let (out, notes) = replace_old_compilers_in(pom);
        assert_eq!(
            out,
            pom.replace(
                "<compilerId>javac-with-errorprone</compilerId>",
                "<compilerId>javac</compilerId><fork>true</fork>"
            )
        );
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with(
                "<compilerId>javac-with-errorprone</compilerId> replaced by javac, forked"
            ),
            "{notes:?}"
        );
        let (same, none) = replace_old_compilers_in(&out);
        assert_eq!((same, none.len()), (out, 0));
    }

    /// plexus-utils (VUL4J-42) tests with JUnit 3.8.2, whose Surefire provider runs whole
    /// classes; JUnit 4.13.2 runs the same tests and lets Surefire select methods.
    #[test]
    fn junit_3_gives_way_to_junit_4_and_nothing_else_changes() {
        let pom = "<dependencies><dependency><groupId>junit</groupId>\
                   <artifactId>junit</artifactId><version>3.8.2</version>\
                   <scope>test</scope></dependency><dependency><groupId>x</groupId>\
                   <artifactId>y</artifactId><version>3.1</version></dependency></dependencies>";
        let (out, notes) = replace_junit3_in(pom);
        assert_eq!(out, pom.replacen("3.8.2", "4.13.2", 1));
        assert_eq!(
            notes,
            [
                "junit:junit 3.8.2 replaced by 4.13.2 (it runs the JUnit 3 tests as they are, and Surefire selects single test methods only with JUnit 4)"
            ]
        );
        let (same, none) = replace_junit3_in(&out);
        assert_eq!((same, none.len()), (out, 0));
        let junit4 = pom.replace("3.8.2", "4.12");
        assert_eq!(replace_junit3_in(&junit4), (junit4.clone(), vec![]));
        // A 3.x dependency that only excludes JUnit is not JUnit (CXF's parent pom).
        let excluding = "<dependency><groupId>org.apache.maven.plugin-tools</groupId>\
                         <artifactId>maven-plugin-annotations</artifactId><version>3.4</version>\
                         <exclusions><exclusion><groupId>junit</groupId>\
                         <artifactId>junit</artifactId></exclusion></exclusions></dependency>";
        assert_eq!(replace_junit3_in(excluding), (excluding.to_owned(), vec![]));
        // Written through a property the same pom sets (XStream's `${version.junit}`).
        let through = "<properties><version.junit>3.8.1</version.junit><version.x>3.1</version.x>\
                       </properties><dependencyManagement><dependencies><dependency>\
                       <groupId>junit</groupId><artifactId>junit</artifactId>\
                       <version>${version.junit}</version></dependency></dependencies>\
                       </dependencyManagement>";
        let (out, notes) = replace_junit3_in(through);
        assert_eq!(out, through.replacen("3.8.1", "4.13.2", 1));
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("junit:junit 3.8.1 replaced by 4.13.2"),
            "{notes:?}"
        );
        assert_eq!(replace_junit3_in(&out), (out.clone(), vec![]));
    }

    /// plexus-utils (VUL4J-42) names no JUnit; its parent in the repository gives it 3.8.2. The
    /// root pom then declares 4.13.2, outside its build section.
    #[test]
    fn an_inherited_junit_3_is_overridden_in_the_root_pom() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("utils");
        std::fs::create_dir_all(&project).unwrap();
        let pom = "<project><parent><groupId>org.codehaus.plexus</groupId>\
                   <artifactId>plexus</artifactId><version>3.3.1</version></parent>\
                   <build><plugins/></build>\n</project>";
        std::fs::write(project.join("pom.xml"), pom).unwrap();
        let parent = dir
            .path()
            .join("repository/org/codehaus/plexus/plexus/3.3.1");
        std::fs::create_dir_all(&parent).unwrap();
        std::fs::write(
            parent.join("plexus-3.3.1.pom"),
            "<project><dependencies><dependency><groupId>junit</groupId>\
             <artifactId>junit</artifactId><version>3.8.2</version></dependency>\
             </dependencies></project>",
        )
        .unwrap();
        let notes = override_inherited_junit3(&project, &dir.path().join("repository")).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("org.codehaus.plexus:plexus:3.3.1"),
            "{notes:?}"
        );
        let adapted = std::fs::read_to_string(project.join("pom.xml")).unwrap();
        let (open, close) = element_span(&adapted, &["project", "dependencies"]).unwrap();
        assert_eq!(
            &adapted[open..close],
            "<dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
             <version>4.13.2</version><scope>test</scope></dependency>",
            "{adapted}"
        );
        // Now the project names JUnit itself: nothing more to do.
        assert!(
            override_inherited_junit3(&project, &dir.path().join("repository"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn every_pom_of_a_project_is_adapted_but_not_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("core/target")).unwrap();
        std::fs::write(root.join("pom.xml"), "<source>1.6</source>").unwrap();
        std::fs::write(root.join("core/pom.xml"), "<target>6</target>").unwrap();
        std::fs::write(root.join("core/target/pom.xml"), "<source>1.4</source>").unwrap();
        let notes = raise_language_levels(root, 8, "8").unwrap();
        assert_eq!(
            notes,
            vec![
                "core/pom.xml: <target>6</target> raised to 8",
                "pom.xml: <source>1.6</source> raised to 8",
            ]
        );
        assert_eq!(
            std::fs::read_to_string(root.join("core/target/pom.xml")).unwrap(),
            "<source>1.4</source>"
        );
    }

    #[test]
    fn an_inherited_old_bundle_plugin_is_managed_at_the_substitute() {
        let project = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        let parent = repository.path().join("org/example/parent/7");
        std::fs::create_dir_all(&parent).unwrap();
        std::fs::write(
            parent.join("parent-7.pom"),
            "<project><properties><felix.version>4.1.0</felix.version></properties><build><pluginManagement><plugins><plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>${felix.version}</version></plugin></plugins></pluginManagement></build></project>",
        )
        .unwrap();
        let pom = "<project><parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>7</version></parent><build><plugins/></build></project>";
        std::fs::write(project.path().join("pom.xml"), pom).unwrap();
        let notes = pin_bundle_plugin(project.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("over the inherited 4.1.0"), "{notes:?}");
        let adapted = std::fs::read_to_string(project.path().join("pom.xml")).unwrap();
        assert!(adapted.contains("<build><pluginManagement><plugins><plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>5.1.9</version>"), "{adapted}");
        // Done once: a second pass finds the plug-in managed already.
        assert!(
            pin_bundle_plugin(project.path(), repository.path())
                .unwrap()
                .iter()
                .all(|n| !n.contains("<pluginManagement>"))
        );
    }

    #[test]
    fn an_old_bundle_plugin_version_written_in_the_project_is_replaced_and_a_new_one_kept() {
        let old = "<plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>3.5.0</version></plugin>";
        let (adapted, replaced) = replace_bundle_plugin_versions(old);
        assert!(replaced);
        assert!(adapted.contains("<version>5.1.9</version>"), "{adapted}");
        let new = old.replace("3.5.0", "5.1.4");
        assert_eq!(replace_bundle_plugin_versions(&new), (new.clone(), false));
        assert!(!is_before_5("5.1.4") && is_before_5("4.1.0") && !is_before_5("${x}"));
    }

    #[test]
    fn javascript_in_an_inherited_antrun_script_gets_nashorn() {
        let project = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        let parent = repository.path().join("org/example/parent/30");
        std::fs::create_dir_all(&parent).unwrap();
        std::fs::write(
            parent.join("parent-30.pom"),
            "<project><build><plugins><plugin><artifactId>maven-antrun-plugin</artifactId><configuration><target><script language=\"javascript\">x</script></target></configuration></plugin></plugins></build></project>",
        )
        .unwrap();
        let pom = "<project><parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>30</version></parent><build><pluginManagement><plugins><plugin><artifactId>other</artifactId></plugin></plugins></pluginManagement></build></project>";
        std::fs::write(project.path().join("pom.xml"), pom).unwrap();
        let notes = add_nashorn_to_antrun(project.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("in org.example:parent:30 needs Nashorn"),
            "{notes:?}"
        );
        let adapted = std::fs::read_to_string(project.path().join("pom.xml")).unwrap();
        assert!(adapted.contains("<pluginManagement><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-antrun-plugin</artifactId><dependencies><dependency><groupId>org.openjdk.nashorn</groupId>"), "{adapted}");
        assert_eq!(adapted.matches("<pluginManagement>").count(), 1);
        // Once only.
        assert!(
            add_nashorn_to_antrun(project.path(), repository.path())
                .unwrap()
                .is_empty()
        );
    }
}
