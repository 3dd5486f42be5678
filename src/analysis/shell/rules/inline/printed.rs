//! What inline interpreter code prints, when the code shows all of it: code made only of
//! prints of string literals (`python3 -c "print('x')"`, `node -e "console.log('x')"`, `perl -e
//! 'print "x\n"'`, `ruby -e 'puts "x"'`, `php -r 'echo "x";'`, `awk 'BEGIN{print "x"}'`, `lua -e
//! 'print("x")'`). That text is the command's stdout exactly as `echo`'s is: piped into a shell
//! or written to a file the line then runs, it is analysed as a script.
//!
//! # What counts
//! - Python `print(…)` (`sep=`, `end=` literal, `flush=`), `sys.stdout.write(t)` after `import
//!   sys`; Node `console.log`/`console.info` (no `%`: no format directives),
//!   `process.stdout.write(t)`; Perl `print`/`print STDOUT` (and `say` after `use feature`
//!   naming it); Ruby `puts`/`print` (`$stdout.`/`STDOUT.` too, and `write`); PHP `echo`/
//!   `print`; awk `BEGIN { print … }` blocks alone (so no input is read); Lua `print`,
//!   `io.write`, `io.stdout:write`.
//! - Arguments are string literals ([`super::written::plain`]: nothing interpolated) joined by the
//!   language's own concatenation (`+`, `.`, `..`, side by side where the language allows it).
//!
//! # Conservative by construction
//! Every token of the code must belong to such a statement: anything else (a name, a
//! computed argument, control flow, input reading, a print to another stream, an import other
//! than `sys`) leaves the output unknown. A backslash escape other than `\n` and `\t`, and a
//! Python bytes literal (printed as `b'…'`), leave it unknown too (the lexer's decoding of
//! those is not every language's). Which interpreter switches keep the output plain (no `-n`,
//! `-p`, `-l` loop or line mode) is the caller's ([`super::super::exec`]).
//!
//! # Limits
//! One pass over the tokens, stopping at the first one that is not part of a literal print;
//! the text is made of the code's own literals and at most [`MAX_TEXT`] bytes.

use super::written::{call_at, plain};
use super::{split_args, Lang, Tok, MAX_CODE};

/// Longest text reported (longer is unknown).
const MAX_TEXT: usize = MAX_CODE;

/// The code's whole stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::analysis::shell::rules) struct Printed {
    pub text: String,
    /// Python only: the text assumes Python 3 (a `print` with several arguments or keywords
    /// prints a tuple, or fails, in Python 2).
    pub python3: bool,
}

/// State across the statements of one piece of code.
#[derive(Default)]
struct St {
    out: String,
    /// Python `import sys` seen.
    sys: bool,
    /// Perl `use feature 'say'` seen.
    say: bool,
    python3: bool,
    prints: usize,
}

/// The whole stdout of `code` (lexed as `toks`), when it is only literal prints.
pub(super) fn stdout(code: &str, toks: &[Tok], lang: Lang) -> Option<Printed> {
    if !matches!(
        lang,
        Lang::Python | Lang::Js | Lang::Perl | Lang::Ruby | Lang::Php | Lang::Lua | Lang::Awk
    ) {
        return None;
    }
    let mut st = St::default();
    let mut i = 0;
    let mut in_begin = false;
    // Statements that follow another with no `;` between them (a newline must separate them).
    let mut unseparated = 0usize;
    let mut separated = true;
    while let Some(t) = toks.get(i) {
        match t {
            Tok::P(';') => {
                separated = true;
                i += 1;
                continue;
            }
            Tok::P('}') if in_begin => {
                in_begin = false;
                separated = true;
                i += 1;
                continue;
            }
            Tok::Ident("BEGIN")
                if lang == Lang::Awk
                    && !in_begin
                    && matches!(toks.get(i + 1), Some(Tok::P('{'))) =>
            {
                in_begin = true;
                separated = true;
                i += 2;
                continue;
            }
            Tok::Ident(name) if lang != Lang::Awk || in_begin => {
                if !separated {
                    unseparated += 1;
                }
                i = statement(toks, i, name, lang, &mut st)?;
                separated = false;
            }
            _ => return None,
        }
        if st.out.len() > MAX_TEXT {
            return None;
        }
    }
    // (Checks over the code's bytes, made only for code that is all prints.)
    let needs_semicolons = matches!(lang, Lang::Perl | Lang::Php);
    let separators = || {
        if needs_semicolons {
            0
        } else {
            code.bytes().filter(|b| *b == b'\n').count()
        }
    };
    if in_begin
        || st.prints == 0
        || unseparated > 0 && unseparated > separators()
        || !plain_escapes(code)
        || lang == Lang::Python && bytes_literal(code)
    {
        return None;
    }
    Some(Printed {
        text: st.out,
        python3: st.python3,
    })
}

