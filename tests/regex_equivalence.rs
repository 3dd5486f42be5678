//! The redactor runs its patterns on the `regex` crate, translated from regex-lite's dialect
//! (src/preview/pattern.rs). This checks that the translation changes nothing: for every
//! pattern the redactor compiles, over every text of the corpora and over generated text
//! (secret-ish words, separators, quotes, non-ASCII look-alikes such as the Kelvin sign and
//! no-break space), both engines find the same leftmost-first match with the same groups at
//! every position a search can start from.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use openclaw_human_gate::preview::pattern::compile;
use openclaw_human_gate::preview::redact::patterns;
use proptest::prelude::*;

struct Pair {
    pattern: String,
    lite: regex_lite::Regex,
    full: regex::Regex,
}

fn pairs() -> &'static [Pair] {
    static PAIRS: std::sync::OnceLock<Vec<Pair>> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        patterns()
            .into_iter()
            .map(|p| Pair {
                lite: regex_lite::Regex::new(&p).unwrap(),
                full: compile(&p).unwrap(),
                pattern: p,
            })
            .collect()
    })
}

/// Searches from 0, then from one character after each match start, comparing every group.
fn assert_same(pair: &Pair, text: &str) {
    let mut pos = 0usize;
    while pos <= text.len() {
        let a = pair.lite.captures_at(text, pos);
        let b = pair.full.captures_at(text, pos);
        let (a, b) = match (a, b) {
            (None, None) => return,
            (Some(a), Some(b)) => (a, b),
            (a, b) => panic!(
                "pattern {:?} on {text:?} from {pos}: regex-lite {:?}, regex {:?}",
                pair.pattern,
                a.and_then(|c| c.get(0)).map(|m| m.range()),
                b.and_then(|c| c.get(0)).map(|m| m.range())
            ),
        };
        assert_eq!(a.len(), b.len(), "group count of {:?}", pair.pattern);
        for i in 0..a.len() {
            assert_eq!(
                a.get(i).map(|m| m.range()),
                b.get(i).map(|m| m.range()),
                "group {i} of {:?} on {text:?} from {pos}",
                pair.pattern
            );
        }
        let start = a.get(0).unwrap().start();
        pos = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
}

fn strings_of(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

/// Every string of every corpus line, and each line as written (JSON-escaped text is text
/// the redactor sees too: request params, decision JSON).
fn corpus_texts() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.push(format!("{root}/bench/corpus.jsonl").into());
    let mut texts = Vec::new();
    for file in files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            if line.trim().is_empty() {
                continue;
            }
            texts.push(line.to_owned());
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                strings_of(&v, &mut texts);
            }
        }
    }
    texts.sort();
    texts.dedup();
    texts
}

#[test]
fn every_pattern_matches_the_same_over_the_corpora() {
    let pairs = pairs();
    assert!(pairs.len() > 40, "only {} patterns", pairs.len());
    let texts = corpus_texts();
    assert!(texts.len() > 1000, "only {} texts", texts.len());
    for pair in pairs {
        for text in &texts {
            assert_same(pair, text);
        }
    }
}

const PIECES: &[&str] = &[
    "password",
    "PASS",
    "Token",
    "secret_key",
    "api-key",
    "AUTH",
    "pat_",
    "=",
    ":",
    ": ",
    ":=",
    "=>",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\"",
    "'",
    "\\\"",
    "`",
    "-",
    "--",
    "-p",
    "-P",
    "/p:",
    "AKIA",
    "sk-",
    "ghp_",
    "xoxb-",
    "eyJ",
    "hooks.slack.com/services/",
    "://",
    "@",
    "/",
    "<",
    ">",
    "</",
    "$",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    "&",
    "|",
    ",",
    ".",
    "_",
    "~",
    "+",
    "=",
    "0123456789",
    "ABCDEFGHIJKLMNOP",
    "abcdef0123",
    "q~",
    "Bearer ",
    "basic ",
    "mysql ",
    "curl ",
    "login ",
    "BEGIN RSA PRIVATE KEY-----",
    "-----",
    "é",
    "\u{212A}",
    "\u{17F}",
    "\u{a0}",
    "\u{2028}",
    "日本",
    "K",
    "k",
    "s",
    "S",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn every_pattern_matches_the_same_on_generated_text(
        parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..48)
    ) {
        let text: String = parts.concat();
        for pair in pairs() {
            assert_same(pair, &text);
        }
    }
}
