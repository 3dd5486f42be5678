//! The decision corpus (`tests/corpus/*.jsonl`), run against the native core. The same files
//! run through the WASM build and the CLI in `tests/js/corpus.test.mjs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod common;

use openclaw_human_gate::decide_json_str;
use serde_json::{json, Value};
use std::collections::HashSet;

fn cases() -> Vec<(String, Value)> {
    common::decision_cases()
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
