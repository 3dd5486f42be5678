//! The PowerShell dialect: a lexer from a command line to the shared [`model`](super::model),
//! plus the tables the command model needs to understand PowerShell (cmdlet aliases, the
//! `powershell`/`pwsh` host parameters, `-EncodedCommand` decoding).
//!
//! # The lexer
//! An explicit state machine over one byte cursor shared by every nesting level (each level
//! is a call bounded by the depth limit; every byte is consumed once, so time is linear). It
//! models argument mode, which is what commands are written in:
//! - words with backtick escapes (`` `n `` `` `t `` `` `0 `` `` `a `` `` `b `` `` `f `` `` `r ``
//!   `` `v `` `` `u{…} ``, anything else literal; backtick-newline continues the line and, inside
//!   a word, joins it); single quotes (`''` is one quote; no expansion, so a word that is one
//!   single-quoted string is `fully_quoted`); double quotes (`""` and `` `" `` escapes);
//!   here-strings `@'…'@` / `@"…"@` closed by the delimiter at the start of a line; the
//!   typographic quotes and dashes PowerShell accepts (`‘’‚‛`, `“”„`, `–Recurse`);
//! - `$var`, `$env:X`, `${…}`, `@splat` make a word `dynamic` (`$true`, `$false`, `$null` do
//!   not); `$(…)`, `@(…)` and `(…)` are [`NestedKind::CommandSubstitution`]s lexed recursively
//!   (also inside double quotes and expandable here-strings) and make the word dynamic; script
//!   blocks `{…}` and hashtables `@{…}` are [`NestedKind::Group`]s (not dynamic). The word keeps
//!   the verbatim source of each of these, and [`Nested::in_word`] points at it;
//! - `,` outside quotes separates array elements (`Remove-Item C:\,D:\`), each its own word;
//! - `;` and newlines separate statements, `|` `&&` `||` are [`Connector`]s (a newline after
//!   one of them continues the pipeline), a trailing `&` runs in the background; the call
//!   operator `&` and dot-sourcing `.` at the start of a command are dropped so the next word is
//!   the command;
//! - redirections `>` `>>` `n>` `n>>` `*>` `*>>` `n>&m` `<` ([`RedirectKind::OutputAll`] for
//!   `*`; `fd` is the digit when one is written, else `None`);
//! - comments `#…` (at the start of a token) and `<#…#>`;
//! - `--%` (stop parsing): the rest of the line up to a newline or `|` is split on blanks
//!   and double quotes only, `%VAR%` marks a word dynamic;
//! - `$var = …` statements: the variable and the operator are dropped, so `$x = Get-ChildItem`
//!   is the command `Get-ChildItem`; a lone value (`$x = 'a'`, `$x = "$y\z"`, `$x = 5`,
//!   `$x = $y`, `$x = $(…)`, `$x = (…)`) is no command at all (what a subexpression runs stays
//!   in `nested`, with `in_word: None`); `$env:NAME = value` is recorded in `assignments`.
//!
//! Where Windows PowerShell 5.1 and PowerShell 7 read an escape differently, the lexer takes
//! the reading that can form a command name: `` `e `` is `e` (5.1; escape character in 7) and
//! `` `u{72} `` is `r` (7; `u{72}` in 5.1). Parameters (`-Recurse`, `-Force:$true`) are plain
//! words; case is kept (use [`canonical_cmdlet`] and case-insensitive parameter matching).
//!
//! # Invariants
//! Spans are byte ranges of the input on char boundaries; the lexer never panics and never
//! loops without consuming input. All problems are reported on the top-level [`Script`]
//! (nested scripts carry none). Any problem means "needs a human".
//!
//! # Limits
//! Nesting deeper than `min(max_depth, 64)` → [`LexProblem::TooDeep`] at the opener, and the
//! group is skipped in one balanced linear pass (lexing resumes after it); more than
//! `max_tokens` words, operators and openers → [`LexProblem::TooLong`] and lexing stops.
//! Unterminated quotes, here-strings (`UnterminatedHereDoc`), `${`, `<#` and groups are reported
//! with the span where they opened.
//!
//! # Non-goals
//! Expression mode is not parsed: operators (`-and`, `+`), method calls and member access are
//! plain words, and a statement starting with a type literal (`[IO.File]::Delete(…)`) is
//! flagged [`LexProblem::Unsupported`]. Keywords (`if`, `foreach`, `function`, `try`) are
//! plain words; their bodies are nested groups, analysed as if they ran (a function body is
//! treated like code that runs; a `param(…)` block ends its statement, and it and a
//! function's own `f($p, $q)` list hold declarations, not commands), and the parentheses of a method call (`.DownloadString(…)`)
//! are a nested substitution whose "commands" are its argument values. No variable, alias or
//! function resolution. A leading quoted string stays the command word: it is `fully_quoted`
//! (PowerShell evaluates it as a value) unless `&` or `.` precedes it (`& 'C:\x.exe'` runs, so
//! it is not fully quoted).

use super::model::{
    fnv, Connector, Cursor, LexLimits, LexProblem, Nested, NestedKind, Redirect, RedirectKind,
    Script, SimpleCommand, Span, Word,
};

/// Recursion cap applied on top of [`LexLimits::max_depth`]: each nesting level costs a few
/// stack frames, and a configured depth must never be able to overflow the (wasm) stack.
const HARD_MAX_DEPTH: usize = 64;

/// Lexes a PowerShell command line into the shared model.
pub fn lex(text: &str, limits: &LexLimits) -> Script {
    let mut lx = Lexer(
        Cursor::new(text, *limits, HARD_MAX_DEPTH),
        Bindings::default(),
    );
    let mut script = lx.script(0, None, Span::default());
    script.problems = lx.0.problems;
    script
}

/// `cmd` is a complete `param(…)` block alone: what follows it is the next statement.
fn param_block(cmd: &SimpleCommand) -> bool {
    match cmd.argv.as_slice() {
        [w] => {
            !w.quoted
                && w.text.ends_with(')')
                && w.text
                    .get(..6)
                    .is_some_and(|p| p.eq_ignore_ascii_case("param("))
        }
        _ => false,
    }
}

fn is_squote(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}')
}

fn is_dquote(c: char) -> bool {
    matches!(c, '"' | '\u{201c}' | '\u{201d}' | '\u{201e}')
}

fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2013}' | '\u{2014}' | '\u{2015}')
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

fn is_blank(c: char) -> bool {
    c.is_whitespace() && !is_newline(c)
}

fn is_var_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Characters that end a bare word (`,` separates the elements of an array argument).
fn ends_word(c: char) -> bool {
    is_blank(c) || is_newline(c) || matches!(c, ';' | '|' | '&' | ')' | '}' | '>' | '<' | ',')
}

/// A word being assembled.
#[derive(Default)]
struct WordAcc {
    text: String,
    /// Parts: quoted (single, double, here-string, escape) and bare.
    quoted_parts: usize,
    bare_parts: usize,
    dynamic: bool,
    glob: bool,
    nested: Vec<(NestedKind, Script)>,
}

/// The simple command being assembled.
struct Building {
    cmd: SimpleCommand,
    started: bool,
    /// `$env:NAME = …`: the variable being assigned.
    env_assign: Option<String>,
    /// A `$var = …` statement (the variable and `=` were dropped).
    assignment: bool,
    /// The first word after `$var =` is a value (a string, number, variable or
    /// subexpression), not a command name.
    rhs_is_value: bool,
    /// The command word follows the call operator `&` or dot-sourcing `.`.
    call_op: bool,
    /// The command word follows dot-sourcing `.`.
    dot: bool,
    /// `$name = …`: the assigned variable ([`binding_name`]) and whether the operator is `=`.
    assigned: Option<(String, bool)>,
    /// `& $sb` of a bound block: the call's word, pushed (as a plain word) before the first
    /// argument, if any; the block is a nested group of the call.
    block_call: Option<Word>,
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
            env_assign: None,
            assignment: false,
            rhs_is_value: false,
            call_op: false,
            dot: false,
            assigned: None,
            block_call: None,
        }
    }

    fn touch(&mut self, span: Span) {
        if !self.started {
            self.started = true;
            self.cmd.span.start = span.start;
        }
        self.cmd.span.end = self.cmd.span.end.max(span.end);
    }

    fn is_empty(&self) -> bool {
        self.cmd.argv.is_empty()
            && self.cmd.redirects.is_empty()
            && self.cmd.nested.is_empty()
            && self.cmd.assignments.is_empty()
            && self.env_assign.is_none()
            && !self.assignment
    }

    /// Finishes the command into `script` (if it has anything) and starts the next one.
    fn flush(&mut self, script: &mut Script, next: Connector) {
        let done = std::mem::replace(self, Building::new(next));
        let Building {
            mut cmd,
            env_assign,
            assignment,
            rhs_is_value,
            started,
            ..
        } = done;
        if assignment && rhs_is_value && cmd.argv.len() == 1 {
            // `$x = 'a'`, `$env:X = "v$y"`, `$x = 5`, `$x = $y`, `$x = $(…)`: one value, not a
            // command (what a subexpression runs stays in `nested`).
            for n in &mut cmd.nested {
                n.in_word = None;
            }
            if let (Some(name), Some(w)) = (env_assign, cmd.argv.pop()) {
                cmd.assignments.push((name, w));
            }
        } else if let (Some(name), Some(w)) = (env_assign, cmd.argv.first()) {
            cmd.assignments.push((name, w.clone()));
        }
        if started
            && !(cmd.argv.is_empty()
                && cmd.redirects.is_empty()
                && cmd.nested.is_empty()
                && cmd.assignments.is_empty())
        {
            script.commands.push(cmd);
        }
    }
}

/// The PowerShell lexer: the shared cursor ([`Cursor`]) and the line's [`Bindings`], plus this
/// dialect's grammar below.
struct Lexer<'a>(Cursor<'a>, Bindings);

/// Variables the line assigns a literal script block or hashtable, resolved where they are
/// used: `$sb = { … }; & $sb` runs the block (its body is a nested group of the call), and
/// `$p = @{ Path = 'x'; Recurse = $true }; Remove-Item @p` passes `-Path x -Recurse`.
///
/// A binding holds until anything on the line may change what the variable holds: another
/// assignment to it (also `$p.Key = …`, `$a, $p = …`), any other use of a hashtable (a
/// reference that can be changed through an alias), and, for every binding, commands and
/// parameters that set variables by name (`Set-Variable`, `New-Variable`, `-OutVariable`,
/// `[ref]`, `param`, `foreach`, `function`), type-cast statements, `Invoke-Expression`,
/// dot-sourcing and command names only known at run time. Names are compared lowercase without
/// a scope prefix.
#[derive(Default)]
struct Bindings {
    /// (name, the block's body).
    blocks: Vec<(String, Script)>,
    /// (name, the parameter words the splat stands for).
    splats: Vec<(String, Vec<Word>)>,
    /// Resolutions left (each copies a body or words; bounds the work per line).
    budget: usize,
}

/// Bindings kept per line, and resolutions per line.
const MAX_BINDINGS: usize = 16;
const MAX_RESOLUTIONS: usize = 8;

impl Bindings {
    fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.splats.is_empty()
    }

    fn clear(&mut self) {
        self.blocks.clear();
        self.splats.clear();
    }

    fn forget(&mut self, name: &str) {
        self.blocks.retain(|(n, _)| n != name);
        self.splats.retain(|(n, _)| n != name);
    }

    /// Takes one resolution from the budget.
    fn spend(&mut self) -> bool {
        let used = self.budget >= MAX_RESOLUTIONS;
        self.budget += usize::from(!used);
        !used
    }
}

