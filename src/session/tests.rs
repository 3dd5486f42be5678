//! State-machine tests for session authority, each with an injected clock (no sleeping).

use super::*;
use crate::gate::Gate;
use serde_json::json;

const MIN: f64 = 60_000.0;
const HOUR: f64 = 60.0 * MIN;

struct World {
    gate: Gate,
    sessions: Sessions,
    next: u32,
}

impl World {
    fn new(config: &str) -> World {
        let gate = Gate::new(config);
        assert_eq!(gate.config_errors(), &[] as &[String]);
        World {
            gate,
            sessions: Sessions::new(),
            next: 0,
        }
    }

    /// A world whose exact keys are keyed by `secret` (as the engine's, through the shim).
    fn keyed(config: &str, secret: &str) -> World {
        let mut w = World::new(config);
        w.sessions = Sessions::with_exact_digest(scope::ExactDigest::from_hex(secret).unwrap());
        w
    }

    /// Decides a call in session `key` at `now`; returns (decision JSON, call id).
    fn call(
        &mut self,
        key: &str,
        run: &str,
        now: f64,
        tool: &str,
        params: Value,
    ) -> (Value, String) {
        self.call_in(key, "sid-1", run, now, tool, params)
    }

    fn call_in(
        &mut self,
        key: &str,
        sid: &str,
        run: &str,
        now: f64,
        tool: &str,
        params: Value,
    ) -> (Value, String) {
        self.next += 1;
        let id = format!("c{}", self.next);
        let req = json!({"toolName": tool, "params": params, "sessionKey": key, "sessionId": sid,
            "runId": run, "callId": id, "nowMs": now});
        let out = self
            .gate
            .decide_in_json(&mut self.sessions, &req.to_string());
        (serde_json::from_str(&out).unwrap(), id)
    }

    fn resolve(&mut self, key: &str, id: &str, resolution: &str, now: f64) -> Value {
        let req = json!({"sessionKey": key, "sessionId": "sid-1", "callId": id,
            "resolution": resolution, "nowMs": now});
        let out = self
            .sessions
            .resolve_json(&self.gate.config().session, &req.to_string());
        serde_json::from_str(&out).unwrap()
    }

    fn lease(&mut self, key: &str, args: &str, owner: bool, now: f64) -> Value {
        let req = json!({"sessionKey": key, "nowMs": now, "args": args, "senderIsOwner": owner});
        serde_json::from_str(&self.sessions.exec_lease_json(&req.to_string())).unwrap()
    }
}

fn write(path: &str) -> Value {
    json!({"path": path, "content": "x"})
}

fn exec(cmd: &str) -> Value {
    json!({"command": cmd})
}

const S: &str = "agent:main:s1";

