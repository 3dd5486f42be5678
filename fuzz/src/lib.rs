//! Shared bodies of the fuzz targets; see `checks.rs` (also replayed by
//! `tests/fuzz_regressions.rs` and used by `tests/properties.rs`).

pub mod checks;
