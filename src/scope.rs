//! Versioned semantic fingerprints: what "the same call" means to session authority.
//!
//! An approval, a lease or a deny cooldown is remembered under a key built here from the
//! call's tool kind, the IDs of its findings and its scope:
//! - **path** key: the sorted set of parent directories of the analyser-verified absolute
//!   targets (`Report::targets` that start with `/`). Only for calls that are completely
//!   analysed, carry only reusable findings, have at least one target and no relative target;
//!   grants allow-always leases and approval windows;
//! - **category** key: for dev-loop shell commands (build, test, format) — used only when the
//!   operator opts into the category scope or fallback; grants approval windows;
//! - **exact** key: tool name plus a keyed digest of the canonical parameters (their compact
//!   JSON text, keys sorted). It GRANTS: an allow-always on a call that is `exact_reusable`
//!   but has no path key becomes an exact-repeat lease, which passes every later call with the
//!   same exact key without asking. It also names the call for the deny cooldown (an identical
//!   retry of a denied call is blocked even when the call could never be reused).
//!
//! Because the exact key grants, nobody who can choose a call may be able to find a second
//! call with the same key: the digest is never a fast public hash (FNV-1a, used up to `v1`,
//! is invertible byte by byte, so a second preimage costs about 2^32 work). It is one of
//! ([`ExactDigest`]):
//! - **keyed** (what the plugin and the CLI use): SipHash-2-4 with a 128-bit output
//!   (`src/siphash.rs`) under a 128-bit secret the shim draws once per process from
//!   `node:crypto` and passes to `new Engine(config, secretHex)`. The core stays pure: it
//!   never makes the secret, and the secret and the keys never leave it (no decision,
//!   preview or audit record carries them), so no output can be predicted or searched for;
//! - **SHA-256** (`src/audit.rs`), when no secret was supplied (native [`crate::Gate`] and
//!   [`crate::session::Sessions::new`] users, tests, fuzzing): unkeyed but collision- and
//!   second-preimage-resistant, all 256 bits kept. Never a fixed public SipHash key.
//!
//! Every field that a person or the agent controls is written unambiguously: the path key's
//! kind and directories, and the category key's kind, are JSON strings (a directory holding a
//! line break can no longer pass for two directories), the exact key's digest is fixed-length
//! and last.
//!
//! Invariants: critical, block, auto, fail-closed, incomplete, dynamic (non-reusable findings),
//! Code Mode and relative-target calls get neither a path nor a category key and are not
//! `exact_reusable`, so nothing can ever pass them by reuse. The version prefix changes
//! whenever the meaning of a key changes, so keys from an older rule set never match.
//!
//! Non-goals: the filesystem (symlinks, real directories); keys are about what the
//! parameters say.

use crate::analysis::dispatch::CallAnalysis;
use crate::analysis::shell::rules::Category;
use crate::call::Call;
use crate::decision::{Class, Decision, Source};
use serde_json::Value;

/// Bumped whenever what a key means changes (`v2`: keyed exact digest, JSON-quoted fields).
pub const VERSION: &str = "v2";
/// Targets considered per call; a call with more is not reusable by path.
pub const MAX_TARGETS: usize = 32;

/// The keys one call can be remembered under.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
    /// Path-scoped semantic fingerprint, when the call may be reused by path.
    pub path: Option<String>,
    /// Dev-loop category fingerprint, when the call is a dev-loop command.
    pub category: Option<String>,
    /// Identical-call key (tool name + keyed digest of the canonical params): grants
    /// exact-repeat leases (when `exact_reusable`) and names the call for the deny cooldown.
    pub exact: String,
    /// The parent directories behind the path key (for people and envelopes).
    pub dirs: Vec<String>,
    /// A completely analysed, non-destructive structured file write with a path key, outside
    /// Git's own directory: what the adaptive safe-file lease may learn from and cover.
    pub safe_file: bool,
    /// A completely analysed, reusable plain approval (not Code Mode): an allow-always may
    /// cover exact repeats of it (the `exact` key) when it has no path key.
    pub exact_reusable: bool,
}

/// How the exact key digests a call's params text (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExactDigest {
    /// SHA-256: for callers that supply no secret.
    #[default]
    Sha256,
    /// SipHash-2-4-128 under the secret the shim supplies.
    Keyed(crate::siphash::Key),
}

