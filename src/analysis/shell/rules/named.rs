//! Which rule families a command can reach, from its program and cmdlet names alone.
//!
//! # What it owns
//! Most rule families act only on the programs (and PowerShell cmdlets) they name: `delete`
//! on `rm`, `rd`, `Remove-Item`, …; `data` on database clients; and so on. Each of them first
//! compares the program with its own names, one string match after another, for every command.
//! [`families`] answers for all of them at once with one table lookup of the program and one
//! of the cmdlet, so that [`super::run`] skips the families that cannot act (nearly all of
//! them, for nearly every command: `ls`, `echo`, `grep`, `cat`).
//!
//! # Invariants
//! - Sound: a family is skipped only when it would do nothing. Its bit is set for every name
//!   its program- and cmdlet-keyed code compares with (the arms of its top-level matches and
//!   the lists it gates on, read from the same constants where they are lists) and for the
//!   computed shapes it accepts (`mkfs.*`, shells and interpreters with version suffixes, a
//!   program named for deploying). Over-approximation only costs time.
//! - The parts of a family that look at arguments whatever the program (WebClient calls,
//!   metadata endpoints, .NET decoding, a path as the command word) are not behind a bit.
//! - Tests tie it to the rules: every arm name of each family's top-level matches is in the
//!   table (read from the source), and the verdict of every corpus command and of every name
//!   the rules mention, with argument shapes the rules look for, is the same with and without
//!   the skip.

use std::sync::OnceLock;

use super::{deploy, infra, services, wipe};
use crate::analysis::shell::command::{is_powershell, is_shell};
use crate::analysis::shell::model::fnv;

/// `delete::apply`.
pub(super) const DELETE: u16 = 1;
/// `infra::apply` (with `containers`, `services` and `deploy`).
pub(super) const INFRA: u16 = 1 << 1;
/// The program- and cmdlet-keyed part of `exec::apply`.
pub(super) const EXEC: u16 = 1 << 2;
/// The program- and cmdlet-keyed part of `net::apply`.
pub(super) const NET: u16 = 1 << 3;
/// `system::apply`.
pub(super) const SYSTEM: u16 = 1 << 4;
/// `env::apply`.
pub(super) const ENV: u16 = 1 << 5;
/// `wipe::apply`.
pub(super) const WIPE: u16 = 1 << 6;
/// `data::apply`.
pub(super) const DATA: u16 = 1 << 7;
/// Package runners, installs and scripts in `categories` (not the categories themselves).
pub(super) const PACKAGES: u16 = 1 << 8;

/// `optexec::apply`.
pub(super) const OPTEXEC: u16 = 1 << 9;

