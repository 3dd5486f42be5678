//! Versioned semantic fingerprints: what "the same call" means to session authority.
//!
//! An approval, a lease or a deny cooldown is remembered under a key built here from the
//! call's tool kind, the IDs of its findings and its scope, never from raw parameters:
//! - **path** key: the sorted set of parent directories of the analyser-verified absolute
//!   targets (`Report::targets` that start with `/`). Only for calls that are completely
//!   analysed, carry only reusable findings, have at least one target and no relative target;
//! - **category** key: for dev-loop shell commands (build, test, format) — used only when the
//!   operator opts into the category scope or fallback;
//! - **exact** key: tool name plus a digest of the canonical parameters — used by the deny
//!   cooldown only, so an identical retry of a denied call is recognised even when the call
//!   could never be reused.
//!
//! Invariants: critical, block, auto, fail-closed, incomplete, dynamic (non-reusable findings),
//! Code Mode and relative-target calls get neither a path nor a category key, so nothing can
//! ever pass them by reuse. The version prefix (`v1`) changes whenever the meaning of a key
//! changes, so keys from an older rule set never match.
//!
//! Non-goals: the filesystem (symlinks, real directories); keys are about what the
//! parameters say.

use crate::analysis::dispatch::CallAnalysis;
use crate::analysis::shell::rules::Category;
use crate::call::Call;
use crate::decision::{Class, Decision, Source};
use serde_json::Value;

/// Bumped whenever what a key means changes.
pub const VERSION: &str = "v1";
/// Targets considered per call; a call with more is not reusable by path.
pub const MAX_TARGETS: usize = 32;

/// The keys one call can be remembered under.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
    /// Path-scoped semantic fingerprint, when the call may be reused by path.
    pub path: Option<String>,
    /// Dev-loop category fingerprint, when the call is a dev-loop command.
    pub category: Option<String>,
    /// Identical-call key (tool name + canonical params digest), for the deny cooldown.
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

/// Builds the scope of one decided call (before session authority changed the decision).
pub fn of(call: &Call, d: &Decision, analysis: Option<&CallAnalysis>) -> Scope {
    let exact = format!(
        "{VERSION}|exact|{}|{:016x}",
        call.tool_name,
        // The params' compact JSON text, made once per call (the record reads it too).
        match call.params_text() {
            Some(text) => fnv1a(text.as_bytes()),
            None => fnv1a(Value::Object(call.params.clone()).to_string().as_bytes()),
        }
    );
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
        scope.path = Some(format!("{VERSION}|path|{kind}|{ids}|{}", dirs.join("\n")));
        scope.safe_file = is_file_tool(call)
            && !d
                .findings
                .iter()
                .any(|f| UNSAFE_FILE_FINDINGS.contains(&f.id))
            && !analysis.report.targets.iter().any(|t| in_git_dir(t));
        scope.dirs = dirs;
    }
    if let Some(cat) = analysis.category.and_then(dev_loop) {
        scope.category = Some(format!("{VERSION}|category|{kind}|{cat}|{ids}"));
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

/// 64-bit FNV-1a: a stable digest for keys (not a security boundary: keys never leave the
/// core and an attacker gains nothing from a collision but a block or an extra prompt).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
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
        let gate = Gate::new("{}");
        let call = Call::parse(request).unwrap();
        let (d, analysis) = gate.assess(&call);
        of(&call, &d, analysis.as_ref())
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
        assert!(a.path.unwrap().starts_with("v1|path|write|"));
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
            assert!(s.exact.starts_with("v1|exact|"), "{req}");
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
