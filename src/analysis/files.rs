//! File-mutation analysis: what a `write`, `edit` (single or multi-edit) or `apply_patch` call
//! changes, read from its parameters alone.
//!
//! # Parameter shapes (OpenClaw 2026.9.6, read from the installed host)
//! - `write {path, content}` — `dist/tools-*.mjs` (`writeSchema`); `content` may be empty.
//! - `edit {path, edits: [{oldText, newText}]}` — `dist/tools-*.mjs` (`editSchema`,
//!   `prepareEditArguments`): `edits` may arrive as a JSON string, a legacy top-level
//!   `oldText`/`newText` pair is folded in, and `dist/tool-mutation-names-*.mjs` also reads
//!   `old_string`/`new_string`. There is no separate multi-edit tool in OpenClaw: a multi-edit
//!   is `edit` with several `edits`; a client tool named `multi_edit`/`MultiEdit` is read the
//!   same way.
//! - Path aliases `path` / `file_path` / `filePath`: `dist/tool-mutation-names-*.mjs`
//!   (`readTarget`) and `dist/tool-display-*.mjs` (`resolvePathArg`). The host strips one
//!   leading `@` (`dist/sandbox-paths-*.mjs`, `normalizeFileReferencePrefix`) and a trailing
//!   `</arg_value>>` (`dist/agent-tools.before-tool-call.decision-*.mjs`), so both spellings
//!   are classified.
//! - `apply_patch {input}` — `dist/core-coding-tools-*.mjs` (`applyPatchSchema`,
//!   `parsePatchText`, `parseOneHunk`, `parseUpdateFileChunk`) and `docs/tools/apply-patch.md`.
//!   The envelope is `*** Begin Patch` … `*** End Patch` (optionally inside a `<<EOF` heredoc),
//!   with hunks `*** Add File: p` (`+` lines), `*** Delete File: p`, `*** Update File: p`
//!   (optionally followed by `*** Move to: q`, then chunks opened by `@@`/`@@ ctx` holding
//!   ` `/`+`/`-` lines and an optional `*** End of File`). The parser here follows the host's
//!   executor line by line, so a line is a directive here exactly when it is one there.
//! - The host adds `derivedPaths` (resolved absolute targets) to `apply_patch` events
//!   (`deriveToolParams`); they are classified too but never become reusable targets, because
//!   they are best-effort hints rather than what the parameters say.
//!
//! # What it reports
//! Effects: `file-write` (add, update, write, edit), `file-delete`, `file-move`; locations:
//! `self-protection` ([`paths::is_self_protected`]), `system-location-write`
//! ([`paths::is_system_write_target`], and credential files from [`paths::is_credential_path`]:
//! critical when absolute, home-anchored or outside the workspace, a warning for a credential
//! file inside the workspace such as `.env`), `path-outside-workspace` for relative paths
//! that climb out (`../x`; such a path is also tested as if it were anchored at `/` and at
//! `~`, since it may land anywhere — a project in home is one `..` from `~/.bashrc` — and
//! as if below `~/.openclaw`, the default workspace's parent: `../extensions/…` is the gate's
//! code, [`paths::climbs_into_state_dir`]);
//! `loader-injection` (a warning) for a written git hook or git configuration
//! ([`paths::git_code_in`]: `.git/hooks/…`, `.git/config`), which runs code on the next git
//! command. Absolute targets go into [`Report::targets`], normalized; relative ones
//! never do (the host gives no authoritative working directory). Malformed input — a missing
//! or ill-typed path or content, disagreeing path aliases, no edits, a patch without its
//! envelope, an unknown directive, an empty file path — makes the report incomplete with an
//! `analysis-incomplete` finding that says what. Sizes and line counts are not findings.
//!
//! # Invariants and limits
//! One pass over the lines of a patch; details name at most three paths per finding (the rest
//! are counted), at most three problems are described; paths are shown shortened to 64
//! characters without control characters. `read_only` is always false. Non-goals: the file
//! contents themselves (previews are rendered elsewhere), symlinks and the real filesystem.

use crate::analysis::paths;
use crate::analysis::Report;
#[cfg(test)]
use crate::call::short;
use crate::call::Call;
use crate::decision::Severity;
use crate::finding::{self, Finding, FindingSpec};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Path parameter names the host accepts for file tools.
pub(crate) const PATH_KEYS: [&str; 3] = ["path", "file_path", "filePath"];

/// Paths named per finding detail before the rest are only counted.
const NAMES_PER_DETAIL: usize = 3;
/// Problems described before the rest are only counted.
const PROBLEMS_DESCRIBED: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Write,
    Edit,
    ApplyPatch,
}

/// What a file-mutation call does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Creates or changes the file.
    Write,
    /// Removes the file.
    Delete,
    /// Only the location matters (the source of a move, a host-derived path).
    Touch,
}

/// Analyses a write / edit / multi-edit / apply_patch call; `None` for any other tool.
pub fn analyze(call: &Call) -> Option<Report> {
    let tool = tool_of(call)?;
    let mut acc = Acc::new();
    match tool {
        Tool::Write => write(&call.params, &mut acc),
        Tool::Edit => edit(&call.params, &mut acc),
        Tool::ApplyPatch => match call.params.get("input") {
            Some(Value::String(s)) => patch(s, &mut acc),
            Some(_) => acc.problem("`input` is not a string".to_owned()),
            None => acc.problem("no `input` patch".to_owned()),
        },
    }
    for derived in &call.derived_paths {
        acc.location(derived, Effect::Touch, false);
    }
    Some(acc.finish())
}

/// True for the structured file-mutation tools this analyzer reads (`write`, `edit`,
/// multi-edit, `apply_patch`), by host kind or by name.
pub fn is_file_tool(call: &Call) -> bool {
    tool_of(call).is_some()
}

fn tool_of(call: &Call) -> Option<Tool> {
    if call.kinds().any(|k| k == "apply_patch") {
        return Some(Tool::ApplyPatch);
    }
    tool_named(&call.tool_name)
}

/// The file tool a (host or client) tool name names: ignoring `_`, `-` and case.
fn tool_named(tool_name: &str) -> Option<Tool> {
    // The name without `_`/`-`, lowercase, compared char by char (no copy of it made).
    let squashed = || {
        tool_name
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
    };
    [
        ("write", Tool::Write),
        ("edit", Tool::Edit),
        ("multiedit", Tool::Edit),
        ("applypatch", Tool::ApplyPatch),
    ]
    .into_iter()
    .find(|(name, _)| squashed().eq(name.chars()))
    .map(|(_, tool)| tool)
}

fn write(params: &Map<String, Value>, acc: &mut Acc) {
    for p in path_args(params, acc) {
        acc.location(p, Effect::Write, true);
    }
    match params.get("content") {
        Some(Value::String(_)) => {}
        Some(_) => acc.problem("`content` is not a string".to_owned()),
        None => acc.problem("no `content`".to_owned()),
    }
}

