//! Name/value pairs (the secret NAME in a sibling field): a random secret value under a random
//! secret name, in every pair shape (Kubernetes/compose YAML env lists, JSON and escaped JSON
//! name/value objects, CloudFormation and `Name=…,Value=…` shorthand, `--name … --value …`,
//! HCL, patches), never reaches a decision (finding details, reason, preview) of an exec, write
//! or apply_patch call; and the same shapes under names that are not secrets (`LOG_LEVEL`,
//! `password-policy`, `tokenizer`, `KeyName`, …) are left exactly as they are.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use openclaw_human_gate::preview::redact::Redactor;
use proptest::prelude::*;
use serde_json::json;

/// Pair shapes: `{N}` is the name, `{V}` the value.
const SHAPES: &[&str] = &[
    "env:\n  - name: {N}\n    value: {V}\n",
    "env:\n- name: {N}\n  value: \"{V}\"\n- name: OTHER\n  value: x\n",
    "      env:\n        - name: {N}\n          value: '{V}'\n",
    "env:\n  - value: {V}\n    name: {N}\n",
    "env:\n  - name: {N}\n    # note\n    description: used by the api\n    value: {V}  # rotated\n",
    "services:\n  api:\n    environment:\n      - name: {N}\n        value: {V}\n",
    "variables:\n  - key: {N}\n    value: {V}\n    masked: true\n",
    "setting {\n  namespace = \"aws:env\"\n  name      = \"{N}\"\n  value     = \"{V}\"\n}\n",
    "{\"name\": \"{N}\", \"value\": \"{V}\"}",
    "[{\"Name\":\"{N}\",\"Type\":\"SecureString\",\"Value\":\"{V}\"}]",
    "{\"key\": \"{N}\", \"value\": \"{V}\", \"protected\": false}",
    "{\"value\": \"{V}\", \"name\": \"{N}\"}",
    "[\n  {\n    \"name\": \"{N}\",\n    \"value\": \"{V}\"\n  }\n]",
    "--overrides \"{\\\"environment\\\":[{\\\"name\\\":\\\"{N}\\\",\\\"value\\\":\\\"{V}\\\"}]}\"",
    "[{\"ParameterKey\": \"{N}\", \"ParameterValue\": \"{V}\"}]",
    "aws cloudformation create-stack --stack-name s --parameters ParameterKey={N},ParameterValue={V}",
    "aws cloudformation deploy --parameters 'ParameterKey={N},UsePreviousValue=false,ParameterValue={V}'",
    "aws elasticbeanstalk update-environment --option-settings Namespace=aws:env,OptionName={N},Value={V}",
    "aws ecs run-task --overrides environment=[{name={N},value={V}}]",
    "aws ssm put-parameter --name {N} --type SecureString --value {V} --overwrite",
    "aws ssm put-parameter --value '{V}' --name {N}",
    "env:\n  - {name: {N}, value: {V}}\n",
    "env = [{ \"name\" => \"{N}\", \"value\" => \"{V}\" }]\n",
    "<input type=\"hidden\" name=\"{N}\" value=\"{V}\">\n",
    "<appSettings>\n  <add key=\"{N}\"\n       value='{V}' />\n</appSettings>\n",
    "<add value=\"{V}\" name=\"{N}\"/>",
    // Session 8: names far from their values, nested lines between, block scalar values,
    // escaped quotes in the fields between.
    "env:\n  - name: {N}\n    a: 1\n    b: 2\n    c: 3\n    d: 4\n    e: 5\n    value: {V}\n  - name: X\n",
    "env:\n  - name: {N}\n    labels:\n      - x\n      - y\n    meta:\n      team: a\n    value: \"{V}\"\n",
    "env:\n  - name: {N}\n    value: |\n      {V}\n  - name: OTHER\n    value: x\n",
    "env:\n- value: >-\n    {V}\n  source: vault\n  name: {N}\n",
    "env:\n  - value: {V}\n    a: 1\n    b: 2\n    c: 3\n    d: 4\n    e: 5\n    name: {N}\n",
    "{\"name\": \"{N}\", \"a\": 1, \"b\": [1, 2], \"c\": {\"d\": 3}, \"e\": \"x\", \"f\": true, \"value\": \"{V}\"}",
    "{\"name\": \"{N}\", \"note\": \"say \\\"hi\\\"\", \"value\": \"{V}\"}",
    "--data \"{\\\"value\\\":\\\"{V}\\\",\\\"note\\\":\\\"a \\\\\\\"b\\\\\\\"\\\",\\\"name\\\":\\\"{N}\\\"}\"",
];