/// A variable's name as bindings key it: lowercase, without `$`, braces, a scope prefix
/// (`script:`, `global:`, …) or a member or index after it (`$p.Path`, `$p['x']`).
fn binding_name(var: &str) -> String {
    let var = var.strip_prefix('$').unwrap_or(var);
    let var = var
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(var);
    let lower = var.to_ascii_lowercase();
    let bare = ["script:", "global:", "local:", "private:", "using:"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    let end = bare.find(|c: char| !is_var_char(c)).unwrap_or(bare.len());
    bare.get(..end).unwrap_or("").to_owned()
}

/// A literal hashtable's entries as parameter words: `Path = './dist'` is `-Path ./dist`,
/// `Recurse = $true` is `-Recurse`, `Confirm = $false` is `-Confirm:$false`, an array value
/// one comma-joined word. `None` unless every statement is `Name = value…`.
fn splat_words(table: &Script, span: Span) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    for cmd in &table.commands {
        let [key, eq, values @ ..] = cmd.argv.as_slice() else {
            return None;
        };
        let name = key.text.trim_matches(['\'', '"']);
        if eq.text != "="
            || eq.quoted
            || values.is_empty()
            || key.dynamic
            || name.is_empty()
            || !name.chars().all(is_var_char)
            || !cmd.redirects.is_empty()
        {
            return None;
        }
        let plain = |text: String| Word {
            text,
            span,
            ..Word::default()
        };
        match values {
            [v] if !v.quoted && v.text.eq_ignore_ascii_case("$true") => {
                words.push(plain(format!("-{name}")));
            }
            [v] if !v.quoted && v.text.eq_ignore_ascii_case("$false") => {
                words.push(plain(format!("-{name}:$false")));
            }
            _ => {
                words.push(plain(format!("-{name}")));
                let text = values
                    .iter()
                    .map(|v| v.text.as_str())
                    .collect::<Vec<_>>()
                    .join(",");
                words.push(Word {
                    text,
                    span,
                    quoted: values.iter().any(|v| v.quoted),
                    fully_quoted: values.len() == 1 && values.iter().all(|v| v.fully_quoted),
                    dynamic: values.iter().any(|v| v.dynamic),
                    glob: values.iter().any(|v| v.glob),
                    one_word: false,
                });
            }
        }
    }
    Some(words)
}

/// Command names that set variables by name, or run text or files in the caller's scope.
fn sets_variables(name: &str) -> bool {
    [
        "set-variable",
        "sv",
        "new-variable",
        "nv",
        "clear-variable",
        "clv",
        "remove-variable",
        "rv",
        "set-item",
        "si",
        "new-item",
        "ni",
        "invoke-expression",
        "iex",
        "param",
        "function",
        "filter",
        "foreach",
        "set-alias",
        "sal",
        "new-alias",
        "nal",
        "import-module",
        "ipmo",
    ]
    .iter()
    .any(|n| name.eq_ignore_ascii_case(n))
        || name.to_ascii_lowercase().starts_with("param(")
}