fn edit(params: &Map<String, Value>, acc: &mut Acc) {
    for p in path_args(params, acc) {
        acc.location(p, Effect::Write, true);
    }
    let parsed;
    let edits = match params.get("edits") {
        Some(Value::Array(items)) => Some(items.as_slice()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => {
                parsed = items;
                Some(parsed.as_slice())
            }
            _ => {
                acc.problem("`edits` is text that is not a JSON array".to_owned());
                return;
            }
        },
        Some(_) => {
            acc.problem("`edits` is not an array".to_owned());
            return;
        }
        None => None,
    };
    let legacy = replacement(params);
    match (edits, legacy) {
        (Some([]), Err(_)) | (None, Err(_)) => acc.problem("no `edits`".to_owned()),
        (Some(items), _) => {
            for (i, item) in items.iter().enumerate() {
                let problem = match item {
                    Value::Object(m) => replacement(m).err(),
                    _ => Some("is not an object"),
                };
                if let Some(what) = problem {
                    acc.problem(format!("edit {} {what}", i + 1));
                }
            }
        }
        (None, Ok(())) => {}
    }
}

/// One `{oldText, newText}` replacement (or `old_string`/`new_string`).
fn replacement(m: &Map<String, Value>) -> Result<(), &'static str> {
    let old = m.get("oldText").or_else(|| m.get("old_string"));
    let new = m.get("newText").or_else(|| m.get("new_string"));
    match (old, new) {
        (Some(Value::String(o)), Some(Value::String(_))) if !o.trim().is_empty() => Ok(()),
        (Some(Value::String(_)), Some(Value::String(_))) => Err("has an empty `oldText`"),
        (None, _) => Err("has no `oldText`"),
        (Some(_), None) => Err("has no `newText`"),
        _ => Err("has a `oldText` or `newText` that is not a string"),
    }
}

/// The path arguments of a file tool: every alias present, each a non-empty string.
pub(crate) fn path_args<'a>(params: &'a Map<String, Value>, acc: &mut Acc) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut bad = false;
    for key in PATH_KEYS {
        match params.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.trim().is_empty() => {
                if !out.iter().any(|o| o.trim() == s.trim()) {
                    out.push(s);
                }
            }
            Some(Value::String(_)) => {
                bad = true;
                acc.problem(format!("`{key}` is empty"));
            }
            Some(_) => {
                bad = true;
                acc.problem(format!("`{key}` is not a string"));
            }
        }
    }
    if out.is_empty() && !bad {
        acc.problem("no `path`".to_owned());
    }
    if out.len() > 1 {
        acc.problem("the path aliases name different files".to_owned());
    }
    out
}

