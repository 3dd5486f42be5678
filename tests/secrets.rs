//! The secret corpus (`tests/corpus/secrets.jsonl`): realistic secrets in commands, files,
//! patches and tool outputs, and look-alikes that must stay as they are. Asserts that no secret
//! (not even an 8-character piece of one) survives redaction, the previews, the decision
//! (finding details and reasons), the audit record, or the output guard; that look-alikes are
//! not changed; that redaction is idempotent; and that a cut never leaves half a secret.
//! Prints recall and false-redaction counts (`cargo test --test secrets -- --nocapture`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use openclaw_human_gate::preview::redact::Redactor;
use serde_json::{json, Value};

struct Entry {
    id: String,
    place: String,
    text: String,
    secrets: Vec<String>,
    lookalike: bool,
}

fn corpus() -> Vec<Entry> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/secrets.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Entry {
                id: v["id"].as_str().unwrap().to_owned(),
                place: v["where"].as_str().unwrap().to_owned(),
                text: v["text"].as_str().unwrap().to_owned(),
                secrets: v["secrets"]
                    .as_array()
                    .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
                    .unwrap_or_default(),
                lookalike: v["lookalike"].as_bool().unwrap_or(false),
            }
        })
        .collect()
}

/// The pieces of a secret that must not appear: every 8-character window (the whole secret
/// when shorter).
fn windows(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 8 {
        return vec![secret.to_owned()];
    }
    chars.windows(8).map(|w| w.iter().collect()).collect()
}

fn leaks(out: &str, secret: &str) -> Option<String> {
    windows(secret)
        .into_iter()
        .find(|w| out.contains(w.as_str()))
}

#[test]
fn corpus_has_enough_cases() {
    let c = corpus();
    let secrets = c.iter().filter(|e| !e.lookalike).count();
    let lookalikes = c.iter().filter(|e| e.lookalike).count();
    assert!(secrets >= 80, "{secrets} secret cases");
    assert!(lookalikes >= 40, "{lookalikes} look-alikes");
    for place in ["command", "file", "patch", "output"] {
        assert!(
            c.iter().any(|e| !e.lookalike && e.place == place),
            "{place}"
        );
    }
    for e in &c {
        assert!(
            e.lookalike || !e.secrets.is_empty(),
            "{} lists no secret",
            e.id
        );
        for s in &e.secrets {
            assert!(e.text.contains(s.as_str()), "{}: secret not in text", e.id);
        }
    }
}

