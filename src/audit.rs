//! Audit records: one JSON object per decision, per resolution and per output-guard scan,
//! built from the request and the decision but never holding a raw parameter value or a raw
//! session key — only their SHA-256 digests and sizes, the tool name, the decision, severity,
//! finding IDs, risk, latency and how the approval was resolved and by whom.
//!
//! The core stays pure: time (`nowMs`) and latency come in from the shim, which keeps the ring
//! and writes the file (`js-shim/audit.js`). SHA-256 is implemented here (FIPS 180-4, checked
//! against the standard test vectors) to keep the WebAssembly free of extra crates.

use crate::call::{short, Call};
use crate::decision::Decision;
use crate::gate::{Gate, FAIL_CLOSED_JSON};
use crate::session::Sessions;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt::Write as _;

/// Version of the record layout.
pub const RECORD_VERSION: u32 = 1;
const MAX_TOOL_CHARS: usize = 64;
const MAX_FINDING_IDS: usize = 16;

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// One SHA-256 compression of a 64-byte `block` into the state `h`: the schedule is a
/// rolling window of 16 words and all 64 rounds are unrolled with constant indices (no bounds
/// checks, no 64-word array); one record digests a block or two per decision.
fn compress(h: &mut [u32; 8], block: &[u8; 64]) {
    let mut w = [0u32; 16];
    for (slot, word) in w.iter_mut().zip(block.chunks_exact(4)) {
        if let [a, b, c, d] = *word {
            *slot = u32::from_be_bytes([a, b, c, d]);
        }
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = *h;
    let mut bc = b ^ c;
    // One round; from round 16 on, the word is first extended in place:
    // w[i] = w[i-16] + σ0(w[i-15]) + w[i-7] + σ1(w[i-2]) over the 16-word window.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $i:expr) => {
            // Σ1(e) = ror6(e ^ ror5(e ^ ror14(e))), Σ0(a) = ror2(a ^ ror11(a ^ ror9(a))): the
            // same three rotations of the standard form with fewer copies of the operand.
            let s1 = ($e ^ ($e ^ $e.rotate_right(14)).rotate_right(5)).rotate_right(6);
            let ch = $g ^ ($e & ($f ^ $g));
            let t1 = $h
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[$i])
                .wrapping_add(w[$i & 15]);
            let s0 = ($a ^ ($a ^ $a.rotate_right(9)).rotate_right(11)).rotate_right(2);
            // Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)); this round's b ^ c is the last round's
            // a ^ b (the variables move down one each round), so it costs three operations.
            let ab = $a ^ $b;
            let maj = $b ^ (ab & bc);
            bc = ab;
            $d = $d.wrapping_add(t1);
            $h = t1.wrapping_add(s0.wrapping_add(maj));
        };
    }
    macro_rules! extend {
        ($i:expr) => {
            let w15 = w[($i + 1) & 15];
            let w2 = w[($i + 14) & 15];
            let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
            let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
            w[$i & 15] = w[$i & 15]
                .wrapping_add(s0)
                .wrapping_add(w[($i + 9) & 15])
                .wrapping_add(s1);
        };
    }
    // Eight rounds with the working variables renamed instead of shifted.
    macro_rules! eight {
        ($i:expr) => {
            round!(a, b, c, d, e, f, g, hh, $i);
            round!(hh, a, b, c, d, e, f, g, $i + 1);
            round!(g, hh, a, b, c, d, e, f, $i + 2);
            round!(f, g, hh, a, b, c, d, e, $i + 3);
            round!(e, f, g, hh, a, b, c, d, $i + 4);
            round!(d, e, f, g, hh, a, b, c, $i + 5);
            round!(c, d, e, f, g, hh, a, b, $i + 6);
            round!(b, c, d, e, f, g, hh, a, $i + 7);
        };
    }
    macro_rules! extend_eight {
        ($i:expr) => {
            extend!($i);
            extend!($i + 1);
            extend!($i + 2);
            extend!($i + 3);
            extend!($i + 4);
            extend!($i + 5);
            extend!($i + 6);
            extend!($i + 7);
        };
    }
    eight!(0);
    eight!(8);
    extend_eight!(16);
    eight!(16);
    extend_eight!(24);
    eight!(24);
    extend_eight!(32);
    eight!(32);
    extend_eight!(40);
    eight!(40);
    extend_eight!(48);
    eight!(48);
    extend_eight!(56);
    eight!(56);
    // The last round's a ^ b has no next round to read it.
    let _ = bc;
    for (slot, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
        *slot = slot.wrapping_add(v);
    }
}

/// SHA-256 of `data`. The whole blocks are read in place; only the padded tail (one or two
/// blocks) is copied.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        if let Ok(block) = <&[u8; 64]>::try_from(block) {
            compress(&mut h, block);
        }
    }
    let rest = blocks.remainder();
    // Padding: 0x80, zeros, then the length in bits (big-endian) in the tail's last 8 bytes.
    let mut tail = [[0u8; 64]; 2];
    let two = rest.len() >= 56;
    if let Some(dst) = tail[0].get_mut(..rest.len()) {
        dst.copy_from_slice(rest);
    }
    if let Some(marker) = tail[0].get_mut(rest.len()) {
        *marker = 0x80;
    }
    let bit_len = (data.len() as u64).wrapping_mul(8).to_be_bytes();
    let last = if two { &mut tail[1] } else { &mut tail[0] };
    if let Some(dst) = last.get_mut(56..) {
        dst.copy_from_slice(&bit_len);
    }
    compress(&mut h, &tail[0]);
    if two {
        compress(&mut h, &tail[1]);
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    push_hex(&mut out, bytes);
    out
}

/// Appends `bytes` as lowercase hex digits: up to 32 bytes at a time written into a buffer
/// and appended whole (a digest is one append, not 64 pushes); four bytes become their eight
/// digits in one word ([`hex_word`]).
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.chunks(32) {
        let mut buf = [0u8; 64];
        let mut words = chunk.chunks_exact(4);
        let mut slots = buf.chunks_exact_mut(8);
        // Words first: `zip` takes no slot once the words run out.
        for (four, digits) in (&mut words).zip(&mut slots) {
            if let [a, b, c, d] = *four {
                digits.copy_from_slice(&hex_word([a, b, c, d]));
            }
        }
        // The last one to three bytes (the digits past them are cut off below).
        if let (Some(digits), false) = (slots.next(), words.remainder().is_empty()) {
            let mut word = [0u8; 4];
            for (w, b) in word.iter_mut().zip(words.remainder()) {
                *w = *b;
            }
            digits.copy_from_slice(&hex_word(word));
        }
        let len = chunk.len() * 2;
        out.push_str(std::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(""));
    }
}

/// The eight lowercase hex digits of four bytes: each nibble spread into a byte of its own
/// (most significant first), then `'0' + n`, plus `'a' - '0' - 10` where `n > 9` (found by the
/// carry of `n + 6` into bit 4).
fn hex_word(four: [u8; 4]) -> [u8; 8] {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut v = u64::from(u32::from_be_bytes(four));
    v = ((v & 0xFFFF_0000) << 16) | (v & 0xFFFF);
    v = ((v & 0x0000_FF00_0000_FF00) << 8) | (v & 0x0000_00FF_0000_00FF);
    v = ((v & 0x00F0_00F0_00F0_00F0) << 4) | (v & 0x000F_000F_000F_000F);
    let letters = ((v + ONES * 6) >> 4) & ONES;
    (v + ONES * u64::from(b'0') + letters * u64::from(b'a' - b'0' - 10)).to_be_bytes()
}

/// The fields of a decision a record reads. Parsing only these (the rest, e.g. the preview,
/// is skipped unallocated) is faster than a whole `Value`; a decision this cannot read (not an
/// object, a duplicate field) is read as a `Value` instead, with the same result.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct DecisionFields {
    decision: Option<Value>,
    severity: Option<Value>,
    source: Option<Value>,
    rule_id: Option<Value>,
    findings: Option<Value>,
    risk: Option<Value>,
}

