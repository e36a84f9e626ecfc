//! What a failed build says went wrong, read from its console output: one short line per failure
//! for the warm-up's error, a compile phase's reason and `bench check`'s table.
//!
//! Maven, Gradle and Ant report a failed build only as console text (Surefire's XML covers tests,
//! not the build), so this is where their output is read. Each tool prints its cause in its own
//! shape, and buries it among generic lines ("-> [Help 1]", "re-run with -e"); one function per
//! tool picks the lines that name the cause. The verdicts never rest on this text: the exit
//! status decides, and this only explains it. The one decision read here is which test sources
//! a warm-up leaves out because they do not compile ([`compile_error_files`]); the build that
//! follows, judged by its exit status again, checks it.

use std::path::Path;

use avrlab_exec::ExitKind;

/// Longest summary kept: one or a few lines of a table or an error message.
const MAX_SUMMARY: usize = 600;

/// A build or test step killed as hung ([`ExitKind::Idle`]), with the test class its output
/// last said was starting: where to look first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hang {
    /// The idle limit it sat through.
    pub seconds: u64,
    /// The last test class the output named as starting, if any.
    pub last_test: Option<String>,
}

impl Hang {
    /// The hang of a step that ended with `exit` and printed `log`, if it was killed as idle.
    pub fn of(exit: ExitKind, log: &str) -> Option<Self> {
        match exit {
            ExitKind::Idle { seconds } => Some(Self {
                seconds,
                last_test: last_test_started(log),
            }),
            ExitKind::Code(_)
            | ExitKind::Signal(_)
            | ExitKind::TimedOut
            | ExitKind::OutputLimit
            | ExitKind::DiskLimit => None,
        }
    }
}

impl std::fmt::Display for Hang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "hung: no CPU and no output for {} s", self.seconds)?;
        match &self.last_test {
            Some(test) => write!(f, " (last test started: {test})"),
            None => Ok(()),
        }
    }
}

/// The last test class a build's output names as starting: Surefire's `Running a.b.CTest`
/// (after Maven's `[INFO]`) and Ant's `[junit] Running a.b.CTest`.
fn last_test_started(log: &str) -> Option<String> {
    log.lines().rev().find_map(|line| {
        let line = line.trim();
        let line = ["[INFO]", "[junit]"]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
            .unwrap_or(line)
            .trim_start();
        let class = line.strip_prefix("Running ")?.trim();
        let java_name = !class.is_empty()
            && class
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '$'));
        java_name.then(|| class.to_owned())
    })
}

/// Maven's lines that say nothing about this failure.
const MAVEN_NOISE: [&str; 9] = [
    "To see the full stack trace",
    "Re-run Maven using",
    "For more information about the errors",
    "[Help",
    "-> [Help",
    "COMPILATION ERROR",
    "After correcting the problems",
    "mvn <args>",
    "mvn <goals>",
];

/// Maven's lines that introduce the cause rather than naming it: the lines after them do.
fn is_maven_header(line: &str) -> bool {
    line.starts_with("Some problems were encountered while processing the POMs")
        || line.starts_with("The build could not read")
        // "The project a:b:1.0 (/w/pom.xml) has 2 errors"
        || (line.starts_with("The project ")
            && line.contains(" has ")
            && (line.ends_with(" error") || line.ends_with(" errors")))
}

/// Phrases of Maven's own messages that name why a project could not be built: a missing parent
/// or dependency, a download that failed, a plug-in that could not be loaded.
const MAVEN_CAUSES: [&str; 8] = [
    "Non-resolvable parent POM",
    "Non-resolvable import POM",
    "Could not resolve dependencies",
    "Could not find artifact",
    "Could not transfer artifact",
    "Failed to read artifact descriptor",
    "could not be resolved",
    "Unresolveable build extension",
];

