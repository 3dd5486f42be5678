//! The fuzz targets' bodies and the invariants they check, shared by three users: the cargo-fuzz
//! targets (`fuzz/fuzz_targets/*.rs`), the replay of committed crashers
//! (`tests/fuzz_regressions.rs`) and the property tests (`tests/properties.rs`), which include
//! this file with `#[path]`. Each `*_one` function takes the raw fuzz input and panics when an
//! invariant breaks; it depends only on the core and `serde_json`.
//!
//! Input formats (the first byte selects a shape where a target has several):
//! - `lex`: the whole input is command text (lossy UTF-8), lexed by all three lexers;
//! - `analyze_shell`: byte 0 picks the dialect (`% 3`), the payload depth (`/ 3 % 4`) and the
//!   tight limits (`>= 128`); the rest is the text;
//! - `decide`: byte 0 picks the request shape (`% 8`: raw request JSON, exec, Code Mode,
//!   apply_patch, write, edit, read, process); the rest is the text;
//! - `config`: the whole input is config text;
//! - `redact`: the whole input is preview text.

use openclaw_human_gate::analysis::shell::analyze::analyze;
use openclaw_human_gate::analysis::shell::command::Dialect;
use openclaw_human_gate::analysis::shell::model::{LexLimits, LexProblem, Script, Span};
use openclaw_human_gate::analysis::shell::{cmd, posix, pwsh};
use openclaw_human_gate::analysis::Limits;
use openclaw_human_gate::config::Config;
use openclaw_human_gate::decision::{Class, Decision, Resolution, Severity, Source};
use openclaw_human_gate::finding;
use openclaw_human_gate::preview::redact::Redactor;
use openclaw_human_gate::preview::sanitize::{is_invisible_control, sanitize, truncate_chars};
use openclaw_human_gate::preview::{MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS};
use openclaw_human_gate::Gate;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// The longest finding detail or config error message the core may produce, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1024;

/// A realistic plugin config for the `decide` target: explicit auto, block and critical rules,
/// a pattern rule, and raised analysis limits.
pub const FUZZ_CONFIG: &str = r#"{
  "defaultMode": "require-approval",
  "rules": [
    {"id": "read-auto", "toolName": "read", "mode": "auto"},
    {"id": "no-prod-deploy", "toolName": "exec", "mode": "block", "reason": "no production deploys",
     "paramMatcher": {"all": [{"key": "command", "equals": "./deploy.sh prod"}]}},
    {"id": "ls-auto", "toolName": "exec", "mode": "auto",
     "paramMatcher": {"any": [{"key": "command", "in": ["ls", "git status", "pwd"]}]}},
    {"id": "mail", "toolNamePattern": "^send_", "mode": "require-approval", "severity": "critical",
     "timeoutMs": 60000, "allowedDecisions": ["allow-once", "deny"]}
  ],
  "semanticAnalysis": {"maxFindings": 16, "maxWrapperDepth": 4}
}"#;

/// The same config three ways: analysis on, analysis off, and on with `readOnlyExec: "auto"`.
fn gates() -> &'static (Gate, Gate, Gate) {
    static GATES: OnceLock<(Gate, Gate, Gate)> = OnceLock::new();
    GATES.get_or_init(|| {
        let base: Value = serde_json::from_str(FUZZ_CONFIG).unwrap_or(Value::Null);
        let mut off = base.clone();
        off["semanticAnalysis"]["enabled"] = json!(false);
        let mut read_only = base.clone();
        read_only["readOnlyExec"] = json!("auto");
        let gates = (
            Gate::new(&base.to_string()),
            Gate::new(&off.to_string()),
            Gate::new(&read_only.to_string()),
        );
        for g in [&gates.0, &gates.1, &gates.2] {
            assert!(g.config_errors().is_empty(), "{:?}", g.config_errors());
        }
        gates
    })
}

fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::new)
}

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

/// `lex_posix`: the three lexers on the same text, default and tight limits; every span is a
/// char range of the input.
pub fn lex_one(data: &[u8]) {
    let text = text(data);
    let tight = LexLimits {
        max_depth: 3,
        max_tokens: 32,
    };
    for limits in [LexLimits::default(), tight] {
        for (name, script) in [
            ("posix", posix::lex(&text, &limits)),
            ("pwsh", pwsh::lex(&text, &limits)),
            ("cmd", cmd::lex(&text, &limits)),
        ] {
            if let Err(e) = check_spans(&text, &script) {
                panic!("{name} lexer on {text:?}: {e}");
            }
        }
    }
}

