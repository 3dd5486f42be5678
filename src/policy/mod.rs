//! The policy order: first matching user rule → built-in destructive tool kinds → name-token
//! classifier → `defaultMode` (fail-closed: `require-approval` unless configured otherwise).
//!
//! This step only produces the base verdict; analyzers and session authority act on it later
//! and may only raise it. Its texts are joined by [`join`] rather than `format!`: it runs on every
//! call.

pub mod classifier;
pub mod rules;

use crate::call::Call;
use crate::config::{Config, Mode};
use crate::decision::{Resolution, Severity, Source};
use crate::finding::{self, Finding};
use classifier::NameClass;
use std::borrow::Cow;

/// The base verdict of the policy order.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict<'a> {
    pub mode: Mode,
    pub severity: Severity,
    pub source: Source,
    pub rule_id: Option<String>,
    pub reason: Reason<'a>,
    pub finding: Finding,
    pub allowed_decisions: Option<Vec<Resolution>>,
    pub timeout_ms: u32,
}

/// A verdict's reason, made only when read ([`Reason::into_string`]): the analysis replaces
/// it on most asks, so most are never made.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason<'a> {
    /// Made already (a rule's own reason, a classifier's).
    Text(Cow<'a, str>),
    /// Its parts, one after another.
    Parts([&'a str; 4]),
}

impl Reason<'_> {
    /// The reason's text.
    pub fn into_string(self) -> String {
        match self {
            Reason::Text(text) => text.into_owned(),
            Reason::Parts(parts) => join(&parts),
        }
    }
}

/// Runs the policy order over one call.
pub fn evaluate<'a>(config: &'a Config, call: &'a Call) -> Verdict<'a> {
    if let Some(rule) = config.rules.iter().find(|r| rules::matches(r, call)) {
        let severity = rule.severity.unwrap_or(match rule.mode {
            Mode::Block => Severity::Critical,
            Mode::Auto => Severity::Info,
            Mode::RequireApproval => config.default_severity,
        });
        let reason = match &rule.reason {
            Some(r) if !r.trim().is_empty() => Reason::Text(Cow::Borrowed(r)),
            _ => Reason::Parts(["rule \"", &rule.id, "\" matched ", &call.tool_name]),
        };
        return Verdict {
            mode: rule.mode,
            severity,
            source: Source::Rule,
            rule_id: Some(rule.id.clone()),
            finding: Finding::new(
                &finding::USER_RULE,
                join(&["rule \"", &rule.id, "\" matched"]),
            )
            .with_severity(severity),
            reason,
            allowed_decisions: rule.allowed_decisions.clone(),
            timeout_ms: rule.timeout_ms.unwrap_or(config.default_timeout_ms),
        };
    }
    let base = |mode, severity, source, finding, reason: Reason<'a>| Verdict {
        mode,
        severity,
        source,
        rule_id: None,
        reason,
        finding,
        allowed_decisions: None,
        timeout_ms: config.default_timeout_ms,
    };
    if let Some(kind) = call.destructive_kind() {
        let what = match kind {
            "exec" => "runs a shell command on the host",
            "apply_patch" => "changes files with a patch",
            _ => "runs Code Mode code",
        };
        let reason = Reason::Parts([&call.tool_name, " ", what, ""]);
        return base(
            Mode::RequireApproval,
            config.default_severity,
            Source::ToolKind,
            Finding::new(&finding::TOOL_KIND_DESTRUCTIVE, join(&["tool kind ", kind])),
            reason,
        );
    }
    if config.use_classifiers {
        match classifier::classify(&call.tool_name) {
            NameClass::Destructive(token) => {
                return base(
                    Mode::RequireApproval,
                    config.default_severity,
                    Source::Classifier,
                    Finding::new(
                        &finding::NAME_TOKEN_DESTRUCTIVE,
                        join(&["name token \"", &token, "\""]),
                    ),
                    Reason::Text(Cow::Owned(join(&[
                        &call.tool_name,
                        " may change something (\"",
                        &token,
                        "\")",
                    ]))),
                )
            }
            NameClass::ReadOnly(token) => {
                return base(
                    Mode::Auto,
                    Severity::Info,
                    Source::Classifier,
                    Finding::new(
                        &finding::NAME_TOKEN_READ_ONLY,
                        join(&["name token \"", &token, "\""]),
                    ),
                    Reason::Text(Cow::Owned(join(&[
                        &call.tool_name,
                        " only reads (\"",
                        &token,
                        "\")",
                    ]))),
                )
            }
            NameClass::Unknown => {}
        }
    }
    let severity = match config.default_mode {
        Mode::Auto => Severity::Info,
        Mode::Block => Severity::Critical,
        Mode::RequireApproval => config.default_severity,
    };
    let mode_name = match config.default_mode {
        Mode::Auto => "auto",
        Mode::RequireApproval => "require-approval",
        Mode::Block => "block",
    };
    base(
        config.default_mode,
        severity,
        Source::Default,
        Finding::new(
            &finding::TOOL_UNRECOGNIZED,
            join(&["defaultMode ", mode_name]),
        ),
        Reason::Parts([
            &call.tool_name,
            " is not a recognized tool; defaultMode is ",
            mode_name,
            "",
        ]),
    )
}

