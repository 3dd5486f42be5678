//! Approval previews: what a human sees before deciding, bounded for the host.
//!
//! OpenClaw blocks the call when an approval title exceeds 80 code points or a description
//! 512, so both are bounded here whatever `previews` configures. Every piece of call text is
//! sanitized (controls, ANSI, bidi/zero-width marks), then redacted (secrets), then cut — a cut
//! therefore never leaves half a secret.
//!
//! Layout: the title says what and where in a few words (`exec: git push --force`,
//! `write: src/a.rs (12 lines)`, `apply_patch: 3 files`). The description starts with the
//! reason and the findings, then one section per tool kind:
//! - exec / Code Mode: the command or code, starting at the dangerous part when a finding
//!   quotes it (`…rm -rf /` after a long harmless prefix);
//! - write: size, line count and the leading lines;
//! - edit: the first replacement (old → new) and how many there are;
//! - apply_patch: the files with their added/removed line counts, then the first changes;
//!
//! then the remaining parameters, as many as fit.

mod extent;
pub mod pattern;
pub mod redact;
#[cfg(test)]
pub(crate) mod reference;
pub mod sanitize;

use crate::call::Call;
use crate::config::Previews;
use crate::decision::{Class, Preview, Severity};
use crate::finding::Finding;
use crate::json::push_u64;
use redact::{head, Redactor};
use sanitize::{sanitize_cow, truncate_chars, truncate_cow};
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
/// The parameters the write section shows (the path keys and `content`).
const WRITE_KEYS: [&str; 4] = ["path", "file_path", "filePath", "content"];
/// The parameters the edit section shows (the path keys and the replacements).
const EDIT_KEYS: [&str; 8] = [
    "path",
    "file_path",
    "filePath",
    "edits",
    "oldText",
    "newText",
    "old_string",
    "new_string",
];

/// The text cleaner for one preview: sanitize, redact (unless configured off), cut.
struct Cleaner<'a> {
    redactor: &'a Redactor,
    cfg: Previews,
    /// Texts the caller already found to be their own redaction (see [`render`]), each
    /// recognized by its address and length: the very string, not an equal one.
    unchanged: &'a [&'a str],
}