/// Names of the top-level match arms of each family (programs and cmdlets, lowercase).
const ARMS: &[(u16, &[&str])] = &[
    (
        DELETE,
        &[
            "rm",
            "rmdir",
            "rd",
            "del",
            "erase",
            "unlink",
            "shred",
            "srm",
            "wipe",
            "rimraf",
            "del-cli",
            "trash",
            "trash-put",
            "find",
            "fd",
            "fdfind",
            "rsync",
            "robocopy",
            "remove-item",
        ],
    ),
    (
        WIPE,
        &[
            "chmod",
            "chown",
            "chgrp",
            "icacls",
            "cacls",
            "xcacls",
            "takeown",
            "setfacl",
            "chattr",
            "set-acl",
            "setcap",
            "diskutil",
            ":",
            "format-volume",
            "clear-disk",
            "remove-partition",
            "initialize-disk",
        ],
    ),
    (
        SYSTEM,
        &[
            "tee",
            "sponge",
            "awk",
            "gawk",
            "cp",
            "install",
            "ditto",
            "copy",
            "xcopy",
            "robocopy",
            "mv",
            "move",
            "rename",
            "ren",
            "ln",
            "link",
            "mklink",
            "sed",
            "gsed",
            "truncate",
            "dd",
            "sudoedit",
            "vi",
            "vim",
            "nvim",
            "nano",
            "emacs",
            "ed",
            "ex",
            "pico",
            "micro",
            "joe",
            "visudo",
            "vipw",
            "vigr",
            "usermod",
            "useradd",
            "userdel",
            "passwd",
            "chpasswd",
            "chage",
            "groupadd",
            "groupdel",
            "groupmod",
            "gpasswd",
            "adduser",
            "deluser",
            "addgroup",
            "delgroup",
            "chsh",
            "chfn",
            "newusers",
            "pwconv",
            "net",
            "tar",
            "bsdtar",
            "gtar",
            "unzip",
            "7z",
            "7za",
            "7zz",
            "7zr",
            "cpio",
            "zipfile",
            "tarfile",
            "gunzip",
            "gzip",
            "unxz",
            "xz",
            "bunzip2",
            "bzip2",
            "unzstd",
            "zstd",
            "unlzma",
            "lzma",
            "lz4",
            "uncompress",
            // `system::powershell`
            "expand-archive",
            "set-content",
            "add-content",
            "clear-content",
            "out-file",
            "tee-object",
            "export-csv",
            "export-clixml",
            "new-item",
            "set-item",
            "copy-item",
            "move-item",
            "rename-item",
            "new-localuser",
            "remove-localuser",
            "set-localuser",
            "add-localgroupmember",
            "remove-localgroupmember",
            "disable-localuser",
            "enable-localuser",
            "start-process",
        ],
    ),
    (
        DATA,
        &[
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "sqlite",
            "duckdb",
            "litecli",
            "sqlcmd",
            "osql",
            "isql",
            "clickhouse-client",
            "clickhouse",
            "cockroach",
            "cqlsh",
            "snowsql",
            "influx",
            "usql",
            "pgcli",
            "mycli",
            "trino",
            "presto",
            "dropdb",
            "mongorestore",
            "pg_restore",
            "mysqladmin",
            "etcdctl",
            "redis-cli",
            "valkey-cli",
            "keydb-cli",
            "mongo",
            "mongosh",
            "rails",
            "rake",
            "sequelize",
            "sequelize-cli",
            "knex",
            "typeorm",
            "drizzle-kit",
            "alembic",
            "flyway",
            "liquibase",
            "prisma",
            "artisan",
            "mix",
            "ecto",
            "diesel",
            "sqlx",
            "dbmate",
            "goose",
            "migrate",
            "atlas",
            "supabase",
            "php",
        ],
    ),
    (
        ENV,
        &[
            "history",
            "wevtutil",
            "clear-eventlog",
            "remove-eventlog",
            "unset",
            "set",
            "setopt",
            "unsetopt",
            "shopt",
            "export",
            "declare",
            "typeset",
            "local",
            "readonly",
            "setx",
            "cd",
            "chdir",
            "pushd",
            "popd",
            "sl",
            "set-location",
            "push-location",
            "pop-location",
            "alias",
            "clear-history",
            "set-psreadlineoption",
        ],
    ),
    (
        INFRA,
        &[
            "terraform",
            "tofu",
            "terragrunt",
            "opentofu",
            "pulumi",
            "kubectl",
            "oc",
            "microk8s.kubectl",
            "microk8s",
            "k3s",
            "k0s",
            "minikube",
            "helm",
            "aws",
            "gsutil",
            "rclone",
            "s3cmd",
            "mc",
            "vagrant",
            "gcloud",
            "docker",
            "podman",
            "nerdctl",
            "finch",
            "docker-compose",
            "podman-compose",
        ],
    ),
    (
        EXEC,
        &[
            "eval",
            "trap",
            "parallel",
            "forfiles",
            "sg",
            "source",
            ".",
            "cmd",
            "at",
            "batch",
            "runuser",
            "gsudo",
            "sudo.exe",
            "mshta",
            "regsvr32",
            "rundll32",
            "msiexec",
            "installutil",
            "regasm",
            "regsvcs",
            "msbuild",
            "cmstp",
            "wmic",
            "cscript",
            "wscript",
            "java",
            // `exec::powershell`
            "invoke-expression",
            "invoke-command",
            "start-job",
            "start-threadjob",
            "enter-pssession",
            "new-pssession",
            "add-type",
            "invoke-item",
            "new-scheduledtaskaction",
            "import-module",
        ],
    ),
    (
        PACKAGES,
        &[
            "pixi",
            "rbenv",
            "pyenv",
            "nodenv",
            "goenv",
            "jenv",
            "plenv",
            "nvm",
            "scl",
            "schroot",
            "distrobox",
            "multipass",
            "lxc",
            "incus",
            "toolbox",
            "devcontainer",
            "lima",
            "limactl",
            "orb",
            "orbctl",
            "wsl",
            "wsl.exe",
            "vagrant",
            "npx",
            "pnpx",
            "bunx",
            "npm",
            "pnpm",
            "yarn",
            "bun",
            "uvx",
            "uv",
            "pipx",
            "poetry",
            "pipenv",
            "hatch",
            "pdm",
            "rye",
            "devbox",
            "conda",
            "mamba",
            "micromamba",
            "bundle",
            "bundler",
            "dotenv",
            "dotenvx",
            "env-cmd",
            "cross-env",
            "cross-env-shell",
            "direnv",
            "nix",
            "nix-shell",
            "mise",
            "rtx",
            "asdf",
            "op",
            "doppler",
            "infisical",
            "chamber",
            "aws-vault",
            "teller",
            "concurrently",
            "npm-run-all",
            "run-p",
            "run-s",
            "deno",
            "cargo",
            "gem",
            "go",
            "composer",
            "apt",
            "apt-get",
            "aptitude",
            "yum",
            "dnf",
            "microdnf",
            "tdnf",
            "apk",
            "pacman",
            "yay",
            "paru",
            "zypper",
            "brew",
            "port",
            "snap",
            "flatpak",
            "choco",
            "winget",
            "scoop",
            "cinst",
            "nix-env",
            "gh",
            "code",
            "code-insiders",
            "cursor",
            "helm",
            "kubectl",
            "nvm",
            "pyenv",
            "rbenv",
            "volta",
            "sdk",
            "fnm",
            "rustup",
            "luarocks",
            "cpan",
            "cpanm",
            "opam",
            "stack",
            "cabal",
            "mix",
            "julia",
            "raco",
            "dotnet",
            "swift",
            "gradle",
            "gradlew",
            "mvn",
            "mvnw",
            "install-module",
            "install-package",
            "install-script",
            "update-module",
            "install-psresource",
        ],
    ),
    (
        OPTEXEC,
        &[
            "vim",
            "vi",
            "nvim",
            "ex",
            "view",
            "vimdiff",
            "rvim",
            "rview",
            "gvim",
            "evim",
            "vimx",
            "gview",
            "nview",
            "emacs",
            "emacs-nox",
            "xemacs",
            "less",
            "more",
            "most",
            "man",
            "tar",
            "gtar",
            "bsdtar",
            "rsync",
            "zip",
            "sed",
            "gsed",
            "gdb",
            "gdb-multiarch",
            "make",
            "gmake",
            "expect",
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "sqlite",
            "ansible",
            "split",
            "gsplit",
        ],
    ),
    (
        NET,
        &[
            "curl",
            "wget",
            "wget2",
            "http",
            "https",
            "xh",
            "xhs",
            "aria2c",
            "axel",
            "pip",
            "pip3",
            "npm",
            "fetch",
            "lynx",
            "w3m",
            "links",
            "elinks",
            "httpie",
            "nc",
            "ncat",
            "netcat",
            "socat",
            "telnet",
            "cryptcat",
            "pwncat",
            "nc.traditional",
            "nc.openbsd",
            "busybox-nc",
            "ssh",
            "autossh",
            "scp",
            "sftp",
            "ftp",
            "lftp",
            "tftp",
            "mosh",
            "rlogin",
            "rsh",
            "rcp",
            "rsync",
            "mail",
            "mailx",
            "sendmail",
            "mutt",
            "msmtp",
            "swaks",
            "ssmtp",
            "openssl",
            "ping",
            "dig",
            "nslookup",
            "host",
            "whois",
            "traceroute",
            "tracepath",
            "mtr",
            "drill",
            "certutil",
            "bitsadmin",
            "aws",
            "gcloud",
            "gsutil",
            "az",
            "rclone",
            "azcopy",
            "s3cmd",
            "mc",
            "b2",
            "doctl",
            "fly",
            "flyctl",
            "heroku",
            "vercel",
            "netlify",
            "firebase",
            "wrangler",
            "kubectl",
            "helm",
            "gh",
            "glab",
            "oci",
            "ibmcloud",
            "hcloud",
            "railway",
            "invoke-webrequest",
            "invoke-restmethod",
            "start-bitstransfer",
            "send-mailmessage",
        ],
    ),
];

