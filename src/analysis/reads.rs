//! Read analysis: a read of a secret hands the secret to the model, so reads of credential
//! files ask (`credential-read`, a warning, not reusable); every other read is clean and
//! read-only.
//!
//! # Parameter shapes (OpenClaw 2026.9.6, read from the installed host)
//! - `read {path, offset?, limit?, cursor?, optional?}` — `dist/tools-*.mjs`
//!   (`readToolInputSchema`); `file_path` is read as an alias (`formatReadCall`,
//!   `wrapWorkspaceSkillRead` in `dist/core-coding-tools-*.mjs`) and `filePath` by
//!   `resolvePathArg` in `dist/tool-display-*.mjs`.
//! - `grep {pattern, path?, glob?, …}` runs ripgrep with `--hidden` (`dist/tools-*.mjs`), so a
//!   search under `~`, `/` or `~/.ssh` returns lines of private keys; `find {pattern, path?}`
//!   and `ls {path?}` return names only.
//!
//! # What it reports
//! Applies to the tool named `read` and to tools whose name the classifier calls read-only
//! (`get_file`, `grep`, `view`, …) when their params carry a path-like key (`path`,
//! `file_path`, `filePath`, `file`, or `paths` as an array of strings); `None` otherwise.
//! - `credential-read` for a target [`paths::is_credential_path`] accepts in any spelling the
//!   host acts on (`@path`, a trailing `</arg_value>>`), including OpenClaw's own secret stores:
//!   `openclaw.json` holds gateway, channel and provider tokens, so reading it asks (the TS
//!   peer auto-passes it; the LLM-judge peer reviews it — we take the conservative side).
//! - For content searches (name tokens `grep` or `search`): also a search under a credential
//!   directory or an ancestor of one ([`paths::is_credential_dir`], also `../../..`), or a
//!   `glob` that names credential files: any alternative of its braces that is a credential
//!   path or directory, or whose last segment matches a secret file name and no ordinary one
//!   (`**/.env*`, `*.{pem,key}`, `.[e]nv`; not `*`, `.*`, `*.json`).
//! - A relative path that climbs out is also tested anchored at `/`
//!   (`../../../../proc/self/environ`).
//! - Self-protected paths are NOT escalated for reads beyond that (anchors: reads of the
//!   control plane are not self-protection); a missing or ill-typed path on `read` makes the
//!   report incomplete. Absolute targets go into [`Report::targets`]; `read_only` is true.
//!
//! # Limits and non-goals
//! One pass over the params; at most three paths named per detail. Not modelled: symlinks,
//! what a relative path resolves to, binary/image reads, and session transcripts under
//! `~/.openclaw/agents/*/sessions` (history, not credentials).

use crate::analysis::files::{self, Acc, PATH_KEYS};
use crate::analysis::paths;
use crate::analysis::shell::rules::is_metadata_url;
use crate::analysis::Report;
use crate::call::Call;
use crate::decision::Severity;
use crate::finding;
use crate::policy::classifier::{classify, tokens, NameClass};
use serde_json::Value;

/// URL keys of read-only tools (`web_fetch {url}`).
const URL_KEYS: [&str; 3] = ["url", "uri", "href"];

/// Path-like keys of read-only tools beyond [`PATH_KEYS`].
const EXTRA_KEYS: [&str; 1] = ["file"];

