//! Shell variables that a POSIX script gives one value known before it runs, written into the
//! words that expand them: `out=dist` … `rm -rf "$out"`, `tmp=$(mktemp -d)` …
//! `trap 'rm -rf "$tmp"' EXIT`.
//!
//! The lexer keeps expansions verbatim, so `"$out"` is a word only known at run time: a
//! deletion target that could be anything. Where the script itself decides the value,
//! [`resolve`] writes it into the words, so the rules judge the path the command acts on — for
//! better (`dist`) or worse (`target=/` … `rm -rf "$target"` is the root, as it always was).
//!
//! # When a value is known
//! Only when all of these hold; anything else leaves the expansions as they are (only known at
//! run time, the conservative reading):
//! - the variable is assigned by a bare assignment (`NAME=value`: no command word, no
//!   redirection) at its script's own top level, where it always runs: first on the line or
//!   after `;`/newline (not after `&&`/`||`), not inside an `if`/`while`/`until`/`for`/
//!   `select`/`case` ([`SimpleCommand::arm`]), not in the background, not in a pipeline;
//! - the value is literal path text (letters, digits and `_ . / @ % + , : = -`: no `~`, blank,
//!   glob, quote or expansion), or exactly one `$(mktemp …)` that makes a fresh entry in the
//!   temporary directory (no `-p`/`--tmpdir=DIR`, no `/` in the template; `-u` names nothing);
//! - every other appearance of the name in the whole text, at any depth (payload texts,
//!   heredoc bodies, function bodies included), is an expansion (`$NAME`, `${NAME}`) or part
//!   of a path or option (`/tmp`, `.out`, `--out`): no second assignment, `read NAME`,
//!   `for NAME`, `local`/`declare`/`export`/`unset NAME`, `${NAME:=…}`, nameref, alias or
//!   arithmetic names it;
//! - nothing in the script can assign a variable without naming it: no `eval`, `source`/`.`,
//!   `alias`, no `declare`/`typeset`/`local`/`export`/`readonly` whose name part, and no
//!   `read`/`printf -v`/`mapfile`/`readarray`/`getopts`/`let`/`unset`/`vared` with a word,
//!   only known at run time, no command word only known at run time, no arithmetic
//!   assignment holding an expansion, no `trap` action that uses such builtins or was
//!   expanded from values not known when `trap` ran (its text is parsed again when it runs).
//!
//! # Where it is written
//! Only into commands that start after the assignment: the top level and the groups,
//! subshells and process substitutions they hold (function bodies included). A command
//! substitution is left as lexed: a payload read from it must equal its own lexing
//! (`analyze`'s substitution readings). A word is rewritten only when it is made of literal
//! text, double quotes and resolved expansions. A temporary entry's name (which stands for an
//! unknown name under `/tmp`) is written only where the word is the expansion alone and is
//! not the operand of `cd`/`pushd`: were `mktemp` to fail the value would be empty, which
//! `rm -rf "$tmp"` ignores, but `"$tmp"/*` (the root's entries) and `cd "$tmp"` (no move) do
//! not. The action of a `trap` set after the assignment is shell text that runs later in the
//! same shell: the expansions in that text are resolved too (outside its own single quotes
//! when the action was single-quoted; everywhere when it was expanded as the `trap` ran).
//!
//! Bounds: at most [`MAX_VARS`] variables; each costs one scan of the text, and each word is
//! read once.

use super::model::{Connector, NestedKind, RedirectKind, Script, SimpleCommand, Word};

/// Variables resolved per script at most.
const MAX_VARS: usize = 16;

/// What a `$(mktemp …)` stands for: a fresh entry of the temporary directory.
const TEMP_VALUE: &str = "/tmp/tmp.XXXXXXXXXX";

/// Names the shell itself sets or reads: never resolved.
const SPECIAL: &[&str] = &[
    "PWD",
    "OLDPWD",
    "HOME",
    "PATH",
    "CDPATH",
    "IFS",
    "RANDOM",
    "SRANDOM",
    "LINENO",
    "SECONDS",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "PPID",
    "UID",
    "EUID",
    "GROUPS",
    "HISTCMD",
    "FUNCNAME",
    "PIPESTATUS",
    "HOSTNAME",
    "SHLVL",
];

