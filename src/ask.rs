//! `human_gate_ask`: lets the agent put a question (with optional choices) to the human.
//!
//! OpenClaw's approval flow can only allow or deny, so a real question goes back through chat:
//! the tool result tells the agent to present the question and wait for the human's next
//! message. The input is untrusted model output: shape-checked, sanitized and bounded here.

use crate::json::parse_strict;
use crate::preview::sanitize::{sanitize, truncate_chars};
use serde::Serialize;
use serde_json::Value;

pub const MAX_QUESTION_CHARS: usize = 2000;
pub const MAX_CONTEXT_CHARS: usize = 2000;
pub const MAX_CHOICES: usize = 8;
pub const MAX_CHOICE_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AskDetails {
    pub question: String,
    pub choices: Vec<String>,
    pub allow_free_text: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub status: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AskResult {
    Ok {
        ok: bool,
        text: String,
        details: AskDetails,
    },
    Err {
        ok: bool,
        error: String,
    },
}

fn err(msg: &str) -> AskResult {
    AskResult::Err {
        ok: false,
        error: format!("human_gate_ask: {msg}"),
    }
}

fn clean(s: &str, max: usize) -> String {
    truncate_chars(sanitize(s).trim(), max)
}

/// Validates the tool's params and renders the text the agent presents.
pub fn render(params_json: &str) -> AskResult {
    let obj = match parse_strict(params_json) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return err("expected an object of parameters"),
        Err(e) => return err(&format!("parameters are not valid JSON ({e})")),
    };
    if let Some(k) = obj.keys().find(|k| {
        !matches!(
            k.as_str(),
            "question" | "choices" | "allowFreeText" | "context"
        )
    }) {
        return err(&format!("unknown parameter \"{}\"", crate::call::short(k)));
    }
    let question = match obj.get("question") {
        Some(Value::String(q)) if !q.trim().is_empty() => clean(q, MAX_QUESTION_CHARS),
        _ => return err("\"question\" must be a non-empty string"),
    };
    let choices = match obj.get("choices") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            if items.len() > MAX_CHOICES {
                return err("at most 8 choices");
            }
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) if !s.trim().is_empty() => {
                        out.push(clean(s, MAX_CHOICE_CHARS))
                    }
                    _ => return err("every choice must be a non-empty string"),
                }
            }
            out
        }
        Some(_) => return err("\"choices\" must be an array of strings"),
    };
    let allow_free_text = match obj.get("allowFreeText") {
        None | Some(Value::Null) => choices.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(_) => return err("\"allowFreeText\" must be true or false"),
    };
    if choices.is_empty() && !allow_free_text {
        return err("with no choices, the human must be allowed to answer freely");
    }
    let context = match obj.get("context") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if c.trim().is_empty() => None,
        Some(Value::String(c)) => Some(clean(c, MAX_CONTEXT_CHARS)),
        Some(_) => return err("\"context\" must be a string"),
    };

    let mut text = String::from("Question for the human (asked through Human Gate):\n");
    if let Some(c) = &context {
        text.push_str(&format!("\nContext: {c}\n"));
    }
    text.push_str(&format!("\n{question}\n"));
    if !choices.is_empty() {
        text.push('\n');
        for (i, c) in choices.iter().enumerate() {
            text.push_str(&format!("  {}. {c}\n", i + 1));
        }
        if allow_free_text {
            text.push_str("  (or answer in your own words)\n");
        }
    }
    text.push_str(
        "\nShow this question to the user exactly as written, then stop and wait for their reply. \
         Do not answer it yourself and take no further action until they have answered.",
    );
    AskResult::Ok {
        ok: true,
        text,
        details: AskDetails {
            question,
            choices,
            allow_free_text,
            context,
            status: "awaiting-answer",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_question_and_numbered_choices() {
        let AskResult::Ok { text, details, .. } =
            render(r#"{"question":"Deploy now?","choices":["Yes","No"],"context":"CI is green"}"#)
        else {
            panic!("expected ok")
        };
        assert!(text.contains("Deploy now?"));
        assert!(text.contains("  1. Yes\n  2. No\n"));
        assert!(text.contains("Context: CI is green"));
        assert!(!details.allow_free_text);
        assert_eq!(details.choices, ["Yes", "No"]);
    }

    #[test]
    fn rejects_bad_input_with_a_reason() {
        for (input, needle) in [
            (r#"{}"#, "question"),
            (r#"{"question":"  "}"#, "question"),
            (r#"{"question":"q","choices":"a"}"#, "choices"),
            (r#"{"question":"q","choices":[1]}"#, "choice"),
            (r#"{"question":"q","allowFreeText":"yes"}"#, "allowFreeText"),
            (r#"{"question":"q","allowFreeText":false}"#, "freely"),
            (r#"{"question":"q","extra":1}"#, "unknown parameter"),
            (r#"[1]"#, "object"),
            (r#"{"question":"q","question":"r"}"#, "JSON"),
        ] {
            match render(input) {
                AskResult::Err { error, .. } => assert!(error.contains(needle), "{input}: {error}"),
                AskResult::Ok { .. } => panic!("{input} should fail"),
            }
        }
    }

    #[test]
    fn sanitizes_and_bounds() {
        let q = format!("\u{1b}[31m{}", "q".repeat(5000));
        let AskResult::Ok { details, .. } = render(&serde_json::json!({"question": q}).to_string())
        else {
            panic!("expected ok")
        };
        assert!(!details.question.contains('\u{1b}'));
        assert_eq!(details.question.chars().count(), MAX_QUESTION_CHARS);
        assert!(details.allow_free_text);
    }
}
