//! Identifier renaming with WordNet synonyms, and the rename map that translates text back.
//!
//! The renamed names are those of the target method (the method itself, its parameters and locals) and
//! the project-declared fields, methods and types the method uses, everywhere in the project. A name is
//! left alone when it is a JDK or library name (not declared by any project file), overrides a library
//! method, is reached by reflection or serialization, or has no synonym that collides with nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use avrlab_java::{DeclKind, DeclarationTable, JavaSource, Node, TextEdit, is_reserved_word};

use crate::receiver::{FileTypes, Receiver};
use crate::scope::Resolution;
use crate::synonyms::{SynonymTable, join_identifier, split_identifier};

/// What a renamed identifier names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RenameKind {
    /// A parameter or local variable of the target method.
    Local,
    /// A project method (the target method or one it calls), with all its overloads.
    Method,
    /// A project field.
    Field,
    /// A project class, interface, enum or record.
    Type,
}

/// One renamed identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameEntry {
    /// What it names.
    pub kind: RenameKind,
    /// The name in the original code.
    pub original: String,
    /// The name in the transformed code.
    pub renamed: String,
}

/// Every rename applied to a task. New names are fresh (they occur nowhere in the original project),
/// so the map inverts unambiguously.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenameMap {
    /// The renames, sorted by kind then original name.
    pub entries: Vec<RenameEntry>,
}

impl RenameMap {
    /// Whether nothing was renamed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Translates text written against the transformed code (a model's patch, a hunk, a file path)
    /// back to the original names: every identifier-shaped token equal to a new name becomes the
    /// original name. Everything else is kept byte for byte.
    pub fn restore(&self, text: &str) -> String {
        let back: BTreeMap<&str, &str> = self
            .entries
            .iter()
            .map(|e| (e.renamed.as_str(), e.original.as_str()))
            .collect();
        map_tokens(text, |tok| back.get(tok).copied())
    }

    /// The forward direction of [`RenameMap::restore`], by token: original names become new names.
    /// Locals are included, so use it on text that mentions no other method's locals.
    pub fn apply(&self, text: &str) -> String {
        let fwd: BTreeMap<&str, &str> = self
            .entries
            .iter()
            .map(|e| (e.original.as_str(), e.renamed.as_str()))
            .collect();
        map_tokens(text, |tok| fwd.get(tok).copied())
    }
}

fn map_tokens<'a>(text: &str, lookup: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let is_start = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c == b'$';
    let is_part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if is_start(c) && (i == 0 || !is_part(bytes[i - 1])) {
            let mut j = i;
            while j < bytes.len() && is_part(bytes[j]) {
                j += 1;
            }
            let tok = &text[i..j];
            out.push_str(lookup(tok).unwrap_or(tok));
            i = j;
        } else {
            let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + ch_len]);
            i += ch_len;
        }
    }
    out
}

/// Method names that JDK or common library types declare (so a project method with that name may be
/// an override or the call may go to a library object), plus names the JVM or serialization reach by
/// reflection. Renaming any of them could change which method runs.
const PROTECTED_NAMES: &[&str] = &[
    "main",
    "toString",
    "equals",
    "hashCode",
    "compareTo",
    "compare",
    "clone",
    "finalize",
    "run",
    "call",
    "get",
    "set",
    "put",
    "add",
    "remove",
    "contains",
    "size",
    "isEmpty",
    "clear",
    "iterator",
    "next",
    "hasNext",
    "close",
    "read",
    "write",
    "flush",
    "apply",
    "accept",
    "test",
    "length",
    "charAt",
    "append",
    "valueOf",
    "values",
    "ordinal",
    "name",
    "getMessage",
    "getCause",
    "start",
    "stop",
    "init",
    "destroy",
    "service",
    "doGet",
    "doPost",
    "doFilter",
    "handle",
    "execute",
    "invoke",
    "process",
    "visit",
    "parse",
    "format",
    "getInstance",
    "of",
    "create",
    "build",
    "update",
    "delete",
    "load",
    "save",
    "open",
    "connect",
    "stream",
    "map",
    "filter",
    "forEach",
    "subSequence",
    "getKey",
    "getValue",
    "setValue",
    "entrySet",
    "keySet",
    "containsKey",
    "getProperty",
    "setProperty",
    "readObject",
    "writeObject",
    "readResolve",
    "writeReplace",
    "readObjectNoData",
    "readExternal",
    "writeExternal",
    "serialVersionUID",
    "serialPersistentFields",
    "setUp",
    "tearDown",
    "suite",
    "resolveEntity",
    "startElement",
    "endElement",
    "characters",
    "getLength",
    "item",
    "getAttribute",
    "setAttribute",
    "match",
    "matches",
    "find",
    "split",
    "trim",
    "replace",
    "substring",
    "indexOf",
    "getName",
    "getType",
    "getId",
    "getPath",
    "getFile",
    "getResource",
    "newInstance",
    "getClass",
    "wait",
    "notify",
    "notifyAll",
    "sort",
    "join",
    "available",
    "skip",
    "mark",
    "reset",
    "ready",
    "transform",
    "initialize",
    "configure",
    "evaluate",
    "decode",
    "encode",
    "digest",
    "hash",
    "resolve",
    "lookup",
    "filter",
    "getConnection",
    "check",
    "validate",
    "matches",
    "describeTo",
];

