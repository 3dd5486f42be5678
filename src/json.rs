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

/// `v` as compact JSON with every non-ASCII character written as a `\uXXXX` escape (a UTF-16
/// surrogate pair beyond the BMP): the same JSON value, in ASCII text. JavaScript decodes
/// ASCII from the WebAssembly memory and parses it faster than text with any wider character.
pub fn to_ascii_string<T: serde::Serialize>(v: &T) -> Result<String, String> {
    let mut out = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, AsciiFormatter);
    v.serialize(&mut ser).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// Appends `s` as a JSON string literal in ASCII: exactly what [`to_ascii_string`] writes for
/// it (serde_json's escapes for `"`, `\\` and control characters, `\uXXXX` for every
/// non-ASCII character), without the serializer.
pub fn push_ascii_str(out: &mut String, s: &str) {
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
    let mut text = *b"\\u0000";
    for (slot, shift) in text.iter_mut().skip(2).zip([12u16, 8, 4, 0]) {
        *slot = HEX
            .get(usize::from((unit >> shift) & 0xF))
            .copied()
            .unwrap_or(b'0');
    }
    // ASCII by construction.
    out.push_str(std::str::from_utf8(&text).unwrap_or("\\ufffd"));
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
        for t in &texts {
            let mut out = String::new();
            push_ascii_str(&mut out, t);
            assert_eq!(out, to_ascii_string(t).unwrap(), "{t:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_string_writer_agrees_on_any_text(t in "\\PC*|[\\x00-\\x7f]*|.*") {
            let mut out = String::new();
            push_ascii_str(&mut out, &t);
            proptest::prop_assert_eq!(out, to_ascii_string(&t).unwrap());
        }

        #[test]
        fn the_number_writer_agrees(n: u64) {
            let mut out = String::from("x");
            push_u64(&mut out, n);
            proptest::prop_assert_eq!(out, format!("x{n}"));
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
