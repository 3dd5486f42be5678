//! Files inline interpreter code writes: the literal path of each file it opens for writing or
//! fills at once ([`opened`], the `writes` of a [`Scan`]), and the literal text a file gets
//! when the code shows all of it ([`texts`]): a later command of the line that runs the file
//! runs that text (the walk records it like `echo '…' > f`, through
//! `Effects::writes_text`).
//!
//! # What counts
//! - Whole-file writers: Python `Path(p).write_text(t)`/`write_bytes`, Ruby `File.write(p, t)`/
//!   `binwrite` (`mode: 'a'` appends), PHP `file_put_contents(p, t)` (`FILE_APPEND` appends).
//! - Streams: Python `open(p, 'w')` (or `mode='w'`), Ruby `File.open(p, 'w')`, Lua
//!   `io.open(p, 'w')`, PHP `fopen(p, 'w')`, Perl `open(F, '>p')`/`open(my $fh, '>', p)`; written
//!   through the call itself (`open(…).write(t)`, `io.open(…):write(t)`) or through a handle
//!   bound by `=`, Python `with … as f`, a Ruby block (`{ |f| … }`, `do |f| … end`) or Perl's
//!   first argument: `f.write(t)`, `f.writelines([…])`, `print(t, file=f)`, Ruby
//!   `f.write`/`puts`/`print` and `f << t`, PHP `fwrite($f, t)`/`fputs`, Perl `print F t`/
//!   `say`/`printf` (with no `%`), Lua `f:write(t, …)`.
//! - Text is literal when it is string literals joined by concatenation (`+`, `.`, `..`, or
//!   side by side) and none interpolates (`f'{x}'`, `"#{x}"`, Perl or PHP `"$x"`).
//!
//! # Conservative by construction
//! A file's text is known only when every write to it is: a handle used any other way (given
//! to a call, assigned, written with a variable), a stream opened without a binding the scan
//! follows, a mode that neither truncates nor appends (`r+`), or one write of computed text
//! leaves the file's text unknown — it is then not reported at all, and running the file stays
//! a script the gate cannot see (`interpreter-file`). No control flow is followed: a write in a
//! branch counts as made.
//!
//! # Limits
//! One pass over the tokens (only for code that opens a file for writing); at most
//! [`MAX_OPENED`] files opened (code that opens more reports no text), [`MAX_HANDLES`]
//! handles and [`MAX_TEXTS`] texts per scan; each text is made of the code's own literals
//! (never longer than the code).

use super::{call_span, last_segment, qualifier, split_args, Lang, Scan, Tok};

/// Handles followed per scan (more are left unknown).
const MAX_HANDLES: usize = 16;
/// Texts reported per scan.
const MAX_TEXTS: usize = 16;
/// Files opened for writing per scan whose texts are read: code that opens more reports no
/// text at all (one of the others might overwrite a file whose text it would report).
const MAX_OPENED: usize = 64;

/// A file the code opens for writing or fills at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::analysis::shell::rules) struct Opened {
    /// The token of the call's name.
    at: usize,
    /// The literal path.
    pub path: String,
    how: How,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum How {
    /// A stream the code writes next; `whole`: the mode truncates or appends, so what is
    /// written is all that changes; `end`: the token after the call.
    Stream {
        append: bool,
        whole: bool,
        end: usize,
    },
    /// The whole text at once, when literal.
    Whole { append: bool, text: Option<String> },
}

/// A string token whose text is what the program gets: not interpolated, or holding nothing
/// an interpolation starts with (`$`, `@`, `{`, `#{`).
pub(super) fn plain<'t>(t: &'t Tok<'_>) -> Option<&'t str> {
    match t {
        Tok::Str { text, interp } if !*interp || !text.contains(['$', '@', '{']) => {
            Some(text.as_str())
        }
        _ => None,
    }
}

