//! The crate's layers, checked from its source: every `use` and inline
//! `crate::`/`super::` path of every file under `src/` becomes an arrow
//! from that file to the file that defines what it names, and the test
//! fails on an import circle between files or an arrow against the layers
//! (see `FORBIDDEN`). An import of a re-exported name leads on to the file
//! that defines it; a module's `pub use` of its own descendants' names is
//! no arrow of its own, so a `mod.rs` that gathers its children's names
//! makes no circle with them (any other `pub use` is an arrow too).
//!
//! What is wrong today because of parts still being reworked is listed in
//! `KNOWN_CIRCLES` and `KNOWN_ARROWS`; the test also fails when one of those
//! is no longer true, so the lists can only shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Arrows against the layers: no file under the first path may import a
/// file under the second (a path ending in `/` is a folder, otherwise one
/// file). Paths are relative to the crate root.
const FORBIDDEN: &[(&str, &str, &str)] = &[
    (
        "src/cli/",
        "src/tui/",
        "the two front ends know nothing of each other",
    ),
    (
        "src/tui/",
        "src/cli/",
        "the two front ends know nothing of each other",
    ),
    ("src/watch.rs", "src/tui/", "the watcher knows no front end"),
    ("src/watch.rs", "src/cli/", "the watcher knows no front end"),
    ("src/catalog/", "src/cli/", "the catalog knows no front end"),
    ("src/catalog/", "src/tui/", "the catalog knows no front end"),
    ("src/catalog/", "src/watch.rs", "the catalog does not watch"),
    (
        "src/session/",
        "src/catalog/",
        "the session layer is below the catalog",
    ),
    (
        "src/session/",
        "src/cli/",
        "the session layer knows no front end",
    ),
    (
        "src/session/",
        "src/tui/",
        "the session layer knows no front end",
    ),
    (
        "src/session/",
        "src/watch.rs",
        "the session layer does not watch",
    ),
    (
        "src/session/",
        "src/render/",
        "the session layer draws nothing",
    ),
    ("src/catalog/", "src/render/", "the catalog draws nothing"),
    (
        "src/secrets.rs",
        "src/cli/",
        "the scanner knows no front end",
    ),
    (
        "src/secrets.rs",
        "src/tui/",
        "the scanner knows no front end",
    ),
    (
        "src/secrets.rs",
        "src/render/",
        "the scanner reads text, below rendering",
    ),
    ("src/render/", "src/cli/", "rendering knows no front end"),
    ("src/render/", "src/tui/", "rendering knows no front end"),
    (
        "src/render/",
        "src/catalog/",
        "rendering reads sessions, not the catalog",
    ),
    // Inside the browser: panes draw what they are given.
    (
        "src/tui/panes/",
        "src/tui/state/",
        "a pane never sees the app's state",
    ),
    (
        "src/tui/panes/",
        "src/tui/update/",
        "a pane never sees the app's update",
    ),
    (
        "src/tui/panes/",
        "src/tui/operations/",
        "a pane knows no operation",
    ),
    (
        "src/tui/overlays/",
        "src/tui/state/",
        "an overlay never sees the app's state",
    ),
    (
        "src/tui/look/",
        "src/tui/state/",
        "the look is below the app's state",
    ),
    (
        "src/tui/input/",
        "src/tui/state/",
        "keys are below the app's state",
    ),
    (
        "src/tui/work/",
        "src/tui/state/",
        "workers never see the app's state",
    ),
    (
        "src/tui/work/",
        "src/tui/update/",
        "workers never see the app's update",
    ),
    (
        "src/tui/work/",
        "src/tui/panes/",
        "workers never see the panes",
    ),
    (
        "src/tui/state/",
        "src/tui/update/",
        "state is data; update changes it",
    ),
    (
        "src/tui/state/",
        "src/tui/operations/",
        "state is data; operations change it",
    ),
];

/// Circles between files that exist today and are someone else's to break;
/// each is one group of files that import one another (the whole group, as
/// found). Empty this list; never add to it.
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// Arrows against `FORBIDDEN` that exist today and are someone else's to
/// remove: (importing file, imported file). Removing them is the fix, so the
/// circle search leaves them out. Empty this list; never add to it.
const KNOWN_ARROWS: &[(&str, &str)] = &[];

