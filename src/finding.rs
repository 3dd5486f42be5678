//! The one table of finding IDs.
//!
//! Every finding the core can emit is declared here once, with its default severity, whether an
//! approval carrying it may be reused, and a one-line reason for people. Analyzers, docs and
//! tests refer to findings by these IDs, never by message text. The shim's own fail-closed
//! answer uses [`INTERNAL_ERROR`]'s ID so that it, too, comes from this table.

use crate::decision::Severity;
use serde::Serialize;

/// Longest finding detail, in characters.
pub const MAX_DETAIL_CHARS: usize = 200;

fn bound_detail(detail: &str) -> String {
    if is_bounded(detail) {
        return detail.to_owned();
    }
    bound_general(detail)
}

/// [`bound_detail`] of a detail the caller gives up: kept as it is when it is already bounded.
fn bound_detail_owned(detail: String) -> String {
    if is_bounded(&detail) {
        return detail;
    }
    bound_general(&detail)
}

/// Printable ASCII within the bound: nothing to strip or cut.
fn is_bounded(detail: &str) -> bool {
    detail.len() <= MAX_DETAIL_CHARS && crate::swar::all_printable(detail.as_bytes())
}

fn bound_general(detail: &str) -> String {
    let clean: String = detail
        .chars()
        .map(|c| {
            if c.is_control() || crate::preview::sanitize::is_invisible_control(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    crate::preview::sanitize::truncate_chars(&clean, MAX_DETAIL_CHARS)
}

/// A row of the finding table.
#[derive(Debug, PartialEq, Eq)]
pub struct FindingSpec {
    pub id: &'static str,
    pub severity: Severity,
    /// Whether an approval that carries this finding may be reused by session authority.
    pub reusable: bool,
    pub reason: &'static str,
}

/// One finding on one call: a table row plus call-specific detail (never raw secrets).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub id: &'static str,
    pub severity: Severity,
    pub detail: String,
    #[serde(skip)]
    reusable: bool,
}

impl Finding {
    /// A finding with `detail` cut to [`MAX_DETAIL_CHARS`] and stripped of control, bidi and
    /// zero-width characters: details quote parts of untrusted input, so they are bounded and
    /// made displayable here, once, whoever builds them. (Secret redaction happens when the
    /// decision is finished, where the compiled patterns live.)
    pub fn new(spec: &'static FindingSpec, detail: String) -> Finding {
        Finding {
            id: spec.id,
            severity: spec.severity,
            detail: bound_detail_owned(detail),
            reusable: spec.reusable,
        }
    }

    /// Replaces the detail (for redaction); the bound still applies.
    pub fn set_detail(&mut self, detail: &str) {
        self.detail = bound_detail(detail);
    }

    /// [`Finding::set_detail`] with a detail the caller gives up (no copy when it is bounded).
    pub fn set_detail_owned(&mut self, detail: String) {
        self.detail = bound_detail_owned(detail);
    }

    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }

    pub fn reusable(&self) -> bool {
        self.reusable
    }
}

macro_rules! findings {
    ($($name:ident = $id:literal, $sev:ident, $reusable:literal, $reason:literal;)*) => {
        $(pub static $name: FindingSpec = FindingSpec {
            id: $id, severity: Severity::$sev, reusable: $reusable, reason: $reason,
        };)*
        /// Every finding the core knows, in declaration order.
        pub static TABLE: &[&FindingSpec] = &[$(&$name),*];
    };
}

findings! {
    USER_RULE = "user-rule", Warning, true,
        "a user rule decided this call";
    TOOL_KIND_DESTRUCTIVE = "tool-kind-destructive", Warning, true,
        "this kind of tool changes the system (shell, patch or Code Mode)";
    NAME_TOKEN_DESTRUCTIVE = "name-token-destructive", Warning, true,
        "the tool name says it changes something";
    NAME_TOKEN_READ_ONLY = "name-token-read-only", Info, true,
        "the tool name says it only reads";
    TOOL_UNRECOGNIZED = "tool-unrecognized", Warning, true,
        "nothing recognizes this tool, so the default mode applies";
    TOOL_BRIDGE = "tool-bridge", Info, true,
        "a Tool Search bridge call, decided as the tool it calls";
    INPUT_MALFORMED = "input-malformed", Warning, false,
        "the call could not be read, so a human must look";
    INPUT_TOO_LARGE = "input-too-large", Warning, false,
        "the call is larger than the gate inspects, so a human must look";
    INTERNAL_ERROR = "internal-error", Warning, false,
        "the gate failed while deciding, so a human must look";

    // ---- semantic analysis: what the parameters do (critical) ----
    REMOTE_SCRIPT_EXECUTION = "remote-script-execution", Critical, false,
        "downloads content and runs it as code";
    RECURSIVE_DELETE_BROAD = "recursive-delete-broad", Critical, false,
        "recursively deletes a root, home, system or unverifiable location";
    GIT_FORCE_PUSH = "git-force-push", Critical, false,
        "force-pushes or deletes remote history";
    GIT_HISTORY_DESTRUCTION = "git-history-destruction", Critical, false,
        "discards commits, branches or uncommitted work";
    INFRASTRUCTURE_DESTRUCTION = "infrastructure-destruction", Critical, false,
        "destroys infrastructure, cluster or cloud resources";
    CONTAINER_DATA_DESTRUCTION = "container-data-destruction", Critical, false,
        "removes containers, images or volumes wholesale";
    PRODUCTION_DEPLOYMENT = "production-deployment", Critical, false,
        "deploys or publishes to production";
    DYNAMIC_CODE_EXECUTION = "dynamic-code-execution", Critical, false,
        "runs code that is encoded, decoded or built at run time";
    CREDENTIAL_EXFILTRATION = "credential-exfiltration", Critical, false,
        "reads secrets and sends data over the network";
    DISK_OR_PERMISSION_WIPE = "disk-or-permission-wipe", Critical, false,
        "wipes a disk or rewrites permissions or ownership broadly";
    DATABASE_DESTRUCTION = "database-destruction", Critical, false,
        "drops, truncates or flushes a database";
    SYSTEM_LOCATION_WRITE = "system-location-write", Critical, false,
        "writes to a credential or system location";
    SELF_PROTECTION = "self-protection", Critical, false,
        "touches the gate's own configuration or the OpenClaw control plane";

    // ---- semantic analysis: what the parameters do (warning) ----
    RECURSIVE_DELETE_SCOPED = "recursive-delete-scoped", Warning, false,
        "recursively deletes a project-scoped location";
    FILE_DELETE = "file-delete", Warning, false,
        "deletes files";
    GIT_FORCE_WITH_LEASE = "git-force-with-lease", Warning, false,
        "force-pushes guarded by a lease";
    GIT_PUSH = "git-push", Warning, true,
        "publishes commits to a remote";
    GIT_DISCARD_CHANGES = "git-discard-changes", Warning, false,
        "discards uncommitted changes to named files";
    PRIVILEGE_ELEVATION = "privilege-elevation", Warning, false,
        "runs with elevated privileges";
    OUTPUT_REDIRECTION = "output-redirection", Warning, true,
        "writes command output to a file";
    DYNAMIC_EXPANSION = "dynamic-expansion", Warning, false,
        "its effect depends on values only known at run time";
    PACKAGE_INSTALL = "package-install", Warning, true,
        "installs packages that may run install scripts";
    NETWORK_MUTATION = "network-mutation", Warning, true,
        "sends data to or changes state on a network service";
    REMOTE_ACCESS = "remote-access", Warning, true,
        "opens or uses a remote shell or file transfer";
    CONTROL_PLANE_CHANGE = "control-plane-change", Warning, true,
        "changes services, schedules, firewall or cluster state";
    INTERPRETER_FILE = "interpreter-file", Warning, true,
        "runs a script file whose content the gate cannot see";
    INLINE_INTERPRETER = "inline-interpreter", Warning, false,
        "runs inline interpreter code";
    HISTORY_TAMPERING = "history-tampering", Warning, false,
        "erases or rewrites shell history";
    LOADER_INJECTION = "loader-injection", Warning, false,
        "changes how programs are loaded (preload, PATH, interpreter options)";
    CREDENTIAL_READ = "credential-read", Warning, false,
        "reads a credential file: its content goes to the model";
    CLOUD_METADATA = "cloud-metadata", Warning, false,
        "reaches a cloud metadata or local admin endpoint";
    FILE_WRITE = "file-write", Warning, true,
        "creates or changes files";
    FILE_MOVE = "file-move", Warning, false,
        "moves or renames files";
    PATH_OUTSIDE_WORKSPACE = "path-outside-workspace", Warning, false,
        "changes a relative path that climbs out of the working directory";

    // ---- semantic analysis: categories (info) ----
    CATEGORY_READ_ONLY = "category-read-only", Info, true,
        "only reads";
    CATEGORY_DEV_BUILD = "category-dev-build", Info, true,
        "builds the project";
    CATEGORY_DEV_TEST = "category-dev-test", Info, true,
        "runs the project's tests";
    CATEGORY_DEV_FORMAT = "category-dev-format", Info, true,
        "formats or lints the project";
    CATEGORY_SOURCE_CONTROL = "category-source-control", Info, true,
        "works with local source control";

    // ---- semantic analysis: what the analysis could not do ----
    ANALYSIS_INCOMPLETE = "analysis-incomplete", Warning, false,
        "part of the input could not be analysed";
    COMMAND_TOO_LONG = "command-too-long", Warning, false,
        "longer than the analysis limit";
    WRAPPER_DEPTH_EXCEEDED = "wrapper-depth-exceeded", Warning, false,
        "nested shells deeper than the analysis limit";
    FINDINGS_TRUNCATED = "findings-truncated", Warning, false,
        "more findings than the limit; the rest are not shown";
    ANALYZER_FAILURE = "analyzer-failure", Warning, false,
        "an analyzer failed";

    // ---- session authority (src/session): what a grant, window, lease or cooldown did ----
    SESSION_LEASE = "session-lease", Info, true,
        "an allow-always lease for the same scope in this session let it pass";
    APPROVAL_WINDOW = "approval-window", Info, true,
        "an approval of the same scope earlier in this turn or time box let it pass";
    EXEC_LEASE = "exec-lease", Info, true,
        "the owner's exec lease for this session let it pass";
    ENVELOPE = "envelope", Info, true,
        "an approved authorization envelope for this run covers this file write";
    ENVELOPE_SHADOW = "envelope-shadow", Info, true,
        "an authorization envelope would cover this call (shadow mode: it still asks)";
    UNATTENDED_PASS = "unattended-pass", Info, true,
        "an unattended session (cron, heartbeat) let it pass without a person";
    UNATTENDED_BLOCK = "unattended-block", Warning, false,
        "nobody can answer in an unattended session, so a call that needs a person is blocked";
    DENY_COOLDOWN = "deny-cooldown", Warning, false,
        "a person denied the same call moments ago, so it is blocked instead of asking again";
    ADAPTIVE_LEASE = "adaptive-lease", Info, true,
        "an adaptive safe-file lease learned from an allow-always let this file write pass";
    ADAPTIVE_LEASE_CANDIDATE = "adaptive-lease-candidate", Info, true,
        "an adaptive safe-file lease would cover this file write (shadow or suggest mode: it still asks)";
    CAPABILITY_REQUEST = "capability-request", Warning, false,
        "asks for an authorization envelope: file writes under one repository root for this run";
    // ---- output guard (src/guard.rs): what a tool result carries; annotated, never gated ----
    OUTPUT_PROMPT_INJECTION = "output-prompt-injection", Warning, false,
        "the tool result holds instructions aimed at the model";
    OUTPUT_ROLE_INJECTION = "output-role-injection", Warning, false,
        "the tool result holds chat role or template markers";
    OUTPUT_CREDENTIAL_LEAK = "output-credential-leak", Warning, false,
        "the tool result holds credentials";
    OUTPUT_ENCODED_PAYLOAD = "output-encoded-payload", Info, false,
        "the tool result holds encoded payloads";
    OUTPUT_METADATA_URL = "output-metadata-url", Warning, false,
        "the tool result names a cloud metadata endpoint";
    OUTPUT_CREDENTIAL_URL = "output-credential-url", Warning, false,
        "the tool result holds URLs that carry credentials";
    OUTPUT_PRIVATE_NETWORK = "output-private-network", Info, false,
        "the tool result discloses private network addresses";
}

/// The table as JSON, for the CLI and the docs: `[{id, severity, reusable, reason}]`.
pub fn table_json() -> String {
    let rows: Vec<serde_json::Value> = TABLE
        .iter()
        .map(|s| {
            serde_json::json!({"id": s.id, "severity": s.severity, "reusable": s.reusable, "reason": s.reason})
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

/// The findings that say the gate could not evaluate all of a call: unreadable or oversized
/// input, an internal error, an analysis limit crossed (length, wrapper depth, findings), an
/// analyzer that failed or could not read part of the input. A decision carrying one is a
/// fail-closed ask (DESIGN invariant 1): where nobody can answer it (an unattended session)
/// it is blocked, never passed.
pub fn leaves_call_unevaluated(id: &str) -> bool {
    [
        &INPUT_MALFORMED,
        &INPUT_TOO_LARGE,
        &INTERNAL_ERROR,
        &ANALYSIS_INCOMPLETE,
        &COMMAND_TOO_LONG,
        &WRAPPER_DEPTH_EXCEEDED,
        &FINDINGS_TRUNCATED,
        &ANALYZER_FAILURE,
    ]
    .iter()
    .any(|s| s.id == id)
}

/// Looks a finding up by ID.
pub fn spec(id: &str) -> Option<&'static FindingSpec> {
    TABLE.iter().copied().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    proptest::proptest! {
        #[test]
        fn the_owned_bound_is_the_borrowed_one(s in "\\PC{0,220}|[ -~]{0,230}|[\x00-\x7f]{0,30}") {
            proptest::prop_assert_eq!(bound_detail_owned(s.clone()), bound_detail(&s));
        }
    }

    #[test]
    fn ids_are_unique_kebab_case_and_reasons_are_one_line() {
        let mut seen = HashSet::new();
        for s in TABLE {
            assert!(seen.insert(s.id), "duplicate finding id {}", s.id);
            assert!(
                s.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                s.id
            );
            assert!(!s.reason.is_empty() && !s.reason.contains('\n'));
        }
    }

    #[test]
    fn details_are_bounded_and_displayable() {
        let f = Finding::new(
            &USER_RULE,
            format!("a\u{1b}[31m\u{202e}{}", "x".repeat(5000)),
        );
        assert_eq!(f.detail.chars().count(), MAX_DETAIL_CHARS);
        assert!(!f.detail.chars().any(|c| c.is_control() || c == '\u{202e}'));
    }

    #[test]
    fn failure_findings_are_never_reusable() {
        for s in [&INPUT_MALFORMED, &INPUT_TOO_LARGE, &INTERNAL_ERROR] {
            assert!(!s.reusable);
        }
        assert_eq!(spec("internal-error"), Some(&INTERNAL_ERROR));
        assert_eq!(spec("nope"), None);
    }
}
