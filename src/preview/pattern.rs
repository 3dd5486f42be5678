//! The redactor's patterns, compiled for the `regex` crate with regex-lite's meaning.
//!
//! Owns: translating a pattern written in regex-lite's dialect (ASCII `\b \s \d \w`,
//! ASCII-only `(?i)`, classes of code points) into `regex` syntax that matches exactly the
//! same text, and building it with a bounded lazy-DFA cache.
//!
//! Why: redaction runs on every previewed call, and regex-lite's only engine (a PikeVM) costs
//! tens of microseconds per line once a secret-looking name appears; the `regex` crate's lazy
//! DFA finds the same leftmost-first matches in a fraction of that. Its Unicode tables are
//! left out of the build (they would roughly double the module): `\b \s \d \w` become their
//! ASCII forms and `(?i)` is spelled out as `[aA]`-style classes, which is regex-lite's
//! meaning in any case (it has no Unicode classes and folds ASCII case only). Matching stays
//! code point by code point (Unicode mode on), as in regex-lite, so repetition counts and
//! negated classes mean the same.
//!
//! Non-goals: a general translator. Only the constructs the redactor's own patterns use are
//! accepted; anything else (Unicode classes `\p`, nested or set-operation classes, inline
//! `(?i:…)` groups) is an error, which a test over every pattern would report.

use regex::{Regex, RegexBuilder};
use std::sync::OnceLock;

/// Lazy-DFA cache per regex, in bytes. The redactor has ~120 patterns and a WebAssembly
/// memory never shrinks, so this bounds what hostile text can make them hold (~15 MB at
/// most); a full cache is cleared, and one cleared too often makes the engine fall back to
/// its slower (still linear-time) search. Typical text needs a few hundred states at most.
const DFA_CACHE_BYTES: usize = 128 * 1024;

/// ASCII whitespace as regex-lite's `\s` means it.
const SPACE: &[(char, char)] = &[('\t', '\r'), (' ', ' ')];
const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];

/// Compiles a regex-lite-dialect pattern with the `regex` crate (see the module comment).
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let translated = translate(pattern)?;
    RegexBuilder::new(&translated)
        .dfa_size_limit(DFA_CACHE_BYTES)
        .build()
        .map_err(|e| format!("pattern {pattern:?} (as {translated:?}): {e}"))
}

/// A pattern compiled on first use. Building a `regex` costs tens of microseconds (its NFA,
/// prefilters and reverse automaton), and most redaction rules never run for most calls (their
/// literals are absent), so the redactor builds each one only when a text first needs it.
#[derive(Debug, Clone)]
pub struct LazyRegex {
    pattern: String,
    compiled: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    pub fn new(pattern: impl Into<String>) -> LazyRegex {
        LazyRegex {
            pattern: pattern.into(),
            compiled: OnceLock::new(),
        }
    }

    /// The compiled regex; `None` if the pattern does not compile (a test compiles every
    /// redaction pattern, so that is a bug, not input: the rule is skipped rather than the
    /// gate failing).
    pub fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| compile(&self.pattern).ok())
            .as_ref()
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }
}

/// The `regex` spelling of a regex-lite pattern (see the module comment).
pub fn translate(pattern: &str) -> Result<String, String> {
    let (fold, body) = leading_flags(pattern);
    let mut out = String::with_capacity(body.len() * 2);
    if !fold.kept.is_empty() {
        out.push_str("(?");
        out.push_str(&fold.kept);
        out.push(')');
    }
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0usize;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '\\' => {
                let (item, next) = escape(&chars, i)?;
                i = next;
                match item {
                    Escape::Class(ranges, negated) => push_class(&mut out, ranges, negated, false),
                    Escape::Char(ch) => push_char(&mut out, ch, fold.ignore_case),
                    Escape::Verbatim(text) => out.push_str(&text),
                }
            }
            '[' => {
                let (ranges, negated, next) = class(&chars, i)?;
                i = next;
                push_class(&mut out, &ranges, negated, fold.ignore_case);
            }
            '(' if chars.get(i) == Some(&'?') => {
                let next = group_opener(&chars, i, &mut out)?;
                i = next;
            }
            '{' => {
                // A repetition: copied as is (digits and a comma).
                out.push('{');
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    if !(d.is_ascii_digit() || d == ',' || d == '}') {
                        return Err(format!("unexpected {d:?} in a repetition of {pattern:?}"));
                    }
                    out.push(d);
                    if d == '}' {
                        break;
                    }
                }
            }
            c if c.is_ascii_alphabetic() && fold.ignore_case => push_char(&mut out, c, true),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// The pattern's leading flag group (`(?i)`, `(?m)`, …): `i` is applied by spelling letters