#[test]
fn redaction_recall_and_precision() {
    let r = Redactor::new();
    let (mut total, mut hidden, mut lookalikes, mut mangled) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for e in corpus() {
        let out = r.redact(&e.text);
        assert_eq!(r.redact(&out), out, "{}: not idempotent", e.id);
        if e.lookalike {
            lookalikes += 1;
            if out != e.text {
                mangled += 1;
                failures.push(format!(
                    "look-alike {} changed:\n  {}\n  {}",
                    e.id, e.text, out
                ));
            }
            continue;
        }
        for s in &e.secrets {
            total += 1;
            match leaks(&out, s) {
                None => hidden += 1,
                Some(w) => failures.push(format!("{}: `{w}` survives in\n  {out}", e.id)),
            }
        }
    }
    println!(
        "secret corpus: recall {hidden}/{total} secrets hidden; false redactions {mangled}/{lookalikes} look-alikes changed"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The request a tool would make with this text, per where the text appears.
fn requests(e: &Entry) -> Vec<Value> {
    let t = &e.text;
    vec![
        json!({"toolName": "exec", "params": {"command": t}}),
        json!({"toolName": "write", "params": {"path": "notes/x.txt", "content": t}}),
        json!({"toolName": "edit", "params": {"path": "src/x.txt", "oldText": "a", "newText": t}}),
        json!({"toolName": "apply_patch", "params": {"input": t}}),
        json!({"toolName": "code_execution", "params": {"code": t}}),
        json!({"toolName": "mcp_tool", "params": {"query": t, "extra": {"nested": [t]}}}),
    ]
}

#[test]
fn no_secret_reaches_a_decision_or_preview() {
    let gate = openclaw_human_gate::Gate::new("{}");
    let mut failures = Vec::new();
    for e in corpus().iter().filter(|e| !e.lookalike) {
        for req in requests(e) {
            let out = gate.decide_json(&req.to_string());
            let d: Value = serde_json::from_str(&out).unwrap();
            // Everything the decision shows: reason, details, preview.
            let shown = format!(
                "{}\n{}\n{}\n{}",
                d["reason"], d["findings"], d["preview"]["title"], d["preview"]["description"]
            );
            for s in &e.secrets {
                if let Some(w) = leaks(&shown, s) {
                    failures.push(format!(
                        "{} via {}: `{w}` in {shown}",
                        e.id, req["toolName"]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_cut_never_leaves_half_a_secret() {
    let r = Redactor::new();
    for e in corpus().iter().filter(|e| !e.lookalike) {
        let n = e.text.chars().count();
        for max in (4..n + 2).step_by(3) {
            let out = openclaw_human_gate::preview::clean_text(&r, &e.text, max);
            assert!(out.chars().count() <= max, "{}", e.id);
            for s in &e.secrets {
                if let Some(w) = leaks(&out, s) {
                    panic!("{} cut at {max}: `{w}` in {out}", e.id);
                }
            }
        }
    }
}

#[test]
fn look_alikes_survive_into_the_preview() {
    let gate = openclaw_human_gate::Gate::new("{}");
    for e in corpus().iter().filter(|e| e.lookalike) {
        let req = json!({"toolName": "exec", "params": {"command": e.text}});
        let d: Value = serde_json::from_str(&gate.decide_json(&req.to_string())).unwrap();
        let desc = d["preview"]["description"].as_str().unwrap();
        assert!(!desc.contains("[REDACTED"), "{}: {desc}", e.id);
    }
}

#[test]
fn no_secret_reaches_an_audit_record() {
    let gate = openclaw_human_gate::Gate::new("{}");
    for e in corpus().iter().filter(|e| !e.lookalike) {
        for mut req in requests(e) {
            req["sessionKey"] = json!(format!("agent:main:{}", e.id));
            req["nowMs"] = json!(1_795_982_400_000_u64);
            let request = req.to_string();
            let decision = gate.decide_json(&request);
            let rec = openclaw_human_gate::audit::decision_record(&request, &decision, 1.0);
            let res = openclaw_human_gate::audit::resolution_record(&rec, "allow-once", 0.0, 1.0);
            for s in &e.secrets {
                assert!(leaks(&rec, s).is_none(), "{}: {rec}", e.id);
                assert!(leaks(&res, s).is_none(), "{}: {res}", e.id);
            }
            assert!(
                !rec.contains(&format!("agent:main:{}", e.id)),
                "raw session key: {rec}"
            );
        }
    }
}

#[test]
fn no_secret_survives_the_output_guard() {
    let gate = openclaw_human_gate::Gate::new("{}");
    let (mut total, mut hidden) = (0, 0);
    for e in corpus() {
        let out: Value =
            serde_json::from_str(&gate.guard_json(&json!({ "text": e.text }).to_string())).unwrap();
        assert_eq!(out["ok"], true, "{}", e.id);
        let shown = out["text"].as_str().unwrap_or(&e.text).to_owned();
        if e.lookalike {
            assert_eq!(shown, e.text, "{}: a look-alike was redacted", e.id);
            continue;
        }
        assert!(
            out["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["id"] == "output-credential-leak"),
            "{}: no credential finding",
            e.id
        );
        for s in &e.secrets {
            total += 1;
            if leaks(&shown, s).is_none() {
                hidden += 1;
            }
        }
    }
    println!("output guard: {hidden}/{total} secrets redacted in tool results");
    assert_eq!(hidden, total);
}
