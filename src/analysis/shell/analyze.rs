//! The shell analysis driver: one command line in, one [`Report`] out.
//!
//! The host does not say which shell runs a command, so the text is lexed under all three
//! dialects and the findings are united. The *primary* dialect (POSIX for `exec`, or the
//! dialect a payload was written in) alone decides completeness, the read-only verdict and the
//! category, so a POSIX command is never called incomplete because it is not valid
//! PowerShell.
//!
//! What no single command shows is decided here, across the commands of a script:
//! remote content piped or substituted into an interpreter, download-then-execute and
//! write-then-execute chains, decoded data into an interpreter, literal text piped or fed by a
//! heredoc into a shell (analysed as a payload), and a secret read plus a network sink in the
//! same command line (credential exfiltration). Payloads (`sh -c`, `eval`, `cmd /c`,
//! `pwsh -Command`, …) are analysed one level deeper, up to `max_wrapper_depth`.
//!
//! Limits: `max_command_length` bytes per text (the prefix is still analysed, and the report
//! is incomplete), `max_wrapper_depth` payload levels, the lexers' depth/token limits.

use super::command::{self, Dialect, Payload};
use super::model::{LexLimits, LexProblem, NestedKind, RedirectKind, Script, SimpleCommand};
use super::rules::{self, Category, Context, Effects};
use super::{cmd, posix, pwsh};
use crate::analysis::{paths, Limits, Report};
use crate::finding::{self, Finding};

/// Analyses one command line whose primary dialect is `primary`, at payload depth `depth`
/// (0 for the call's own command).
pub fn analyze(text: &str, primary: Dialect, limits: &Limits, depth: usize) -> Analysis {
    let mut out = Analysis::new();
    let text = if text.len() > limits.max_command_length {
        out.report.add(Finding::new(
            &finding::COMMAND_TOO_LONG,
            format!(
                "{} bytes; the limit is {}",
                text.len(),
                limits.max_command_length
            ),
        ));
        out.report.complete = false;
        out.report.read_only = false;
        prefix(text, limits.max_command_length)
    } else {
        text
    };
    let lex_limits = LexLimits::default();
    let posix_script = posix::lex(text, &lex_limits);
    // A payload's dialect is known (`sh -c`, `cmd /c`, `pwsh -Command`): only the call's own
    // command line, whose shell the host does not name, is read in the other dialects too — and
    // only when something in it is Windows-shaped, so that POSIX quoting (`'a & b'`, heredoc
    // bodies) is never re-read as CMD or PowerShell syntax it was not written in.
    let union = depth == 0 && primary == Dialect::Posix && looks_windows(text, &posix_script);
    let masked = if union {
        mask_heredoc_bodies(text, &posix_script)
    } else {
        String::new()
    };
    for dialect in [Dialect::Posix, Dialect::PowerShell, Dialect::Cmd] {
        if dialect != primary && !union {
            continue;
        }
        let secondary_text = if dialect == Dialect::Posix {
            text
        } else if union {
            masked.as_str()
        } else {
            text
        };
        let script = match dialect {
            Dialect::Posix => posix_script.clone(),
            Dialect::PowerShell => pwsh::lex(secondary_text, &lex_limits),
            Dialect::Cmd => cmd::lex(secondary_text, &lex_limits),
        };
        let mut walk = Walk::new(limits, depth, dialect);
        walk.script(&script, 0);
        walk.finish();
        if dialect == primary {
            for p in &script.problems {
                walk.report.add(problem_finding(p));
            }
            if !script.complete() {
                walk.report.complete = false;
            }
            out.category = walk.category;
            out.report.read_only &= walk.report.read_only && script.complete();
            out.report.complete &= walk.report.complete;
            out.report.findings.extend(walk.report.findings);
            out.report.targets.extend(walk.report.targets);
        } else {
            // Secondary dialects contribute what they find, never (in)completeness.
            for f in walk.report.findings {
                if f.id != finding::ANALYSIS_INCOMPLETE.id
                    && f.severity > crate::decision::Severity::Info
                {
                    out.report.add(f);
                }
            }
        }
    }
    out
}