/// Every backslash starts `\n` or `\t` (the escapes every language here decodes as the lexer
/// does, and leaves alone in the quotes that do not decode).
fn plain_escapes(code: &str) -> bool {
    let b = code.as_bytes();
    b.iter()
        .enumerate()
        .all(|(k, c)| *c != b'\\' || matches!(b.get(k + 1), Some(b'n' | b't')))
}

/// A Python string literal whose prefix holds `b` (`b'…'`, `rb"…"`): printed as `b'…'`.
/// (Follows quotes and comments so that a string's closing quote is not taken for an opening.)
fn bytes_literal(code: &str) -> bool {
    let b = code.as_bytes();
    let mut k = 0;
    while let Some(&c) = b.get(k) {
        match c {
            b'#' => {
                while b.get(k).is_some_and(|c| *c != b'\n') {
                    k += 1;
                }
            }
            b'\'' | b'"' => {
                let mut start = k;
                while start > 0
                    && b.get(start - 1)
                        .is_some_and(|p| p.is_ascii_alphanumeric() || *p == b'_')
                {
                    start -= 1;
                }
                let prefix = b.get(start..k).unwrap_or(&[]);
                if prefix.len() <= 2
                    && prefix.iter().any(|p| matches!(p, b'b' | b'B'))
                    && prefix
                        .iter()
                        .all(|p| matches!(p, b'b' | b'B' | b'r' | b'R'))
                {
                    return true;
                }
                let triple = b.get(k + 1) == Some(&c) && b.get(k + 2) == Some(&c);
                k += if triple { 3 } else { 1 };
                // To the closing quote (a backslash always keeps the next byte inside).
                while let Some(&d) = b.get(k) {
                    if d == b'\\' {
                        k += 2;
                        continue;
                    }
                    if d == c && (!triple || b.get(k + 1) == Some(&c) && b.get(k + 2) == Some(&c)) {
                        k += if triple { 2 } else { 0 };
                        break;
                    }
                    k += 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    false
}

/// The text of one argument made only of literals joined by `lang`'s concatenation.
fn literal(arg: &[Tok], lang: Lang) -> Option<String> {
    let adjacent = matches!(lang, Lang::Python | Lang::Ruby | Lang::Awk);
    let mut text = String::new();
    // Whether the next token may be a string (at the start, or after an operator).
    let mut want_string = true;
    let mut k = 0;
    while let Some(t) = arg.get(k) {
        match t {
            Tok::Str { .. } if want_string || adjacent => {
                text.push_str(plain(t)?);
                want_string = false;
            }
            Tok::P('+') if !want_string && matches!(lang, Lang::Python | Lang::Js | Lang::Ruby) => {
                want_string = true;
            }
            Tok::P('.') if !want_string && matches!(lang, Lang::Perl | Lang::Php) => {
                want_string = true;
            }
            Tok::P('.')
                if !want_string
                    && lang == Lang::Lua
                    && matches!(arg.get(k + 1), Some(Tok::P('.'))) =>
            {
                want_string = true;
                k += 1;
            }
            _ => return None,
        }
        k += 1;
    }
    (!want_string).then_some(text)
}

/// Every argument [`literal`].
fn literals(args: &[&[Tok]], lang: Lang) -> Option<Vec<String>> {
    args.iter().map(|a| literal(a, lang)).collect()
}

/// The arguments at `from`: a parenthesized list, or (`bare`) tokens up to the statement's
/// end (`;`, `}`, the next name or the end); with the token after them.
fn args_at<'t, 'a>(
    toks: &'t [Tok<'a>],
    from: usize,
    bare: bool,
) -> Option<(Vec<&'t [Tok<'a>]>, usize)> {
    if let Some(found) = call_at(toks, from) {
        return Some(found);
    }
    if !bare {
        return None;
    }
    let rest = toks.get(from..)?;
    let stop = rest
        .iter()
        .position(|t| matches!(t, Tok::P(';' | '}') | Tok::Ident(_)))
        .unwrap_or(rest.len());
    let span = rest.get(..stop)?;
    let args = if span.is_empty() {
        Vec::new()
    } else {
        split_args(span)
    };
    Some((args, from + stop))
}

/// One statement at `i` (a name): appends what it prints; the token after it.
fn statement(toks: &[Tok], i: usize, name: &str, lang: Lang, st: &mut St) -> Option<usize> {
    let mut count = true;
    let next = match (lang, name) {
        (Lang::Python, "import") => match toks.get(i + 1) {
            Some(Tok::Ident("sys")) => {
                st.sys = true;
                count = false;
                i + 2
            }
            _ => return None,
        },
        (Lang::Python, "print") => {
            let (args, end) = call_at(toks, i + 1)?;
            let (mut sep, mut term) = (" ".to_owned(), "\n".to_owned());
            let mut parts = Vec::new();
            for a in &args {
                match a {
                    [Tok::Ident(k @ ("sep" | "end")), Tok::P('='), v] => {
                        let v = plain(v)?.to_owned();
                        if *k == "sep" {
                            sep = v;
                        } else {
                            term = v;
                        }
                        st.python3 = true;
                    }
                    [Tok::Ident("flush"), Tok::P('='), Tok::Ident("True" | "False")] => {
                        st.python3 = true;
                    }
                    _ => parts.push(literal(a, lang)?),
                }
            }
            if parts.len() > 1 {
                st.python3 = true;
            }
            st.out.push_str(&parts.join(&sep));
            st.out.push_str(&term);
            end
        }
        (Lang::Python, "sys.stdout.write") if st.sys => one(toks, i, lang, st)?,
        (Lang::Js, "console.log" | "console.info") => {
            let (args, end) = call_at(toks, i + 1)?;
            let parts = literals(&args, lang)?;
            if parts.iter().any(|p| p.contains('%')) {
                return None;
            }
            st.out.push_str(&parts.join(" "));
            st.out.push('\n');
            end
        }
        (Lang::Js, "process.stdout.write") => one(toks, i, lang, st)?,
        (Lang::Perl, "use") => {
            let module = match toks.get(i + 1) {
                Some(Tok::Ident(m @ ("strict" | "warnings" | "utf8" | "feature"))) => *m,
                _ => return None,
            };
            let mut j = i + 2;
            while let Some(t) = toks.get(j) {
                match t {
                    Tok::P(';') => break,
                    Tok::Str { text, .. } if module == "feature" => {
                        if text.split_whitespace().any(|f| f == "say") {
                            st.say = true;
                        }
                    }
                    _ => return None,
                }
                j += 1;
            }
            count = false;
            j
        }
        (Lang::Perl, "print" | "say") if name == "print" || st.say => {
            let from = match toks.get(i + 1) {
                Some(Tok::Ident("STDOUT")) => i + 2,
                _ => i + 1,
            };
            let (args, end) = args_at(toks, from, true)?;
            if args.is_empty() {
                return None;
            }
            st.out.push_str(&literals(&args, lang)?.concat());
            if name == "say" {
                st.out.push('\n');
            }
            end
        }
        (Lang::Ruby, _) => {
            let method = name
                .strip_prefix("$stdout.")
                .or_else(|| name.strip_prefix("STDOUT."))
                .unwrap_or(name);
            let (args, end) = args_at(toks, i + 1, true)?;
            let parts = literals(&args, lang)?;
            match method {
                "puts" if parts.is_empty() => st.out.push('\n'),
                "puts" => {
                    for p in parts {
                        st.out.push_str(&p);
                        if !p.ends_with('\n') {
                            st.out.push('\n');
                        }
                    }
                }
                "print" | "write" if !parts.is_empty() => st.out.push_str(&parts.concat()),
                _ => return None,
            }
            end
        }
        (Lang::Php, "echo" | "print") => {
            let (args, end) = args_at(toks, i + 1, true)?;
            if args.is_empty() || name == "print" && args.len() != 1 {
                return None;
            }
            st.out.push_str(&literals(&args, lang)?.concat());
            end
        }
        (Lang::Awk, "print") => {
            let (args, end) = args_at(toks, i + 1, true)?;
            if args.is_empty() {
                return None;
            }
            st.out.push_str(&literals(&args, lang)?.join(" "));
            st.out.push('\n');
            end
        }
        (Lang::Lua, "print") => match toks.get(i + 1) {
            // `print 'x'`, `print [[x]]`: a call with one string.
            Some(t @ Tok::Str { .. }) => {
                st.out.push_str(plain(t)?);
                st.out.push('\n');
                i + 2
            }
            _ => {
                let (args, end) = call_at(toks, i + 1)?;
                st.out.push_str(&literals(&args, lang)?.join("\t"));
                st.out.push('\n');
                end
            }
        },
        (Lang::Lua, "io.write") => {
            let (args, end) = call_at(toks, i + 1)?;
            st.out.push_str(&literals(&args, lang)?.concat());
            end
        }
        (Lang::Lua, "io.stdout") => match (toks.get(i + 1), toks.get(i + 2)) {
            (Some(Tok::P(':')), Some(Tok::Ident("write"))) => {
                let (args, end) = call_at(toks, i + 3)?;
                st.out.push_str(&literals(&args, lang)?.concat());
                end
            }
            _ => return None,
        },
        _ => return None,
    };
    if count {
        st.prints += 1;
    }
    Some(next)
}

/// A call with exactly one literal argument (`sys.stdout.write(t)`), appended.
fn one(toks: &[Tok], i: usize, lang: Lang, st: &mut St) -> Option<usize> {
    let (args, end) = call_at(toks, i + 1)?;
    match args.as_slice() {
        [a] => st.out.push_str(&literal(a, lang)?),
        _ => return None,
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::super::{printed_by, Lang};

    fn out(code: &str, lang: Lang) -> Option<String> {
        printed_by(code, lang).map(|p| p.text)
    }

    fn some(t: &str) -> Option<String> {
        Some(t.to_owned())
    }

    #[test]
    fn literal_prints_are_the_output() {
        let cases = [
            (Lang::Python, "print('rm -rf ~')", "rm -rf ~\n"),
            (Lang::Python, "print(\"rm -rf \" + '~')", "rm -rf ~\n"),
            (Lang::Python, "print('rm', '-rf', '~')", "rm -rf ~\n"),
            (Lang::Python, "print('rm -rf ~', end='')", "rm -rf ~"),
            (Lang::Python, "print('a'); print('b')", "a\nb\n"),
            (Lang::Python, "print('ab', \"b\") # b'x'", "ab b\n"),
            (Lang::Python, "print('a')\nprint('b')", "a\nb\n"),
            (
                Lang::Python,
                "print('a', 'b', sep=';', flush=True)",
                "a;b\n",
            ),
            (
                Lang::Python,
                "import sys; sys.stdout.write('rm -rf ~\\n')",
                "rm -rf ~\n",
            ),
            (Lang::Python, "print(f'rm -rf ~')", "rm -rf ~\n"),
            (Lang::Python, "print(r'a\\tb')", "a\\tb\n"),
            (Lang::Js, "console.log('rm -rf ~')", "rm -rf ~\n"),
            (Lang::Js, "console.log('rm', '-rf ' + \"~\");", "rm -rf ~\n"),
            (Lang::Js, "process.stdout.write(`rm -rf ~`)", "rm -rf ~"),
            (Lang::Perl, "print \"rm -rf ~\\n\"", "rm -rf ~\n"),
            (Lang::Perl, "print STDOUT 'rm -rf ', '~';", "rm -rf ~"),
            (Lang::Perl, "print('rm -rf ' . '~')", "rm -rf ~"),
            (
                Lang::Perl,
                "use strict; use feature 'say'; say 'rm -rf ~'",
                "rm -rf ~\n",
            ),
            (Lang::Perl, "print 'a\\n'", "a\\n"),
            (Lang::Ruby, "puts \"rm -rf ~\"", "rm -rf ~\n"),
            (Lang::Ruby, "puts 'a', \"b\\n\"; print 'c'", "a\nb\nc"),
            (Lang::Ruby, "$stdout.write('rm -rf ~')", "rm -rf ~"),
            (Lang::Php, "echo \"rm -rf ~\";", "rm -rf ~"),
            (
                Lang::Php,
                "echo 'rm -rf ', '~'; print(\"\\n\");",
                "rm -rf ~\n",
            ),
            (Lang::Awk, "BEGIN{print \"rm -rf ~\"}", "rm -rf ~\n"),
            (
                Lang::Awk,
                "BEGIN { print \"rm\", \"-rf\" \" ~\"; print \"x\" }",
                "rm -rf ~\nx\n",
            ),
            (Lang::Lua, "print('rm -rf ~')", "rm -rf ~\n"),
            (Lang::Lua, "print 'rm -rf ~'", "rm -rf ~\n"),
            (Lang::Lua, "io.write('rm -rf ' .. '~', '\\n')", "rm -rf ~\n"),
            (Lang::Lua, "io.stdout:write('rm -rf ~')", "rm -rf ~"),
            (Lang::Lua, "print('a', 'b')", "a\tb\n"),
        ];
        for (lang, code, text) in cases {
            assert_eq!(out(code, lang), some(text), "{code}");
        }
    }

    #[test]
    fn computed_or_other_output_is_unknown() {
        let cases = [
            (Lang::Python, "print(cmd)"),
            (Lang::Python, "print(f'rm -rf {d}')"),
            (Lang::Python, "print('rm -rf ' + d)"),
            (Lang::Python, "print('rm -rf %s' % d)"),
            (Lang::Python, "print('rm -rf ~' * 2)"),
            (Lang::Python, "print('a') print('b')"),
            (Lang::Python, "import os; print('rm -rf ~')"),
            (
                Lang::Python,
                "import sys; print('rm -rf ~', file=sys.stderr)",
            ),
            (Lang::Python, "sys.stdout.write('rm -rf ~')"),
            (Lang::Python, "for i in range(3): print('rm -rf ~')"),
            (Lang::Python, "if x: print('rm -rf ~')"),
            (Lang::Python, "print(b'rm -rf ~')"),
            (Lang::Python, "print('a', rb\"rm -rf ~\")"),
            (Lang::Python, "print('rm -rf \\x7e')"),
            (Lang::Python, "print(input())"),
            (Lang::Python, "print('a' 'b'.upper())"),
            (Lang::Python, "print('a', sep=s)"),
            (Lang::Python, ""),
            (Lang::Js, "console.log(`rm -rf ${d}`)"),
            (Lang::Js, "console.log('rm -rf %s', '~')"),
            (Lang::Js, "console.error('rm -rf ~')"),
            (Lang::Js, "console.log('a' 'b')"),
            (Lang::Js, "process.stdout.write('a', cb)"),
            (Lang::Perl, "print \"rm -rf $d\""),
            (Lang::Perl, "print STDERR 'rm -rf ~'"),
            (Lang::Perl, "say 'rm -rf ~'"),
            (Lang::Perl, "print 'a' print 'b'"),
            (Lang::Perl, "print 'a' x 3"),
            (Lang::Perl, "print"),
            (Lang::Perl, "use POSIX; print 'rm -rf ~'"),
            (Lang::Perl, "print 'rm -rf ~' if $x"),
            (Lang::Ruby, "puts \"rm -rf #{d}\""),
            (Lang::Ruby, "puts 'rm -rf ~' if x"),
            (Lang::Ruby, "3.times { puts 'rm -rf ~' }"),
            (Lang::Ruby, "p 'rm -rf ~'"),
            (Lang::Ruby, "print"),
            (Lang::Php, "echo \"rm -rf $d\";"),
            (Lang::Php, "echo 'a' 'b';"),
            (Lang::Php, "echo PHP_EOL;"),
            (Lang::Awk, "{print \"rm -rf ~\"}"),
            (Lang::Awk, "BEGIN{print \"rm -rf ~\"} {print}"),
            (Lang::Awk, "BEGIN{print \"rm -rf ~\" > \"x.sh\"}"),
            (Lang::Awk, "BEGIN{print \"rm -rf ~\" | \"sh\"}"),
            (Lang::Awk, "BEGIN{print}"),
            (Lang::Awk, "END{print \"rm -rf ~\"}"),
            (Lang::Lua, "print(1)"),
            (Lang::Lua, "print('a' + 'b')"),
            (Lang::Lua, "print(os.getenv('X'))"),
            (Lang::R, "cat('rm -rf ~')"),
        ];
        for (lang, code) in cases {
            assert_eq!(out(code, lang), None, "{code}");
        }
    }

    /// Several arguments or keywords are Python 3's reading; one argument reads alike in both.
    #[test]
    fn python3_only_forms_are_marked() {
        let p = |c: &str| printed_by(c, Lang::Python).map(|p| p.python3);
        assert_eq!(p("print('rm -rf ~')"), Some(false));
        assert_eq!(p("print('rm', '~')"), Some(true));
        assert_eq!(p("print('rm', end='')"), Some(true));
    }

    /// The text is bounded, and code not lexed to its end prints nothing known.
    #[test]
    fn bounded() {
        let long = "print('aaaaaaaa');".repeat(3000);
        assert_eq!(out(&long, Lang::Python), some(&"aaaaaaaa\n".repeat(3000)));
        let cut = "print('a');".repeat(8000);
        assert_eq!(out(&cut, Lang::Python), None);
    }
}