/// Analyses a read-like call; `None` when the tool does not read files.
pub fn analyze(call: &Call) -> Option<Report> {
    let is_read = call.tool_name.eq_ignore_ascii_case("read");
    if !is_read && !matches!(classify(&call.tool_name), NameClass::ReadOnly(_)) {
        return None;
    }
    let params = &call.params;
    let mut acc = Acc::new();
    let mut found: Vec<&str> = Vec::new();
    if is_read {
        found = files::path_args(params, &mut acc);
    } else {
        for key in PATH_KEYS.iter().chain(EXTRA_KEYS.iter()) {
            if let Some(Value::String(s)) = params.get(*key) {
                found.push(s);
            }
        }
        if let Some(Value::Array(items)) = params.get("paths") {
            found.extend(items.iter().filter_map(Value::as_str));
        }
    }
    let search = tokens(&call.tool_name)
        .iter()
        .any(|t| t == "grep" || t == "search");
    // A fetch tool (`web_fetch {url}`) aimed at the cloud metadata service reads instance
    // credentials from the gateway's host (SSRF), like `curl 169.254.169.254` does.
    let metadata: Vec<&str> = URL_KEYS
        .iter()
        .filter_map(|k| params.get(*k).and_then(Value::as_str))
        .filter(|u| is_metadata_url(u))
        .collect();
    if !is_read
        && found.is_empty()
        && metadata.is_empty()
        && !(search && params.contains_key("glob"))
    {
        return None;
    }
    for url in metadata {
        acc.note(
            &finding::CLOUD_METADATA,
            Severity::Warning,
            "fetches the cloud metadata service",
            files::quoted(url),
        );
    }
    for raw in found.iter().filter(|s| !s.trim().is_empty()) {
        let forms = files::spellings(raw);
        if forms.iter().any(|s| paths::is_secret_to_read(s)) {
            acc.note(
                &finding::CREDENTIAL_READ,
                Severity::Warning,
                "reads",
                files::quoted(raw),
            );
        } else if search && forms.iter().any(|s| paths::is_credential_dir(s)) {
            acc.note(
                &finding::CREDENTIAL_READ,
                Severity::Warning,
                "searches file contents under",
                files::quoted(raw),
            );
        }
        let eff = forms.last().copied().unwrap_or("");
        if paths::is_absolute(eff) {
            let t = paths::normalize(eff).render();
            acc.target(t);
        }
    }
    if search {
        if let Some(Value::String(glob)) = params.get("glob") {
            let g = glob.trim();
            if credential_glob(g) {
                acc.note(
                    &finding::CREDENTIAL_READ,
                    Severity::Warning,
                    "searches credential files matching",
                    files::quoted(g),
                );
            }
        }
    }
    let mut report = acc.finish();
    report.read_only = true;
    Some(report)
}

/// Longest glob matched against names, in bytes (a longer one is only tested literally).
const MAX_GLOB: usize = 256;

/// File names that hold secrets ([`paths::is_credential_path`]) a glob may pick out.
const SECRET_NAMES: [&str; 31] = [
    ".env",
    ".env.local",
    ".env.production",
    "prod.env",
    ".envrc",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "server.pem",
    "server.key",
    "cert.p12",
    "cert.pfx",
    "deploy.ppk",
    "release.keystore",
    "keystore.jks",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".my.cnf",
    "credentials",
    "credentials.json",
    "secrets.yaml",
    "secrets.json",
    "master.key",
    "openclaw.json",
    "terraform.tfstate",
    ".vault-token",
    "shadow",
];

/// Ordinary file names: a glob that matches one of these selects files in general, not
/// secrets (`*`, `.*`, `*.json`).
const ORDINARY_NAMES: [&str; 9] = [
    "main.rs",
    "index.ts",
    "readme.md",
    "package.json",
    ".gitignore",
    "config.yaml",
    "notes.txt",
    "makefile",
    ".editorconfig",
];

/// A content search's `glob` names credential files: for any alternative of its braces, a
/// literal credential path, a credential directory in its path (`**/.ssh/*`), or a last
/// segment whose pattern matches a secret file name and no ordinary one (`**/.env*`,
/// `*.{pem,key}`, `.[e]nv`, `.n?trc`, `id_*`).
fn credential_glob(glob: &str) -> bool {
    let alternatives = paths::expand_braces(glob, 16).unwrap_or_else(|| vec![glob.to_owned()]);
    alternatives.iter().any(|alt| {
        let alt = alt.trim_start_matches('!');
        if paths::is_credential_path(alt) || paths::is_credential_dir(alt) {
            return true;
        }
        let last = alt
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if last.len() > MAX_GLOB || !last.contains(['*', '?', '[']) {
            return false;
        }
        SECRET_NAMES.iter().any(|n| glob_matches(&last, n))
            && !ORDINARY_NAMES.iter().any(|n| glob_matches(&last, n))
    })
}

