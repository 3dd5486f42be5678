//! Heuristic verdict tier: every decision carries a risk estimate for people and for the judge.
//!
//! The tiers follow the seed's calibration: critical 0.90 deny, high 0.80 review, medium 0.70
//! review, low 0.85 approve, and an unmatched call medium 0.50 review. This module maps what the
//! deterministic core decided to that scale; it never changes the decision itself.

use crate::decision::{Class, Severity, Source};
use crate::finding::Finding;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    None,
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recommendation {
    Approve,
    Review,
    Deny,
}

impl Level {
    /// The level as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
            Level::Critical => "critical",
        }
    }
}

impl Recommendation {
    /// The recommendation as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Approve => "approve",
            Recommendation::Review => "review",
            Recommendation::Deny => "deny",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    pub level: Level,
    pub confidence: f64,
    pub recommendation: Recommendation,
    /// The ids of the findings that count (the finding table's own `&'static str`s: no
    /// copies per decision).
    pub evidence: Vec<&'static str>,
}

impl Risk {
    fn tier(level: Level, evidence: Vec<&'static str>) -> Risk {
        let (confidence, recommendation) = match level {
            Level::Critical => (0.90, Recommendation::Deny),
            Level::High => (0.80, Recommendation::Review),
            Level::Medium => (0.70, Recommendation::Review),
            Level::Low => (0.85, Recommendation::Approve),
            Level::None => (0.85, Recommendation::Approve),
        };
        Risk {
            level,
            confidence,
            recommendation,
            evidence,
        }
    }

    /// Nothing matched the call: medium, 0.50, review.
    pub fn unmatched() -> Risk {
        Risk {
            level: Level::Medium,
            confidence: 0.50,
            recommendation: Recommendation::Review,
            evidence: vec![],
        }
    }

    /// Estimates risk from the decided class, its source and its findings. Each finding's level
    /// comes from the finding table itself: critical findings are critical, warnings that may
    /// not be reused (destructive or unverifiable effects) are high, other warnings medium,
    /// information low. The decided class is a floor (block and critical are critical); a call
    /// nothing recognized is medium at 0.50.
    pub fn assess(class: Class, severity: Severity, source: Source, findings: &[Finding]) -> Risk {
        let evidence: Vec<&'static str> = findings
            .iter()
            .filter(|f| f.severity > Severity::Info || findings.len() == 1)
            .map(|f| f.id)
            .collect();
        Risk {
            evidence,
            ..Risk::assess_without_evidence(class, severity, source, findings)
        }
    }

    /// [`Risk::assess`] with no evidence: level, confidence and recommendation (for a caller
    /// that reads only those: the gate hook's host view and record).
    pub fn assess_without_evidence(
        class: Class,
        severity: Severity,
        source: Source,
        findings: &[Finding],
    ) -> Risk {
        let evidence = Vec::new();
        let from_findings = findings.iter().map(level_of).max().unwrap_or(Level::Low);
        let floor = match (class, severity) {
            (Class::Block, _) | (Class::Critical, _) | (_, Severity::Critical) => Level::Critical,
            (Class::Approval, _) => Level::Medium,
            (Class::Auto, _) => Level::Low,
        };
        let level = from_findings.max(floor);
        if (source == Source::Default || source == Source::FailClosed) && level <= Level::Medium {
            let mut r = Risk::unmatched();
            r.evidence = evidence;
            return r;
        }
        Risk::tier(level, evidence)
    }
}

/// A finding's risk level, from its row in the finding table.
pub fn level_of(f: &Finding) -> Level {
    match f.severity {
        Severity::Critical => Level::Critical,
        Severity::Warning if !f.reusable() => Level::High,
        Severity::Warning => Level::Medium,
        Severity::Info => Level::Low,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_serialized_names() {
        for l in [
            Level::None,
            Level::Low,
            Level::Medium,
            Level::High,
            Level::Critical,
        ] {
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
        }
        for r in [
            Recommendation::Approve,
            Recommendation::Review,
            Recommendation::Deny,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }

    #[test]
    fn calibration_matches_the_seed() {
        let r = Risk::assess(Class::Critical, Severity::Critical, Source::Rule, &[]);
        assert_eq!(
            (r.level, r.confidence, r.recommendation),
            (Level::Critical, 0.90, Recommendation::Deny)
        );
        let r = Risk::assess(Class::Approval, Severity::Warning, Source::ToolKind, &[]);
        assert_eq!(
            (r.level, r.confidence, r.recommendation),
            (Level::Medium, 0.70, Recommendation::Review)
        );
        let r = Risk::assess(Class::Auto, Severity::Info, Source::Classifier, &[]);
        assert_eq!(
            (r.level, r.confidence, r.recommendation),
            (Level::Low, 0.85, Recommendation::Approve)
        );
        let r = Risk::assess(Class::Approval, Severity::Warning, Source::Default, &[]);
        assert_eq!(
            (r.level, r.confidence, r.recommendation),
            (Level::Medium, 0.50, Recommendation::Review)
        );
    }

    #[test]
    fn levels_come_from_the_finding_table() {
        use crate::finding::{self, Finding};
        let lease = Finding::new(&finding::GIT_FORCE_WITH_LEASE, String::new());
        let r = Risk::assess(
            Class::Approval,
            Severity::Warning,
            Source::ToolKind,
            &[lease],
        );
        assert_eq!((r.level, r.confidence), (Level::High, 0.80));
        assert_eq!(r.evidence, ["git-force-with-lease"]);
        let push = Finding::new(&finding::GIT_PUSH, String::new());
        let r = Risk::assess(
            Class::Approval,
            Severity::Warning,
            Source::ToolKind,
            &[push],
        );
        assert_eq!(r.level, Level::Medium);
        let wipe = Finding::new(&finding::DISK_OR_PERMISSION_WIPE, String::new());
        let r = Risk::assess(Class::Approval, Severity::Warning, Source::Rule, &[wipe]);
        assert_eq!(r.recommendation, Recommendation::Deny);
        let read = Finding::new(&finding::CATEGORY_READ_ONLY, String::new());
        let r = Risk::assess(Class::Auto, Severity::Info, Source::ToolKind, &[read]);
        assert_eq!(
            (r.level, r.recommendation),
            (Level::Low, Recommendation::Approve)
        );
    }
}
