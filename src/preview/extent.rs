//! Where a secret value ends when a regex cannot tell: the value's extent follows from the
//! text around it, read in code by the redaction rules of `redact.rs` that need it.
//!
//! - YAML block scalars (`password: |` / `token: >-` then the indented lines), whose end is the
//!   first line indented no deeper than the key;
//! - the sibling `value:` key of a YAML/HCL `name:` key up to [`SIBLING_MAX_LINES`] lines away
//!   in the same mapping (nested lines passed over, never past the item's end);
//! - `.properties` values continued over lines with `\`;
//! - percent-encoded names and values (`pass%77ord=…`, `Authorization%3A%20Bearer%20…`),
//!   decoded to be judged.
//!
//! Every function here is linear in what it reads and reads a bounded stretch, so the cost
//! of a redaction stays linear in the text.

/// Most lines looked at on each side of a `name:` line for its sibling `value:` key.
pub const SIBLING_MAX_LINES: usize = 32;

/// One line of a text: `start`, `end` (before `\r\n` or `\n`; a sanitized preview's U+FFFD
/// stands for the `\r`), `next` (the next line's start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

/// The line that starts at `start`.
pub fn line_from(b: &[u8], start: usize) -> Line {
    let nl = memchr::memchr(b'\n', b.get(start..).unwrap_or(&[])).map(|i| start + i);
    let next = nl.map_or(b.len(), |i| i + 1);
    let mut end = nl.unwrap_or(b.len());
    if end > start && b.get(end - 1) == Some(&b'\r') {
        end -= 1;
    } else if end >= start + 3 && b.get(end - 3..end) == Some("\u{FFFD}".as_bytes()) {
        // A `\r` in a sanitized preview.
        end -= 3;
    }
    Line { start, end, next }
}

/// The line before the one that starts at `start` (`None` at the text's start).
pub fn line_before(b: &[u8], start: usize) -> Option<Line> {
    if start == 0 {
        return None;
    }
    let from = memchr::memrchr(b'\n', b.get(..start - 1).unwrap_or(&[])).map_or(0, |i| i + 1);
    Some(line_from(b, from))
}

/// The layout of a YAML line: where its content is measured from (after a diff marker in a
/// patch), its indentation, and the column of its key (after a list dash).
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Byte where columns count from.
    pub origin: usize,
    /// Blanks before the first other byte.
    pub indent: usize,
    /// Column of the key: the indentation, or after `- ` for a list item.
    pub key_col: usize,
    /// Nothing but blanks, or a comment.
    pub empty: bool,
}

/// The layout of `line`; `patch`: the text is a patch whose lines start with a diff marker
/// (`+`, `-` or a blank), which is not indentation.
pub fn layout(b: &[u8], line: Line, patch: bool) -> Layout {
    let mut origin = line.start;
    if patch && matches!(b.get(origin), Some(b'+' | b'-' | b' ')) && origin < line.end {
        origin += 1;
    }
    let blanks = |from: usize| {
        b.get(from..line.end)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count()
    };
    let indent = blanks(origin);
    let first = origin + indent;
    let mut key_col = indent;
    if b.get(first) == Some(&b'-') && matches!(b.get(first + 1), Some(b' ' | b'\t')) {
        key_col = indent + 1 + blanks(first + 1);
    }
    Layout {
        origin,
        indent,
        key_col,
        empty: first >= line.end || b.get(first) == Some(&b'#'),
    }
}

/// Whether a line starting at `start` belongs to a patch (a `+` line: the name/value rules
/// are run on added lines with their markers).
pub fn is_patch_line(b: &[u8], start: usize) -> bool {
    b.get(start) == Some(&b'+')
}

/// The content of a YAML block scalar whose indicator line ends at `from` (the next line's
/// start), under a key at column `key_col`: `(start, end)` from its first non-blank byte to
/// the end of its last non-blank line, or `None` when the block is empty.
pub fn block_scalar(b: &[u8], from: usize, key_col: usize, patch: bool) -> Option<(usize, usize)> {
    let mut at = from;
    let mut span: Option<(usize, usize)> = None;
    while at < b.len() {
        let line = line_from(b, at);
        let l = layout(b, line, patch);
        let first = l.origin + l.indent;
        if first < line.end {
            if l.indent <= key_col {
                break;
            }
            span = Some(span.map_or((first, line.end), |(s, _)| (s, line.end)));
        }
        if line.next <= at {
            break;
        }
        at = line.next;
    }
    span
}

