//! The environment a command runs in: loader and helper-command variables (`LD_PRELOAD`,
//! `DYLD_*`, `NODE_OPTIONS`, `PATH`, `GIT_SSH_COMMAND`, `GIT_CONFIG_*`, `EDITOR`, …) set by
//! leading assignments, `env`, `export`/`declare`, `setx` or `$env:` → `loader-injection`
//! (command-valued ones also become payloads); history tampering (`history -c`, `unset
//! HISTFILE`, `HISTSIZE=0`, `set +o history`, `Clear-History`, PSReadLine `SaveNothing`, event
//! logs cleared by `wevtutil cl` / `Clear-EventLog`; the
//! history files themselves are handled where they are written or deleted); `cd`/`pushd`/
//! `popd`/`Set-Location` (`effects.changes_dir`); `alias NAME=VALUE` (the value is a payload).

use super::{shown, Call, Category, Out};
use crate::analysis::shell::command::Dialect;
use crate::finding;

/// Environment rules for the program itself (`history`, `unset`, `export`, `cd`, …).
pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    match c.prog {
        "history" if super::has_opt(c.args, &['c', 'w', 'd'], &[]) => {
            out.add(
                &finding::HISTORY_TAMPERING,
                "`history` clears or rewrites history",
            );
        }
        "unset" => {
            if let Some(w) = c.args.iter().find(|w| {
                matches!(
                    w.text.to_ascii_uppercase().as_str(),
                    "HISTFILE" | "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST"
                )
            }) {
                out.add(
                    &finding::HISTORY_TAMPERING,
                    format!("unsets {} so history is not saved", shown(&w.text)),
                );
            }
        }
        "set" | "setopt" | "unsetopt" | "shopt" => {
            let text: Vec<String> = c.args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
            let off = text
                .windows(2)
                .any(|p| matches!(p, [a, b] if (a == "+o" || a == "-u") && b == "history"))
                || (c.prog == "unsetopt" && text.iter().any(|t| t.contains("hist")));
            if off {
                out.add(&finding::HISTORY_TAMPERING, "turns shell history off");
            }
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            for w in c.args {
                if let Some((k, v)) = w.text.split_once('=') {
                    if !k.is_empty() && !k.starts_with('-') {
                        env_var(c, out, k.trim_end_matches('+'), v);
                    }
                }
            }
        }
        "wevtutil"
            if matches!(
                c.arg(0).map(str::to_ascii_lowercase).as_deref(),
                Some("cl" | "clear-log")
            ) =>
        {
            out.not_read_only();
            out.add(
                &finding::HISTORY_TAMPERING,
                "`wevtutil cl` clears a Windows event log",
            );
        }
        "setx" => {
            if let (Some(k), Some(v)) = (c.arg(0), c.arg(1)) {
                env_var(c, out, k, v);
            }
        }
        "cd" | "chdir" | "pushd" | "popd" | "sl" | "set-location" | "push-location"
        | "pop-location" => change_dir(c, out),
        "alias" => {
            // `alias ls='rm -rf ~'`: what the alias runs, as if it ran (zsh expands aliases
            // in scripts; bash does with `expand_aliases`).
            for w in c.args {
                if let Some((_, value)) = w.text.split_once('=') {
                    out.payload(Dialect::Posix, value.to_owned(), "alias", false);
                }
            }
        }
        _ => {}
    }
    match c.ps() {
        "clear-history" => out.add(
            &finding::HISTORY_TAMPERING,
            "`Clear-History` clears history",
        ),
        "clear-eventlog" | "remove-eventlog" => {
            out.not_read_only();
            out.add(
                &finding::HISTORY_TAMPERING,
                "clears or removes a Windows event log",
            );
        }
        "set-psreadlineoption" => {
            let lower: Vec<String> = c.args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
            if lower.iter().any(|t| t == "savenothing")
                || lower.iter().any(|t| t.contains("historysavepath"))
            {
                out.add(
                    &finding::HISTORY_TAMPERING,
                    "`Set-PSReadLineOption` stops or redirects history",
                );
            }
        }
        _ => {}
    }
}

/// Names whose values change how programs are loaded or what they run.
const LOADER_VARS: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "PATH",
    "PATHEXT",
    "COMSPEC",
    "PROMPT_COMMAND",
    "PS4",
    "IFS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "GIT_PROXY_COMMAND",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "DOTNET_STARTUP_HOOKS",
    "CORECLR_ENABLE_PROFILING",
    "CORECLR_PROFILER_PATH",
];

/// Variables whose value is a command line something will run.
const COMMAND_VARS: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_PROXY_COMMAND",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "PROMPT_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
];

/// True for environment variables that change how programs are loaded or which helper
/// commands they run (`LD_PRELOAD`, `DYLD_*`, `NODE_OPTIONS`, `PATH`, `GIT_SSH_COMMAND`,
/// `GIT_CONFIG_*`, …), case-insensitively (Windows names are).
pub fn is_loader_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    LOADER_VARS.contains(&upper.as_str())
        || upper.starts_with("DYLD_")
        || upper.starts_with("LD_")
        || upper.starts_with("GIT_CONFIG")
        || upper.starts_with("CORECLR_")
}

