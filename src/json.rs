//! Strict JSON parsing for everything that crosses the boundary.
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
            if out.contains_key(&key) {
                return Err(A::Error::custom("duplicate object key"));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
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
