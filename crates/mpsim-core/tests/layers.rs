//! The core's modules form layers: each may use only the modules below it,
//! so none is part of an import cycle. This test reads every source file of
//! `src/`, collects the top-level modules it names through `crate::…` and
//! `super::…` paths (comments and `#[cfg(test)]` items left out: a test may
//! build a whole scenario), and fails on any edge that goes up or sideways
//! in [`LAYERS`]. A new top-level module must be given its place here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules of `crates/mpsim-core/src`, lowest first. A module
/// may use the modules listed before it, never one listed after it.
const LAYERS: &[&str] = &[
    // Leaves: identifiers, integer time, arithmetic, cache hints, seeded randomness, how a run stops.
    "ids",
    "time",
    "math",
    "cache",
    "rng",
    "stop",
    "error",
    // Algorithms supplied by the caller: their configuration and the run's stop signal.
    "plugin",
    // What travels: packets and their headers.
    "wire",
    // The event queue.
    "event",
    // The tracing hook, and the traces kept through it.
    "observe",
    "trace",
    "throughput",
    // What every component receives: clock, events, packets, observer.
    "context",
    // The network: links, queues, loss, routing, forwarding.
    "net",
    // Traffic that is not TCP, and the gaps of flow sequences.
    "traffic",
    // Congestion avoidance and slow start.
    "cc",
    "slowstart",
    // TCP and MPTCP.
    "transport",
    // The event loop over all of the above.
    "sim",
    // What a run is, what it may cost, how it is built, what it reports.
    "config",
    "limits",
    "validate",
    "build",
    "results",
    "tables",
    // Packet captures of a run.
    "pcap",
];

/// Edges that go up the layers today, each with the reason; the test fails on
/// any other and on any of these that disappears (so the list only shrinks).
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// A source file's module path below the crate root (`net/queue/red.rs` →
/// `["net", "queue", "red"]`; `net/mod.rs` → `["net"]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments and without the items under a
/// `#[cfg(test)]` attribute.
fn non_test_code(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    let mut code = out;
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        // The item ends at its first `;` if that comes before any `{`,
        // otherwise at the brace that closes its first `{`.
        let semi = rest.find(';');
        let open = rest.find('{');
        let end = match (semi, open) {
            (Some(s), Some(o)) if s < o => s + 1,
            (Some(s), None) => s + 1,
            (_, Some(o)) => {
                let mut depth = 0usize;
                let mut end = rest.len();
                for (i, c) in rest[o..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, None) => rest.len(),
        };
        code.replace_range(at..at + end, "");
    }
    code
}

/// The top-level modules that code in module `path` names.
fn uses(path: &[String], code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `mpsim_core::…` or a longer name ending in "crate"
        }
        let name = ident(&code[at + "crate::".len()..]);
        if !name.is_empty() {
            found.insert(name);
        }
    }
    for (at, _) in code.match_indices("super::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue; // counted with the `super::` that starts the chain
        }
        let mut rest = &code[at..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        // `super` of a module at depth d reaches the crate root after d hops.
        if up >= path.len() {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Every edge between top-level modules: (user, used) → files that make it.
fn module_graph() -> BTreeMap<(String, String), Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    let mut dirs = vec![src.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("src is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src").to_path_buf();
        let path = module_path(&rel);
        if path.is_empty() || path.last().is_some_and(|m| m.ends_with("_tests")) {
            continue; // the crate root, and test modules kept in their own files
        }
        let code = non_test_code(&std::fs::read_to_string(&f).expect("a readable source"));
        for used in uses(&path, &code) {
            if used != path[0] {
                edges
                    .entry((path[0].clone(), used))
                    .or_default()
                    .push(rel.display().to_string());
            }
        }
    }
    edges
}

#[test]
fn every_module_uses_only_modules_below_it() {
    let rank = |m: &str| LAYERS.iter().position(|&l| l == m);
    let mut wrong = vec![];
    let graph = module_graph();
    for &(from, to) in KNOWN_UPWARD {
        if !graph.contains_key(&(from.to_string(), to.to_string())) {
            wrong.push(format!("{from} -> {to} no longer goes up: remove it from KNOWN_UPWARD"));
        }
    }
    for ((from, to), files) in graph {
        match (rank(&from), rank(&to)) {
            (Some(a), Some(b)) if b < a => {}
            _ if KNOWN_UPWARD.contains(&(from.as_str(), to.as_str())) => {}
            (None, _) => wrong.push(format!("{from} is not placed in LAYERS (it uses {to})")),
            (_, None) => wrong.push(format!("{to} is not placed in LAYERS (used by {from})")),
            _ => wrong.push(format!("{from} -> {to} goes up the layers, in {}", files.join(", "))),
        }
    }
    assert!(wrong.is_empty(), "layer violations:\n{}", wrong.join("\n"));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    let placed: BTreeSet<&str> = LAYERS.iter().copied().collect();
    assert_eq!(declared, placed);
}

#[test]
fn the_reader_resolves_paths_and_skips_comments_and_tests() {
    let path: Vec<String> = ["net", "queue", "red"].iter().map(|s| s.to_string()).collect();
    let code = non_test_code(
        "use crate::wire::Packet; // crate::sim in a comment\n\
         use super::Fifo;\n\
         use super::super::super::event::Event;\n\
         let x = mpsim_core::build::build;\n\
         #[cfg(test)]\nmod tests { use crate::build::build; }\n\
         #[cfg(test)]\nmod more_tests;\n\
         fn f() -> crate::ids::LinkId { crate::ids::LinkId(0) }\n",
    );
    let expected: BTreeSet<String> = ["wire", "event", "ids"].iter().map(|s| s.to_string()).collect();
    assert_eq!(uses(&path, &code), expected);
}