/// One `NAME=value` set by an assignment, `env`, `export`, `$env:` or `setx`.
pub(super) fn env_var(c: &Call<'_, '_>, out: &mut Out, name: &str, value: &str) {
    let upper = name.to_ascii_uppercase();
    if is_loader_variable(&upper) {
        out.add(&finding::LOADER_INJECTION, format!("sets {}", shown(name)));
        if COMMAND_VARS.contains(&upper.as_str()) && !value.trim().is_empty() {
            out.payload(
                Dialect::Posix,
                value.to_owned(),
                "an environment command",
                false,
            );
        }
    }
    // `BASH_ENV=<(echo …) bash -c …`, `ENV=f sh -i` after writing f: a shell's start-up
    // file whose text the line shows runs as a script.
    if matches!(upper.as_str(), "BASH_ENV" | "ENV") {
        if let Some((text, _)) = c.ctx.known.text(value) {
            out.payload(
                Dialect::Posix,
                text.to_owned(),
                "a shell start-up file",
                false,
            );
        }
    }
    let v = value.trim();
    let tamper = match upper.as_str() {
        "HISTFILE" => true,
        "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST" => v.is_empty() || v == "0",
        "HISTIGNORE" => v.contains('*'),
        "HISTCONTROL" => false,
        _ => false,
    };
    if tamper {
        out.add(
            &finding::HISTORY_TAMPERING,
            format!("sets {} so commands are not recorded", shown(name)),
        );
    }
}

/// Leading assignments and `env NAME=value` of the command.
pub(super) fn environment(c: &Call<'_, '_>, out: &mut Out) {
    for (k, v) in &c.cmd.env {
        // `IFS= read -r line`: the separators the `read` builtin splits its input with; it
        // loads and runs nothing (an unwrapped builtin: `env IFS= read` runs no builtin).
        if k == "IFS" && c.prog == "read" && c.cmd.wrappers.is_empty() {
            continue;
        }
        env_var(c, out, k, v);
    }
}

/// `cd DIR`, `pushd DIR`, `popd`, `Set-Location DIR`: where later commands run.
fn change_dir(c: &Call<'_, '_>, out: &mut Out) {
    let target = c.args.iter().map(|w| w.text.as_str()).find(|t| {
        !matches!(*t, "-L" | "-P" | "-e" | "-@" | "--" | "/d" | "/D")
            && !t.starts_with("-Path")
            && !t.starts_with("-LiteralPath")
    });
    let dir = match (c.prog, target) {
        ("popd" | "pop-location", _) | (_, Some("-" | "+1" | "-1")) => "$OLDPWD".to_owned(),
        (_, None) => "~".to_owned(),
        (_, Some(t)) => t.to_owned(),
    };
    out.effects().changes_dir = Some(dir);
    out.category(Category::ReadOnly);
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::finding::*;

    #[test]
    fn history_tampering() {
        for s in [
            "history -c",
            "history -d 10",
            "history -w",
            "unset HISTFILE",
            "HISTFILE=/dev/null",
            "export HISTFILE=/dev/null",
            "export HISTSIZE=0",
            "HISTSIZE=0 bash",
            "set +o history",
            "unsetopt HIST_SAVE_BY_COPY",
        ] {
            assert_has(s, &HISTORY_TAMPERING);
        }
        assert_not("history", &HISTORY_TAMPERING);
        assert_not("export HISTCONTROL=ignoreboth", &HISTORY_TAMPERING);
        assert_not("export HISTSIZE=10000", &HISTORY_TAMPERING);
    }

    #[test]
    fn loader_injection() {
        for s in [
            "LD_PRELOAD=/tmp/x.so /bin/true",
            "NODE_OPTIONS=--require=/tmp/x.js node -v",
            "PATH=/tmp/evil ls",
            "GIT_EXTERNAL_DIFF=/tmp/x git diff",
            "env DYLD_INSERT_LIBRARIES=/tmp/x.dylib ls",
            "export LD_PRELOAD=/tmp/x.so",
            "export PATH=/tmp:$PATH",
            "GIT_CONFIG_COUNT=1 git status",
            "setx PATH C:\\evil",
            "PYTHONPATH=/tmp python x.py",
            "BASH_ENV=/tmp/x bash -c ls",
        ] {
            assert_has(s, &LOADER_INJECTION);
            assert_not_critical(s);
        }
        assert!(payloads("GIT_SSH_COMMAND='sh -c reboot' git fetch")
            .iter()
            .any(|p| p == "sh -c reboot"));
        assert!(is_loader_variable("Path"));
        assert!(!is_loader_variable("HOME"));
        assert_not("FOO=1 ls", &LOADER_INJECTION);
    }

    /// A shell start-up file whose text the line shows runs as a script.
    #[test]
    fn shown_start_up_files_run() {
        for s in [
            "BASH_ENV=<(echo 'rm -rf /') bash -c true",
            "ENV=<(printf 'rm -rf ~') sh -i",
            "echo 'rm -rf ~' > /tmp/e; BASH_ENV=/tmp/e bash -c ls",
        ] {
            assert!(
                deep_findings(s)
                    .iter()
                    .any(|f| f.id == "recursive-delete-broad"),
                "{s}"
            );
        }
        assert_deep_not_critical("BASH_ENV=<(echo 'echo hi') bash -c true");
        assert_deep_not_critical("BASH_ENV=/tmp/x bash -c ls");
    }
}