impl DecisionFields {
    fn parse(json: &str) -> DecisionFields {
        if json.trim_start().starts_with('{') {
            if let Ok(d) = serde_json::from_str::<DecisionFields>(json) {
                return d;
            }
        }
        let mut v = match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(m)) => m,
            _ => return DecisionFields::default(),
        };
        DecisionFields {
            decision: v.remove("decision"),
            severity: v.remove("severity"),
            source: v.remove("source"),
            rule_id: v.remove("ruleId"),
            findings: v.remove("findings"),
            risk: v.remove("risk"),
        }
    }

    fn get(&self, k: &str) -> Option<&Value> {
        match k {
            "decision" => self.decision.as_ref(),
            "severity" => self.severity.as_ref(),
            "source" => self.source.as_ref(),
            "ruleId" => self.rule_id.as_ref(),
            "findings" => self.findings.as_ref(),
            "risk" => self.risk.as_ref(),
            _ => None,
        }
    }
}

/// `sha256:<hex>` of `text`.
pub fn digest(text: &str) -> String {
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    push_hex(&mut out, &sha256(text.as_bytes()));
    out
}

/// The session digest: 16 hex digits of SHA-256 over a fixed prefix and the key. Enough to
/// group one session's records, never the key itself.
pub fn session_digest(key: &str) -> String {
    let full = sha256(format!("openclaw-human-gate/session\n{key}").as_bytes());
    hex(full.get(..8).unwrap_or(&[]))
}

/// `nowMs` as an ISO-8601 UTC time (`2026-11-29T19:30:00.123Z`); `None` when out of range.
pub fn iso_time(now_ms: f64) -> Option<String> {
    iso_stamp(now_ms).map(|s| s.as_str().to_owned())
}

/// [`iso_time`]'s text, on the stack (the decision record writes it without a copy of its
/// own: one record per decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IsoStamp([u8; 24]);

impl IsoStamp {
    /// The time's text: digits and `-T:.Z`, ASCII by construction.
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

/// [`iso_time`] without the allocation.
pub(crate) fn iso_stamp(now_ms: f64) -> Option<IsoStamp> {
    if !now_ms.is_finite() || !(0.0..=253_402_300_799_999.0).contains(&now_ms) {
        return None;
    }
    let ms = now_ms as i64;
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Fixed-width digits (the range check keeps the year within 0..=9999) written into a
    // template, without the formatting machinery: one record per decision.
    let mut out = *b"0000-00-00T00:00:00.000Z";
    for (value, end, width) in [
        (year, 4, 4),
        (month, 7, 2),
        (day, 10, 2),
        (rem / 3_600_000, 13, 2),
        (rem / 60_000 % 60, 16, 2),
        (rem / 1000 % 60, 19, 2),
        (rem % 1000, 23, 3),
    ] {
        put_digits(&mut out, value, end, width);
    }
    Some(IsoStamp(out))
}

/// `value` (0 ≤ value < 10^width) as exactly `width` decimal digits, ending before `end`.
fn put_digits(out: &mut [u8], value: i64, end: usize, width: usize) {
    let mut v = u32::try_from(value).unwrap_or(0);
    for i in (end.saturating_sub(width)..end).rev() {
        if let Some(b) = out.get_mut(i) {
            *b = b'0' + (v % 10) as u8;
        }
        v /= 10;
    }
}

fn tool_name(v: Option<&Value>) -> Value {
    tool_name_str(v.and_then(Value::as_str))
}

/// [`tool_name_str`] of a name, borrowed when it is its own cleaned form.
fn tool_name_cow(name: &str) -> Cow<'_, str> {
    if name.len() <= MAX_TOOL_CHARS && name.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(tool_name_filtered(name))
    }
}

fn tool_name_str(name: Option<&str>) -> Value {
    match name {
        // Printable ASCII within the bound: nothing to filter or cut.
        Some(name)
            if name.len() <= MAX_TOOL_CHARS && name.bytes().all(|b| (0x20..0x7f).contains(&b)) =>
        {
            Value::String(name.to_owned())
        }
        Some(name) => Value::String(tool_name_filtered(name)),
        None => Value::Null,
    }
}

/// The tool name without controls and invisible marks, cut to [`MAX_TOOL_CHARS`].
fn tool_name_filtered(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control() && !crate::preview::sanitize::is_invisible_control(*c))
        .take(MAX_TOOL_CHARS)
        .collect()
}

