//! User rule matching: exact tool name, tool-name regex, tool kind and the one-level param
//! matcher. A rule matches when every selector it has matches. Param conditions look only at
//! direct own keys of `params`; strict JSON equality, no coercion.

use crate::call::Call;
use crate::config::{Condition, ParamMatcher, Rule};
use crate::json::scalar_eq;
use serde_json::{Map, Value};

pub fn matches(rule: &Rule, call: &Call) -> bool {
    if let Some(name) = &rule.tool_name {
        if *name != call.tool_name {
            return false;
        }
    }
    if let Some(re) = &rule.tool_name_pattern {
        if !re.is_match(&call.tool_name) {
            return false;
        }
    }
    if let Some(kind) = &rule.tool_kind {
        if !call.kinds().any(|k| k == kind) {
            return false;
        }
    }
    match &rule.param_matcher {
        None => true,
        Some(ParamMatcher::All(conds)) => conds.iter().all(|c| condition(c, &call.params)),
        Some(ParamMatcher::Any(conds)) => conds.iter().any(|c| condition(c, &call.params)),
    }
}

fn condition(cond: &Condition, params: &Map<String, Value>) -> bool {
    match cond {
        Condition::Equals { key, value } => params.get(key).is_some_and(|v| scalar_eq(v, value)),
        Condition::In { key, values } => params
            .get(key)
            .is_some_and(|v| values.iter().any(|x| scalar_eq(v, x))),
        Condition::Missing { key } => !params.contains_key(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn rule(json: &str) -> Rule {
        let (c, e) = Config::from_json(&format!(r#"{{"rules":[{json}]}}"#));
        assert!(e.is_empty(), "{e:?}");
        c.rules.into_iter().next().unwrap()
    }
    fn call(json: &str) -> Call {
        Call::parse(json).unwrap()
    }

    #[test]
    fn tool_name_is_exact() {
        let r = rule(r#"{"id":"a","toolName":"exec","mode":"block"}"#);
        assert!(matches(&r, &call(r#"{"toolName":"exec","params":{}}"#)));
        assert!(!matches(&r, &call(r#"{"toolName":"Exec","params":{}}"#)));
        assert!(!matches(&r, &call(r#"{"toolName":"exec2","params":{}}"#)));
    }

    #[test]
    fn pattern_is_a_search_and_combines_with_name() {
        let r = rule(r#"{"id":"a","toolNamePattern":"^(read|get)_","mode":"auto"}"#);
        assert!(matches(&r, &call(r#"{"toolName":"get_user","params":{}}"#)));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"user_get","params":{}}"#)
        ));
        let r =
            rule(r#"{"id":"a","toolName":"get_user","toolNamePattern":"delete","mode":"auto"}"#);
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"get_user","params":{}}"#)
        ));
    }

    #[test]
    fn tool_kind_matches_host_or_name_kind() {
        let r = rule(r#"{"id":"a","toolKind":"exec","mode":"block"}"#);
        assert!(matches(&r, &call(r#"{"toolName":"exec","params":{}}"#)));
        assert!(!matches(&r, &call(r#"{"toolName":"read","params":{}}"#)));
        let r = rule(r#"{"id":"a","toolKind":"code_mode_exec","mode":"block"}"#);
        assert!(matches(
            &r,
            &call(r#"{"toolName":"exec","params":{},"toolKind":"code_mode_exec"}"#)
        ));
    }

    #[test]
    fn param_matcher_all_any_equals_in_missing() {
        let r = rule(
            r#"{"id":"a","toolName":"process","mode":"auto",
                "paramMatcher":{"all":[{"key":"action","in":["list","poll","log"]},{"key":"force","missing":true}]}}"#,
        );
        assert!(matches(
            &r,
            &call(r#"{"toolName":"process","params":{"action":"list"}}"#)
        ));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"process","params":{"action":"kill"}}"#)
        ));
        assert!(!matches(&r, &call(r#"{"toolName":"process","params":{}}"#)));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"process","params":{"action":"list","force":null}}"#)
        ));
        let r = rule(
            r#"{"id":"a","mode":"block","paramMatcher":{"any":[{"key":"env","equals":"prod"},{"key":"n","equals":1}]}}"#,
        );
        assert!(matches(
            &r,
            &call(r#"{"toolName":"x","params":{"env":"prod"}}"#)
        ));
        assert!(matches(&r, &call(r#"{"toolName":"x","params":{"n":1.0}}"#)));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"x","params":{"n":"1"}}"#)
        ));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"x","params":{"env":["prod"]}}"#)
        ));
        assert!(!matches(
            &r,
            &call(r#"{"toolName":"x","params":{"nested":{"env":"prod"}}}"#)
        ));
    }

    #[test]
    fn a_rule_without_selectors_matches_everything() {
        let r = rule(r#"{"id":"all","mode":"block"}"#);
        assert!(matches(&r, &call(r#"{"toolName":"anything","params":{}}"#)));
    }
}
