//! The CMD (`cmd.exe`) dialect: a lexer from a command line to the shared
//! [`model`](super::model), and [`split_cmd_switches`] for `cmd /c …` payloads.
//!
//! # The lexer
//! An explicit state machine over one byte cursor shared by every nesting level (each level is
//! a call bounded by the depth limit; every byte is consumed once, so time is linear):
//! - `^` escapes the next character (`^` before a newline continues the line, and an operator
//!   character at the start of the next line stays literal); double quotes group text and are
//!   removed, nothing is escaped inside them, and `%VAR%` still expands there;
//! - `%VAR%`, `%VAR:~0,1%`, `%VAR:a=b%`, `%~dp0`, `%1`, `%*`, `%%i` / `%i` (for variables) and
//!   `!VAR!` (delayed expansion) make a word `dynamic` (their text is kept verbatim); `*` and
//!   `?` outside quotes make it a `glob`;
//! - operators `&` `&&` `||` `|` ([`Connector`]s) and newlines; redirections `>` `>>` `<` `n>`
//!   `n>>` `n<` and descriptor duplication `n>&m` / `>&m` / `<&m` ([`RedirectKind::Duplicate`],
//!   target is the descriptor digit);
//! - `( … )` blocks at the start of a command ([`NestedKind::Group`], lexed recursively; a
//!   `)` closes the innermost block); `if`'s and `else`'s command and `for … do`'s body (the
//!   rest of the line, or of the block) are nested groups too, so `if exist b rd /s /q b` shows
//!   `rd`; `for /f … in ('cmd')` runs `cmd`: a [`NestedKind::CommandSubstitution`]; any other
//!   `for` set `(…)` is one literal word;
//! - `@` (echo off) before a command is stripped; `rem …`, `:: …` and `:label` lines are
//!   comments (to the end of the line);
//! - the command word ends at an unquoted `/`, `,`, `;` or `=` (`rd/s/q x`, `cmd/c …`,
//!   `del,x`); leading `, ; =` are blanks; for the built-in file commands (`del erase rd rmdir
//!   dir copy move md mkdir ren rename type`) `, ; =` separate arguments too and a switch
//!   cluster `/s/q` is split into `/s` `/q` (paths such as `C:/x/y` are not split).
//!
//! # Invariants
//! Spans are byte ranges of the input on char boundaries (a word split from a cluster keeps
//! the whole cluster's span when escapes make exact offsets unknowable); no panics; never loops
//! without consuming input. All problems are reported on the top-level [`Script`].
//!
//! # Limits
//! Nesting deeper than `min(max_depth, 64)` → [`LexProblem::TooDeep`] at the opener and the
//! block is skipped in one linear pass; more than `max_tokens` words, operators and openers →
//! [`LexProblem::TooLong`] and lexing stops. An unclosed `"` (CMD would silently run it to the
//! end of the line) → [`LexProblem::UnterminatedQuote`]; an unclosed `(` →
//! [`LexProblem::UnterminatedGroup`]; both with the span where they opened.
//!
//! # Non-goals
//! No variable expansion (CMD expands `%VAR%` before it parses, so a variable holding `&` or
//! `"` changes the parse: such words are only marked dynamic), no `call` double expansion, no
//! batch-file semantics (`goto`, `setlocal`); `if` conditions are not evaluated, and `else`
//! after a one-line `if` body is part of that body's arguments, as in CMD.

use super::model::{
    Connector, Cursor, LexLimits, LexProblem, Nested, NestedKind, Redirect, RedirectKind, Script,
    SimpleCommand, Span, Word,
};

/// Recursion cap applied on top of [`LexLimits::max_depth`] (each level costs stack frames).
const HARD_MAX_DEPTH: usize = 64;

/// Built-in commands whose arguments CMD itself splits on `, ; =` and whose switches may be
/// glued (`/s/q`).
const FILE_BUILTINS: &[&str] = &[
    "del", "erase", "rd", "rmdir", "dir", "copy", "move", "md", "mkdir", "ren", "rename", "type",
];

/// Lexes a CMD command line into the shared model.
pub fn lex(text: &str, limits: &LexLimits) -> Script {
    let mut lx = Lexer(Cursor::new(text, *limits, HARD_MAX_DEPTH));
    let mut script = lx.script(0, Mode::Top);
    script.problems = lx.0.problems;
    script
}

/// Finds the `/c`, `/k` (or `/r`, a synonym of `/c`) switch of a `cmd` invocation and returns
/// its index in `argv` with the command line it runs.
///
/// `argv[0]` must be `cmd` or `cmd.exe` (any case, any directory; a glued `cmd/c…` as one word
/// is accepted too, index 0). Other switches (`/s /q /d /a /u /x /y /e:on /v:on /f:off /t:fg`)
/// and stray words are skipped; switch clusters (`/q/c`) and glued payloads (`/cdel x`,
/// `/c"del x"` after quote removal) are understood. The payload is the glued remainder
/// followed by the remaining words, joined with single spaces; a later word that contains
/// blanks is wrapped in double quotes so it stays one argument (the first payload word is
/// not: `cmd /c "del /s /q x"` is the whole command line in one word).
///
/// Quote handling of `/s`: CMD strips the first and the last quote of the command line when
/// `/s` is given or its "keep quotes" heuristic fails; this function does the simple
/// equivalent and strips one pair of outer double quotes from the result when it starts and
/// ends with `"` (words reach it already quote-removed, so this matters for raw text only).
pub fn split_cmd_switches(argv: &[Word]) -> Option<(usize, String)> {
    let first = argv.first()?;
    let base = first
        .text
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(first.text.as_str());
    let (index, glued) = if is_cmd_program(base) {
        let found = argv
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(i, w)| payload_switch(&w.text).map(|rest| (i, rest)))?;
        found
    } else {
        // `cmd/c …` as one word (a lexer that does not split the command word at `/`).
        let lower = first.text.to_ascii_lowercase();
        let at = lower.find("/")?;
        let (prog, switches) = (lower.get(..at)?, first.text.get(at..)?);
        let prog = prog.rsplit('\\').next().unwrap_or(prog);
        if !is_cmd_program(prog) {
            return None;
        }
        (0, payload_switch(switches)?)
    };
    let mut parts: Vec<String> = Vec::new();
    if !glued.is_empty() {
        parts.push(glued.to_owned());
    }
    for w in argv.iter().skip(index + 1) {
        if !parts.is_empty() && w.text.contains(char::is_whitespace) && !w.text.contains('"') {
            parts.push(format!("\"{}\"", w.text));
        } else {
            parts.push(w.text.clone());
        }
    }
    let joined = parts.join(" ");
    let stripped = match joined.strip_prefix('"').and_then(|j| j.strip_suffix('"')) {
        Some(inner) if joined.len() >= 2 => inner.to_owned(),
        _ => joined,
    };
    Some((index, stripped))
}

