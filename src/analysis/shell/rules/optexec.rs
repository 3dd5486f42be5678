//! Commands hidden in another program's options and scripts: the escapes to a shell that
//! editors, pagers, archivers, debuggers, build tools and database clients offer (the
//! GTFOBins class). `vim -c ':!rm -rf ~'`, `emacs --eval '(shell-command "…")'`,
//! `less +'!…'`, `man -P '…'`, `tar --checkpoint-action=exec=…` / `--to-command=…` /
//! `-I …`, `rsync -e '…'`, `zip -T -TT '…'`, `sed`'s `e` command and `s///e` flag,
//! `gdb -ex '!…'`, `make --eval 'x:; …'`, `expect -c 'spawn …'`, `psql -c '\! …'`,
//! `mysql -e 'system …'`, `sqlite3 db '.shell …'`, `ansible -m shell -a '…'`, `split
//! --filter='…'`.
//!
//! # What it owns
//! Finding the command text in those places and handing it on as a payload, analysed like
//! `sh -c` (or as inline Python/Lua/Perl/Ruby code where the escape runs that), so that what
//! it runs decides the severity: `vim -c '!ls'` stays an ask, `vim -c '!rm -rf ~'` is as
//! critical as `rm -rf ~`. An escape whose command is built at run time (`vim -c 'exe "!" .
//! x'`, `sed 's/…/&/e'`, `sed e`) is dynamic code execution. The program's own effect (an
//! editor writing a file, a client reaching a database) is the other families' business.
//!
//! # Invariants
//! - Every escape is `not_read_only` and names itself with `inline-interpreter`: a pager or
//!   editor that runs a command is no longer a read. An option that normally names a helper
//!   program (`man -P less`, `tar -I zstd`, `rsync -e ssh`, `split --filter`) is only
//!   analysed: what it runs decides.
//! - Only the program's own option and script syntax is read: the same text as an argument
//!   of `echo` or `grep` is data.
//! - Bounded: each script is scanned once, left to right; at most [`MAX_ESCAPES`] payloads
//!   per command.

use super::exec::inline_code;
use super::inline::Lang;
use super::{argv_text_of, parse, Call, Out};
use crate::analysis::shell::command::Dialect;
use crate::finding;

/// Payloads taken from one command at most (the rest are still flagged).
const MAX_ESCAPES: usize = 8;

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    match c.prog {
        "vim" | "vi" | "nvim" | "ex" | "view" | "vimdiff" | "rvim" | "rview" | "gvim" | "evim"
        | "vimx" | "gview" | "nview" => vim(c, out),
        "emacs" | "emacs-nox" | "xemacs" => emacs(c, out),
        "less" | "more" | "most" => pager(c, out),
        "man" => man(c, out),
        "tar" | "gtar" | "bsdtar" => tar(c, out),
        "rsync" => rsync(c, out),
        "zip" => zip(c, out),
        "sed" | "gsed" => sed(c, out),
        "gdb" | "gdb-multiarch" => gdb(c, out),
        "make" | "gmake" => make(c, out),
        "expect" => expect(c, out),
        "psql" => psql(c, out),
        "mysql" | "mariadb" => mysql(c, out),
        "sqlite3" | "sqlite" => sqlite(c, out),
        "ansible" => ansible(c, out),
        "split" | "gsplit" => split(c, out),
        _ => {}
    }
}

/// What one command's escapes found so far.
struct Escapes<'o, 'c, 'a, 'w> {
    c: &'c Call<'a, 'w>,
    out: &'o mut Out,
    via: &'static str,
    taken: usize,
}

impl Escapes<'_, '_, '_, '_> {
    fn new<'o, 'c, 'a, 'w>(
        c: &'c Call<'a, 'w>,
        out: &'o mut Out,
        via: &'static str,
    ) -> Escapes<'o, 'c, 'a, 'w> {
        Escapes {
            c,
            out,
            via,
            taken: 0,
        }
    }

    fn flag(&mut self, what: &str) {
        self.out.not_read_only();
        self.out.add(
            &finding::INLINE_INTERPRETER,
            format!("`{}` runs {what}", self.via),
        );
    }

    /// `text` is a command line the program hands to a shell.
    fn shell(&mut self, text: &str) {
        self.flag("a shell command");
        self.hook(text);
    }

    /// `text` is a command line in an option that normally names a helper program (`man -P
    /// less`, `tar -I zstd`, `rsync -e 'ssh -p 2222'`): analysed like `sh -c`, but not an
    /// escape by itself.
    fn hook(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() || self.taken >= MAX_ESCAPES {
            return;
        }
        self.taken += 1;
        self.out
            .payload(Dialect::Posix, text.to_owned(), self.via, false);
    }

    /// `argv` is a program and its arguments the program runs without a shell.
    fn argv(&mut self, argv: &[String]) {
        if argv.is_empty() {
            return;
        }
        let line = argv_text_of(argv.iter().map(String::as_str));
        self.shell(&line);
    }

