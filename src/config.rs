//! Configuration: raw JSON as written → validated, compiled, immutable policy.
//!
//! Validation is the core's own (the JSON Schema in `schemas/config.schema.json` is the
//! published contract, and tests check both agree on shared fixtures). Every problem becomes a
//! path-qualified message such as `rules[2].paramMatcher.all[0]: unknown operator "eq"`.
//! A broken config never disables the gate:
//! - a bad top-level field falls back to its safe default;
//! - a bad rule is dropped (it never matches) and evaluation continues with the next rule;
//! - unknown keys are reported and ignored.
//!
//! Regexes are compiled here, once, with regex-lite (linear time, bounded size).

use crate::call::short;
use crate::decision::{Resolution, Severity};
use crate::json::{is_scalar, parse_strict};
use regex_lite::{Regex, RegexBuilder};
use serde_json::{Map, Value};

pub const MAX_RULES: usize = 256;
pub const MAX_CONDITIONS: usize = 32;
pub const MAX_IN_VALUES: usize = 64;
pub const MAX_ID_CHARS: usize = 128;
pub const MAX_REASON_CHARS: usize = 200;
pub const MAX_PATTERN_CHARS: usize = 1024;
pub const MIN_TIMEOUT_MS: u32 = 1_000;
pub const MAX_TIMEOUT_MS: u32 = 600_000;
pub const DEFAULT_TIMEOUT_MS: u32 = 120_000;
pub const MIN_COMMAND_LENGTH: u64 = 256;
pub const MAX_COMMAND_LENGTH: u64 = 1_048_576;
pub const MAX_WRAPPER_DEPTH: u64 = 8;
pub const MAX_FINDINGS: u64 = 64;
const FORBIDDEN_KEYS: [&str; 3] = ["__proto__", "prototype", "constructor"];

/// What a matched rule (or the default) does with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    RequireApproval,
    Block,
}

impl Mode {
    fn parse(s: &str) -> Option<Mode> {
        match s {
            "auto" => Some(Mode::Auto),
            "require-approval" => Some(Mode::RequireApproval),
            "block" => Some(Mode::Block),
            _ => None,
        }
    }
}

/// One condition on a direct own key of `params`.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Equals { key: String, value: Value },
    In { key: String, values: Vec<Value> },
    Missing { key: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamMatcher {
    All(Vec<Condition>),
    Any(Vec<Condition>),
}

/// Tool names whose answer every [`ToolNamePattern`] keeps from load time: the host's core
/// tools and the names agents call most. Order is the bit order of [`ToolNamePattern::common`].
pub const COMMON_TOOL_NAMES: [&str; 24] = [
    "exec",
    "read",
    "write",
    "edit",
    "apply_patch",
    "process",
    "bash",
    "shell",
    "code_mode_exec",
    "glob",
    "grep",
    "ls",
    "web_fetch",
    "web_search",
    "memory_search",
    "memory_get",
    "browser",
    "message",
    "tool_call",
    "cron",
    "image",
    "sessions_list",
    "sessions_send",
    "multi_edit",
];

/// A rule's `toolNamePattern`: the regex, with its answers for [`COMMON_TOOL_NAMES`] worked
/// out once at load. Rules are checked on every call, and the regex engine's search costs
/// thousands of instructions even on a four-letter name; a common name is now a bit test.
/// A pattern that only lists whole names (`^(npm|cargo)_publish$`) answers any ASCII name
/// from its list ([`ExactNames`]); any other name runs the regex, so every answer is the
/// regex's own.
#[derive(Debug, Clone)]
pub struct ToolNamePattern {
    re: Regex,
    /// Bit `i`: whether `re` matches `COMMON_TOOL_NAMES[i]`.
    common: u32,
    exact: Option<ExactNames>,
}

/// The names a pattern of whole-name literals matches, spelled out: `(?i)`, then `^`, then
/// literals of `[A-Za-z0-9_-]` and groups `(a|b)` / `(?:a|b)` of them, then `$`. On an ASCII
/// name such a pattern matches exactly the names listed (ASCII case-insensitively under
/// `(?i)`: whatever the regex's case folding, an ASCII name's letters fold only to each
/// other); a non-ASCII name is left to the regex.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ExactNames {
    names: Vec<String>,
    fold_case: bool,
}

/// Most names [`ExactNames`] spells out (more is left to the regex).
const MAX_EXACT_NAMES: usize = 64;

impl ExactNames {
    fn of(src: &str) -> Option<ExactNames> {
        let (fold_case, rest) = match src.strip_prefix("(?i)") {
            Some(rest) => (true, rest),
            None => (false, src),
        };
        let body = rest.strip_prefix('^')?.strip_suffix('$')?;
        let literal = |t: &str| {
            !t.is_empty()
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        let mut names = vec![String::new()];
        let mut rest = body;
        while !rest.is_empty() {
            let choices: Vec<&str> = if let Some(group) = rest.strip_prefix('(') {
                let group = group.strip_prefix("?:").unwrap_or(group);
                let end = group.find(')')?;
                let (inner, after) = (group.get(..end)?, group.get(end + 1..)?);
                rest = after;
                inner.split('|').collect()
            } else {
                let end = rest.find('(').unwrap_or(rest.len());
                let (lit, after) = (rest.get(..end)?, rest.get(end..)?);
                rest = after;
                vec![lit]
            };
            if !choices.iter().all(|c| literal(c)) {
                return None;
            }
            if names.len() * choices.len() > MAX_EXACT_NAMES {
                return None;
            }
            names = names
                .iter()
                .flat_map(|n| choices.iter().map(move |c| format!("{n}{c}")))
                .collect();
        }
        (!body.is_empty()).then_some(ExactNames { names, fold_case })
    }

    /// Whether the pattern matches the ASCII `name`.
    fn matches(&self, name: &str) -> bool {
        self.names.iter().any(|n| {
            n.len() == name.len()
                && if self.fold_case {
                    n.eq_ignore_ascii_case(name)
                } else {
                    n == name
                }
        })
    }
}

impl ToolNamePattern {
    pub fn new(re: Regex) -> Self {
        let common = COMMON_TOOL_NAMES
            .iter()
            .enumerate()
            .filter(|(_, name)| re.is_match(name))
            .fold(0u32, |bits, (i, _)| bits | 1 << i);
        let exact = ExactNames::of(re.as_str());
        ToolNamePattern { re, common, exact }
    }

