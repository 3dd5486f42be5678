//! Which analyzer looks at which call, and the upgrade-only reducer that folds the analysis
//! into the policy decision.
//!
//! - `exec` (by name or kind): the `command` string through the shell driver, plus the exec
//!   tool's own `env` overrides (loader injection) and `elevated` flag;
//! - Code Mode (`code_mode_exec`): the source through the Code Mode analyzer, whose literal
//!   `child_process` commands go through the shell driver;
//! - `process` writes/pastes into a running process: the text through the shell driver (the
//!   process may be a shell);
//! - write / edit / apply_patch: the file-mutation analyzer;
//! - read-like tools: the credential-target check.
//!
//! The reducer never lowers a decision, with one documented, opt-in exception:
//! `readOnlyExec: "auto"` lets an `exec` that the built-in tool kind would ask for pass when the
//! analysis is complete, read-only and found nothing.

use super::shell::analyze as shell;
use super::shell::command::Dialect;
use super::shell::rules::Category;
use super::{code, files, reads, Limits, Report};
use crate::call::Call;
use crate::config::Config;
use crate::decision::{Class, Decision, Severity, Source};
use crate::finding::{self, Finding};
use serde_json::Value;

/// The analysis of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAnalysis {
    pub report: Report,
    pub category: Option<Category>,
    /// The call is a shell command (`exec`), for the read-only auto-pass.
    pub exec: bool,
}

/// `process` actions that send text to a running process.
const PROCESS_WRITES: [&str; 4] = ["write", "paste", "send-keys", "submit"];

/// Runs the analyzers that apply to `call`; `None` when none does.
pub fn analyze_call(call: &Call, limits: &Limits) -> Option<CallAnalysis> {
    let shell_fn =
        |text: &str, depth: usize| shell::analyze(text, Dialect::Posix, limits, depth).report;
    let kind = call.destructive_kind();
    let mut out = if let Some(report) = code::analyze_call(call, limits, &shell_fn) {
        CallAnalysis {
            report,
            category: None,
            exec: false,
        }
    } else if kind == Some("exec") {
        let mut analysis = match call.params.get("command") {
            Some(Value::String(cmd)) => {
                let in_dir = with_workdir(call, cmd);
                let a = shell::analyze(in_dir.as_deref().unwrap_or(cmd), Dialect::Posix, limits, 0);
                CallAnalysis {
                    report: a.report,
                    category: a.category,
                    exec: true,
                }
            }
            _ => CallAnalysis {
                report: incomplete("exec without a command string"),
                category: None,
                exec: true,
            },
        };
        exec_params(call, &mut analysis.report);
        analysis
    } else if call.tool_name == "process" {
        let action = call
            .params
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !PROCESS_WRITES.contains(&action) {
            return None;
        }
        let mut report = Report::clean();
        for key in ["data", "text", "literal"] {
            if let Some(text) = call.params.get(key).and_then(Value::as_str) {
                report.merge(shell_fn(text, 0));
            }
        }
        report.read_only = false;
        CallAnalysis {
            report,
            category: None,
            exec: false,
        }
    } else if let Some(report) = files::analyze(call) {
        CallAnalysis {
            report,
            category: None,
            exec: false,
        }
    } else {
        let report = reads::analyze(call)?;
        CallAnalysis {
            report,
            category: None,
            exec: false,
        }
    };
    if let Some(category) = out.category {
        out.report.add(category_finding(category));
    }
    truncate(&mut out.report, limits.max_findings);
    Some(out)
}

/// The info finding that names a command's category (reuse scopes key on it later).
fn category_finding(category: Category) -> Finding {
    let (spec, detail) = match category {
        Category::ReadOnly => (&finding::CATEGORY_READ_ONLY, "category read-only"),
        Category::DevBuild => (&finding::CATEGORY_DEV_BUILD, "category dev-build"),
        Category::DevTest => (&finding::CATEGORY_DEV_TEST, "category dev-test"),
        Category::DevFormat => (&finding::CATEGORY_DEV_FORMAT, "category dev-format"),
        Category::SourceControl => (&finding::CATEGORY_SOURCE_CONTROL, "category source-control"),
    };
    // A fixed text per category (not `format!`: it is made on most shell calls).
    Finding::new(spec, detail.to_owned())
}