/// The shell analysis of one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub report: Report,
    /// The category of the primary dialect's commands when they all share one.
    pub category: Option<Category>,
}

impl Analysis {
    fn new() -> Analysis {
        let mut report = Report::clean();
        report.read_only = true;
        Analysis {
            report,
            category: None,
        }
    }
}

/// Programs and shapes that only make sense on Windows (CMD built-ins, PowerShell cmdlets and
/// aliases that POSIX does not have, drive paths, `%VAR%`, `$env:`, `/x` switches).
fn looks_windows(text: &str, posix: &Script) -> bool {
    const PROGRAMS: [&str; 24] = [
        "cmd", "del", "erase", "rd", "copy", "xcopy", "robocopy", "ren", "format", "diskpart",
        "icacls", "takeown", "reg", "schtasks", "wmic", "bcdedit", "cipher", "iex", "iwr", "irm",
        "ri", "gci", "saps", "icm",
    ];
    if text.contains(":\\")
        || text.contains("$env:")
        || text.to_ascii_lowercase().contains("%userprofile%")
    {
        return true;
    }
    let mut stack: Vec<&Script> = vec![posix];
    let mut seen = 0usize;
    while let Some(script) = stack.pop() {
        for sc in &script.commands {
            seen += 1;
            if seen > 4096 {
                return true;
            }
            if let Some(first) = sc.argv.first() {
                let prog = command::program_name(&first.text);
                if PROGRAMS.contains(&prog.as_str())
                    || command::is_powershell(&prog)
                    || (prog.contains('-') && pwsh::canonical_cmdlet(&prog).is_some())
                {
                    return true;
                }
            }
            if sc.argv.iter().skip(1).any(|w| {
                let t = w.text.as_bytes();
                t.len() == 2
                    && t.first() == Some(&b'/')
                    && t.get(1).is_some_and(u8::is_ascii_alphabetic)
            }) {
                return true;
            }
            if sc.argv.iter().any(|w| w.text.matches('%').count() >= 2) {
                return true;
            }
            stack.extend(sc.nested.iter().map(|n| &n.script));
        }
    }
    false
}

/// The text with every POSIX heredoc body blanked (newlines kept), for the other dialects.
fn mask_heredoc_bodies(text: &str, posix: &Script) -> String {
    let mut spans = Vec::new();
    let mut stack: Vec<&Script> = vec![posix];
    while let Some(script) = stack.pop() {
        for sc in &script.commands {
            spans.extend(sc.heredocs.iter().map(|h| h.body_span));
            stack.extend(sc.nested.iter().map(|n| &n.script));
        }
    }
    if spans.is_empty() {
        return text.to_owned();
    }
    text.char_indices()
        .map(|(i, c)| {
            if c != '\n' && spans.iter().any(|s| s.start <= i && i < s.end) {
                ' '
            } else {
                c
            }
        })
        .collect()
}

fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

fn problem_finding(p: &LexProblem) -> Finding {
    let detail = match p {
        LexProblem::UnterminatedQuote { span } => {
            format!("unterminated quote at byte {}", span.start)
        }
        LexProblem::UnterminatedGroup { span } => {
            format!("unclosed group or substitution at byte {}", span.start)
        }
        LexProblem::UnterminatedHereDoc { span } => {
            format!("heredoc without its end line at byte {}", span.start)
        }
        LexProblem::TooDeep { span } => format!("nesting too deep at byte {}", span.start),
        LexProblem::TooLong { span } => format!("too many words from byte {}", span.start),
        LexProblem::Unsupported { span, what } => {
            format!("{what} at byte {} is not modelled", span.start)
        }
    };
    Finding::new(&finding::ANALYSIS_INCOMPLETE, detail)
}

