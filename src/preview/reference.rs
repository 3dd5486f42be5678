//! The approval preview as it was rendered before the shortcuts of `mod.rs` (session 5): the
//! test oracle the tests hold `render` to, byte for byte. Test-only; never called by the gate.

use super::redact::{self, head, Redactor};
use super::sanitize::{sanitize, sanitize_cow};
use crate::call::Call;
use crate::config::Previews;
use crate::decision::{Class, Preview, Severity};
use crate::finding::Finding;
use serde_json::Value;
use std::borrow::Cow;

pub const MAX_TITLE_CHARS: usize = 80;
pub const MAX_DESCRIPTION_CHARS: usize = 512;
const MAX_PARAMS_SHOWN: usize = 6;
/// How far into a command a finding's quote is looked for, in characters.
const FOCUS_WINDOW_CHARS: usize = 4096;
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
const PATH_KEYS: [&str; 3] = ["path", "file_path", "filePath"];

/// The text cleaner for one preview: sanitize, redact (unless configured off), cut.
struct Cleaner<'a> {
    redactor: &'a Redactor,
    cfg: Previews,
}

impl Cleaner<'_> {
    fn clean(&self, text: &str, max: usize) -> String {
        self.clean_cow(text, max).into_owned()
    }

    /// [`Cleaner::clean`], borrowing `text` when nothing changes.
    fn clean_cow<'t>(&self, text: &'t str, max: usize) -> Cow<'t, str> {
        let clean = sanitize_cow(head(text, max));
        if !self.cfg.redact_secrets {
            return truncate_cow(clean, max);
        }
        let redacted = match clean {
            Cow::Borrowed(s) => self.redactor.redact_cow(s),
            Cow::Owned(s) => match self.redactor.redact_cow(&s) {
                Cow::Borrowed(_) => Cow::Owned(s),
                Cow::Owned(r) => Cow::Owned(r),
            },
        };
        truncate_cow(redacted, max)
    }

    /// Text sanitized and redacted but not cut (bounded by `head`).
    fn full(&self, text: &str, max: usize) -> String {
        let clean = sanitize(head(text, max));
        if self.cfg.redact_secrets {
            self.redactor.redact(&clean)
        } else {
            clean
        }
    }

    /// At most `max_lines` lines and `max_section_chars` characters of `text`.
    fn excerpt(&self, text: &str) -> String {
        lines_cut(
            &self.clean(text, self.cfg.max_section_chars),
            self.cfg.max_lines,
        )
    }
}

/// Untrusted text made displayable and cut to `max` characters: sanitized, then redacted,
/// then cut, so a cut never leaves half a secret.
#[allow(dead_code)]
pub fn clean_text(redactor: &Redactor, text: &str, max: usize) -> String {
    truncate_chars(&redactor.redact_cow(&sanitize_cow(head(text, max))), max)
}