/// `analyze_shell`: the driver in any dialect at any payload depth; an incomplete report says
/// why, every finding comes from the table, messages are bounded.
pub fn analyze_shell_one(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = text(rest);
    let dialect = match sel % 3 {
        0 => Dialect::Posix,
        1 => Dialect::PowerShell,
        _ => Dialect::Cmd,
    };
    let depth = usize::from(sel / 3 % 4);
    let limits = if sel >= 128 {
        Limits {
            max_command_length: 256,
            max_wrapper_depth: 1,
            max_findings: 1,
        }
    } else {
        Limits::default()
    };
    let analysis = analyze(&text, dialect, &limits, depth);
    let report = &analysis.report;
    if !report.complete {
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.severity >= Severity::Warning),
            "incomplete report without a finding saying why: {text:?}"
        );
    }
    if text.len() > limits.max_command_length {
        assert!(!report.complete && !report.read_only, "{text:?}");
    }
    for f in &report.findings {
        let spec = finding::spec(f.id);
        assert!(spec.is_some(), "finding {} is not in the table", f.id);
        assert!(
            f.detail.chars().count() <= MAX_MESSAGE_CHARS,
            "detail of {} chars",
            f.detail.chars().count()
        );
    }
}

/// `decide`: one request through the fixed config; the decision keeps its invariants and
/// analysis never lowers it (the `readOnlyExec: "auto"` exception only passes clean calls).
pub fn decide_one(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = text(rest);
    let request = request(sel, &text);
    let (on, off, read_only) = gates();
    let d_on = on.decide(&request);
    let d_off = off.decide(&request);
    let d_ro = read_only.decide(&request);
    for d in [&d_on, &d_off, &d_ro] {
        check_decision(d);
    }
    assert!(
        d_on.decision >= d_off.decision,
        "analysis lowered {:?} to {:?}: {request}",
        d_off.decision,
        d_on.decision
    );
    if d_ro.decision < d_off.decision {
        assert_eq!(d_ro.decision, Class::Auto, "{request}");
        assert_eq!(d_ro.source, Source::ToolKind, "{request}");
        assert!(
            d_ro.findings
                .iter()
                .skip(1)
                .all(|f| f.severity == Severity::Info),
            "readOnlyExec passed a call with findings: {request}"
        );
    }
}

/// The request a `decide` input stands for.
pub fn request(sel: u8, text: &str) -> String {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let v = match sel % 8 {
        0 => return text.to_owned(),
        1 => json!({"toolName": "exec", "params": {"command": text}}),
        2 => json!({"toolName": "exec", "toolKind": "code_mode_exec", "params": {"code": text}}),
        3 => json!({"toolName": "apply_patch", "params": {"input": text}}),
        4 => json!({"toolName": "write", "params": {"path": first, "content": rest}}),
        5 => {
            json!({"toolName": "edit", "params": {"path": first, "edits": [{"oldText": rest, "newText": first}]}})
        }
        6 => json!({"toolName": "read", "params": {"path": text}}),
        _ => json!({"toolName": "process", "params": {"action": "write", "data": text}}),
    };
    v.to_string()
}