#[test]
fn allow_always_is_a_path_bound_lease_that_expires() {
    let mut w = World::new("{}");
    let (d, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(d["decision"], "approval");
    assert_eq!(
        w.resolve(S, &id, "allow-always", 10.0)["effects"],
        json!(["lease"])
    );
    // Same directory, another turn: passes, and says why.
    let (d, _) = w.call(S, "r2", 1000.0, "write", write("/w/p/b.txt"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "session-lease");
    assert!(d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "session-lease"));
    // Another directory asks; a subdirectory too (the scope is the parent set, not a prefix).
    assert_eq!(
        w.call(S, "r2", 1000.0, "write", write("/w/q/c.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r2", 1000.0, "write", write("/w/p/sub/c.txt")).0["decision"],
        "approval"
    );
    // Expiry edge: 4 h after the resolution (10 ms) it is over.
    assert_eq!(
        w.call(
            S,
            "r3",
            10.0 + 4.0 * HOUR - 1.0,
            "write",
            write("/w/p/d.txt")
        )
        .0["decision"],
        "auto"
    );
    assert_eq!(
        w.call(S, "r3", 10.0 + 4.0 * HOUR, "write", write("/w/p/d.txt"))
            .0["decision"],
        "approval"
    );
}

#[test]
fn allow_always_ttl_and_toggle_are_configurable() {
    let mut w = World::new(r#"{"allowAlwaysTtlMs":60000}"#);
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 0.0);
    assert_eq!(
        w.call(S, "r1", 59_999.0, "write", write("/w/p/b.txt")).0["decision"],
        "auto"
    );
    assert_eq!(
        w.call(S, "r1", 60_000.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    let mut w = World::new(r#"{"rememberAllowAlways":false}"#);
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(w.resolve(S, &id, "allow-always", 0.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
}

#[test]
fn allow_once_never_leases_and_critical_is_never_reused() {
    let mut w = World::new(r#"{"approvalWindow":{"mode":"time","ttlMs":600000}}"#);
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-once", 0.0)["effects"],
        json!(["window"])
    );
    // Critical: a write to a system location, approved with allow-once (the only allow offered).
    let (d, id) = w.call(S, "r1", 0.0, "write", write("/etc/cron.d/x"));
    assert_eq!(d["decision"], "critical");
    assert_eq!(w.resolve(S, &id, "allow-once", 1.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 2.0, "write", write("/etc/cron.d/x")).0["decision"],
        "critical"
    );
    // Critical exec, even with an allow-always arriving from a misbehaving host.
    let (d, id) = w.call(S, "r1", 3.0, "exec", exec("git push --force origin main"));
    assert_eq!(d["decision"], "critical");
    assert_eq!(w.resolve(S, &id, "allow-always", 4.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 5.0, "exec", exec("git push --force origin main"))
            .0["decision"],
        "critical"
    );
}

#[test]
fn approval_window_turn_mode_is_bound_to_the_run() {
    let mut w = World::new(r#"{"approvalWindow":{"mode":"turn","ttlMs":600000}}"#);
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-once", 0.0)["effects"],
        json!(["window"])
    );
    let (d, _) = w.call(S, "r1", 1.0, "write", write("/w/p/b.txt"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "approval-window");
    assert_eq!(
        w.call(S, "r2", 2.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 600_000.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
}

#[test]
fn approval_window_never_reuses_relative_incomplete_or_unscoped_calls() {
    let mut w = World::new(r#"{"approvalWindow":{"mode":"time","ttlMs":600000}}"#);
    for (tool, params) in [
        ("write", write("rel/a.txt")),
        ("write", json!({"path": "/w/p/a.txt"})),
        ("exec", exec("touch /w/p/a")),
        ("exec", exec("rm -rf \"$X\"/build")),
    ] {
        let (_, id) = w.call(S, "r1", 0.0, tool, params.clone());
        assert_eq!(
            w.resolve(S, &id, "allow-once", 0.0)["effects"],
            json!([]),
            "{params}"
        );
        assert_ne!(
            w.call(S, "r1", 1.0, tool, params.clone()).0["decision"],
            "auto",
            "{params}"
        );
    }
}

#[test]
fn dev_loop_categories_reuse_only_with_the_explicit_fallback() {
    let mut w = World::new(r#"{"approvalWindow":{"mode":"time","ttlMs":600000}}"#);
    let (d, id) = w.call(S, "r1", 0.0, "exec", exec("cargo test"));
    assert_eq!(d["decision"], "approval");
    assert_eq!(w.resolve(S, &id, "allow-once", 0.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("cargo test --lib")).0["decision"],
        "approval"
    );
    let mut w = World::new(
        r#"{"approvalWindow":{"mode":"time","ttlMs":600000,"pathFallback":"category"}}"#,
    );
    let (_, id) = w.call(S, "r1", 0.0, "exec", exec("cargo test"));
    assert_eq!(
        w.resolve(S, &id, "allow-once", 0.0)["effects"],
        json!(["window"])
    );
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("cargo test --lib")).0["source"],
        "approval-window"
    );
    // Another category or a riskier shape of the same category still asks.
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("cargo build")).0["decision"],
        "approval"
    );
    assert_ne!(
        w.call(
            S,
            "r1",
            1.0,
            "exec",
            exec("cargo test; curl -X POST http://x")
        )
        .0["decision"],
        "auto"
    );
}

#[test]
fn deny_cooldown_turns_asks_into_blocks_and_only_asks() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 1000.0, "exec", exec("touch /w/m"));
    assert_eq!(
        w.resolve(S, &id, "deny", 1000.0)["effects"],
        json!(["cooldown"])
    );
    let (d, _) = w.call(S, "r1", 2000.0, "exec", exec("touch /w/m"));
    assert_eq!(d["decision"], "block");
    assert_eq!(d["source"], "deny-cooldown");
    assert!(d["reason"].as_str().unwrap().contains("deny cooldown"));
    assert!(d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "deny-cooldown"));
    // A different call asks; an auto call is untouched.
    assert_eq!(
        w.call(S, "r1", 2000.0, "exec", exec("touch /w/n")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 2000.0, "read", json!({"path": "/w/m"})).0["decision"],
        "auto"
    );
    // Edge: blocked until 1000 + 120000, asks from then on.
    assert_eq!(
        w.call(S, "r1", 120_999.0, "exec", exec("touch /w/m")).0["decision"],
        "block"
    );
    assert_eq!(
        w.call(S, "r1", 121_000.0, "exec", exec("touch /w/m")).0["decision"],
        "approval"
    );
}

#[test]
fn deny_cooldown_covers_the_semantic_scope_and_critical_asks() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "deny", 0.0);
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/b.txt")).0["decision"],
        "block"
    );
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/q/b.txt")).0["decision"],
        "approval"
    );
    let (_, id) = w.call(S, "r1", 2.0, "exec", exec("git push --force"));
    w.resolve(S, &id, "deny", 2.0);
    assert_eq!(
        w.call(S, "r1", 3.0, "exec", exec("git push --force")).0["decision"],
        "block"
    );
}

#[test]
fn a_clock_going_backwards_cannot_extend_a_cooldown_or_a_lease() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 1000.0, "exec", exec("touch /w/m"));
    w.resolve(S, &id, "deny", 1000.0);
    assert_eq!(
        w.call(S, "r1", 121_000.0, "exec", exec("touch /w/m")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 5000.0, "exec", exec("touch /w/m")).0["decision"],
        "approval"
    );
    let (_, id) = w.call(S, "r1", 200_000.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 200_000.0);
    let end = 200_000.0 + 4.0 * HOUR;
    assert_eq!(
        w.call(S, "r1", end, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 300_000.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
}

#[test]
fn while_the_clock_is_behind_nothing_is_granted_or_applied() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 1000.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 1000.0);
    let (_, id) = w.call(S, "r1", 1000.0, "exec", exec("touch /w/m"));
    w.resolve(S, &id, "deny", 1000.0);
    // A glitch far into the future, then back to normal time.
    w.call(S, "r1", 1.0e13, "read", json!({"path": "/x"}));
    assert_eq!(
        w.call(S, "r1", 2000.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    // The jump ended the cooldown early: that only means asking again, never passing.
    assert_eq!(
        w.call(S, "r1", 2000.0, "exec", exec("touch /w/m")).0["decision"],
        "approval"
    );
    // No grant is created while behind either (its expiry would be measured from the future).
    let (_, id) = w.call(S, "r1", 3000.0, "write", write("/w/q/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-always", 3000.0)["effects"],
        json!([])
    );
    assert_eq!(w.lease(S, "5m", true, 3000.0)["ok"], false);
    // A plain rollback inside the lease's life: not applied until the clock catches up.
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 1000.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 1000.0);
    assert_eq!(
        w.call(S, "r1", 5000.0, "write", write("/w/p/b.txt")).0["decision"],
        "auto"
    );
    assert_eq!(
        w.call(S, "r1", 4000.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 5000.0, "write", write("/w/p/b.txt")).0["decision"],
        "auto"
    );
}

