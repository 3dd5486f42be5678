//! Token rewrites between the lexer and the walk: TypeScript-only syntax removed and a few
//! spellings of a member access brought to the plain form, so the walk matches them like the
//! JavaScript it already knows.
//!
//! - `x as T`, `x satisfies T` (the type, on the same line), `const x: T = …` and
//!   `let {a}: T = …` annotations, `x!` non-null assertions and the type arguments of a call
//!   (`f<T>(…)`, ``tag<T>`…` ``) are dropped: TypeScript erases them, so they never run.
//! - `Reflect.get(o, 'name')` becomes `o.name` and `Reflect.get(o, expr)` becomes `o[expr]`.
//! - A parenthesised name used as an object (`(globalThis).eval`, `(window)[k]`, left by a
//!   dropped cast) loses its parentheses.
//!
//! Nothing that JavaScript would run is dropped: a cast is only stripped when the type starts
//! on the same line (`foo\nas(x)` is a call of a function named `as`), a type ends at a line
//! break, and type arguments holding a parenthesis or a template (`a < f() > (b)` compares)
//! stay. Linear: every token is looked at a bounded number of times (type scans stop at
//! [`TYPE_TOKENS`] tokens).

use super::{Kind, Tok, EXPR_KEYWORDS};
use std::borrow::Cow;

/// Tokens one type (or one list of type arguments) may span.
const TYPE_TOKENS: usize = 96;

/// The rewritten token list.
pub(super) fn normalize(toks: Vec<Tok<'_>>) -> Vec<Tok<'_>> {
    let toks = strip(toks);
    unwrap_names(toks)
}

fn is_punct(toks: &[Tok], i: usize, p: &str) -> bool {
    toks.get(i)
        .is_some_and(|t| t.kind == Kind::Punct && t.text == p)
}

fn ident<'t>(toks: &'t [Tok], i: usize) -> Option<&'t str> {
    toks.get(i)
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| &*t.text)
}

/// Matching closers of `(`, `[`, `{` at the same template level (`usize::MAX`: none).
fn closers(toks: &[Tok]) -> Vec<usize> {
    let mut close = vec![usize::MAX; toks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Punct {
            continue;
        }
        while stack
            .last()
            .and_then(|&o| toks.get(o))
            .is_some_and(|o| o.level > t.level)
        {
            stack.pop();
        }
        let want = match &*t.text {
            "(" | "[" | "{" => {
                stack.push(i);
                continue;
            }
            ")" => "(",
            "]" => "[",
            "}" => "{",
            _ => continue,
        };
        if let Some(&o) = stack.last() {
            if toks.get(o).is_some_and(|ot| ot.text == want) {
                stack.pop();
                if let Some(slot) = close.get_mut(o) {
                    *slot = i;
                }
            }
        }
    }
    close
}

/// The token ends an expression (a cast or a non-null assertion may follow it).
fn ends_expression(t: &Tok) -> bool {
    match t.kind {
        Kind::Ident => !EXPR_KEYWORDS.contains(&&*t.text),
        Kind::Str | Kind::Tpl | Kind::Num | Kind::Regex => true,
        Kind::Punct => matches!(&*t.text, ")" | "]" | "}"),
    }
}