/// One argument that is a single [`plain`] string.
fn single(arg: Option<&&[Tok]>) -> Option<String> {
    match arg.copied() {
        Some([t]) => plain(t).map(str::to_owned),
        _ => None,
    }
}

/// The text of an argument made only of [`plain`] strings joined by concatenation (`+`, `.`,
/// Lua `..`, or side by side); `None` for anything else (a name, a call, `%`, `*`).
pub(super) fn literal_text(arg: &[Tok]) -> Option<String> {
    let mut text = String::new();
    let mut strings = false;
    let mut after_string = false;
    for t in arg {
        match t {
            Tok::Str { .. } => {
                text.push_str(plain(t)?);
                strings = true;
                after_string = true;
            }
            Tok::P('+' | '.') if strings => after_string = false,
            _ => return None,
        }
    }
    (strings && after_string).then_some(text)
}

/// The arguments of the call whose `(` is at `open`, and the token after its `)`.
pub(super) fn call_at<'t, 'a>(
    toks: &'t [Tok<'a>],
    open: usize,
) -> Option<(Vec<&'t [Tok<'a>]>, usize)> {
    if !matches!(toks.get(open), Some(Tok::P('('))) {
        return None;
    }
    let (inner, end) = call_span(toks, open);
    let args = if inner.is_empty() {
        Vec::new()
    } else {
        split_args(inner)
    };
    Some((args, end))
}

/// A Python keyword argument `name=…`: its value tokens.
fn keyword<'t, 'a>(arg: &'t [Tok<'a>], name: &str) -> Option<&'t [Tok<'a>]> {
    match arg {
        [Tok::Ident(n), Tok::P('='), value @ ..] if *n == name => Some(value),
        _ => None,
    }
}

