//! The decision the gate hands back for one tool call, and the vocabulary it is made of.
//!
//! `Class` is ordered from most permissive to most restrictive, and [`Decision::raise`] is the
//! one monotone combinator: anything that adds an opinion (a finding, an analyzer, a judge) can
//! only move a decision up that order, never down. Serialization is the published contract
//! (`schemas/decision.schema.json`).

use crate::finding::Finding;
use crate::risk::Risk;
use serde::Serialize;

/// What happens to the call, from most permissive to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Runs without asking.
    Auto,
    /// Asks a human; allow-always may be offered; reusable by session authority.
    Approval,
    /// Asks a human; never allow-always, never reused, blocked when unattended.
    Critical,
    /// Refused without asking.
    Block,
}

/// Severity, as OpenClaw's approval UI shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Class {
    /// The class as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Auto => "auto",
            Class::Approval => "approval",
            Class::Critical => "critical",
            Class::Block => "block",
        }
    }
}

impl Severity {
    /// The severity as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "critical" => Some(Severity::Critical),
            _ => None,
        }
    }
}

/// An answer a human may give to an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    AllowOnce,
    AllowAlways,
    Deny,
}

impl Resolution {
    pub const ALL: [Resolution; 3] = [
        Resolution::AllowOnce,
        Resolution::AllowAlways,
        Resolution::Deny,
    ];

    /// The answer as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::AllowOnce => "allow-once",
            Resolution::AllowAlways => "allow-always",
            Resolution::Deny => "deny",
        }
    }

    pub fn parse(s: &str) -> Option<Resolution> {
        match s {
            "allow-once" => Some(Resolution::AllowOnce),
            "allow-always" => Some(Resolution::AllowAlways),
            "deny" => Some(Resolution::Deny),
            _ => None,
        }
    }
}

/// Which step of the policy order produced the base decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Rule,
    ToolKind,
    Classifier,
    Default,
    FailClosed,
    /// Session authority: an allow-always lease passed the call.
    SessionLease,
    /// Session authority: an approval window passed the call.
    ApprovalWindow,
    /// Session authority: the owner's exec lease passed the call.
    ExecLease,
    /// Session authority: an authorization envelope passed the call.
    Envelope,
    /// Session authority: an adaptive safe-file lease passed the call.
    AdaptiveLease,
    /// Session authority: a recent deny turned the ask into a block.
    DenyCooldown,
    /// The unattended policy (cron, heartbeat) passed or blocked the call.
    Unattended,
}

impl Source {
    /// Every source, in declaration order.
    pub const ALL: [Source; 12] = [
        Source::Rule,
        Source::ToolKind,
        Source::Classifier,
        Source::Default,
        Source::FailClosed,
        Source::SessionLease,
        Source::ApprovalWindow,
        Source::ExecLease,
        Source::Envelope,
        Source::AdaptiveLease,
        Source::DenyCooldown,
        Source::Unattended,
    ];

    /// The source as the decision JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Rule => "rule",
            Source::ToolKind => "tool-kind",
            Source::Classifier => "classifier",
            Source::Default => "default",
            Source::FailClosed => "fail-closed",
            Source::SessionLease => "session-lease",
            Source::ApprovalWindow => "approval-window",
            Source::ExecLease => "exec-lease",
            Source::Envelope => "envelope",
            Source::AdaptiveLease => "adaptive-lease",
            Source::DenyCooldown => "deny-cooldown",
            Source::Unattended => "unattended",
        }
    }
}

/// The approval prompt as the host shows it, already bounded and sanitized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    pub title: String,
    pub description: String,
}

/// One decision, exactly as the shim maps it to the host and the CLI prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub decision: Class,
    pub severity: Severity,
    pub reason: String,
    pub source: Source,
    pub rule_id: Option<String>,
    pub findings: Vec<Finding>,
    pub reusable: bool,
    pub allowed_decisions: Vec<Resolution>,
    pub timeout_ms: u32,
    pub risk: Risk,
    pub preview: Preview,
}

/// The decision as the shim's host mapping reads it (`Engine.decideForHook`,
/// docs/core-api.md): the class; for an approval or critical also severity, allowed answers,
/// timeout and preview (the prompt shows the preview, never the reason); for a block its
/// reason. Same names and values as in the full decision; the rest (findings, risk, source,
/// rule, reusability) goes to the audit record. [`Decision::host_json`] writes it by hand;
/// this serde form is the reference the tests hold it to.
#[cfg(test)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HostView<'a> {
    decision: Class,
    #[serde(skip_serializing_if = "Option::is_none")]
    severity: Option<Severity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_decisions: Option<&'a [Resolution]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preview: Option<&'a Preview>,
}

