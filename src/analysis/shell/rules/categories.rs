//! Categories (read-only, dev-build, dev-test, dev-format), package installs and package
//! runners, and what simple filters print or decode.
//!
//! - `package-install`: package managers' install/add/update forms and transitive runs of a
//!   package (`npx`, `pnpm dlx`, `yarn dlx`, `bunx`, `uvx`, `pipx run`); uninstalling the gate
//!   itself (`npm uninstall openclaw-human-gate`) is `self-protection`.
//! - Runners whose inner command is checked one level deeper (a package named unlike its
//!   command is that command: `npx netlify-cli deploy` is `netlify deploy`): `npx`/`npm exec`, `pnpm
//!   exec|dlx`, `yarn exec|dlx`, `bunx`, `uvx`/`uv run`/`uv tool run`, `pipx run`, `poetry
//!   run`, `pipenv run`, `conda run`, `hatch run`, `pdm run`, `bundle exec`, `dotenv --`,
//!   `cross-env`, `direnv exec`, `nix develop -c`, `mise exec`, `op run --`, `doppler run --`,
//!   `aws-vault exec … --`.
//! - Package scripts (`npm run x`, `yarn x`, `make x`) are categorised by their name (test,
//!   lint/format, build); others run code the gate cannot see (`interpreter-file`).
//! - `effects.prints` for `echo`/`printf`/`Write-Output`/`cat <<EOF`; `effects.decodes` for
//!   `base64 -d`, `xxd -r`, `tr`, `rev`, `zcat` and friends.

use super::{cluster, has_opt, parse, shown, system, Call, Category, Out};
use crate::analysis::shell::command::Dialect;
use crate::analysis::shell::model::Word;
use crate::finding;

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    // Keyed on program and cmdlet names: only where they can act ([`super::named`]).
    if c.may_act(super::named::PACKAGES) {
        runners(c, out);
        packages(c, out);
        scripts(c, out);
    }
    prints_and_decodes(c, out);
    if let Some(cat) = category(c, out) {
        out.category(cat);
    }
}

fn install(out: &mut Out, why: impl Into<String>) {
    out.not_read_only();
    out.add(&finding::PACKAGE_INSTALL, why);
}

/// Index of the inner command after a runner's own options (`value_opts` take a value).
fn after_options(args: &[&Word], from: usize, value_opts: &[&str]) -> usize {
    let mut i = from;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t.len() == 1 {
            return i;
        }
        let name = t.split('=').next().unwrap_or(t);
        i += if value_opts.contains(&name) && !t.contains('=') {
            2
        } else {
            1
        };
    }
    i
}

