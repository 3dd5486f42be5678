//! Replays every committed fuzz regression (`tests/fuzz-regressions/<target>/*`) through the
//! same function the cargo-fuzz target runs (`fuzz/src/checks.rs`), so a crasher found once
//! stays fixed in plain `cargo test`.
//!
//! Crashers whose bug is still open live in `tests/fuzz-regressions/<target>/open/` and are
//! replayed by the ignored `open_fuzz_regressions` (`cargo test -- --ignored`); the fix moves
//! them up one folder.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[allow(dead_code)]
#[path = "../fuzz/src/checks.rs"]
mod checks;

use std::fs;
use std::path::Path;

/// A fuzz target's body: panics when the input breaks an invariant.
type Check = fn(&[u8]);

/// Runs `check` on every file under `tests/fuzz-regressions/<target>/` (dotfiles aside); returns
/// how many inputs it replayed.
fn replay(target: &str, check: Check) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    replay_dir(&dir, target, check)
}

fn replay_dir(dir: &Path, target: &str, check: Check) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    for f in &files {
        let data = fs::read(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("{target}/{name}: {msg}");
        }
    }
    files.len()
}

#[test]
fn lex_posix_regressions() {
    replay("lex_posix", checks::lex_one);
}

#[test]
fn analyze_shell_regressions() {
    replay("analyze_shell", checks::analyze_shell_one);
}

#[test]
fn decide_regressions() {
    replay("decide", checks::decide_one);
}

#[test]
fn config_regressions() {
    replay("config", checks::config_one);
}

#[test]
fn redact_regressions() {
    replay("redact", checks::redact_one);
}

/// Crashers of open bugs (see the report in each file's name); un-ignore by fixing the bug and
/// moving the file up to its target's folder.
#[test]
#[ignore = "replays tests/fuzz-regressions/*/open/: crashers of bugs not fixed yet (none now)"]
fn open_fuzz_regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let targets: [(&str, Check); 5] = [
        ("lex_posix", checks::lex_one),
        ("analyze_shell", checks::analyze_shell_one),
        ("decide", checks::decide_one),
        ("config", checks::config_one),
        ("redact", checks::redact_one),
    ];
    for (target, check) in targets {
        replay_dir(&root.join(target).join("open"), target, check);
    }
}

/// The checks themselves accept ordinary inputs of every shape (a check that rejects
/// everything would make the replays above vacuous).
#[test]
fn checks_accept_ordinary_inputs() {
    checks::lex_one(b"ls -la | grep x && echo \"$(date)\"");
    for sel in 0..=255u8 {
        let mut data = vec![sel];
        data.extend_from_slice(b"sudo rm -rf / ; cmd /c \"del /s /q C:\\\\\"");
        checks::analyze_shell_one(&data);
    }
    for sel in 0..8u8 {
        let mut data = vec![sel];
        data.extend_from_slice(br#"{"toolName":"exec","params":{"command":"git push --force"}}"#);
        checks::decide_one(&data);
    }
    checks::config_one(checks::FUZZ_CONFIG.as_bytes());
    checks::config_one(b"{not json");
    checks::redact_one(
        b"Authorization: Bearer abcdefghijklmnop API_KEY='x'y ghp_abcdefghijklmnopqrstuvwxyz0123",
    );
}
