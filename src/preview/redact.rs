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
type Pattern = (&'static str, &'static str, Precheck);

/// A cheap test on the lowercased text that must pass for the pattern to possibly match.
#[derive(Debug, Clone, Copy)]
enum Precheck {
    /// One of these literals occurs.
    Any(&'static [&'static str]),
    /// One of these words is followed by whitespace and 8 token characters.
    WordThenToken(&'static [&'static str]),
    /// One of these words sits in a name followed by `=` or `:` (an assignment).
    NameAssigned(&'static [&'static str]),
    /// One of these words follows a `-` and is followed by `=` or a space (a flag).
    Flag(&'static [&'static str]),
}

impl Precheck {
    fn passes(self, lower: &str) -> bool {
        let bytes = lower.as_bytes();
        let after = |at: usize| bytes.get(at..).unwrap_or(&[]);
        match self {
            Precheck::Any(lits) => lits.iter().any(|l| lower.contains(l)),
            Precheck::WordThenToken(words) => words.iter().any(|w| {
                lower.match_indices(w).any(|(i, _)| {
                    let rest = after(i + w.len());
                    let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
                    ws > 0
                        && rest
                            .iter()
                            .skip(ws)
                            .take(8)
                            .filter(|b| b.is_ascii_alphanumeric() || b"._~+/=-".contains(b))
                            .count()
                            == 8
                })
            }),
            Precheck::NameAssigned(words) => words.iter().any(|w| {
                lower.match_indices(w).any(|(i, _)| {
                    let rest = after(i + w.len());
                    let name = rest
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || b"_.-".contains(b))
                        .count();
                    let rest = after(i + w.len() + name);
                    let quote =
                        usize::from(rest.first().is_some_and(|b| *b == b'"' || *b == b'\''));
                    rest.iter()
                        .skip(quote)
                        .find(|b| !b.is_ascii_whitespace())
                        .is_some_and(|b| *b == b'=' || *b == b':')
                })
            }),
            Precheck::Flag(words) => words.iter().any(|w| {
                lower.match_indices(w).any(|(i, _)| {
                    i > 0
                        && bytes.get(i - 1) == Some(&b'-')
                        && after(i + w.len())
                            .first()
                            .is_some_and(|b| *b == b'=' || *b == b' ')
                })
            }),
        }
    }
}

const PATTERNS: [Pattern; 7] = [
    // PEM private key blocks (to the end marker, or to the end of the text when cut).
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        "[REDACTED PRIVATE KEY]",
        Precheck::Any(&["private key-----"]),
    ),
    // Authorization headers.
    (
        r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}",
        "$1$2[REDACTED]",
        Precheck::WordThenToken(&["bearer", "basic", "token"]),
    ),
    // JSON Web Tokens.
    (
        r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}",
        "[REDACTED]",
        Precheck::Any(&["eyj"]),
    ),
    // Provider key shapes: OpenAI/Anthropic-style, GitHub, Slack, AWS, Google, Stripe.
    (
        r"\b(?:sk-(?:ant-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|[rs]k_live_[A-Za-z0-9]{16,})",
        "[REDACTED]",
        Precheck::Any(&[
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
        ]),
    ),
    // Credentials in URLs and connection strings: scheme://user:pass@host.
    (
        r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@",
        "$1[REDACTED]@",
        Precheck::Any(&["://"]),
    ),
    // NAME=value / "name": "value" where the name says secret.
    (
        r#"(?i)([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)((?:"[^"]*"|'[^']*'|[^\s"',;}])+)"#,
        "$1[REDACTED]",
        Precheck::NameAssigned(&[
            "secret",
            "token",
            "passw",
            "api",
            "access",
            "private",
            "credential",
        ]),
    ),
    // The value after a secret-ish flag like --token.
    (
        r"(?i)(--?(?:token|password|secret|api-?key)[= ])\S+",
        "$1[REDACTED]",
        Precheck::Flag(&["token", "password", "secret", "api"]),
    ),
];

