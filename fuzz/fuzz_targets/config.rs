#![no_main]
//! `cargo +nightly fuzz run config`: see `fuzz/src/checks.rs` (`config_one`) for the input format
//! and the invariants checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openclaw_human_gate_fuzz::checks::config_one(data));
