//! The gate itself through the `openclaw` CLI: read subcommands (`status`, `plugins list`,
//! `config get`, `approvals pending`, `logs`, `--help`) are read-only; anything that
//! reconfigures, disables, updates, installs or approves through it (`plugins disable|
//! uninstall|install`, `config set|unset|edit|patch|apply|import|reset`, `approvals resolve|
//! approve`, `exec-policy set`, `hooks …`, `gateway stop|restart`, `update`, `reset`,
//! `uninstall`, `doctor --fix`) is `self-protection`; other subcommands are a
//! `control-plane-change`. Writes to `openclaw.json` and `.openclaw` paths are caught where
//! files are written; stopping the gateway where services are (`services`).
//!
//! Permission changes on the gate's files ([`permissions`], called by the `chmod`, `chown`,
//! `chattr`, `setfacl`, `icacls` and `Set-Acl` rules) are `self-protection` when they can stop
//! OpenClaw from loading or its user from changing them: the owner losing read access (or
//! search/execute on a directory: `chmod 000`, `chmod -R 600`, `chmod a-rwx`), every user
//! gaining write access, another owner (`chown root`), immutable or append-only attributes set
//! or cleared (`chattr +i`/`-i`), ACL entries added or denials. Tightening what others may do
//! (`chmod 600 ~/.openclaw/openclaw.json`, `chmod 700 ~/.openclaw`, `chmod -R go-rwx`) is the
//! usual hardening and stays quiet.

use super::{Call, Category, Out};
use crate::analysis::paths;
use crate::analysis::shell::model::Word;
use crate::finding;

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    if c.prog == "openclaw" {
        openclaw(c.plain(), c.args, out);
    } else if matches!(
        c.prog,
        "node" | "bun" | "deno" | "tsx" | "ts-node" | "nodejs"
    ) {
        // `node …/openclaw.mjs plugins disable human-gate`: the CLI's entry script run by a
        // JavaScript runtime is the CLI.
        let is_entry = |w: &&&Word| !w.text.starts_with('-') && openclaw_entry(&w.text);
        let plain = c.plain();
        if let (Some(at), Some(i)) = (
            plain.iter().position(|w| is_entry(&w)),
            c.args.iter().position(|w| is_entry(&w)),
        ) {
            openclaw(
                plain.get(at + 1..).unwrap_or(&[]),
                c.args.get(i + 1..).unwrap_or(&[]),
                out,
            );
        }
    }
}

/// `who` changes the permissions, owner or attributes of `target`; `harmless`: the change
/// leaves its owner's access and only takes access from others (see the module doc). A
/// target that is the gate's own (`~/.openclaw/…` outside agent workspaces, `openclaw.json`)
/// is `self-protection` otherwise.
pub(super) fn permissions(
    c: &Call<'_, '_>,
    out: &mut Out,
    who: &str,
    target: &Word,
    harmless: bool,
) {
    if harmless {
        return;
    }
    // (Relative to a directory an earlier command moved to: `cd ~/.openclaw && chmod 0 x`.)
    let resolved = c.resolve(&target.text);
    if paths::may_be_self_protected(&resolved) && paths::is_self_protected(&resolved) {
        out.not_read_only();
        out.add(
            &finding::SELF_PROTECTION,
            format!(
                "{who} changes who may read or change the gate's own files {}",
                super::shown(&resolved)
            ),
        );
    }
}

/// A script path that is the `openclaw` CLI: its entry (`openclaw.mjs`, `openclaw.js`, the
/// `openclaw` bin), any file of the installed package (`node_modules/openclaw/dist/…`), or
/// Deno's `npm:openclaw`.
fn openclaw_entry(path: &str) -> bool {
    let named = path
        .as_bytes()
        .windows(8)
        .any(|w| w.eq_ignore_ascii_case(b"openclaw"));
    if !named {
        return false;
    }
    let lower = path.to_ascii_lowercase().replace('\\', "/");
    let base = lower.rsplit('/').next().unwrap_or("");
    matches!(
        base,
        "openclaw" | "openclaw.mjs" | "openclaw.js" | "openclaw.cjs"
    ) || lower.contains("node_modules/openclaw/")
        || lower == "npm:openclaw"
        || lower.starts_with("npm:openclaw@")
}