fn fill(shape: &str, name: &str, value: &str) -> String {
    shape.replace("{N}", name).replace("{V}", value)
}

fn secret_name() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "", "DB", "APP", "github", "Stripe", "prod.api", "SMTP",
        ]),
        prop::sample::select(vec![
            "PASSWORD",
            "TOKEN",
            "SECRET",
            "API_KEY",
            "Pat",
            "ACCESS_KEY",
            "PASSPHRASE",
            "clientSecret",
            "pwd",
            "githubPat",
            "dbPassword",
        ]),
        prop::sample::select(vec!["_", ".", "-", ":", "/"]),
    )
        .prop_map(|(prefix, word, sep)| {
            if prefix.is_empty() {
                word.to_owned()
            } else {
                format!("{prefix}{sep}{word}")
            }
        })
}

fn plain_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "LOG_LEVEL",
        "password-policy",
        "tokenizer",
        "KeyName",
        "max_tokens",
        "SSH_KEY_PATH",
        "SECRET_NAME",
        "TOKEN_LIMIT",
        "keyboard",
        "passwordless",
        "PORT",
        "Environment",
    ])
    .prop_map(str::to_owned)
}

/// A credential-looking value: letters, digits, letters.
fn secret_value() -> impl Strategy<Value = String> {
    "[a-zA-Z]{4,10}[0-9]{2,4}[A-Za-z0-9]{4,10}"
}

/// Every 8-character piece of `secret` (the whole when shorter).
fn leaks(out: &str, secret: &str) -> bool {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 8 {
        return out.contains(secret);
    }
    chars
        .windows(8)
        .any(|w| out.contains(&w.iter().collect::<String>()))
}

