//! Name-token classifier: splits a tool name into words (camelCase, snake_case, kebab-case,
//! letter/digit boundaries, any other separator) and classifies it. A destructive token anywhere
//! wins over a read-only one, so `readWriteFile` and `getDeleteUser` are gated; a name with
//! neither is unknown and falls to `defaultMode`.

pub const DESTRUCTIVE_TOKENS: [&str; 30] = [
    "write",
    "edit",
    "delete",
    "remove",
    "rm",
    "rmdir",
    "mkdir",
    "move",
    "rename",
    "deploy",
    "publish",
    "install",
    "uninstall",
    "exec",
    "run",
    "apply",
    "patch",
    "create",
    "update",
    "kill",
    "send",
    "post",
    "put",
    "push",
    "commit",
    "flush",
    "drop",
    "truncate",
    "grant",
    "revoke",
];

pub const READ_ONLY_TOKENS: [&str; 22] = [
    "read", "get", "list", "search", "glob", "grep", "view", "show", "status", "ping", "fetch",
    "head", "cat", "ls", "find", "whoami", "echo", "inspect", "describe", "explain", "query",
    "count",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameClass {
    Destructive(String),
    ReadOnly(String),
    Unknown,
}

/// Splits a tool name into lowercase words.
///
/// ```
/// use openclaw_human_gate::policy::classifier::tokens;
/// assert_eq!(tokens("getHTTPResponse_v2-list"), ["get", "http", "response", "v", "2", "list"]);
/// ```
pub fn tokens(name: &str) -> Vec<String> {
    if name.is_ascii() {
        return AsciiTokens::new(name)
            .map(|(a, b)| name.get(a..b).unwrap_or("").to_ascii_lowercase())
            .collect();
    }
    tokens_general(name)
}

/// [`tokens`] for any text, char by char (ASCII names take [`AsciiTokens`], which a test
/// proves equal to this).
fn tokens_general(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut out, &mut cur);
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if p.is_alphanumeric() => {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_numeric() != c.is_numeric())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()))
            }
            _ => false,
        };
        if boundary {
            flush(&mut out, &mut cur);
        }
        cur.extend(c.to_lowercase());
    }
    flush(&mut out, &mut cur);
    out
}

fn flush(out: &mut Vec<String>, cur: &mut String) {
    if !cur.is_empty() {
        out.push(std::mem::take(cur));
    }
}

/// The byte ranges of the words of an ASCII name, by the rules of [`tokens_general`]: for
/// ASCII, alphanumeric, lower/upper case, numeric and lowercasing are their ASCII forms. No
/// char vector, no word strings.
struct AsciiTokens<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> AsciiTokens<'a> {
    fn new(name: &'a str) -> Self {
        AsciiTokens {
            b: name.as_bytes(),
            i: 0,
        }
    }

    /// A word starts at `i` although the byte before it is alphanumeric.
    fn boundary(&self, i: usize) -> bool {
        let at = |k: usize| self.b.get(k).copied();
        match (i.checked_sub(1).and_then(at), at(i)) {
            (Some(p), Some(c)) if p.is_ascii_alphanumeric() => {
                (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (p.is_ascii_digit() != c.is_ascii_digit())
                    || (p.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && at(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
            }
            _ => false,
        }
    }
}

impl Iterator for AsciiTokens<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| !c.is_ascii_alphanumeric())
        {
            self.i += 1;
        }
        let start = self.i;
        self.b.get(start)?;
        self.i += 1;
        while self
            .b
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric())
            && !self.boundary(self.i)
        {
            self.i += 1;
        }
        Some((start, self.i))
    }
}

pub fn classify(name: &str) -> NameClass {
    if name.is_ascii() {
        // One pass over the words, each lowercased on the stack and looked up by `match`: the
        // first destructive word wins at once; else the first read-only one.
        let mut read_only = None;
        for (a, b) in AsciiTokens::new(name) {
            let t = name.get(a..b).unwrap_or("");
            let mut buf = [0u8; MAX_TOKEN_BYTES];
            let Some(lower) = buf.get_mut(..t.len()) else {
                continue; // longer than every listed word
            };
            lower.copy_from_slice(t.as_bytes());
            lower.make_ascii_lowercase();
            let lower = std::str::from_utf8(lower).unwrap_or("");
            match token_kind(lower) {
                Some(TokenKind::Destructive) => return NameClass::Destructive(lower.to_owned()),
                Some(TokenKind::ReadOnly) if read_only.is_none() => {
                    read_only = Some(lower.to_owned());
                }
                _ => {}
            }
        }
        return read_only.map_or(NameClass::Unknown, NameClass::ReadOnly);
    }
    classify_general(name)
}

/// The longest word of either list, in bytes.
const MAX_TOKEN_BYTES: usize = 9;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    Destructive,
    ReadOnly,
}

/// Which list a lowercase word is on: the words of [`DESTRUCTIVE_TOKENS`] and
/// [`READ_ONLY_TOKENS`] as one `match` (a test holds it to the lists).
fn token_kind(word: &str) -> Option<TokenKind> {
    match word {
        "write" | "edit" | "delete" | "remove" | "rm" | "rmdir" | "mkdir" | "move" | "rename"
        | "deploy" | "publish" | "install" | "uninstall" | "exec" | "run" | "apply" | "patch"
        | "create" | "update" | "kill" | "send" | "post" | "put" | "push" | "commit" | "flush"
        | "drop" | "truncate" | "grant" | "revoke" => Some(TokenKind::Destructive),
        "read" | "get" | "list" | "search" | "glob" | "grep" | "view" | "show" | "status"
        | "ping" | "fetch" | "head" | "cat" | "ls" | "find" | "whoami" | "echo" | "inspect"
        | "describe" | "explain" | "query" | "count" => Some(TokenKind::ReadOnly),
        _ => None,
    }
}

