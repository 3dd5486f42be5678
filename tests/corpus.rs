//! The decision corpus (`tests/corpus/*.jsonl`), run against the native core. The same files
//! run through the WASM build and the CLI in `tests/js/corpus.test.mjs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use openclaw_human_gate::decide_json_str;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::fs;
use std::path::Path;

fn cases() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        // secrets.jsonl is the redaction corpus (tests/secrets.rs), not decision cases.
        .filter(|p| !p.ends_with("secrets.jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for (i, line) in fs::read_to_string(&f).unwrap().lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
            out.push((format!("{name}:{}", i + 1), v));
        }
    }
    out
}

/// Checks one case; returns a description of every mismatch.
fn check(case: &Value) -> Vec<String> {
    let mut request = json!({"toolName": case["toolName"], "params": case["params"]});
    if let Some(kind) = case.get("toolKind") {
        request["toolKind"] = kind.clone();
    }
    let config = case.get("config").cloned().unwrap_or(json!({}));
    let out: Value =
        serde_json::from_str(&decide_json_str(&config.to_string(), &request.to_string())).unwrap();
    let ids: HashSet<&str> = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    let mut problems = Vec::new();
    if out["decision"] != case["decision"] {
        problems.push(format!(
            "decision {} (expected {})",
            out["decision"], case["decision"]
        ));
    }
    for want in case["findings"].as_array().into_iter().flatten() {
        if !ids.contains(want.as_str().unwrap()) {
            problems.push(format!("missing finding {want}"));
        }
    }
    for not in case["absent"].as_array().into_iter().flatten() {
        if ids.contains(not.as_str().unwrap()) {
            problems.push(format!("unexpected finding {not}"));
        }
    }
    if let Some(r) = case.get("reusable") {
        if out["reusable"] != *r {
            problems.push(format!("reusable {} (expected {r})", out["reusable"]));
        }
    }
    if !problems.is_empty() {
        let mut got: Vec<&str> = ids.into_iter().collect();
        got.sort();
        problems.push(format!("got findings {got:?}"));
    }
    problems
}

#[test]
fn corpus_ids_are_unique_and_cases_well_formed() {
    let mut seen = HashSet::new();
    for (at, case) in cases() {
        let id = case["id"].as_str().unwrap_or_else(|| panic!("{at}: no id"));
        assert!(seen.insert(id.to_owned()), "{at}: duplicate id {id}");
        assert!(
            matches!(
                case["decision"].as_str(),
                Some("auto" | "approval" | "critical" | "block")
            ),
            "{at}: bad decision"
        );
        for key in case.as_object().unwrap().keys() {
            assert!(
                matches!(
                    key.as_str(),
                    "id" | "toolName"
                        | "params"
                        | "toolKind"
                        | "config"
                        | "decision"
                        | "findings"
                        | "absent"
                        | "reusable"
                        | "source"
                ),
                "{at}: unknown field {key}"
            );
        }
    }
}

#[test]
fn corpus_decisions_match() {
    let mut failures = Vec::new();
    let all = cases();
    for (at, case) in &all {
        let problems = check(case);
        if !problems.is_empty() {
            failures.push(format!("{at} {}: {}", case["id"], problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases fail:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
