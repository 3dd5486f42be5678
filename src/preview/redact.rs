//! Secret redaction: anything shaped like a credential is replaced before text leaves the core
//! (previews, finding details and reasons, guarded tool output).
//!
//! Four families of rules, each a regex-lite pattern (linear time) plus a check in code that
//! decides whether the captured value really is a secret:
//! - shapes that are secrets by themselves: PEM private keys, JWTs, provider keys (cloud, VCS,
//!   chat, model providers, package registries, payment), webhook URLs;
//! - context that marks a value: `Authorization:`/`Cookie:`/API-key headers, `Bearer …`, URL
//!   credentials (`scheme://user:pass@`), connection-string and query parameters;
//! - secret-named assignments in env files, shell (also `setx`/`setenv`/fish `set -gx NAME X`),
//!   Makefiles (`?=`, `+=`), JSON, YAML, TOML, code (`||=`, `??=`) and XML, and secret
//!   options of command lines (`--password=…`, `--token …`, `-storepass …`), named by a
//!   component classifier so `token_count=5`, `max_tokens`, `--password-file` stay; a name
//!   is judged with the segments before it (`x.pat.y`, `Db:Pat:Value`, `app/pat/value`,
//!   `cfg['pat']['value']`, `user[password]`), and a secret word counts only as a whole
//!   component or a component's end (`gitlabPatValue`, `PGPASSWORD`; not `passwordless`,
//!   `tokenizer`, `keyboard`, `path`); and the value of a name/value pair whose name field is
//!   such a name (`- name: DB_PASSWORD` / `value: …`, `{"name": …, "value": …}`,
//!   `ParameterKey=…,ParameterValue=…`, `--name … --value …`; see [`PAIR_PATTERNS`]), also
//!   up to 32 lines apart in one YAML mapping item, and a YAML block scalar's lines
//!   (`password: |`), a value after YAML node properties (`secret: &s x`), a `.properties`
//!   value after blanks (`db.password x`) or continued with `\`, and percent-encoded names
//!   (`pass%77ord=…`, `Authorization%3A%20Bearer%20…`), whose extents are read in code
//!   (`extent.rs`);
//! - short password options whose meaning depends on the command (`mysql -pX`, `sshpass -p X`,
//!   `docker login -p X`, `redis-cli -a X`, `curl -u user:X`, `openssl -passin pass:X`, …).
//!
//! Values that only refer to a secret (`$TOKEN`, `${API_KEY}`, `<YOUR_KEY>`, `{{ x }}`,
//! `os.environ[...]`, paths, masks like `****`) are left alone. Redaction is idempotent: the
//! replacement is itself such a reference and never matches again.

use super::extent;
use super::pattern::LazyRegex;
use regex::Captures;

pub const REDACTED: &str = "[REDACTED]";
const REDACTED_KEY: &str = "[REDACTED PRIVATE KEY]";

/// Parameter names whose values are secrets whatever they look like.
pub fn is_secret_key(key: &str) -> bool {
    // Every secret name holds a secret word at a component's end (`may_be_secret_name`, a
    // pass without allocating), which most keys (`path`, `content`) do not (session 7).
    may_be_secret_name(key.as_bytes()) && is_secret_name(key)
}

/// How a rule's match is turned into a redaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// The whole match is a secret block, replaced by [`REDACTED_KEY`].
    Block,
    /// Group `s` is a secret whenever it matched.
    Always,
    /// Group `s` is a secret if it looks like a token (digits or mixed case), not a word.
    TokenLike,
    /// Group `s` is a secret unless it is a reference, placeholder, path or mask.
    Value,
    /// Group `n` must be a secret name (see [`is_secret_name`]) and `s` a [`Check::Value`].
    Named,
    /// As `Named`, for a command-line option: also `--user user:pass` pairs.
    Flag,
    /// A provider key shape; rejects obvious placeholders (`sk-xxxx…`).
    Shape,
    /// As `Value`, for a credential header: escapes (`\"`) belong to the value only when it
    /// was opened by a quote (`{"Authorization":"Bearer a\"b"}`); else it ends at a `\`.
    Header,
    /// Group `n` is a secret name and the match a YAML block scalar header (`password: |`):
    /// the value is the block's indented lines (see [`extent::block_scalar`]).
    BlockScalar,
    /// Group `n` is a secret name on a `name:` line: the value is that of the sibling `value:`
    /// key of the same YAML/HCL mapping, however far (see [`extent`]).
    Sibling,
    /// A `.properties` value continued over lines with `\`: group `n` a secret name, group
    /// `s` the value with its continuation lines.
    Continued,
    /// Group `n` or `sep` percent-encoded: both are decoded, then judged as `Named`
    /// (or as a credential header's value).
    Percent,
}

struct RuleSpec {
    pattern: &'static str,
    check: Check,
    /// Lowercase literals of which one must occur for the rule to possibly match (empty: any).
    pre: &'static [&'static str],
    /// When not empty, the rule's matches never span lines and it runs only on the lines that
    /// contain one of these lowercase words (a secret name must contain one).
    per_line: &'static [&'static str],
    /// When not empty, one of these lowercase literals must occur as well as one of `pre`.
    also: &'static [&'static str],
}

const fn rule(pattern: &'static str, check: Check, pre: &'static [&'static str]) -> RuleSpec {
    RuleSpec {
        pattern,
        check,
        pre,
        per_line: &[],
        also: &[],
    }
}

/// [`rule`] that also needs one of the `also` literals (e.g. the command names of a
/// command-specific option).
const fn rule_also(
    pattern: &'static str,
    check: Check,
    pre: &'static [&'static str],
    also: &'static [&'static str],
) -> RuleSpec {
    RuleSpec {
        pattern,
        check,
        pre,
        per_line: &[],
        also,
    }
}

/// Words one of which every secret option or its user:password form contains.
const FLAG_WORDS: &[&str] = &[
    "pass",
    "pw",
    "secret",
    "token",
    "key",
    "auth",
    "cred",
    "otp",
    "sig",
    "cookie",
    "mnemonic",
    "phrase",
    "pat",
    "psk",
    "bearer",
    "-u",
    "-a",
    "--user",
    "proxy-user",
];

/// Words one of which every secret name contains (see [`is_secret_name`], [`is_auth_name`]).
const NAME_WORDS: &[&str] = &[
    "pass", "pw", "secret", "token", "key", "auth", "cred", "otp", "sig", "cookie", "mnemonic",
    "phrase", "pat", "psk", "bearer",
];

/// A quoted or bare value (bare values end at whitespace, quotes and separators).
macro_rules! value {
    () => {
        r#"(?P<s>(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\\"(?:[^"\\\n]|\\[^"\n])*\\"|[^\s"'`,;&|)}\]])+)"#
    };
}

/// A bare command-line argument (quoted or not).
macro_rules! arg {
    () => {
        r#"(?P<s>(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|)])+)"#
    };
}

/// Inside one simple command: anything but a command separator.
macro_rules! same_cmd {
    () => {
        r"[^|;&\n]*?[ \t]"
    };
}

/// Discord bot tokens: no literal to look for, see [`Rule::needs_long_dotted_run`].
const DISCORD_PATTERN: &str =
    r"(?P<s>\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b)";

/// The provider key shapes, one alternative per shape (see [`ShapeSplit`]).
macro_rules! shape_alternatives {
    () => {
        concat!(
            // model providers
            r"sk-(?:ant-|proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{40,}",
            r"|r8_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|tvly-[A-Za-z0-9-]{20,}|fw_[A-Za-z0-9]{20,}",
            r"|csk-[a-z0-9]{40,}|nvapi-[A-Za-z0-9_-]{40,}|pcsk_[A-Za-z0-9_]{40,}",
            // VCS and CI
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}",
            r"|gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,}",
            r"|ATATT3[A-Za-z0-9_=-]{50,}|ATCTT3[A-Za-z0-9_=-]{50,}",
            // chat
            r"|xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}",
            // cloud
            r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}",
            r"|GOCSPX-[A-Za-z0-9_-]{20,}",
            r"|do[opr]_v1_[a-f0-9]{64}|hv[sb]\.[A-Za-z0-9_-]{24,}|AGE-SECRET-KEY-1[0-9A-Z]{50,}",
            r"|dapi[a-f0-9]{32}|gl(?:c|sa)_[A-Za-z0-9_=+/-]{32,}|NRAK-[A-Z0-9]{27}|sbp_[a-f0-9]{40}",
            r"|pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.-]{30,}|rnd_[A-Za-z0-9]{30,}|sntry[su]_[A-Za-z0-9+/=_-]{30,}",
            r"|pul-[a-f0-9]{40}|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
            r"|fo1_[A-Za-z0-9_-]{40,}|vercel_[A-Za-z0-9_-]{24,}|nfp_[A-Za-z0-9]{36,}",
            // registries
            r"|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|dckr_pat_[A-Za-z0-9_-]{20,}|oy2[a-z0-9]{43}",
            // payment, mail, SaaS
            r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{20,}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}",
            r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}|key-[0-9a-f]{32}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
            r"|lin_(?:api|oauth)_[A-Za-z0-9]{32,}|ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}|figd_[A-Za-z0-9_-]{30,}",
            r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|EAA[A-Za-z0-9]{80,}|AAAA[A-Za-z0-9_-]{7}:APA91[A-Za-z0-9_-]{100,}",
            r"|1//0[A-Za-z0-9_-]{40,}|ATBB[A-Za-z0-9_=.-]{28,}",
            r"|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}|sb_secret_[A-Za-z0-9_-]{20,}|sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
            r"|syt_[A-Za-z0-9_]{20,}",
        )
    };
}

/// Airtable tokens: 64 lowercase hex digits in a row (see `Presence::hex_run`).
const AIRTABLE_PATTERN: &str = r"(?P<s>\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b)";

/// The URL-credential rules: `scheme://user:pass@host` and `scheme://TOKEN@host`. Both end
/// with an `@` ([`Rule::needs_at`]): a URL without userinfo, most of them, runs neither.
const URL_USERINFO_PATTERN: &str =
    r#"(?P<n>[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'"]*):(?P<s>[^\s@'"/]+)@"#;
const URL_TOKEN_PATTERN: &str = r"(?P<n>[A-Za-z][A-Za-z0-9+.-]*://)(?P<s>[A-Za-z0-9_-]{20,})@";

/// A secret echoed into a command that reads a password from its input. It starts with
/// `echo` or `printf` as written ([`Rule::needs_echo`]): `-s`, one of its literals, is in
/// many commands.
const ECHO_PIPE_PATTERN: &str = r#"\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s|;&]+)[ \t]*\|[ \t]*(?:sudo[ \t]+)?[^|;&\n]*?(?:--password-stdin|passwd[ \t]+--stdin|\bchpasswd\b|--with-token|\bsudo[ \t]+(?:-\S+[ \t]+)*-S\b)"#;
/// The run of `[a-f0-9]` the Airtable shape needs.
const HEX_RUN: usize = 64;

/// `.pgpass` lines: four `:` on one line at least (see `Presence::colon_line`).
const PGPASS_PATTERN: &str = r"(?m)^[^:\s#]+:(?:[0-9]+|\*):[^:\s]+:[^:\s]+:(?P<s>[^\s:]+)$";

/// Assignments: a match is within one line and holds `=` or `:` (see [`Rule::needs_separator`]).
/// An HTTP auth scheme before the value is passed over. The name may close a subscript
/// (`cfg['db']['password'] = …`, `user[password]=…`); the segments before it are read back from
/// the text (see [`qualified_start`]).
const ASSIGNMENT_PATTERN: &str = concat!(
    r#"(?P<n>[A-Za-z_][A-Za-z0-9_.-]*)(?P<sep>\\?["']?\]?[ \t]*(?:=>|::=|:=|\?\?=|\?=|\+=|\|\|=|=|:)[ \t]*)"#,
    // An auth scheme before the value (`X-Service-Token: Bearer …`) stays shown.
    r"(?:(?:[Bb](?:earer|EARER)|[Bb](?:asic|ASIC)|[Dd](?:igest|IGEST))[ \t]+)?",
    // YAML node properties (`secret: &s x`, `token: !!str x`) before the value.
    r"(?:(?:&[A-Za-z0-9_][^\s,;&|]*|!![A-Za-z]+)[ \t]+)*",
    value!()
);

/// Name/value pairs: a secret NAME in a sibling field, its value in the `value` field
/// (Kubernetes/compose `env:` lists, ECS task definitions and many APIs as JSON, CloudFormation
/// `ParameterKey=…,ParameterValue=…`, `Name=…,Value=…` shorthand, Elastic Beanstalk
/// `OptionName`, Terraform/HCL `name = …` / `value = …`, `--name N … --value V`). The name is
/// judged as the assignment rule judges a name ([`Check::Named`]), so `name: LOG_LEVEL`,
/// `"name": "tokenizer"`, `name: password-policy` and `ParameterKey=KeyName` (an EC2 key pair
/// name, not a secret) keep their values. Each pattern looks a bounded way ahead: at most
/// sixteen other fields (flow; a field's value may be a string with escaped quotes or an array
/// or object of one level) or four other lines (block; [`PAIR_BLOCK_SIBLING`] reads further in
/// code) between the two keys, and a field never crosses a brace or bracket (flow) nor a line
/// a new list item starts (block), so a pair never borrows its neighbour's value. A value already `[REDACTED]` is passed over (a patch that
/// changes the value has a `-` and a `+` line). Gated by `value` and a name key, and run only
/// when the text holds a [`NAME_WORDS`] word (see [`Rule::name_words`]).
macro_rules! pair_name_key {
    () => {
        r"(?:(?:Parameter|Option|parameter|option)?(?:Name|Key)|name|key|NAME|KEY)"
    };
}
macro_rules! pair_value_key {
    () => {
        r"(?:(?:Parameter|Option|parameter|option)?Value|value|VALUE)"
    };
}
/// An optional (possibly escaped) quote around a flow key or name.
macro_rules! pair_q {
    () => {
        r#"\\?["']?"#
    };
}
/// The separator of a flow field.
macro_rules! pair_sep {
    () => {
        r"[ \t]*(?:=>|[:=])[ \t]*"
    };
}
/// The secret name (group `n`), without its quotes.
macro_rules! pair_name {
    () => {
        r"(?P<n>[A-Za-z0-9_.:/\[\]-]{1,128})"
    };
}
/// Another field of a flow object, with its comma: `"type": "String", `.
macro_rules! pair_field {
    () => {
        concat!(
            pair_q!(),
            r"[A-Za-z_][A-Za-z0-9_-]{0,40}",
            pair_q!(),
            pair_sep!(),
            r#"(?:"(?:[^"\\\r\n]|\\.)*"|\\"(?:[^"\\\r\n]|\\\\(?:\\"|\\\\|[^"\\\r\n])|\\[^"\\\r\n])*\\"|'[^'\r\n]*'|\[[^\[\]{}]*\]|\{[^\[\]{}]*\}|[A-Za-z0-9_.:/+-]*)[ \t]*,(?:[ \t\r]|\n[+-]?)*"#
        )
    };
}
/// A flow value (group `s`): a string (not one already redacted), escaped string or bare word.
macro_rules! pair_flow_value {
    () => {
        r#"(?P<s>"[^\["\\\r\n](?:[^"\\\r\n]|\\.)*"|\\"[^\["\\\r\n](?:[^"\\\r\n]|\\\\(?:\\"|\\\\|[^"\\\r\n])|\\[^"\\\r\n])*\\"|'[^\['\r\n][^'\r\n]*'|[^\s"'`,;&|)}\]\[\\=>][^\s"'`,;&|)}\]\\]*)"#
    };
}
/// A block (YAML/HCL) value to the end of its line (group `s`), before a `#` comment. (A line
/// end may be a `\r` or, in a sanitized preview, the U+FFFD that stands for it.)
macro_rules! pair_block_value {
    () => {
        r#"(?P<s>"[^\["\\\r\n](?:[^"\\\r\n]|\\.)*"|'[^\['\r\n][^'\r\n]*'|[^\s"'#|>&*!{\[][^\r\n]*?)(?:[ \t]+#[^\r\n]*|[ \t]*)\r?$"#
    };
}
/// A block line before a key: an optional diff marker, indentation, an optional list dash.
macro_rules! pair_block_start {
    () => {
        r"^[+-]?[ \t]*(?:-[ \t]+)?"
    };
}
/// Up to four other lines of the same block item: indented and not starting a list item, or
/// blank or comment lines.
macro_rules! pair_block_between {
    () => {
        r"(?:[+-]?[ \t]+[^\s#-][^\r\n]*\r?\n|[+-]?[ \t]*(?:#[^\r\n]*)?\r?\n){0,4}?"
    };
}
macro_rules! pair_block_key_sep {
    () => {
        r#"["']?[ \t]*[:=][ \t]*"#
    };
}

/// Flow, name first: `{"name": "DB_PASSWORD", "value": "x"}`, `ParameterKey=DbPassword,ParameterValue=x`.
const PAIR_FLOW_NAME_FIRST: &str = concat!(
    r"(?:^|[\s{,(\[])",
    pair_q!(),
    pair_name_key!(),
    pair_q!(),
    pair_sep!(),
    pair_q!(),
    pair_name!(),
    pair_q!(),
    // Blanks and line ends after the comma, each line perhaps marked as a diff's.
    r"[ \t]*,(?:[ \t\r]|\n[+-]?)*(?:",
    pair_field!(),
    r"){0,16}",
    pair_q!(),
    pair_value_key!(),
    pair_q!(),
    pair_sep!(),
    pair_flow_value!()
);
/// Flow, value first: `{"value": "x", "name": "DB_PASSWORD"}`.
const PAIR_FLOW_VALUE_FIRST: &str = concat!(
    r"(?:^|[\s{,(\[])",
    pair_q!(),
    pair_value_key!(),
    pair_q!(),
    pair_sep!(),
    pair_flow_value!(),
    // Blanks and line ends after the comma, each line perhaps marked as a diff's.
    r"[ \t]*,(?:[ \t\r]|\n[+-]?)*(?:",
    pair_field!(),
    r"){0,16}",
    pair_q!(),
    pair_name_key!(),
    pair_q!(),
    pair_sep!(),
    pair_q!(),
    pair_name!(),
    r#"(?:\\?["']|[ \t]*(?:[,;&|)}\]\s]|$))"#
);
/// Block, name first: `- name: DB_PASSWORD` then `value: x` within four lines.
const PAIR_BLOCK_NAME_FIRST: &str = concat!(
    "(?m)",
    pair_block_start!(),
    r#"["']?"#,
    pair_name_key!(),
    pair_block_key_sep!(),
    r#"["']?"#,
    pair_name!(),
    r#"["']?[ \t]*(?:#[^\r\n]*)?[\r\x{FFFD}]?\n"#,
    pair_block_between!(),
    r#"[+-]?[ \t]*["']?"#,
    pair_value_key!(),
    pair_block_key_sep!(),
    pair_block_value!()
);
/// Block, value first: `- value: x` then `name: DB_PASSWORD` within four lines.
const PAIR_BLOCK_VALUE_FIRST: &str = concat!(
    "(?m)",
    pair_block_start!(),
    r#"["']?"#,
    pair_value_key!(),
    pair_block_key_sep!(),
    r#"(?P<s>"[^\["\\\r\n](?:[^"\\\r\n]|\\.)*"|'[^\['\r\n][^'\r\n]*'|[^\s"'#|>&*!{\[][^\r\n]*?)(?:[ \t]+#[^\r\n]*|[ \t]*)\r?\n"#,
    pair_block_between!(),
    r#"[+-]?[ \t]*["']?"#,
    pair_name_key!(),
    pair_block_key_sep!(),
    r#"["']?"#,
    pair_name!(),
    r#"["']?[ \t]*(?:#[^\r\n]*)?[\r\x{FFFD}]?$"#
);
/// Command line: `aws ssm put-parameter --name /prod/db/password … --value x` (either order,
/// within one simple command).
const PAIR_OPTIONS: &str = concat!(
    r#"(?:^|[\s"'])--name(?:=|[ \t]+)["']?"#,
    pair_name!(),
    r#"["']?(?:[ \t]+[^\s|;&]+){0,8}?[ \t]+--value(?:=|[ \t]+)"#,
    arg!()
);
const PAIR_OPTIONS_VALUE_FIRST: &str = concat!(
    r"(?:^|[\s])--value(?:=|[ \t]+)",
    r#"(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|)]+)"#,
    r#"(?:[ \t]+[^\s|;&]+){0,8}?[ \t]+--name(?:=|[ \t]+)["']?"#,
    pair_name!(),
    r#"["']?(?:[\s;&|)]|$)"#
);
/// HTML/XML attributes of one tag: `<input name="user[password]" value="x">`, .NET
/// `<add key="DbPassword" value="x"/>` (either order).
const PAIR_ATTRIBUTES: &str = concat!(
    r#"<[A-Za-z][A-Za-z0-9:-]*[^<>]*?\s(?:name|NAME|Name|key|KEY|Key)[ \t]*=[ \t]*["']?"#,
    pair_name!(),
    r#"["']?[^<>]*?\s(?:value|VALUE|Value)[ \t]*=[ \t]*(?P<s>"[^\["<>\n][^"<>\n]*"|'[^\['<>\n][^'<>\n]*'|[^\s"'<>=`\[][^\s"'<>=`]*)"#
);
const PAIR_ATTRIBUTES_VALUE_FIRST: &str = concat!(
    r#"<[A-Za-z][A-Za-z0-9:-]*[^<>]*?\s(?:value|VALUE|Value)[ \t]*=[ \t]*(?P<s>"[^\["<>\n][^"<>\n]*"|'[^\['<>\n][^'<>\n]*'|[^\s"'<>=`\[][^\s"'<>=`]*)"#,
    r#"[^<>]*?\s(?:name|NAME|Name|key|KEY|Key)[ \t]*=[ \t]*["']?"#,
    pair_name!(),
    r#"(?:["']|[ \t/>])"#
);
/// Block, either order, any distance: a `name:` line whose sibling `value:` key of the same
/// mapping is found in code (see [`Check::Sibling`]): more than four lines away, past nested
/// lists and mappings, or a block scalar. The search never leaves the item (a line indented
/// less than the name's key ends it) and reads at most [`extent::SIBLING_MAX_LINES`] lines
/// each way.
const PAIR_BLOCK_SIBLING: &str = concat!(
    "(?m)",
    pair_block_start!(),
    r#"["']?"#,
    pair_name_key!(),
    pair_block_key_sep!(),
    r#"["']?"#,
    pair_name!(),
    r#"["']?[ \t]*(?:#[^\r\n]*)?\r?$"#
);

/// YAML block scalars: `password: |`, `token: >-`, `key: &a !!str |2` (header line; the value
/// is the indented block after it, see [`Check::BlockScalar`]). Gated by
/// [`extent::may_hold_block_scalar`].
const BLOCK_SCALAR_PATTERN: &str = concat!(
    r#"(?m)^[+-]?[ \t]*(?:-[ \t]+)?["']?(?P<n>[A-Za-z_][A-Za-z0-9_.-]*)["']?[ \t]*:[ \t]+"#,
    r"(?:(?:&[A-Za-z0-9_][^\s]*|![^\s]*)[ \t]+)*[|>][0-9+-]{0,2}[ \t]*(?:#[^\r\n]*)?[\r\x{FFFD}]?\n"
);

/// `.properties` (and shell) values continued over lines with `\` (see [`Check::Continued`]):
/// `db.password=ab\` then `    cd`. Gated by [`extent::has_line_continuation`].
const CONTINUED_PATTERN: &str = concat!(
    r"(?m)^[+-]?[ \t]*(?P<n>[A-Za-z_][A-Za-z0-9_.-]*)(?P<sep>[ \t]*[=:][ \t]*|[ \t]+)",
    r"(?P<s>(?:[^\r\n\\]|\\[^\r\n])*\\\r?\n(?:[+-]?[ \t]*(?:[^\r\n\\]|\\[^\r\n])*\\\r?\n)*[+-]?[ \t]*(?:[^\r\n\\]|\\[^\r\n])*)"
);

