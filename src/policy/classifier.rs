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

pub fn classify(name: &str) -> NameClass {
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
}