fn latency(ms: f64) -> Value {
    if ms.is_finite() && ms >= 0.0 {
        json!((ms * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

/// The common head of every record: version, type, time, session digest, tool.
fn head(kind: &str, now_ms: Option<f64>, session: Option<&str>, tool: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("v".into(), json!(RECORD_VERSION));
    m.insert("type".into(), json!(kind));
    m.insert(
        "time".into(),
        now_ms.and_then(iso_time).map_or(Value::Null, Value::String),
    );
    m.insert(
        "session".into(),
        session.map_or(Value::Null, |k| Value::String(session_digest(k))),
    );
    m.insert("tool".into(), tool);
    m
}

/// A decision record split around its latency: the record is `head`, then the latency in
/// milliseconds as a JSON number rounded to 3 decimals (`null` when not finite or negative),
/// then `tail`. `Engine.decideForHook` hands both parts to the shim, which measures the
/// latency once the core has answered and splices it in (docs/core-api.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordParts {
    pub head: String,
    pub tail: String,
}

impl RecordParts {
    /// The whole record with `latency_ms` in it.
    pub fn with_latency(&self, latency_ms: f64) -> String {
        let mut out = String::with_capacity(self.head.len() + self.tail.len() + 16);
        out.push_str(&self.head);
        push_value(&mut out, &latency(latency_ms));
        out.push_str(&self.tail);
        out
    }
}

/// Everything a decision record holds except its latency, each field as it is written.
struct DecisionRecord<'a> {
    time: Field<'a>,
    session: Field<'a>,
    tool: Field<'a>,
    params_digest: ParamsDigest,
    params_bytes: usize,
    decision: Field<'a>,
    severity: Field<'a>,
    source: Field<'a>,
    rule_id: Field<'a>,
    findings: FindingIds<'a>,
    risk_confidence: Field<'a>,
    risk_level: Field<'a>,
    risk_recommendation: Field<'a>,
}

/// A record's finding ids: read from a decision's text, or the decision's own findings (the
/// first [`MAX_FINDING_IDS`], each written as its [`short_field`] when the record is written).
enum FindingIds<'a> {
    Fields(Vec<Field<'a>>),
    Of(&'a [crate::finding::Finding]),
}

impl FindingIds<'_> {
    fn len(&self) -> usize {
        match self {
            FindingIds::Fields(ids) => ids.len(),
            FindingIds::Of(findings) => findings.len().min(MAX_FINDING_IDS),
        }
    }
}

/// One value of a record: a JSON string as a text (borrowed from the decision and call when
/// they hold it already, so a record from the call allocates almost nothing), or any JSON
/// value. Written exactly as the same value as a [`Value`] ([`push_value`]).
enum Field<'a> {
    Text(Cow<'a, str>),
    Json(Value),
    /// A JSON value's text, written as it is.
    Raw(&'static str),
    /// A string of printable ASCII without `"` or `\\` (at most 64 bytes: its own [`short`]
    /// form), written between quotes as it is.
    Plain(&'a str),
    /// As [`Field::Plain`], the record's time (on the stack).
    Stamp(IsoStamp),
}

impl From<Value> for Field<'_> {
    fn from(v: Value) -> Self {
        match v {
            Value::String(s) => Field::Text(Cow::Owned(s)),
            other => Field::Json(other),
        }
    }
}

impl Field<'_> {
    const NULL: Field<'static> = Field::Json(Value::Null);

    /// Appends the field as [`push_value`] appends the same JSON value.
    fn push(&self, out: &mut String) {
        match self {
            Field::Text(s) if !needs_escape(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Field::Text(s) => push_value(out, &Value::String(s.to_string())),
            Field::Json(v) => push_value(out, v),
            Field::Raw(text) => out.push_str(text),
            Field::Plain(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Field::Stamp(s) => {
                out.push('"');
                out.push_str(s.as_str());
                out.push('"');
            }
        }
    }
}

/// Whether serde_json escapes something in `s` (`"`, `\\`, U+0000..U+001F).
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// The record's params digest: written by the core, or left to the shim.
enum ParamsDigest {
    /// The SHA-256, written `sha256:<hex>`.
    Done([u8; 32]),
    /// The params text (as the core reads them, keys sorted) whose SHA-256 the shim computes
    /// and splices in (`decide_for_hook`).
    Deferred(String),
}

/// Params texts at least this long are digested by the shim (`decide_for_hook`): Node's
/// SHA-256 (native, with the CPU's SHA instructions where it has them) takes ~13 µs over
/// 20 KB where the core's, in WebAssembly, takes ~100 µs; below ~1 KB handing the text over
/// costs about what it saves.
pub const SHIM_DIGEST_MIN_BYTES: usize = 1024;

/// `v` as compact JSON, exactly as it is written inside a serialized object. Strings that
/// need no escaping (serde_json escapes `"`, `\\` and U+0000..U+001F) are copied as they are.
fn push_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::String(s) if !needs_escape(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

/// A printable ASCII text of at most 64 bytes without `"` or `\\`: its own [`short`] form,
/// written as it is between quotes (one pass for both questions).
fn is_plain(s: &str) -> bool {
    s.len() <= 64 && crate::swar::all_plain_ascii(s.as_bytes())
}

/// One of the decision's own labels (`as_str` of its enums: fixed printable ASCII words, see
/// the tests), as a record field.
fn label_field(s: &'static str) -> Field<'static> {
    Field::Plain(s)
}

/// A printable ASCII text of at most 64 bytes: its own [`short`] form.
fn is_own_short(s: &str) -> bool {
    s.len() <= 64 && s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

impl DecisionRecord<'_> {
    /// The record text around its latency. The keys are in the order serde_json writes an
    /// object's keys (sorted), so the text is the one `Value::Object(..).to_string()` gives.
    fn parts(&self) -> RecordParts {
        self.parts_cut().0
    }

    /// [`DecisionRecord::parts`], and where in the tail the digest's hex ends (before its
    /// closing quote): a deferred digest's hex goes there.
    fn parts_cut(&self) -> (RecordParts, usize) {
        let mut head = String::with_capacity(160);
        let mut tail = String::with_capacity(320);
        let cut = self.write_parts(&mut head, &mut tail);
        (RecordParts { head, tail }, cut)
    }

    /// Appends the record's head to `head` and its tail to `tail`; returns where in the tail
    /// the digest's hex ends (see [`DecisionRecord::parts_cut`]).
    fn write_parts(&self, head: &mut String, tail: &mut String) -> usize {
        self.write_head(head);
        self.write_tail(tail)
    }

    /// Appends the record's head (up to its latency).
    fn write_head(&self, head: &mut String) {
        head.push_str("{\"decision\":");
        self.decision.push(head);
        head.push_str(",\"findings\":[");
        match &self.findings {
            FindingIds::Fields(ids) => {
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        head.push(',');
                    }
                    id.push(head);
                }
            }
            FindingIds::Of(findings) => {
                for (i, f) in findings.iter().take(MAX_FINDING_IDS).enumerate() {
                    if i > 0 {
                        head.push(',');
                    }
                    short_field(f.id).push(head);
                }
            }
        }
        head.push_str("],\"latencyMs\":");
    }

    /// Appends the record's tail (after its latency); returns where, counted from the tail's
    /// start, the digest's hex ends.
    fn write_tail(&self, tail: &mut String) -> usize {
        let start = tail.len();
        tail.push_str(",\"params\":{\"bytes\":");
        crate::json::push_u64(tail, self.params_bytes as u64);
        tail.push_str(",\"digest\":");
        // `sha256:` and hex digits: nothing to escape.
        tail.push_str("\"sha256:");
        if let ParamsDigest::Done(d) = &self.params_digest {
            push_hex(tail, d);
        }
        let cut = tail.len().saturating_sub(start);
        tail.push_str("\"},\"risk\":{\"confidence\":");
        self.risk_confidence.push(tail);
        tail.push_str(",\"level\":");
        self.risk_level.push(tail);
        tail.push_str(",\"recommendation\":");
        self.risk_recommendation.push(tail);
        for (key, v) in [
            ("},\"ruleId\":", &self.rule_id),
            (",\"session\":", &self.session),
            (",\"severity\":", &self.severity),
            (",\"source\":", &self.source),
            (",\"time\":", &self.time),
            (",\"tool\":", &self.tool),
        ] {
            tail.push_str(key);
            v.push(tail);
        }
        tail.push_str(",\"type\":\"decision\",\"v\":");
        crate::json::push_u64(tail, u64::from(RECORD_VERSION));
        tail.push('}');
        cut
    }

    /// From the texts: `request_json` is the request the core decided (raw text, possibly
    /// malformed), `decision_json` its decision.
    fn from_text(request_json: &str, decision_json: &str) -> DecisionRecord<'static> {
        let request: Value = serde_json::from_str(request_json).unwrap_or(Value::Null);
        let decision = DecisionFields::parse(decision_json);
        // The params digest covers the params as the core read them (keys sorted); a request
        // that is not JSON is digested whole.
        let (params_digest, params_bytes) = match request.get("params") {
            Some(p) => {
                let text = p.to_string();
                (sha256(text.as_bytes()), text.len())
            }
            None => (sha256(request_json.as_bytes()), request_json.len()),
        };
        let text = |k: &str| {
            decision
                .get(k)
                .and_then(Value::as_str)
                .map_or(Value::Null, |s| Value::String(short(s)))
        };
        let findings: Vec<Field<'static>> = decision
            .get("findings")
            .and_then(Value::as_array)
            .map(|fs| {
                fs.iter()
                    .filter_map(|f| f.get("id").and_then(Value::as_str))
                    .take(MAX_FINDING_IDS)
                    .map(|id| Field::Text(Cow::Owned(short(id))))
                    .collect()
            })
            .unwrap_or_default();
        let risk = decision.get("risk");
        let risk_field = |k: &str| risk.and_then(|r| r.get(k)).cloned().unwrap_or(Value::Null);
        DecisionRecord {
            time: request
                .get("nowMs")
                .and_then(Value::as_f64)
                .and_then(iso_time)
                .map_or(Value::Null, Value::String)
                .into(),
            session: request
                .get("sessionKey")
                .and_then(Value::as_str)
                .map_or(Value::Null, |k| Value::String(session_digest(k)))
                .into(),
            tool: tool_name(request.get("toolName")).into(),
            params_digest: ParamsDigest::Done(params_digest),
            params_bytes,
            decision: text("decision").into(),
            severity: text("severity").into(),
            source: text("source").into(),
            rule_id: text("ruleId").into(),
            findings: FindingIds::Fields(findings),
            risk_confidence: risk_field("confidence").into(),
            risk_level: risk_field("level").into(),
            risk_recommendation: risk_field("recommendation").into(),
        }
    }

    /// From the call as the gate read it and the decision it made: the same record as
    /// [`DecisionRecord::from_text`] over their JSON texts, without parsing either again.
    /// A call the gate rewrote (a Tool Search bridge) is recorded as sent: the bridge's tool
    /// name and params. `None` when the params cannot be encoded; the caller then uses the
    /// texts.
    /// With `defer_digest`, params texts of at least [`SHIM_DIGEST_MIN_BYTES`] are left for
    /// the shim to digest.
    fn from_call<'a>(
        call: &'a Call,
        d: &'a Decision,
        memo: &'a mut AuditMemo,
        defer_digest: bool,
    ) -> Option<DecisionRecord<'a>> {
        // The params text is the call's own (made once, also read by the scope), or the
        // bridge call's.
        let (tool, params) = match (&call.bridged_from, &call.bridged_params) {
            (Some(from), Some(sent)) => (from, Cow::Owned(serde_json::to_string(sent).ok()?)),
            (None, _) => (&call.tool_name, Cow::Borrowed(call.params_text()?)),
            (Some(_), None) => return None,
        };
        Some(DecisionRecord {
            time: call
                .now_ms
                .and_then(iso_stamp)
                // Digits and `-T:.Z`, hex digits: plain by construction (tests).
                .map_or(Field::NULL, Field::Stamp),
            session: call
                .session_key
                .as_deref()
                .map_or(Field::NULL, |k| Field::Plain(memo.session_digest(k))),
            tool: match tool_name_cow(tool) {
                Cow::Borrowed(name) if is_plain(name) => Field::Plain(name),
                name => Field::Text(name),
            },
            params_bytes: params.len(),
            params_digest: if defer_digest && params.len() >= SHIM_DIGEST_MIN_BYTES {
                ParamsDigest::Deferred(params.into_owned())
            } else {
                ParamsDigest::Done(sha256(params.as_bytes()))
            },
            decision: label_field(d.decision.as_str()),
            severity: label_field(d.severity.as_str()),
            source: label_field(d.source.as_str()),
            rule_id: d.rule_id.as_deref().map_or(Field::NULL, short_field),
            findings: FindingIds::Of(&d.findings),
            risk_confidence: confidence_field(d.risk.confidence),
            risk_level: label_field(d.risk.level.as_str()),
            risk_recommendation: label_field(d.risk.recommendation.as_str()),
        })
    }
}

/// `s` as a record field, shortened like a parsed one ([`short`]); borrowed when it is its
/// own short form.
fn short_field(s: &str) -> Field<'_> {
    if is_plain(s) {
        Field::Plain(s)
    } else if is_own_short(s) {
        Field::Text(Cow::Borrowed(s))
    } else {
        Field::Text(Cow::Owned(short(s)))
    }
}

