//! Positional parameters (`$1`, `"$@"`, `$*`, `${1}`, `${1:-/}`) given the arguments a POSIX
//! script shows: a function's body read once for each call of it on the line, and a `sh -c`
//! payload read with the words after it.
//!
//! The lexer keeps expansions verbatim, so `rm -rf "$1"` deletes a target only known at run
//! time (broad). When the line itself passes the arguments, the body is judged with them:
//! `f() { rm -rf "$1"; }; f ./dist` deletes `./dist` (scoped), `f /` the root, and a function
//! called several times is read once per call (the findings are united: the worst call
//! decides).
//!
//! # Functions ([`resolve`])
//! The body of a definition (`f() { …; }`, `function f { …; }`) that expands positional
//! parameters is replaced, before the walk, by one copy per distinct call of the name, each
//! with that call's argument words written into the words that expand them. The copies stay
//! on the defining command (where the walk reads the body, [`SimpleCommand::defines`]). The
//! original body (parameters only known at run time) is kept as well whenever the name is
//! mentioned anywhere else in the text than as a call's command word — in a `trap` or `sh -c`
//! text, after `command`, `export -f`, a second definition —, when there are more distinct calls
//! than [`MAX_CALLS`], or when the copy budget runs out. A function defined and never called
//! or mentioned is read as called without arguments (`"$1"` is empty: nothing runs with a
//! value the line does not show).
//!
//! Left as written (only known at run time, the conservative reading): a body that may change
//! its parameters (`shift`, `set` with operands, `getopts`); words inside `$(…)` (a payload
//! read from a substitution must equal its own lexing) and in the bodies of functions the
//! body defines; a word holding anything but literal text, quotes and simple expansions;
//! `${N:…}` forms other than `${N}`, `${N:-word}`, `${N-word}` with a literal word, and those
//! with an argument only known at run time; an unquoted expansion of a value with blanks or
//! glob characters inside a longer word. Definitions inside `$(…)` are not resolved. Callers
//! are resolved before the functions they call when defined after them (`a() …; b() { a
//! "$1"; }; b x`): the copies of `b` then hold the calls `a` is read with.
//!
//! # Shell payloads ([`payload`])
//! `bash -c 'rm -rf "$1"' _ /`: the text gets `$0` and the positional parameters from the
//! words after it, written in with the quoting of where they stand (escaped in double quotes,
//! single-quoted where a bare value would be read as syntax). Not for payloads whose arguments
//! come at run time (`xargs`, `find -exec`), nor for texts that define functions or may change
//! their parameters.
//!
//! # PowerShell functions ([`resolve_pwsh`])
//! `function f($p) { … }`, `function f { param($p) … }`, `filter f { … }` at the top of a
//! line: each call binds its words as PowerShell binds a simple function's (`-Name value`,
//! `-Name:value` by unique prefix, then positions in order, the rest to `$args`), and a copy
//! of the body gets the bound words where a word is exactly `$p`, `${p}`, `$args[N]` or
//! `$args`. Not for bodies that assign a parameter or `$args`, set variables by name
//! (`Set-Variable`, `[ref]`, `foreach`, `-OutVariable`, …) or run text (`iex`, dot-sourcing),
//! nor for splatted calls; a filter's `$_` stays only known at run time.
//!
//! Cost: one byte search for a positional expansion (POSIX) or for `{`, `$` and the keyword
//! (PowerShell) before anything else; nothing is allocated for a line without them.

use super::model::{NestedKind, Script, SimpleCommand, Span, Word};

/// Distinct calls read per function at most.
const MAX_CALLS: usize = 8;

/// Simple commands copied into function bodies per line at most.
const MAX_COPIED: usize = 512;

/// `text` holds an expansion of a positional parameter (`$1`…`$9`, `$@`, `$*`, `${1…`,
/// `${@`, `${*`).
pub fn uses_positional(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'$', b).any(|at| {
        let next = b.get(at + 1).copied();
        let after = if next == Some(b'{') {
            b.get(at + 2).copied()
        } else {
            next
        };
        matches!(after, Some(b'1'..=b'9' | b'@' | b'*'))
    })
}