impl Cleaner<'_> {
    fn clean(&self, text: &str, max: usize) -> String {
        self.clean_cow(text, max).into_owned()
    }

    /// [`Cleaner::clean`], borrowing `text` when nothing changes.
    fn clean_cow<'t>(&self, text: &'t str, max: usize) -> Cow<'t, str> {
        truncate_cow(self.full(text, max), max)
    }

    /// Text sanitized and redacted but not cut (bounded by `head`), borrowing `text` when
    /// nothing changes.
    fn full<'t>(&self, text: &'t str, max: usize) -> Cow<'t, str> {
        let clean = sanitize_cow(head(text, max));
        if !self.cfg.redact_secrets {
            return clean;
        }
        match clean {
            Cow::Borrowed(s) => self.redact(s),
            Cow::Owned(s) => match self.redact(&s) {
                Cow::Borrowed(_) => Cow::Owned(s),
                Cow::Owned(r) => Cow::Owned(r),
            },
        }
    }

    /// [`Redactor::redact_cow`]; a text in `unchanged` is known to be its own redaction
    /// (redaction is a function of the text alone), so it is not scanned again.
    fn redact<'t>(&self, s: &'t str) -> Cow<'t, str> {
        if self.is_unchanged(s) {
            return Cow::Borrowed(s);
        }
        self.redactor.redact_cow(s)
    }

    /// `s` is one of the `unchanged` strings (the very string).
    fn is_unchanged(&self, s: &str) -> bool {
        self.unchanged
            .iter()
            .any(|u| u.len() == s.len() && std::ptr::eq(u.as_ptr(), s.as_ptr()))
    }

    /// Appends [`one_line`] of [`Cleaner::clean_cow`]`(text, max)` to `out`. A text that
    /// fits, needs no redaction (its own, or redaction is off) and is already on one line
    /// (printable ASCII, which sanitizing keeps) is appended as it is, read once (session 7;
    /// the general path reads it to sanitize and again to join its words).
    fn push_one_line(&self, out: &mut String, text: &str, max: usize) {
        if text.len() <= max
            && (!self.cfg.redact_secrets || self.is_unchanged(text))
            && is_one_line(text)
        {
            out.push_str(text);
            return;
        }
        push_one_line(out, &self.clean_cow(text, max));
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
pub fn clean_text(redactor: &Redactor, text: &str, max: usize) -> String {
    truncate_chars(&redactor.redact_cow(&sanitize_cow(head(text, max))), max)
}

/// Renders the title and description for one decision. `unchanged`: strings (the reason, a
/// finding's detail) the caller found to be their own redaction with this `redactor`; each
/// is recognized by its address and length, so only that very string counts.
pub fn render(
    call: &Call,
    class: Class,
    reason: &str,
    findings: &[Finding],
    redactor: &Redactor,
    cfg: &Previews,
    unchanged: &[&str],
) -> Preview {
    let c = Cleaner {
        redactor,
        cfg: *cfg,
        unchanged,
    };
    let max_desc = cfg.max_description_chars.min(MAX_DESCRIPTION_CHARS);
    let label = match class {
        Class::Critical => "CRITICAL ",
        Class::Block => "Blocked ",
        _ => "",
    };
    let tool_head = head(&call.tool_name, MAX_TITLE_CHARS);
    // Printable ASCII on one line is its own sanitized `one_line` (no copy).
    let tool: Cow<'_, str> = if is_one_line(tool_head) {
        Cow::Borrowed(tool_head)
    } else {
        Cow::Owned(one_line(&sanitize_cow(tool_head)))
    };
    let kind = Kind::of(call);

    // Reason and findings first: they say why a person is asked.
    let mut desc = String::with_capacity(max_desc + 64);
    c.push_one_line(&mut desc, reason, cfg.max_section_chars);
    // Most severe first, in their order within a severity (a stable sort by severity,
    // without sorting a copy: a decision has a few findings and fewer severities).
    let mut level = findings.iter().map(|f| f.severity).max();
    while let Some(severity) = level {
        for f in findings.iter().filter(|f| f.severity == severity) {
            desc.push_str("\n• ");
            c.push_one_line(&mut desc, &f.detail, 160);
        }
        level = findings
            .iter()
            .map(|f| f.severity)
            .filter(|s| *s < severity)
            .max();
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

    // The title: label, tool, then `: ` and what the section says the call does (if
    // anything); the section follows the description's lines after a line break.
    let mut title = String::with_capacity(label.len() + tool.len() + 2 + MAX_TITLE_CHARS + 2);
    title.push_str(label);
    title.push_str(&tool);
    let shown_keys = match kind {
        // Written in place (no section or summary text of its own).
        Kind::Exec | Kind::Code => {
            command_section_into(call, findings, &c, kind, &mut title, &mut desc)
        }
        Kind::Write | Kind::Edit | Kind::Patch | Kind::Other => {
            let (what, section, keys) = match kind {
                Kind::Write => write_section(call, &c),
                Kind::Edit => edit_section(call, &c),
                Kind::Patch => patch_section(call, &c),
                _ => (generic_summary(call, &c), String::new(), &[][..]),
            };
            push_what(&mut title, &what);
            if !section.is_empty() {
                desc.push('\n');
                desc.push_str(&section);
            }
            keys
        }
    };
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
        let needle = quote
            .char_indices()
            .nth(24)
            .and_then(|(end, _)| quote.get(..end))
            .unwrap_or(quote);
        if needle.chars().count() < 3 || needle.contains("[REDACTED") {
            continue;
        }
        if let Some(at) = text.find(needle) {
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
/// Appends `: ` and `what` to a title, when there is something to say.
fn push_what(title: &mut String, what: &str) {
    if !what.is_empty() {
        title.push_str(": ");
        title.push_str(what);
    }
}

/// [`push_what`] of [`one_line`]`(s)`, without making it first.
fn push_what_one_line(title: &mut String, s: &str) {
    title.push_str(": ");
    let at = title.len();
    push_one_line(title, s);
    if title.len() == at {
        title.truncate(at - 2);
    }
}

/// The exec / Code Mode section written in place: what the call does (its summary) after
/// `: ` on the `title`, and the section after a line break on `desc`. Returns the keys the
/// section shows.
fn command_section_into(
    call: &Call,
    findings: &[Finding],
    c: &Cleaner<'_>,
    kind: Kind,
    title: &mut String,
    desc: &mut String,
) -> &'static [&'static str] {
    let key = if kind == Kind::Code && call.params.get("code").is_some_and(Value::is_string) {
        "code"
    } else {
        "command"
    };
    let Some(text) = call.params.get(key).and_then(Value::as_str) else {
        push_what(title, &generic_summary(call, c));
        return &[];
    };
    // Redact the command as a whole first, so the excerpt's start never cuts a secret from
    // the context that marks it.
    let full = c.full(text, FOCUS_WINDOW_CHARS);
    let max = c.cfg.max_section_chars;
    // A start is only taken when what comes before it would not be visible: when the whole
    // text is visible (fewer bytes, so characters, and fewer lines than that bound), no quote
    // is looked for.
    let bound = max.min(c.cfg.max_lines.saturating_mul(60));
    let all_visible = full.len() + 24 <= bound
        && (full.len() < c.cfg.max_lines
            || full.bytes().filter(|&b| b == b'\n').count() < c.cfg.max_lines);
    let start = (!all_visible)
        .then(|| focus(&full, findings))
        .flatten()
        .filter(|at| {
            // Only when the quoted part would not be visible from the beginning.
            full.get(..*at).map_or(0, |s| s.chars().count()) + 24 > max.min(c.cfg.max_lines * 60)
                || full
                    .get(..*at)
                    .is_some_and(|s| s.matches('\n').count() >= c.cfg.max_lines)
        });
    let lines = line_count(text);
    let label = if kind == Kind::Code {
        "code"
    } else {
        "command"
    };
    // The section: `command (N lines):` then the body.
    desc.reserve(max.min(full.len()) + 33);
    desc.push('\n');
    desc.push_str(label);
    if lines > 1 {
        desc.push_str(" (");
        crate::json::push_u64(desc, lines as u64);
        desc.push_str(" lines)");
    }
    desc.push_str(":\n");
    match start {
        Some(at) => {
            let tail = full.get(at..).unwrap_or("");
            desc.push('…');
            push_lines_cut(
                desc,
                &truncate_cow(Cow::Borrowed(tail), max.saturating_sub(1)),
                c.cfg.max_lines,
            );
            push_what(
                title,
                &one_line(&truncate_chars(&format!("…{tail}"), MAX_TITLE_CHARS)),
            );
        }
        None => {
            push_lines_cut(
                desc,
                &truncate_cow(Cow::Borrowed(&full), max),
                c.cfg.max_lines,
            );
            push_what_one_line(title, &truncate_cow(Cow::Borrowed(&full), MAX_TITLE_CHARS));
        }
    }
    if key == "code" {
        &["code"]
    } else {
        &["command"]
    }
}

/// `text.lines().count()`, its newlines found by `memchr`: one line per newline, and one more
/// for a last line without one.
fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// write: size, line count, the leading lines.
fn write_section(call: &Call, c: &Cleaner<'_>) -> (String, String, &'static [&'static str]) {
    let path = path_of(call).unwrap_or("");
    let content = call
        .params
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("");
    let lines = content.lines().count();
    let shown_path = one_line(&c.clean(path, 60));
    let excerpt = c.excerpt(content);
    // `{shown_path} ({lines} lines)` and `writes {bytes} bytes, {lines} lines to
    // {shown_path}:\n{excerpt}`, written in place (two numbers of at most 20 digits each).
    let mut what = String::with_capacity(shown_path.len() + 30);
    what.push_str(&shown_path);
    what.push_str(" (");
    push_u64(&mut what, lines as u64);
    what.push_str(" lines)");
    let mut section = String::with_capacity(shown_path.len() + excerpt.len() + 80);
    section.push_str("writes ");
    push_u64(&mut section, content.len() as u64);
    section.push_str(" bytes, ");
    push_u64(&mut section, lines as u64);
    section.push_str(" lines to ");
    section.push_str(&shown_path);
    section.push_str(":\n");
    section.push_str(&excerpt);
    (what, section, &WRITE_KEYS)
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
fn edit_section(call: &Call, c: &Cleaner<'_>) -> (String, String, &'static [&'static str]) {
    let path = one_line(&c.clean(path_of(call).unwrap_or(""), 60));
    let all = edits(call);
    let n = all.len();
    // `{path} ({n} replacement(s))` and `{n} replacement(s) in {path}`, written in place.
    let plural = if n == 1 { "" } else { "s" };
    let mut what = String::with_capacity(path.len() + 40);
    what.push_str(&path);
    what.push_str(" (");
    push_u64(&mut what, n as u64);
    what.push_str(" replacement");
    what.push_str(plural);
    what.push(')');
    let mut section = String::with_capacity(path.len() + 40);
    push_u64(&mut section, n as u64);
    section.push_str(" replacement");
    section.push_str(plural);
    section.push_str(" in ");
    section.push_str(&path);
    if let Some((old, new)) = all.first() {
        let half = Cleaner {
            redactor: c.redactor,
            cfg: Previews {
                max_section_chars: (c.cfg.max_section_chars / 2).max(16),
                max_lines: (c.cfg.max_lines / 2).max(1),
                ..c.cfg
            },
            unchanged: c.unchanged,
        };
        let (old, new) = (half.excerpt(old), half.excerpt(new));
        section.push_str("; first:\n- ");
        push_marking_lines(&mut section, &old, "\n- ");
        section.push_str("\n+ ");
        push_marking_lines(&mut section, &new, "\n+ ");
    }
    (what, section, &EDIT_KEYS)
}

/// Appends `text` with each `\n` written as `marker` (what `text.replace('\n', marker)`
/// gives, without the copy).
fn push_marking_lines(out: &mut String, text: &str, marker: &str) {
    for (i, piece) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str(marker);
        }
        out.push_str(piece);
    }
}

/// One file of a patch: what happens to it and its line counts.
struct PatchFile {
    op: &'static str,
    path: String,
    added: usize,
    removed: usize,
}

/// The changed lines of a patch shown without the unchanged lines around them: a secret whose
/// context is an unchanged line (`- name: DB_PASSWORD` above a changed `value: …`) is hidden as
/// redaction of the whole patch finds it (its first `gate::FRAGMENT_HEAD_BYTES`, as the gate
/// reads the params, so the redaction memo already holds it).
pub(crate) fn hide_patch_fragments(
    input: &str,
    shown: String,
    redactor: &Redactor,
    redact_secrets: bool,
) -> String {
    if !redact_secrets {
        return shown;
    }
    let mut cut = input.len().min(crate::gate::FRAGMENT_HEAD_BYTES);
    while !input.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut fragments = Vec::new();
    redactor.secret_fragments(input.get(..cut).unwrap_or(""), &mut fragments);
    if fragments.is_empty() {
        return shown;
    }
    redactor.scrub(&shown, &fragments)
}

/// apply_patch: the files with line counts, then the first changed lines.
fn patch_section(call: &Call, c: &Cleaner<'_>) -> (String, String, &'static [&'static str]) {
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
    // The texts below written in place (no `format!`): `{op} {path}` or `{n} files`, then
    // `patch: {n} file(s)` and `\n{op} {path} (+{added} -{removed})` per file shown.
    let mut what = String::new();
    match files.first() {
        Some(f) if n == 1 => {
            what.push_str(f.op);
            what.push(' ');
            what.push_str(&one_line(&c.clean(&f.path, 60)));
        }
        _ => {
            push_u64(&mut what, n as u64);
            what.push_str(" files");
        }
    }
    let mut section = String::with_capacity(64);
    section.push_str("patch: ");
    push_u64(&mut section, n as u64);
    section.push_str(if n == 1 { " file" } else { " files" });
    for f in files.iter().take(c.cfg.max_files) {
        section.push('\n');
        section.push_str(f.op);
        section.push(' ');
        section.push_str(&one_line(&c.clean(&f.path, 80)));
        section.push_str(" (+");
        push_u64(&mut section, f.added as u64);
        section.push_str(" -");
        push_u64(&mut section, f.removed as u64);
        section.push(')');
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
        let shown = c.excerpt(&joined);
        section.push_str(&hide_patch_fragments(
            input,
            shown,
            c.redactor,
            c.cfg.redact_secrets,
        ));
    }
    (what, section, &["input", "patch"])
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
fn truncate_owned(mut s: String, max: usize) -> String {
    sanitize::truncate_in_place(&mut s, max);
    s
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
fn is_one_line(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    crate::swar::printable_without_double_space(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_one_line` as it was before its word-at-a-time scan: the reference.
    use super::reference::is_one_line as is_one_line_reference;

    #[test]
    fn is_one_line_is_its_reference() {
        let pieces = [
            "", " ", "  ", "a", "ab c", "\t", "\n", "é", "\u{7f}", "x  y", "abcdefgh", "abcdefg ",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(is_one_line(&s), is_one_line_reference(&s), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn the_shown_keys_are_the_path_keys_and_the_section_keys() {
        assert_eq!(WRITE_KEYS[..], [&PATH_KEYS[..], &["content"]].concat()[..]);
        assert_eq!(
            EDIT_KEYS[..],
            [
                &PATH_KEYS[..],
                &["edits", "oldText", "newText", "old_string", "new_string"]
            ]
            .concat()[..]
        );
    }

    proptest::proptest! {
        #[test]
        fn line_count_is_lines_count(s in "[a\n\r ]{0,12}|\\PC{0,20}") {
            proptest::prop_assert_eq!(line_count(&s), s.lines().count());
        }
    }

    #[test]
    fn line_count_is_lines_count_over_the_corpora() {
        for text in crate::testing::secret_texts()
            .into_iter()
            .chain(crate::testing::corpus_request_strings())
            .chain(["", "\n", "\n\n", "a\n", "a\r\n", "\r"].map(str::to_owned))
        {
            assert_eq!(line_count(&text), text.lines().count(), "{text:?}");
        }
    }

    /// [`one_line`] as it was written first: the reference for its shortcut.
    fn one_line_reference(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn one_line_agrees_with_joining_words() {
        let pieces = [
            "", " ", "  ", "a", "ab c", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{85}", "\u{a0}",
            "\u{2028}", "\u{3000}", "é", "\u{7f}", "\u{0}", "x  y", " x", "x ",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(one_line(&s), one_line_reference(&s), "{s:?}");
                    let mut out = String::from("kept ");
                    push_one_line(&mut out, &s);
                    assert_eq!(out, format!("kept {}", one_line_reference(&s)), "{s:?}");
                }
            }
        }
    }

    proptest::proptest! {
        /// The edit section's line marking is `str::replace` of each line break.
        #[test]
        fn marking_lines_is_replacing_line_breaks(s in "[a\n\r é]{0,20}|\\PC{0,30}", plus: bool) {
            let marker = if plus { "\n+ " } else { "\n- " };
            let mut out = "x".to_owned();
            push_marking_lines(&mut out, &s, marker);
            proptest::prop_assert_eq!(out, format!("x{}", s.replace('\n', marker)));
        }

        #[test]
        fn one_line_agrees_on_any_text(s in "\\PC*|[ -~\t\n\r]*|.*|[a ]{0,30}") {
            proptest::prop_assert_eq!(one_line(&s), one_line_reference(&s));
            proptest::prop_assert_eq!(is_one_line(&s), is_one_line_reference(&s));
        }

        #[test]
        fn clean_cow_agrees_with_clean_text(s in "\\PC*|[ -~\t\n]*|.*", max in 1usize..40, redact: bool) {
            let redactor = Redactor::new();
            let c = Cleaner { redactor: &redactor, cfg: Previews { redact_secrets: redact, ..Previews::default() }, unchanged: &[] };
            let expected = if redact {
                clean_text(&redactor, &s, max)
            } else {
                truncate_chars(&sanitize_cow(head(&s, max)), max)
            };
            proptest::prop_assert_eq!(c.clean_cow(&s, max).into_owned(), expected);
        }
    }

    #[test]
    fn clean_cow_agrees_with_clean_text_over_the_secret_corpus() {
        let redactor = Redactor::new();
        let c = Cleaner {
            redactor: &redactor,
            cfg: Previews::default(),
            unchanged: &[],
        };
        for text in crate::testing::secret_texts() {
            let text = text.as_str();
            for max in [8, 60, 160, 400, 4096] {
                assert_eq!(
                    c.clean_cow(text, max).into_owned(),
                    clean_text(&redactor, text, max),
                    "{text}"
                );
            }
        }
    }
    use crate::finding;

    fn preview_with(json: &str, findings: &[Finding], cfg: &Previews) -> Preview {
        let call = Call::parse(json).unwrap();
        render(
            &call,
            Class::Approval,
            "exec runs a shell command",
            findings,
            &Redactor::new(),
            cfg,
            &[],
        )
    }

    fn preview(json: &str) -> Preview {
        preview_with(json, &[], &Previews::default())
    }

    #[test]
    fn bounds_hold_for_huge_input() {
        let cmd = "x".repeat(100_000);
        for tool in ["exec", "write", "edit", "apply_patch", "other"] {
            let p = preview(&format!(
                r#"{{"toolName":"{tool}{}","params":{{"command":"{cmd}","path":"{cmd}","content":"{cmd}","input":"{cmd}","b":"{cmd}"}}}}"#,
                "t".repeat(500)
            ));
            assert!(p.title.chars().count() <= MAX_TITLE_CHARS);
            assert!(p.description.chars().count() <= MAX_DESCRIPTION_CHARS);
        }
        // Configured larger than the host allows: the host caps still hold.
        let p = preview_with(
            &format!(
                r#"{{"toolName":"exec","params":{{"command":"{cmd}","b":"{cmd}","c":"{cmd}"}}}}"#
            ),
            &[],
            &Previews {
                max_section_chars: 512,
                max_lines: 64,
                ..Previews::default()
            },
        );
        assert!(p.description.chars().count() <= MAX_DESCRIPTION_CHARS);
    }

    #[test]
    fn shows_the_command_in_the_title() {
        let p = preview(r#"{"toolName":"exec","params":{"command":"ls   -la\n/tmp"}}"#);
        assert_eq!(p.title, "exec: ls -la /tmp");
        assert!(p.description.starts_with("exec runs a shell command"));
        assert!(
            p.description.contains("command (2 lines):\nls   -la\n/tmp"),
            "{}",
            p.description
        );
    }

    #[test]
    fn the_dangerous_part_comes_first() {
        let prefix = (0..30)
            .map(|i| format!("echo step{i}"))
            .collect::<Vec<_>>()
            .join(" && ");
        let cmd = format!("{prefix} && rm -rf / --no-preserve-root");
        let f = Finding::new(
            &finding::RECURSIVE_DELETE_BROAD,
            "`rm -rf /` deletes the root".into(),
        );
        let p = preview_with(
            &serde_json::json!({"toolName": "exec", "params": {"command": cmd}}).to_string(),
            &[f],
            &Previews::default(),
        );
        assert!(p.title.starts_with("exec: …rm -rf /"), "{}", p.title);
        assert!(
            p.description.contains("\n…rm -rf / --no-preserve-root"),
            "{}",
            p.description
        );
        // Findings come before the section, most severe first.
        let at_finding = p.description.find("deletes the root").unwrap();
        assert!(at_finding < p.description.find("command:").unwrap());
    }

    #[test]
    fn write_shows_size_lines_and_leading_excerpt() {
        let content = (1..=40)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let p = preview(
            &serde_json::json!({"toolName": "write", "params": {"path": "src/a.txt", "content": content}}).to_string(),
        );
        assert_eq!(p.title, "write: src/a.txt (40 lines)");
        assert!(
            p.description.contains(&format!(
                "writes {} bytes, 40 lines to src/a.txt:\nline 1\nline 2",
                content.len()
            )),
            "{}",
            p.description
        );
        assert!(p.description.contains("line 12\n…"), "{}", p.description);
        assert!(!p.description.contains("line 13"));
    }

    #[test]
    fn edit_shows_the_first_replacement_and_the_count() {
        let p = preview(
            r#"{"toolName":"edit","params":{"path":"a.rs","edits":[{"oldText":"let x = 1;","newText":"let x = 2;"},{"oldText":"a","newText":"b"}]}}"#,
        );
        assert_eq!(p.title, "edit: a.rs (2 replacements)");
        assert!(
            p.description
                .contains("2 replacements in a.rs; first:\n- let x = 1;\n+ let x = 2;"),
            "{}",
            p.description
        );
        let p = preview(
            r#"{"toolName":"edit","params":{"path":"a.rs","edits":"[{\"oldText\":\"o\",\"newText\":\"n\"}]"}}"#,
        );
        assert_eq!(p.title, "edit: a.rs (1 replacement)");
    }

    #[test]
    fn apply_patch_lists_files_and_counts() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Update File: b.rs\n@@\n-old\n+new\n*** Delete File: c\n*** Update File: d\n*** Move to: e\n+x\n*** Update File: f\n+y\n*** End Patch";
        let p = preview(
            &serde_json::json!({"toolName": "apply_patch", "params": {"input": patch}}).to_string(),
        );
        assert_eq!(p.title, "apply_patch: 5 files");
        assert!(p.description.contains("patch: 5 files\nadd a.txt (+2 -0)\nupdate b.rs (+1 -1)\ndelete c (+0 -0)\nupdate d → e (+1 -0)\n… 1 more files\n+one\n+two\n-old"), "{}", p.description);
    }

    #[test]
    fn disabled_previews_show_no_parameters() {
        let p = preview_with(
            r#"{"toolName":"exec","params":{"command":"touch secret-plan"}}"#,
            &[],
            &Previews {
                enabled: false,
                ..Previews::default()
            },
        );
        assert_eq!(p.title, "exec");
        assert!(!p.description.contains("secret-plan"));
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

    #[test]
    fn sanitizes_controls_and_marks_invisible_characters() {
        let p = preview("{\"toolName\":\"exec\",\"params\":{\"command\":\"echo \\u001b[31mhi\\u202e txt\\u200b\"}}");
        assert!(
            p.description.contains("echo hi⟨U+202E⟩ txt⟨U+200B⟩"),
            "{}",
            p.description
        );
        assert!(!p.description.contains('\u{1b}'));
    }
}