/// The risk confidence as the record writes it: serde_json's number. The risk tiers' own
/// values (`crate::risk`) are written from fixed texts; any other goes through serde_json.
fn confidence_field(c: f64) -> Field<'static> {
    const TIERS: [(f64, &str); 5] = [
        (0.5, "0.5"),
        (0.7, "0.7"),
        (0.8, "0.8"),
        (0.85, "0.85"),
        (0.9, "0.9"),
    ];
    match TIERS.iter().find(|(v, _)| v.to_bits() == c.to_bits()) {
        Some((_, text)) => Field::Raw(text),
        None => serde_json::to_value(c).unwrap_or(Value::Null).into(),
    }
}

/// What one engine remembers between records: the digest of the last session key (the same
/// session asks many times in a row). Pure: the digest is a function of the key.
#[derive(Debug, Default, Clone)]
pub struct AuditMemo {
    session: Option<(String, String)>,
}

impl AuditMemo {
    fn session_digest(&mut self, key: &str) -> &str {
        if !matches!(&self.session, Some((k, _)) if k == key) {
            self.session = Some((key.to_owned(), session_digest(key)));
        }
        self.session.as_ref().map_or("", |(_, d)| d.as_str())
    }
}

/// The record of one decision: `request_json` is the request the core decided (raw text,
/// possibly malformed), `decision_json` its decision.
pub fn decision_record(request_json: &str, decision_json: &str, latency_ms: f64) -> String {
    decision_record_parts(request_json, decision_json).with_latency(latency_ms)
}

/// [`decision_record`] split around its latency.
pub fn decision_record_parts(request_json: &str, decision_json: &str) -> RecordParts {
    DecisionRecord::from_text(request_json, decision_json).parts()
}

/// The gate hook's one core call (`Engine.decideForHook`, docs/core-api.md): one decision
/// with session authority, as the host mapping reads it ([`Decision::host_json`], ASCII), then
/// `\n`, the head of its audit record, `\n`, the record's tail (see [`RecordParts`]). JSON text
/// never holds a raw line break, so the answer splits at its line breaks. The record is exactly
/// the one [`decision_record`] gives for the request text and the full decision text
/// (`Gate::decide_in_json`'s), read from the already parsed call and decision instead. If the
/// decision cannot be encoded, the answer's decision is the full fail-closed one.
///
/// When the params text is at least [`SHIM_DIGEST_MIN_BYTES`] long, the tail comes in two
/// pieces and the params text follows: `decision \n head \n tailA \n tailB \n params`, and
/// the record's tail is `tailA + hex(SHA-256(params as UTF-8)) + tailB` (see
/// [`HookAnswer::parse`], which joins them as the shim does).
pub fn decide_for_hook(
    gate: &Gate,
    sessions: &mut Sessions,
    memo: &mut AuditMemo,
    request_json: &str,
) -> String {
    let (decision, call) = gate.decide_in_read_for_host(sessions, request_json);
    hook_answer(memo, request_json, decision, call)
}

/// `decide_for_hook`'s answer from the decision and the call as the gate read it: the host
/// view ([`Decision::push_host_json`], which never fails) and the record, written in place in
/// one string. A decision serde_json cannot encode gives the fail-closed view.
fn hook_answer(
    memo: &mut AuditMemo,
    request_json: &str,
    decision: Decision,
    call: Option<Call>,
) -> String {
    let fast = match &call {
        Some(c) => DecisionRecord::from_call(c, &decision, memo, true),
        None => None,
    };
    let (record, view_ok) = match fast {
        Some(record) => (record, true),
        None => match serde_json::to_string(&decision) {
            Ok(json) => (DecisionRecord::from_text(request_json, &json), true),
            Err(_) => (
                DecisionRecord::from_text(request_json, FAIL_CLOSED_JSON),
                false,
            ),
        },
    };
    // A deferred digest: the tail's two pieces around the missing hex (a line break at the
    // cut), then the params text.
    let text = match &record.params_digest {
        ParamsDigest::Deferred(text) => Some(text.as_str()),
        ParamsDigest::Done(_) => None,
    };
    // The fixed keys and labels take under 400 bytes; each finding id at most 66.
    let mut out = String::with_capacity(
        decision.host_json_capacity() + 400 + 66 * record.findings.len() + text.map_or(0, str::len),
    );
    if view_ok {
        decision.push_host_json(&mut out);
    } else {
        out.push_str(FAIL_CLOSED_JSON);
    }
    out.push('\n');
    record.write_head(&mut out);
    out.push('\n');
    let start = out.len();
    let cut = record.write_tail(&mut out);
    if let Some(text) = text {
        let at = start + cut;
        // Always a boundary (the cut follows ASCII `sha256:`); were it not, the tail would
        // stay whole, as the split form left it.
        if out.is_char_boundary(at) {
            out.insert(at, '\n');
            out.push('\n');
            out.push_str(text);
        }
    }
    out
}

/// `decide_for_hook`'s answer read back, as the shim reads it (`js-shim/core.js`
/// `decideForHook`): the host view and the record's parts, a deferred digest computed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAnswer {
    pub view: String,
    /// `None` when the answer has no record (a malformed answer).
    pub record: Option<RecordParts>,
    /// Whether the params digest was left to the reader.
    pub deferred_digest: bool,
}

impl HookAnswer {
    pub fn parse(answer: &str) -> HookAnswer {
        let mut it = answer.splitn(5, '\n');
        let view = it.next().unwrap_or_default().to_owned();
        let rest: Vec<&str> = it.collect();
        let (record, deferred_digest) = match rest.as_slice() {
            [head, tail] => (
                Some(RecordParts {
                    head: (*head).to_owned(),
                    tail: (*tail).to_owned(),
                }),
                false,
            ),
            [head, a, b, params] => (
                Some(RecordParts {
                    head: (*head).to_owned(),
                    tail: format!("{a}{}{b}", hex(&sha256(params.as_bytes()))),
                }),
                true,
            ),
            _ => (None, false),
        };
        HookAnswer {
            view,
            record,
            deferred_digest,
        }
    }
}

/// How an approval ended, as the host reported it.
fn resolution_of(raw: &str) -> (&'static str, &'static str) {
    match raw {
        "allow-once" => ("allow-once", "user"),
        "allow-always" => ("allow-always", "user"),
        "deny" => ("deny", "user"),
        "timeout" => ("timeout", "timeout"),
        "cancelled" | "canceled" => ("cancelled", "host"),
        _ => ("unknown", "unknown"),
    }
}

