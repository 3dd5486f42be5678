//! Text a cell computes from literals with well-known string functions, so a command spelled
//! backwards, by character codes or in base64 is analysed as the command it is:
//!
//! - `[a, b].join(sep)`, `[...'abc']`, `Array.from(s)`, `s.split(sep)`, `a.reverse()`;
//! - `String.fromCharCode(…)` / `String.fromCodePoint(…)` of number literals, `String.raw`;
//! - `atob(s)`, `Buffer.from(s, 'base64' | 'base64url' | 'hex' | 'utf8' | 'latin1')` and
//!   `Buffer.from([…])` read back with `.toString()`, `new TextDecoder().decode(bytes)` of a
//!   `Buffer`, `new Uint8Array([…])` or `Uint8Array.from([…])`;
//! - `decodeURIComponent`, `decodeURI`, `unescape`, `String(s)`;
//! - `.toLowerCase()`, `.toUpperCase()`, `.trim()`, `.toString()`, `.concat(…)`,
//!   `.replace(a, b)` / `.replaceAll(a, b)` with string patterns.
//!
//! Anything else (or any input only known at run time) is not computed (`None`), and the
//! caller keeps the value unknown. Decoded text never carries the value placeholders
//! ([`super::UNKNOWN`], [`super::HOME`], [`super::CWD`]): they are replaced like in string
//! literals. Bounded like [`Code::value`]: nesting at most `MAX_VALUE_DEPTH`, results no
//! longer than the analysis limit.

use super::{sanitize, Code, Kind, MAX_VALUE_DEPTH, UNKNOWN};

