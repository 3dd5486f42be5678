//! Session authority over the whole decision corpus (`tests/corpus/*.jsonl`): with every grant
//! a session can hold switched on at once (allow-always lease, time window with the category
//! fallback, owner exec lease, an envelope over `/w` and configured write roots, adaptive
//! lease), a call the stateless gate decides as critical or block is never passed, and an
//! identical retry after a deny is never passed either.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use openclaw_human_gate::session::Sessions;
use openclaw_human_gate::Gate;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

const CONFIG: &str = r#"{
  "approvalWindow": {"mode": "time", "scope": "category", "pathFallback": "category", "ttlMs": 600000},
  "adaptiveFileLease": {"mode": "enforce", "uses": 20, "ttlMs": 900000},
  "authorizationEnvelopes": {"mode": "enforce", "autoAllowConfiguredWriteRoots": true,
    "writeRoots": ["/home/u/project", "/w/repo"]}
}"#;

fn corpus() -> Vec<(String, Value)> {
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
            if !line.trim().is_empty() {
                out.push((
                    format!("{name}:{}", i + 1),
                    serde_json::from_str(line).unwrap(),
                ));
            }
        }
    }
    out
}

fn request(case: &Value, key: &str, call_id: &str, now: u64) -> String {
    let mut req = json!({"toolName": case["toolName"], "params": case["params"],
        "sessionKey": key, "sessionId": "s", "runId": "r", "callId": call_id, "nowMs": now});
    for field in ["toolKind", "toolInputKind", "derivedPaths"] {
        if let Some(v) = case.get(field) {
            req[field] = v.clone();
        }
    }
    req.to_string()
}

fn class(out: &str) -> String {
    let v: Value = serde_json::from_str(out).unwrap();
    v["decision"].as_str().unwrap().to_owned()
}

#[test]
fn no_grant_ever_passes_a_critical_or_blocked_call_and_a_deny_sticks() {
    let gate = Gate::new(CONFIG);
    assert_eq!(gate.config_errors(), &[] as &[String]);
    let cfg = gate.config().session.clone();
    let mut sessions = Sessions::new();
    let mut failures = Vec::new();
    let (mut strict, mut passed_by_grant) = (0, 0);
    for (n, (name, case)) in corpus().into_iter().enumerate() {
        let key = format!("agent:main:corpus-{n}");
        let owner = json!({"sessionKey": key, "nowMs": 0, "args": "60m", "senderIsOwner": true});
        sessions.exec_lease_json(&owner.to_string());
        let stateless = class(&gate.decide_json(&request(&case, &key, "x", 0)));
        // First call: whatever it is, a person answers allow-always.
        let first = class(&gate.decide_in_json(&mut sessions, &request(&case, &key, "a", 1)));
        let resolution = json!({"sessionKey": key, "sessionId": "s", "callId": "a",
            "resolution": "allow-always", "nowMs": 2});
        sessions.resolve_json(&cfg, &resolution.to_string());
        let second = class(&gate.decide_in_json(&mut sessions, &request(&case, &key, "b", 3)));
        if stateless == "critical" || stateless == "block" {
            strict += 1;
            if first != stateless || second != stateless {
                failures.push(format!("{name}: {stateless} became {first} then {second}"));
            }
        } else if stateless == "approval" && second == "auto" {
            passed_by_grant += 1;
        }
        // A deny in a fresh session: the identical retry is never auto.
        let key = format!("agent:main:deny-{n}");
        let first = class(&gate.decide_in_json(&mut sessions, &request(&case, &key, "d", 1)));
        let deny = json!({"sessionKey": key, "sessionId": "s", "callId": "d",
            "resolution": "deny", "nowMs": 2});
        sessions.resolve_json(&cfg, &deny.to_string());
        let retry = class(&gate.decide_in_json(&mut sessions, &request(&case, &key, "e", 3)));
        if first != "auto" && retry != "block" {
            failures.push(format!("{name}: denied {first}, the retry was {retry}"));
        }
    }
    eprintln!("critical/block cases: {strict}; approvals passed by a grant: {passed_by_grant}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        strict > 300,
        "the corpus has many critical/block cases ({strict})"
    );
    assert!(
        passed_by_grant > 100,
        "grants do pass plain approvals ({passed_by_grant})"
    );
}