/// Writes the arguments of each call of a function defined in `script` (the POSIX reading of
/// `text`) into copies of its body (see the module doc).
pub fn resolve(text: &str, script: &mut Script) {
    if !uses_positional(text) {
        return;
    }
    let mut defs: Vec<(String, Span)> = Vec::new();
    definitions(script, &mut defs);
    if defs.is_empty() {
        return;
    }
    // Later definitions first: a caller defined after its callee is resolved before it.
    defs.sort_by_key(|d| std::cmp::Reverse(d.1.start));
    let mut budget = MAX_COPIED;
    for (name, span) in defs {
        let Some(def_text) = text.get(span.start..span.end) else {
            continue;
        };
        if !uses_positional(def_text) {
            continue;
        }
        let mut calls: Vec<(usize, Vec<Word>)> = Vec::new();
        calls_of(script, &name, &mut calls);
        // The definition's own name, then every call's command word, explain a mention.
        let name_at = name_at(text, span, &name);
        let unexplained = mentions(text, &name)
            .any(|at| Some(at) != name_at && !calls.iter().any(|(p, _)| *p == at));
        let mut lists: Vec<Vec<Word>> = Vec::new();
        for (_, args) in calls {
            if !lists.iter().any(|l| same_words(l, &args)) {
                lists.push(args);
            }
        }
        let keep_original = unexplained || lists.len() > MAX_CALLS;
        if lists.is_empty() && !unexplained {
            lists.push(Vec::new());
        }
        lists.truncate(MAX_CALLS);
        let Some(def) = definition_mut(script, span) else {
            continue;
        };
        let Some(body_at) = def.nested.iter().position(|n| {
            n.in_word.is_none() && matches!(n.kind, NestedKind::Group | NestedKind::Subshell)
        }) else {
            continue;
        };
        let Some(body) = def.nested.get(body_at) else {
            continue;
        };
        if changes_positionals(&body.script) {
            continue;
        }
        let size = commands(&body.script);
        let mut copies = Vec::new();
        for args in &lists {
            if budget < size {
                break;
            }
            budget -= size;
            let mut copy = body.clone();
            let refs: Vec<&Word> = args.iter().collect();
            for sc in &mut copy.script.commands {
                rewrite_command(text, sc, &refs);
            }
            copies.push(copy);
        }
        let keep_original = keep_original || copies.len() < lists.len();
        let mut copies = copies.into_iter();
        if !keep_original {
            match (def.nested.get_mut(body_at), copies.next()) {
                (Some(slot), Some(first)) => *slot = first,
                _ => continue,
            }
        }
        def.nested.splice(body_at + 1..body_at + 1, copies);
    }
}

/// Where the name of the definition at `span` stands (`f() {`, `f () {`, `function f {`,
/// `function f() {`: before the body, where the command's span may start).
fn name_at(text: &str, span: Span, name: &str) -> Option<usize> {
    let before = text.get(..span.start)?.trim_end();
    let before = match before.strip_suffix(')') {
        Some(b) => b.trim_end().strip_suffix('(')?.trim_end(),
        None => before,
    };
    if before.ends_with(name) {
        return Some(before.len() - name.len());
    }
    let def = text.get(span.start..span.end)?;
    let body = def.find(['{', '(']).unwrap_or(def.len());
    def.get(..body)?.find(name).map(|o| span.start + o)
}

/// The function definitions of `script` and of the scripts nested in it (not in `$(…)`):
/// (name, span of the defining command).
fn definitions(script: &Script, out: &mut Vec<(String, Span)>) {
    for sc in &script.commands {
        if out.len() >= 64 {
            return;
        }
        if let Some(name) = &sc.defines {
            out.push((name.clone(), sc.span));
        }
        for n in &sc.nested {
            if n.kind != NestedKind::CommandSubstitution {
                definitions(&n.script, out);
            }
        }
    }
}

/// The defining command at `span` (found as [`definitions`] found it).
fn definition_mut(script: &mut Script, span: Span) -> Option<&mut SimpleCommand> {
    for sc in &mut script.commands {
        if sc.span == span && sc.defines.is_some() {
            return Some(sc);
        }
        if sc.span.start <= span.start && span.end <= sc.span.end {
            for n in &mut sc.nested {
                if n.kind != NestedKind::CommandSubstitution {
                    if let Some(d) = definition_mut(&mut n.script, span) {
                        return Some(d);
                    }
                }
            }
        }
    }
    None
}

/// The calls of `name` in `script`, at any depth: (where the command word starts, the
/// arguments). Functions are looked up after quote removal, so `'f' x` calls `f` too.
fn calls_of(script: &Script, name: &str, out: &mut Vec<(usize, Vec<Word>)>) {
    for sc in &script.commands {
        if out.len() >= 64 {
            return;
        }
        if let Some((first, args)) = sc.argv.split_first() {
            if !first.dynamic && first.text == name && sc.defines.is_none() {
                out.push((first.span.start, args.to_vec()));
            }
        }
        for n in &sc.nested {
            calls_of(&n.script, name, out);
        }
    }
}

/// Where `name` occurs in `text` as a word of its own (not inside a longer name, option or
/// path).
fn mentions<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let b = text.as_bytes();
    let part = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/' | b':');
    text.match_indices(name).filter_map(move |(at, _)| {
        let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
        let after = b.get(at + name.len()).copied();
        (!before.is_some_and(|c| part(c) || c == b'$') && !after.is_some_and(part)).then_some(at)
    })
}

fn same_words(a: &[Word], b: &[Word]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.text == y.text && x.dynamic == y.dynamic && x.glob == y.glob && x.quoted == y.quoted
        })
}

/// Simple commands in `script`, nested ones included.
fn commands(script: &Script) -> usize {
    script
        .commands
        .iter()
        .map(|sc| 1 + sc.nested.iter().map(|n| commands(&n.script)).sum::<usize>())
        .sum()
}