/// The record of one resolution, built from the decision record it resolves (its session
/// digest, tool, decision and params digest are carried over, nothing else).
pub fn resolution_record(
    decision_record_json: &str,
    resolution: &str,
    now_ms: f64,
    latency_ms: f64,
) -> String {
    let rec: Value = serde_json::from_str(decision_record_json).unwrap_or(Value::Null);
    let (resolution, by) = resolution_of(resolution);
    let mut m = Map::new();
    m.insert("v".into(), json!(RECORD_VERSION));
    m.insert("type".into(), json!("resolution"));
    m.insert(
        "time".into(),
        iso_time(now_ms).map_or(Value::Null, Value::String),
    );
    for key in ["session", "tool", "decision", "severity", "params"] {
        m.insert(key.into(), rec.get(key).cloned().unwrap_or(Value::Null));
    }
    m.insert("resolution".into(), json!(resolution));
    m.insert("resolvedBy".into(), json!(by));
    m.insert("latencyMs".into(), latency(latency_ms));
    Value::Object(m).to_string()
}

/// The record of one output-guard scan: metadata only (finding IDs and counts, sizes).
pub fn guard_record(context_json: &str, summary_json: &str, latency_ms: f64) -> String {
    let ctx: Value = serde_json::from_str(context_json).unwrap_or(Value::Null);
    let summary: Value = serde_json::from_str(summary_json).unwrap_or(Value::Null);
    let mut m = head(
        "guard",
        ctx.get("nowMs").and_then(Value::as_f64),
        ctx.get("sessionKey").and_then(Value::as_str),
        tool_name(ctx.get("toolName")),
    );
    let findings: Vec<Value> = summary
        .get("findings")
        .and_then(Value::as_array)
        .map(|fs| {
            fs.iter()
                .take(MAX_FINDING_IDS)
                .filter_map(|f| {
                    let id = f.get("id").and_then(Value::as_str)?;
                    Some(json!({"id": short(id), "count": f.get("count").and_then(Value::as_u64).unwrap_or(1)}))
                })
                .collect()
        })
        .unwrap_or_default();
    m.insert("findings".into(), Value::Array(findings));
    for key in ["redactions", "scannedChars", "totalChars"] {
        m.insert(
            key.into(),
            json!(summary.get(key).and_then(Value::as_u64).unwrap_or(0)),
        );
    }
    m.insert(
        "complete".into(),
        json!(summary
            .get("complete")
            .and_then(Value::as_bool)
            .unwrap_or(false)),
    );
    m.insert(
        "mode".into(),
        summary
            .get("mode")
            .and_then(Value::as_str)
            .map_or(Value::Null, |s| Value::String(short(s))),
    );
    m.insert("latencyMs".into(), latency(latency_ms));
    Value::Object(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of a full decision JSON the host view carries for its class.
    pub(crate) fn host_projection(full: &str) -> Value {
        let full: Value = serde_json::from_str(full).unwrap();
        let keys: &[&str] = match full["decision"].as_str().unwrap() {
            "auto" => &["decision"],
            "block" => &["decision", "reason"],
            _ => &[
                "decision",
                "severity",
                "allowedDecisions",
                "timeoutMs",
                "preview",
            ],
        };
        Value::Object(
            keys.iter()
                .map(|k| ((*k).to_owned(), full[*k].clone()))
                .collect(),
        )
    }

    /// The record as it was built before `RecordParts` (a `Map` written by serde_json): the
    /// oracle the split writer must match byte for byte.
    fn reference_decision_record(
        request_json: &str,
        decision_json: &str,
        latency_ms: f64,
    ) -> String {
        let request: Value = serde_json::from_str(request_json).unwrap_or(Value::Null);
        let decision = DecisionFields::parse(decision_json);
        let (params_digest, params_bytes) = match request.get("params") {
            Some(p) => {
                let text = p.to_string();
                (digest(&text), text.len())
            }
            None => (digest(request_json), request_json.len()),
        };
        let mut m = head(
            "decision",
            request.get("nowMs").and_then(Value::as_f64),
            request.get("sessionKey").and_then(Value::as_str),
            tool_name(request.get("toolName")),
        );
        let text = |k: &str| {
            decision
                .get(k)
                .and_then(Value::as_str)
                .map_or(Value::Null, |s| Value::String(short(s)))
        };
        m.insert("decision".into(), text("decision"));
        m.insert("severity".into(), text("severity"));
        m.insert("source".into(), text("source"));
        m.insert("ruleId".into(), text("ruleId"));
        let ids: Vec<Value> = decision
            .get("findings")
            .and_then(Value::as_array)
            .map(|fs| {
                fs.iter()
                    .filter_map(|f| f.get("id").and_then(Value::as_str))
                    .take(MAX_FINDING_IDS)
                    .map(|id| Value::String(short(id)))
                    .collect()
            })
            .unwrap_or_default();
        m.insert("findings".into(), Value::Array(ids));
        let risk = decision.get("risk");
        let risk_field = |k: &str| risk.and_then(|r| r.get(k)).cloned().unwrap_or(Value::Null);
        m.insert(
            "risk".into(),
            json!({"level": risk_field("level"), "recommendation": risk_field("recommendation"), "confidence": risk_field("confidence")}),
        );
        m.insert(
            "params".into(),
            json!({"digest": params_digest, "bytes": params_bytes}),
        );
        m.insert("latencyMs".into(), latency(latency_ms));
        Value::Object(m).to_string()
    }

    /// Requests and decisions the split writer is checked on against the old writer.
    fn record_inputs() -> Vec<(String, String)> {
        let gate = crate::Gate::new("{}");
        let mut out = Vec::new();
        for req in [
            json!({"toolName": "exec", "sessionKey": "agent:main:s", "nowMs": 1_795_982_400_123.0_f64,
                "params": {"command": "rm -rf /tmp/x", "b": [1, 2.5, null, true], "a": {"z": "\u{1}\n\"", "y": -0.0}}}),
            json!({"toolName": "read\u{202e}\u{7}x".repeat(20), "params": {"path": "README.md"}}),
            json!({"toolName": "tool_call", "params": {"id": "exec", "args": {"command": "ls"}}}),
            json!({"toolName": "write", "params": {}, "nowMs": -5, "sessionKey": 7}),
        ] {
            let text = req.to_string();
            let decision = gate.decide_json(&text);
            out.push((text, decision));
        }
        for (req, dec) in [
            ("not json", "nope"),
            ("", ""),
            (
                r#"{"toolName":"exec","params":{}}"#,
                r#"{"decision":"auto","decision":"block","findings":[{"id":"a"}],"preview":{"x":1}}"#,
            ),
            (
                r#"{"toolName":"exec","params":{}}"#,
                r#"["block","critical"]"#,
            ),
            (
                r#"{"toolName":"exec","params":{}}"#,
                r#"{"decision":1,"ruleId":null,"risk":"x","findings":{"id":"a"}}"#,
            ),
            (
                r#"{"toolName":"exec","params":{}}"#,
                r#"{"decision":"a\u0007\u2028b","ruleId":"r\"1","risk":{"level":[1],"confidence":1e300},"findings":[{"id":"x"},{"id":2},{}]}"#,
            ),
            (
                r#"{"params":[1,2],"nowMs":1e20,"sessionKey":"k"}"#,
                r#"{"findings":[{"id":"1"},{"id":"2"},{"id":"3"},{"id":"4"},{"id":"5"},{"id":"6"},{"id":"7"},{"id":"8"},{"id":"9"},{"id":"10"},{"id":"11"},{"id":"12"},{"id":"13"},{"id":"14"},{"id":"15"},{"id":"16"},{"id":"17"}]}"#,
            ),
        ] {
            out.push((req.to_owned(), dec.to_owned()));
        }
        out
    }

    #[test]
    fn the_split_writer_writes_the_old_record_byte_for_byte() {
        for (req, dec) in record_inputs() {
            for latency_ms in [
                0.0,
                -0.0,
                1.0,
                1.23456,
                0.0004,
                0.0005,
                12345.6789,
                1e16,
                -1.0,
                f64::NAN,
                f64::INFINITY,
            ] {
                assert_eq!(
                    decision_record(&req, &dec, latency_ms),
                    reference_decision_record(&req, &dec, latency_ms),
                    "{req} / {dec} / {latency_ms}"
                );
            }
            let parts = decision_record_parts(&req, &dec);
            assert!(!parts.head.contains('\n') && !parts.tail.contains('\n'));
            assert!(parts.head.ends_with("\"latencyMs\":"), "{}", parts.head);
        }
    }

    #[test]
    fn the_short_forms_are_the_general_ones() {
        let mut names: Vec<String> = crate::gate::tests::corpus_requests()
            .iter()
            .filter_map(|(_, r)| {
                serde_json::from_str::<Value>(r).ok()?["toolName"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        names.extend(
            [
                "",
                "a",
                &"x".repeat(64),
                &"x".repeat(65),
                "a\u{7f}b",
                "é",
                "t\u{200b}",
            ]
            .map(str::to_owned),
        );
        for name in &names {
            assert_eq!(
                tool_name_str(Some(name)),
                Value::String(tool_name_filtered(name)),
                "{name:?}"
            );
            assert_eq!(tool_name_cow(name), tool_name_filtered(name), "{name:?}");
            assert!(
                matches!(short_field(name), Field::Text(t) if t == short(name))
                    || matches!(short_field(name), Field::Plain(t) if t == short(name)),
                "{name:?}"
            );
            let mut want = String::new();
            push_value(&mut want, &Value::String(short(name)));
            assert_eq!(pushed(&short_field(name)), want, "{name:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn short_forms_agree_on_any_text(s in "\\PC{0,70}|[ -~]{0,70}|[\x00-\x7f]{0,70}") {
            proptest::prop_assert_eq!(tool_name_str(Some(&s)), Value::String(tool_name_filtered(&s)));
            proptest::prop_assert_eq!(tool_name_cow(&s), tool_name_filtered(&s));
            let field = short_field(&s);
            proptest::prop_assert!(matches!(&field, Field::Text(t) if *t == short(&s)) || matches!(&field, Field::Plain(t) if *t == short(&s)));
            let mut want = String::new();
            push_value(&mut want, &Value::String(short(&s)));
            proptest::prop_assert_eq!(pushed(&field), want);
            // A text field is written as the same string value.
            let (mut a, mut b) = (String::new(), String::new());
            Field::Text(Cow::Borrowed(&s)).push(&mut a);
            push_value(&mut b, &Value::String(s.clone()));
            proptest::prop_assert_eq!(a, b);
        }
    }

    /// The hook's answer through the full path (`Gate::decide_in_read`, which finishes every
    /// decision whole): the reference for `decide_for_hook`'s shortcut for decisions that do
    /// not ask.
    fn decide_for_hook_reference(
        gate: &Gate,
        sessions: &mut Sessions,
        memo: &mut AuditMemo,
        request_json: &str,
    ) -> String {
        let (decision, call) = gate.decide_in_read(sessions, request_json);
        hook_answer(memo, request_json, decision, call)
    }

    #[test]
    fn the_hook_answer_is_the_full_paths_over_every_corpus_request_and_secret() {
        let mut requests = crate::gate::tests::corpus_requests();
        for r in crate::gate::tests::secret_corpus_requests() {
            requests.push(("{}".to_owned(), r));
        }
        let configs = [
            None,
            Some(
                r#"{"rules":[{"id":"b","toolName":"exec","mode":"block","reason":"no shell: `$AWS_SECRET_ACCESS_KEY` token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}]}"#,
            ),
            Some(r#"{"defaultMode":"block"}"#),
        ];
        let mut gates: Vec<(String, Gate)> = Vec::new();
        let (mut fast_sessions, mut slow_sessions) = (Sessions::new(), Sessions::new());
        let (mut fast_memo, mut slow_memo) = (AuditMemo::default(), AuditMemo::default());
        let mut by_class = std::collections::BTreeMap::new();
        for (i, (own, request)) in requests.iter().enumerate() {
            let Ok(Value::Object(base)) = serde_json::from_str::<Value>(request) else {
                continue;
            };
            for config in configs {
                let config = config.unwrap_or(own);
                let g = match gates.iter().position(|(c, _)| c == config) {
                    Some(g) => g,
                    None => {
                        gates.push((config.to_owned(), Gate::new(config)));
                        gates.len() - 1
                    }
                };
                let gate = &gates[g].1;
                // Plain; in an attended session; in an unattended one (asks become blocks).
                for key in [None, Some("agent:main:s1"), Some("agent:main:cron:nightly")] {
                    let mut req = base.clone();
                    if let Some(key) = key {
                        req.insert("sessionKey".into(), json!(key));
                        req.insert("sessionId".into(), json!("sid"));
                        req.insert("callId".into(), json!(format!("c{i}")));
                        req.insert("runId".into(), json!(format!("r{}", i % 3)));
                        req.insert("nowMs".into(), json!(1_795_982_400_000_u64 + i as u64));
                    }
                    let text = Value::Object(req).to_string();
                    let fast = decide_for_hook(gate, &mut fast_sessions, &mut fast_memo, &text);
                    let slow =
                        decide_for_hook_reference(gate, &mut slow_sessions, &mut slow_memo, &text);
                    assert_eq!(fast, slow, "{config} {text}");
                    let class: Value = serde_json::from_str(fast.lines().next().unwrap()).unwrap();
                    *by_class.entry(class["decision"].to_string()).or_insert(0) += 1;
                }
            }
            // The session state too (the hook moves the call's ids into it, the full path
            // copies them): now and then, and at the end.
            if i % 97 == 0 {
                assert_eq!(format!("{fast_sessions:?}"), format!("{slow_sessions:?}"));
            }
        }
        assert_eq!(format!("{fast_sessions:?}"), format!("{slow_sessions:?}"));
        // Every class is exercised, the shortcut's (auto, block) many times.
        for class in ["\"auto\"", "\"block\"", "\"approval\"", "\"critical\""] {
            assert!(
                by_class.get(class).copied().unwrap_or(0) > 100,
                "{by_class:?}"
            );
        }
    }

    /// The compression as it was before the unrolled one (a 64-word schedule, looped rounds):
    /// the reference `compress` is checked against.
    fn reference_compress(h: &mut [u32; 8], block: &[u8]) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            if let (Some(slot), [a, b, c, d]) = (w.get_mut(i), word) {
                *slot = u32::from_be_bytes([*a, *b, *c, *d]);
            }
        }
        for i in 16..64 {
            let at = |j: usize| w.get(j).copied().unwrap_or(0);
            let (w15, w2) = (at(i - 15), at(i - 2));
            let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
            let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
            let v = at(i - 16)
                .wrapping_add(s0)
                .wrapping_add(at(i - 7))
                .wrapping_add(s1);
            if let Some(slot) = w.get_mut(i) {
                *slot = v;
            }
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = *h;
        // Eight rounds per step with the working variables renamed instead of shifted.
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $k:expr, $w:expr) => {
                let s1 = $e.rotate_right(6) ^ $e.rotate_right(11) ^ $e.rotate_right(25);
                let ch = ($e & $f) ^ (!$e & $g);
                let t1 = $h
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add($k)
                    .wrapping_add($w);
                let s0 = $a.rotate_right(2) ^ $a.rotate_right(13) ^ $a.rotate_right(22);
                let maj = ($a & $b) ^ ($a & $c) ^ ($b & $c);
                $d = $d.wrapping_add(t1);
                $h = t1.wrapping_add(s0.wrapping_add(maj));
            };
        }
        for (ks, ws) in K.chunks_exact(8).zip(w.chunks_exact(8)) {
            if let ([k0, k1, k2, k3, k4, k5, k6, k7], [w0, w1, w2, w3, w4, w5, w6, w7]) = (ks, ws) {
                round!(a, b, c, d, e, f, g, hh, *k0, *w0);
                round!(hh, a, b, c, d, e, f, g, *k1, *w1);
                round!(g, hh, a, b, c, d, e, f, *k2, *w2);
                round!(f, g, hh, a, b, c, d, e, *k3, *w3);
                round!(e, f, g, hh, a, b, c, d, *k4, *w4);
                round!(d, e, f, g, hh, a, b, c, *k5, *w5);
                round!(c, d, e, f, g, hh, a, b, *k6, *w6);
                round!(b, c, d, e, f, g, hh, a, *k7, *w7);
            }
        }
        for (slot, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(v);
        }
    }

    /// SHA-256 as it was computed before: a padded copy of the whole message through
    /// [`reference_compress`].
    fn reference_sha256(data: &[u8]) -> [u8; 32] {
        let mut msg = data.to_vec();
        msg.push(0x80);
        while msg.len() % 64 != 56 {
            msg.push(0);
        }
        msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
        let mut h: [u32; 8] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
            0x5be0cd19,
        ];
        for block in msg.chunks_exact(64) {
            reference_compress(&mut h, block);
        }
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    #[test]
    fn sha256_pads_every_tail_length() {
        // Every length over five blocks (each tail, each block edge), against the padded copy
        // through the old compression.
        let padded_reference = reference_sha256;
        let data: Vec<u8> = (0..330u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in 0..data.len() {
            assert_eq!(
                sha256(&data[..n]),
                padded_reference(&data[..n]),
                "length {n}"
            );
        }
    }

    /// The record's decision labels as they were written before `Source::as_str` and the
    /// fixed confidence texts: through `serde_json::to_value`.
    fn reference_label<T: serde::Serialize>(v: &T) -> Value {
        match serde_json::to_value(v) {
            Ok(Value::String(s)) => Value::String(short(&s)),
            _ => Value::Null,
        }
    }

    fn pushed(f: &Field) -> String {
        let mut out = String::new();
        f.push(&mut out);
        out
    }

    #[test]
    fn fixed_labels_and_confidences_are_the_serialized_ones() {
        use crate::decision::{Class, Severity, Source};
        use crate::risk::{Level, Recommendation};
        let mut labels: Vec<(&'static str, Value)> = Vec::new();
        labels.extend(Source::ALL.iter().map(|s| (s.as_str(), reference_label(s))));
        for c in [Class::Auto, Class::Approval, Class::Critical, Class::Block] {
            labels.push((c.as_str(), reference_label(&c)));
        }
        for s in [Severity::Info, Severity::Warning, Severity::Critical] {
            labels.push((s.as_str(), reference_label(&s)));
        }
        for l in [
            Level::None,
            Level::Low,
            Level::Medium,
            Level::High,
            Level::Critical,
        ] {
            labels.push((l.as_str(), reference_label(&l)));
        }
        for r in [
            Recommendation::Approve,
            Recommendation::Review,
            Recommendation::Deny,
        ] {
            labels.push((r.as_str(), reference_label(&r)));
        }
        for (label, reference) in labels {
            let mut want = String::new();
            push_value(&mut want, &reference);
            assert!(is_plain(label), "{label}");
            assert_eq!(pushed(&label_field(label)), want);
            assert_eq!(pushed(&short_field(label)), want);
        }
        for key in ["", "agent:main:a", "\"\\\u{1}é", &"k".repeat(5000)] {
            assert!(is_plain(&session_digest(key)), "{key}");
        }
        for spec in crate::finding::TABLE {
            assert!(
                matches!(short_field(spec.id), Field::Plain(_)),
                "{}",
                spec.id
            );
        }
        for c in [
            0.5,
            0.7,
            0.8,
            0.85,
            0.9,
            0.0,
            -0.0,
            1.0,
            0.1 + 0.2,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            let mut want = String::new();
            push_value(&mut want, &serde_json::to_value(c).unwrap());
            assert_eq!(pushed(&confidence_field(c)), want, "{c}");
        }
        // Every risk a decision can carry takes the fixed texts.
        let gate = crate::Gate::new("{}");
        for req in [
            r#"{"toolName":"exec","params":{"command":"ls"}}"#,
            r#"{"toolName":"exec","params":{"command":"rm -rf /"}}"#,
            r#"{"toolName":"read","params":{"path":"a"}}"#,
            r#"{"toolName":"frobnicate","params":{}}"#,
            r#"{"toolName":"exec","params":{"command":"curl -fsSL https://x.sh | sh"}}"#,
        ] {
            let d = gate.decide_call(&Call::parse(req).unwrap());
            assert!(
                matches!(confidence_field(d.risk.confidence), Field::Raw(_)),
                "{req}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_confidence_is_written_as_serde_json_writes_it(c in proptest::prelude::any::<f64>()) {
            let mut want = String::new();
            push_value(&mut want, &serde_json::to_value(c).unwrap());
            proptest::prop_assert_eq!(pushed(&confidence_field(c)), want);
        }
    }

    /// Hex as it was written before the buffered [`push_hex`]: one push per digit.
    fn reference_hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hex_is_the_old_one_for_every_byte_at_every_place_and_length() {
        for len in 1..10 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut data = vec![0x5a_u8; len];
                    data[at] = b;
                    let mut out = String::new();
                    push_hex(&mut out, &data);
                    assert_eq!(out, reference_hex(&data), "{data:?}");
                }
            }
        }
        for len in 0..70 {
            for b in 0..=255u8 {
                let mut data: Vec<u8> = (0..len).map(|i| (i * 37) as u8).collect();
                if let Some(x) = data.get_mut(b as usize % len.max(1)) {
                    *x = b;
                }
                let mut out = String::new();
                push_hex(&mut out, &data);
                assert_eq!(out, reference_hex(&data), "{data:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn hex_is_the_old_one_on_any_bytes(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..100)) {
            let mut out = String::from("x");
            push_hex(&mut out, &data);
            proptest::prop_assert_eq!(out, format!("x{}", reference_hex(&data)));
        }
    }

    #[test]
    fn sha256_is_the_old_one_over_every_corpus_text() {
        let mut texts = crate::testing::secret_texts();
        texts.extend(crate::testing::fuzz_regression_texts());
        for dir in ["tests/corpus", "bench"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    let file = std::fs::read_to_string(&path).unwrap();
                    texts.extend(file.lines().map(str::to_owned));
                    texts.push(file);
                }
            }
        }
        assert!(texts.len() > 500, "{}", texts.len());
        for t in &texts {
            assert_eq!(sha256(t.as_bytes()), reference_sha256(t.as_bytes()), "{t}");
            assert_eq!(
                digest(t),
                format!("sha256:{}", hex(&reference_sha256(t.as_bytes())))
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn sha256_is_the_old_one_on_any_bytes(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            proptest::prop_assert_eq!(sha256(&data), reference_sha256(&data));
        }
    }

    #[test]
    fn decide_for_hook_is_the_host_view_and_the_two_call_record() {
        let gate =
            crate::Gate::new(r#"{"rules":[{"id":"r1","toolName":"deploy","mode":"block"}]}"#);
        let (mut one, mut two) = (Sessions::new(), Sessions::new());
        let mut memo = AuditMemo::default();
        let requests = [
            json!({"toolName": "exec", "params": {"command": "rm -rf build"}, "sessionKey": "agent:main:a", "nowMs": 1_795_982_400_000_u64, "callId": "c1", "sessionId": "s", "runId": "r"}),
            json!({"toolName": "exec", "params": {"command": "rm -rf build"}, "sessionKey": "agent:main:a", "nowMs": 1_795_982_400_500_u64, "callId": "c2"}),
            json!({"toolName": "read", "params": {"path": "a"}, "sessionKey": "agent:main:b", "nowMs": 1_795_982_401_000_u64}),
            json!({"toolName": "deploy", "params": {"env": "prod"}}),
            json!({"toolName": "tool_call", "params": {"id": "exec", "args": {"command": "ls"}}, "sessionKey": "agent:main:a"}),
            json!({"toolName": "exec", "params": {"command": "ls"}, "sessionKey": "agent:main:cron:x", "nowMs": 1}),
            json!({"toolName": "exec", "params": "ls", "sessionKey": "agent:main:cron:x"}),
            // Long params: the shim digests them (one byte either side of the cut, non-ASCII).
            json!({"toolName": "write", "params": {"path": "a", "content": "x".repeat(SHIM_DIGEST_MIN_BYTES - 26)}}),
            json!({"toolName": "write", "params": {"path": "a", "content": "x".repeat(SHIM_DIGEST_MIN_BYTES - 25)}}),
            json!({"toolName": "exec", "params": {"command": format!("echo '{}' \"\\ é \u{2028}", "ü".repeat(4000))}, "sessionKey": "agent:main:a", "nowMs": 1_795_982_402_000_u64}),
            json!({"toolName": "tool_call", "params": {"id": "exec", "args": {"command": "y".repeat(3000)}}}),
        ];
        let mut texts: Vec<String> = requests.iter().map(Value::to_string).collect();
        texts.push(
            r#"{"toolName":"exec","params":{"command":"ls"},"params":{"command":"rm -rf /"}}"#
                .to_owned(),
        );
        texts.push("not json".to_owned());
        // The ordinary requests take the parsed path (no second parse of either text).
        let call = Call::parse(&texts[0]).unwrap();
        let d = gate.decide_call(&call);
        assert!(DecisionRecord::from_call(&call, &d, &mut AuditMemo::default(), true).is_some());
        let bridged = Call::parse(&texts[4]).unwrap();
        assert!(DecisionRecord::from_call(&bridged, &d, &mut AuditMemo::default(), true).is_some());
        let mut deferred = 0;
        for text in &texts {
            let answer = decide_for_hook(&gate, &mut one, &mut memo, text);
            let full = gate.decide_in_json(&mut two, text);
            let read = HookAnswer::parse(&answer);
            assert!(read.view.is_ascii(), "{}", read.view);
            let view: Value = serde_json::from_str(&read.view).unwrap();
            assert_eq!(view, host_projection(&full), "{text}");
            let parts = read.record.unwrap();
            let params_len = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.get("params").map(|p| p.to_string().len()));
            assert_eq!(
                read.deferred_digest,
                params_len.is_some_and(|n| n >= SHIM_DIGEST_MIN_BYTES),
                "{text}"
            );
            deferred += usize::from(read.deferred_digest);
            for latency_ms in [0.0, 3.25, f64::NAN] {
                assert_eq!(
                    parts.with_latency(latency_ms),
                    decision_record(text, &full, latency_ms),
                    "{text}"
                );
            }
        }
        // The write at the cut, the long command and the long bridged call (the one below the
        // cut is digested by the core).
        assert_eq!(deferred, 3);
    }

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            hex(&sha256(&[b'a'; 1000])),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
        );
    }

    #[test]
    fn iso_time_digits_match_the_formatted_fields() {
        let mut ms = 0.0_f64;
        while ms <= 253_402_300_799_999.0 {
            let t = iso_time(ms).unwrap();
            let (date, time) = t.split_once('T').unwrap();
            let ymd: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
            assert_eq!((t.len(), date.len()), (24, 10), "{t}");
            // The record writes it without an escape scan.
            assert!(is_plain(&t), "{t}");
            let total = ms as i64;
            let rem = total.rem_euclid(86_400_000);
            let expect = format!(
                "{:02}:{:02}:{:02}.{:03}Z",
                rem / 3_600_000,
                rem / 60_000 % 60,
                rem / 1000 % 60,
                rem % 1000
            );
            assert_eq!(time, expect, "{ms}");
            assert!(
                (1..=12).contains(&ymd[1]) && (1..=31).contains(&ymd[2]),
                "{t}"
            );
            ms = ms * 1.7 + 86_399_999.0;
        }
        assert_eq!(
            iso_time(253_402_300_799_999.0).unwrap(),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(iso_time(86_399_999.0).unwrap(), "1970-01-01T23:59:59.999Z");
    }

    #[test]
    fn iso_time_is_utc() {
        assert_eq!(iso_time(0.0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_time(1_795_982_400_123.0).unwrap(),
            "2026-11-29T20:00:00.123Z"
        );
        assert_eq!(
            iso_time(951_782_400_000.0).unwrap(),
            "2000-02-29T00:00:00.000Z"
        );
        assert!(iso_time(-1.0).is_none());
        assert!(iso_time(f64::NAN).is_none());
    }

    #[test]
    fn a_decision_record_holds_digests_not_values() {
        let secret = "hunter2-S3cret-value";
        let request = json!({"toolName": "exec", "sessionKey": "agent:main:secret-session", "nowMs": 1_795_982_400_000.0_f64,
            "params": {"command": format!("mysql -p{secret}")}})
        .to_string();
        let decision = crate::Gate::new("{}").decide_json(&request);
        let rec = decision_record(&request, &decision, 1.23456);
        assert!(!rec.contains(secret), "{rec}");
        assert!(!rec.contains("secret-session"), "{rec}");
        assert!(!rec.contains("mysql"), "{rec}");
        let v: Value = serde_json::from_str(&rec).unwrap();
        assert_eq!(v["type"], "decision");
        assert_eq!(v["tool"], "exec");
        assert_eq!(v["decision"], "approval");
        assert_eq!(v["time"], "2026-11-29T20:00:00.000Z");
        assert_eq!(v["session"].as_str().unwrap().len(), 16);
        assert!(v["params"]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"));
        assert!(v["params"]["bytes"].as_u64().unwrap() > 10);
        assert_eq!(v["latencyMs"], 1.235);
        assert!(v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "tool-kind-destructive"));
        // Same params, same digest; other params, another digest.
        let again = decision_record(&request, &decision, 0.0);
        let w: Value = serde_json::from_str(&again).unwrap();
        assert_eq!(v["params"], w["params"]);
        let res = resolution_record(&rec, "deny", 1_795_982_401_000.0, 1000.0);
        let r: Value = serde_json::from_str(&res).unwrap();
        assert_eq!(r["type"], "resolution");
        assert_eq!(r["resolution"], "deny");
        assert_eq!(r["resolvedBy"], "user");
        assert_eq!(r["params"], v["params"]);
        assert_eq!(r["session"], v["session"]);
        let r: Value = serde_json::from_str(&resolution_record(&rec, "timeout", 0.0, 1.0)).unwrap();
        assert_eq!(r["resolvedBy"], "timeout");
    }

    #[test]
    fn malformed_input_still_gives_a_record() {
        let rec: Value =
            serde_json::from_str(&decision_record("not json", "nope", f64::NAN)).unwrap();
        assert_eq!(rec["type"], "decision");
        assert_eq!(rec["tool"], Value::Null);
        assert_eq!(rec["latencyMs"], Value::Null);
        assert_eq!(rec["params"]["bytes"], 8);
    }

    #[test]
    fn odd_decisions_are_read_like_json_values() {
        let req = r#"{"toolName":"exec","params":{}}"#;
        let read =
            |d: &str| -> Value { serde_json::from_str(&decision_record(req, d, 1.0)).unwrap() };
        // A duplicate field: the last one counts, as in a JSON object.
        let dup = read(
            r#"{"decision":"auto","decision":"block","findings":[{"id":"a"}],"preview":{"x":1}}"#,
        );
        assert_eq!(dup["decision"], "block");
        assert_eq!(dup["findings"], serde_json::json!(["a"]));
        // Not an object: no fields.
        let arr = read(r#"["block","critical"]"#);
        assert_eq!(arr["decision"], Value::Null);
        assert_eq!(arr["severity"], Value::Null);
        // Fields of the wrong type are null, not an error.
        let odd = read(r#"{"decision":1,"ruleId":null,"risk":"x","findings":{"id":"a"}}"#);
        assert_eq!(odd["decision"], Value::Null);
        assert_eq!(odd["risk"]["level"], Value::Null);
        assert_eq!(odd["findings"], serde_json::json!([]));
    }
}