/// One source file: its module path and what it imports.
struct SourceFile {
    module: Vec<String>,
    /// Module paths named by its imports, each as written and resolved
    /// against this file (before being matched to a file).
    imports: Vec<Vec<String>>,
    /// Names it re-exports (`pub use`), each with the path it stands for.
    reexports: BTreeMap<String, Vec<String>>,
    /// Modules declared in it with `mod name;`.
    children: BTreeSet<String>,
}

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `crate::a::b`; `lib.rs` is the crate.
fn module_of(rel: &str) -> Vec<String> {
    let inner = rel.strip_prefix("src/").expect("under src/");
    let inner = inner.strip_suffix(".rs").expect("a .rs file");
    let mut parts: Vec<String> = inner.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without comments, string and character literals (their text
/// could look like a path), keeping line breaks.
fn strip_noise(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !ident_char_before(&b, i)
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if b[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if b.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1b}') or a lifetime ('a).
            let close = if next == Some('\\') {
                (i + 2..b.len().min(i + 12)).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(j) => {
                    out.push_str("' '");
                    i = j + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands one use tree (`a::{b, c::{self, d as e}}`) into its paths, each
/// with the name it brings in.
fn expand_use(tree: &str) -> Vec<(Vec<String>, String)> {
    fn split_top(s: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
    }
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let mut base = prefix.to_vec();
            base.extend(head);
            let close = tree.rfind('}').expect("balanced braces in a use");
            for part in split_top(&tree[open + 1..close]) {
                walk(&base, part, out);
            }
            return;
        }
        let mut parts = tree.split(" as ");
        let tree = parts.next().unwrap_or(tree).trim();
        let alias = parts.next().map(|a| a.trim().to_string());
        let mut path = prefix.to_vec();
        for seg in tree.split("::").map(str::trim) {
            match seg {
                "" | "*" => {}
                "self" if !path.is_empty() => {}
                s => path.push(s.to_string()),
            }
        }
        let name = if tree.ends_with('*') {
            "*".to_string() // a glob: no one name
        } else {
            alias.unwrap_or_else(|| path.last().cloned().unwrap_or_default())
        };
        out.push((path, name));
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// Reads one file's module declarations and imports.
fn read_file(rel: &str, src: &str) -> SourceFile {
    let module = module_of(rel);
    let clean = strip_noise(src);
    let mut children = BTreeSet::new();
    let mut imports = Vec::new();
    // Below an inline `mod name {` (a file's tests), `super` is one more
    // level up; such modules come last in a file, as they do in this crate.
    let mut inline_depth = 0usize;
    // (inline depth, path, the name a `pub use` exports it as)
    let mut paths: Vec<(usize, String, Option<String>)> = Vec::new();
    let mut public = false;
    let mut rest = clean.as_str();
    let mut line_start = true;
    while !rest.is_empty() {
        let trimmed = rest.trim_start();
        let skipped = rest.len() - trimmed.len();
        if skipped > 0 {
            line_start = line_start || rest[..skipped].contains('\n');
            rest = trimmed;
            continue;
        }
        let word: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if word.is_empty() {
            let c = rest.chars().next().expect("not empty");
            rest = &rest[c.len_utf8()..];
            line_start = false;
            continue;
        }
        if line_start && (word == "mod" || word == "use") {
            let end = rest.find([';', '{']).unwrap_or(rest.len());
            let decl = &rest[..end];
            if word == "mod" {
                let name = decl["mod".len()..].trim();
                if rest[end..].starts_with(';') {
                    children.insert(name.to_string());
                } else {
                    inline_depth += 1;
                }
                rest = &rest[end.min(rest.len())..];
                line_start = false;
                continue;
            }
            let end = rest.find(';').unwrap_or(rest.len());
            for (p, name) in expand_use(&rest["use".len()..end]) {
                paths.push((inline_depth, p.join("::"), public.then_some(name)));
            }
            rest = &rest[end..];
            line_start = false;
            public = false;
            continue;
        }
        if (word == "crate" || word == "super") && rest[word.len()..].starts_with("::") {
            let len = path_len(rest);
            paths.push((inline_depth, rest[..len].to_string(), None));
            rest = &rest[len..];
            line_start = false;
            continue;
        }
        // `pub`, `pub(crate)` and attributes leave a `use` or `mod` at the
        // start of its line.
        line_start = line_start && (word == "pub" || word == "crate");
        public = line_start;
        rest = &rest[word.len()..];
        if line_start && rest.starts_with('(') {
            let close = rest.find(')').map_or(rest.len(), |i| i + 1);
            rest = &rest[close..];
        }
    }
    let mut reexports = BTreeMap::new();
    for (depth, path, exported) in paths {
        let segs: Vec<String> = path
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let Some(first) = segs.first() else { continue };
        let (mut base, tail): (Vec<String>, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (module.clone(), &segs[1..]),
            "super" => {
                let mut base = module.clone();
                let mut i = 0;
                let mut up = 0usize;
                while segs.get(i).map(String::as_str) == Some("super") {
                    up += 1;
                    i += 1;
                }
                // Inside inline modules the first `super`s stay in this file.
                let up = up.saturating_sub(depth);
                for _ in 0..up {
                    base.pop();
                }
                (base, &segs[i..])
            }
            name if children.contains(name) => (module.clone(), &segs[..]),
            _ => continue, // another crate (std, ratatui, ...)
        };
        base.extend(tail.iter().cloned());
        match exported {
            Some(name) if name != "*" => {
                // A facade over its own descendants is no arrow; any other
                // re-export is used here as much as passed on.
                if !base.starts_with(&module) || base.len() <= module.len() {
                    imports.push(base.clone());
                }
                reexports.insert(name, base);
            }
            // A glob re-export is taken as an import of the whole module.
            _ => imports.push(base),
        }
    }
    SourceFile {
        module,
        imports,
        reexports,
        children,
    }
}

/// How long the path starting `s` is (`crate::a::b::C`).
fn path_len(s: &str) -> usize {
    let mut i = 0;
    let bytes = s.as_bytes();
    loop {
        while i < s.len() && is_ident(bytes[i] as char) {
            i += 1;
        }
        if s[i..].starts_with("::") && s[i + 2..].chars().next().is_some_and(is_ident) {
            i += 2;
        } else {
            return i;
        }
    }
}

/// Every file under `src/` and the files it imports (by path from the crate root).
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = crate_root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut parsed = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .expect("under the crate root")
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/main.rs" {
            continue; // its own crate, using the library from outside
        }
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        parsed.push((rel.clone(), read_file(&rel, &src)));
    }
    let by_module: BTreeMap<Vec<String>, usize> = parsed
        .iter()
        .enumerate()
        .map(|(i, (_, f))| (f.module.clone(), i))
        .collect();
    // The file that defines what `path` names: the longest prefix of the
    // path that is a file's module, followed through that file's re-exports.
    let defining = |path: &[String]| -> &str {
        let mut path = path.to_vec();
        for _ in 0..16 {
            let (n, i) = (0..=path.len())
                .rev()
                .find_map(|n| by_module.get(&path[..n]).map(|i| (n, *i)))
                .expect("the crate root is a file");
            match path.get(n).and_then(|name| parsed[i].1.reexports.get(name)) {
                Some(to) if to.as_slice() != path.as_slice() => {
                    let mut next = to.clone();
                    next.extend(path[n + 1..].iter().cloned());
                    path = next;
                }
                _ => return parsed[i].0.as_str(),
            }
        }
        panic!("re-exports of {} go round in a circle", path.join("::"))
    };
    let mut graph = BTreeMap::new();
    for (rel, f) in &parsed {
        let mut to = BTreeSet::new();
        for path in &f.imports {
            let target = defining(path);
            if target != rel {
                to.insert(target.to_string());
            }
        }
        graph.insert(rel.clone(), to);
    }
    graph
}

/// Groups of two or more files that import one another (strongly connected
/// components), each sorted.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            let graph = self.graph;
            for w in graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                loop {
                    let w = self.stack.pop().expect("on the stack");
                    self.on_stack.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.found.sort();
    t.found
}

fn under(file: &str, place: &str) -> bool {
    if place.ends_with('/') {
        file.starts_with(place)
    } else {
        file == place
    }
}

#[test]
fn no_import_circle_between_files() {
    let mut graph = import_graph();
    for (from, to) in KNOWN_ARROWS {
        if let Some(tos) = graph.get_mut(*from) {
            tos.remove(*to);
        }
    }
    let found = circles(&graph);
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| {
            let mut c: Vec<String> = c.iter().map(|s| s.to_string()).collect();
            c.sort();
            c
        })
        .collect();
    let mut problems = Vec::new();
    for c in &found {
        if !known.contains(c) {
            let arrows: Vec<String> = c
                .iter()
                .flat_map(|f| {
                    graph[f]
                        .iter()
                        .filter(|t| c.contains(t))
                        .map(move |t| format!("    {f} -> {t}"))
                })
                .collect();
            problems.push(format!(
                "import circle between {} files:\n{}",
                c.len(),
                arrows.join("\n")
            ));
        }
    }
    for k in &known {
        if !found.contains(k) {
            problems.push(format!(
                "KNOWN_CIRCLES lists {k:?}, which is no longer a circle as listed: remove or update it"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn no_arrow_against_the_layers() {
    let graph = import_graph();
    let mut found = BTreeSet::new();
    let mut problems = Vec::new();
    for (from, tos) in &graph {
        for to in tos {
            for (a, b, why) in FORBIDDEN {
                if under(from, a) && under(to, b) {
                    if KNOWN_ARROWS.contains(&(from.as_str(), to.as_str())) {
                        found.insert((from.clone(), to.clone()));
                    } else {
                        problems.push(format!("{from} imports {to}: {why}"));
                    }
                }
            }
        }
    }
    for (from, to) in KNOWN_ARROWS {
        if !found.contains(&(from.to_string(), to.to_string())) {
            problems.push(format!(
                "KNOWN_ARROWS lists {from} -> {to}, which is no longer there (or no longer forbidden): remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The reader itself: it must see the arrows it is meant to see, or the two
/// tests above could pass on a crate full of circles.
#[test]
fn the_reader_sees_every_kind_of_import() {
    let src = r#"
//! use crate::not::this;
mod child;
pub(crate) use super::sibling::{self, Thing as Other};
use child::Inner;
pub use child::Facade;
use std::path::Path;
pub use crate::a::{b::{C, d}, e::*};
fn f() {
    let s = "crate::not::this_either";
    let c = '{';
    crate::inline::call();
    super::super::up::there();
}
#[cfg(test)]
mod tests {
    use super::*;
    use super::super::in_parent;
}
"#;
    let f = read_file("src/x/y.rs", src);
    let got: BTreeSet<String> = f.imports.iter().map(|p| p.join("::")).collect();
    let want: BTreeSet<String> = [
        "x::sibling",
        "x::sibling::Thing",
        "a::b::C",
        "a::b::d",
        "x::y::child::Inner",
        "a::e",
        "inline::call",
        "up::there",
        "x::y",
        "x::in_parent",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    assert_eq!(got, want);
    let exported: Vec<(String, String)> = f
        .reexports
        .iter()
        .map(|(name, p)| (name.clone(), p.join("::")))
        .collect();
    let exported: Vec<(&str, &str)> = exported
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        exported,
        [
            ("C", "a::b::C"),
            ("Facade", "x::y::child::Facade"),
            ("Other", "x::sibling::Thing"),
            ("d", "a::b::d"),
            ("sibling", "x::sibling"),
        ]
    );
    assert!(f.children.contains("child"));
    let g = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(circles(&g), vec![vec!["a", "b", "c"]]);
}

/// The command line's parser stays in the front ends: nothing below them
/// derives or names a `clap` type (each front end maps its own arguments
/// onto the engine's types).
#[test]
fn no_clap_below_the_front_ends() {
    const BELOW: &[&str] = &[
        "src/catalog/",
        "src/session/",
        "src/render/",
        "src/jstext/",
        "src/watch.rs",
        "src/safe_text.rs",
        "src/secrets.rs",
        "src/par.rs",
    ];
    let root = crate_root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .expect("under the crate root")
            .to_string_lossy()
            .replace('\\', "/");
        if !BELOW.iter().any(|place| under(&rel, place)) {
            continue;
        }
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let clean = strip_noise(&src);
        let names_clap = clean.match_indices("clap").any(|(i, _)| {
            let before = clean[..i].chars().next_back();
            let after = clean[i + 4..].chars().next();
            !before.is_some_and(is_ident) && !after.is_some_and(|c| is_ident(c) && c != '_')
        });
        if names_clap {
            problems.push(format!(
                "{rel} names clap: the parser belongs to the front ends"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