/// out, the others are kept.
struct Flags {
    ignore_case: bool,
    kept: String,
}

fn leading_flags(pattern: &str) -> (Flags, &str) {
    let mut flags = Flags {
        ignore_case: false,
        kept: String::new(),
    };
    let Some(rest) = pattern.strip_prefix("(?") else {
        return (flags, pattern);
    };
    let Some(end) = rest.find(')') else {
        return (flags, pattern);
    };
    let group = rest.get(..end).unwrap_or("");
    if group.is_empty() || !group.chars().all(|c| "imsU".contains(c)) {
        // Not a bare flag group (`(?:`, `(?P<…>`): handled as a group opener.
        return (flags, pattern);
    }
    for c in group.chars() {
        match c {
            'i' => flags.ignore_case = true,
            c => flags.kept.push(c),
        }
    }
    (flags, rest.get(end + 1..).unwrap_or(""))
}

/// Copies a group opener that starts with `(?` (the `(` already read, `i` at the `?`).
fn group_opener(chars: &[char], mut i: usize, out: &mut String) -> Result<usize, String> {
    out.push('(');
    // `?`
    out.push('?');
    i += 1;
    match chars.get(i) {
        Some('P') | Some('<') => {
            while let Some(&c) = chars.get(i) {
                out.push(c);
                i += 1;
                if c == '>' {
                    return Ok(i);
                }
            }
            Err("unterminated group name".to_owned())
        }
        _ => {
            // `(?:` or `(?flags:`; a case flag here cannot be spelled out.
            while let Some(&c) = chars.get(i) {
                i += 1;
                match c {
                    ':' => {
                        out.push(':');
                        return Ok(i);
                    }
                    'm' | 's' | 'U' | '-' => out.push(c),
                    other => return Err(format!("unsupported group flag {other:?}")),
                }
            }
            Err("unterminated group".to_owned())
        }
    }
}

enum Escape {
    /// A Perl class (`\s`, `\D`, …) as ranges, negated or not.
    Class(&'static [(char, char)], bool),
    /// One literal character.
    Char(char),
    /// An assertion or escape copied as written (already in `regex` syntax).
    Verbatim(String),
}

/// The escape after a `\` at `chars[i]`; returns it and the index after it.
fn escape(chars: &[char], i: usize) -> Result<(Escape, usize), String> {
    let c = *chars
        .get(i)
        .ok_or_else(|| "a pattern ends with a lone backslash".to_owned())?;
    let next = i + 1;
    Ok(match c {
        'b' => (Escape::Verbatim(r"(?-u:\b)".to_owned()), next),
        'B' => (Escape::Verbatim(r"(?-u:\B)".to_owned()), next),
        'A' | 'z' => (Escape::Verbatim(format!("\\{c}")), next),
        's' | 'S' => (Escape::Class(SPACE, c == 'S'), next),
        'd' | 'D' => (Escape::Class(DIGIT, c == 'D'), next),
        'w' | 'W' => (Escape::Class(WORD, c == 'W'), next),
        'n' => (Escape::Char('\n'), next),
        't' => (Escape::Char('\t'), next),
        'r' => (Escape::Char('\r'), next),
        'f' => (Escape::Char('\x0C'), next),
        'v' => (Escape::Char('\x0B'), next),
        'x' => {
            let (ch, after) = hex_escape(chars, next)?;
            (Escape::Char(ch), after)
        }
        c if c.is_ascii_alphanumeric() => {
            return Err(format!("unsupported escape \\{c}"));
        }
        // An escaped punctuation character stands for itself.
        c => (Escape::Char(c), next),
    })
}

/// `\xHH` or `\x{H…}` (the `\x` already read, `i` after it).
fn hex_escape(chars: &[char], i: usize) -> Result<(char, usize), String> {
    let (digits, after): (String, usize) = if chars.get(i) == Some(&'{') {
        let digits: String = chars
            .iter()
            .skip(i + 1)
            .take_while(|c| **c != '}')
            .collect();
        let after = i + 1 + digits.chars().count() + 1;
        (digits, after)
    } else {
        (chars.iter().skip(i).take(2).collect(), i + 2)
    };
    u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
        .map(|ch| (ch, after))
        .ok_or_else(|| format!("bad hex escape \\x{digits}"))
}

/// A class as inclusive character ranges.
type Ranges = Vec<(char, char)>;

/// A bracket class whose `[` is at `chars[i - 1]`: its ranges, whether negated, and the
/// index after its `]`.
fn class(chars: &[char], mut i: usize) -> Result<(Ranges, bool, usize), String> {
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges: Ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *chars
            .get(i)
            .ok_or_else(|| "unterminated character class".to_owned())?;
        i += 1;
        let single = match c {
            ']' if !first => return Ok((ranges, negated, i)),
            '[' => return Err("nested character classes are not supported".to_owned()),
            '\\' => {
                let (item, next) = escape(chars, i)?;
                i = next;
                match item {
                    Escape::Char(ch) => ch,
                    Escape::Class(set, false) => {
                        ranges.extend_from_slice(set);
                        first = false;
                        continue;
                    }
                    _ => return Err("unsupported escape inside a class".to_owned()),
                }
            }
            c => c,
        };
        first = false;
        // `a-z` (a `-` before `]` is a literal).
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|n| *n != ']') {
            let hi_raw = *chars.get(i + 1).unwrap_or(&single);
            i += 2;
            let hi = if hi_raw == '\\' {
                let (item, next) = escape(chars, i)?;
                i = next;
                match item {
                    Escape::Char(ch) => ch,
                    _ => return Err("a class range must end in a character".to_owned()),
                }
            } else {
                hi_raw
            };
            if hi < single {
                return Err(format!("reversed class range {single:?}-{hi:?}"));
            }
            ranges.push((single, hi));
        } else {
            ranges.push((single, single));
        }
    }
}

