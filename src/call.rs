//! The normalized tool call the core reasons about.
//!
//! A request arrives as JSON (`docs/core-api.md`); this module checks its shape strictly
//! (unknown fields, wrong types and duplicate keys are errors, reported by field path, never by
//! value) and resolves what kind of tool it is. OpenClaw 2026.9.6 sets `toolKind` only for Code
//! Mode; `exec` and `apply_patch` arrive by tool name alone, so kinds come from both. A Tool
//! Search bridge call (`tool_call {id, args}`) is unwrapped into the call it makes, so the
//! bridge can never be a way around the policy for the bridged tool.

use crate::json::{parse_strict, parse_strict_fields, read_known_fields};
use serde_json::{Map, Value};

/// Requests larger than this are not inspected: approval, non-reusable.
pub const MAX_REQUEST_BYTES: usize = 2 * 1024 * 1024;

/// Tool kinds that always change the system.
pub const DESTRUCTIVE_KINDS: [&str; 3] = ["exec", "apply_patch", "code_mode_exec"];

const BRIDGE_TOOL: &str = "tool_call";

/// The members a request may have, in the order they are checked.
pub(crate) const FIELDS: [&str; 10] = [
    "toolName",
    "params",
    "toolKind",
    "toolInputKind",
    "sessionKey",
    "sessionId",
    "runId",
    "callId",
    "derivedPaths",
    "nowMs",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool_name: String,
    pub params: Map<String, Value>,
    /// `toolKind` as the host sent it.
    pub host_kind: Option<String>,
    /// The kind implied by the tool name (`exec`, `apply_patch`), if any.
    pub name_kind: Option<&'static str>,
    pub tool_input_kind: Option<String>,
    pub session_key: Option<String>,
    /// The host's session id: a new id under the same key is a new session (state resets).
    pub session_id: Option<String>,
    /// The host's run (turn) id: approval windows in `turn` mode and envelopes bind to it.
    pub run_id: Option<String>,
    /// An id the shim gives this call, so a later resolution finds the pending approval.
    pub call_id: Option<String>,
    pub derived_paths: Vec<String>,
    pub now_ms: Option<f64>,
    /// Set when the host's call was a Tool Search bridge and this is the call it makes.
    pub bridged_from: Option<String>,
    /// The params of the bridge call as the host sent them (`{id, args, …}`), set with
    /// `bridged_from`: the audit record describes the request as sent.
    pub bridged_params: Option<Map<String, Value>>,
    /// `params` as compact JSON, made at the first [`Call::params_text`].
    pub params_text: ParamsText,
}

/// A call's params as serde_json writes them (compact, keys sorted), made once: the scope's
/// exact-call key and the audit record's digest both read it, and for a long command making
/// it is a scan of every byte. A cache of `params`: it never takes part in comparisons, and
/// nothing changes `params` after [`Call::parse`] (which fills nothing).
#[derive(Clone, Default)]
pub struct ParamsText(std::cell::OnceCell<Option<String>>);

impl PartialEq for ParamsText {
    fn eq(&self, _: &ParamsText) -> bool {
        true
    }
}

impl std::fmt::Debug for ParamsText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParamsText")
    }
}

/// Why a request could not be read; `path` names the field, never its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    TooLarge(usize),
    Malformed(String),
}

impl Call {
    /// `params` as compact JSON (serde_json's text: keys sorted), made once per call (or
    /// taken from the request text when it is written so: [`Call::parse`]). `None` only if
    /// serde_json cannot write them (never for JSON values).
    pub fn params_text(&self) -> Option<&str> {
        self.params_text
            .0
            .get_or_init(|| serde_json::to_string(&self.params).ok())
            .as_deref()
    }