    /// `code` is inline code in `lang`.
    fn code(&mut self, lang: Lang, code: &str) {
        self.flag("inline code");
        if self.taken >= MAX_ESCAPES {
            return;
        }
        self.taken += 1;
        inline_code(self.c, self.out, lang, code, self.via);
    }

    /// The command an escape runs is built at run time.
    fn dynamic(&mut self, what: &str) {
        self.flag("a shell command");
        self.out.add(
            &finding::DYNAMIC_CODE_EXECUTION,
            format!("`{}` runs {what} only known at run time", self.via),
        );
    }
}

/// The string literals of `s` in order: `'…'` and `"…"` (with `\` escapes in the latter).
fn literals(s: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = s.chars();
    while let Some(ch) = chars.next() {
        if ch == '\'' || ch == '"' {
            found.push(take_literal(&mut chars, ch));
        }
    }
    found
}

/// The rest of a string literal opened by `quote`, read up to and past its closing quote;
/// `"…"` decodes `\` escapes (`\n`, `\t`, any other char as itself).
fn take_literal(chars: &mut impl Iterator<Item = char>, quote: char) -> String {
    let mut lit = String::new();
    while let Some(x) = chars.next() {
        if x == quote {
            break;
        }
        if x == '\\' && quote == '"' {
            if let Some(e) = chars.next() {
                lit.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    e => e,
                });
            }
            continue;
        }
        lit.push(x);
    }
    lit
}

/// The text after the first `(` of `s` up to its matching `)` (or the end).
fn parenthesized(s: &str) -> &str {
    match s.find('(') {
        Some(open) => enclosed(s.get(open + 1..).unwrap_or("")),
        None => "",
    }
}

/// `body` up to the first `)` or `]` that closes nothing opened in it (or the end), string
/// literals skipped.
fn enclosed(body: &str) -> &str {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, ch) in body.char_indices() {
        match (quote, ch) {
            (Some(q), x) if x == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(ch),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') if depth == 0 => return body.get(..i).unwrap_or(body),
            (None, ')' | ']') => depth -= 1,
            _ => {}
        }
    }
    body
}

/// Values of the options named in `names` (`-c X`, `-cX`, `--cmd X`, `--cmd=X`), each
/// exactly as spelled with its dashes: `["-c", "--cmd"]`.
fn option_values<'w>(c: &Call<'_, 'w>, names: &[&str]) -> Vec<&'w str> {
    let mut values = Vec::new();
    let mut it = c.args.iter();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        for name in names {
            if t == *name {
                if let Some(v) = it.next() {
                    values.push(v.text.as_str());
                }
                break;
            }
            let glued = if name.starts_with("--") {
                t.strip_prefix(name).and_then(|r| r.strip_prefix('='))
            } else {
                t.strip_prefix(name).filter(|r| !r.is_empty())
            };
            if let Some(v) = glued {
                values.push(v);
                break;
            }
        }
    }
    values
}

// ---- editors -------------------------------------------------------------------------------

/// Vim's startup commands (`-c`, `--cmd`, `+cmd`): ex commands separated by `|`.
fn vim(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "vim -c");
    let mut commands = option_values(c, &["-c", "--cmd"]);
    commands.extend(
        c.args
            .iter()
            .filter_map(|w| w.text.strip_prefix('+'))
            .filter(|t| {
                !t.is_empty() && !t.starts_with('/') && !t.bytes().all(|b| b.is_ascii_digit())
            }),
    );
    for text in commands {
        ex_line(&mut e, text, 0);
    }
}

/// Ex command modifiers that may precede a command (`silent! !cmd`).
const EX_MODIFIERS: &[&str] = &[
    "silent!",
    "silent",
    "sil!",
    "sil",
    "noautocmd",
    "noa",
    "keepalt",
    "keepa",
    "unsilent",
    "uns",
    "verbose",
    "verb",
    "sandbox",
    "san",
];

