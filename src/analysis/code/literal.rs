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
            "toLowerCase" | "toLocaleLowerCase" => self.known(recv, depth + 1)?.to_lowercase(),
            "toUpperCase" | "toLocaleUpperCase" => self.known(recv, depth + 1)?.to_uppercase(),
            "trim" => self.known(recv, depth + 1)?.trim().to_owned(),
            "trimStart" => self.known(recv, depth + 1)?.trim_start().to_owned(),
            "trimEnd" => self.known(recv, depth + 1)?.trim_end().to_owned(),
            "concat" => {
                let mut s = self.known(recv, depth + 1)?;
                for k in 0..args.len() {
                    s.push_str(&self.known_arg(&args, k, depth)?);
                }
                s
            }
            "replace" | "replaceAll" => {
                let s = self.known(recv, depth + 1)?;
                let [p, w] = args.as_slice() else {
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
            _ => return None,
        };
        self.bounded(text)
    }

    fn bounded(&self, text: String) -> Option<String> {
        (text.len() <= self.max_len).then_some(text)
    }

    /// The value of `r` when no part of it is only known at run time.
    fn known(&self, r: (usize, usize), depth: u8) -> Option<String> {
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
    fn items(&self, (x, y): (usize, usize), depth: u8) -> Option<Vec<String>> {
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
            let &a = self.arrays.get(self.ident(x)?)?;
            return self.items((a, self.group_end(a) + 1), depth + 1);
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
            "reverse" if args.is_empty() => {
                let mut v = self.items(recv, depth + 1)?;
                v.reverse();
                Some(v)
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
    fn run_time_inputs_and_placeholders_stay_unknown() {
        assert_eq!(text("x.split('').reverse().join('')"), "\u{0}");
        assert_eq!(text("'abc'.replace(/b/, 'x')"), "\u{0}");
        assert_eq!(text("String.fromCharCode(n)"), "\u{0}");
        // Decoded NUL bytes are no placeholders.
        assert_eq!(text("atob('AA==')"), "\u{fffd}");
        assert_eq!(text("`${a}-${'b'}`"), "\u{0}-b");
    }
}