/// One resolved variable.
struct Var {
    name: String,
    value: String,
    /// A `$(mktemp …)`: written only where the word is the expansion alone.
    temp: bool,
    /// Where the assigning command ends: only commands after it see the value.
    after: usize,
}

/// Writes the values of the variables `script` (the POSIX reading of `text`) gives one known
/// value into the words that expand them (see the module doc).
pub fn resolve(text: &str, script: &mut Script) {
    if !text.contains('$') || !text.contains('=') {
        return;
    }
    if script.commands.iter().any(assigns_unnamed) {
        return;
    }
    let vars = candidates(text, script);
    if vars.is_empty() || trap_assigns(&script.commands, &vars) {
        return;
    }
    for sc in &mut script.commands {
        rewrite_command(text, sc, &vars);
    }
}

/// `sc` (or a script nested in it) may assign a variable it does not name literally.
fn assigns_unnamed(sc: &SimpleCommand) -> bool {
    let mut words = sc.argv.iter();
    let mut prog = words.next();
    if prog.is_some_and(|w| matches!(w.text.as_str(), "command" | "builtin")) {
        prog = words.find(|w| !w.text.starts_with('-'));
    }
    let dynamic_arg = || sc.argv.iter().skip(1).any(|w| w.dynamic);
    let unnamed = match prog {
        Some(w) if w.dynamic => true,
        Some(w) => match w.text.as_str() {
            "eval" | "source" | "." | "alias" => true,
            "declare" | "typeset" | "local" | "export" | "readonly" => {
                sc.argv.iter().skip(1).any(|w| {
                    let name = w.text.split('=').next().unwrap_or("");
                    w.dynamic && (name.contains('$') || name.contains('`'))
                })
            }
            "read" | "mapfile" | "readarray" | "getopts" | "let" | "unset" | "vared" => {
                dynamic_arg()
            }
            "printf" => sc.argv.iter().any(|w| w.text.starts_with("-v")) && dynamic_arg(),
            _ => false,
        },
        None => false,
    };
    unnamed
        || sc
            .argv
            .iter()
            .chain(sc.assignments.iter().map(|(_, v)| v))
            .any(arithmetic_assignment)
        || sc
            .nested
            .iter()
            .any(|n| n.script.commands.iter().any(assigns_unnamed))
}