/// The parts one after another, in one allocation of the exact size.
pub(crate) fn join(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(json: &str) -> Call {
        Call::parse(json).unwrap()
    }

    /// [`super::evaluate`] with its reason made: a verdict that borrows neither the config
    /// nor the call.
    fn evaluate(config: &Config, call: &Call) -> Verdict<'static> {
        let v = super::evaluate(config, call);
        Verdict {
            mode: v.mode,
            severity: v.severity,
            source: v.source,
            rule_id: v.rule_id,
            reason: Reason::Text(Cow::Owned(v.reason.into_string())),
            finding: v.finding,
            allowed_decisions: v.allowed_decisions,
            timeout_ms: v.timeout_ms,
        }
    }
    fn config(json: &str) -> Config {
        let (c, e) = Config::from_json(json);
        assert!(e.is_empty(), "{e:?}");
        c
    }

    #[test]
    fn order_is_rules_then_kinds_then_classifier_then_default() {
        let c = config(r#"{"rules":[{"id":"ok-exec","toolName":"exec","mode":"auto"}]}"#);
        let v = evaluate(&c, &call(r#"{"toolName":"exec","params":{}}"#));
        assert_eq!((v.mode, v.source), (Mode::Auto, Source::Rule));
        assert_eq!(v.rule_id.as_deref(), Some("ok-exec"));

        let c = Config::default();
        let v = evaluate(&c, &call(r#"{"toolName":"exec","params":{}}"#));
        assert_eq!(
            (v.mode, v.source),
            (Mode::RequireApproval, Source::ToolKind)
        );
        let v = evaluate(&c, &call(r#"{"toolName":"read_file","params":{}}"#));
        assert_eq!((v.mode, v.source), (Mode::Auto, Source::Classifier));
        let v = evaluate(&c, &call(r#"{"toolName":"frobnicate","params":{}}"#));
        assert_eq!((v.mode, v.source), (Mode::RequireApproval, Source::Default));
        assert_eq!(v.finding.id, "tool-unrecognized");
    }

    #[test]
    fn first_matching_rule_wins() {
        let c = config(
            r#"{"rules":[{"id":"a","toolName":"x","mode":"block"},{"id":"b","toolName":"x","mode":"auto"}]}"#,
        );
        assert_eq!(
            evaluate(&c, &call(r#"{"toolName":"x","params":{}}"#))
                .rule_id
                .as_deref(),
            Some("a")
        );
    }

    #[test]
    fn code_mode_is_destructive_by_host_kind_whatever_its_name() {
        let v = evaluate(
            &Config::default(),
            &call(r#"{"toolName":"read_stuff","params":{},"toolKind":"code_mode_exec"}"#),
        );
        assert_eq!(
            (v.mode, v.source),
            (Mode::RequireApproval, Source::ToolKind)
        );
    }

    #[test]
    fn classifier_off_falls_to_default_mode() {
        let c = config(r#"{"useClassifiers":false,"defaultMode":"block"}"#);
        let v = evaluate(&c, &call(r#"{"toolName":"read","params":{}}"#));
        assert_eq!((v.mode, v.source), (Mode::Block, Source::Default));
        // Built-in kinds still apply with the classifier off.
        let v = evaluate(&c, &call(r#"{"toolName":"exec","params":{}}"#));
        assert_eq!(v.source, Source::ToolKind);
    }

    #[test]
    fn rule_fields_flow_into_the_verdict() {
        let c = config(
            r#"{"rules":[{"id":"d","toolName":"deploy","mode":"require-approval","severity":"critical",
                "allowedDecisions":["allow-once","deny"],"timeoutMs":30000,"reason":"Production deploy"}]}"#,
        );
        let v = evaluate(&c, &call(r#"{"toolName":"deploy","params":{}}"#));
        assert_eq!(v.severity, Severity::Critical);
        assert_eq!(v.timeout_ms, 30_000);
        assert_eq!(v.reason.into_string(), "Production deploy");
        assert_eq!(
            v.allowed_decisions,
            Some(vec![Resolution::AllowOnce, Resolution::Deny])
        );
    }

    #[test]
    fn a_broken_rule_never_matches_and_evaluation_continues() {
        let (c, e) = Config::from_json(
            r#"{"rules":[{"id":"bad","toolNamePattern":"(","mode":"auto"},
                         {"id":"bad2","mode":"auto","paramMatcher":{"all":[{"key":"__proto__","missing":true}]}}]}"#,
        );
        assert_eq!(e.len(), 2);
        let v = evaluate(&c, &call(r#"{"toolName":"exec","params":{}}"#));
        assert_eq!(
            v.source,
            Source::ToolKind,
            "an invalid rule must never match-all"
        );
    }

    #[test]
    fn every_branch_writes_the_texts_format_wrote() {
        let rules = config(r#"{"rules":[{"id":"r \"1\" é","toolName":"deploy","mode":"block"}]}"#);
        let v = evaluate(&rules, &call(r#"{"toolName":"deploy","params":{}}"#));
        assert_eq!(
            v.reason.clone().into_string(),
            format!("rule \"{}\" matched {}", "r \"1\" é", "deploy")
        );
        assert_eq!(
            v.finding.detail,
            format!("rule \"{}\" matched", "r \"1\" é")
        );
        let c = Config::default();
        for (tool, kind, what) in [
            ("exec", "exec", "runs a shell command on the host"),
            ("apply_patch", "apply_patch", "changes files with a patch"),
        ] {
            let v = evaluate(
                &c,
                &call(&format!(r#"{{"toolName":"{tool}","params":{{}}}}"#)),
            );
            assert_eq!(v.reason.clone().into_string(), format!("{tool} {what}"));
            assert_eq!(v.finding.detail, format!("tool kind {kind}"));
        }
        for (tool, token, verb) in [
            ("delete_thing", "delete", "may change something"),
            ("read_file", "read", "only reads"),
        ] {
            let v = evaluate(
                &c,
                &call(&format!(r#"{{"toolName":"{tool}","params":{{}}}}"#)),
            );
            assert_eq!(
                v.reason.clone().into_string(),
                format!("{tool} {verb} (\"{token}\")")
            );
            assert_eq!(v.finding.detail, format!("name token \"{token}\""));
        }
        for (mode, json) in [
            ("auto", r#"{"defaultMode":"auto"}"#),
            ("block", r#"{"defaultMode":"block"}"#),
            ("require-approval", "{}"),
        ] {
            let v = evaluate(
                &config(json),
                &call(r#"{"toolName":"frobnicate","params":{}}"#),
            );
            assert_eq!(
                v.reason.clone().into_string(),
                format!("frobnicate is not a recognized tool; defaultMode is {mode}")
            );
            assert_eq!(v.finding.detail, format!("defaultMode {mode}"));
        }
    }
}
