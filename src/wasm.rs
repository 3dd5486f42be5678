//! The one boundary to JavaScript (wasm-bindgen). Strings in, strings out: the same JSON
//! contract as [`crate::decide_json_str`], documented in `docs/core-api.md`. No policy here.

/// The allocator: small blocks from size-class free lists (`crates/segalloc`), the rest from
/// Talc (instead of Rust's default dlmalloc, which took ~20 % of a typical decision in
/// WebAssembly). Single-threaded module; both constructors are safe and const.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static ALLOC: segalloc::SizeClasses<talc::wasm::WasmDynamicTalc> =
    segalloc::SizeClasses::new(talc::wasm::new_wasm_dynamic_allocator());

use crate::audit::AuditMemo;
use crate::gate::Gate;
use crate::session::Sessions;
use wasm_bindgen::prelude::*;

/// A compiled gate, owned by the shim (one per process, on `globalThis`).
#[wasm_bindgen]
pub struct Engine {
    gate: Gate,
    sessions: Sessions,
    audit: AuditMemo,
}

#[wasm_bindgen]
impl Engine {
    /// Never throws for a bad config: see `configErrors()`. `secret_hex` is the shim's
    /// per-process 128-bit secret (32 hex digits) that keys the exact-call key
    /// (`src/scope.rs`); without it the key is a SHA-256 digest. A malformed secret throws
    /// (the shim answers the fail-closed approval): it is a broken shim, never a config.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, secret_hex: Option<String>) -> Result<Engine, JsError> {
        let exact_digest = match secret_hex.as_deref() {
            Some(hex) => crate::scope::ExactDigest::from_hex(hex).map_err(|e| JsError::new(&e))?,
            None => crate::scope::ExactDigest::Sha256,
        };
        Ok(Engine {
            gate: Gate::new(config_json),
            sessions: Sessions::with_exact_digest(exact_digest),
            audit: AuditMemo::default(),
        })
    }

    /// JSON array of path-qualified config problems.
    #[wasm_bindgen(js_name = configErrors)]
    pub fn config_errors(&self) -> String {
        serde_json::to_string(self.gate.config_errors()).unwrap_or_else(|_| "[]".to_owned())
    }

    /// Decides one call with session authority: request JSON in, decision JSON out.
    pub fn decide(&mut self, request_json: &str) -> String {
        self.gate.decide_in_json(&mut self.sessions, request_json)
    }

    /// The gate hook's one call: `decide`, answered as the host mapping reads the decision
    /// (ASCII JSON), then `"\n"`, record head, `"\n"`, record tail; the audit record is
    /// `head + latencyMs + tail`. For long params the tail comes in two pieces followed by the
    /// params text, whose digest the shim computes (`src/audit.rs` `decide_for_hook`,
    /// docs/core-api.md).
    #[wasm_bindgen(js_name = decideForHook)]
    pub fn decide_for_hook(&mut self, request_json: &str) -> String {
        crate::audit::decide_for_hook(
            &self.gate,
            &mut self.sessions,
            &mut self.audit,
            request_json,
        )
    }

    /// Renders the `human_gate_ask` tool result.
    #[wasm_bindgen(js_name = renderAsk)]
    pub fn render_ask(&self, params_json: &str) -> String {
        self.gate.render_ask_json(params_json)
    }

    /// Output guard: scans one chunk of a tool result (`src/guard.rs`).
    #[wasm_bindgen(js_name = guardScan)]
    pub fn guard_scan(&self, input_json: &str) -> String {
        self.gate.guard_json(input_json)
    }
}

#[wasm_bindgen]
impl Engine {
    /// Session authority: one approval outcome for the call id passed to `decide`.
    pub fn resolve(&mut self, resolution_json: &str) -> String {
        self.sessions
            .resolve_json(&self.gate.config().session, resolution_json)
    }

    /// Session authority: the owner's `/human_gate_exec` command.
    #[wasm_bindgen(js_name = execLease)]
    pub fn exec_lease(&mut self, command_json: &str) -> String {
        self.sessions.exec_lease_json(command_json)
    }
}

/// The finding table (`src/finding.rs`) as JSON: `[{id, severity, reusable, reason}]`.
#[wasm_bindgen(js_name = findingTable)]
pub fn finding_table() -> String {
    crate::finding::table_json()
}

#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    crate::core_version().to_owned()
}

/// Audit record of one decision (`src/audit.rs`): digests and sizes, never raw values.
#[wasm_bindgen(js_name = auditDecision)]
pub fn audit_decision(request_json: &str, decision_json: &str, latency_ms: f64) -> String {
    crate::audit::decision_record(request_json, decision_json, latency_ms)
}

/// Audit record of one resolution, from the decision record it resolves.
#[wasm_bindgen(js_name = auditResolution)]
pub fn audit_resolution(
    decision_record_json: &str,
    resolution: &str,
    now_ms: f64,
    latency_ms: f64,
) -> String {
    crate::audit::resolution_record(decision_record_json, resolution, now_ms, latency_ms)
}

/// Audit record of one output-guard scan: finding IDs and counts, sizes.
#[wasm_bindgen(js_name = auditGuard)]
pub fn audit_guard(context_json: &str, summary_json: &str, latency_ms: f64) -> String {
    crate::audit::guard_record(context_json, summary_json, latency_ms)
}

/// The output guard's note for a result with findings: `{"notice": text|null}`.
#[wasm_bindgen(js_name = guardNotice)]
pub fn guard_notice(summary_json: &str) -> String {
    crate::guard::notice_json(summary_json)
}