/// `.properties` keys separated from their value by blanks: `db.password s3cr3t` (a dotted
/// key at the line's start, the value one word that ends the line: a line of prose such as
/// `db.password is required` is not a value). Gated by [`has_secret_dotted_key_line`].
const PROPERTIES_SPACE_PATTERN: &str = r"(?m)^[+-]?[ \t]*(?P<n>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+)[ \t]+(?P<s>[^\s=:][^\s]*)[ \t]*\r?$";

/// Percent-encoded names or separators in URLs, query strings and form bodies:
/// `pass%77ord=…`, `api%5Fkey=…`, `client_secret%3D…` (a query inside a parameter),
/// `Authorization%3A%20Bearer%20…` (see [`Check::Percent`]). The value ends at `&`, `%26`,
/// blanks or quotes.
const PERCENT_PATTERN: &str = concat!(
    // A name's escapes are of name characters (`%5F`, `%77`), not of `?`, `/`, `&`, `=`.
    r"(?P<n>(?:[A-Za-z0-9_.-]|%(?:2[DEde]|3[0-9]|4[1-9A-Fa-f]|5[0-9AFaf]|6[1-9A-Fa-f]|7[0-9Aa]))+)",
    r"(?P<sep>=|%3[Dd]|%3[Aa](?:%20|\+)*)",
    r"(?:(?:[Bb](?:earer|EARER)|[Bb](?:asic|ASIC)|[Tt](?:oken|OKEN))(?:%20|\+)+)?",
    r#"(?P<s>(?:[^\s&"'#<>%;]|%(?:[013-9A-Fa-f][0-9A-Fa-f]|2[0-57-9A-Fa-f]))+)"#
);

/// The name/value pair rules (see [`Rule::name_words`]).
const PAIR_PATTERNS: [&str; 9] = [
    PAIR_BLOCK_SIBLING,
    PAIR_FLOW_NAME_FIRST,
    PAIR_FLOW_VALUE_FIRST,
    PAIR_BLOCK_NAME_FIRST,
    PAIR_BLOCK_VALUE_FIRST,
    PAIR_OPTIONS,
    PAIR_OPTIONS_VALUE_FIRST,
    PAIR_ATTRIBUTES,
    PAIR_ATTRIBUTES_VALUE_FIRST,
];

/// All provider key shapes in one regex (the rule; searched as a [`ShapeSplit`]).
const SHAPE_PATTERN: &str = concat!(r"(?P<s>\b(?:", shape_alternatives!(), r")\b)");

const RULES: &[RuleSpec] = &[
    // PEM / OpenSSH / PGP private key blocks, to the end marker or the end of the text.
    rule(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        Check::Block,
        &["private key"],
    ),
    // YAML block scalars under a secret name (gated by `Rule::needs_block`), and values
    // continued over lines (gated by `Rule::needs_continuation`): before the rules that would
    // hide only a piece of their first line (`token: |` / `  Bearer …`, `app.token x\`).
    rule(BLOCK_SCALAR_PATTERN, Check::BlockScalar, NAME_WORDS),
    rule(CONTINUED_PATTERN, Check::Continued, NAME_WORDS),
    // JSON Web Tokens (header and payload are base64 JSON objects: both start with eyJ).
    rule(
        r"(?P<s>\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*)",
        Check::Always,
        &["eyj"],
    ),
    // Provider key shapes.
    rule(SHAPE_PATTERN, Check::Shape, SHAPE_PREFIXES),
    // Discord bot tokens and Azure AD client secrets (no fixed prefix).
    rule(DISCORD_PATTERN, Check::Shape, &[]),
    rule(
        r"(?P<s>\b[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})",
        Check::Shape,
        &["q~"],
    ),
    // Airtable personal access tokens.
    rule(AIRTABLE_PATTERN, Check::Shape, &["pat"]),
    // Telegram bot tokens (often glued to `bot` in API URLs, so no word boundary before).
    rule(
        r"(?:^|[^0-9])(?P<s>[0-9]{8,10}:AA[A-Za-z0-9_-]{32,})",
        Check::Always,
        &[":aa"],
    ),
    // Webhook URLs whose path is the credential.
    rule(
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]{20,})",
        Check::Always,
        &["hooks.slack.com"],
    ),
    rule(
        r"discord(?:app)?\.com/api/webhooks/[0-9]+/(?P<s>[A-Za-z0-9_-]{20,})",
        Check::Always,
        &["/api/webhooks/"],
    ),
    // Credential headers: the value to the end of the line or the closing quote.
    rule(
        r#"(?i)(?P<n>\b(?:proxy-)?authorization|\bx-api-key|\bapi-key|\bx-auth-token|\bx-access-token|\bprivate-token|\bjob-token|\bx-gitlab-token|\bx-vault-token|\bx-goog-api-key|\bocp-apim-subscription-key|\bx-functions-key|\bset-cookie|\bcookie)(?P<sep>\\?["']?[ \t]*[:=][ \t]*\\?["']?)(?:(?:bearer|basic|token|digest|apikey|sso-key|bot|negotiate|ntlm|aws4-hmac-sha256|key)[ \t]+)?(?P<s>[^"'\r\n\\]+(?:\\[^\r\n][^"'\r\n\\]*)*)"#,
        Check::Header,
        &[
            "authorization",
            "api-key",
            "-token",
            "cookie",
            "subscription-key",
            "functions-key",
        ],
    ),
    // A bare `Bearer xxx` / `token xxx` / `Basic xxx` anywhere.
    rule(
        r"(?i)\b(?:bearer|token|basic)[ \t]+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
        Check::TokenLike,
        &["bearer", "token", "basic"],
    ),
    // Credentials in URLs and connection strings: scheme://user:pass@host.
    rule(URL_USERINFO_PATTERN, Check::Value, &["://"]),
    // A token as the whole userinfo: https://TOKEN@host.
    rule(URL_TOKEN_PATTERN, Check::TokenLike, &["://"]),
    // Password options whose letter means "password" only for some commands.
    rule_also(
        concat!(
            r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|7z|7za|7zz|rar|unrar)\b",
            same_cmd!(),
            r"-p(?P<s>[^\s'`;&|)-][^\s'`;&|)]*|'[^'\n]+'|\x22[^\x22\n]+\x22)"
        ),
        Check::Value,
        &["-p"],
        &["mysql", "mariadb", "7z", "rar"],
    ),
    rule_also(
        concat!(
            r"\b(?:sshpass|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|cqlsh|cypher-shell|rabbitmqadmin)\b",
            same_cmd!(),
            r"-p[ \t]*",
            arg!()
        ),
        Check::Value,
        &["-p"],
        &["sshpass", "mongo", "cqlsh", "cypher-shell", "rabbitmqadmin"],
    ),
    rule_also(
        concat!(
            r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|cf|oc|regctl|az)\b[^|;&\n]*?\blogin\b",
            same_cmd!(),
            r"-p[ \t]*",
            arg!()
        ),
        Check::Value,
        &["login"],
        &["-p"],
    ),
    rule_also(
        concat!(r"\bredis-cli\b", same_cmd!(), r"-a[ \t]*", arg!()),
        Check::Value,
        &["redis-cli"],
        &["-a"],
    ),
    rule_also(
        concat!(
            r"\b(?:sqlcmd|bcp|osql|isql|sqsh|tsql|ipmitool|mosquitto_pub|mosquitto_sub|zip|unzip|zipcloak|smbpasswd)\b",
            same_cmd!(),
            r"-P[ \t]*",
            arg!()
        ),
        Check::Value,
        &["-p"],
        &[
            "sqlcmd",
            "bcp",
            "osql",
            "isql",
            "sqsh",
            "tsql",
            "ipmitool",
            "mosquitto_",
            "zip",
            "smbpasswd",
        ],
    ),
    rule(
        concat!(
            r"\b(?:ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop|mi)|vsql)\b",
            same_cmd!(),
            r"-w[ \t]*",
            arg!()
        ),
        Check::Value,
        &["ldap"],
    ),
    rule(
        r#"(?i)-pass(?:in|out)?[ \t]+["']?pass:(?P<s>[^\s'"`;&|)]+)"#,
        Check::Value,
        &["pass:"],
    ),
    rule(
        r#"\b(?:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl)\b[ \t]+(?:-\S+[ \t]+|target[ \t]+|userid=)*[A-Za-z0-9_$#]+/(?P<s>[^@\s'"/]+)"#,
        Check::Value,
        &[
            "sqlplus", "sqlldr", "expdp", "impdp", "exp ", "imp ", "rman", "dgmgrl",
        ],
    ),
    rule(
        concat!(
            r"\bhtpasswd\b(?:[ \t]+-[A-Za-z]*b[A-Za-z]*)(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+\S+)?[ \t]+\S+[ \t]+",
            arg!()
        ),
        Check::Value,
        &["htpasswd"],
    ),
    rule_also(
        concat!(r"\bssh-keygen\b", same_cmd!(), r"-[NP][ \t]*", arg!()),
        Check::Value,
        &["ssh-keygen"],
        &["-n", "-p"],
    ),
    rule_also(
        concat!(r"\bopenssl\b", same_cmd!(), r"-k[ \t]+", arg!()),
        Check::Value,
        &["openssl"],
        &["-k"],
    ),
    rule(
        concat!(
            r"\b(?:rabbitmqctl[ \t]+(?:add_user|change_password)|net[ \t]+user)[ \t]+\S+[ \t]+",
            arg!()
        ),
        Check::Value,
        &["rabbitmqctl", "net user"],
    ),
    // Code: auth=("user", "X"), headers set by call: .set("X-Api-Key", "X").
    rule(
        r#"\bauth[ \t]*=[ \t]*[(\[][ \t]*["'][^"'\n]*["'][ \t]*,[ \t]*(?P<s>"[^"\n]+"|'[^'\n]+')"#,
        Check::Value,
        &["auth"],
    ),
    rule_also(
        r#"(?i)\b(?:set|add|append|header|put)[A-Za-z]*\([ \t]*["'](?P<n>[A-Za-z0-9_-]+)["'][ \t]*,[ \t]*(?P<s>"[^"\n]+"|'[^'\n]+')"#,
        Check::Named,
        &["("],
        &["set", "add", "append", "header", "put"],
    ),
    // .pgpass: host:port:database:user:password
    rule(PGPASS_PATTERN, Check::Value, &[":"]),
    rule(
        concat!(
            r"(?i)\bconnect[ \t]+to\b[^|;&\n]*?\buser[ \t]+\S+[ \t]+using[ \t]+",
            arg!()
        ),
        Check::Value,
        &["using"],
    ),
    rule_also(
        concat!(r"\blftp\b", same_cmd!(), r"-u[ \t]+[^,\s]+,", arg!()),
        Check::Value,
        &["lftp"],
        &["-u"],
    ),
    // Windows-style options: xfreerdp /p:X, cmdkey /pass:X, net use ... /password:X
    rule(
        r#"(?i)(?:^|[ \t])/(?:p|pass|password|pwd)[:=](?P<s>"[^"\n]+"|'[^'\n]+'|[^\s"'`;&|)]+)"#,
        Check::Value,
        &["/p"],
    ),
    rule(
        r#"(?i)\bConvertTo-SecureString\b[ \t]+(?:-String[ \t]+)?(?P<s>"[^"\n]+"|'[^'\n]+')"#,
        Check::Value,
        &["convertto-securestring"],
    ),
    // SNMP community strings and v3 pass phrases.
    rule_also(
        concat!(r"\bsnmp[a-z]*\b", same_cmd!(), r"-[cAX][ \t]*", arg!()),
        Check::Value,
        &["snmp"],
        &["-c", "-a", "-x"],
    ),
    // curl cookies: -b 'session=X'
    rule_also(
        concat!(r"\bcurl\b", same_cmd!(), r"-b[ \t]*", arg!()),
        Check::Value,
        &["curl"],
        &["-b"],
    ),
    // .netrc / _netrc: machine h login u password X
    rule_also(
        r"(?i)\blogin\s+\S+\s+password[ \t]+(?P<s>\S+)",
        Check::Value,
        &["password"],
        &["login"],
    ),
    // PuTTY private keys: the lines after Private-Lines.
    rule(
        r"Private-Lines:[ \t]*[0-9]+\r?\n(?P<s>(?:[A-Za-z0-9+/=]+\r?\n?)+)",
        Check::Always,
        &["private-lines:"],
    ),
    rule_also(
        concat!(
            r"\bsecret[ \t]+set\b",
            same_cmd!(),
            r"(?:--body|-b)(?:=|[ \t]+)",
            arg!()
        ),
        Check::Value,
        &["secret"],
        &["set"],
    ),
    rule_also(
        concat!(r"\bvault[ \t]+login[ \t]+", arg!()),
        Check::Value,
        &["vault"],
        &["login"],
    ),
    rule(
        ECHO_PIPE_PATTERN,
        Check::Value,
        &[
            "password-stdin",
            "--stdin",
            "chpasswd",
            "--with-token",
            "-s",
        ],
    ),
    rule(
        concat!(
            r"(?i)\b(?:config|configure)(?:[ \t]+(?:set|--?[a-z-]+))*[ \t]+(?P<n>[^\s=]+)[ \t]+",
            arg!()
        ),
        Check::Named,
        &["config"],
    ),
    // Environment variables set by a command: setx NAME X, setenv NAME X, fish set -gx NAME X.
    RuleSpec {
        pattern: concat!(
            r"\b(?:setx|setenv|set(?:[ \t]+-[A-Za-z]+)*)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)[ \t]+",
            // The value: an argument that is not an option (`gh secret set NAME --body X`).
            r#"(?P<s>(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|)-])(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|)])*)"#
        ),
        check: Check::Named,
        pre: &["setx", "setenv", "set "],
        per_line: NAME_WORDS,
        also: &[],
    },
    // Secret options: --password=X, --token X, -storepass X, --Db:Password X, --user user:pass,
    // -u user:pass.
    RuleSpec {
        pattern: concat!(
            r#"(?m)(?:^|[\s"'(=])(?P<n>--?[A-Za-z][A-Za-z0-9_.:-]*)(?:=|[ \t]+)"#,
            arg!()
        ),
        check: Check::Flag,
        pre: &["-"],
        per_line: FLAG_WORDS,
        also: &[],
    },
    // XML elements: <password>X</password>.
    rule(
        r"<(?P<n>[A-Za-z_][A-Za-z0-9_.:-]*)>(?P<s>[^<\n]{1,256})</",
        Check::Named,
        &["</"],
    ),
    // A secret name in a sibling field: name/value pairs (see [`PAIR_PATTERNS`]).
    rule_also(
        PAIR_FLOW_NAME_FIRST,
        Check::Named,
        &["value"],
        &["name", "key"],
    ),
    rule_also(
        PAIR_FLOW_VALUE_FIRST,
        Check::Named,
        &["value"],
        &["name", "key"],
    ),
    rule_also(
        PAIR_BLOCK_NAME_FIRST,
        Check::Named,
        &["value"],
        &["name", "key"],
    ),
    rule_also(
        PAIR_BLOCK_VALUE_FIRST,
        Check::Named,
        &["value"],
        &["name", "key"],
    ),
    // (`value`/`name` rather than `--value`/`--name`: the literal scan looks at every `--`.)
    rule_also(PAIR_OPTIONS, Check::Named, &["value"], &["name"]),
    rule_also(
        PAIR_OPTIONS_VALUE_FIRST,
        Check::Named,
        &["value"],
        &["name"],
    ),
    rule_also(PAIR_ATTRIBUTES, Check::Named, &["value"], &["name", "key"]),
    rule_also(
        PAIR_ATTRIBUTES_VALUE_FIRST,
        Check::Named,
        &["value"],
        &["name", "key"],
    ),
    rule_also(
        PAIR_BLOCK_SIBLING,
        Check::Sibling,
        &["value"],
        &["name", "key"],
    ),
    // `.properties` `key value` lines (gated by `Rule::needs_dotted_key`).
    rule(PROPERTIES_SPACE_PATTERN, Check::Named, NAME_WORDS),
    // Percent-encoded names (gated by `Rule::needs_percent`).
    rule(
        PERCENT_PATTERN,
        Check::Percent,
        &["%2", "%3", "%4", "%5", "%6", "%7"],
    ),
    // NAME=value, "name": "value", name: value, name := value, 'name' => 'value'.
    RuleSpec {
        pattern: ASSIGNMENT_PATTERN,
        check: Check::Named,
        pre: &[],
        per_line: NAME_WORDS,
        also: &[],
    },
];

/// Lowercase prefixes of the provider key shapes (the shape rule runs only when one occurs).
const SHAPE_PREFIXES: &[&str] = &[
    "sk-",
    "hf_",
    "gsk_",
    "r8_",
    "pplx-",
    "xai-",
    "tvly-",
    "fw_",
    "csk-",
    "nvapi-",
    "pcsk_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "glft-",
    "glimt-",
    "gloas-",
    "glcbt-",
    "glsoat-",
    "gr1348941",
    "atatt3",
    "atctt3",
    "xox",
    "xapp-",
    "akia",
    "asia",
    "abia",
    "acca",
    "aiza",
    "ya29.",
    "gocspx-",
    "_v1_",
    "hvs.",
    "hvb.",
    "age-secret-key-",
    "dapi",
    "glc_",
    "glsa_",
    "nrak-",
    "sbp_",
    "pscale_",
    "rnd_",
    "sntry",
    "pul-",
    "dp.",
    "atlasv1",
    "fo1_",
    "vercel_",
    "nfp_",
    "npm_",
    "pypi-",
    "dckr_pat_",
    "oy2",
    "_live_",
    "_test_",
    "whsec_",
    "sq0",
    "sg.",
    "key-",
    "shpat_",
    "shpca_",
    "shppa_",
    "shpss_",
    "lin_",
    "ntn_",
    "secret_",
    "figd_",
    "pmak-",
    "eaa",
    ":apa91",
    "1//0",
    "atbb",
    "lsv2_",
    "sb_secret_",
    "sk.eyj",
    "syt_",
];

/// Name components that make a name secret when they end a component (`PGPASSWORD`).
const SECRET_SUFFIXES: [&str; 10] = [
    "password",
    "passwd",
    "passphrase",
    "token",
    "secret",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "credentials",
];
/// Name components that are secret words only as a whole component.
const SECRET_WORDS: [&str; 29] = [
    "pass",
    "pw",
    "pwd",
    "otp",
    "totp",
    "passcode",
    "sig",
    "signature",
    "cookie",
    "creds",
    "credential",
    "pat",
    "psk",
    "storepass",
    "keypass",
    "srcstorepass",
    "deststorepass",
    "srckeypass",
    "destkeypass",
    "newpass",
    "oldpass",
    "dbpass",
    "rootpass",
    "adminpass",
    "userpass",
    "authtoken",
    "sessionkey",
    "mnemonic",
    "bearer",
];
/// `key` is a secret word after one of these (`api_key`, `secretAccessKey`, `AccountKey`).
const KEY_QUALIFIERS: [&str; 44] = [
    "api",
    "access",
    "secret",
    "private",
    "client",
    "auth",
    "master",
    "signing",
    "sign",
    "encryption",
    "enc",
    "account",
    "license",
    "licence",
    "subscription",
    "app",
    "consumer",
    "shared",
    "storage",
    "session",
    "webhook",
    "admin",
    "hmac",
    "jwt",
    "aes",
    "crypt",
    "cipher",
    "openai",
    "anthropic",
    "gemini",
    "groq",
    "mistral",
    "cohere",
    "stripe",
    "twilio",
    "sendgrid",
    "mailgun",
    "openrouter",
    "deepseek",
    "pinecone",
    "algolia",
    "mapbox",
    "datadog",
    "sentry",
];
/// Components after the secret word that make the name about the secret, not the secret.
const NOT_SECRET_AFTER: &[&str] = &[
    "count",
    "counts",
    "limit",
    "limits",
    "max",
    "min",
    "size",
    "length",
    "len",
    "file",
    "filename",
    "files",
    "path",
    "paths",
    "dir",
    "type",
    "name",
    "names",
    "id",
    "ids",
    "url",
    "uri",
    "endpoint",
    "host",
    "header",
    "env",
    "var",
    "prefix",
    "suffix",
    "cmd",
    "command",
    "policy",
    "mode",
    "enabled",
    "enable",
    "required",
    "rotation",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "expire",
    "lifetime",
    "timeout",
    "format",
    "field",
    "param",
    "location",
    "provider",
    "helper",
    "manager",
    "usage",
    "used",
    "budget",
    "rate",
    "index",
    "kind",
    "version",
    "regex",
    "pattern",
    "strength",
    "label",
    "placeholder",
    "ref",
    "source",
    "hint",
    "prompt",
    "stdin",
    "fd",
    "arn",
    "rules",
    "validation",
    "validator",
    "column",
    "class",
    "style",
    "icon",
    "link",
    "visible",
    "hidden",
    "error",
    "errors",
    "message",
    "status",
    "changed",
    "check",
    "at",
    "date",
    "time",
    "created",
    "updated",
    "issued",
    "audience",
    "scope",
    "scopes",
    "algorithm",
    "alg",
    "bits",
    "digits",
    "chars",
    "generator",
    "reset",
    "in",
    "out",
    "store",
    "lookup",
    "exchange",
    "ttl",
    "duration",
];
/// Components before the secret word that make the name a count or switch (`max_tokens`).
const NOT_SECRET_BEFORE: &[&str] = &[
    "max",
    "min",
    "num",
    "total",
    "prompt",
    "completion",
    "input",
    "output",
    "cached",
    "reasoning",
    "is",
    "has",
    "show",
    "hide",
    "no",
    "require",
    "requires",
    "allow",
    "enable",
    "disable",
    "ask",
    "skip",
    "with",
    "without",
    "use",
    "forgot",
    "change",
];
/// Option names whose value is `user:password`.
const USER_PASS_FLAGS: [&str; 8] = [
    "u",
    "user",
    "proxy-user",
    "U",
    "a",
    "auth",
    "basic-auth",
    "http-auth",
];