/// The details [`category_finding`] gives, one per category: fixed texts the gate knows
/// before any call (`Gate::own_redaction`).
pub(crate) fn category_details() -> impl Iterator<Item = String> {
    [
        Category::ReadOnly,
        Category::DevBuild,
        Category::DevTest,
        Category::DevFormat,
        Category::SourceControl,
    ]
    .into_iter()
    .map(|c| category_finding(c).detail)
}

fn incomplete(why: &str) -> Report {
    let mut r = Report::clean();
    r.complete = false;
    r.add(Finding::new(&finding::ANALYSIS_INCOMPLETE, why.to_owned()));
    r
}

/// The exec tool's own parameters: `env` overrides and `elevated`.
/// The command as it runs from the exec call's `workdir` (`cd 'DIR'` on a line of its own
/// first), so that relative paths are judged where they land (`echo … >> passwd` with
/// `workdir: "/etc"`); `None` when the call names no directory (the host's default).
fn with_workdir(call: &Call, cmd: &str) -> Option<String> {
    let dir = call.params.get("workdir").and_then(Value::as_str)?;
    if dir.trim().is_empty() || dir == "." {
        return None;
    }
    let dir = if dir.starts_with('-') {
        format!("./{dir}")
    } else {
        dir.to_owned()
    };
    Some(format!("cd '{}'\n{cmd}", dir.replace('\'', "'\\''")))
}

fn exec_params(call: &Call, report: &mut Report) {
    if let Some(Value::Object(env)) = call.params.get("env") {
        let command = call
            .params
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        for key in env.keys() {
            if super::shell::rules::is_loader_variable(key) {
                report.add(Finding::new(
                    &finding::LOADER_INJECTION,
                    format!("exec env sets {}", crate::call::short(key)),
                ));
                report.read_only = false;
            }
            // `$env:Path -split ';'` with `env` set, `$LASTEXITCODE -ne 0` with
            // `LASTEXITCODE` set: the analysis read these as PowerShell values, which no POSIX
            // shell sets; the call sets one, so a POSIX shell runs its value as a command.
            let used =
                command.contains(&format!("${key}")) || command.contains(&format!("${{{key}}}"));
            if shell::read_as_unset(key) && used {
                report.add(Finding::new(
                    &finding::DYNAMIC_CODE_EXECUTION,
                    format!(
                        "exec env sets {}, which the command may run as a command name",
                        crate::call::short(key)
                    ),
                ));
                report.read_only = false;
            }
        }
    }
    if call.params.get("elevated") == Some(&Value::Bool(true)) {
        report.add(Finding::new(
            &finding::PRIVILEGE_ELEVATION,
            "exec asks for host elevation".to_owned(),
        ));
        report.read_only = false;
    }
}

/// Keeps at most `max` findings, most severe first; when some are dropped the last slot says so.
fn truncate(report: &mut Report, max: usize) {
    if report.findings.len() <= max && report.capped == 0 {
        return;
    }
    report
        .findings
        .sort_by_key(|f| std::cmp::Reverse(f.severity));
    let dropped = (report.findings.len() + 1)
        .saturating_sub(max.max(1))
        .saturating_add(report.capped);
    report.findings.truncate(max.saturating_sub(1));
    report.findings.push(Finding::new(
        &finding::FINDINGS_TRUNCATED,
        format!("{dropped} more not shown"),
    ));
    report.complete = false;
}

/// Folds an analysis into a decision: raise only (see the module docs for the one exception).
/// The report's findings move into the decision (the report is left without them: nothing
/// reads them after this, and a copy of each detail is an allocation per finding).
pub fn reduce(decision: &mut Decision, analysis: &mut CallAnalysis, config: &Config) {
    let report = &mut analysis.report;
    let base = decision.decision;
    let explicit_auto = decision.source == Source::Rule && base == Class::Auto;
    let mut top: Option<&Finding> = None;
    for f in &report.findings {
        match f.severity {
            Severity::Critical => decision.raise(Class::Critical, Severity::Critical),
            Severity::Warning if !explicit_auto => {
                decision.raise(Class::Approval, Severity::Warning)
            }
            _ => {}
        }
        if f.severity > Severity::Info && top.is_none_or(|t| f.severity > t.severity) {
            top = Some(f);
        }
    }
    if !report.complete {
        decision.raise(Class::Approval, Severity::Warning);
    }
    // What reads the findings is done before they move: the reason (the class is final
    // here) and whether the analysis found only information.
    let reason = match top {
        Some(f) if decision.decision > base => {
            let reason = finding::spec(f.id).map(|s| s.reason).unwrap_or("");
            Some(verdict_reason(reason, &f.detail))
        }
        _ => None,
    };
    let clean = report.complete
        && report.read_only
        && report.findings.iter().all(|f| f.severity == Severity::Info);
    decision.findings.append(&mut report.findings);
    if let Some(reason) = reason {
        decision.reason = reason;
    }
    if config.read_only_exec_auto
        && analysis.exec
        && clean
        && decision.source == Source::ToolKind
        && decision.decision == Class::Approval
    {
        decision.decision = Class::Auto;
        decision.severity = Severity::Info;
        decision.reason = "read-only command, completely analysed (readOnlyExec: auto)".to_owned();
    }
    decision.normalize();
}