    /// Whether the pattern matches `name` (anywhere in it, as `Regex::is_match`).
    pub fn is_match(&self, name: &str) -> bool {
        // Length and first byte before the bytes: in WebAssembly a `memcmp` is a byte loop
        // behind a call, and most names differ in one of those two.
        let first = name.as_bytes().first();
        let common = COMMON_TOOL_NAMES
            .iter()
            .position(|n| n.len() == name.len() && n.as_bytes().first() == first && *n == name);
        match (common, &self.exact) {
            (Some(i), _) => self.common >> i & 1 == 1,
            (None, Some(exact)) if name.is_ascii() => exact.matches(name),
            (None, _) => self.re.is_match(name),
        }
    }

    /// The regex itself (tests compare answers against it).
    #[cfg(test)]
    pub fn regex(&self) -> &Regex {
        &self.re
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub tool_name: Option<String>,
    pub tool_name_pattern: Option<ToolNamePattern>,
    pub tool_kind: Option<String>,
    pub param_matcher: Option<ParamMatcher>,
    pub mode: Mode,
    pub severity: Option<Severity>,
    pub allowed_decisions: Option<Vec<Resolution>>,
    pub timeout_ms: Option<u32>,
    pub reason: Option<String>,
}

/// `semanticAnalysis`: parameter analysis and its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemanticAnalysis {
    pub enabled: bool,
    pub limits: crate::analysis::Limits,
}

impl Default for SemanticAnalysis {
    fn default() -> Self {
        SemanticAnalysis {
            enabled: true,
            limits: crate::analysis::Limits::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub default_mode: Mode,
    pub default_severity: Severity,
    pub default_timeout_ms: u32,
    pub use_classifiers: bool,
    pub rules: Vec<Rule>,
    pub semantic_analysis: SemanticAnalysis,
    /// `readOnlyExec: "auto"`: completely analysed read-only commands pass without a prompt.
    pub read_only_exec_auto: bool,
    /// Session authority (`src/session/config.rs` owns these keys).
    pub session: crate::session::config::SessionConfig,
    /// `previews`, `decisionLog`, `outputGuard` (issue 4; see [`Privacy`]).
    pub privacy: Privacy,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            default_mode: Mode::RequireApproval,
            default_severity: Severity::Warning,
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            use_classifiers: true,
            rules: Vec::new(),
            semantic_analysis: SemanticAnalysis::default(),
            read_only_exec_auto: false,
            session: crate::session::config::SessionConfig::default(),
            privacy: Privacy::default(),
        }
    }
}

impl Config {
    /// Parses and validates a config. Always returns a usable config; the errors say what was
    /// wrong and what was done about it.
    pub fn from_json(text: &str) -> (Config, Vec<String>) {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed == "null" {
            return (Config::default(), Vec::new());
        }
        match parse_strict(trimmed) {
            Ok(value) => Config::from_value(&value),
            Err(e) => (
                Config::default(),
                vec![format!(
                    "config: not valid JSON ({e}); using the safe defaults"
                )],
            ),
        }
    }

    pub fn from_value(value: &Value) -> (Config, Vec<String>) {
        let mut v = Validator { errors: Vec::new() };
        let config = match value {
            Value::Object(obj) => v.config(obj),
            Value::Null => Config::default(),
            _ => {
                v.err("config", "expected a JSON object; using the safe defaults");
                Config::default()
            }
        };
        (config, v.errors)
    }
}

/// What people and logs are shown: approval previews, the decision log, the output guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Privacy {
    pub previews: Previews,
    pub decision_log: DecisionLog,
    pub output_guard: OutputGuard,
}

/// `previews`: how much of a call the approval prompt shows. The host's caps (title 80,
/// description 512 code points) stay hard maxima whatever is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Previews {
    pub enabled: bool,
    pub max_description_chars: usize,
    pub max_section_chars: usize,
    pub max_lines: usize,
    pub max_files: usize,
    pub redact_secrets: bool,
}

impl Default for Previews {
    fn default() -> Self {
        Previews {
            enabled: true,
            max_description_chars: 512,
            max_section_chars: 220,
            max_lines: 12,
            max_files: 4,
            redact_secrets: true,
        }
    }
}

/// `decisionLog`: the shim's in-memory ring and optional JSONL file (validated here, used by
/// `js-shim/audit.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionLog {
    pub max_entries: usize,
    pub has_file: bool,
}

impl Default for DecisionLog {
    fn default() -> Self {
        DecisionLog {
            max_entries: 512,
            has_file: false,
        }
    }
}

/// `outputGuard`: the scan of tool results (`src/guard.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputGuard {
    pub enabled: bool,
    pub redact_secrets: bool,
    pub max_scan_chars: usize,
    pub time_budget_ms: u32,
}

impl Default for OutputGuard {
    fn default() -> Self {
        OutputGuard {
            enabled: true,
            redact_secrets: true,
            max_scan_chars: 262_144,
            time_budget_ms: 50,
        }
    }
}

struct Validator {
    errors: Vec<String>,
}

impl Validator {
    fn err(&mut self, path: &str, msg: &str) {
        self.errors.push(format!("{path}: {msg}"));
    }