/// Lowercase components of a name: split on `_ - . :` and lower→upper case changes.
fn components(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a variable, key, header or option name says its value is a secret.
pub fn is_secret_name(name: &str) -> bool {
    let parts = components(name);
    let found = parts.iter().enumerate().find_map(|(i, c)| {
        let secret = SECRET_SUFFIXES.iter().any(|s| c.ends_with(s))
            || SECRET_WORDS.contains(&c.as_str())
            || ((c == "key" || c == "keys")
                && i > 0
                && parts
                    .get(i - 1)
                    .is_some_and(|p| KEY_QUALIFIERS.contains(&p.as_str())))
            || (c == "phrase"
                && i > 0
                && parts
                    .get(i - 1)
                    .is_some_and(|p| ["seed", "recovery", "secret", "pass"].contains(&p.as_str())));
        secret.then_some(i)
    });
    let Some(at) = found else {
        return false;
    };
    let after = parts.iter().skip(at + 1);
    let before = parts.iter().take(at);
    !after
        .clone()
        .any(|c| NOT_SECRET_AFTER.contains(&c.as_str()))
        && !before
            .clone()
            .any(|c| NOT_SECRET_BEFORE.contains(&c.as_str()))
}

/// A name that is secret only through `sig` / `signature` (`sig: 0x1234` in prose is not a
/// credential; a SAS `sig=` value is long).
fn is_weak_name(name: &str) -> bool {
    let parts = components(name);
    parts.iter().any(|c| c == "sig" || c == "signature")
        && !parts.iter().any(|c| {
            c != "sig"
                && c != "signature"
                && (SECRET_SUFFIXES.iter().any(|s| c.ends_with(s))
                    || SECRET_WORDS.contains(&c.as_str()))
        })
}

/// A name whose last component is `auth` (`_auth` in .npmrc, `BASIC_AUTH`): a secret only
/// when its value looks like a credential, not a scheme name (`auth: basic`).
fn is_auth_name(name: &str) -> bool {
    let parts = components(name);
    parts.last().is_some_and(|c| c == "auth")
        && !parts
            .iter()
            .any(|c| NOT_SECRET_BEFORE.contains(&c.as_str()))
}

/// A credential-looking value for an `auth` name: `user:pass` or a token.
fn auth_value(value: &str) -> bool {
    let v = unquote(value);
    let pair = v
        .split_once(':')
        .is_some_and(|(u, p)| !u.is_empty() && !p.is_empty() && !p.starts_with("//"));
    (pair || token_like(v)) && value_is_secret(v)
}

/// The value without surrounding (possibly escaped) quotes.
fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ["\\\"", "\"", "'"] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// Whether a captured value is a secret rather than a reference to one, a placeholder, a
/// path, a mask, a switch or code.
pub fn value_is_secret(raw: &str) -> bool {
    let v = unquote(raw).trim();
    if v.is_empty() || v.starts_with("[REDACTED") {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    // Switches, empty markers, type names and code keywords: `password: string`,
    // `token = await getToken()`, `password: required`.
    const LITERALS: &[&str] = &[
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "null",
        "none",
        "nil",
        "undefined",
        "~",
        "redacted",
        "<redacted>",
        "required",
        "optional",
        "missing",
        "invalid",
        "empty",
        "unset",
        "string",
        "str",
        "number",
        "int",
        "integer",
        "bool",
        "boolean",
        "any",
        "unknown",
        "bytes",
        "text",
        "secretstr",
        "char",
        "await",
        "new",
        "async",
        "yield",
        "function",
        "lambda",
        "require",
        "import",
        "typeof",
        "self",
        "this",
        "string;",
        "str,",
        "string,",
    ];
    if LITERALS.contains(&lower.trim_end_matches([';', ','])) || LITERALS.contains(&lower.as_str())
    {
        return false;
    }
    // A YAML block scalar indicator (`|`, `>-`, `|2`): the value is on the lines below.
    if v.starts_with(['|', '>'])
        && v.len() <= 3
        && v.bytes()
            .skip(1)
            .all(|c| c.is_ascii_digit() || c == b'+' || c == b'-')
    {
        return false;
    }
    // References: $VAR ${VAR} $(cmd) %VAR% <PLACEHOLDER> {{ tpl }} {..} [..] !Tag *alias @file
    // (and a comparison: `token == ""` leaves `= ""` as the value)
    if v.starts_with(['$', '<', '{', '[', '!', '*', '@', '&', '`', '='])
        || (v.starts_with('%') && v.ends_with('%'))
        || v.contains('(')
        || lower.contains("your")
        || lower.starts_with("process.env")
        || lower.starts_with("os.environ")
        || lower.starts_with("env.")
        || lower.starts_with("env[")
        || lower.starts_with("secrets.")
        || lower.starts_with("vars.")
        || lower.starts_with("file:")
        || lower.starts_with("env:")
    {
        return false;
    }
    // A generic type: Optional[str], Option<String>, List[bytes].
    let ident_len = v
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':'))
        .unwrap_or(v.len());
    if ident_len > 0
        && v.starts_with(|c: char| c.is_ascii_alphabetic())
        && matches!(v.get(ident_len..ident_len + 1), Some("[") | Some("<"))
    {
        return false;
    }
    // Attribute of a known object: self.token, config.password, args.api_key.
    const OBJECTS: [&str; 19] = [
        "self.",
        "this.",
        "config.",
        "cfg.",
        "conf.",
        "settings.",
        "args.",
        "opts.",
        "options.",
        "params.",
        "req.",
        "request.",
        "ctx.",
        "props.",
        "state.",
        "input.",
        "data.",
        "user.",
        "creds.",
    ];
    if OBJECTS.iter().any(|o| lower.starts_with(o))
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return false;
    }
    // Masks: ****, xxxxxxxx, ...., •••
    let mut distinct: Vec<char> = Vec::new();
    for c in v.chars() {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
        if distinct.len() > 2 {
            break;
        }
    }
    let is_mask = |c: char| matches!(c, '*' | 'x' | 'X' | '.' | '#' | '•' | '-' | '_' | '?');
    if distinct.iter().all(|c| is_mask(*c)) {
        return false;
    }
    // A short prefix then a mask: sk-xxxxxxxx, ghp_********.
    let total = v.chars().count();
    if total >= 8
        && v.chars()
            .filter(|c| matches!(c, '*' | 'x' | 'X' | '•'))
            .count()
            * 10
            >= total * 7
    {
        return false;
    }
    // Paths: /run/secrets/db, ./creds.json, ~/.netrc, C:\keys\x.pem
    let is_path = (v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with("~/")
        || v.get(1..3) == Some(":\\"))
        && v.chars().filter(|c| *c == '/' || *c == '\\').count() >= 1
        && v.chars().any(|c| c.is_ascii_alphabetic())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/\\._-~:".contains(c));
    if is_path {
        return false;
    }
    // A plain URL without credentials (credentials in URLs have their own rule).
    if (lower.starts_with("http://") || lower.starts_with("https://")) && !v.contains('@') {
        return false;
    }
    true
}

/// Looks like a token, not a word: has a digit, or mixed case beyond a capital first letter,
/// and is not a placeholder.
fn token_like(v: &str) -> bool {
    let has_digit = v.chars().any(|c| c.is_ascii_digit());
    let has_lower = v.chars().any(|c| c.is_ascii_lowercase());
    let inner_upper = v.chars().skip(1).any(|c| c.is_ascii_uppercase());
    (has_digit || (has_lower && inner_upper)) && value_is_secret(v)
}

/// A provider-shaped match that is not a placeholder (`sk-xxxx…`, `ghp_XXXX…`).
fn shape_is_secret(v: &str) -> bool {
    if v.starts_with("sk-") && !v.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let body = v.get(4..).unwrap_or("");
    let mut distinct: Vec<char> = Vec::new();
    for c in body.chars() {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    distinct.len() > 4 && !v.to_ascii_lowercase().contains("example0")
}

/// A [`Check::Named`] match: `name` says `value` is a secret, and `value` is one.
fn named_secret(name: &str, value: &str) -> bool {
    (is_secret_name(name)
        && value_is_secret(value)
        && (!is_weak_name(name) || unquote(value).chars().count() >= 16))
        || (is_auth_name(name) && auth_value(value))
}

impl Check {
    /// The checks whose value is found by reading the text around the match
    /// ([`decide_in_text`]).
    fn reads_text(self) -> bool {
        matches!(
            self,
            Check::Header | Check::BlockScalar | Check::Sibling | Check::Continued | Check::Percent
        )
    }
}

/// Credential header names (as in the header rule), for a percent-encoded header.
const HEADER_NAMES: [&str; 5] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
];

/// [`decide`] for the checks that read the text around the match ([`Check::reads_text`]).
fn decide_in_text(
    check: Check,
    text: &str,
    caps: &Captures<'_>,
) -> Option<(usize, usize, &'static str)> {
    let b = text.as_bytes();
    let m = caps.get(0)?;
    let name = caps.name("n").map_or("", |n| n.as_str());
    let secret = |start: usize, end: usize, judged: &str| {
        named_secret(name, judged).then_some((start, end, REDACTED))
    };
    match check {
        Check::Header => {
            let s = caps.name("s")?;
            let sep = caps.name("sep").map_or("", |x| x.as_str());
            // Opened by a quote (not an escaped one): its escapes are inside the value.
            let quoted =
                sep.ends_with(['"', '\'']) && !sep.ends_with("\\\"") && !sep.ends_with("\\'");
            let raw = s.as_str();
            let raw = if quoted {
                raw
            } else {
                raw.split('\\').next().unwrap_or("")
            };
            let value = raw.trim_end();
            (!value.is_empty() && value_is_secret(value)).then_some((
                s.start(),
                s.start() + value.len(),
                REDACTED,
            ))
        }
        Check::BlockScalar => {
            let line = extent::line_from(b, m.start());
            let patch = extent::is_patch_line(b, line.start);
            let key_col = extent::layout(b, line, patch).key_col;
            let (start, end) = extent::block_scalar(b, m.end(), key_col, patch)?;
            let first = text.get(start..extent::line_from(b, start).end)?;
            secret(start, end, first.trim())
        }
        Check::Sibling => {
            let line = extent::line_from(b, m.start());
            let patch = extent::is_patch_line(b, line.start);
            let (start, end) = sibling_value(b, line, patch)?;
            let first = text.get(start..extent::line_from(b, start).end.min(end))?;
            secret(start, end, first.trim())
        }
        Check::Continued => {
            let s = caps.name("s")?;
            let sep = caps.name("sep").map_or("", |x| x.as_str());
            let dotted = name.contains('.');
            // A shell line `NAME=x \` continues with the next command, not the value: an
            // undotted name's value is continued only when glued to the `\`.
            let first = s.as_str().split('\n').next().unwrap_or("");
            let glued = first
                .trim_end_matches(['\r', '\\'])
                .ends_with(|c: char| !c.is_ascii_whitespace());
            if !dotted && (!glued || sep.trim().is_empty()) {
                return None;
            }
            let joined: String = s
                .as_str()
                .split('\n')
                .map(|l| {
                    l.trim_end_matches('\r')
                        .trim_end_matches('\\')
                        .trim_start_matches(['+', '-'])
                        .trim_start()
                })
                .collect();
            let value = s.as_str().trim_end();
            secret(s.start(), s.start() + value.len(), &joined)
        }
        Check::Percent => {
            let s = caps.name("s")?;
            let sep = caps.name("sep").map_or("", |x| x.as_str());
            if !name.contains('%') && !sep.contains('%') {
                // A plain `name=value`: the assignment rule's.
                return None;
            }
            // A name right after an escape of another byte (`%3Fapi_key%3D…`, a query inside a
            // parameter) starts with that escape's hex digits: they are not part of it.
            let n_start = caps.name("n").map_or(0, |n| n.start());
            let name = match (
                n_start.checked_sub(1).and_then(|i| b.get(i)),
                n_start.checked_sub(2).and_then(|i| b.get(i)),
            ) {
                (Some(b'%'), _) => name.get(2..).unwrap_or(""),
                (Some(h), Some(b'%')) if h.is_ascii_hexdigit() => name.get(1..).unwrap_or(""),
                _ => name,
            };
            let decoded_name = extent::percent_decode(name);
            let value = extent::percent_decode(s.as_str());
            let lower = decoded_name.to_ascii_lowercase();
            let header = HEADER_NAMES.iter().any(|h| lower.ends_with(h));
            ((header && value_is_secret(&value)) || named_secret(&decoded_name, &value))
                .then_some((s.start(), s.end(), REDACTED))
        }
        Check::Block
        | Check::Always
        | Check::TokenLike
        | Check::Value
        | Check::Named
        | Check::Flag
        | Check::Shape => None,
    }
}

/// The value of the sibling `value:` key of the `name:` key on `line` (see
/// [`Check::Sibling`]): after it in the same mapping item, else before it.
fn sibling_value(b: &[u8], line: extent::Line, patch: bool) -> Option<(usize, usize)> {
    let key_col = extent::layout(b, line, patch).key_col;
    let at_key = |l: extent::Line, col: usize| {
        let lay = extent::layout(b, l, patch);
        let v = extent::value_key_at(b, lay.origin + col, l.end)?;
        extent::yaml_value(b, l, v, col, patch)
    };
    let mut cur = line;
    for _ in 0..extent::SIBLING_MAX_LINES {
        if cur.next >= b.len() {
            break;
        }
        cur = extent::line_from(b, cur.next);
        let lay = extent::layout(b, cur, patch);
        if lay.empty || lay.indent > key_col {
            continue;
        }
        if lay.indent < key_col {
            break;
        }
        if let Some(found) = at_key(cur, key_col) {
            return Some(found);
        }
    }
    if extent::layout(b, line, patch).indent < key_col {
        // The name opens its item (`- name: …`): nothing before it is a sibling.
        return None;
    }
    let mut cur = line;
    for _ in 0..extent::SIBLING_MAX_LINES {
        cur = extent::line_before(b, cur.start)?;
        let lay = extent::layout(b, cur, patch);
        if lay.empty || lay.indent > key_col {
            continue;
        }
        if lay.indent == key_col {
            if let Some(found) = at_key(cur, key_col) {
                return Some(found);
            }
            continue;
        }
        // The item's first line (`- value: …`), else the mapping's start.
        return if lay.key_col == key_col {
            at_key(cur, key_col)
        } else {
            None
        };
    }
    None
}

/// Decides what part of one match (if any) is replaced: `(start, end, replacement)`.
/// `qualified`: for the assignment rule, the name with the segments before it (see
/// [`qualified_start`]) when there are any; a [`Check::Named`] match is a secret when either
/// name says so.
fn decide(
    check: Check,
    caps: &Captures<'_>,
    qualified: Option<&str>,
) -> Option<(usize, usize, &'static str)> {
    let m = caps.get(0)?;
    if check == Check::Block {
        return Some((m.start(), m.end(), REDACTED_KEY));
    }
    let s = caps.name("s")?;
    let name = caps.name("n").map(|n| n.as_str()).unwrap_or("");
    // Trailing blanks of a header value stay outside the redaction.
    let end = s.start() + s.as_str().trim_end().len();
    let value = s.as_str().trim_end();
    let whole = Some((s.start(), end, REDACTED));
    match check {
        Check::Block
        | Check::Header
        | Check::BlockScalar
        | Check::Sibling
        | Check::Continued
        | Check::Percent => None,
        Check::Always => whole,
        Check::TokenLike => token_like(value).then_some((s.start(), end, REDACTED)),
        Check::Value => value_is_secret(value).then_some((s.start(), end, REDACTED)),
        Check::Named => (named_secret(name, value)
            || qualified.is_some_and(|q| named_secret(q, value)))
        .then_some((s.start(), end, REDACTED)),
        Check::Shape => shape_is_secret(value).then_some((s.start(), end, REDACTED)),
        Check::Flag => {
            let flag = name.trim_start_matches('-');
            if value.starts_with('-') {
                return None;
            }
            if USER_PASS_FLAGS.contains(&flag) {
                let inner = unquote(value);
                let offset = value.find(inner).unwrap_or(0);
                let sep = inner
                    .find(':')
                    .or_else(|| (flag == "U").then(|| inner.find('%')).flatten())?;
                let (user, pass) = (inner.get(..sep)?, inner.get(sep + 1..)?);
                let numeric = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
                if (numeric(user) && numeric(pass)) || !value_is_secret(pass) {
                    return None;
                }
                let start = s.start() + offset + sep + 1;
                return Some((start, start + pass.len(), REDACTED));
            }
            // Single-letter options are only known in a command's context (rules above).
            (flag.len() > 1 && is_secret_name(flag) && value_is_secret(value)).then_some((
                s.start(),
                end,
                REDACTED,
            ))
        }
    }
}

/// Text shown cut to N characters is examined up to N plus this margin; see [`head`].
const REDACTION_MARGIN_CHARS: usize = 1024;

/// One pass over the bytes: can any rule match at all? Every rule needs an `=` or `:`
/// (assignments, URLs, headers), a run of at least 8 token characters (keys, JWTs, PEM
/// markers, header values), an option (`-p…`) or a `<` (XML). Most preview text has none.
fn may_hold_secret(text: &str) -> bool {
    // (perf, session 5: one table lookup per byte instead of range and list tests; session 6:
    // eight ASCII bytes without `-` at a time. The tests `may_hold_secret_is_its_reference`,
    // `may_hold_secret_word_at_a_time_is_its_reference` and
    // `the_secret_byte_classes_are_their_definition` hold it to the old body.)
    let bytes = text.as_bytes();
    let mut run = 0usize;
    let mut prev_dash = false;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        if v & HIGH_BITS == 0 && !prev_dash && byte_eq(v, b'-') == 0 {
            // ASCII, no `-` here nor just before: a `-` cannot precede a letter, and the
            // byte classes are exact per byte.
            if byte_eq(v, b'=') | byte_eq(v, b':') | byte_eq(v, b'<') != 0 {
                return true;
            }
            let not_run = !secret_run_bytes(v) & HIGH_BITS;
            if not_run == 0 {
                // Eight token bytes in a row.
                return true;
            }
            // The run continues through this word's first bytes (the lowest), and the next
            // starts with its last ones (the highest).
            let first = not_run.trailing_zeros() as usize / 8;
            if run + first >= 8 {
                return true;
            }
            run = not_run.leading_zeros() as usize / 8;
            continue;
        }
        for &b in chunk {
            if secret_byte_step(b, &mut run, &mut prev_dash) {
                return true;
            }
        }
    }
    for &b in chunks.remainder() {
        if secret_byte_step(b, &mut run, &mut prev_dash) {
            return true;
        }
    }
    false
}

/// One byte of [`may_hold_secret`]'s scan: whether it decides that the text may hold one.
#[inline(always)]
fn secret_byte_step(b: u8, run: &mut usize, prev_dash: &mut bool) -> bool {
    let class = SECRET_BYTE_CLASS.get(usize::from(b)).copied().unwrap_or(0);
    if class & SECRET_BYTE_MARK != 0 {
        return true;
    }
    if class & SECRET_BYTE_RUN != 0 {
        *run += 1;
        if *run >= 8 {
            return true;
        }
    } else {
        *run = 0;
    }
    if *prev_dash && class & SECRET_BYTE_ALPHA != 0 {
        return true;
    }
    *prev_dash = b == b'-';
    false
}