/// The cause of a failed Maven build, on one line: the first compiler error with its file and
/// line, else the problem Maven found in a pom or a dependency (what follows "Some problems were
/// encountered while processing the POMs:", a parent or artifact it could not find), else the
/// first real error; followed by the "Failed to execute goal" line in parentheses when that is
/// not already the cause. Maven's help boilerplate is left out.
pub(crate) fn maven_failure(log: &str) -> String {
    let details: Vec<String> = log
        .lines()
        .filter_map(maven_message)
        .filter(|l| !l.is_empty() && !MAVEN_NOISE.iter().any(|n| l.starts_with(n)))
        .collect();
    let is_header = |l: &str| is_maven_header(l);
    let goal = details
        .iter()
        .position(|l| l.starts_with("Failed to execute goal"));
    let compiler = details.iter().position(|l| is_compiler_error(l));
    let after_header = details
        .iter()
        .position(|l| is_header(l))
        .and_then(|at| (at + 1..details.len()).find(|&i| !is_header(&details[i])));
    let named = details
        .iter()
        .position(|l| !is_header(l) && MAVEN_CAUSES.iter().any(|c| l.contains(c)));
    let enforcer = goal
        .filter(|&at| details[at].contains("Enforcer rules have failed"))
        .and_then(|_| enforcer_rule(log));
    let cause = compiler.or(after_header).or(named);
    let cause_text = |at: usize| match compiler {
        Some(error) if error == at => with_missing_name(&details[at], log),
        _ => details[at].clone(),
    };
    let summary = match (cause, goal) {
        (Some(cause), Some(goal)) if cause != goal => {
            format!("{} ({})", cause_text(cause), details[goal])
        }
        (Some(cause), _) => cause_text(cause),
        (None, Some(goal)) => match enforcer {
            Some(rule) => format!("{rule} ({})", details[goal]),
            // The cause is printed before the goal line (a compiler message) or after it (the
            // compiler plug-in's own list): whichever comes first.
            None if goal == 0 => match details.get(1).filter(|l| !is_header(l)) {
                Some(next) => format!("{next} ({})", details[0]),
                None => details[0].clone(),
            },
            // Test results printed before the goal of another plug-in failed (a warm-up goes on
            // past failing tests) are not its cause: the goal line alone is.
            None => match details[..goal]
                .iter()
                .zip(test_results(&details[..goal]))
                .find(|(_, result)| !result || is_test_goal(&details[goal]))
                .map(|(l, _)| l)
            {
                Some(first) => format!("{first} ({})", details[goal]),
                None => details[goal].clone(),
            },
        },
        (None, None) => details
            .iter()
            .find(|l| !is_header(l))
            .or(details.first())
            .cloned()
            .unwrap_or_else(|| last_line(log)),
    };
    capped(&summary)
}

/// The headings of the lists of failed tests in Surefire's results.
const LIST_HEADINGS: [&str; 4] = ["Failures:", "Errors:", "Tests in error:", "Failed tests:"];

/// A line of Surefire's report of failed tests (`Tests run: 9, Failures: 1 …`, `Failures:`).
fn is_test_result(line: &str) -> bool {
    [
        "Tests run:",
        "Failures:",
        "Errors:",
        "Tests in error:",
        "Failed tests:",
    ]
    .iter()
    .any(|p| line.starts_with(p))
        || line.contains("<<< FAILURE!")
        || line.contains("<<< ERROR!")
}

/// Which of Maven's error messages belong to Surefire's report of failed tests: the result
/// lines themselves, and the entries listed under its `Failures:`/`Errors:` headings up to the
/// `Tests run:` total that ends the list (`ATest.m:26->Base.b:41 » Configuration …`).
fn test_results(details: &[String]) -> Vec<bool> {
    let mut in_list = false;
    details
        .iter()
        .map(|line| {
            if line.starts_with("Tests run:") {
                in_list = false;
            } else if LIST_HEADINGS.contains(&line.trim_end()) {
                in_list = true;
            }
            is_test_result(line) || in_list
        })
        .collect()
}

/// Whether Maven's "Failed to execute goal" line is about a test plug-in's goal.
fn is_test_goal(line: &str) -> bool {
    line.contains("maven-surefire-plugin") || line.contains("maven-failsafe-plugin")
}

