//! `Engine.decideForHook`'s native twin (`audit::decide_for_hook`) over the whole decision
//! corpus and the bench corpus: the decision part is ASCII and carries exactly the host-mapping
//! fields of `Gate::decide_in_json`'s decision, and the record is exactly what the two-call path
//! (`audit::decision_record` over the request text and the full decision text) gives, for
//! requests with and without session fields.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod common;

use openclaw_human_gate::audit::{
    decide_for_hook, decision_record, AuditMemo, HookAnswer, RecordParts,
};
use openclaw_human_gate::session::Sessions;
use openclaw_human_gate::Gate;
use serde_json::{Map, Value};

const REQUEST_FIELDS: [&str; 5] = [
    "toolName",
    "params",
    "toolKind",
    "toolInputKind",
    "derivedPaths",
];

fn requests() -> Vec<(String, Map<String, Value>)> {
    let mut out: Vec<(String, Map<String, Value>)> = common::decision_cases()
        .into_iter()
        .map(|(name, case)| (name, case.as_object().unwrap().clone()))
        .collect();
    let bench = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/corpus.jsonl"))
        .unwrap();
    for (i, line) in bench.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        out.push((
            format!("bench/corpus.jsonl:{}", i + 1),
            v.as_object().unwrap().clone(),
        ));
    }
    out.into_iter()
        .map(|(name, case)| {
            let req: Map<String, Value> = case
                .into_iter()
                .filter(|(k, _)| REQUEST_FIELDS.contains(&k.as_str()))
                .collect();
            (name, req)
        })
        .collect()
}

/// The fields of a full decision JSON the host view carries for its class.
fn host_projection(full: &str) -> Value {
    let full: Value = serde_json::from_str(full).unwrap();
    let keys: &[&str] = match full["decision"].as_str().unwrap() {
        "auto" => &["decision"],
        "block" => &["decision", "reason"],
        _ => &[
            "decision",
            "severity",
            "allowedDecisions",
            "timeoutMs",
            "preview",
        ],
    };
    Value::Object(
        keys.iter()
            .map(|k| ((*k).to_owned(), full[*k].clone()))
            .collect(),
    )
}

fn split(answer: &str) -> (String, RecordParts, bool) {
    let read = HookAnswer::parse(answer);
    (
        read.view,
        read.record.expect("a record"),
        read.deferred_digest,
    )
}

#[test]
fn one_call_equals_the_two_call_path_over_the_corpora() {
    let config =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/config.json")).unwrap();
    let gate = Gate::new(&config);
    let (mut one, mut two) = (Sessions::new(), Sessions::new());
    let mut memo = AuditMemo::default();
    let cases = requests();
    assert!(cases.len() > 300, "the corpora are read ({})", cases.len());
    let mut recorded = 0;
    let mut deferred = 0;
    for (i, (name, req)) in cases.iter().enumerate() {
        // Plain, then with session fields (two sessions alternating, so the digest memo both
        // hits and misses).
        let mut with_session = req.clone();
        with_session.insert(
            "sessionKey".into(),
            Value::from(format!("agent:main:s{}", i / 3 % 2)),
        );
        with_session.insert("sessionId".into(), Value::from("sid"));
        with_session.insert("callId".into(), Value::from(format!("c{i}")));
        with_session.insert(
            "nowMs".into(),
            Value::from(1_795_982_400_000_u64 + i as u64 * 1000),
        );
        for text in [
            Value::Object(req.clone()).to_string(),
            Value::Object(with_session).to_string(),
        ] {
            let answer = decide_for_hook(&gate, &mut one, &mut memo, &text);
            let (decision, parts, deferred_digest) = split(&answer);
            deferred += usize::from(deferred_digest);
            let full = gate.decide_in_json(&mut two, &text);
            assert!(decision.is_ascii(), "{name}: {decision}");
            let view: Value = serde_json::from_str(&decision).unwrap();
            assert_eq!(view, host_projection(&full), "{name}: decision");
            for latency_ms in [0.0, 17.25, 1234.5678] {
                assert_eq!(
                    parts.with_latency(latency_ms),
                    decision_record(&text, &full, latency_ms),
                    "{name}: record"
                );
            }
            let record: Value = serde_json::from_str(&parts.with_latency(1.0)).unwrap();
            assert_eq!(record["type"], "decision");
            recorded += 1;
        }
    }
    assert_eq!(recorded, cases.len() * 2);
    // The corpora's long calls leave their digest to the shim (and are checked like the rest).
    assert!(deferred >= 10, "{deferred} deferred digests");
}