/// A `trap` whose action may assign a variable it does not name, whenever it runs (an `ERR`
/// or `DEBUG` trap runs between the script's commands): an action that uses an evaluating or
/// assigning builtin, or a double-quoted one that the shell expanded as `trap` ran from values
/// not known here (its text is parsed again when it runs: `trap "$x" ERR` with
/// `x='out=/'`).
fn trap_assigns(cmds: &[SimpleCommand], vars: &[Var]) -> bool {
    const BUILTINS: &[&str] = &[
        "eval",
        "source",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "read",
        "printf",
        "mapfile",
        "readarray",
        "getopts",
        "let",
        "unset",
        "vared",
        "alias",
    ];
    let refs: Vec<&Var> = vars.iter().collect();
    cmds.iter().any(|sc| {
        let trap = sc.argv.first().is_some_and(|w| w.text == "trap");
        let assigns = trap
            && sc.argv.iter().skip(1).any(|w| {
                let t = w.text.as_str();
                BUILTINS.iter().any(|b| has_word(t, b))
                    || t.starts_with(". ")
                    || t.contains(" . ")
                    || w.dynamic
                        && expand_text(t, &refs, false)
                            .as_deref()
                            .unwrap_or(t)
                            .contains(['$', '`'])
            });
        assigns
            || sc
                .nested
                .iter()
                .any(|n| trap_assigns(&n.script.commands, vars))
    })
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

/// `(( $v = 1 ))`, `$(( $v += 1 ))`: arithmetic that assigns to a name an expansion gives.
fn arithmetic_assignment(w: &Word) -> bool {
    w.dynamic
        && (w.text.starts_with("((") || w.text.contains("$((") || w.text.contains("$["))
        && w.text.contains('=')
}

/// The variables of `script`'s top level that have one known value (see the module doc).
fn candidates(text: &str, script: &Script) -> Vec<Var> {
    let mut vars: Vec<Var> = Vec::new();
    let cmds = &script.commands;
    for (i, sc) in cmds.iter().enumerate() {
        let piped = cmds
            .get(i + 1)
            .is_some_and(|n| matches!(n.connector, Connector::Pipe | Connector::PipeAll));
        let always_runs = sc.arm == 0
            && sc.connector == Connector::Sequence
            && !sc.background
            && !piped
            && sc.argv.is_empty()
            && sc.redirects.is_empty()
            && sc.heredocs.is_empty();
        if !always_runs {
            continue;
        }
        for (name, value) in &sc.assignments {
            if vars.len() >= MAX_VARS {
                return vars;
            }
            if SPECIAL.contains(&name.as_str())
                || name.starts_with("BASH")
                || vars.iter().any(|v| v.name == *name)
            {
                continue;
            }
            let Some(def) = defined_at(text, name, value) else {
                continue;
            };
            let (value, temp) = if let Some(lit) = literal(value) {
                (lit.to_owned(), false)
            } else if temp_entry(text, sc, value) {
                (TEMP_VALUE.to_owned(), true)
            } else {
                continue;
            };
            if only_expanded(text, name, def) {
                vars.push(Var {
                    name: name.clone(),
                    value,
                    temp,
                    after: sc.span.end,
                });
            }
        }
    }
    vars
}

/// Where the name of the assignment `name=value` starts in `text` (`None` for `name+=…`).
fn defined_at(text: &str, name: &str, value: &Word) -> Option<usize> {
    let eq = value.span.start.checked_sub(1)?;
    let def = eq.checked_sub(name.len())?;
    (text.get(eq..value.span.start) == Some("=") && text.get(def..eq) == Some(name)).then_some(def)
}

/// A value that is literal path text.
fn literal(value: &Word) -> Option<&str> {
    let t = value.text.as_str();
    (!value.dynamic && !value.glob && !t.is_empty() && t.bytes().all(path_byte)).then_some(t)
}

/// Bytes of plain path text: no blank, quote, glob, expansion, `~` or shell syntax.
fn path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'.' | b'/' | b'@' | b'%' | b'+' | b',' | b':' | b'=' | b'-'
        )
}

/// The value is exactly one `$(mktemp …)` that makes a fresh entry in the temporary directory.
fn temp_entry(text: &str, sc: &SimpleCommand, value: &Word) -> bool {
    let [n] = sc.nested.as_slice() else {
        return false;
    };
    let Some(src) = n.source else {
        return false;
    };
    if n.kind != NestedKind::CommandSubstitution
        || !n.script.problems.is_empty()
        || text.get(src.start..src.end) != Some(value.text.as_str())
    {
        return false;
    }
    let [m] = n.script.commands.as_slice() else {
        return false;
    };
    if !m.assignments.is_empty()
        || !m.redirects.is_empty()
        || !m.heredocs.is_empty()
        || !m.nested.is_empty()
        || m.background
    {
        return false;
    }
    let Some((prog, args)) = m.argv.split_first() else {
        return false;
    };
    prog.text == "mktemp"
        && !prog.dynamic
        && args
            .iter()
            .all(|w| !w.dynamic && !w.glob && mktemp_arg(&w.text))
}

/// `mktemp` options that keep the entry in the temporary directory (or the working
/// directory, for a bare template), and templates without a directory.
fn mktemp_arg(t: &str) -> bool {
    if let Some(long) = t.strip_prefix("--") {
        return matches!(long, "directory" | "quiet" | "tmpdir")
            || long
                .strip_prefix("suffix=")
                .is_some_and(|s| !s.contains(['/', '\\']));
    }
    if let Some(short) = t.strip_prefix('-') {
        return !short.is_empty() && short.bytes().all(|b| matches!(b, b'd' | b'q' | b't'));
    }
    !t.is_empty() && !t.contains(['/', '\\'])
}