/// The script may change its positional parameters: `shift`, `set` with an operand or `--`,
/// `getopts` (at any depth).
fn changes_positionals(script: &Script) -> bool {
    script.commands.iter().any(|sc| {
        let mut words = sc.argv.iter().map(|w| w.text.as_str());
        let changes = match words.next() {
            Some("shift" | "getopts") => true,
            Some("set") => words.any(|t| t == "--" || !t.starts_with(['-', '+'])),
            // (A command name only known at run time may be either; a parameter is known.)
            Some(_) => sc.argv.first().is_some_and(|w| {
                w.dynamic && !(w.text.starts_with('$') && uses_positional(&w.text))
            }),
            None => false,
        };
        changes || sc.nested.iter().any(|n| changes_positionals(&n.script))
    })
}

/// Writes `args` into the words of `sc` that expand positional parameters, and into the
/// scripts nested in it (not `$(…)`, not the bodies of functions it defines).
fn rewrite_command(text: &str, sc: &mut SimpleCommand, args: &[&Word]) {
    if sc.defines.is_some() {
        return;
    }
    if sc.span.end <= text.len()
        && uses_positional(text.get(sc.span.start..sc.span.end).unwrap_or(""))
    {
        let mut i = 0;
        while i < sc.argv.len() {
            let Some(w) = sc.argv.get(i) else { break };
            let Some(new) = expand_word(text, w, args) else {
                i += 1;
                continue;
            };
            let n = new.len();
            sc.argv.splice(i..=i, new);
            // Scripts nested in later words move with them.
            for nest in &mut sc.nested {
                if let Some(at) = nest.in_word.as_mut().filter(|at| **at > i) {
                    *at = *at + n - 1;
                }
            }
            i += n;
        }
        for r in &mut sc.redirects {
            if let Some(mut new) = expand_word(text, &r.target, args) {
                if new.len() == 1 {
                    if let Some(w) = new.pop() {
                        r.target = w;
                    }
                }
            }
        }
        for (_, v) in &mut sc.assignments {
            if let Some(mut new) = expand_word(text, v, args) {
                if new.len() == 1 {
                    if let Some(w) = new.pop() {
                        *v = w;
                    }
                }
            }
        }
    }
    for n in &mut sc.nested {
        if n.kind != NestedKind::CommandSubstitution {
            for c in &mut n.script.commands {
                rewrite_command(text, c, args);
            }
        }
    }
}

/// Glob characters a bare expansion's value is matched with.
fn has_glob(t: &str) -> bool {
    t.contains(['*', '?', '['])
}

/// Bytes a bare value may hold and still be read as one word of plain text (blanks split it,
/// glob characters match).
fn bare_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'.' | b'/' | b'@' | b'%' | b'+' | b',' | b':' | b'=' | b'-' | b'~'
        )
}

/// The words an unquoted expansion of `arg` gives (split at blanks; globs stay globs).
fn split_value(arg: &Word, template: &Word) -> Vec<Word> {
    if arg.dynamic {
        let mut w = arg.clone();
        w.span = template.span;
        w.one_word = false;
        return vec![w];
    }
    arg.text
        .split_ascii_whitespace()
        .map(|part| Word {
            text: part.to_owned(),
            span: template.span,
            quoted: false,
            fully_quoted: false,
            dynamic: false,
            glob: has_glob(part),
            one_word: false,
        })
        .collect()
}

/// A `${N:-word}` (`true`: also for an empty value) or `${N-word}` default.
type Fallback<'a> = Option<(&'a str, bool)>;

/// What a positional expansion at the start of `s` (just after its `$`) reads: the parameter
/// (0 for `@`/`*`), an optional default (`:-`: also for an empty value), and the length after
/// the `$`. `None` for other expansions or forms not modelled.
fn positional(s: &str) -> Option<(usize, Fallback<'_>, usize, bool)> {
    let b = s.as_bytes();
    match b.first()? {
        b'1'..=b'9' => Some((usize::from(b.first()? - b'0'), None, 1, false)),
        b'@' | b'*' => Some((0, None, 1, true)),
        b'{' => {
            let close = s.find('}')?;
            let inner = s.get(1..close)?;
            let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
            let (n, all) = if digits > 0 {
                (inner.get(..digits)?.parse::<usize>().ok()?, false)
            } else if inner.starts_with(['@', '*']) {
                (0, true)
            } else {
                return None;
            };
            if n == 0 && !all {
                return None;
            }
            let rest = inner.get(digits.max(usize::from(all))..)?;
            let default = if rest.is_empty() {
                None
            } else if let Some(d) = rest.strip_prefix(":-") {
                Some((d, true))
            } else if let Some(d) = rest.strip_prefix('-') {
                Some((d, false))
            } else {
                return None;
            };
            if all && default.is_some() {
                return None;
            }
            if default.is_some_and(|(d, _)| !d.bytes().all(bare_byte) || d.contains('~')) {
                return None;
            }
            Some((n, default, close + 1, all))
        }
        _ => None,
    }
}

/// The value of parameter `n` (1-based) for `args`, with a default: `None` when it is only
/// known at run time and a default may apply.
fn value<'a>(args: &[&'a Word], n: usize, default: Fallback<'a>) -> Option<Val<'a>> {
    let arg = n.checked_sub(1).and_then(|i| args.get(i)).copied();
    match (arg, default) {
        (Some(a), None) => Some(Val::Word(a)),
        (Some(a), Some(_)) if a.dynamic => None,
        (Some(a), Some((d, colon))) => Some(if colon && a.text.is_empty() {
            Val::Text(d)
        } else {
            Val::Word(a)
        }),
        (None, Some((d, _))) => Some(Val::Text(d)),
        (None, None) => Some(Val::Text("")),
    }
}