fn runners(c: &Call<'_, '_>, out: &mut Out) {
    let a = |i: usize| c.arg(i).unwrap_or("");
    // (installs a package, index of the inner command)
    let found: Option<(bool, usize)> = match c.prog {
        "npx" | "pnpx" | "bunx" => {
            if let Some(i) = c
                .args
                .iter()
                .position(|w| w.text == "-c" || w.text == "--call")
            {
                if let Some(cmd) = c.arg(i + 1) {
                    out.payload(Dialect::Posix, cmd.to_owned(), "npx -c", false);
                }
            }
            Some((
                true,
                after_options(
                    c.args,
                    0,
                    &["-p", "--package", "-c", "--call", "--registry", "--cache"],
                ),
            ))
        }
        "npm" if matches!(a(0), "exec" | "x") => Some((
            true,
            after_options(
                c.args,
                1,
                &["-p", "--package", "-c", "--call", "-w", "--workspace"],
            ),
        )),
        "pnpm" if a(0) == "dlx" => Some((true, after_options(c.args, 1, &["--package"]))),
        "pnpm" if a(0) == "exec" => Some((
            false,
            after_options(c.args, 1, &["-C", "--dir", "--filter"]),
        )),
        "yarn" if a(0) == "dlx" => Some((true, after_options(c.args, 1, &["-p", "--package"]))),
        "yarn" if a(0) == "exec" => Some((false, 1)),
        "bun" if a(0) == "x" => Some((true, after_options(c.args, 1, &[]))),
        "uvx" => Some((
            true,
            after_options(
                c.args,
                0,
                &["--from", "--with", "--python", "-p", "--index-url"],
            ),
        )),
        "uv" if a(0) == "tool" && a(1) == "run" => Some((
            true,
            after_options(c.args, 2, &["--from", "--with", "--python", "-p"]),
        )),
        "uv" if a(0) == "run" => Some((
            false,
            after_options(
                c.args,
                1,
                &[
                    "--with",
                    "--python",
                    "-p",
                    "--env-file",
                    "--project",
                    "--directory",
                    "--package",
                    "--group",
                    "--extra",
                ],
            ),
        )),
        "pipx" if a(0) == "run" => Some((
            true,
            after_options(c.args, 1, &["--spec", "--python", "--index-url"]),
        )),
        "poetry" | "pipenv" | "hatch" | "pdm" | "rye" | "devbox" if a(0) == "run" => {
            Some((false, after_options(c.args, 1, &["-e", "--env"])))
        }
        "conda" | "mamba" | "micromamba" if a(0) == "run" => Some((
            false,
            after_options(c.args, 1, &["-n", "--name", "-p", "--prefix"]),
        )),
        "bundle" | "bundler" if a(0) == "exec" => Some((false, 1)),
        "dotenv" | "dotenvx" | "env-cmd" => {
            let start = c
                .args
                .iter()
                .position(|w| w.text == "--")
                .map(|i| i + 1)
                .unwrap_or_else(|| {
                    if a(0) == "run" {
                        after_options(c.args, 1, &["-f", "-e", "--env-file"])
                    } else {
                        after_options(c.args, 0, &["-e", "-f", "-c", "-v"])
                    }
                });
            Some((false, start))
        }
        "cross-env" | "cross-env-shell" => {
            let mut i = 0;
            while let Some(w) = c.args.get(i) {
                match w.text.split_once('=') {
                    Some((k, v)) if !k.is_empty() && !k.starts_with('-') => {
                        if super::env::is_loader_variable(k) {
                            out.add(&finding::LOADER_INJECTION, format!("sets {}", shown(k)));
                        }
                        let _ = v;
                        i += 1;
                    }
                    _ => break,
                }
            }
            Some((false, i))
        }
        "direnv" if a(0) == "exec" => Some((false, 2)),
        "nix" if matches!(a(0), "develop" | "shell") => c
            .args
            .iter()
            .position(|w| w.text == "-c" || w.text == "--command")
            .map(|i| (false, i + 1)),
        "nix-shell" => {
            if let Some(i) = c
                .args
                .iter()
                .position(|w| w.text == "--run" || w.text == "--command")
            {
                if let Some(cmd) = c.arg(i + 1) {
                    out.payload(Dialect::Posix, cmd.to_owned(), "nix-shell --run", false);
                }
            }
            None
        }
        "mise" | "rtx" | "asdf" if matches!(a(0), "exec" | "x") => Some((
            false,
            c.args
                .iter()
                .position(|w| w.text == "--")
                .map_or(1, |i| i + 1),
        )),
        "op" | "doppler" | "infisical" | "chamber" | "aws-vault" | "teller"
            if c.args.iter().any(|w| w.text == "--") =>
        {
            Some((
                false,
                c.args
                    .iter()
                    .position(|w| w.text == "--")
                    .map_or(0, |i| i + 1),
            ))
        }
        "pixi" if a(0) == "run" => Some((
            false,
            after_options(c.args, 1, &["-e", "--environment", "--manifest-path"]),
        )),
        "rbenv" | "pyenv" | "nodenv" | "goenv" | "jenv" | "plenv" if a(0) == "exec" => {
            Some((false, 1))
        }
        "nvm" if a(0) == "exec" => {
            // `nvm exec [version] cmd`: a version is digits, `v…`, `lts/…` or an alias.
            let v = a(1);
            let versioned = v.starts_with(|ch: char| ch.is_ascii_digit())
                || v.starts_with('v') && v[1..].starts_with(|ch: char| ch.is_ascii_digit())
                || v.starts_with("lts/")
                || matches!(v, "stable" | "current" | "default");
            Some((false, if versioned { 2 } else { 1 }))
        }
        "scl" if a(0) == "enable" => {
            if let Some(i) = c.args.iter().position(|w| w.text == "--") {
                Some((false, i + 1))
            } else {
                // `scl enable coll… 'command text'`: the last word is a shell command.
                if let Some(cmd) = c.args.last().filter(|_| c.args.len() >= 3) {
                    out.payload(Dialect::Posix, cmd.text.clone(), "scl enable", false);
                }
                None
            }
        }
        "schroot" | "distrobox" | "multipass" | "lxc" | "incus" => c
            .args
            .iter()
            .position(|w| w.text == "--")
            .map(|i| (false, i + 1))
            .or_else(|| {
                // `schroot -c x cmd` (no `--`): after its options and their values.
                (c.prog == "schroot")
                    .then(|| {
                        after_options(
                            c.args,
                            0,
                            &["-c", "--chroot", "-u", "--user", "-d", "--directory"],
                        )
                    })
                    .map(|i| (false, i))
            }),
        "toolbox" if a(0) == "run" => Some((
            false,
            after_options(
                c.args,
                1,
                &["-c", "--container", "-d", "--distro", "-r", "--release"],
            ),
        )),
        "devcontainer" if a(0) == "exec" => Some((
            false,
            after_options(
                c.args,
                1,
                &[
                    "--workspace-folder",
                    "--container-id",
                    "--id-label",
                    "--config",
                    "--remote-env",
                    "--docker-path",
                    "--log-level",
                    "--log-format",
                ],
            ),
        )),
        "lima" => Some((false, 0)),
        "limactl" if matches!(a(0), "shell" | "sh") => Some((
            false,
            after_options(c.args, 1, &["--workdir", "--shell"]) + 1,
        )),
        "orb" | "orbctl"
            if !matches!(
                a(0),
                "create"
                    | "delete"
                    | "list"
                    | "ls"
                    | "start"
                    | "stop"
                    | "restart"
                    | "config"
                    | "info"
                    | "logs"
                    | "status"
                    | "version"
                    | "update"
                    | "help"
            ) =>
        {
            Some((
                false,
                after_options(
                    c.args,
                    0,
                    &["-m", "--machine", "-u", "--user", "-w", "--workdir"],
                ),
            ))
        }
        "wsl" | "wsl.exe" => wsl_command(c.args).map(|i| (false, i)),
        "vagrant" if a(0) == "ssh" => {
            if let Some(i) = c
                .args
                .iter()
                .position(|w| w.text == "-c" || w.text == "--command")
            {
                if let Some(cmd) = c.arg(i + 1) {
                    out.payload(Dialect::Posix, cmd.to_owned(), "vagrant ssh -c", false);
                }
            }
            None
        }
        "concurrently" | "npm-run-all" | "run-p" | "run-s" => {
            for w in c.plain() {
                out.payload(Dialect::Posix, w.text.clone(), "concurrently", false);
            }
            None
        }
        _ => None,
    };
    let Some((installs, at)) = found else { return };
    let inner = c.args.get(at..).unwrap_or(&[]);
    if installs {
        let name = inner
            .first()
            .map(|w| w.text.as_str())
            .unwrap_or("a package");
        install(
            out,
            format!("`{}` downloads and runs {}", c.prog, shown(name)),
        );
    }
    c.sub_check(out, inner, false);
}

/// Where `wsl [options] cmd` starts its command (`-d X`, `-u X`, `--cd X` and
/// `--shell-type X` take values; `-e`/`--exec`/`--` end the options), or `None` for the
/// management forms (`wsl --list`, `wsl --shutdown`) and a bare `wsl`.
fn wsl_command(args: &[&Word]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.to_ascii_lowercase().as_str() {
            "-e" | "--exec" | "--" => return Some(i + 1),
            "-d" | "--distribution" | "-u" | "--user" | "--cd" | "--shell-type"
            | "--distribution-id" => i += 2,
            t if t.starts_with('-') => return None,
            _ => return Some(i),
        }
    }
    None
}