/// One line of ex commands; `depth` counts `execute` levels.
fn ex_line(e: &mut Escapes<'_, '_, '_, '_>, line: &str, depth: usize) {
    let mut rest = line;
    loop {
        let mut cmd = rest.trim_start_matches(|ch: char| ch == ':' || ch.is_whitespace());
        loop {
            let before = cmd.len();
            for m in EX_MODIFIERS {
                if let Some(r) = cmd.strip_prefix(m) {
                    if r.is_empty() || r.starts_with(|ch: char| ch.is_whitespace() || ch == '!') {
                        cmd = r.trim_start();
                        break;
                    }
                }
            }
            if cmd.len() == before {
                break;
            }
        }
        // A range: line numbers, `.`, `$`, `%`, marks and offsets.
        let cmd = cmd
            .trim_start_matches(|ch: char| ch.is_ascii_digit() || ".$%,;+-".contains(ch))
            .trim_start();
        if let Some(shell) = cmd.strip_prefix('!') {
            // `:!cmd` (and `:range!filter`): the rest of the line, bars included.
            e.shell(shell);
            return;
        }
        let name_len = cmd
            .find(|ch: char| !ch.is_ascii_alphabetic())
            .unwrap_or(cmd.len());
        let (name, args) = cmd.split_at(name_len);
        match name {
            "r" | "re" | "rea" | "read" => {
                if let Some(shell) = args.trim_start().strip_prefix('!') {
                    e.shell(shell);
                    return;
                }
            }
            // `w !cmd` pipes the buffer to a command; `w!` is a forced write.
            "w" | "wr" | "wri" | "writ" | "write" => {
                let spaced = args.starts_with(char::is_whitespace);
                if let Some(shell) = args.trim_start().strip_prefix('!').filter(|_| spaced) {
                    e.shell(shell);
                    return;
                }
            }
            "ter" | "term" | "termi" | "termin" | "termina" | "terminal" => {
                let words = args.split_whitespace().skip_while(|w| w.starts_with("++"));
                let shell: Vec<&str> = words.collect();
                e.shell(&shell.join(" "));
                return;
            }
            "py" | "python" | "py3" | "python3" | "pyx" | "pythonx" => {
                e.code(Lang::Python, args);
                return;
            }
            "lua" => {
                e.code(Lang::Lua, args);
                return;
            }
            "perl" | "pe" => {
                e.code(Lang::Perl, args);
                return;
            }
            "ruby" | "rub" => {
                e.code(Lang::Ruby, args);
                return;
            }
            "exe" | "exec" | "execu" | "execut" | "execute" => {
                let lits = literals(args);
                let only_literals = args
                    .split(['\'', '"'])
                    .step_by(2)
                    .all(|gap| gap.trim().is_empty() || gap.trim() == ".");
                if only_literals && depth < 2 {
                    ex_line(e, &lits.concat(), depth + 1);
                } else if lits.iter().any(|l| l.contains('!')) || args.contains("system") {
                    e.dynamic("an ex command");
                }
            }
            _ => {}
        }
        calls_of(e, cmd, VIM_SPAWNS);
        match next_bar(cmd) {
            Some(after) => rest = after,
            None => return,
        }
    }
}

/// Vim functions that run a command: `system('…')`, `jobstart(['…'])`.
const VIM_SPAWNS: &[&str] = &[
    "system(",
    "systemlist(",
    "job_start(",
    "jobstart(",
    "termopen(",
    "term_start(",
];

/// Each call of a `functions` entry in `text`: a literal command string is a shell command, a
/// list of literals an argv; anything else is built at run time.
fn calls_of(e: &mut Escapes<'_, '_, '_, '_>, text: &str, functions: &[&str]) {
    for f in functions {
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| t.find(f)) {
            let start = from + at;
            from = start + f.len();
            // `mysystem(` is not `system(`.
            let prev = text.get(..start).and_then(|t| t.chars().next_back());
            if prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_') {
                continue;
            }
            let args = parenthesized(text.get(start..).unwrap_or(""));
            let first = args.trim_start();
            if let Some(items) = first.strip_prefix('[') {
                let list = enclosed(items);
                let words = literals(list);
                let gaps_plain = list
                    .split(['\'', '"'])
                    .step_by(2)
                    .all(|g| g.trim().trim_matches(',').trim().is_empty());
                if !words.is_empty() && gaps_plain {
                    e.argv(&words);
                } else {
                    e.dynamic("a command");
                }
            } else if first.starts_with(['\'', '"']) {
                match literals(first).first() {
                    Some(cmd) => e.shell(cmd),
                    None => e.dynamic("a command"),
                }
            } else {
                e.dynamic("a command");
            }
        }
    }
}

/// The text after the next `|` that separates ex commands (not inside a string literal).
fn next_bar(cmd: &str) -> Option<&str> {
    let mut quote: Option<char> = None;
    for (i, ch) in cmd.char_indices() {
        match (quote, ch) {
            (Some(q), x) if x == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(ch),
            (None, '|') => return cmd.get(i + 1..),
            _ => {}
        }
    }
    None
}

/// Emacs Lisp given on the command line (`--eval`, `-eval`, `--execute`).
fn emacs(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "emacs --eval");
    for text in option_values(c, &["--eval", "-eval", "--execute", "-execute"]) {
        lisp(&mut e, text);
    }
}

/// Lisp forms that run a command: the argument that is the command line (`Shell(i)`) or the
/// program whose arguments follow it (`Program(i)`).
enum LispRun {
    Shell(usize),
    Program(usize),
}

const LISP_SPAWNS: &[(&str, LispRun)] = &[
    ("shell-command-to-string", LispRun::Shell(0)),
    ("async-shell-command", LispRun::Shell(0)),
    ("shell-command", LispRun::Shell(0)),
    ("call-process-shell-command", LispRun::Shell(0)),
    ("process-file-shell-command", LispRun::Shell(0)),
    ("start-process-shell-command", LispRun::Shell(2)),
    ("start-file-process-shell-command", LispRun::Shell(2)),
    ("call-process", LispRun::Program(0)),
    ("process-file", LispRun::Program(0)),
    ("process-lines", LispRun::Program(0)),
    ("start-process", LispRun::Program(2)),
    ("start-file-process", LispRun::Program(2)),
    ("make-process", LispRun::Program(usize::MAX)),
];