#[derive(Clone, Copy)]
enum Val<'a> {
    Word(&'a Word),
    Text(&'a str),
}

/// The words `w` (a body word) stands for with `args` written in, or `None` when it expands
/// no positional parameter or holds more than can be read here (then it stays as it is).
fn expand_word(text: &str, w: &Word, args: &[&Word]) -> Option<Vec<Word>> {
    if !w.dynamic {
        return None;
    }
    let raw = text.get(w.span.start..w.span.end)?;
    if !uses_positional(raw) {
        return None;
    }
    // The whole word is one expansion: `"$@"`, `$1`, `"${1:-.}"`.
    let (bare, quoted) = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) => (inner, true),
        None => (raw, false),
    };
    if let Some((n, default, len, all)) = bare.strip_prefix('$').and_then(positional) {
        if len + 1 == bare.len() {
            if all {
                return Some(
                    args.iter()
                        .flat_map(|a| {
                            if quoted {
                                let mut c = (*a).clone();
                                c.span = w.span;
                                c.one_word = false;
                                vec![c]
                            } else {
                                split_value(a, w)
                            }
                        })
                        .collect(),
                );
            }
            let v = value(args, n, default)?;
            return Some(match (v, quoted) {
                (Val::Word(a), true) => {
                    let mut c = a.clone();
                    c.span = w.span;
                    c.quoted = true;
                    c.fully_quoted = !a.dynamic;
                    c.glob = a.glob;
                    c.one_word = false;
                    vec![c]
                }
                (Val::Word(a), false) => split_value(a, w),
                (Val::Text(t), _) => {
                    // (A parameter no call gave is no word: `rm -rf "$1"` of a call without
                    // arguments removes nothing.)
                    if t.is_empty() && (!quoted || args.len() < n) {
                        Vec::new()
                    } else {
                        vec![Word {
                            text: t.to_owned(),
                            span: w.span,
                            quoted,
                            fully_quoted: quoted,
                            dynamic: false,
                            glob: !quoted && has_glob(t),
                            one_word: false,
                        }]
                    }
                }
            });
        }
    }
    // A longer word: literal text, quotes and simple expansions.
    let mut out = Word {
        text: String::with_capacity(raw.len()),
        span: w.span,
        quoted: false,
        fully_quoted: false,
        dynamic: false,
        glob: false,
        one_word: false,
    };
    let mut dq = false;
    let mut at = 0;
    while let Some(c) = raw.get(at..).and_then(|r| r.chars().next()) {
        match c {
            '"' => {
                dq = !dq;
                out.quoted = true;
                at += 1;
            }
            '\'' if !dq => {
                let close = raw.get(at + 1..)?.find('\'')?;
                out.text.push_str(raw.get(at + 1..at + 1 + close)?);
                out.quoted = true;
                at += close + 2;
            }
            '\\' => {
                let n = raw.get(at + 1..)?.chars().next()?;
                if dq && !matches!(n, '$' | '`' | '"' | '\\') {
                    out.text.push('\\');
                }
                out.text.push(n);
                out.quoted = true;
                at += 1 + n.len_utf8();
            }
            '`' => return None,
            '$' => {
                let rest = raw.get(at + 1..)?;
                if let Some((n, default, len, all)) = positional(rest) {
                    if all {
                        return None;
                    }
                    match value(args, n, default)? {
                        Val::Word(a) => {
                            if !dq && !a.dynamic && !a.text.bytes().all(bare_byte) {
                                return None;
                            }
                            out.text.push_str(&a.text);
                            out.dynamic |= a.dynamic;
                            out.glob |= !dq && (a.glob || has_glob(&a.text));
                        }
                        Val::Text(t) => out.text.push_str(t),
                    }
                    at += 1 + len;
                    continue;
                }
                // Another expansion stays as written: `$HOME`, `${dir}`, `$#`, `$0`.
                let len = match rest.as_bytes().first() {
                    Some(b'{') => {
                        let close = rest.find('}')?;
                        let inner = rest.get(1..close)?;
                        if !inner
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                        {
                            return None;
                        }
                        close + 1
                    }
                    Some(b'#' | b'?' | b'$' | b'!' | b'-' | b'0') => 1,
                    Some(b) if b.is_ascii_alphabetic() || *b == b'_' => rest
                        .bytes()
                        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                        .count(),
                    _ => return None,
                };
                out.text.push('$');
                out.text.push_str(rest.get(..len)?);
                out.dynamic = true;
                at += 1 + len;
            }
            _ => {
                if !dq {
                    if matches!(c, '{' | '(' | ')' | '<' | '>' | '|' | '&' | ';') {
                        return None;
                    }
                    out.glob |= matches!(c, '*' | '?' | '[');
                }
                out.text.push(c);
                at += c.len_utf8();
            }
        }
    }
    if dq {
        return None;
    }
    out.fully_quoted = false;
    Some(vec![out])
}