/// Where renaming looks: the parsed project, the target method and the names already in use.
#[derive(Debug)]
pub(crate) struct RenameScope<'a> {
    /// Every parsed project file (vulnerable state), by path.
    pub files: &'a BTreeMap<String, JavaSource>,
    /// Texts of project files that did not parse: any name occurring in them is left alone.
    pub unparsable: &'a BTreeMap<String, String>,
    /// What the project declares.
    pub decls: &'a DeclarationTable,
    /// The target file's path.
    pub target_file: &'a str,
    /// The target method's byte range in the target file.
    pub target_method: Range<usize>,
    /// Identifiers anywhere in the project (vulnerable and fixed): new names must avoid them all.
    pub used: &'a BTreeSet<String>,
    /// File paths of the project (a renamed type's file must not exist already).
    pub paths: &'a BTreeSet<String>,
    /// What the receiver rules read in each parsed file, by path.
    pub types: &'a BTreeMap<String, FileTypes<'a>>,
}

/// The chosen renames and one note per considered name.
#[derive(Debug, Default)]
pub(crate) struct RenamePlan {
    pub map: RenameMap,
    /// (line in the target file, detail, applied?) per considered name.
    pub notes: Vec<(usize, String, bool)>,
}

impl RenamePlan {
    fn lookup(&self, kind: RenameKind, name: &str) -> Option<&str> {
        self.map
            .entries
            .iter()
            .find(|e| e.kind == kind && e.original == name)
            .map(|e| e.renamed.as_str())
    }
}

