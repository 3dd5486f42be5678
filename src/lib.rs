//! Policy core of the OpenClaw Human Gate.
//!
//! Everything here is pure and deterministic: no IO, no clock, no randomness, no globals.
//! Time and ids come in with the request; the only long-lived state is the [`gate::Gate`]
//! handle and the [`session::Sessions`] store the caller owns. The `wasm` module is the one boundary to JavaScript; native
//! callers (tests, benches) use [`decide_json_str`], the very same JSON contract.
//!
//! The contract itself is documented in `docs/core-api.md`.

// The module docs explain how their public items work in terms of private ones; the docs are
// built for the people who work on the core (`cargo doc --document-private-items`, checked by
// `npm test`), where those links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod analysis;
pub mod ask;
pub mod audit;
pub mod call;
pub mod config;
pub mod decision;
pub mod finding;
pub mod gate;
pub mod guard;
pub mod json;
pub mod policy;
pub mod preview;
pub mod risk;
pub mod scope;
pub mod session;
pub mod siphash;
pub mod swar;
#[cfg(test)]
mod testing;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use gate::Gate;

/// One request in, one decision out, both as JSON text: the native twin of `Engine.decide`.
///
/// ```
/// let out = openclaw_human_gate::decide_json_str("{}", r#"{"toolName":"read","params":{"path":"README.md"}}"#);
/// assert!(out.contains(r#""decision":"auto""#));
/// ```
pub fn decide_json_str(config_json: &str, request_json: &str) -> String {
    Gate::new(config_json).decide_json(request_json)
}

/// The crate version, so the shim can tell which core it loaded.
pub fn core_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
