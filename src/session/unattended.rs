//! Unattended contexts: sessions nobody can answer (cron, heartbeat).
//!
//! A session is unattended when its key contains one of `autoPassSessionKeys` as a whole run of
//! `:`-separated segments (`":cron:"` matches `agent:main:cron:job` but not
//! `agent:main:cronjob` or `agent:mycron:x`): an exact segment match, never a substring.
//! There, an approval passes (`unattended-pass`), a critical call is blocked unless
//! `unattendedPolicy.critical` is `"auto"`, a fail-closed approval is blocked (nobody could
//! answer it: DESIGN invariant 1) — also one whose analysis stopped short (a finding of
//! [`crate::finding::leaves_call_unevaluated`]: a limit crossed, unreadable input) — and a
//! block stays a block.

use super::config::SessionConfig;
use crate::decision::{Class, Decision, Severity, Source};
use crate::finding::{self, Finding};

/// True when `session_key` names an unattended session: some pattern's segments appear as
/// consecutive `:`-separated segments of the key. (Read in place, the key's segments once for
/// all patterns: it runs on every call.)
pub fn is_unattended(session_key: &str, cfg: &SessionConfig) -> bool {
    let pats = &cfg.auto_pass_session_keys;
    if pats.is_empty() {
        return false;
    }
    // A run can start only at a segment equal to a pattern's first: lengths are compared
    // before any bytes, so most segments cost no comparison. (Byte loops, not `str::find`:
    // keys and segments are a few bytes, where the searcher's setup costs more than the scan.)
    let bytes = session_key.as_bytes();
    let mut start = 0;
    loop {
        let end = bytes
            .get(start..)
            .and_then(|rest| rest.iter().position(|&b| b == b':'))
            .map_or(bytes.len(), |i| start + i);
        let segment = bytes.get(start..end).unwrap_or(&[]);
        for pat in pats {
            if pat.first().is_some_and(|first| first.as_bytes() == segment)
                // A pattern segment holding `:` equals no segment of the key.
                && !pat.iter().any(|p| p.bytes().any(|b| b == b':'))
                && run_at(session_key.get(start..).unwrap_or(""), pat)
            {
                return true;
            }
        }
        if end >= bytes.len() {
            return false;
        }
        start = end + 1;
    }
}

/// [`is_unattended`] as it was before session 8 (the key's segments read once per pattern):
/// a reference of the tests.
#[cfg(test)]
fn is_unattended_per_pattern(session_key: &str, cfg: &SessionConfig) -> bool {
    cfg.auto_pass_session_keys
        .iter()
        .any(|pat| !pat.is_empty() && has_run(session_key, pat))
}

/// Whether `pat` is a run of consecutive segments of `key`, trying a run from each segment.
#[cfg(test)]
fn has_run(key: &str, pat: &[String]) -> bool {
    if pat.iter().any(|p| p.bytes().any(|b| b == b':')) {
        return false;
    }
    let Some(first) = pat.first() else {
        return false;
    };
    let bytes = key.as_bytes();
    let mut start = 0;
    loop {
        let end = bytes
            .get(start..)
            .and_then(|rest| rest.iter().position(|&b| b == b':'))
            .map_or(bytes.len(), |i| start + i);
        if end - start == first.len()
            && bytes.get(start..end) == Some(first.as_bytes())
            && run_at(key.get(start..).unwrap_or(""), pat)
        {
            return true;
        }
        if end >= bytes.len() {
            return false;
        }
        start = end + 1;
    }
}

/// Whether the segments at the start of `rest` are `pat` (segments without `:`).
fn run_at(mut rest: &str, pat: &[String]) -> bool {
    let mut segs = pat.iter().peekable();
    while let Some(p) = segs.next() {
        let Some(after) = rest.strip_prefix(p.as_str()) else {
            return false;
        };
        if segs.peek().is_none() {
            return after.is_empty() || after.starts_with(':');
        }
        match after.strip_prefix(':') {
            Some(next) => rest = next,
            None => return false,
        }
    }
    true
}