/// Chooses new names for the target method's names and the project members it uses.
pub(crate) fn plan(scope: &RenameScope<'_>, res: &Resolution, seed: u64) -> RenamePlan {
    let src = &scope.files[scope.target_file];
    let target_types = &scope.types[scope.target_file];
    let method = src
        .root()
        .descendant_for_byte_range(scope.target_method.start, scope.target_method.end)
        .expect("the target method lies in the target file");
    // Candidates: (kind, name, first line it appears on).
    let mut candidates: BTreeMap<(RenameKind, String), usize> = BTreeMap::new();
    let line = |byte: usize| src.line_of_byte(byte);
    for i in res.bindings_in(&scope.target_method) {
        let b = &res.bindings[i];
        candidates
            .entry((RenameKind::Local, b.name.clone()))
            .or_insert(line(b.decl.start));
    }
    if let Some(name) = method.child_by_field_name("name")
        && method.kind() == "method_declaration"
    {
        candidates
            .entry((RenameKind::Method, src.node_text(name).to_owned()))
            .or_insert(line(name.start_byte()));
    }
    let mut stack = vec![method];
    while let Some(node) = stack.pop() {
        let text = src.node_text(node);
        let at = line(node.start_byte());
        match node.kind() {
            "identifier" => {
                let parent = node.parent();
                let parent_kind = parent.map_or("", |p| p.kind());
                let is_name_of =
                    |field: &str| parent.and_then(|p| p.child_by_field_name(field)) == Some(node);
                if parent_kind == "method_invocation" && is_name_of("name")
                    || parent_kind == "method_reference"
                        && parent.and_then(|p| p.named_child(0)) != Some(node)
                {
                    let reaches_project = match parent.and_then(member_access) {
                        Some((object, _, _)) => {
                            target_types.member_on(object, text, true) != Receiver::Library
                        }
                        None => true,
                    };
                    if reaches_project && scope.decls.declares(text, DeclKind::Method) {
                        candidates
                            .entry((RenameKind::Method, text.to_owned()))
                            .or_insert(at);
                    }
                } else if (parent_kind == "field_access" && is_name_of("field"))
                    || res.free.contains(&node.start_byte())
                {
                    if scope.decls.declares(text, DeclKind::Field) {
                        candidates
                            .entry((RenameKind::Field, text.to_owned()))
                            .or_insert(at);
                    } else if scope.decls.declares(text, DeclKind::Type) {
                        candidates
                            .entry((RenameKind::Type, text.to_owned()))
                            .or_insert(at);
                    }
                }
            }
            "type_identifier" if scope.decls.declares(text, DeclKind::Type) => {
                candidates
                    .entry((RenameKind::Type, text.to_owned()))
                    .or_insert(at);
            }
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }

    let members: BTreeSet<&str> = candidates
        .keys()
        .filter(|(k, _)| matches!(k, RenameKind::Method | RenameKind::Field))
        .map(|(_, n)| n.as_str())
        .collect();
    let untyped = untyped_accesses(scope, &members);
    let mut plan = RenamePlan::default();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for ((kind, name), at) in candidates {
        let untyped_here = matches!(kind, RenameKind::Method | RenameKind::Field)
            .then(|| untyped.get(&(kind == RenameKind::Method, name.clone())))
            .flatten();
        if let Some((file, line)) = untyped_here {
            plan.notes.push((
                at,
                format!(
                    "kept `{name}`: {file} line {line} reaches it on a receiver whose type \
                     cannot be told"
                ),
                false,
            ));
            continue;
        }
        if let Err(reason) = protected(scope, kind, &name) {
            plan.notes
                .push((at, format!("kept `{name}`: {reason}"), false));
            continue;
        }
        match choose_name(&name, seed, |cand| {
            !is_reserved_word(cand)
                && !scope.used.contains(cand)
                && !taken.contains(cand)
                && (kind != RenameKind::Type || !type_file_taken(scope, &name, cand))
        }) {
            Some(renamed) => {
                taken.insert(renamed.clone());
                plan.notes
                    .push((at, format!("{kind:?} `{name}` → `{renamed}`"), true));
                plan.map.entries.push(RenameEntry {
                    kind,
                    original: name,
                    renamed,
                });
            }
            None => plan.notes.push((
                at,
                format!("kept `{name}`: no synonym that is free in scope"),
                false,
            )),
        }
    }
    plan.notes.sort_by_key(|n| n.0);
    plan
}

/// The member accesses (`x.m()`, `x.f`, `x::m`) of the given names whose receiver's type cannot be
/// told, by (is a method, name), with the first file and line.
fn untyped_accesses(
    scope: &RenameScope<'_>,
    names: &BTreeSet<&str>,
) -> BTreeMap<(bool, String), (String, usize)> {
    let mut out = BTreeMap::new();
    if names.is_empty() {
        return out;
    }
    for (path, types) in scope.types {
        let src = types.src;
        // A text scan finds the few tokens spelled like a member name; the tree confirms each.
        for (start, token) in avrlab_java::identifier_tokens(src.text()) {
            if !names.contains(token) {
                continue;
            }
            let Some(node) = src
                .root()
                .descendant_for_byte_range(start, start + token.len())
                .and_then(|n| n.parent())
            else {
                continue;
            };
            let Some((object, member, method)) = member_access(node) else {
                continue;
            };
            if member.start_byte() != start {
                continue;
            }
            let name = src.node_text(member);
            if !names.contains(name) {
                continue;
            }
            if types.member_on(object, name, method) == Receiver::Unknown {
                out.entry((method, name.to_owned()))
                    .or_insert_with(|| (path.clone(), src.line_of_byte(node.start_byte())));
            }
        }
    }
    out
}

/// For a member access node: its receiver expression, the member's name node, and whether the member
/// is a method.
fn member_access(node: Node<'_>) -> Option<(Node<'_>, Node<'_>, bool)> {
    match node.kind() {
        "method_invocation" => Some((
            node.child_by_field_name("object")?,
            node.child_by_field_name("name")?,
            true,
        )),
        "field_access" => {
            let object = node.child_by_field_name("object")?;
            // `Outer.this.x`, `super.x`: left to the unqualified-name rules.
            (object.kind() != "super").then_some(())?;
            Some((object, node.child_by_field_name("field")?, false))
        }
        "method_reference" => {
            let object = node.named_child(0)?;
            let mut cursor = node.walk();
            let name = node
                .named_children(&mut cursor)
                .skip(1)
                .find(|c| c.kind() == "identifier")?;
            Some((object, name, true))
        }
        _ => None,
    }
}

fn type_file_taken(scope: &RenameScope<'_>, old: &str, new: &str) -> bool {
    let suffix = format!("/{old}.java");
    scope.paths.iter().any(|p| {
        (p.ends_with(&suffix) || p == &format!("{old}.java"))
            && scope
                .paths
                .contains(&format!("{}{new}.java", &p[..p.len() - old.len() - 5]))
    })
}

/// Why a name must keep its spelling, if it must.
fn protected(scope: &RenameScope<'_>, kind: RenameKind, name: &str) -> Result<(), String> {
    if scope.unparsable.values().any(|t| t.contains(name)) {
        return Err("it occurs in a project file that does not parse".into());
    }
    if kind == RenameKind::Local {
        return Ok(());
    }
    if PROTECTED_NAMES.contains(&name) {
        return Err("a JDK/library or reflection-reached name".into());
    }
    let decls = scope.decls.declarations(name);
    if decls
        .iter()
        .any(|d| matches!(d.kind, DeclKind::EnumConstant | DeclKind::RecordComponent))
    {
        return Err("an enum constant or record component (reached by name)".into());
    }
    match kind {
        RenameKind::Method => {
            let overrides = decls
                .iter()
                .filter(|d| d.kind == DeclKind::Method && d.is_override)
                .count();
            let roots = decls
                .iter()
                .filter(|d| d.kind == DeclKind::Method && !d.is_override)
                .count();
            if overrides > 0 && roots == 0 {
                return Err("it overrides a method the project does not declare".into());
            }
            let bytes = name.as_bytes();
            let accessor = ["get", "set", "is"].iter().any(|p| {
                name.starts_with(p) && bytes.get(p.len()).is_some_and(u8::is_ascii_uppercase)
            });
            if accessor {
                return Err("a bean accessor (frameworks reach it by reflection)".into());
            }
        }
        RenameKind::Type => {
            let types = decls.iter().filter(|d| d.kind == DeclKind::Type).count();
            if types > 1 {
                return Err("several project types share the name".into());
            }
        }
        RenameKind::Field | RenameKind::Local => {}
    }
    Ok(())
}

/// SplitMix64: a tiny deterministic mixer, so the same seed gives the same names everywhere.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn hash_str(seed: u64, s: &str) -> u64 {
    s.bytes().fold(mix(seed), |h, b| mix(h ^ u64::from(b)))
}

