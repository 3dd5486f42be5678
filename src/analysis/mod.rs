//! Semantic analysis of a call's parameters (shell commands in three dialects, Code Mode
//! source, file mutations, reads of credentials). Analyzers only ever add findings; the
//! reducer may only raise the policy decision, never lower it.
//!
//! Work in progress (issue 3): the pieces land module by module with their own tests; the
//! reducer that wires them into the gate comes last.

pub mod code;
pub mod dispatch;
pub mod files;
pub mod paths;
pub mod reads;
pub mod shell;

use crate::finding::Finding;

/// Analysis limits (`semanticAnalysis` config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest command / source text analysed, in bytes (16384).
    pub max_command_length: usize,
    /// Nested `sh -c` / `cmd /c` / `pwsh -Command` / `eval` levels followed (3).
    pub max_wrapper_depth: usize,
    /// Findings kept per call (8); more adds `findings-truncated`.
    pub max_findings: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_command_length: 16_384,
            max_wrapper_depth: 3,
            max_findings: 8,
        }
    }
}

/// What one analyzer found in one call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// False when anything was not understood (unsupported syntax, a limit, a dynamic value
    /// that decides the effect). An incomplete report always carries a finding saying why.
    pub complete: bool,
    /// True when everything analysed only reads (no writes, no network mutation, no
    /// redirection, no substitution).
    pub read_only: bool,
    /// Verified absolute targets (files or directories) the call acts on, normalized.
    pub targets: Vec<String>,
    /// True when the call also acts on a target that is not absolute (relative, so not in
    /// `targets`): session authority never reuses an approval scoped by such a call.
    pub relative_targets: bool,
    /// Findings left out because [`MAX_PER_ID`] of their id were already there (counted in
    /// the `findings-truncated` detail).
    pub capped: usize,
}

/// Most findings of one id a report keeps (the most `maxFindings` can ever show). More of
/// the same id change nothing the decision is made of (severity, reusability, completeness),
/// and a 16 KB line of 800 scoped deletes would otherwise compare every new finding with all
/// the others (quadratic: half of that call's time).
pub const MAX_PER_ID: usize = 64;

impl Report {
    /// An empty, complete report.
    pub fn clean() -> Report {
        Report {
            complete: true,
            ..Report::default()
        }
    }

    /// Adds a finding unless one with the same id and detail is already there, or
    /// [`MAX_PER_ID`] findings of its id are (then it is counted in `capped`).
    pub fn add(&mut self, finding: Finding) {
        let mut same_id = 0;
        for f in &self.findings {
            if f.id == finding.id {
                if f.detail == finding.detail {
                    return;
                }
                same_id += 1;
            }
        }
        if same_id >= MAX_PER_ID {
            self.capped = self.capped.saturating_add(1);
        } else {
            self.findings.push(finding);
        }
    }

    /// Folds another report into this one (for nested payloads and multi-part calls).
    pub fn merge(&mut self, other: Report) {
        for f in other.findings {
            self.add(f);
        }
        self.capped = self.capped.saturating_add(other.capped);
        self.complete &= other.complete;
        self.read_only &= other.read_only;
        self.relative_targets |= other.relative_targets;
        for t in other.targets {
            if !self.targets.contains(&t) {
                self.targets.push(t);
            }
        }
    }
}
