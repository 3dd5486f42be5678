#![no_main]
//! `cargo +nightly fuzz run analyze_shell`: see `fuzz/src/checks.rs` (`analyze_shell_one`) for the input format
//! and the invariants checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openclaw_human_gate_fuzz::checks::analyze_shell_one(data));
