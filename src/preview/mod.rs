//! Approval previews: what a human sees before deciding, bounded for the host.
//!
//! OpenClaw blocks the call when an approval title exceeds 80 code points or a description
//! 512, so both are bounded here, after sanitizing (controls, ANSI, bidi/zero-width marks) and
//! redaction (secrets) — a cut therefore never leaves half a secret.

pub mod redact;
pub mod sanitize;

use crate::call::Call;
use crate::decision::{Class, Preview};
use crate::finding::Finding;
use redact::{head, Redactor};
use sanitize::{sanitize, truncate_chars};
use serde_json::Value;

pub const MAX_TITLE_CHARS: usize = 80;
pub const MAX_DESCRIPTION_CHARS: usize = 512;
const MAX_SECTION_CHARS: usize = 220;
const MAX_PARAMS_SHOWN: usize = 6;
/// Keys whose string value says best what a call does, in priority order.
const SUMMARY_KEYS: [&str; 8] = [
    "command",
    "code",
    "path",
    "file_path",
    "filePath",
    "file",
    "url",
    "query",
];

/// Renders the title and description for one decision.
pub fn render(
    call: &Call,
    class: Class,
    reason: &str,
    findings: &[Finding],
    redactor: &Redactor,
) -> Preview {
    // Sanitize, then redact, then cut: a cut never leaves half a secret.
    let clean =
        |s: &str, max: usize| truncate_chars(&redactor.redact(&sanitize(head(s, max))), max);
    let summary = SUMMARY_KEYS
        .iter()
        .find_map(|k| call.params.get(*k).and_then(Value::as_str))
        .map(|s| one_line(&clean(s, MAX_SECTION_CHARS)))
        .unwrap_or_default();
    let label = match class {
        Class::Critical => "CRITICAL ",
        Class::Block => "Blocked ",
        _ => "",
    };
    let tool = one_line(&sanitize(head(&call.tool_name, MAX_TITLE_CHARS)));
    let title = if summary.is_empty() {
        format!("{label}{tool}")
    } else {
        format!("{label}{tool}: {summary}")
    };

    let mut desc = one_line(&clean(reason, MAX_SECTION_CHARS));
    for f in findings {
        desc.push_str("\n• ");
        desc.push_str(&one_line(&clean(&f.detail, 160)));
    }
    if let Some(from) = &call.bridged_from {
        desc.push_str(&format!("\n(via {})", one_line(&sanitize(from))));
    }
    for (shown, (key, value)) in call.params.iter().enumerate() {
        if shown == MAX_PARAMS_SHOWN || desc.chars().count() >= MAX_DESCRIPTION_CHARS {
            desc.push_str(&format!("\n… {} more", call.params.len() - shown));
            break;
        }
        let rendered = if redact::is_secret_key(key) {
            redact::REDACTED.to_owned()
        } else {
            match value {
                Value::String(s) => clean(s, MAX_SECTION_CHARS),
                other => clean(
                    &compact_json(&redact_strings(other, redactor, MAX_SECTION_CHARS)),
                    MAX_SECTION_CHARS,
                ),
            }
        };
        desc.push_str(&format!(
            "\n{}: {rendered}",
            one_line(&sanitize(head(key, 64)))
        ));
    }
    Preview {
        title: truncate_chars(&title, MAX_TITLE_CHARS),
        description: truncate_chars(&desc, MAX_DESCRIPTION_CHARS),
    }
}

/// Untrusted text made displayable and cut to `max` characters: sanitized, then redacted,
/// then cut, so a cut never leaves half a secret.
pub fn clean_text(redactor: &Redactor, text: &str, max: usize) -> String {
    truncate_chars(&redactor.redact(&sanitize(head(text, max))), max)
}

/// A copy of `v` with every string cut to what can be shown and redacted, so a secret is
/// seen in its own text and not through JSON escapes (`\\n`, `\\"`) that hide its edges.
fn redact_strings(v: &Value, redactor: &Redactor, max: usize) -> Value {
    let mut budget = max;
    redact_walk(v, redactor, max, &mut budget, 0)
}

fn redact_walk(v: &Value, r: &Redactor, max: usize, budget: &mut usize, depth: usize) -> Value {
    match v {
        Value::String(s) => {
            let shown = clean_text(r, s, max.min((*budget).max(8)));
            *budget = budget.saturating_sub(shown.chars().count() + 4);
            Value::String(shown)
        }
        Value::Array(items) if depth < 8 && *budget > 0 => Value::Array(
            items
                .iter()
                .take(max / 2 + 1)
                .map(|x| redact_walk(x, r, max, budget, depth + 1))
                .collect(),
        ),
        Value::Object(map) if depth < 8 && *budget > 0 => Value::Object(
            map.iter()
                .take(max / 2 + 1)
                .map(|(k, x)| {
                    let shown = if redact::is_secret_key(k) {
                        Value::String(redact::REDACTED.to_owned())
                    } else {
                        redact_walk(x, r, max, budget, depth + 1)
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(_) | Value::Object(_) => Value::String("…".to_owned()),
        other => other.clone(),
    }
}

/// JSON text of a non-string value (cut like any other value when shown).
fn compact_json(v: &Value) -> String {
    v.to_string()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(json: &str) -> Preview {
        let call = Call::parse(json).unwrap();
        render(
            &call,
            Class::Approval,
            "exec runs a shell command",
            &[],
            &Redactor::new(),
        )
    }

    #[test]
    fn bounds_hold_for_huge_input() {
        let cmd = "x".repeat(100_000);
        let p = preview(&format!(
            r#"{{"toolName":"{}","params":{{"command":"{cmd}","b":"{cmd}"}}}}"#,
            "t".repeat(500)
        ));
        assert!(p.title.chars().count() <= MAX_TITLE_CHARS);
        assert!(p.description.chars().count() <= MAX_DESCRIPTION_CHARS);
    }

    #[test]
    fn shows_the_command_in_the_title() {
        let p = preview(r#"{"toolName":"exec","params":{"command":"ls   -la\n/tmp"}}"#);
        assert_eq!(p.title, "exec: ls -la /tmp");
        assert!(p.description.starts_with("exec runs a shell command"));
    }

    #[test]
    fn secrets_never_reach_the_preview() {
        let p = preview(
            r#"{"toolName":"exec","params":{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://x","password":"hunter2hunter2"}}"#,
        );
        assert!(!p.title.contains("abcdefghijklmnop1234"), "{}", p.title);
        assert!(!p.description.contains("abcdefghijklmnop1234"));
        assert!(!p.description.contains("hunter2"));
    }
}