/// Text shown cut to N characters is examined up to N plus this margin; see [`head`].
const REDACTION_MARGIN_CHARS: usize = 1024;

/// One pass over the bytes: can any pattern match at all? Every pattern needs an `=` or `:`
/// (assignments, URLs, headers), a run of at least 8 token characters (keys, JWTs, PEM
/// markers, header values), or a flag word after `-` (`--token x`). Most preview text has none.
fn may_hold_secret(text: &str) -> bool {
    let mut run = 0usize;
    let mut prev = b' ';
    for &b in text.as_bytes() {
        if b == b'=' || b == b':' {
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
        if prev == b'-' && matches!(b, b't' | b'T' | b'p' | b'P' | b's' | b'S' | b'a' | b'A') {
            return true;
        }
        prev = b;
    }
    false
}

/// The part of `text` that can matter when it is shown cut to `max_chars`: the first
/// `max_chars` plus [`REDACTION_MARGIN_CHARS`], so a secret that starts inside the shown part is
/// seen whole before the cut, and the cost of what follows is bounded.
pub fn head(text: &str, max_chars: usize) -> &str {
    match text
        .char_indices()
        .nth(max_chars.saturating_add(REDACTION_MARGIN_CHARS))
    {
        Some((at, _)) => text.get(..at).unwrap_or(text),
        None => text,
    }
}

/// The compiled redaction patterns.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Vec<(Regex, &'static str, Precheck)>,
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
            .filter_map(|(p, r, pre)| Regex::new(p).ok().map(|re| (re, *r, *pre)))
            .collect();
        Redactor { patterns }
    }

    pub fn redact(&self, text: &str) -> String {
        if !may_hold_secret(text) {
            return text.to_owned();
        }
        let mut out = text.to_owned();
        let mut lower = out.to_ascii_lowercase();
        for (re, replacement, precheck) in &self.patterns {
            if !precheck.passes(&lower) || !re.is_match(&out) {
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
        self.redact(head(text, max_chars))
    }

    /// Collects the pieces of `text` that redaction would hide (each at least 8 characters,
    /// split on whitespace, quotes, `=` and `:`), so that a piece quoted elsewhere without the
    /// context that marked it as a secret (a PEM body line, the value after `--token`) can be
    /// hidden there too. At most `MAX_FRAGMENTS` pieces are kept.
    pub fn secret_fragments(&self, text: &str, out: &mut Vec<String>) {
        if !may_hold_secret(text) {
            return;
        }
        let lower = text.to_ascii_lowercase();
        for (re, _, precheck) in &self.patterns {
            if !precheck.passes(&lower) {
                continue;
            }
            for m in re.find_iter(text) {
                for piece in m
                    .as_str()
                    .split(|c: char| c.is_whitespace() || "\"'=:,;".contains(c))
                    .filter(|p| p.chars().count() >= 8 && !is_marker_word(p))
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
    }

    /// Replaces every occurrence of a secret fragment in `text`.
    pub fn scrub(&self, text: &str, fragments: &[String]) -> String {
        let mut out = text.to_owned();
        for f in fragments {
            if out.contains(f.as_str()) {
                out = out.replace(f.as_str(), REDACTED);
            }
        }
        out
    }
}

/// Fragments remembered per call.
const MAX_FRAGMENTS: usize = 64;

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
        assert!(frags.iter().all(|f| !is_marker_word(f)));
        assert_eq!(r.scrub("plain text", &frags), "plain text");
    }

    #[test]
    fn the_fast_gate_never_hides_a_pattern_match() {
        let r = Redactor::new();
        for (p, _, _) in &r.patterns {
            for sample in ["x --token abc", "a:b@c", "K=v", "Bearer abcdefgh", "-p x"] {
                if p.is_match(sample) {
                    assert!(may_hold_secret(sample), "{sample}");
                }
            }
        }
        assert!(!may_hold_secret("ls la"));
        assert!(!may_hold_secret("exec runs a shell command on the host"));
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
