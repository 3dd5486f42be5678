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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    pub level: Level,
    pub confidence: f64,
    pub recommendation: Recommendation,
    pub evidence: Vec<String>,
}

impl Risk {
    fn tier(level: Level, evidence: Vec<String>) -> Risk {
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

    /// Estimates risk from the decided class, its severity, its source and its findings.
    pub fn assess(class: Class, severity: Severity, source: Source, findings: &[Finding]) -> Risk {
        let evidence: Vec<String> = findings.iter().map(|f| f.id.to_owned()).collect();
        if source == Source::Default || source == Source::FailClosed {
            let mut r = Risk::unmatched();
            r.evidence = evidence;
            if class >= Class::Critical {
                return Risk::tier(Level::Critical, r.evidence);
            }
            return r;
        }
        let level = match (class, severity) {
            (Class::Block, _) | (Class::Critical, _) | (_, Severity::Critical) => Level::Critical,
            (Class::Approval, Severity::Warning) => Level::Medium,
            (Class::Approval, Severity::Info) => Level::Low,
            (Class::Auto, _) => Level::Low,
        };
        Risk::tier(level, evidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