#[test]
fn cooldown_zero_disables_and_timeout_or_cancel_grant_nothing() {
    let mut w = World::new(r#"{"denyCooldownMs":0,"approvalWindow":{"mode":"time"}}"#);
    let (_, id) = w.call(S, "r1", 0.0, "exec", exec("touch /w/m"));
    assert_eq!(w.resolve(S, &id, "deny", 0.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("touch /w/m")).0["decision"],
        "approval"
    );
    for r in ["timeout", "cancelled"] {
        let (_, id) = w.call(S, "r1", 2.0, "write", write("/w/p/a.txt"));
        assert_eq!(w.resolve(S, &id, r, 2.0)["effects"], json!([]));
        assert_eq!(
            w.call(S, "r1", 3.0, "write", write("/w/p/b.txt")).0["decision"],
            "approval"
        );
    }
}

#[test]
fn resolutions_are_strict_and_fail_closed() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    // Unknown call id, other session, bad resolution, unknown field, bad time: nothing granted.
    assert_eq!(w.resolve(S, "nope", "allow-always", 0.0)["ok"], false);
    assert_eq!(
        w.resolve("agent:main:other", &id, "allow-always", 0.0)["ok"],
        false
    );
    assert_eq!(w.resolve(S, &id, "allow", 0.0)["ok"], false);
    let cfg = w.gate.config().session.clone();
    for bad in [
        r#"{"sessionKey":"agent:main:s1","callId":"c1","resolution":"allow-always","nowMs":0,"extra":1}"#,
        r#"{"sessionKey":"agent:main:s1","callId":"c1","resolution":"allow-always","nowMs":-1}"#,
        r#"{"sessionKey":"agent:main:s1","callId":"c1","resolution":"allow-always"}"#,
        r#"not json"#,
    ] {
        let v: Value = serde_json::from_str(&w.sessions.resolve_json(&cfg, bad)).unwrap();
        assert_eq!(v["ok"], false, "{bad}");
        assert!(v["error"].as_str().unwrap().len() > 5);
    }
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    // The real resolution still works once, and only once.
    assert_eq!(w.resolve(S, &id, "allow-always", 2.0)["ok"], true);
    assert_eq!(w.resolve(S, &id, "allow-always", 2.0)["ok"], false);
}

#[test]
fn sessions_are_isolated_and_reset_with_a_new_session_id() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 0.0);
    assert_eq!(
        w.call("agent:main:s2", "r1", 1.0, "write", write("/w/p/b.txt"))
            .0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/b.txt")).0["decision"],
        "auto"
    );
    let (d, _) = w.call_in(S, "sid-2", "r1", 2.0, "write", write("/w/p/b.txt"));
    assert_eq!(
        d["decision"], "approval",
        "a new session id resets the session"
    );
    // Without a session key or a time, nothing is remembered or reused.
    let gate = Gate::new("{}");
    let mut sessions = Sessions::new();
    let req =
        json!({"toolName": "write", "params": write("/w/p/a.txt"), "callId": "x", "nowMs": 0});
    gate.decide_in_json(&mut sessions, &req.to_string());
    assert!(sessions.is_empty());
}

#[test]
fn sessions_are_bounded_least_recently_used_first() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    w.resolve(S, &id, "allow-always", 0.0);
    let keep = "agent:main:keep";
    let (_, id) = w.call(keep, "r1", 0.0, "write", write("/w/p/a.txt"));
    w.resolve(keep, &id, "allow-always", 0.0);
    for i in 0..MAX_SESSIONS - 1 {
        w.call(
            &format!("agent:main:n{i}"),
            "r",
            1.0,
            "read",
            json!({"path": "/x"}),
        );
        if i % 16 == 0 {
            assert_eq!(
                w.call(keep, "r", 1.0, "write", write("/w/p/k.txt")).0["decision"],
                "auto"
            );
        }
    }
    assert_eq!(w.sessions.len(), MAX_SESSIONS);
    // S was the least recently used and is gone; `keep` stayed.
    assert_eq!(
        w.call(S, "r1", 2.0, "write", write("/w/p/b.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(keep, "r1", 2.0, "write", write("/w/p/b.txt")).0["decision"],
        "auto"
    );
    assert_eq!(w.sessions.len(), MAX_SESSIONS);
}

#[test]
fn entries_per_session_are_bounded() {
    let mut w = World::new("{}");
    let mut ids = Vec::new();
    for i in 0..MAX_PENDING + 5 {
        ids.push(
            w.call(S, "r", 0.0, "write", write(&format!("/w/d{i}/a.txt")))
                .1,
        );
    }
    // The oldest pending approvals were dropped: their resolutions grant nothing.
    assert_eq!(w.resolve(S, &ids[0], "allow-always", 1.0)["ok"], false);
    assert_eq!(
        w.resolve(S, &ids[MAX_PENDING + 4], "allow-always", 1.0)["ok"],
        true
    );
    for id in &ids[5..MAX_PENDING + 4] {
        w.resolve(S, id, "allow-always", 1.0);
    }
    let s = w.sessions.map.get(S).unwrap();
    assert!(s.grants.len() <= MAX_GRANTS && s.pending.len() <= MAX_PENDING);
}

#[test]
fn a_pending_approval_expires() {
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-always", PENDING_TTL_MS + 1.0)["ok"],
        false
    );
}