impl Decision {
    /// The host view (see `HostView`) as ASCII JSON: what `crate::json::to_ascii_string`
    /// writes for it, field by field without the serializer (it never fails; the `Result`
    /// is the contract `audit::decide_for_hook` reads).
    pub fn host_json(&self) -> Result<String, String> {
        let mut out = String::with_capacity(self.host_json_capacity());
        self.push_host_json(&mut out);
        Ok(out)
    }

    /// Room for [`Decision::host_json`]'s text: the fixed part, the texts, and their escapes
    /// (a line break takes two bytes, a bullet six for its three).
    pub fn host_json_capacity(&self) -> usize {
        let texts = self.preview.title.len() + self.preview.description.len() + self.reason.len();
        128 + texts + texts / 4
    }

    /// Appends [`Decision::host_json`]'s text to `out` (the hook's answer is written in one
    /// string: `audit::decide_for_hook`).
    pub fn push_host_json(&self, out: &mut String) {
        use crate::json::{push_ascii_str, push_u64};
        let asks = matches!(self.decision, Class::Approval | Class::Critical);
        out.push_str("{\"decision\":\"");
        out.push_str(self.decision.as_str());
        out.push('"');
        if asks {
            out.push_str(",\"severity\":\"");
            out.push_str(self.severity.as_str());
            out.push('"');
        }
        if self.decision == Class::Block {
            out.push_str(",\"reason\":");
            push_ascii_str(out, &self.reason);
        }
        if asks {
            out.push_str(",\"allowedDecisions\":[");
            for (i, r) in self.allowed_decisions.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                out.push_str(r.as_str());
                out.push('"');
            }
            out.push_str("],\"timeoutMs\":");
            push_u64(out, u64::from(self.timeout_ms));
            out.push_str(",\"preview\":{\"title\":");
            push_ascii_str(out, &self.preview.title);
            out.push_str(",\"description\":");
            push_ascii_str(out, &self.preview.description);
            out.push('}');
        }
        out.push('}');
    }

    /// The host view through serde (`HostView`): the reference for [`Decision::host_json`].
    #[cfg(test)]
    pub(crate) fn host_json_serde(&self) -> Result<String, String> {
        let asks = matches!(self.decision, Class::Approval | Class::Critical);
        let view = HostView {
            decision: self.decision,
            severity: asks.then_some(self.severity),
            reason: (self.decision == Class::Block).then_some(self.reason.as_str()),
            allowed_decisions: asks.then_some(self.allowed_decisions.as_slice()),
            timeout_ms: asks.then_some(self.timeout_ms),
            preview: asks.then_some(&self.preview),
        };
        crate::json::to_ascii_string(&view)
    }

    /// The gate could not evaluate all of the call: it failed closed, or a finding says the
    /// analysis stopped short ([`crate::finding::leaves_call_unevaluated`]). Such an ask is
    /// never passed without a person: no grant covers it, and an unattended session blocks it
    /// (DESIGN invariant 1).
    pub fn unevaluated(&self) -> bool {
        self.source == Source::FailClosed
            || self
                .findings
                .iter()
                .any(|f| crate::finding::leaves_call_unevaluated(f.id))
    }

    /// Moves the decision to at least `class` and `severity`; never lowers either. Raising to
    /// critical drops allow-always; raising past approval clears reusability.
    pub fn raise(&mut self, class: Class, severity: Severity) {
        if class > self.decision {
            self.decision = class;
        }
        if severity > self.severity {
            self.severity = severity;
        }
        if self.decision == Class::Critical && self.severity < Severity::Critical {
            self.severity = Severity::Critical;
        }
        self.normalize();
    }

    /// Re-establishes the class invariants: what may be offered and what may be reused.
    pub fn normalize(&mut self) {
        match self.decision {
            Class::Auto | Class::Block => self.allowed_decisions.clear(),
            Class::Approval => {
                if self.allowed_decisions.is_empty() {
                    self.allowed_decisions = Resolution::ALL.to_vec();
                }
            }
            Class::Critical => {
                self.allowed_decisions
                    .retain(|r| *r != Resolution::AllowAlways);
                if self.allowed_decisions.is_empty() {
                    self.allowed_decisions = vec![Resolution::AllowOnce, Resolution::Deny];
                }
            }
        }
        if !self.allowed_decisions.contains(&Resolution::Deny) && !self.allowed_decisions.is_empty()
        {
            self.allowed_decisions.push(Resolution::Deny);
        }
        self.reusable = self.decision == Class::Approval
            && self.source != Source::FailClosed
            && self.findings.iter().all(|f| f.reusable());
        if !self.reusable {
            self.allowed_decisions
                .retain(|r| *r != Resolution::AllowAlways);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{self, Finding};
    use crate::risk::Risk;

    fn base(class: Class) -> Decision {
        let mut d = Decision {
            decision: class,
            severity: Severity::Warning,
            reason: String::new(),
            source: Source::Default,
            rule_id: None,
            findings: vec![],
            reusable: false,
            allowed_decisions: Resolution::ALL.to_vec(),
            timeout_ms: 120_000,
            risk: Risk::unmatched(),
            preview: Preview {
                title: String::new(),
                description: String::new(),
            },
        };
        d.normalize();
        d
    }

    #[test]
    fn labels_are_the_serialized_names() {
        for c in [Class::Auto, Class::Approval, Class::Critical, Class::Block] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        for s in [Severity::Info, Severity::Warning, Severity::Critical] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        for r in Resolution::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        for s in Source::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        // ALL holds every variant: a new one must be added there (this match is exhaustive).
        for s in Source::ALL {
            let listed = match s {
                Source::Rule
                | Source::ToolKind
                | Source::Classifier
                | Source::Default
                | Source::FailClosed
                | Source::SessionLease
                | Source::ApprovalWindow
                | Source::ExecLease
                | Source::Envelope
                | Source::AdaptiveLease
                | Source::DenyCooldown
                | Source::Unattended => true,
            };
            assert!(listed);
        }
        let distinct: std::collections::HashSet<_> =
            Source::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(distinct.len(), Source::ALL.len());
    }

    #[test]
    fn the_host_view_is_written_as_serde_writes_it() {
        let texts = [
            "",
            "plain",
            "q\"b\\n\nt\tc\u{1}\u{7f}",
            "• bullet … é \u{2028} \u{1F600}",
        ];
        let answers: [&[Resolution]; 4] = [
            &[],
            &[Resolution::Deny],
            &[Resolution::AllowOnce, Resolution::Deny],
            &Resolution::ALL,
        ];
        for class in [Class::Auto, Class::Approval, Class::Critical, Class::Block] {
            for severity in [Severity::Info, Severity::Warning, Severity::Critical] {
                for (i, text) in texts.iter().enumerate() {
                    let mut d = base(class);
                    d.severity = severity;
                    d.reason = format!("{text} reason");
                    d.preview.title = (*text).to_owned();
                    d.preview.description = texts[(i + 1) % texts.len()].to_owned();
                    d.allowed_decisions = answers[i % answers.len()].to_vec();
                    d.timeout_ms = [0, 1, 120_000, u32::MAX][i % 4];
                    assert_eq!(d.host_json(), d.host_json_serde());
                }
            }
        }
    }

    #[test]
    fn classes_are_ordered_by_restrictiveness() {
        assert!(Class::Auto < Class::Approval);
        assert!(Class::Approval < Class::Critical);
        assert!(Class::Critical < Class::Block);
    }

    #[test]
    fn raise_never_lowers() {
        let mut d = base(Class::Critical);
        d.raise(Class::Auto, Severity::Info);
        assert_eq!(d.decision, Class::Critical);
        assert_eq!(d.severity, Severity::Critical);
        let mut b = base(Class::Block);
        b.raise(Class::Approval, Severity::Warning);
        assert_eq!(b.decision, Class::Block);
    }

    #[test]
    fn critical_never_offers_allow_always_and_is_not_reusable() {
        let mut d = base(Class::Approval);
        assert!(d.allowed_decisions.contains(&Resolution::AllowAlways));
        assert!(d.reusable);
        d.raise(Class::Critical, Severity::Warning);
        assert!(!d.allowed_decisions.contains(&Resolution::AllowAlways));
        assert!(d.allowed_decisions.contains(&Resolution::Deny));
        assert!(!d.reusable);
        assert_eq!(d.severity, Severity::Critical);
    }

    #[test]
    fn a_non_reusable_finding_makes_the_approval_non_reusable() {
        let mut d = base(Class::Approval);
        d.findings
            .push(Finding::new(&finding::INPUT_MALFORMED, "x".into()));
        d.normalize();
        assert!(!d.reusable);
        assert!(!d.allowed_decisions.contains(&Resolution::AllowAlways));
    }

    #[test]
    fn deny_is_always_offered_when_asking() {
        let mut d = base(Class::Approval);
        d.allowed_decisions = vec![Resolution::AllowOnce];
        d.normalize();
        assert!(d.allowed_decisions.contains(&Resolution::Deny));
    }

    #[test]
    fn auto_and_block_offer_nothing() {
        assert!(base(Class::Auto).allowed_decisions.is_empty());
        assert!(base(Class::Block).allowed_decisions.is_empty());
        assert!(!base(Class::Block).reusable);
        assert!(!base(Class::Auto).reusable);
    }
}