impl Code<'_> {
    /// The text the expression `(x, y)` computes from literals, when it is one of the forms
    /// above.
    pub(super) fn computed_text(&self, (x, y): (usize, usize), depth: u8) -> Option<String> {
        if depth >= MAX_VALUE_DEPTH || y < x + 3 {
            return None;
        }
        // String.raw`…`
        if self.is_ident(x, "String") && self.punct(x + 1, ".") && self.is_ident(x + 2, "raw") {
            let t = self.tok(x + 3)?;
            return (t.kind == Kind::Tpl && t.skip_to == y)
                .then(|| self.operand((x + 3, y), depth + 1));
        }
        let last = y - 1;
        if !self.punct(last, ")") {
            return None;
        }
        let open = self.open.at(last).filter(|&o| o > x)?;
        let f = self.ident(open - 1)?;
        let args = self.parts(open);
        if open - 1 == x {
            let text = match f {
                "atob" => bytes_text(&crate::analysis::shell::pwsh::decode_base64(
                    &self.known_arg(&args, 0, depth)?,
                )?),
                "decodeURIComponent" | "decodeURI" | "unescape" => {
                    percent_decode(&self.known_arg(&args, 0, depth)?)?
                }
                "String" => self.known_arg(&args, 0, depth)?,
                _ => return None,
            };
            return self.bounded(text);
        }
        if open < x + 3 || !self.punct(open - 2, ".") {
            return None;
        }
        let recv = (x, open - 2);
        let text = match f {
            "fromCharCode" | "fromCodePoint" if self.seq(recv, &["String"]) => {
                let mut s = String::new();
                for r in &args {
                    let code = self.number(*r)?;
                    s.push(sanitize(char::from_u32(code)?));
                }
                s
            }
            "join" => {
                let items = self.items(recv, depth + 1)?;
                let sep = match args.as_slice() {
                    [] => ",".to_owned(),
                    [r] => self.value(*r, depth + 1),
                    _ => return None,
                };
                items.join(&sep)
            }
            "toString" => match self.bytes(recv, depth + 1) {
                Some(b) => {
                    let enc = match args.as_slice() {
                        [] => "utf8".to_owned(),
                        [_] => self.known_arg(&args, 0, depth)?,
                        _ => return None,
                    };
                    match enc.to_ascii_lowercase().as_str() {
                        "utf8" | "utf-8" => bytes_text(&b),
                        "latin1" | "binary" | "ascii" => {
                            b.iter().map(|&c| sanitize(char::from(c))).collect()
                        }
                        _ => return None,
                    }
                }
                None => self.known(recv, depth + 1)?,
            },
            "decode" => {
                let decoder = self.is_ident(x, "new")
                    && self.is_ident(x + 1, "TextDecoder")
                    && (recv.1 == x + 2
                        || (self.punct(x + 2, "(") && self.group_end(x + 2) + 1 == recv.1));
                if !decoder {
                    return None;
                }
                let &r = args.first()?;
                bytes_text(&self.bytes(r, depth + 1)?)
            }
            // `['ls', 'rm -rf ~'].at(-1)`: an element; `'a~'.at(-1)`: a character.
            "at" if self.items(recv, depth + 1).is_some() => {
                let items = self.items(recv, depth + 1)?;
                let n = self.int_arg(&args, 0, depth)?;
                let k = if n < 0 { n + len_i64(items.len()) } else { n };
                items.get(usize::try_from(k).ok()?)?.clone()
            }
            _ => {
                let s = self.known(recv, depth + 1)?;
                self.string_method(s, f, &args, depth)?
            }
        };
        self.bounded(text)
    }

    /// `s.f(args)` for the string methods that compute text from text: case, trimming,
    /// `concat`, `replace`/`replaceAll` with a string pattern, `slice`, `substring`,
    /// `substr`, `charAt`, `at`, `repeat`, `padStart`/`padEnd`, `normalize`, `valueOf`
    /// (positions count UTF-16 units, as in JavaScript). `None` for any other method or an
    /// argument not known before run time.
    pub(super) fn string_method(
        &self,
        s: String,
        f: &str,
        args: &[(usize, usize)],
        depth: u8,
    ) -> Option<String> {
        let text = match f {
            "toLowerCase" | "toLocaleLowerCase" => s.to_lowercase(),
            "toUpperCase" | "toLocaleUpperCase" => s.to_uppercase(),
            "trim" => s.trim().to_owned(),
            "trimStart" | "trimLeft" => s.trim_start().to_owned(),
            "trimEnd" | "trimRight" => s.trim_end().to_owned(),
            "toString" | "valueOf" | "normalize" if args.is_empty() => s,
            "concat" => {
                let mut s = s;
                for k in 0..args.len() {
                    s.push_str(&self.known_arg(args, k, depth)?);
                }
                s
            }
            "replace" | "replaceAll" => {
                let [p, w] = args else {
                    return None;
                };
                // A string pattern only (a regex is not followed).
                if !self
                    .tok(p.0)
                    .is_some_and(|t| matches!(t.kind, Kind::Str | Kind::Tpl))
                {
                    return None;
                }
                let pat = self.known(*p, depth + 1)?;
                let with = self.known(*w, depth + 1)?;
                if f == "replace" {
                    s.replacen(&pat, &with, 1)
                } else if pat.is_empty() {
                    return None;
                } else {
                    s.replace(&pat, &with)
                }
            }
            "slice" | "substring" | "substr" | "charAt" | "at" => {
                let u: Vec<u16> = s.encode_utf16().collect();
                let len = len_i64(u.len());
                let arg = |k: usize| -> Option<Option<i64>> {
                    match args.get(k) {
                        None => Some(None),
                        Some(_) => self.int_arg(args, k, depth).map(Some),
                    }
                };
                let (a, b) = match f {
                    "slice" => {
                        let from_end = |v: i64| if v < 0 { (len + v).max(0) } else { v.min(len) };
                        (
                            from_end(arg(0)?.unwrap_or(0)),
                            from_end(arg(1)?.unwrap_or(len)),
                        )
                    }
                    "substring" => {
                        let a = arg(0)?.unwrap_or(0).clamp(0, len);
                        let b = arg(1)?.unwrap_or(len).clamp(0, len);
                        (a.min(b), a.max(b))
                    }
                    "substr" => {
                        let st = arg(0)?.unwrap_or(0);
                        let st = if st < 0 {
                            (len + st).max(0)
                        } else {
                            st.min(len)
                        };
                        let n = arg(1)?.unwrap_or(len).clamp(0, len);
                        (st, (st + n).min(len))
                    }
                    "charAt" => {
                        let k = arg(0)?.unwrap_or(0);
                        if k < 0 || k >= len {
                            (0, 0)
                        } else {
                            (k, k + 1)
                        }
                    }
                    _ => {
                        let k = arg(0)?.unwrap_or(0);
                        let k = if k < 0 { len + k } else { k };
                        if k < 0 || k >= len {
                            // `undefined`, not text.
                            return None;
                        }
                        (k, k + 1)
                    }
                };
                let a = usize::try_from(a).ok()?;
                let b = usize::try_from(b).ok()?;
                let part = u.get(a..b.max(a))?;
                String::from_utf16_lossy(part)
                    .chars()
                    .map(sanitize)
                    .collect()
            }
            "repeat" => {
                let n = usize::try_from(self.int_arg(args, 0, depth)?).ok()?;
                if s.len().saturating_mul(n) > self.max_len {
                    return None;
                }
                s.repeat(n)
            }
            "padStart" | "padEnd" => {
                let n = usize::try_from(self.int_arg(args, 0, depth)?).ok()?;
                let fill = match args.get(1) {
                    None => " ".to_owned(),
                    Some(_) => self.known_arg(args, 1, depth)?,
                };
                let have = s.encode_utf16().count();
                if n > self.max_len || have >= n || fill.is_empty() {
                    s
                } else {
                    let pad: String = fill.chars().cycle().take(n - have).collect();
                    if f == "padStart" {
                        pad + &s
                    } else {
                        s + &pad
                    }
                }
            }
            _ => return None,
        };
        self.bounded(text)
    }

    /// An integer argument: a number literal, a negated one, or a name bound to one.
    fn int_arg(&self, args: &[(usize, usize)], k: usize, depth: u8) -> Option<i64> {
        let &(a, b) = args.get(k)?;
        if self.punct(a, "-") {
            return self.int_arg(&[(a + 1, b)], 0, depth).map(|v| -v);
        }
        if let Some(n) = self.number((a, b)) {
            return Some(i64::from(n));
        }
        if b == a + 1 && self.tok(a).is_some_and(|t| t.kind == Kind::Ident) {
            let v = self.known((a, b), depth + 1)?;
            return v.parse().ok();
        }
        None
    }

    /// `f` (the tokens `r`) is a callback made of string methods on its parameter, with
    /// literals concatenated (`w => w.toLowerCase()`, `(s) => s.trim() + ' '`,
    /// `function (c) { return c.at(0); }`): its result for `s`.
    fn mapped(&self, s: &str, (a, b): (usize, usize), depth: u8) -> Option<String> {
        let (param, body) = if self.punct(a + 1, "=>") {
            (self.ident(a)?, (a + 2, b))
        } else if self.punct(a, "(") && self.punct(a + 2, ")") && self.punct(a + 3, "=>") {
            (self.ident(a + 1)?, (a + 4, b))
        } else if self.is_ident(a, "function")
            && self.punct(a + 1, "(")
            && self.punct(a + 3, ")")
            && self.punct(a + 4, "{")
            && self.is_ident(a + 5, "return")
        {
            let close = self.close.at(a + 4)?;
            let end = if self.punct(close - 1, ";") {
                close - 1
            } else {
                close
            };
            (self.ident(a + 2)?, (a + 6, end))
        } else {
            return None;
        };
        // `x => { return …; }`
        let body = if self.is_group(body, "{") && self.is_ident(body.0 + 1, "return") {
            let end = body.1 - 1;
            let end = if self.punct(end - 1, ";") {
                end - 1
            } else {
                end
            };
            (body.0 + 2, end)
        } else {
            body
        };
        let mut out = String::new();
        let mut x = body.0;
        let mut j = body.0;
        while j <= body.1 {
            if j == body.1 || self.punct(j, "+") {
                out.push_str(&self.param_chain(s, param, (x, j), depth)?);
                x = j + 1;
                j += 1;
            } else {
                j = self.step(j);
            }
        }
        self.bounded(out)
    }

    /// `param.m(…).n(…)` with `param` standing for `s`, or a literal.
    fn param_chain(
        &self,
        s: &str,
        param: &str,
        (a, b): (usize, usize),
        depth: u8,
    ) -> Option<String> {
        if !self.is_ident(a, param) {
            return self.known((a, b), depth + 1);
        }
        let mut cur = s.to_owned();
        let mut k = a + 1;
        while k < b {
            let open = k + 2;
            if !(self.punct(k, ".") && self.punct(open, "(")) {
                return None;
            }
            let f = self.ident(k + 1)?;
            cur = self.string_method(cur, f, &self.parts(open), depth + 1)?;
            k = self.group_end(open) + 1;
        }
        Some(cur)
    }

    fn bounded(&self, text: String) -> Option<String> {
        (text.len() <= self.max_len).then_some(text)
    }

    /// The value of `r` when no part of it is only known at run time.
    pub(super) fn known(&self, r: (usize, usize), depth: u8) -> Option<String> {
        let v = self.value(r, depth);
        (!v.contains(UNKNOWN)).then_some(v)
    }

    fn known_arg(&self, args: &[(usize, usize)], k: usize, depth: u8) -> Option<String> {
        self.known(*args.get(k)?, depth + 1)
    }

    /// A number literal (decimal, `0x`, `0o`, `0b`) as a code point or byte.
    fn number(&self, (a, b): (usize, usize)) -> Option<u32> {
        if b != a + 1 {
            return None;
        }
        let t = self.tok(a).filter(|t| t.kind == Kind::Num)?;
        let s = t.text.to_ascii_lowercase().replace('_', "");
        if let Some(h) = s.strip_prefix("0x") {
            u32::from_str_radix(h, 16).ok()
        } else if let Some(o) = s.strip_prefix("0o") {
            u32::from_str_radix(o, 8).ok()
        } else if let Some(b) = s.strip_prefix("0b") {
            u32::from_str_radix(b, 2).ok()
        } else {
            s.parse().ok()
        }
    }

    /// An array of texts: an array literal (a spread of a known string gives its
    /// characters), a name assigned one once, `Array.from(s)`, `s.split(sep)`, `a.reverse()`.
    pub(super) fn items(&self, (x, y): (usize, usize), depth: u8) -> Option<Vec<String>> {
        if depth >= MAX_VALUE_DEPTH || y <= x {
            return None;
        }
        if self.is_group((x, y), "[") {
            let mut out = Vec::new();
            for (a, b) in self.parts(x) {
                if self.punct(a, "...") {
                    match self.known((a + 1, b), depth + 1) {
                        Some(s) => out.extend(s.chars().map(String::from)),
                        None => out.push(UNKNOWN.to_string()),
                    }
                } else {
                    out.push(self.value((a, b), depth + 1));
                }
            }
            return Some(out);
        }
        if y == x + 1 {
            let a = self
                .fixed_container(self.ident(x)?)
                .filter(|&o| self.punct(o, "["))?;
            return self.items((a, self.group_end(a) + 1), depth + 1);
        }
        // `cfg.steps`, `groups[1]`: a member that is an array literal.
        if let Some(node) = self.member_node((x, y), depth) {
            let r = node?;
            return if self.is_group(r, "[") {
                self.items(r, depth + 1)
            } else {
                None
            };
        }
        if !self.punct(y - 1, ")") {
            return None;
        }
        let open = self.open.at(y - 1).filter(|&o| o >= x + 3)?;
        if !self.punct(open - 2, ".") {
            return None;
        }
        let recv = (x, open - 2);
        let args = self.parts(open);
        match self.ident(open - 1)? {
            // `Object.values(cmds)` of an object literal bound once.
            "values" if self.seq(recv, &["Object"]) => {
                let &(a, b) = args.first()?;
                let open = self.fixed_container(self.ident(a).filter(|_| b == a + 1)?)?;
                if !self.punct(open, "{") {
                    return None;
                }
                let mut out = Vec::new();
                for (p, q) in self.parts(open) {
                    if self.punct(p, "...") {
                        return None;
                    }
                    let v = if self.punct(p + 1, ":") {
                        (p + 2, q)
                    } else {
                        (p, q)
                    };
                    out.push(self.value(v, depth + 1));
                }
                Some(out)
            }
            "from" if self.seq(recv, &["Array"]) => Some(
                self.known_arg(&args, 0, depth)?
                    .chars()
                    .map(String::from)
                    .collect(),
            ),
            "split" => {
                let s = self.known(recv, depth + 1)?;
                let &p = args.first()?;
                if !self
                    .tok(p.0)
                    .is_some_and(|t| matches!(t.kind, Kind::Str | Kind::Tpl))
                {
                    return None;
                }
                let sep = self.known(p, depth + 1)?;
                Some(if sep.is_empty() {
                    s.chars().map(String::from).collect()
                } else {
                    s.split(sep.as_str()).map(str::to_owned).collect()
                })
            }
            "reverse" | "toReversed" if args.is_empty() => {
                let mut v = self.items(recv, depth + 1)?;
                v.reverse();
                Some(v)
            }
            "slice" => {
                let v = self.items(recv, depth + 1)?;
                let len = len_i64(v.len());
                let from_end = |x: i64| if x < 0 { (len + x).max(0) } else { x.min(len) };
                let a = match args.first() {
                    None => 0,
                    Some(_) => from_end(self.int_arg(&args, 0, depth)?),
                };
                let b = match args.get(1) {
                    None => len,
                    Some(_) => from_end(self.int_arg(&args, 1, depth)?),
                };
                let (a, b) = (usize::try_from(a).ok()?, usize::try_from(b).ok()?);
                Some(v.get(a..b.max(a))?.to_vec())
            }
            "map" => {
                let v = self.items(recv, depth + 1)?;
                let &f = args.first()?;
                v.iter()
                    .map(|s| {
                        if s.contains(UNKNOWN) {
                            None
                        } else {
                            self.mapped(s, f, depth + 1)
                        }
                    })
                    .collect()
            }
            _ => None,
        }
    }

    /// Bytes built from literals: `Buffer.from(s, enc)`, `Buffer.from([…])`,
    /// `new Uint8Array([…])`, `Uint8Array.from([…])`.
    fn bytes(&self, (x, y): (usize, usize), depth: u8) -> Option<Vec<u8>> {
        if depth >= MAX_VALUE_DEPTH || y < x + 4 || !self.punct(y - 1, ")") {
            return None;
        }
        let open = self.open.at(y - 1).filter(|&o| o > x)?;
        let args = self.parts(open);
        let callee = (x, open);
        let from_buffer = self.seq(callee, &["Buffer", ".", "from"]);
        let typed = self.seq(callee, &["new", "Uint8Array"])
            || self.seq(callee, &["Uint8Array", ".", "from"])
            || self.seq(callee, &["new", "Buffer"]);
        if !from_buffer && !typed {
            return None;
        }
        let &first = args.first()?;
        if self.is_group(first, "[") {
            return self
                .parts(first.0)
                .into_iter()
                .map(|r| self.number(r).and_then(|n| u8::try_from(n).ok()))
                .collect();
        }
        if !from_buffer {
            return None;
        }
        let s = self.known(first, depth + 1)?;
        let enc = match args.get(1) {
            None => "utf8".to_owned(),
            Some(&r) => self.known(r, depth + 1)?,
        };
        match enc.to_ascii_lowercase().as_str() {
            "base64" | "base64url" => crate::analysis::shell::pwsh::decode_base64(&s),
            "hex" => hex_bytes(&s),
            "utf8" | "utf-8" => Some(s.into_bytes()),
            "latin1" | "binary" | "ascii" => {
                s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
            }
            _ => None,
        }
    }
}