const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `v` that is `lo` or more; `v` must be ASCII (no byte adds a
/// carry into the next).
fn byte_ge(v: u64, lo: u8) -> u64 {
    v.wrapping_add(LOW_BITS * u64::from(0x80 - lo.min(0x80))) & HIGH_BITS
}

/// The high bit of each byte of ASCII `v` in `lo..=hi` (`hi` < 0x7f).
fn byte_in(v: u64, lo: u8, hi: u8) -> u64 {
    byte_ge(v, lo) & !byte_ge(v, hi + 1)
}

/// The high bit of each byte of ASCII `v` equal to `b`.
fn byte_eq(v: u64, b: u8) -> u64 {
    byte_in(v, b, b)
}

/// The high bit of each token byte (`SECRET_BYTE_RUN`) of ASCII `v` without `-`: an ASCII
/// letter or digit or one of `_+/.~` (`-` counts too: `-./0-9` is one range).
fn secret_run_bytes(v: u64) -> u64 {
    byte_in(v, b'-', b'9')
        | byte_eq(v, b'+')
        | byte_in(v, b'A', b'Z')
        | byte_eq(v, b'_')
        | byte_in(v, b'a', b'z')
        | byte_eq(v, b'~')
}

/// [`may_hold_secret`]'s byte classes: `=`, `:` or `<` (1); a token byte, ASCII alphanumeric
/// or one of `_-+/.~` (2); an ASCII letter (4). Written out (a const loop would index).
const SECRET_BYTE_MARK: u8 = 1;
const SECRET_BYTE_RUN: u8 = 2;
const SECRET_BYTE_ALPHA: u8 = 4;
#[rustfmt::skip]
const SECRET_BYTE_CLASS: [u8; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0, 1, 1, 0, 0,
    0, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
    6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 0, 0, 0, 0, 2,
    0, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
    6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 0, 0, 0, 2, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// The part of `text` that can matter when it is shown cut to `max_chars`: the first
/// `max_chars` plus [`REDACTION_MARGIN_CHARS`], so a secret that starts inside the shown part is
/// seen whole before the cut, and the cost of what follows is bounded.
pub fn head(text: &str, max_chars: usize) -> &str {
    let keep = max_chars.saturating_add(REDACTION_MARGIN_CHARS);
    if text.len() <= keep {
        // No more bytes than characters kept: nothing to cut.
        return text;
    }
    match text.char_indices().nth(keep) {
        Some((at, _)) => text.get(..at).unwrap_or(text),
        None => text,
    }
}

#[derive(Debug, Clone)]
struct Rule {
    re: LazyRegex,
    check: Check,
    per_line: &'static [&'static str],
    /// Indexes into [`Literals`] of `pre`, `per_line` and `also`.
    #[cfg(test)]
    pre_ids: Vec<usize>,
    line_ids: Vec<usize>,
    #[cfg(test)]
    also_ids: Vec<usize>,
    /// The same as sets (`None`: no filter, as for an empty list).
    pre_set: Option<LitSet>,
    line_set: Option<LitSet>,
    also_set: Option<LitSet>,
    /// The rule can only match where a `.` follows a run of 24 or more `[A-Za-z0-9_-]`
    /// (the Discord token shape, which has no literal to look for).
    needs_long_dotted_run: bool,
    /// For the provider key shapes: the same search, one regex per shape (see [`ShapeSplit`]).
    split: Option<ShapeSplit>,
    /// The rule needs a line with four `:` (`.pgpass`).
    needs_colon_line: bool,
    /// The rule needs [`HEX_RUN`] lowercase hex digits in a row (Airtable).
    needs_hex_run: bool,
    /// The assignment rule: lines where [`assignment_may_redact`] is false are skipped.
    needs_separator: bool,
    /// The block scalar rule: needs [`extent::may_hold_block_scalar`].
    needs_block: bool,
    /// The continued-value rule: needs [`extent::has_line_continuation`].
    needs_continuation: bool,
    /// The percent-encoded rule: needs [`extent::has_percent_escape`].
    needs_percent: bool,
    /// The `.properties` rule: needs a line with a dotted key then a blank that may be a
    /// secret name ([`extent::dotted_key_then_blank`], [`may_be_secret_name`]).
    needs_dotted_key: bool,
    /// The URL-credential rules: need an `@` (each match ends with one).
    needs_at: bool,
    /// The echo-into-a-password-reader rule: needs `echo` or `printf`, as written (each
    /// match starts with one; the pattern is case-sensitive).
    needs_echo: bool,
    /// For the name/value pair rules ([`PAIR_PATTERNS`]): the [`NAME_WORDS`], one of which the
    /// text must hold (every secret name does), so a pair of ordinary names costs no search.
    name_words: Option<LitSet>,
}

impl Rule {
    /// The gates in code of the rules added in session 8 (block scalars, continued values,
    /// `.properties` keys, percent-encoded names) and session 10 (an `@`, `echo`/`printf`):
    /// false when the rule cannot redact in `text`. (Searched only for a rule whose literals
    /// the text holds: literals of their own would slow the scan of every text.)
    fn text_gate(&self, text: &str) -> bool {
        (!self.needs_at || memchr::memchr(b'@', text.as_bytes()).is_some())
            && (!self.needs_echo
                || find_each(text.as_bytes(), b"echo", |_| true)
                || find_each(text.as_bytes(), b"printf", |_| true))
            && (!self.needs_block || extent::may_hold_block_scalar(text))
            && (!self.needs_dotted_key || has_secret_dotted_key_line(text))
            && (!self.needs_continuation || extent::has_line_continuation(text))
            && (!self.needs_percent || extent::has_percent_escape(text))
    }
}

/// Whether a line of `text` starts with a dotted key then a blank (`db.password x`) whose
/// key may be a secret name: the `.properties` rule's gate.
fn has_secret_dotted_key_line(text: &str) -> bool {
    let b = text.as_bytes();
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', b).map(|i| i + 1))
        .any(|at| {
            text.get(at..)
                .and_then(extent::dotted_key_then_blank)
                .is_some_and(|n| may_be_secret_name(n.as_bytes()))
        })
}

/// The provider key shapes as one regex per alternative, each with a literal it needs, so a
/// search runs only the shapes whose literal the text holds. The leftmost match of the
/// alternation is the leftmost of its alternatives' matches, the first alternative winning a
/// tie, and an alternative whose literal is absent cannot match: the same match as the whole
/// regex, at a fraction of its cost (its automaton holds every shape at every position).
#[derive(Debug, Clone)]
struct ShapeSplit {
    alts: Vec<ShapeAlt>,
    /// Per literal id: the alternatives (bit `i`: `alts[i]`) that literal filters; and
    /// the alternatives without a filter. `None` when there are more than 128 alternatives
    /// (then each is looked at).
    index: Option<(Vec<u128>, u128)>,
}

/// One provider key shape of a [`ShapeSplit`].
#[derive(Debug, Clone)]
struct ShapeAlt {
    /// The alternative wrapped as `(?P<s>\b(?:ALT)\b)`.
    re: LazyRegex,
    /// The indexes in [`Literals`] of literals one of which every match contains (`None`:
    /// always searched).
    ids: Option<LitSet>,
    /// Those literals as written: a match holds one of them in this case (empty: no
    /// literal is known).
    exact: Vec<String>,
    /// A match starts with one of `exact`, after a word boundary, and each starts with a
    /// word character: an occurrence right after a word character cannot start one.
    boundary: bool,
}

impl ShapeAlt {
    /// Some match of this shape may start at or after `pos` in `text`, as far as its literal
    /// tells: the literal occurs there in its case (and, for a shape that starts with it,
    /// after a non-word character or the start).
    fn may_match(&self, text: &str, pos: usize) -> bool {
        if self.exact.is_empty() {
            return true;
        }
        let bytes = text.as_bytes();
        let rest = bytes.get(pos..).unwrap_or(&[]);
        self.exact.iter().any(|exact| {
            find_each(rest, exact.as_bytes(), |at| {
                let at = pos + at;
                !self.boundary
                    || at
                        .checked_sub(1)
                        .and_then(|i| bytes.get(i))
                        .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            })
        })
    }
}

/// Splits `alts` at its top-level `|`.
fn top_level_alternatives(alts: &str) -> Vec<&str> {
    let (mut out, mut depth, mut class, mut escaped, mut from) =
        (Vec::new(), 0i32, false, false, 0);
    for (i, c) in alts.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth -= 1,
            '|' if !class && depth == 0 => {
                out.push(alts.get(from..i).unwrap_or(""));
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(alts.get(from..).unwrap_or(""));
    out
}

/// The longest run of plain characters at the top level of one alternative (lowercased): a
/// literal every match contains. A character a quantifier follows is left out.
#[cfg(test)]
fn required_literal(alt: &str) -> String {
    required_literal_cased(alt).0.to_ascii_lowercase()
}

/// `required_literal` as written (the shape patterns are case-sensitive, so a match holds
/// it in this case), and whether it opens the alternative (a match then starts with it).
fn required_literal_cased(alt: &str) -> (String, bool) {
    let (mut best, mut run) = (String::new(), String::new());
    let (mut best_at_start, mut run_at_start) = (false, false);
    let chars: Vec<char> = alt.chars().collect();
    let (mut i, mut depth, mut class) = (0usize, 0i32, false);
    let end_run =
        |run: &mut String, best: &mut String, run_at_start: bool, best_at_start: &mut bool| {
            if run.len() > best.len() {
                *best = run.clone();
                *best_at_start = run_at_start;
            }
            run.clear();
        };
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        let token_start = i;
        if class {
            if c == '\\' {
                i += 1;
            } else if c == ']' {
                class = false;
            }
            i += 1;
            continue;
        }
        let literal = match c {
            '\\' => {
                i += 1;
                next.filter(|n| !n.is_ascii_alphanumeric())
            }
            '[' => {
                class = true;
                None
            }
            '(' => {
                depth += 1;
                None
            }
            ')' => {
                depth -= 1;
                None
            }
            '{' => {
                // A repetition count: skip it.
                while chars.get(i + 1).is_some_and(|c| *c != '}') {
                    i += 1;
                }
                i += 1;
                None
            }
            '.' | '^' | '$' | '|' | '?' | '*' | '+' | '}' => None,
            c => Some(c),
        };
        i += 1;
        match literal {
            Some(l) if depth == 0 => {
                if matches!(chars.get(i), Some('?' | '*' | '{' | '+')) {
                    end_run(&mut run, &mut best, run_at_start, &mut best_at_start);
                } else {
                    if run.is_empty() {
                        run_at_start = token_start == 0;
                    }
                    run.push(l);
                }
            }
            _ => end_run(&mut run, &mut best, run_at_start, &mut best_at_start),
        }
    }
    end_run(&mut run, &mut best, run_at_start, &mut best_at_start);
    (best, best_at_start)
}

/// Literals one of which every match of one alternative contains, as written, and whether
/// each opens the alternative: [`required_literal_cased`], unless it is shorter than
/// [`WEAK_LITERAL_BYTES`] and a run of plain characters and groups of plain alternatives
/// (`(?:AKIA|ASIA)`, `(?:sk|rk)_(?:live|test)_`) spells out longer ones: then each
/// spelling of the longest such run (its shortest spelling the longest). Empty: none known.
fn required_literals_cased(alt: &str) -> (Vec<String>, bool) {
    let (one, one_at_start) = required_literal_cased(alt);
    if one.len() >= WEAK_LITERAL_BYTES {
        return (vec![one], one_at_start);
    }
    let mut best: (Vec<String>, bool) = if one.is_empty() {
        (Vec::new(), false)
    } else {
        (vec![one], one_at_start)
    };
    let shortest = |set: &[String]| set.iter().map(String::len).min().unwrap_or(0);
    for (set, at_start) in literal_spellings(alt) {
        if shortest(&set) > shortest(&best.0) {
            best = (set, at_start);
        }
    }
    best
}

/// Below this many bytes, [`required_literals_cased`] looks for longer spellings.
const WEAK_LITERAL_BYTES: usize = 3;

/// Most spellings [`literal_spellings`] keeps for one run.
const MAX_SPELLINGS: usize = 16;

/// The runs of one alternative made of plain characters (not quantified) and groups
/// `(?:a|b|…)` of plain alternatives (not quantified), at its top level: each as the strings
/// it spells (every match holds one), and whether it opens the alternative.
fn literal_spellings(alt: &str) -> Vec<(Vec<String>, bool)> {
    let chars: Vec<char> = alt.chars().collect();
    let quantified = |i: usize| matches!(chars.get(i), Some('?' | '*' | '{' | '+'));
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut out = Vec::new();
    let mut run: Vec<String> = vec![String::new()];
    let mut run_at_start = true;
    let mut end_run = |run: &mut Vec<String>, at_start: bool| {
        if run.iter().all(|s| !s.is_empty()) {
            out.push((std::mem::take(run), at_start));
        }
        *run = vec![String::new()];
    };
    let mut i = 0usize;
    while let Some(&c) = chars.get(i) {
        // A group of plain alternatives, not quantified.
        if c == '(' && chars.get(i + 1) == Some(&'?') && chars.get(i + 2) == Some(&':') {
            let close = (i + 3..chars.len()).find(|&j| chars.get(j) == Some(&')'));
            let body: Option<String> =
                close.map(|j| chars.get(i + 3..j).unwrap_or(&[]).iter().collect());
            let group = close.zip(body).filter(|(j, body)| {
                !quantified(j + 1)
                    && !body.is_empty()
                    && body
                        .split('|')
                        .all(|a| !a.is_empty() && a.chars().all(plain))
            });
            if let Some((j, body)) = group {
                let product: Vec<String> = run
                    .iter()
                    .flat_map(|r| body.split('|').map(move |a| format!("{r}{a}")))
                    .collect();
                if product.len() <= MAX_SPELLINGS {
                    run = product;
                } else {
                    end_run(&mut run, run_at_start);
                    run_at_start = false;
                }
                i = j + 1;
                continue;
            }
        }
        let literal = match c {
            '\\' => chars
                .get(i + 1)
                .copied()
                .filter(|n| !n.is_ascii_alphanumeric()),
            c if plain(c) || c == '/' || c == '=' || c == ':' || c == ' ' => Some(c),
            _ => None,
        };
        let width = if c == '\\' { 2 } else { 1 };
        match literal {
            Some(l) if !quantified(i + width) => {
                for r in &mut run {
                    r.push(l);
                }
            }
            _ => {
                end_run(&mut run, run_at_start);
                run_at_start = false;
                // Skip what this token spans (a class, a group, a count), conservatively:
                // the next run starts after it.
                match c {
                    '[' => {
                        let mut j = i + 1;
                        while let Some(&d) = chars.get(j) {
                            if d == '\\' {
                                j += 1;
                            } else if d == ']' {
                                break;
                            }
                            j += 1;
                        }
                        i = j;
                    }
                    '(' => {
                        let mut depth = 0i32;
                        let mut j = i;
                        while let Some(&d) = chars.get(j) {
                            if d == '\\' {
                                j += 1;
                            } else if d == '(' {
                                depth += 1;
                            } else if d == ')' {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            j += 1;
                        }
                        i = j;
                    }
                    '{' => {
                        while chars.get(i).is_some_and(|d| *d != '}') {
                            i += 1;
                        }
                    }
                    _ => {}
                }
                // A quantifier after the token belongs to it.
                i += width;
                while quantified(i) {
                    if chars.get(i) == Some(&'{') {
                        while chars.get(i).is_some_and(|d| *d != '}') {
                            i += 1;
                        }
                    }
                    i += 1;
                }
                continue;
            }
        }
        i += width;
    }
    end_run(&mut run, run_at_start);
    out
}

impl ShapeSplit {
    fn new(alts: &str, literals: &mut Literals) -> ShapeSplit {
        let mut out = Vec::new();
        for alt in top_level_alternatives(alts) {
            let re = LazyRegex::new(format!(r"(?P<s>\b(?:{alt})\b)"));
            let (exact, at_start) = required_literals_cased(alt);
            let ids: Vec<usize> = exact
                .iter()
                .map(|e| literals.id_owned(e.to_ascii_lowercase()))
                .collect();
            let boundary = at_start
                && !exact.is_empty()
                && exact.iter().all(|e| {
                    e.bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                });
            out.push(ShapeAlt {
                re,
                // No filter when a literal does not fit a set: always searched.
                ids: LitSet::of(&ids),
                exact,
                boundary,
            });
        }
        let index = (out.len() <= 128).then(|| {
            let mut by_literal: Vec<u128> = Vec::new();
            let mut always = 0u128;
            for (i, alt) in out.iter().enumerate() {
                let bit = 1u128 << i;
                let Some(ids) = &alt.ids else {
                    always |= bit;
                    continue;
                };
                for id in (0..LIT_SET_WORDS * 64).filter(|&id| ids.contains(id)) {
                    if by_literal.len() <= id {
                        by_literal.resize(id + 1, 0);
                    }
                    if let Some(m) = by_literal.get_mut(id) {
                        *m |= bit;
                    }
                }
            }
            (by_literal, always)
        });
        ShapeSplit { alts: out, index }
    }

    /// The leftmost match at or after `pos` (the first alternative on a tie).
    fn captures_at<'t>(
        &self,
        text: &'t str,
        pos: usize,
        present: &Presence,
    ) -> Option<Captures<'t>> {
        let mut best: Option<(usize, Captures<'t>)> = None;
        // The alternatives one of whose literals the text holds, in order.
        let mut candidates = match &self.index {
            Some((by_literal, always)) => {
                let mut m = *always;
                for (w, &word) in present.hit.0.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let id = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        m |= by_literal.get(id).copied().unwrap_or(0);
                    }
                }
                m
            }
            None => u128::MAX,
        };
        let mut next = 0usize;
        while next < self.alts.len() {
            let i = if self.index.is_some() {
                if candidates == 0 {
                    break;
                }
                let i = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                i
            } else {
                next
            };
            next = i + 1;
            let Some(alt) = self.alts.get(i) else {
                break;
            };
            if !present.any_of(&alt.ids) || !alt.may_match(text, pos) {
                continue;
            }
            let Some(caps) = alt.re.get().and_then(|re| re.captures_at(text, pos)) else {
                continue;
            };
            let Some(start) = caps.get(0).map(|m| m.start()) else {
                continue;
            };
            if best.as_ref().is_none_or(|(b, _)| start < *b) {
                best = Some((start, caps));
            }
        }
        best.map(|(_, caps)| caps)
    }
}

/// Run of token characters before a `.` that the Discord token shape needs (`[MNO]` plus at
/// least 23).
/// Whether `found` holds at some occurrence of `needle` in `hay`, looking at the leftmost
/// occurrences that do not overlap, in order (those `str::match_indices` gives), each found
/// by a `memchr` of its first byte (session 7: the two-way searcher `match_indices` sets up
/// per call cost more than the search of a short text).
fn find_each(hay: &[u8], needle: &[u8], mut found: impl FnMut(usize) -> bool) -> bool {
    let Some(&first) = needle.first() else {
        // The empty needle (no shape literal is): `match_indices` gives every char boundary
        // (`hay` is UTF-8 from one: a boundary is where no continuation byte is).
        return (0..=hay.len())
            .filter(|&i| hay.get(i).is_none_or(|&b| b & 0xC0 != 0x80))
            .any(found);
    };
    let mut from = 0;
    while let Some(off) = hay.get(from..).and_then(|h| memchr::memchr(first, h)) {
        let at = from + off;
        if hay.get(at..).is_some_and(|h| h.starts_with(needle)) {
            if found(at) {
                return true;
            }
            from = at + needle.len();
        } else {
            from = at + 1;
        }
    }
    false
}

const DOTTED_RUN: usize = 24;

/// Every literal of every rule's `pre` and `per_line`, found in one pass over a text
/// (ASCII case-insensitively: the same as searching the text's `to_ascii_lowercase`), so no
/// lowercase copy is made and no per-literal search is set up.
#[derive(Debug, Clone, Default)]
struct Literals {
    words: Vec<Vec<u8>>,
    /// One-byte literals by their (lowercase) byte (for the reference scan).
    #[cfg(test)]
    single: Vec<Vec<usize>>,
    /// One-byte literals as (lowercase byte, id): each found with a `memchr` per case.
    singles: Vec<(u8, usize)>,
    /// One bit per pair of raw bytes (`b1 << 8 | b0`, the pair as a little-endian number;
    /// 65 536 bits): set when, in some case, the pair starts a literal of two bytes or more,
    /// or `b0` is a one-byte literal (any `b1`). [`Literals::scan`] tests this bit at each
    /// position and looks no further where it is clear, as at most positions.
    pair_bits: Vec<u64>,
    /// Like `pair_bits`, set only for the two-byte literals (in every case): a hit looks up
    /// [`Literals::pairs`] only where one may be.
    short_bits: Vec<u64>,
    /// Two-byte literals by a hash of their (lowercase) bytes ([`pair_key`]): an index into
    /// `lists` plus one (0: no literal hashes so), so most positions cost one lookup.
    pairs: Vec<u16>,
    lists: Vec<Vec<usize>>,
    /// Longer literals by a hash of their first three bytes with bit 5 set in each
    /// ([`head_key`]: a case fold that needs no per-byte test, and folds some non-letters
    /// together, which only adds candidates), likewise into `lists`: three bytes rule out far
    /// more positions than two. A hash collision only adds a candidate that is then compared;
    /// the tables are small ([`KEY_BITS`]) so they stay in the cache a scan runs from.
    heads: Vec<u16>,
    /// Longer literals by a hash of their first three lowercase bytes ([`triple_key`]), for
    /// the reference scan.
    #[cfg(test)]
    triples: Vec<u16>,
    /// The empty literals (in every text).
    empty: LitSet,
    /// Per byte: [`TOKEN_BYTE`] and [`SINGLE_BYTE`] flags (256 entries once a literal is added).
    class: Vec<u8>,
}

/// A byte of the runs [`Literals::scan`] measures for the dotted-run check (`[A-Za-z0-9_-]`).
const TOKEN_BYTE: u8 = 1;
/// A byte (ASCII case-folded) that is a one-byte literal.
const SINGLE_BYTE: u8 = 2;

/// Literal ids held in a text, one bit each: [`Literals::scan`] fills one on the stack and
/// each rule's filter is one intersection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LitSet([u64; LIT_SET_WORDS]);

/// Words of a [`LitSet`]: room for 256 literals (a test checks that every literal fits; one
/// that did not would count as present in every text, which only costs time).
const LIT_SET_WORDS: usize = 4;

impl LitSet {
    /// The set of `ids`; `None` when `ids` is empty (no filter) or one does not fit (the
    /// filter could not be exact, so there is none).
    fn of(ids: &[usize]) -> Option<LitSet> {
        let mut set = LitSet::default();
        for &id in ids {
            let word = set.0.get_mut(id / 64)?;
            *word |= 1 << (id % 64);
        }
        (!ids.is_empty()).then_some(set)
    }

    fn insert(&mut self, id: usize) {
        if let Some(word) = self.0.get_mut(id / 64) {
            *word |= 1 << (id % 64);
        }
    }

    /// `id` is in the set; an id beyond the capacity always is.
    fn contains(&self, id: usize) -> bool {
        self.0.get(id / 64).is_none_or(|w| w >> (id % 64) & 1 == 1)
    }

    fn intersects(&self, other: &LitSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// The ids in the set, in increasing order.
    fn ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let id = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    id
                })
            })
        })
    }
}

/// Which literals a text holds, and whether it has a long dotted run (see [`Rule`]).
struct Presence {
    hit: LitSet,
    long_dotted_run: bool,
}

impl Literals {
    fn id(&mut self, word: &str) -> usize {
        self.id_owned(word.to_owned())
    }

    fn id_owned(&mut self, word: String) -> usize {
        let bytes = word.into_bytes();
        if let Some(i) = self.words.iter().position(|w| *w == bytes) {
            return i;
        }
        let i = self.words.len();
        if self.class.is_empty() {
            #[cfg(test)]
            {
                self.single = vec![Vec::new(); 256];
            }
            self.pair_bits = vec![0; 1 << 10];
            self.short_bits = vec![0; 1 << 10];
            self.pairs = vec![0; 1 << KEY_BITS];
            self.heads = vec![0; 1 << KEY_BITS];
            #[cfg(test)]
            {
                self.triples = vec![0; 1 << KEY_BITS];
            }
            self.class = (0..=255u8)
                .map(|b| {
                    let lower = b.to_ascii_lowercase();
                    if lower.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-' {
                        TOKEN_BYTE
                    } else {
                        0
                    }
                })
                .collect();
        }
        match (bytes.first(), bytes.get(1), bytes.get(2)) {
            (Some(&b0), None, _) => {
                let lower = b0.to_ascii_lowercase();
                #[cfg(test)]
                if let Some(list) = self.single.get_mut(usize::from(lower)) {
                    list.push(i);
                }
                self.singles.push((lower, i));
                // Both cases of the byte find it, before any byte (see `scan`).
                for b in [lower, lower.to_ascii_uppercase()] {
                    if let Some(c) = self.class.get_mut(usize::from(b)) {
                        *c |= SINGLE_BYTE;
                    }
                    for b1 in 0..=255u8 {
                        Self::set_pair(&mut self.pair_bits, b, b1);
                    }
                }
            }
            (Some(&b0), Some(&b1), None) => {
                self.mark_pair(b0, b1);
                for (c0, c1) in cases(b0, b1) {
                    Self::set_pair(&mut self.short_bits, c0, c1);
                }
                let key = pair_key(triple(0, b0, b1));
                Self::file(&mut self.pairs, &mut self.lists, key, i);
            }
            (Some(&b0), Some(&b1), Some(&b2)) => {
                self.mark_pair(b0, b1);
                let head = u32::from_le_bytes([
                    b0.to_ascii_lowercase(),
                    b1.to_ascii_lowercase(),
                    b2.to_ascii_lowercase(),
                    0,
                ]);
                Self::file(&mut self.heads, &mut self.lists, head_key(head), i);
                #[cfg(test)]
                Self::file(
                    &mut self.triples,
                    &mut self.lists,
                    triple_key(triple(b0, b1, b2)),
                    i,
                );
            }
            // The empty literal is in every text (see `scan`).
            _ => self.empty.insert(i),
        }
        self.words.push(bytes);
        i
    }

    /// Sets the [`Literals::pair_bits`] bit of `b0 b1` in each of their ASCII cases.
    fn mark_pair(&mut self, b0: u8, b1: u8) {
        for (c0, c1) in cases(b0, b1) {
            Self::set_pair(&mut self.pair_bits, c0, c1);
        }
    }

    /// Sets the bit of the pair `b0 b1` in `bits` (indexed as [`Literals::pair_bits`] is).
    fn set_pair(bits: &mut [u64], b0: u8, b1: u8) {
        let bit = usize::from(b1) << 8 | usize::from(b0);
        if let Some(word) = bits.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    }

    /// Adds literal `id` to the list `table[key]` points to (a new list if none).
    fn file(table: &mut [u16], lists: &mut Vec<Vec<usize>>, key: usize, id: usize) {
        let slot = table.get(key).copied().unwrap_or(0);
        let list = if slot == 0 {
            lists.push(Vec::new());
            if let Some(p) = table.get_mut(key) {
                *p = u16::try_from(lists.len()).unwrap_or(0);
            }
            lists.last_mut()
        } else {
            lists.get_mut(usize::from(slot) - 1)
        };
        if let Some(list) = list {
            list.push(id);
        }
    }

    /// Marks in `hit` each literal of the list `slot` points to that `from` starts with.
    fn check(&self, slot: u16, from: &[u8], hit: &mut LitSet) {
        let Some(list) = usize::from(slot)
            .checked_sub(1)
            .and_then(|l| self.lists.get(l))
        else {
            return;
        };
        for &id in list {
            if !hit.contains(id)
                && self
                    .words
                    .get(id)
                    .is_some_and(|w| starts_with_lower(from, w))
            {
                hit.insert(id);
            }
        }
    }

    /// Which literals `text` holds (ASCII case-insensitively) and whether it has a long
    /// dotted run. Every position is looked at with the four bytes from it as one
    /// little-endian number (zeros past the end): its first two bytes' [`Literals::pair_bits`]
    /// bit rules out most positions in one test; at the others the one-byte literals of its
    /// first byte are in the text, the two-byte literals are looked up only where
    /// [`Literals::short_bits`] has the pair, and the longer ones by the hash of the first
    /// three bytes ([`Literals::heads`]); each candidate is compared with the text. Equal to
    /// `Literals::scan_reference` (tests).
    fn scan(&self, text: &str) -> Presence {
        let bytes = text.as_bytes();
        let mut hit = self.empty;
        // The tables at their fixed sizes (absent while no literal is added): every index
        // below is in range by its type, so no bound is tested per position.
        let tables: Option<Tables> = self
            .pair_bits
            .as_slice()
            .try_into()
            .ok()
            .zip(self.short_bits.as_slice().try_into().ok())
            .zip(self.pairs.as_slice().try_into().ok())
            .zip(self.heads.as_slice().try_into().ok())
            .map(|(((bits, short), pairs), heads)| Tables {
                bits,
                short,
                pairs,
                heads,
            });
        if let Some(tables) = tables {
            let mut i = 0;
            loop {
                i = next_candidate(tables.bits, bytes, i);
                let Some(from) = bytes.get(i..).filter(|f| !f.is_empty()) else {
                    break;
                };
                // The four bytes from `i`, with zeros past the end: a zero only ever adds a
                // candidate, which is compared with the text.
                let four = match from {
                    &[b0, b1, b2, b3, ..] => [b0, b1, b2, b3],
                    _ => {
                        let mut four = [0u8; 4];
                        for (to, &b) in four.iter_mut().zip(from) {
                            *to = b;
                        }
                        four
                    }
                };
                self.scan_at(&tables, from, four, &mut hit);
                i += 1;
            }
        }
        Presence {
            hit,
            long_dotted_run: self.has_long_dotted_run(text),
        }
    }

    /// [`Literals::scan`] at a position whose pair bit is set: `from` is the text from it,
    /// `four` its first four bytes (zeros past the end).
    #[inline(always)]
    fn scan_at(&self, t: &Tables, from: &[u8], four: [u8; 4], hit: &mut LitSet) {
        let [b0, b1, ..] = four;
        let word = u32::from_le_bytes(four);
        let pair = (word & 0xFFFF) as usize;
        if self
            .class
            .get(usize::from(b0))
            .is_some_and(|c| c & SINGLE_BYTE != 0)
        {
            let lower = b0.to_ascii_lowercase();
            for &(single, id) in &self.singles {
                if single == lower {
                    hit.insert(id);
                }
            }
        }
        if t.short
            .get(pair >> 6)
            .is_some_and(|w| w >> (pair & 63) & 1 != 0)
        {
            let slot = t
                .pairs
                .get(pair_key(triple(0, b0, b1)))
                .copied()
                .unwrap_or(0);
            if slot != 0 {
                self.check(slot, from, hit);
            }
        }
        let slot = t.heads.get(head_key(word)).copied().unwrap_or(0);
        if slot != 0 {
            self.check(slot, from, hit);
        }
    }

    /// Some `.` of `bytes` follows [`DOTTED_RUN`] or more `[A-Za-z0-9_-]`: the `.`s are
    /// found by `memchr` and only the bytes before each are looked at.
    fn has_long_dotted_run(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let token = |b: &u8| {
            self.class
                .get(usize::from(*b))
                .is_some_and(|c| c & TOKEN_BYTE != 0)
        };
        memchr::memchr_iter(b'.', bytes).any(|dot| {
            dot.checked_sub(DOTTED_RUN)
                .and_then(|start| bytes.get(start..dot))
                .is_some_and(|run| run.iter().all(token))
        })
    }

    /// The scan as first written (one pass, a hash lookup per position): the reference
    /// [`Literals::scan`] is tested against.
    #[cfg(test)]
    fn scan_reference(&self, text: &str) -> Presence {
        let bytes = text.as_bytes();
        // An empty literal is in every text.
        let mut hit = self.empty;
        let mut run = 0usize;
        let mut long_dotted_run = false;
        // The lowercase bytes ending at the current one (the earlier ones in the higher bytes).
        let mut last3 = 0u32;
        for (i, &b) in bytes.iter().enumerate() {
            let lower = b.to_ascii_lowercase();
            last3 = (last3 << 8 | u32::from(lower)) & 0xFF_FFFF;
            if b == b'.' && run >= DOTTED_RUN {
                long_dotted_run = true;
            }
            let class = self.class.get(usize::from(b)).copied().unwrap_or(0);
            run = if class & TOKEN_BYTE != 0 { run + 1 } else { 0 };
            if class & SINGLE_BYTE != 0 {
                for &id in self.single.get(usize::from(lower)).map_or(&[][..], |l| l) {
                    hit.insert(id);
                }
            }
            if i >= 1 {
                let slot = self
                    .pairs
                    .get(pair_key(last3 & 0xFFFF))
                    .copied()
                    .unwrap_or(0);
                if slot != 0 {
                    self.check(slot, bytes.get(i - 1..).unwrap_or(&[]), &mut hit);
                }
            }
            if i >= 2 {
                let slot = self.triples.get(triple_key(last3)).copied().unwrap_or(0);
                if slot != 0 {
                    self.check(slot, bytes.get(i - 2..).unwrap_or(&[]), &mut hit);
                }
            }
        }
        Presence {
            hit,
            long_dotted_run,
        }
    }
}