    fn config(&mut self, obj: &Map<String, Value>) -> Config {
        let mut c = Config::default();
        for (key, value) in obj {
            match key.as_str() {
                "defaultMode" => match value.as_str().and_then(Mode::parse) {
                    Some(m) => c.default_mode = m,
                    None => self.err(
                        key,
                        r#"expected one of "auto", "require-approval", "block"; using "require-approval""#,
                    ),
                },
                "defaultSeverity" => match value.as_str().and_then(Severity::parse) {
                    Some(s) => c.default_severity = s,
                    None => self.err(
                        key,
                        r#"expected one of "info", "warning", "critical"; using "warning""#,
                    ),
                },
                "defaultTimeoutMs" => {
                    if let Some(t) = self.timeout(key, value, "; using 120000") {
                        c.default_timeout_ms = t;
                    }
                }
                "useClassifiers" => match value {
                    Value::Bool(b) => c.use_classifiers = *b,
                    _ => self.err(key, "expected true or false; using true"),
                },
                "rules" => c.rules = self.rules(value),
                "semanticAnalysis" => c.semantic_analysis = self.semantic(key, value),
                "readOnlyExec" => match value.as_str() {
                    Some("auto") => c.read_only_exec_auto = true,
                    Some("require-approval") => c.read_only_exec_auto = false,
                    _ => self.err(
                        key,
                        r#"expected "auto" or "require-approval"; using "require-approval""#,
                    ),
                },
                k if crate::session::config::KEYS.contains(&k) => {
                    crate::session::config::field(k, value, &mut c.session, &mut self.errors)
                }
                "previews" => c.privacy.previews = self.previews(key, value),
                "decisionLog" => c.privacy.decision_log = self.decision_log(key, value),
                "outputGuard" => c.privacy.output_guard = self.output_guard(key, value),
                other => self.err(&short(other), "unknown field, ignored"),
            }
        }
        c
    }

    fn semantic(&mut self, path: &str, value: &Value) -> SemanticAnalysis {
        let mut out = SemanticAnalysis::default();
        let Value::Object(obj) = value else {
            self.err(path, "expected an object; using the defaults");
            return out;
        };
        for (key, v) in obj {
            let field = format!("{path}.{}", short(key));
            let int = |v: &Value, min: u64, max: u64| {
                v.as_f64()
                    .filter(|n| n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64)
                    .map(|n| n as usize)
            };
            match key.as_str() {
                "enabled" => match v {
                    Value::Bool(b) => out.enabled = *b,
                    _ => self.err(&field, "expected true or false; using true"),
                },
                "maxCommandLength" => match int(v, MIN_COMMAND_LENGTH, MAX_COMMAND_LENGTH) {
                    Some(n) => out.limits.max_command_length = n,
                    None => self.err(
                        &field,
                        "expected an integer from 256 to 1048576; using 16384",
                    ),
                },
                "maxWrapperDepth" => match int(v, 0, MAX_WRAPPER_DEPTH) {
                    Some(n) => out.limits.max_wrapper_depth = n,
                    None => self.err(&field, "expected an integer from 0 to 8; using 3"),
                },
                "maxFindings" => match int(v, 1, MAX_FINDINGS) {
                    Some(n) => out.limits.max_findings = n,
                    None => self.err(&field, "expected an integer from 1 to 64; using 8"),
                },
                _ => self.err(&field, "unknown field, ignored"),
            }
        }
        out
    }

    fn rules(&mut self, value: &Value) -> Vec<Rule> {
        let Value::Array(items) = value else {
            self.err("rules", "expected an array of rules; no rules are used");
            return Vec::new();
        };
        if items.len() > MAX_RULES {
            self.err(
                "rules",
                &format!("at most {MAX_RULES} rules; only the first {MAX_RULES} are used"),
            );
        }
        let mut rules: Vec<Rule> = Vec::new();
        for (i, item) in items.iter().take(MAX_RULES).enumerate() {
            let path = format!("rules[{i}]");
            let before = self.errors.len();
            let rule = self.rule(&path, item);
            if let Some(rule) = rule {
                if rules.iter().any(|r| r.id == rule.id) {
                    self.err(
                        &format!("{path}.id"),
                        &format!(
                            "duplicate rule id \"{}\"; this rule never matches",
                            short(&rule.id)
                        ),
                    );
                } else if self.errors.len() == before {
                    rules.push(rule);
                }
            }
            if self.errors.len() > before {
                let last = self.errors.len() - 1;
                if let Some(e) = self.errors.get_mut(last) {
                    if !e.ends_with("this rule never matches") {
                        e.push_str("; this rule never matches");
                    }
                }
            }
        }
        rules
    }

