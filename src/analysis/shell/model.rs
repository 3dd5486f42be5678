//! The dialect-neutral shape of a shell command line, shared by the POSIX, PowerShell and CMD
//! lexers (each its own state machine) and consumed by the command model and the rules.
//!
//! One lexer per dialect, one token stream, nobody re-tokenizes: analyzers work on these types
//! only. Spans are byte offsets into the text the lexer was given (always on char boundaries),
//! so findings can point at the dangerous part without copying input into messages.

/// A byte range `[start, end)` in the analysed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One shell word after quote removal and escape decoding.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The word's literal value after quote removal and escape decoding (`'r''m'` → `rm`,
    /// `r\m` → `rm`, `$'\x72m'` → `rm`). Expansions are kept verbatim (`$HOME`, `$(…)`).
    pub text: String,
    pub span: Span,
    /// Some part of the word was quoted (single, double, ANSI-C or dialect equivalent).
    pub quoted: bool,
    /// The word is entirely inside one pair of quotes or is a single escaped literal: its text
    /// is data, never expanded or split by the shell.
    pub fully_quoted: bool,
    /// The word contains an unquoted or double-quoted expansion (`$VAR`, `${…}`, `$(…)`,
    /// backticks, arithmetic, PowerShell `$var` / `$(…)`, CMD `%VAR%` / `!VAR!`): its runtime
    /// value is not known statically.
    pub dynamic: bool,
    /// The word contains an unquoted glob (`*`, `?`, `[…]`) or brace expansion (`{a,b}`,
    /// `{1..3}`): it may expand to other words.
    pub glob: bool,
    /// `dynamic`, and every expansion in it is inside double quotes (`"$f"`, `"${d}/x"`; not
    /// `$f`, `""$f`): its value stays one word, never split into several or globbed. Only
    /// the POSIX lexer sets it; false is always the safe reading.
    pub one_word: bool,
}

/// How a simple command is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// First command of the script, or after `;` / newline / `&` (background of the previous).
    Sequence,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|` (stdout of the previous command feeds this one)
    Pipe,
    /// `|&` (stdout and stderr feed this one)
    PipeAll,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`
    Input,
    /// `>`, `>|`, `1>`, PowerShell `>` / `Out-File` excluded (that is a command)
    Output,
    /// `>>`
    Append,
    /// `&>`, `&>>`, `>&` to a file
    OutputAll,
    /// `2>&1`, `>&2`, `<&3`: duplicating a descriptor, no file involved
    Duplicate,
    /// `<<`, `<<-` (body in [`SimpleCommand::heredocs`])
    HereDoc,
    /// `<<<`
    HereString,
    /// `<>`
    ReadWrite,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub kind: RedirectKind,
    /// Source descriptor if given (`2>`), else the default for the kind.
    pub fd: Option<u32>,
    /// Target word (file, descriptor, here-string text or heredoc delimiter).
    pub target: Word,
}