/// The spellings of a path the host may act on: as written, without a trailing
/// `</arg_value>>`, and without one leading `@`.
pub(crate) fn spellings(raw: &str) -> Vec<&str> {
    let mut out = vec![raw.trim()];
    let mut s = raw.trim();
    // The suffix is `</arg_value>` and at least one `>`: only a text ending in `>>` has it
    // (no substring search set up for the rest).
    if !s.ends_with(">>") {
    } else if let Some(i) = s.find("</arg_value>") {
        if s.get(i + "</arg_value>".len()..)
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c == '>'))
        {
            s = s.get(..i).unwrap_or(s);
            out.push(s);
        }
    }
    if let Some(rest) = s.strip_prefix('@') {
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// The spelling the host acts on (every rewrite applied).
#[cfg(test)]
fn effective(raw: &str) -> &str {
    spellings(raw).last().copied().unwrap_or("")
}

/// Findings grouped by (id, severity, label), each detail naming a bounded list of paths.
#[derive(Debug)]
pub(crate) struct Acc {
    report: Report,
    groups: Vec<Group>,
    problems: usize,
    seen_targets: BTreeSet<String>,
}

#[derive(Debug)]
struct Group {
    spec: &'static FindingSpec,
    severity: Severity,
    label: &'static str,
    names: Vec<String>,
    more: usize,
}

impl Acc {
    pub(crate) fn new() -> Acc {
        Acc {
            report: Report::clean(),
            groups: Vec::new(),
            problems: 0,
            seen_targets: BTreeSet::new(),
        }
    }

    /// Records that `name` (already formatted) falls under (spec, severity, label).
    pub(crate) fn note(
        &mut self,
        spec: &'static FindingSpec,
        severity: Severity,
        label: &'static str,
        name: String,
    ) {
        let group = match self
            .groups
            .iter_mut()
            .position(|g| g.spec.id == spec.id && g.severity == severity && g.label == label)
        {
            Some(i) => self.groups.get_mut(i),
            None => {
                self.groups.push(Group {
                    spec,
                    severity,
                    label,
                    names: Vec::new(),
                    more: 0,
                });
                self.groups.last_mut()
            }
        };
        if let Some(g) = group.filter(|g| !g.names.contains(&name)) {
            if g.names.len() < NAMES_PER_DETAIL {
                g.names.push(name);
            } else {
                g.more += 1;
            }
        }
    }

    /// Malformed input: the report becomes incomplete and says what.
    pub(crate) fn problem(&mut self, what: String) {
        self.problems += 1;
        self.report.complete = false;
        if self.problems <= PROBLEMS_DESCRIBED {
            self.report
                .add(Finding::new(&finding::ANALYSIS_INCOMPLETE, what));
        } else if self.problems == PROBLEMS_DESCRIBED + 1 {
            self.report.add(Finding::new(
                &finding::ANALYSIS_INCOMPLETE,
                "and more problems".to_owned(),
            ));
        }
    }

    /// Classifies one path a call acts on; `as_target` puts an absolute path into the
    /// report's targets.
    pub(crate) fn location(&mut self, raw: &str, effect: Effect, as_target: bool) {
        let shown = quoted(raw);
        if raw.trim().is_empty() {
            self.problem("empty file path".to_owned());
            return;
        }
        match effect {
            Effect::Write => self.note(
                &finding::FILE_WRITE,
                Severity::Warning,
                "writes",
                shown.clone(),
            ),
            Effect::Delete => self.note(
                &finding::FILE_DELETE,
                Severity::Warning,
                "deletes",
                shown.clone(),
            ),
            Effect::Touch => {}
        }
        let forms = Forms::of(raw);
        if let Some((spec, severity, label)) = forms.classify() {
            self.note(spec, severity, label, shown.clone());
        }
        if effect == Effect::Write && forms.all().iter().any(|f| f.git_code) {
            self.note(
                &finding::LOADER_INJECTION,
                Severity::Warning,
                "writes git hooks or config (run by the next git command)",
                shown.clone(),
            );
        }
        // Anchor and escape do not depend on case: the lowercase form's are the path's.
        let (anchored, escapes) = forms.effective();
        if !anchored && escapes {
            self.note(
                &finding::PATH_OUTSIDE_WORKSPACE,
                Severity::Warning,
                "climbs out of the working directory",
                shown,
            );
        }
        if as_target && anchored {
            self.target(paths::norm(forms.last, false).render());
        } else if as_target {
            self.report.relative_targets = true;
        }
    }

    /// Adds a verified absolute target (normalized) once.
    pub(crate) fn target(&mut self, t: String) {
        if self.seen_targets.insert(t.clone()) {
            self.report.targets.push(t);
        }
    }

    pub(crate) fn finish(mut self) -> Report {
        for g in self.groups {
            // `{label} {names joined by ", "}`, written into one string.
            let len = g.names.iter().map(|n| n.len() + 2).sum::<usize>();
            let mut detail = String::with_capacity(g.label.len() + len + 1);
            detail.push_str(g.label);
            detail.push(' ');
            for (i, n) in g.names.iter().enumerate() {
                if i > 0 {
                    detail.push_str(", ");
                }
                detail.push_str(n);
            }
            if g.more > 0 {
                detail.push_str(&format!(" and {} more", g.more));
            }
            self.report
                .add(Finding::new(g.spec, detail).with_severity(g.severity));
        }
        self.report.read_only = false;
        self.report
    }
}

/// The location finding for a path that is written, deleted or moved, if any:
/// self-protection first, then system locations, then credential files.
#[cfg(test)]
pub(crate) fn classify_location(
    raw: &str,
) -> Option<(&'static FindingSpec, Severity, &'static str)> {
    Forms::of(raw).classify()
}

/// What the location classes need of one spelling of a path, from a single lowercase
/// normalization ([`paths::lowered`]) instead of one per class.
#[derive(Debug, Clone, Copy, Default)]
struct Form {
    self_protected: bool,
    system: bool,
    credential: bool,
    /// A git hook or git configuration ([`paths::git_code_in`]).
    git_code: bool,
    anchored: bool,
    escapes: bool,
}

impl Form {
    /// The classes of every reading of `s` ([`paths::any_reading`]: an 8.3 short name that
    /// may stand for several protected names is each of them) together; anchor and escape
    /// are the path's own (the first reading's).
    fn of(s: &str) -> Form {
        let own = Form::of_text(s);
        // `$OPENCLAW_CONFIG_PATH`, `$OPENCLAW_STATE_DIR/…` are also the places they name (the
        // classes of both; anchor and escape stay the text's own).
        match paths::openclaw_variable(s) {
            None => own,
            Some(standing) => {
                let named = Form::of_text(&standing);
                Form {
                    self_protected: own.self_protected || named.self_protected,
                    system: own.system || named.system,
                    credential: own.credential || named.credential,
                    git_code: own.git_code || named.git_code,
                    ..own
                }
            }
        }
    }

    fn of_text(s: &str) -> Form {
        let mut out: Option<Form> = None;
        paths::any_reading(s, |t| {
            let f = Form::of_one(t);
            out = Some(match out {
                None => f,
                Some(o) => Form {
                    self_protected: o.self_protected || f.self_protected,
                    system: o.system || f.system,
                    credential: o.credential || f.credential,
                    git_code: o.git_code || f.git_code,
                    ..o
                },
            });
            false
        });
        out.unwrap_or_default()
    }

    fn of_one(s: &str) -> Form {
        let url = paths::is_url(s);
        paths::lowered(s, |n| {
            let anchored = !n.anchor.is_empty();
            let mut f = Form {
                // Climbing out of the default workspace lands in OpenClaw's state directory.
                self_protected: !url
                    && (paths::self_protected_in(&n.segments)
                        || paths::climbs_into_state_dir(n.anchor, n.escapes, &n.segments)),
                system: !url && paths::system_write_target_in(n.anchor, &n.segments),
                credential: !url && paths::credential_in(n.anchor, &n.segments),
                git_code: !url && paths::git_code_in(&n.segments),
                anchored,
                escapes: n.escapes,
            };
            if !anchored && n.escapes {
                // Climbing out may land anywhere: also tested as if anchored at `/` and at
                // home (`../.bashrc` from a project in home; the classes ignore case, so the
                // lowercase segments stand for the path's).
                let joined = n.segments.join("/");
                for rooted in [format!("/{joined}"), format!("~/{joined}")] {
                    f.system |= paths::is_system_write_target(&rooted);
                    f.credential |= paths::is_credential_path(&rooted);
                }
            }
            f
        })
    }
}

/// Every spelling of a path ([`spellings`]), each classified once.
struct Forms<'a> {
    forms: [Form; 3],
    n: usize,
    /// The spelling the host acts on (every rewrite applied).
    last: &'a str,
}

