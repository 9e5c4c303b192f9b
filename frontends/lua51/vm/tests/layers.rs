//! The crate is layered as its README draws it: no module imports from a layer above its own,
//! and no modules import each other in a cycle, inside a layer either.
//!
//! The layers are read from the README's table (the `## Layers` section), so the drawing and
//! the check cannot drift apart. A module's imports are the `crate::` (and `$crate::`) paths in
//! its source, comments and string literals left out; `super::` paths are refused except
//! `use super::*` (a test module's), so every import names its module in full.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers of the README's table, lowest first: each layer's name and the modules (paths
/// below the crate root, `object` standing for `object::*`) it holds.
fn layers_from_readme(readme: &str) -> Vec<(String, Vec<String>)> {
    let section = readme.split("\n## Layers\n").nth(1).expect("README.md has a '## Layers' section");
    let mut layers = Vec::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        // The header and the separator row have no backticked module names.
        let modules: Vec<String> = cells.get(2).map_or(Vec::new(), |c| c.split('`').skip(1).step_by(2).map(str::to_owned).collect());
        if !modules.is_empty() {
            layers.push((cells[1].to_owned(), modules));
        }
    }
    assert!(layers.len() >= 2, "the README's layer table has no rows");
    layers
}

/// Every source file of the crate and its module path ("" for the crate root).
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("below src").with_extension("");
        let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
            parts.pop();
        }
        out.insert(parts.join("::"), file);
    }
    out
}

/// Whether the character at `i` starts a token (no identifier character before it).
fn starts_token(s: &[char], i: usize) -> bool {
    i == 0 || !(s[i - 1].is_alphanumeric() || s[i - 1] == '_')
}