#[test]
fn exec_lease_covers_ordinary_exec_only() {
    let mut w = World::new(
        r#"{"rules":[{"id":"b","toolName":"exec","paramMatcher":{"all":[{"key":"command","equals":"touch /w/blocked"}]},"mode":"block"}]}"#,
    );
    assert_eq!(w.lease(S, "5m", false, 0.0)["ok"], false, "owners only");
    assert_eq!(w.lease(S, "90m", true, 0.0)["ok"], false);
    let v = w.lease(S, "5m", true, 0.0);
    assert_eq!(v["ok"], true);
    assert_eq!(v["expiresAtMs"], 5.0 * MIN);
    let (d, _) = w.call(S, "r1", 1.0, "exec", exec("touch /w/m"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "exec-lease");
    // Still enforced: critical, self-protection, block rules, Code Mode, other tools, other sessions.
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("git push --force")).0["decision"],
        "critical"
    );
    assert_ne!(
        w.call(S, "r1", 1.0, "exec", exec("rm ~/.openclaw/openclaw.json"))
            .0["decision"],
        "auto"
    );
    assert_eq!(
        w.call(S, "r1", 1.0, "exec", exec("touch /w/blocked")).0["decision"],
        "block"
    );
    let code = json!({"code": "1"});
    let req = json!({"toolName": "code", "toolKind": "code_mode_exec", "params": code, "sessionKey": S, "nowMs": 1});
    let d: Value =
        serde_json::from_str(&w.gate.decide_in_json(&mut w.sessions, &req.to_string())).unwrap();
    assert_ne!(d["source"], "exec-lease");
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/a.txt")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call("agent:main:s2", "r1", 1.0, "exec", exec("touch /w/m"))
            .0["decision"],
        "approval"
    );
    // A deny cooldown wins over the lease.
    w.lease(S, "off", true, 2.0);
    let (_, id) = w.call(S, "r1", 3.0, "exec", exec("touch /w/x"));
    w.resolve(S, &id, "deny", 3.0);
    w.lease(S, "5m", true, 4.0);
    assert_eq!(
        w.call(S, "r1", 5.0, "exec", exec("touch /w/x")).0["decision"],
        "block"
    );
    // Status and expiry edge.
    assert_eq!(w.lease(S, "status", true, 6.0)["active"], true);
    assert_eq!(
        w.call(S, "r1", 4.0 + 5.0 * MIN - 1.0, "exec", exec("touch /w/y"))
            .0["decision"],
        "auto"
    );
    assert_eq!(
        w.call(S, "r1", 4.0 + 5.0 * MIN, "exec", exec("touch /w/y"))
            .0["decision"],
        "approval"
    );
    assert_eq!(w.lease(S, "status", true, 4.0 + 5.0 * MIN)["active"], false);
}