    fn rule(&mut self, path: &str, value: &Value) -> Option<Rule> {
        let Value::Object(obj) = value else {
            self.err(path, "expected a rule object");
            return None;
        };
        let mut ok = true;
        let mut rule = Rule {
            id: String::new(),
            tool_name: None,
            tool_name_pattern: None,
            tool_kind: None,
            param_matcher: None,
            mode: Mode::RequireApproval,
            severity: None,
            allowed_decisions: None,
            timeout_ms: None,
            reason: None,
        };
        match obj.get("id") {
            Some(Value::String(s)) if (1..=MAX_ID_CHARS).contains(&s.chars().count()) => {
                rule.id = s.clone()
            }
            Some(_) => {
                self.err(
                    &format!("{path}.id"),
                    "expected a string of 1 to 128 characters",
                );
                ok = false;
            }
            None => {
                self.err(path, "missing \"id\"");
                ok = false;
            }
        }
        match obj.get("mode") {
            Some(v) => match v.as_str().and_then(Mode::parse) {
                Some(m) => rule.mode = m,
                None => {
                    self.err(
                        &format!("{path}.mode"),
                        r#"expected one of "auto", "require-approval", "block""#,
                    );
                    ok = false;
                }
            },
            None => {
                self.err(path, "missing \"mode\"");
                ok = false;
            }
        }
        for (key, v) in obj {
            let field = format!("{path}.{key}");
            match key.as_str() {
                "id" | "mode" => {}
                "toolName" => match v {
                    Value::String(s) => rule.tool_name = Some(s.clone()),
                    _ => ok &= self.fail(&field, "expected a string"),
                },
                "toolKind" => match v {
                    Value::String(s) => rule.tool_kind = Some(s.clone()),
                    _ => ok &= self.fail(&field, "expected a string"),
                },
                "toolNamePattern" => match v {
                    Value::String(s) if s.chars().count() <= MAX_PATTERN_CHARS => {
                        match RegexBuilder::new(s)
                            .size_limit(1 << 20)
                            .nest_limit(64)
                            .build()
                        {
                            Ok(re) => rule.tool_name_pattern = Some(ToolNamePattern::new(re)),
                            Err(_) => ok &= self.fail(&field, "not a valid regular expression"),
                        }
                    }
                    Value::String(_) => ok &= self.fail(&field, "longer than 1024 characters"),
                    _ => ok &= self.fail(&field, "expected a string"),
                },
                "paramMatcher" => match self.param_matcher(&field, v) {
                    Some(m) => rule.param_matcher = Some(m),
                    None => ok = false,
                },
                "severity" => match v.as_str().and_then(Severity::parse) {
                    Some(s) => rule.severity = Some(s),
                    None => {
                        ok &= self.fail(&field, r#"expected one of "info", "warning", "critical""#)
                    }
                },
                "allowedDecisions" => match self.allowed(&field, v) {
                    Some(a) => rule.allowed_decisions = Some(a),
                    None => ok = false,
                },
                "timeoutMs" => match self.timeout(&field, v, "") {
                    Some(t) => rule.timeout_ms = Some(t),
                    None => ok = false,
                },
                "reason" => match v {
                    Value::String(s) if s.chars().count() <= MAX_REASON_CHARS => {
                        rule.reason = Some(s.clone())
                    }
                    Value::String(_) => ok &= self.fail(&field, "longer than 200 characters"),
                    _ => ok &= self.fail(&field, "expected a string"),
                },
                _ => ok &= self.fail(&format!("{path}.{}", short(key)), "unknown field"),
            }
        }
        ok.then_some(rule)
    }

    /// Records an error and returns false, for `ok &= …`.
    fn fail(&mut self, path: &str, msg: &str) -> bool {
        self.err(path, msg);
        false
    }

    fn timeout(&mut self, path: &str, v: &Value, fallback: &str) -> Option<u32> {
        let n = v.as_f64().filter(|n| n.fract() == 0.0);
        match n {
            Some(n) if n >= f64::from(MIN_TIMEOUT_MS) && n <= f64::from(MAX_TIMEOUT_MS) => {
                Some(n as u32)
            }
            _ => {
                self.err(
                    path,
                    &format!("expected an integer from 1000 to 600000 (milliseconds){fallback}"),
                );
                None
            }
        }
    }

    fn allowed(&mut self, path: &str, v: &Value) -> Option<Vec<Resolution>> {
        let Value::Array(items) = v else {
            self.err(path, "expected an array");
            return None;
        };
        if items.is_empty() {
            self.err(path, "must not be empty");
            return None;
        }
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str().and_then(Resolution::parse) {
                Some(r) if out.contains(&r) => {
                    self.err(&format!("{path}[{i}]"), "duplicate decision");
                    return None;
                }
                Some(r) => out.push(r),
                None => {
                    self.err(
                        &format!("{path}[{i}]"),
                        r#"expected one of "allow-once", "allow-always", "deny""#,
                    );
                    return None;
                }
            }
        }
        if !out.contains(&Resolution::Deny) {
            self.err(path, "must include \"deny\": a human can always say no");
            return None;
        }
        Some(out)
    }