/// Common parameters that store a result in a variable named by their value.
fn variable_parameter(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let Some(name) = lower.strip_prefix('-') else {
        return lower.contains("[ref]");
    };
    let name = name.split(':').next().unwrap_or(name);
    name.ends_with("variable") || matches!(name, "ov" | "pv" | "ev" | "wv" | "iv")
}

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
    fn unsupported(&mut self, span: Span, what: &'static str) {
        self.problems.push(LexProblem::Unsupported { span, what });
    }

    /// Skips blanks and backtick-newline continuations (not newlines).
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => {
                    self.bump();
                }
                Some('`') if self.peek2().is_some_and(is_newline) => {
                    self.bump();
                    self.skip_one_newline();
                }
                _ => return,
            }
        }
    }

    /// Lexes statements until `close` (consumed) or the end of input.
    fn script(&mut self, depth: usize, close: Option<char>, open: Span) -> Script {
        let mut script = Script::default();
        let mut cur = Building::new(Connector::Sequence);
        loop {
            if self.stopped {
                break;
            }
            self.skip_blanks();
            let start = self.pos;
            let Some(c) = self.peek() else {
                if close.is_some() && !self.stopped {
                    self.problems
                        .push(LexProblem::UnterminatedGroup { span: open });
                }
                break;
            };
            let next = self.peek2();
            match c {
                '\n' | '\r' | ';' => {
                    self.bump();
                    if c == ';' && !self.token(start) {
                        break;
                    }
                    let continues = cur.is_empty() && cur.cmd.connector != Connector::Sequence;
                    if c == ';' || !continues {
                        cur.flush(&mut script, Connector::Sequence);
                    }
                }
                '|' => {
                    self.bump();
                    let conn = if self.eat('|') {
                        Connector::Or
                    } else {
                        Connector::Pipe
                    };
                    if !self.token(start) {
                        break;
                    }
                    cur.flush(&mut script, conn);
                }
                '&' => {
                    self.bump();
                    if !self.token(start) {
                        break;
                    }
                    if self.eat('&') {
                        cur.flush(&mut script, Connector::And);
                    } else if cur.cmd.argv.is_empty() {
                        // Call operator: the next word is the command.
                        cur.call_op = true;
                        cur.touch(self.span_from(start));
                    } else {
                        cur.cmd.background = true;
                        cur.touch(self.span_from(start));
                        cur.flush(&mut script, Connector::Sequence);
                    }
                }
                ')' | '}' => {
                    self.bump();
                    if close == Some(c) {
                        break;
                    }
                    self.unsupported(self.span_from(start), "unbalanced closing bracket");
                }
                ',' => {
                    // `Remove-Item a,b`: each array element is its own word.
                    self.bump();
                }
                '#' => self.skip_line_comment(),
                '<' if next == Some('#') => self.skip_block_comment(),
                '>' | '<' => {
                    if !self.redirect(depth, &mut cur) {
                        break;
                    }
                }
                '*' if next == Some('>') => {
                    if !self.redirect(depth, &mut cur) {
                        break;
                    }
                }
                '1'..='6' if next == Some('>') => {
                    if !self.redirect(depth, &mut cur) {
                        break;
                    }
                }
                '.' if cur.cmd.argv.is_empty() && next.is_none_or(|n| is_blank(n) || n == '`') => {
                    // Dot-sourcing: the next word is the command.
                    self.bump();
                    if !self.token(start) {
                        break;
                    }
                    cur.call_op = true;
                    cur.dot = true;
                    cur.touch(self.span_from(start));
                }
                '-' if !cur.cmd.argv.is_empty() && self.rest().starts_with("--%") && {
                    let after = self.rest().get(3..).and_then(|r| r.chars().next());
                    after.is_none_or(|a| is_blank(a) || is_newline(a))
                } =>
                {
                    self.stop_parsing(&mut cur);
                }
                _ => {
                    if !self.token(start) {
                        break;
                    }
                    let acc = self.word(depth);
                    if self.pos == start {
                        // Unreachable by construction; never loop without progress.
                        self.bump();
                        continue;
                    }
                    let (word, nested) = acc.finish(self.span_from(start));
                    if param_block(&cur.cmd) {
                        // `{ param($p) Remove-Item $p }`: the statements after a param block
                        // need no separator.
                        cur.flush(&mut script, Connector::Sequence);
                    }
                    self.push_word(&mut cur, word, nested);
                }
            }
        }
        cur.flush(&mut script, Connector::Sequence);
        script
    }

    /// Keeps the line's [`Bindings`] up to date for `word`, about to join the command, and
    /// resolves the use of a bound variable: the call `& $sb` / `. $sb` of a bound block (the
    /// body becomes a nested group of the call) and the splat `@p` of a bound hashtable (its
    /// parameter words). False when the word was consumed here. Also stops at `for`/`while`
    /// without `(`: a PowerShell syntax error, so the line runs nothing.
    fn bind(&mut self, cur: &mut Building, word: &Word, nested: &[(NestedKind, Script)]) -> bool {
        if let Some(call) = cur.block_call.take() {
            cur.cmd.argv.push(call);
        }
        let idx = cur.cmd.argv.len();
        let text = word.text.as_str();
        if idx == 1
            && !cur.call_op
            && cur.cmd.argv.first().is_some_and(|w| {
                !w.quoted
                    && (w.text.eq_ignore_ascii_case("for") || w.text.eq_ignore_ascii_case("while"))
            })
            && !text.starts_with('(')
        {
            // `for %f in (*.tmp) do …` (CMD): PowerShell rejects the whole line.
            self.unsupported(word.span, "`for`/`while` without `(`");
            self.stopped = true;
            return true;
        }
        if self.1.is_empty() && !cur.assignment {
            return true;
        }
        if !self.1.splats.is_empty() && text.contains('$') {
            let lower = text.to_ascii_lowercase();
            let used: Vec<String> = self
                .1
                .splats
                .iter()
                .filter(|(n, _)| {
                    lower.match_indices(&format!("${n}")).any(|(at, m)| {
                        !lower
                            .get(at + m.len()..)
                            .and_then(|r| r.chars().next())
                            .is_some_and(is_var_char)
                    })
                })
                .map(|(n, _)| n.clone())
                .collect();
            for n in used {
                self.1.forget(&n);
            }
        }
        if idx == 0 && cur.assignment {
            // The value of `$name = …`: a literal block or hashtable binds the name.
            let Some((name, plain)) = cur.assigned.clone() else {
                return true;
            };
            let whole = !word.quoted && text.ends_with('}');
            if let ([(NestedKind::Group, body)], true, true) = (nested, plain, whole) {
                if self.1.blocks.len() + self.1.splats.len() < MAX_BINDINGS && !name.is_empty() {
                    if text.starts_with('{') {
                        self.1.blocks.push((name, body.clone()));
                    } else if text.starts_with("@{") {
                        if let Some(words) = splat_words(body, word.span) {
                            self.1.splats.push((name, words));
                        }
                    }
                }
            }
            return true;
        }
        if let Some((name, _)) = cur.assigned.as_ref().filter(|_| idx == 1) {
            // `$sb = { … } .Invoke()`-like continuations: not a plain literal.
            let name = name.clone();
            self.1.forget(&name);
        }
        if variable_parameter(text)
            || (idx >= 1
                && is_assign_op(word)
                && cur
                    .cmd
                    .argv
                    .first()
                    .is_some_and(|w| w.text.starts_with('$')))
        {
            self.1.clear();
            return true;
        }
        if idx == 0 {
            let var = text
                .strip_prefix('$')
                .filter(|v| !word.quoted && !v.is_empty() && v.chars().all(is_var_char));
            if let Some(v) = var.filter(|_| cur.call_op) {
                let key = v.to_ascii_lowercase();
                let body = self.1.blocks.iter().rev().find(|(n, _)| *n == key);
                if let Some(body) = body.map(|(_, b)| b.clone()) {
                    if self.1.spend() {
                        cur.cmd.nested.push(Nested {
                            kind: NestedKind::Group,
                            script: body,
                            in_word: None,
                            source: None,
                        });
                        cur.block_call = Some(Word {
                            dynamic: false,
                            ..word.clone()
                        });
                        cur.touch(word.span);
                        return false;
                    }
                }
            }
            // (A plain `$name` statement start is an assignment's target or a value.)
            if cur.dot
                || (word.dynamic && (var.is_none() || cur.call_op))
                || text.starts_with(['[', '('])
                || (!word.quoted && sets_variables(text))
            {
                self.1.clear();
            }
            return true;
        }
        if let Some(v) = text
            .strip_prefix('@')
            .filter(|v| !word.quoted && !v.is_empty() && v.chars().all(is_var_char))
        {
            let key = v.to_ascii_lowercase();
            let words = self.1.splats.iter().rev().find(|(n, _)| *n == key);
            if let Some(words) = words.map(|(_, w)| w.clone()) {
                if self.1.spend() {
                    cur.touch(word.span);
                    cur.cmd.argv.extend(words);
                    return false;
                }
            }
        }
        true
    }

    /// Adds a word to the command, recognising `$var = …` assignment statements.
    fn push_word(
        &mut self,
        cur: &mut Building,
        mut word: Word,
        mut nested: Vec<(NestedKind, Script)>,
    ) {
        let function_name = cur.cmd.argv.len() == 1
            && word.text.contains('(')
            && cur.cmd.argv.first().is_some_and(|k| {
                !k.quoted
                    && (k.text.eq_ignore_ascii_case("function")
                        || k.text.eq_ignore_ascii_case("filter"))
            });
        if function_name
            || cur.cmd.argv.is_empty()
                && !word.quoted
                && word
                    .text
                    .get(..6)
                    .is_some_and(|p| p.eq_ignore_ascii_case("param("))
        {
            // `param($d, [int]$n)`, `function f($p)`: declarations, not commands (default
            // values stay).
            for (_, s) in &mut nested {
                s.commands.retain(|c| !is_declaration(c));
            }
        }
        if cur.cmd.argv.len() == 1 && is_assign_op(&word) {
            let var_name = cur
                .cmd
                .argv
                .first()
                .and_then(variable_name)
                .map(str::to_owned);
            if let Some(name) = var_name {
                let key = binding_name(&name);
                self.1.forget(&key);
                cur.assigned = Some((key, word.text == "="));
                cur.cmd.argv.clear();
                for n in &mut cur.cmd.nested {
                    n.in_word = None;
                }
                cur.env_assign = name
                    .get(..4)
                    .filter(|p| p.eq_ignore_ascii_case("env:"))
                    .and_then(|_| name.get(4..))
                    .map(str::to_owned);
                cur.assignment = true;
                cur.touch(word.span);
                return;
            }
        }
        if !self.bind(cur, &word, &nested) {
            return;
        }
        let idx = cur.cmd.argv.len();
        if idx == 0 && cur.assignment {
            let first = self
                .text
                .get(word.span.start..)
                .and_then(|t| t.chars().next());
            cur.rhs_is_value = first.is_some_and(|c| {
                is_squote(c) || is_dquote(c) || matches!(c, '$' | '(' | '@' | '0'..='9')
            });
        }
        if idx == 0 && cur.call_op {
            // `& 'C:\tool.exe'`: a quoted command name that is run, not data.
            word.fully_quoted = false;
        }
        if idx == 0 && !word.quoted && word.text.starts_with('[') {
            // `[IO.File]::Delete(…)`, `[Convert]::FromBase64String(…)`, `[int]$x = …`.
            self.unsupported(word.span, "powershell type or .net member expression");
        }
        for (kind, script) in nested {
            cur.cmd.nested.push(Nested {
                kind,
                script,
                in_word: Some(idx),
                source: None,
            });
        }
        cur.touch(word.span);
        cur.cmd.argv.push(word);
    }

    /// A redirection at the cursor (`>`, `>>`, `2>`, `2>&1`, `*>`, `<`, …).
    /// False when the token limit stopped lexing.
    fn redirect(&mut self, depth: usize, cur: &mut Building) -> bool {
        let start = self.pos;
        let mut all = false;
        let mut fd = None;
        match self.peek() {
            Some('*') => {
                self.bump();
                all = true;
            }
            Some(c @ '0'..='9') => {
                self.bump();
                fd = c.to_digit(10);
            }
            _ => {}
        }
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
        let target = if kind == RedirectKind::Output
            && self.peek() == Some('&')
            && self.peek2().is_some_and(|c| c.is_ascii_digit())
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
            if all {
                kind = RedirectKind::OutputAll;
            }
            self.skip_blanks();
            let t = self.pos;
            match self.peek() {
                Some(c) if !ends_word(c) && c != '#' => {
                    if !self.token(t) {
                        return false;
                    }
                    let acc = self.word(depth);
                    let (w, nested) = acc.finish(self.span_from(t));
                    for (kind, script) in nested {
                        cur.cmd.nested.push(Nested {
                            kind,
                            script,
                            in_word: None,
                            source: None,
                        });
                    }
                    w
                }
                _ => {
                    self.unsupported(self.span_from(start), "redirection without a target");
                    Word {
                        span: Span { start: t, end: t },
                        ..Word::default()
                    }
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

    /// `--%`: the rest of the line (to a newline or `|`) goes verbatim to a native program.
    fn stop_parsing(&mut self, cur: &mut Building) {
        let start = self.pos;
        self.pos += 3;
        if !self.token(start) {
            return;
        }
        cur.touch(self.span_from(start));
        loop {
            while self.peek().is_some_and(is_blank) {
                self.bump();
            }
            let t = self.pos;
            match self.peek() {
                None => return,
                Some(c) if is_newline(c) || c == '|' => return,
                Some(_) => {}
            }
            if !self.token(t) {
                return;
            }
            let mut acc = WordAcc::default();
            let mut in_quote = false;
            while let Some(c) = self.peek() {
                if !in_quote && (is_blank(c) || is_newline(c) || c == '|') {
                    break;
                }
                if in_quote && is_newline(c) {
                    break;
                }
                self.bump();
                if c == '"' {
                    in_quote = !in_quote;
                    acc.quoted_parts += 1;
                } else {
                    acc.bare_parts += 1;
                    acc.text.push(c);
                }
            }
            // `%NAME%` is expanded by the native side (Windows environment variables).
            let percents = acc.text.matches('%').count();
            acc.dynamic = percents >= 2;
            let (word, nested) = acc.finish(self.span_from(t));
            self.push_word(cur, word, nested);
        }
    }

    fn skip_line_comment(&mut self) {
        let len = self.rest().find(['\n', '\r']).unwrap_or(self.rest().len());
        self.pos += len;
    }

    fn skip_block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        match self.rest().find("#>") {
            Some(i) => self.pos += i + 2,
            None => {
                self.problems.push(LexProblem::UnterminatedGroup {
                    span: Span {
                        start,
                        end: start + 2,
                    },
                });
                self.pos = self.end;
            }
        }
    }

    /// One word in argument mode: bare text, quotes, escapes, variables, subexpressions,
    /// script blocks and here-strings, up to a word-ending character.
    fn word(&mut self, depth: usize) -> WordAcc {
        let start = self.pos;
        let mut acc = WordAcc::default();
        if let Some(c) = self.peek().filter(|&c| c != '-' && is_dash(c)) {
            // PowerShell reads an en/em dash as `-` (`Remove-Item –Recurse`).
            self.pos += c.len_utf8();
            acc.text.push('-');
            acc.bare_parts += 1;
        }
        while let Some(c) = self.peek() {
            if ends_word(c) || self.stopped {
                break;
            }
            let at_start = self.pos == start;
            match c {
                '`' => self.escape(&mut acc),
                c if is_squote(c) => self.single_quoted(&mut acc),
                c if is_dquote(c) => {
                    let open = self.pos;
                    self.bump();
                    self.double_quoted(&mut acc, depth, Some(open));
                    acc.quoted_parts += 1;
                }
                '$' => self.dollar(&mut acc, depth),
                '@' if at_start => self.at_sign(&mut acc, depth),
                '(' => {
                    let open = self.pos;
                    self.bump();
                    self.nested(&mut acc, depth, NestedKind::CommandSubstitution, ')', open);
                }
                '{' if at_start || acc.text.ends_with(':') => {
                    // A script block, also as a `-Param:{…}` value.
                    let open = self.pos;
                    self.bump();
                    self.nested(&mut acc, depth, NestedKind::Group, '}', open);
                }
                '*' | '?' | '[' => {
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
        acc
    }

    /// A backtick escape (`` `n ``, `` `t ``, `` `0 ``, `` `u{…} ``, `` `<any> ``); a backtick
    /// before a newline joins the lines.
    fn escape(&mut self, acc: &mut WordAcc) {
        let start = self.pos;
        self.bump();
        match self.bump() {
            None => {
                let span = self.span_from(start);
                self.problems.push(LexProblem::UnterminatedQuote { span });
            }
            Some('\r') => {
                self.eat('\n');
            }
            Some('\n') => {}
            Some(c) => {
                let decoded = self.escaped_char(c);
                acc.text.push(decoded);
                acc.quoted_parts += 1;
            }
        }
    }

    /// The character a backtick escape stands for (`c` is the character after the backtick).
    fn escaped_char(&mut self, c: char) -> char {
        match c {
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            'u' if self.peek() == Some('{') => {
                let rest = self.rest();
                let close = rest.find('}').filter(|&i| (2..=7).contains(&i));
                let value = close
                    .and_then(|i| rest.get(1..i))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32);
                match (close, value) {
                    (Some(i), Some(ch)) => {
                        self.pos += i + 1;
                        ch
                    }
                    _ => 'u',
                }
            }
            other => other,
        }
    }

    fn single_quoted(&mut self, acc: &mut WordAcc) {
        let open = self.pos;
        let q = self.bump().map_or(1, char::len_utf8);
        acc.quoted_parts += 1;
        loop {
            match self.bump() {
                None => {
                    self.problems.push(LexProblem::UnterminatedQuote {
                        span: Span {
                            start: open,
                            end: open + q,
                        },
                    });
                    return;
                }
                Some(c) if is_squote(c) => {
                    if let Some(d) = self.peek().filter(|&d| is_squote(d)) {
                        self.bump();
                        acc.text.push(d);
                    } else {
                        return;
                    }
                }
                Some(c) => acc.text.push(c),
            }
        }
    }

    /// The inside of a double-quoted string (`open` is the opening quote) or of an expandable
    /// here-string body (`open` is `None`; runs to the scanning bound).
    fn double_quoted(&mut self, acc: &mut WordAcc, depth: usize, open: Option<usize>) {
        loop {
            if self.stopped {
                return;
            }
            let Some(c) = self.peek() else {
                if let Some(o) = open {
                    let q = self.text.get(o..).and_then(|r| r.chars().next());
                    self.problems.push(LexProblem::UnterminatedQuote {
                        span: Span {
                            start: o,
                            end: o + q.map_or(1, char::len_utf8),
                        },
                    });
                }
                return;
            };
            match c {
                '`' => {
                    self.bump();
                    if let Some(e) = self.bump() {
                        let decoded = self.escaped_char(e);
                        acc.text.push(decoded);
                    }
                }
                c if open.is_some() && is_dquote(c) => {
                    self.bump();
                    match self.peek().filter(|&d| is_dquote(d)) {
                        Some(d) => {
                            self.bump();
                            acc.text.push(d);
                        }
                        None => return,
                    }
                }
                '$' => self.dollar(acc, depth),
                _ => {
                    self.bump();
                    acc.text.push(c);
                }
            }
        }
    }

    /// `$name`, `$env:NAME`, `${…}`, `$(…)`, `$$`/`$?`/`$^`, or a literal `$`.
    fn dollar(&mut self, acc: &mut WordAcc, depth: usize) {
        let start = self.pos;
        self.bump();
        match self.peek() {
            Some('(') => {
                self.bump();
                self.nested(acc, depth, NestedKind::CommandSubstitution, ')', start);
            }
            Some('{') => {
                self.bump();
                loop {
                    match self.bump() {
                        None => {
                            self.problems.push(LexProblem::UnterminatedGroup {
                                span: Span {
                                    start,
                                    end: start + 2,
                                },
                            });
                            break;
                        }
                        Some('`') => {
                            self.bump();
                        }
                        Some('}') => break,
                        Some(_) => {}
                    }
                }
                acc.text.push_str(self.slice(start));
                acc.dynamic = true;
            }
            Some('$' | '?' | '^') => {
                self.bump();
                acc.text.push_str(self.slice(start));
                acc.dynamic = true;
            }
            Some(c) if is_var_char(c) => {
                while self.peek().is_some_and(|c| is_var_char(c) || c == ':') {
                    self.bump();
                }
                let name = self.text.get(start + 1..self.pos).unwrap_or("");
                let constant = ["true", "false", "null"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(name));
                acc.text.push_str(self.slice(start));
                if !constant {
                    acc.dynamic = true;
                }
            }
            _ => {
                acc.text.push('$');
                acc.bare_parts += 1;
            }
        }
    }

    /// `@(…)`, `@{…}`, here-strings, `@splat`, or a literal `@` (at the start of a word).
    fn at_sign(&mut self, acc: &mut WordAcc, depth: usize) {
        let start = self.pos;
        match self.peek2() {
            Some('(') => {
                self.pos += 2;
                self.nested(acc, depth, NestedKind::CommandSubstitution, ')', start);
            }
            Some('{') => {
                self.pos += 2;
                self.nested(acc, depth, NestedKind::Group, '}', start);
            }
            Some(q @ ('\'' | '"')) if self.here_string_opens() => {
                self.here_string(acc, depth, q == '\'');
            }
            Some(c) if is_var_char(c) => {
                self.bump();
                while self.peek().is_some_and(is_var_char) {
                    self.bump();
                }
                acc.text.push_str(self.slice(start));
                acc.dynamic = true;
            }
            _ => {
                self.bump();
                acc.text.push('@');
                acc.bare_parts += 1;
            }
        }
    }

    /// `@'` / `@"` followed by blanks and a newline.
    fn here_string_opens(&self) -> bool {
        let after = self.rest().get(2..).unwrap_or("");
        after.trim_start_matches(is_blank).starts_with(['\n', '\r'])
    }

    /// A here-string: the body runs to a line that starts with `'@` / `"@`.
    fn here_string(&mut self, acc: &mut WordAcc, depth: usize, literal: bool) {
        let start = self.pos;
        self.pos += 2;
        while self.peek().is_some_and(is_blank) {
            self.bump();
        }
        self.skip_one_newline();
        let body_start = self.pos;
        let term = if literal { "'@" } else { "\"@" };
        let rest = self.rest();
        let found = if rest.starts_with(term) {
            Some((0, 0))
        } else {
            let needle = if literal { "\n'@" } else { "\n\"@" };
            rest.find(needle).map(|i| (i, i + 1))
        };
        let (mut body_end, after) = match found {
            Some((len, at)) => (body_start + len, body_start + at + 2),
            None => {
                self.problems.push(LexProblem::UnterminatedHereDoc {
                    span: Span {
                        start,
                        end: start + 2,
                    },
                });
                (self.end, self.end)
            }
        };
        if body_end > body_start && self.text.get(body_end - 1..body_end) == Some("\r") {
            body_end -= 1;
        }
        if literal {
            acc.text
                .push_str(self.text.get(body_start..body_end).unwrap_or(""));
        } else {
            let saved = self.end;
            self.end = body_end;
            self.double_quoted(acc, depth, None);
            self.end = saved;
        }
        self.pos = after;
        acc.quoted_parts += 1;
    }

    /// A nested script after its opener (`$(`, `@(`, `(`, `{`, `@{`; the cursor is past it),
    /// up to `close`. Appends the verbatim source to the word.
    fn nested(
        &mut self,
        acc: &mut WordAcc,
        depth: usize,
        kind: NestedKind,
        close: char,
        open_start: usize,
    ) {
        let open = self.span_from(open_start);
        if !self.token(open_start) {
            return;
        }
        if depth + 1 > self.max_depth {
            self.problems.push(LexProblem::TooDeep { span: open });
            self.skip_balanced();
        } else {
            let script = self.script(depth + 1, Some(close), open);
            acc.nested.push((kind, script));
        }
        acc.text.push_str(self.slice(open_start));
        if kind != NestedKind::Group {
            acc.dynamic = true;
        }
    }

    /// Past the nesting limit: skips to the bracket closing the current one, in one linear
    /// pass (single-quoted text skipped, backtick escapes honoured). Not analysed.
    fn skip_balanced(&mut self) {
        let mut level = 1usize;
        let mut single = false;
        while let Some(c) = self.bump() {
            if single {
                single = !is_squote(c);
                continue;
            }
            match c {
                '`' => {
                    self.bump();
                }
                c if is_squote(c) => single = true,
                '(' | '{' => level += 1,
                ')' | '}' => {
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

impl WordAcc {
    fn finish(self, span: Span) -> (Word, Vec<(NestedKind, Script)>) {
        let word = Word {
            text: self.text,
            span,
            quoted: self.quoted_parts > 0,
            fully_quoted: self.quoted_parts == 1
                && self.bare_parts == 0
                && !self.dynamic
                && self.nested.is_empty(),
            dynamic: self.dynamic,
            glob: self.glob,
            one_word: false,
        };
        (word, self.nested)
    }
}

/// A parameter declaration in `param(…)`: only variables, possibly typed (`$d`, `[int]$n`).
fn is_declaration(c: &SimpleCommand) -> bool {
    c.nested.is_empty()
        && c.redirects.is_empty()
        && !c.argv.is_empty()
        && c.argv
            .iter()
            .all(|w| !w.quoted && w.text.starts_with(['$', '[']) && !w.text.contains(['(', '`']))
}

fn is_assign_op(w: &Word) -> bool {
    !w.quoted
        && matches!(
            w.text.as_str(),
            "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "??="
        )
}

/// `$name` / `${name}` / `$env:NAME` as an assignment target: the name without `$`.
fn variable_name(w: &Word) -> Option<&str> {
    if w.quoted || w.text.starts_with("$(") {
        return None;
    }
    let name = w.text.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    (!name.is_empty()).then_some(name)
}
// ---------------------------------------------------------------------------------------------
// -EncodedCommand payloads
// ---------------------------------------------------------------------------------------------

/// Decodes a `-EncodedCommand` payload: standard base64 of UTF-16LE text.
///
/// Tolerant like `Convert.FromBase64String` and then some: ASCII whitespace anywhere is
/// ignored, `=` padding may be missing, and the URL-safe alphabet (`-`, `_`) is accepted.
/// Invalid UTF-16 (lone surrogates, an odd trailing byte) decodes to U+FFFD rather than
/// failing, and a leading byte-order mark is dropped, so a payload that PowerShell would run
/// is never hidden by a decoding error. `None` when the text is not base64 at all (a character
/// outside the alphabet, padding in the middle, or a length no encoder produces).
pub fn decode_encoded_command(b64: &str) -> Option<String> {
    let bytes = decode_base64(b64)?;
    let mut units = Vec::with_capacity(bytes.len() / 2 + 1);
    let mut pairs = bytes.chunks_exact(2);
    for pair in &mut pairs {
        if let [lo, hi] = pair {
            units.push(u16::from_le_bytes([*lo, *hi]));
        }
    }
    let mut text = String::from_utf16_lossy(&units);
    if !pairs.remainder().is_empty() {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        text = rest.to_owned();
    }
    Some(text)
}

fn base64_value(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut n: u32 = 0;
    let mut padding = 0usize;
    for c in text.bytes() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            padding += 1;
            continue;
        }
        if padding > 0 {
            // Data after padding.
            return None;
        }
        acc = (acc << 6) | base64_value(c)?;
        n += 1;
        if n == 4 {
            let [_, a, b, c] = acc.to_be_bytes();
            out.extend_from_slice(&[a, b, c]);
            acc = 0;
            n = 0;
        }
    }
    if padding > 2 {
        return None;
    }
    match n {
        0 => {}
        1 => return None,
        2 => out.push(((acc >> 4) & 0xff) as u8),
        _ => {
            let v = acc >> 2;
            out.push(((v >> 8) & 0xff) as u8);
            out.push((v & 0xff) as u8);
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Cmdlets and aliases
// ---------------------------------------------------------------------------------------------

/// Default aliases of Windows PowerShell 5.1 and PowerShell 7 (the union: `curl`, `wget`, `sc`
/// and the Unix-named aliases exist only on some hosts), lowercase alias → canonical cmdlet.
const ALIASES: &[(&str, &str)] = &[
    ("rm", "Remove-Item"),
    ("ri", "Remove-Item"),
    ("del", "Remove-Item"),
    ("erase", "Remove-Item"),
    ("rd", "Remove-Item"),
    ("rmdir", "Remove-Item"),
    ("iex", "Invoke-Expression"),
    ("iwr", "Invoke-WebRequest"),
    ("wget", "Invoke-WebRequest"),
    ("curl", "Invoke-WebRequest"),
    ("irm", "Invoke-RestMethod"),
    ("sc", "Set-Content"),
    ("ac", "Add-Content"),
    ("clc", "Clear-Content"),
    ("cp", "Copy-Item"),
    ("copy", "Copy-Item"),
    ("cpi", "Copy-Item"),
    ("mv", "Move-Item"),
    ("move", "Move-Item"),
    ("mi", "Move-Item"),
    ("ren", "Rename-Item"),
    ("rni", "Rename-Item"),
    ("start", "Start-Process"),
    ("saps", "Start-Process"),
    ("icm", "Invoke-Command"),
    ("gc", "Get-Content"),
    ("cat", "Get-Content"),
    ("type", "Get-Content"),
    ("ls", "Get-ChildItem"),
    ("dir", "Get-ChildItem"),
    ("gci", "Get-ChildItem"),
    ("echo", "Write-Output"),
    ("write", "Write-Output"),
    ("sls", "Select-String"),
    ("ni", "New-Item"),
    ("md", "New-Item"),
    ("mkdir", "New-Item"),
    ("gi", "Get-Item"),
    ("si", "Set-Item"),
    ("cli", "Clear-Item"),
    ("ii", "Invoke-Item"),
    ("gp", "Get-ItemProperty"),
    ("sp", "Set-ItemProperty"),
    ("rp", "Remove-ItemProperty"),
    ("cd", "Set-Location"),
    ("chdir", "Set-Location"),
    ("sl", "Set-Location"),
    ("pwd", "Get-Location"),
    ("gl", "Get-Location"),
    ("pushd", "Push-Location"),
    ("popd", "Pop-Location"),
    ("ps", "Get-Process"),
    ("gps", "Get-Process"),
    ("kill", "Stop-Process"),
    ("spps", "Stop-Process"),
    ("tee", "Tee-Object"),
    ("where", "Where-Object"),
    ("?", "Where-Object"),
    ("foreach", "ForEach-Object"),
    ("%", "ForEach-Object"),
    ("select", "Select-Object"),
    ("sort", "Sort-Object"),
    ("measure", "Measure-Object"),
    ("gm", "Get-Member"),
    ("gcm", "Get-Command"),
    ("gal", "Get-Alias"),
    ("sal", "Set-Alias"),
    ("nal", "New-Alias"),
    ("gv", "Get-Variable"),
    ("sv", "Set-Variable"),
    ("set", "Set-Variable"),
    ("nv", "New-Variable"),
    ("rv", "Remove-Variable"),
    ("ipmo", "Import-Module"),
    ("rmo", "Remove-Module"),
    ("sajb", "Start-Job"),
    ("rcjb", "Receive-Job"),
    ("etsn", "Enter-PSSession"),
    ("nsn", "New-PSSession"),
    ("gwmi", "Get-WmiObject"),
    ("iwmi", "Invoke-WmiMethod"),
    ("rwmi", "Remove-WmiObject"),
    ("ndr", "New-PSDrive"),
    ("mount", "New-PSDrive"),
    ("rdr", "Remove-PSDrive"),
    ("r", "Invoke-History"),
    ("ihy", "Invoke-History"),
    ("h", "Get-History"),
    ("history", "Get-History"),
    ("ghy", "Get-History"),
    ("clhy", "Clear-History"),
    ("sleep", "Start-Sleep"),
    ("cls", "Clear-Host"),
    ("clear", "Clear-Host"),
    ("rvpa", "Resolve-Path"),
    ("epcsv", "Export-Csv"),
    ("ipcsv", "Import-Csv"),
];

/// Cmdlets without a default alias that the rules care about (their names are canonical too).
const CMDLETS: &[&str] = &[
    "Out-File",
    "Format-Volume",
    "Clear-Disk",
    "Initialize-Disk",
    "Remove-Partition",
    "Set-ExecutionPolicy",
    "Stop-Computer",
    "Restart-Computer",
    "Start-BitsTransfer",
    "Set-Acl",
    "Set-MpPreference",
    "Add-MpPreference",
    "New-Service",
    "Stop-Service",
    "Remove-Service",
    "Set-Service",
    "Register-ScheduledTask",
    "Unregister-ScheduledTask",
    "New-ItemProperty",
    "Expand-Archive",
    "Invoke-CimMethod",
    "Remove-LocalUser",
    "Clear-RecycleBin",
    "Write-Host",
    "Get-FileHash",
    "Test-Path",
    "ConvertTo-Json",
    "ConvertFrom-Json",
];

/// Modules whose qualified names (`Microsoft.PowerShell.Management\Remove-Item`) are resolved.
const MODULES: &[&str] = &[
    "microsoft.powershell.management",
    "microsoft.powershell.utility",
    "microsoft.powershell.core",
    "microsoft.powershell.security",
];

/// The canonical cmdlet name for a cmdlet or default alias, case-insensitive, optionally
/// module-qualified with a core module (`Microsoft.PowerShell.Management\Remove-Item`).
///
/// `None` for anything else (functions, native programs, paths such as `C:\bin\rm`). Some
/// aliases are host-dependent: on PowerShell 7 `curl`/`wget` are the native programs and `sc`
/// is `sc.exe` (the service controller); the union is returned, so the rules should treat
/// `sc` as both `Set-Content` and a possible `sc.exe`.
pub fn canonical_cmdlet(name: &str) -> Option<&'static str> {
    lookup(unqualified(name)?).map(|e| e.canon)
}

/// [`canonical_cmdlet`] in lowercase (`remove-item`), without allocating: the rules compare
/// cmdlet names in lowercase.
pub fn canonical_cmdlet_lower(name: &str) -> Option<&'static str> {
    lookup(unqualified(name)?).map(|e| e.lower.as_str())
}

/// Every name of the cmdlet tables with the cmdlet it names: each alias, and each canonical
/// name and cmdlet as itself (for what a wildcard such as `(gcm i*x)` can resolve to).
pub fn cmdlet_names() -> impl Iterator<Item = (&'static str, &'static str)> {
    ALIASES
        .iter()
        .flat_map(|&(alias, canon)| [(alias, canon), (canon, canon)])
        .chain(CMDLETS.iter().map(|&c| (c, c)))
}

/// `name` without a core-module qualifier; `None` when qualified by any other module.
fn unqualified(name: &str) -> Option<&str> {
    // The last `\` (a byte search: `\` is ASCII, so both sides are at character boundaries;
    // cheaper than a char searcher for the short words nearly every command has).
    let split = name
        .as_bytes()
        .iter()
        .rposition(|&b| b == b'\\')
        .and_then(|at| Some((name.get(..at)?, name.get(at + 1..)?)));
    match split {
        Some((module, rest)) => MODULES
            .iter()
            .any(|m| m.eq_ignore_ascii_case(module))
            .then_some(rest),
        None => Some(name),
    }
}

/// One name of the cmdlet tables, as [`NAME_TABLE`] holds it.
struct NameEntry {
    canon: &'static str,
    lower: String,
}

/// Every alias, canonical name and cmdlet of [`ALIASES`] and [`CMDLETS`], by its lowercase
/// text, each key once: the entry that the table scan (aliases in order, each alias before its
/// canonical name, then the cmdlets) would find first. Canonical names and cmdlets are keys
/// only when they hold a `-`, as the scan only compares dashed names with them.
///
/// An open-addressing hash table (FNV-1a, linear probing, at most half full) whose key
/// comparison is an inlined byte loop: a command word costs one short hash and, for a name of
/// the tables, about one comparison.
struct NameTable {
    entries: Vec<NameEntry>,
    keys: Vec<Box<[u8]>>,
    /// `slots[h]`: index + 1 into `entries`/`keys`, 0 when empty.
    slots: Vec<u16>,
}

static NAME_TABLE: std::sync::OnceLock<NameTable> = std::sync::OnceLock::new();

impl NameTable {
    fn slot_of(&self, key: &[u8]) -> Result<usize, usize> {
        let mask = self.slots.len().saturating_sub(1);
        let mut at = fnv(key) & mask;
        for _ in 0..self.slots.len() {
            match self.slots.get(at).copied().unwrap_or(0) {
                0 => return Err(at),
                i => {
                    let k = self
                        .keys
                        .get(usize::from(i) - 1)
                        .map_or(&[][..], |k| &k[..]);
                    if k.len() == key.len() && k.iter().zip(key).all(|(a, b)| a == b) {
                        return Ok(usize::from(i) - 1);
                    }
                }
            }
            at = (at + 1) & mask;
        }
        Err(usize::MAX)
    }
}

fn name_table() -> &'static NameTable {
    NAME_TABLE.get_or_init(|| {
        let names = ALIASES.len() * 2 + CMDLETS.len();
        let mut table = NameTable {
            entries: Vec::new(),
            keys: Vec::new(),
            slots: vec![0; (names * 2).next_power_of_two()],
        };
        let mut push = |key: &str, canon: &'static str| {
            let key: Box<[u8]> = key.to_ascii_lowercase().into_bytes().into_boxed_slice();
            if let Err(at) = table.slot_of(&key) {
                let Ok(index) = u16::try_from(table.entries.len() + 1) else {
                    return;
                };
                if let Some(slot) = table.slots.get_mut(at) {
                    *slot = index;
                    table.keys.push(key);
                    table.entries.push(NameEntry {
                        canon,
                        lower: canon.to_ascii_lowercase(),
                    });
                }
            }
        };
        for (alias, canon) in ALIASES {
            push(alias, canon);
            if canon.contains('-') {
                push(canon, canon);
            }
        }
        for c in CMDLETS {
            if c.contains('-') {
                push(c, c);
            }
        }
        table
    })
}

/// The table entry for `name` (ASCII case-insensitive), after the cheap [`NAME_INDEX`] test.
fn lookup(name: &str) -> Option<&'static NameEntry> {
    if !NAME_INDEX.may_hold(name) {
        return None;
    }
    // No key is longer than this (a test checks), so a longer name is in no table.
    if name.len() > MAX_NAME_LEN {
        return None;
    }
    let table = name_table();
    if !name.bytes().any(|b| b.is_ascii_uppercase()) {
        // Already lowercase (the program names the rules pass): the name is its own key.
        return table
            .slot_of(name.as_bytes())
            .ok()
            .and_then(|i| table.entries.get(i));
    }
    let mut buf = [0u8; MAX_NAME_LEN];
    let lowered = buf.get_mut(..name.len())?;
    lowered.copy_from_slice(name.as_bytes());
    lowered.make_ascii_lowercase();
    table
        .slot_of(lowered)
        .ok()
        .and_then(|i| table.entries.get(i))
}

/// Longest alias, canonical name or cmdlet of the tables (in bytes), with room to spare.
const MAX_NAME_LEN: usize = 48;

/// A necessary condition for [`canonical_cmdlet`] to find `name`: some alias, canonical name
/// or cmdlet of the tables has its length and (ASCII-lowercased) first byte, and one has its
/// length and last byte. Built at compile time, it turns most command words away without
/// scanning the ~230 table entries case-insensitively; the result is the same, only faster.
struct NameIndex {
    /// By length (above 63 share row 63): bit `b` of word `b / 64` is set when an entry of
    /// that length has the lowercase byte `b` first (`first`) or last (`last`).
    first: [[u64; 4]; 64],
    last: [[u64; 4]; 64],
}

type Rows = [[u64; 4]; 64];

impl NameIndex {
    #[expect(
        clippy::indexing_slicing,
        reason = "evaluated only for the NAME_INDEX constant: an index out of range fails the build"
    )]
    const fn build() -> NameIndex {
        let mut first = [[0u64; 4]; 64];
        let mut last = [[0u64; 4]; 64];
        let mut i = 0;
        while i < ALIASES.len() + CMDLETS.len() {
            let names: [&str; 2] = if i < ALIASES.len() {
                [ALIASES[i].0, ALIASES[i].1]
            } else {
                [CMDLETS[i - ALIASES.len()], ""]
            };
            let mut k = 0;
            while k < 2 {
                if let ([a, ..], [.., z]) = (names[k].as_bytes(), names[k].as_bytes()) {
                    let len = names[k].len();
                    first = Self::set(first, len, *a);
                    last = Self::set(last, len, *z);
                }
                k += 1;
            }
            i += 1;
        }
        NameIndex { first, last }
    }

    #[expect(
        clippy::indexing_slicing,
        reason = "evaluated only for the NAME_INDEX constant: an index out of range fails the build"
    )]
    const fn set(mut rows: Rows, len: usize, byte: u8) -> Rows {
        let len = if len > 63 { 63 } else { len };
        let b = byte.to_ascii_lowercase() as usize;
        rows[len][b / 64] |= 1 << (b % 64);
        rows
    }

    fn has(rows: &Rows, len: usize, byte: u8) -> bool {
        let b = usize::from(byte.to_ascii_lowercase());
        rows.get(len.min(63))
            .and_then(|row| row.get(b / 64))
            .is_none_or(|word| word & (1 << (b % 64)) != 0)
    }

    fn may_hold(&self, name: &str) -> bool {
        match name.as_bytes() {
            [a, .., z] | [a @ z] => {
                Self::has(&self.first, name.len(), *a) && Self::has(&self.last, name.len(), *z)
            }
            [] => true,
        }
    }
}