/// Package manager installs.
fn packages(c: &Call<'_, '_>, out: &mut Out) {
    let (mut inline, mut spill) = ([""; super::INLINE_TEXTS], Vec::new());
    let words = super::texts(c.plain(), &mut inline, &mut spill);
    let w0 = words.first().copied().unwrap_or("");
    let w1 = words.get(1).copied().unwrap_or("");
    let p = c.prog;
    let pip = p == "pip" || p.starts_with("pip3") || p.starts_with("pip2");
    let installs =
        match p {
            "npm" | "pnpm" => matches!(
                w0,
                "install"
                    | "i"
                    | "in"
                    | "ins"
                    | "inst"
                    | "insta"
                    | "instal"
                    | "isnt"
                    | "isnta"
                    | "isntal"
                    | "add"
                    | "ci"
                    | "clean-install"
                    | "install-test"
                    | "it"
                    | "install-ci-test"
                    | "update"
                    | "up"
                    | "upgrade"
                    | "rebuild"
                    | "link"
            ),
            "yarn" => {
                c.args.is_empty() || matches!(w0, "install" | "add" | "upgrade" | "up" | "global")
            }
            "bun" => matches!(
                w0,
                "install" | "i" | "add" | "a" | "update" | "upgrade" | "link"
            ),
            "deno" => matches!(w0, "install" | "add"),
            _ if pip => matches!(w0, "install" | "download" | "wheel"),
            "uv" => {
                matches!(w0, "add" | "sync")
                    || (w0 == "pip" && w1 == "install")
                    || (w0 == "tool" && w1 == "install")
            }
            "pipx" => matches!(w0, "install" | "inject" | "upgrade" | "reinstall"),
            "poetry" => matches!(w0, "add" | "install" | "update"),
            "pipenv" => matches!(w0, "install" | "update" | "sync"),
            "pdm" | "hatch" | "rye" => matches!(w0, "add" | "install" | "sync"),
            "conda" | "mamba" | "micromamba" => matches!(w0, "install" | "create" | "update"),
            "cargo" => matches!(w0, "install" | "add" | "binstall"),
            "gem" => matches!(w0, "install" | "update"),
            "bundle" | "bundler" => c.args.is_empty() || matches!(w0, "install" | "update" | "add"),
            "go" => matches!(w0, "install" | "get"),
            "composer" => matches!(w0, "require" | "install" | "update" | "global"),
            "apt" | "apt-get" | "aptitude" => matches!(
                w0,
                "install" | "upgrade" | "dist-upgrade" | "full-upgrade" | "reinstall" | "build-dep"
            ),
            "yum" | "dnf" | "microdnf" | "tdnf" => matches!(
                w0,
                "install" | "update" | "upgrade" | "groupinstall" | "reinstall" | "localinstall"
            ),
            "apk" => matches!(w0, "add" | "upgrade"),
            "pacman" | "yay" | "paru" => c.args.iter().any(|w| {
                cluster(&w.text).is_some_and(|cl| cl.starts_with('S') || cl.starts_with('U'))
            }),
            "zypper" => matches!(
                w0,
                "install" | "in" | "update" | "up" | "dist-upgrade" | "dup"
            ),
            "brew" | "port" => matches!(w0, "install" | "reinstall" | "upgrade" | "tap" | "bundle"),
            "snap" | "flatpak" => matches!(w0, "install" | "refresh" | "update"),
            "choco" | "winget" | "scoop" | "cinst" => {
                matches!(w0, "install" | "upgrade" | "add") || p == "cinst"
            }
            "nix-env" => c
                .args
                .iter()
                .any(|w| w.text == "-i" || w.text == "--install" || w.text == "-iA"),
            "nix" => w0 == "profile" && w1 == "install",
            "gh" => w0 == "extension" && w1 == "install",
            "code" | "code-insiders" | "cursor" => {
                c.args.iter().any(|w| w.text == "--install-extension")
            }
            "helm" => w0 == "plugin" && w1 == "install",
            "kubectl" => w0 == "krew" && w1 == "install",
            "asdf" | "mise" | "rtx" | "nvm" | "pyenv" | "rbenv" | "volta" | "sdk" | "fnm" => {
                matches!(w0, "install" | "plugin" | "use")
            }
            "rustup" => {
                matches!(w0, "install" | "toolchain" | "component" | "target")
                    && words.iter().any(|w| *w == "install" || *w == "add")
            }
            "luarocks" | "cpan" | "cpanm" | "opam" | "stack" | "cabal" | "mix" | "julia"
            | "raco" => matches!(w0, "install" | "deps.get") || p == "cpanm",
            _ => matches!(
                c.ps(),
                "install-module"
                    | "install-package"
                    | "install-script"
                    | "update-module"
                    | "install-psresource"
            ),
        };
    if installs {
        install(out, format!("`{p} {w0}` installs packages"));
    }
    let removes = match p {
        "npm" | "pnpm" | "yarn" | "bun" => {
            matches!(w0, "uninstall" | "remove" | "rm" | "un" | "r" | "unlink")
        }
        _ if pip => w0 == "uninstall",
        "uv" | "pipx" | "poetry" | "cargo" | "gem" | "brew" | "pipenv" => {
            matches!(w0, "remove" | "uninstall" | "rm")
        }
        _ => false,
    };
    if removes
        && c.args
            .iter()
            .any(|w| super::services::GATE_NAMES.any_in(&w.text))
    {
        out.not_read_only();
        out.add(
            &finding::SELF_PROTECTION,
            format!("`{p} {w0}` removes OpenClaw or the gate"),
        );
    }
}

/// What a named task/script is, by its name.
fn script_category(name: &str) -> Option<Category> {
    let toks: Vec<String> = super::tokens(name).collect();
    let has = |ws: &[&str]| toks.iter().any(|t| ws.contains(&t.as_str()));
    if has(&[
        "test",
        "tests",
        "spec",
        "e2e",
        "check",
        "coverage",
        "cov",
        "jest",
        "vitest",
        "unit",
        "integration",
        "ci",
    ]) {
        Some(Category::DevTest)
    } else if has(&[
        "lint",
        "format",
        "fmt",
        "prettier",
        "eslint",
        "stylelint",
        "typecheck",
        "tsc",
        "clippy",
    ]) {
        Some(Category::DevFormat)
    } else if has(&[
        "build", "compile", "bundle", "dist", "generate", "codegen", "prepare",
    ]) {
        Some(Category::DevBuild)
    } else {
        None
    }
}