/// The message of a Maven `[ERROR]` or `[FATAL]` line, without the level (printed twice on
/// some lines: `[ERROR] [ERROR] Some problems …`) and without the trailing help link.
fn maven_message(line: &str) -> Option<String> {
    let line = without_ansi(line);
    let mut rest = line.trim_start();
    let mut leveled = false;
    while let Some(message) = ["[ERROR]", "[FATAL]"]
        .iter()
        .find_map(|level| rest.strip_prefix(level))
    {
        rest = message.trim_start();
        leveled = true;
    }
    if !leveled {
        return None;
    }
    let message = match rest.rfind(" -> [Help") {
        Some(at) => &rest[..at],
        None => rest,
    };
    Some(message.trim().to_owned())
}

/// `line` without terminal escape sequences (`ESC [ … letter`): Maven's console library writes
/// colour resets even in batch mode, before the level of some lines.
fn without_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\x1b') {
        return line.into();
    }
    let mut text = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        text.push(c);
    }
    text.into()
}

/// The first rule the Maven Enforcer plug-in names as failed: it prints them as warnings, and its
/// goal line says only "Some Enforcer rules have failed".
fn enforcer_rule(log: &str) -> Option<String> {
    log.lines()
        .filter_map(|l| l.trim_start().strip_prefix("[WARNING]"))
        .map(str::trim)
        .find(|l| l.starts_with("Rule ") && l.contains("failed"))
        .map(str::to_owned)
}

/// A javac error as Maven (`A.java:[12,5] message`), Gradle and Ant (`A.java:12: error: …`)
/// print it.
fn is_compiler_error(line: &str) -> bool {
    line.contains(".java:[") || (line.contains(".java:") && line.contains(": error:"))
}