/// Bits of the [`Literals`] lookup keys (4096 slots per table).
const KEY_BITS: u32 = 12;

/// [`Literals::pair_bits`] at its size: one bit per pair of bytes.
type PairBits = [u64; 1 << 10];
/// [`Literals::pairs`] and [`Literals::heads`] at their size.
type KeyTable = [u16; 1 << KEY_BITS];

/// The tables [`Literals::scan`] looks up, at their sizes.
struct Tables<'a> {
    bits: &'a PairBits,
    short: &'a PairBits,
    pairs: &'a KeyTable,
    heads: &'a KeyTable,
}

/// The first position from `from` on whose two bytes (a zero past the end) have their
/// [`Literals::pair_bits`] bit set in `bits`, or `bytes.len()`. Out of line, so that this loop,
/// which looks at every byte, has the registers to itself.
#[inline(never)]
fn next_candidate(bits: &PairBits, bytes: &[u8], from: usize) -> usize {
    let rest = bytes.get(from..).unwrap_or(&[]);
    let set = |pair: usize| {
        bits.get(pair >> 6)
            .is_some_and(|w| w >> (pair & 63) & 1 != 0)
    };
    for (k, two) in rest.windows(2).enumerate() {
        if let &[b0, b1] = two {
            if set(usize::from(u16::from_le_bytes([b0, b1]))) {
                return from + k;
            }
        }
    }
    // The last byte, with a zero after it.
    match rest.last() {
        Some(&b) if set(usize::from(b)) => bytes.len() - 1,
        _ => bytes.len(),
    }
}

/// The four pairs of the ASCII cases of `b0` and `b1`.
fn cases(b0: u8, b1: u8) -> [(u8, u8); 4] {
    let (l0, u0) = (b0.to_ascii_lowercase(), b0.to_ascii_uppercase());
    let (l1, u1) = (b1.to_ascii_lowercase(), b1.to_ascii_uppercase());
    [(l0, l1), (l0, u1), (u0, l1), (u0, u1)]
}

/// The hash that indexes [`Literals::heads`]: of the first three bytes of `word` (the bytes
/// from a position, little-endian), each with bit 5 set. An ASCII letter and its lowercase
/// agree there, and any other byte is the same in both, so a text byte that equals a
/// literal's byte lowercased hashes as that byte does.
fn head_key(word: u32) -> usize {
    ((word << 8 | 0x2020_2000).wrapping_mul(0x9E37_79B1) >> (32 - KEY_BITS)) as usize
}

/// The hash of two case-folded bytes (`b0 << 8 | b1`) that indexes [`Literals::pairs`].
fn pair_key(pair: u32) -> usize {
    (pair.wrapping_mul(0x9E37_79B1) >> (32 - KEY_BITS)) as usize
}

/// Three bytes, ASCII case-folded, in one number (the first in the highest byte).
fn triple(b0: u8, b1: u8, b2: u8) -> u32 {
    u32::from(b0.to_ascii_lowercase()) << 16
        | u32::from(b1.to_ascii_lowercase()) << 8
        | u32::from(b2.to_ascii_lowercase())
}

/// The hash of a [`triple`] that indexes [`Literals::triples`] (multiplicative: the high
/// bits of the product mix all three bytes). The reference scan's.
#[cfg(test)]
fn triple_key(triple: u32) -> usize {
    (triple.wrapping_mul(0x9E37_79B1) >> (32 - KEY_BITS)) as usize
}

/// Some line of `text` holds four `:` or more (the `.pgpass` shape).
fn has_colon_line(text: &str) -> bool {
    // (perf, session 7: the `:` and newlines found by `memchr2`; `has_colon_line_reference`
    // is the body before.)
    let bytes = text.as_bytes();
    let mut colons = 0;
    memchr::memchr2_iter(b':', b'\n', bytes).any(|i| {
        if bytes.get(i) == Some(&b'\n') {
            colons = 0;
            false
        } else {
            colons += 1;
            colons >= 4
        }
    })
}

/// [`has_colon_line`] as it was before session 7: the reference of the tests.
#[cfg(test)]
fn has_colon_line_reference(text: &str) -> bool {
    text.split('\n')
        .any(|line| line.bytes().filter(|&b| b == b':').count() >= 4)
}

/// `text` holds [`HEX_RUN`] or more `[a-f0-9]` in a row (the Airtable shape).
fn has_hex_run(text: &str) -> bool {
    let mut run = 0usize;
    text.bytes().any(|b| {
        run = if b.is_ascii_digit() || (b'a'..=b'f').contains(&b) {
            run + 1
        } else {
            0
        };
        run >= HEX_RUN
    })
}

/// `text` lowercased (ASCII) starts with `word`.
fn starts_with_lower(text: &[u8], word: &[u8]) -> bool {
    text.len() >= word.len()
        && text
            .iter()
            .zip(word)
            .all(|(t, w)| t.to_ascii_lowercase() == *w)
}

/// `text` lowercased (ASCII) contains `word`.
fn contains_lower(text: &[u8], word: &[u8]) -> bool {
    let Some(&first) = word.first() else {
        return true;
    };
    text.iter().enumerate().any(|(i, b)| {
        b.to_ascii_lowercase() == first && starts_with_lower(text.get(i..).unwrap_or(&[]), word)
    })
}

impl Presence {
    #[cfg(test)]
    fn any(&self, ids: &[usize]) -> bool {
        ids.iter().any(|&i| self.hit.contains(i))
    }

    /// The text holds a literal of `set`; true without a filter.
    fn any_of(&self, set: &Option<LitSet>) -> bool {
        set.as_ref().is_none_or(|s| self.hit.intersects(s))
    }
}

/// Every pattern the redactor compiles, as written (regex-lite's dialect): each rule's, and each
/// provider key shape wrapped as the shape search runs it. For the test that the `regex`
/// translation finds exactly what regex-lite would (tests/regex_equivalence.rs).
pub fn patterns() -> Vec<String> {
    let redactor = Redactor::new();
    let mut out = Vec::new();
    for rule in &redactor.rules {
        out.push(rule.re.pattern().to_owned());
        for alt in rule.split.iter().flat_map(|s| &s.alts) {
            out.push(alt.re.pattern().to_owned());
        }
    }
    out
}

/// The compiled redaction rules.
#[derive(Debug, Clone)]
pub struct Redactor {
    rules: Vec<Rule>,
    literals: Literals,
    /// What some rule needs before it runs (see [`RuleGate`]); `None`: some rule needs
    /// nothing the scan tells.
    any_pre: Option<RuleGate>,
    /// Per literal id: the rules (bit `i`: `rules[i]`) that need one of a set of literals
    /// holding it, their key (see [`key_set`]); and the rules without such a set. A rule whose
    /// key no literal of a text is in cannot run on it: [`Redactor::run_rules_given`] looks
    /// only at the others.
    key_rules: Vec<u64>,
    keyless_rules: u64,
}

// The rules are indexed by the bits of a `u64` (see `Redactor::key_rules`).
const _: () = assert!(RULES.len() <= 64);

/// The literal set a rule is keyed by in [`Redactor::key_rules`]: one of those it cannot run
/// without (`pre`, `also`, the pair rules' name words, a line rule's words), preferring a set
/// without one-byte literals (`-`, `:`, `(` are in most texts), then the smallest.
fn key_set(rule: &Rule, literals: &Literals) -> Option<LitSet> {
    let line = if rule.line_ids.is_empty() {
        None
    } else {
        rule.line_set
    };
    [rule.pre_set, rule.also_set, rule.name_words, line]
        .into_iter()
        .flatten()
        .min_by_key(|set| {
            let ids: Vec<usize> = set.ids().collect();
            let one_byte = ids
                .iter()
                .any(|&id| literals.words.get(id).is_some_and(|w| w.len() <= 1));
            (one_byte, ids.len())
        })
}

/// A text runs some rule only if it holds one of `literals` (every rule's `pre`, or for a
/// rule without, its `per_line` words) or, when `dotted`, a long dotted run (the Discord
/// shape, which has no literal).
#[derive(Debug, Clone, Copy, Default)]
struct RuleGate {
    literals: LitSet,
    dotted: bool,
}

impl RuleGate {
    fn passes(&self, present: &Presence) -> bool {
        present.hit.intersects(&self.literals) || self.dotted && present.long_dotted_run
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

/// One text redacted inside [`with_memo`]: its redaction and what was hidden.
struct MemoEntry {
    text: String,
    /// `None`: the text is its own redaction.
    out: Option<String>,
    hidden: Vec<String>,
}

/// Texts remembered per memo scope, and the longest remembered.
const MEMO_MAX_ENTRIES: usize = 64;
const MEMO_MAX_TEXT_BYTES: usize = 16 * 1024;

thread_local! {
    /// The memo of the current [`with_memo`] scope (`None` outside one).
    static MEMO: std::cell::RefCell<Option<Vec<MemoEntry>>> = const { std::cell::RefCell::new(None) };
}

/// Most passes [`Redactor::run_rules`] makes to reach a fixed point.
const MAX_PASSES: usize = 4;

/// Runs `f` with a redaction memo: within it, a text redacted again (a command quoted by the
/// reason, a finding detail and the preview) reuses the first result. Redaction is a pure
/// function of the text, so the results are the same; the memo is dropped when `f` returns
/// (one decision), so nothing is kept between calls.
pub fn with_memo<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            if self.0 {
                MEMO.with(|m| *m.borrow_mut() = None);
            }
        }
    }
    let outer = MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_some() {
            false
        } else {
            *m = Some(Vec::new());
            true
        }
    });
    let _reset = Reset(outer);
    f()
}

/// Fragments remembered per call.
const MAX_FRAGMENTS: usize = 64;
/// Shortest fragment remembered (shorter pieces would hide ordinary words).
const MIN_FRAGMENT_CHARS: usize = 6;

impl Redactor {
    pub fn new() -> Redactor {
        // Every pattern is a constant checked by a test and compiled on first use; one that
        // failed to compile would be skipped rather than crash the gate.
        let mut literals = Literals::default();
        let mut rules = RULES
            .iter()
            .map(|r| {
                let pre_ids: Vec<usize> = r.pre.iter().map(|w| literals.id(w)).collect();
                let line_ids: Vec<usize> = r.per_line.iter().map(|w| literals.id(w)).collect();
                let also_ids: Vec<usize> = r.also.iter().map(|w| literals.id(w)).collect();
                Rule {
                    re: LazyRegex::new(r.pattern),
                    check: r.check,
                    per_line: r.per_line,
                    pre_set: LitSet::of(&pre_ids),
                    line_set: LitSet::of(&line_ids),
                    also_set: LitSet::of(&also_ids),
                    #[cfg(test)]
                    pre_ids,
                    line_ids,
                    #[cfg(test)]
                    also_ids,
                    needs_long_dotted_run: r.pattern == DISCORD_PATTERN,
                    needs_colon_line: r.pattern == PGPASS_PATTERN,
                    needs_hex_run: r.pattern == AIRTABLE_PATTERN,
                    needs_at: r.pattern == URL_USERINFO_PATTERN || r.pattern == URL_TOKEN_PATTERN,
                    needs_echo: r.pattern == ECHO_PIPE_PATTERN,
                    needs_separator: r.pattern == ASSIGNMENT_PATTERN,
                    needs_block: r.pattern == BLOCK_SCALAR_PATTERN,
                    needs_continuation: r.pattern == CONTINUED_PATTERN,
                    needs_percent: r.pattern == PERCENT_PATTERN,
                    needs_dotted_key: r.pattern == PROPERTIES_SPACE_PATTERN,
                    name_words: None,
                    split: (r.pattern == SHAPE_PATTERN)
                        .then(|| ShapeSplit::new(shape_alternatives!(), &mut literals)),
                }
            })
            .collect::<Vec<Rule>>();
        // The assignment rule's words, already among the literals (same ids).
        let name_word_ids: Vec<usize> = NAME_WORDS.iter().map(|w| literals.id(w)).collect();
        for (rule, spec) in rules.iter_mut().zip(RULES) {
            if PAIR_PATTERNS.contains(&spec.pattern) {
                rule.name_words = LitSet::of(&name_word_ids);
            }
        }
        let any_pre = rules.iter().try_fold(RuleGate::default(), |mut all, rule| {
            // What `run_rules_given` checks before it runs the rule.
            let needs = match (rule.pre_set, rule.line_set) {
                (Some(pre), _) => Some(pre),
                (None, Some(line)) => Some(line),
                (None, None) if rule.needs_long_dotted_run => None,
                (None, None) => return None,
            };
            match needs {
                Some(set) => {
                    for (a, p) in all.literals.0.iter_mut().zip(set.0) {
                        *a |= p;
                    }
                }
                None => all.dotted = true,
            }
            Some(all)
        });
        let mut key_rules = vec![0u64; literals.words.len()];
        let mut keyless_rules = 0u64;
        for (i, rule) in rules.iter().enumerate() {
            let bit = 1u64 << i;
            match key_set(rule, &literals) {
                Some(set) => {
                    for id in set.ids() {
                        if let Some(mask) = key_rules.get_mut(id) {
                            *mask |= bit;
                        }
                    }
                }
                None => keyless_rules |= bit,
            }
        }
        Redactor {
            rules,
            literals,
            any_pre,
            key_rules,
            keyless_rules,
        }
    }

    /// The rules that may run on a text holding the literals `present` (see
    /// [`Redactor::key_rules`]), one bit each.
    fn candidate_rules(&self, present: &Presence) -> u64 {
        present.hit.ids().fold(self.keyless_rules, |m, id| {
            m | self.key_rules.get(id).copied().unwrap_or(u64::MAX)
        })
    }

    pub fn redact(&self, text: &str) -> String {
        self.run(text, None)
    }

    /// [`Redactor::redact`], borrowing `text` when no rule can match it.
    pub fn redact_cow<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        if may_hold_secret(text) {
            self.run_possible(text, None, true)
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// Redacts and also collects what was hidden (see [`Redactor::secret_fragments`]). Inside
    /// [`with_memo`], each distinct text is redacted once.
    fn run(&self, text: &str, fragments: Option<&mut Vec<String>>) -> String {
        if !may_hold_secret(text) {
            return text.to_owned();
        }
        self.run_possible(text, fragments, true).into_owned()
    }

    /// [`Redactor::run`] for a text [`may_hold_secret`] let through, borrowing `text` when
    /// nothing is hidden.
    /// `remember`: a text not in the memo is added to it (else it is only looked up: for
    /// text redacted once per call, whose copy in the memo would only cost).
    fn run_possible<'t>(
        &self,
        text: &'t str,
        fragments: Option<&mut Vec<String>>,
        remember: bool,
    ) -> std::borrow::Cow<'t, str> {
        use std::borrow::Cow;
        let done = |out: Option<String>| out.map_or(Cow::Borrowed(text), Cow::Owned);
        if text.len() > MEMO_MAX_TEXT_BYTES {
            return done(self.run_rules(text, fragments));
        }
        let known = MEMO.with(|m| {
            m.borrow().as_ref().map(|entries| {
                entries
                    .iter()
                    .find(|e| e.text == text)
                    .map(|e| (e.out.clone(), e.hidden.clone()))
            })
        });
        match known {
            // No memo in scope.
            None => done(self.run_rules(text, fragments)),
            Some(Some((out, hidden))) => {
                if let Some(f) = fragments {
                    f.extend(hidden);
                }
                done(out)
            }
            // Not known, and not to be remembered: as without a memo.
            Some(None) if !remember => done(self.run_rules(text, fragments)),
            Some(None) => {
                let mut hidden = Vec::new();
                let out = self.run_rules(text, Some(&mut hidden));
                MEMO.with(|m| {
                    if let Some(entries) = m.borrow_mut().as_mut() {
                        if entries.len() < MEMO_MAX_ENTRIES {
                            entries.push(MemoEntry {
                                text: text.to_owned(),
                                out: out.clone(),
                                hidden: hidden.clone(),
                            });
                        }
                    }
                });
                if let Some(f) = fragments {
                    f.extend(hidden);
                }
                done(out)
            }
        }
    }

    /// Every rule over `text`, in order; `None` when the result is `text` itself.
    /// Runs the rules until nothing changes (at most [`MAX_PASSES`] passes), so redaction is
    /// idempotent: hiding one secret can change what a rule sees elsewhere (a quote that closed
    /// a value is now inside `[REDACTED]`). A second pass only runs when the first hid
    /// something, so clean text still costs one pass.
    fn run_rules(&self, text: &str, mut fragments: Option<&mut Vec<String>>) -> Option<String> {
        let mut out = self.run_rules_once(text, fragments.as_deref_mut())?;
        let mut passes = 1;
        while passes < MAX_PASSES && out != text {
            let Some(again) = self.run_rules_once(&out, fragments.as_deref_mut()) else {
                break;
            };
            if again == out {
                break;
            }
            out = again;
            passes += 1;
        }
        (out != text).then_some(out)
    }

    /// One pass of every rule over `text`; `None` when no rule changed it.
    fn run_rules_once(&self, text: &str, fragments: Option<&mut Vec<String>>) -> Option<String> {
        let present = self.literals.scan(text);
        if self.any_pre.is_some_and(|gate| !gate.passes(&present)) {
            // No rule's filter passes (each is checked first in `run_rules_given`).
            return None;
        }
        self.run_rules_given(text, present, fragments)
    }

    /// [`Redactor::run_rules_once`] with the literals `text` holds.
    fn run_rules_given(
        &self,
        text: &str,
        mut present: Presence,
        mut fragments: Option<&mut Vec<String>>,
    ) -> Option<String> {
        let mut out: Option<String> = None;
        // The rules a literal of the text keys, in order: any other one would be passed over
        // by its literal filters below (`run_rules_given_reference` looks at each).
        let mut candidates = self.candidate_rules(&present);
        while candidates != 0 {
            let i = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let Some(rule) = self.rules.get(i) else {
                break;
            };
            let cur = out.as_deref().unwrap_or(text);
            if !present.any_of(&rule.pre_set)
                || !present.any_of(&rule.also_set)
                || !present.any_of(&rule.name_words)
            {
                continue;
            }
            if rule.needs_long_dotted_run && !present.long_dotted_run
                || rule.needs_colon_line && !has_colon_line(cur)
                || rule.needs_hex_run && !has_hex_run(cur)
                || !rule.text_gate(cur)
            {
                continue;
            }
            let changed = if rule.line_ids.is_empty() {
                apply(rule, cur, Some(&present), fragments.as_deref_mut())
            } else if present.any_of(&rule.line_set) {
                // A text of one line holds one of the rule's words: the scan just found it.
                // A line of a longer one can only hold the words the text holds.
                let one_line = memchr::memchr(b'\n', cur.as_bytes()).is_none();
                apply_lines(
                    rule,
                    cur,
                    one_line,
                    Some(&present),
                    fragments.as_deref_mut(),
                )
            } else {
                // No line holds one of the rule's words.
                None
            };
            if let Some(changed) = changed {
                present = self.literals.scan(&changed);
                out = Some(changed);
                // The rules after this one that the new text's literals key.
                candidates = self.candidate_rules(&present)
                    & u64::MAX.checked_shl(1 + i as u32).unwrap_or(0);
            }
        }
        out
    }

    /// [`Redactor::run_rules_given`] as it was before [`Redactor::key_rules`] (session 7):
    /// every rule in turn, each passed over by its own filters. The reference of the tests.
    #[cfg(test)]
    fn run_rules_given_reference(
        &self,
        text: &str,
        mut present: Presence,
        mut fragments: Option<&mut Vec<String>>,
    ) -> Option<String> {
        let mut out: Option<String> = None;
        for rule in &self.rules {
            let cur = out.as_deref().unwrap_or(text);
            if !present.any_of(&rule.pre_set)
                || !present.any_of(&rule.also_set)
                || !present.any_of(&rule.name_words)
            {
                continue;
            }
            if rule.needs_long_dotted_run && !present.long_dotted_run
                || rule.needs_colon_line && !has_colon_line(cur)
                || rule.needs_hex_run && !has_hex_run(cur)
                || !rule.text_gate(cur)
            {
                continue;
            }
            let changed = if rule.line_ids.is_empty() {
                apply(rule, cur, Some(&present), fragments.as_deref_mut())
            } else if present.any_of(&rule.line_set) {
                let one_line = !cur.contains('\n');
                apply_lines(rule, cur, one_line, None, fragments.as_deref_mut())
            } else {
                None
            };
            if let Some(changed) = changed {
                present = self.literals.scan(&changed);
                out = Some(changed);
            }
        }
        out
    }

    /// Redacts and counts the secrets hidden (for the output guard).
    pub fn redact_counted(&self, text: &str) -> (String, usize) {
        let mut hidden = Vec::new();
        let out = self.run(text, Some(&mut hidden));
        (out, hidden.len())
    }

    /// Redacts text that will be shown cut to `max_chars`: only the first `max_chars` plus a
    /// margin are examined, so the cost is bounded, and a secret that starts inside the shown
    /// part is still seen whole (up to the margin) before the cut.
    pub fn redact_bounded(&self, text: &str, max_chars: usize) -> String {
        self.redact(head(text, max_chars))
    }

    /// Collects the pieces of `text` that redaction hides (each at least 6 characters, split
    /// on whitespace and quotes), so that a piece quoted elsewhere without the context that
    /// marked it as a secret (a PEM body line, the value after `--token`) can be hidden there
    /// too. At most `MAX_FRAGMENTS` pieces are kept.
    pub fn secret_fragments(&self, text: &str, out: &mut Vec<String>) {
        if !may_hold_secret(text) {
            // No rule can match: nothing is hidden.
            return;
        }
        let mut raw = Vec::new();
        self.run_possible(text, Some(&mut raw), true);
        for secret in raw {
            for piece in secret
                .split(|c: char| c.is_whitespace() || "\"'`,;".contains(c))
                .map(|p| p.trim_end_matches("\\n").trim_start_matches("\\n"))
                .flat_map(|p| p.split("\\n"))
                .filter(|p| p.chars().count() >= MIN_FRAGMENT_CHARS && !is_marker_word(p))
            {
                if out.len() >= MAX_FRAGMENTS {
                    return;
                }
                if !out.iter().any(|o| o == piece) {
                    out.push(piece.to_owned());
                }
            }
        }
    }

    /// Hides every secret fragment in `text`, also a piece of one (8 characters or more) cut
    /// short where the text quoted it (`…`): each run of characters covered by an 8-character
    /// window of some fragment becomes [`REDACTED`]. Fragments shorter than 8 characters are
    /// hidden where they occur whole.
    pub fn scrub(&self, text: &str, fragments: &[String]) -> String {
        if fragments.is_empty() {
            return text.to_owned();
        }
        self.scrub_some(text, fragments)
    }

    /// [`Redactor::scrub`], keeping `text` as it is when there is nothing to scrub.
    pub fn scrub_cow<'t>(
        &self,
        text: std::borrow::Cow<'t, str>,
        fragments: &[String],
    ) -> std::borrow::Cow<'t, str> {
        if fragments.is_empty() {
            return text;
        }
        std::borrow::Cow::Owned(self.scrub_some(&text, fragments))
    }

    /// [`Redactor::redact_bounded_cow`] (the same result), for a text redacted once in a
    /// [`with_memo`] scope: looked up in the memo but not added to it. (Session 7: a finding's
    /// detail and the reason are redacted once per decision, the preview told so; their copies
    /// in the memo only cost.)
    pub fn redact_bounded_cow_once<'t>(
        &self,
        text: &'t str,
        max_chars: usize,
    ) -> std::borrow::Cow<'t, str> {
        let text = head(text, max_chars);
        if may_hold_secret(text) {
            self.run_possible(text, None, false)
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// [`Redactor::redact_bounded`] as a [`std::borrow::Cow`]: borrowed when nothing is hidden
    /// and nothing cut.
    pub fn redact_bounded_cow<'t>(
        &self,
        text: &'t str,
        max_chars: usize,
    ) -> std::borrow::Cow<'t, str> {
        self.redact_cow(head(text, max_chars))
    }

    /// [`Redactor::scrub`] with at least one fragment.
    fn scrub_some(&self, text: &str, fragments: &[String]) -> String {
        let mut out = text.to_owned();
        for f in fragments.iter().filter(|f| f.chars().count() < WINDOW) {
            if out.contains(f.as_str()) {
                out = out.replace(f.as_str(), REDACTED);
            }
        }
        let mut windows = std::collections::HashSet::new();
        for f in fragments {
            let chars: Vec<char> = f.chars().collect();
            for w in chars.windows(WINDOW) {
                windows.insert(w.iter().collect::<String>());
            }
        }
        if windows.is_empty() {
            return out;
        }
        let chars: Vec<char> = out.chars().collect();
        let mut covered = vec![false; chars.len()];
        for (i, w) in chars.windows(WINDOW).enumerate() {
            if windows.contains(&w.iter().collect::<String>()) {
                for c in covered.iter_mut().skip(i).take(WINDOW) {
                    *c = true;
                }
            }
        }
        if !covered.contains(&true) {
            return out;
        }
        let mut result = String::with_capacity(out.len());
        let mut in_run = false;
        for (c, hidden) in chars.iter().zip(covered) {
            if hidden {
                if !in_run {
                    result.push_str(REDACTED);
                }
            } else {
                result.push(*c);
            }
            in_run = hidden;
        }
        result
    }
}