/// `text`, a shell payload (`sh -c TEXT ARG0 ARG1 …`), with `$0` and the positional
/// parameters read from `args` (`args[0]` is `$0`) written in; `None` when it expands none or
/// may not be read so (see the module doc).
pub fn payload(text: &str, args: &[&Word]) -> Option<String> {
    if !uses_positional(text) && !text.contains("$0") {
        return None;
    }
    // Functions have their own parameters; `shift`/`set` change them.
    if empty_parens(text)
        || has_word(text, "function")
        || has_word(text, "shift")
        || has_word(text, "set")
        || has_word(text, "getopts")
    {
        return None;
    }
    let params: Vec<&Word> = args.iter().skip(1).copied().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut dq = false;
    let mut at = 0;
    let mut changed = false;
    while let Some(c) = text.get(at..).and_then(|r| r.chars().next()) {
        match c {
            '\'' if !dq => {
                let close = text.get(at + 1..).and_then(|r| r.find('\''))?;
                out.push_str(text.get(at..at + close + 2)?);
                at += close + 2;
                continue;
            }
            '\\' => {
                out.push('\\');
                at += 1;
                if let Some(n) = text.get(at..).and_then(|r| r.chars().next()) {
                    out.push(n);
                    at += n.len_utf8();
                }
                continue;
            }
            '"' => dq = !dq,
            '$' => {
                let rest = text.get(at + 1..).unwrap_or("");
                let zero = rest.starts_with('0');
                let found = if zero {
                    Some((0, None, 1, false))
                } else {
                    positional(rest)
                };
                if let Some((n, default, len, all)) = found {
                    let vals: Vec<Val<'_>> = if all {
                        params.iter().map(|a| Val::Word(a)).collect()
                    } else if zero {
                        match args.first() {
                            Some(a) => vec![Val::Word(a)],
                            None => vec![Val::Text("sh")],
                        }
                    } else {
                        match value(&params, n, default) {
                            Some(Val::Text("")) if n > params.len() && dq => {
                                // `"$1"` of a parameter not given is no word at all.
                                let close = text.get(at + 1 + len..).unwrap_or("");
                                if out.ends_with('"')
                                    && !out.ends_with("\\\"")
                                    && close.starts_with('"')
                                {
                                    out.pop();
                                    dq = false;
                                    at += len + 2;
                                    changed = true;
                                    continue;
                                }
                                vec![Val::Text("")]
                            }
                            Some(v) => vec![v],
                            None => {
                                out.push('$');
                                at += 1;
                                continue;
                            }
                        }
                    };
                    for (i, v) in vals.iter().enumerate() {
                        if i > 0 {
                            out.push_str(if dq { "\" \"" } else { " " });
                        }
                        match v {
                            Val::Text(t) => out.push_str(t),
                            Val::Word(a) if a.dynamic => out.push_str(&a.text),
                            Val::Word(a) if dq && a.glob => {
                                // Names the outer shell matched: a glob again.
                                out.push('"');
                                out.push_str(&a.text);
                                out.push('"');
                            }
                            Val::Word(a) if dq => {
                                for ch in a.text.chars() {
                                    if matches!(ch, '"' | '$' | '`' | '\\') {
                                        out.push('\\');
                                    }
                                    out.push(ch);
                                }
                            }
                            Val::Word(a) => {
                                let t = a.text.as_str();
                                if t.bytes().all(|b| bare_byte(b) || b" \t*?[]".contains(&b)) {
                                    out.push_str(t);
                                } else {
                                    out.push('\'');
                                    out.push_str(&t.replace('\'', "'\\''"));
                                    out.push('\'');
                                }
                            }
                        }
                    }
                    changed = true;
                    at += 1 + len;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        at += c.len_utf8();
    }
    changed.then_some(out)
}

/// `word` appears in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let b = text.as_bytes();
    let ident = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    text.match_indices(word).any(|(at, _)| {
        !at.checked_sub(1).and_then(|i| b.get(i)).is_some_and(ident)
            && !b.get(at + word.len()).is_some_and(ident)
    })
}

/// `()` (blanks allowed inside): a function definition.
fn empty_parens(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'(', b).any(|at| {
        b.get(at + 1..)
            .and_then(|r| r.iter().find(|c| !matches!(c, b' ' | b'\t')))
            == Some(&b')')
    })
}

