//! Secret redaction for previews: anything shaped like a credential is replaced before text
//! leaves the core. Patterns are compiled once per engine (regex-lite, linear time). Redaction
//! is idempotent: the replacement never matches again.

use regex_lite::Regex;

pub const REDACTED: &str = "[REDACTED]";

/// Parameter names whose values are secrets whatever they look like.
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace(['-', '_'], "");
    [
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "privatekey",
        "authorization",
        "cookie",
        "credential",
        "clientsecret",
    ]
    .iter()
    .any(|s| k.contains(s))
}

/// A pattern, its replacement, and literals (lowercase) of which at least one must occur in
/// the lowercased text for the pattern to possibly match: a cheap prefilter, since regex-lite
/// has no literal optimizations of its own.
type Pattern = (&'static str, &'static str, &'static [&'static str]);

const PATTERNS: [Pattern; 7] = [
    // PEM private key blocks (to the end marker, or to the end of the text when cut).
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        "[REDACTED PRIVATE KEY]",
        &["private key-----"],
    ),
    // Authorization headers.
    (
        r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}",
        "$1$2[REDACTED]",
        &["bearer", "basic", "token"],
    ),
    // JSON Web Tokens.
    (
        r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}",
        "[REDACTED]",
        &["eyj"],
    ),
    // Provider key shapes: OpenAI/Anthropic-style, GitHub, Slack, AWS, Google, Stripe.
    (
        r"\b(?:sk-(?:ant-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|[rs]k_live_[A-Za-z0-9]{16,})",
        "[REDACTED]",
        &[
            "sk-",
            "ghp_",
            "gho_",
            "ghu_",
            "ghs_",
            "ghr_",
            "github_pat_",
            "xox",
            "akia",
            "aiza",
            "k_live_",
        ],
    ),
    // Credentials in URLs and connection strings: scheme://user:pass@host.
    (
        r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@",
        "$1[REDACTED]@",
        &["://"],
    ),
    // NAME=value / "name": "value" where the name says secret.
    (
        r#"(?i)([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s"',;}]+)"#,
        "$1[REDACTED]",
        &[
            "secret",
            "token",
            "passw",
            "api",
            "access",
            "private",
            "credential",
        ],
    ),
    // The value after a secret-ish flag like --token.
    (
        r"(?i)(--?(?:token|password|secret|api-?key)[= ])\S+",
        "$1[REDACTED]",
        &["token", "password", "secret", "api"],
    ),
];

/// Text longer than this is cut (with a margin) before redaction; see [`Redactor::redact_bounded`].
const REDACTION_MARGIN_CHARS: usize = 1024;

/// The compiled redaction patterns.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Vec<(Regex, &'static str, &'static [&'static str])>,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

impl Redactor {
    pub fn new() -> Redactor {
        // Every pattern is a constant checked by a test; one that failed to compile would be
        // skipped rather than crash the gate.
        let patterns = PATTERNS
            .iter()
            .filter_map(|(p, r, lits)| Regex::new(p).ok().map(|re| (re, *r, *lits)))
            .collect();
        Redactor { patterns }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        let mut lower = out.to_ascii_lowercase();
        for (re, replacement, literals) in &self.patterns {
            if !literals.iter().any(|l| lower.contains(l)) || !re.is_match(&out) {
                continue;
            }
            out = re.replace_all(&out, *replacement).into_owned();
            lower = out.to_ascii_lowercase();
        }
        out
    }

    /// Redacts text that will be shown cut to `max_chars`: only the first `max_chars` plus a
    /// margin are examined, so the cost is bounded, and a secret that starts inside the shown
    /// part is still seen whole (up to the margin) before the cut.
    pub fn redact_bounded(&self, text: &str, max_chars: usize) -> String {
        let limit = max_chars.saturating_add(REDACTION_MARGIN_CHARS);
        match text.char_indices().nth(limit) {
            Some((at, _)) => self.redact(text.get(..at).unwrap_or(text)),
            None => self.redact(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(Redactor::new().patterns.len(), PATTERNS.len());
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
            ("ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"),
            ("AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"),
            ("postgres://admin:s3cr3t@db:5432/x", "s3cr3t"),
            ("xoxb-1234567890-abcdef", "xoxb-1234567890-abcdef"),
            ("mytool --token abcdef123456", "abcdef123456"),
        ];
        for (input, secret) in cases {
            let out = r.redact(input);
            assert!(!out.contains(secret), "{input} -> {out}");
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

    #[test]
    fn secret_keys() {
        assert!(is_secret_key("api_key"));
        assert!(is_secret_key("GITHUB_TOKEN"));
        assert!(is_secret_key("clientSecret"));
        assert!(!is_secret_key("command"));
        assert!(!is_secret_key("path"));
    }
}