/// Applies the unattended policy to a decision of an unattended session.
pub fn apply(d: &mut Decision, cfg: &SessionConfig) {
    let fail_closed = d.source == Source::FailClosed;
    // An ask whose analysis stopped short (a limit crossed, an unterminated quote, an analyzer
    // that failed: `true; … rm -rf /` past the length limit) is as unevaluated as an
    // unreadable request: passing it would fail open.
    let unevaluated = d.unevaluated();
    match d.decision {
        Class::Auto | Class::Block => {}
        Class::Approval if !unevaluated => pass(
            d,
            "unattended session: no person can answer, and the call is not critical",
        ),
        Class::Critical if cfg.unattended_critical_auto && !unevaluated => pass(
            d,
            "unattended session: critical calls pass (unattendedPolicy.critical: auto)",
        ),
        Class::Approval | Class::Critical => {
            let what = if fail_closed {
                "the gate could not evaluate the call"
            } else if unevaluated {
                "the gate could not analyse all of the call"
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

    /// [`is_unattended`] as it was: the key's segments collected, then every window.
    fn reference_is_unattended(session_key: &str, cfg: &SessionConfig) -> bool {
        let segs: Vec<&str> = session_key.split(':').collect();
        cfg.auto_pass_session_keys.iter().any(|pat| {
            !pat.is_empty()
                && segs
                    .windows(pat.len())
                    .any(|w| w.iter().zip(pat).all(|(a, b)| *a == b.as_str()))
        })
    }

    proptest::proptest! {
        #[test]
        fn in_place_runs_are_the_windows(
            key in "[ab:]{0,12}|[a-c:x]{0,20}|\\PC{0,12}",
            pats in proptest::collection::vec(proptest::collection::vec("[ab]{0,2}|:|", 0..4), 0..4),
        ) {
            let mut cfg = SessionConfig::default();
            for pats in [pats, SessionConfig::default().auto_pass_session_keys] {
                cfg.auto_pass_session_keys = pats;
                proptest::prop_assert_eq!(
                    is_unattended(&key, &cfg),
                    reference_is_unattended(&key, &cfg),
                    "{:?} {:?}", key, cfg.auto_pass_session_keys
                );
                proptest::prop_assert_eq!(
                    is_unattended(&key, &cfg),
                    is_unattended_per_pattern(&key, &cfg),
                    "{:?} {:?}", key, cfg.auto_pass_session_keys
                );
            }
        }
    }

    #[test]
    fn in_place_runs_are_the_windows_on_the_corpus_keys() {
        let cfg = SessionConfig::default();
        let mut keys: Vec<String> = crate::testing::secret_texts();
        keys.extend(crate::testing::fuzz_regression_texts());
        keys.extend(
            [
                "",
                ":",
                "::",
                "cron",
                ":cron",
                "cron:",
                "a::cron::b",
                "heartbeat:cron",
            ]
            .map(str::to_owned),
        );
        keys.extend(crate::testing::corpus_request_strings());
        keys.extend(
            [
                "agent:main:bench",
                "agent:main:cron:job",
                "agent:heartbeat",
                "a:b:a:b:c",
            ]
            .map(str::to_owned),
        );
        let pattern_sets = [
            cfg.auto_pass_session_keys.clone(),
            vec![
                vec!["a".to_owned(), "b".to_owned()],
                vec!["main".to_owned()],
            ],
            vec![
                vec![],
                vec!["a:b".to_owned()],
                vec!["b".to_owned(), "c".to_owned()],
            ],
        ];
        for pats in pattern_sets {
            let cfg = SessionConfig {
                auto_pass_session_keys: pats,
                ..SessionConfig::default()
            };
            for key in &keys {
                assert_eq!(
                    is_unattended(key, &cfg),
                    reference_is_unattended(key, &cfg),
                    "{key}"
                );
                assert_eq!(
                    is_unattended(key, &cfg),
                    is_unattended_per_pattern(key, &cfg),
                    "{key}"
                );
            }
        }
    }
}