impl ExactDigest {
    /// The keyed digest, from the secret as 32 hexadecimal digits (either case). The error
    /// names the problem, never the text (it is meant to be a secret).
    pub fn from_hex(secret: &str) -> Result<ExactDigest, String> {
        let n = secret.chars().count();
        if n != 32 {
            return Err(format!(
                "key secret: expected 32 hexadecimal digits (a 128-bit secret), got {n} characters"
            ));
        }
        let mut bytes = [0u8; 16];
        for (i, c) in secret.chars().enumerate() {
            let Some(nibble) = c.to_digit(16) else {
                return Err(format!(
                    "key secret: expected only hexadecimal digits (0-9, a-f), character {} is not one",
                    i + 1
                ));
            };
            if let Some(b) = bytes.get_mut(i / 2) {
                *b = (*b << 4) | nibble as u8;
            }
        }
        if bytes == [0u8; 16] {
            return Err("key secret: all zeros is not a secret (draw 16 random bytes)".to_owned());
        }
        Ok(ExactDigest::Keyed(crate::siphash::Key::from_bytes(bytes)))
    }

    /// Appends the digest of `text`: `sip:` and 32 hex digits, or `sha256:` and 64.
    fn write(&self, text: &[u8], out: &mut String) {
        match self {
            ExactDigest::Keyed(key) => {
                out.push_str("sip:");
                crate::audit::push_hex(out, &crate::siphash::siphash128(*key, text));
            }
            ExactDigest::Sha256 => {
                out.push_str("sha256:");
                crate::audit::push_hex(out, &crate::audit::sha256(text));
            }
        }
    }
}

/// The exact key of a call: version, tool name, then the digest of the params' compact JSON
/// text (made once per call: the audit record reads it too).
pub fn exact_key(call: &Call, digest: &ExactDigest) -> String {
    let mut key = String::with_capacity(VERSION.len() + call.tool_name.len() + 80);
    key.push_str(VERSION);
    key.push_str("|exact|");
    key.push_str(&call.tool_name);
    key.push('|');
    match call.params_text() {
        Some(text) => digest.write(text.as_bytes(), &mut key),
        None => digest.write(
            Value::Object(call.params.clone()).to_string().as_bytes(),
            &mut key,
        ),
    }
    key
}

