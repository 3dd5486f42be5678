//! The shared config fixtures (`tests/fixtures/config/`), run against the native core.
//! `tests/js/schema.test.mjs` runs the same files through Ajv and the built WASM, so the JSON
//! Schema, the core and the WASM build are held to one set of answers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use openclaw_human_gate::config::Config;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn fixtures(folder: &str) -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/config")
        .join(folder);
    let mut out: Vec<(String, Value)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no fixtures in {folder}");
    out
}

/// An error "is at" `path` when it starts with it followed by `:`, `.` or `[` (see the README).
fn is_at(error: &str, path: &str) -> bool {
    path.is_empty()
        || error
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with([':', '.', '[']))
}

fn errors_for(fixture: &Value) -> Vec<String> {
    Config::from_json(&fixture["config"].to_string()).1
}

#[test]
fn valid_fixtures_have_no_errors() {
    for (name, f) in fixtures("valid") {
        assert_eq!(errors_for(&f), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn invalid_fixtures_are_rejected_at_the_expected_path() {
    for folder in ["invalid", "semantic-invalid"] {
        for (name, f) in fixtures(folder) {
            let path = f["expectErrorPath"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no path"));
            let errors = errors_for(&f);
            assert!(
                errors.iter().any(|e| is_at(e, path)),
                "{folder}/{name}: expected an error at `{path}`, got {errors:?}"
            );
        }
    }
}