/// Every appearance of `name` in `text` (as a whole identifier) other than its definition at
/// `def` is an expansion or part of a path or option.
fn only_expanded(text: &str, name: &str, def: usize) -> bool {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(off) = text.get(from..).and_then(|t| t.find(name)) {
        let at = from + off;
        let end = at + name.len();
        from = end;
        let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
        let after = b.get(end).copied();
        if before.is_some_and(ident) || after.is_some_and(ident) || at == def {
            continue;
        }
        let fine = match before {
            Some(b'$' | b'/' | b'.' | b'-') => true,
            Some(b'{') => {
                at.checked_sub(2).and_then(|i| b.get(i)) == Some(&b'$') && after == Some(b'}')
            }
            _ => false,
        };
        if !fine {
            return false;
        }
    }
    true
}

/// Rewrites the words of `sc` (and of the scripts nested in it, but substitutions) that
/// expand variables of `vars` assigned before it.
fn rewrite_command(text: &str, sc: &mut SimpleCommand, vars: &[Var]) {
    let seen: Vec<&Var> = vars.iter().filter(|v| v.after <= sc.span.start).collect();
    if !seen.is_empty() {
        let first = sc.argv.first().filter(|w| !w.quoted && !w.dynamic);
        let moves = first.is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd"));
        let action = first.filter(|w| w.text == "trap").map(|_| {
            if sc.argv.get(1).is_some_and(|w| w.text == "--") {
                2
            } else {
                1
            }
        });
        for (i, w) in sc.argv.iter_mut().enumerate() {
            if Some(i) == action {
                rewrite_action(w, &seen);
            } else {
                rewrite_word(text, w, &seen, !moves);
            }
        }
        for r in &mut sc.redirects {
            if r.kind != RedirectKind::HereDoc {
                rewrite_word(text, &mut r.target, &seen, true);
            }
        }
        for (_, v) in &mut sc.assignments {
            rewrite_word(text, v, &seen, true);
        }
    }
    for n in &mut sc.nested {
        if n.kind != NestedKind::CommandSubstitution {
            for c in &mut n.script.commands {
                rewrite_command(text, c, vars);
            }
        }
    }
}

/// Writes the values into `w` when its source (`text` at its span) is literal text, double
/// quotes and expansions of `vars`; a temporary entry only where the word is its expansion
/// alone and `temp_ok`.
fn rewrite_word(text: &str, w: &mut Word, vars: &[&Var], temp_ok: bool) {
    if !w.dynamic {
        return;
    }
    let Some(raw) = text.get(w.span.start..w.span.end) else {
        return;
    };
    if let Some(value) = expand_word(raw, vars, temp_ok) {
        w.text = value;
        w.dynamic = false;
        w.one_word = false;
    }
}

/// The name an expansion at the start of `s` (just after its `$`) reads, and the length of
/// what follows the `$` (`name` or `{name}`); `None` for other expansions.
fn expansion_name(s: &str) -> Option<(&str, usize)> {
    if let Some(inner) = s.strip_prefix('{') {
        let close = inner.find('}')?;
        let name = inner.get(..close)?;
        return is_name(name).then_some((name, close + 2));
    }
    let len = s
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let name = s.get(..len)?;
    is_name(name).then_some((name, len))
}