/// `name` matches the glob segment `pat`: `*` (any run), `?` (one character), `[…]` classes
/// with ranges and `!`/`^` negation; anything else literally. Linear backtracking on the last
/// `*` (no recursion).
fn glob_matches(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let c = n.get(ni).copied().unwrap_or('\0');
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => class_at(&p, pi, c),
            Some(&x) if x == c => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ni += 1;
            }
            (None, Some((sp, sn))) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            (None, None) => return false,
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(|&x| x == '*')
}

/// The `[…]` class opened at `p[at]` matched against `c`: the index after the class when it
/// matches; `None` otherwise. An unclosed `[` is a literal.
fn class_at(p: &[char], at: usize, c: char) -> Option<usize> {
    let mut i = at + 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while let Some(&x) = p.get(i) {
        if x == ']' && i > start {
            return (hit != negated).then_some(i + 1);
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            let e = p.get(i + 2).copied().unwrap_or(x);
            hit |= x <= c && c <= e;
            i += 3;
        } else {
            hit |= x == c;
            i += 1;
        }
    }
    // No closing `]`: the `[` is literal.
    (c == '[').then_some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, params: serde_json::Value) -> Call {
        let req = serde_json::json!({"toolName": tool, "params": params});
        Call::parse(&req.to_string()).unwrap()
    }

    fn read(path: &str) -> Report {
        analyze(&call("read", serde_json::json!({ "path": path }))).unwrap()
    }

    fn asks(r: &Report) -> bool {
        r.findings.iter().any(|f| f.id == "credential-read")
    }

    #[test]
    fn ordinary_reads_are_clean_and_read_only() {
        for p in [
            "README.md",
            "src/main.rs",
            "docs/credentials.md",
            "package.json",
            "/etc/os-release",
            "~/project/a.ts",
        ] {
            let r = read(p);
            assert!(r.findings.is_empty(), "{p}: {:?}", r.findings);
            assert!(r.complete && r.read_only, "{p}");
        }
    }

    #[test]
    fn private_keys_ask() {
        for p in [
            "~/.ssh/id_rsa",
            "/home/u/.ssh/id_ed25519",
            "$HOME/.ssh/id_ecdsa",
            "certs/server.key",
            "tls.pem",
        ] {
            let r = read(p);
            assert!(asks(&r), "{p}");
            assert!(r.read_only && r.complete);
            let f = r
                .findings
                .iter()
                .find(|f| f.id == "credential-read")
                .unwrap();
            assert_eq!(f.severity, Severity::Warning);
            assert!(!f.reusable());
        }
    }

    #[test]
    fn public_keys_and_known_hosts_do_not_ask() {
        for p in ["~/.ssh/id_rsa.pub", "~/.ssh/known_hosts", "~/.ssh/config"] {
            assert!(!asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn dotenv_asks_but_examples_do_not() {
        for p in [
            ".env",
            "app/.env.local",
            "/srv/app/.env.production",
            "prod.env",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
        for p in [
            ".env.example",
            ".env.sample",
            ".env.template",
            "src/env.ts",
            "environment.md",
        ] {
            assert!(!asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn cloud_and_tool_credentials_ask() {
        for p in [
            "~/.aws/credentials",
            "~/.kube/config",
            "~/.docker/config.json",
            "~/.netrc",
            "~/.npmrc",
            "~/.git-credentials",
            "~/.config/gh/hosts.yml",
            "~/.config/gcloud/application_default_credentials.json",
            "/etc/shadow",
            "/proc/self/environ",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn openclaw_config_and_secret_stores_ask() {
        for p in [
            "~/.openclaw/openclaw.json",
            "/home/u/.openclaw/openclaw.json",
            "~/.openclaw/credentials/oauth.json",
            "~/.openclaw/gateway.token",
            "~/.openclaw/agents/main/agent/openclaw-agent.sqlite",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn self_protected_reads_are_not_escalated() {
        for p in [
            "~/.openclaw/extensions/human-gate/index.js",
            "~/.openclaw/logs/commands.log",
            "~/.openclaw/workspace/AGENTS.md",
        ] {
            let r = read(p);
            assert!(r.findings.is_empty(), "{p}: {:?}", r.findings);
            assert!(r.findings.iter().all(|f| f.id != "self-protection"));
        }
    }

    #[test]
    fn path_aliases_and_host_rewrites() {
        for params in [
            serde_json::json!({"file_path": "~/.ssh/id_rsa"}),
            serde_json::json!({"filePath": "~/.ssh/id_rsa"}),
            serde_json::json!({"path": "@~/.ssh/id_rsa"}),
            serde_json::json!({"path": ".env</arg_value>>"}),
        ] {
            let r = analyze(&call("read", params.clone())).unwrap();
            assert!(asks(&r), "{params}");
        }
    }

    #[test]
    fn malformed_read_is_incomplete() {
        for params in [
            serde_json::json!({}),
            serde_json::json!({"path": 1}),
            serde_json::json!({"path": ""}),
        ] {
            let r = analyze(&call("read", params.clone())).unwrap();
            assert!(!r.complete, "{params}");
            assert!(r.findings.iter().any(|f| f.id == "analysis-incomplete"));
        }
    }

    #[test]
    fn globs_that_pick_out_credential_files() {
        for g in [
            "**/.env*",
            "*.{pem,key}",
            "{.env,.env.*}",
            "**/.[e]nv",
            ".n?trc",
            "id_*",
            "**/.ssh/*",
            "*.PEM",
            "{*.md,*.p12}",
            "[!a].env",
        ] {
            assert!(credential_glob(g), "{g}");
        }
        for g in [
            "*",
            ".*",
            "**/*",
            "*.json",
            "**/*.{ts,tsx}",
            ".env.example",
            "{*.md,*.txt}",
            "src/**",
            "[",
            "*.[",
        ] {
            assert!(!credential_glob(g), "{g}");
        }
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b*c", "axxbyy"));
        assert!(glob_matches("[a-c]x", "bx"));
        assert!(!glob_matches("[!a-c]x", "bx"));
        assert!(glob_matches("*", ""));
    }

    #[test]
    fn absolute_targets_are_recorded() {
        assert_eq!(
            read("/srv/app/../app/README.md").targets,
            ["/srv/app/README.md"]
        );
        assert!(read("README.md").targets.is_empty());
    }

    #[test]
    fn read_only_named_tools_with_paths_are_checked() {
        let r = analyze(&call(
            "get_file",
            serde_json::json!({"file": "~/.aws/credentials"}),
        ))
        .unwrap();
        assert!(asks(&r));
        let r = analyze(&call(
            "viewFiles",
            serde_json::json!({"paths": ["a.md", "~/.ssh/id_ed25519"]}),
        ))
        .unwrap();
        assert!(asks(&r));
        let r = analyze(&call("list_dir", serde_json::json!({"path": "src"}))).unwrap();
        assert!(r.findings.is_empty() && r.read_only);
    }

    #[test]
    fn tools_that_do_not_read_paths_are_none() {
        assert!(analyze(&call("web_search", serde_json::json!({"query": "x"}))).is_none());
        assert!(analyze(&call("write", serde_json::json!({"path": "~/.ssh/id_rsa"}))).is_none());
        assert!(analyze(&call("readWriteFile", serde_json::json!({"path": ".env"}))).is_none());
        assert!(analyze(&call("exec", serde_json::json!({"command": "cat .env"}))).is_none());
        assert!(analyze(&call("frobnicate", serde_json::json!({"path": ".env"}))).is_none());
    }

    #[test]
    fn listing_a_credential_directory_is_not_a_read() {
        for t in ["ls", "find"] {
            let r = analyze(&call(
                t,
                serde_json::json!({"path": "~/.ssh", "pattern": "*"}),
            ))
            .unwrap();
            assert!(!asks(&r), "{t}");
        }
    }

    #[test]
    fn content_search_under_credentials_or_their_ancestors_asks() {
        for p in ["~/.ssh", "~", "/", "/home/u", "~/.openclaw/credentials"] {
            let r = analyze(&call(
                "grep",
                serde_json::json!({"pattern": "PRIVATE KEY", "path": p}),
            ))
            .unwrap();
            assert!(asks(&r), "{p}");
        }
        for p in ["src", ".", "/home/u/project", "~/project"] {
            let r = analyze(&call(
                "grep",
                serde_json::json!({"pattern": "TODO", "path": p}),
            ))
            .unwrap();
            assert!(!asks(&r), "{p}");
        }
    }

    #[test]
    fn content_search_by_credential_glob_asks() {
        for g in [".env", "*.pem", ".env*", "**/id_rsa"] {
            let r = analyze(&call(
                "grep",
                serde_json::json!({"pattern": "KEY", "path": ".", "glob": g}),
            ))
            .unwrap();
            assert!(asks(&r), "{g}");
        }
        for g in ["*.ts", "*.md", ".env.example"] {
            let r = analyze(&call(
                "grep",
                serde_json::json!({"pattern": "KEY", "path": ".", "glob": g}),
            ))
            .unwrap();
            assert!(!asks(&r), "{g}");
        }
    }

    #[test]
    fn details_name_the_path_never_contents() {
        let r = read("~/.ssh/id_rsa");
        assert_eq!(r.findings[0].detail, "reads `~/.ssh/id_rsa`");
    }

    #[test]
    fn tool_name_read_is_case_insensitive() {
        let r = analyze(&call("Read", serde_json::json!({"path": "~/.ssh/id_rsa"}))).unwrap();
        assert!(asks(&r));
    }

    #[test]
    fn history_files_ask() {
        for p in [
            "~/.bash_history",
            "/root/.zsh_history",
            "~/.python_history",
            "C:\\Users\\u\\AppData\\Roaming\\Microsoft\\Windows\\PowerShell\\PSReadLine\\ConsoleHost_history.txt",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
        for p in ["docs/history.md", "src/history.rs", "HISTORY.txt"] {
            assert!(!asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn windows_credential_paths_ask() {
        for p in [
            "C:\\Users\\me\\.ssh\\id_rsa",
            "%USERPROFILE%\\.aws\\credentials",
            "c:/users/me/.kube/config",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn public_system_files_do_not_ask() {
        for p in [
            "/etc/passwd",
            "/etc/hosts",
            "/proc/cpuinfo",
            "~/.bashrc",
            "~/.gitconfig",
        ] {
            assert!(!asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn non_string_paths_of_other_tools_are_ignored() {
        let r = analyze(&call("get_items", serde_json::json!({"path": 3})));
        assert!(r.is_none());
        let r = analyze(&call(
            "viewFiles",
            serde_json::json!({"paths": [1, "~/.ssh/id_rsa", null]}),
        ))
        .unwrap();
        assert!(asks(&r));
    }

    #[test]
    fn search_by_glob_alone_is_checked() {
        let r = analyze(&call(
            "grep",
            serde_json::json!({"pattern": "AKIA", "glob": "**/.env"}),
        ))
        .unwrap();
        assert!(asks(&r));
        assert!(analyze(&call(
            "web_search",
            serde_json::json!({"query": "x", "glob": ".env"})
        ))
        .is_some());
        assert!(analyze(&call("memory_search", serde_json::json!({"query": "x"}))).is_none());
    }

    #[test]
    fn many_credential_paths_are_counted_not_listed() {
        let paths: Vec<String> = (0..50).map(|i| format!("keys/k{i}.pem")).collect();
        let r = analyze(&call("viewFiles", serde_json::json!({ "paths": paths }))).unwrap();
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].detail,
            "reads `keys/k0.pem`, `keys/k1.pem`, `keys/k2.pem` and 47 more"
        );
    }

    #[test]
    fn home_anchored_targets_are_normalized() {
        assert_eq!(read("$HOME/docs/../notes.md").targets, ["~/notes.md"]);
        assert_eq!(read("C:\\proj\\README.md").targets, ["c:/proj/README.md"]);
    }

    #[test]
    fn openclaw_dotenv_and_legacy_auth_store_ask() {
        for p in [
            "~/.openclaw/.env",
            "/root/.openclaw/agents/ops/agent/auth-profiles.json",
            "/home/u/.openclaw/secrets.json",
        ] {
            assert!(asks(&read(p)), "{p}");
        }
    }

    #[test]
    fn an_empty_alias_next_to_a_real_path_is_incomplete_but_checked() {
        let r = analyze(&call(
            "read",
            serde_json::json!({"path": "~/.ssh/id_rsa", "file_path": ""}),
        ))
        .unwrap();
        assert!(!r.complete && asks(&r));
    }
}
