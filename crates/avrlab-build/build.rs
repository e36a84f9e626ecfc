//! Embeds the Java helpers' sources as `java/helpers.toml` (their build file) lists them: one
//! constant of `(path under the helper's root, text)` pairs per helper, and the helpers' own
//! checks. A Java file under `java/` that the file does not list stops the build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let java = manifest.join("../../java");
    let file = java.join("helpers.toml");
    println!("cargo:rerun-if-changed={}", file.display());
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let strings = |entry: &toml::Table, key: &str| -> Vec<String> {
        entry
            .get(key)
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let string = |entry: &toml::Table, key: &str| -> Option<String> {
        entry
            .get(key)
            .and_then(toml::Value::as_str)
            .map(str::to_owned)
    };
    let entries = |key: &str| -> Vec<toml::Table> {
        table
            .get(key)
            .and_then(toml::Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_table().cloned()).collect())
            .unwrap_or_default()
    };
    let mut listed = Vec::new();
    let mut sources = |root: &str, files: &[String], out: &mut String| {
        out.push_str("&[");
        for name in files {
            let path = java.join(root).join(name);
            let path = path
                .canonicalize()
                .unwrap_or_else(|e| panic!("java/helpers.toml names {root}/{name}: {e}"));
            println!("cargo:rerun-if-changed={}", path.display());
            write!(
                out,
                "({name:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .expect("writing to a string");
            listed.push(path);
        }
        out.push(']');
    };
    let constant = |name: &str| name.to_uppercase().replace('-', "_");
    let mut code = String::from("// Made by build.rs from java/helpers.toml.\n");
    let helpers = entries("helper");
    for helper in &helpers {
        let name = string(helper, "name").expect("a helper has a name");
        let root = string(helper, "root").expect("a helper has a root");
        let mut list = String::new();
        sources(&root, &strings(helper, "files"), &mut list);
        writeln!(
            code,
            "/// The sources of `{name}` (java/helpers.toml).\npub(crate) const {}: &[Source] = {list};",
            constant(&name)
        )
        .expect("writing to a string");
        if let Some(requires) = string(helper, "requires") {
            writeln!(
                code,
                "/// The jar `{name}` compiles against (its name starts so).\npub(crate) const {}_REQUIRES: &str = {requires:?};",
                constant(&name)
            )
            .expect("writing to a string");
        }
    }
    code.push_str("/// The helpers' own checks (java/helpers.toml).\n#[cfg(test)]\npub(crate) const CHECKS: &[Check] = &[");
    for check in entries("check") {
        let name = string(&check, "name").expect("a check has a name");
        let helper = string(&check, "helper").expect("a check names its helper");
        let of = helpers
            .iter()
            .find(|h| string(h, "name").as_deref() == Some(helper.as_str()))
            .unwrap_or_else(|| panic!("check {name}: no helper {helper}"));
        let root = string(of, "root").expect("a helper has a root");
        let uses = strings(&check, "uses");
        let files = strings(of, "files");
        if let Some(unknown) = uses.iter().find(|u| !files.contains(u)) {
            panic!("check {name}: {unknown} is not a source of {helper}");
        }
        let mut used = String::new();
        sources(&root, &uses, &mut used);
        let mut own = String::new();
        let check_root = string(&check, "root").expect("a check has a root");
        sources(&check_root, &strings(&check, "files"), &mut own);
        let main = string(&check, "main").expect("a check names its main class");
        write!(
            code,
            "Check {{ name: {name:?}, uses: {used}, files: {own}, main: {main:?} }},"
        )
        .expect("writing to a string");
    }
    code.push_str("];\n");
    // A Java file added anywhere under java/ is seen (cargo scans a folder for changes).
    println!("cargo:rerun-if-changed={}", java.display());
    let mut unlisted = Vec::new();
    walk(&java, &mut |path| {
        if path.extension().is_some_and(|e| e == "java")
            && !listed
                .iter()
                .any(|l| Some(l) == path.canonicalize().ok().as_ref())
        {
            unlisted.push(path.display().to_string());
        }
    });
    assert!(
        unlisted.is_empty(),
        "Java files that java/helpers.toml does not list: {unlisted:?}"
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("helpers.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// Calls `each` with every file under `dir`.
fn walk(dir: &Path, each: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, each);
        } else {
            each(&path);
        }
    }
}
