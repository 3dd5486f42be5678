//! Unattended contexts: sessions nobody can answer (cron, heartbeat).
//!
//! A session is unattended when its key contains one of `autoPassSessionKeys` as a whole run of
//! `:`-separated segments (`":cron:"` matches `agent:main:cron:job` but not
//! `agent:main:cronjob` or `agent:mycron:x`): an exact segment match, never a substring.
//! There, an approval passes (`unattended-pass`), a critical call is blocked unless
//! `unattendedPolicy.critical` is `"auto"`, a fail-closed approval is blocked (nobody could
//! answer it: DESIGN invariant 1), and a block stays a block.

use super::config::SessionConfig;
use crate::decision::{Class, Decision, Severity, Source};
use crate::finding::{self, Finding};

/// True when `session_key` names an unattended session.
pub fn is_unattended(session_key: &str, cfg: &SessionConfig) -> bool {
    let segs: Vec<&str> = session_key.split(':').collect();
    cfg.auto_pass_session_keys.iter().any(|pat| {
        !pat.is_empty()
            && segs
                .windows(pat.len())
                .any(|w| w.iter().zip(pat).all(|(a, b)| *a == b.as_str()))
    })
}

/// Applies the unattended policy to a decision of an unattended session.
pub fn apply(d: &mut Decision, cfg: &SessionConfig) {
    let fail_closed = d.source == Source::FailClosed;
    match d.decision {
        Class::Auto | Class::Block => {}
        Class::Approval if !fail_closed => pass(
            d,
            "unattended session: no person can answer, and the call is not critical",
        ),
        Class::Critical if cfg.unattended_critical_auto && !fail_closed => pass(
            d,
            "unattended session: critical calls pass (unattendedPolicy.critical: auto)",
        ),
        Class::Approval | Class::Critical => {
            let what = if fail_closed {
                "the gate could not evaluate the call"
            } else {
                "the call is critical"
            };
            d.findings.push(Finding::new(
                &finding::UNATTENDED_BLOCK,
                format!("unattended session; {what}"),
            ));
            d.raise(Class::Block, Severity::Warning);
            d.reason = format!(
                "Blocked: this is an unattended session (cron or heartbeat) and {what}, so nobody could approve it"
            );
            if !fail_closed {
                d.source = Source::Unattended;
            }
            d.normalize();
        }
    }
}

fn pass(d: &mut Decision, why: &str) {
    d.findings
        .push(Finding::new(&finding::UNATTENDED_PASS, why.to_owned()));
    d.decision = Class::Auto;
    d.severity = Severity::Info;
    d.source = Source::Unattended;
    d.reason = format!("Allowed: {why}");
    d.normalize();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_segment_match_not_substring() {
        let cfg = SessionConfig::default();
        for key in [
            "agent:main:cron:job-1",
            "cron:x",
            "agent:main:heartbeat",
            "a:heartbeat:b",
        ] {
            assert!(is_unattended(key, &cfg), "{key}");
        }
        for key in [
            "agent:main:cronjob",
            "agent:mycron:x",
            "agent:main:heartbeats",
            "agent:main:x",
            "",
        ] {
            assert!(!is_unattended(key, &cfg), "{key}");
        }
        let (c, e) = crate::config::Config::from_json(r#"{"autoPassSessionKeys":["a:b"]}"#);
        assert!(e.is_empty());
        assert!(is_unattended("x:a:b:y", &c.session));
        assert!(!is_unattended("x:a:y:b", &c.session));
        assert!(!is_unattended("x:ab", &c.session));
    }
}
