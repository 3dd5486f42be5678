//! The one table of finding IDs.
//!
//! Every finding the core can emit is declared here once, with its default severity, whether an
//! approval carrying it may be reused, and a one-line reason for people. Analyzers, docs and
//! tests refer to findings by these IDs, never by message text. The shim's own fail-closed
//! answer uses [`INTERNAL_ERROR`]'s ID so that it, too, comes from this table.

use crate::decision::Severity;
use serde::Serialize;

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
    pub fn new(spec: &'static FindingSpec, detail: String) -> Finding {
        Finding {
            id: spec.id,
            severity: spec.severity,
            detail,
            reusable: spec.reusable,
        }
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
}

/// Looks a finding up by ID.
pub fn spec(id: &str) -> Option<&'static FindingSpec> {
    TABLE.iter().copied().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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
    fn failure_findings_are_never_reusable() {
        for s in [&INPUT_MALFORMED, &INPUT_TOO_LARGE, &INTERNAL_ERROR] {
            assert!(!s.reusable);
        }
        assert_eq!(spec("internal-error"), Some(&INTERNAL_ERROR));
        assert_eq!(spec("nope"), None);
    }
}