/// State of one walk over a script and everything nested in it.
struct Walk<'l> {
    limits: &'l Limits,
    depth: usize,
    dialect: Dialect,
    report: Report,
    category: Option<Category>,
    categories_mixed: bool,
    reads_secret: bool,
    network: bool,
    downloads: Vec<String>,
    /// Files written with literal content: (normalized path, content).
    written: Vec<(String, String)>,
    executes: Vec<String>,
    payloads: Vec<Payload>,
    /// Some command in this script writes downloaded content to stdout.
    downloads_to_stdout: bool,
}

impl<'l> Walk<'l> {
    fn new(limits: &'l Limits, depth: usize, dialect: Dialect) -> Walk<'l> {
        let mut report = Report::clean();
        report.read_only = true;
        Walk {
            limits,
            depth,
            dialect,
            report,
            category: None,
            categories_mixed: false,
            reads_secret: false,
            network: false,
            downloads: Vec::new(),
            written: Vec::new(),
            executes: Vec::new(),
            payloads: Vec::new(),
            downloads_to_stdout: false,
        }
    }

    fn add(&mut self, spec: &'static finding::FindingSpec, detail: impl Into<String>) {
        self.report.add(Finding::new(spec, detail.into()));
    }

    /// Walks one script; `nest` counts substitutions/groups (bounded by the lexer's depth).
    fn script(&mut self, script: &Script, nest: usize) {
        let mut prev: Option<Effects> = None;
        let mut state = ScriptState::default();
        for sc in &script.commands {
            let effects = self.simple(sc, prev.as_ref(), nest, &mut state);
            prev = Some(effects);
        }
    }

    /// Analyses one simple command; returns the effects of its last effective command (what a
    /// following `|` receives).
    fn simple<'s>(
        &mut self,
        sc: &'s SimpleCommand,
        prev: Option<&Effects>,
        nest: usize,
        state: &mut ScriptState<'s>,
    ) -> Effects {
        let piped_in = matches!(
            sc.connector,
            super::model::Connector::Pipe | super::model::Connector::PipeAll
        );
        let piped_text = if piped_in {
            prev.and_then(|p| p.prints.as_deref())
        } else {
            None
        };
        let stdin_text = sc
            .heredocs
            .first()
            .map(|h| h.body.as_str())
            .or_else(|| {
                sc.redirects
                    .iter()
                    .find(|r| r.kind == RedirectKind::HereString)
                    .map(|r| r.target.text.as_str())
            })
            .or(piped_text);
        let argv: Vec<&'s super::model::Word> = sc.argv.iter().collect();
        let peeled = command::peel(&argv, &sc.assignments);
        // Roots that a `find … |` before this command feeds into it.
        let fed = if piped_in {
            state.find_roots.take()
        } else {
            None
        };
        state.find_roots = None;
        if peeled.elevated {
            self.report.read_only = false;
            if peeled.commands.is_empty() {
                // `su -c '…'`, `runas /user:x "…"`: the payload runs elevated.
                self.add(
                    &finding::PRIVILEGE_ELEVATION,
                    "runs a command line as another user",
                );
            }
        }
        self.payloads.extend(peeled.payloads.iter().cloned());

        // Nested scripts run in the same shell: walk them as part of this command line.
        let mut nested_downloads = false;
        for n in &sc.nested {
            let mut sub = Walk::new(self.limits, self.depth, self.dialect);
            sub.script(&n.script, nest + 1);
            if matches!(
                n.kind,
                NestedKind::CommandSubstitution | NestedKind::ProcessSubstitutionIn
            ) {
                nested_downloads |= sub.downloads_to_stdout;
                // Its output becomes part of this command: the effect depends on run time.
                self.report.read_only = false;
            }
            if n.kind == NestedKind::ProcessSubstitutionOut {
                self.report.read_only = false;
            }
            self.absorb(sub);
        }

        let mut last = Effects::default();
        if peeled.commands.is_empty() && !sc.redirects.is_empty() {
            // A bare redirection (`> file`) truncates or creates the file.
            let ctx = Context {
                redirects: &sc.redirects,
                stdin_text,
                piped_in,
                cwd: state.cwd.as_deref(),
                fed_roots: None,
            };
            let empty = command::Cmd {
                argv: Vec::new(),
                program: String::new(),
                wrappers: Vec::new(),
                elevated: false,
                env: Vec::new(),
                args_unknown: false,
                opaque: false,
            };
            let v = rules::check(&empty, &ctx);
            self.take_verdict(v, sc, stdin_text);
            self.report.read_only = false;
        }
        for cmd in &peeled.commands {
            let ctx = Context {
                redirects: &sc.redirects,
                stdin_text,
                piped_in,
                cwd: state.cwd.as_deref(),
                fed_roots: fed.as_deref(),
            };
            let v = rules::check(cmd, &ctx);
            if let Some(roots) = rules::find_roots(cmd) {
                state.find_roots = Some(roots);
            }
            if let Some(dir) = &v.effects.changes_dir {
                state.cwd = Some(rules::join_dir(state.cwd.as_deref(), dir));
            }
            let mut effects = v.effects.clone();
            if piped_in && effects.passes_stdin {
                // `curl x | tee f | sh`: what flows through a filter is still the download.
                if let Some(p) = prev {
                    effects.downloads_to_stdout |= p.downloads_to_stdout;
                    effects.decodes |= p.decodes;
                    effects.network |= p.network;
                    if effects.prints.is_none() {
                        effects.prints.clone_from(&p.prints);
                    }
                }
            }
            // A command word whose value comes from a download runs remote code.
            let word_is_download = cmd.argv.first().is_some_and(|w| w.dynamic) && nested_downloads;
            if word_is_download {
                self.add(
                    &finding::REMOTE_SCRIPT_EXECUTION,
                    "runs the output of a download as a command",
                );
            }
            let runs_code = effects.runs_stdin
                || command::is_shell(&cmd.program)
                || is_interpreter(&cmd.program)
                || cmd.program == "source"
                || cmd.program == ".";
            if runs_code && nested_downloads {
                self.add(
                    &finding::REMOTE_SCRIPT_EXECUTION,
                    format!("{} runs downloaded content", cmd.program),
                );
            }
            if effects.runs_stdin {
                if piped_in {
                    if let Some(p) = prev {
                        if p.downloads_to_stdout {
                            self.add(
                                &finding::REMOTE_SCRIPT_EXECUTION,
                                format!("download piped into {}", cmd.program),
                            );
                        }
                        if p.decodes {
                            self.add(
                                &finding::DYNAMIC_CODE_EXECUTION,
                                format!("decoded data piped into {}", cmd.program),
                            );
                        }
                        if let Some(text) = &p.prints {
                            self.payloads.push(Payload {
                                dialect: Dialect::Posix,
                                text: text.clone(),
                                via: "text piped into a shell",
                                encoded: false,
                            });
                        }
                        if p.network && !p.downloads_to_stdout {
                            self.add(
                                &finding::REMOTE_SCRIPT_EXECUTION,
                                format!("{} runs commands received over the network", cmd.program),
                            );
                        }
                        if p.prints.is_none() && !p.downloads_to_stdout && !p.decodes && !p.network
                        {
                            self.add(
                                &finding::DYNAMIC_EXPANSION,
                                format!("{} runs program text from a pipe", cmd.program),
                            );
                            self.report.complete = false;
                        }
                    }
                } else if let Some(text) = stdin_text {
                    self.payloads.push(Payload {
                        dialect: Dialect::Posix,
                        text: text.to_owned(),
                        via: "heredoc into a shell",
                        encoded: false,
                    });
                } else if let Some(r) = sc.redirects.iter().find(|r| r.kind == RedirectKind::Input)
                {
                    self.add(
                        &finding::INTERPRETER_FILE,
                        format!("{} runs a script from stdin", cmd.program),
                    );
                    self.executes.push(norm(&r.target.text));
                    self.report.read_only = false;
                }
            }
            self.take_verdict(v, sc, stdin_text);
            last = effects;
        }
        last
    }