/// The families that can act on a command with program `prog` (lowercase basename) and
/// PowerShell cmdlet `ps` (lowercase canonical name), as a set of the bits above.
pub(super) fn families(prog: &str, ps: Option<&str>) -> u16 {
    let table = table();
    let mut bits = table.get(prog) | ps.map_or(0, |p| table.get(p));
    if prog.starts_with("mkfs") || prog.starts_with("newfs") {
        bits |= WIPE;
    }
    if prog == "pip" || prog.starts_with("pip3") || prog.starts_with("pip2") {
        bits |= PACKAGES;
    }
    if deploy::names_deploy_verb(prog) {
        bits |= INFRA;
    }
    if is_shell(prog) || is_powershell(prog) || super::exec::interpreter(prog).is_some() {
        bits |= EXEC;
    }
    bits
}

/// Every name with the families that name it: an open-addressing hash table (FNV-1a, linear
/// probing, at most half full), built once.
struct Table {
    keys: Vec<&'static str>,
    bits: Vec<u16>,
    /// `slots[h]`: index + 1 into `keys`/`bits`, 0 when empty.
    slots: Vec<u16>,
}

static TABLE: OnceLock<Table> = OnceLock::new();

impl Table {
    /// The slot holding `key`, or the empty slot where it would go.
    fn slot(&self, key: &str) -> Result<usize, usize> {
        let mask = self.slots.len().saturating_sub(1);
        let mut at = fnv(key.as_bytes()) & mask;
        for _ in 0..self.slots.len() {
            match self.slots.get(at).copied().unwrap_or(0) {
                0 => return Err(at),
                i => {
                    if self.keys.get(usize::from(i) - 1) == Some(&key) {
                        return Ok(usize::from(i) - 1);
                    }
                }
            }
            at = (at + 1) & mask;
        }
        Err(usize::MAX)
    }

