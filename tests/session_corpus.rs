//! Session authority over the whole decision corpus (`tests/corpus/*.jsonl`): with every grant
//! a session can hold switched on at once (allow-always lease, time window with the category
//! fallback, owner exec lease, an envelope over `/w` and configured write roots, adaptive
//! lease), a call the stateless gate decides as critical or block is never passed, nor an
//! approval whose analysis stopped short (a limit crossed), and an identical retry after a
//! deny is never passed either.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod common;

use openclaw_human_gate::session::Sessions;
use openclaw_human_gate::Gate;
use serde_json::{json, Value};

const CONFIG: &str = r#"{
  "approvalWindow": {"mode": "time", "scope": "category", "pathFallback": "category", "ttlMs": 600000},
  "adaptiveFileLease": {"mode": "enforce", "uses": 20, "ttlMs": 900000},
  "authorizationEnvelopes": {"mode": "enforce", "autoAllowConfiguredWriteRoots": true,
    "writeRoots": ["/home/u/project", "/w/repo"]}
}"#;

fn corpus() -> Vec<(String, Value)> {
    common::decision_cases()
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

/// The first finding of a decision that says its analysis stopped short, if any.
fn unevaluated(out: &str) -> Option<String> {
    let v: Value = serde_json::from_str(out).unwrap();
    v["findings"].as_array().unwrap().iter().find_map(|f| {
        let id = f["id"].as_str().unwrap();
        openclaw_human_gate::finding::leaves_call_unevaluated(id).then(|| id.to_owned())
    })
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
    let (mut strict, mut passed_by_grant, mut incomplete) = (0, 0, 0);
    for (n, (name, case)) in corpus().into_iter().enumerate() {
        let key = format!("agent:main:corpus-{n}");
        let owner = json!({"sessionKey": key, "nowMs": 0, "args": "60m", "senderIsOwner": true});
        sessions.exec_lease_json(&owner.to_string());
        let stateless_json = gate.decide_json(&request(&case, &key, "x", 0));
        let stateless = class(&stateless_json);
        let unevaluated = unevaluated(&stateless_json);
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
        } else if stateless == "approval" && unevaluated.is_some() {
            // An ask whose analysis stopped short is fail-closed: no grant passes it.
            incomplete += 1;
            if first != "approval" || second != "approval" {
                failures.push(format!(
                    "{name}: unevaluated ({}) approval became {first} then {second}",
                    unevaluated.unwrap_or_default()
                ));
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
    eprintln!("critical/block cases: {strict}; approvals passed by a grant: {passed_by_grant}; unevaluated approvals: {incomplete}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        incomplete > 10,
        "the corpus has asks whose analysis stopped short ({incomplete})"
    );
    assert!(
        strict > 300,
        "the corpus has many critical/block cases ({strict})"
    );
    assert!(
        passed_by_grant > 100,
        "grants do pass plain approvals ({passed_by_grant})"
    );
}