const NAME_INDEX: NameIndex = NameIndex::build();

// ---------------------------------------------------------------------------------------------
// Host (powershell.exe / pwsh) parameters
// ---------------------------------------------------------------------------------------------
//
// The host parameter table assumed (PowerShell 7.4 `CommandLineParameterParser` and Windows
// PowerShell 5.1 `powershell.exe`; a parameter is any case-insensitive prefix of its name at
// least as long as its shortest unambiguous form, introduced by `-`, `--`, `/` or a Unicode
// dash):
//
// | parameter             | shortest / aliases |
// |-----------------------|--------------------|
// | `-Command`            | `-c`               |
// | `-CommandWithArgs`    | `-cwa` (7.4+)      |
// | `-ConfigurationName`  | `-config`          |
// | `-ConfigurationFile`  | (full)             |
// | `-CustomPipeName`     | (full)             |
// | `-EncodedCommand`     | `-e`, `-ec`        |
// | `-EncodedArguments`   | `-encodeda`, `-ea` |
// | `-ExecutionPolicy`    | `-ex`, `-ep`       |
// | `-File`               | `-f`               |
// | `-Help`               | `-h`, `-?`, `/?`   |
// | `-InputFormat`        | `-inp`, `-if`      |
// | `-Interactive`        | `-i`               |
// | `-Login`              | `-l`               |
// | `-Mta`                | (full)             |
// | `-NoExit`             | `-noe`             |
// | `-NoLogo`             | `-nol`             |
// | `-NonInteractive`     | `-noni`            |
// | `-NoProfile`          | `-nop`             |
// | `-OutputFormat`       | `-o`, `-of`        |
// | `-PSConsoleFile`      | `-psc` (5.1 only)  |
// | `-SettingsFile`       | `-settings`        |
// | `-SshServerMode`      | `-sshs`            |
// | `-Sta`                | (full)             |
// | `-Version`            | `-v`               |
// | `-WindowStyle`        | `-w`               |
// | `-WorkingDirectory`   | `-wd`, `-wo`       |
//
// A glued value (`-ec:BASE64`, `-Command:ls`) is ignored for the match (the caller takes the
// value after `:`), so such forms are never missed.
//
// `-e`, `-en`, `-enc`, …, `-encoded` are all EncodedCommand (its check runs first, so even the
// prefix shared with EncodedArguments resolves to it); `-ex`/`-ep` are ExecutionPolicy and
// `-ea` is EncodedArguments. Where in doubt the answer leans toward "it is a payload".