/// `config`: any config text gives a usable gate; text that is not a JSON object (nor empty or
/// `null`) is reported; messages are bounded; a config that is not JSON never lets exec pass.
pub fn config_one(data: &[u8]) {
    let text = text(data);
    let (_, errors) = Config::from_json(&text);
    let trimmed = text.trim();
    let parsed: Option<Value> = serde_json::from_str(trimmed).ok();
    if !trimmed.is_empty() && !matches!(parsed, Some(Value::Object(_)) | Some(Value::Null)) {
        assert!(!errors.is_empty(), "{text:?} gave no error");
    }
    for e in &errors {
        assert!(
            e.chars().count() <= MAX_MESSAGE_CHARS,
            "error of {} chars",
            e.chars().count()
        );
    }
    let gate = Gate::new(&text);
    let exec = gate.decide(r#"{"toolName":"exec","params":{"command":"rm -rf /"}}"#);
    check_decision(&exec);
    if parsed.is_none() && !trimmed.is_empty() {
        assert!(
            exec.decision >= Class::Critical,
            "{text:?}: {:?}",
            exec.decision
        );
    }
    check_decision(&gate.decide(r#"{"toolName":"read","params":{"path":"README.md"}}"#));
    check_decision(&gate.decide(r#"{"toolName":"mystery","params":{}}"#));
}

/// `redact`: redaction is idempotent and bounded; sanitizing leaves no control or invisible
/// character but newline and tab; truncation keeps its bound.
pub fn redact_one(data: &[u8]) {
    let text = text(data);
    let r = redactor();
    let once = r.redact(&text);
    assert_eq!(
        r.redact(&once),
        once,
        "redaction is not idempotent on {text:?}"
    );
    let bounded = r.redact_bounded(&text, 80);
    assert!(bounded.chars().count() <= text.chars().count().max(once.chars().count()) + 1024);
    let clean = sanitize(&text);
    assert!(
        clean
            .chars()
            .all(|c| c == '\n' || c == '\t' || !(c.is_control() || is_invisible_control(c))),
        "sanitize left a control character: {clean:?}"
    );
    assert!(truncate_chars(&clean, 80).chars().count() <= 80);
}

// ---------------------------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------------------------

/// The decision-level invariants every answer keeps (`docs/core-api.md`).
pub fn check_decision(d: &Decision) {
    let title = &d.preview.title;
    let description = &d.preview.description;
    assert!(
        title.chars().count() <= MAX_TITLE_CHARS,
        "title too long: {title:?}"
    );
    assert!(
        description.chars().count() <= MAX_DESCRIPTION_CHARS,
        "description too long: {description:?}"
    );
    assert!(
        title
            .chars()
            .all(|c| !c.is_control() && !is_invisible_control(c)),
        "control character in the title: {title:?}"
    );
    assert!(
        description
            .chars()
            .all(|c| c == '\n' || c == '\t' || !(c.is_control() || is_invisible_control(c))),
        "control character in the description: {description:?}"
    );
    match d.decision {
        Class::Auto | Class::Block => assert!(d.allowed_decisions.is_empty(), "{d:?}"),
        Class::Approval | Class::Critical => {
            assert!(d.allowed_decisions.contains(&Resolution::Deny), "{d:?}")
        }
    }
    if d.decision == Class::Critical {
        assert!(!d.allowed_decisions.contains(&Resolution::AllowAlways));
        assert_eq!(d.severity, Severity::Critical);
    }
    if d.reusable {
        assert_eq!(d.decision, Class::Approval);
    }
    assert!(!d.findings.is_empty(), "a decision without a finding");
    for f in &d.findings {
        assert!(
            finding::spec(f.id).is_some(),
            "{} is not in the table",
            f.id
        );
        assert!(
            f.detail.chars().count() <= MAX_MESSAGE_CHARS,
            "detail of {} chars",
            f.detail.chars().count()
        );
    }
    let json = serde_json::to_string(d).unwrap_or_default();
    assert!(
        !json.is_empty() && json.len() <= 64 * 1024,
        "decision of {} bytes",
        json.len()
    );
}

/// Checks every span of a script (and the scripts nested in it) against `text`: each is a
/// range of char boundaries inside it.
pub fn check_spans(text: &str, script: &Script) -> Result<(), String> {
    let ok = |what: &str, s: Span| -> Result<(), String> {
        if s.start <= s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end)
        {
            Ok(())
        } else {
            Err(format!(
                "{what} span {}..{} is not a char range of {} bytes",
                s.start,
                s.end,
                text.len()
            ))
        }
    };
    let mut stack = vec![script];
    while let Some(script) = stack.pop() {
        for p in &script.problems {
            let span = match p {
                LexProblem::UnterminatedQuote { span }
                | LexProblem::UnterminatedGroup { span }
                | LexProblem::UnterminatedHereDoc { span }
                | LexProblem::TooDeep { span }
                | LexProblem::TooLong { span }
                | LexProblem::Unsupported { span, .. } => *span,
            };
            ok("problem", span)?;
        }
        for c in &script.commands {
            ok("command", c.span)?;
            for w in &c.argv {
                ok("word", w.span)?;
            }
            for (_, w) in &c.assignments {
                ok("assignment", w.span)?;
            }
            for r in &c.redirects {
                ok("redirect", r.target.span)?;
            }
            for h in &c.heredocs {
                ok("heredoc body", h.body_span)?;
            }
            stack.extend(c.nested.iter().map(|n| &n.script));
        }
    }
    Ok(())
}
