//! Authorization envelopes: one approval for "structured file writes under this repository
//! root, for this run", asked through the `human_gate_request_capability` tool.
//!
//! The tool call itself is what asks: the gate turns it into an approval (never reusable,
//! never allow-always) whose pending entry remembers the root; when a person allows it, the
//! session gets an envelope with a fixed expiry bound to the run. An envelope covers only
//! `write` / `edit` / `apply_patch` calls that are completely analysed, whose every target is
//! absolute and under the root, that delete or move nothing and that are not critical; shell,
//! Code Mode, network and anything else are never covered, and a target outside the root
//! simply asks again (no fallback to a broader reuse).
//!
//! Non-goals: the filesystem (symlinks are not resolved; roots are what the parameters say).

use crate::analysis::dispatch::CallAnalysis;
use crate::analysis::paths::{self, Breadth};
use crate::call::Call;
use crate::decision::{Class, Decision};

/// The capability tool's name (declared in `openclaw.plugin.json` `contracts.tools`).
pub const CAPABILITY_TOOL: &str = "human_gate_request_capability";

/// One granted envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub root: String,
    pub run_id: String,
    pub until: f64,
}

/// A repository root as the envelope stores it: absolute, normalized, without a trailing
/// slash; `None` for relative, home-anchored, dynamic, `/`, home or system directories.
pub fn root(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if !raw.starts_with('/') || raw.chars().count() > 1024 {
        return None;
    }
    let norm = paths::normalize(raw);
    if norm.anchor != "/" || norm.escapes || norm.segments.is_empty() {
        return None;
    }
    if matches!(paths::delete_breadth(raw, false, false), Breadth::Broad(_))
        || paths::is_system_write_target(raw)
        || paths::is_self_protected(raw)
        || paths::is_credential_dir(raw)
    {
        return None;
    }
    if norm.segments.iter().any(|s| s == ".git") {
        return None;
    }
    let rendered = norm.render();
    let trimmed = rendered.trim_end_matches('/');
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// True when `call` is the capability tool.
pub fn is_request(call: &Call) -> bool {
    call.tool_name == CAPABILITY_TOOL
}

/// The root a capability request asks for, or why it cannot be granted.
pub fn requested_root(call: &Call) -> Result<String, &'static str> {
    match call.params.get("root").and_then(|v| v.as_str()) {
        Some(r) => root(r).ok_or(
            "the root must be an absolute repository directory (not /, a home, a system or a credential directory)",
        ),
        None => Err("the request names no `root`"),
    }
}

/// True when the envelope rooted at `root` covers this (approval-class) call. Git's own
/// directory is never covered (a write to `.git/config` or a hook runs code later).
pub fn covers(root: &str, call: &Call, d: &Decision, analysis: Option<&CallAnalysis>) -> bool {
    let Some(a) = analysis else {
        return false;
    };
    let r = &a.report;
    d.decision == Class::Approval
        && d.reusable
        && crate::scope::is_file_tool(call)
        && r.complete
        && !r.relative_targets
        && !r.targets.is_empty()
        && r.targets.len() <= crate::scope::MAX_TARGETS
        && !d.findings.iter().any(|f| {
            crate::scope::UNSAFE_FILE_FINDINGS.contains(&f.id)
                || f.severity == crate::decision::Severity::Critical
        })
        && r.targets.iter().all(|t| {
            crate::scope::parent(t).is_some()
                && crate::scope::is_under(t, root)
                && !crate::scope::in_git_dir(t)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_absolute_narrow_and_normalized() {
        assert_eq!(root("/work/repo/").as_deref(), Some("/work/repo"));
        assert_eq!(root("/home/u/p/./x/..").as_deref(), Some("/home/u/p"));
        for bad in [
            "/",
            "repo",
            "~/repo",
            "/etc",
            "/home/u",
            "/usr/lib",
            "$HOME/x",
            "/a/../../b",
        ] {
            assert_eq!(root(bad), None, "{bad}");
        }
    }
}