/// Renders the title and description for one decision.
pub fn render(
    call: &Call,
    class: Class,
    reason: &str,
    findings: &[Finding],
    redactor: &Redactor,
    cfg: &Previews,
) -> Preview {
    let c = Cleaner {
        redactor,
        cfg: *cfg,
    };
    let max_desc = cfg.max_description_chars.min(MAX_DESCRIPTION_CHARS);
    let label = match class {
        Class::Critical => "CRITICAL ",
        Class::Block => "Blocked ",
        _ => "",
    };
    let tool = one_line(&sanitize_cow(head(&call.tool_name, MAX_TITLE_CHARS)));
    let kind = Kind::of(call);

    // Reason and findings first: they say why a person is asked.
    let mut desc = String::with_capacity(max_desc + 64);
    push_one_line(&mut desc, &c.clean_cow(reason, cfg.max_section_chars));
    let mut ordered: Vec<&Finding> = findings.iter().collect();
    ordered.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in ordered {
        desc.push_str("\n• ");
        push_one_line(&mut desc, &c.clean_cow(&f.detail, 160));
    }
    if let Some(from) = &call.bridged_from {
        desc.push_str("\n(via ");
        push_one_line(&mut desc, &sanitize_cow(from));
        desc.push(')');
    }
    if !cfg.enabled {
        return Preview {
            title: truncate_owned(format!("{label}{tool}"), MAX_TITLE_CHARS),
            description: truncate_owned(desc, max_desc),
        };
    }

    let (what, section, shown_keys) = match kind {
        Kind::Exec | Kind::Code => command_section(call, findings, &c, kind),
        Kind::Write => write_section(call, &c),
        Kind::Edit => edit_section(call, &c),
        Kind::Patch => patch_section(call, &c),
        Kind::Other => (generic_summary(call, &c), String::new(), Vec::new()),
    };
    let mut title = String::with_capacity(label.len() + tool.len() + what.len() + 2);
    title.push_str(label);
    title.push_str(&tool);
    if !what.is_empty() {
        title.push_str(": ");
        title.push_str(&what);
    }
    if !section.is_empty() {
        desc.push('\n');
        desc.push_str(&section);
    }
    let rest: Vec<(&String, &Value)> = call
        .params
        .iter()
        .filter(|(k, _)| !shown_keys.contains(&k.as_str()))
        .collect();
    for (shown, (key, value)) in rest.iter().enumerate() {
        if shown == MAX_PARAMS_SHOWN || desc.chars().count() >= max_desc {
            desc.push_str(&format!("\n… {} more", rest.len() - shown));
            break;
        }
        let rendered = if redact::is_secret_key(key) && cfg.redact_secrets {
            redact::REDACTED.to_owned()
        } else {
            match value {
                Value::String(s) => c.clean_cow(s, cfg.max_section_chars).into_owned(),
                other => c.clean(
                    &compact_json(&redact_strings(other, &c, cfg.max_section_chars)),
                    cfg.max_section_chars,
                ),
            }
        };
        desc.push('\n');
        push_one_line(&mut desc, &sanitize_cow(head(key, 64)));
        desc.push_str(": ");
        push_lines_cut(&mut desc, &rendered, cfg.max_lines);
    }
    Preview {
        title: truncate_owned(title, MAX_TITLE_CHARS),
        description: truncate_owned(desc, max_desc),
    }
}

/// Which preview section a call gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exec,
    Code,
    Write,
    Edit,
    Patch,
    Other,
}

impl Kind {
    fn of(call: &Call) -> Kind {
        if call.kinds().any(|k| k == "code_mode_exec") {
            return Kind::Code;
        }
        if call.kinds().any(|k| k == "apply_patch") {
            return Kind::Patch;
        }
        if call.kinds().any(|k| k == "exec") {
            return Kind::Exec;
        }
        let has_path = PATH_KEYS.iter().any(|k| call.params.contains_key(*k));
        if has_path
            && ["edit", "multi_edit", "multiedit", "str_replace"]
                .iter()
                .any(|n| call.tool_name.eq_ignore_ascii_case(n))
        {
            return Kind::Edit;
        }
        if has_path && call.params.get("content").is_some_and(Value::is_string) {
            return Kind::Write;
        }
        Kind::Other
    }
}

fn path_of(call: &Call) -> Option<&str> {
    PATH_KEYS
        .iter()
        .find_map(|k| call.params.get(*k).and_then(Value::as_str))
}

/// The start (byte offset in `text`) of the part a finding quotes, moved back to the start of
/// its command segment (after `;`, `&&`, `|`, a newline) when that is close.
fn focus(text: &str, findings: &[Finding]) -> Option<usize> {
    let mut ordered: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .collect();
    ordered.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in ordered {
        let Some(open) = f.detail.find('`') else {
            continue;
        };
        let rest = f.detail.get(open + 1..).unwrap_or("");
        let quote = rest.split(['`', '…']).next().unwrap_or("");
        // The first 24 characters of the quote are enough to find it.
        let needle: String = quote.chars().take(24).collect();
        if needle.chars().count() < 3 || needle.contains("[REDACTED") {
            continue;
        }
        if let Some(at) = text.find(needle.as_str()) {
            let before = text.get(..at).unwrap_or("");
            let segment = before
                .rfind(['\n', ';', '|', '&', '('])
                .map(|i| i + 1)
                .filter(|i| at - i <= 40)
                .unwrap_or(at);
            let start = segment
                + text
                    .get(segment..at)
                    .map_or(0, |s| s.len() - s.trim_start().len());
            return Some(start);
        }
    }
    None
}