    /// Folds one command's verdict into the walk.
    fn take_verdict(&mut self, v: rules::Verdict, sc: &SimpleCommand, _stdin: Option<&str>) {
        for f in v.findings {
            self.report.add(f);
        }
        self.payloads.extend(v.payloads);
        self.report.complete &= v.complete;
        self.report.read_only &= v.read_only;
        match (self.category, v.category) {
            (_, None) => {}
            (None, Some(c)) if !self.categories_mixed => self.category = Some(c),
            (Some(a), Some(b)) if a != b => {
                // Mixed categories: read-only steps do not change a dev category.
                if a == Category::ReadOnly {
                    self.category = Some(b);
                } else if b != Category::ReadOnly {
                    self.categories_mixed = true;
                    self.category = None;
                }
            }
            _ => {}
        }
        let e = v.effects;
        self.downloads_to_stdout |= e.downloads_to_stdout;
        self.reads_secret |= e.reads_secret;
        self.network |= e.network;
        self.downloads
            .extend(e.downloads_to.iter().map(|p| norm(p)));
        self.executes.extend(e.executes.iter().map(|p| norm(p)));
        self.executes
            .extend(e.makes_executable.iter().map(|p| norm(p)));
        if let Some(text) = &e.prints {
            for r in &sc.redirects {
                if matches!(
                    r.kind,
                    RedirectKind::Output | RedirectKind::Append | RedirectKind::OutputAll
                ) {
                    self.written.push((norm(&r.target.text), text.clone()));
                }
            }
        }
    }