/// One argument of a Lisp form: a string literal or anything else.
fn lisp_args(form: &str) -> Vec<Option<String>> {
    let mut args = Vec::new();
    let mut chars = form.chars().peekable();
    let mut depth = 0usize;
    while let Some(ch) = chars.next() {
        match ch {
            '"' => {
                let lit = take_literal(&mut chars, '"');
                if depth == 0 {
                    args.push(Some(lit));
                }
            }
            '(' => {
                if depth == 0 {
                    args.push(None);
                }
                depth += 1;
            }
            ')' if depth == 0 => break,
            ')' => depth -= 1,
            x if x.is_whitespace() => {}
            _ => {
                // An atom (`nil`, a symbol, a number).
                while chars
                    .peek()
                    .is_some_and(|x| !x.is_whitespace() && !"()\"".contains(*x))
                {
                    chars.next();
                }
                if depth == 0 {
                    args.push(None);
                }
            }
        }
    }
    args
}

fn lisp(e: &mut Escapes<'_, '_, '_, '_>, text: &str) {
    let mut from = 0;
    while let Some(at) = text.get(from..).and_then(|t| t.find('(')) {
        let start = from + at + 1;
        from = start;
        let form = text.get(start..).unwrap_or("");
        let name_len = form
            .find(|ch: char| ch.is_whitespace() || "()\"".contains(ch))
            .unwrap_or(form.len());
        let name = form.get(..name_len).unwrap_or("");
        let Some((_, how)) = LISP_SPAWNS.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let rest = form.get(name_len..).unwrap_or("");
        match how {
            LispRun::Shell(i) => match lisp_args(rest).get(*i) {
                Some(Some(cmd)) => e.shell(cmd),
                _ => e.dynamic("a command"),
            },
            LispRun::Program(usize::MAX) => {
                // `(make-process :command '("rm" "-rf" "~") …)`
                let list = rest
                    .split_once(":command")
                    .map(|(_, r)| parenthesized(r))
                    .unwrap_or("");
                let words = literals(list);
                if words.is_empty() {
                    e.dynamic("a command");
                } else {
                    e.argv(&words);
                }
            }
            LispRun::Program(i) => {
                let args = lisp_args(rest);
                let program = args.get(*i).cloned().flatten();
                match program {
                    Some(p) => {
                        // call-process: PROGRAM INFILE DESTINATION DISPLAY ARGS…; the others
                        // take their arguments right after the program.
                        let skip = if matches!(name, "call-process" | "process-file") {
                            4
                        } else {
                            1
                        };
                        let mut argv = vec![p];
                        argv.extend(
                            args.iter().skip(i + skip).map(|a| {
                                a.clone().unwrap_or_else(|| super::inline::DYN.to_owned())
                            }),
                        );
                        e.argv(&argv);
                    }
                    None => e.dynamic("a program"),
                }
            }
        }
    }
}

// ---- pagers and man ------------------------------------------------------------------------

/// `less +'!cmd'`: a start-up command that is less's own shell escape.
fn pager(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "less +!");
    for w in c.args {
        let Some(cmd) = w.text.strip_prefix('+') else {
            continue;
        };
        let cmd = cmd.trim_start_matches('+');
        if let Some(shell) = cmd.strip_prefix('!') {
            e.shell(shell);
        }
    }
}

/// `man -P PAGER`, `--pager=PAGER`, `-H BROWSER`: the pager runs through a shell.
fn man(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "man -P");
    for pager in option_values(c, &["-P", "--pager", "-H", "--html"]) {
        e.hook(pager);
    }
}

// ---- archivers and transfer ----------------------------------------------------------------

/// tar's command hooks: `--checkpoint-action=exec=CMD`, `--to-command=CMD`,
/// `--use-compress-program=CMD` / `-I CMD`, `--rsh-command=CMD`, `--info-script=CMD` /
/// `-F CMD`, `--new-volume-script=CMD`.
fn tar(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "tar --to-command");
    let p = parse(
        c.args,
        "bCfFgHIKLNTVX",
        &[
            "checkpoint-action",
            "to-command",
            "use-compress-program",
            "rsh-command",
            "info-script",
            "new-volume-script",
            "file",
            "directory",
        ],
    );
    for (name, value) in &p.opts {
        let Some(v) = value else { continue };
        match *name {
            "checkpoint-action" => {
                if let Some(cmd) = v.strip_prefix("exec=") {
                    e.shell(cmd);
                }
            }
            "to-command" | "info-script" | "new-volume-script" | "F" => e.shell(v),
            "use-compress-program" | "rsh-command" | "I" => e.hook(v),
            _ => {}
        }
    }
}

/// `rsync -e CMD` / `--rsh=CMD` / `--rsync-path=CMD`: the remote shell runs locally.
fn rsync(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "rsync -e");
    for cmd in option_values(c, &["-e", "--rsh", "--rsync-path"]) {
        e.hook(cmd);
    }
}

