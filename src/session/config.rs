//! The session-authority config keys: raw JSON → validated settings, with path-qualified
//! errors and a safe fallback per field (like the rest of `src/config.rs`, which calls
//! [`field`] for every key it does not own itself).
//!
//! Keys: `rememberAllowAlways`, `allowAlwaysTtlMs`, `approvalWindow`, `denyCooldownMs`,
//! `autoPassSessionKeys`, `unattendedPolicy`, `floodDetector`, `authorizationEnvelopes`,
//! `adaptiveFileLease`. Every fallback is the stricter choice: a broken window is off, a broken
//! cooldown is the default cooldown, broken envelopes are off.

use crate::call::short;
use serde_json::{Map, Value};

pub const MIN_ALLOW_ALWAYS_TTL_MS: u64 = 60_000;
pub const MAX_ALLOW_ALWAYS_TTL_MS: u64 = 24 * 3_600_000;
pub const DEFAULT_ALLOW_ALWAYS_TTL_MS: u64 = 4 * 3_600_000;
pub const MAX_WINDOW_TTL_MS: u64 = 24 * 3_600_000;
pub const DEFAULT_WINDOW_TTL_MS: u64 = 15 * 60_000;
pub const MAX_COOLDOWN_MS: u64 = 3_600_000;
pub const DEFAULT_COOLDOWN_MS: u64 = 120_000;
pub const MAX_SESSION_KEY_PATTERNS: usize = 32;
pub const MAX_WRITE_ROOTS: usize = 16;
pub const DEFAULT_ENVELOPE_TTL_MS: u64 = 4 * 3_600_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowMode {
    Off,
    /// Until the end of the same run (turn), bounded by `ttlMs`.
    Turn,
    /// For `ttlMs`, across turns of the same session.
    Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowScope {
    Path,
    Category,
}

/// `approvalWindow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovalWindow {
    pub mode: WindowMode,
    pub scope: WindowScope,
    /// `pathFallback: "category"`: a dev-loop call with no path scope reuses by category.
    pub category_fallback: bool,
    pub ttl_ms: u64,
}