/// A compiler error with what javac prints under it for a missing name: `A.java:[3,8] cannot find
/// symbol` becomes `A.java:[3,8] cannot find symbol (symbol: class ConstantPool, location:
/// package sun.reflect)`. A missing name in one of the JDK's own internal packages (`sun.*`,
/// `jdk.internal.*`, `com.sun.*.internal.*`) is said to be one: no repair of the project brings
/// it back, the JDK the project was written for has it.
fn with_missing_name(error: &str, log: &str) -> String {
    let lines: Vec<String> = log
        .lines()
        .map(|l| {
            let l = without_ansi(l);
            let l = l.trim();
            let l = ["[ERROR]", "[javac]"]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .unwrap_or(l);
            l.trim().to_owned()
        })
        .collect();
    let Some(at) = lines.iter().position(|l| l.starts_with(error)) else {
        return error.to_owned();
    };
    let named: Vec<String> = lines[at + 1..]
        .iter()
        // javac prints the source line and a caret first, Maven's compiler plug-in does not.
        .take(5)
        .filter(|l| l.starts_with("symbol:") || l.starts_with("location:"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    // `com.sun.` alone would take in libraries (`com.sun.mail`, `com.sun.xml.bind`).
    let internal = |text: &str| {
        text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            .any(|word| {
                word.starts_with("sun.")
                    || word.starts_with("jdk.internal.")
                    || (word.starts_with("com.sun.") && word.contains(".internal."))
            })
    };
    let mut out = error.to_owned();
    if !named.is_empty() {
        out.push_str(&format!(" ({})", named.join(", ")));
    }
    if internal(&out) {
        out.push_str(
            ": a JDK-internal API that the JDK here does not have; the build needs the older JDK \
             the project was written for",
        );
    }
    out
}

/// The Java files of `project` that a failed build's compiler named in its errors, each with its
/// first error (`A.java:[3,8] cannot find symbol`), in the order of the log; relative to
/// `project`. Warnings are not errors, and a file outside the project is not its source.
pub fn compile_error_files(log: &str, project: &Path) -> Vec<(String, String)> {
    let prefix = format!("{}/", project.display());
    let mut files: Vec<(String, String)> = Vec::new();
    for line in log.lines() {
        let line = without_ansi(line);
        let line = line.trim();
        if line.starts_with("[WARNING]") || line.starts_with("[INFO]") || !is_compiler_error(line) {
            continue;
        }
        // Maven prints a forked javac's errors as `[ERROR] /p/A.java:[3,8] error: …` (or
        // without the level, in its error block), its own as `[ERROR] /p/A.java:[3,8] …`, and a
        // forked javac's warnings bare (`/p/A.java:[20,15] Unsafe is internal proprietary API`);
        // Gradle and Ant as `/p/A.java:3: error: …`.
        let flagged = line.starts_with("[ERROR]");
        let line = line.strip_prefix("[ERROR]").map_or(line, str::trim_start);
        if !flagged && !line.contains("] error:") && !line.contains(": error:") {
            continue;
        }
        let Some(rest) = line.strip_prefix(&prefix) else {
            continue;
        };
        let Some(end) = rest.find(".java:") else {
            continue;
        };
        let (path, position) = rest.split_at(end + ".java".len());
        if !files.iter().any(|(known, _)| known == path) {
            let name = path.rsplit('/').next().unwrap_or(path);
            files.push((path.to_owned(), format!("{name}{position}")));
        }
    }
    files
}

/// The cause of a failed Gradle build: the first compiler error, else the text under Gradle's
/// first "* What went wrong:" (up to three lines, its `>` causes included), with the build file
/// and line of "* Where:" when Gradle names one.
pub(crate) fn gradle_failure(log: &str) -> String {
    let lines: Vec<&str> = log.lines().map(str::trim).collect();
    if let Some(error) = lines.iter().find(|l| is_compiler_error(l)) {
        return capped(&with_missing_name(error, log));
    }
    let section = |title: &str| -> Vec<&str> {
        let Some(at) = lines.iter().position(|l| *l == title) else {
            return Vec::new();
        };
        lines[at + 1..]
            .iter()
            .take_while(|l| !l.is_empty() && !l.starts_with("* "))
            .copied()
            .collect()
    };
    let wrong: Vec<&str> = section("* What went wrong:")
        .into_iter()
        // Where Gradle looked for a missing artifact is a list of URLs: long, and the same for
        // every artifact.
        .take_while(|l| !l.starts_with("Searched in the following locations"))
        .take(3)
        .collect();
    if wrong.is_empty() {
        return capped(&last_line(log));
    }
    let mut summary = wrong.join(" ");
    if let Some(place) = section("* Where:").first() {
        summary.push_str(&format!(" ({place})"));
    }
    capped(&summary)
}

/// The cause of a failed Ant build: `BUILD FAILED` and the line after it (the build file, its
/// line and the task's message), preceded by the first compiler error when there is one.
pub(crate) fn ant_failure(log: &str) -> String {
    let lines: Vec<&str> = log.lines().map(str::trim).collect();
    let failed = lines.iter().position(|l| *l == "BUILD FAILED").map(|at| {
        match lines.get(at + 1).filter(|l| !l.is_empty()) {
            Some(next) => format!("BUILD FAILED: {next}"),
            None => "BUILD FAILED".to_owned(),
        }
    });
    let compiler = lines
        .iter()
        .map(|l| l.trim_start_matches("[javac]").trim())
        .find(|l| is_compiler_error(l));
    let compiler = compiler.map(|error| with_missing_name(error, log));
    let summary = match (compiler, failed) {
        (Some(error), Some(failed)) => format!("{error} ({failed})"),
        (Some(error), None) => error,
        (None, Some(failed)) => failed,
        (None, None) => last_line(log),
    };
    capped(&summary)
}

/// The last non-empty line of a log, for output none of the shapes above fits.
fn last_line(log: &str) -> String {
    log.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no output")
        .to_owned()
}

/// `text` cut at [`MAX_SUMMARY`] bytes, on a character boundary, marked where it was cut.
fn capped(text: &str) -> String {
    if text.len() <= MAX_SUMMARY {
        return text.to_owned();
    }
    let mut end = MAX_SUMMARY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_errors_name_the_files_of_the_project_once_each() {
        let project = Path::new("/w/p");
        let log = "[INFO] Compiling 12 source files to /w/p/target/test-classes\n\
                   [WARNING] /w/p/src/test/java/a/Old.java:[9,3] [deprecation] X in a has been deprecated\n\
                   [ERROR] COMPILATION ERROR : \n\
                   /w/p/src/test/java/a/Dto.java:[3,60] error: package com.sun.org.apache.xalan.internal.xsltc.compiler.util does not exist\n\
                   [ERROR] /w/p/src/test/java/a/FxTest.java:[5,30] error: package com.sun.javafx.sg.prism does not exist\n\
                   [ERROR] /w/p/src/test/java/a/FxTest.java:[40,9] cannot find symbol\n\
                   \u{1b}[1;31m[ERROR] /w/p/src/test/java/a/Plain.java:[7,1] cannot find symbol\n\
                   /w/other/src/A.java:[1,1] error: outside\n\
                   /w/p/src/main/java/a/Raw.java:[20,15] Unsafe is internal proprietary API and may be removed\n\
                   /w/p/src/test/java/a/Old.java:[35,12] [deprecation] X in a has been deprecated\n\
                   /w/p/sub/src/test/java/b/G.java:12: error: cannot find symbol\n\
                   [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.5.1:testCompile";
        let files = compile_error_files(log, project);
        assert_eq!(
            files,
            [
                ("src/test/java/a/Dto.java", "Dto.java:[3,60] error: package com.sun.org.apache.xalan.internal.xsltc.compiler.util does not exist"),
                ("src/test/java/a/FxTest.java", "FxTest.java:[5,30] error: package com.sun.javafx.sg.prism does not exist"),
                ("src/test/java/a/Plain.java", "Plain.java:[7,1] cannot find symbol"),
                ("sub/src/test/java/b/G.java", "G.java:12: error: cannot find symbol"),
            ]
            .map(|(p, e)| (p.to_owned(), e.to_owned()))
        );
        assert!(compile_error_files("[INFO] BUILD SUCCESS", project).is_empty());
    }

    /// Each case: a build's output in the shape the tool prints it, and the summary expected.
    #[test]
    fn maven_failures_name_their_cause() {
        let cases: [(&str, &str); 10] = [
            // A parent pom that only the project's own build would install.
            (
                "[INFO] Scanning for projects...\n\
                 [ERROR] [ERROR] Some problems were encountered while processing the POMs:\n\
                 [FATAL] Non-resolvable parent POM for org.x:x-server:4.0.0-SNAPSHOT: Could not find artifact org.x:x-parent:pom:4.0.0-SNAPSHOT and 'parent.relativePath' points at wrong local POM @ line 4, column 13\n \
                 @ \n\
                 [ERROR] The build could not read 1 project -> [Help 1]\n\
                 [ERROR]   \n\
                 [ERROR]   The project org.x:x-server:4.0.0-SNAPSHOT (/w/pom.xml) has 1 error\n\
                 [ERROR]     Non-resolvable parent POM for org.x:x-server:4.0.0-SNAPSHOT: Could not find artifact org.x:x-parent:pom:4.0.0-SNAPSHOT @ line 4, column 13 -> [Help 2]\n\
                 [ERROR] \n\
                 [ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n\
                 [ERROR] Re-run Maven using the -X switch to enable full debug logging.\n\
                 [ERROR] \n\
                 [ERROR] For more information about the errors and possible solutions, please read the following articles:\n\
                 [ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/ProjectBuildingException\n",
                "Non-resolvable parent POM for org.x:x-server:4.0.0-SNAPSHOT: Could not find \
                 artifact org.x:x-parent:pom:4.0.0-SNAPSHOT and 'parent.relativePath' points at \
                 wrong local POM @ line 4, column 13",
            ),
            // A compiler message printed before the goal line.
            (
                "[INFO] Compiling 40 source files\n\
                 [ERROR] COMPILATION ERROR : \n\
                 [ERROR] Source option 5 is no longer supported. Use 7 or later.\n\
                 [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.0:compile (default-compile) on project p: Compilation failure\n\
                 [ERROR] -> [Help 1]\n\
                 [ERROR] \n\
                 [ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n",
                "Source option 5 is no longer supported. Use 7 or later. (Failed to execute goal \
                 org.apache.maven.plugins:maven-compiler-plugin:3.0:compile (default-compile) on \
                 project p: Compilation failure)",
            ),
            // The compiler plug-in's list after the goal line: the first error with its place.
            (
                "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:2.0.2:compile on project jsoup: Compilation failure: Compilation failure:\n\
                 [ERROR] /w/src/main/java/org/jsoup/A.java:[3,8] cannot find symbol\n\
                 [ERROR] /w/src/main/java/org/jsoup/B.java:[9,1] ';' expected\n\
                 [ERROR] -> [Help 1]\n",
                "/w/src/main/java/org/jsoup/A.java:[3,8] cannot find symbol (Failed to execute \
                 goal org.apache.maven.plugins:maven-compiler-plugin:2.0.2:compile on project \
                 jsoup: Compilation failure: Compilation failure:)",
            ),
            // A dependency that is nowhere: the goal line itself says so.
            (
                "[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project a:p:jar:1.0: Could not find artifact a:q:jar:1.2-SNAPSHOT -> [Help 1]\n\
                 [ERROR] \n\
                 [ERROR] Re-run Maven using the -X switch to enable full debug logging.\n",
                "Failed to execute goal on project p: Could not resolve dependencies for project \
                 a:p:jar:1.0: Could not find artifact a:q:jar:1.2-SNAPSHOT",
            ),
            // The Enforcer names the failed rule only in a warning.
            (
                "[WARNING] Rule 0: org.apache.maven.plugins.enforcer.RequireJavaVersion failed with message:\n\
                 [ERROR] Failed to execute goal org.apache.maven.plugins:maven-enforcer-plugin:1.4:enforce (enforce) on project p: Some Enforcer rules have failed. Look above for specific messages explaining why the rule failed. -> [Help 1]\n",
                "Rule 0: org.apache.maven.plugins.enforcer.RequireJavaVersion failed with \
                 message: (Failed to execute goal \
                 org.apache.maven.plugins:maven-enforcer-plugin:1.4:enforce (enforce) on project \
                 p: Some Enforcer rules have failed. Look above for specific messages explaining \
                 why the rule failed.)",
            ),
            // A plug-in that cannot be loaded, named before the goal line's generic text.
            (
                "[ERROR] Plugin org.x:x-maven-plugin:1.0 or one of its dependencies could not be resolved: Could not find artifact org.x:x-maven-plugin:jar:1.0\n\
                 [ERROR] -> [Help 1]\n",
                "Plugin org.x:x-maven-plugin:1.0 or one of its dependencies could not be \
                 resolved: Could not find artifact org.x:x-maven-plugin:jar:1.0",
            ),
            // Failing tests reported before another plug-in's goal failed: the goal is the cause.
            (
                "[ERROR] Tests run: 709, Failures: 5, Errors: 0, Skipped: 0, Time elapsed: 15.32 s <<< FAILURE! -- in TestSuite\n\
                 [ERROR] a.BTest.testC -- Time elapsed: 0.009 s <<< FAILURE!\n\
                 [ERROR] Failed to execute goal org.x:maven-apt-plugin:1.0.15:execute (default) on project p: Error starting apt compiler -> [Help 1]\n",
                "Failed to execute goal org.x:maven-apt-plugin:1.0.15:execute (default) on project \
                 p: Error starting apt compiler",
            ),
            // The same, with Surefire's list of failures in its results before the goal line.
            (
                "[ERROR] Failures: \n\
                 [ERROR]   ATest.testB:26->Base.build:41 » Configuration Error loading a.xml\n\
                 [ERROR]   CTest.testD:371 expected:<1> but was:<2>\n\
                 [ERROR] Tests run: 709, Failures: 2, Errors: 0, Skipped: 0\n\
                 [ERROR] Failed to execute goal org.x:maven-apt-plugin:1.0.15:execute (default) on project p: Error starting apt compiler -> [Help 1]\n",
                "Failed to execute goal org.x:maven-apt-plugin:1.0.15:execute (default) on project \
                 p: Error starting apt compiler",
            ),
            // No Maven error at all (the process was killed): its last words.
            ("[INFO] Building p 1.0\nkilled\n\n", "killed"),
            // Colour resets that Maven 3.6 writes in batch mode before a level.
            (
                "\x1b[0m\x1b[0m[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project a:p:jar:1.0: Could not find artifact a:q:jar:1.2-SNAPSHOT -> [Help 1]\n\
                 \x1b[0m\x1b[0m",
                "Failed to execute goal on project p: Could not resolve dependencies for project \
                 a:p:jar:1.0: Could not find artifact a:q:jar:1.2-SNAPSHOT",
            ),
        ];
        for (log, expected) in cases {
            assert_eq!(maven_failure(log), expected, "for:\n{log}");
        }
        assert_eq!(maven_failure(""), "no output");
    }

    #[test]
    fn gradle_failures_name_what_went_wrong() {
        let cases: [(&str, &str); 3] = [
            (
                "> Task :compileJava FAILED\n\n\
                 FAILURE: Build failed with an exception.\n\n\
                 * What went wrong:\n\
                 Could not resolve all files for configuration ':compileClasspath'.\n\
                 > Could not find org.x:y:1.2-SNAPSHOT.\n  \
                 Searched in the following locations:\n    \
                 - https://repo.maven.apache.org/maven2/org/x/y/1.2-SNAPSHOT/y-1.2-SNAPSHOT.pom\n  \
                 Required by:\n      project :\n\n\
                 * Try:\n\
                 Run with --stacktrace option to get the stack trace.\n\n\
                 BUILD FAILED in 3s\n",
                "Could not resolve all files for configuration ':compileClasspath'. > Could not \
                 find org.x:y:1.2-SNAPSHOT.",
            ),
            (
                "FAILURE: Build failed with an exception.\n\n\
                 * Where:\n\
                 Build file '/w/build.gradle' line: 12\n\n\
                 * What went wrong:\n\
                 A problem occurred evaluating root project 'w'.\n\
                 > Could not find method compile() for arguments [x:y:1.0] on object of type DefaultDependencyHandler.\n\n\
                 * Try:\n",
                "A problem occurred evaluating root project 'w'. > Could not find method \
                 compile() for arguments [x:y:1.0] on object of type DefaultDependencyHandler. \
                 (Build file '/w/build.gradle' line: 12)",
            ),
            (
                "> Task :compileJava\n\
                 /w/src/main/java/a/A.java:12: error: cannot find symbol\n\
                 FAILURE: Build failed with an exception.\n\n\
                 * What went wrong:\n\
                 Execution failed for task ':compileJava'.\n\
                 > Compilation failed; see the compiler error output for details.\n",
                "/w/src/main/java/a/A.java:12: error: cannot find symbol",
            ),
        ];
        for (log, expected) in cases {
            assert_eq!(gradle_failure(log), expected, "for:\n{log}");
        }
        assert_eq!(gradle_failure("Killed\n"), "Killed");
    }

    #[test]
    fn ant_failures_name_the_failed_task() {
        let cases: [(&str, &str); 3] = [
            (
                "compile:\n    [javac] Compiling 3 source files to /w/build\n\n\
                 BUILD FAILED\n\
                 /w/build.xml:45: /w/lib does not exist.\n\n\
                 Total time: 1 second\n",
                "BUILD FAILED: /w/build.xml:45: /w/lib does not exist.",
            ),
            (
                "    [javac] /w/src/a/A.java:3: error: cannot find symbol\n\
                 \x20   [javac] 1 error\n\n\
                 BUILD FAILED\n\
                 /w/build.xml:20: Compile failed; see the compiler error output for details.\n",
                "/w/src/a/A.java:3: error: cannot find symbol (BUILD FAILED: /w/build.xml:20: \
                 Compile failed; see the compiler error output for details.)",
            ),
            ("Buildfile: /w/build.xml\n", "Buildfile: /w/build.xml"),
        ];
        for (log, expected) in cases {
            assert_eq!(ant_failure(log), expected, "for:\n{log}");
        }
    }

    #[test]
    fn a_missing_name_is_named_and_a_missing_jdk_internal_one_is_said_to_be_one() {
        // Maven (compiler plug-in 3.3 prints the details without a level), as Spark's build
        // at its CVE-2016-9177 fix, on JDK 17.
        let maven = "[ERROR] COMPILATION ERROR : \n\
                     [ERROR] /w/src/main/java/spark/route/RouteOverview.java:[29,19] cannot find symbol\n  \
                     symbol:   class ConstantPool\n  \
                     location: package sun.reflect\n\
                     [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.3:compile (default-compile) on project spark-core: Compilation failure\n";
        assert_eq!(
            maven_failure(maven),
            "/w/src/main/java/spark/route/RouteOverview.java:[29,19] cannot find symbol (symbol: \
             class ConstantPool, location: package sun.reflect): a JDK-internal API that the JDK \
             here does not have; the build needs the older JDK the project was written for \
             (Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.3:compile \
             (default-compile) on project spark-core: Compilation failure)"
        );
        // A project's own missing name is named, and nothing more is said.
        let gradle = "> Task :compileJava\n\
                      /w/src/main/java/a/A.java:12: error: cannot find symbol\n        \
                      Helper.run();\n        ^\n  \
                      symbol:   variable Helper\n  \
                      location: class A\n";
        assert_eq!(
            gradle_failure(gradle),
            "/w/src/main/java/a/A.java:12: error: cannot find symbol (symbol: variable Helper, \
             location: class A)"
        );
        let ant = "    [javac] /w/src/a/A.java:3: error: package sun.misc does not exist\n\
                   \x20   [javac] import sun.misc.BASE64Encoder;\n\n\
                   BUILD FAILED\n\
                   /w/build.xml:20: Compile failed; see the compiler error output for details.\n";
        assert_eq!(
            ant_failure(ant),
            "/w/src/a/A.java:3: error: package sun.misc does not exist: a JDK-internal API that \
             the JDK here does not have; the build needs the older JDK the project was written \
             for (BUILD FAILED: /w/build.xml:20: Compile failed; see the compiler error output \
             for details.)"
        );
    }

    #[test]
    fn a_hang_names_the_last_test_class_that_started() {
        let maven = "[INFO] Running org.x.AFirstTest\n\
            [INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.2 s - in org.x.AFirstTest\n\
            [INFO] Running org.x.client.BayeuxClientTest\n\
            2026-12-05 10:01:02 INFO waiting for a handshake\n";
        let idle = ExitKind::Idle { seconds: 300 };
        let hang = Hang::of(idle, maven).expect("killed as idle");
        assert_eq!(
            hang.to_string(),
            "hung: no CPU and no output for 300 s (last test started: \
             org.x.client.BayeuxClientTest)"
        );
        let ant = "    [junit] Running a.BTest\n    [junit] Testsuite: a.BTest\n";
        assert_eq!(
            Hang::of(idle, ant).and_then(|h| h.last_test).as_deref(),
            Some("a.BTest")
        );
        let before_tests = Hang::of(idle, "[INFO] Running Maven with 2 threads please\n");
        assert_eq!(
            before_tests.map(|h| h.to_string()).as_deref(),
            Some("hung: no CPU and no output for 300 s")
        );
        assert_eq!(Hang::of(ExitKind::TimedOut, maven), None);
    }

    #[test]
    fn a_long_summary_is_cut_on_a_character_boundary() {
        let long = format!("[ERROR] {}", "é".repeat(1000));
        let summary = maven_failure(&long);
        assert!(summary.len() <= MAX_SUMMARY + " …".len());
        assert!(summary.ends_with(" …"));
    }
}
