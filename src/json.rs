//! Strict JSON parsing for everything that crosses the boundary, and the ASCII-only writer
//! for the hook's answer.
//!
//! `serde_json` silently keeps the last of two duplicate keys; in a security gate a smuggled
//! second `command` must fail loudly instead, so objects are built by a visitor that rejects
//! duplicates. Nesting is bounded by `serde_json`'s recursion limit (128). Error messages carry
//! positions, never copies of the input.

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as one JSON value, rejecting duplicate object keys and trailing data.
pub fn parse_strict(text: &str) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value.0)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            match out.entry(key) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(v);
                }
                serde_json::map::Entry::Occupied(_) => {
                    return Err(A::Error::custom("duplicate object key"));
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// The members of a top-level JSON object as [`parse_strict_fields`] reads them.
#[derive(Debug)]
pub struct Fields<const N: usize> {
    /// The value of each known name, by its index.
    pub values: [Option<Value>; N],
    /// The smallest (byte order) of the other names, if any.
    pub first_unknown: Option<String>,
}

/// [`parse_strict`] for text whose first non-blank character is `{`, read straight into
/// `known`'s slots instead of a map: the same errors at the same positions (duplicates, also
/// of unknown names, nesting, trailing data). `Ok(None)` when the text does not start with
/// `{` (the caller then uses [`parse_strict`]).
pub fn parse_strict_fields<const N: usize>(
    text: &str,
    known: &[&str; N],
) -> Result<Option<Fields<N>>, String> {
    if text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first()
        != Some(&b'{')
    {
        return Ok(None);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = de
        .deserialize_any(FieldsVisitor { known })
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(Some(fields))
}

struct FieldsVisitor<'k, const N: usize> {
    known: &'k [&'k str; N],
}

/// One member name: the index of a known name, or the name itself.
enum Key {
    Known(usize),
    Other(String),
}

struct KeySeed<'k, const N: usize>(&'k [&'k str; N]);

impl<'de, const N: usize> serde::de::DeserializeSeed<'de> for KeySeed<'_, N> {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for KeySeed<'_, N> {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Key, E> {
        Ok(match self.0.iter().position(|k| *k == v) {
            Some(i) => Key::Known(i),
            None => Key::Other(v.to_owned()),
        })
    }
}

impl<'de, const N: usize> Visitor<'de> for FieldsVisitor<'_, N> {
    type Value = Fields<N>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<N>, A::Error> {
        let mut values: [Option<Value>; N] = std::array::from_fn(|_| None);
        let mut others: Vec<String> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed(self.known))? {
            let Strict(v) = map.next_value()?;
            let duplicate = match key {
                Key::Known(i) => match values.get_mut(i) {
                    Some(slot) if slot.is_none() => {
                        *slot = Some(v);
                        false
                    }
                    _ => true,
                },
                Key::Other(name) => {
                    let seen = others.contains(&name);
                    others.push(name);
                    seen
                }
            };
            if duplicate {
                return Err(A::Error::custom("duplicate object key"));
            }
        }
        Ok(Fields {
            values,
            first_unknown: others.into_iter().min(),
        })
    }
}

/// Containers nested deeper than this are left to [`parse_strict_fields`] (serde_json's own
/// bound is 128): the fast reader never recurses far.
const FAST_MAX_DEPTH: u32 = 64;