/// [`reduce`] as it was before session 8 (the report's findings copied into the decision):
/// the tests' reference.
#[cfg(test)]
pub(crate) fn reduce_reference(decision: &mut Decision, analysis: &CallAnalysis, config: &Config) {
    let report = &analysis.report;
    let base = decision.decision;
    let explicit_auto = decision.source == Source::Rule && base == Class::Auto;
    let mut top: Option<&Finding> = None;
    for f in &report.findings {
        match f.severity {
            Severity::Critical => decision.raise(Class::Critical, Severity::Critical),
            Severity::Warning if !explicit_auto => {
                decision.raise(Class::Approval, Severity::Warning)
            }
            _ => {}
        }
        if f.severity > Severity::Info && top.is_none_or(|t| f.severity > t.severity) {
            top = Some(f);
        }
    }
    if !report.complete {
        decision.raise(Class::Approval, Severity::Warning);
    }
    decision.findings.extend(report.findings.iter().cloned());
    if decision.decision > base {
        if let Some(f) = top {
            let reason = finding::spec(f.id).map(|s| s.reason).unwrap_or("");
            decision.reason = verdict_reason(reason, &f.detail);
        }
    }
    let clean = report.complete
        && report.read_only
        && report.findings.iter().all(|f| f.severity == Severity::Info);
    if config.read_only_exec_auto
        && analysis.exec
        && clean
        && decision.source == Source::ToolKind
        && decision.decision == Class::Approval
    {
        decision.decision = Class::Auto;
        decision.severity = Severity::Info;
        decision.reason = "read-only command, completely analysed (readOnlyExec: auto)".to_owned();
    }
    decision.normalize();
}

/// Characters of the top finding's detail the decision reason quotes.
const SUBJECT_CHARS: usize = 120;

/// `Reason (detail)`: the finding's reason capitalized, then its detail cut to
/// [`SUBJECT_CHARS`] characters (`…` when cut). Written in one string, as slices.
fn verdict_reason(reason: &str, detail: &str) -> String {
    let mut out = String::with_capacity(reason.len() + detail.len().min(4 * SUBJECT_CHARS) + 8);
    let mut chars = reason.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
    out.push_str(" (");
    match detail.char_indices().nth(SUBJECT_CHARS) {
        Some((cut, _)) => {
            out.push_str(detail.get(..cut).unwrap_or(""));
            out.push('…');
        }
        None => out.push_str(detail),
    }
    out.push(')');
    out
}