/// `npm run x`, `yarn x`, `pnpm x`, `bun run x`: the script runs code the gate cannot see unless
/// its name says it builds, tests or formats.
fn scripts(c: &Call<'_, '_>, out: &mut Out) {
    let runs_project = match c.prog {
        "cargo" | "dotnet" | "swift" | "mix" | "stack" | "cabal" | "go" => c.arg(0) == Some("run"),
        "gradle" | "gradlew" | "mvn" | "mvnw" => c.args.iter().any(|w| {
            matches!(
                w.text.as_str(),
                "run" | "bootRun" | "exec:java" | "spring-boot:run"
            )
        }),
        _ => false,
    };
    if runs_project {
        out.not_read_only();
        out.effects().executes.push(format!("{} run", c.prog));
        out.add(
            &finding::INTERPRETER_FILE,
            format!("`{} run` runs the project's code", c.prog),
        );
        return;
    }
    const BUILTIN: &[&str] = &[
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "uninstall",
        "un",
        "update",
        "up",
        "upgrade",
        "ci",
        "exec",
        "x",
        "dlx",
        "publish",
        "unpublish",
        "init",
        "create",
        "info",
        "view",
        "list",
        "ls",
        "outdated",
        "audit",
        "config",
        "cache",
        "why",
        "link",
        "unlink",
        "pack",
        "login",
        "logout",
        "whoami",
        "version",
        "help",
        "--version",
        "--help",
        "-v",
        "-h",
        "dedupe",
        "prune",
        "rebuild",
        "fund",
        "doctor",
        "search",
        "store",
        "env",
        "workspace",
        "workspaces",
        "global",
        "set",
        "get",
        "npm",
        "node",
        "dist-tag",
        "owner",
        "team",
        "token",
        "ping",
        "root",
        "bin",
        "prefix",
        "pm",
        "patch",
        "import",
        "licenses",
        "why",
        "in",
        "isnt",
        "it",
        "install-test",
        "clean-install",
        "deprecate",
        "explain",
        "query",
        "sbom",
        "repo",
        "docs",
        "bugs",
        "edit",
        "explore",
        "shrinkwrap",
        "stars",
        "star",
        "unstar",
        "hook",
        "access",
        "org",
        "profile",
        "completion",
        "restart",
        "stop",
        "start",
        "test",
        "t",
        "tst",
        "run",
        "run-script",
        "rum",
        "urn",
    ];
    let a0 = c.arg(0).unwrap_or("");
    let script = match c.prog {
        "npm" => match a0 {
            "run" | "run-script" | "rum" | "urn" => c.arg(1),
            "test" | "t" | "tst" => Some("test"),
            "start" | "restart" | "stop" => Some("start"),
            _ => None,
        },
        "pnpm" | "yarn" | "bun" => match a0 {
            "run" => c.arg(1),
            "test" | "t" => Some("test"),
            "start" => Some("start"),
            s if !(s.is_empty()
                || s.starts_with('-')
                || BUILTIN.contains(&s)
                || c.prog == "bun" && s.contains('.')) =>
            {
                Some(s)
            }
            _ => None,
        },
        _ => None,
    };
    let Some(name) = script else { return };
    match script_category(name) {
        Some(cat) => out.category(cat),
        None => {
            if !out.has(&finding::PRODUCTION_DEPLOYMENT) && !out.has(&finding::CONTROL_PLANE_CHANGE)
            {
                out.not_read_only();
                out.effects().executes.push(name.to_owned());
                out.add(
                    &finding::INTERPRETER_FILE,
                    format!("`{} run {}` runs a package script", c.prog, shown(name)),
                );
            }
            // `pnpm NAME …` / `yarn NAME …` / `bun NAME …` without `run` runs the script or,
            // when there is none, the installed binary NAME: check that command too
            // (`yarn rimraf /`, `pnpm openclaw plugins disable …`).
            if c.prog != "npm" && c.arg(0) == Some(name) {
                c.sub_check(out, c.args, false);
            }
        }
    }
}