/// exec / Code Mode: the command or code, the dangerous part first when a finding quotes it.
fn command_section<'a>(
    call: &'a Call,
    findings: &[Finding],
    c: &Cleaner<'_>,
    kind: Kind,
) -> (String, String, Vec<&'a str>) {
    let key = if kind == Kind::Code && call.params.get("code").is_some_and(Value::is_string) {
        "code"
    } else {
        "command"
    };
    let Some(text) = call.params.get(key).and_then(Value::as_str) else {
        return (generic_summary(call, c), String::new(), Vec::new());
    };
    // Redact the command as a whole first, so the excerpt's start never cuts a secret from
    // the context that marks it.
    let full = c.full(text, FOCUS_WINDOW_CHARS);
    let max = c.cfg.max_section_chars;
    let start = focus(&full, findings).filter(|at| {
        // Only when the quoted part would not be visible from the beginning.
        full.get(..*at).map_or(0, |s| s.chars().count()) + 24 > max.min(c.cfg.max_lines * 60)
            || full
                .get(..*at)
                .is_some_and(|s| s.matches('\n').count() >= c.cfg.max_lines)
    });
    let lines = text.lines().count();
    let label = if kind == Kind::Code {
        "code"
    } else {
        "command"
    };
    // The section: `command (N lines):` then the body.
    let mut section = String::with_capacity(max.min(full.len()) + 32);
    section.push_str(label);
    if lines > 1 {
        section.push_str(" (");
        section.push_str(&lines.to_string());
        section.push_str(" lines)");
    }
    section.push_str(":\n");
    let what = match start {
        Some(at) => {
            let tail = full.get(at..).unwrap_or("");
            section.push('…');
            push_lines_cut(
                &mut section,
                &truncate_cow(Cow::Borrowed(tail), max.saturating_sub(1)),
                c.cfg.max_lines,
            );
            one_line(&truncate_chars(&format!("…{tail}"), MAX_TITLE_CHARS))
        }
        None => {
            push_lines_cut(
                &mut section,
                &truncate_cow(Cow::Borrowed(full.as_str()), max),
                c.cfg.max_lines,
            );
            one_line(&truncate_cow(Cow::Borrowed(full.as_str()), MAX_TITLE_CHARS))
        }
    };
    (what, section, vec![key])
}

/// write: size, line count, the leading lines.
fn write_section<'a>(call: &'a Call, c: &Cleaner<'_>) -> (String, String, Vec<&'a str>) {
    let path = path_of(call).unwrap_or("");
    let content = call
        .params
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("");
    let lines = content.lines().count();
    let shown_path = one_line(&c.clean(path, 60));
    let what = format!("{shown_path} ({lines} lines)");
    let section = format!(
        "writes {} bytes, {lines} lines to {shown_path}:\n{}",
        content.len(),
        c.excerpt(content)
    );
    (what, section, [&PATH_KEYS[..], &["content"]].concat())
}

/// The replacements of an edit call: `edits` (array or JSON string) or the legacy pair.
fn edits(call: &Call) -> Vec<(String, String)> {
    let pair = |m: &serde_json::Map<String, Value>| {
        let old = m.get("oldText").or_else(|| m.get("old_string"))?.as_str()?;
        let new = m.get("newText").or_else(|| m.get("new_string"))?.as_str()?;
        Some((old.to_owned(), new.to_owned()))
    };
    let mut out = Vec::new();
    let list = match call.params.get("edits") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => serde_json::from_str::<Vec<Value>>(s).unwrap_or_default(),
        _ => Vec::new(),
    };
    for item in &list {
        if let Some(p) = item.as_object().and_then(pair) {
            out.push(p);
        }
    }
    if let Some(p) = pair(&call.params) {
        out.insert(0, p);
    }
    out
}

