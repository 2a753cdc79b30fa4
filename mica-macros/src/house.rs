//! The crate's house, a test over its own source: its stages import one
//! way, no two files import each other in a circle, and no file is long.
//!
//! An arrow goes from a file to the file of a module it names (the longest
//! prefix of the path that is a module): every path of a `use` (braces
//! expanded), every `crate::…`, `super::…` and `self::…` path, and a `use`
//! of a child module the file declares (`use walls::MUTATING;` in
//! `lower.rs`). What the files' unit tests (`#[cfg(test)] mod tests { … }`,
//! and everything after it) and comments say is left out, and so are the
//! files of test-only modules (`#[cfg(test)] mod house;`). These are the
//! rules of the repository's `house.py`, which prints the same findings.
//!
//! A stage is a top-level file and the files below its folder (`lower.rs`
//! and `lower/*.rs`, which share `impl Sweep`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The most lines a production file may have (its unit tests left out).
const MOST_LINES: usize = 600;

/// The module path of a source file: `lower/flow.rs` is `lower::flow`,
/// `facts/mod.rs` is `facts`, `lib.rs` the crate's root.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

fn files(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let path = entry.path();
        if path.is_dir() {
            files(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".rs") {
            out.push(format!("{prefix}{name}"));
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the first character at or after `at` that is not whitespace
/// stands.
fn skip_space(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start().len())
}

/// The word (letters, digits, `_`) that starts at `at`.
fn word_at(text: &str, at: usize) -> &str {
    let rest = &text[at..];
    &rest[..rest.find(|c: char| !is_word(c)).unwrap_or(rest.len())]
}

/// Where `word` stands in `text` as a whole word.
fn words<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            !text[..at].ends_with(is_word) && !text[at + word.len()..].starts_with(is_word)
        })
}

/// After `#[cfg(test)]` at `at`: the module `mod name;` (or `pub mod`,
/// `pub(crate) mod`) names, if that is what follows.
fn test_module_file(text: &str, at: usize) -> Option<&str> {
    let mut k = skip_space(text, at + "#[cfg(test)]".len());
    if word_at(text, k) == "pub" {
        k += 3;
        if text[k..].starts_with('(') {
            k += text[k..].find(')')? + 1;
        }
        let after = skip_space(text, k);
        if after == k {
            return None;
        }
        k = after;
    }
    if word_at(text, k) != "mod" {
        return None;
    }
    let name_at = skip_space(text, k + 3);
    let name = word_at(text, name_at);
    let end = skip_space(text, name_at + name.len());
    (name_at > k + 3 && !name.is_empty() && text[end..].starts_with(';')).then_some(name)
}

/// A file's code without its unit tests: everything from a line that
/// starts `#[cfg(test)]`, followed by a line break and `mod name {`, is
/// left out.
fn production(text: &str) -> &str {
    let attr = "#[cfg(test)]";
    let starts_tests = |at: usize| {
        let after = &text[at + attr.len()..];
        let rest = after.trim_start();
        let Some(named) = rest
            .strip_prefix("mod")
            .filter(|r| r.starts_with(char::is_whitespace))
            .map(str::trim_start)
        else {
            return false;
        };
        let name = word_at(named, 0);
        (at == 0 || text[..at].ends_with('\n'))
            && after[..after.len() - rest.len()].contains('\n')
            && !name.is_empty()
            && named[name.len()..].trim_start().starts_with('{')
    };
    let cut = text
        .match_indices(attr)
        .map(|(at, _)| at)
        .find(|&at| starts_tests(at));
    cut.map_or(text, |at| &text[..at])
}

/// `code` without its `//` comments (doc comments included).
fn without_comments(code: &str) -> String {
    code.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a `use` tree names, braces expanded, as segments (`*`, and
/// the new name of `as`, left out): `a::{b, c::*}` is `a::b` and `a::c`.
fn use_tree(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let (mut depth, mut start) = (0, 0);
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_tree(prefix, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        if start < inner.len() {
            use_tree(prefix, &inner[start..], out);
        }
        return;
    }
    if let Some((head, rest)) = tree.split_once("::{") {
        let mut longer = prefix.to_vec();
        longer.extend(head.split("::").map(str::to_string));
        use_tree(&longer, &format!("{{{rest}"), out);
        return;
    }
    let mut path = prefix.to_vec();
    path.extend(
        tree.split("::")
            .filter(|s| !s.is_empty() && *s != "*")
            .map(str::to_string),
    );
    out.push(path);
}

/// A `use` tree without its whitespace and without the new names of `as`:
/// `a::{b as c, d}` is `a::{b,d}`.
fn compact(tree: &str) -> String {
    let spaced = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut rest = spaced.as_str();
    while let Some(at) = rest.find(" as ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 4..];
        rest = &after[word_at(after, 0).len()..];
    }
    out.push_str(rest);
    out.retain(|c| !c.is_whitespace());
    out
}

/// The paths a file's code names: those of its `use` trees, and every
/// `crate::…`, `super::…` and `self::…` path.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for at in words(code, "use") {
        let start = at + 3;
        if !code[start..].starts_with(char::is_whitespace) {
            continue;
        }
        let Some(end) = code[start..].find(';') else {
            continue;
        };
        use_tree(&[], &compact(&code[start..start + end]), &mut out);
    }
    for head in ["crate", "super", "self"] {
        for at in words(code, head) {
            let mut path = vec![head.to_string()];
            let mut k = at + head.len();
            while let Some(rest) = code[k..].strip_prefix("::") {
                let segment = word_at(rest, 0);
                if segment.is_empty() {
                    break;
                }
                path.push(segment.to_string());
                k += 2 + segment.len();
            }
            if path.len() > 1 {
                out.push(path);
            }
        }
    }
    out
}