impl Redirect {
    /// Sends the command's stdout to its target (`>`, `>>`, `&>`, `1>`; not `2>`).
    pub fn takes_stdout(&self) -> bool {
        matches!(
            self.kind,
            RedirectKind::Output | RedirectKind::Append | RedirectKind::OutputAll
        ) && self.fd.is_none_or(|fd| fd == 1)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDoc {
    pub delimiter: String,
    /// Quoted delimiter (`<<'EOF'`): the body is literal, no expansion.
    pub quoted: bool,
    /// `<<-`: leading tabs stripped.
    pub strip_tabs: bool,
    pub body: String,
    pub body_span: Span,
    /// False when the input ended before the delimiter line.
    pub terminated: bool,
}

/// Where a nested script came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedKind {
    /// `$(…)` or backticks
    CommandSubstitution,
    /// `<(…)`
    ProcessSubstitutionIn,
    /// `>(…)`
    ProcessSubstitutionOut,
    /// `( … )` subshell
    Subshell,
    /// `{ …; }` group (POSIX) or `{ … }` script block (PowerShell) or `( … )` block (CMD)
    Group,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nested {
    pub kind: NestedKind,
    pub script: Script,
    /// Index in `SimpleCommand::argv` of the word containing it, if it sits inside a word.
    pub in_word: Option<usize>,
    /// Where its source text is, from the `$` of a POSIX `$(` to just after its `)` (to where
    /// lexing stopped when it never closed); `None` for every other kind, for substitutions
    /// in backtick content, and in the PowerShell and CMD dialects. (A payload whose text is
    /// exactly such a substitution is read from it: see `analyze`.)
    pub source: Option<Span>,
}

/// One simple command: assignments, words, redirections, and the scripts nested in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    pub connector: Connector,
    /// Leading `NAME=value` assignments (POSIX), as (name, value).
    pub assignments: Vec<(String, Word)>,
    /// Command word and arguments, in order. May be empty (bare assignment or redirect).
    pub argv: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub heredocs: Vec<HereDoc>,
    /// Command/process substitutions, subshells and groups found in this command.
    pub nested: Vec<Nested>,
    /// Ends with `&` (runs in the background).
    pub background: bool,
    /// 0 at the top level of its script; inside the condition or body of an `if`, `while`,
    /// `until`, `for`, `select` or `case` of its script (POSIX only: the other lexers keep
    /// their blocks as nested scripts), the number of that stretch — what lies between two of
    /// the reserved words `if then elif else fi while until do done`, a `for`/`select` header
    /// and its `done`, a `case` pattern's `)` and the next `;;` or `esac`. Such a command may
    /// run never, or many times; commands of one stretch run in the order written when it
    /// runs. Numbers are not reused within a script (a stretch that goes on after an inner
    /// compound command gets a new one).
    pub arm: u32,
    pub span: Span,
    /// `f() { …; }`, `function f …` (POSIX): the name of the function this command defines.
    /// Its body is the command's nested group or subshell, analysed in place; it runs where
    /// the name is called, and what it does then is what the body does.
    pub defines: Option<String>,
}

/// Why a script is not completely understood. Any of these means "needs a human".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexProblem {
    /// A quote opened at `span.start` never closed.
    UnterminatedQuote { span: Span },
    /// `$(`, `(`, `{`, backtick or similar never closed.
    UnterminatedGroup { span: Span },
    /// Heredoc delimiter line never found.
    UnterminatedHereDoc { span: Span },
    /// Nesting deeper than the limit.
    TooDeep { span: Span },
    /// More tokens/commands than the limit.
    TooLong { span: Span },
    /// Syntax the lexer does not model (e.g. `case`, `function` bodies, `[[ ]]`): analysed
    /// as plain words, flagged incomplete.
    Unsupported { span: Span, what: &'static str },
}

/// A lexed command line in one dialect.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    pub commands: Vec<SimpleCommand>,
    pub problems: Vec<LexProblem>,
}