/// The source without comments, string literals and char literals (their text is not code).
fn code_only(source: &str) -> String {
    let s: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with(&['/', '/']) {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < s.len() {
                if s[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if s[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if s[i] == 'r'
            && (rest.starts_with(&['r', '"']) || rest.starts_with(&['r', '#']))
            && (starts_token(&s, i) || (s[i - 1] == 'b' && starts_token(&s, i - 1)))
        {
            // A raw string: r"..." or r#"..."# (or br"...").
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push(s[i]);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < s.len() && !(s[i] == '"' && s[i + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes) {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
        } else if s[i] == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if s[i] == '\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime ('a), which stays.
            let end = if rest.get(1) == Some(&'\\') {
                rest.iter().skip(3).position(|&c| c == '\'').map(|p| p + 3)
            } else {
                (rest.get(2) == Some(&'\'')).then_some(2)
            };
            match end {
                Some(e) => {
                    i += e + 1;
                    out.push_str("' '");
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The module paths `code` reaches through `crate::` (with `{...}` groups expanded), each as
/// written after `crate::`; and the `super::` paths other than `use super::*`.
fn references(code: &str) -> (Vec<String>, Vec<String>) {
    fn path_at(s: &[char], mut i: usize, prefix: &str, out: &mut Vec<String>) {
        let mut path = String::new();
        while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_' || s[i] == ':') {
            path.push(s[i]);
            i += 1;
        }
        let path = format!("{prefix}{path}");
        if i < s.len() && s[i] == '{' && (path.is_empty() || path.ends_with("::")) {
            // A group: each item, split at top-level commas, continues the path.
            let mut depth = 0;
            let mut item_start = i + 1;
            let mut j = i;
            while j < s.len() {
                match s[j] {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        let item: String = s[item_start..j].iter().collect();
                        let item: Vec<char> = item.trim().chars().collect();
                        if !item.is_empty() {
                            path_at(&item, 0, &path, out);
                        }
                        item_start = j + 1;
                        if s[j] == '}' {
                            break;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
        } else {
            out.push(path.trim_end_matches(':').to_owned());
        }
    }
    let s: Vec<char> = code.chars().collect();
    let mut crate_paths = Vec::new();
    let mut super_paths = Vec::new();
    for i in 0..s.len() {
        if !starts_token(&s, i) {
            continue;
        }
        if s[i..].starts_with(&['c', 'r', 'a', 't', 'e', ':', ':']) {
            path_at(&s, i + 7, "", &mut crate_paths);
        } else if s[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            let mut path = Vec::new();
            path_at(&s, i + 7, "super::", &mut path);
            // `use super::*` leaves the path "super" (the `*` is not a path character).
            super_paths.extend(path.into_iter().filter(|p| p != "super"));
        }
    }
    (crate_paths, super_paths)
}

/// The module `path` (as written after `crate::`) is in: the longest module path it starts with.
fn target_module<'m>(path: &str, modules: &'m BTreeMap<String, PathBuf>) -> &'m str {
    let segments: Vec<&str> = path.split("::").collect();
    (0..=segments.len()).rev().map(|n| segments[..n].join("::")).find_map(|p| modules.get_key_value(&p).map(|(k, _)| k.as_str())).unwrap_or("")
}

#[derive(Debug)]
struct Layering {
    /// Each module's layer index (the crate root is above every layer).
    layer_of: BTreeMap<String, usize>,
    names: Vec<String>,
}

impl Layering {
    fn new(layers: &[(String, Vec<String>)], modules: &BTreeMap<String, PathBuf>) -> Result<Layering, Vec<String>> {
        let mut problems = Vec::new();
        let mut layer_of = BTreeMap::new();
        for module in modules.keys() {
            let found = layers
                .iter()
                .enumerate()
                .flat_map(|(i, (_, ms))| ms.iter().map(move |m| (i, m)))
                .filter(|(_, m)| module == *m || module.starts_with(&format!("{m}::")))
                .max_by_key(|(_, m)| m.len());
            match found {
                Some((i, _)) => {
                    layer_of.insert(module.clone(), i);
                }
                None if module.is_empty() => {
                    layer_of.insert(module.clone(), layers.len());
                }
                None => problems.push(format!("module `{module}` is in no layer of the README's table")),
            }
        }
        let names = layers.iter().map(|(n, _)| n.clone()).chain(["crate root".to_owned()]).collect();
        if problems.is_empty() {
            Ok(Layering { layer_of, names })
        } else {
            Err(problems)
        }
    }
}

/// Checks every module's imports; returns the problems found.
fn check(src: &Path, readme: &str) -> Vec<String> {
    let modules = modules(src);
    let layers = layers_from_readme(readme);
    let layering = match Layering::new(&layers, &modules) {
        Ok(l) => l,
        Err(problems) => return problems,
    };
    let mut problems = Vec::new();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, file) in &modules {
        let source = std::fs::read_to_string(file).expect("source is readable");
        if !source.starts_with("//!") {
            problems.push(format!("{}: no module documentation (`//!`) at the top", file.display()));
        }
        let (crate_paths, super_paths) = references(&code_only(&source));
        for p in super_paths {
            problems.push(format!("{}: `{p}`: name the module with a `crate::` path", file.display()));
        }
        let from = layering.layer_of[module];
        for path in crate_paths {
            let target = target_module(&path, &modules);
            if target == module {
                continue;
            }
            let to = layering.layer_of[target];
            if to > from {
                problems.push(format!(
                    "{}: `crate::{path}`: module `{module}` (layer {from}, {}) imports from `{}` (layer {to}, {})",
                    file.display(),
                    layering.names[from],
                    if target.is_empty() { "the crate root" } else { target },
                    layering.names[to]
                ));
            }
            edges.entry(module.as_str()).or_default().insert(target);
        }
    }
    // No cycles, inside a layer either (the crate root only declares the modules).
    edges.remove("");
    for cycle in cycles(&edges) {
        problems.push(format!("import cycle: {}", cycle.join(" -> ")));
    }
    problems
}

/// The cycles of the import graph (one per strongly connected set, as a path that closes).
fn cycles<'a>(edges: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    fn visit<'a>(
        node: &'a str,
        edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        found: &mut Vec<Vec<&'a str>>,
    ) {
        state.insert(node, 1);
        stack.push(node);
        for &next in edges.get(node).into_iter().flatten() {
            match state.get(next).copied().unwrap_or(0) {
                0 => visit(next, edges, state, stack, found),
                1 => {
                    let start = stack.iter().position(|&n| n == next).expect("on the stack");
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next);
                    found.push(cycle);
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node, 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for &node in edges.keys() {
        if !state.contains_key(node) {
            visit(node, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn no_module_imports_from_a_layer_above_or_in_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let problems = check(&root.join("src"), &readme);
    assert!(problems.is_empty(), "the layering of lua51-vm (README.md, '## Layers') is broken:\n{}", problems.join("\n"));
}

/// The checker itself: it sees imports in every form, and only in code.
#[test]
fn the_checker_finds_upward_imports_and_cycles() {
    let dir = std::env::temp_dir().join(format!("lua51-vm-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/low")).unwrap();
    let files = [
        ("src/lib.rs", "//! root\npub mod low;\npub mod high;\n"),
        ("src/low/mod.rs", "//! low\npub mod a;\npub mod b;\n"),
        // An upward import inside a group, and one in a comment and a string (ignored).
        ("src/low/a.rs", "//! a\n// crate::high::x\nconst S: &str = \"crate::high::x\";\nuse crate::{low::b::B, high::{H}};\n"),
        // A cycle inside the layer, and a super path.
        ("src/low/b.rs", "//! b\nuse crate::low::a::A;\nfn f() { super::a::g() }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"),
        ("src/high.rs", "no doc\nuse crate::low::a;\n"),
    ];
    for (path, text) in files {
        std::fs::write(dir.join(path), text).unwrap();
    }
    let readme = "# x\n\n## Layers\n\n| # | layer | modules | owns |\n|---|---|---|---|\n| 0 | low | `low` | a, b |\n| 1 | high | `high` | h |\n";
    let problems = check(&dir.join("src"), readme);
    let _ = std::fs::remove_dir_all(&dir);
    let text = problems.join("\n");
    assert!(text.contains("`crate::high::H`: module `low::a` (layer 0, low) imports from `high` (layer 1, high)"), "{text}");
    assert!(text.contains("import cycle: low::a -> low::b -> low::a"), "{text}");
    // The upward import closes a cycle with the downward one too.
    assert!(text.contains("import cycle: high -> low::a -> high"), "{text}");
    assert!(text.contains("`super::a::g`"), "{text}");
    assert!(text.contains("high.rs: no module documentation"), "{text}");
    assert_eq!(problems.len(), 5, "{text}");
}