/// `zip -T -TT CMD` / `--unzip-command CMD`: the test command runs through a shell.
fn zip(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "zip -TT");
    for cmd in option_values(c, &["-TT", "--unzip-command"]) {
        e.hook(cmd);
    }
}

/// `split --filter=CMD`: each piece goes to a shell command.
fn split(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "split --filter");
    for cmd in option_values(c, &["--filter"]) {
        e.hook(cmd);
    }
}

// ---- sed -----------------------------------------------------------------------------------

/// sed's `e COMMAND` and the `e` flag of `s///e` run commands.
fn sed(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "sed e");
    let p = parse(c.args, "efl", &["expression", "file", "line-length"]);
    let mut scripts: Vec<&str> = p.values("e").chain(p.values("expression")).collect();
    if scripts.is_empty() && !p.has("f") && !p.has("file") {
        scripts.extend(p.pos.first().map(|w| w.text.as_str()));
    }
    for s in scripts {
        sed_script(&mut e, s);
    }
}

fn sed_script(e: &mut Escapes<'_, '_, '_, '_>, script: &str) {
    let b = script.as_bytes();
    let mut i = 0;
    let skip_to_eol = |i: &mut usize| {
        while *i < b.len() && b.get(*i) != Some(&b'\n') {
            *i += 1;
        }
    };
    while i < b.len() {
        // Separators, then an address (`1`, `$`, `/re/`, `\%re%`, ranges, steps, `!`).
        while b
            .get(i)
            .is_some_and(|&x| x == b';' || x.is_ascii_whitespace() || x == b'}' || x == b'{')
        {
            i += 1;
        }
        loop {
            match b.get(i) {
                Some(x) if x.is_ascii_digit() || b"$,~!+ \t".contains(x) => i += 1,
                Some(b'/') => i = sed_delimited(b, i + 1, b'/'),
                Some(b'\\') => match b.get(i + 1) {
                    Some(&d) => i = sed_delimited(b, i + 2, d),
                    None => i += 1,
                },
                _ => break,
            }
        }
        let Some(&cmd) = b.get(i) else { break };
        i += 1;
        match cmd {
            b'e' => {
                let start = i;
                skip_to_eol(&mut i);
                let arg = script.get(start..i).unwrap_or("").trim();
                if arg.is_empty() {
                    e.dynamic("the edited line as a command");
                } else {
                    e.shell(arg);
                }
            }
            b's' | b'y' => {
                let Some(&d) = b.get(i) else { break };
                let pattern_end = sed_delimited(b, i + 1, d);
                let replacement_end = sed_delimited(b, pattern_end, d);
                let mut flags_end = replacement_end;
                while b.get(flags_end).is_some_and(|x| !b";\n}".contains(x)) {
                    flags_end += 1;
                }
                let flags = script.get(replacement_end..flags_end).unwrap_or("");
                // `w FILE` as the last flag takes the rest of the line.
                let flags = flags.split('w').next().unwrap_or("");
                if cmd == b's' && flags.contains('e') {
                    let replacement = script
                        .get(pattern_end..replacement_end.saturating_sub(1))
                        .unwrap_or("");
                    e.dynamic("the edited line as a command");
                    if !replacement.contains(['&', '\\']) {
                        e.shell(replacement);
                    }
                }
                i = flags_end;
            }
            b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' | b':' | b'b' | b't' | b'T' | b'#'
            | b'v' | b'q' | b'Q' | b'l' | b'L' => skip_to_eol(&mut i),
            _ => {}
        }
    }
}

/// The index just past the delimiter `d` that ends a sed regex or replacement starting at
/// `from` (backslash escapes skipped), or the end.
fn sed_delimited(b: &[u8], mut from: usize, d: u8) -> usize {
    while let Some(&x) = b.get(from) {
        from += 1;
        if x == b'\\' {
            from += 1;
        } else if x == d {
            return from;
        }
    }
    b.len()
}

// ---- debuggers and build tools -------------------------------------------------------------

/// gdb commands given on the command line (`-ex`, `-iex`, `--eval-command`).
fn gdb(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "gdb -ex");
    let commands = option_values(
        c,
        &[
            "-ex",
            "--ex",
            "-iex",
            "--iex",
            "-eval-command",
            "--eval-command",
            "-init-eval-command",
            "--init-eval-command",
        ],
    );
    for cmd in commands {
        let cmd = cmd.trim_start();
        if let Some(shell) = cmd.strip_prefix('!') {
            e.shell(shell);
            continue;
        }
        let (name, args) = cmd.split_once(char::is_whitespace).unwrap_or((cmd, ""));
        match name {
            "shell" => e.shell(args),
            "python" | "py" | "python-interactive" | "pi" => e.code(Lang::Python, args),
            "pipe" | "|" => {
                if let Some((_, shell)) = args.split_once('|') {
                    e.shell(shell);
                }
            }
            _ => calls_of(&mut e, cmd, &["system(", "execl(", "execve(", "popen("]),
        }
    }
}