/// [`parse_strict_fields`] for the common request, without serde: a top-level object whose
/// names are all in `known` (each once), whose values hold strings (escapes other than
/// `\u`), integers from 0 to 10^19 − 1, `true`, `false`, `null`, and arrays and objects of
/// those (no duplicate names, at most [`FAST_MAX_DEPTH`] deep). For such a text it gives
/// exactly the values `parse_strict_fields` gives (and no unknown name); for every other
/// text, valid or not, `None`, and the caller reads it with `parse_strict_fields`, which
/// gives the verdict and the error. So it only ever accepts what serde_json reads the same.
pub fn read_known_fields<'t, const N: usize>(
    text: &'t str,
    known: &[&str; N],
) -> Option<Known<'t, N>> {
    let mut r = Reader {
        text,
        at: 0,
        compact: true,
    };
    r.blank();
    r.eat(b'{')?;
    let mut values: [Option<Value>; N] = std::array::from_fn(|_| None);
    let mut compact: [Option<&'t str>; N] = [None; N];
    r.blank();
    if !r.eat_if(b'}') {
        loop {
            r.blank();
            let name = r.plain_name()?;
            let i = known.iter().position(|k| *k == name)?;
            let slot = values.get_mut(i)?;
            if slot.is_some() {
                return None;
            }
            r.blank();
            r.eat(b':')?;
            r.blank();
            let start = r.at;
            r.compact = true;
            *slot = Some(r.value(1)?);
            if r.compact {
                if let Some(c) = compact.get_mut(i) {
                    *c = text.get(start..r.at);
                }
            }
            r.blank();
            match r.byte()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    r.blank();
    (r.at == text.len()).then_some(Known { values, compact })
}

/// A request's members as [`read_known_fields`] reads them.
#[derive(Debug)]
pub struct Known<'t, const N: usize> {
    /// The value of each known name, by its index.
    pub values: [Option<Value>; N],
    /// The text of each value that is already serde_json's compact text of it (what
    /// `serde_json::to_string` writes: no blanks, object names in sorted order and each
    /// once, only the escapes serde_json writes), by the name's index.
    pub compact: [Option<&'t str>; N],
}

/// The fast reader's cursor over the text (`at` is always on a character boundary: it only
/// ever stops at ASCII bytes or the end), and whether the value being read is written as
/// serde_json writes it so far.
struct Reader<'t> {
    text: &'t str,
    at: usize,
    compact: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn byte(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return), as serde_json does.
    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
            self.compact = false;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.byte()? == b).then_some(())
    }

    fn eat_if(&mut self, b: u8) -> bool {
        let yes = self.peek() == Some(b);
        if yes {
            self.at += 1;
        }
        yes
    }

    /// A member name read as it is written, up to the next `"` (a known name has no escape:
    /// one that holds a `\\` or a control character matches none).
    fn plain_name(&mut self) -> Option<&str> {
        self.eat(b'"')?;
        // Names are short: a byte loop is quicker than a search call.
        let len = self
            .text
            .as_bytes()
            .get(self.at..)?
            .iter()
            .position(|&b| b == b'"')?;
        let name = self.text.get(self.at..self.at + len)?;
        self.at += len + 1;
        Some(name)
    }

    /// The string whose opening `"` is next.
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let mut out: Option<String> = None;
        loop {
            let rest = self.text.as_bytes().get(self.at..)?;
            let end = self.at + crate::swar::first_string_end(rest)?;
            let run = self.text.get(self.at..end)?;
            self.at = end + 1;
            match self.text.as_bytes().get(end)? {
                b'"' => {
                    return Some(match out {
                        Some(mut s) => {
                            s.push_str(run);
                            s
                        }
                        None => run.to_owned(),
                    })
                }
                b'\\' => {
                    // Room at the first escape for the run so far and what may follow (no
                    // more than the text holds): in a short request, a string with escapes
                    // (a command with quotes) is not regrown per escape. (A long one's long
                    // strings grow by doubling as before.)
                    let room = match self.text.len().saturating_sub(end) {
                        rest if self.text.len() <= ESCAPED_ROOM_MAX_TEXT => rest,
                        _ => 16,
                    };
                    let s = out.get_or_insert_with(|| String::with_capacity(run.len() + room));
                    s.push_str(run);
                    s.push(match self.byte()? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => {
                            // serde_json writes `/` as it is.
                            self.compact = false;
                            '/'
                        }
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        // `\u` (surrogates and all) and invalid escapes: serde_json's reading.
                        _ => return None,
                    });
                }
                // A raw control character: an error for serde_json.
                _ => return None,
            }
        }
    }

    /// The value that starts next, inside `depth` containers.
    fn value(&mut self, depth: u32) -> Option<Value> {
        match self.peek()? {
            b'"' => self.string().map(Value::String),
            b'{' if depth < FAST_MAX_DEPTH => {
                self.at += 1;
                let mut map = Map::new();
                self.blank();
                if self.eat_if(b'}') {
                    return Some(Value::Object(map));
                }
                loop {
                    self.blank();
                    if self.peek()? != b'"' {
                        return None;
                    }
                    let key = self.string()?;
                    self.blank();
                    self.eat(b':')?;
                    self.blank();
                    let v = self.value(depth + 1)?;
                    // serde_json writes the names in sorted order.
                    if self.compact && map.keys().next_back().is_some_and(|last| *last >= key) {
                        self.compact = false;
                    }
                    match map.entry(key) {
                        serde_json::map::Entry::Vacant(slot) => {
                            slot.insert(v);
                        }
                        serde_json::map::Entry::Occupied(_) => return None,
                    }
                    self.blank();
                    match self.byte()? {
                        b',' => {}
                        b'}' => return Some(Value::Object(map)),
                        _ => return None,
                    }
                }
            }
            b'[' if depth < FAST_MAX_DEPTH => {
                self.at += 1;
                let mut items = Vec::new();
                self.blank();
                if self.eat_if(b']') {
                    return Some(Value::Array(items));
                }
                loop {
                    self.blank();
                    items.push(self.value(depth + 1)?);
                    self.blank();
                    match self.byte()? {
                        b',' => {}
                        b']' => return Some(Value::Array(items)),
                        _ => return None,
                    }
                }
            }
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            b'0'..=b'9' => {
                let bytes = self.text.as_bytes();
                let start = self.at;
                let mut n: u64 = 0;
                while let Some(d @ b'0'..=b'9') = bytes.get(self.at).copied() {
                    n = n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
                    self.at += 1;
                }
                let len = self.at - start;
                // At most 19 digits (no overflow), no leading zero, no fraction or exponent.
                if len > 19
                    || (len > 1 && bytes.get(start) == Some(&b'0'))
                    || matches!(self.peek(), Some(b'.' | b'e' | b'E'))
                {
                    return None;
                }
                Some(Value::Number(n.into()))
            }
            _ => None,
        }
    }

    fn word(&mut self, word: &str, v: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.text.as_bytes().get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            v
        })
    }
}