impl<'a> Forms<'a> {
    fn of(raw: &'a str) -> Forms<'a> {
        let mut out = Forms {
            forms: [Form::default(); 3],
            n: 0,
            last: "",
        };
        for (slot, s) in out.forms.iter_mut().zip(spellings(raw)) {
            *slot = Form::of(s);
            out.n += 1;
            out.last = s;
        }
        out
    }

    fn all(&self) -> &[Form] {
        self.forms.get(..self.n).unwrap_or(&[])
    }

    /// `classify_location`'s answer.
    fn classify(&self) -> Option<(&'static FindingSpec, Severity, &'static str)> {
        let forms = self.all();
        if forms.iter().any(|f| f.self_protected) {
            return Some((&finding::SELF_PROTECTION, Severity::Critical, "touches"));
        }
        if forms.iter().any(|f| f.system) {
            return Some((
                &finding::SYSTEM_LOCATION_WRITE,
                Severity::Critical,
                "writes the system location",
            ));
        }
        if forms.iter().any(|f| f.credential) {
            let inside = forms.iter().all(|f| !f.anchored && !f.escapes);
            let severity = if inside {
                Severity::Warning
            } else {
                Severity::Critical
            };
            return Some((
                &finding::SYSTEM_LOCATION_WRITE,
                severity,
                "overwrites the credential file",
            ));
        }
        None
    }

    /// (anchored, escapes) of the spelling the host acts on.
    fn effective(&self) -> (bool, bool) {
        self.all()
            .last()
            .map_or((false, false), |f| (f.anchored, f.escapes))
    }
}

/// A path for a detail: shortened, without control characters, in backticks.
/// (`call::short` in backticks, written straight into one string.)
pub(crate) fn quoted(raw: &str) -> String {
    let s = raw.trim();
    let mut out = String::with_capacity(s.len().min(64) + 5);
    out.push('`');
    out.extend(s.chars().take(64).filter(|c| !c.is_control()));
    if s.chars().nth(64).is_some() {
        out.push('…');
    }
    out.push('`');
    out
}

/// Walks an `apply_patch` envelope the way the host's executor parses it, classifying every
/// path and recording every way the patch is malformed.
pub(crate) fn patch(input: &str, acc: &mut Acc) {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        acc.problem("the patch is empty".to_owned());
        return;
    }
    let lines = patch_lines(trimmed);
    let (body, first_line) = match envelope(&lines) {
        Ok(found) => found,
        Err(what) => {
            acc.problem(what.to_owned());
            // Keep going over everything that is not a boundary, so targets are still seen.
            let start = usize::from(lines.first().is_some_and(|l| l.trim() == BEGIN));
            let end = lines.len()
                - usize::from(lines.len() > start && lines.last().is_some_and(|l| l.trim() == END));
            (lines.get(start..end).unwrap_or(&[]), start + 1)
        }
    };
    let mut hunks = 0usize;
    let mut i = 0usize;
    while let Some(line) = body.get(i) {
        let t = line.trim();
        let n = i + first_line;
        if let Some(p) = t.strip_prefix(ADD) {
            hunks += 1;
            acc.location(p, Effect::Write, true);
            i += 1;
            while body.get(i).is_some_and(|l| l.starts_with('+')) {
                i += 1;
            }
        } else if let Some(p) = t.strip_prefix(DELETE) {
            hunks += 1;
            acc.location(p, Effect::Delete, true);
            i += 1;
        } else if let Some(p) = t.strip_prefix(UPDATE) {
            hunks += 1;
            acc.location(p, Effect::Write, true);
            i += 1;
            if let Some(to) = body.get(i).and_then(|l| l.trim().strip_prefix(MOVE)) {
                i += 1;
                acc.note(
                    &finding::FILE_MOVE,
                    Severity::Warning,
                    "moves",
                    format!("{} to {}", quoted(p), quoted(to)),
                );
                acc.location(to, Effect::Write, true);
            }
            let mut chunks = 0usize;
            while let Some(l) = body.get(i) {
                if l.trim().is_empty() {
                    i += 1;
                    continue;
                }
                if l.starts_with("***") {
                    break;
                }
                match chunk(body, i, chunks == 0) {
                    Ok(consumed) => {
                        chunks += 1;
                        i += consumed.max(1);
                    }
                    Err(what) => {
                        acc.problem(format!("line {}: {what}", i + first_line));
                        i += 1;
                    }
                }
            }
            if chunks == 0 {
                acc.problem(format!(
                    "line {n}: the update of {} has no changes",
                    quoted(p)
                ));
            }
        } else {
            let what = if t.starts_with(MOVE.trim_end()) {
                "`*** Move to:` not directly after an `*** Update File:`"
            } else if t.is_empty() {
                "a blank line where a file directive belongs"
            } else if t.starts_with("***") {
                "an unknown or incomplete patch directive"
            } else {
                "a line outside any file directive"
            };
            acc.problem(format!("line {n}: {what}"));
            i += 1;
        }
    }
    if hunks == 0 {
        acc.problem("the patch changes no files".to_owned());
    }
}

/// The lines of a patch (`split('\n')`, each without one trailing `\r`), found with memchr
/// and collected into a list sized once.
fn patch_lines(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', b).count() + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
        let l = text.get(start..end).unwrap_or("");
        lines.push(l.strip_suffix('\r').unwrap_or(l));
        start = end + 1;
    }
    lines
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// The lines between the boundaries, also inside a `<<EOF` … `EOF` heredoc as the host allows,
/// with the 1-based line number of the first of them.
fn envelope<'a, 'b>(lines: &'b [&'a str]) -> Result<(&'b [&'a str], usize), &'static str> {
    let strict = |ls: &'b [&'a str]| -> Result<&'b [&'a str], &'static str> {
        let first = ls.first().map(|l| l.trim());
        let last = ls.last().map(|l| l.trim());
        if first != Some(BEGIN) {
            return Err("the patch does not start with `*** Begin Patch`");
        }
        if last != Some(END) || ls.len() < 2 {
            return Err("the patch does not end with `*** End Patch`");
        }
        Ok(ls.get(1..ls.len() - 1).unwrap_or(&[]))
    };
    match strict(lines) {
        Ok(body) => Ok((body, 2)),
        Err(e) => {
            let heredoc = matches!(
                lines.first().copied(),
                Some("<<EOF" | "<<'EOF'" | "<<\"EOF\"")
            ) && lines.last().is_some_and(|l| l.ends_with("EOF"))
                && lines.len() >= 4;
            if heredoc {
                strict(lines.get(1..lines.len() - 1).unwrap_or(&[])).map(|body| (body, 3))
            } else {
                Err(e)
            }
        }
    }
}