/// The file the call at `i` (named `name`) opens for writing or fills, when its path is
/// literal (see the module doc).
pub(super) fn opened(toks: &[Tok], i: usize, name: &str, lang: Lang) -> Option<Opened> {
    let last = last_segment(name);
    // `Path('x').write_text(…)`: the path is the literal three tokens back.
    if lang == Lang::Python && matches!(last, "write_text" | "write_bytes") {
        let back = |k: usize| i.checked_sub(k).and_then(|j| toks.get(j));
        let (Some(Tok::P('.')), Some(Tok::P(')')), Some(path @ Tok::Str { text: p, .. })) =
            (back(1), back(2), back(3))
        else {
            return None;
        };
        // The text only of `Path('x')` itself (its one argument, a plain string), written
        // with one literal and keywords (`encoding=`).
        let sole = matches!(back(4), Some(Tok::P('(')))
            && matches!(back(5), Some(Tok::Ident(n)) if last_segment(n).ends_with("Path"))
            && plain(path).is_some();
        let text =
            call_at(toks, i + 1)
                .filter(|_| sole)
                .and_then(|(args, _)| match args.split_first() {
                    Some((first, rest))
                        if rest
                            .iter()
                            .all(|a| matches!(a, [Tok::Ident(_), Tok::P('='), ..])) =>
                    {
                        literal_text(first)
                    }
                    _ => None,
                });
        return Some(Opened {
            at: i,
            path: p.clone(),
            how: How::Whole {
                append: false,
                text,
            },
        });
    }
    let relevant = matches!(
        (lang, last),
        (Lang::Python | Lang::Lua | Lang::Ruby | Lang::Perl, "open")
            | (Lang::Ruby, "write" | "binwrite")
            | (Lang::Php, "file_put_contents" | "fopen")
    );
    if !relevant {
        return None;
    }
    let (args, end) = call_at(toks, i + 1)?;
    let writing = |m: &str| m.contains(['w', 'a', 'x', '+']);
    let stream = |path: String, append: bool, whole: bool| Opened {
        at: i,
        path,
        how: How::Stream { append, whole, end },
    };
    let found = match (lang, last) {
        (Lang::Python | Lang::Lua | Lang::Ruby, "open") if !name.contains("os.") => {
            let mode = single(args.get(1))
                .or_else(|| {
                    (lang == Lang::Python)
                        .then(|| args.iter().find_map(|a| keyword(a, "mode")))
                        .flatten()
                        .and_then(|v| match v {
                            [t] => plain(t).map(str::to_owned),
                            _ => None,
                        })
                })
                .unwrap_or_default();
            writing(&mode)
                .then(|| single(args.first()))
                .flatten()
                .map(|p| stream(p, mode.contains('a'), mode.contains(['w', 'a', 'x'])))
        }
        (Lang::Ruby, "write" | "binwrite") if qualifier(name).eq_ignore_ascii_case("file") => {
            single(args.first()).map(|path| {
                // `mode: 'a'` appends; an offset or another option: not the whole text.
                let (append, whole) = match args.get(2).copied() {
                    None => (false, true),
                    Some([Tok::Ident("mode"), Tok::P(':'), m]) => {
                        let m = plain(m).unwrap_or("");
                        (m.contains('a'), m.contains(['w', 'a']))
                    }
                    Some(_) => (false, false),
                };
                let text = args.get(1).filter(|_| whole).and_then(|a| literal_text(a));
                Opened {
                    at: i,
                    path,
                    how: How::Whole { append, text },
                }
            })
        }
        (Lang::Php, "file_put_contents") => single(args.first()).map(|path| {
            let append = args.get(2).is_some_and(|a| {
                a.iter()
                    .any(|t| matches!(t, Tok::Ident(n) if n.contains("FILE_APPEND")))
            });
            let text = args.get(1).and_then(|a| literal_text(a));
            Opened {
                at: i,
                path,
                how: How::Whole { append, text },
            }
        }),
        (Lang::Php, "fopen") => {
            let mode = single(args.get(1)).unwrap_or_default();
            writing(&mode)
                .then(|| single(args.first()))
                .flatten()
                .map(|p| stream(p, mode.contains('a'), mode.contains(['w', 'a', 'x'])))
        }
        (Lang::Perl, "open") => match (single(args.get(1)), single(args.get(2))) {
            (Some(m), Some(p)) if m.starts_with(['>', '+']) => {
                let whole = m.starts_with('>') || m.starts_with("+>");
                Some(stream(p, m.contains(">>"), whole))
            }
            (Some(m), None) if m.starts_with('>') => {
                let p = m.trim_start_matches(['>', '+']).trim().to_owned();
                Some(stream(p, m.starts_with(">>"), true))
            }
            _ => None,
        },
        _ => None,
    };
    found.filter(|o| !o.path.is_empty())
}

/// A handle bound to a stream: its name and the slot of its file's text.
struct Handle<'a> {
    name: &'a str,
    slot: usize,
    /// The token that opened it (uses before it belong to an earlier binding).
    from: usize,
}