/// Builds the scope of one decided call (before session authority changed the decision);
/// `digest` is the session store's (see [`ExactDigest`]).
pub fn of(
    call: &Call,
    d: &Decision,
    analysis: Option<&CallAnalysis>,
    digest: &ExactDigest,
) -> Scope {
    let exact = exact_key(call, digest);
    let mut scope = Scope {
        exact,
        ..Scope::default()
    };
    let reusable = d.decision == Class::Approval && d.reusable && d.source != Source::FailClosed;
    if !reusable || is_code_mode(call) {
        return scope;
    }
    // A structured call no analyzer reads is literal: an exact repeat does the same thing.
    let Some(analysis) = analysis else {
        scope.exact_reusable = true;
        return scope;
    };
    if !analysis.report.complete {
        return scope;
    }
    scope.exact_reusable = true;
    let kind = call.destructive_kind().unwrap_or(call.tool_name.as_str());
    let mut ids: Vec<&str> = d.findings.iter().map(|f| f.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let ids = ids.join(",");
    if let Some(dirs) = verified_dirs(&analysis.report) {
        scope.path = Some(path_key(kind, &ids, &dirs));
        scope.safe_file = is_file_tool(call)
            && !d
                .findings
                .iter()
                .any(|f| UNSAFE_FILE_FINDINGS.contains(&f.id))
            && !analysis.report.targets.iter().any(|t| in_git_dir(t));
        scope.dirs = dirs;
    }
    if let Some(cat) = analysis.category.and_then(dev_loop) {
        scope.category = Some(format!("{VERSION}|category|{}|{cat}|{ids}", quote(kind)));
    }
    scope
}

/// Findings that make a file call unsafe to cover by an envelope or an adaptive lease,
/// whatever their severity.
pub const UNSAFE_FILE_FINDINGS: [&str; 5] = [
    "file-delete",
    "file-move",
    "recursive-delete-scoped",
    "network-mutation",
    "path-outside-workspace",
];

/// True for the structured file-mutation tools (`write`, `edit`, multi-edit, `apply_patch`),
/// never for shell or Code Mode.
pub fn is_file_tool(call: &Call) -> bool {
    !call.kinds().any(|k| k == "exec" || k == "code_mode_exec")
        && crate::analysis::files::is_file_tool(call)
}

/// True when a normalized path lies inside a `.git` directory (writes there run code later:
/// hooks, `core.hooksPath`, aliases).
pub fn in_git_dir(path: &str) -> bool {
    path.split('/').any(|seg| seg == ".git")
}

/// True for Code Mode calls (never reused).
pub fn is_code_mode(call: &Call) -> bool {
    call.kinds().any(|k| k == "code_mode_exec")
}

/// The sorted parent directories of the report's targets, when every target is verified and
/// absolute (`/`-anchored) and no target is relative.
pub fn verified_dirs(report: &crate::analysis::Report) -> Option<Vec<String>> {
    if report.relative_targets || report.targets.is_empty() || report.targets.len() > MAX_TARGETS {
        return None;
    }
    let mut dirs = Vec::with_capacity(report.targets.len());
    for t in &report.targets {
        dirs.push(parent(t)?);
    }
    dirs.sort_unstable();
    dirs.dedup();
    Some(dirs)
}

/// The parent directory of a normalized absolute path; `None` for anything else.
pub fn parent(target: &str) -> Option<String> {
    if !target.starts_with('/') || target.split('/').any(|seg| seg == "..") {
        return None;
    }
    let trimmed = target.trim_end_matches('/');
    let cut = trimmed.rfind('/')?;
    Some(if cut == 0 {
        "/".to_owned()
    } else {
        trimmed.get(..cut)?.to_owned()
    })
}

/// True when `path` is `root` or lies below it (component boundary, both normalized).
pub fn is_under(path: &str, root: &str) -> bool {
    if root == "/" {
        return path.starts_with('/');
    }
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn dev_loop(c: Category) -> Option<&'static str> {
    match c {
        Category::DevBuild => Some("dev-build"),
        Category::DevTest => Some("dev-test"),
        Category::DevFormat => Some("dev-format"),
        Category::ReadOnly | Category::SourceControl => None,
    }
}

/// The path key: version, kind, finding IDs, directories; every field that the call controls
/// is a JSON string, so no directory (or tool name) can pass for a separator.
fn path_key(kind: &str, ids: &str, dirs: &[String]) -> String {
    format!("{VERSION}|path|{}|{ids}|{}", quote(kind), quote_all(dirs))
}

/// `text` as a JSON string: whatever it holds, it cannot pass for a separator.
fn quote(text: &str) -> String {
    Value::from(text).to_string()
}

/// Each of `texts` as a JSON string, comma-separated (a JSON array without brackets).
fn quote_all(texts: &[String]) -> String {
    texts.iter().map(|t| quote(t)).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Gate;

    #[test]
    fn the_exact_key_digests_the_params_text() {
        let odd = serde_json::json!({"toolName": "x", "params": {"é\u{1F600}": ["\u{0}", 1.5, -0, 1e300, null, {"\"": "\\"}]}});
        let requests = crate::gate::tests::corpus_requests()
            .into_iter()
            .map(|(_, r)| r)
            .chain([odd.to_string()]);
        for request in requests {
            let Ok(call) = Call::parse(&request) else {
                continue;
            };
            assert_eq!(
                call.params_text(),
                Some(Value::Object(call.params.clone()).to_string().as_str()),
                "{request}"
            );
        }
    }

    fn scope_of(request: &str) -> Scope {
        scope_with(request, &ExactDigest::Sha256)
    }

    fn scope_with(request: &str, digest: &ExactDigest) -> Scope {
        let gate = Gate::new("{}");
        let call = Call::parse(request).unwrap();
        let (d, analysis) = gate.assess(&call);
        of(&call, &d, analysis.as_ref(), digest)
    }

    fn keyed(hex: &str) -> ExactDigest {
        ExactDigest::from_hex(hex).unwrap()
    }

    const SECRET_A: &str = "000102030405060708090a0b0c0d0e0f";
    const SECRET_B: &str = "F00102030405060708090A0B0C0D0E0F";

    /// The `v1` digest, to show the new key is not it.
    fn fnv1a(bytes: &[u8]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    fn exec(command: &str) -> String {
        serde_json::json!({"toolName":"exec","params":{"command":command}}).to_string()
    }

    #[test]
    fn the_keyed_exact_key_depends_on_the_params_and_the_secret_only() {
        let req = exec("ls -la /tmp");
        let (a, b) = (keyed(SECRET_A), keyed(SECRET_B));
        let one = scope_with(&req, &a).exact;
        assert_eq!(one, scope_with(&req, &a).exact);
        assert_eq!(
            one,
            scope_with(&req, &keyed(&SECRET_A.to_uppercase())).exact
        );
        assert_ne!(one, scope_with(&req, &b).exact);
        assert_ne!(one, scope_with(&req, &ExactDigest::Sha256).exact);
        // SipHash-2-4-128 of the params text under the secret, after the version and tool.
        let text = r#"{"command":"ls -la /tmp"}"#;
        let key = crate::siphash::Key::from_bytes(std::array::from_fn(|i| i as u8));
        let want = crate::audit::hex(&crate::siphash::siphash128(key, text.as_bytes()));
        assert_eq!(one, format!("v2|exact|exec|sip:{want}"));
        let old = format!("{:016x}", fnv1a(text.as_bytes()));
        assert!(!one.contains(&old), "{one}");
        let sha = scope_with(&req, &ExactDigest::Sha256).exact;
        assert_eq!(
            sha,
            format!(
                "v2|exact|exec|sha256:{}",
                crate::audit::hex(&crate::audit::sha256(text.as_bytes()))
            )
        );
    }

    #[test]
    fn the_exact_key_reads_the_tool_and_params_only() {
        let digest = keyed(SECRET_A);
        let base = serde_json::json!({"toolName":"exec","params":{"command":"make","timeout":5}});
        let key = scope_with(&base.to_string(), &digest).exact;
        let mut same = base.clone();
        for (field, value) in [
            ("sessionKey", "agent:main:other"),
            ("sessionId", "s9"),
            ("runId", "r9"),
            ("callId", "c9"),
        ] {
            same[field] = serde_json::json!(value);
        }
        same["nowMs"] = serde_json::json!(1_764_400_000_000_u64);
        assert_eq!(scope_with(&same.to_string(), &digest).exact, key);
        let mut other_tool = base.clone();
        other_tool["toolName"] = serde_json::json!("bash");
        assert_ne!(scope_with(&other_tool.to_string(), &digest).exact, key);
    }

    #[test]
    fn one_changed_byte_anywhere_in_long_params_changes_the_exact_key() {
        let long: String = (0..30_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for digest in [keyed(SECRET_A), ExactDigest::Sha256] {
            let base = scope_with(&exec(&long), &digest).exact;
            let mut seen = std::collections::BTreeSet::from([base.clone()]);
            for at in [0, 1, 7, 8, 4095, 15_000, 29_991, 29_998, 29_999] {
                let mut bytes = long.clone().into_bytes();
                bytes[at] = if bytes[at] == b'z' {
                    b'y'
                } else {
                    bytes[at] + 1
                };
                let changed = String::from_utf8(bytes).unwrap();
                let key = scope_with(&exec(&changed), &digest).exact;
                assert!(seen.insert(key), "byte {at} changed, same key ({digest:?})");
            }
            // One byte longer or shorter, too.
            assert!(seen.insert(scope_with(&exec(&format!("{long}a")), &digest).exact));
            assert!(seen.insert(scope_with(&exec(&long[1..]), &digest).exact));
        }
    }

    #[test]
    fn a_malformed_secret_is_refused_without_echoing_it() {
        for (secret, why) in [
            ("", "got 0 characters"),
            ("0001020304050607", "got 16 characters"),
            ("000102030405060708090a0b0c0d0e0f00", "got 34 characters"),
            (
                "000102030405060708090a0b0c0d0e0g",
                "character 32 is not one",
            ),
            (
                "0001020304050607 8090a0b0c0d0e0f",
                "character 17 is not one",
            ),
            ("é00102030405060708090a0b0c0d0e0f", "character 1 is not one"),
            ("00000000000000000000000000000000", "all zeros"),
        ] {
            let err = ExactDigest::from_hex(secret).unwrap_err();
            assert!(
                err.starts_with("key secret: ") && err.contains(why),
                "{secret}: {err}"
            );
            if secret.len() > 4 {
                assert!(!err.contains(secret), "{err}");
            }
        }
        assert_eq!(format!("{:?}", keyed(SECRET_A)), "Keyed(Key(..))");
    }

    #[test]
    fn no_directory_or_kind_can_pass_for_another_list() {
        let dirs = |d: &[&str]| d.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let keys = [
            path_key("write", "file-write", &dirs(&["/w/a", "/w/b"])),
            path_key("write", "file-write", &dirs(&["/w/a\n/w/b"])),
            path_key("write", "file-write", &dirs(&["/w/a\",\"/w/b"])),
            path_key("write", "file-write", &dirs(&["/w/a,/w/b"])),
            path_key("write|file-write", "", &dirs(&["/w/a", "/w/b"])),
            path_key("write", "file-write|\"/w/a\"", &dirs(&["/w/b"])),
        ];
        let distinct: std::collections::BTreeSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "{keys:?}");
        // Through the analyser: a write into a directory named with a line break.
        let w = scope_of(
            &serde_json::json!({"toolName":"write","params":{"path":"/w/a\n/w/b/z","content":"x"}})
                .to_string(),
        );
        assert_eq!(w.dirs, ["/w/a\n/w/b"]);
        let p = w.path.unwrap();
        assert!(
            p.starts_with("v2|path|\"write\"|") && p.ends_with(r#"|"/w/a\n/w/b""#),
            "{p}"
        );
    }

    fn write(path: &str) -> String {
        format!(r#"{{"toolName":"write","params":{{"path":"{path}","content":"x"}}}}"#)
    }

    #[test]
    fn writes_in_one_directory_share_a_path_key_and_others_do_not() {
        let a = scope_of(&write("/w/p/a.txt"));
        let b = scope_of(&write("/w/p/b.txt"));
        let c = scope_of(&write("/w/q/c.txt"));
        assert!(a.path.is_some());
        assert_eq!(a.path, b.path);
        assert_ne!(a.path, c.path);
        assert_ne!(a.exact, b.exact);
        assert_eq!(a.dirs, ["/w/p"]);
        assert!(a.path.unwrap().starts_with("v2|path|\"write\"|"));
    }

    #[test]
    fn relative_home_critical_and_incomplete_calls_have_no_path_key() {
        for req in [
            write("notes/a.txt"),
            write("~/a.txt"),
            write("/etc/passwd"),
            r#"{"toolName":"write","params":{"path":"/w/p/a.txt"}}"#.to_owned(),
            r#"{"toolName":"exec","params":{"command":"touch /w/p/a"}}"#.to_owned(),
            r#"{"toolName":"exec","params":{"command":"git push --force"}}"#.to_owned(),
            r#"{"toolName":"code","toolKind":"code_mode_exec","params":{"code":"1"}}"#.to_owned(),
        ] {
            let s = scope_of(&req);
            assert_eq!(s.path, None, "{req}");
            assert!(s.exact.starts_with("v2|exact|"), "{req}");
        }
    }

    #[test]
    fn a_patch_with_one_relative_file_is_not_reusable_by_path() {
        let patch = "*** Begin Patch\n*** Add File: /w/p/a.txt\n+x\n*** Add File: rel/b.txt\n+y\n*** End Patch";
        let req =
            serde_json::json!({"toolName":"apply_patch","params":{"input":patch}}).to_string();
        assert_eq!(scope_of(&req).path, None);
        let patch = "*** Begin Patch\n*** Add File: /w/p/a.txt\n+x\n*** End Patch";
        let req =
            serde_json::json!({"toolName":"apply_patch","params":{"input":patch}}).to_string();
        assert!(scope_of(&req).path.is_some());
    }

    #[test]
    fn identical_calls_share_the_exact_key_whatever_the_key_order() {
        let a = scope_of(r#"{"toolName":"exec","params":{"command":"x","timeout":5}}"#);
        let b = scope_of(r#"{"toolName":"exec","params":{"timeout":5,"command":"x"}}"#);
        let c = scope_of(r#"{"toolName":"exec","params":{"command":"y","timeout":5}}"#);
        assert_eq!(a.exact, b.exact);
        assert_ne!(a.exact, c.exact);
    }

    #[test]
    fn dev_loop_commands_get_a_category_key() {
        let s = scope_of(r#"{"toolName":"exec","params":{"command":"cargo test"}}"#);
        assert!(s.category.is_some(), "{s:?}");
        assert_eq!(s.path, None);
        let s = scope_of(r#"{"toolName":"exec","params":{"command":"touch x"}}"#);
        assert_eq!(s.category, None);
    }

    #[test]
    fn safe_file_writes_are_complete_non_destructive_and_outside_git() {
        assert!(scope_of(&write("/w/p/a.txt")).safe_file);
        assert!(!scope_of(&write("/w/p/.git/config")).safe_file);
        let del = "*** Begin Patch\n*** Delete File: /w/p/a.txt\n*** End Patch";
        let req = serde_json::json!({"toolName":"apply_patch","params":{"input":del}}).to_string();
        assert!(!scope_of(&req).safe_file);
        assert!(!scope_of(r#"{"toolName":"exec","params":{"command":"cargo test"}}"#).safe_file);
    }

    #[test]
    fn parents_and_roots() {
        assert_eq!(parent("/a/b/c").as_deref(), Some("/a/b"));
        assert_eq!(parent("/a").as_deref(), Some("/"));
        assert_eq!(parent("/a/b/").as_deref(), Some("/a"));
        assert_eq!(parent("a/b"), None);
        assert_eq!(parent("~/a"), None);
        assert_eq!(parent("/a/../b"), None);
        assert!(is_under("/r/p/a", "/r/p"));
        assert!(is_under("/r/p", "/r/p"));
        assert!(!is_under("/r/pq/a", "/r/p"));
        assert!(!is_under("/r", "/r/p"));
    }
}