fn is_name(t: &str) -> bool {
    t.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The word `raw` (its source text) with the values of `vars` written in, or `None` when it
/// holds anything else than literal path text, double quotes and expansions of `vars`.
fn expand_word(raw: &str, vars: &[&Var], temp_ok: bool) -> Option<String> {
    let bare = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    if let Some((name, len)) = bare.strip_prefix('$').and_then(expansion_name) {
        if len + 1 == bare.len() {
            if let Some(v) = vars.iter().find(|v| v.name == name && v.temp) {
                return temp_ok.then(|| v.value.clone());
            }
        }
    }
    let mut out = String::with_capacity(raw.len());
    let mut dq = false;
    let mut at = 0;
    while let Some(c) = raw.get(at..).and_then(|r| r.chars().next()) {
        match c {
            '"' => {
                dq = !dq;
                at += 1;
            }
            '$' => {
                let (name, len) = raw.get(at + 1..).and_then(expansion_name)?;
                let v = vars.iter().find(|v| v.name == name && !v.temp)?;
                out.push_str(&v.value);
                at += 1 + len;
            }
            // In double quotes everything but `$`, `` ` `` and `\` is literal (a glob
            // character too, which the word's flags would not tell apart).
            _ if dq => {
                if matches!(c, '`' | '\\' | '*' | '?' | '[') {
                    return None;
                }
                out.push(c);
                at += c.len_utf8();
            }
            _ => {
                if !(c.is_ascii() && path_byte(c as u8) || matches!(c, '*' | '?')) {
                    return None;
                }
                out.push(c);
                at += c.len_utf8();
            }
        }
    }
    (!dq).then_some(out)
}

/// Writes the values into a `trap` action's text (shell text that runs later in this shell).
fn rewrite_action(w: &mut Word, vars: &[&Var]) {
    if !w.text.contains('$') || w.text.contains('`') {
        return;
    }
    // A single-quoted action is read as it is written: its own single quotes keep a `$`
    // literal. An action with expansions was expanded as `trap` ran, quotes or not (and
    // [`trap_assigns`] saw that all of them are known).
    if let Some(t) = expand_text(&w.text, vars, !w.dynamic) {
        w.dynamic = w.dynamic && t.contains('$');
        w.one_word &= w.dynamic;
        w.text = t;
    }
}

/// `text` (shell source) with the expansions of `vars` replaced by their values (outside
/// single quotes when `squotes`); a temporary entry only where the expansion, maybe in double
/// quotes, is a whole word. `None` when nothing was replaced.
fn expand_text(text: &str, vars: &[&Var], squotes: bool) -> Option<String> {
    let b = text.as_bytes();
    let boundary = |c: Option<&u8>| {
        c.is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b';' | b'&' | b'|' | b'(' | b')'))
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut in_sq = false;
    let mut at = 0;
    while let Some(c) = text.get(at..).and_then(|r| r.chars().next()) {
        if in_sq {
            in_sq = c != '\'';
        } else if c == '\'' && squotes {
            in_sq = true;
        } else if c == '\\' {
            out.push(c);
            at += 1;
            if let Some(n) = text.get(at..).and_then(|r| r.chars().next()) {
                out.push(n);
                at += n.len_utf8();
            }
            continue;
        } else if c == '$' {
            if let Some((name, len)) = text.get(at + 1..).and_then(expansion_name) {
                if let Some(v) = vars.iter().find(|v| v.name == name) {
                    let end = at + 1 + len;
                    let whole = {
                        let quoted =
                            at > 0 && b.get(at - 1) == Some(&b'"') && b.get(end) == Some(&b'"');
                        let (l, r) = if quoted { (at - 1, end + 1) } else { (at, end) };
                        (l == 0 || boundary(b.get(l - 1))) && boundary(b.get(r))
                    };
                    if !v.temp || whole {
                        out.push_str(&v.value);
                        changed = true;
                        at = end;
                        continue;
                    }
                }
            }
        }
        out.push(c);
        at += c.len_utf8();
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shell::model::LexLimits;
    use crate::analysis::shell::posix;

    /// The argv texts of every command (nested scripts after their command) once resolved.
    fn resolved(text: &str) -> Vec<String> {
        let mut s = posix::lex(text, &LexLimits::default());
        resolve(text, &mut s);
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

    fn has(text: &str, line: &str) -> bool {
        resolved(text).iter().any(|l| l == line)
    }

    #[test]
    fn literal_values_are_written_into_later_words() {
        assert!(has("out=dist\nrm -rf \"$out\"", "rm -rf dist"));
        assert!(has(
            "out=dist; rm -rf \"${out}\"/*.map",
            "rm -rf dist/*.map"
        ));
        assert!(has("target=/\nrm -rf \"$target\"", "rm -rf /"));
        assert!(has("d=build\nf() { rm -rf \"$d\"; }\nf", "rm -rf build"));
    }

    #[test]
    fn temp_entries_only_as_whole_words() {
        let t = "tmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\nrm -rf \"$tmp\"/*\ncd \"$tmp\"";
        let r = resolved(t);
        assert!(
            r.iter()
                .any(|l| l == "trap rm -rf \"/tmp/tmp.XXXXXXXXXX\" EXIT"),
            "{r:?}"
        );
        assert!(r.iter().any(|l| l == "rm -rf $tmp/*"), "{r:?}");
        assert!(r.iter().any(|l| l == "cd $tmp"), "{r:?}");
        assert!(has(
            "tmp=\"$(mktemp -d -t x.XXXX)\"\nrm -rf \"$tmp\"",
            "rm -rf /tmp/tmp.XXXXXXXXXX"
        ));
        for not_temp in [
            "tmp=$(mktemp -d -p /)\nrm -rf \"$tmp\"",
            "tmp=$(mktemp -d /x/y.XXXX)\nrm -rf \"$tmp\"",
            "tmp=$(mktemp -d)/..\nrm -rf \"$tmp\"",
            "tmp=`mktemp -d`\nrm -rf \"$tmp\"",
        ] {
            assert!(has(not_temp, "rm -rf $tmp"), "{not_temp}");
        }
    }

    #[test]
    fn unknown_values_stay_dynamic() {
        for t in [
            // Assigned where it may not run, more than once, or by other means.
            "if x; then out=dist; fi\nrm -rf \"$out\"",
            "x && out=dist\nrm -rf \"$out\"",
            "out=dist &\nrm -rf \"$out\"",
            "out=dist | true\nrm -rf \"$out\"",
            "out=dist\nout=/\nrm -rf \"$out\"",
            "out=dist\nread -r out < f\nrm -rf \"$out\"",
            "out=dist\nfor out in /; do :; done\nrm -rf \"$out\"",
            "out=dist\nf() { local out=/; }\nrm -rf \"$out\"",
            "out=dist\n: ${out:=/}\nrm -rf \"$out\"",
            "out=dist\nv=o; declare \"${v}ut=/\"\nrm -rf \"$out\"",
            "out=dist\neval \"$x\"\nrm -rf \"$out\"",
            "out=dist\nsource ./env.sh\nrm -rf \"$out\"",
            "out=dist\n$cmd\nrm -rf \"$out\"",
            "out=dist\nprintf -v \"$v\" /\nrm -rf \"$out\"",
            "out=dist\nbash -c 'out=/'\nrm -rf \"$out\"",
            // Values that are not literal paths.
            "out=$HOME\nrm -rf \"$out\"",
            "out=~\nrm -rf \"$out\"",
            "out='a b'\nrm -rf \"$out\"",
            "out=*\nrm -rf \"$out\"",
            // Used before it is assigned.
            "rm -rf \"$out\"\nout=dist",
            "f() { rm -rf \"$out\"; }\nf\nout=dist",
            // Words that hold more than literal text.
            "out=dist\nrm -rf \"$out/$x\"",
            "out=dist\nrm -rf \"${out:-/}\"",
        ] {
            let r = resolved(t);
            let deletes: Vec<&String> = r.iter().filter(|l| l.starts_with("rm ")).collect();
            assert!(
                !deletes.is_empty() && deletes.iter().all(|l| l.contains('$')),
                "{t}: {r:?}"
            );
        }
    }

    #[test]
    fn trap_actions_read_as_shell_text() {
        assert!(has(
            "out=.cache\ntrap \"rm -rf $out\" EXIT",
            "trap rm -rf .cache EXIT"
        ));
        // The action's own single quotes keep `$out` literal.
        assert!(has(
            "out=.cache\ntrap 'echo '\\''$out'\\''' EXIT",
            "trap echo '$out' EXIT"
        ));
        // Set before the assignment: not resolved.
        assert!(has(
            "trap 'rm -rf \"$out\"' EXIT\nout=.cache",
            "trap rm -rf \"$out\" EXIT"
        ));
    }
}