/// `text` holds `needle` (lowercase ASCII) in any case.
fn contains_ci(text: &str, needle: &str) -> bool {
    let n = needle.len();
    text.as_bytes()
        .windows(n)
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// PowerShell: the arguments of each call of a function or filter defined on the line
/// (`function f($p) { … }`, `function f { param($p) … }`, `$args[0]`) written into copies of
/// its body, as [`resolve`] does for POSIX functions (see the module doc).
pub fn resolve_pwsh(text: &str, script: &mut Script) {
    if !text.contains('$')
        || !text.contains('{')
        || !(contains_ci(text, "function") || contains_ci(text, "filter"))
    {
        return;
    }
    let mut defs: Vec<(String, Span)> = Vec::new();
    for sc in &script.commands {
        if let [kw, name, .., body] = sc.argv.as_slice() {
            let keyword = !kw.quoted
                && (kw.text.eq_ignore_ascii_case("function")
                    || kw.text.eq_ignore_ascii_case("filter"));
            if keyword && !name.quoted && body.text.starts_with('{') && defs.len() < 16 {
                let bare = name.text.split('(').next().unwrap_or("");
                if !bare.is_empty() && !bare.contains('$') {
                    defs.push((bare.to_ascii_lowercase(), sc.span));
                }
            }
        }
    }
    let lower = text.to_ascii_lowercase();
    let mut budget = MAX_COPIED;
    for (name, span) in defs.into_iter().rev() {
        let mut calls: Vec<(usize, Vec<Word>)> = Vec::new();
        ps_calls_of(script, &name, &mut calls);
        if calls.is_empty() {
            continue;
        }
        let Some(def) = script.commands.iter_mut().find(|c| c.span == span) else {
            continue;
        };
        let (Some(name_word), Some(block)) = (def.argv.get(1), def.argv.last()) else {
            continue;
        };
        let block_at = def.argv.len() - 1;
        let unexplained = ps_mentions(&lower, &name)
            .any(|at| at != name_word.span.start && !calls.iter().any(|(p, _)| *p == at));
        let Some(body_at) = def
            .nested
            .iter()
            .position(|n| n.kind == NestedKind::Group && n.in_word == Some(block_at))
        else {
            continue;
        };
        let Some(body) = def.nested.get(body_at) else {
            continue;
        };
        // Parameters: `f($p, $q)` or a leading `param(…)`.
        let declared = match name_word.text.split_once('(') {
            Some((_, list)) => params_of(list.strip_suffix(')')),
            None => match body.script.commands.first().and_then(|c| c.argv.first()) {
                Some(w)
                    if w.text
                        .get(..6)
                        .is_some_and(|p| p.eq_ignore_ascii_case("param(")) =>
                {
                    params_of(w.text.get(6..).and_then(|l| l.strip_suffix(')')))
                }
                _ => Some(Vec::new()),
            },
        };
        let Some(declared) = declared else { continue };
        let block_text = text.get(block.span.start..block.span.end).unwrap_or("");
        if ps_may_reassign(block_text, &declared) {
            continue;
        }
        let size = commands(&body.script);
        let mut lists: Vec<Vec<Word>> = Vec::new();
        for (_, args) in &calls {
            if !lists.iter().any(|l| same_words(l, args)) {
                lists.push(args.clone());
            }
        }
        let mut copies = Vec::new();
        let mut bound_all = lists.len() <= MAX_CALLS;
        for args in lists.iter().take(MAX_CALLS) {
            let Some(binding) = bind_ps(&declared, args) else {
                bound_all = false;
                continue;
            };
            if budget < size {
                bound_all = false;
                break;
            }
            budget -= size;
            let mut copy = body.clone();
            for sc in &mut copy.script.commands {
                rewrite_ps(sc, &binding);
            }
            copies.push(copy);
        }
        if copies.is_empty() {
            continue;
        }
        let mut copies = copies.into_iter();
        if bound_all && !unexplained {
            match (def.nested.get_mut(body_at), copies.next()) {
                (Some(slot), Some(first)) => *slot = first,
                _ => continue,
            }
        }
        def.nested.splice(body_at + 1..body_at + 1, copies);
    }
}

/// Where `name` (lowercase) occurs in `lower` as a PowerShell name of its own: also after a
/// drive or scope prefix (`${function:f}`, `$function:f`, `function:f`), which reaches the
/// function without calling it by name.
fn ps_mentions<'a>(lower: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let b = lower.as_bytes();
    let part = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'\\' | b'/');
    lower.match_indices(name).filter_map(move |(at, _)| {
        let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
        let after = b.get(at + name.len()).copied();
        (!before.is_some_and(|c| part(c) || c == b'$') && !after.is_some_and(part)).then_some(at)
    })
}

/// A PowerShell parameter declaration: its name (lowercase) and whether it is a switch.
struct Param {
    name: String,
    switch: bool,
}

/// The parameters a `param(…)` or `f(…)` list declares (`[string]$Path`, `$p`), or `None`
/// for anything else (defaults, attributes with arguments, splits not understood).
fn params_of(list: Option<&str>) -> Option<Vec<Param>> {
    let list = list?;
    if list.trim().is_empty() {
        return Some(Vec::new());
    }
    list.split(',')
        .map(|p| {
            let mut p = p.trim();
            let mut switch = false;
            while let Some(rest) = p.strip_prefix('[') {
                let close = rest.find(']')?;
                let ty = rest.get(..close)?;
                if ty.contains(['(', '=']) {
                    return None;
                }
                switch |= ty.eq_ignore_ascii_case("switch");
                p = rest.get(close + 1..)?.trim_start();
            }
            let name = p.strip_prefix('$')?;
            (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| {
                Param {
                    name: name.to_ascii_lowercase(),
                    switch,
                }
            })
        })
        .collect()
}