/// The methods that write text to a handle (`f.write`, Ruby `f.puts`, Lua `f:write`), with
/// what they add after it; the ones that only close or flush it add nothing.
fn method(lang: Lang, m: &str) -> Option<Method> {
    Some(match (lang, m) {
        (Lang::Python, "write") | (Lang::Ruby, "write" | "print" | "syswrite") => Method::Text,
        (Lang::Lua, "write") => Method::Concat,
        (Lang::Python, "writelines") => Method::Lines,
        (Lang::Ruby, "puts") => Method::Line,
        (Lang::Perl, "print") => Method::Concat,
        (Lang::Perl, "say") => Method::Line,
        (_, "close" | "flush") => Method::Nothing,
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Method {
    /// One literal.
    Text,
    /// Every argument, joined.
    Concat,
    /// Ruby `puts`, Perl `say`: a line (ends with a newline).
    Line,
    /// Python `writelines([…])`: the elements of a list or tuple, joined.
    Lines,
    /// `close`, `flush`.
    Nothing,
}

/// What a [`Method`] called with the arguments at `from` writes (`Some("")` for nothing,
/// `None` when not literal): `(…)`, or Ruby and Perl arguments without parentheses (literals up
/// to the end of the statement).
fn method_text(toks: &[Tok], from: usize, m: Method) -> Option<String> {
    if let Method::Nothing = m {
        return Some(String::new());
    }
    let args: Vec<&[Tok]> = match call_at(toks, from) {
        Some((args, _)) => args,
        None => {
            let rest = toks.get(from..).unwrap_or(&[]);
            let stop = rest
                .iter()
                .position(|t| matches!(t, Tok::P(';' | '}')) || matches!(t, Tok::Ident(_)))
                .unwrap_or(rest.len());
            let span = rest.get(..stop).unwrap_or(&[]);
            if span.is_empty() {
                return None;
            }
            split_args(span)
        }
    };
    let mut text = String::new();
    match m {
        Method::Text => match args.as_slice() {
            [a] => text = literal_text(a)?,
            _ => return None,
        },
        Method::Concat | Method::Line => {
            for a in &args {
                text.push_str(&literal_text(a)?);
            }
            if matches!(m, Method::Line) && !text.ends_with('\n') {
                text.push('\n');
            }
        }
        Method::Lines => match args.as_slice() {
            [[Tok::P('[' | '('), inner @ .., Tok::P(']' | ')')]] => {
                for a in split_args(inner) {
                    text.push_str(&literal_text(a)?);
                }
            }
            _ => return None,
        },
        Method::Nothing => {}
    }
    Some(text)
}

/// A write through a handle at token `k` (an identifier `name`): the handle's name, what it
/// writes (`None`: not literal) and the token of the name.
fn handle_write<'a>(
    toks: &[Tok<'a>],
    k: usize,
    name: &'a str,
    lang: Lang,
) -> Option<(&'a str, Option<String>, usize)> {
    let ident = |j: usize| match toks.get(j) {
        Some(Tok::Ident(n)) => Some(*n),
        _ => None,
    };
    let p = |j: usize, c: char| matches!(toks.get(j), Some(Tok::P(x)) if *x == c);
    // `f.write(…)`, `$fh->print(…)`, Lua `f:write(…)`.
    let dotted = name
        .rsplit_once('.')
        .or_else(|| name.rsplit_once("->"))
        .filter(|(h, _)| !h.is_empty());
    if let Some((h, m)) = dotted {
        let m = method(lang, m)?;
        return Some((h, method_text(toks, k + 1, m), k));
    }
    if lang == Lang::Lua && p(k + 1, ':') {
        let m = method(lang, ident(k + 2)?)?;
        return Some((name, method_text(toks, k + 3, m), k));
    }
    match (lang, name) {
        // Ruby `f << 'a' << 'b'`.
        (Lang::Ruby, _) if p(k + 1, '<') && p(k + 2, '<') => {
            let mut text = String::new();
            let mut j = k + 1;
            while p(j, '<') && p(j + 1, '<') {
                let s = toks.get(j + 2).and_then(plain);
                match s {
                    Some(s) => text.push_str(s),
                    None => return Some((name, None, k)),
                }
                j += 3;
            }
            let continues = matches!(toks.get(j), Some(Tok::P('+' | '.' | '*' | '%' | '[')));
            Some((name, (!continues).then_some(text), k))
        }
        // Python `print(…, file=f)`.
        (Lang::Python, "print") => {
            let (args, _) = call_at(toks, k + 1)?;
            let file = args.iter().find_map(|a| match keyword(a, "file") {
                Some([Tok::Ident(h)]) => Some(*h),
                _ => None,
            })?;
            let at = (k..k + super::MAX_ARG_TOKENS)
                .find(|&j| ident(j) == Some(file) && p(j.saturating_sub(1), '='))?;
            let (mut sep, mut end) = (" ".to_owned(), "\n".to_owned());
            let mut parts = Vec::new();
            let mut known = true;
            for a in &args {
                if let Some(v) = keyword(a, "sep") {
                    sep = literal_text(v).unwrap_or_default();
                    known &= literal_text(v).is_some();
                } else if let Some(v) = keyword(a, "end") {
                    end = literal_text(v).unwrap_or_default();
                    known &= literal_text(v).is_some();
                } else if keyword(a, "file").is_some() || keyword(a, "flush").is_some() {
                } else {
                    match literal_text(a) {
                        Some(t) => parts.push(t),
                        None => known = false,
                    }
                }
            }
            let text = known.then(|| parts.join(&sep) + &end);
            Some((file, text, at))
        }
        // PHP `fwrite($f, 'x')`, `fputs`, `fclose($f)`.
        (Lang::Php, "fwrite" | "fputs" | "fclose") => {
            let (args, _) = call_at(toks, k + 1)?;
            let h = match args.first() {
                Some([Tok::Ident(h)]) => *h,
                _ => return None,
            };
            let text = if name == "fclose" {
                Some(String::new())
            } else {
                match args.as_slice() {
                    [_, t] => literal_text(t),
                    _ => None,
                }
            };
            Some((h, text, k + 2))
        }
        // Perl `print F 'x'`, `print {$fh} 'x'`, `say`, `printf` (no `%`), `close(F)`.
        (Lang::Perl, "print" | "say" | "printf" | "close") => {
            let (h, at, args) = if p(k + 1, '(') && name == "close" {
                (ident(k + 2)?, k + 2, k + 3)
            } else if p(k + 1, '{') && p(k + 3, '}') {
                (ident(k + 2)?, k + 2, k + 4)
            } else {
                // A handle is followed by what it prints, not a comma or the statement's end.
                let h = ident(k + 1)?;
                let ends = matches!(toks.get(k + 2), None | Some(Tok::P(',' | ';' | ')' | '}')));
                if ends && name != "close" {
                    return None;
                }
                (h, k + 1, k + 2)
            };
            let text = match name {
                "close" => Some(String::new()),
                "printf" => method_text(toks, args, Method::Concat).filter(|t| !t.contains('%')),
                "say" => method_text(toks, args, Method::Line),
                _ => method_text(toks, args, Method::Concat),
            };
            Some((h, text, at))
        }
        _ => None,
    }
}

/// The name bound to the stream opened by the call at `at` (ending before `end`), and the
/// token of that name: `f = open(…)`, `with open(…) as f`, Ruby `{ |f|`/`do |f|`, Perl's first
/// argument (`open(F, …)`, `open(my $fh, …)`).
fn binding<'a>(toks: &[Tok<'a>], at: usize, end: usize, lang: Lang) -> Option<(&'a str, usize)> {
    let ident = |j: usize| match toks.get(j) {
        Some(Tok::Ident(n)) => Some(*n),
        _ => None,
    };
    let p = |j: usize, c: char| matches!(toks.get(j), Some(Tok::P(x)) if *x == c);
    if lang == Lang::Perl {
        let j = match ident(at + 2)? {
            "my" | "our" | "local" => at + 3,
            _ => at + 2,
        };
        return ident(j).map(|n| (n, j));
    }
    if at >= 2 && p(at - 1, '=') {
        // A statement's assignment: not `==`, `!=`, `<=`, nor a keyword argument
        // (`print(x, file=open(…))`, whose name is no handle).
        let before = at.checked_sub(3).and_then(|j| toks.get(j));
        if !matches!(before, Some(Tok::P('=' | '!' | '<' | '>' | '(' | ','))) {
            if let Some(n) = ident(at - 2) {
                return Some((n, at - 2));
            }
        }
    }
    if lang == Lang::Python && ident(end) == Some("as") {
        return ident(end + 1).map(|n| (n, end + 1));
    }
    let block = p(end, '{') || ident(end) == Some("do");
    if lang == Lang::Ruby && block && p(end + 1, '|') && p(end + 3, '|') {
        return ident(end + 2).map(|n| (n, end + 2));
    }
    None
}

/// A write on the stream itself, right after its call (`open(…).write('x')`, Lua
/// `io.open(…):write('x')`): what it writes (`None`: not literal), when there is one.
fn chained(toks: &[Tok], end: usize, lang: Lang) -> Option<Option<String>> {
    let sep = match lang {
        Lang::Lua => ':',
        Lang::Python | Lang::Ruby => '.',
        _ => return None,
    };
    if !matches!(toks.get(end), Some(Tok::P(c)) if *c == sep) {
        return None;
    }
    let Some(Tok::Ident(m)) = toks.get(end + 1) else {
        return None;
    };
    let m = method(lang, m)?;
    Some(method_text(toks, end + 2, m))
}

/// Adds to `s.texts` the files among `opened` (in order) whose whole text the code shows.
pub(super) fn texts(toks: &[Tok], lang: Lang, opened: &[Opened], s: &mut Scan) {
    if opened.len() > MAX_OPENED {
        return;
    }
    // (path, text so far or `None` once unknown, appends), in the order opened.
    let mut files: Vec<(&str, Option<String>, bool)> = Vec::new();
    let mut handles: Vec<Handle> = Vec::new();
    // Tokens of handle names the scan accounts for (bindings and writes), by index (made only
    // when a handle is bound).
    let mut accounted: Vec<bool> = Vec::new();
    let account = |accounted: &mut Vec<bool>, at: usize| {
        if accounted.is_empty() {
            accounted.resize(toks.len(), false);
        }
        if let Some(a) = accounted.get_mut(at) {
            *a = true;
        }
    };
    for o in opened {
        match &o.how {
            How::Whole { append, text } => files.push((o.path.as_str(), text.clone(), *append)),
            How::Stream { append, whole, end } => {
                let slot = files.len();
                let mut text = whole.then(String::new);
                if let Some(written) = chained(toks, *end, lang) {
                    text = text.zip(written).map(|(a, b)| a + &b);
                } else {
                    match binding(toks, o.at, *end, lang).filter(|_| handles.len() < MAX_HANDLES) {
                        Some((name, at)) => {
                            handles.push(Handle {
                                name,
                                slot,
                                from: o.at,
                            });
                            account(&mut accounted, at);
                        }
                        // Written some way the scan does not follow.
                        None => text = None,
                    }
                }
                files.push((o.path.as_str(), text, *append));
            }
        }
    }
    if !handles.is_empty() {
        for (k, t) in toks.iter().enumerate() {
            let Tok::Ident(name) = t else { continue };
            if let Some((h, text, at)) = handle_write(toks, k, name, lang) {
                let handle = handles.iter().rev().find(|x| x.name == h && x.from < k);
                if let Some(file) = handle.and_then(|x| files.get_mut(x.slot)) {
                    file.1 = file.1.take().zip(text).map(|(a, b)| a + &b);
                    account(&mut accounted, at);
                }
            }
            if accounted.get(k).copied().unwrap_or(false) {
                continue;
            }
            // Any other use of a handle (given to a call, assigned): its text is unknown.
            for x in handles.iter().filter(|x| x.from < k) {
                let used = name.strip_prefix(x.name).is_some_and(|rest| {
                    rest.is_empty() || rest.starts_with('.') || rest.starts_with("->")
                });
                if used {
                    if let Some(file) = files.get_mut(x.slot) {
                        file.1 = None;
                    }
                }
            }
        }
    }
    for (path, text, append) in &files {
        // A file written once with text not known is not known at all.
        let known = files.iter().all(|(p, t, _)| p != path || t.is_some());
        if let (true, Some(text)) = (known, text) {
            if s.texts.len() < MAX_TEXTS {
                s.texts.push(((*path).to_owned(), text.clone(), *append));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{scan, Lang};

    fn texts(code: &str, lang: Lang) -> Vec<(String, String, bool)> {
        scan(code, lang).texts
    }

    fn one(path: &str, text: &str) -> Vec<(String, String, bool)> {
        vec![(path.to_owned(), text.to_owned(), false)]
    }

    #[test]
    fn python_writes_literal_text() {
        for code in [
            "open('x.sh','w').write('rm -rf ~')",
            "open('x.sh', 'w').write(\"rm -rf ~\")",
            "open('x.sh', mode='w').write('rm -rf ~')",
            "f = open('x.sh', 'w'); f.write('rm -rf ~'); f.close()",
            "with open('x.sh', 'w') as f: f.write('rm -rf ~')",
            "with open('x.sh', 'w') as f:\n    f.write('rm -rf ')\n    f.write('~')",
            "import pathlib; pathlib.Path('x.sh').write_text('rm -rf ~')",
            "from pathlib import Path; Path('x.sh').write_text('rm -rf ' + '~', encoding='utf-8')",
            "open('x.sh','w').writelines(['rm ', '-rf ~'])",
        ] {
            assert_eq!(texts(code, Lang::Python), one("x.sh", "rm -rf ~"), "{code}");
        }
        assert_eq!(
            texts(
                "f = open('x.sh', 'w'); print('rm', '-rf', '~', file=f)",
                Lang::Python
            ),
            one("x.sh", "rm -rf ~\n")
        );
        assert_eq!(
            texts("open('x.sh', 'a').write('rm -rf ~')", Lang::Python),
            vec![("x.sh".to_owned(), "rm -rf ~".to_owned(), true)]
        );
        assert_eq!(
            texts(
                "open('x.sh', 'w').write('#!/bin/sh\\nrm -rf ~\\n')",
                Lang::Python
            ),
            one("x.sh", "#!/bin/sh\nrm -rf ~\n")
        );
    }

    #[test]
    fn python_text_not_shown_is_unknown() {
        for code in [
            "open('x.sh','w').write(cmd)",
            "open('x.sh','w').write('rm -rf ' + d)",
            "open('x.sh','w').write(f'rm -rf {d}')",
            "open('x.sh','w').write('rm -rf %s' % d)",
            "f = open('x.sh','w'); f.write('rm -rf ~'); f.write(more)",
            "f = open('x.sh','w'); f.write('echo'); json.dump(d, f)",
            "json.dump(d, open('x.sh','w'))",
            "print('rm -rf ~', file=open('x.sh', 'w'))",
            "open('x.sh','r+').write('rm -rf ~')",
            "open('x.sh').read()",
            "print('rm -rf ~')",
            "open(name, 'w').write('rm -rf ~')",
            "Path('x.sh').write_text(body)",
            "open('x.sh','w').write('a'); open('x.sh','a').write(rest)",
        ] {
            assert_eq!(texts(code, Lang::Python), vec![], "{code}");
        }
    }

    #[test]
    fn other_languages_write_literal_text() {
        let cases = [
            (
                Lang::Perl,
                "open(F,\">x.sh\"); print F \"rm -rf ~\"; close(F)",
            ),
            (
                Lang::Perl,
                "open(my $fh, '>', 'x.sh') or die; print $fh 'rm -rf ~'; close $fh",
            ),
            (
                Lang::Perl,
                "open(my $fh, '>', 'x.sh'); print {$fh} 'rm -rf ', '~'",
            ),
            (Lang::Ruby, "File.write(\"x.sh\", \"rm -rf ~\")"),
            (
                Lang::Ruby,
                "File.open('x.sh', 'w') { |f| f.write 'rm -rf ~' }",
            ),
            (
                Lang::Ruby,
                "File.open('x.sh', 'w') do |f| f << 'rm -rf ' << '~' end",
            ),
            (Lang::Php, "file_put_contents('x.sh', 'rm -rf ~');"),
            (
                Lang::Php,
                "$f = fopen('x.sh', 'w'); fwrite($f, \"rm -rf ~\"); fclose($f);",
            ),
            (Lang::Lua, "io.open('x.sh', 'w'):write('rm -rf ', '~')"),
            (
                Lang::Lua,
                "local f = io.open('x.sh', 'w'); f:write('rm -rf ~'); f:close()",
            ),
        ];
        for (lang, code) in cases {
            assert_eq!(texts(code, lang), one("x.sh", "rm -rf ~"), "{code}");
        }
        assert_eq!(
            texts(
                "File.open('x.sh', 'w') { |f| f.puts 'rm -rf ~' }",
                Lang::Ruby
            ),
            one("x.sh", "rm -rf ~\n")
        );
        assert_eq!(
            texts(
                "file_put_contents('x.sh', 'rm -rf ~', FILE_APPEND);",
                Lang::Php
            ),
            vec![("x.sh".to_owned(), "rm -rf ~".to_owned(), true)]
        );
    }

    #[test]
    fn other_languages_text_not_shown_is_unknown() {
        let cases = [
            (Lang::Perl, "open(F, '>x.sh'); print F \"rm -rf $d\""),
            (Lang::Perl, "open(F, '>x.sh'); print F $cmd"),
            (
                Lang::Perl,
                "open(F, '>x.sh'); print STDOUT 'rm -rf ~'; system('cat', F)",
            ),
            (Lang::Ruby, "File.write('x.sh', \"rm -rf #{d}\")"),
            (Lang::Ruby, "File.write('x.sh', cmd)"),
            (Lang::Ruby, "File.open('x.sh', 'w') { |f| f.puts cmd }"),
            (Lang::Php, "file_put_contents('x.sh', $cmd);"),
            (Lang::Php, "$f = fopen('x.sh', 'w'); fwrite($f, $x);"),
            (Lang::Lua, "io.open('x.sh', 'w'):write(cmd)"),
        ];
        for (lang, code) in cases {
            assert_eq!(texts(code, lang), vec![], "{code}");
        }
    }

    /// Code that opens more files than are followed reports no text (a later opening could
    /// overwrite one), and a long run of writes through one handle stays linear.
    #[test]
    fn bounded() {
        let many: String = (0..=super::MAX_OPENED)
            .map(|i| format!("open('f{i}', 'w').write('x');"))
            .collect();
        assert_eq!(
            scan(&many, Lang::Python).writes.len(),
            super::MAX_OPENED + 1
        );
        assert_eq!(texts(&many, Lang::Python), vec![]);
        let long = format!("f = open('x.sh', 'w'); {}", "f.write('a');".repeat(3000));
        let start = std::time::Instant::now();
        let t = texts(&long, Lang::Python);
        assert_eq!(t, one("x.sh", &"a".repeat(3000)));
        assert!(start.elapsed().as_secs() < 5);
        // Code not scanned to its end (past the token or byte limit) shows no text.
        let cut = format!("f = open('x.sh', 'w'); {}", "f.write('a');".repeat(5000));
        assert_eq!(texts(&cut, Lang::Python), vec![]);
        let cut = format!(
            "open('x.sh', 'w').write('a'); x = '{}'",
            "y".repeat(super::super::MAX_CODE)
        );
        assert_eq!(texts(&cut, Lang::Python), vec![]);
    }

    /// The paths of the files written are what they were before texts were read (and Perl,
    /// Ruby and PHP double-quoted paths with nothing interpolated count too).
    #[test]
    fn written_paths() {
        assert_eq!(
            scan("open(F,\">x.sh\"); print F 'x'", Lang::Perl).writes,
            ["x.sh"]
        );
        assert_eq!(
            scan("File.write(\"x.sh\", 'x')", Lang::Ruby).writes,
            ["x.sh"]
        );
        assert!(scan("File.write(\"#{d}/x.sh\", 'x')", Lang::Ruby)
            .writes
            .is_empty());
        assert_eq!(
            scan("open('x.sh', mode='w').write('x')", Lang::Python).writes,
            ["x.sh"]
        );
    }
}