/// The crate's source: each file's text, and the modules of test-only
/// files.
struct Source {
    texts: BTreeMap<String, String>,
    test_only: BTreeSet<Vec<String>>,
}

impl Source {
    fn read(root: &Path) -> Self {
        let mut all = Vec::new();
        files(root, "", &mut all);
        let texts: BTreeMap<String, String> = all
            .into_iter()
            .map(|f| {
                let text = std::fs::read_to_string(root.join(&f)).unwrap_or_default();
                (f, text)
            })
            .collect();
        let mut test_only = BTreeSet::new();
        for (file, text) in &texts {
            for (at, _) in text.match_indices("#[cfg(test)]") {
                if let Some(name) = test_module_file(text, at) {
                    let mut module = module_of(file);
                    module.push(name.to_string());
                    test_only.insert(module);
                }
            }
        }
        Source { texts, test_only }
    }

    /// The production files: every file but those of test-only modules.
    fn production(&self) -> impl Iterator<Item = (&String, &String)> {
        self.texts
            .iter()
            .filter(|(file, _)| !self.test_only.contains(&module_of(file)))
    }

    /// Arrows between production files.
    fn arrows(&self) -> BTreeMap<String, BTreeSet<String>> {
        let modules: BTreeMap<Vec<String>, &String> =
            self.texts.keys().map(|f| (module_of(f), f)).collect();
        let mut out = BTreeMap::new();
        for (file, text) in self.production() {
            let here = module_of(file);
            let code = without_comments(production(text));
            let mut to = BTreeSet::new();
            for path in paths_in(&code) {
                let (mut base, mut rest) = match path[0].as_str() {
                    "crate" => (Vec::new(), &path[1..]),
                    "super" => (here[..here.len().saturating_sub(1)].to_vec(), &path[1..]),
                    "self" => (here.clone(), &path[1..]),
                    // `use walls::…` of a child module `walls`
                    child if modules.contains_key(&[&here[..], &[child.to_string()]].concat()) => {
                        (here.clone(), &path[..])
                    }
                    _ => continue,
                };
                if path[0] == "super" {
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
                base.extend(rest.iter().cloned());
                let target = (1..=base.len())
                    .rev()
                    .find_map(|k| modules.get_key_value(&base[..k]));
                if let Some((module, target)) = target {
                    if *module != here && !self.test_only.contains(module) {
                        to.insert((*target).clone());
                    }
                }
            }
            out.insert(file.clone(), to);
        }
        out
    }

    /// Production files over [`MOST_LINES`] lines, with their lengths.
    fn long_files(&self) -> Vec<(String, usize)> {
        self.production()
            .map(|(file, text)| (file.clone(), production(text).matches('\n').count()))
            .filter(|(_, lines)| *lines > MOST_LINES)
            .collect()
    }
}

fn source() -> Source {
    let source = Source::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(source.texts.len() > 10, "the source was not found");
    source
}

/// The stage of a file: its first path component, without `.rs`.
fn stage(file: &str) -> &str {
    file.split('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs")
}

/// A circle of stages, if there is one: each stage (a top-level file and
/// the files below its folder) is one node, and an arrow between two files
/// of different stages is an arrow between the stages.
fn circle(arrows: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    let mut stages: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to) in arrows {
        let entry = stages.entry(stage(from)).or_default();
        entry.extend(to.iter().map(|t| stage(t)).filter(|t| *t != stage(from)));
    }
    for &start in stages.keys() {
        let mut stack = vec![vec![start]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            let at = path[path.len() - 1];
            for &next in stages.get(at).into_iter().flatten() {
                if next == start {
                    return Some(path.iter().map(|s| s.to_string()).collect());
                }
                if seen.insert(next) {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push(longer);
                }
            }
        }
    }
    None
}

/// The circles between files: each set of two or more files that reach
/// each other through arrows (a strongly connected component), sorted.
fn file_circles(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(at) = stack.pop() {
            for next in arrows.get(at).into_iter().flatten() {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<&String>> =
        arrows.keys().map(|f| (f, reach(f))).collect();
    let mut circles = BTreeSet::new();
    for (file, from_here) in &reached {
        let circle: Vec<String> = from_here
            .iter()
            .filter(|other| reached.get(*other).is_some_and(|back| back.contains(file)))
            .map(|f| f.to_string())
            .collect();
        if circle.len() > 1 {
            circles.insert(circle);
        }
    }
    circles.into_iter().collect()
}

#[test]
fn stages_import_one_way() {
    let arrows = source().arrows();
    // the test can see an arrow
    assert!(arrows["plan/fuse.rs"].contains("analyze/dependence.rs"));
    assert_eq!(circle(&arrows), None);
}

#[test]
fn files_import_one_way() {
    let arrows = source().arrows();
    // the test sees `use super::…`, `use child::…` and `crate::…` inside code
    assert!(arrows["lower/stmts.rs"].contains("lower.rs"));
    assert!(arrows["facts/loops.rs"].contains("facts/syntax.rs"));
    assert!(arrows["facts/syntax.rs"].contains("names.rs"));
    assert!(arrows["dispatch.rs"].contains("window_form.rs"));
    let circles = file_circles(&arrows);
    assert!(
        circles.is_empty(),
        "files import each other in a circle: {}",
        circles
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("; ")
    );
}

#[test]
fn no_production_file_is_long() {
    let source = source();
    // the files of test-only modules are not production files
    assert!(source.test_only.contains(&vec!["no_panic".to_string()]));
    let long: Vec<String> = source
        .long_files()
        .into_iter()
        .map(|(file, lines)| format!("{file} ({lines})"))
        .collect();
    assert!(
        long.is_empty(),
        "over {MOST_LINES} lines outside their unit tests: {}",
        long.join(", ")
    );
}

#[test]
fn a_circle_between_stages_is_found() {
    let mut arrows = BTreeMap::new();
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    arrows.insert("lower/fast.rs".to_string(), set(&["reverse/forward.rs"]));
    arrows.insert("reverse/forward.rs".to_string(), set(&["reverse.rs"]));
    arrows.insert("reverse.rs".to_string(), set(&["lower.rs"]));
    arrows.insert("lower.rs".to_string(), set(&["lower/fast.rs"]));
    // through both families: lower → reverse → lower
    assert!(circle(&arrows).is_some());
    // a stage's files may reach each other
    arrows.insert("lower/fast.rs".to_string(), set(&["lower/flow.rs"]));
    assert_eq!(circle(&arrows), None);
}

#[test]
fn a_circle_between_files_is_found() {
    let mut arrows = BTreeMap::new();
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    arrows.insert("lower.rs".to_string(), set(&["lower/walls.rs", "names.rs"]));
    arrows.insert("lower/walls.rs".to_string(), set(&["lower/arrays.rs"]));
    arrows.insert("lower/arrays.rs".to_string(), set(&["lower.rs"]));
    arrows.insert("names.rs".to_string(), set(&[]));
    // within one stage: lower.rs → walls → arrays → lower.rs
    assert_eq!(
        file_circles(&arrows),
        vec![vec![
            "lower.rs".to_string(),
            "lower/arrays.rs".to_string(),
            "lower/walls.rs".to_string()
        ]]
    );
    // the parent no longer imports its child: no circle
    arrows.insert("lower.rs".to_string(), set(&["names.rs"]));
    assert!(file_circles(&arrows).is_empty());
}

#[test]
fn paths_are_read_as_house_py_reads_them() {
    let code = "use super::*;\nuse crate::record::{self, Step as S};\nuse walls::{MUTATING, x::{y, z}};\nfn f() { crate::names::fresh(); self::a::b(); super::super::c(); }";
    let paths: Vec<String> = paths_in(code).iter().map(|p| p.join("::")).collect();
    for path in [
        "super",
        "crate::record::self",
        "crate::record::Step",
        "walls::MUTATING",
        "walls::x::y",
        "walls::x::z",
        "crate::names::fresh",
        "self::a::b",
        "super::super::c",
    ] {
        assert!(paths.contains(&path.to_string()), "{path} in {paths:?}");
    }
    let text = "use a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
    assert_eq!(production(text), "use a;\n");
    // an attribute on an item, not on the tests: kept
    let text = "#[cfg(test)] pub fn only_in_tests() {}\nuse a;\n";
    assert_eq!(production(text), text);
    assert_eq!(
        test_module_file("#[cfg(test)]\nmod house;", 0),
        Some("house")
    );
    // (written in two halves, so this file declares no test-only module)
    let declared = concat!("#[cfg(test)]", " pub(crate) mod no_panic ;");
    assert_eq!(test_module_file(declared, 0), Some("no_panic"));
    assert_eq!(test_module_file("#[cfg(test)]\nmod tests {", 0), None);
    assert_eq!(module_of("facts/mod.rs"), vec!["facts".to_string()]);
    assert!(module_of("lib.rs").is_empty());
}