/// `make --eval=TEXT`: recipes (`x:; cmd`, tab-indented lines) and `$(shell cmd)` run.
fn make(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "make --eval");
    for text in option_values(c, &["--eval"]) {
        for line in text.lines() {
            if let Some(recipe) = line.strip_prefix('\t') {
                e.shell(recipe.trim_start_matches(['@', '-', '+']));
            } else if let Some((target, recipe)) = line.split_once(';') {
                if target.contains(':') {
                    e.shell(recipe.trim_start().trim_start_matches(['@', '-', '+']));
                }
            }
        }
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| t.find("$(shell ")) {
            let start = from + at + 1;
            from = start;
            let inner = parenthesized(text.get(start..).unwrap_or(""));
            e.shell(inner.strip_prefix("shell").unwrap_or(inner));
        }
    }
}

/// `expect -c 'spawn …'`: Tcl whose `spawn`, `exec` and `system` run programs.
fn expect(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "expect -c");
    for script in option_values(c, &["-c"]) {
        for words in tcl_commands(script) {
            match words.split_first() {
                Some((cmd, rest)) if cmd == "spawn" || cmd == "exec" => {
                    let argv: Vec<String> = rest
                        .iter()
                        .skip_while(|w| w.starts_with('-') && w.len() > 1)
                        .cloned()
                        .collect();
                    e.argv(&argv);
                }
                Some((cmd, rest)) if cmd == "system" => e.shell(&rest.join(" ")),
                _ => {}
            }
        }
    }
}

/// Tcl commands as word lists: words split at blanks, `"…"` and `{…}` grouped, commands
/// separated by `;` and newlines (nested `[…]` kept as text).
fn tcl_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut chars = script.chars().peekable();
    while let Some(&ch) = chars.peek() {
        match ch {
            ';' | '\n' => {
                chars.next();
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            x if x.is_whitespace() => {
                chars.next();
            }
            '{' => {
                chars.next();
                let mut depth = 0usize;
                let mut w = String::new();
                for x in chars.by_ref() {
                    match x {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    w.push(x);
                }
                words.push(w);
            }
            '"' => {
                chars.next();
                let mut w = String::new();
                while let Some(x) = chars.next() {
                    match x {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        _ => w.push(x),
                    }
                }
                words.push(w);
            }
            _ => {
                let mut w = String::new();
                while let Some(&x) = chars.peek() {
                    if x.is_whitespace() || x == ';' {
                        break;
                    }
                    w.push(x);
                    chars.next();
                }
                words.push(w);
            }
        }
    }
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

// ---- database clients ----------------------------------------------------------------------

/// psql's `\!` shell escape, output piped to a command (`\o |cmd`, `\g |cmd`), and the
/// server's `COPY … PROGRAM '…'`.
fn psql(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "psql \\!");
    for text in option_values(c, &["-c", "--command"]) {
        for line in text.split(['\n']) {
            let mut rest = line;
            while let Some(at) = rest.find('\\') {
                let meta = rest.get(at + 1..).unwrap_or("");
                let (name, args) = meta.split_once(char::is_whitespace).unwrap_or((meta, ""));
                let next = args.find('\\').unwrap_or(args.len());
                let arg = args.get(..next).unwrap_or("");
                if name == "!" {
                    e.shell(arg);
                } else if let Some(after) = name.strip_prefix('!') {
                    e.shell(&format!("{after} {arg}"));
                } else if matches!(name, "o" | "out" | "g" | "gx" | "w" | "write") {
                    if let Some(shell) = arg.trim_start().strip_prefix('|') {
                        e.shell(shell);
                    }
                } else if name == "copy" {
                    copy_program(&mut e, arg);
                }
                rest = args.get(next..).unwrap_or("");
            }
            copy_program(&mut e, line);
        }
    }
}

/// `COPY … TO|FROM PROGRAM 'cmd'`: the server runs the command.
fn copy_program(e: &mut Escapes<'_, '_, '_, '_>, sql: &str) {
    let lower = sql.to_ascii_lowercase();
    if !lower.contains("copy") {
        return;
    }
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|t| t.find("program")) {
        let start = from + at + "program".len();
        from = start;
        let after = sql.get(start..).unwrap_or("").trim_start();
        if after.starts_with('\'') {
            if let Some(cmd) = literals(after).first() {
                e.shell(cmd);
            }
        }
    }
}

/// mysql's client commands `\! cmd` and `system cmd` in `-e`.
fn mysql(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "mysql system");
    for text in option_values(c, &["-e", "--execute"]) {
        for stmt in text.split([';', '\n']) {
            let s = stmt.trim_start();
            let shell = s.strip_prefix("\\!").or_else(|| {
                let (word, rest) = s.split_once(char::is_whitespace)?;
                word.eq_ignore_ascii_case("system").then_some(rest)
            });
            if let Some(shell) = shell {
                e.shell(shell);
            }
        }
    }
}

