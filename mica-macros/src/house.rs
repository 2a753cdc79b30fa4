//! The crate's stages import one way: a test over its own source.
//!
//! Every `crate::…` path in a file (outside its unit tests) is an arrow to
//! the file of the module it names. A stage is a top-level file and the
//! files below its folder (`lower.rs` and `lower/*.rs`, which share `impl
//! Sweep`); the arrows between stages may form no circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module path of a source file: `lower/flow.rs` is `lower::flow`.
fn module_of(file: &str) -> Vec<String> {
    let stem = file.trim_end_matches(".rs").trim_end_matches("/mod");
    if stem == "lib" {
        return Vec::new();
    }
    stem.split('/').map(str::to_string).collect()
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

/// Arrows between files: `crate::a::b` from a file names the file of the
/// longest module prefix that exists.
fn arrows(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    files(root, "", &mut all);
    let modules: BTreeMap<Vec<String>, String> =
        all.iter().map(|f| (module_of(f), f.clone())).collect();
    let mut out = BTreeMap::new();
    for file in &all {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let mut to = BTreeSet::new();
        for (at, _) in code.match_indices("crate::") {
            let path: Vec<String> = code[at + 7..]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .map(str::to_string)
                .collect();
            if let Some(target) = (1..=path.len()).rev().find_map(|k| modules.get(&path[..k])) {
                to.insert(target.clone());
            }
        }
        out.insert(file.clone(), to);
    }
    out
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

#[test]
fn stages_import_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let arrows = arrows(&root);
    assert!(arrows.len() > 10, "the source was not found");
    // the test can see an arrow
    assert!(arrows["plan/fuse.rs"].contains("analyze/dependence.rs"));
    assert_eq!(circle(&arrows), None);
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