/// Length of the pieces [`Redactor::scrub`] recognizes a fragment by.
const WINDOW: usize = 8;

/// Applies a line-bound rule to the lines of `text` that hold one of its words (ASCII
/// case-insensitively); `None` when nothing changed. `words_known`: the caller already knows
/// that every line holds one (a one-line text whose literal scan found one).
/// `in_text`, when given, is the scan of `text`: a line is searched only for the rule's words
/// the text holds (a line holds no word its text does not), not for every one.
fn apply_lines(
    rule: &Rule,
    text: &str,
    words_known: bool,
    in_text: Option<&Presence>,
    mut fragments: Option<&mut Vec<String>>,
) -> Option<String> {
    // The rule's words a line may hold, one bit each (of the first 64; any past them is
    // always searched). (perf, session 9: a multi-line text searched each line for every
    // word, e.g. all of `NAME_WORDS` in each line of a patch that holds one of them.)
    let words: u64 = match in_text {
        // Not searched.
        _ if words_known => 0,
        Some(present) => rule
            .line_ids
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, id)| present.hit.contains(**id))
            .fold(0, |m, (k, _)| m | 1 << k),
        None => u64::MAX
            .checked_shr(64u32.saturating_sub(rule.per_line.len() as u32))
            .unwrap_or(0),
    };
    let line_holds_a_word = |line: &str| {
        let mut rest = words;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if rule
                .per_line
                .get(k)
                .is_some_and(|w| contains_lower(line.as_bytes(), w.as_bytes()))
            {
                return true;
            }
        }
        rule.per_line
            .iter()
            .skip(64)
            .any(|w| contains_lower(line.as_bytes(), w.as_bytes()))
    };
    // The text is copied only once a line changes (session 7; `apply_lines_reference` built
    // the copy line by line).
    let mut out: Option<String> = None;
    // Where the current line starts, and how much of `text` is in `out`.
    let (mut at, mut copied) = (0, 0);
    // The lines with their `\n` (as `split_inclusive('\n')` gives them), found by `memchr`.
    while at < text.len() {
        let start = at;
        at = memchr::memchr(b'\n', text.as_bytes().get(start..).unwrap_or(&[]))
            .map_or(text.len(), |i| start + i + 1);
        let line = text.get(start..at).unwrap_or("");
        let hit = (!rule.needs_separator || assignment_may_redact(line))
            && (words_known || line_holds_a_word(line));
        if let Some(new) = hit
            .then(|| apply(rule, line, None, fragments.as_deref_mut()))
            .flatten()
        {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
            o.push_str(text.get(copied..start).unwrap_or(""));
            o.push_str(&new);
            copied = at;
        }
    }
    out.map(|mut o| {
        o.push_str(text.get(copied..).unwrap_or(""));
        o
    })
}

/// [`apply_lines`] as it was before session 7: the reference of the tests.
#[cfg(test)]
fn apply_lines_reference(
    rule: &Rule,
    text: &str,
    words_known: bool,
    mut fragments: Option<&mut Vec<String>>,
) -> Option<String> {
    let mut out = String::new();
    let mut changed = false;
    for line in text.split_inclusive('\n') {
        let hit = (!rule.needs_separator || assignment_may_redact(line))
            && (words_known
                || rule
                    .per_line
                    .iter()
                    .any(|w| contains_lower(line.as_bytes(), w.as_bytes())));
        match hit
            .then(|| apply(rule, line, None, fragments.as_deref_mut()))
            .flatten()
        {
            Some(new) => {
                out.push_str(&new);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// Words one of which a name the assignment rule redacts for holds (ASCII case-insensitively),
/// each ending a component: [`is_secret_name`] needs a component that ends with a
/// [`SECRET_SUFFIXES`] entry, is a [`SECRET_WORDS`] entry, or is `key`/`keys`/`phrase` after a
/// qualifier; [`is_auth_name`] a last component `auth`. (Looked for as [`NAME_END_WORDS`].)
#[cfg(test)]
const ASSIGNED_NAME_WORDS: [&[u8]; 4] = [b"key", b"keys", b"phrase", b"auth"];

/// Longest qualified name (see [`qualified_start`]) read back from a name: the bytes before
/// it are only words to judge it by, and each match reads back a bounded stretch.
const QUALIFIED_NAME_MAX: usize = 128;

/// The bytes of a qualified name: the name characters of [`ASSIGNMENT_PATTERN`] and the
/// separators of the segments before it: `:` `/` (`Db:Password`, `app/pat/value`), subscripts
/// and their quotes (`cfg['db']["pat"]`, `user[password]`, escaped as `\"`).
const fn qualified_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'.' | b'-' | b':' | b'/' | b'[' | b']' | b'\'' | b'"' | b'\\'
        )
}

/// Where the qualified name that ends with the name at `name_start` begins: the run of
/// [`qualified_name_byte`]s before it (at most [`QUALIFIED_NAME_MAX`] bytes back), so
/// `x.pat.y`, `Db:Pat:Value`, `app/pat/value` and `cfg['pat']['value']` are judged whole.
fn qualified_start(text: &str, name_start: usize) -> usize {
    let b = text.as_bytes();
    let floor = name_start.saturating_sub(QUALIFIED_NAME_MAX);
    let mut start = name_start;
    while start > floor && b.get(start - 1).is_some_and(|&c| qualified_name_byte(c)) {
        start -= 1;
    }
    start
}

/// `name` holds `word` (ASCII case-insensitively) at the end of a component as [`components`]
/// splits it: before a byte that is not alphanumeric, the end, or an upper-case letter after a
/// lower-case one or a digit. (`pat` in `x.pat.y`, `gitlabPatValue`; not in `path`, `PATH`,
/// `passwordless`, `tokenizer`.)
fn holds_at_component_end(name: &[u8], word: &[u8]) -> bool {
    let Some(&first) = word.first() else {
        return true;
    };
    name.iter().enumerate().any(|(i, b)| {
        if b.to_ascii_lowercase() != first || !starts_with_lower(name.get(i..).unwrap_or(&[]), word)
        {
            return false;
        }
        let end = i + word.len();
        match name.get(end) {
            None => true,
            Some(&next) => {
                !next.is_ascii_alphanumeric()
                    || (next.is_ascii_uppercase()
                        && name
                            .get(end - 1)
                            .is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()))
            }
        }
    })
}

/// Whether the assignment rule can redact anything in `line`: its match is a name right before
/// a separator (`\?["']?]?[ \t]*` then `=`, `:`, `?=`, `+=`, `||=`, …), and it redacts only for a secret name or
/// qualified name (the segments before the name, see [`qualified_start`]), which holds one of
/// the words above at the end of a component. So some `=` or `:` must follow (past blanks) a
/// run of [`qualified_name_byte`]s holding such a word; a line without one is left as it is,
/// without running the regex.
///
/// Linear: the words are alphanumeric and the check of each ends at a byte that is not (or the
/// name's end, which counts the same), so a name holds one exactly when one of its pieces
/// between such bytes does. The `:` inside a run were candidates already, their names (the run
/// before them) held none, so each candidate only reads back to the last `:`.
fn assignment_may_redact(line: &str) -> bool {
    // (perf, session 7: the candidates found by `memchr2`, the words of `NAME_END_WORDS`
    // with their pair bits made once. `assignment_may_redact_reference` is the body before.)
    let b = line.as_bytes();
    let before = |i: usize| i.checked_sub(1).and_then(|j| b.get(j)).copied();
    memchr::memchr2_iter(b'=', b':', b).any(|k| {
        let mut end = k;
        // `?=` `??=` `+=` `||=` (`::=` and `:=` are candidates at their `:`).
        if b.get(k) == Some(&b'=') {
            for _ in 0..2 {
                if matches!(before(end), Some(b'?' | b'+' | b'|')) {
                    end -= 1;
                }
            }
        }
        while matches!(before(end), Some(b' ' | b'\t')) {
            end -= 1;
        }
        let mut start = end;
        while before(start).is_some_and(|p| p != b':' && qualified_name_byte(p)) {
            start -= 1;
        }
        may_be_secret_name(b.get(start..end).unwrap_or(&[]))
    })
}

/// The words [`may_be_secret_name`] looks for: those of [`SECRET_SUFFIXES`],
/// [`SECRET_WORDS`] and `ASSIGNED_NAME_WORDS` that do not end with another of them (a name
/// holding `storepass` at a component's end holds `pass` there: the same end, so the same
/// test after it), each with the [`pair_bit`]s of its first and last two bytes. A test
/// derives the list from those three.
const NAME_END_WORDS: [(&[u8], u64); 23] = [
    (b"password", pair_bits_of(b"password")),
    (b"passwd", pair_bits_of(b"passwd")),
    (b"token", pair_bits_of(b"token")),
    (b"secret", pair_bits_of(b"secret")),
    (b"credentials", pair_bits_of(b"credentials")),
    (b"pass", pair_bits_of(b"pass")),
    (b"pw", pair_bits_of(b"pw")),
    (b"pwd", pair_bits_of(b"pwd")),
    (b"otp", pair_bits_of(b"otp")),
    (b"passcode", pair_bits_of(b"passcode")),
    (b"sig", pair_bits_of(b"sig")),
    (b"signature", pair_bits_of(b"signature")),
    (b"cookie", pair_bits_of(b"cookie")),
    (b"creds", pair_bits_of(b"creds")),
    (b"credential", pair_bits_of(b"credential")),
    (b"pat", pair_bits_of(b"pat")),
    (b"psk", pair_bits_of(b"psk")),
    (b"mnemonic", pair_bits_of(b"mnemonic")),
    (b"bearer", pair_bits_of(b"bearer")),
    (b"key", pair_bits_of(b"key")),
    (b"keys", pair_bits_of(b"keys")),
    (b"phrase", pair_bits_of(b"phrase")),
    (b"auth", pair_bits_of(b"auth")),
];

/// The [`pair_bit`]s of the first two and the last two bytes of `w`, for constants (0 for a
/// shorter `w`): a name holding `w` holds both pairs.
const fn pair_bits_of(w: &[u8]) -> u64 {
    const fn bit(a: u8, b: u8) -> u64 {
        let a = a.to_ascii_lowercase() as u32;
        let b = b.to_ascii_lowercase() as u32;
        1u64 << ((a.wrapping_mul(31).wrapping_add(b)) % 64)
    }
    let first = match w {
        [a, b, ..] => bit(*a, *b),
        _ => 0,
    };
    let last = match w {
        [.., a, b] => bit(*a, *b),
        _ => 0,
    };
    first | last
}

/// Whether `name` holds a word a secret name needs, at the end of a component: true for every
/// name [`is_secret_name`] or [`is_auth_name`] accepts (and for some others).
fn may_be_secret_name(name: &[u8]) -> bool {
    if name.len() < 2 {
        // Every word has two bytes or more.
        return false;
    }
    // The name's lowercase byte pairs, hashed into 64 bits: a word whose first pair is not
    // there cannot be in the name (a hash collision only costs the full comparison).
    let pairs = name.windows(2).fold(0u64, |m, w| {
        m | pair_bit(w.first().copied(), w.get(1).copied())
    });
    NAME_END_WORDS
        .iter()
        .any(|&(w, bits)| pairs & bits == bits && holds_at_component_end(name, w))
}

/// [`assignment_may_redact`] as it was before session 7: the reference of the tests.
#[cfg(test)]
fn assignment_may_redact_reference(line: &str) -> bool {
    let b = line.as_bytes();
    let before = |i: usize| i.checked_sub(1).and_then(|j| b.get(j)).copied();
    b.iter().enumerate().any(|(k, &c)| {
        if c != b'=' && c != b':' {
            return false;
        }
        let mut end = k;
        if c == b'=' {
            for _ in 0..2 {
                if matches!(before(end), Some(b'?' | b'+' | b'|')) {
                    end -= 1;
                }
            }
        }
        while matches!(before(end), Some(b' ' | b'\t')) {
            end -= 1;
        }
        let mut start = end;
        while before(start).is_some_and(|p| p != b':' && qualified_name_byte(p)) {
            start -= 1;
        }
        may_be_secret_name_reference(b.get(start..end).unwrap_or(&[]))
    })
}

/// [`may_be_secret_name`] as it was before session 7 (every word of the three lists).
#[cfg(test)]
fn may_be_secret_name_reference(name: &[u8]) -> bool {
    if name.len() < 2 {
        return false;
    }
    let pairs = name.windows(2).fold(0u64, |m, w| {
        m | pair_bit(w.first().copied(), w.get(1).copied())
    });
    let holds = |w: &[u8]| {
        pairs & pair_bit(w.first().copied(), w.get(1).copied()) != 0
            && holds_at_component_end(name, w)
    };
    SECRET_SUFFIXES
        .iter()
        .chain(SECRET_WORDS.iter())
        .any(|w| holds(w.as_bytes()))
        || ASSIGNED_NAME_WORDS.iter().any(|w| holds(w))
}

/// One of 64 bits for a byte pair, ASCII case-folded (see [`assignment_may_redact`]).
fn pair_bit(a: Option<u8>, b: Option<u8>) -> u64 {
    let a = u32::from(a.unwrap_or(0).to_ascii_lowercase());
    let b = u32::from(b.unwrap_or(0).to_ascii_lowercase());
    1u64 << ((a.wrapping_mul(31).wrapping_add(b)) % 64)
}

/// Applies one rule to `text`; `None` when nothing changed. After a match that is not a
/// secret, the search resumes at its value, so `--from-literal=password=x` still finds
/// `password=x`.
fn apply(
    rule: &Rule,
    text: &str,
    present: Option<&Presence>,
    mut fragments: Option<&mut Vec<String>>,
) -> Option<String> {
    let mut out = String::new();
    let mut last = 0usize;
    let mut pos = 0usize;
    let mut changed = false;
    while pos <= text.len() {
        let found = match (&rule.split, present) {
            (Some(split), Some(present)) => split.captures_at(text, pos, present),
            _ => rule.re.get().and_then(|re| re.captures_at(text, pos)),
        };
        let Some(caps) = found else {
            break;
        };
        let Some(m) = caps.get(0) else {
            break;
        };
        // The assignment rule judges the name with the segments before it too.
        let qualified = caps
            .name("n")
            .filter(|_| rule.needs_separator)
            .and_then(|n| {
                let from = qualified_start(text, n.start());
                (from < n.start())
                    .then(|| text.get(from..n.end()))
                    .flatten()
            });
        // `password:db: value`, `auth:token:db = value` (a name of `:` segments, then the
        // separator): the first `:` is not the separator; the match at a later segment judges
        // the whole name.
        let inner_colon = rule.needs_separator
            && caps.name("sep").is_some_and(|sep| sep.as_str() == ":")
            && caps.name("s").is_some_and(|v| {
                let rest = text.get(v.end()..).unwrap_or("");
                let after = rest.trim_start_matches([' ', '\t']);
                v.as_str()
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_.-:".contains(&c))
                    && (v.as_str().ends_with(':') && after.len() < rest.len() && !after.is_empty()
                        || ["=", ":", "?=", "??=", "+=", "||="]
                            .iter()
                            .any(|op| after.starts_with(op)))
            });
        let verdict = if inner_colon {
            None
        } else if rule.check.reads_text() {
            decide_in_text(rule.check, text, &caps)
        } else {
            decide(rule.check, &caps, qualified)
        };
        let next = match verdict {
            Some((start, end, replacement)) if start >= last && end > start => {
                out.push_str(text.get(last..start).unwrap_or(""));
                out.push_str(replacement);
                if let Some(f) = fragments.as_deref_mut() {
                    f.push(text.get(start..end).unwrap_or("").to_owned());
                }
                last = end;
                changed = true;
                if rule.check == Check::Header {
                    // The match may run past the value (escapes outside quotes): resume there.
                    end
                } else {
                    m.end().max(end)
                }
            }
            // Not a secret: resume just before the value, which may hold the next match
            // (one character early, for rules that need the separator before an option).
            _ => caps
                .name("s")
                .map(|s| s.start().saturating_sub(1))
                .filter(|s| *s > m.start() && text.is_char_boundary(*s))
                .unwrap_or(m.end()),
        };
        pos = if next > m.start() {
            next
        } else {
            // An empty or non-advancing match: step over one character.
            m.start()
                + text
                    .get(m.start()..)?
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8)
        };
    }
    if !changed {
        return None;
    }
    out.push_str(text.get(last..).unwrap_or(""));
    Some(out)
}

