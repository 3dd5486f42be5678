//! Adaptive safe-file lease (experimental; `adaptiveFileLease.mode` off | shadow | suggest |
//! enforce, off by default).
//!
//! Learned only from an allow-always (never from allow-once, nor when `rememberAllowAlways` is
//! false) of a completely analysed, non-destructive structured file write whose every target is
//! absolute and outside `.git` ([`Scope::safe_file`]). It then covers such writes in the same
//! directories *and below them* — broader than the path-bound lease, so it is finite-use
//! (`uses`) and short-lived (`ttlMs`). Never shell, Code Mode, Git's own directory, network,
//! deletes, moves or critical calls (none of those has `safe_file`).
//!
//! `shadow` notes a would-be pass (finding `adaptive-lease-candidate`), `suggest` also tells
//! the person in the prompt, `enforce` passes the call (source `adaptive-lease`) and spends a use.

use crate::scope::{is_under, Scope};

/// One learned lease.
#[derive(Debug, Clone, PartialEq)]
pub struct Adaptive {
    pub roots: Vec<String>,
    pub uses_left: u32,
    pub until: f64,
}

impl Adaptive {
    /// True when this lease covers a call with `scope` at time `t`.
    pub fn covers(&self, scope: &Scope, t: f64) -> bool {
        t < self.until
            && self.uses_left > 0
            && scope.safe_file
            && !scope.dirs.is_empty()
            && scope
                .dirs
                .iter()
                .all(|d| self.roots.iter().any(|r| is_under(d, r)))
    }
}

/// The prompt hint of `suggest` mode.
pub const SUGGEST_HINT: &str = "Suggestion: this looks like the safe file writes you allowed always earlier in this session (an adaptive lease would cover it).\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(dirs: &[&str], safe: bool) -> Scope {
        Scope {
            dirs: dirs.iter().map(|d| (*d).to_owned()).collect(),
            safe_file: safe,
            ..Scope::default()
        }
    }

    #[test]
    fn covers_the_learned_directories_and_below_for_a_few_uses_only() {
        let a = Adaptive {
            roots: vec!["/w/p".to_owned()],
            uses_left: 1,
            until: 100.0,
        };
        assert!(a.covers(&scope(&["/w/p"], true), 0.0));
        assert!(a.covers(&scope(&["/w/p/sub"], true), 0.0));
        assert!(!a.covers(&scope(&["/w/p", "/w/q"], true), 0.0));
        assert!(!a.covers(&scope(&["/w/p"], false), 0.0));
        assert!(!a.covers(&scope(&[], true), 0.0));
        assert!(!a.covers(&scope(&["/w/p"], true), 100.0));
        let spent = Adaptive { uses_left: 0, ..a };
        assert!(!spent.covers(&scope(&["/w/p"], true), 0.0));
    }
}