    /// Every kind this call has: the host's and the one its name implies.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.host_kind.as_deref().into_iter().chain(self.name_kind)
    }

    /// The first destructive kind of this call, if any.
    pub fn destructive_kind(&self) -> Option<&str> {
        self.kinds().find(|k| DESTRUCTIVE_KINDS.contains(k))
    }

    pub fn parse(text: &str) -> Result<Call, RequestError> {
        if text.len() > MAX_REQUEST_BYTES {
            return Err(RequestError::TooLarge(text.len()));
        }
        // The common request, read without serde (the same values; anything else is left to
        // the strict serde reading below, which also words every error).
        if let Some(known) = read_known_fields(text, &FIELDS) {
            let mut call = Call::from_members(known.values)?;
            // Params written as serde_json writes them are their own text (not so for a
            // bridge call, whose params are the bridged call's).
            if let (None, Some(text)) =
                (&call.bridged_from, known.compact.get(1).copied().flatten())
            {
                call.params_text = ParamsText(std::cell::OnceCell::from(Some(text.to_owned())));
            }
            return Ok(call);
        }
        let Some(fields) = parse_strict_fields(text, &FIELDS).map_err(RequestError::Malformed)?
        else {
            // Not an object: the error `parse_strict` gives, or that it is not an object.
            parse_strict(text).map_err(RequestError::Malformed)?;
            return Err(malformed("request: expected a JSON object"));
        };
        if let Some(key) = &fields.first_unknown {
            return Err(malformed(&format!(
                "request: unknown field `{}`",
                short(key)
            )));
        }
        Call::from_members(fields.values)
    }

    /// The call from its members, in [`FIELDS`] order, each checked in that order.
    fn from_members(values: [Option<Value>; FIELDS.len()]) -> Result<Call, RequestError> {
        let [tool_name, params, host_kind, tool_input_kind, session_key, session_id, run_id, call_id, derived_paths, now_ms] =
            values;
        let tool_name = match tool_name {
            Some(Value::String(s)) if !s.is_empty() => s,
            Some(_) => return Err(malformed("toolName: expected a non-empty string")),
            None => return Err(malformed("toolName: missing")),
        };
        let params = match params {
            Some(Value::Object(m)) => m,
            Some(_) => return Err(malformed("params: expected a JSON object")),
            None => return Err(malformed("params: missing")),
        };
        let host_kind = opt_string(host_kind, "toolKind")?;
        let tool_input_kind = opt_string(tool_input_kind, "toolInputKind")?;
        let session_key = opt_string(session_key, "sessionKey")?;
        let session_id = opt_string(session_id, "sessionId")?;
        let run_id = opt_string(run_id, "runId")?;
        let call_id = opt_string(call_id, "callId")?;
        let derived_paths = match derived_paths {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s),
                        _ => {
                            return Err(malformed(&format!("derivedPaths[{i}]: expected a string")))
                        }
                    }
                }
                out
            }
            Some(_) => return Err(malformed("derivedPaths: expected an array of strings")),
        };
        let now_ms = match now_ms {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => n.as_f64(),
            Some(_) => return Err(malformed("nowMs: expected a number")),
        };
        let mut call = Call {
            name_kind: name_kind(&tool_name),
            tool_name,
            params,
            host_kind: host_kind.filter(|k| !k.is_empty()),
            tool_input_kind,
            session_key,
            session_id,
            run_id,
            call_id,
            derived_paths,
            now_ms,
            bridged_from: None,
            bridged_params: None,
            params_text: ParamsText::default(),
        };
        call.unwrap_bridge();
        Ok(call)
    }

    /// `tool_call {id: "exec", args: {...}}` is decided as `exec {...}`.
    fn unwrap_bridge(&mut self) {
        if self.tool_name != BRIDGE_TOOL {
            return;
        }
        let inner = match self.params.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return,
        };
        let args = match self.params.get("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return,
        };
        self.bridged_from = Some(std::mem::replace(&mut self.tool_name, inner));
        self.name_kind = name_kind(&self.tool_name);
        self.bridged_params = Some(std::mem::replace(&mut self.params, args));
    }
}

/// The kind a bare tool name implies. `bash` is OpenClaw's older name for `exec`.
fn name_kind(tool_name: &str) -> Option<&'static str> {
    match tool_name {
        "exec" | "bash" => Some("exec"),
        "apply_patch" => Some("apply_patch"),
        "code_mode_exec" => Some("code_mode_exec"),
        _ => None,
    }
}

fn opt_string(value: Option<Value>, key: &str) -> Result<Option<String>, RequestError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(malformed(&format!("{key}: expected a string"))),
    }
}

fn malformed(msg: &str) -> RequestError {
    RequestError::Malformed(msg.to_owned())
}