/// The `openclaw` CLI (`plain`: its operands, `args`: every argument): read subcommands are
/// read-only; anything that reconfigures, disables, updates or approves through it is
/// `self-protection`.
fn openclaw(plain: &[&Word], args: &[&Word], out: &mut Out) {
    const CRITICAL_GROUPS: &[&str] = &[
        "update",
        "upgrade",
        "reset",
        "uninstall",
        "configure",
        "onboard",
        "setup",
        "init",
    ];
    const MUTATING: &[&str] = &[
        "disable",
        "uninstall",
        "remove",
        "rm",
        "delete",
        "del",
        "install",
        "update",
        "upgrade",
        "enable",
        "reload",
        "set",
        "unset",
        "edit",
        "patch",
        "apply",
        "import",
        "reset",
        "resolve",
        "allow",
        "approve",
        "grant",
        "revoke",
        "deny",
        "stop",
        "restart",
        "link",
        "unlink",
        "add",
        "clear",
        "accept",
        "trust",
        "rotate",
        "migrate",
        "write",
        "purge",
        "prune",
        "kill",
        "replace",
        "restore",
        "fix",
        "repair",
        "login",
        "logout",
        "pair",
        "unpair",
    ];
    const READ: &[&str] = &[
        "status",
        "list",
        "ls",
        "show",
        "get",
        "inspect",
        "pending",
        "logs",
        "log",
        "info",
        "view",
        "describe",
        "path",
        "which",
        "help",
        "version",
        "doctor",
        "health",
        "check",
        "diff",
        "audit",
        "history",
        "tail",
        "whoami",
        "search",
        "docs",
        "dashboard",
        "validate",
        "schema",
        "print",
        "cat",
        "explain",
        "tree",
        "config",
        "plugins",
        "approvals",
        "hooks",
        "gateway",
        "exec-policy",
        "agents",
        "sessions",
        "channels",
        "models",
        "skills",
        "nodes",
        "devices",
        "cron",
        "security",
        "sandbox",
        "pairing",
        "secrets",
        "memory",
    ];
    let words: Vec<String> = plain.iter().map(|w| w.text.to_ascii_lowercase()).collect();
    let flags: Vec<String> = args
        .iter()
        .filter(|w| w.text.starts_with('-'))
        .map(|w| w.text.to_ascii_lowercase())
        .collect();
    let fixes = flags.iter().any(|f| {
        matches!(
            f.as_str(),
            "--fix" | "--repair" | "--force" | "--yes" | "-y"
        )
    });
    let group = words.first().map(String::as_str).unwrap_or("");
    let hooks_mutation = matches!(group, "hooks" | "hook")
        && words.get(1).is_some_and(|w| !READ.contains(&w.as_str()));
    let critical = CRITICAL_GROUPS.contains(&group)
        || words.iter().skip(1).any(|w| MUTATING.contains(&w.as_str()))
        || hooks_mutation
        || (fixes
            && matches!(
                group,
                "doctor" | "security" | "audit" | "config" | "plugins"
            ));
    out.effects().network |= matches!(group, "message" | "agent" | "send");
    if critical {
        out.not_read_only();
        let what: Vec<&str> = words.iter().take(2).map(String::as_str).collect();
        out.add(
            &finding::SELF_PROTECTION,
            format!(
                "`openclaw {}` changes the gateway or the gate",
                what.join(" ")
            ),
        );
        return;
    }
    let all_read = words.iter().take(2).all(|w| READ.contains(&w.as_str()))
        && !matches!(group, "gateway" if words.len() == 1);
    if all_read && !fixes {
        out.category(Category::ReadOnly);
    } else {
        out.not_read_only();
        out.add(
            &finding::CONTROL_PLANE_CHANGE,
            format!("`openclaw {group}` changes the gateway's state"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::finding::*;

    #[test]
    fn openclaw_cli() {
        for s in [
            "openclaw plugins disable human-gate",
            "openclaw plugins uninstall human-gate",
            "openclaw plugins install evil",
            "openclaw config set plugins.entries.human-gate.enabled false",
            "openclaw config unset x",
            "openclaw config edit",
            "openclaw approvals resolve abc --allow",
            "openclaw approvals approve abc",
            "openclaw exec-policy set full",
            "openclaw hooks disable gate",
            "openclaw gateway stop",
            "openclaw gateway restart",
            "openclaw update",
            "openclaw reset",
            "openclaw uninstall",
            "openclaw doctor --fix",
            "openclaw --profile x config set a b",
            "npx openclaw config set a b",
            "node /usr/lib/node_modules/openclaw/openclaw.mjs plugins disable human-gate",
            "node --no-warnings ./openclaw.mjs config set a b",
            "bun 'C:\\npm\\node_modules\\openclaw\\dist\\entry.js' plugins uninstall x",
            "deno run -A npm:openclaw@latest plugins disable human-gate",
        ] {
            assert_has(s, &SELF_PROTECTION);
            assert_critical(s);
        }
        for s in [
            "openclaw status",
            "openclaw plugins list",
            "openclaw config get plugins",
            "openclaw approvals pending",
            "openclaw logs",
            "openclaw plugins inspect human-gate",
            "openclaw --version",
            "openclaw gateway status",
        ] {
            assert_read_only(s);
        }
        assert_has("openclaw message send hi", &CONTROL_PLANE_CHANGE);
        assert_not_critical("openclaw message send hi");
        // Other scripts whose names only mention the CLI.
        assert_not(
            "node scripts/openclaw-report.js plugins disable x",
            &SELF_PROTECTION,
        );
        assert_not("node server.js config set a b", &SELF_PROTECTION);
        assert_not_critical("node ./openclaw.mjs plugins list");
    }
}