/// sqlite3's dot commands `.shell`, `.system`, and output or input through a pipe
/// (`.output |cmd`, `.once |cmd`, `.import '|cmd' t`), in its SQL arguments and `-cmd`.
fn sqlite(c: &Call<'_, '_>, out: &mut Out) {
    let mut e = Escapes::new(c, out, "sqlite3 .shell");
    let mut texts = option_values(c, &["-cmd", "--cmd"]);
    texts.extend(
        c.args
            .iter()
            .map(|w| w.text.as_str())
            .filter(|t| !t.starts_with('-'))
            .skip(1),
    );
    for text in texts {
        for line in text.lines() {
            let line = line.trim_start();
            let Some(dot) = line.strip_prefix('.') else {
                continue;
            };
            let (name, args) = dot.split_once(char::is_whitespace).unwrap_or((dot, ""));
            match name {
                "shell" | "system" => e.shell(args),
                "output" | "once" | "import" | "excel" => {
                    let arg = args.trim_start();
                    let arg = literals(arg)
                        .into_iter()
                        .next()
                        .filter(|_| arg.starts_with(['\'', '"']))
                        .unwrap_or_else(|| arg.to_owned());
                    if let Some(shell) = arg.strip_prefix('|') {
                        e.shell(shell);
                    }
                }
                _ => {}
            }
        }
    }
}

// ---- remote execution ----------------------------------------------------------------------