/// edit: the first old → new and how many replacements there are.
fn edit_section<'a>(call: &'a Call, c: &Cleaner<'_>) -> (String, String, Vec<&'a str>) {
    let path = one_line(&c.clean(path_of(call).unwrap_or(""), 60));
    let all = edits(call);
    let n = all.len();
    let what = format!("{path} ({n} replacement{})", if n == 1 { "" } else { "s" });
    let mut section = format!("{n} replacement{} in {path}", if n == 1 { "" } else { "s" });
    if let Some((old, new)) = all.first() {
        let half = Cleaner {
            redactor: c.redactor,
            cfg: Previews {
                max_section_chars: (c.cfg.max_section_chars / 2).max(16),
                max_lines: (c.cfg.max_lines / 2).max(1),
                ..c.cfg
            },
        };
        section.push_str(&format!(
            "; first:\n- {}\n+ {}",
            half.excerpt(old).replace('\n', "\n- "),
            half.excerpt(new).replace('\n', "\n+ ")
        ));
    }
    let keys = [
        &PATH_KEYS[..],
        &["edits", "oldText", "newText", "old_string", "new_string"],
    ]
    .concat();
    (what, section, keys)
}

/// One file of a patch: what happens to it and its line counts.
struct PatchFile {
    op: &'static str,
    path: String,
    added: usize,
    removed: usize,
}