/// `v` as compact JSON with every non-ASCII character written as a `\uXXXX` escape (a UTF-16
/// surrogate pair beyond the BMP): the same JSON value, in ASCII text. JavaScript decodes
/// ASCII from the WebAssembly memory and parses it faster than text with any wider character.
pub fn to_ascii_string<T: serde::Serialize>(v: &T) -> Result<String, String> {
    let mut out = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, AsciiFormatter);
    v.serialize(&mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The longest request text in which [`Reader::string`] makes room at a string's first
/// escape for the rest of the text (which bounds what the string unescapes to).
const ESCAPED_ROOM_MAX_TEXT: usize = 1024;

/// Appends `s` as a JSON string literal in ASCII: exactly what [`to_ascii_string`] writes for
/// it (serde_json's escapes for `"`, `\\` and control characters, `\uXXXX` for every
/// non-ASCII character), without the serializer. One pass eight bytes a step: a word's first
/// special byte is the lowest bit of its mask (`swar::json_special_mask`), so a run of plain
/// bytes is copied whole when a special one ends it.
pub fn push_ascii_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // `start`: where the plain run not yet copied begins; `at`: where scanning goes on. Both
    // stay on character boundaries (a special byte's character is consumed whole).
    let (mut start, mut at) = (0, 0);
    loop {
        let special = match bytes.get(at..at + 8) {
            Some(chunk) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                let mask = crate::swar::json_special_mask(u64::from_le_bytes(word));
                if mask == 0 {
                    at += 8;
                    continue;
                }
                at + (mask.trailing_zeros() / 8) as usize
            }
            None => match bytes.get(at..).and_then(|rest| {
                rest.iter()
                    .position(|&b| !(0x20..0x80).contains(&b) || b == b'"' || b == b'\\')
            }) {
                Some(off) => at + off,
                None => break,
            },
        };
        out.push_str(s.get(start..special).unwrap_or(""));
        at = special + push_escaped_char(out, s, special);
        start = at;
    }
    out.push_str(s.get(start..).unwrap_or(""));
    out.push('"');
}