/// Strips the parameter introducer (`-`, `--`, `/`, or a Unicode dash) and a glued `:value`,
/// and lowercases.
fn host_param_key(param: &str) -> Option<String> {
    let rest = param
        .strip_prefix("--")
        .or_else(|| param.strip_prefix(['-', '/', '\u{2013}', '\u{2014}', '\u{2015}']))?;
    let rest = rest.split_once(':').map_or(rest, |(key, _)| key);
    if rest.is_empty() {
        return None;
    }
    Some(rest.to_ascii_lowercase())
}

/// Whether a host parameter (`-EncodedCommand`, `-enc`, `-ec`, `/e`, …) could be
/// `-EncodedCommand`; see the table above.
pub fn is_encoded_command_param(param: &str) -> bool {
    match host_param_key(param) {
        Some(key) => key == "ec" || "encodedcommand".starts_with(key.as_str()),
        None => false,
    }
}

/// Whether a host parameter is `-Command` (`-c`, `-co`, …, `/c`, `/command`) or
/// `-CommandWithArgs` (`-cwa`), whose value is a command line to analyse.
pub fn is_command_param(param: &str) -> bool {
    match host_param_key(param) {
        Some(key) => {
            key == "cwa"
                || "command".starts_with(key.as_str())
                || (key.len() > "command".len() && "commandwithargs".starts_with(key.as_str()))
        }
        None => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::shell::model::testing::{check_spans, Rng};

    #[test]
    fn unqualified_splits_at_the_last_backslash_as_rsplit_once_does() {
        fn reference(name: &str) -> Option<&str> {
            match name.rsplit_once('\\') {
                Some((module, rest)) => MODULES
                    .iter()
                    .any(|m| m.eq_ignore_ascii_case(module))
                    .then_some(rest),
                None => Some(name),
            }
        }
        let mut names: Vec<String> = [
            "",
            "\\",
            "ls",
            "Microsoft.PowerShell.Management\\Remove-Item",
            "microsoft.powershell.utility\\iex",
            "Other\\Remove-Item",
            "a\\b\\c",
            "\\Remove-Item",
            "é\\x",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        names.extend(MODULES.iter().map(|m| format!("{m}\\Get-Item")));
        names.extend(MODULES.iter().map(|m| format!("x\\{m}\\Get-Item")));
        for n in &names {
            assert_eq!(unqualified(n), reference(n), "{n:?}");
        }
    }

    /// The table scan alone, as `canonical_cmdlet` was before the index.
    fn canonical_by_scan(name: &str) -> Option<&'static str> {
        ALIASES
            .iter()
            .find_map(|(a, c)| {
                (a.eq_ignore_ascii_case(name) || c.eq_ignore_ascii_case(name)).then_some(*c)
            })
            .or_else(|| {
                CMDLETS
                    .iter()
                    .copied()
                    .find(|c| c.eq_ignore_ascii_case(name))
            })
    }

    #[test]
    fn every_table_name_fits_the_lookup_buffer() {
        for (a, c) in ALIASES {
            assert!(
                a.len() <= MAX_NAME_LEN && c.len() <= MAX_NAME_LEN,
                "{a} {c}"
            );
        }
        for c in CMDLETS {
            assert!(c.len() <= MAX_NAME_LEN, "{c}");
        }
    }

    #[test]
    fn the_lowercase_lookup_is_the_scan_lowercased() {
        let mut names: Vec<String> = Vec::new();
        for (a, c) in ALIASES {
            names.extend([a.to_string(), c.to_ascii_uppercase(), format!("{a}x")]);
        }
        for c in CMDLETS {
            names.extend([c.to_string(), c.to_ascii_lowercase(), format!("x{c}")]);
        }
        names.extend(["", "-", "a-b", "git", "LS", "É", "ls\\x"].map(str::to_owned));
        for n in &names {
            assert_eq!(canonical_cmdlet(n), canonical_by_scan(n), "{n}");
            assert_eq!(
                canonical_cmdlet_lower(n),
                canonical_cmdlet(n).map(str::to_ascii_lowercase).as_deref(),
                "{n}"
            );
        }
    }

    #[test]
    fn canonical_names_and_cmdlets_are_verb_noun() {
        for (_, c) in ALIASES {
            assert!(c.contains('-'), "{c}");
        }
        for c in CMDLETS {
            assert!(c.contains('-'), "{c}");
        }
    }

    #[test]
    fn name_index_never_turns_a_table_name_away() {
        let mut names: Vec<String> = Vec::new();
        for (a, c) in ALIASES {
            names.extend([
                a.to_string(),
                c.to_string(),
                c.to_ascii_lowercase(),
                a.to_ascii_uppercase(),
            ]);
        }
        for c in CMDLETS {
            names.extend([c.to_string(), c.to_ascii_uppercase()]);
        }
        for n in &names {
            assert!(NAME_INDEX.may_hold(n), "{n}");
            assert_eq!(canonical_cmdlet(n), canonical_by_scan(n), "{n}");
            assert!(canonical_cmdlet(n).is_some(), "{n}");
        }
        for n in [
            "echo",
            "grep",
            "git",
            "ls",
            "x",
            "",
            "remove-itemx",
            "Remove-Ite",
            "e",
            "deploy.sh",
            "ECHO",
            "Get-ChildItem2",
        ] {
            assert_eq!(canonical_cmdlet(n), canonical_by_scan(n), "{n}");
        }
        assert!(!NAME_INDEX.may_hold("grepx1"));
    }

    /// The encoding of `-EncodedCommand` (UTF-16LE, base64), for tests here and in the rules.
    pub(crate) fn encode_utf16_b64(text: &str) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[((v >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

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

    /// Every span lies inside the text on char boundaries, recursively.

    #[test]
    fn simple_commands_and_separators() {
        assert_eq!(
            words("Remove-Item -Recurse -Force C:\\w; Get-Process\nls"),
            v(&[
                &["Remove-Item", "-Recurse", "-Force", "C:\\w"],
                &["Get-Process"],
                &["ls"]
            ])
        );
        let s = lx("a | b && c || d");
        let conns: Vec<Connector> = s.commands.iter().map(|c| c.connector).collect();
        assert_eq!(
            conns,
            [
                Connector::Sequence,
                Connector::Pipe,
                Connector::And,
                Connector::Or
            ]
        );
    }

    #[test]
    fn spans_point_at_words() {
        let text = "rm  -r 'x y'";
        let s = lx(text);
        let w = &s.commands[0].argv;
        assert_eq!(&text[w[0].span.start..w[0].span.end], "rm");
        assert_eq!(&text[w[2].span.start..w[2].span.end], "'x y'");
        assert_eq!(s.commands[0].span, Span { start: 0, end: 12 });
    }

    #[test]
    fn single_quotes_are_literal() {
        let s = lx("echo 'it''s $x `n'");
        let w = &s.commands[0].argv[1];
        assert_eq!(w.text, "it's $x `n");
        assert!(w.quoted && w.fully_quoted && !w.dynamic);
        assert_eq!(words("'r''m'"), v(&[&["r'm"]]));
    }

    #[test]
    fn double_quotes_escapes_and_expansion() {
        let s = lx(r#"echo "a""b`"c`td" "$HOME\x" "plain""#);
        let w = &s.commands[0].argv;
        assert_eq!(w[1].text, "a\"b\"c\td");
        assert!(w[1].fully_quoted && !w[1].dynamic);
        assert_eq!(w[2].text, "$HOME\\x");
        assert!(w[2].dynamic && !w[2].fully_quoted && w[2].quoted);
        assert!(w[3].fully_quoted);
    }

    #[test]
    fn quote_and_escape_split_verbs() {
        assert_eq!(words("R`emove-Item x"), v(&[&["Remove-Item", "x"]]));
        assert_eq!(words("'Remove'-\"Item\" x"), v(&[&["Remove-Item", "x"]]));
        let s = lx("r`m");
        assert!(s.commands[0].argv[0].quoted && !s.commands[0].argv[0].fully_quoted);
    }

    #[test]
    fn backtick_escapes_decode() {
        assert_eq!(
            words("echo `n`t`0`a`b`f`r`v`$`x"),
            v(&[&["echo", "\n\t\0\u{7}\u{8}\u{c}\r\u{b}$x"]])
        );
        assert_eq!(words("echo \"`u{72}m\""), v(&[&["echo", "rm"]]));
    }

    #[test]
    fn backtick_newline_continues() {
        assert_eq!(
            words("Remove-Item `\n  -Recurse `\r\n -Force C:\\"),
            v(&[&["Remove-Item", "-Recurse", "-Force", "C:\\"]])
        );
        // Inside a word the continuation joins (fail toward analysis).
        assert_eq!(words("Remove-It`\nem x"), v(&[&["Remove-Item", "x"]]));
    }

    #[test]
    fn trailing_backtick_is_a_problem() {
        let s = lx("rm x`");
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::UnterminatedQuote {
                span: Span { start: 4, end: 5 }
            }]
        ));
    }

    #[test]
    fn comments() {
        assert_eq!(words("ls # rm -r /\nps"), v(&[&["ls"], &["ps"]]));
        assert_eq!(words("ls <# rm\n -r #> -Force"), v(&[&["ls", "-Force"]]));
        assert_eq!(words("echo a#b"), v(&[&["echo", "a#b"]]));
        let s = lx("ls <# open");
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::UnterminatedGroup {
                span: Span { start: 3, end: 5 }
            }]
        ));
    }

    #[test]
    fn unterminated_quotes_point_at_the_opening() {
        let s = lx("echo 'abc");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedQuote {
                span: Span { start: 5, end: 6 }
            }]
        );
        let s = lx("echo x \"abc $(ls)");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedQuote {
                span: Span { start: 7, end: 8 }
            }]
        );
    }

    #[test]
    fn call_operator_and_dot_source_are_dropped() {
        assert_eq!(
            words("& 'Remove-Item' -Recurse x"),
            v(&[&["Remove-Item", "-Recurse", "x"]])
        );
        assert_eq!(words("&rm x"), v(&[&["rm", "x"]]));
        assert_eq!(words(". .\\setup.ps1"), v(&[&[".\\setup.ps1"]]));
        assert_eq!(words(".\\run.ps1 a"), v(&[&[".\\run.ps1", "a"]]));
        assert_eq!(words("ls | & iex"), v(&[&["ls"], &["iex"]]));
    }

    #[test]
    fn call_operator_makes_a_quoted_name_a_command() {
        let s = lx("& 'C:\\Program Files\\x.exe' -a; 'just data'");
        assert!(!s.commands[0].argv[0].fully_quoted);
        assert!(s.commands[1].argv[0].fully_quoted);
    }

    #[test]
    fn background_ampersand() {
        let s = lx("Start-Sleep 5 & rm x");
        assert!(s.commands[0].background);
        assert_eq!(argvs(&s), v(&[&["Start-Sleep", "5"], &["rm", "x"]]));
    }

    #[test]
    fn script_blocks_are_nested_groups() {
        let s = lx("Invoke-Command -ScriptBlock { Remove-Item -Recurse C:\\; ls } -ComputerName h");
        assert!(s.complete());
        let c = &s.commands[0];
        assert_eq!(c.argv.len(), 5);
        assert_eq!(c.argv[2].text, "{ Remove-Item -Recurse C:\\; ls }");
        assert!(!c.argv[2].dynamic);
        let n = &c.nested[0];
        assert_eq!(n.kind, NestedKind::Group);
        assert_eq!(n.in_word, Some(2));
        assert_eq!(
            argvs(&n.script),
            v(&[&["Remove-Item", "-Recurse", "C:\\"], &["ls"]])
        );
        let s = lx("& { rm -r x }");
        assert_eq!(s.commands[0].nested[0].kind, NestedKind::Group);
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["rm", "-r", "x"]])
        );
    }

    #[test]
    fn script_block_as_colon_parameter_value() {
        let s = lx("icm -ScriptBlock:{ rm -r x } -AsJob");
        assert!(s.complete(), "{:?}", s.problems);
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["rm", "-r", "x"]])
        );
        assert_eq!(s.commands[0].argv.len(), 3);
    }

    #[test]
    fn configured_depth_is_capped() {
        let limits = LexLimits {
            max_depth: 1_000_000,
            max_tokens: 1_000_000,
        };
        let deep = format!("{}x{}", "\"$(".repeat(10_000), ")\"".repeat(10_000));
        let s = lex(&deep, &limits);
        assert!(s
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooDeep { .. })));
        let blocks = "{ & { ".repeat(10_000);
        let s = lex(&blocks, &limits);
        assert!(s
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooDeep { .. })));
    }

    #[test]
    fn subexpressions_are_command_substitutions() {
        let s = lx("echo \"x $(Remove-Item -Recurse y) z\" @(ls) (gci)");
        assert!(s.complete(), "{:?}", s.problems);
        let c = &s.commands[0];
        assert!(c.argv[1].dynamic && !c.argv[1].fully_quoted);
        assert_eq!(c.argv[1].text, "x $(Remove-Item -Recurse y) z");
        assert!(c.argv[2].dynamic && c.argv[3].dynamic);
        let kinds: Vec<(NestedKind, Option<usize>)> =
            c.nested.iter().map(|n| (n.kind, n.in_word)).collect();
        assert_eq!(
            kinds,
            [
                (NestedKind::CommandSubstitution, Some(1)),
                (NestedKind::CommandSubstitution, Some(2)),
                (NestedKind::CommandSubstitution, Some(3)),
            ]
        );
        assert_eq!(
            argvs(&c.nested[0].script),
            v(&[&["Remove-Item", "-Recurse", "y"]])
        );
    }

    #[test]
    fn nested_quotes_inside_subexpressions() {
        let s = lx(r#"echo "a $(echo ")" ; rm -r "q w") b""#);
        assert!(s.complete(), "{:?}", s.problems);
        let n = &s.commands[0].nested[0].script;
        assert_eq!(argvs(n), v(&[&["echo", ")"], &["rm", "-r", "q w"]]));
    }

    #[test]
    fn variables_are_dynamic() {
        let s = lx("Remove-Item $env:TEMP\\x ${my var} $p -Force:$true $null");
        let w = &s.commands[0].argv;
        assert!(w[1].dynamic && w[2].dynamic && w[3].dynamic);
        assert_eq!(w[1].text, "$env:TEMP\\x");
        assert_eq!(w[2].text, "${my var}");
        assert!(!w[4].dynamic, "constants are not dynamic");
        assert_eq!(w[4].text, "-Force:$true");
        assert!(!w[5].dynamic);
        let s = lx("iex @args");
        assert!(s.commands[0].argv[1].dynamic);
        assert!(!lx("echo a$").commands[0].argv[1].dynamic);
    }

    #[test]
    fn here_strings() {
        let text = "$s = @'\nRemove-Item -Recurse $x\n'@\niex $s";
        let s = lx(text);
        assert!(s.complete(), "{:?}", s.problems);
        assert_eq!(argvs(&s), v(&[&[], &["iex", "$s"]])[1..].to_vec());
        let s = lx("@'\nrm -r $x\n'@ | iex");
        assert_eq!(s.commands[0].argv[0].text, "rm -r $x");
        assert!(s.commands[0].argv[0].fully_quoted);
        assert_eq!(s.commands[1].connector, Connector::Pipe);
        let s = lx("@\"\r\nhello $(rm -r x) \"q\"\r\n\"@ | iex");
        assert!(s.complete(), "{:?}", s.problems);
        let w = &s.commands[0].argv[0];
        assert_eq!(w.text, "hello $(rm -r x) \"q\"");
        assert!(w.dynamic);
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["rm", "-r", "x"]])
        );
        let s = lx("@'\n'@");
        assert_eq!(s.commands[0].argv[0].text, "");
    }

    #[test]
    fn unterminated_here_string() {
        let s = lx("ls; @'\nrm -r x\n '@");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedHereDoc {
                span: Span { start: 4, end: 6 }
            }]
        );
        assert_eq!(s.commands[1].argv[0].text, "rm -r x\n '@");
    }

    #[test]
    fn redirections() {
        let s = lx("ls > out.txt 2>&1 2>> err.log *> all.txt 3>$null < in.txt");
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
                (RedirectKind::OutputAll, None, "all.txt".into()),
                (RedirectKind::Output, Some(3), "$null".into()),
                (RedirectKind::Input, None, "in.txt".into()),
            ]
        );
        assert_eq!(argvs(&s), v(&[&["ls"]]));
        let s = lx("echo key >> ~/.ssh/authorized_keys");
        assert_eq!(s.commands[0].redirects[0].kind, RedirectKind::Append);
        assert_eq!(
            s.commands[0].redirects[0].target.text,
            "~/.ssh/authorized_keys"
        );
        let s = lx("echo x >");
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::Unsupported { .. }]
        ));
    }

    #[test]
    fn pipes_continue_over_newlines() {
        let s = lx("Get-ChildItem |\n  Remove-Item -Recurse");
        assert_eq!(s.commands.len(), 2);
        assert_eq!(s.commands[1].connector, Connector::Pipe);
    }

    #[test]
    fn assignments() {
        assert_eq!(
            words("$x = Get-ChildItem -Recurse"),
            v(&[&["Get-ChildItem", "-Recurse"]])
        );
        let s = lx("$x = 'literal'; $n += 5");
        assert!(s.commands.is_empty(), "{:?}", s.commands);
        let s = lx("$env:PATH = \"C:\\evil\"");
        assert_eq!(s.commands.len(), 1);
        assert!(s.commands[0].argv.is_empty());
        assert_eq!(s.commands[0].assignments[0].0, "PATH");
        assert_eq!(s.commands[0].assignments[0].1.text, "C:\\evil");
        let s = lx("$r = $(Remove-Item -Recurse x)");
        assert!(s.commands[0].argv.is_empty());
        assert_eq!(s.commands[0].nested[0].in_word, None);
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["Remove-Item", "-Recurse", "x"]])
        );
        let s = lx("$p = \"$env:USERPROFILE\\.ssh\"; $q = (iwr http://x)");
        assert_eq!(s.commands.len(), 1);
        assert!(s.commands[0].argv.is_empty());
        assert_eq!(
            argvs(&s.commands[0].nested[0].script),
            v(&[&["iwr", "http://x"]])
        );
        assert_eq!(words("$x = r`m -r y"), v(&[&["rm", "-r", "y"]]));
    }

    /// The call of a script block literal assigned on the line is its body (a nested group of
    /// the call); anything that may change the variable first leaves the call as it is.
    #[test]
    fn bound_script_blocks_are_their_bodies() {
        let call = |t: &str| {
            let s = lx(t);
            s.commands.last().cloned().unwrap()
        };
        let c = call("$sb = { Get-ChildItem }; & $sb");
        assert!(c.argv.is_empty(), "{:?}", c.argv);
        assert_eq!(argvs(&c.nested[0].script), v(&[&["Get-ChildItem"]]));
        let c = call("$SB = { Remove-Item -Recurse C:\\ }; . $sb -x 1");
        assert_eq!(c.argv[0].text, "$sb");
        assert!(!c.argv[0].dynamic);
        assert_eq!(c.argv.len(), 3);
        assert_eq!(
            argvs(&c.nested[0].script),
            v(&[&["Remove-Item", "-Recurse", "C:\\"]])
        );
        for t in [
            "& $sb",
            "$sb = { ls }; $sb = [ScriptBlock]::Create($t); & $sb",
            "$sb = { ls }; Set-Variable sb $x; & $sb",
            "$sb = { ls }; $sb, $y = $a, 1; & $sb",
            "$sb = { ls }; iex $t; & $sb",
            "$sb = { ls }; . ./x.ps1; & $sb",
            "$sb = { ls }; Get-Item x -OutVariable sb; & $sb",
            "$sb = { ls }; foreach ($sb in $all) { x }; & $sb",
            "$sb = { ls } .Invoke(); & $sb",
            "$sb = { ls }; & $f; & $sb",
        ] {
            let c = call(t);
            assert_eq!(c.argv.first().map(|w| w.dynamic), Some(true), "{t}");
        }
    }

    /// A splat of a hashtable literal assigned on the line is its parameters; anything that may
    /// change the table first (any other use of the variable) leaves the splat as it is.
    #[test]
    fn bound_splats_are_their_parameters() {
        // (The assignment statement is a command with no words: the table is nested in it.)
        let last = |t: &str| words(t).pop().unwrap();
        assert_eq!(
            last("$p = @{ Path = './dist'; Recurse = $true; Confirm = $false }; Remove-Item @p -Force"),
            ["Remove-Item", "-Path", "./dist", "-Recurse", "-Confirm:$false", "-Force"]
        );
        assert_eq!(
            last("$p = @{ Path = 'a', 'b' }; Remove-Item @P"),
            ["Remove-Item", "-Path", "a,b"]
        );
        for t in [
            "Remove-Item @p",
            "$p = @{ Path = 'x' }; $p.Path = 'C:\\'; Remove-Item @p",
            "$p = @{ Path = 'x' }; $q = $p; Remove-Item @p",
            "$p = @{ Path = 'x'; (rm) }; Remove-Item @p",
            "$p = @{ Path = 'x' }; Set-Variable p $h; Remove-Item @p",
        ] {
            let s = lx(t);
            let last = s.commands.last().cloned().unwrap();
            assert_eq!(last.argv.get(1).map(|w| w.text.as_str()), Some("@p"), "{t}");
        }
    }

    /// `for`/`while` without `(` is a PowerShell syntax error: the line runs nothing.
    #[test]
    fn for_without_parenthesis_stops() {
        let s = lx("for %f in (*.tmp) do del %f");
        assert!(!s.complete());
        assert!(s.commands.iter().all(|c| c.nested.is_empty()));
        assert!(lx("for ($i = 0; $i -lt 3; $i++) { ls }").complete());
    }

    #[test]
    fn stop_parsing_token() {
        let s = lx("cmd.exe /c --% del /s /q \"C:\\a b\" %TEMP% | ls");
        assert!(s.complete(), "{:?}", s.problems);
        assert_eq!(
            argvs(&s),
            v(&[
                &["cmd.exe", "/c", "del", "/s", "/q", "C:\\a b", "%TEMP%"],
                &["ls"]
            ])
        );
        assert!(s.commands[0].argv[6].dynamic);
    }

    #[test]
    fn unicode_dashes_and_smart_quotes() {
        assert_eq!(
            words("Remove-Item \u{2013}Recurse \u{2014}Force \u{2018}C:\\\u{2019}"),
            v(&[&["Remove-Item", "-Recurse", "-Force", "C:\\"]])
        );
        assert_eq!(words("echo \u{201c}a b\u{201d}"), v(&[&["echo", "a b"]]));
    }

    #[test]
    fn array_arguments_are_split() {
        assert_eq!(
            words("Remove-Item C:\\,D:\\ -Recurse; echo 'a,b' a`,b"),
            v(&[
                &["Remove-Item", "C:\\", "D:\\", "-Recurse"],
                &["echo", "a,b", "a,b"]
            ])
        );
    }

    #[test]
    fn globs() {
        let s = lx("Remove-Item C:\\* -Recurse; rm 'a*'");
        assert!(s.commands[0].argv[1].glob);
        assert!(!s.commands[1].argv[1].glob);
    }

    #[test]
    fn type_expressions_are_flagged() {
        let s = lx("[System.IO.Directory]::Delete('C:\\', $true)");
        assert!(s
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::Unsupported { .. })));
        assert!(!s.commands[0].nested.is_empty());
    }

    #[test]
    fn unbalanced_groups() {
        let s = lx("echo $(ls");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedGroup {
                span: Span { start: 5, end: 7 }
            }]
        );
        let s = lx("& { rm x");
        assert_eq!(
            s.problems,
            vec![LexProblem::UnterminatedGroup {
                span: Span { start: 2, end: 3 }
            }]
        );
        let s = lx("ls )");
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::Unsupported { .. }]
        ));
    }

    #[test]
    fn depth_limit() {
        let limits = LexLimits {
            max_depth: 3,
            max_tokens: 4096,
        };
        let s = lex("echo $($($(rm x)))", &limits);
        assert!(s.complete());
        let s = lex("echo $($($($(rm x))))", &limits);
        assert_eq!(
            s.problems,
            vec![LexProblem::TooDeep {
                span: Span { start: 11, end: 13 }
            }]
        );
        // The rest after the skipped part is still lexed.
        let s = lex("echo $($($($(rm x)))); Remove-Item y", &limits);
        assert_eq!(argvs(&s)[1], vec!["Remove-Item", "y"]);
    }

    #[test]
    fn token_limit() {
        let limits = LexLimits {
            max_depth: 8,
            max_tokens: 5,
        };
        let s = lex("a b c d e f g h", &limits);
        assert!(matches!(
            s.problems.as_slice(),
            [LexProblem::TooLong { .. }]
        ));
        assert_eq!(argvs(&s), v(&[&["a", "b", "c", "d", "e"]]));
    }

    #[test]
    fn worst_cases_are_linear() {
        let deep = "$(".repeat(10_000);
        let s = lx(&deep);
        assert!(s
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooDeep { .. })));
        let deep2 = format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000));
        let s2 = lx(&deep2);
        assert!(!s2.complete());
        let blocks = format!("{}x{}", "{".repeat(10_000), "}".repeat(10_000));
        assert!(!lx(&blocks).complete());
        let long = "Remove-Item -Recurse x; ".repeat(1100);
        let s3 = lx(&long);
        assert!(s3
            .problems
            .iter()
            .any(|p| matches!(p, LexProblem::TooLong { .. })));
        let quotes = "\"$(".repeat(7_000);
        assert!(!lx(&quotes).complete());
    }

    /// A tiny xorshift generator: property tests without dependencies.

    #[test]
    fn mutated_commands_never_panic() {
        let bases = [
            "powershell -NoProfile -Command \"Remove-Item -Recurse -Force C:\\w\"",
            "iex (New-Object Net.WebClient).DownloadString('http://x/a.ps1')",
            "$s = @'\nrm -r $x\n'@; iex $s 2>&1 | Out-Null",
            "Get-ChildItem | % { Remove-Item $_ -Recurse } && echo \"done $(Get-Date)\"",
            "& { . .\\x.ps1 } ; cmd /c --% del /s /q %TEMP%",
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
            "rm",
            " ",
            "-Recurse",
            "'",
            "\"",
            "`",
            "`n",
            "$",
            "$(",
            "@(",
            "@{",
            "(",
            ")",
            "{",
            "}",
            "|",
            "||",
            "&",
            "&&",
            ";",
            "\n",
            "\r\n",
            "#",
            "<#",
            "#>",
            ">",
            ">>",
            "2>&1",
            "*>",
            "<",
            "@'\n",
            "\n'@",
            "@\"\n",
            "\n\"@",
            "$env:X",
            "${a}",
            "--%",
            "é",
            "–",
            "\u{2018}",
            "\u{201c}",
            "[IO.File]::",
            ".",
            "=",
            "1>",
            "x",
            "C:\\",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let limits = LexLimits {
            max_depth: 4,
            max_tokens: 64,
        };
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                text.push_str(PIECES[rng.below(PIECES.len())]);
            }
            let s = lex(&text, &limits);
            check_spans(&text, &s);
            let s = lx(&text);
            check_spans(&text, &s);
        }
        // Mutations of real commands: truncate at every char boundary.
        let base = "pwsh -c \"& { Remove-Item -Recurse `\"$($env:X)`\" }\" | iex @'\nx\n'@ 2>&1";
        for (i, _) in base.char_indices() {
            check_spans(&base[..i], &lx(&base[..i]));
        }
    }

    #[test]
    fn decodes_encoded_command() {
        let b64 = encode_utf16_b64("Remove-Item -Recurse -Force C:\\w");
        assert_eq!(
            decode_encoded_command(&b64).as_deref(),
            Some("Remove-Item -Recurse -Force C:\\w")
        );
        // The classic example from `powershell -?`.
        assert_eq!(
            decode_encoded_command(
                "ZABpAHIAIAAiAGMAOgBcAHAAcgBvAGcAcgBhAG0AIABmAGkAbABlAHMAIgAgAA=="
            )
            .as_deref(),
            Some("dir \"c:\\program files\" ")
        );
    }

    #[test]
    fn decode_is_tolerant_of_whitespace_and_padding() {
        let b64 = encode_utf16_b64("iex x");
        let spaced: String = b64.chars().flat_map(|c| [c, ' ']).collect();
        assert_eq!(decode_encoded_command(&spaced).as_deref(), Some("iex x"));
        let unpadded = b64.trim_end_matches('=');
        assert_eq!(decode_encoded_command(unpadded).as_deref(), Some("iex x"));
        assert_eq!(
            decode_encoded_command(&format!("\n{b64}\r\n")).as_deref(),
            Some("iex x")
        );
    }

    #[test]
    fn decode_rejects_non_base64() {
        assert_eq!(decode_encoded_command("not base64!"), None);
        assert_eq!(decode_encoded_command("QQ==QQ"), None);
        assert_eq!(decode_encoded_command("Q"), None);
        assert_eq!(decode_encoded_command("").as_deref(), Some(""));
    }

    #[test]
    fn decode_is_lossy_on_bad_utf16() {
        // One odd byte: 'A' then a dangling byte.
        let s = decode_encoded_command("QQBC").unwrap_or_default();
        assert!(s.starts_with('A') && s.ends_with('\u{fffd}'));
        // Lone surrogate.
        let s = decode_encoded_command("ANg=").unwrap_or_default();
        assert_eq!(s, "\u{fffd}");
    }

    #[test]
    fn canonical_names() {
        for a in [
            "rm",
            "RI",
            "del",
            "Erase",
            "rd",
            "rmdir",
            "remove-item",
            "REMOVE-ITEM",
        ] {
            assert_eq!(canonical_cmdlet(a), Some("Remove-Item"), "{a}");
        }
        assert_eq!(canonical_cmdlet("iex"), Some("Invoke-Expression"));
        assert_eq!(canonical_cmdlet("IWR"), Some("Invoke-WebRequest"));
        assert_eq!(canonical_cmdlet("curl"), Some("Invoke-WebRequest"));
        assert_eq!(canonical_cmdlet("wget"), Some("Invoke-WebRequest"));
        assert_eq!(canonical_cmdlet("irm"), Some("Invoke-RestMethod"));
        assert_eq!(canonical_cmdlet("sc"), Some("Set-Content"));
        assert_eq!(canonical_cmdlet("ac"), Some("Add-Content"));
        assert_eq!(canonical_cmdlet("cpi"), Some("Copy-Item"));
        assert_eq!(canonical_cmdlet("mi"), Some("Move-Item"));
        assert_eq!(canonical_cmdlet("saps"), Some("Start-Process"));
        assert_eq!(canonical_cmdlet("icm"), Some("Invoke-Command"));
        assert_eq!(canonical_cmdlet("type"), Some("Get-Content"));
        assert_eq!(canonical_cmdlet("gci"), Some("Get-ChildItem"));
        assert_eq!(canonical_cmdlet("write"), Some("Write-Output"));
        assert_eq!(canonical_cmdlet("sls"), Some("Select-String"));
        assert_eq!(canonical_cmdlet("ni"), Some("New-Item"));
        assert_eq!(canonical_cmdlet("out-file"), Some("Out-File"));
        assert_eq!(canonical_cmdlet("Format-Volume"), Some("Format-Volume"));
    }

    #[test]
    fn canonical_module_qualified() {
        assert_eq!(
            canonical_cmdlet("Microsoft.PowerShell.Management\\Remove-Item"),
            Some("Remove-Item")
        );
        assert_eq!(
            canonical_cmdlet("microsoft.powershell.utility\\invoke-expression"),
            Some("Invoke-Expression")
        );
        assert_eq!(canonical_cmdlet("C:\\tools\\rm"), None);
        assert_eq!(canonical_cmdlet("rm.exe"), None);
        assert_eq!(canonical_cmdlet("git"), None);
        assert_eq!(canonical_cmdlet(""), None);
    }

    #[test]
    fn encoded_command_params() {
        for p in [
            "-e",
            "-E",
            "-ec",
            "-EC",
            "-en",
            "-enc",
            "-enco",
            "-encod",
            "-encoded",
            "-encodedcommand",
            "-EncodedCommand",
            "/e",
            "/enc",
            "/EncodedCommand",
            "--enc",
            "\u{2013}enc",
            "-ec:ZABpAHIA",
            "-EncodedCommand:x",
        ] {
            assert!(is_encoded_command_param(p), "{p}");
        }
        for p in [
            "-ex",
            "-ep",
            "-ea",
            "-encodeda",
            "-encodedarguments",
            "-executionpolicy",
            "-c",
            "-command",
            "-",
            "/",
            "",
            "enc",
            "-encodedcommandx",
            "-f",
            "-:x",
            "-ex:Bypass",
        ] {
            assert!(!is_encoded_command_param(p), "{p}");
        }
    }

    #[test]
    fn command_params() {
        for p in [
            "-c",
            "-C",
            "-co",
            "-com",
            "-comm",
            "-command",
            "-Command",
            "/c",
            "/command",
            "--command",
            "-cwa",
            "-commandwithargs",
        ] {
            assert!(is_command_param(p), "{p}");
        }
        for p in [
            "-config",
            "-configurationname",
            "-custompipename",
            "-e",
            "-f",
            "-file",
            "c",
            "-",
            "-commandx",
            "-nop",
        ] {
            assert!(!is_command_param(p), "{p}");
        }
    }
}