    fn get(&self, key: &str) -> u16 {
        self.slot(key)
            .ok()
            .and_then(|i| self.bits.get(i))
            .copied()
            .unwrap_or(0)
    }

    fn insert(&mut self, key: &'static str, bits: u16) {
        match self.slot(key) {
            Ok(i) => {
                if let Some(b) = self.bits.get_mut(i) {
                    *b |= bits;
                }
            }
            Err(at) => {
                let Ok(index) = u16::try_from(self.keys.len() + 1) else {
                    return;
                };
                if let Some(slot) = self.slots.get_mut(at) {
                    *slot = index;
                    self.keys.push(key);
                    self.bits.push(bits);
                }
            }
        }
    }
}

/// Every name, with the lists the families gate on read from their own constants.
fn entries() -> impl Iterator<Item = (&'static str, u16)> {
    let lists: [(u16, &'static [&'static str]); 6] = [
        (INFRA, infra::CLOUD.list),
        (INFRA, services::CONTROL_PROGS.list),
        (INFRA, services::CONTROL_CMDLETS.list),
        (INFRA, deploy::DEPLOYERS.list),
        (INFRA, deploy::PUBLISHERS.list),
        (WIPE, wipe::DISK.list),
    ];
    ARMS.iter()
        .copied()
        .chain(lists)
        .flat_map(|(bits, names)| names.iter().map(move |n| (*n, bits)))
}