fn is_cmd_program(name: &str) -> bool {
    name.eq_ignore_ascii_case("cmd") || name.eq_ignore_ascii_case("cmd.exe")
}

/// If `word` is a switch (cluster) containing `/c`, `/k` or `/r`, the text glued after it.
fn payload_switch(word: &str) -> Option<&str> {
    if !word.starts_with('/') {
        return None;
    }
    let mut rest = word;
    while let Some(after) = rest.strip_prefix('/') {
        let mut chars = after.chars();
        let letter = chars.next()?;
        if matches!(letter.to_ascii_lowercase(), 'c' | 'k' | 'r') {
            return Some(chars.as_str());
        }
        // Another switch (`/s`, `/v:on`, …): skip to the next `/` of the cluster.
        let next = after.find('/')?;
        rest = after.get(next..)?;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The lexer
// ---------------------------------------------------------------------------------------------

/// What ends the statements being lexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The whole text (or a `for /f` command string): ends at the end.
    Top,
    /// A `( … )` block opened at the span: ends at its `)`.
    Block(Span),
    /// The rest of a line (`if`/`else`/`for … do` body): ends before a newline, or before a
    /// `)` when the line is inside a block.
    Line { in_block: bool },
}

impl Mode {
    fn in_block(self) -> bool {
        matches!(self, Mode::Block(_) | Mode::Line { in_block: true })
    }
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

/// CMD's blanks: space, tab, vertical tab, form feed, and 0xFF of the OEM code page (NBSP).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{b}' | '\u{c}' | '\u{a0}')
}

/// Characters that keep their meaning after a `^`-newline continuation only when escaped.
fn is_special(c: char) -> bool {
    matches!(c, '&' | '|' | '<' | '>' | '(' | ')' | '^' | '"')
}

/// Where a word is, which decides where it ends.
#[derive(Debug, Clone, Copy, Default)]
struct WordCtx {
    /// The command word: ends at an unquoted `/ , ; =` too.
    command_word: bool,
    /// An argument of a built-in file command: ends at `, ; =`, and a switch at the next `/`.
    builtin_args: bool,
    /// Inside a block: an unquoted `)` ends the word.
    in_block: bool,
}

#[derive(Default)]
struct WordAcc {
    text: String,
    quoted_parts: usize,
    bare_parts: usize,
    dynamic: bool,
    glob: bool,
}

impl WordAcc {
    fn finish(self, span: Span) -> Word {
        Word {
            text: self.text,
            span,
            quoted: self.quoted_parts > 0,
            fully_quoted: self.quoted_parts == 1 && self.bare_parts == 0 && !self.dynamic,
            dynamic: self.dynamic,
            glob: self.glob,
            one_word: false,
        }
    }

    fn has_content(&self) -> bool {
        !self.text.is_empty() || self.quoted_parts > 0
    }
}

struct Building {
    cmd: SimpleCommand,
    started: bool,
    /// The `if`/`else`/`for` body has been lexed: the statement is complete.
    body_done: bool,
}

impl Building {
    fn new(connector: Connector) -> Building {
        Building {
            cmd: SimpleCommand {
                connector,
                assignments: Vec::new(),
                argv: Vec::new(),
                redirects: Vec::new(),
                heredocs: Vec::new(),
                nested: Vec::new(),
                background: false,
                arm: 0,
                span: Span::default(),
                defines: None,
            },
            started: false,
            body_done: false,
        }
    }

    fn touch(&mut self, span: Span) {
        if !self.started {
            self.started = true;
            self.cmd.span.start = span.start;
        }
        self.cmd.span.end = self.cmd.span.end.max(span.end);
    }

    fn at_start(&self) -> bool {
        self.cmd.argv.is_empty() && self.cmd.redirects.is_empty() && self.cmd.nested.is_empty()
    }

    fn is_empty(&self) -> bool {
        self.at_start()
    }

    fn flush(&mut self, script: &mut Script, next: Connector) {
        let done = std::mem::replace(self, Building::new(next));
        if done.started && !done.is_empty() {
            script.commands.push(done.cmd);
        }
    }

    /// The command name, lowercased, when it is an unquoted word.
    fn name(&self) -> Option<String> {
        self.cmd
            .argv
            .first()
            .filter(|w| !w.quoted)
            .map(|w| w.text.to_ascii_lowercase())
    }
}

/// `for %f in (SET) do` and `for /d %f in (SET) do` over a literal set: the loop variable and
/// the set's items (the files or directories they match in the working directory, so the body
/// acts on them as if they were written in its place). `None` for `/r` (a walk of the tree),
/// `/f` and `/l` (lines and numbers) and for sets with quotes or variables.
fn for_items(argv: &[Word]) -> Option<(&str, Vec<&str>)> {
    let words = match argv {
        [_, flag, rest @ ..] if flag.text.eq_ignore_ascii_case("/d") && !flag.quoted => rest,
        [_, rest @ ..] => rest,
        [] => return None,
    };
    let [var, kw, set, _do] = words else {
        return None;
    };
    if var.quoted || !var.text.starts_with('%') || !kw.text.eq_ignore_ascii_case("in") {
        return None;
    }
    let inner = set.text.strip_prefix('(')?.strip_suffix(')')?;
    if set.dynamic || set.quoted || inner.contains(['"', '%', '!', '^']) {
        return None;
    }
    let items: Vec<&str> = inner
        .split(|c: char| is_blank(c) || matches!(c, ',' | ';' | '='))
        .filter(|s| !s.is_empty())
        .collect();
    (!items.is_empty() && items.len() <= 16).then_some((var.text.as_str(), items))
}

/// Replaces each word of `script` (nested blocks included) that is exactly the loop variable
/// `var` with the loop's items: `for %f in (*.tmp) do del "%f"` deletes `*.tmp`.
fn bind_loop_variable(script: &mut Script, var: &str, items: &[&str]) {
    for cmd in &mut script.commands {
        if cmd.argv.iter().any(|w| w.text == var) {
            let argv = std::mem::take(&mut cmd.argv);
            for (i, w) in argv.into_iter().enumerate() {
                if w.text != var {
                    // Words after an expanded one move; so do their nested scripts.
                    let now = cmd.argv.len();
                    if now != i {
                        for n in cmd.nested.iter_mut().filter(|n| n.in_word == Some(i)) {
                            n.in_word = Some(now);
                        }
                    }
                    cmd.argv.push(w);
                    continue;
                }
                for item in items {
                    cmd.argv.push(Word {
                        text: (*item).to_owned(),
                        span: w.span,
                        quoted: w.quoted,
                        fully_quoted: false,
                        dynamic: false,
                        glob: item.contains(['*', '?']),
                        one_word: false,
                    });
                }
            }
        }
        for n in &mut cmd.nested {
            bind_loop_variable(&mut n.script, var, items);
        }
    }
}

/// Whether the words after `if` complete its condition (so the command follows).
fn if_condition_done(argv: &[Word]) -> bool {
    let mut rest: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|w| w.text.to_ascii_lowercase())
        .collect();
    while rest.first().is_some_and(|t| t == "/i" || t == "not") {
        rest.remove(0);
    }
    let Some(first) = rest.first() else {
        return false;
    };
    if matches!(
        first.as_str(),
        "exist" | "defined" | "errorlevel" | "cmdextversion"
    ) {
        return rest.len() >= 2;
    }
    if first.contains("==") {
        return !first.ends_with("==") || rest.len() >= 2;
    }
    match rest.get(1).map(String::as_str) {
        Some("==" | "equ" | "neq" | "lss" | "leq" | "gtr" | "geq") => rest.len() >= 3,
        Some(op) if op.starts_with("==") => true,
        Some(_) => true,
        None => false,
    }
}