    fn absorb(&mut self, sub: Walk<'_>) {
        self.report.merge(sub.report);
        self.payloads.extend(sub.payloads);
        self.reads_secret |= sub.reads_secret;
        self.network |= sub.network;
        self.downloads.extend(sub.downloads);
        self.written.extend(sub.written);
        self.executes.extend(sub.executes);
    }

    /// Cross-command verdicts and payload recursion, once the whole script is walked.
    fn finish(&mut self) {
        if self.reads_secret && self.network {
            self.add(
                &finding::CREDENTIAL_EXFILTRATION,
                "reads secrets and uses the network in one command line",
            );
        }
        let executed: Vec<String> = self.executes.clone();
        for file in &executed {
            if self.downloads.iter().any(|d| d == file) {
                self.add(
                    &finding::REMOTE_SCRIPT_EXECUTION,
                    format!("downloads {file} and runs it"),
                );
            }
            let scripts: Vec<String> = self
                .written
                .iter()
                .filter(|(p, _)| p == file)
                .map(|(_, c)| c.clone())
                .collect();
            for content in scripts {
                self.payloads.push(Payload {
                    dialect: Dialect::Posix,
                    text: content,
                    via: "a script written then run",
                    encoded: false,
                });
            }
        }
        let payloads = std::mem::take(&mut self.payloads);
        for p in payloads {
            self.report.read_only = false;
            if self.depth + 1 > self.limits.max_wrapper_depth {
                self.add(
                    &finding::WRAPPER_DEPTH_EXCEEDED,
                    format!(
                        "{} deeper than {} levels",
                        p.via, self.limits.max_wrapper_depth
                    ),
                );
                self.report.complete = false;
                continue;
            }
            let sub = analyze(&p.text, p.dialect, self.limits, self.depth + 1);
            self.report.merge(sub.report);
        }
    }
}

/// Per-script facts that flow from one command to the next.
#[derive(Default)]
struct ScriptState<'s> {
    /// The working directory after earlier `cd`s, as written (`None`: unchanged).
    cwd: Option<String>,
    /// Roots of a `find` whose output the next command may receive through a pipe.
    find_roots: Option<Vec<&'s super::model::Word>>,
}

fn is_interpreter(program: &str) -> bool {
    matches!(
        program,
        "python"
            | "python2"
            | "python3"
            | "node"
            | "nodejs"
            | "perl"
            | "ruby"
            | "php"
            | "deno"
            | "bun"
            | "lua"
            | "pwsh"
            | "powershell"
    ) || program.starts_with("python3.")
}

/// Normalized text of a path for matching writes, downloads and executions.
fn norm(p: &str) -> String {
    let n = paths::normalize(p);
    format!("{}{}", n.anchor, n.segments.join("/"))
}