fn requests(text: &str) -> Vec<serde_json::Value> {
    let patch_lines: String = text.lines().map(|l| format!("+{l}\n")).collect();
    vec![
        json!({"toolName": "exec", "params": {"command": text}}),
        json!({"toolName": "write", "params": {"path": "deploy/app.yaml", "content": text}}),
        json!({"toolName": "edit", "params": {"path": "deploy/app.yaml", "oldText": "a", "newText": text}}),
        json!({"toolName": "apply_patch", "params": {"input":
            format!("*** Begin Patch\n*** Add File: deploy/app.yaml\n{patch_lines}*** End Patch")}}),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_secret_under_a_secret_name_never_reaches_a_decision(
        name in secret_name(),
        value in secret_value(),
        shape in 0..SHAPES.len(),
    ) {
        let text = fill(SHAPES[shape], &name, &value);
        let redacted = Redactor::new().redact(&text);
        prop_assert!(!leaks(&redacted, &value), "{text:?} -> {redacted:?}");
        prop_assert!(redacted.contains(&name), "the name is shown: {redacted:?}");
        let gate = openclaw_human_gate::Gate::new("{}");
        for req in requests(&text) {
            let out = gate.decide_json(&req.to_string());
            prop_assert!(!leaks(&out, &value), "{req} -> {out}");
        }
    }

    #[test]
    fn a_pair_under_a_plain_name_is_left_as_it_is(
        name in plain_name(),
        value in secret_value(),
        shape in 0..SHAPES.len(),
    ) {
        let text = fill(SHAPES[shape], &name, &value);
        prop_assert_eq!(Redactor::new().redact(&text), text);
    }
}

/// A patch that changes a secret value shows only the changed lines; the name on the unchanged
/// line above still hides both values.
#[test]
fn a_changed_value_under_an_unchanged_name_is_hidden_in_the_patch_preview() {
    let gate = openclaw_human_gate::Gate::new("{}");
    let input = "*** Begin Patch\n*** Update File: k8s/api.yaml\n@@\n         - name: DB_PASSWORD\n-          value: oldPassw0rd77\n+          value: newPassw0rd88\n*** End Patch";
    let req = json!({"toolName": "apply_patch", "params": {"input": input}});
    let out: serde_json::Value = serde_json::from_str(&gate.decide_json(&req.to_string())).unwrap();
    let desc = out["preview"]["description"].as_str().unwrap();
    assert!(desc.contains("value: [REDACTED]"), "{desc}");
    assert!(!desc.contains("Passw0rd"), "{desc}");
    // Without a secret name, the same patch is shown as it is.
    let plain = input.replace("DB_PASSWORD", "LOG_LEVEL");
    let req = json!({"toolName": "apply_patch", "params": {"input": plain}});
    let out: serde_json::Value = serde_json::from_str(&gate.decide_json(&req.to_string())).unwrap();
    let desc = out["preview"]["description"].as_str().unwrap();
    assert!(desc.contains("+          value: newPassw0rd88"), "{desc}");
}

/// Shapes of a value under a key name (session 8): YAML block scalars, anchors and tags,
/// `.properties` lines separated by blanks or continued with `\`, percent-encoded names.
/// `{N}` is the name, `{P}` the name percent-encoded, `{V}` the value, `{V1}`/`{V2}` its two
/// halves around a line continuation.
const KEY_SHAPES: &[&str] = &[
    "{N}: |\n  {V}\n",
    "config:\n  {N}: >-\n    {V}\n  other: 1\n",
    "items:\n  - {N}: |2\n      {V}\n  - other: x\n",
    "{N}: &anchor {V}\nother: *anchor\n",
    "{N}: !!str {V}\n",
    "{N}: &a |\n  {V}\n",
    "app.{N} {V}\n",
    "app.{N}\t{V}\nserver.port 8080\n",
    "app.{N}={V1}\\\n    {V2}\n",
    "app.{N} {V1}\\\n  {V2}\nnext.key x\n",
    "{N}={V1}\\\n{V2}\n",
    "curl 'https://api.example.com/v1/x?limit=5&{P}={V}&page=2'",
    "curl -d 'user=bob&{P}={V}' https://login.example.com",
    "GET /cb?next=%2Fhome%3F{N}%3D{V}%26state%3Dabc HTTP/1.1",
];

/// A name of `.properties` and YAML keys (letters, digits, `_`, `.`).
fn key_name(secret: bool) -> impl Strategy<Value = String> {
    let words = if secret {
        vec![
            "password",
            "token",
            "secret",
            "api_key",
            "apiKey",
            "client_secret",
            "passphrase",
            "access_token",
            "pwd",
            "github_pat",
        ]
    } else {
        vec![
            "name",
            "description",
            "token_count",
            "password_policy",
            "tokenizer",
            "key_path",
            "max_tokens",
            "secret_name",
            "port",
            "passwordless",
        ]
    };
    (
        prop::sample::select(vec!["", "db", "mail.smtp", "spring.datasource", "app_"]),
        prop::sample::select(words),
    )
        .prop_map(|(prefix, word)| match prefix {
            "" => word.to_owned(),
            "app_" => format!("app_{word}"),
            p => format!("{p}.{word}"),
        })
}

/// `name` with one of its letters (or `_`) percent-encoded.
fn percent_encoded(name: &str, at: usize) -> String {
    let i = at % name.len();
    name.char_indices()
        .map(|(j, c)| {
            if j == i {
                format!("%{:02X}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn fill_key(shape: &str, name: &str, at: usize, value: &str) -> String {
    let half = value.len() / 2;
    shape
        .replace("{N}", name)
        .replace("{P}", &percent_encoded(name, at))
        .replace("{V1}", &value[..half])
        .replace("{V2}", &value[half..])
        .replace("{V}", value)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_secret_under_a_secret_key_never_reaches_a_decision(
        name in key_name(true),
        value in "[a-zA-Z]{5,10}[0-9]{2,4}[A-Za-z0-9]{5,10}",
        shape in 0..KEY_SHAPES.len(),
        at in 0usize..64,
    ) {
        let text = fill_key(KEY_SHAPES[shape], &name, at, &value);
        let redacted = Redactor::new().redact(&text);
        let half = value.len() / 2;
        let pieces: Vec<&str> = if KEY_SHAPES[shape].contains("{V1}") {
            vec![&value[..half], &value[half..]]
        } else {
            vec![&value]
        };
        for piece in &pieces {
            prop_assert!(!leaks(&redacted, piece), "{text:?} -> {redacted:?}");
        }
        let gate = openclaw_human_gate::Gate::new("{}");
        for req in requests(&text) {
            let out = gate.decide_json(&req.to_string());
            for piece in &pieces {
                prop_assert!(!leaks(&out, piece), "{req} -> {out}");
            }
        }
    }

    #[test]
    fn a_value_under_a_plain_key_is_left_as_it_is(
        name in key_name(false),
        value in "[a-zA-Z]{5,10}[0-9]{2,4}[A-Za-z0-9]{5,10}",
        shape in 0..KEY_SHAPES.len(),
        at in 0usize..64,
    ) {
        let text = fill_key(KEY_SHAPES[shape], &name, at, &value);
        prop_assert_eq!(Redactor::new().redact(&text), text);
    }
}