/// Appends the escape of the special character at byte `i` of `s` (a control, `"`, `\\` or
/// a non-ASCII character); returns its length in bytes (at least 1).
fn push_escaped_char(out: &mut String, s: &str, i: usize) -> usize {
    let b = s.as_bytes().get(i).copied().unwrap_or(0);
    if b < 0x80 {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => push_u_escape(out, u16::from(b)),
        }
        return 1;
    }
    let Some(ch) = s.get(i..).and_then(|rest| rest.chars().next()) else {
        // Not a character boundary (cannot happen: scanning stops only on boundaries).
        return 1;
    };
    let mut units = [0u16; 2];
    for unit in ch.encode_utf16(&mut units) {
        push_u_escape(out, *unit);
    }
    ch.len_utf8()
}

/// [`push_ascii_str`] as it was (a search call per special byte): the reference of the tests.
#[cfg(test)]
fn push_ascii_str_reference(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    // Runs of printable ASCII other than `"` and `\\` are copied whole.
    while let Some(i) = bytes
        .get(start..)
        .and_then(crate::swar::first_json_special)
        .map(|off| start + off)
    {
        out.push_str(s.get(start..i).unwrap_or(""));
        let b = bytes.get(i).copied().unwrap_or(0);
        if b < 0x80 {
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                0x08 => out.push_str("\\b"),
                0x0c => out.push_str("\\f"),
                _ => push_u_escape(out, u16::from(b)),
            }
            start = i + 1;
        } else {
            let Some(ch) = s.get(i..).and_then(|rest| rest.chars().next()) else {
                // Not a character boundary (cannot happen in a `str`).
                start = i;
                break;
            };
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                push_u_escape(out, *unit);
            }
            start = i + ch.len_utf8();
        }
    }
    out.push_str(s.get(start..).unwrap_or(""));
    out.push('"');
}

/// `\uXXXX` with lowercase hex digits, as serde_json writes it.
fn push_u_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12u16, 8, 4, 0] {
        let digit = HEX
            .get(usize::from((unit >> shift) & 0xF))
            .copied()
            .unwrap_or(b'0');
        out.push(char::from(digit));
    }
}

/// Appends `n` in decimal, as serde_json writes an unsigned integer.
pub fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        if let Some(d) = digits.get_mut(i) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.get(i..).unwrap_or(&[]) {
        out.push(char::from(d));
    }
}

struct AsciiFormatter;

impl serde_json::ser::Formatter for AsciiFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // ASCII runs are copied whole; only the (rare) wider characters are escaped.
        let bytes = fragment.as_bytes();
        let mut start = 0;
        while let Some(i) = bytes
            .get(start..)
            .and_then(|rest| rest.iter().position(|b| !b.is_ascii()))
            .map(|off| start + off)
        {
            writer.write_all(bytes.get(start..i).unwrap_or(&[]))?;
            let Some(ch) = fragment.get(i..).and_then(|rest| rest.chars().next()) else {
                // Not a character boundary (cannot happen in a `str`): the rest as it is.
                return writer.write_all(bytes.get(i..).unwrap_or(&[]));
            };
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = i + ch.len_utf8();
        }
        writer.write_all(fragment.get(start..).unwrap_or("").as_bytes())
    }
}