/// A length as a signed position (lengths are bounded by the analysis limit).
fn len_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Bytes as text (UTF-8, invalid sequences replaced), without placeholders.
fn bytes_text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().map(sanitize).collect()
}

/// `%xx` escapes decoded (`decodeURIComponent`); `None` when the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    String::from_utf8(super::percent_decoded(s.as_bytes()))
        .ok()
        .map(|t| t.chars().map(sanitize).collect())
}

/// Hex digits as bytes (Node stops at the first pair that is not hex).
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 2);
    for pair in b.chunks_exact(2) {
        let h = std::str::from_utf8(pair).ok()?;
        match u8::from_str_radix(h, 16) {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::{lex, normalize::normalize, Code};

    fn text(src: &str) -> String {
        let code = Code::new(normalize(lex(src).toks), 4096);
        code.value((0, code.toks.len()), 0)
    }

    #[test]
    fn text_built_from_literals_is_computed() {
        assert_eq!(text("[...'olleh'].reverse().join('')"), "hello");
        assert_eq!(text("'a-b-c'.split('-').reverse().join('+')"), "c+b+a");
        assert_eq!(text("Array.from('ab').join(' ')"), "a b");
        assert_eq!(text("String.fromCharCode(104, 0x69)"), "hi");
        assert_eq!(text("atob('aGVsbG8=')"), "hello");
        assert_eq!(
            text("Buffer.from('aGVsbG8=', 'base64').toString()"),
            "hello"
        );
        assert_eq!(text("Buffer.from('6869', 'hex').toString('utf8')"), "hi");
        assert_eq!(
            text("new TextDecoder().decode(new Uint8Array([104, 105]))"),
            "hi"
        );
        assert_eq!(text("decodeURIComponent('%68i')"), "hi");
        assert_eq!(text("'HI'.toLowerCase().concat('!')"), "hi!");
        assert_eq!(text("'h_i'.replaceAll('_', '')"), "hi");
        assert_eq!(text("String.raw`ab`"), "ab");
        assert_eq!(text("`${'a'}-${'b'}`"), "a-b");
    }

    #[test]
    fn string_transforms_of_literals_are_computed() {
        assert_eq!(text("'xxab'.slice(2)"), "ab");
        assert_eq!(text("'abcd'.slice(-2)"), "cd");
        assert_eq!(text("'abcd'.slice(1, -1)"), "bc");
        assert_eq!(text("'abcd'.substring(3, 1)"), "bc");
        assert_eq!(text("'abcd'.substr(-3, 2)"), "bc");
        assert_eq!(text("'abcd'.charAt(2) + 'abcd'.charAt(9)"), "c");
        assert_eq!(text("'abcd'.at(-1)"), "d");
        assert_eq!(text("'-'.repeat(3)"), "---");
        assert_eq!(text("'/'.padStart(3, 'ab')"), "ab/");
        assert_eq!(
            text("'A|B'.split('|').map(w => w.toLowerCase()).join('+')"),
            "a+b"
        );
        assert_eq!(
            text("[' a ', 'b '].map(function (s) { return s.trim(); }).join('')"),
            "ab"
        );
        assert_eq!(text("['x', 'a', 'b'].slice(1).join('')"), "ab");
        assert_eq!(text("['a', 'b'].at(-1)"), "b");
        assert_eq!(text("[...'ba'].toReversed().join('')"), "ab");
    }

    #[test]
    fn transforms_not_computed_stay_unknown() {
        assert_eq!(text("'abc'.slice(n)"), "\u{0}");
        assert_eq!(text("'abc'.at(7)"), "\u{0}");
        assert_eq!(text("'a b'.split(' ').map(f).join('')"), "\u{0}");
        assert_eq!(
            text("'ab'.split('').map(c => c.codePointAt(0)).join('')"),
            "\u{0}"
        );
        assert_eq!(text("'-'.repeat(1e9)"), "\u{0}");
    }

    #[test]
    fn run_time_inputs_and_placeholders_stay_unknown() {
        assert_eq!(text("x.split('').reverse().join('')"), "\u{0}");
        assert_eq!(text("'abc'.replace(/b/, 'x')"), "\u{0}");
        assert_eq!(text("String.fromCharCode(n)"), "\u{0}");
        // Decoded NUL bytes are no placeholders.
        assert_eq!(text("atob('AA==')"), "\u{fffd}");
        assert_eq!(text("`${a}-${'b'}`"), "\u{0}-b");
    }
}