/// The reason as it was built before [`verdict_reason`] (the tests' reference).
#[cfg(test)]
fn verdict_reason_reference(reason: &str, detail: &str) -> String {
    fn capitalize(s: &str) -> String {
        let mut c = s.chars();
        match c.next() {
            Some(first) => first.to_uppercase().chain(c).collect(),
            None => String::new(),
        }
    }
    fn decision_subject(detail: &str) -> String {
        let mut s: String = detail.chars().take(120).collect();
        if detail.chars().count() > 120 {
            s.push('…');
        }
        s
    }
    format!("{} ({})", capitalize(reason), decision_subject(detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `category_finding` as it was (the detail made by `format!`): the reference.
    fn category_finding_reference(category: Category) -> Finding {
        let (spec, what) = match category {
            Category::ReadOnly => (&finding::CATEGORY_READ_ONLY, "read-only"),
            Category::DevBuild => (&finding::CATEGORY_DEV_BUILD, "dev-build"),
            Category::DevTest => (&finding::CATEGORY_DEV_TEST, "dev-test"),
            Category::DevFormat => (&finding::CATEGORY_DEV_FORMAT, "dev-format"),
            Category::SourceControl => (&finding::CATEGORY_SOURCE_CONTROL, "source-control"),
        };
        Finding::new(spec, format!("category {what}"))
    }

    #[test]
    fn category_findings_are_the_formatted_ones_and_their_details_are_listed() {
        let all = [
            Category::ReadOnly,
            Category::DevBuild,
            Category::DevTest,
            Category::DevFormat,
            Category::SourceControl,
        ];
        let listed: Vec<String> = category_details().collect();
        assert_eq!(listed.len(), all.len());
        for c in all {
            let f = category_finding(c);
            assert_eq!(f, category_finding_reference(c));
            assert!(listed.contains(&f.detail), "{c:?}");
        }
    }

    /// Every finding's reason with the detail of every corpus call's findings, and with cut
    /// points around the limit in one-, two-, three- and four-byte characters.
    #[test]
    fn verdict_reason_is_the_formatted_reason() {
        let gate = crate::Gate::new("{}");
        let mut details: Vec<String> = vec![String::new()];
        for text in crate::testing::corpus_request_strings() {
            let d: serde_json::Value = serde_json::from_str(&gate.decide_json(&text)).unwrap();
            for f in d["findings"].as_array().into_iter().flatten() {
                details.push(f["detail"].as_str().unwrap_or("").to_owned());
            }
        }
        for c in ["a", "é", "€", "😀"] {
            for n in [
                SUBJECT_CHARS - 1,
                SUBJECT_CHARS,
                SUBJECT_CHARS + 1,
                3 * SUBJECT_CHARS,
            ] {
                details.push(c.repeat(n));
                details.push(format!("x{}", c.repeat(n)));
            }
        }
        for spec in finding::TABLE {
            for detail in &details {
                assert_eq!(
                    verdict_reason(spec.reason, detail),
                    verdict_reason_reference(spec.reason, detail),
                    "{} / {detail}",
                    spec.id
                );
            }
        }
        for reason in ["", "é is odd", "ß to upper is two", "ǆ titlecase"] {
            assert_eq!(
                verdict_reason(reason, "d"),
                verdict_reason_reference(reason, "d")
            );
        }
    }

    /// `reduce`, which moves the report's findings, gives the decision its reference (which
    /// copies them) gives, over every corpus request under several configs and every policy
    /// class it can start from.
    #[test]
    fn reduce_is_its_reference_over_every_corpus_request() {
        let mut requests = crate::testing::corpus_request_strings();
        requests.extend(crate::gate::tests::secret_corpus_requests());
        let configs = [
            "{}",
            r#"{"readOnlyExec":"auto"}"#,
            r#"{"rules":[{"id":"ok","toolNamePattern":".*","mode":"auto"}]}"#,
            r#"{"rules":[{"id":"b","toolNamePattern":".*","mode":"block"}]}"#,
            r#"{"defaultMode":"auto","useClassifiers":false}"#,
        ];
        let mut seen = (0, 0);
        for config in configs {
            let gate = crate::Gate::new(config);
            assert!(gate.config_errors().is_empty(), "{config}");
            for text in &requests {
                let Ok(call) = Call::parse(text) else {
                    continue;
                };
                let (mut base, reason, _) = gate.assess_policy_only(&call);
                base.reason = reason.into_string();
                let Some(analysis) = analyze_call(&call, &gate.config().semantic_analysis.limits)
                else {
                    continue;
                };
                let mut slow = base.clone();
                reduce_reference(&mut slow, &analysis, gate.config());
                let mut fast = base;
                let mut moved = analysis.clone();
                reduce(&mut fast, &mut moved, gate.config());
                assert_eq!(fast, slow, "{config} {text}");
                // Only the findings left the report.
                let mut rest = analysis;
                rest.report.findings.clear();
                assert_eq!(moved, rest, "{config} {text}");
                seen.0 += 1;
                seen.1 += usize::from(fast.decision != Class::Auto);
            }
        }
        assert!(seen.0 > 2000 && seen.1 > 1000, "{seen:?}");
    }

    proptest::proptest! {
        #[test]
        fn verdict_reason_agrees_on_any_text(reason in "\\PC{0,40}", detail in "\\PC{0,300}") {
            proptest::prop_assert_eq!(
                verdict_reason(&reason, &detail),
                verdict_reason_reference(&reason, &detail)
            );
        }
    }
}