/// Strict JSON equality for scalars: numbers compare by value (`1` equals `1.0`), nothing
/// coerces across types (`1` never equals `"1"`).
pub fn scalar_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

fn number_eq(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// True for string, number, boolean and null.
pub fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_writer_writes_the_same_value_in_ascii() {
        use serde_json::json;
        let v = json!({"a": "plain", "b": "•\u{1F600}é\"\\\n\u{7}\u{2028}", "c": [1, 2.5, null, true], "d": {"é": "x"}});
        let text = to_ascii_string(&v).unwrap();
        assert!(text.is_ascii(), "{text}");
        assert!(text.contains("\\u2022\\ud83d\\ude00\\u00e9"), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        // ASCII text is written exactly as serde_json writes it.
        let plain = json!({"k": "v \" \\ \u{1}", "n": [1, -0.5]});
        assert_eq!(to_ascii_string(&plain).unwrap(), plain.to_string());
    }

    /// Every character class the writer treats apart: ASCII, quote, backslash, each control
    /// character, DEL, two- three- and four-byte UTF-8, line separators, bidi controls.
    const AWKWARD: &[char] = &[
        'a',
        ' ',
        '~',
        '"',
        '\\',
        '/',
        '\u{0}',
        '\u{1}',
        '\u{8}',
        '\t',
        '\n',
        '\u{b}',
        '\u{c}',
        '\r',
        '\u{1b}',
        '\u{1f}',
        '\u{7f}',
        '\u{80}',
        'é',
        '•',
        '…',
        '\u{2028}',
        '\u{202e}',
        '\u{feff}',
        '\u{ffff}',
        '\u{10000}',
        '\u{1F600}',
        '\u{10ffff}',
    ];

    #[test]
    fn the_string_writer_writes_what_the_ascii_serializer_writes() {
        let mut texts: Vec<String> = AWKWARD.iter().map(|c| c.to_string()).collect();
        for a in AWKWARD {
            for b in AWKWARD {
                texts.push(format!("x{a}{b}y"));
            }
        }
        texts.push(String::new());
        texts.push(AWKWARD.iter().collect());
        for c in 0u32..0x3000 {
            if let Some(c) = char::from_u32(c) {
                texts.push(format!("{c}z"));
            }
        }
        texts.extend(crate::testing::corpus_request_strings());
        texts.extend(crate::testing::secret_texts());
        for t in &texts {
            let mut out = String::new();
            push_ascii_str(&mut out, t);
            assert_eq!(out, to_ascii_string(t).unwrap(), "{t:?}");
            let mut old = String::new();
            push_ascii_str_reference(&mut old, t);
            assert_eq!(out, old, "{t:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_string_writer_agrees_on_any_text(t in "\\PC*|[\\x00-\\x7f]*|.*|[a \"\\\\\n\u{1}é•\u{1F600}]{0,40}") {
            let mut out = String::from("x");
            push_ascii_str(&mut out, &t);
            let mut old = String::from("x");
            push_ascii_str_reference(&mut old, &t);
            proptest::prop_assert_eq!(&out, &old);
            proptest::prop_assert_eq!(out, format!("x{}", to_ascii_string(&t).unwrap()));
        }

        #[test]
        fn the_number_writer_agrees(n: u64) {
            let mut out = String::from("x");
            push_u64(&mut out, n);
            proptest::prop_assert_eq!(out, format!("x{n}"));
        }
    }

    /// The request's member names.
    const NAMES: [&str; 10] = crate::call::FIELDS;

    /// What `read_known_fields` must give when it answers: `parse_strict_fields`'s values, and
    /// only for a text whose names are all known.
    fn assert_fast_read_agrees(text: &str) -> bool {
        let Some(fast) = read_known_fields(text, &NAMES) else {
            return false;
        };
        // A text taken as compact is serde_json's text of the value.
        for (value, compact) in fast.values.iter().zip(fast.compact) {
            if let Some(compact) = compact {
                let written = serde_json::to_string(value.as_ref().unwrap()).unwrap();
                assert_eq!(compact, written, "{text:?}");
            }
        }
        let fast = fast.values;
        let slow = parse_strict_fields(text, &NAMES);
        let Ok(Some(slow)) = slow else {
            panic!("the fast reader read what serde_json does not: {text:?} {slow:?}");
        };
        assert_eq!(slow.first_unknown, None, "{text:?}");
        assert_eq!(fast, slow.values, "{text:?}");
        true
    }

    /// The texts the request reader is held to: every corpus request (as written, with blanks
    /// around every token, and pretty-printed), each corpus string as a command (serde_json's
    /// escapes; the escapes serde_json never writes: `\/`, `\u`), and awkward hand-made ones.
    fn reader_texts() -> Vec<String> {
        let mut texts = Vec::new();
        for (_, request) in crate::gate::tests::corpus_requests() {
            let v: Value = serde_json::from_str(&request).unwrap();
            texts.push(serde_json::to_string_pretty(&v).unwrap());
            texts.push(
                request
                    .replace(',', " ,\n")
                    .replace(':', "\t: ")
                    .replace('{', "\r{ "),
            );
            texts.push(request);
        }
        for s in crate::testing::corpus_request_strings() {
            let cmd = serde_json::to_string(&s).unwrap();
            texts.push(format!(
                r#"{{"toolName":"exec","params":{{"command":{cmd}}},"nowMs":1795982400000}}"#
            ));
            texts.push(format!(
                r#"{{"toolName":"exec","params":{{"command":{}}}}}"#,
                cmd.replace('/', "\\/")
            ));
            texts.push(format!(
                r#"{{"toolName":"exec","params":{{"command":{}}}}}"#,
                to_ascii_string(&s).unwrap()
            ));
        }
        for t in [
            r#"{"toolName":"x","params":{"a":[1,0,10,1234567890123456789,12345678901234567890,01,1.5,1e3,-1,true,false,null,[],{}]}}"#,
            r#"{"toolName":"x","params":{"a":0}}"#,
            r#"{"toolName":"x","params":{"a":00}}"#,
            r#"{"toolName":"x","params":{"a":1.}}"#,
            r#"{"toolName":"x","params":{"a":1E5}}"#,
            r#"{"toolName":"x","params":{"a":tru}}"#,
            r#"{"toolName":"x","params":{"a":nulll}}"#,
            r#"{"toolName":"x","params":{"a":"\q"}}"#,
            r#"{"toolName":"x","params":{"a":"\ud83d\ude00"}}"#,
            r#"{"toolName":"x","params":{"a":"\ud83d"}}"#,
            "{\"toolName\":\"x\",\"params\":{\"a\":\"tab\there\"}}",
            "{\"toolName\":\"x\",\"params\":{\"a\":\"del\u{7f}é\u{2028}\"}}",
            r#"{"toolName":"x","params":{"a":1,"a":1}}"#,
            r#"{"toolName":"x","params":{"a":{"b":1,"b":2}}}"#,
            r#"{"toolName":"x","toolName":"x","params":{}}"#,
            r#"{"toolName":"x","params":{},}"#,
            r#"{"toolName":"x","params":{"a":[1,]}}"#,
            r#"{"toolName":"x","params":{"a":[1 2]}}"#,
            r#"{"toolName":"x","params":{"a" 1}}"#,
            r#"{"toolName":"x","params":{a:1}}"#,
            r#"{"toolName":"x","params":{}} x"#,
            r#"{"toolName":"x","params":{}}}"#,
            r#"{"tool\"Name":"x","params":{}}"#,
            r#"{"toolName\u0000":"x","params":{}}"#,
            r#"{"other":"x","params":{}}"#,
            r#"{}"#,
            r#" { } "#,
            r#"{"#,
            r#"{"toolName""#,
            r#"{"toolName":"#,
            r#"{"toolName":"x"#,
            r#"{"toolName":"x\"#,
            "",
            "[]",
            "\u{feff}{}",
        ] {
            texts.push(t.to_owned());
        }
        for depth in [1, 62, 63, 64, 65, 127, 128, 129, 200] {
            texts.push(format!(
                r#"{{"toolName":"x","params":{{"a":{}1{}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            ));
            texts.push(format!(
                r#"{{"toolName":"x","params":{}{}}}"#,
                r#"{"a":"#.repeat(depth),
                "}".repeat(depth + 1)
            ));
        }
        texts
    }

    #[test]
    fn the_fast_reader_reads_what_serde_json_reads_over_every_corpus_text() {
        let texts = reader_texts();
        let read = texts.iter().filter(|t| assert_fast_read_agrees(t)).count();
        // Most are the common shape: the fast reader is taken, not just the fallback.
        assert!(read * 2 > texts.len(), "{read} of {}", texts.len());
        // And every request of the corpus as written, whose params are serde_json's text.
        for (_, request) in crate::gate::tests::corpus_requests() {
            assert!(assert_fast_read_agrees(&request), "{request}");
            let v: Value = serde_json::from_str(&request).unwrap();
            if request.contains(&v["params"].to_string()) {
                let known = read_known_fields(&request, &NAMES).unwrap();
                assert!(known.compact[1].is_some(), "{request}");
            }
        }
    }

    /// Any JSON value: strings of any character (escapes and all), every kind of number.
    fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(|n| Value::Number(n.into())),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
            "\\PC*|[\\x00-\\x7f]*|.*".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z\"\\\\\u{1}é]{0,4}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_fast_reader_agrees_on_any_request(params in any_value(), pretty: bool, now: u64) {
            let request = serde_json::json!({"toolName": "x", "params": params, "nowMs": now});
            let text = if pretty {
                serde_json::to_string_pretty(&request).unwrap()
            } else {
                request.to_string()
            };
            assert_fast_read_agrees(&text);
        }

        #[test]
        fn the_fast_reader_agrees_on_mutated_requests(
            pick in 0usize..10_000,
            edits in proptest::collection::vec((0usize..10_000, 0usize..3, proptest::sample::select(vec![
                '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '1', '-', '.', 'e', 'n', 't',
                'u', '/', '\u{1}', '\n', 'é', 'a',
            ])), 1..4),
        ) {
            let requests = crate::gate::tests::corpus_requests();
            let mut chars: Vec<char> = requests[pick % requests.len()].1.chars().collect();
            for (at, op, c) in edits {
                let at = at % (chars.len() + 1);
                match op {
                    0 => chars.insert(at, c),
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ if at < chars.len() => chars[at] = c,
                    _ => {}
                }
            }
            let text: String = chars.into_iter().collect();
            assert_fast_read_agrees(&text);
        }
    }

    #[test]
    fn rejects_duplicate_keys_at_any_depth() {
        assert!(parse_strict(r#"{"a":1,"a":2}"#).is_err());
        assert!(parse_strict(r#"{"p":{"command":"ls","command":"rm -rf /"}}"#).is_err());
        assert!(parse_strict(r#"[{"x":1},{"x":2}]"#).is_ok());
    }

    #[test]
    fn rejects_trailing_data_and_bad_json() {
        assert!(parse_strict(r#"{"a":1} {"b":2}"#).is_err());
        assert!(parse_strict("{").is_err());
        assert!(parse_strict("").is_err());
    }

    #[test]
    fn bounds_nesting() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse_strict(&deep).is_err());
    }

    #[test]
    fn scalar_equality_is_strict_across_types() {
        use serde_json::json;
        assert!(scalar_eq(&json!(1), &json!(1.0)));
        assert!(!scalar_eq(&json!(1), &json!("1")));
        assert!(!scalar_eq(&json!(true), &json!(1)));
        assert!(!scalar_eq(&json!(null), &json!(false)));
        assert!(scalar_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!scalar_eq(&json!(-1), &json!(u64::MAX)));
    }
}
