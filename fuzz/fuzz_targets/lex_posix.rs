#![no_main]
//! `cargo +nightly fuzz run lex_posix`: see `fuzz/src/checks.rs` (`lex_one`) for the input format
//! and the invariants checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openclaw_human_gate_fuzz::checks::lex_one(data));