/// `echo`/`printf` output text, `cat <<EOF`, decoders, and filters that pass stdin on.
fn prints_and_decodes(c: &Call<'_, '_>, out: &mut Out) {
    let ps = c.ps();
    let operands = c.plain().iter().filter(|w| w.text != "-").count();
    let passes = match c.prog {
        "tee" | "tr" | "pv" | "buffer" | "mbuffer" | "stdbuf" => true,
        "cat" | "head" | "tail" | "sort" | "uniq" | "tac" | "rev" | "dos2unix" | "unix2dos"
        | "iconv" | "nl" | "fold" | "column" | "more" | "less" | "base64" | "xxd" | "expand"
        | "unexpand" | "fmt" | "cut" | "zcat" | "gunzip" | "gzip" | "xz" | "unxz" | "xzcat"
        | "bzip2" | "bunzip2" | "bzcat" | "zstd" | "unzstd" | "zstdcat" | "lzma" | "unlzma"
        | "lzcat" | "lz4" | "lz4cat" | "brotli" | "uncompress" => operands == 0,
        "grep" | "egrep" | "fgrep" | "rg" | "sed" | "awk" | "gawk" | "mawk" => operands <= 1,
        _ => false,
    };
    if passes {
        out.effects().passes_stdin = true;
    }
    match c.prog {
        "echo" | "print" => {
            let mut escapes = false;
            let mut start = 0;
            for w in c.args {
                let t = w.text.as_str();
                if t.len() > 1
                    && t.starts_with('-')
                    && t.chars().skip(1).all(|ch| matches!(ch, 'n' | 'e' | 'E'))
                {
                    escapes |= t.contains('e');
                    start += 1;
                } else {
                    break;
                }
            }
            let text: Vec<&str> = c
                .args
                .get(start..)
                .unwrap_or(&[])
                .iter()
                .map(|w| w.text.as_str())
                .collect();
            let joined = text.join(" ");
            // (`contains_ci` of a needle without letters is `contains`, without the substring
            // searcher's set-up that every `echo` would pay.)
            let joined = if escapes || super::contains_ci(&joined, "\\0") {
                unescape(&joined)
            } else {
                joined
            };
            out.effects().prints = Some(joined);
        }
        "printf" => {
            let args: Vec<&str> = c
                .args
                .iter()
                .map(|w| w.text.as_str())
                .filter(|t| *t != "--")
                .collect();
            if let Some((fmt, rest)) = args.split_first() {
                out.effects().prints = Some(printf(fmt, rest));
            }
        }
        "cat" | "type" if c.args.is_empty() => {
            if let Some(t) = c.ctx.stdin_text {
                out.effects().prints = Some(t.to_owned());
            }
        }
        // `cat s.sh | sh` after writing s.sh, `cat <(echo …)`: files whose text the line shows.
        "cat" | "type" if c.ctx.known.any() => {
            let mut text = String::new();
            for w in c.args {
                match c.ctx.known.text(&w.text) {
                    Some((t, false)) => {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(t);
                    }
                    // An option or a file the line does not show: the output is not known.
                    _ => return,
                }
            }
            out.effects().prints = Some(text);
        }
        "base64" | "base32" | "basenc" | "b64" if has_opt(c.args, &['d', 'D'], &["decode"]) => {
            out.effects().decodes = true;
        }
        "xxd" if has_opt(c.args, &['r'], &["revert"]) => out.effects().decodes = true,
        "tr" | "rev" | "zcat" | "gzcat" | "bzcat" | "xzcat" | "zstdcat" | "lz4cat" | "uudecode"
        | "uncompress" | "unxz" | "rot13" | "caesar" => out.effects().decodes = true,
        // Decompressing to stdout: with `-c`, or with no file operand (a filter).
        "gunzip" | "bunzip2" | "unzstd" | "unlz4" | "gzip" | "bzip2" | "xz" | "zstd" | "brotli"
        | "lz4"
            if (c.prog.starts_with("un")
                || c.prog == "gunzip"
                || c.prog == "bunzip2"
                || has_opt(c.args, &['d'], &["decompress", "decode"]))
                && (operands == 0 || has_opt(c.args, &['c'], &["stdout"])) =>
        {
            out.effects().decodes = true;
        }
        "unzip" if has_opt(c.args, &['p'], &[]) => out.effects().decodes = true,
        _ => {}
    }
    if ps == "write-output" && c.prog != "echo" {
        let text: Vec<&str> = c.args.iter().map(|w| w.text.as_str()).collect();
        out.effects().prints = Some(text.join(" "));
    }
    // A PowerShell statement that is one string (`'…' | Out-File f`) writes it to the
    // pipeline (a POSIX shell would run a program of that name: both readings stand).
    if let [w] = c.cmd.argv.as_slice() {
        if w.fully_quoted && !w.dynamic && out.v.effects.prints.is_none() {
            out.effects().prints = Some(w.text.clone());
        }
    }
}

/// Decodes `echo -e` / `printf` escapes: `\n \t \\ \xHH \0NNN \NNN`.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('a') | Some('c') | Some('e') => {}
            Some('x') => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if let Some(c) = char::from_u32(v).filter(|_| n > 0) {
                    out.push(c);
                }
            }
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                let max = if d == '0' { 3 } else { 2 };
                let mut n = 0;
                while n < max {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            v = v * 8 + x;
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if let Some(c) = char::from_u32(v) {
                    out.push(c);
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// What `printf FORMAT ARGS…` prints (`%s`/`%b`/`%d` take arguments in order).
fn printf(fmt: &str, args: &[&str]) -> String {
    let fmt = unescape(fmt);
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        // Skip flags, width, precision.
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | ' ' | '#' | '.'))
        {
            chars.next();
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('b') => out.push_str(&unescape(args.next().copied().unwrap_or(""))),
            Some(_) => out.push_str(args.next().copied().unwrap_or("")),
            None => out.push('%'),
        }
    }
    for rest in args {
        out.push_str(rest);
    }
    out
}

/// `set -euo pipefail`, `set -x`, `set +e`: options that change how this shell reports and
/// stops on errors, nothing else (`set +o history` is history tampering, `set -- a b` sets
/// arguments: neither is here).
fn shell_options_only(args: &[&Word]) -> bool {
    const NAMES: &[&str] = &[
        "errexit",
        "nounset",
        "pipefail",
        "xtrace",
        "verbose",
        "noclobber",
        "errtrace",
        "functrace",
        "noglob",
    ];
    let mut named = false;
    !args.is_empty()
        && args.iter().all(|w| {
            let t = w.text.as_str();
            if w.dynamic || w.glob {
                return false;
            }
            if std::mem::take(&mut named) {
                return NAMES.contains(&t);
            }
            let Some(flags) = t.strip_prefix(['-', '+']) else {
                return false;
            };
            named = flags.ends_with('o');
            !flags.is_empty() && flags.bytes().all(|b| b"euxvCEfTo".contains(&b))
        })
        && !named
}