/// `ansible HOSTS [-m shell|command|raw] -a ARGS`: the arguments run on every host
/// (`command` is the default module).
fn ansible(c: &Call<'_, '_>, out: &mut Out) {
    let modules = option_values(c, &["-m", "--module-name"]);
    let runs = match modules.last() {
        None => true,
        Some(m) => matches!(
            m.strip_prefix("ansible.builtin.")
                .or_else(|| m.strip_prefix("ansible.legacy."))
                .unwrap_or(m),
            "shell" | "command" | "raw" | "win_shell" | "win_command"
        ),
    };
    let args = option_values(c, &["-a", "--args"]);
    if !runs || args.is_empty() {
        return;
    }
    out.effects().network = true;
    out.add(
        &finding::REMOTE_ACCESS,
        "`ansible` runs a command on remote hosts",
    );
    let mut e = Escapes::new(c, out, "ansible -a");
    for a in args {
        e.shell(a);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[track_caller]
    fn assert_deep_has(line: &str, spec: &crate::finding::FindingSpec) {
        let ids = deep(line);
        assert!(
            ids.contains(&spec.id),
            "`{line}` should have {}, got {ids:?}",
            spec.id
        );
    }

    #[test]
    fn editor_escapes_are_analysed() {
        for line in [
            "vim -c ':!rm -rf ~'",
            "vi -c '!rm -rf ~' -c ':q'",
            "nvim --cmd 'silent !rm -rf ~' +q",
            "ex -c 'silent! !rm -rf /' -c q",
            "vim +'!rm -rf ~'",
            "vim -c 'r !rm -rf ~'",
            "vim -c 'w !rm -rf ~'",
            "vim -c ':call system(\"rm -rf ~\")'",
            "vim -c \"call jobstart(['rm', '-rf', '/home/u'])\"",
            "vim -c 'exe \"!rm -rf ~\"'",
            "vim -c ':py3 import os; os.system(\"rm -rf ~\")'",
            "vim -c 'set nu | !rm -rf ~'",
            "emacs --batch --eval '(shell-command \"rm -rf ~\")'",
            "emacs --eval '(call-process \"rm\" nil nil nil \"-rf\" \"/home/u\")'",
            "emacs --eval '(start-process \"x\" nil \"rm\" \"-rf\" \"~\")'",
            "emacs --eval \"(make-process :name \\\"x\\\" :command '(\\\"rm\\\" \\\"-rf\\\" \\\"~\\\"))\"",
        ] {
            assert_deep_has(line, &finding::RECURSIVE_DELETE_BROAD);
        }
    }

    #[test]
    fn tool_hooks_are_analysed() {
        for line in [
            "less +'!rm -rf ~' /etc/hosts",
            "man -P 'sh -c \"rm -rf ~\"' ls",
            "man --pager='rm -rf ~' ls",
            "tar -cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec='rm -rf ~'",
            "tar xf a.tar --to-command='sh -c \"rm -rf ~\"'",
            "tar -I 'rm -rf ~' -xf a.tar",
            "rsync -e 'sh -c \"rm -rf ~\"' x:/a /b",
            "rsync --rsync-path='rm -rf ~' a host:b",
            "zip /tmp/a.zip /etc/hosts -T -TT 'rm -rf ~ #'",
            "split --filter='rm -rf ~' f",
            "sed -n '1e rm -rf ~' /etc/hosts",
            "sed -e 's/x/y/' -e '1e rm -rf ~' f",
            "gdb -nx -ex '!rm -rf ~' -ex quit",
            "gdb -ex 'shell rm -rf ~'",
            "gdb -ex 'python import os; os.system(\"rm -rf ~\")'",
            "make -f /dev/null --eval='x:; rm -rf ~' x",
            "make --eval='$(shell rm -rf ~)'",
            "expect -c 'spawn sh -c \"rm -rf ~\"'",
            "expect -c 'exec rm -rf ~'",
            "psql -c '\\! rm -rf ~'",
            "psql -c '\\o |rm -rf ~'",
            "psql -c \"COPY t TO PROGRAM 'rm -rf ~'\"",
            "mysql -e '\\! rm -rf ~'",
            "mysql -e 'system rm -rf ~'",
            "sqlite3 /dev/null '.shell rm -rf ~'",
            "sqlite3 x.db \".system rm -rf ~\"",
            "sqlite3 x.db \".output '|rm -rf ~'\"",
            "sqlite3 -cmd '.shell rm -rf ~' x.db",
            "ansible all -m shell -a 'rm -rf ~'",
            "ansible all -a 'rm -rf ~'",
            "ansible web -m ansible.builtin.command -a 'rm -rf /'",
        ] {
            assert_deep_has(line, &finding::RECURSIVE_DELETE_BROAD);
        }
    }

    #[test]
    fn escapes_built_at_run_time_are_dynamic() {
        for line in [
            "sed 's/.*/&/e' cmds.txt",
            "sed 'e' cmds.txt",
            "sed -n 's/^run: //e' f",
            "vim -c 'call system(g:cmd)'",
            "vim -c 'exe \"!\" . g:cmd'",
            "emacs --eval '(shell-command cmd)'",
        ] {
            assert_deep_has(line, &finding::DYNAMIC_CODE_EXECUTION);
        }
    }

    #[test]
    fn harmless_escapes_ask_without_being_critical() {
        for line in [
            "vim -c '!ls -la'",
            "less +'!date' notes.txt",
            "psql -c '\\! pwd'",
            "gdb -ex 'shell ls'",
        ] {
            assert_deep_has(line, &finding::INLINE_INTERPRETER);
            assert_deep_not_critical(line);
        }
    }

    #[test]
    fn ordinary_use_has_no_escape() {
        for line in [
            "vim -c 'set nu' -c wq notes.txt",
            "vim +42 main.rs",
            "vim +/pattern main.rs",
            "vim -c 'w! out.txt' in.txt",
            "vim -c ':%s/a/b/g' -c wq f",
            "vim -c 'call mysystem(1)' f",
            "emacs --eval '(message \"shell-command\")'",
            "less +G log.txt",
            "less +/error log.txt",
            "man ls",
            "man -P less ls",
            "man -P cat ls",
            "tar -I zstd -xf a.tar.zst",
            "rsync -e 'ssh -p 2222' a host:b",
            "split --filter='gzip > $FILE.gz' big.log",
            "tar -czf out.tgz dir",
            "tar -xf a.tar -C /tmp/x",
            "rsync -av --delete src/ dst/",
            "zip -r a.zip dir",
            "sed -i 's/foo/bar/g' f",
            "sed -n '/start/,/end/p' f",
            "sed 's/x/e/g' f",
            "sed -e 's#a#b#' f",
            "sed '1d;$d' f",
            "sed 'y/abc/xyz/' f",
            "gdb -ex run --args ./a.out",
            "gdb -batch -ex bt -p 1234",
            "make -j4",
            "make --eval='CFLAGS += -O2' all",
            "expect -c 'expect \"login:\"'",
            "psql -c 'select 1'",
            "psql -c '\\dt'",
            "psql -c '\\copy t to out.csv csv'",
            "mysql -e 'select 1'",
            "sqlite3 x.db '.tables'",
            "sqlite3 x.db 'select * from t'",
            "ansible all -m ping",
            "ansible all -m copy -a 'src=a dest=/tmp/a'",
            "split -l 100 f",
            "echo vim -c ':!rm -rf ~'",
            "grep -r 'shell-command' .",
        ] {
            assert!(
                !deep(line).contains(&finding::INLINE_INTERPRETER.id),
                "{line}: {:?}",
                deep(line)
            );
            assert_deep_not_critical(line);
        }
    }

    #[test]
    fn literals_and_lisp_arguments_are_read() {
        assert_eq!(literals(r#"a 'b c' "d\"e" f"#), vec!["b c", "d\"e"]);
        assert_eq!(
            lisp_args(r#" "rm" nil (x "y") "-rf")"#),
            vec![Some("rm".to_owned()), None, None, Some("-rf".to_owned())]
        );
        assert_eq!(parenthesized("system('a(b)') x"), "'a(b)'");
        assert_eq!(
            tcl_commands("spawn sh -c {rm -rf ~}; exec \"a b\" c"),
            vec![
                vec![
                    "spawn".to_owned(),
                    "sh".into(),
                    "-c".into(),
                    "rm -rf ~".into()
                ],
                vec!["exec".to_owned(), "a b".into(), "c".into()]
            ]
        );
    }

    #[test]
    fn escapes_are_bounded() {
        let line = format!("vim {}", "-c '!ls' ".repeat(40));
        let v = verdict(&line);
        assert!(v.payloads.len() <= MAX_ESCAPES, "{}", v.payloads.len());
    }
}