/// The body may give a parameter (or `$args`) another value than the call's: an assignment
/// to it, or a command or keyword that sets variables by name or runs text.
fn ps_may_reassign(body: &str, params: &[Param]) -> bool {
    let lower = body.to_ascii_lowercase();
    const SETTERS: [&str; 12] = [
        "variable",
        "[ref]",
        "foreach",
        "-ov",
        "-outv",
        "-ev",
        "-errorv",
        "-pv",
        "-pipelinev",
        "iex",
        "invoke-expression",
        "psboundparameters",
    ];
    if SETTERS.iter().any(|s| lower.contains(s)) || lower.contains(". ") || lower.contains(".$") {
        return true;
    }
    let b = lower.as_bytes();
    let names = params.iter().map(|p| p.name.as_str()).chain(["args"]);
    for name in names {
        // `$p`, `${p}`, `$local:p`, `${local:p}`.
        for (at, _) in lower.match_indices(name) {
            let end = at + name.len();
            let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
            if !matches!(before, Some(b'$' | b':' | b'{'))
                || b.get(end)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                continue;
            }
            let rest = lower.get(end..).unwrap_or("");
            let rest = rest.strip_prefix('}').unwrap_or(rest).trim_start();
            let rest = rest.strip_prefix(|c: char| c == '[').map_or(rest, |r| {
                r.find(']')
                    .and_then(|i| r.get(i + 1..))
                    .unwrap_or("")
                    .trim_start()
            });
            if rest.starts_with('=') && !rest.starts_with("==")
                || ["+=", "-=", "*=", "/=", "%=", "++", "--", "??="]
                    .iter()
                    .any(|op| rest.starts_with(op))
            {
                return true;
            }
        }
    }
    false
}

/// The calls of PowerShell function `name` (lowercase) in `script`, at any depth.
fn ps_calls_of(script: &Script, name: &str, out: &mut Vec<(usize, Vec<Word>)>) {
    for sc in &script.commands {
        if out.len() >= 64 {
            return;
        }
        if let Some((first, args)) = sc.argv.split_first() {
            if !first.dynamic && first.text.eq_ignore_ascii_case(name) {
                out.push((first.span.start, args.to_vec()));
            }
        }
        for n in &sc.nested {
            ps_calls_of(&n.script, name, out);
        }
    }
}

/// What a call binds: each parameter's word, and what is left for `$args`.
struct Binding {
    named: Vec<(String, Word)>,
    rest: Vec<Word>,
}

/// Binds a call's words to the declared parameters as PowerShell does for a simple function
/// (named `-Name value` / `-Name:value` by unique prefix, then positions in order, the rest
/// to `$args`); `None` for splats and parameter names only known at run time.
fn bind_ps(params: &[Param], args: &[Word]) -> Option<Binding> {
    let mut b = Binding {
        named: Vec::new(),
        rest: Vec::new(),
    };
    let mut positional: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        if w.text.starts_with('@') && !w.quoted {
            return None;
        }
        let opt = (!w.quoted && w.text.len() > 1)
            .then(|| w.text.strip_prefix(['-', '\u{2013}', '\u{2014}']))
            .flatten();
        if let Some(opt) = opt {
            if w.dynamic {
                return None;
            }
            let (o, inline) = match opt.split_once(':') {
                Some((o, v)) => (o.to_ascii_lowercase(), Some(v)),
                None => (opt.to_ascii_lowercase(), None),
            };
            let matching: Vec<&Param> = params.iter().filter(|p| p.name.starts_with(&o)).collect();
            match matching.as_slice() {
                [p] if p.switch => continue,
                [p] => {
                    let value = match inline {
                        Some(v) => Word {
                            text: v.to_owned(),
                            ..w.clone()
                        },
                        None => {
                            let v = args.get(i)?.clone();
                            i += 1;
                            v
                        }
                    };
                    b.named.push((p.name.clone(), value));
                    continue;
                }
                [] => {}
                _ => return None,
            }
        }
        positional.push(w);
    }
    let mut positional = positional.into_iter();
    for p in params {
        if b.named.iter().any(|(n, _)| *n == p.name) || p.switch {
            continue;
        }
        match positional.next() {
            Some(w) => b.named.push((p.name.clone(), w.clone())),
            None => break,
        }
    }
    b.rest.extend(positional.cloned());
    Some(b)
}

/// Writes a [`Binding`] into the words of a PowerShell body command that are exactly a bound
/// parameter (`$p`, `${p}`, `"$p"`), `$args[N]` or `$args`; other words stay as they are.
fn rewrite_ps(sc: &mut SimpleCommand, b: &Binding) {
    let mut i = 0;
    while i < sc.argv.len() {
        let Some(w) = sc.argv.get(i) else { break };
        let new = if w.dynamic { ps_word(w, b) } else { None };
        let Some(new) = new else {
            i += 1;
            continue;
        };
        let n = new.len();
        // (A word that is one variable holds no nested script.)
        if sc.nested.iter().any(|x| x.in_word == Some(i)) {
            i += 1;
            continue;
        }
        sc.argv.splice(i..=i, new);
        for nest in &mut sc.nested {
            if let Some(at) = nest.in_word.as_mut().filter(|at| **at > i) {
                *at = *at + n - 1;
            }
        }
        i += n;
    }
    for n in &mut sc.nested {
        if n.kind != NestedKind::CommandSubstitution {
            for c in &mut n.script.commands {
                if c.argv.first().is_some_and(|w| {
                    w.text.eq_ignore_ascii_case("function") || w.text.eq_ignore_ascii_case("filter")
                }) {
                    continue;
                }
                rewrite_ps(c, b);
            }
        }
    }
}

