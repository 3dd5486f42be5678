//! Shared by the integration tests that walk the decision corpus (`tests/corpus.rs`,
//! `tests/session_corpus.rs`): one reader, so every walker sees the same cases.

use serde_json::Value;
use std::fs;
use std::path::Path;

/// Every decision case in `tests/corpus/*.jsonl`, named `file:line`, in file order.
/// `secrets.jsonl` is the redaction corpus (`tests/secrets.rs`), not decision cases.
pub fn decision_cases() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
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