impl Default for ApprovalWindow {
    fn default() -> Self {
        ApprovalWindow {
            mode: WindowMode::Off,
            scope: WindowScope::Path,
            category_fallback: false,
            ttl_ms: DEFAULT_WINDOW_TTL_MS,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloodDetector {
    pub enabled: bool,
    pub window_ms: u64,
    pub threshold: u32,
}

impl Default for FloodDetector {
    fn default() -> Self {
        FloodDetector {
            enabled: true,
            window_ms: 60_000,
            threshold: 8,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeMode {
    Off,
    /// Envelopes are granted and checked, but only noted (`envelope-shadow`); calls still ask.
    Shadow,
    Enforce,
}

/// `authorizationEnvelopes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelopes {
    pub mode: EnvelopeMode,
    pub ttl_ms: u64,
    /// Whether `writeRoots` act as standing envelopes (no request needed).
    pub auto_allow_configured_write_roots: bool,
    /// Absolute, normalized repository roots.
    pub write_roots: Vec<String>,
}

impl Default for Envelopes {
    fn default() -> Self {
        Envelopes {
            mode: EnvelopeMode::Off,
            ttl_ms: DEFAULT_ENVELOPE_TTL_MS,
            auto_allow_configured_write_roots: false,
            write_roots: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdaptiveMode {
    Off,
    Shadow,
    Suggest,
    Enforce,
}

/// `adaptiveFileLease` (experimental).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdaptiveLease {
    pub mode: AdaptiveMode,
    /// Calls one learned lease may pass (1–20).
    pub uses: u32,
    pub ttl_ms: u64,
}

impl Default for AdaptiveLease {
    fn default() -> Self {
        AdaptiveLease {
            mode: AdaptiveMode::Off,
            uses: 3,
            ttl_ms: 300_000,
        }
    }
}

/// Everything session authority reads from the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    pub remember_allow_always: bool,
    pub allow_always_ttl_ms: u64,
    pub window: ApprovalWindow,
    pub deny_cooldown_ms: u64,
    /// `:`-segment sequences naming unattended sessions (`[":cron:", ":heartbeat"]`).
    pub auto_pass_session_keys: Vec<Vec<String>>,
    /// `unattendedPolicy.critical: "auto"` (default false = block).
    pub unattended_critical_auto: bool,
    pub flood: FloodDetector,
    pub envelopes: Envelopes,
    pub adaptive: AdaptiveLease,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            remember_allow_always: true,
            allow_always_ttl_ms: DEFAULT_ALLOW_ALWAYS_TTL_MS,
            window: ApprovalWindow::default(),
            deny_cooldown_ms: DEFAULT_COOLDOWN_MS,
            auto_pass_session_keys: vec![vec!["cron".to_owned()], vec!["heartbeat".to_owned()]],
            unattended_critical_auto: false,
            flood: FloodDetector::default(),
            envelopes: Envelopes::default(),
            adaptive: AdaptiveLease::default(),
        }
    }
}

/// The top-level keys this module owns.
pub const KEYS: [&str; 9] = [
    "rememberAllowAlways",
    "allowAlwaysTtlMs",
    "approvalWindow",
    "denyCooldownMs",
    "autoPassSessionKeys",
    "unattendedPolicy",
    "floodDetector",
    "authorizationEnvelopes",
    "adaptiveFileLease",
];

/// Validates one top-level key of [`KEYS`] into `out`; problems go to `errors`.
pub fn field(key: &str, value: &Value, out: &mut SessionConfig, errors: &mut Vec<String>) {
    let mut e = |path: &str, msg: &str| errors.push(format!("{path}: {msg}"));
    match key {
        "rememberAllowAlways" => match value {
            Value::Bool(b) => out.remember_allow_always = *b,
            _ => e(key, "expected true or false; using true"),
        },
        "allowAlwaysTtlMs" => match int(value, MIN_ALLOW_ALWAYS_TTL_MS, MAX_ALLOW_ALWAYS_TTL_MS) {
            Some(n) => out.allow_always_ttl_ms = n,
            None => e(
                key,
                "expected an integer from 60000 (1 min) to 86400000 (24 h); using 14400000 (4 h)",
            ),
        },
        "denyCooldownMs" => match int(value, 0, MAX_COOLDOWN_MS) {
            Some(n) => out.deny_cooldown_ms = n,
            None => e(
                key,
                "expected an integer from 0 (off) to 3600000; using 120000",
            ),
        },
        "autoPassSessionKeys" => match patterns(value) {
            Ok(p) => out.auto_pass_session_keys = p,
            Err((path, msg)) => {
                e(&format!("{key}{path}"), &msg);
            }
        },
        "approvalWindow" => out.window = window(key, value, errors),
        "unattendedPolicy" => out.unattended_critical_auto = unattended(key, value, errors),
        "floodDetector" => out.flood = flood(key, value, errors),
        "authorizationEnvelopes" => out.envelopes = envelopes(key, value, errors),
        "adaptiveFileLease" => out.adaptive = adaptive(key, value, errors),
        _ => e(&short(key), "unknown field, ignored"),
    }
}

fn int(v: &Value, min: u64, max: u64) -> Option<u64> {
    v.as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64)
        .map(|n| n as u64)
}

fn object<'a>(
    path: &str,
    value: &'a Value,
    errors: &mut Vec<String>,
) -> Option<&'a Map<String, Value>> {
    match value {
        Value::Object(obj) => Some(obj),
        _ => {
            errors.push(format!("{path}: expected an object; using the defaults"));
            None
        }
    }
}

/// `[":cron:", ":heartbeat"]` → `[["cron"], ["heartbeat"]]`.
fn patterns(value: &Value) -> Result<Vec<Vec<String>>, (String, String)> {
    let Value::Array(items) = value else {
        return Err((
            String::new(),
            "expected an array of strings; using [\":cron:\", \":heartbeat\"]".to_owned(),
        ));
    };
    if items.len() > MAX_SESSION_KEY_PATTERNS {
        return Err((
            String::new(),
            "at most 32 patterns; using [\":cron:\", \":heartbeat\"]".to_owned(),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let segs: Vec<String> = match item {
            Value::String(s) if s.chars().count() <= 128 => s
                .split(':')
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        if segs.is_empty() {
            return Err((
                format!("[{i}]"),
                "expected a string of 1 to 128 characters with at least one `:`-separated segment; using [\":cron:\", \":heartbeat\"]".to_owned(),
            ));
        }
        out.push(segs);
    }
    Ok(out)
}

fn window(path: &str, value: &Value, errors: &mut Vec<String>) -> ApprovalWindow {
    let mut w = ApprovalWindow::default();
    let Some(obj) = object(path, value, errors) else {
        return w;
    };
    for (key, v) in obj {
        let field = format!("{path}.{}", short(key));
        match key.as_str() {
            "mode" => match v.as_str() {
                Some("off") => w.mode = WindowMode::Off,
                Some("turn") => w.mode = WindowMode::Turn,
                Some("time") => w.mode = WindowMode::Time,
                _ => errors.push(format!(
                    r#"{field}: expected one of "turn", "time", "off"; using "off""#
                )),
            },
            "scope" => match v.as_str() {
                Some("path") => w.scope = WindowScope::Path,
                Some("category") => w.scope = WindowScope::Category,
                _ => errors.push(format!(
                    r#"{field}: expected "path" or "category"; using "path""#
                )),
            },
            "pathFallback" => match v.as_str() {
                Some("none") => w.category_fallback = false,
                Some("category") => w.category_fallback = true,
                _ => errors.push(format!(
                    r#"{field}: expected "none" or "category"; using "none""#
                )),
            },
            "ttlMs" => match int(v, 1_000, MAX_WINDOW_TTL_MS) {
                Some(n) => w.ttl_ms = n,
                None => errors.push(format!(
                    "{field}: expected an integer from 1000 to 86400000; using 900000"
                )),
            },
            "bypassCritical" => {
                if v != &Value::Bool(true) {
                    errors.push(format!(
                        "{field}: must be true (critical calls are never reused); using true"
                    ));
                }
            }
            _ => errors.push(format!("{field}: unknown field, ignored")),
        }
    }
    w
}

fn unattended(path: &str, value: &Value, errors: &mut Vec<String>) -> bool {
    let mut auto = false;
    let Some(obj) = object(path, value, errors) else {
        return auto;
    };
    for (key, v) in obj {
        let field = format!("{path}.{}", short(key));
        match key.as_str() {
            "critical" => match v.as_str() {
                Some("block") => auto = false,
                Some("auto") => auto = true,
                _ => errors.push(format!(
                    r#"{field}: expected "block" or "auto"; using "block""#
                )),
            },
            _ => errors.push(format!("{field}: unknown field, ignored")),
        }
    }
    auto
}

fn flood(path: &str, value: &Value, errors: &mut Vec<String>) -> FloodDetector {
    let mut f = FloodDetector::default();
    let Some(obj) = object(path, value, errors) else {
        return f;
    };
    for (key, v) in obj {
        let field = format!("{path}.{}", short(key));
        match key.as_str() {
            "enabled" => match v {
                Value::Bool(b) => f.enabled = *b,
                _ => errors.push(format!("{field}: expected true or false; using true")),
            },
            "windowMs" => match int(v, 1_000, 3_600_000) {
                Some(n) => f.window_ms = n,
                None => errors.push(format!(
                    "{field}: expected an integer from 1000 to 3600000; using 60000"
                )),
            },
            "threshold" => match int(v, 2, 1_000) {
                Some(n) => f.threshold = n as u32,
                None => errors.push(format!(
                    "{field}: expected an integer from 2 to 1000; using 8"
                )),
            },
            _ => errors.push(format!("{field}: unknown field, ignored")),
        }
    }
    f
}

fn envelopes(path: &str, value: &Value, errors: &mut Vec<String>) -> Envelopes {
    let mut env = Envelopes::default();
    let Some(obj) = object(path, value, errors) else {
        return env;
    };
    for (key, v) in obj {
        let field = format!("{path}.{}", short(key));
        match key.as_str() {
            "mode" => match v.as_str() {
                Some("off") => env.mode = EnvelopeMode::Off,
                Some("shadow") => env.mode = EnvelopeMode::Shadow,
                Some("enforce") => env.mode = EnvelopeMode::Enforce,
                _ => errors.push(format!(
                    r#"{field}: expected one of "off", "shadow", "enforce"; using "off""#
                )),
            },
            "ttlMs" => match int(v, 60_000, MAX_ALLOW_ALWAYS_TTL_MS) {
                Some(n) => env.ttl_ms = n,
                None => errors.push(format!(
                    "{field}: expected an integer from 60000 to 86400000; using 14400000"
                )),
            },
            "autoAllowConfiguredWriteRoots" => match v {
                Value::Bool(b) => env.auto_allow_configured_write_roots = *b,
                _ => errors.push(format!("{field}: expected true or false; using false")),
            },
            "writeRoots" => match write_roots(v) {
                Ok(roots) => env.write_roots = roots,
                Err((at, msg)) => {
                    errors.push(format!("{field}{at}: {msg}; no write roots are used"))
                }
            },
            _ => errors.push(format!("{field}: unknown field, ignored")),
        }
    }
    env
}

fn adaptive(path: &str, value: &Value, errors: &mut Vec<String>) -> AdaptiveLease {
    let mut a = AdaptiveLease::default();
    let Some(obj) = object(path, value, errors) else {
        return a;
    };
    for (key, v) in obj {
        let field = format!("{path}.{}", short(key));
        match key.as_str() {
            "mode" => match v.as_str() {
                Some("off") => a.mode = AdaptiveMode::Off,
                Some("shadow") => a.mode = AdaptiveMode::Shadow,
                Some("suggest") => a.mode = AdaptiveMode::Suggest,
                Some("enforce") => a.mode = AdaptiveMode::Enforce,
                _ => errors.push(format!(
                    r#"{field}: expected one of "off", "shadow", "suggest", "enforce"; using "off""#
                )),
            },
            "uses" => match int(v, 1, 20) {
                Some(n) => a.uses = n as u32,
                None => errors.push(format!(
                    "{field}: expected an integer from 1 to 20; using 3"
                )),
            },
            "ttlMs" => match int(v, 60_000, 900_000) {
                Some(n) => a.ttl_ms = n,
                None => errors.push(format!(
                    "{field}: expected an integer from 60000 to 900000; using 300000"
                )),
            },
            _ => errors.push(format!("{field}: unknown field, ignored")),
        }
    }
    a
}

fn write_roots(v: &Value) -> Result<Vec<String>, (String, &'static str)> {
    let Value::Array(items) = v else {
        return Err((String::new(), "expected an array of absolute paths"));
    };
    if items.len() > MAX_WRITE_ROOTS {
        return Err((String::new(), "at most 16 roots"));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_str().and_then(super::envelope::root) {
            Some(r) => out.push(r),
            None => {
                return Err((
                    format!("[{i}]"),
                    "expected an absolute repository root (not /, a home or a system directory)",
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn defaults() {
        let c = SessionConfig::default();
        assert!(c.remember_allow_always);
        assert_eq!(c.allow_always_ttl_ms, 4 * 3_600_000);
        assert_eq!(c.deny_cooldown_ms, 120_000);
        assert_eq!(c.window.mode, WindowMode::Off);
        assert_eq!(c.flood, FloodDetector::default());
        assert_eq!(c.envelopes.mode, EnvelopeMode::Off);
        assert!(!c.unattended_critical_auto);
    }

    #[test]
    fn every_key_parses() {
        let (c, e) = Config::from_json(
            r#"{"rememberAllowAlways":false,"allowAlwaysTtlMs":60000,"denyCooldownMs":0,
               "approvalWindow":{"mode":"turn","scope":"category","pathFallback":"category","ttlMs":5000,"bypassCritical":true},
               "autoPassSessionKeys":[":nightly:"],"unattendedPolicy":{"critical":"auto"},
               "floodDetector":{"enabled":false,"windowMs":2000,"threshold":3},
               "authorizationEnvelopes":{"mode":"enforce","ttlMs":60000,"autoAllowConfiguredWriteRoots":true,"writeRoots":["/work/repo/"]}}"#,
        );
        assert!(e.is_empty(), "{e:?}");
        let s = c.session;
        assert!(!s.remember_allow_always);
        assert_eq!(s.allow_always_ttl_ms, 60_000);
        assert_eq!(s.deny_cooldown_ms, 0);
        assert_eq!(s.window.mode, WindowMode::Turn);
        assert_eq!(s.window.scope, WindowScope::Category);
        assert!(s.window.category_fallback);
        assert_eq!(s.window.ttl_ms, 5000);
        assert_eq!(s.auto_pass_session_keys, vec![vec!["nightly".to_owned()]]);
        assert!(s.unattended_critical_auto);
        assert!(!s.flood.enabled);
        assert_eq!(s.flood.threshold, 3);
        assert_eq!(s.envelopes.mode, EnvelopeMode::Enforce);
        assert_eq!(s.envelopes.write_roots, ["/work/repo"]);
    }

    #[test]
    fn bad_values_fall_back_with_path_qualified_errors() {
        let (c, e) = Config::from_json(
            r#"{"rememberAllowAlways":1,"allowAlwaysTtlMs":59999,"denyCooldownMs":-1,
               "approvalWindow":{"mode":"always","bypassCritical":false,"x":1},
               "autoPassSessionKeys":[":::"],"unattendedPolicy":{"critical":"ask"},
               "floodDetector":{"threshold":1},
               "authorizationEnvelopes":{"mode":"on","writeRoots":["/"]}}"#,
        );
        let s = c.session;
        assert_eq!(s, SessionConfig::default());
        for path in [
            "rememberAllowAlways: ",
            "allowAlwaysTtlMs: ",
            "denyCooldownMs: ",
            "approvalWindow.mode: ",
            "approvalWindow.bypassCritical: ",
            "approvalWindow.x: ",
            "autoPassSessionKeys[0]: ",
            "unattendedPolicy.critical: ",
            "floodDetector.threshold: ",
            "authorizationEnvelopes.mode: ",
            "authorizationEnvelopes.writeRoots[0]: ",
        ] {
            assert!(e.iter().any(|m| m.starts_with(path)), "{path}: {e:?}");
        }
        assert_eq!(e.len(), 11, "{e:?}");
        let (_, e) = Config::from_json(r#"{"approvalWindow":3}"#);
        assert_eq!(
            e,
            ["approvalWindow: expected an object; using the defaults"]
        );
        let (_, e) = Config::from_json(r#"{"allowAlwaysTtlMs":86400001}"#);
        assert_eq!(e.len(), 1);
    }
}