/// Writes a class of `ranges` (with the other ASCII case of every letter when `fold`).
fn push_class(out: &mut String, ranges: &[(char, char)], negated: bool, fold: bool) {
    let mut all: Vec<(char, char)> = ranges.to_vec();
    if fold {
        for &(lo, hi) in ranges {
            for (from, to, shift_up) in [('a', 'z', true), ('A', 'Z', false)] {
                let (a, b) = (lo.max(from), hi.min(to));
                if a <= b {
                    all.push((swap_case(a, shift_up), swap_case(b, shift_up)));
                }
            }
        }
    }
    out.push('[');
    if negated {
        out.push('^');
    }
    for (lo, hi) in all {
        push_escaped(out, lo);
        if hi != lo {
            out.push('-');
            push_escaped(out, hi);
        }
    }
    out.push(']');
}

fn swap_case(c: char, to_upper: bool) -> char {
    if to_upper {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

/// One literal character (as `[cC]` when folding an ASCII letter).
fn push_char(out: &mut String, c: char, fold: bool) {
    if fold && c.is_ascii_alphabetic() {
        push_class(out, &[(c, c)], false, true);
    } else {
        push_escaped(out, c);
    }
}

/// `c` written so that it means itself anywhere (inside or outside a class).
fn push_escaped(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == '_' || c == ' ' {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_become_ascii() {
        assert_eq!(translate(r"\bx\s").unwrap(), r"(?-u:\b)x[\x{9}-\x{D} ]");
        assert_eq!(translate(r"[^\s:]").unwrap(), r"[^\x{9}-\x{D} \x{3A}]");
        let re = compile(r"\w+\b").unwrap();
        // `é` is not a word character for regex-lite, so the boundary falls before it.
        assert_eq!(re.find("abcé").map(|m| m.as_str()), Some("abc"));
        assert!(!compile(r"\s").unwrap().is_match("\u{a0}"));
    }

    #[test]
    fn ignore_case_is_ascii_only() {
        let re = compile(r"(?i)key-[a-c]").unwrap();
        assert!(re.is_match("KEY-B"));
        assert!(re.is_match("kEy-a"));
        // Unicode folding would also match the Kelvin sign for `k`; regex-lite does not.
        assert!(!re.is_match("\u{212A}ey-a"));
        let neg = compile(r"(?i)[^a]").unwrap();
        assert!(!neg.is_match("A"));
    }

    #[test]
    fn keeps_groups_flags_and_repetitions() {
        let re = compile(r"(?m)^(?P<n>[a-z]{2,3})(?s:.*?)\z").unwrap();
        let caps = re.captures("x\nab\ncd").unwrap();
        assert_eq!(caps.name("n").unwrap().as_str(), "ab");
        assert_eq!(
            compile(r#"(?P<s>\x22[^\x22]*\x22)"#)
                .unwrap()
                .find(r#"a "b" c"#)
                .map(|m| m.as_str()),
            Some(r#""b""#)
        );
    }

    #[test]
    fn rejects_what_it_cannot_translate() {
        for bad in [r"\p{L}", r"[[a]]", r"(?i:a)", r"a\", r"[a", r"\xZZ"] {
            assert!(translate(bad).is_err(), "{bad}");
        }
    }
}