/// At most 64 characters of a name, for messages.
pub fn short(s: &str) -> String {
    let mut out: String = s.chars().take(64).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 64 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_text_is_serde_json_text_and_not_part_of_equality() {
        for text in [
            r#"{"toolName":"exec","params":{"command":"ls","b":[1,2.5,null],"a":{"z":"é\u0001"}}}"#,
            r#"{"toolName":"tool_call","params":{"id":"exec","args":{"command":"rm -rf /"}}}"#,
            r#"{"toolName":"write","params":{}}"#,
        ] {
            let filled = Call::parse(text).unwrap();
            let fresh = Call::parse(text).unwrap();
            let made = filled.params_text().map(str::to_owned);
            assert_eq!(made, serde_json::to_string(&filled.params).ok(), "{text}");
            assert_eq!(
                filled.params_text(),
                made.as_deref(),
                "made once, then read"
            );
            assert_eq!(filled, fresh, "a filled cache does not make calls differ");
        }
        // The params text is serde_json's for every corpus request (the compact writer).
        for (_, request) in crate::gate::tests::corpus_requests() {
            let call = Call::parse(&request).unwrap();
            assert_eq!(
                call.params_text(),
                serde_json::to_string(&call.params).ok().as_deref(),
                "{request}"
            );
        }
    }

    /// The reading before `parse_strict_fields`: the whole request as a map, then each member
    /// taken out of it. [`Call::parse`] must read every text exactly so, errors included.
    fn parse_via_map(text: &str) -> Result<Call, RequestError> {
        if text.len() > MAX_REQUEST_BYTES {
            return Err(RequestError::TooLarge(text.len()));
        }
        let value = parse_strict(text).map_err(RequestError::Malformed)?;
        let Value::Object(mut obj) = value else {
            return Err(malformed("request: expected a JSON object"));
        };
        if let Some(key) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(malformed(&format!(
                "request: unknown field `{}`",
                short(key)
            )));
        }
        Call::from_members(FIELDS.map(|name| obj.remove(name)))
    }

    #[test]
    fn reading_members_directly_agrees_with_reading_a_map() {
        let mut inputs: Vec<String> = [
            "",
            " ",
            "{",
            "}",
            "[]",
            "[{\"a\":1,\"a\":2}]",
            "null",
            "\"x\"",
            "1",
            " \t\n{\"toolName\":\"x\",\"params\":{}} \n",
            "\u{feff}{\"toolName\":\"x\",\"params\":{}}",
            "{\"toolName\":\"x\",\"params\":{}} x",
            "{\"toolName\":\"x\",\"params\":{}}{}",
            "{\"toolName\":\"x\",\"toolName\":\"y\",\"params\":{}}",
            "{\"toolName\":\"x\",\"params\":{},\"zz\":1,\"zz\":2}",
            "{\"toolName\":\"x\",\"params\":{},\"zz\":1,\"aa\":2,\"mm\":3}",
            "{\"b\":1,\"toolName\":\"x\",\"params\":{},\"a\":[}",
            "{\"toolName\":\"x\",\"params\":{\"a\":1,\"a\":2},\"q\":1}",
            "{\"tool\\u004eame\":\"x\",\"params\":{}}",
            "{\"toolName\":\"x\",\"params\":{},\"nowMs\":1e400}",
            "{\"toolName\":\"x\",\"params\":{},\"nowMs\":-0.5,\"derivedPaths\":null}",
            "{\"toolName\":\"x\",\"params\":{},\"derivedPaths\":[\"a\",2]}",
            "{\"toolName\":1,\"params\":2,\"toolKind\":3}",
            "{\"toolName\":\"tool_call\",\"params\":{\"id\":\"exec\",\"args\":{\"command\":\"ls\"}}}",
            "{\"toolName\":\"x\",\"params\":{},\"toolKind\":\"\",\"sessionKey\":null}",
            "{\"toolName\":\"x\",\"params\":{},\"\":1}",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        inputs.push(format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200)));
        inputs.push(format!(
            "{{\"toolName\":\"x\",\"params\":{}1{}}}",
            "[".repeat(130),
            "]".repeat(130)
        ));
        for (_, request) in crate::gate::tests::corpus_requests() {
            inputs.push(request);
        }
        for input in &inputs {
            assert_eq!(Call::parse(input), parse_via_map(input), "{input}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_member_list_reads_the_same(
            members in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "toolName", "params", "toolKind", "toolInputKind", "sessionKey",
                        "sessionId", "runId", "callId", "derivedPaths", "nowMs", "x", "a", "zz",
                    ]),
                    proptest::sample::select(vec![
                        "\"exec\"", "\"\"", "{}", "{\"command\":\"ls\"}", "[]", "[\"a\"]",
                        "[1]", "null", "1", "2.5", "true", "{\"a\":1,\"a\":2}", "[", "\"x",
                    ]),
                ),
                0..6,
            )
        ) {
            let body: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            let text = format!("{{{}}}", body.join(","));
            proptest::prop_assert_eq!(Call::parse(&text), parse_via_map(&text), "{}", text);
        }
    }

    #[test]
    fn reads_a_minimal_request() {
        let c = Call::parse(r#"{"toolName":"read","params":{"path":"a"}}"#).unwrap();
        assert_eq!(c.tool_name, "read");
        assert_eq!(c.kinds().count(), 0);
    }

    #[test]
    fn exec_and_apply_patch_are_kinds_by_name_and_code_mode_by_host_kind() {
        let c = Call::parse(r#"{"toolName":"exec","params":{}}"#).unwrap();
        assert_eq!(c.destructive_kind(), Some("exec"));
        let c = Call::parse(r#"{"toolName":"apply_patch","params":{}}"#).unwrap();
        assert_eq!(c.destructive_kind(), Some("apply_patch"));
        let c =
            Call::parse(r#"{"toolName":"code","params":{},"toolKind":"code_mode_exec"}"#).unwrap();
        assert_eq!(c.destructive_kind(), Some("code_mode_exec"));
    }

    #[test]
    fn rejects_bad_shapes_by_path() {
        let cases = [
            (r#"[]"#, "request: expected a JSON object"),
            (r#"{"params":{}}"#, "toolName: missing"),
            (
                r#"{"toolName":"","params":{}}"#,
                "toolName: expected a non-empty string",
            ),
            (
                r#"{"toolName":"x","params":[]}"#,
                "params: expected a JSON object",
            ),
            (r#"{"toolName":"x"}"#, "params: missing"),
            (
                r#"{"toolName":"x","params":{},"toolKind":3}"#,
                "toolKind: expected a string",
            ),
            (
                r#"{"toolName":"x","params":{},"extra":1}"#,
                "request: unknown field `extra`",
            ),
            (
                r#"{"toolName":"x","params":{},"derivedPaths":[1]}"#,
                "derivedPaths[0]: expected a string",
            ),
            (
                r#"{"toolName":"x","params":{},"nowMs":"1"}"#,
                "nowMs: expected a number",
            ),
            (
                r#"{"toolName":"x","params":{},"callId":1}"#,
                "callId: expected a string",
            ),
            (
                r#"{"toolName":"x","params":{},"runId":[]}"#,
                "runId: expected a string",
            ),
            (
                r#"{"toolName":"x","params":{},"sessionId":{}}"#,
                "sessionId: expected a string",
            ),
        ];
        for (input, msg) in cases {
            assert_eq!(
                Call::parse(input),
                Err(RequestError::Malformed(msg.into())),
                "{input}"
            );
        }
        assert!(matches!(
            Call::parse(r#"{"toolName":"x","params":{"a":1,"a":2}}"#),
            Err(RequestError::Malformed(_))
        ));
    }

    #[test]
    fn refuses_oversized_requests_before_parsing() {
        let big = format!(
            r#"{{"toolName":"write","params":{{"content":"{}"}}}}"#,
            "a".repeat(MAX_REQUEST_BYTES)
        );
        assert!(matches!(Call::parse(&big), Err(RequestError::TooLarge(_))));
    }

    #[test]
    fn unwraps_the_tool_search_bridge() {
        let c = Call::parse(
            r#"{"toolName":"tool_call","params":{"id":"exec","args":{"command":"ls"}}}"#,
        )
        .unwrap();
        assert_eq!(c.tool_name, "exec");
        assert_eq!(c.bridged_from.as_deref(), Some("tool_call"));
        assert_eq!(c.destructive_kind(), Some("exec"));
        assert_eq!(c.params.get("command"), Some(&Value::String("ls".into())));
        assert_eq!(
            c.bridged_params.map(Value::Object),
            Some(serde_json::json!({"id": "exec", "args": {"command": "ls"}}))
        );
        // A bridge call it cannot read stays itself (and falls to the default mode).
        let c =
            Call::parse(r#"{"toolName":"tool_call","params":{"id":"exec","args":"x"}}"#).unwrap();
        assert_eq!(c.tool_name, "tool_call");
    }
}