/// Where the type starting at `j` ends (`j` itself when none starts there). Stops at a line
/// break, at [`TYPE_TOKENS`] tokens, and at anything that is no part of a type.
fn skip_type(toks: &[Tok], close: &[usize], start: usize) -> usize {
    let limit = start + TYPE_TOKENS;
    let mut j = start;
    let group_end = |o: usize| close.get(o).copied().filter(|&c| c != usize::MAX);
    let level = toks.get(start).map_or(0, |t| t.level);
    // Still the same type: on the same line and in the same `${…}`.
    let same_line = |k: usize| {
        toks.get(k)
            .is_some_and(|t| t.level == level && (k == start || (!t.nl && !t.seg)))
    };
    loop {
        if j >= limit || !same_line(j) {
            return j.min(limit);
        }
        let before = j;
        while matches!(
            ident(toks, j),
            Some("keyof" | "typeof" | "readonly" | "unique" | "infer" | "asserts")
        ) && same_line(j + 1)
            && toks.get(j + 1).is_some_and(|t| t.kind == Kind::Ident)
        {
            j += 1;
        }
        let Some(t) = toks.get(j) else { return before };
        match t.kind {
            Kind::Ident => {
                j += 1;
                if t.text == "import" && is_punct(toks, j, "(") {
                    match group_end(j) {
                        Some(c) => j = c + 1,
                        None => return before,
                    }
                }
            }
            Kind::Str | Kind::Num => j += 1,
            Kind::Punct
                if t.text == "-" && toks.get(j + 1).is_some_and(|n| n.kind == Kind::Num) =>
            {
                j += 2
            }
            // `{ a: T }`; `[A, B]` holding no call or template (after a block, `} as[f()]`
            // indexes a variable named `as`); `(a: T) => R` (a parenthesised type is not
            // followed: `} as(f())` calls `as`). A template is no type here for the same reason.
            Kind::Punct if matches!(&*t.text, "(" | "[" | "{") => {
                let Some(c) = group_end(j) else { return before };
                let ok = match &*t.text {
                    "(" => is_punct(toks, c + 1, "=>"),
                    "[" => !(j..c).any(|k| {
                        toks.get(k).is_some_and(|x| {
                            x.kind == Kind::Tpl || (x.kind == Kind::Punct && x.text == "(")
                        })
                    }),
                    _ => true,
                };
                if !ok {
                    return before;
                }
                j = c + 1;
            }
            _ => return before,
        }
        // Postfix: `.name`, `<args>`, `[]` / `[K]`.
        loop {
            if j >= limit || !same_line(j) {
                return j.min(limit);
            }
            if is_punct(toks, j, ".") && ident(toks, j + 1).is_some() {
                j += 2;
            } else if is_punct(toks, j, "<") {
                match angle_end(toks, j, true) {
                    Some(e) => j = e + 1,
                    None => return j,
                }
            } else if is_punct(toks, j, "[") {
                match group_end(j) {
                    Some(c) => j = c + 1,
                    None => return j,
                }
            } else {
                break;
            }
        }
        if j < limit && same_line(j) && (is_punct(toks, j, "|") || is_punct(toks, j, "&")) {
            j += 1;
            continue;
        }
        if j < limit && same_line(j) && is_punct(toks, j, "=>") {
            j += 1;
            continue;
        }
        return j;
    }
}

/// The `>` closing type arguments opened by the `<` at `open`, on one line, within
/// [`TYPE_TOKENS`]. `groups`: parentheses and templates may appear (a type after `as`); for
/// the type arguments of a call they may not (`a < f() > (b)` is a comparison that calls).
fn angle_end(toks: &[Tok], open: usize, groups: bool) -> Option<usize> {
    let mut depth = 0usize;
    let level = toks.get(open)?.level;
    for k in open..toks.len().min(open + TYPE_TOKENS) {
        let t = toks.get(k)?;
        if k > open && (t.nl || t.seg || t.level != level) {
            return None;
        }
        match t.kind {
            Kind::Punct => match &*t.text {
                "<" => depth += 1,
                ">" => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(k);
                    }
                }
                "(" | ")" if !groups => return None,
                // `a < b && c > (d)` compares.
                "&" | "|" if is_punct(toks, k + 1, &t.text) => return None,
                ";" | "=" | "!" | "+" | "*" | "/" | "%" | "~" | "^" | "@" | "#" => return None,
                _ => {}
            },
            Kind::Tpl | Kind::Regex if !groups => return None,
            _ => {}
        }
    }
    None
}