    fn param_matcher(&mut self, path: &str, v: &Value) -> Option<ParamMatcher> {
        let Value::Object(obj) = v else {
            self.err(
                path,
                r#"expected an object with exactly one of "all" or "any""#,
            );
            return None;
        };
        let mut found = None;
        for (key, list) in obj {
            match key.as_str() {
                "all" | "any" => {
                    if found.is_some() {
                        self.err(path, r#"expected exactly one of "all" or "any", not both"#);
                        return None;
                    }
                    found = Some((key.as_str(), list));
                }
                other => {
                    self.err(path, &format!("unknown field \"{}\"", short(other)));
                    return None;
                }
            }
        }
        let Some((kind, list)) = found else {
            self.err(path, r#"expected exactly one of "all" or "any""#);
            return None;
        };
        let path = format!("{path}.{kind}");
        let Value::Array(items) = list else {
            self.err(&path, "expected an array of conditions");
            return None;
        };
        if items.is_empty() || items.len() > MAX_CONDITIONS {
            self.err(&path, "expected 1 to 32 conditions");
            return None;
        }
        let mut conds = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            conds.push(self.condition(&format!("{path}[{i}]"), item)?);
        }
        Some(if kind == "all" {
            ParamMatcher::All(conds)
        } else {
            ParamMatcher::Any(conds)
        })
    }

    fn condition(&mut self, path: &str, v: &Value) -> Option<Condition> {
        let Value::Object(obj) = v else {
            self.err(path, "expected a condition object");
            return None;
        };
        if obj.contains_key("all") || obj.contains_key("any") {
            self.err(path, "nested groups are not supported");
            return None;
        }
        for key in obj.keys() {
            if !matches!(key.as_str(), "key" | "equals" | "in" | "missing") {
                self.err(path, &format!("unknown operator \"{}\"", short(key)));
                return None;
            }
        }
        let key = match obj.get("key") {
            Some(Value::String(k)) => k.clone(),
            Some(_) => {
                self.err(&format!("{path}.key"), "expected a string");
                return None;
            }
            None => {
                self.err(path, "missing \"key\"");
                return None;
            }
        };
        let key_path = format!("{path}.key");
        if key.is_empty() || key.chars().count() > MAX_ID_CHARS {
            self.err(&key_path, "expected 1 to 128 characters");
            return None;
        }
        if key.contains(['.', '[', ']']) {
            self.err(
                &key_path,
                "must be a direct own key of params (no \".\", \"[\" or \"]\")",
            );
            return None;
        }
        if FORBIDDEN_KEYS.contains(&key.as_str()) {
            self.err(&key_path, &format!("\"{key}\" is not allowed"));
            return None;
        }
        let ops: Vec<&str> = ["equals", "in", "missing"]
            .into_iter()
            .filter(|op| obj.contains_key(*op))
            .collect();
        if ops.len() != 1 {
            self.err(
                path,
                r#"expected exactly one operator of "equals", "in", "missing""#,
            );
            return None;
        }
        if let Some(value) = obj.get("equals") {
            if !is_scalar(value) {
                self.err(
                    &format!("{path}.equals"),
                    "expected a JSON scalar (string, number, boolean or null)",
                );
                return None;
            }
            return Some(Condition::Equals {
                key,
                value: value.clone(),
            });
        }
        if let Some(list) = obj.get("in") {
            let in_path = format!("{path}.in");
            let Value::Array(values) = list else {
                self.err(&in_path, "expected an array of JSON scalars");
                return None;
            };
            if values.is_empty() || values.len() > MAX_IN_VALUES {
                self.err(&in_path, "expected 1 to 64 values");
                return None;
            }
            for (i, value) in values.iter().enumerate() {
                if !is_scalar(value) {
                    self.err(&format!("{in_path}[{i}]"), "expected a JSON scalar");
                    return None;
                }
            }
            return Some(Condition::In {
                key,
                values: values.clone(),
            });
        }
        match obj.get("missing") {
            Some(Value::Bool(true)) => Some(Condition::Missing { key }),
            _ => {
                self.err(&format!("{path}.missing"), "must be true");
                None
            }
        }
    }
}

/// Validation of the privacy keys (`previews`, `decisionLog`, `outputGuard`).
impl Validator {
    fn object<'a>(&mut self, path: &str, value: &'a Value) -> Option<&'a Map<String, Value>> {
        match value {
            Value::Object(obj) => Some(obj),
            _ => {
                self.err(path, "expected an object; using the defaults");
                None
            }
        }
    }

    fn flag(&mut self, path: &str, v: &Value, default: bool) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => {
                self.err(path, &format!("expected true or false; using {default}"));
                None
            }
        }
    }

    fn bounded(
        &mut self,
        path: &str,
        v: &Value,
        min: u64,
        max: u64,
        default: u64,
    ) -> Option<usize> {
        let n = v
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64);
        if n.is_none() {
            self.err(
                path,
                &format!("expected an integer from {min} to {max}; using {default}"),
            );
        }
        n.map(|n| n as usize)
    }

    fn previews(&mut self, path: &str, value: &Value) -> Previews {
        let mut out = Previews::default();
        let Some(obj) = self.object(path, value) else {
            return out;
        };
        for (key, v) in obj {
            let field = format!("{path}.{}", short(key));
            match key.as_str() {
                "enabled" => out.enabled = self.flag(&field, v, true).unwrap_or(out.enabled),
                "redactSecrets" => {
                    out.redact_secrets = self.flag(&field, v, true).unwrap_or(out.redact_secrets)
                }
                "maxDescriptionChars" => {
                    if let Some(n) = self.bounded(&field, v, 64, 512, 512) {
                        out.max_description_chars = n;
                    }
                }
                "maxSectionChars" => {
                    if let Some(n) = self.bounded(&field, v, 16, 512, 220) {
                        out.max_section_chars = n;
                    }
                }
                "maxLines" => {
                    if let Some(n) = self.bounded(&field, v, 1, 64, 12) {
                        out.max_lines = n;
                    }
                }
                "maxFiles" => {
                    if let Some(n) = self.bounded(&field, v, 1, 32, 4) {
                        out.max_files = n;
                    }
                }
                _ => self.err(&field, "unknown field, ignored"),
            }
        }
        out
    }

    fn decision_log(&mut self, path: &str, value: &Value) -> DecisionLog {
        let mut out = DecisionLog::default();
        let Some(obj) = self.object(path, value) else {
            return out;
        };
        for (key, v) in obj {
            let field = format!("{path}.{}", short(key));
            match key.as_str() {
                "maxEntries" => {
                    if let Some(n) = self.bounded(&field, v, 1, 65_536, 512) {
                        out.max_entries = n;
                    }
                }
                "filePath" => match v {
                    Value::String(s) if !s.trim().is_empty() && s.chars().count() <= 4096 => {
                        out.has_file = true
                    }
                    _ => self.err(
                        &field,
                        "expected a non-empty path of at most 4096 characters; no file is written",
                    ),
                },
                _ => self.err(&field, "unknown field, ignored"),
            }
        }
        out
    }

    fn output_guard(&mut self, path: &str, value: &Value) -> OutputGuard {
        let mut out = OutputGuard::default();
        let Some(obj) = self.object(path, value) else {
            return out;
        };
        for (key, v) in obj {
            let field = format!("{path}.{}", short(key));
            match key.as_str() {
                "enabled" => out.enabled = self.flag(&field, v, true).unwrap_or(out.enabled),
                "redactSecrets" => {
                    out.redact_secrets = self.flag(&field, v, true).unwrap_or(out.redact_secrets)
                }
                "maxScanChars" => {
                    if let Some(n) = self.bounded(&field, v, 1024, 4_194_304, 262_144) {
                        out.max_scan_chars = n;
                    }
                }
                "timeBudgetMs" => {
                    if let Some(n) = self.bounded(&field, v, 1, 1000, 50) {
                        out.time_budget_ms = n as u32;
                    }
                }
                _ => self.err(&field, "unknown field, ignored"),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tool names the pattern tests ask about: every common name, near misses of them, and
    /// others (bridge, MCP, plugin tools, odd characters).
    fn probe_names() -> Vec<String> {
        let mut names: Vec<String> = COMMON_TOOL_NAMES.iter().map(|n| n.to_string()).collect();
        for n in COMMON_TOOL_NAMES {
            names.push(n.to_uppercase());
            names.push(format!("{n}_x"));
            names.push(format!("x{n}"));
            names.push(n.get(1..).unwrap_or("").to_owned());
        }
        for n in [
            "",
            "npm_publish",
            "mcp__github__create_issue",
            "deploy_site",
            "Exec",
            "exec ",
            "é",
            "tool_search_code",
        ] {
            names.push(n.to_owned());
        }
        names
    }

    fn pattern(src: &str) -> ToolNamePattern {
        ToolNamePattern::new(RegexBuilder::new(src).build().unwrap())
    }

    #[test]
    fn common_tool_names_fit_the_bits_once_each() {
        assert!(COMMON_TOOL_NAMES.len() <= 32, "one bit per name in a u32");
        for (i, name) in COMMON_TOOL_NAMES.iter().enumerate() {
            assert_eq!(
                COMMON_TOOL_NAMES.iter().position(|n| n == name),
                Some(i),
                "{name} twice"
            );
        }
    }

    #[test]
    fn tool_name_pattern_answers_as_its_regex() {
        let patterns = [
            "^(exec|bash|shell)$",
            "(?i)^(npm|cargo|pypi)_publish$",
            "exec",
            "^e",
            "s$",
            "",
            ".*",
            "(?i)READ",
            "^(?:web_|memory_)",
            "_",
            "^[a-z]+$",
            "^sessions_(list|send)$",
            "e.e",
            "^(?!x)",
        ];
        let names = probe_names();
        let mut compiled = 0;
        for src in patterns {
            let Ok(re) = RegexBuilder::new(src).build() else {
                continue;
            };
            compiled += 1;
            let p = ToolNamePattern::new(re);
            for name in &names {
                assert_eq!(
                    p.is_match(name),
                    p.regex().is_match(name),
                    "{src:?} on {name:?}"
                );
            }
        }
        assert!(compiled >= 13);
        // The table is used: a name in it answers from the bits.
        let p = pattern("^(exec|bash|shell)$");
        assert_eq!(p.common, 1 | 1 << 6 | 1 << 7);
    }

    /// Patterns of whole names answer from their list exactly as the regex does: every name
    /// listed, in other cases, cut, extended, and with non-ASCII look-alikes of its letters
    /// (the Kelvin sign, the long s, which Unicode case folding maps to `k` and `s`).
    #[test]
    fn whole_name_patterns_answer_from_their_list_as_their_regex() {
        let listed = [
            ("^(exec|bash|shell)$", 3),
            ("(?i)^(npm|cargo|pypi)_publish$", 3),
            ("^sessions_(list|send)$", 2),
            ("^(?:web|memory)_(search|fetch|get)$", 6),
            ("(?i)^Deploy-Site$", 1),
            ("^a(b|c)d(e|f)$", 4),
            ("^x$", 1),
        ];
        let not_listed = [
            "",
            "^$",
            "(?i)^(a|)$",
            "^(a|b)",
            "(a|b)$",
            "^(a|b$",
            "^a.b$",
            "^(a|b)+$",
            "^(?i)a$",
            "^[ab]$",
            "^a\\d$",
            "^(?-i)a$",
            "(?m)^a$",
            "^((a|b))$",
            "^ab?$",
        ];
        let mut names = probe_names();
        for (src, n) in listed {
            let exact = ExactNames::of(src).unwrap_or_else(|| panic!("{src}"));
            assert_eq!(exact.names.len(), n, "{src}");
            for name in &exact.names {
                names.push(name.clone());
                names.push(name.to_uppercase());
                names.push(format!("{name}x"));
                names.push(format!("x{name}"));
                names.push(name.get(1..).unwrap_or("").to_owned());
                names.push(name.replace('k', "\u{212a}").replace('s', "\u{17f}"));
                names.push(name.replace('K', "\u{212a}").replace('S', "\u{17f}"));
                names.push(format!("{name}\n"));
            }
        }
        for src in not_listed {
            assert_eq!(ExactNames::of(src), None, "{src}");
        }
        for src in listed.iter().map(|(s, _)| *s).chain(not_listed) {
            let Ok(re) = RegexBuilder::new(src).build() else {
                continue;
            };
            let p = ToolNamePattern::new(re);
            for name in &names {
                assert_eq!(
                    p.is_match(name),
                    p.regex().is_match(name),
                    "{src:?} on {name:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn tool_name_pattern_answers_as_its_regex_for_any_pattern(
            src in "[\\^$|.*+?()\\[\\]a-z_]{0,12}",
            extra in "[a-z_]{0,10}",
        ) {
            if let Ok(re) = RegexBuilder::new(&src).build() {
                let p = ToolNamePattern::new(re);
                let mut names = probe_names();
                names.push(extra);
                for name in &names {
                    proptest::prop_assert_eq!(p.is_match(name), p.regex().is_match(name), "{:?} on {:?}", src, name);
                }
            }
        }
    }

    #[test]
    fn privacy_keys_validate_and_fall_back() {
        let (c, e) = Config::from_json(
            r#"{"previews":{"enabled":false,"maxDescriptionChars":300,"maxSectionChars":100,"maxLines":5,"maxFiles":2,"redactSecrets":false},
               "decisionLog":{"maxEntries":10,"filePath":"~/hg.jsonl"},
               "outputGuard":{"enabled":true,"redactSecrets":false,"maxScanChars":2048,"timeBudgetMs":20}}"#,
        );
        assert!(e.is_empty(), "{e:?}");
        let p = c.privacy;
        assert!(!p.previews.enabled && !p.previews.redact_secrets);
        assert_eq!(p.previews.max_description_chars, 300);
        assert_eq!(
            (
                p.previews.max_section_chars,
                p.previews.max_lines,
                p.previews.max_files
            ),
            (100, 5, 2)
        );
        assert_eq!(
            p.decision_log,
            DecisionLog {
                max_entries: 10,
                has_file: true
            }
        );
        assert_eq!(p.output_guard.max_scan_chars, 2048);
        assert!(!p.output_guard.redact_secrets);
        let (c, e) = Config::from_json(
            r#"{"previews":{"maxDescriptionChars":513,"maxLines":0,"x":1},"decisionLog":{"filePath":""},"outputGuard":3}"#,
        );
        assert_eq!(e.len(), 5, "{e:?}");
        assert!(e
            .iter()
            .any(|m| m
                .starts_with("previews.maxDescriptionChars: expected an integer from 64 to 512")));
        assert!(e.iter().any(|m| m.starts_with("previews.x: unknown field")));
        assert!(e
            .iter()
            .any(|m| m.starts_with("outputGuard: expected an object")));
        assert_eq!(c.privacy, Privacy::default());
    }

    fn errors(json: &str) -> Vec<String> {
        Config::from_json(json).1
    }

    #[test]
    fn empty_and_null_configs_are_the_defaults() {
        for text in ["", "{}", "null", "  "] {
            let (c, e) = Config::from_json(text);
            assert!(e.is_empty(), "{text}: {e:?}");
            assert_eq!(c.default_mode, Mode::RequireApproval);
            assert_eq!(c.default_severity, Severity::Warning);
            assert_eq!(c.default_timeout_ms, 120_000);
            assert!(c.use_classifiers);
            assert!(c.rules.is_empty());
        }
    }

    #[test]
    fn the_issue_example_error_is_exact() {
        let e = errors(
            r#"{"rules":[{"id":"a","mode":"auto"},{"id":"b","mode":"auto"},
               {"id":"c","mode":"block","paramMatcher":{"all":[{"key":"x","eq":1}]}}]}"#,
        );
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with(r#"rules[2].paramMatcher.all[0]: unknown operator "eq""#),
            "{e:?}"
        );
    }

    #[test]
    fn bad_top_level_fields_fall_back_to_defaults_and_say_so() {
        let (c, e) = Config::from_json(
            r#"{"defaultMode":"yes","defaultSeverity":1,"defaultTimeoutMs":5,"useClassifiers":"no","rulez":[]}"#,
        );
        assert_eq!(c.default_mode, Mode::RequireApproval);
        assert_eq!(c.default_timeout_ms, 120_000);
        assert!(c.use_classifiers);
        assert_eq!(e.len(), 5, "{e:?}");
        assert!(e.iter().any(|m| m.starts_with("defaultMode: ")));
        assert!(e.iter().any(|m| m.starts_with("rulez: unknown field")));
    }

    #[test]
    fn broken_json_falls_back_whole() {
        let (c, e) = Config::from_json(r#"{"defaultMode":"auto""#);
        assert_eq!(c.default_mode, Mode::RequireApproval);
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("config: not valid JSON"));
        let (_, e) = Config::from_json(r#"{"defaultMode":"auto","defaultMode":"block"}"#);
        assert!(e[0].contains("duplicate"), "{e:?}");
        let (_, e) = Config::from_json("[1]");
        assert_eq!(
            e,
            vec!["config: expected a JSON object; using the safe defaults"]
        );
    }

    #[test]
    fn a_bad_rule_is_dropped_and_the_rest_kept() {
        let (c, e) = Config::from_json(
            r#"{"rules":[{"id":"bad","mode":"block","toolNamePattern":"("},{"id":"good","mode":"block"}]}"#,
        );
        assert_eq!(c.rules.len(), 1);
        assert_eq!(c.rules[0].id, "good");
        assert_eq!(
            e,
            vec![
                "rules[0].toolNamePattern: not a valid regular expression; this rule never matches"
            ]
        );
    }

    #[test]
    fn rule_field_errors_are_path_qualified() {
        let cases = [
            (r#"{"mode":"auto"}"#, r#"rules[0]: missing "id""#),
            (r#"{"id":"a"}"#, r#"rules[0]: missing "mode""#),
            (
                r#"{"id":"","mode":"auto"}"#,
                "rules[0].id: expected a string of 1 to 128",
            ),
            (
                r#"{"id":"a","mode":"ask"}"#,
                "rules[0].mode: expected one of",
            ),
            (
                r#"{"id":"a","mode":"auto","severity":"high"}"#,
                "rules[0].severity: expected one of",
            ),
            (
                r#"{"id":"a","mode":"auto","timeoutMs":999}"#,
                "rules[0].timeoutMs: expected an integer",
            ),
            (
                r#"{"id":"a","mode":"auto","timeoutMs":600001}"#,
                "rules[0].timeoutMs: expected an integer",
            ),
            (
                r#"{"id":"a","mode":"auto","timeoutMs":1500.5}"#,
                "rules[0].timeoutMs: expected an integer",
            ),
            (
                r#"{"id":"a","mode":"auto","allowedDecisions":["allow-once"]}"#,
                r#"rules[0].allowedDecisions: must include "deny""#,
            ),
            (
                r#"{"id":"a","mode":"auto","allowedDecisions":[]}"#,
                "rules[0].allowedDecisions: must not be empty",
            ),
            (
                r#"{"id":"a","mode":"auto","allowedDecisions":["deny","deny"]}"#,
                "rules[0].allowedDecisions[1]: duplicate",
            ),
            (
                r#"{"id":"a","mode":"auto","allowedDecisions":["maybe","deny"]}"#,
                "rules[0].allowedDecisions[0]: expected one of",
            ),
            (
                r#"{"id":"a","mode":"auto","reason":5}"#,
                "rules[0].reason: expected a string",
            ),
            (
                r#"{"id":"a","mode":"auto","toolName":5}"#,
                "rules[0].toolName: expected a string",
            ),
            (
                r#"{"id":"a","mode":"auto","when":1}"#,
                "rules[0].when: unknown field",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{}}"#,
                r#"rules[0].paramMatcher: expected exactly one of "all" or "any""#,
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"all":[{"key":"a","missing":true}],"any":[{"key":"a","missing":true}]}}"#,
                "rules[0].paramMatcher: expected exactly one",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"all":[]}}"#,
                "rules[0].paramMatcher.all: expected 1 to 32",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"all":[{"all":[]}]}}"#,
                "rules[0].paramMatcher.all[0]: nested groups",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a","equals":1,"in":[1]}]}}"#,
                "rules[0].paramMatcher.any[0]: expected exactly one operator",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a"}]}}"#,
                "rules[0].paramMatcher.any[0]: expected exactly one operator",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a","equals":[1]}]}}"#,
                "rules[0].paramMatcher.any[0].equals: expected a JSON scalar",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a","in":[]}]}}"#,
                "rules[0].paramMatcher.any[0].in: expected 1 to 64",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a","in":[{}]}]}}"#,
                "rules[0].paramMatcher.any[0].in[0]: expected a JSON scalar",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a","missing":false}]}}"#,
                "rules[0].paramMatcher.any[0].missing: must be true",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a.b","missing":true}]}}"#,
                "rules[0].paramMatcher.any[0].key: must be a direct own key",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"a[0]","missing":true}]}}"#,
                "rules[0].paramMatcher.any[0].key: must be a direct own key",
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"__proto__","missing":true}]}}"#,
                r#"rules[0].paramMatcher.any[0].key: "__proto__" is not allowed"#,
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"constructor","missing":true}]}}"#,
                r#"rules[0].paramMatcher.any[0].key: "constructor" is not allowed"#,
            ),
            (
                r#"{"id":"a","mode":"auto","paramMatcher":{"any":[{"key":"prototype","missing":true}]}}"#,
                r#"rules[0].paramMatcher.any[0].key: "prototype" is not allowed"#,
            ),
        ];
        for (rule, expected) in cases {
            let (c, e) = Config::from_json(&format!(r#"{{"rules":[{rule}]}}"#));
            assert!(c.rules.is_empty(), "{rule} should be dropped");
            assert!(e.len() == 1 && e[0].starts_with(expected), "{rule}: {e:?}");
        }
    }

    #[test]
    fn duplicate_ids_keep_the_first() {
        let (c, e) =
            Config::from_json(r#"{"rules":[{"id":"a","mode":"auto"},{"id":"a","mode":"block"}]}"#);
        assert_eq!(c.rules.len(), 1);
        assert_eq!(c.rules[0].mode, Mode::Auto);
        assert!(e[0].starts_with("rules[1].id: duplicate rule id \"a\""));
    }

    #[test]
    fn too_many_rules_keeps_the_first_256() {
        let rules: Vec<String> = (0..300)
            .map(|i| format!(r#"{{"id":"r{i}","mode":"auto"}}"#))
            .collect();
        let (c, e) = Config::from_json(&format!(r#"{{"rules":[{}]}}"#, rules.join(",")));
        assert_eq!(c.rules.len(), MAX_RULES);
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn semantic_analysis_and_read_only_exec() {
        let (c, e) = Config::from_json(
            r#"{"semanticAnalysis":{"enabled":false,"maxCommandLength":4096,"maxWrapperDepth":2,"maxFindings":4},"readOnlyExec":"auto"}"#,
        );
        assert!(e.is_empty(), "{e:?}");
        assert!(!c.semantic_analysis.enabled);
        assert_eq!(c.semantic_analysis.limits.max_command_length, 4096);
        assert_eq!(c.semantic_analysis.limits.max_wrapper_depth, 2);
        assert_eq!(c.semantic_analysis.limits.max_findings, 4);
        assert!(c.read_only_exec_auto);
        let (c, e) = Config::from_json(
            r#"{"semanticAnalysis":{"enabled":1,"maxCommandLength":10,"maxWrapperDepth":9,"maxFindings":0,"x":1},"readOnlyExec":"yes"}"#,
        );
        assert_eq!(e.len(), 6, "{e:?}");
        assert!(c.semantic_analysis.enabled);
        assert_eq!(
            c.semantic_analysis.limits,
            crate::analysis::Limits::default()
        );
        assert!(!c.read_only_exec_auto);
        assert!(e
            .iter()
            .any(|m| m.starts_with("semanticAnalysis.x: unknown field")));
    }

    #[test]
    fn integral_floats_are_integers() {
        let (c, e) = Config::from_json(r#"{"defaultTimeoutMs":5000.0}"#);
        assert!(e.is_empty());
        assert_eq!(c.default_timeout_ms, 5000);
    }
}
