//! Test fixtures shared by the unit tests of several modules: the committed corpora read as
//! texts, so that every equivalence test proves its shortcut over the same inputs. (The
//! integration tests under `tests/` have their own reader, `tests/common`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

/// The `text` of every line of the secret corpus (`tests/corpus/secrets.jsonl`), in order.
pub fn secret_texts() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/secrets.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Every committed fuzz regression input (each file under `tests/fuzz-regressions/`, at any
/// depth: fixed and still-open ones of every target), as lossy UTF-8 text.
pub fn fuzz_regression_texts() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fuzz-regressions"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned());
            }
        }
    }
    out
}

/// Every string value of every corpus request (`crate::gate::tests::corpus_requests`), at any
/// depth, in request order.
pub fn corpus_request_strings() -> Vec<String> {
    let mut out = Vec::new();
    for (_, request) in crate::gate::tests::corpus_requests() {
        let v: serde_json::Value = serde_json::from_str(&request).unwrap();
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(a) => stack.extend(a),
                serde_json::Value::Object(m) => stack.extend(m.values()),
                _ => {}
            }
        }
    }
    out
}