/// One update chunk starting at `start`: how many lines it spans.
fn chunk(lines: &[&str], start: usize, first: bool) -> Result<usize, &'static str> {
    let mut i = start;
    match lines.get(i) {
        Some(l) if *l == "@@" || l.starts_with("@@ ") => i += 1,
        Some(_) if first => {}
        _ => return Err("a change that does not start with `@@`"),
    }
    if i >= lines.len() {
        return Err("a change with no lines");
    }
    let mut parsed = 0usize;
    while let Some(l) = lines.get(i) {
        if *l == END_OF_FILE {
            if parsed == 0 {
                return Err("a change with no lines");
            }
            i += 1;
            break;
        }
        match l.chars().next() {
            None | Some(' ' | '+' | '-') => {
                parsed += 1;
                i += 1;
            }
            _ if parsed == 0 => {
                return Err("a change line that does not start with ` `, `+` or `-`")
            }
            _ => break,
        }
    }
    Ok(i - start)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The forms before [`Forms`] classified each spelling once (the references).

    impl Acc {
        fn location_oracle(&mut self, raw: &str, effect: Effect, as_target: bool) {
            let shown = quoted(raw);
            if raw.trim().is_empty() {
                self.problem("empty file path".to_owned());
                return;
            }
            match effect {
                Effect::Write => self.note(
                    &finding::FILE_WRITE,
                    Severity::Warning,
                    "writes",
                    shown.clone(),
                ),
                Effect::Delete => self.note(
                    &finding::FILE_DELETE,
                    Severity::Warning,
                    "deletes",
                    shown.clone(),
                ),
                Effect::Touch => {}
            }
            if let Some((spec, severity, label)) = classify_location_oracle(raw) {
                self.note(spec, severity, label, shown.clone());
            }
            let git = spellings(raw).iter().any(|s| {
                paths::any_reading(s, |t| {
                    let n = paths::normalize(&t.to_ascii_lowercase());
                    let segs: Vec<&str> = n.segments.iter().map(String::as_str).collect();
                    !paths::is_url(t) && paths::git_code_in(&segs)
                })
            });
            if effect == Effect::Write && git {
                self.note(
                    &finding::LOADER_INJECTION,
                    Severity::Warning,
                    "writes git hooks or config (run by the next git command)",
                    shown.clone(),
                );
            }
            let eff = effective(raw);
            let norm = paths::normalize(eff);
            if norm.anchor.is_empty() && norm.escapes {
                self.note(
                    &finding::PATH_OUTSIDE_WORKSPACE,
                    Severity::Warning,
                    "climbs out of the working directory",
                    shown,
                );
            }
            if as_target && paths::is_absolute(eff) {
                self.target(norm.render());
            } else if as_target {
                self.report.relative_targets = true;
            }
        }
    }

    /// The reference [`classify_location`]: one normalization per class. The location finding for a path that is written, deleted or moved, if any:
    /// self-protection first, then system locations, then credential files.
    fn classify_location_oracle(
        raw: &str,
    ) -> Option<(&'static FindingSpec, Severity, &'static str)> {
        // Every reading of every spelling (an 8.3 short name is each name it may stand for).
        let forms: Vec<String> = spellings(raw)
            .iter()
            .flat_map(|s| {
                let mut readings = Vec::new();
                paths::any_reading(s, |t| {
                    readings.push(t.to_owned());
                    false
                });
                readings
            })
            .collect();
        if forms.iter().any(|s| paths::is_self_protected(s)) {
            return Some((&finding::SELF_PROTECTION, Severity::Critical, "touches"));
        }
        let rooted: Vec<String> = forms
            .iter()
            .filter_map(|s| {
                let n = paths::normalize(s);
                (n.anchor.is_empty() && n.escapes).then(|| {
                    let joined = n.segments.join("/");
                    [format!("/{joined}"), format!("~/{joined}")]
                })
            })
            .flatten()
            .collect();
        if forms.iter().any(|s| paths::is_system_write_target(s))
            || rooted.iter().any(|s| paths::is_system_write_target(s))
        {
            return Some((
                &finding::SYSTEM_LOCATION_WRITE,
                Severity::Critical,
                "writes the system location",
            ));
        }
        if forms.iter().any(|s| paths::is_credential_path(s))
            || rooted.iter().any(|s| paths::is_credential_path(s))
        {
            let inside = forms.iter().all(|s| {
                let n = paths::normalize(s);
                n.anchor.is_empty() && !n.escapes
            });
            let severity = if inside {
                Severity::Warning
            } else {
                Severity::Critical
            };
            return Some((
                &finding::SYSTEM_LOCATION_WRITE,
                severity,
                "overwrites the credential file",
            ));
        }
        None
    }

    /// Every corpus text and word as a path (and as `../` and `@` forms of it).
    fn location_texts() -> Vec<String> {
        let mut texts = crate::analysis::shell::rules::testing_corpus_texts();
        let more: Vec<String> = texts
            .iter()
            .filter(|t| t.len() < 200)
            .flat_map(|t| {
                [
                    format!("../{t}"),
                    format!("@{t}"),
                    format!("{t}</arg_value>>"),
                ]
            })
            .collect();
        texts.extend(more);
        texts.sort_unstable();
        texts.dedup();
        texts
    }

    fn spellings_oracle(raw: &str) -> Vec<&str> {
        let mut out = vec![raw.trim()];
        let mut s = raw.trim();
        if let Some(i) = s.find("</arg_value>") {
            if s.get(i + "</arg_value>".len()..)
                .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c == '>'))
            {
                s = s.get(..i).unwrap_or(s);
                out.push(s);
            }
        }
        if let Some(rest) = s.strip_prefix('@') {
            if !rest.is_empty() {
                out.push(rest);
            }
        }
        out
    }

    fn tool_named_oracle(tool_name: &str) -> Option<Tool> {
        let name: String = tool_name
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        match name.as_str() {
            "write" => Some(Tool::Write),
            "edit" | "multiedit" => Some(Tool::Edit),
            "applypatch" => Some(Tool::ApplyPatch),
            _ => None,
        }
    }

    fn locations_equal_their_references(texts: &[String]) {
        for t in texts {
            let old: Vec<&str> = t
                .split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect();
            assert_eq!(patch_lines(t), old, "{t:?}");
            assert_eq!(quoted(t), format!("`{}`", short(t.trim())), "{t:?}");
            assert_eq!(spellings(t), spellings_oracle(t), "{t:?}");
            assert_eq!(tool_named(t), tool_named_oracle(t), "{t:?}");
            assert_eq!(classify_location(t), classify_location_oracle(t), "{t:?}");
            // The effect only picks the note made before classifying (unchanged code).
            for (effect, as_target) in [(Effect::Write, true), (Effect::Touch, false)] {
                let (mut new, mut old) = (Acc::new(), Acc::new());
                new.location(t, effect, as_target);
                old.location_oracle(t, effect, as_target);
                // And a second path, so grouping sees both.
                new.location("../.ssh/x", effect, as_target);
                old.location_oracle("../.ssh/x", effect, as_target);
                assert_eq!(new.finish(), old.finish(), "{t:?}");
            }
        }
    }

    #[test]
    fn locations_equal_the_reference_over_the_corpora() {
        let mut texts = location_texts();
        for n in [
            "Write",
            "EDIT",
            "multi_edit",
            "Multi-Edit",
            "apply_patch",
            "Apply-Patch",
            "İedit",
            "writé",
            "ﬀ",
        ] {
            texts.push(n.to_owned());
        }
        locations_equal_their_references(&texts);
        let hits = texts
            .iter()
            .filter(|t| classify_location(t).is_some())
            .count();
        assert!(hits > 500, "{hits}");
    }

    proptest::proptest! {
        #[test]
        fn locations_equal_the_reference_on_random_paths(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "/", "\\", "~", "..", ".", "", "@", "</arg_value>", ">", "$HOME", "%APPDATA%",
                    "C:", ".SSH", ".ssh", "id_rsa", ".env", ".openclaw", "openclaw.json",
                    "workspace", "etc", "passwd", "é", " ", "https://", ".bashrc", "sudoers.d",
                    "credentials", ".aws", "x", "write", "_", "-", "E", "PATCH", "apply", "multi",
                    "İ", "ẞ", "\u{7}", "\n", "\r\n", "\r",
                ]),
                0..9,
            ),
            tail in "[a-zA-Z./\\~@>:é _-]{0,10}",
        ) {
            locations_equal_their_references(&[format!("{}{tail}", parts.concat())]);
        }
    }

    fn call(tool: &str, params: serde_json::Value) -> Call {
        let req = serde_json::json!({"toolName": tool, "params": params});
        Call::parse(&req.to_string()).unwrap()
    }

    fn ids(r: &Report) -> Vec<&'static str> {
        r.findings.iter().map(|f| f.id).collect()
    }

    fn has(r: &Report, id: &str) -> bool {
        r.findings.iter().any(|f| f.id == id)
    }

    fn sev(r: &Report, id: &str) -> Severity {
        r.findings
            .iter()
            .filter(|f| f.id == id)
            .map(|f| f.severity)
            .max()
            .unwrap()
    }

    fn patch_call(body: &str) -> Report {
        analyze(&call("apply_patch", serde_json::json!({ "input": body }))).unwrap()
    }

    #[test]
    fn other_tools_are_not_file_mutations() {
        for t in [
            "read",
            "exec",
            "grep",
            "web_fetch",
            "rewrite_notes",
            "writer",
        ] {
            assert!(
                analyze(&call(t, serde_json::json!({"path": "a"}))).is_none(),
                "{t}"
            );
        }
    }

    #[test]
    fn plain_relative_write_is_a_reusable_file_write() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "src/a.rs", "content": ""}),
        ))
        .unwrap();
        assert_eq!(ids(&r), ["file-write"]);
        assert!(r.complete && !r.read_only && r.targets.is_empty());
        assert!(r.findings[0].reusable());
        assert_eq!(r.findings[0].detail, "writes `src/a.rs`");
    }

    #[test]
    fn absolute_write_targets_are_normalized() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"file_path": "/home/u/p/../p/b.txt", "content": "x"}),
        ))
        .unwrap();
        assert_eq!(r.targets, ["/home/u/p/b.txt"]);
        let r = analyze(&call(
            "Write",
            serde_json::json!({"filePath": "~/notes/x.md", "content": "x"}),
        ))
        .unwrap();
        assert_eq!(r.targets, ["~/notes/x.md"]);
        assert!(r.complete);
    }

    #[test]
    fn missing_or_ill_typed_write_params_are_incomplete() {
        for (params, what) in [
            (serde_json::json!({"content": "x"}), "no `path`"),
            (
                serde_json::json!({"path": 3, "content": "x"}),
                "`path` is not a string",
            ),
            (
                serde_json::json!({"path": "  ", "content": "x"}),
                "`path` is empty",
            ),
            (serde_json::json!({"path": "a"}), "no `content`"),
            (
                serde_json::json!({"path": "a", "content": ["x"]}),
                "`content` is not a string",
            ),
        ] {
            let r = analyze(&call("write", params)).unwrap();
            assert!(!r.complete, "{what}");
            assert!(
                r.findings
                    .iter()
                    .any(|f| f.id == "analysis-incomplete" && f.detail == what),
                "{what}: {:?}",
                r.findings
            );
        }
    }

    #[test]
    fn disagreeing_path_aliases_are_incomplete_and_both_classified() {
        let r = analyze(&call("write", serde_json::json!({"path": "README.md", "file_path": "~/.ssh/authorized_keys", "content": "k"}))).unwrap();
        assert!(!r.complete);
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
    }

    #[test]
    fn writing_the_gate_config_is_self_protection() {
        for p in [
            "~/.openclaw/openclaw.json",
            "/home/u/.openclaw/extensions/human-gate/index.js",
            "@~/.openclaw/openclaw.json",
            "~/.openclaw/openclaw.json</arg_value>>",
        ] {
            let r = analyze(&call(
                "write",
                serde_json::json!({"path": p, "content": "{}"}),
            ))
            .unwrap();
            assert_eq!(sev(&r, "self-protection"), Severity::Critical, "{p}");
            assert!(
                !has(&r, "system-location-write"),
                "{p}: one location finding"
            );
        }
        let r = analyze(&call("edit", serde_json::json!({"path": "~/.openclaw/workspace/notes.md", "edits": [{"oldText": "a", "newText": "b"}]}))).unwrap();
        assert_eq!(ids(&r), ["file-write"]);
    }

    #[test]
    fn system_locations_are_critical() {
        for p in [
            "~/.ssh/authorized_keys",
            "/etc/sudoers",
            "/etc/hosts",
            "~/.bashrc",
            "/usr/local/bin/ls",
            "C:\\Windows\\System32\\drivers\\etc\\hosts",
        ] {
            let r = analyze(&call(
                "write",
                serde_json::json!({"path": p, "content": "x"}),
            ))
            .unwrap();
            assert_eq!(sev(&r, "system-location-write"), Severity::Critical, "{p}");
            assert!(!r
                .findings
                .iter()
                .find(|f| f.id == "system-location-write")
                .unwrap()
                .reusable());
        }
    }

    #[test]
    fn credential_files_critical_outside_warning_inside_the_workspace() {
        for p in [
            "~/.ssh/id_rsa",
            "/home/u/.aws/credentials",
            "~/.npmrc",
            "../../.env",
        ] {
            let r = analyze(&call(
                "write",
                serde_json::json!({"path": p, "content": "x"}),
            ))
            .unwrap();
            assert_eq!(sev(&r, "system-location-write"), Severity::Critical, "{p}");
        }
        for p in [".env", "app/.env.production", "certs/server.pem"] {
            let r = analyze(&call(
                "write",
                serde_json::json!({"path": p, "content": "x"}),
            ))
            .unwrap();
            assert_eq!(sev(&r, "system-location-write"), Severity::Warning, "{p}");
        }
        for p in [".env.example", "src/env.rs", "docs/credentials.md"] {
            let r = analyze(&call(
                "write",
                serde_json::json!({"path": p, "content": "x"}),
            ))
            .unwrap();
            assert!(!has(&r, "system-location-write"), "{p}");
        }
    }

    #[test]
    fn climbing_into_the_state_directory_is_self_protection() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "../extensions/human-gate/index.js", "content": "x"}),
        ))
        .unwrap();
        assert_eq!(sev(&r, "self-protection"), Severity::Critical);
        assert!(has(&r, "path-outside-workspace"));
        let r = patch_call(
            "*** Begin Patch\n*** Delete File: ..\\EXTENS~1\\human-gate\\index.js\n*** End Patch",
        );
        assert_eq!(sev(&r, "self-protection"), Severity::Critical);
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "../workspace-work/a.md", "content": "x"}),
        ))
        .unwrap();
        assert!(!has(&r, "self-protection") && has(&r, "path-outside-workspace"));
    }

    #[test]
    fn every_reading_of_a_short_name_is_classified() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "C:\\Users\\me\\GI7E21~1", "content": "x"}),
        ))
        .unwrap();
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "GI7E21~1\\hooks\\pre-commit", "content": "x"}),
        ))
        .unwrap();
        assert!(has(&r, "loader-injection") && !has(&r, "system-location-write"));
    }

    #[test]
    fn climbing_out_of_the_workspace_is_flagged_and_tested_as_rooted() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "../sibling/src/a.rs", "content": "x"}),
        ))
        .unwrap();
        assert!(has(&r, "path-outside-workspace"));
        assert!(!has(&r, "system-location-write"));
        assert!(r.targets.is_empty());
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "../../../../etc/cron.d/x", "content": "x"}),
        ))
        .unwrap();
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "a/../b.txt", "content": "x"}),
        ))
        .unwrap();
        assert!(!has(&r, "path-outside-workspace"));
    }

    #[test]
    fn edit_shapes_the_host_accepts_are_complete() {
        for params in [
            serde_json::json!({"path": "a.rs", "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": ""}]}),
            serde_json::json!({"path": "a.rs", "edits": "[{\"oldText\":\"a\",\"newText\":\"b\"}]"}),
            serde_json::json!({"path": "a.rs", "oldText": "a", "newText": "b"}),
            serde_json::json!({"file_path": "a.rs", "edits": [{"old_string": "a", "new_string": "b"}]}),
        ] {
            let r = analyze(&call("edit", params.clone())).unwrap();
            assert!(r.complete, "{params}: {:?}", r.findings);
            assert_eq!(ids(&r), ["file-write"]);
        }
        let r = analyze(&call("MultiEdit", serde_json::json!({"file_path": "b.rs", "edits": [{"old_string": "x", "new_string": "y"}]}))).unwrap();
        assert!(r.complete);
    }

    #[test]
    fn malformed_edits_are_incomplete() {
        for (params, what) in [
            (serde_json::json!({"path": "a"}), "no `edits`"),
            (serde_json::json!({"path": "a", "edits": []}), "no `edits`"),
            (
                serde_json::json!({"path": "a", "edits": "nope"}),
                "`edits` is text that is not a JSON array",
            ),
            (
                serde_json::json!({"path": "a", "edits": {"oldText": "a"}}),
                "`edits` is not an array",
            ),
            (
                serde_json::json!({"path": "a", "edits": [{"oldText": "a", "newText": "b"}, {"newText": "b"}]}),
                "edit 2 has no `oldText`",
            ),
            (
                serde_json::json!({"path": "a", "edits": [{"oldText": " ", "newText": "b"}]}),
                "edit 1 has an empty `oldText`",
            ),
            (
                serde_json::json!({"path": "a", "edits": [7]}),
                "edit 1 is not an object",
            ),
        ] {
            let r = analyze(&call("edit", params)).unwrap();
            assert!(!r.complete);
            assert!(
                r.findings
                    .iter()
                    .any(|f| f.id == "analysis-incomplete" && f.detail == what),
                "{what}: {:?}",
                r.findings
            );
        }
    }

    #[test]
    fn patch_add_and_update_are_writes() {
        let r = patch_call("*** Begin Patch\n*** Add File: src/new.rs\n+fn main() {}\n*** Update File: src/app.ts\n@@ ctx\n-old\n+new\n*** End Patch");
        assert!(r.complete, "{:?}", r.findings);
        assert_eq!(ids(&r), ["file-write"]);
        assert_eq!(r.findings[0].detail, "writes `src/new.rs`, `src/app.ts`");
    }

    #[test]
    fn the_documented_example_patch_parses_completely() {
        let doc = "*** Begin Patch\n*** Add File: path/to/file.txt\n+line 1\n+line 2\n*** Update File: src/app.ts\n@@ optional change context\n-old line\n+new line\n*** Update File: src/old-name.ts\n*** Move to: src/new-name.ts\n@@\n context line\n-old line\n+new line\n*** Update File: src/tail.ts\n@@\n+appended last line\n*** End of File\n*** Delete File: obsolete.txt\n*** End Patch";
        let r = patch_call(doc);
        assert!(r.complete, "{:?}", r.findings);
        assert!(has(&r, "file-write") && has(&r, "file-move") && has(&r, "file-delete"));
        let mv = r.findings.iter().find(|f| f.id == "file-move").unwrap();
        assert_eq!(mv.detail, "moves `src/old-name.ts` to `src/new-name.ts`");
        assert!(!mv.reusable());
        assert!(!r
            .findings
            .iter()
            .find(|f| f.id == "file-delete")
            .unwrap()
            .reusable());
    }

    #[test]
    fn patch_in_a_heredoc_and_with_crlf_is_accepted() {
        let r = patch_call(
            "<<'EOF'\r\n*** Begin Patch\r\n*** Delete File: a.txt\r\n*** End Patch\r\nEOF",
        );
        assert!(r.complete, "{:?}", r.findings);
        assert_eq!(ids(&r), ["file-delete"]);
    }

    #[test]
    fn malformed_patches_are_incomplete_and_say_why() {
        for (body, what) in [
            ("", "the patch is empty"),
            (
                "*** Add File: a\n+x\n*** End Patch",
                "the patch does not start with `*** Begin Patch`",
            ),
            (
                "*** Begin Patch\n*** Add File: a\n+x",
                "the patch does not end with `*** End Patch`",
            ),
            (
                "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",
                "line 2: an unknown or incomplete patch directive",
            ),
            (
                "*** Begin Patch\n*** Add File: \n+x\n*** End Patch",
                "line 2: an unknown or incomplete patch directive",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End Patch",
                "line 2: the update of `a` has no changes",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n@@\n*** End Patch",
                "line 5: a change with no lines",
            ),
            (
                "*** Begin Patch\n*** End Patch",
                "the patch changes no files",
            ),
            (
                "*** Begin Patch\n*** Move to: b\n*** End Patch",
                "line 2: `*** Move to:` not directly after an `*** Update File:`",
            ),
            (
                "*** Begin Patch\n*** Add File: a\n+x\n\n*** End Patch",
                "line 4: a blank line where a file directive belongs",
            ),
            (
                "*** Begin Patch\nrm -rf /\n*** End Patch",
                "line 2: a line outside any file directive",
            ),
        ] {
            let r = patch_call(body);
            assert!(!r.complete, "{body}");
            assert!(
                r.findings
                    .iter()
                    .any(|f| f.id == "analysis-incomplete" && f.detail == what),
                "{body}: {:?}",
                r.findings
            );
        }
        let r = analyze(&call("apply_patch", serde_json::json!({"patch": "x"}))).unwrap();
        assert!(!r.complete);
    }

    #[test]
    fn a_malformed_patch_still_classifies_its_targets() {
        let r = patch_call("*** Add File: ~/.ssh/authorized_keys\n+ssh-ed25519 AAAA\n");
        assert!(!r.complete);
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
    }

    #[test]
    fn patch_content_lines_are_never_directives() {
        let r = patch_call("*** Begin Patch\n*** Add File: notes.md\n+*** Delete File: /etc/passwd\n+*** Update File: ~/.openclaw/openclaw.json\n*** Update File: b.md\n@@\n-*** Add File: /etc/sudoers\n+   *** Delete File: x\n*** End Patch");
        assert!(r.complete, "{:?}", r.findings);
        assert_eq!(ids(&r), ["file-write"]);
    }

    #[test]
    fn patch_touching_protected_or_system_paths() {
        let r = patch_call("*** Begin Patch\n*** Update File: /home/u/.openclaw/openclaw.json\n@@\n-a\n+b\n*** End Patch");
        assert_eq!(sev(&r, "self-protection"), Severity::Critical);
        assert_eq!(r.targets, ["/home/u/.openclaw/openclaw.json"]);
        let r = patch_call("*** Begin Patch\n*** Delete File: /etc/sudoers.d/agent\n*** End Patch");
        assert!(has(&r, "file-delete"));
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
        let r = patch_call("*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: ../../../../etc/profile.d/x.sh\n@@\n-a\n+b\n*** End Patch");
        assert!(has(&r, "file-move") && has(&r, "path-outside-workspace"));
        assert_eq!(sev(&r, "system-location-write"), Severity::Critical);
    }

    #[test]
    fn moving_a_protected_file_away_is_flagged_on_the_source() {
        let r = patch_call("*** Begin Patch\n*** Update File: ~/.openclaw/openclaw.json\n*** Move to: /tmp/x.json\n@@\n a\n*** End Patch");
        assert!(has(&r, "self-protection") && has(&r, "file-move"));
    }

    #[test]
    fn host_derived_paths_are_classified_but_not_targets() {
        let req = serde_json::json!({"toolName": "apply_patch", "params": {"input": "*** Begin Patch\n*** Update File: cfg.json\n@@\n-a\n+b\n*** End Patch"}, "derivedPaths": ["/home/u/.openclaw/openclaw.json"]});
        let r = analyze(&Call::parse(&req.to_string()).unwrap()).unwrap();
        assert!(has(&r, "self-protection"));
        assert!(r.targets.is_empty());
    }

    #[test]
    fn apply_patch_is_recognized_by_host_kind() {
        let req = serde_json::json!({"toolName": "patcher", "toolKind": "apply_patch", "params": {"input": "*** Begin Patch\n*** Delete File: a\n*** End Patch"}});
        let r = analyze(&Call::parse(&req.to_string()).unwrap()).unwrap();
        assert_eq!(ids(&r), ["file-delete"]);
    }

    #[test]
    fn details_are_bounded() {
        let mut body = String::from("*** Begin Patch\n");
        for i in 0..500 {
            body.push_str(&format!("*** Add File: f{i}.txt\n+x\n"));
        }
        body.push_str("*** End Patch");
        let r = patch_call(&body);
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].detail,
            "writes `f0.txt`, `f1.txt`, `f2.txt` and 497 more"
        );
        let long = format!("{}/x", "d".repeat(500));
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": long, "content": ""}),
        ))
        .unwrap();
        assert!(r.findings[0].detail.chars().count() < 100);
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "a\u{1b}[31m\nb", "content": ""}),
        ))
        .unwrap();
        assert!(!r.findings[0].detail.contains('\n') && !r.findings[0].detail.contains('\u{1b}'));
    }

    #[test]
    fn many_problems_are_counted_not_listed() {
        let body = format!(
            "*** Begin Patch\n{}*** Add File: a\n+x\n*** End Patch",
            "junk\n".repeat(50)
        );
        let r = patch_call(&body);
        let n = r
            .findings
            .iter()
            .filter(|f| f.id == "analysis-incomplete")
            .count();
        assert_eq!(n, PROBLEMS_DESCRIBED + 1);
    }

    #[test]
    fn spellings_follow_the_host_rewrites() {
        assert_eq!(spellings(" @a/b "), ["@a/b", "a/b"]);
        assert_eq!(spellings("x</arg_value>>"), ["x</arg_value>>", "x"]);
        assert_eq!(spellings("plain"), ["plain"]);
        assert_eq!(spellings("@"), ["@"]);
    }

    #[test]
    fn first_chunk_may_omit_its_context_marker_later_ones_may_not() {
        let r = patch_call("*** Begin Patch\n*** Update File: a.rs\n-x\n+y\n*** End Patch");
        assert!(r.complete, "{:?}", r.findings);
        let r = patch_call("*** Begin Patch\n*** Update File: a.rs\n@@\n-x\nzzz\n*** End Patch");
        assert!(!r.complete);
        assert!(
            r.findings
                .iter()
                .any(|f| f.detail == "line 5: a change that does not start with `@@`"),
            "{:?}",
            r.findings
        );
    }

    #[test]
    fn blank_lines_between_update_chunks_are_allowed() {
        let r = patch_call("*** Begin Patch\n*** Update File: a.rs\n@@\n-x\n+y\n\n@@ fn main\n-a\n+b\n\n*** Delete File: b.rs\n*** End Patch");
        assert!(r.complete, "{:?}", r.findings);
        assert_eq!(ids(&r), ["file-write", "file-delete"]);
    }

    #[test]
    fn patch_targets_keep_home_and_drive_anchors() {
        let r = patch_call("*** Begin Patch\n*** Add File: ~/notes/todo.md\n+x\n*** Add File: C:\\work\\a.txt\n+y\n*** Add File: /tmp/x/../y.txt\n+z\n*** Add File: rel.txt\n+w\n*** End Patch");
        assert!(r.complete);
        assert_eq!(
            r.targets,
            ["~/notes/todo.md", "c:/work/a.txt", "/tmp/y.txt"]
        );
    }

    #[test]
    fn identical_path_aliases_are_one_path() {
        let r = analyze(&call(
            "write",
            serde_json::json!({"path": "a.txt", "file_path": " a.txt ", "content": ""}),
        ))
        .unwrap();
        assert!(r.complete, "{:?}", r.findings);
        assert_eq!(ids(&r), ["file-write"]);
    }

    #[test]
    fn ill_typed_patch_input_is_incomplete() {
        for params in [
            serde_json::json!({"input": 1}),
            serde_json::json!({"input": ["*** Begin Patch"]}),
            serde_json::json!({}),
        ] {
            let r = analyze(&call("apply_patch", params.clone())).unwrap();
            assert!(!r.complete, "{params}");
            assert!(has(&r, "analysis-incomplete"));
        }
    }

    #[test]
    fn tool_names_are_matched_case_and_separator_insensitively() {
        for t in [
            "Write",
            "EDIT",
            "multi-edit",
            "Multi_Edit",
            "APPLY_PATCH",
            "apply-patch",
        ] {
            assert!(analyze(&call(t, serde_json::json!({}))).is_some(), "{t}");
        }
    }

    #[test]
    fn every_emitted_id_is_in_the_finding_table() {
        let r = patch_call("*** Begin Patch\n*** Update File: ~/.openclaw/openclaw.json\n*** Move to: ../../etc/x\n@@\n-a\n*** Delete File: .env\n*** Frob\n*** End Patch");
        for f in &r.findings {
            assert_eq!(finding::spec(f.id).map(|s| s.id), Some(f.id));
        }
        assert!(r.findings.len() >= 5);
    }

    #[test]
    fn sandboxed_patches_are_not_self_protection() {
        let req = serde_json::json!({"toolName": "apply_patch", "params": {"input": "*** Begin Patch\n*** Add File: src/a.rs\n+x\n*** End Patch"}, "derivedPaths": ["/home/u/.openclaw/sandboxes/agent-main/src/a.rs"]});
        let r = analyze(&Call::parse(&req.to_string()).unwrap()).unwrap();
        assert_eq!(ids(&r), ["file-write"]);
    }
}