#[test]
fn unattended_sessions_pass_non_critical_and_block_critical() {
    let mut w = World::new("{}");
    let cron = "agent:main:cron:nightly";
    let (d, _) = w.call(cron, "r", 0.0, "exec", exec("touch /w/m"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "unattended");
    let (d, _) = w.call(cron, "r", 0.0, "exec", exec("git push --force"));
    assert_eq!(d["decision"], "block");
    assert!(d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "unattended-block"));
    // A substring is not a segment.
    assert_eq!(
        w.call("agent:main:cronjob", "r", 0.0, "exec", exec("touch /w/m"))
            .0["decision"],
        "approval"
    );
    // Block rules stay; the stateless path applies the same policy; fail-closed becomes block.
    let g = Gate::new(
        r#"{"unattendedPolicy":{"critical":"auto"},"rules":[{"id":"b","toolName":"exec","mode":"block"}]}"#,
    );
    let d = g
        .decide(&json!({"toolName": "exec", "params": exec("ls"), "sessionKey": cron}).to_string());
    assert_eq!(d.decision, Class::Block);
    let g = Gate::new(r#"{"unattendedPolicy":{"critical":"auto"}}"#);
    let d = g.decide(
        &json!({"toolName": "exec", "params": exec("git push --force"), "sessionKey": cron})
            .to_string(),
    );
    assert_eq!(d.decision, Class::Auto);
    let mut d = Gate::new("{}").decide("not json");
    assert_eq!(d.decision, Class::Approval);
    unattended::apply(&mut d, &SessionConfig::default());
    assert_eq!(d.decision, Class::Block);
    assert_eq!(d.source, Source::FailClosed);
}

#[test]
fn unattended_sessions_block_asks_whose_analysis_stopped_short() {
    // DESIGN invariant 1: a limit crossed or input the analysis could not read is a fail-closed
    // ask; in a session nobody answers it is blocked, never passed (the part past the length
    // limit, here a delete of `/w`, was never looked at).
    let cron = "agent:main:cron:nightly";
    let past_limit = format!("{}rm -rf /w", "true; ".repeat(3000));
    let cases = [
        (past_limit.as_str(), "command-too-long"),
        ("echo 'unclosed; touch /w/m", "analysis-incomplete"),
    ];
    for config in ["{}", r#"{"unattendedPolicy":{"critical":"auto"}}"#] {
        let mut w = World::new(config);
        for (command, why) in cases {
            let (d, _) = w.call(cron, "r", 0.0, "exec", exec(command));
            assert_eq!(d["decision"], "block", "{config} {why}");
            let ids: Vec<&str> = d["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|f| f["id"].as_str())
                .collect();
            assert!(
                ids.contains(&why) && ids.contains(&"unattended-block"),
                "{ids:?}"
            );
            assert!(!ids.contains(&"unattended-pass"), "{ids:?}");
            // The same call where a person can answer stays an ask.
            let (d, _) = w.call(S, "r", 0.0, "exec", exec(command));
            assert_eq!(d["decision"], "approval", "{config} {why}");
        }
        // A completely analysed ask still passes there.
        let (d, _) = w.call(cron, "r", 0.0, "exec", exec("touch /w/m"));
        assert_eq!(d["decision"], "auto", "{config}");
    }
    for id in [
        "analysis-incomplete",
        "command-too-long",
        "wrapper-depth-exceeded",
    ] {
        assert!(crate::finding::leaves_call_unevaluated(id));
    }
    for id in [
        "dynamic-expansion",
        "tool-kind-destructive",
        "credential-read",
    ] {
        assert!(!crate::finding::leaves_call_unevaluated(id));
    }
}

#[test]
fn no_grant_passes_an_ask_whose_analysis_stopped_short() {
    // The owner's exec lease passes ordinary exec, an allow-always answer grants the same
    // call again, a category window covers the category: none of them may pass a command
    // whose tail past the length limit was never analysed.
    let past_limit = format!("{}rm -rf /w", "true; ".repeat(3000));
    let mut w = World::new(r#"{"approvalWindow":{"mode":"time","scope":"category"}}"#);
    assert_eq!(w.lease(S, "60m", true, 0.0)["active"], true);
    assert_eq!(
        w.call(S, "r", 1.0, "exec", exec("touch /w/m")).0["source"],
        "exec-lease"
    );
    let (d, id) = w.call(S, "r", 2.0, "exec", exec(&past_limit));
    assert_eq!(d["decision"], "approval");
    assert_eq!(d["reusable"], false);
    w.resolve(S, &id, "allow-always", 3.0);
    let (d, _) = w.call(S, "r", 4.0, "exec", exec(&past_limit));
    assert_eq!(d["decision"], "approval", "{d}");
    let unclosed = "echo 'unclosed; touch /w/m";
    assert_eq!(
        w.call(S, "r", 5.0, "exec", exec(unclosed)).0["decision"],
        "approval"
    );
}

#[test]
fn flood_detector_adds_a_hint_and_never_allows() {
    let mut w = World::new(r#"{"floodDetector":{"windowMs":10000,"threshold":3}}"#);
    let mut last = Value::Null;
    for i in 0..3 {
        last = w
            .call(S, "r", f64::from(i), "exec", exec(&format!("touch /w/{i}")))
            .0;
    }
    assert_eq!(last["decision"], "approval");
    let desc = last["preview"]["description"].as_str().unwrap();
    assert!(desc.starts_with("⚠ 3 approval requests in 10 s"), "{desc}");
    assert!(desc.chars().count() <= 512);
    // Outside the window, no hint.
    let d = w.call(S, "r", 20_000.0, "exec", exec("touch /w/z")).0;
    assert!(!d["preview"]["description"]
        .as_str()
        .unwrap()
        .starts_with('⚠'));
    let mut w = World::new(r#"{"floodDetector":{"enabled":false,"threshold":2}}"#);
    for i in 0..3 {
        last = w.call(S, "r", f64::from(i), "exec", exec("touch /w/x")).0;
    }
    assert!(!last["preview"]["description"]
        .as_str()
        .unwrap()
        .starts_with('⚠'));
}

#[test]
fn capability_request_asks_once_and_the_envelope_covers_writes_under_the_root() {
    let mut w = World::new(r#"{"authorizationEnvelopes":{"mode":"enforce"}}"#);
    let (d, id) = w.call(
        S,
        "r1",
        0.0,
        envelope::CAPABILITY_TOOL,
        json!({"root": "/w/repo"}),
    );
    assert_eq!(d["decision"], "approval");
    assert_eq!(d["reusable"], false);
    assert_eq!(d["allowedDecisions"], json!(["allow-once", "deny"]));
    assert_eq!(
        w.resolve(S, &id, "allow-once", 1.0)["effects"],
        json!(["envelope"])
    );
    let (d, _) = w.call(S, "r1", 2.0, "write", write("/w/repo/src/a.rs"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "envelope");
    let patch = "*** Begin Patch\n*** Add File: /w/repo/b.rs\n+x\n*** End Patch";
    assert_eq!(
        w.call(S, "r1", 2.0, "apply_patch", json!({"input": patch}))
            .0["source"],
        "envelope"
    );
    // Boundary miss, delete, shell, another run, a critical path: ask again.
    assert_eq!(
        w.call(S, "r1", 2.0, "write", write("/w/other/a.rs")).0["decision"],
        "approval"
    );
    let del = "*** Begin Patch\n*** Delete File: /w/repo/b.rs\n*** End Patch";
    assert_eq!(
        w.call(S, "r1", 2.0, "apply_patch", json!({"input": del})).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 2.0, "exec", exec("touch /w/repo/x")).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r2", 2.0, "write", write("/w/repo/a.rs")).0["decision"],
        "approval"
    );
    assert_ne!(
        w.call(S, "r1", 2.0, "write", write("/w/repo/.git/config"))
            .0["decision"],
        "auto"
    );
    // Fixed expiry.
    assert_eq!(
        w.call(S, "r1", 1.0 + 4.0 * HOUR, "write", write("/w/repo/a.rs"))
            .0["decision"],
        "approval"
    );
}

#[test]
fn capability_requests_are_refused_when_they_cannot_be_granted() {
    let mut w = World::new("{}");
    let (d, _) = w.call(
        S,
        "r1",
        0.0,
        envelope::CAPABILITY_TOOL,
        json!({"root": "/w/repo"}),
    );
    assert_eq!(d["decision"], "block", "envelopes are off by default");
    let mut w = World::new(r#"{"authorizationEnvelopes":{"mode":"enforce"}}"#);
    for root in ["/", "/home/u", "repo", "/etc"] {
        let (d, _) = w.call(
            S,
            "r1",
            0.0,
            envelope::CAPABILITY_TOOL,
            json!({"root": root}),
        );
        assert_eq!(d["decision"], "block", "{root}");
    }
    // A deny cools the identical request down.
    let (_, id) = w.call(
        S,
        "r1",
        0.0,
        envelope::CAPABILITY_TOOL,
        json!({"root": "/w/repo"}),
    );
    w.resolve(S, &id, "deny", 0.0);
    assert_eq!(
        w.call(
            S,
            "r1",
            1.0,
            envelope::CAPABILITY_TOOL,
            json!({"root": "/w/repo"})
        )
        .0["decision"],
        "block"
    );
}

#[test]
fn shadow_envelopes_and_configured_roots() {
    let mut w = World::new(r#"{"authorizationEnvelopes":{"mode":"shadow"}}"#);
    let (_, id) = w.call(
        S,
        "r1",
        0.0,
        envelope::CAPABILITY_TOOL,
        json!({"root": "/w/repo"}),
    );
    w.resolve(S, &id, "allow-once", 0.0);
    let (d, _) = w.call(S, "r1", 1.0, "write", write("/w/repo/a.rs"));
    assert_eq!(d["decision"], "approval");
    assert!(d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "envelope-shadow"));
    let mut w = World::new(
        r#"{"authorizationEnvelopes":{"mode":"enforce","autoAllowConfiguredWriteRoots":true,"writeRoots":["/w/repo"]}}"#,
    );
    assert_eq!(
        w.call(S, "r9", 1.0, "write", write("/w/repo/a.rs")).0["source"],
        "envelope"
    );
    assert_eq!(
        w.call(S, "r9", 1.0, "exec", exec("touch /w/repo/a.rs")).0["decision"],
        "approval"
    );
}

#[test]
fn stateless_decide_is_unchanged_by_session_fields() {
    let g = Gate::new("{}");
    let req = json!({"toolName": "write", "params": write("/w/p/a.txt"), "sessionKey": S,
        "sessionId": "x", "runId": "r", "callId": "c", "nowMs": 5});
    assert_eq!(g.decide(&req.to_string()).decision, Class::Approval);
}

#[test]
fn adaptive_lease_is_learned_only_from_allow_always_and_is_finite() {
    let cfg = r#"{"adaptiveFileLease":{"mode":"enforce","uses":2,"ttlMs":60000}}"#;
    let mut w = World::new(cfg);
    // Never from allow-once.
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(w.resolve(S, &id, "allow-once", 0.0)["effects"], json!([]));
    assert_eq!(
        w.call(S, "r1", 1.0, "write", write("/w/p/sub/b.txt")).0["decision"],
        "approval"
    );
    let (_, id) = w.call(S, "r1", 2.0, "write", write("/w/p/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-always", 2.0)["effects"],
        json!(["adaptive-lease", "lease"])
    );
    // Below the learned directory (the path lease would not cover it): two uses, then it asks.
    let (d, _) = w.call(S, "r1", 3.0, "write", write("/w/p/sub/b.txt"));
    assert_eq!(d["source"], "adaptive-lease");
    assert_eq!(
        w.call(S, "r1", 4.0, "write", write("/w/p/sub/deeper/c.txt"))
            .0["source"],
        "adaptive-lease"
    );
    assert_eq!(
        w.call(S, "r1", 5.0, "write", write("/w/p/sub/d.txt")).0["decision"],
        "approval"
    );
    // Never shell, Git's directory, deletes, or outside the directory.
    let (_, id) = w.call(S, "r1", 6.0, "write", write("/w/q/a.txt"));
    w.resolve(S, &id, "allow-always", 6.0);
    assert_eq!(
        w.call(S, "r1", 7.0, "exec", exec("touch /w/q/x/y")).0["decision"],
        "approval"
    );
    assert_ne!(
        w.call(S, "r1", 7.0, "write", write("/w/q/.git/hooks/pre-commit"))
            .0["decision"],
        "auto"
    );
    let del = "*** Begin Patch\n*** Delete File: /w/q/x/a.txt\n*** End Patch";
    assert_eq!(
        w.call(S, "r1", 7.0, "apply_patch", json!({"input": del})).0["decision"],
        "approval"
    );
    assert_eq!(
        w.call(S, "r1", 7.0, "write", write("/w/r/a.txt")).0["decision"],
        "approval"
    );
    // Short-lived: gone after ttlMs.
    assert_eq!(
        w.call(S, "r1", 6.0 + 60_000.0, "write", write("/w/q/x/a.txt"))
            .0["decision"],
        "approval"
    );
}

#[test]
fn adaptive_lease_shadow_and_suggest_only_note() {
    for (mode, hint) in [("shadow", false), ("suggest", true)] {
        let mut w = World::new(&format!(r#"{{"adaptiveFileLease":{{"mode":"{mode}"}}}}"#));
        let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
        w.resolve(S, &id, "allow-always", 0.0);
        let (d, _) = w.call(S, "r1", 1.0, "write", write("/w/p/sub/b.txt"));
        assert_eq!(d["decision"], "approval", "{mode}");
        assert!(d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "adaptive-lease-candidate"));
        let desc = d["preview"]["description"].as_str().unwrap();
        assert_eq!(desc.starts_with("Suggestion:"), hint, "{mode}: {desc}");
    }
    // Off (the default): nothing learned.
    let mut w = World::new("{}");
    let (_, id) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert_eq!(
        w.resolve(S, &id, "allow-always", 0.0)["effects"],
        json!(["lease"])
    );
}

fn offers_always(d: &Value) -> bool {
    d["allowedDecisions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "allow-always")
}

#[test]
fn allow_always_on_a_call_without_verified_targets_covers_exact_repeats_only() {
    let mut w = World::new("{}");
    let (d, id) = w.call(S, "r1", 0.0, "exec", exec("touch /tmp/hg-marker"));
    assert_eq!(d["decision"], "approval");
    assert!(offers_always(&d), "{d}");
    assert_eq!(
        w.resolve(S, &id, "allow-always", 10.0)["effects"],
        json!(["lease"])
    );
    let (d, _) = w.call(S, "r2", 1000.0, "exec", exec("touch /tmp/hg-marker"));
    assert_eq!(d["decision"], "auto");
    assert_eq!(d["source"], "session-lease");
    // Anything else, however close, asks; so does the same command in another session.
    for other in [
        "touch /tmp/hg-marker2",
        "touch /tmp/hg-marker ",
        "rm /tmp/hg-marker",
    ] {
        assert_eq!(
            w.call(S, "r2", 1000.0, "exec", exec(other)).0["decision"],
            "approval",
            "{other}"
        );
    }
    assert_eq!(
        w.call(
            "agent:main:other",
            "r2",
            1000.0,
            "exec",
            exec("touch /tmp/hg-marker")
        )
        .0["decision"],
        "approval"
    );
    // The exact lease expires like any other.
    assert_eq!(
        w.call(
            S,
            "r3",
            10.0 + 4.0 * HOUR,
            "exec",
            exec("touch /tmp/hg-marker")
        )
        .0["decision"],
        "approval"
    );
}

#[test]
fn a_keyed_exact_repeat_lease_covers_the_identical_call_and_nothing_else() {
    let long = format!("printf '%s' {} > /dev/null", "x".repeat(12_000));
    for mut w in [
        World::keyed("{}", "8f3a2b1c4d5e6f708192a3b4c5d6e7f8"),
        World::new("{}"),
    ] {
        let params = json!({"command": long, "timeout": 30});
        let (d, id) = w.call(S, "r1", 0.0, "exec", params.clone());
        assert_eq!(d["decision"], "approval", "{d}");
        assert!(offers_always(&d), "{d}");
        assert_eq!(
            w.resolve(S, &id, "allow-always", 10.0)["effects"],
            json!(["lease"])
        );
        // The same params, whatever the key order: covered.
        let reordered: Value =
            serde_json::from_str(&format!(r#"{{"timeout":30,"command":{}}}"#, json!(long)))
                .unwrap();
        for same in [params.clone(), reordered] {
            let (d, _) = w.call(S, "r2", 1000.0, "exec", same);
            assert_eq!(d["source"], "session-lease", "{d}");
        }
        // One byte different anywhere, another param, another tool: asks.
        let mut others = vec![
            json!({"command": long, "timeout": 31}),
            json!({"command": long}),
            json!({"command": long, "timeout": 30, "pty": true}),
        ];
        for at in [0, 9, 10_000, long.len() - 1] {
            let mut bytes = long.clone().into_bytes();
            bytes[at] ^= 0x01;
            let changed = String::from_utf8(bytes).unwrap();
            others.push(json!({"command": changed, "timeout": 30}));
        }
        for other in others {
            let (d, _) = w.call(S, "r2", 1000.0, "exec", other);
            assert_ne!(d["source"], "session-lease", "{d}");
            assert_ne!(d["decision"], "auto", "{d}");
        }
        let (d, _) = w.call(S, "r2", 1000.0, "process", params.clone());
        assert_ne!(d["source"], "session-lease", "{d}");
    }
}

#[test]
fn allow_always_is_offered_only_when_it_can_be_kept() {
    // Dynamic or incomplete calls are never reused: allow-always would act as allow-once.
    let mut w = World::new("{}");
    for cmd in ["touch \"$OUT\"", "echo 'unterminated"] {
        let (d, _) = w.call(S, "r1", 0.0, "exec", exec(cmd));
        assert_eq!(d["decision"], "approval", "{cmd}: {d}");
        assert!(!offers_always(&d), "{cmd}: {d}");
    }
    // Code Mode is never reused.
    let req = json!({"toolName": "exec", "toolKind": "code_mode_exec",
        "params": {"code": "console.log(1)"}, "sessionKey": S, "callId": "cm1", "nowMs": 0.0});
    let d: Value =
        serde_json::from_str(&w.gate.decide_in_json(&mut w.sessions, &req.to_string())).unwrap();
    if d["decision"] == "approval" {
        assert!(!offers_always(&d), "{d}");
    }
    // Without a call id the answer cannot be heard, so nothing is promised.
    let req = json!({"toolName": "write", "params": write("/w/p/a.txt"), "sessionKey": S,
        "nowMs": 0.0});
    let d: Value =
        serde_json::from_str(&w.gate.decide_in_json(&mut w.sessions, &req.to_string())).unwrap();
    assert_eq!(d["decision"], "approval");
    assert!(!offers_always(&d), "{d}");
    // With the toggle off, never.
    let mut w = World::new(r#"{"rememberAllowAlways":false}"#);
    let (d, _) = w.call(S, "r1", 0.0, "write", write("/w/p/a.txt"));
    assert!(!offers_always(&d), "{d}");
}

proptest::proptest! {
    /// The binary-search count of recent asks is the count a scan of every ask gives, for any
    /// ascending ask times (the session's monotone clock) and any window.
    #[test]
    fn counting_recent_asks_by_search_agrees_with_a_scan(
        steps in proptest::collection::vec(0u32..5_000, 0..300),
        window in 1u32..20_000,
        ahead in 0u32..5_000,
    ) {
        let mut asks = VecDeque::new();
        let mut t = 0.0f64;
        for step in steps {
            t += f64::from(step);
            asks.push_back(t);
        }
        let now = t + f64::from(ahead);
        let window = f64::from(window);
        let scan = asks.iter().filter(|a| now - **a < window).count();
        proptest::prop_assert_eq!(asks_within(&asks, now, window), scan);
    }
}

proptest::proptest! {
    /// Pruning pending approvals from the front drops exactly what a scan of every entry
    /// drops: entries are pushed in the order asked, stamped with the monotone clock.
    #[test]
    fn pruning_pending_from_the_front_agrees_with_a_scan(
        steps in proptest::collection::vec(0u32..(20 * 60_000), 0..120),
        ahead in 0u32..(40 * 60_000),
    ) {
        let mut s = Session::default();
        let mut t = 0.0f64;
        for (i, step) in steps.iter().enumerate() {
            t += f64::from(*step);
            s.pending.push_back(Pending {
                call_id: format!("call-{i}"),
                id_tag: id_tag(&format!("call-{i}")),
                scope: Scope::default(),
                class: Class::Approval,
                run_id: None,
                capability: None,
                at: t,
            });
        }
        let now = t + f64::from(ahead);
        let mut scan = s.pending.clone();
        scan.retain(|p| now - p.at <= PENDING_TTL_MS);
        s.prune(now);
        proptest::prop_assert_eq!(s.pending, scan);
    }

    /// Equal ids have equal tags (the tag is only a first look: the texts are compared
    /// where tags agree), and looking for an id by tag and text finds what a scan of the texts
    /// finds, among ids alike in length and endings.
    #[test]
    fn looking_for_an_id_by_tag_is_a_scan_of_the_texts(
        ids in proptest::collection::vec("[a-c0-2-]{0,10}|bench-[0-9]{1,3}|\\PC{0,12}", 0..70),
        id in "[a-c0-2-]{0,10}|bench-[0-9]{1,3}|\\PC{0,12}",
    ) {
        let tagged: Vec<(u64, &String)> = ids.iter().map(|i| (id_tag(i), i)).collect();
        let tag = id_tag(&id);
        let by_tag = tagged.iter().any(|(t, i)| *t == tag && **i == id);
        proptest::prop_assert_eq!(by_tag, ids.contains(&id));
        for other in &ids {
            if *other == id {
                proptest::prop_assert_eq!(id_tag(other), tag);
            }
        }
    }
}

/// The flood hint as `Sessions::record` wrote it before session 8 (`format!` twice, then
/// `truncate_chars`): the reference `prepend_hint` is held to.
fn flood_hint_reference(description: &str, n: usize, window_ms: u64) -> String {
    let hint = format!(
        "⚠ {n} approval requests in {} s in this session. Check each one: nothing is approved automatically.\n",
        window_ms / 1000
    );
    crate::preview::sanitize::truncate_chars(
        &format!("{hint}{description}"),
        crate::preview::MAX_DESCRIPTION_CHARS,
    )
}

/// `prepend_flood_hint` as `Sessions::record` calls it.
fn flood_hint(description: &str, n: usize, window_ms: u64) -> String {
    let mut out = description.to_owned();
    prepend_flood_hint(&mut out, n as u64, window_ms / 1000);
    out
}

/// The adaptive-lease suggestion as `Sessions::record` wrote it before session 8.
fn suggest_hint_reference(description: &str) -> String {
    crate::preview::sanitize::truncate_chars(
        &format!("{}{}", adaptive::SUGGEST_HINT, description),
        crate::preview::MAX_DESCRIPTION_CHARS,
    )
}

#[test]
fn hints_are_their_references_over_every_corpus_text_and_preview() {
    let mut texts = crate::testing::corpus_request_strings();
    texts.extend(crate::testing::secret_texts());
    texts.extend(crate::testing::fuzz_regression_texts());
    // Real descriptions of every length a preview has.
    let gate = Gate::new("{}");
    for r in crate::testing::corpus_request_strings().iter().take(400) {
        texts.push(gate.decide(r).preview.description);
    }
    for (i, text) in texts.iter().enumerate() {
        // Around the bound, in characters and in bytes.
        let mut cuts = vec![text.as_str()];
        for end in [380, 400, 410, 420, 500, 512] {
            let mut end = end.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            cuts.push(&text[..end]);
        }
        for t in cuts {
            let (n, window) = (i % 2000, (i as u64 * 7919) % 10_000_000);
            assert_eq!(
                flood_hint(t, n, window),
                flood_hint_reference(t, n, window),
                "{t:?}"
            );
            let mut out = t.to_owned();
            prepend_hint(&mut out, &[adaptive::SUGGEST_HINT]);
            assert_eq!(out, suggest_hint_reference(t), "{t:?}");
        }
    }
}

proptest::proptest! {
    /// The hints agree with their references on any description (ASCII, wide characters,
    /// around the bound) and any count and window.
    #[test]
    fn hints_agree_on_any_description(
        d in "\\PC{0,600}|[ -~\n]{380,560}|[é•😀a]{100,520}",
        n in 0usize..100_000,
        window in 0u64..u64::MAX,
    ) {
        proptest::prop_assert_eq!(flood_hint(&d, n, window), flood_hint_reference(&d, n, window));
        let mut out = d.clone();
        prepend_hint(&mut out, &[adaptive::SUGGEST_HINT]);
        proptest::prop_assert_eq!(out, suggest_hint_reference(&d));
    }

}