/// A synonym-based new name for `name` that `accept`s, or `None`.
pub fn choose_name(name: &str, seed: u64, accept: impl Fn(&str) -> bool) -> Option<String> {
    let table = SynonymTable::embedded();
    let split = split_identifier(name);
    // A plural takes its singular's synonyms, pluralized (`values` → `treasures`).
    let options: Vec<Vec<String>> = split
        .words
        .iter()
        .map(|w| {
            let direct = table.synonyms(w);
            if !direct.is_empty() {
                return direct.to_vec();
            }
            w.strip_suffix('s')
                .filter(|stem| stem.len() >= 3 && !stem.ends_with('s'))
                .map(|stem| {
                    table
                        .synonyms(stem)
                        .iter()
                        .map(|s| format!("{s}s"))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    if options.iter().all(|o| o.is_empty()) {
        return None;
    }
    let h = hash_str(seed, name);
    for attempt in 0..12u64 {
        let words: Vec<String> = split
            .words
            .iter()
            .zip(&options)
            .enumerate()
            .map(|(i, (w, syns))| {
                if syns.is_empty() {
                    w.clone()
                } else {
                    let pick = mix(h ^ (i as u64) << 8 ^ attempt) as usize % syns.len();
                    syns[pick].clone()
                }
            })
            .collect();
        let candidate = join_identifier(&words, split.style, &split.prefix, &split.suffix);
        if candidate != name && accept(&candidate) {
            return Some(candidate);
        }
    }
    None
}

/// The edits that apply `plan` to one file. `target_method` is the target method's byte range when
/// this file holds it (its locals are renamed only there).
pub(crate) fn edits_for_file(
    plan_map: &RenameMap,
    types: &FileTypes<'_>,
    target_method: Option<Range<usize>>,
) -> Vec<TextEdit> {
    let (src, res) = (types.src, types.res);
    let plan = RenamePlan {
        map: plan_map.clone(),
        notes: Vec::new(),
    };
    let mut edits = Vec::new();
    if let Some(range) = &target_method {
        for i in res.bindings_in(range) {
            if let Some(new) = plan.lookup(RenameKind::Local, &res.bindings[i].name) {
                for occ in res.occurrences(i) {
                    edits.push(TextEdit::new(occ, new));
                }
            }
        }
    }
    // Only tokens spelled like a renamed name can change: find them by a text scan and confirm each
    // against the tree, instead of walking every node of the file.
    let originals: BTreeSet<&str> = plan
        .map
        .entries
        .iter()
        .filter(|e| e.kind != RenameKind::Local)
        .map(|e| e.original.as_str())
        .collect();
    for (start, token) in avrlab_java::identifier_tokens(src.text()) {
        if !originals.contains(token) {
            continue;
        }
        let Some(node) = src
            .root()
            .descendant_for_byte_range(start, start + token.len())
        else {
            continue;
        };
        let kind = node.kind();
        if kind != "identifier" && kind != "type_identifier" || node.start_byte() != start {
            continue;
        }
        let text = token;
        let is_local = res.refs.contains_key(&node.start_byte())
            || res.decl_starts.contains(&node.start_byte());
        if is_local {
            continue;
        }
        if let Some(new) = member_rename(&plan, types, node, text) {
            edits.push(TextEdit::new(node.byte_range(), new));
        }
    }
    edits.sort_by_key(|e| e.range.start);
    edits.dedup_by_key(|e| e.range.start);
    edits
}

fn member_rename<'p>(
    plan: &'p RenamePlan,
    types: &FileTypes<'_>,
    node: Node<'_>,
    text: &str,
) -> Option<&'p str> {
    if node.kind() == "type_identifier" {
        return plan.lookup(RenameKind::Type, text);
    }
    let res = types.res;
    let parent = node.parent()?;
    let is_name_of = |field: &str| parent.child_by_field_name(field) == Some(node);
    // A qualified access is renamed only when its receiver is a project type declaring the member
    // (`list.addAll(x)` keeps its name when the project declares an `addAll` of its own).
    let on_project = |method: bool| match member_access(parent) {
        Some((object, member, _)) if member == node => {
            types.member_on(object, text, method) == Receiver::Project
        }
        Some(_) => false,
        None => true,
    };
    match parent.kind() {
        "method_invocation" if is_name_of("name") => plan
            .lookup(RenameKind::Method, text)
            .filter(|_| on_project(true)),
        "method_declaration" if is_name_of("name") => plan.lookup(RenameKind::Method, text),
        "method_reference" if parent.named_child(0) != Some(node) => plan
            .lookup(RenameKind::Method, text)
            .filter(|_| on_project(true)),
        "field_access" if is_name_of("field") => {
            let object_is_super = parent
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "super");
            plan.lookup(RenameKind::Field, text)
                .filter(|_| object_is_super || on_project(false))
        }
        "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "constructor_declaration"
        | "annotation_type_declaration" => plan.lookup(RenameKind::Type, text),
        "scoped_identifier" | "import_declaration" => plan.lookup(RenameKind::Type, text),
        "labeled_statement" | "break_statement" | "continue_statement" => None,
        _ if res.free.contains(&node.start_byte()) => plan
            .lookup(RenameKind::Field, text)
            .or_else(|| plan.lookup(RenameKind::Type, text)),
        _ => None,
    }
}