/// The CMD lexer: the shared cursor ([`Cursor`]) plus this dialect's grammar below.
struct Lexer<'a>(Cursor<'a>);

impl<'a> std::ops::Deref for Lexer<'a> {
    type Target = Cursor<'a>;
    fn deref(&self) -> &Cursor<'a> {
        &self.0
    }
}

impl std::ops::DerefMut for Lexer<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> Lexer<'a> {
    /// Skips blanks and `^`-newline continuations; at the start of a command also `, ; =` and
    /// `@`; between built-in file command arguments also `, ; =`. True when it stopped at a
    /// special character escaped by a continuation (it starts a word).
    fn skip_blanks(&mut self, cur: &Building) -> bool {
        let at_start = cur.at_start();
        let builtin = cur
            .name()
            .is_some_and(|n| FILE_BUILTINS.contains(&n.as_str()));
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => {}
                Some(',' | ';' | '=') if at_start || builtin => {}
                Some('@') if at_start => {}
                Some('^') if self.peek2().is_some_and(is_newline) => {
                    self.bump();
                    self.skip_one_newline();
                    if self.peek().is_some_and(is_special) {
                        return true;
                    }
                    continue;
                }
                _ => return false,
            }
            self.bump();
        }
    }

    fn skip_to_line_end(&mut self) {
        let len = self.rest().find(['\n', '\r']).unwrap_or(self.rest().len());
        self.pos += len;
    }

    fn script(&mut self, depth: usize, mode: Mode) -> Script {
        let mut script = Script::default();
        let mut cur = Building::new(Connector::Sequence);
        loop {
            if self.stopped {
                break;
            }
            // A character escaped by a `^`-newline continuation is a word.
            let escaped = self.skip_blanks(&cur);
            let start = self.pos;
            let Some(c) = self.peek() else {
                if let Mode::Block(open) = mode {
                    if !self.stopped {
                        self.problems
                            .push(LexProblem::UnterminatedGroup { span: open });
                    }
                }
                break;
            };
            if escaped {
                if !self.word_into(depth, mode, &mut cur, true) {
                    break;
                }
                continue;
            }
            match c {
                '\n' | '\r' => {
                    if matches!(mode, Mode::Line { .. }) {
                        break;
                    }
                    self.bump();
                    cur.flush(&mut script, Connector::Sequence);
                }
                '&' | '|' => {
                    self.bump();
                    let conn = match (c, self.eat(c)) {
                        ('&', true) => Connector::And,
                        ('&', false) => Connector::Sequence,
                        (_, true) => Connector::Or,
                        (_, false) => Connector::Pipe,
                    };
                    if !self.token(start) {
                        break;
                    }
                    cur.flush(&mut script, conn);
                }
                ')' if mode.in_block() => {
                    if let Mode::Block(_) = mode {
                        self.bump();
                    }
                    break;
                }
                '<' | '>' => {
                    if !self.redirect(&mut cur, mode) {
                        break;
                    }
                }
                '0'..='9' if matches!(self.peek2(), Some('<' | '>')) => {
                    if !self.redirect(&mut cur, mode) {
                        break;
                    }
                }
                '(' if cur.at_start() => {
                    self.bump();
                    if !self.token(start) {
                        break;
                    }
                    let open = self.span_from(start);
                    if depth + 1 > self.max_depth {
                        self.problems.push(LexProblem::TooDeep { span: open });
                        self.skip_balanced();
                    } else {
                        let inner = self.script(depth + 1, Mode::Block(open));
                        cur.cmd.nested.push(Nested {
                            kind: NestedKind::Group,
                            script: inner,
                            in_word: None,
                            source: None,
                        });
                    }
                    cur.touch(self.span_from(start));
                }
                '(' if cur.name().as_deref() == Some("for") => {
                    if !self.for_set(depth, &mut cur) {
                        break;
                    }
                }
                _ => {
                    if !self.word_into(depth, mode, &mut cur, false) {
                        break;
                    }
                }
            }
        }
        cur.flush(&mut script, Connector::Sequence);
        script
    }

    /// Lexes one word into the command and handles what the word starts (`rem`, labels,
    /// `if`/`else`/`for` bodies). False when the token limit stopped lexing.
    fn word_into(
        &mut self,
        depth: usize,
        mode: Mode,
        cur: &mut Building,
        escaped_first: bool,
    ) -> bool {
        let start = self.pos;
        if !self.token(start) {
            return false;
        }
        let ctx = WordCtx {
            command_word: cur.cmd.argv.is_empty(),
            builtin_args: cur
                .name()
                .is_some_and(|n| FILE_BUILTINS.contains(&n.as_str())),
            in_block: mode.in_block(),
        };
        let acc = self.word(ctx, escaped_first);
        if self.pos == start {
            // Unreachable by construction; never loop without progress.
            self.bump();
            return true;
        }
        let word = acc.finish(self.span_from(start));
        cur.touch(word.span);
        cur.cmd.argv.push(word);
        let name = cur.name();
        let first_and_only = cur.cmd.argv.len() == 1;
        match name.as_deref() {
            Some("rem") if first_and_only => {
                self.skip_to_line_end();
                *cur = Building::new(cur.cmd.connector);
                return true;
            }
            Some(n) if first_and_only && n.starts_with(':') => {
                // `:: comment` and `:label`.
                self.skip_to_line_end();
                *cur = Building::new(cur.cmd.connector);
                return true;
            }
            _ => {}
        }
        if cur.body_done {
            return true;
        }
        let body = match name.as_deref() {
            Some("if") => if_condition_done(&cur.cmd.argv),
            Some("else") => first_and_only,
            Some("for") => cur
                .cmd
                .argv
                .last()
                .is_some_and(|w| !w.quoted && w.text.eq_ignore_ascii_case("do")),
            _ => false,
        };
        if body {
            cur.body_done = true;
            self.body(depth, mode, cur);
        }
        true
    }

    /// The command of an `if`/`else`/`for … do`: the rest of the line as a nested group.
    fn body(&mut self, depth: usize, mode: Mode, cur: &mut Building) {
        let start = self.pos;
        if depth + 1 > self.max_depth {
            self.problems.push(LexProblem::TooDeep {
                span: Span { start, end: start },
            });
            self.skip_to_line_end();
            return;
        }
        let mut inner = self.script(
            depth + 1,
            Mode::Line {
                in_block: mode.in_block(),
            },
        );
        if let Some((var, items)) = for_items(&cur.cmd.argv) {
            bind_loop_variable(&mut inner, var, &items);
        }
        if !inner.commands.is_empty() {
            cur.cmd.nested.push(Nested {
                kind: NestedKind::Group,
                script: inner,
                in_word: None,
                source: None,
            });
        }
        cur.touch(self.span_from(start));
    }

    /// The `( … )` of a `for`: a command string (`('cmd')`, `` (`cmd`) ``) is a nested command
    /// substitution; any other set is one literal word.
    fn for_set(&mut self, depth: usize, cur: &mut Building) -> bool {
        let start = self.pos;
        if !self.token(start) {
            return false;
        }
        self.bump();
        while self.peek().is_some_and(is_blank) {
            self.bump();
        }
        let mut acc = WordAcc::default();
        if let Some(q) = self.peek().filter(|&q| q == '\'' || q == '`') {
            // The closing quote is the one followed by blanks and `)`.
            let inner_start = self.pos + 1;
            let rest = self.text.get(inner_start..self.end).unwrap_or("");
            let mut close = None;
            for (i, ch) in rest.char_indices() {
                if is_newline(ch) {
                    break;
                }
                if ch == q {
                    let after = rest.get(i + 1..).unwrap_or("").trim_start_matches(is_blank);
                    if after.starts_with(')') {
                        close = Some(inner_start + i);
                        break;
                    }
                }
            }
            if let Some(inner_end) = close {
                let idx = cur.cmd.argv.len();
                if depth + 1 > self.max_depth {
                    let span = self.span_from(start);
                    self.problems.push(LexProblem::TooDeep { span });
                } else {
                    let saved = self.end;
                    self.pos = inner_start;
                    self.end = inner_end;
                    let inner = self.script(depth + 1, Mode::Top);
                    self.end = saved;
                    cur.cmd.nested.push(Nested {
                        kind: NestedKind::CommandSubstitution,
                        script: inner,
                        in_word: Some(idx),
                        source: None,
                    });
                }
                self.pos = inner_end + 1;
                while self.peek().is_some_and(is_blank) {
                    self.bump();
                }
                self.eat(')');
                acc.text
                    .push_str(self.text.get(start..self.pos).unwrap_or(""));
                acc.dynamic = true;
                let word = acc.finish(self.span_from(start));
                cur.touch(word.span);
                cur.cmd.argv.push(word);
                return true;
            }
        }
        // A literal set: up to the closing `)` on this line.
        self.pos = start;
        let len = self.rest().find([')', '\n', '\r']);
        match len.filter(|&i| self.rest().get(i..).is_some_and(|r| r.starts_with(')'))) {
            Some(i) => self.pos += i + 1,
            None => {
                self.problems.push(LexProblem::UnterminatedGroup {
                    span: Span {
                        start,
                        end: start + 1,
                    },
                });
                self.pos += len.unwrap_or(self.rest().len());
            }
        }
        let text = self.text.get(start..self.pos).unwrap_or("");
        acc.glob = text.contains(['*', '?']);
        acc.dynamic = text.contains('%') || text.contains('!');
        acc.text.push_str(text);
        acc.bare_parts += 1;
        let word = acc.finish(self.span_from(start));
        cur.touch(word.span);
        cur.cmd.argv.push(word);
        true
    }

    /// A redirection at the cursor. False when the token limit stopped lexing.
    fn redirect(&mut self, cur: &mut Building, mode: Mode) -> bool {
        let start = self.pos;
        let fd = self.peek().and_then(|c| c.to_digit(10)).inspect(|_| {
            self.pos += 1;
        });
        let mut kind = if self.eat('>') {
            if self.eat('>') {
                RedirectKind::Append
            } else {
                RedirectKind::Output
            }
        } else {
            self.bump();
            RedirectKind::Input
        };
        if !self.token(start) {
            return false;
        }
        let target = if self.peek() == Some('&') && self.peek2().is_some_and(|c| c.is_ascii_digit())
        {
            self.bump();
            let t = self.pos;
            let text = self.bump().map(String::from).unwrap_or_default();
            kind = RedirectKind::Duplicate;
            Word {
                text,
                span: self.span_from(t),
                ..Word::default()
            }
        } else {
            while self.peek().is_some_and(is_blank) {
                self.bump();
            }
            let t = self.pos;
            let usable = self.peek().is_some_and(|c| {
                !(is_newline(c)
                    || matches!(c, '&' | '|' | '<' | '>')
                    || (c == ')' && mode.in_block()))
            });
            if usable {
                if !self.token(t) {
                    return false;
                }
                let ctx = WordCtx {
                    in_block: mode.in_block(),
                    ..WordCtx::default()
                };
                let acc = self.word(ctx, false);
                acc.finish(self.span_from(t))
            } else {
                let span = self.span_from(start);
                self.problems.push(LexProblem::Unsupported {
                    span,
                    what: "redirection without a target",
                });
                Word {
                    span: Span { start: t, end: t },
                    ..Word::default()
                }
            }
        };
        cur.touch(Span {
            start,
            end: target.span.end.max(start),
        });
        cur.cmd.redirects.push(Redirect { kind, fd, target });
        true
    }

    /// One word: `^` escapes, double quotes, `%VAR%` / `!VAR!` expansions.
    fn word(&mut self, ctx: WordCtx, escaped_first: bool) -> WordAcc {
        let start = self.pos;
        let mut acc = WordAcc::default();
        if escaped_first {
            if let Some(c) = self.bump() {
                acc.text.push(c);
                acc.quoted_parts += 1;
            }
        }
        let mut quote: Option<usize> = None;
        while let Some(c) = self.peek() {
            if quote.is_some() {
                match c {
                    '"' => {
                        self.bump();
                        quote = None;
                    }
                    '\n' | '\r' => break,
                    '%' => self.percent(&mut acc),
                    '!' => self.bang(&mut acc),
                    _ => {
                        self.bump();
                        acc.text.push(c);
                    }
                }
                continue;
            }
            if is_blank(c) || is_newline(c) || matches!(c, '&' | '|' | '<' | '>') {
                break;
            }
            if c == ')' && ctx.in_block {
                break;
            }
            if ctx.command_word && acc.has_content() && matches!(c, '/' | ',' | ';' | '=') {
                break;
            }
            if ctx.builtin_args && matches!(c, ',' | ';' | '=') {
                break;
            }
            if ctx.builtin_args && c == '/' && acc.text.starts_with('/') && self.pos > start {
                break;
            }
            match c {
                '^' => {
                    self.bump();
                    match self.bump() {
                        None => {}
                        Some(n) if is_newline(n) => {
                            if n == '\r' {
                                self.eat('\n');
                            }
                            if let Some(s) = self.peek().filter(|&s| is_special(s)) {
                                self.bump();
                                acc.text.push(s);
                                acc.quoted_parts += 1;
                            }
                        }
                        Some(e) => {
                            acc.text.push(e);
                            acc.quoted_parts += 1;
                        }
                    }
                }
                '"' => {
                    quote = Some(self.pos);
                    self.bump();
                    acc.quoted_parts += 1;
                }
                '%' => self.percent(&mut acc),
                '!' => self.bang(&mut acc),
                '*' | '?' => {
                    self.bump();
                    acc.glob = true;
                    acc.bare_parts += 1;
                    acc.text.push(c);
                }
                _ => {
                    self.bump();
                    acc.bare_parts += 1;
                    acc.text.push(c);
                }
            }
        }
        if let Some(open) = quote {
            self.problems.push(LexProblem::UnterminatedQuote {
                span: Span {
                    start: open,
                    end: open + 1,
                },
            });
        }
        acc
    }

    /// `%VAR%`, `%VAR:~0,1%`, `%~dp0`, `%1`, `%*`, `%%i`, `%i`, or a literal `%`.
    fn percent(&mut self, acc: &mut WordAcc) {
        let start = self.pos;
        let after = self.rest().get(1..).unwrap_or("");
        let mut chars = after.chars();
        let len = match (chars.next(), chars.next()) {
            (Some('~'), _) => {
                let mods = after
                    .get(1..)
                    .unwrap_or("")
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == ':'))
                    .unwrap_or(after.len().saturating_sub(1));
                Some(2 + mods)
            }
            (Some(d), _) if d.is_ascii_digit() || d == '*' => Some(2),
            (Some('%'), Some(l)) if l.is_ascii_alphabetic() => Some(3),
            (Some('%'), _) => {
                self.pos += 2;
                acc.text.push('%');
                acc.bare_parts += 1;
                return;
            }
            (Some(_), _) => {
                let stop = after.find(|c: char| {
                    c.is_whitespace() || matches!(c, '%' | '"' | '&' | '|' | '<' | '>' | '^')
                });
                match stop {
                    Some(i) if i > 0 && after.get(i..).is_some_and(|r| r.starts_with('%')) => {
                        Some(i + 2)
                    }
                    _ => {
                        let mut it = after.chars();
                        match (it.next(), it.next()) {
                            // `%i`: a for variable on the command line.
                            (Some(l), next)
                                if l.is_ascii_alphabetic()
                                    && next.is_none_or(|n| !n.is_alphanumeric()) =>
                            {
                                Some(2)
                            }
                            _ => None,
                        }
                    }
                }
            }
            (None, _) => None,
        };
        match len {
            Some(n) => {
                let end = (start + n).min(self.end);
                let end = (end..=self.end)
                    .find(|&e| self.text.is_char_boundary(e))
                    .unwrap_or(self.end);
                self.pos = end;
                acc.text.push_str(self.text.get(start..end).unwrap_or(""));
                acc.dynamic = true;
            }
            None => {
                self.bump();
                acc.text.push('%');
                acc.bare_parts += 1;
            }
        }
    }

    /// `!VAR!` (delayed expansion, assumed enabled) or a literal `!`.
    fn bang(&mut self, acc: &mut WordAcc) {
        let start = self.pos;
        let after = self.rest().get(1..).unwrap_or("");
        let stop = after.find(|c: char| c == '!' || c.is_whitespace() || c == '"' || is_special(c));
        match stop {
            Some(i) if i > 0 && after.get(i..).is_some_and(|r| r.starts_with('!')) => {
                self.pos = start + i + 2;
                acc.text
                    .push_str(self.text.get(start..self.pos).unwrap_or(""));
                acc.dynamic = true;
            }
            _ => {
                self.bump();
                acc.text.push('!');
                acc.bare_parts += 1;
            }
        }
    }

    /// Past the nesting limit: skips to the `)` closing the current block in one linear pass.
    fn skip_balanced(&mut self) {
        let mut level = 1usize;
        let mut quoted = false;
        while let Some(c) = self.bump() {
            match c {
                '"' => quoted = !quoted,
                '^' if !quoted => {
                    self.bump();
                }
                '(' if !quoted => level += 1,
                ')' if !quoted => {
                    level -= 1;
                    if level == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shell::model::testing::{check_spans, Rng};

    fn lx(text: &str) -> Script {
        lex(text, &LexLimits::default())
    }

    fn argvs(script: &Script) -> Vec<Vec<String>> {
        script
            .commands
            .iter()
            .map(|c| c.argv.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    fn words(text: &str) -> Vec<Vec<String>> {
        let s = lx(text);
        assert!(s.complete(), "{text:?}: {:?}", s.problems);
        argvs(&s)
    }

    fn v(items: &[&[&str]]) -> Vec<Vec<String>> {
        items
            .iter()
            .map(|c| c.iter().map(|w| (*w).to_owned()).collect())
            .collect()
    }

    fn w(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            ..Word::default()
        }
    }

    fn ws(items: &[&str]) -> Vec<Word> {
        items.iter().map(|t| w(t)).collect()
    }

    #[test]
    fn simple_commands_and_operators() {
        let s = lx("del /s /q C:\\x & rd /s /q y && echo ok || echo bad | more");
        assert!(s.complete());
        assert_eq!(
            argvs(&s),
            v(&[
                &["del", "/s", "/q", "C:\\x"],
                &["rd", "/s", "/q", "y"],
                &["echo", "ok"],
                &["echo", "bad"],
                &["more"],
            ])
        );
        let conns: Vec<Connector> = s.commands.iter().map(|c| c.connector).collect();
        assert_eq!(
            conns,
            [
                Connector::Sequence,
                Connector::Sequence,
                Connector::And,
                Connector::Or,
                Connector::Pipe
            ]
        );
    }

    #[test]
    fn spans_point_at_words() {
        let text = "del  \"a b\" x";
        let s = lx(text);
        let a = &s.commands[0].argv;
        assert_eq!(&text[a[1].span.start..a[1].span.end], "\"a b\"");
        assert_eq!(a[1].text, "a b");
        assert!(a[1].fully_quoted);
        assert_eq!(s.commands[0].span, Span { start: 0, end: 12 });
    }

    #[test]
    fn caret_escapes() {
        assert_eq!(words("d^e^l /s x"), v(&[&["del", "/s", "x"]]));
        assert_eq!(words("echo a^&b ^| c"), v(&[&["echo", "a&b", "|", "c"]]));
        let s = lx("r^d x");
        assert!(s.commands[0].argv[0].quoted && !s.commands[0].argv[0].fully_quoted);
        assert_eq!(words("echo ^^"), v(&[&["echo", "^"]]));
    }

    #[test]
    fn caret_newline_continues() {
        assert_eq!(
            words("rd /s ^\n/q C:\\x"),
            v(&[&["rd", "/s", "/q", "C:\\x"]])
        );
        assert_eq!(words("de^\r\nl x"), v(&[&["del", "x"]]));
        // The first character of the next line is escaped.
        assert_eq!(words("echo a ^\n&b"), v(&[&["echo", "a", "&b"]]));
    }

    #[test]
    fn double_quotes_are_literal_except_percent() {
        let s = lx("echo \"a ^& b | c\" \"%TEMP%\\x\"");
        let a = &s.commands[0].argv;
        assert_eq!(a[1].text, "a ^& b | c");
        assert!(a[1].fully_quoted);
        assert_eq!(a[2].text, "%TEMP%\\x");
        assert!(a[2].dynamic && !a[2].fully_quoted);
        assert_eq!(words("r\"d\" x"), v(&[&["rd", "x"]]));
    }

    #[test]
    fn unterminated_quote() {
        let s = lx("del \"C:\\x");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedQuote {
                span: Span { start: 4, end: 5 }
            }]
        );
        assert_eq!(argvs(&s), v(&[&["del", "C:\\x"]]));
        // The quote ends at the end of its line.
        let s = lx("echo \"a\ndel x");
        assert_eq!(argvs(&s), v(&[&["echo", "a"], &["del", "x"]]));
    }

    #[test]
    fn variables_are_dynamic() {
        let s = lx("rd /s /q %USERPROFILE% !X! %~dp0 %1 %* %%i %ProgramData:~0,1% %PATH:a=b%");
        assert!(s.complete());
        let a = &s.commands[0].argv;
        assert_eq!(a[3].text, "%USERPROFILE%");
        for w in &a[3..] {
            assert!(w.dynamic, "{}", w.text);
        }
        let s = lx("echo 50% done 100%% x! y");
        for w in &s.commands[0].argv {
            assert!(!w.dynamic, "{}", w.text);
        }
        assert!(lx("%COMSPEC% /c del x").commands[0].argv[0].dynamic);
        assert!(lx("echo %ProgramFiles(x86)%").commands[0].argv[1].dynamic);
    }

    #[test]
    fn redirections() {
        let s = lx("dir > out.txt 2>&1 2>> err.log < in.txt 1>&2 >>\"a b\"");
        assert!(s.complete(), "{:?}", s.problems);
        let r: Vec<(RedirectKind, Option<u32>, String)> = s.commands[0]
            .redirects
            .iter()
            .map(|r| (r.kind, r.fd, r.target.text.clone()))
            .collect();
        assert_eq!(
            r,
            [
                (RedirectKind::Output, None, "out.txt".into()),
                (RedirectKind::Duplicate, Some(2), "1".into()),
                (RedirectKind::Append, Some(2), "err.log".into()),
                (RedirectKind::Input, None, "in.txt".into()),
                (RedirectKind::Duplicate, Some(1), "2".into()),
                (RedirectKind::Append, None, "a b".into()),
            ]
        );
        assert_eq!(argvs(&s), v(&[&["dir"]]));
        let s = lx("echo ssh-rsa AAA>>%USERPROFILE%\\.ssh\\authorized_keys");
        assert_eq!(s.commands[0].redirects[0].kind, RedirectKind::Append);
        assert!(s.commands[0].redirects[0].target.dynamic);
        assert!(!lx("echo x >").complete());
    }

    #[test]
    fn blocks_are_nested_groups() {
        let s = lx("(del /s /q x & rd /s /q C:\\) > log.txt");
        assert!(s.complete(), "{:?}", s.problems);
        let c = &s.commands[0];
        assert!(c.argv.is_empty());
        assert_eq!(c.redirects.len(), 1);
        assert_eq!(c.nested[0].kind, NestedKind::Group);
        assert_eq!(
            argvs(&c.nested[0].script),
            v(&[&["del", "/s", "/q", "x"], &["rd", "/s", "/q", "C:\\"]])
        );
        let s = lx("(\n  echo a\n  (del x)\n)");
        assert!(s.complete());
        let inner = &s.commands[0].nested[0].script;
        assert_eq!(
            argvs(&inner.commands[1].nested[0].script),
            v(&[&["del", "x"]])
        );
    }

    #[test]
    fn paren_literal_outside_command_start() {
        assert_eq!(words("echo (hi) a)b"), v(&[&["echo", "(hi)", "a)b"]]));
    }

    #[test]
    fn unclosed_block() {
        let s = lx("echo a & (del x");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedGroup {
                span: Span { start: 9, end: 10 }
            }]
        );
    }

    #[test]
    fn if_bodies_are_nested() {
        let s = lx("if exist build rmdir /s /q build");
        assert!(s.complete());
        let c = &s.commands[0];
        assert_eq!(argvs(&s), v(&[&["if", "exist", "build"]]));
        assert_eq!(
            argvs(&c.nested[0].script),
            v(&[&["rmdir", "/s", "/q", "build"]])
        );
        let s = lx("if /i not \"%a%\"==\"b\" (del x) else (rd /s /q y)");
        assert!(s.complete(), "{:?}", s.problems);
        let body = &s.commands[0].nested[0].script;
        assert_eq!(
            argvs(&body.commands[0].nested[0].script),
            v(&[&["del", "x"]])
        );
        let els = &body.commands[0].nested[1].script;
        assert_eq!(
            argvs(&els.commands[0].nested[0].script),
            v(&[&["rd", "/s", "/q", "y"]])
        );
        let s = lx("if %x% EQU 1 del a & del b\ndel c");
        assert_eq!(argvs(&s).len(), 2);
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["del", "a"], &["del", "b"]])
        );
    }

    #[test]
    fn for_loops() {
        let s = lx("for /d %i in (*) do rd /s /q %i");
        assert!(s.complete(), "{:?}", s.problems);
        let c = &s.commands[0];
        assert_eq!(argvs(&s), v(&[&["for", "/d", "%i", "in", "(*)", "do"]]));
        assert!(c.argv[4].glob);
        // (The loop variable stands for the set's items: [`for_items`].)
        assert_eq!(argvs(&c.nested[0].script), v(&[&["rd", "/s", "/q", "*"]]));
        let s = lx("for /f \"tokens=*\" %%a in ('del /s /q C:\\x') do (echo %%a)");
        assert!(s.complete(), "{:?}", s.problems);
        let c = &s.commands[0];
        assert_eq!(c.nested[0].kind, NestedKind::CommandSubstitution);
        assert_eq!(c.nested[0].in_word, Some(5));
        assert_eq!(
            argvs(&c.nested[0].script),
            v(&[&["del", "/s", "/q", "C:\\x"]])
        );
        assert!(c.argv[5].dynamic);
    }

    /// A `for` over a literal set binds its variable in the body to the set's items; `/r`,
    /// `/f`, `/l` and sets with variables or quotes leave it a run-time word.
    #[test]
    fn for_loop_variables_are_the_set_items() {
        let body = |t: &str| {
            let s = lx(t);
            assert!(s.complete(), "{t}: {:?}", s.problems);
            s.commands[0].nested[0].script.clone()
        };
        let b = body("for %f in (*.tmp) do del %f");
        assert_eq!(argvs(&b), v(&[&["del", "*.tmp"]]));
        assert!(b.commands[0].argv[1].glob && !b.commands[0].argv[1].dynamic);
        let b = body("for %%f in (a.txt b.txt) do del /q \"%%f\"");
        assert_eq!(argvs(&b), v(&[&["del", "/q", "a.txt", "b.txt"]]));
        let b = body("for /d %i in (*) do rd /s /q %i");
        assert_eq!(argvs(&b), v(&[&["rd", "/s", "/q", "*"]]));
        let b = body("for %f in (C:\\) do (echo %f & rd /s /q %f)");
        assert_eq!(
            argvs(&b.commands[0].nested[0].script),
            v(&[&["echo", "C:\\"], &["rd", "/s", "/q", "C:\\"]])
        );
        for t in [
            "for /r %f in (*.log) do del %f",
            "for /l %i in (1,1,3) do del %i",
            "for %f in (%X%) do del %f",
            "for %f in (\"a b\") do del %f",
        ] {
            let b = body(t);
            assert!(b.commands[0].argv[1].dynamic, "{t}");
        }
        // `%~nf` (a modifier) is another word, left as it is.
        let b = body("for %f in (*.c) do echo %~nf");
        assert!(b.commands[0].argv[1].dynamic);
    }

    #[test]
    fn echo_off_prefix_and_leading_delimiters() {
        assert_eq!(
            words("@echo off & @del x"),
            v(&[&["echo", "off"], &["del", "x"]])
        );
        assert_eq!(words(",;= del x"), v(&[&["del", "x"]]));
    }

    #[test]
    fn command_word_ends_at_slash_and_delimiters() {
        assert_eq!(words("rd/s/q C:\\"), v(&[&["rd", "/s", "/q", "C:\\"]]));
        assert_eq!(words("cmd/c del x"), v(&[&["cmd", "/c", "del", "x"]]));
        assert_eq!(
            words("del,/s,/q;C:\\x"),
            v(&[&["del", "/s", "/q", "C:\\x"]])
        );
        assert_eq!(
            words("del /f/s/q C:/x/y"),
            v(&[&["del", "/f", "/s", "/q", "C:/x/y"]])
        );
        // Not a built-in file command: arguments keep their delimiters.
        assert_eq!(
            words("git commit -m a,b --x=y"),
            v(&[&["git", "commit", "-m", "a,b", "--x=y"]])
        );
        assert_eq!(words("set x=1"), v(&[&["set", "x=1"]]));
    }

    #[test]
    fn comments() {
        assert_eq!(
            words("rem del /s /q x & rd y\necho a"),
            v(&[&["echo", "a"]])
        );
        assert_eq!(words(":: del x\n:label\necho b"), v(&[&["echo", "b"]]));
        assert_eq!(words("REM hello"), Vec::<Vec<String>>::new());
        assert_eq!(words("remove x"), v(&[&["remove", "x"]]));
    }

    #[test]
    fn depth_limit() {
        let limits = LexLimits {
            max_depth: 2,
            max_tokens: 4096,
        };
        assert!(lex("((del x))", &limits).complete());
        let s = lex("(((del x))) & rd y", &limits);
        assert_eq!(
            s.problems,
            vec![LexProblem::TooDeep {
                span: Span { start: 2, end: 3 }
            }]
        );
        assert_eq!(
            argvs(&s).last(),
            Some(&vec!["rd".to_owned(), "y".to_owned()])
        );
    }

    #[test]
    fn token_limit() {
        let limits = LexLimits {
            max_depth: 8,
            max_tokens: 3,
        };
        let s = lex("a b c d e", &limits);
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::TooLong { .. }]
        ));
        assert_eq!(argvs(&s), v(&[&["a", "b", "c"]]));
    }

    #[test]
    fn worst_cases_are_linear() {
        let deep = "(".repeat(10_000);
        assert!(lx(&deep)
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooDeep { .. })));
        let deep2 = format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(!lx(&deep2).complete());
        let long = "del /s /q x & ".repeat(1500);
        assert!(lx(&long)
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooLong { .. })));
        let percents = "%a ".repeat(7000);
        let _ = lx(&percents);
        let bangs = "!".repeat(20_000);
        let _ = lx(&bangs);
        let ifs = "if exist a ".repeat(2000);
        assert!(!lx(&ifs).complete());
    }

    #[test]
    fn mutated_commands_never_panic() {
        let bases = [
            "cmd /c \"del /s /q C:\\x\" & rd/s/q y",
            "if exist b (rmdir /s /q b) else echo none",
            "for /f \"tokens=*\" %%a in ('dir /b ^| find \"x\"') do @del \"%%a\"",
            "@echo off & set \"X=C:\\\" & rd /s /q %X% 2>nul",
            "(echo a ^& b) >> %USERPROFILE%\\.ssh\\authorized_keys",
        ];
        let inserts = [
            "'", "\"", "`", "^", "(", ")", "{", "}", "$(", "%", "!", "\n", "é", "|", "&", " ",
        ];
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for _ in 0..3000 {
            let mut text: String = bases[rng.below(bases.len())].to_owned();
            for _ in 0..1 + rng.below(4) {
                let bounds: Vec<usize> = (0..=text.len())
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                let at = bounds[rng.below(bounds.len())];
                if rng.below(2) == 0 {
                    text.insert_str(at, inserts[rng.below(inserts.len())]);
                } else if let Some(c) = text[at..].chars().next() {
                    text.replace_range(at..at + c.len_utf8(), "");
                }
            }
            check_spans(&text, &lx(&text));
        }
    }

    #[test]
    fn never_panics_and_spans_are_valid() {
        const PIECES: &[&str] = &[
            "del", "rd", " ", "/s", "/q", "\"", "^", "^\n", "%", "%X%", "%~", "%%", "!", "!V!",
            "(", ")", "&", "&&", "|", "||", "\n", "\r\n", ">", ">>", "2>&1", "<", "@", ",", ";",
            "=", "rem ", "::", "if ", "exist ", "for ", "in ", "do ", "('", "')", "else ", "é",
            "€", "x", "C:\\", "*",
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let limits = LexLimits {
            max_depth: 3,
            max_tokens: 48,
        };
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                text.push_str(PIECES[rng.below(PIECES.len())]);
            }
            check_spans(&text, &lex(&text, &limits));
            check_spans(&text, &lx(&text));
        }
        let base =
            "@for /f \"t=*\" %%a in ('dir ^| x') do (if exist \"%%a\" rd/s/q %%a) 2>&1 & echo é";
        for (i, _) in base.char_indices() {
            check_spans(&base[..i], &lx(&base[..i]));
        }
    }

    #[test]
    fn trailing_caret_is_dropped() {
        assert_eq!(words("del x^"), v(&[&["del", "x"]]));
    }

    #[test]
    fn tilde_and_path_search_modifiers() {
        let s = lx("%~$PATH:1 %~nx2");
        assert!(s.commands[0].argv.iter().all(|w| w.dynamic));
        assert_eq!(s.commands[0].argv[0].text, "%~$PATH:1");
    }

    #[test]
    fn block_piped_and_redirected() {
        let s = lx("(dir /s) | find \"x\" > out.txt");
        assert!(s.complete());
        assert_eq!(s.commands[1].connector, Connector::Pipe);
        assert_eq!(argvs(&s), v(&[&[], &["find", "x"]]));
        assert_eq!(s.commands[1].redirects[0].target.text, "out.txt");
        let s = lx("( echo a > x.txt )");
        let inner = &s.commands[0].nested[0].script;
        assert_eq!(inner.commands[0].redirects[0].target.text, "x.txt");
    }

    #[test]
    fn unterminated_for_set() {
        let s = lx("for %i in (a b");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedGroup {
                span: Span { start: 10, end: 11 }
            }]
        );
    }

    #[test]
    fn unicode_text_keeps_char_boundaries() {
        let text = "echo é€ & del \"ü x\"";
        let s = lx(text);
        check_spans(text, &s);
        assert_eq!(argvs(&s), v(&[&["echo", "é€"], &["del", "ü x"]]));
        // NBSP (0xFF in the OEM code page) separates words.
        assert_eq!(words("del\u{a0}x"), v(&[&["del", "x"]]));
    }

    #[test]
    fn descriptor_redirects_to_nul() {
        let s = lx("rd /s /q x 2>nul 1>NUL");
        let r = &s.commands[0].redirects;
        assert_eq!(
            (r[0].kind, r[0].fd, r[0].target.text.as_str()),
            (RedirectKind::Output, Some(2), "nul")
        );
        assert_eq!(r[1].fd, Some(1));
    }

    #[test]
    fn rem_in_a_block_comments_out_the_paren() {
        // As in CMD, `rem` takes the rest of the line, `)` included.
        let s = lx("(rem x)");
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::UnterminatedGroup { .. }]
        ));
        assert!(lx("(\nrem x\n)").complete());
    }

    #[test]
    fn if_defined_and_errorlevel() {
        let s = lx("if defined X del %X% & echo y");
        assert_eq!(argvs(&s), v(&[&["if", "defined", "X"]]));
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["del", "%X%"], &["echo", "y"]])
        );
        let s = lx("if errorlevel 1 (rd /s /q out)");
        let body = &s.commands[0].nested[0].script;
        assert_eq!(
            argvs(&body.commands[0].nested[0].script),
            v(&[&["rd", "/s", "/q", "out"]])
        );
        let s = lx("if not exist \"a b\" md \"a b\"");
        assert_eq!(argvs(&s.commands[0].nested[0].script), v(&[&["md", "a b"]]));
    }

    #[test]
    fn nested_shell_payloads_keep_their_text() {
        let s = lx("powershell -NoProfile -Command \"Remove-Item -Recurse -Force C:\\w\"");
        assert_eq!(
            argvs(&s),
            v(&[&[
                "powershell",
                "-NoProfile",
                "-Command",
                "Remove-Item -Recurse -Force C:\\w"
            ]])
        );
        // Inside quotes `^` is literal: the inner cmd removes it.
        let s = lx("cmd /c \"r^d /s /q C:\\\"");
        assert_eq!(s.commands[0].argv[2].text, "r^d /s /q C:\\");
    }

    #[test]
    fn split_switches_basic() {
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/c", "del /s /q C:\\x"])),
            Some((1, "del /s /q C:\\x".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&[
                "C:\\Windows\\System32\\CMD.EXE",
                "/Q",
                "/K",
                "rd",
                "/s",
                "x"
            ])),
            Some((2, "rd /s x".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd.exe", "/s", "/v:on", "/e:on", "/d", "/c", "dir"])),
            Some((5, "dir".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/r", "del", "x"])),
            Some((1, "del x".to_owned()))
        );
    }

    #[test]
    fn split_switches_glued() {
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/cdel x"])),
            Some((1, "del x".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/cdel", "/s", "y"])),
            Some((1, "del /s y".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/q/c", "rd", "x"])),
            Some((1, "rd x".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd/c", "del", "x"])),
            Some((0, "del x".to_owned()))
        );
        // From the CMD lexer: `cmd /c"del x"`.
        let s = lx("cmd /c\"del /s /q x\"");
        assert_eq!(
            split_cmd_switches(&s.commands[0].argv),
            Some((1, "del /s /q x".to_owned()))
        );
    }

    #[test]
    fn split_switches_quoting() {
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/c", "rd", "/s", "C:\\Program Files"])),
            Some((1, "rd /s \"C:\\Program Files\"".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/s", "/c", "\"del x\""])),
            Some((2, "del x".to_owned()))
        );
        assert_eq!(
            split_cmd_switches(&ws(&["cmd", "/c"])),
            Some((1, String::new()))
        );
    }

    #[test]
    fn split_switches_rejects() {
        assert_eq!(split_cmd_switches(&ws(&["cmd"])), None);
        assert_eq!(split_cmd_switches(&ws(&["cmd", "/q", "x"])), None);
        assert_eq!(split_cmd_switches(&ws(&["cmdx", "/c", "x"])), None);
        assert_eq!(split_cmd_switches(&ws(&["sh", "-c", "x"])), None);
        assert_eq!(split_cmd_switches(&ws(&["mycmd/c", "x"])), None);
        assert_eq!(split_cmd_switches(&[]), None);
    }
}