/// Words that mark a secret rather than being one (`-----BEGIN`, `PRIVATE`, `Authorization`).
fn is_marker_word(piece: &str) -> bool {
    let p = piece
        .trim_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_ascii_lowercase();
    p.is_empty()
        || [
            "begin",
            "end",
            "private",
            "password",
            "passwd",
            "secret",
            "authorization",
            "bearer",
            "basic",
            "token",
            "credential",
            "credentials",
            "openssh",
            "encrypted",
            "api_key",
            "apikey",
            "access_key",
            "secret_key",
            "private_key",
        ]
        .contains(&p.as_str())
        || p.starts_with("begin") && p.ends_with("key")
        || p.starts_with("end") && p.ends_with("key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        let redactor = Redactor::new();
        assert_eq!(redactor.rules.len(), RULES.len());
        for rule in &redactor.rules {
            assert!(
                rule.re.get().is_some(),
                "{:?}",
                crate::preview::pattern::compile(rule.re.pattern()).err()
            );
            for alt in rule.split.iter().flat_map(|s| &s.alts) {
                assert!(alt.re.get().is_some(), "{}", alt.re.pattern());
                // The shapes are case-sensitive: their literal is required in its case.
                assert!(!alt.re.pattern().contains("(?i"), "{}", alt.re.pattern());
            }
        }
    }

    #[test]
    fn redacts_common_shapes() {
        let r = Redactor::new();
        let cases = [
            ("API_KEY=abc123secretvalue", "abc123secretvalue"),
            (r#"{"password": "hunter2"}"#, "hunter2"),
            ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"),
            ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3"),
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "b3BlbnNzaC1rZXk"),
            ("key sk-proj-abcdefghijklmnop1234", "sk-proj-abcdefghijklmnop1234"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            ("AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"),
            ("postgres://admin:s3cr3t@db:5432/x", "s3cr3t"),
            ("xoxb-1234567890-abcdef", "xoxb-1234567890-abcdef"),
            ("mytool --token abcdef123456", "abcdef123456"),
            ("mysql -u root -pS3cretPw db", "S3cretPw"),
            ("mysql --password=S3cretPw db", "S3cretPw"),
            ("curl -u admin:S3cretPw https://x", "S3cretPw"),
            ("sshpass -p S3cretPw ssh h", "S3cretPw"),
            ("docker login -u me -p S3cretPw reg.io", "S3cretPw"),
            ("npm publish --otp=123456", "123456"),
            ("kubectl create secret generic x --from-literal=password=S3cretPw", "S3cretPw"),
        ];
        for (input, secret) in cases {
            let out = r.redact(input);
            assert!(!out.contains(secret), "{input} -> {out}");
            assert_eq!(r.redact(&out), out, "idempotent: {input}");
        }
    }

    #[test]
    fn leaves_look_alikes() {
        let r = Redactor::new();
        for input in [
            "token_count=5",
            "max_tokens: 4096",
            "pg_dump --password-file /run/secrets/db x",
            "API_KEY=${API_KEY}",
            "API_KEY=<YOUR_KEY>",
            "curl -H \"Authorization: Bearer $TOKEN\" https://x",
            "ssh -p 2222 me@host",
            "docker run -p 8080:80 -u 1000:1000 nginx",
            "mysql -u root -p mydb",
            "git show 3f786850e387550fdab836ed7e6dc881de23001b",
            "tokenizer = AutoTokenizer.from_pretrained(\"gpt2\")",
            "password = getpass.getpass()",
            "\"token_type\": \"Bearer\"",
        ] {
            assert_eq!(r.redact(input), input);
        }
    }

    #[test]
    fn npmrc_auth() {
        let r = Redactor::new();
        let out = r.redact(
            "registry=https://npm.example.com/\n_auth=bWU6dmFXZlBTMCNrRDJxYks=\nalways-auth=true\n",
        );
        assert!(is_auth_name("_auth"));
        assert!(auth_value("bWU6dmFXZlBTMCNrRDJxYks="));
        assert!(!out.contains("bWU6dmFX"), "{out}");
    }

    #[test]
    fn names() {
        for n in [
            "api_key",
            "GITHUB_TOKEN",
            "clientSecret",
            "PGPASSWORD",
            "MYSQL_PWD",
            "secretAccessKey",
            "AccountKey",
            "x-api-key",
            "db.password",
            "storepass",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "command",
            "path",
            "token_count",
            "max_tokens",
            "tokenizer",
            "password-file",
            "password_stdin",
            "bypass",
            "sort_key",
            "publicKey",
            "secretName",
            "token_type",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn fragments_catch_a_secret_quoted_without_its_context() {
        let r = Redactor::new();
        let mut frags = Vec::new();
        r.secret_fragments(
            "ssh h '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'",
            &mut frags,
        );
        r.secret_fragments("tool --token s3cr3tvalue99", &mut frags);
        let detail = "runs the script `b3BlbnNzaC1rZXktdjEAAAAA` with s3cr3tvalue99";
        let out = r.scrub(detail, &frags);
        assert!(!out.contains("b3BlbnNzaC1rZXktdjEAAAAA"), "{out}");
        assert!(!out.contains("s3cr3tvalue99"), "{out}");
        assert!(frags.iter().all(|f| !is_marker_word(f)), "{frags:?}");
        assert_eq!(r.scrub("plain text", &frags), "plain text");
    }

    #[test]
    fn the_fast_gate_never_hides_a_rule_match() {
        let r = Redactor::new();
        for rule in &r.rules {
            for sample in [
                "x --token abc",
                "a:b@c",
                "K=v",
                "Bearer abcdefgh",
                "-p x",
                "<a>b</a>",
            ] {
                if rule.re.get().unwrap().is_match(sample) {
                    assert!(may_hold_secret(sample), "{sample}");
                }
            }
        }
        assert!(!may_hold_secret("ls la"));
        assert!(!may_hold_secret("exec runs a shell command on the host"));
    }

    #[test]
    fn the_shape_split_finds_what_the_whole_regex_finds() {
        let r = Redactor::new();
        let rule = r.rules.iter().find(|x| x.split.is_some()).unwrap();
        let split = rule.split.as_ref().unwrap();
        assert_eq!(
            split.alts.len(),
            top_level_alternatives(shape_alternatives!()).len()
        );
        assert!(split.alts.len() > 60);
        assert_eq!(
            required_literal(r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
            "sk-"
        );
        assert_eq!(
            required_literal(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
            ".atlasv1."
        );
        assert_eq!(required_literal(r"(?:AKIA|ASIA)[0-9A-Z]{16}"), "");
        assert_eq!(required_literal(r"xapp-[0-9]-x"), "xapp-");
        assert_eq!(required_literal(r"abc?d"), "ab");
        assert_eq!(
            required_literal_cased(r"sk-(?:ant-)?[A-Z]{20,}"),
            ("sk-".to_owned(), true)
        );
        assert_eq!(
            required_literal_cased(r"[A-Z]{14}\.AtlasV1\.[A-Z]{60,}"),
            (".AtlasV1.".to_owned(), false)
        );
        assert_eq!(required_literal_cased(r"xy?zzz"), ("zzz".to_owned(), false));
        assert_eq!(
            required_literal_cased(r"GR1348941[A-Z]{20,}"),
            ("GR1348941".to_owned(), true)
        );
        let mut texts = crate::testing::secret_texts();
        texts.push("sk-abcdefghijklmnopqrstuvwxyz ghp_0123456789abcdefghijABCDEFGHIJ0123 AKIA0123456789ABCDEF".to_owned());
        // Literal look-alikes: another case, after a word character, inside a word.
        for base in texts.clone() {
            texts.push(base.to_ascii_uppercase());
            texts.push(base.to_ascii_lowercase());
            texts.push(format!("x{base}"));
            texts.push(format!("task-{base} disk-{base}"));
        }
        texts.push("AWS_SECRET_ACCESS_KEY secret_0123456789012345678901234567890123456789abc xsecret_0123456789012345678901234567890123456789abc".to_owned());
        texts.push("task-abcdefghijklmnopqrstuvwxyz0123 sk-abcdefghijklmnopqrstuvwxyz0123 _sk-abcdefghijklmnopqrstuvwxyz0123 é-sk-abcdefghijklmnopqrstuvwxyz0123".to_owned());
        texts.push("xsk_live_0123456789abcdefX sk_live_0123456789abcdef AIzaSyA-0123456789abcdefghijklmnopqrstu".to_owned());
        let mut matched = 0;
        for text in &texts {
            let present = r.literals.scan(text);
            for pos in (0..=text.len()).filter(|p| text.is_char_boundary(*p)) {
                let whole = rule
                    .re
                    .get()
                    .unwrap()
                    .captures_at(text, pos)
                    .and_then(|c| c.get(0))
                    .map(|m| m.range());
                let parts = split
                    .captures_at(text, pos, &present)
                    .and_then(|c| c.get(0))
                    .map(|m| m.range());
                assert_eq!(whole, parts, "{text} at {pos}");
                matched += usize::from(whole.is_some());
            }
        }
        assert!(matched > 100, "{matched}");
    }

    #[test]
    fn a_text_without_any_rule_literal_runs_no_rule() {
        let r = Redactor::new();
        assert!(r.any_pre.is_some());
        let mut texts = shape_texts();
        texts.extend(
            crate::gate::tests::corpus_requests()
                .into_iter()
                .map(|(_, r)| r),
        );
        texts.extend(crate::testing::corpus_request_strings());
        let mut gated = 0;
        for text in &texts {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            assert_eq!(
                r.run_rules_once(text, Some(&mut fast)),
                r.run_rules_given(text, r.literals.scan(text), Some(&mut slow)),
                "{text}"
            );
            assert_eq!(fast, slow, "{text}");
            gated += usize::from(!r.any_pre.unwrap().passes(&r.literals.scan(text)));
        }
        assert!(gated > 100, "{gated}");
    }

    /// [`Redactor::run_rules_given`] (the rules its key literals select) and its reference
    /// (every rule in turn) give the same text and fragments on `text`.
    fn assert_keyed_rules_are_the_reference(r: &Redactor, text: &str) {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        assert_eq!(
            r.run_rules_given(text, r.literals.scan(text), Some(&mut fast)),
            r.run_rules_given_reference(text, r.literals.scan(text), Some(&mut slow)),
            "{text}"
        );
        assert_eq!(fast, slow, "{text}");
    }

    /// Every text of the corpora (secret texts, fuzz regressions, the requests of the bench and
    /// decision corpora and each of their string values), each also redacted once (what a
    /// second pass reads) and line by line.
    fn every_corpus_text() -> Vec<String> {
        let mut texts = shape_texts();
        texts.extend(crate::testing::fuzz_regression_texts());
        let mut requests: Vec<String> = crate::gate::tests::corpus_requests()
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        requests.extend(crate::testing::corpus_request_strings());
        requests.extend(crate::gate::tests::secret_corpus_requests());
        for request in requests {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&request) {
                let mut stack = vec![v];
                while let Some(v) = stack.pop() {
                    match v {
                        serde_json::Value::String(s) => texts.push(s),
                        serde_json::Value::Array(a) => stack.extend(a),
                        serde_json::Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
                        _ => {}
                    }
                }
            }
            texts.push(request);
        }
        let r = Redactor::new();
        for text in texts.clone() {
            texts.extend(text.lines().map(str::to_owned));
            texts.push(r.redact(&text));
        }
        texts.sort();
        texts.dedup();
        texts
    }

    #[test]
    fn the_keyed_rule_loop_is_its_reference_over_every_corpus_text() {
        let r = Redactor::new();
        let texts = every_corpus_text();
        assert!(texts.len() > 5000, "{}", texts.len());
        let mut changed = 0;
        for text in &texts {
            assert_keyed_rules_are_the_reference(&r, text);
            changed += usize::from(r.run_rules_once(text, None).is_some());
        }
        assert!(changed > 500, "{changed}");
        // Every rule is keyed but the Discord shape's (no literal), and no key holds a
        // one-byte literal when the rule has a set without.
        assert_eq!(r.keyless_rules.count_ones(), 1);
        assert!(r
            .rules
            .iter()
            .enumerate()
            .all(|(i, rule)| rule.needs_long_dotted_run == (r.keyless_rules >> i & 1 == 1)));
        let flag = r.rules.iter().position(|x| x.check == Check::Flag).unwrap();
        let dash = r.literals.words.iter().position(|w| w == b"-").unwrap();
        assert_eq!(r.key_rules[dash] >> flag & 1, 0);
    }

    proptest::proptest! {
        /// Rule literals in either case glued to secret-looking values, separators, command
        /// names and newlines: the keyed loop equals the reference.
        #[test]
        fn the_keyed_rule_loop_is_its_reference_on_generated_text(
            parts in proptest::collection::vec(
                (
                    proptest::sample::select(Redactor::new().literals.words.clone()),
                    proptest::bool::ANY,
                    proptest::prop_oneof![
                        "[=: ]{0,2}[A-Za-z0-9_./+-]{0,24}",
                        proptest::sample::select(vec![
                            " ", "=", ": ", "\n", "\"", "'", " -p", " --password ", "://u:",
                            "@h ", " | ", "; ", "mysql ", "name: DB_PASSWORD\n  value: ",
                        ]).prop_map(str::to_owned),
                        "\\PC{0,6}",
                    ],
                ),
                0..10,
            )
        ) {
            let r = Redactor::new();
            let mut text = String::new();
            for (word, upper, glue) in parts {
                let word = String::from_utf8(word).unwrap();
                text.push_str(&if upper { word.to_ascii_uppercase() } else { word });
                text.push_str(&glue);
            }
            assert_keyed_rules_are_the_reference(&r, &text);
            assert_keyed_rules_are_the_reference(&r, &r.redact(&text));
        }
    }

    #[test]
    fn the_name_end_words_are_the_name_words_that_end_no_other() {
        let all: Vec<&[u8]> = SECRET_SUFFIXES
            .iter()
            .chain(SECRET_WORDS.iter())
            .map(|w| w.as_bytes())
            .chain(ASSIGNED_NAME_WORDS)
            .collect();
        let mut minimal: Vec<&[u8]> = all
            .iter()
            .copied()
            .filter(|w| !all.iter().any(|u| u.len() < w.len() && w.ends_with(u)))
            .collect();
        minimal.sort();
        minimal.dedup();
        let mut words: Vec<&[u8]> = NAME_END_WORDS.iter().map(|(w, _)| *w).collect();
        words.sort();
        assert_eq!(words, minimal);
        for (w, bits) in NAME_END_WORDS {
            let n = w.len();
            assert_eq!(
                bits,
                pair_bit(w.first().copied(), w.get(1).copied())
                    | pair_bit(w.get(n - 2).copied(), w.last().copied())
            );
        }
    }

    #[test]
    fn assignment_may_redact_is_its_reference_over_every_corpus_line() {
        let mut lines = 0;
        for text in every_corpus_text() {
            for line in text.split_inclusive('\n') {
                assert_eq!(
                    assignment_may_redact(line),
                    assignment_may_redact_reference(line),
                    "{line:?}"
                );
                lines += usize::from(assignment_may_redact(line));
            }
        }
        assert!(lines > 500, "{lines}");
    }

    proptest::proptest! {
        /// Names made of secret words, look-alikes and separators, in either case.
        #[test]
        fn assignment_may_redact_is_its_reference_on_generated_lines(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(
                        SECRET_SUFFIXES
                            .iter()
                            .chain(SECRET_WORDS.iter())
                            .chain(["keys", "key", "phrase", "auth", "Pass", "TOKEN", "path", "tokenizer"].iter())
                            .map(|w| (*w).to_owned())
                            .collect::<Vec<_>>()
                    ),
                    "[=: \t?+|._\\-\\[\\]'\"/]{1,3}",
                    "[A-Za-z0-9]{0,4}",
                ],
                0..12,
            )
        ) {
            let line = pieces.concat();
            proptest::prop_assert_eq!(
                assignment_may_redact(&line),
                assignment_may_redact_reference(&line),
                "{:?}",
                line
            );
            proptest::prop_assert_eq!(
                may_be_secret_name(line.as_bytes()),
                may_be_secret_name_reference(line.as_bytes())
            );
        }
    }

    /// The line rules and the colon-line test against their references on `text`.
    fn assert_line_helpers_are_their_references(r: &Redactor, text: &str) {
        assert_eq!(
            has_colon_line(text),
            has_colon_line_reference(text),
            "{text:?}"
        );
        for rule in r.rules.iter().filter(|x| !x.line_ids.is_empty()) {
            for known in [false, true] {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                assert_eq!(
                    apply_lines(rule, text, known, None, Some(&mut fast)),
                    apply_lines_reference(rule, text, known, Some(&mut slow)),
                    "{text:?}"
                );
                assert_eq!(fast, slow, "{text:?}");
                // Searching each line only for the words the text holds: the same.
                let (mut given, mut slow) = (Vec::new(), Vec::new());
                assert_eq!(
                    apply_lines(
                        rule,
                        text,
                        known,
                        Some(&r.literals.scan(text)),
                        Some(&mut given)
                    ),
                    apply_lines_reference(rule, text, known, Some(&mut slow)),
                    "{text:?}"
                );
                assert_eq!(given, slow, "{text:?}");
            }
        }
    }

    #[test]
    fn the_line_helpers_are_their_references_over_every_corpus_text() {
        let r = Redactor::new();
        let mut colon_lines = 0;
        for text in every_corpus_text() {
            assert_line_helpers_are_their_references(&r, &text);
            colon_lines += usize::from(has_colon_line(&text));
        }
        assert!(colon_lines > 20, "{colon_lines}");
    }

    proptest::proptest! {
        /// Lines of names, separators, colons and values: the line helpers equal their
        /// references.
        #[test]
        fn the_line_helpers_are_their_references_on_generated_text(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "password", "TOKEN", "api_key", "--token", "secret", "pw", "name",
                        "value", ":", "=", "\n", " ", "\"", "'", "h:5432:db:u:", "x",
                    ]).prop_map(str::to_owned),
                    "[A-Za-z0-9_./+-]{0,16}",
                ],
                0..16,
            )
        ) {
            let r = Redactor::new();
            assert_line_helpers_are_their_references(&r, &pieces.concat());
        }
    }

    /// `find_each` visits the occurrences `str::match_indices` gives.
    fn assert_find_each_is_match_indices(hay: &str, needle: &str) {
        let mut seen = Vec::new();
        find_each(hay.as_bytes(), needle.as_bytes(), |at| {
            seen.push(at);
            false
        });
        let want: Vec<usize> = hay.match_indices(needle).map(|(at, _)| at).collect();
        assert_eq!(seen, want, "{hay:?} {needle:?}");
    }

    #[test]
    fn find_each_visits_what_match_indices_gives() {
        let r = Redactor::new();
        let split = r.rules.iter().find_map(|x| x.split.as_ref()).unwrap();
        let mut needles: Vec<String> = split.alts.iter().flat_map(|a| a.exact.clone()).collect();
        needles.extend(["aa", "aba", "xox", "1//0", "é", "sk-", ""].map(str::to_owned));
        for hay in shape_texts()
            .into_iter()
            .chain(["aaaa", "ababab", "xoxoxox", "1//01//0", "éé", ""].map(str::to_owned))
        {
            for needle in &needles {
                assert_eq!(
                    find_each(hay.as_bytes(), needle.as_bytes(), |_| true),
                    hay.contains(needle.as_str())
                );
                assert_find_each_is_match_indices(&hay, needle);
            }
        }
        assert!(find_each(b"", b"", |_| true));
    }

    proptest::proptest! {
        /// Self-overlapping needles in text made of their pieces.
        #[test]
        fn find_each_visits_what_match_indices_gives_on_generated_text(
            hay in "[ab\\-_.é]{0,24}",
            needle in "[ab\\-_.é]{0,4}",
        ) {
            assert_find_each_is_match_indices(&hay, &needle);
        }

        /// A key the filter turns away is not a secret name.
        #[test]
        fn is_secret_key_is_is_secret_name(
            pieces in proptest::collection::vec(proptest::sample::select(NAME_PIECES), 0..6),
            raw in "\\PC{0,12}",
        ) {
            for n in [pieces.concat(), raw] {
                proptest::prop_assert_eq!(is_secret_key(&n), is_secret_name(&n), "{:?}", n);
            }
        }
    }

    #[test]
    fn is_secret_key_is_is_secret_name_over_every_corpus_text() {
        let mut secret = 0;
        for text in every_corpus_text() {
            for name in std::iter::once(text.as_str()).chain(text.split([' ', '=', ':', '"', '\n']))
            {
                assert_eq!(is_secret_key(name), is_secret_name(name), "{name:?}");
                secret += usize::from(is_secret_key(name));
            }
        }
        assert!(secret > 300, "{secret}");
    }

    #[test]
    fn weak_shape_literals_are_spelled_out() {
        assert_eq!(
            required_literals_cased(r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"),
            (
                vec!["AKIA".into(), "ASIA".into(), "ABIA".into(), "ACCA".into()],
                true
            )
        );
        assert_eq!(
            required_literals_cased(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
            (
                vec![
                    "sk_live_".into(),
                    "sk_test_".into(),
                    "rk_live_".into(),
                    "rk_test_".into()
                ],
                true
            )
        );
        assert_eq!(
            required_literals_cased(r"gl(?:c|sa)_[A-Z]{32,}"),
            (vec!["glc_".into(), "glsa_".into()], true)
        );
        // A quantified group or character spells nothing; a strong literal is kept.
        assert_eq!(
            required_literals_cased(r"(?:ab|cd)?[A-Z]{3}"),
            (Vec::new(), false)
        );
        assert_eq!(
            required_literals_cased(r"x(?:ab|cd)e?[A-Z]{3}"),
            (vec!["xab".into(), "xcd".into()], true)
        );
        assert_eq!(
            required_literals_cased(r"[A-Z]{3}_(?:ab|cd)\.[A-Z]"),
            (vec!["_ab.".into(), "_cd.".into()], false)
        );
        assert_eq!(
            required_literals_cased(r"sk-(?:ant-)?[A-Z]{20,}"),
            (vec!["sk-".into()], true)
        );
    }

    /// Texts around the provider key shapes: each shape's own examples and look-alikes.
    fn shape_texts() -> Vec<String> {
        let mut texts = crate::testing::secret_texts();
        for t in [
            "AKIA0123456789ABCDEF ASIA0123456789ABCDEF xABIA0123456789ABCDEF ACCA0123456789ABCDEFG",
            "akia0123456789abcdef AWS_SECRET_ACCESS_KEY=ACCA0123456789ABCDEF",
            "sk_live_0123456789abcdef rk_test_0123456789abcdefXYZ xsk_live_0123456789abcdef",
            "SK_LIVE_0123456789ABCDEF sk_test_short _rk_live_0123456789abcdef",
            "glc_0123456789abcdefghijklmnopqrstuv glsa_0123456789abcdefghijklmnopqrstuvwx",
            "glpat-0123456789abcdefghij gldt-0123456789abcdefghij xglsoat-0123456789abcdefghij",
            "GLPAT-0123456789abcdefghij glpat_0123456789abcdefghij gl-0123456789abcdefghij",
        ] {
            texts.push(t.to_owned());
        }
        for base in texts.clone() {
            texts.push(base.to_ascii_uppercase());
            texts.push(base.to_ascii_lowercase());
            texts.push(format!("x{base}"));
            texts.push(format!("é{base} {base}é"));
        }
        texts
    }

    #[test]
    fn every_shape_match_holds_one_of_its_literals() {
        let r = Redactor::new();
        let split = r.rules.iter().find_map(|x| x.split.as_ref()).unwrap();
        let mut matched = 0;
        for text in shape_texts() {
            for alt in &split.alts {
                for m in alt.re.get().unwrap().find_iter(&text) {
                    matched += 1;
                    let s = m.as_str();
                    assert!(
                        alt.exact.is_empty()
                            || alt.exact.iter().any(|e| if alt.boundary {
                                s.starts_with(e.as_str())
                            } else {
                                s.contains(e.as_str())
                            }),
                        "{} matches {s:?} without one of {:?}",
                        alt.re.pattern(),
                        alt.exact
                    );
                    assert!(alt.ids.is_none() || alt.exact.len() <= 16);
                }
            }
        }
        assert!(matched > 100, "{matched}");
        // The AWS and Stripe shapes are filtered now (they were searched in every text
        // holding a shape prefix).
        assert!(split
            .alts
            .iter()
            .all(|a| !a.exact.is_empty() && a.ids.is_some()));
    }

    #[test]
    fn the_indexed_shape_split_looks_at_what_the_linear_one_does() {
        let r = Redactor::new();
        let split = r.rules.iter().find_map(|x| x.split.as_ref()).unwrap();
        assert!(split.index.is_some());
        let linear = ShapeSplit {
            alts: split.alts.clone(),
            index: None,
        };
        let mut matched = 0;
        for text in shape_texts() {
            let present = r.literals.scan(&text);
            for pos in (0..=text.len()).filter(|p| text.is_char_boundary(*p)) {
                let fast = split
                    .captures_at(&text, pos, &present)
                    .map(|c| c.get(0).unwrap().range());
                let slow = linear
                    .captures_at(&text, pos, &present)
                    .map(|c| c.get(0).unwrap().range());
                assert_eq!(fast, slow, "{text} at {pos}");
                matched += usize::from(fast.is_some());
            }
        }
        assert!(matched > 100, "{matched}");
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn the_shape_split_finds_what_the_whole_regex_finds_in_generated_text(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(vec![
                    "AKIA", "ASIA", "ABIA", "ACCA", "sk_", "rk_", "live_", "test_", "glc_", "glsa_",
                    "gl", "pat-", "soat-", "_", "-", " ", "x", "é", "secret_", "SECRET_",
                ]).prop_map(str::to_owned),
                proptest::string::string_regex("[A-Za-z0-9]{1,20}").unwrap(),
            ], 0..10),
        ) {
            let text: String = pieces.concat();
            let r = Redactor::new();
            let rule = r.rules.iter().find(|x| x.split.is_some()).unwrap();
            let split = rule.split.as_ref().unwrap();
            let present = r.literals.scan(&text);
            for pos in (0..=text.len()).filter(|p| text.is_char_boundary(*p)) {
                let whole = rule.re.get().unwrap().captures_at(&text, pos).and_then(|c| c.get(0)).map(|m| m.range());
                let parts = split.captures_at(&text, pos, &present).and_then(|c| c.get(0)).map(|m| m.range());
                proptest::prop_assert_eq!(whole, parts);
            }
        }
    }

    #[test]
    fn the_memo_gives_the_same_results() {
        let r = Redactor::new();
        let texts = [
            "mysql -u root -pS3cretValue9 db",
            "API_KEY=abc123XYZ987 and Bearer abcdefghijk12345 ok",
            "ls -la /tmp",
            "mysql -u root -pS3cretValue9 db",
        ];
        let plain: Vec<(String, Vec<String>)> = texts
            .iter()
            .map(|t| {
                let mut f = Vec::new();
                r.secret_fragments(t, &mut f);
                (r.redact(t), f)
            })
            .collect();
        let memo: Vec<(String, Vec<String>)> = with_memo(|| {
            texts
                .iter()
                .map(|t| {
                    let mut f = Vec::new();
                    r.secret_fragments(t, &mut f);
                    (r.redact(t), f)
                })
                .collect()
        });
        assert_eq!(plain, memo);
        assert!(!plain[0].1.is_empty());
        assert!(MEMO.with(|m| m.borrow().is_none()));
    }

    /// Which literals `text` holds, by searching its lowercase copy (the reference for
    /// [`Literals::scan`]).
    fn literal_reference(r: &Redactor, text: &str) -> Vec<bool> {
        let lower = text.to_ascii_lowercase();
        r.literals
            .words
            .iter()
            .map(|w| {
                lower
                    .as_bytes()
                    .windows(w.len().max(1))
                    .any(|x| x == w.as_slice())
                    || w.is_empty()
            })
            .collect()
    }

    /// The literals [`Literals::scan`] finds in `text`, checked equal (with the dotted-run
    /// answer) to the first-written scan it replaced.
    fn literal_scan(r: &Redactor, text: &str) -> Vec<bool> {
        let present = r.literals.scan(text);
        let reference = r.literals.scan_reference(text);
        assert_eq!(present.hit, reference.hit, "{text}");
        assert_eq!(present.long_dotted_run, reference.long_dotted_run, "{text}");
        (0..r.literals.words.len())
            .map(|i| present.hit.contains(i))
            .collect()
    }

    #[test]
    fn the_literal_scan_finds_every_literal_as_a_lowercase_search_does() {
        let r = Redactor::new();
        let mut texts = crate::testing::secret_texts();
        for (_, request) in crate::gate::tests::corpus_requests() {
            texts.push(request);
        }
        // The committed fuzz regressions of every target, as text.
        texts.extend(crate::testing::fuzz_regression_texts());
        // Every literal alone, at the edges, upper-cased, cut short by one byte, and doubled.
        for w in &r.literals.words {
            let w = String::from_utf8(w.clone()).unwrap();
            texts.push(w.clone());
            texts.push(format!("x{}y", w.to_ascii_uppercase()));
            texts.push(w.get(..w.len().saturating_sub(1)).unwrap_or("").to_owned());
            texts.push(format!("{w}{w}"));
        }
        for text in &texts {
            assert_eq!(
                literal_scan(&r, text),
                literal_reference(&r, text),
                "{text}"
            );
        }
    }

    /// Every rule's literal filters are necessary: wherever a rule's regex matches a text (for
    /// a rule that reads the text around its match: changes it), the text holds one of its
    /// `pre` and one of its `also` literals (the scan may skip it
    /// otherwise). Over the secret corpus, every decision corpus request and a hit for each
    /// command-specific rule.
    #[test]
    fn every_rule_match_holds_its_filter_literals() {
        let r = Redactor::new();
        let hits = [
            "redis-cli -h db -a s3cr3tPassw0rd ping",
            "ssh-keygen -t ed25519 -N 'Sup3rS3cretPw' -f k",
            "ssh-keygen -p -P 0ldPassw0rd9 -N N3wPassw0rd9 -f k",
            "openssl enc -aes256 -k Sup3rS3cretPw -in a",
            "lftp -u admin,Sup3rS3cretPw ftp.example.com",
            "snmpwalk -v2c -c Sup3rS3cretCommunity host",
            "snmpget -v3 -A Sup3rS3cretAuth -X Sup3rS3cretPriv host",
            "curl -b 'session=Sup3rS3cretCookie9' https://x",
            "telnet> login admin password Sup3rS3cretPw9",
            "gh secret set API --body Sup3rS3cretBody9",
            "vault login s.Sup3rS3cretT0ken9",
            "docker login -u me -p Sup3rS3cretPw9 registry.example.com",
        ];
        let mut texts: Vec<String> = hits.iter().map(|h| (*h).to_owned()).collect();
        for h in hits {
            assert_ne!(r.redact(h), h, "{h}");
        }
        texts.extend(crate::testing::secret_texts());
        texts.extend(crate::testing::corpus_request_strings());
        let mut matched = 0;
        for (rule, spec) in r.rules.iter().zip(RULES) {
            let re = rule.re.get().unwrap();
            for text in &texts {
                // A rule that reads the text around its match redacts only where the text
                // holds its literals (a `name:` line without a `value:` sibling, a plain
                // `name=value` for the percent rule, a dotted key of no secret name for the
                // `.properties` rule, are matches that redact nothing).
                let by_change =
                    rule.check.reads_text() && rule.check != Check::Header || rule.needs_dotted_key;
                let hit = if by_change {
                    apply(rule, text, None, None).is_some()
                } else {
                    re.is_match(text)
                };
                if !hit {
                    continue;
                }
                matched += 1;
                // The gates in code that stand for literals.
                assert!(!rule.needs_at || text.contains('@'), "{text}");
                assert!(
                    !rule.needs_echo || text.contains("echo") || text.contains("printf"),
                    "{text}"
                );
                let lower = text.to_ascii_lowercase();
                for words in [spec.pre, spec.also] {
                    assert!(
                        words.is_empty() || words.iter().any(|w| lower.contains(w)),
                        "{} matches {text:?} without one of {words:?}",
                        spec.pattern
                    );
                }
            }
        }
        assert!(matched > 200, "{matched}");
    }

    /// The assignment rule's line filter never skips a line the rule would change.
    fn assert_assignment_filter_keeps(r: &Redactor, text: &str) {
        let rule = r.rules.iter().find(|rule| rule.needs_separator).unwrap();
        for line in text.split_inclusive('\n') {
            if apply(rule, line, None, None).is_some() {
                assert!(assignment_may_redact(line), "{line:?}");
            }
        }
    }

    #[test]
    fn the_assignment_filter_keeps_every_line_the_rule_changes() {
        let r = Redactor::new();
        let mut changed = 0;
        let rule = r.rules.iter().find(|rule| rule.needs_separator).unwrap();
        for text in crate::testing::secret_texts() {
            let text = text.as_str();
            assert_assignment_filter_keeps(&r, text);
            changed += text
                .split_inclusive('\n')
                .filter(|l| apply(rule, l, None, None).is_some())
                .count();
        }
        for (_, request) in crate::gate::tests::corpus_requests() {
            assert_assignment_filter_keeps(&r, &request);
        }
        assert!(changed > 20, "{changed}");
        for line in [
            "API_KEY=abc123XYZ987",
            "\"password\": \"hunter2hunter2\"",
            "db.pass := 'S3cretPassw0rd'",
            "'auth_token' => 'abcDEF123456'",
            "myPassword\\\" = \\\"S3cretPassw0rd\\\"",
            "NPM_AUTH=dXNlcjpwYXNzd29yZA==",
        ] {
            assert_ne!(r.redact(line), line, "{line}");
            assert!(assignment_may_redact(line), "{line}");
        }
        for line in ["https://example.com/a", "a = b", "key", "name: value", ""] {
            assert!(!assignment_may_redact(line), "{line}");
        }
    }

    /// Pieces of generated names: secret words in every case, look-alikes that hold one
    /// (`path`, `passwordless`, `keyboard`), and the separators of qualified names.
    const NAME_PIECES: &[&str] = &[
        "api", "Key", "_", ".", "-", "secret", "PASS", "word", "db", "x1", "auth", "token", "pw",
        "sig", "phrase", "seed", "pat", "Pat", "PAT", "h", "H", "less", "Access", "id", "keys",
        "board", "9", ":", "/", "['", "']", "[\"", "\"]", "[", "]", "\\\"",
    ];

    proptest::proptest! {
        #[test]
        fn the_assignment_filter_keeps_generated_assignments(
            prefix in "[ -~]{0,6}",
            name in proptest::collection::vec(proptest::sample::select(NAME_PIECES), 1..6),
            sep in proptest::sample::select(vec![
                "=", ":", ": ", " = ", "=>", " => ", ":=", "\"=", "\":", "\": ", "'=",
                "\\\"=", "\\\":", "\t=\t", "]=", "'] = ", "\"]=", "\\\"] = ", "?=", " ?= ", "+=",
                " ||= ", "??=", " ::= ", "'] ||= ",
            ]),
            value in proptest::sample::select(vec![
                "S3cretPassw0rd", "\"S3cret Passw0rd\"", "'abcDEF123456'", "ghp_abcdefghij0123456789",
                "dXNlcjpwYXNzd29yZA==", "x", "$VAR", "<redacted>", "12345678901234567890",
            ]),
            suffix in "[ -~]{0,6}",
        ) {
            let r = Redactor::new();
            let line = format!("{prefix}{}{sep}{value}{suffix}", name.concat());
            assert_assignment_filter_keeps(&r, &line);
        }
    }

    proptest::proptest! {
        /// The word check the assignment filter makes never misses a secret name.
        #[test]
        fn every_secret_name_holds_a_word_at_a_component_end(
            pieces in proptest::collection::vec(proptest::sample::select(NAME_PIECES), 1..7),
            raw in "[ -~]{0,16}",
        ) {
            let name = pieces.concat();
            for n in [&name, &raw] {
                if is_secret_name(n) || is_auth_name(n) {
                    proptest::prop_assert!(may_be_secret_name(n.as_bytes()), "{n:?}");
                }
            }
        }
    }

    #[test]
    fn qualified_names_are_judged_whole() {
        let r = Redactor::new();
        for (line, secret) in [
            ("x.pat.y=Q7wjJJibaZUPgHV7", "Q7wjJJib"),
            ("app/pat/value=Q7wjJJibaZUPgHV7", "Q7wjJJib"),
            ("Db:Pat:Value=Q7wjJJibaZUPgHV7", "Q7wjJJib"),
            ("cfg['pat']['value'] = 'Q7wjJJibaZUPgHV7'", "Q7wjJJib"),
            (
                "cfg[\"db\"][\"password\"] = \"Q7wjJJibaZUPgHV7\"",
                "Q7wjJJib",
            ),
            ("user[password]=Q7wjJJibaZUPgHV7&x=1", "Q7wjJJib"),
            (
                "{\\\"cfg\\\": {\\\"ci.pat\\\": \\\"Q7wjJJibaZUPgHV7\\\"}}",
                "Q7wjJJib",
            ),
            ("gitlabPatValue: Q7wjJJibaZUPgHV7", "Q7wjJJib"),
            ("--gitlabPatValue Q7wjJJibaZUPgHV7", "Q7wjJJib"),
        ] {
            let out = r.redact(line);
            assert!(!out.contains(secret), "{line} -> {out}");
        }
        for line in [
            "x.path.y=src/main2",
            "cfg['tokenizer']['name'] = 'bpe2'",
            "auth.passwordless.mode=magiclink",
            "ui.keyboard.layout=dvorak2",
            "max:tokens/path=5x",
            "PATH=/opt/bin:$PATH",
            "--patch-level 4b",
            "db.password.policy=strict2",
        ] {
            assert_eq!(r.redact(line), line);
        }
        assert_eq!(qualified_start("a b.c['d']", 7), 2);
        assert!(!assignment_may_redact(
            "x.path.y=1 PATH=2 tokenizer=3 keyboard=4"
        ));
        assert!(!assignment_may_redact(&format!("{}=1", "a:".repeat(100))));
        assert!(assignment_may_redact(&format!(
            "{}pat:x{}=1",
            "a:".repeat(100),
            "/b".repeat(99)
        )));
    }

    #[test]
    fn the_borrowing_forms_give_the_owned_results() {
        let r = Redactor::new();
        let texts: Vec<String> = crate::testing::secret_texts()
            .into_iter()
            .chain(["ls -la".to_owned(), String::new(), "x".repeat(3000)])
            .collect();
        for text in &texts {
            let mut fragments = Vec::new();
            r.secret_fragments(text, &mut fragments);
            let mut raw = Vec::new();
            r.run(text, Some(&mut raw));
            assert_eq!(fragments.is_empty(), raw.is_empty(), "{text}");
            for max in [10, 400, 2000] {
                let owned = r.redact_bounded(text, max);
                assert_eq!(r.redact_bounded_cow(text, max), owned, "{text}");
                assert_eq!(r.redact_bounded_cow_once(text, max), owned, "{text}");
                // In a memo scope: the same, looked up but not added.
                with_memo(|| {
                    assert_eq!(r.redact_bounded_cow_once(text, max), owned, "{text}");
                    assert!(MEMO.with(|m| m.borrow().as_ref().unwrap().is_empty()));
                    assert_eq!(r.redact_bounded_cow(text, max), owned, "{text}");
                    assert_eq!(r.redact_bounded_cow_once(text, max), owned, "{text}");
                });
                for frags in [&[][..], &fragments[..]] {
                    assert_eq!(
                        r.scrub_cow(r.redact_bounded_cow(text, max), frags),
                        r.scrub(&owned, frags),
                        "{text}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_literal_scan_agrees_on_generated_text(
            parts in proptest::collection::vec(
                (proptest::sample::select(Redactor::new().literals.words.clone()), "[ -~]{0,3}", proptest::bool::ANY),
                0..8,
            )
        ) {
            let r = Redactor::new();
            let mut text = String::new();
            for (word, glue, upper) in parts {
                let word = String::from_utf8(word).unwrap();
                text.push_str(&if upper { word.to_ascii_uppercase() } else { word });
                text.push_str(&glue);
            }
            proptest::prop_assert_eq!(literal_scan(&r, &text), literal_reference(&r, &text));
        }

        /// Literals (in either case, cut short or whole), look-alikes, token runs with dots
        /// and random characters (multi-byte too): the fast scan equals the reference.
        #[test]
        fn the_fast_scan_equals_the_reference_scan(
            parts in proptest::collection::vec(
                (
                    proptest::sample::select(Redactor::new().literals.words.clone()),
                    0usize..4,
                    proptest::bool::ANY,
                    "(\\PC|[._:=-]|[A-Za-z0-9_-]{20,30}\\.){0,4}",
                ),
                0..10,
            )
        ) {
            let r = Redactor::new();
            let mut text = String::new();
            for (word, cut, upper, glue) in parts {
                let word = String::from_utf8(word).unwrap();
                // A prefix of a literal is a look-alike that must not count.
                let word = word.get(..word.len().saturating_sub(cut)).unwrap_or(&word);
                text.push_str(&if upper { word.to_ascii_uppercase() } else { word.to_owned() });
                text.push_str(&glue);
            }
            proptest::prop_assert_eq!(literal_scan(&r, &text), literal_reference(&r, &text));
        }

        /// Base64-like and identifier-rich text (where most byte pairs start some literal),
        /// random bytes of any kind, and texts of 0 to 4 bytes (the scan's padded tail): the
        /// fast scan equals the reference and a lowercase search.
        #[test]
        fn the_fast_scan_equals_the_reference_on_base64_and_random_text(
            text in proptest::prop_oneof![
                "[A-Za-z0-9+/=_-]{0,120}",
                "(\\$\\(echo |[A-Za-z0-9+/]{1,30}=?=?| \\| base64 -d\\)|[._:=(-]| ){0,12}",
                "\\PC{0,60}",
                "[ -~]{0,4}",
            ],
        ) {
            let r = Redactor::new();
            proptest::prop_assert_eq!(literal_scan(&r, &text), literal_reference(&r, &text));
        }
    }

    #[test]
    fn the_literal_scan_agrees_with_lowercase_search() {
        let r = Redactor::new();
        let samples = [
            "MYSQL -P secret --Token=x Authorization: Bearer abc",
            "curl -u user:pass https://a:b@host/x?api_key=1 /P:x",
            "ÄÖ sk-ABC ghp_ xoxb- Private Key -----BEGIN -S --STDIN",
            "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAx.Gabcde.abcdefghijklmnopqrstuvwxyz0123",
            "NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I",
            "ls -la",
            "",
            "x.set( <a> </b> (c) q~ :AA pass: /p http:// ftp",
        ];
        for sample in samples {
            let lower = sample.to_ascii_lowercase();
            let present = r.literals.scan(sample);
            assert_eq!(r.rules.len(), RULES.len());
            for (rule, spec) in r.rules.iter().zip(RULES) {
                for (ids, set, words) in [
                    (&rule.pre_ids, &rule.pre_set, spec.pre),
                    (&rule.line_ids, &rule.line_set, rule.per_line),
                    (&rule.also_ids, &rule.also_set, spec.also),
                ] {
                    assert_eq!(
                        present.any(ids),
                        words.iter().any(|w| lower.contains(w)),
                        "{sample} {words:?}"
                    );
                    // Every literal fits in a set, so every list is one exact filter.
                    assert_eq!(set.is_some(), !ids.is_empty(), "{words:?}");
                    assert_eq!(
                        present.any_of(set),
                        ids.is_empty() || present.any(ids),
                        "{sample} {words:?}"
                    );
                }
                if rule.needs_long_dotted_run && rule.re.get().unwrap().is_match(sample) {
                    assert!(present.long_dotted_run, "{sample}");
                }
            }
        }
        assert!(r.literals.words.len() <= LIT_SET_WORDS * 64);
        let mut set = LitSet::default();
        assert!(!set.contains(3) && set.contains(LIT_SET_WORDS * 64));
        set.insert(3);
        set.insert(LIT_SET_WORDS * 64);
        assert!(set.contains(3) && !set.contains(2));
        assert_eq!(LitSet::of(&[LIT_SET_WORDS * 64]), None);
        assert_eq!(LitSet::of(&[]), None);
        assert!(r.rules.iter().any(|rule| rule.needs_long_dotted_run));
        assert!(r.literals.scan(samples[4]).long_dotted_run);
        assert!(!r.literals.scan("a.b.c short.dots").long_dotted_run);
        assert!(has_colon_line("x\nh:5432:db:u:pw"));
        assert!(!has_colon_line("h:5432\n:db:u:pw"));
        assert!(r.rules.iter().any(|rule| rule.needs_colon_line));
        assert!(r.rules.iter().any(|rule| rule.needs_hex_run));
        assert_eq!(r.rules.iter().filter(|rule| rule.needs_at).count(), 2);
        assert_eq!(r.rules.iter().filter(|rule| rule.needs_echo).count(), 1);
        let hex64 = "0123456789abcdef".repeat(4);
        assert!(has_hex_run(&format!("x{hex64}y")));
        assert!(!has_hex_run(&format!("x{}Ay", &hex64[..63])));
        let airtable = format!("key patAbCdEfGh123456.{hex64} ok");
        assert_eq!(r.redact(&airtable), "key [REDACTED] ok");
        assert!(r.rules.iter().any(|rule| rule.needs_separator));
        for sample in [
            "db.example.com:5432:app:admin:S3cretPw9",
            "API_KEY=abc123XYZ987",
        ] {
            assert_ne!(r.redact(sample), sample);
        }
        assert!(contains_lower(b"xX-PaSs y", b"-pass"));
        assert!(!contains_lower(b"-pas", b"-pass"));
    }

    /// `may_hold_secret` as it was before its byte table (session 5): the reference.
    fn may_hold_secret_reference(text: &str) -> bool {
        let mut run = 0usize;
        let mut prev = b' ';
        for &b in text.as_bytes() {
            if b == b'=' || b == b':' || b == b'<' {
                return true;
            }
            if b.is_ascii_alphanumeric() || b"_-+/.~".contains(&b) {
                run += 1;
                if run >= 8 {
                    return true;
                }
            } else {
                run = 0;
            }
            if prev == b'-' && b.is_ascii_alphabetic() {
                return true;
            }
            prev = b;
        }
        false
    }

    #[test]
    fn the_secret_byte_classes_are_their_definition() {
        for b in 0..=255u8 {
            let mut class = 0;
            if b == b'=' || b == b':' || b == b'<' {
                class |= SECRET_BYTE_MARK;
            }
            if b.is_ascii_alphanumeric() || b"_-+/.~".contains(&b) {
                class |= SECRET_BYTE_RUN;
            }
            if b.is_ascii_alphabetic() {
                class |= SECRET_BYTE_ALPHA;
            }
            assert_eq!(SECRET_BYTE_CLASS[usize::from(b)], class, "{b}");
        }
    }

    #[test]
    fn may_hold_secret_is_its_reference() {
        // Every byte pair and every byte after a run of seven or eight token bytes.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for text in [
                    vec![a, b],
                    vec![b' ', a, b, b' '],
                    [b"abcdefg".as_slice(), &[a], &[b]].concat(),
                    [b"x-".as_slice(), &[a, b]].concat(),
                ] {
                    let text = String::from_utf8_lossy(&text);
                    assert_eq!(
                        may_hold_secret(&text),
                        may_hold_secret_reference(&text),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn may_hold_secret_word_at_a_time_is_its_reference() {
        // Every byte at every offset of two words and a half, in fillers of token runs of
        // each length, spaces, dashes and non-ASCII text; and runs across word edges.
        let fillers: Vec<Vec<u8>> = vec![
            b"ab cd ef gh ij kl mn op qr st".to_vec(),
            b"abcdefg hijklmn opqrstu vwxyzAB".to_vec(),
            b"a b c d e f g h i j k l m n o p".to_vec(),
            b"x- y- z- w- v- u- t- s- r- q- p-".to_vec(),
            "é é é é é é é é é é é é é".as_bytes().to_vec(),
            b"abcd efgh ijkl mnop qrst uvwx yz".to_vec(),
        ];
        for filler in &fillers {
            for len in 0..=filler.len() {
                let base = filler.get(..len).unwrap();
                let text = String::from_utf8_lossy(base);
                assert_eq!(
                    may_hold_secret(&text),
                    may_hold_secret_reference(&text),
                    "{text:?}"
                );
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut v = base.to_vec();
                        v[at] = b;
                        let text = String::from_utf8_lossy(&v);
                        assert_eq!(
                            may_hold_secret(&text),
                            may_hold_secret_reference(&text),
                            "{text:?}"
                        );
                    }
                }
            }
        }
        for a in 0..24 {
            for b in 0..12 {
                let text = format!("{} {}{}", " ".repeat(a), "x".repeat(b), " ".repeat(9));
                assert_eq!(may_hold_secret(&text), b >= 8, "{text:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn may_hold_secret_agrees_on_any_text(s in "\\PC{0,40}|[ -~]{0,40}|[a-z -]{0,24}|[a-z -]{0,80}|[ -~]{0,80}|[a-zA-Z0-9 .é]{0,80}") {
            proptest::prop_assert_eq!(may_hold_secret(&s), may_hold_secret_reference(&s));
        }
    }

    #[test]
    fn redaction_is_idempotent_and_leaves_plain_text() {
        let r = Redactor::new();
        for input in [
            "API_KEY=abc123 and Bearer abcdefghijk12345 ok",
            "ls -la /tmp",
            "git status",
        ] {
            let once = r.redact(input);
            assert_eq!(r.redact(&once), once);
        }
        assert_eq!(r.redact("ls -la /tmp"), "ls -la /tmp");
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    #[test]
    #[ignore]
    fn rule_timing() {
        let r = Redactor::new();
        let json: String = (0..3000)
            .map(|i| format!("  {{\n    \"id\": {i},\n    \"name\": \"item-{i}\",\n    \"path\": \"/srv/app/file{i}.txt\",\n    \"ok\": true\n  }},\n"))
            .collect();
        for (i, (rule, spec)) in r.rules.iter().zip(RULES).enumerate() {
            let t = std::time::Instant::now();
            let lower = json.to_ascii_lowercase();
            if spec.pre.is_empty() || spec.pre.iter().any(|p| lower.contains(p)) {
                let _ = if rule.per_line.is_empty() {
                    apply(rule, &json, None, None)
                } else {
                    apply_lines(rule, &json, false, None, None)
                };
            }
            eprintln!("rule {i} {:?}: {:?}", rule.check, t.elapsed());
        }
        let t = std::time::Instant::now();
        let _ = r.redact(&json);
        eprintln!("rule all: {:?}", t.elapsed());
    }
}