/// The words a PowerShell body word stands for under `b`.
fn ps_word(w: &Word, b: &Binding) -> Option<Vec<Word>> {
    let var = w.text.strip_prefix('$')?;
    let var = var
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(var)
        .to_ascii_lowercase();
    let place = |v: &Word| {
        let mut c = v.clone();
        c.span = w.span;
        c.quoted |= w.quoted;
        c
    };
    if var == "args" {
        return Some(b.rest.iter().map(place).collect());
    }
    if let Some(idx) = var.strip_prefix("args[").and_then(|r| r.strip_suffix(']')) {
        let n: usize = idx.trim().parse().ok()?;
        return b.rest.get(n).map(|v| vec![place(v)]);
    }
    if !var.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    b.named
        .iter()
        .find(|(n, _)| *n == var)
        .map(|(_, v)| vec![place(v)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shell::model::LexLimits;
    use crate::analysis::shell::{posix, pwsh};

    /// The argv texts of every command once resolved (nested scripts after their command).
    fn resolved(text: &str, ps: bool) -> Vec<String> {
        let mut s = if ps {
            pwsh::lex(text, &LexLimits::default())
        } else {
            posix::lex(text, &LexLimits::default())
        };
        if ps {
            resolve_pwsh(text, &mut s);
        } else {
            resolve(text, &mut s);
        }
        fn walk(s: &Script, out: &mut Vec<String>) {
            for c in &s.commands {
                let words: Vec<&str> = c.argv.iter().map(|w| w.text.as_str()).collect();
                out.push(words.join(" "));
                for n in &c.nested {
                    walk(&n.script, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&s, &mut out);
        out
    }

    fn word(t: &str) -> Word {
        Word {
            text: t.to_owned(),
            ..Word::default()
        }
    }

    #[test]
    fn calls_write_their_arguments_into_body_copies() {
        let r = resolved("f() { rm -rf \"$1\"; }; f ./dist; f /", false);
        assert!(r.iter().any(|l| l == "rm -rf ./dist"), "{r:?}");
        assert!(r.iter().any(|l| l == "rm -rf /"), "{r:?}");
        assert!(!r.iter().any(|l| l.contains('$')), "{r:?}");
        let r = resolved("f() { rm -rf \"$@\" ${2:-x}; }; f a b", false);
        assert!(r.iter().any(|l| l == "rm -rf a b b"), "{r:?}");
        let r = resolved("f() { rm -rf ${2:-x}; }; f a", false);
        assert!(r.iter().any(|l| l == "rm -rf x"), "{r:?}");
        // Never called: no argument, no word.
        let r = resolved("f() { rm -rf \"$1\"; }; echo hi", false);
        assert!(r.iter().any(|l| l == "rm -rf"), "{r:?}");
    }

    #[test]
    fn unknown_parameters_stay() {
        for t in [
            "f() { shift; rm -rf \"$1\"; }; f a /",
            "f() { set -- /; rm -rf \"$1\"; }; f a",
            "f() { rm -rf \"$1\"; }; trap 'f /' EXIT",
            "f() { rm -rf \"$1\"; }; f a; export -f f",
        ] {
            let r = resolved(t, false);
            assert!(r.iter().any(|l| l == "rm -rf $1"), "{t}: {r:?}");
        }
    }

    #[test]
    fn payload_arguments() {
        let a = [word("_"), word("/")];
        let refs: Vec<&Word> = a.iter().collect();
        assert_eq!(
            payload("rm -rf \"$1\"", &refs).as_deref(),
            Some("rm -rf \"/\"")
        );
        assert_eq!(
            payload("rm -rf \"$0\"", &refs).as_deref(),
            Some("rm -rf \"_\"")
        );
        assert_eq!(payload("rm -rf '$1'", &refs), None);
        let odd = [word("_"), word("a;b")];
        let refs: Vec<&Word> = odd.iter().collect();
        assert_eq!(payload("rm -rf $1", &refs).as_deref(), Some("rm -rf 'a;b'"));
        // A parameter not given is no word.
        assert_eq!(payload("rm -rf \"$2\"", &refs).as_deref(), Some("rm -rf "));
        // Functions have their own parameters.
        assert_eq!(payload("f() { rm -rf \"$1\"; }; f x", &refs), None);
    }

    #[test]
    fn powershell_parameters_bind() {
        let r = resolved(
            "function f($p) { Remove-Item -Recurse $p }; f C:\\; f -p:.\\dist",
            true,
        );
        assert!(r.iter().any(|l| l == "Remove-Item -Recurse C:\\"), "{r:?}");
        assert!(
            r.iter().any(|l| l == "Remove-Item -Recurse .\\dist"),
            "{r:?}"
        );
        let r = resolved(
            "function f { param($p) Remove-Item $p $args[0] }; f a b",
            true,
        );
        assert!(r.iter().any(|l| l == "Remove-Item a b"), "{r:?}");
        // A body that assigns its parameter keeps it.
        let r = resolved("function f($p) { $p = 'C:\\'; Remove-Item $p }; f a", true);
        assert!(r.iter().any(|l| l == "Remove-Item $p"), "{r:?}");
    }
}