fn table() -> &'static Table {
    TABLE.get_or_init(|| {
        let count = entries().count();
        let mut t = Table {
            keys: Vec::with_capacity(count),
            bits: Vec::with_capacity(count),
            slots: vec![0; (count * 2).next_power_of_two()],
        };
        for (name, bits) in entries() {
            t.insert(name, bits);
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// String literals at the head of the match arms indented `indent` spaces, in `source`
    /// from `start` to the next `end`.
    fn arm_names(source: &str, start: &str, end: &str, indent: usize) -> Vec<String> {
        let from = source.find(start).unwrap();
        let body = &source[from..];
        let body = &body[..body.find(end).unwrap()];
        let arm = " ".repeat(indent);
        let mut names = Vec::new();
        let mut head: Option<String> = None;
        for line in body.lines() {
            let rest = line.strip_prefix(arm.as_str()).unwrap_or("");
            let arm_start = rest.starts_with('"') || rest.starts_with("| \"");
            if head.is_none() && !arm_start {
                continue;
            }
            let h = head.get_or_insert_with(String::new);
            h.push_str(line);
            if h.contains("=>") {
                let h = head.take().unwrap();
                let h = h.split("=>").next().unwrap();
                let h = h.split(" if ").next().unwrap();
                names.extend(h.split('"').skip(1).step_by(2).map(str::to_owned));
            }
        }
        names
    }

    #[test]
    fn every_arm_of_a_skipped_family_is_in_the_table() {
        const APPLY: &str = "pub(super) fn apply(";
        const FN_END: &str = "\n}\n";
        const MATCH_END: &str = "\n    };";
        let categories = include_str!("categories.rs");
        let sources = [
            (DELETE, include_str!("delete.rs"), APPLY, FN_END, 8),
            (WIPE, include_str!("wipe.rs"), APPLY, FN_END, 8),
            (SYSTEM, include_str!("system.rs"), APPLY, FN_END, 8),
            (
                SYSTEM,
                include_str!("system.rs"),
                "\nfn powershell(",
                FN_END,
                8,
            ),
            (DATA, include_str!("data.rs"), APPLY, FN_END, 8),
            (OPTEXEC, include_str!("optexec.rs"), APPLY, FN_END, 8),
            (ENV, include_str!("env.rs"), APPLY, FN_END, 8),
            (INFRA, include_str!("infra.rs"), APPLY, FN_END, 8),
            (EXEC, include_str!("exec.rs"), "\nfn programs(", FN_END, 8),
            (
                EXEC,
                include_str!("exec.rs"),
                "\nfn powershell_cmdlets(",
                FN_END,
                8,
            ),
            (NET, include_str!("net.rs"), "\nfn programs(", FN_END, 8),
            (
                PACKAGES,
                categories,
                "let found: Option<(bool, usize)> = match c.prog {",
                MATCH_END,
                8,
            ),
            (
                PACKAGES,
                categories,
                "    let installs =\n",
                "\n        };",
                12,
            ),
            (
                PACKAGES,
                categories,
                "let removes = match p {",
                MATCH_END,
                8,
            ),
            (
                PACKAGES,
                categories,
                "let runs_project = match c.prog {",
                MATCH_END,
                8,
            ),
            (
                PACKAGES,
                categories,
                "let script = match c.prog {",
                MATCH_END,
                8,
            ),
        ];
        for (bit, source, start, end, indent) in sources {
            let names = arm_names(source, start, end, indent);
            assert!(names.len() >= 4, "{start}: {names:?}");
            for n in names {
                assert!(
                    families(&n, None) & bit != 0 && families("x", Some(&n)) & bit != 0,
                    "{start} names `{n}`, which the table does not send to it"
                );
            }
        }
        // The cmdlets of the installs' fallback arm.
        let installs = categories.split("    let installs =\n").nth(1).unwrap();
        let fallback = installs.split("_ => matches!(").nth(1).unwrap();
        let fallback = &fallback[..fallback.find(')').unwrap()];
        for n in fallback.split('"').skip(1).step_by(2) {
            assert_ne!(families("x", Some(n)) & PACKAGES, 0, "{n}");
        }
    }

    use crate::analysis::shell::analyze::analyze;
    use crate::analysis::shell::command::Dialect;
    use crate::analysis::Limits;

    /// The analysis of `line` under `dialect`, with the skips and with every family run.
    fn both(line: &str, dialect: Dialect) {
        let limits = Limits::default();
        let skipping = analyze(line, dialect, &limits, 0);
        let every = super::super::with_every_family(|| analyze(line, dialect, &limits, 0));
        assert_eq!(skipping, every, "{dialect:?}: {line:?}");
    }

    /// Every string literal of the rule sources (their non-test part): program names,
    /// subcommands, options, paths and markers the rules look for.
    fn literals() -> Vec<String> {
        let sources = [
            include_str!("mod.rs"),
            include_str!("categories.rs"),
            include_str!("containers.rs"),
            include_str!("data.rs"),
            include_str!("delete.rs"),
            include_str!("deploy.rs"),
            include_str!("env.rs"),
            include_str!("exec.rs"),
            include_str!("gate.rs"),
            include_str!("git.rs"),
            include_str!("infra.rs"),
            include_str!("net.rs"),
            include_str!("optexec.rs"),
            include_str!("services.rs"),
            include_str!("system.rs"),
            include_str!("wipe.rs"),
            include_str!("../command.rs"),
        ];
        let mut out = std::collections::BTreeSet::new();
        for src in sources {
            let code = src.split("#[cfg(test)]\nmod tests").next().unwrap();
            for lit in code.split('"').skip(1).step_by(2) {
                let ok = !lit.is_empty()
                    && lit.len() <= 40
                    && !lit.contains(['\\', '{', '}', '\n'])
                    && !lit.contains("  ");
                if ok {
                    out.insert(lit.to_owned());
                }
            }
        }
        out.into_iter().collect()
    }

    fn shell_word(t: &str) -> String {
        format!("'{}'", t.replace('\'', "'\\''"))
    }

    #[test]
    fn skipping_families_changes_no_analysis_of_any_name_the_rules_mention() {
        use crate::analysis::shell::model::testing::Rng;
        let lits = literals();
        assert!(lits.len() > 1000, "{}", lits.len());
        const SHAPES: [&str; 14] = [
            "",
            "-rf /",
            "-R 777 /",
            "drop database app",
            "install x",
            "deploy --prod",
            "exec -it c sh -c 'rm -rf /'",
            "run x",
            "-c 'rm -rf ~'",
            "http://169.254.169.254/latest/meta-data/iam/security-credentials/x",
            "~/.ssh/id_rsa",
            "FLUSHALL",
            "-Recurse -Force C:\\",
            "apply -auto-approve",
        ];
        let mut rng = Rng(5);
        for prog in &lits {
            let word = shell_word(prog);
            for variant in [
                word.clone(),
                format!("{word}.sh"),
                format!("{word}3"),
                format!("./{word}"),
                format!("{word}-prod"),
            ] {
                for shape in SHAPES {
                    both(&format!("{variant} {shape}"), Dialect::Posix);
                }
                let mut line = variant.clone();
                for _ in 0..3 {
                    line.push(' ');
                    line.push_str(&shell_word(&lits[rng.below(lits.len())]));
                }
                both(&line, Dialect::Posix);
                both(&line, Dialect::PowerShell);
                both(&line, Dialect::Cmd);
            }
            // As a PowerShell cmdlet or alias, with parameters.
            both(
                &format!("{prog} -Path C:\\x -Recurse -Force"),
                Dialect::PowerShell,
            );
        }
    }

    #[test]
    fn skipping_families_changes_no_analysis_of_the_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
        let mut lines = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                let mut texts = Vec::new();
                collect_strings(&v["params"], &mut texts);
                for t in texts {
                    for d in [Dialect::Posix, Dialect::PowerShell, Dialect::Cmd] {
                        both(&t, d);
                    }
                    lines += 1;
                }
            }
        }
        assert!(lines > 1000, "{lines}");
    }

    fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if s.len() <= 4096 => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
            _ => {}
        }
    }

    #[test]
    fn computed_names_reach_their_families() {
        assert_ne!(families("mkfs.ext4", None) & WIPE, 0);
        assert_ne!(families("newfs_msdos", None) & WIPE, 0);
        assert_ne!(families("deploy-prod.sh", None) & INFRA, 0);
        assert_ne!(families("bash5.2", None) & EXEC, 0);
        assert_ne!(families("pwsh-preview", None) & EXEC, 0);
        assert_ne!(families("python3.12", None) & EXEC, 0);
        assert_ne!(families("kubectl", None) & (INFRA | NET), 0);
        assert_ne!(families("ls", Some("remove-item")) & DELETE, 0);
        assert_eq!(families("ls", Some("get-childitem")), 0);
        assert_eq!(families("echo", Some("write-output")), 0);
        assert_eq!(families("grep", None), 0);
        assert_ne!(families("pip3.12", None) & PACKAGES, 0);
    }
}