/// Drops TypeScript-only syntax and rewrites `Reflect.get`.
fn strip(mut toks: Vec<Tok<'_>>) -> Vec<Tok<'_>> {
    let n = toks.len();
    let close = closers(&toks);
    let mut drop = vec![false; n];
    // Inside `import {…} from` / `export {…}`: `a as b` renames, it is no cast.
    let mut clause = false;
    let mut i = 0;
    while i < n {
        let Some(t) = toks.get(i) else { break };
        let prev_ends = i
            .checked_sub(1)
            .and_then(|p| toks.get(p))
            .is_some_and(ends_expression);
        match (t.kind, &*t.text) {
            (Kind::Ident, "import") => {
                clause |= !is_punct(&toks, i + 1, "(") && !is_punct(&toks, i + 1, ".");
            }
            (Kind::Ident, "export") => {
                clause |= is_punct(&toks, i + 1, "{") || is_punct(&toks, i + 1, "*");
            }
            (Kind::Ident, "from") | (Kind::Punct, ";") => clause = false,
            (Kind::Ident, "as" | "satisfies") if !clause && prev_ends && !t.nl => {
                let end = skip_type(&toks, &close, i + 1);
                if end > i + 1 && toks.get(i + 1).is_some_and(|n| !n.nl) {
                    for d in drop.iter_mut().take(end).skip(i) {
                        *d = true;
                    }
                    i = end;
                    continue;
                }
            }
            (Kind::Ident, "const" | "let" | "var") => {
                // `const x: T =`, `let x!: T;`, `const {a}: T =`
                let mut j = i + 1;
                if ident(&toks, j).is_some() {
                    j += 1;
                } else if is_punct(&toks, j, "{") || is_punct(&toks, j, "[") {
                    match close.get(j).copied().filter(|&c| c != usize::MAX) {
                        Some(c) => j = c + 1,
                        None => {
                            i += 1;
                            continue;
                        }
                    }
                } else {
                    i += 1;
                    continue;
                }
                let from = j;
                if is_punct(&toks, j, "!") {
                    j += 1;
                }
                if is_punct(&toks, j, ":") {
                    let end = skip_type(&toks, &close, j + 1);
                    if end > j + 1 {
                        for d in drop.iter_mut().take(end).skip(from) {
                            *d = true;
                        }
                        i = end;
                        continue;
                    }
                }
            }
            (Kind::Ident, "Reflect") => reflect_get(&mut toks, &close, &mut drop, i),
            // `x!.y`, `f(x!)`: a non-null assertion.
            (Kind::Punct, "!")
                if prev_ends
                    && toks.get(i + 1).is_some_and(|n| {
                        n.kind == Kind::Punct
                            && matches!(&*n.text, "." | ")" | "," | ";" | "]" | "[" | "}")
                    }) =>
            {
                if let Some(d) = drop.get_mut(i) {
                    *d = true;
                }
            }
            // `f<T>(…)`, `new Map<string, Function>()`, ``tag<T>`…` ``
            (Kind::Punct, "<")
                if !t.nl
                    && i.checked_sub(1).and_then(|p| toks.get(p)).is_some_and(|p| {
                        p.kind == Kind::Ident && !EXPR_KEYWORDS.contains(&&*p.text)
                    }) =>
            {
                if let Some(e) = angle_end(&toks, i, false) {
                    let called = toks.get(e + 1).is_some_and(|a| {
                        !a.nl && (a.kind == Kind::Tpl || (a.kind == Kind::Punct && a.text == "("))
                    });
                    if called {
                        for d in drop.iter_mut().take(e + 1).skip(i) {
                            *d = true;
                        }
                        i = e + 1;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    rebuild(toks, &drop)
}

/// `Reflect.get(o, 'name')` → `o.name`; `Reflect.get(o, expr)` → `o[expr]` (`o` one name).
fn reflect_get(toks: &mut [Tok<'_>], close: &[usize], drop: &mut [bool], i: usize) {
    let shaped = is_punct(toks, i + 1, ".")
        && ident(toks, i + 2) == Some("get")
        && is_punct(toks, i + 3, "(")
        && ident(toks, i + 4).is_some()
        && is_punct(toks, i + 5, ",")
        && !is_punct(toks, i.wrapping_sub(1), ".");
    if !shaped {
        return;
    }
    let Some(c) = close.get(i + 3).copied().filter(|&c| c != usize::MAX) else {
        return;
    };
    if c <= i + 6 {
        return;
    }
    // The name expression: up to the closer, or a third argument (the receiver).
    let mut end = c;
    let mut k = i + 6;
    while k < c {
        if is_punct(toks, k, ",") {
            end = k;
            break;
        }
        k = match close.get(k).copied().filter(|&x| x != usize::MAX) {
            Some(x) if toks.get(k).is_some_and(|t| t.kind == Kind::Punct) => x + 1,
            _ => match toks.get(k) {
                Some(t) if t.kind == Kind::Tpl => t.skip_to.max(k + 1),
                _ => k + 1,
            },
        };
    }
    if end != c {
        // `Reflect.get(o, k, receiver)`: the receiver is dropped with the call's parentheses
        // only when it is a single name.
        if c != end + 2 || ident(toks, end + 1).is_none() {
            return;
        }
    }
    for d in drop.iter_mut().take(i + 4).skip(i) {
        *d = true;
    }
    let literal = end == i + 7
        && toks
            .get(i + 6)
            .is_some_and(|t| t.kind == Kind::Str || (t.kind == Kind::Tpl && !t.interp))
        && toks.get(i + 6).is_some_and(|t| {
            let mut cs = t.text.chars();
            cs.next().is_some_and(super::is_id_start) && cs.all(super::is_id_continue)
        });
    if literal {
        if let Some(comma) = toks.get_mut(i + 5) {
            comma.text = Cow::Borrowed(".");
        }
        if let Some(name) = toks.get_mut(i + 6) {
            name.kind = Kind::Ident;
        }
        for d in drop.iter_mut().take(c + 1).skip(end) {
            *d = true;
        }
    } else {
        if let Some(comma) = toks.get_mut(i + 5) {
            comma.text = Cow::Borrowed("[");
        }
        if let Some(closer) = toks.get_mut(c) {
            closer.text = Cow::Borrowed("]");
        }
        for d in drop.iter_mut().take(c).skip(end) {
            *d = true;
        }
    }
}

/// `(name).x` / `(name)[k]` → `name.x` / `name[k]` when the parentheses group no call
/// (`f(name).x` keeps them).
fn unwrap_names(toks: Vec<Tok<'_>>) -> Vec<Tok<'_>> {
    let n = toks.len();
    let mut drop = vec![false; n];
    let mut any = false;
    for i in 0..n {
        let wrapped = is_punct(&toks, i, "(")
            && ident(&toks, i + 1).is_some_and(|x| !EXPR_KEYWORDS.contains(&x))
            && is_punct(&toks, i + 2, ")")
            && (is_punct(&toks, i + 3, ".") || is_punct(&toks, i + 3, "["))
            && toks
                .get(i + 1)
                .zip(toks.get(i))
                .is_some_and(|(a, b)| a.level == b.level)
            && !i
                .checked_sub(1)
                .and_then(|p| toks.get(p))
                .is_some_and(ends_expression);
        if wrapped {
            for k in [i, i + 2] {
                if let Some(d) = drop.get_mut(k) {
                    *d = true;
                }
            }
            any = true;
        }
    }
    if any {
        rebuild(toks, &drop)
    } else {
        toks
    }
}

/// The tokens not dropped, with template extents (`skip_to`) renumbered and the marker of an
/// interpolation's first token moved to its first kept token.
fn rebuild<'a>(toks: Vec<Tok<'a>>, drop: &[bool]) -> Vec<Tok<'a>> {
    if !drop.iter().any(|&d| d) {
        return toks;
    }
    let n = toks.len();
    // new_index[k]: kept tokens before k (k ≤ n).
    let mut new_index = Vec::with_capacity(n + 1);
    let mut kept = 0usize;
    for k in 0..n {
        new_index.push(kept);
        if !drop.get(k).copied().unwrap_or(false) {
            kept += 1;
        }
    }
    new_index.push(kept);
    let mut out = Vec::with_capacity(kept);
    let mut carry_seg = false;
    for (k, mut t) in toks.into_iter().enumerate() {
        if drop.get(k).copied().unwrap_or(false) {
            carry_seg |= t.seg;
            continue;
        }
        t.skip_to = new_index
            .get(t.skip_to.min(n))
            .copied()
            .unwrap_or(kept)
            .max(out.len() + 1);
        t.seg |= std::mem::take(&mut carry_seg);
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lex;
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        normalize(lex(src).toks)
            .into_iter()
            .map(|t| t.text.into_owned())
            .collect()
    }

    #[test]
    fn casts_and_annotations_are_dropped() {
        assert_eq!(
            texts("(globalThis as any).eval(s)"),
            ["globalThis", ".", "eval", "(", "s", ")"]
        );
        assert_eq!(
            texts("const p: typeof import('x') = require('y')"),
            ["const", "p", "=", "require", "(", "y", ")"]
        );
        assert_eq!(texts("f(x!)"), ["f", "(", "x", ")"]);
        assert_eq!(
            texts("new Map<string, Function>()"),
            ["new", "Map", "(", ")"]
        );
        assert_eq!(
            texts("const v = x satisfies Record<string, unknown>;"),
            ["const", "v", "=", "x", ";"]
        );
    }

    #[test]
    fn renames_comparisons_and_calls_after_line_breaks_stay() {
        assert_eq!(
            texts("import { a as b } from 'm'"),
            ["import", "{", "a", "as", "b", "}", "from", "m"]
        );
        assert_eq!(texts("a < f() > (b)").len(), 9);
        assert_eq!(texts("foo\nas(x)"), ["foo", "as", "(", "x", ")"]);
        assert_eq!(texts("let x: Foo\nrun()"), ["let", "x", "run", "(", ")"]);
    }

    #[test]
    fn reflect_get_is_a_member_access() {
        assert_eq!(
            texts("Reflect.get(globalThis, 'eval')(s)"),
            ["globalThis", ".", "eval", "(", "s", ")"]
        );
        assert_eq!(
            texts("Reflect.get(g, 'ev' + 'al')"),
            ["g", "[", "ev", "+", "al", "]"]
        );
    }

    #[test]
    fn templates_keep_their_extent() {
        let toks = normalize(lex("`a${x as string}b${y}`").toks);
        assert_eq!(toks.len(), 3);
        assert_eq!(toks[0].skip_to, 3);
        assert!(toks[1].seg && toks[2].seg);
    }
}