impl Script {
    /// True when the lexer understood every byte.
    pub fn complete(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Shared limits for every dialect lexer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexLimits {
    /// Nesting of `$()`, groups, subshells, script blocks.
    pub max_depth: usize,
    /// Words plus operators in one script (all levels together).
    pub max_tokens: usize,
}

/// The default [`LexLimits::max_tokens`]. Every token read costs the walk and the rule checks
/// of its command, so this bounds the worst case (`ls;` × 4 096, the 20 KB command of
/// `bench/`): 3 072 keeps them under 1 ms through the hook on the slowest machine measured.
/// No command of the test corpora has between 2 048 and 4 096 tokens (a 16 KB line of paths
/// averages well over 5 bytes per token); past the limit lexing stops and the call is not
/// evaluated (approval, never reused or granted).
pub const MAX_TOKENS: usize = 3072;

impl Default for LexLimits {
    fn default() -> Self {
        LexLimits {
            max_depth: 32,
            max_tokens: MAX_TOKENS,
        }
    }
}

/// The cursor and token budget the PowerShell and CMD lexers share: one position over the
/// whole text (shared by every nesting level), a scanning bound, the depth and token limits,
/// and the problems found. Each lexer wraps it (and reaches it through `Deref`) with its own
/// grammar; the POSIX lexer is a state machine with its own cursor.
#[derive(Debug)]
pub(crate) struct Cursor<'a> {
    pub text: &'a str,
    pub pos: usize,
    /// Scanning bound (a nested body, e.g. a here-string or a `for /f` string, narrows it).
    pub end: usize,
    pub max_depth: usize,
    pub max_tokens: usize,
    pub tokens: usize,
    /// The token limit was hit: every level stops.
    pub stopped: bool,
    pub problems: Vec<LexProblem>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`; nesting is capped at `hard_max_depth` whatever the
    /// limits say.
    pub fn new(text: &'a str, limits: LexLimits, hard_max_depth: usize) -> Cursor<'a> {
        Cursor {
            text,
            pos: 0,
            end: text.len(),
            max_depth: limits.max_depth.min(hard_max_depth),
            max_tokens: limits.max_tokens,
            tokens: 0,
            stopped: false,
            problems: Vec::new(),
        }
    }

    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..self.end).unwrap_or("")
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn peek2(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    pub fn span_from(&self, start: usize) -> Span {
        Span {
            start,
            end: self.pos,
        }
    }

    /// The text from `start` to the cursor.
    pub fn slice(&self, start: usize) -> &'a str {
        self.text.get(start..self.pos).unwrap_or("")
    }

    /// Counts one token; false (and stop everything) past the limit.
    pub fn token(&mut self, at: usize) -> bool {
        self.tokens += 1;
        if self.tokens > self.max_tokens {
            if !self.stopped {
                self.problems.push(LexProblem::TooLong {
                    span: Span { start: at, end: at },
                });
            }
            self.stopped = true;
        }
        !self.stopped
    }

    /// Consumes one `\n`, `\r` or `\r\n`.
    pub fn skip_one_newline(&mut self) {
        self.eat('\r');
        self.eat('\n');
    }
}

/// Helpers shared by the three lexers' tests.
/// FNV-1a over `bytes`, for the open-addressing name tables of the rules and the PowerShell
/// lexer (fixed keys, built once, at most half full: a lookup of any word probes a few slots).
pub fn fnv(bytes: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    // Truncation is fine: only the low bits pick a slot.
    h as usize
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Every span in `s` (commands, words, assignments, redirect targets, heredoc bodies,
    /// problems, nested scripts and their sources) lies inside `text` on char boundaries,
    /// every `in_word` points into its command's argv, and a source is a `$…` substitution.
    pub fn check_spans(text: &str, s: &Script) {
        let ok = |sp: Span| {
            assert!(
                sp.start <= sp.end && sp.end <= text.len(),
                "{sp:?} in {text:?}"
            );
            assert!(
                text.is_char_boundary(sp.start) && text.is_char_boundary(sp.end),
                "{sp:?}"
            );
        };
        let mut stack: Vec<&Script> = vec![s];
        while let Some(s) = stack.pop() {
            for p in &s.problems {
                match p {
                    LexProblem::UnterminatedQuote { span }
                    | LexProblem::UnterminatedGroup { span }
                    | LexProblem::UnterminatedHereDoc { span }
                    | LexProblem::TooDeep { span }
                    | LexProblem::TooLong { span }
                    | LexProblem::Unsupported { span, .. } => ok(*span),
                }
            }
            for c in &s.commands {
                ok(c.span);
                c.argv.iter().for_each(|w| ok(w.span));
                c.assignments.iter().for_each(|(_, w)| ok(w.span));
                c.redirects.iter().for_each(|r| ok(r.target.span));
                c.heredocs.iter().for_each(|h| ok(h.body_span));
                for n in &c.nested {
                    if let Some(i) = n.in_word {
                        assert!(i < c.argv.len(), "in_word {i} out of argv");
                    }
                    if let Some(sp) = n.source {
                        ok(sp);
                        assert_eq!(n.kind, NestedKind::CommandSubstitution, "{sp:?}");
                        let src = text.get(sp.start..sp.end).unwrap_or("");
                        assert!(src.starts_with('$'), "{sp:?} {src:?}");
                    }
                    stack.push(&n.script);
                }
            }
        }
    }

    /// A tiny xorshift generator for the lexers' no-panic property tests.
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }
}