/// apply_patch: the files with line counts, then the first changed lines.
fn patch_section<'a>(call: &'a Call, c: &Cleaner<'_>) -> (String, String, Vec<&'a str>) {
    let input = call
        .params
        .get("input")
        .or_else(|| call.params.get("patch"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut files: Vec<PatchFile> = Vec::new();
    let mut changes: Vec<&str> = Vec::new();
    for line in input.lines() {
        let directive = [
            ("*** Add File: ", "add"),
            ("*** Update File: ", "update"),
            ("*** Delete File: ", "delete"),
            ("+++ b/", "update"),
        ]
        .iter()
        .find_map(|(p, op)| line.strip_prefix(p).map(|rest| (*op, rest)));
        if let Some((op, path)) = directive {
            files.push(PatchFile {
                op,
                path: path.trim().to_owned(),
                added: 0,
                removed: 0,
            });
            continue;
        }
        if let Some(rest) = line.strip_prefix("*** Move to: ") {
            if let Some(f) = files.last_mut() {
                f.path = format!("{} → {}", f.path, rest.trim());
            }
            continue;
        }
        if line.starts_with("***") || line.starts_with("---") || line.starts_with("@@") {
            continue;
        }
        let Some(f) = files.last_mut() else {
            continue;
        };
        if line.starts_with('+') {
            f.added += 1;
            changes.push(line);
        } else if line.starts_with('-') {
            f.removed += 1;
            changes.push(line);
        }
    }
    let n = files.len();
    let what = match files.first() {
        Some(f) if n == 1 => format!("{} {}", f.op, one_line(&c.clean(&f.path, 60))),
        _ => format!("{n} files"),
    };
    let mut section = format!("patch: {n} file{}", if n == 1 { "" } else { "s" });
    for f in files.iter().take(c.cfg.max_files) {
        section.push_str(&format!(
            "\n{} {} (+{} -{})",
            f.op,
            one_line(&c.clean(&f.path, 80)),
            f.added,
            f.removed
        ));
    }
    if n > c.cfg.max_files {
        section.push_str(&format!("\n… {} more files", n - c.cfg.max_files));
    }
    if !changes.is_empty() {
        // Redacted as one text: a PEM block spans lines.
        let joined: String = changes
            .iter()
            .take(c.cfg.max_lines)
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        section.push('\n');
        section.push_str(&super::hide_patch_fragments(
            input,
            c.excerpt(&joined),
            c.redactor,
            c.cfg.redact_secrets,
        ));
    }
    (what, section, vec!["input", "patch"])
}

/// The title part of a tool without a section: its most telling string parameter.
fn generic_summary(call: &Call, c: &Cleaner<'_>) -> String {
    SUMMARY_KEYS
        .iter()
        .find_map(|k| call.params.get(*k).and_then(Value::as_str))
        .map(|s| one_line(&c.clean(s, c.cfg.max_section_chars)))
        .unwrap_or_default()
}

/// At most `max` lines of `text`; a cut is marked with `…`.
fn lines_cut(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    push_lines_cut(&mut out, text, max);
    out
}

/// Appends [`lines_cut`] of `text` to `out`.
fn push_lines_cut(out: &mut String, text: &str, max: usize) {
    let mut lines = text.lines();
    for (i, line) in lines.by_ref().take(max).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    if lines.next().is_some() {
        out.push_str("\n…");
    }
}

/// [`truncate_chars`] of a String the caller gives up: returned as it is when it fits.
fn truncate_owned(s: String, max: usize) -> String {
    truncate_cow(Cow::Owned(s), max).into_owned()
}

/// A copy of `v` with every string cut to what can be shown and redacted, so a secret is
/// seen in its own text and not through JSON escapes (`\\n`, `\\"`) that hide its edges.
fn redact_strings(v: &Value, c: &Cleaner<'_>, max: usize) -> Value {
    let mut budget = max;
    redact_walk(v, c, max, &mut budget, 0)
}

fn redact_walk(v: &Value, c: &Cleaner<'_>, max: usize, budget: &mut usize, depth: usize) -> Value {
    match v {
        Value::String(s) => {
            let shown = c.clean(s, max.min((*budget).max(8)));
            *budget = budget.saturating_sub(shown.chars().count() + 4);
            Value::String(shown)
        }
        Value::Array(items) if depth < 8 && *budget > 0 => Value::Array(
            items
                .iter()
                .take(max / 2 + 1)
                .map(|x| redact_walk(x, c, max, budget, depth + 1))
                .collect(),
        ),
        Value::Object(map) if depth < 8 && *budget > 0 => Value::Object(
            map.iter()
                .take(max / 2 + 1)
                .map(|(k, x)| {
                    let shown = if redact::is_secret_key(k) && c.cfg.redact_secrets {
                        Value::String(redact::REDACTED.to_owned())
                    } else {
                        redact_walk(x, c, max, budget, depth + 1)
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

/// `s` on one line: its words (split at any whitespace) joined by single spaces.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_one_line(&mut out, s);
    out
}

/// Appends [`one_line`] of `s` to `out`.
fn push_one_line(out: &mut String, s: &str) {
    if is_one_line(s) {
        out.push_str(s);
        return;
    }
    let mut first = true;
    for word in s.split_whitespace() {
        if !first {
            out.push(' ');
        }
        out.push_str(word);
        first = false;
    }
}

/// `s` is already its own [`one_line`]: ASCII without whitespace but single spaces between
/// words (any other character could be whitespace: the general path decides).
pub(crate) fn is_one_line(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut prev = b'x';
    bytes.iter().all(|&b| {
        let ok = b.is_ascii_graphic() || b == b' ' && prev != b' ';
        prev = b;
        ok
    })
}

/// `sanitize::truncate_cow` as it was.
fn truncate_cow(s: Cow<'_, str>, max: usize) -> Cow<'_, str> {
    if s.len() <= max || s.chars().count() <= max {
        return s;
    }
    Cow::Owned(truncate_chars(&s, max))
}

/// `sanitize::truncate_chars` as it was.
pub(crate) fn truncate_chars(s: &str, max: usize) -> String {
    if s.len() <= max || s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