/// [`classify`] over [`tokens`] (any text; the reference for the ASCII path).
fn classify_general(name: &str) -> NameClass {
    let toks = tokens(name);
    if let Some(t) = toks
        .iter()
        .find(|t| DESTRUCTIVE_TOKENS.contains(&t.as_str()))
    {
        return NameClass::Destructive(t.clone());
    }
    if let Some(t) = toks.iter().find(|t| READ_ONLY_TOKENS.contains(&t.as_str())) {
        return NameClass::ReadOnly(t.clone());
    }
    NameClass::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_ascii_path_equals_the_char_by_char_one(name in "[a-zA-Z0-9_./ -]{0,24}|(rm|Get|HTTP|v2|read|Write|_|-)*") {
            proptest::prop_assert_eq!(tokens(&name), tokens_general(&name));
            proptest::prop_assert_eq!(classify(&name), classify_general(&name));
        }
    }

    #[test]
    fn the_ascii_path_equals_the_char_by_char_one_over_the_corpora() {
        for t in crate::analysis::shell::rules::testing_corpus_texts()
            .iter()
            .filter(|t| t.len() < 200)
        {
            assert_eq!(tokens(t), tokens_general(t), "{t:?}");
            assert_eq!(classify(t), classify_general(t), "{t:?}");
        }
        for t in DESTRUCTIVE_TOKENS.iter().chain(&READ_ONLY_TOKENS) {
            for v in [
                t.to_string(),
                t.to_ascii_uppercase(),
                format!("x{t}"),
                format!("getX{}", t.to_ascii_uppercase()),
            ] {
                assert_eq!(classify(&v), classify_general(&v), "{v:?}");
            }
        }
    }

    #[test]
    fn splits_all_conventions() {
        assert_eq!(tokens("readWriteFile"), ["read", "write", "file"]);
        assert_eq!(tokens("get_delete_user"), ["get", "delete", "user"]);
        assert_eq!(tokens("list-and-remove"), ["list", "and", "remove"]);
        assert_eq!(tokens("rm2files"), ["rm", "2", "files"]);
        assert_eq!(tokens("S3PutObject"), ["s", "3", "put", "object"]);
        assert_eq!(tokens("XMLHttpRequest"), ["xml", "http", "request"]);
        assert_eq!(tokens("fs.delete"), ["fs", "delete"]);
        assert_eq!(tokens(""), Vec::<String>::new());
    }

    #[test]
    fn destructive_wins_anywhere() {
        for name in [
            "readWriteFile",
            "getDeleteUser",
            "listAndRemove",
            "search_then_push",
            "fetchAndRun",
        ] {
            assert!(
                matches!(classify(name), NameClass::Destructive(_)),
                "{name}"
            );
        }
    }

    #[test]
    fn read_only_names_pass() {
        for name in [
            "read",
            "get_user",
            "listFiles",
            "web_search",
            "glob",
            "grep",
            "git-status",
            "whoami",
            "fetch",
        ] {
            assert!(matches!(classify(name), NameClass::ReadOnly(_)), "{name}");
        }
    }

    #[test]
    fn whole_tokens_only_no_substrings() {
        // "format" contains "rm", "digital" contains "git", "thread" contains "read": none count.
        assert_eq!(classify("format"), NameClass::Unknown);
        assert_eq!(classify("thread_pool"), NameClass::Unknown);
        assert_eq!(classify("runtime_info"), NameClass::Unknown);
        assert_eq!(classify("catalog"), NameClass::Unknown);
    }

    #[test]
    fn every_listed_token_classifies_alone() {
        for t in DESTRUCTIVE_TOKENS {
            assert_eq!(classify(t), NameClass::Destructive(t.into()));
        }
        for t in READ_ONLY_TOKENS {
            assert_eq!(classify(t), NameClass::ReadOnly(t.into()));
        }
    }

    #[test]
    fn the_match_is_the_lists() {
        for t in DESTRUCTIVE_TOKENS {
            assert_eq!(token_kind(t), Some(TokenKind::Destructive), "{t}");
            assert!(t.len() <= MAX_TOKEN_BYTES);
        }
        for t in READ_ONLY_TOKENS {
            assert_eq!(token_kind(t), Some(TokenKind::ReadOnly), "{t}");
            assert!(t.len() <= MAX_TOKEN_BYTES);
        }
        assert!(DESTRUCTIVE_TOKENS
            .iter()
            .chain(&READ_ONLY_TOKENS)
            .any(|t| t.len() == MAX_TOKEN_BYTES));
    }

    proptest::proptest! {
        #[test]
        fn the_match_knows_only_the_listed_words(word in "[a-z]{0,10}") {
            let want = if DESTRUCTIVE_TOKENS.contains(&word.as_str()) {
                Some(TokenKind::Destructive)
            } else if READ_ONLY_TOKENS.contains(&word.as_str()) {
                Some(TokenKind::ReadOnly)
            } else {
                None
            };
            proptest::prop_assert_eq!(token_kind(&word), want);
        }
    }
}