/// A value key at `at`: an optional quote, `value`/`Value`/`VALUE`/`ParameterValue`/
/// `OptionValue` (any case of the prefix's first letter), an optional quote, blanks, `:` or
/// `=`; returns where the value after the separator and its blanks starts.
pub fn value_key_at(b: &[u8], at: usize, end: usize) -> Option<usize> {
    let rest = b.get(at..end)?;
    let mut i = usize::from(matches!(rest.first(), Some(b'"' | b'\'')));
    let word = rest.get(i..)?;
    let mut skip = 0;
    for prefix in [&b"Parameter"[..], b"parameter", b"Option", b"option"] {
        if word.starts_with(prefix) {
            skip = prefix.len();
            break;
        }
    }
    let key = word.get(skip..)?;
    let len = if skip > 0 {
        if key.starts_with(b"Value") {
            5
        } else {
            return None;
        }
    } else if key.starts_with(b"value") || key.starts_with(b"Value") || key.starts_with(b"VALUE") {
        5
    } else {
        return None;
    };
    i += skip + len;
    if matches!(rest.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    while matches!(rest.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if !matches!(rest.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    while matches!(rest.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    Some(at + i)
}

/// The value of a YAML/HCL key whose separator and blanks end at `at` on `line` (key at
/// column `key_col`): a quoted string, a bare value to the line's end (before a ` #`
/// comment), or a block scalar's content (`|`, `>`, after node properties `&anchor`
/// `!!tag`). `None` when there is no value on the line nor a block.
pub fn yaml_value(
    b: &[u8],
    line: Line,
    at: usize,
    key_col: usize,
    patch: bool,
) -> Option<(usize, usize)> {
    let mut at = skip_node_properties(b, at, line.end);
    match b.get(at).copied() {
        None => None,
        Some(_) if at >= line.end => None,
        Some(b'|' | b'>') if block_header_ends(b, at + 1, line.end) => {
            block_scalar(b, line.next, key_col, patch)
        }
        Some(q @ (b'"' | b'\'')) => {
            let mut i = at + 1;
            while i < line.end {
                let c = b.get(i).copied()?;
                if c == b'\\' && q == b'"' {
                    i += 2;
                    continue;
                }
                if c == q {
                    return Some((at, i + 1));
                }
                i += 1;
            }
            // No closing quote on the line: the rest of it.
            Some((at, line.end))
        }
        Some(_) => {
            let mut end = line.end;
            // A comment: blanks then `#`.
            let mut i = at;
            while i < line.end {
                if matches!(b.get(i), Some(b' ' | b'\t')) && b.get(i + 1) == Some(&b'#') {
                    end = i;
                    break;
                }
                i += 1;
            }
            while end > at && matches!(b.get(end - 1), Some(b' ' | b'\t')) {
                end -= 1;
            }
            at = at.min(end);
            (end > at).then_some((at, end))
        }
    }
}

/// Past YAML node properties (`&anchor`, `!!str`; a local tag such as `!Ref` is a reference
/// and stays) and the blanks after each.
pub fn skip_node_properties(b: &[u8], mut at: usize, end: usize) -> usize {
    loop {
        let prop = matches!(
            (b.get(at), b.get(at + 1)),
            (Some(b'&'), _) | (Some(b'!'), Some(b'!'))
        );
        if !prop {
            return at;
        }
        let mut i = at;
        while i < end && !matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        if i >= end {
            // A property alone on its line (`&a` then a nested mapping): no value here.
            return end;
        }
        while i < end && matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        at = i;
    }
}

/// After a block indicator `|`/`>` at `at - 1`: its indentation and chomping indicators
/// (`|-`, `>+`, `|2`), then only blanks and a comment to the line's end.
pub fn block_header_ends(b: &[u8], at: usize, end: usize) -> bool {
    let mut i = at;
    let mut n = 0;
    while n < 2 && i < end && matches!(b.get(i), Some(b'0'..=b'9' | b'+' | b'-')) {
        i += 1;
        n += 1;
    }
    while i < end && matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i >= end || b.get(i) == Some(&b'#') && i > at && matches!(b.get(i - 1), Some(b' ' | b'\t'))
}

/// Whether `text` may hold a YAML block scalar after a key: a `:`, blanks, perhaps node
/// properties (`&anchor`, `!tag`) each followed by blanks, then `|` or `>` that ends its
/// line's header ([`block_header_ends`]). The gate of the block scalar rule: read from each
/// `:` (rarer in commands than the pipes and redirects a scan for `|` would meet).
pub fn may_hold_block_scalar(text: &str) -> bool {
    let b = text.as_bytes();
    let blanks = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    memchr::memchr_iter(b':', b).any(|k| {
        let mut i = blanks(k + 1);
        if i == k + 1 {
            return false;
        }
        while matches!(b.get(i), Some(b'&' | b'!')) {
            while b.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
                i += 1;
            }
            let after = blanks(i);
            if after == i {
                return false;
            }
            i = after;
        }
        matches!(b.get(i), Some(b'|' | b'>')) && block_header_ends(b, i + 1, line_from(b, i).end)
    })
}

/// Whether `text` holds a line continued with `\` (`\` then the line's end).
pub fn has_line_continuation(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'\\', b).any(|k| match b.get(k + 1) {
        Some(b'\n') => true,
        Some(b'\r') => b.get(k + 2) == Some(&b'\n'),
        _ => false,
    })
}

/// Whether a `.properties` line may hold a key separated from its value by blanks: after an
/// optional diff marker and blanks, a run of key bytes holding a `.` (`db.password`) and then
/// a blank. (Prose and commands rarely start a line so; a shell variable has no `.`.)
pub fn dotted_key_then_blank(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let start = i;
    let mut dot = false;
    while let Some(&c) = b.get(i) {
        if c == b'.' {
            dot = true;
        } else if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-') {
            break;
        }
        i += 1;
    }
    (dot && i > start && matches!(b.get(i), Some(b' ' | b'\t')))
        .then(|| line.get(start..i))
        .flatten()
}

/// Whether `text` holds `%` and two hex digits (a percent-encoded byte).
pub fn has_percent_escape(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'%', b).any(|k| {
        b.get(k + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(k + 2).is_some_and(u8::is_ascii_hexdigit)
    })
}

/// `s` with its `%XX` escapes decoded (and `+` as a blank); invalid UTF-8 is replaced.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let hex = |j: usize| b.get(j).and_then(|h| (*h as char).to_digit(16));
        match (c, hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_scalars_end_at_the_first_line_not_deeper_than_the_key() {
        let t = "a:\n  password: |\n    one\n\n    two\n  next: x\n";
        let from = t.find("    one").unwrap();
        let (s, e) = block_scalar(t.as_bytes(), from, 2, false).unwrap();
        assert_eq!(&t[s..e], "one\n\n    two");
        assert_eq!(block_scalar(b"k: |\nnext: 1\n", 5, 0, false), None);
    }

    #[test]
    fn the_gate_sees_block_scalars_but_not_pipes() {
        for t in [
            "password: |\n  x",
            "token: >-\n  x",
            "k: &a |\n  x",
            "k: !vault |\n  x",
            "a: |2 # c\n  x",
            "a: >\r\n  x",
        ] {
            assert!(may_hold_block_scalar(t), "{t}");
        }
        for t in [
            "ls | wc",
            "a|b",
            "cmd 2>&1 > out",
            "a && b",
            "token: x | y",
            "secret: &s abc",
            "a:|\n x",
            "echo hi: | x",
        ] {
            assert!(!may_hold_block_scalar(t), "{t}");
        }
    }

    #[test]
    fn value_keys_and_values() {
        let t = b"  value: \"a b\" # c";
        assert_eq!(value_key_at(t, 2, t.len()), Some(9));
        assert_eq!(value_key_at(b"valueFrom: x", 0, 12), None);
        assert_eq!(value_key_at(b"ParameterValue=x", 0, 16), Some(15));
        let line = line_from(t, 0);
        assert_eq!(yaml_value(t, line, 9, 2, false), Some((9, 14)));
        let t = b"  value: abc  # c\n";
        assert_eq!(yaml_value(t, line_from(t, 0), 9, 2, false), Some((9, 12)));
        let t = b"  value: &a !!str abc\n";
        assert_eq!(yaml_value(t, line_from(t, 0), 9, 2, false), Some((18, 21)));
    }

    #[test]
    fn percent_helpers() {
        assert_eq!(percent_decode("pass%77ord"), "password");
        assert_eq!(percent_decode("a+b%2"), "a b%2");
        assert!(has_percent_escape("x%5Fy"));
        assert!(!has_percent_escape("date +%Y-%m-%d %s"));
        assert_eq!(dotted_key_then_blank("+db.password x"), Some("db.password"));
        assert_eq!(dotted_key_then_blank("password x"), None);
        assert!(has_line_continuation("a\\\nb") && !has_line_continuation("a\\nb"));
    }
}