/// The category of a command by program and subcommand.
fn category(c: &Call<'_, '_>, out: &mut Out) -> Option<Category> {
    let p = c.prog;
    if p == "set" && shell_options_only(c.args) {
        return Some(Category::ReadOnly);
    }
    let read_only = matches!(
        p,
        "ls" | "dir"
            | "cat"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "wc"
            | "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "ag"
            | "ack"
            | "echo"
            | "printf"
            | "pwd"
            | "whoami"
            | "id"
            | "groups"
            | "date"
            | "uname"
            | "stat"
            | "file"
            | "du"
            | "df"
            | "tree"
            | "which"
            | "where"
            | "whereis"
            | "type"
            | "realpath"
            | "readlink"
            | "basename"
            | "dirname"
            | "cut"
            | "tr"
            | "diff"
            | "cmp"
            | "comm"
            | "jq"
            | "md5sum"
            | "sha1sum"
            | "sha224sum"
            | "sha256sum"
            | "sha384sum"
            | "sha512sum"
            | "shasum"
            | "b2sum"
            | "cksum"
            | "md5"
            | "test"
            | "["
            | "[["
            | "true"
            | "false"
            | "sleep"
            | "ps"
            | "top"
            | "htop"
            | "free"
            | "uptime"
            | "hostname"
            | "nproc"
            | "lsof"
            | "ss"
            | "netstat"
            | "column"
            | "fold"
            | "nl"
            | "od"
            | "hexdump"
            | "xxd"
            | "strings"
            | "base64"
            | "base32"
            | "expr"
            | "seq"
            | "tac"
            | "rev"
            | "paste"
            | "join"
            | "printenv"
            | "locale"
            | "tty"
            | "lscpu"
            | "lsblk"
            | "lsusb"
            | "lspci"
            | "blkid"
            | "dmesg"
            | "journalctl"
            | "last"
            | "w"
            | "who"
            | "getent"
            | "cd"
            | "pushd"
            | "popd"
            | "alias"
            | "hash"
            | "help"
            | "man"
            | "info"
            | "apropos"
            | "whatis"
            | "cal"
            | "factor"
            | "numfmt"
            | "findstr"
            | "ver"
            | "systeminfo"
            | "tasklist"
            | "ipconfig"
            | "whoami.exe"
            | "command"
            | "exa"
            | "eza"
            | "lsd"
            | "bat"
            | "batcat"
            | "fd"
            | "fdfind"
            | "fzf"
            | "delta"
            | "zcat"
            | "file.exe"
            | "vmstat"
            | "iostat"
            | "mpstat"
            | "sar"
            | "pgrep"
            | "pidof"
            | "env"
            | "arch"
            | "sw_vers"
            | "getconf"
            | "ulimit"
            | "umask"
            | "history"
            | "jobs"
            | "wait"
            | "fc"
            | ":"
            | "readelf"
            | "objdump"
            | "nm"
            | "ldd"
            | "otool"
            | "sort"
            | "uniq"
            | "yq"
            | "tokei"
            | "cloc"
            | "scc"
            | "shellcheck-info"
    );
    if read_only {
        let target: Option<String> = match p {
            "sort" => parse(
                c.args,
                "okStT",
                &[
                    "output",
                    "key",
                    "field-separator",
                    "buffer-size",
                    "temporary-directory",
                ],
            )
            .value("o")
            .or_else(|| parse(c.args, "okStT", &["output"]).value("output"))
            .map(str::to_owned),
            "uniq" | "xxd" => c.plain().get(1).map(|w| w.text.clone()),
            "yq" if has_opt(c.args, &['i'], &["inplace"]) => {
                c.plain().last().map(|w| w.text.clone())
            }
            "tree" => parse(c.args, "oLIP", &[]).value("o").map(str::to_owned),
            _ => None,
        };
        if let Some(t) = target {
            system::write_text(c, out, &format!("`{p}`"), &t, false);
            return None;
        }
        return Some(Category::ReadOnly);
    }
    let ps = c.ps();
    if !ps.is_empty() {
        let verb = ps.split('-').next().unwrap_or("");
        let ro_cmdlet = matches!(
            verb,
            "get"
                | "test"
                | "select"
                | "measure"
                | "format"
                | "convertto"
                | "convertfrom"
                | "compare"
                | "resolve"
                | "split"
                | "join"
                | "where"
                | "sort"
                | "group"
                | "show"
        ) || matches!(
            ps,
            "write-output"
                | "write-host"
                | "write-verbose"
                | "write-debug"
                | "write-information"
                | "write-warning"
                | "out-string"
                | "out-host"
                | "out-null"
                | "out-default"
                | "foreach-object"
                | "set-location"
                | "push-location"
                | "pop-location"
        );
        if ro_cmdlet {
            return Some(Category::ReadOnly);
        }
    }
    // The plain words, needed only past the read-only programs and cmdlets above.
    let (mut inline, mut spill) = ([""; super::INLINE_TEXTS], Vec::new());
    let words = super::texts(c.plain(), &mut inline, &mut spill);
    let w0 = words.first().copied().unwrap_or("");
    let w1 = words.get(1).copied().unwrap_or("");
    let cat = match p {
        "make" | "gmake" | "mingw32-make" | "nmake" => {
            if words
                .iter()
                .any(|w| matches!(*w, "test" | "check" | "tests" | "test-all" | "unittest"))
            {
                Category::DevTest
            } else if words
                .iter()
                .any(|w| matches!(*w, "lint" | "fmt" | "format"))
            {
                Category::DevFormat
            } else {
                Category::DevBuild
            }
        }
        "cmake" | "ninja" | "tsc" | "vite" | "webpack" | "rollup" | "esbuild" | "parcel"
        | "swc" | "babel" | "scons" | "xcodebuild" | "msbuild.exe" | "javac" | "rustc" | "gcc"
        | "g++" | "clang" | "clang++" | "cc" | "c++" | "zig" | "tsup" | "turbo" | "nx" => {
            if p == "xcodebuild" && words.contains(&"test")
                || p == "zig" && w1 == "test"
                || matches!(p, "turbo" | "nx") && words.iter().any(|w| w.contains("test"))
            {
                Category::DevTest
            } else {
                Category::DevBuild
            }
        }
        "cargo" => match w0 {
            "build" | "b" | "check" | "c" | "doc" | "d" | "metadata" | "tree" | "vendor"
            | "fetch" => Category::DevBuild,
            "test" | "t" | "nextest" | "bench" | "miri" => Category::DevTest,
            "fmt" | "clippy" | "fix" => Category::DevFormat,
            _ => return None,
        },
        "go" => match w0 {
            "build" | "generate" | "mod" | "list" | "env" | "version" | "doc" => Category::DevBuild,
            "test" => Category::DevTest,
            "fmt" | "vet" => Category::DevFormat,
            _ => return None,
        },
        "mvn" | "mvnw" | "gradle" | "gradlew" | "bazel" | "bazelisk" | "buck" | "buck2"
        | "pants" | "sbt" | "lein" | "meson" | "swift" | "dotnet" | "mix" | "stack" | "cabal"
        | "dune" => {
            if words
                .iter()
                .any(|w| w.contains("test") || *w == "verify" || *w == "check")
            {
                Category::DevTest
            } else if words.iter().any(|w| {
                matches!(
                    *w,
                    "format" | "fmt" | "spotlessApply" | "ktlintFormat" | "lint"
                )
            }) {
                Category::DevFormat
            } else if words.iter().any(|w| {
                matches!(
                    *w,
                    "build"
                        | "compile"
                        | "package"
                        | "assemble"
                        | "install"
                        | "clean"
                        | "publish"
                        | "restore"
                        | "classes"
                        | "jar"
                )
            }) {
                Category::DevBuild
            } else {
                return None;
            }
        }
        "pytest" | "py.test" | "jest" | "vitest" | "mocha" | "rspec" | "phpunit" | "tox"
        | "nox" | "ctest" | "ava" | "tap" | "karma" | "cypress" | "playwright" | "nose2"
        | "unittest" | "behave" | "cucumber" | "pest" | "codecept" | "hypothesis" | "ward" => {
            Category::DevTest
        }
        "prettier"
        | "eslint"
        | "black"
        | "ruff"
        | "isort"
        | "flake8"
        | "mypy"
        | "pylint"
        | "clang-format"
        | "clang-tidy"
        | "shellcheck"
        | "shfmt"
        | "stylelint"
        | "biome"
        | "dprint"
        | "rubocop"
        | "gofmt"
        | "goimports"
        | "rustfmt"
        | "golangci-lint"
        | "ktlint"
        | "swiftformat"
        | "swiftlint"
        | "markdownlint"
        | "yamllint"
        | "hadolint"
        | "taplo"
        | "pyright"
        | "standard"
        | "xo"
        | "oxlint"
        | "autopep8"
        | "yapf"
        | "pycodestyle"
        | "pydocstyle"
        | "bandit"
        | "cppcheck"
        | "tflint"
        | "actionlint"
        | "editorconfig-checker" => Category::DevFormat,
        "deno" => match w0 {
            "test" | "bench" => Category::DevTest,
            "fmt" | "lint" | "check" => Category::DevFormat,
            "compile" | "bundle" => Category::DevBuild,
            _ => return None,
        },
        "bun" => match w0 {
            "test" => Category::DevTest,
            "build" => Category::DevBuild,
            _ => return None,
        },
        "node" if c.args.iter().any(|w| w.text == "--test") => Category::DevTest,
        "docker" | "podman" if w0 == "build" || w0 == "buildx" && w1 == "build" => {
            Category::DevBuild
        }
        _ => return None,
    };
    Some(cat)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::Category;
    use super::{printf, unescape};
    use crate::finding::*;

    #[test]
    fn read_only_commands() {
        for s in [
            "ls -la",
            "cat README.md",
            "head -n 5 x",
            "grep -n 'git reset --hard' notes.md",
            "rg 'DROP TABLE' src/",
            "wc -l x",
            "echo hello",
            "echo \"rm -rf /\"",
            "printf 'git reset --hard'",
            "pwd",
            "whoami",
            "date",
            "uname -a",
            "jq .x f.json",
            "sort f",
            "ps aux",
            "df -h",
            "du -sh .",
            "which git",
            "diff a b",
            "Get-ChildItem",
            "Get-Content README.md",
            "Select-String -Path x -Pattern y",
            "Get-Location",
            "Get-Process",
            "Test-Path x",
            "Write-Output hi",
            "tree src",
            "sha256sum x",
            "true",
        ] {
            assert_read_only(s);
        }
        assert!(!verdict("sort -o out.txt f").read_only);
        assert!(!verdict("ls > files.txt").read_only);
        assert!(!verdict("cat $F").read_only);
        assert_not_critical("env --help rm -rf /");
        assert_not("env --help rm -rf /", &FILE_DELETE);
    }

    #[test]
    fn dev_categories() {
        for (s, c) in [
            ("cargo build", Category::DevBuild),
            ("cargo check", Category::DevBuild),
            ("cargo test", Category::DevTest),
            ("cargo nextest run", Category::DevTest),
            ("cargo fmt", Category::DevFormat),
            ("cargo clippy -- -D warnings", Category::DevFormat),
            ("go build ./...", Category::DevBuild),
            ("go test ./...", Category::DevTest),
            ("go vet ./...", Category::DevFormat),
            ("npm test", Category::DevTest),
            ("npm run test", Category::DevTest),
            ("npm run build", Category::DevBuild),
            ("npm run lint", Category::DevFormat),
            ("pnpm test", Category::DevTest),
            ("yarn test", Category::DevTest),
            ("yarn build", Category::DevBuild),
            ("bun test", Category::DevTest),
            ("bun run build", Category::DevBuild),
            ("pytest -x", Category::DevTest),
            ("python -m unittest", Category::DevTest),
            ("jest", Category::DevTest),
            ("npx vitest run", Category::DevTest),
            ("make", Category::DevBuild),
            ("make test", Category::DevTest),
            ("mvn compile", Category::DevBuild),
            ("mvn test", Category::DevTest),
            ("./gradlew build", Category::DevBuild),
            ("gradle test", Category::DevTest),
            ("dotnet build", Category::DevBuild),
            ("dotnet test", Category::DevTest),
            ("tsc --noEmit", Category::DevBuild),
            ("ninja -C build", Category::DevBuild),
            ("bazel build //...", Category::DevBuild),
            ("prettier --write .", Category::DevFormat),
            ("eslint src", Category::DevFormat),
            ("black .", Category::DevFormat),
            ("ruff check .", Category::DevFormat),
            ("mypy src", Category::DevFormat),
            ("shellcheck x.sh", Category::DevFormat),
            ("ctest", Category::DevTest),
            ("tox", Category::DevTest),
        ] {
            assert_category(s, c);
            assert_not_critical(s);
        }
    }

    #[test]
    fn package_installs() {
        for s in [
            "npm install",
            "npm i lodash",
            "npm ci",
            "pnpm add x",
            "yarn",
            "yarn add x",
            "bun install",
            "npx create-react-app x",
            "pnpm dlx x",
            "yarn dlx x",
            "bunx x",
            "uvx ruff",
            "pipx run black",
            "pip install requests",
            "pip3 install -r requirements.txt",
            "python3 -m pip install x",
            "uv pip install x",
            "uv add x",
            "poetry add x",
            "pipenv install",
            "conda install numpy",
            "cargo install ripgrep",
            "cargo add serde",
            "gem install rails",
            "go install x@latest",
            "go get x",
            "composer require x",
            "apt install curl",
            "apt-get install -y curl",
            "sudo apt-get install -y curl",
            "yum install x",
            "dnf install x",
            "apk add curl",
            "pacman -S x",
            "pacman -Syu",
            "zypper install x",
            "brew install x",
            "snap install x",
            "choco install x",
            "winget install x",
            "scoop install x",
            "Install-Module PSReadLine",
            "Install-Package x",
        ] {
            assert_has(s, &PACKAGE_INSTALL);
            assert_not_critical(s);
        }
        assert_not("npm ls", &PACKAGE_INSTALL);
        assert_not("pip list", &PACKAGE_INSTALL);
        assert_has("npm uninstall -g openclaw", &SELF_PROTECTION);
        assert_has("openclaw plugins uninstall human-gate", &SELF_PROTECTION);
        assert_has("pnpm remove openclaw-human-gate", &SELF_PROTECTION);
    }

    #[test]
    fn runners_check_the_inner_command() {
        assert_critical("npx rimraf /");
        assert_critical("uv run rm -rf /");
        assert_critical("poetry run python -c 'import shutil; shutil.rmtree(\"/\")'");
        assert_critical("bundle exec rake db:drop");
        assert_critical("cross-env NODE_ENV=x rm -rf ~");
        assert_has(
            "cross-env NODE_OPTIONS=--require=x node a.js",
            &LOADER_INJECTION,
        );
        assert_critical("dotenv -- rm -rf /");
        assert_critical("op run -- rm -rf /");
        assert_category("uv run pytest", Category::DevTest);
        assert_category("poetry run pytest", Category::DevTest);
        assert_critical("npx -y kubectl delete ns prod");
        assert!(payloads("nix-shell --run 'rm -rf /'")
            .iter()
            .any(|p| p == "rm -rf /"));
        assert!(payloads("concurrently 'npm:dev' 'rm -rf /'")
            .iter()
            .any(|p| p == "rm -rf /"));
    }

    #[test]
    fn package_scripts_run_code() {
        assert_has("npm start", &INTERPRETER_FILE);
        assert_has("npm run dev", &INTERPRETER_FILE);
        assert_has("yarn serve", &INTERPRETER_FILE);
        assert_not("npm run build", &INTERPRETER_FILE);
        assert_has("cargo run --release", &INTERPRETER_FILE);
        assert_has("go run main.go", &INTERPRETER_FILE);
    }

    #[test]
    fn prints_and_decodes() {
        assert_eq!(
            verdict("echo 'rm -rf /'").effects.prints.as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            verdict("echo -n hi there").effects.prints.as_deref(),
            Some("hi there")
        );
        assert_eq!(
            verdict("echo -e '\\x72m -rf /'").effects.prints.as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            verdict("printf '%s\\n' 'rm -rf /'")
                .effects
                .prints
                .as_deref(),
            Some("rm -rf /\n")
        );
        assert_eq!(
            verdict("cat <<< 'x y'").effects.prints.as_deref(),
            Some("x y")
        );
        assert!(verdict("base64 -d").effects.decodes);
        assert!(verdict("base64 --decode f").effects.decodes);
        assert!(!verdict("base64 f").effects.decodes);
        assert!(verdict("xxd -r -p f").effects.decodes);
        assert!(verdict("tr 'a-z' 'n-za-m'").effects.decodes);
        assert!(verdict("openssl enc -d -base64").effects.decodes);
        assert!(verdict("gzip -dc x.gz").effects.decodes);
        assert_eq!(unescape("\\0162m"), "rm");
        assert!(verdict("tee install.sh").effects.passes_stdin);
        assert!(verdict("grep -v '#'").effects.passes_stdin);
        assert!(!verdict("grep x file.txt").effects.passes_stdin);
        assert_eq!(printf("%s %s", &["a", "b"]), "a b");
        assert_eq!(printf("100%%", &[]), "100%");
    }

    #[test]
    fn look_alike_words() {
        for s in [
            "format-table",
            "digit",
            "terminal",
            "normal",
            "rmate x",
            "gitk",
            "formatter x",
        ] {
            assert_not_critical(s);
        }
    }

    #[test]
    fn environment_and_machine_runners_run_their_command() {
        for s in [
            "pixi run rm -rf ~",
            "nvm exec 18 rm -rf ~",
            "nvm exec rm -rf ~",
            "rbenv exec rm -rf ~",
            "pyenv exec rm -rf ~",
            "scl enable devtoolset-9 -- rm -rf ~",
            "scl enable devtoolset-9 'rm -rf ~'",
            "schroot -c x -- rm -rf ~",
            "schroot -c x rm -rf ~",
            "toolbox run -c dev rm -rf ~",
            "distrobox enter x -- rm -rf ~",
            "multipass exec vm -- rm -rf ~",
            "lxc exec c -- rm -rf /",
            "devcontainer exec --workspace-folder . rm -rf ~",
            "lima rm -rf ~",
            "limactl shell default rm -rf ~",
            "orb -m ubuntu rm -rf ~",
            "wsl rm -rf ~",
            "wsl -d Ubuntu -u root -- rm -rf /",
            "wsl --exec rm -rf ~",
            "vagrant ssh -c 'rm -rf ~'",
        ] {
            assert_deep_critical(s);
        }
        for s in [
            "pixi run pytest",
            "nvm exec 18 node app.js",
            "pyenv exec python -V",
            "wsl --list --verbose",
            "wsl --shutdown",
            "wsl ls -la",
            "lxc list",
            "orb list",
            "vagrant ssh -c 'uptime'",
            "devcontainer exec --workspace-folder . npm test",
        ] {
            assert_deep_not_critical(s);
        }
    }
}
