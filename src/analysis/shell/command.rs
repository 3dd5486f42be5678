//! The command model: from a lexed simple command to the program that really runs.
//!
//! Wrappers are peeled with their option values (sudo, doas, run0, env, command/builtin/exec,
//! nohup, nice, time, timeout, stdbuf, ionice, setsid, busybox, chroot, flock, CMD `call` and
//! `start`, …) so the rules see the effective program and its arguments; what was stripped is
//! kept (`wrappers`, `elevated`, `env`). `NAME=value` words right after any wrapper are
//! assignments (`sudo LD_PRELOAD=x cmd`); a wrapper asked for `--help`/`--version` runs
//! nothing; `sudo -e FILE` is `sudoedit FILE`. Programs that run *another* command with arguments only known at run time (`xargs`,
//! `parallel`, `find -exec`) yield that command with `args_unknown`. Programs that run a
//! *command line* (`sh -c`, `cmd /c`, `pwsh -Command`, `eval`, `su -c`, `env -S`, …) yield a
//! [`Payload`] for the analyzer to lex again, one level deeper.
//!
//! Non-goals: variable values, aliases and functions are not resolved; a command word that is
//! dynamic (`$R -rf x`) is reported as such, never guessed.

use super::model::Word;

/// Which lexer a payload must go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Posix,
    PowerShell,
    Cmd,
}

/// A command line one level down, to be lexed and analysed again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    pub dialect: Dialect,
    pub text: String,
    /// How it was reached, e.g. `sh -c`, `eval`, `pwsh -EncodedCommand`.
    pub via: &'static str,
    /// The payload was decoded from an encoding (base64 `-EncodedCommand`).
    pub encoded: bool,
}

/// The effective command after peeling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cmd<'w> {
    /// Effective argv; `argv[0]` is the program as written.
    pub argv: Vec<&'w Word>,
    /// Lowercase basename of the program, without `.exe` (empty when there is no command).
    pub program: String,
    /// Wrappers peeled off, outermost first.
    pub wrappers: Vec<&'static str>,
    /// Run through sudo / doas / su / runas / pkexec.
    pub elevated: bool,
    /// Environment assignments from leading `NAME=value` and `env NAME=value`.
    pub env: Vec<(String, String)>,
    /// More arguments are appended at run time (xargs, parallel, find -exec `{}`).
    pub args_unknown: bool,
    /// A wrapper's options could not be understood (e.g. `env -S`): the effect is unknown.
    pub opaque: bool,
}

impl<'w> Cmd<'w> {
    /// Argument `i` (0 = program) as text.
    pub fn arg(&self, i: usize) -> Option<&str> {
        self.argv.get(i).map(|w| w.text.as_str())
    }

    /// Arguments after the program.
    pub fn args(&self) -> impl Iterator<Item = &'w Word> + '_ {
        self.argv.iter().skip(1).copied()
    }

    /// True when any argument (not the program) is exactly `flag`.
    pub fn has_arg(&self, flag: &str) -> bool {
        self.args().any(|w| w.text == flag)
    }
}

/// The program a script's `#!` line names ([`program_name`]; through `env` and its options:
/// `#!/usr/bin/env -S node` → `node`); `None` without a `#!`, empty when the line names none.
pub fn shebang_program(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next().unwrap_or("");
    let mut words = line.split_ascii_whitespace();
    let prog = words.next().map(program_name).unwrap_or_default();
    if prog == "env" {
        return Some(
            words
                .find(|w| !w.starts_with('-'))
                .map(program_name)
                .unwrap_or_default(),
        );
    }
    Some(prog)
}

/// Lowercase basename without directories or a `.exe` suffix: `/usr/bin/SUDO.exe` → `sudo`.
pub fn program_name(word: &str) -> String {
    let mut out = String::new();
    program_name_into(word, &mut out);
    out
}

/// `word` is its own program name: at most 64 bytes of lowercase ASCII letters, digits and
/// `_` (no separator, `.exe` suffix or capital for [`program_name`] to remove).
pub fn is_plain_program_name(word: &str) -> bool {
    word.len() <= 64
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// [`program_name`] written into `out` (replacing its content), reusing its buffer.
pub fn program_name_into(word: &str, out: &mut String) {
    if is_plain_program_name(word) {
        out.clear();
        out.push_str(word);
        return;
    }
    // Only the tail can be a basename; bounding it keeps huge dynamic words linear.
    let mut start = word.len().saturating_sub(256);
    while !word.is_char_boundary(start) {
        start += 1;
    }
    let word = word.get(start..).unwrap_or(word);
    // After the last `/` or `\` (ASCII bytes, so the cut is at a character boundary).
    let base = match word
        .as_bytes()
        .iter()
        .rposition(|&b| b == b'/' || b == b'\\')
    {
        Some(at) => word.get(at + 1..).unwrap_or(""),
        None => word,
    };
    let base = match base.len().checked_sub(4) {
        Some(at)
            if base
                .get(at..)
                .is_some_and(|t| t.eq_ignore_ascii_case(".exe")) =>
        {
            base.get(..at).unwrap_or(base)
        }
        _ => base,
    };
    out.clear();
    out.push_str(base);
    out.make_ascii_lowercase();
}

/// The result of peeling one simple command: the commands it runs and the payloads it carries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Peeled<'w> {
    pub commands: Vec<Cmd<'w>>,
    pub payloads: Vec<Payload>,
    /// Some wrapper elevated privileges (also when it runs only a payload, like `su -c`).
    pub elevated: bool,
}

impl Peeled<'_> {
    /// Adds `text` as a POSIX shell command a wrapper runs (`watch 'cmd'`, `flock -c 'cmd'`).
    fn shell(&mut self, text: String, via: &'static str) {
        self.payloads.push(Payload {
            dialect: Dialect::Posix,
            text,
            via,
            encoded: false,
        });
    }
}

/// The programs [`step_with`] peels, sorted: [`is_wrapper`] as a list. A test reads the arms
/// of `step_with` from the source and checks both against them, so an arm cannot be added
/// without its name here. Any other program is the effective command as it is: peeling stops
/// without the step (and its copy of argv).
#[cfg(test)]
const WRAPPERS: [&str; 89] = [
    "arch",
    "builtin",
    "busybox",
    "bwrap",
    "caffeinate",
    "call",
    "capsh",
    "catatonit",
    "catchsegv",
    "cgexec",
    "chpst",
    "chronic",
    "chroot",
    "chrt",
    "command",
    "conhost",
    "cpulimit",
    "daemonize",
    "dbus-launch",
    "dbus-run-session",
    "doas",
    "dumb-init",
    "eatmydata",
    "entr",
    "env",
    "exec",
    "fakechroot",
    "fakeroot",
    "faketime",
    "firejail",
    "flatpak-spawn",
    "flock",
    "gdb",
    "gosu",
    "ifne",
    "ionice",
    "lckdo",
    "linux32",
    "linux64",
    "ltrace",
    "nice",
    "nocache",
    "nohup",
    "nsenter",
    "numactl",
    "parallel",
    "pkexec",
    "prlimit",
    "proot",
    "proxychains",
    "proxychains4",
    "run0",
    "runas",
    "runcon",
    "runuser",
    "s6-setuidgid",
    "sandbox-exec",
    "script",
    "sem",
    "setarch",
    "setpriv",
    "setsid",
    "ssh-agent",
    "start",
    "start-stop-daemon",
    "stdbuf",
    "strace",
    "su",
    "su-exec",
    "sudo",
    "systemd-inhibit",
    "systemd-run",
    "taskset",
    "time",
    "timeout",
    "tini",
    "torify",
    "torsocks",
    "toybox",
    "trickle",
    "tsocks",
    "tsp",
    "unbuffer",
    "unshare",
    "valgrind",
    "watch",
    "with-contenv",
    "xargs",
    "xvfb-run",
];

/// `program` is one of the programs [`step_with`] peels (a `match`: no `memcmp` call per
/// probe, unlike a search of a list; a test checks it against `step_with`'s arms).
fn is_wrapper(program: &str) -> bool {
    matches!(
        program,
        "arch"
            | "builtin"
            | "busybox"
            | "bwrap"
            | "caffeinate"
            | "call"
            | "capsh"
            | "catatonit"
            | "catchsegv"
            | "cgexec"
            | "chpst"
            | "chronic"
            | "chroot"
            | "chrt"
            | "command"
            | "conhost"
            | "cpulimit"
            | "daemonize"
            | "dbus-launch"
            | "dbus-run-session"
            | "doas"
            | "dumb-init"
            | "eatmydata"
            | "entr"
            | "env"
            | "exec"
            | "fakechroot"
            | "fakeroot"
            | "faketime"
            | "firejail"
            | "flatpak-spawn"
            | "flock"
            | "gdb"
            | "gosu"
            | "ifne"
            | "ionice"
            | "lckdo"
            | "linux32"
            | "linux64"
            | "ltrace"
            | "nice"
            | "nocache"
            | "nohup"
            | "nsenter"
            | "numactl"
            | "parallel"
            | "pkexec"
            | "prlimit"
            | "proot"
            | "proxychains"
            | "proxychains4"
            | "run0"
            | "runas"
            | "runcon"
            | "runuser"
            | "s6-setuidgid"
            | "sandbox-exec"
            | "script"
            | "sem"
            | "setarch"
            | "setpriv"
            | "setsid"
            | "ssh-agent"
            | "start"
            | "start-stop-daemon"
            | "stdbuf"
            | "strace"
            | "su"
            | "su-exec"
            | "sudo"
            | "systemd-inhibit"
            | "systemd-run"
            | "taskset"
            | "time"
            | "timeout"
            | "tini"
            | "torify"
            | "torsocks"
            | "toybox"
            | "trickle"
            | "tsocks"
            | "tsp"
            | "unbuffer"
            | "unshare"
            | "valgrind"
            | "watch"
            | "with-contenv"
            | "xargs"
            | "xvfb-run"
    )
}

/// Bound on wrapper peeling steps for one command (each step consumes at least one word).
const MAX_PEEL_STEPS: usize = 64;

const SHELLS: [&str; 12] = [
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "mksh",
    "yash",
    "fish",
    "busybox-sh",
    "rbash",
    "tcsh",
];

/// True for `bash`, `bash5`, `bash-5.2`, `zsh-5.9`: version-suffixed shells count.
pub fn is_shell(program: &str) -> bool {
    // Every shell name ends in a letter, so `program` is a shell plus a version suffix exactly
    // when what is left after stripping the suffix characters is a shell name.
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    // Every shell name ends in `sh` (a test checks): most programs are turned away at once.
    stem.ends_with("sh") && SHELLS.contains(&stem) || program == "csh"
}

/// PowerShell hosts: `powershell`, `pwsh`, `pwsh-preview`, `powershell_ise`.
pub fn is_powershell(program: &str) -> bool {
    program == "powershell" || program.starts_with("pwsh") || program.starts_with("powershell")
}

/// Peels wrappers off `argv` (with leading `assignments`) and returns the effective commands
/// and payloads. Never fails; unknown shapes keep the words as they are.
pub fn peel<'w>(argv: &[&'w Word], assignments: &[(String, Word)]) -> Peeled<'w> {
    peel_owned(argv.to_vec(), assignments)
}

/// [`peel`] of words the caller no longer needs (no copy of them).
pub fn peel_owned<'w>(argv: Vec<&'w Word>, assignments: &[(String, Word)]) -> Peeled<'w> {
    let mut out = Peeled::default();
    peel_with(argv, String::new(), assignments, &mut out);
    out
}

/// [`peel`] of `words` into `out`, replacing what it held but reusing its buffers (the argv
/// and program name of its first command, its lists): the driver peels every simple command
/// of a script through one `Peeled`, so a command costs no allocation here.
pub fn peel_into<'w>(
    words: impl IntoIterator<Item = &'w Word>,
    assignments: &[(String, Word)],
    out: &mut Peeled<'w>,
) {
    let spare = out.commands.drain(..).next();
    out.payloads.clear();
    out.elevated = false;
    let (mut argv, mut program) = spare.map(|c| (c.argv, c.program)).unwrap_or_default();
    argv.clear();
    argv.extend(words);
    program.clear();
    peel_with(argv, program, assignments, out);
}

/// The peeling itself, into an empty `out`; `program` is an empty buffer to reuse.
fn peel_with<'w>(
    argv: Vec<&'w Word>,
    program: String,
    assignments: &[(String, Word)],
    out: &mut Peeled<'w>,
) {
    let mut cmd = Cmd {
        argv,
        program,
        wrappers: Vec::new(),
        elevated: false,
        env: assignments
            .iter()
            .map(|(k, v)| (k.clone(), v.text.clone()))
            .collect(),
        args_unknown: false,
        opaque: false,
    };
    for _ in 0..MAX_PEEL_STEPS {
        let Some(first) = cmd.argv.first() else {
            break;
        };
        program_name_into(&first.text, &mut cmd.program);
        if !is_wrapper(&cmd.program) {
            // Not a wrapper: `step` would return `Step::Done` and change nothing.
            break;
        }
        let before = cmd.argv.clone();
        match step(&mut cmd, out, &before) {
            Step::Peeled => {
                if asked_for_help(&before, &cmd.argv) {
                    // `nice --help rm -rf /`: the wrapper prints its usage and runs nothing.
                    cmd.argv.clear();
                    cmd.program.clear();
                    break;
                }
                // `sudo FOO=1 cmd`, `doas LD_PRELOAD=x cmd`: assignments right after a
                // wrapper set the command's environment (`env`-like).
                if take_assignments(&mut cmd) {
                    cmd.argv.clear();
                    cmd.program.clear();
                    break;
                }
                continue;
            }
            Step::Done => break,
            Step::NoCommand => {
                cmd.argv.clear();
                cmd.program.clear();
                break;
            }
        }
    }
    out.elevated |= cmd.elevated;
    if !cmd.argv.is_empty() || !cmd.env.is_empty() {
        // A peeling makes one command: room for one (a `Cmd` is large; the default growth
        // would make room for four).
        if out.commands.capacity() == 0 {
            out.commands.reserve_exact(1);
        }
        out.commands.push(cmd);
    }
}

/// The words a wrapper consumed (between its name and the new command word) include
/// `--help` or `--version`: the wrapper only prints.
fn asked_for_help(before: &[&Word], after: &[&Word]) -> bool {
    let end = after
        .first()
        .and_then(|first| before.iter().position(|w| std::ptr::eq(*w, *first)))
        .unwrap_or(before.len());
    before
        .get(1..end)
        .unwrap_or(&[])
        .iter()
        .any(|w| matches!(w.text.as_str(), "--help" | "--version"))
}

/// A `NAME=value` word: `NAME` is a shell identifier.
pub fn assignment(word: &str) -> Option<(&str, &str)> {
    let (k, v) = word.split_once('=')?;
    let mut chars = k.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some((k, v))
}

/// Moves leading `NAME=value` words of `cmd.argv` into `cmd.env`; true when nothing is left
/// to run.
fn take_assignments(cmd: &mut Cmd<'_>) -> bool {
    let n = cmd
        .argv
        .iter()
        .take_while(|w| assignment(&w.text).is_some())
        .count();
    if n == 0 {
        return false;
    }
    for w in cmd.argv.iter().take(n) {
        if let Some((k, v)) = assignment(&w.text) {
            cmd.env.push((k.to_owned(), v.to_owned()));
        }
    }
    cmd.argv.drain(..n);
    cmd.argv.is_empty()
}

enum Step {
    /// A wrapper was removed from the front; look again.
    Peeled,
    /// `cmd` is the effective command.
    Done,
    /// The wrapper runs no command (`command -v x`, `sudo -l`, `env --help`).
    NoCommand,
}

/// `sudo [opts] -e FILE…` → `sudoedit FILE…` (argv keeps `sudoedit` as its program word).
fn as_sudoedit(cmd: &mut Cmd<'_>, i: usize) -> Step {
    // Keep the `-e` word as the program position and the files after it.
    let n = i.saturating_sub(1).min(cmd.argv.len());
    cmd.argv.drain(..n);
    cmd.wrappers.push("sudo");
    cmd.program = "sudoedit".to_owned();
    Step::Done
}

/// Removes `n` leading words and records the wrapper.
fn drop_front(cmd: &mut Cmd<'_>, n: usize, wrapper: &'static str) -> Step {
    let n = n.min(cmd.argv.len());
    cmd.argv.drain(..n);
    cmd.wrappers.push(wrapper);
    if cmd.argv.is_empty() {
        Step::NoCommand
    } else {
        Step::Peeled
    }
}

/// Index of the first non-option word after the program, skipping options; `with_value` lists
/// short options that take a value (`-u root`), long ones may use `--opt=value` or
/// `--opt value` when listed in `long_with_value`. `--` ends options.
fn skip_options(argv: &[&Word], with_value: &[char], long_with_value: &[&str]) -> usize {
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            return i + 1;
        }
        if let Some(long) = t.strip_prefix("--") {
            if !long.contains('=') && long_with_value.contains(&long) {
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            // Clustered short options: the first one that takes a value consumes the rest of
            // the word, or the next word when it is last.
            let chars: Vec<char> = t.chars().skip(1).collect();
            let mut consumed_next = false;
            for (j, c) in chars.iter().enumerate() {
                if with_value.contains(c) {
                    consumed_next = j + 1 == chars.len();
                    break;
                }
            }
            i += if consumed_next { 2 } else { 1 };
            continue;
        }
        return i;
    }
    i
}

fn any_short_flag(argv: &[&Word], upto: usize, flags: &[char]) -> bool {
    argv.iter().take(upto).skip(1).any(|w| {
        let t = w.text.as_str();
        t.starts_with('-') && !t.starts_with("--") && t.chars().skip(1).any(|c| flags.contains(&c))
    })
}

fn any_long_flag(argv: &[&Word], upto: usize, flags: &[&str]) -> bool {
    argv.iter().take(upto).skip(1).any(|w| {
        flags
            .iter()
            .any(|f| w.text == *f || w.text.starts_with(&format!("{f}=")))
    })
}

/// GNU `parallel` with no command template: the arguments after `:::` are command lines
/// (payloads), or, with none, the lines read from stdin are (`Step::Done`: the rules see
/// `parallel` itself).
#[inline(never)]
fn parallel_lines(out: &mut Peeled<'_>, argv: &[&Word], end: usize) -> Step {
    let lines: Vec<&Word> = argv
        .get(end + 1..)
        .unwrap_or(&[])
        .iter()
        .copied()
        .filter(|w| !w.text.starts_with(":::"))
        .collect();
    if lines.is_empty() || argv.get(end).is_some_and(|w| w.text == "::::") {
        return Step::Done;
    }
    for w in lines {
        out.shell(w.text.clone(), "parallel");
    }
    Step::NoCommand
}

/// `script [-aefq…] [-c CMD | -qcCMD | --command[=]CMD] [file]`: the command, as a payload.
#[inline(never)]
fn script(out: &mut Peeled<'_>, argv: &[&Word]) -> Step {
    // script [-aefq…] [-c CMD | -qcCMD | --command[=]CMD] [file]
    for (pos, w) in argv.iter().enumerate().skip(1) {
        let t = w.text.as_str();
        let value = if let Some(long) = t.strip_prefix("--") {
            match long.split_once('=') {
                Some(("command", v)) => Some(Some(v.to_owned())),
                None if long == "command" => Some(None),
                _ => None,
            }
        } else if let Some(cluster) = t.strip_prefix('-') {
            // The first letter taking a value ends the cluster.
            cluster
                .char_indices()
                .find(|(_, ch)| "cEIOBTmo".contains(*ch))
                .filter(|(_, ch)| *ch == 'c')
                .map(|(at, _)| {
                    Some(cluster.get(at + 1..).unwrap_or("").to_owned()).filter(|v| !v.is_empty())
                })
        } else {
            None
        };
        let Some(value) = value else { continue };
        let text = value.or_else(|| argv.get(pos + 1).map(|w| w.text.clone()));
        if let Some(text) = text {
            out.payloads.push(Payload {
                dialect: Dialect::Posix,
                text,
                via: "script -c",
                encoded: false,
            });
        }
        return Step::NoCommand;
    }
    Step::Done
}

/// A wrapper's working-directory option among its options `argv[1..end]` (`-D DIR`, `-DDIR`,
/// `--chdir DIR`, `--chdir=DIR`), the last one given.
#[inline(never)]
fn chdir_option<'w>(argv: &[&'w Word], end: usize, short: &str, long: &str) -> Option<&'w str> {
    let mut dir = None;
    let mut j = 1;
    while j < end {
        let Some(t) = argv.get(j).map(|w| w.text.as_str()) else {
            break;
        };
        if t == short || t == long {
            dir = argv.get(j + 1).map(|w| w.text.as_str());
            j += 2;
            continue;
        }
        if let Some(d) = t
            .strip_prefix(long)
            .and_then(|r| r.strip_prefix('='))
            .or_else(|| {
                t.strip_prefix(short)
                    .filter(|d| !d.is_empty() && !t.starts_with("--"))
            })
        {
            dir = Some(d);
        }
        j += 1;
    }
    dir
}

/// A command a wrapper runs in another directory (`env -C DIR cmd…`, `sudo -D DIR cmd…`) is
/// checked as the payload `cd DIR && cmd…`: relative targets resolve like after `cd`
/// (`env -C / rm -rf x` deletes `/x`). Rare, so the text is only built then.
#[cold]
#[inline(never)]
fn cd_payload(out: &mut Peeled<'_>, dir: &str, rest: &[&Word]) -> Step {
    if rest.is_empty() {
        return Step::NoCommand;
    }
    let dir_word = Word {
        text: dir.to_owned(),
        ..Word::default()
    };
    let text = format!(
        "cd {} && {}",
        super::rules::argv_text([&dir_word]),
        super::rules::argv_text(rest.iter().copied())
    );
    out.payloads.push(Payload {
        dialect: Dialect::Posix,
        text,
        via: "a wrapper's working directory",
        encoded: false,
    });
    Step::NoCommand
}

/// One peeling step over `cmd`, whose words before the step are `argv` (a copy the caller
/// keeps: the step rewrites `cmd.argv` while reading them). `cmd.program` is lent out for the
/// step and put back unless the step renamed the program (`sudo -e` → `sudoedit`).
fn step<'w>(cmd: &mut Cmd<'w>, out: &mut Peeled<'w>, argv: &[&'w Word]) -> Step {
    let program = std::mem::take(&mut cmd.program);
    let r = step_with(cmd, out, &program, argv);
    if cmd.program.is_empty() {
        cmd.program = program;
    }
    r
}

fn step_with<'w>(
    cmd: &mut Cmd<'w>,
    out: &mut Peeled<'w>,
    program: &str,
    argv: &[&'w Word],
) -> Step {
    match program {
        "sudo" => {
            let i = skip_options(
                argv,
                &['u', 'g', 'h', 'p', 'C', 'T', 'r', 't', 'U', 'D', 'R'],
                &[
                    "user",
                    "group",
                    "host",
                    "prompt",
                    "close-from",
                    "command-timeout",
                    "role",
                    "type",
                    "other-user",
                    "chdir",
                    "chroot",
                ],
            );
            cmd.elevated = true;
            if let Some(dir) = chdir_option(argv, i, "-D", "--chdir") {
                return cd_payload(out, dir, argv.get(i..).unwrap_or(&[]));
            }
            if any_short_flag(argv, i, &['l', 'v', 'V', 'k', 'K']) && argv.get(i).is_none() {
                return Step::NoCommand;
            }
            if any_long_flag(argv, i, &["--help", "--version", "--list", "--validate"]) {
                return Step::NoCommand;
            }
            if any_short_flag(argv, i, &['e']) || any_long_flag(argv, i, &["--edit"]) {
                // `sudo -e FILE…` is `sudoedit FILE…`: the files are the operands.
                return as_sudoedit(cmd, i);
            }
            drop_front(cmd, i, "sudo")
        }
        "run0" => {
            // systemd's sudo: run0 [--user=U] [--chdir=D] [--setenv=…] cmd…
            let i = skip_options(
                argv,
                &['u', 'g', 'D'],
                &[
                    "user",
                    "group",
                    "chdir",
                    "setenv",
                    "property",
                    "unit",
                    "description",
                    "slice",
                    "nice",
                    "machine",
                    "background",
                ],
            );
            cmd.elevated = true;
            if let Some(dir) = chdir_option(argv, i, "-D", "--chdir") {
                return cd_payload(out, dir, argv.get(i..).unwrap_or(&[]));
            }
            if argv.get(i).is_none() {
                // A root shell.
                return Step::Done;
            }
            drop_front(cmd, i, "sudo")
        }
        "call" => {
            // CMD `call prog args`; `call :label` jumps inside a batch file.
            if argv.get(1).is_some_and(|w| w.text.starts_with(':')) {
                return Step::Done;
            }
            drop_front(cmd, 1, "call")
        }
        "start" => {
            // CMD `start ["title"] [/b /wait /min /d dir /affinity m /node n …] prog args`.
            let mut i = 1;
            if argv.get(1).is_some_and(|w| w.quoted) {
                i = 2;
            }
            while let Some(w) = argv.get(i) {
                let t = w.text.to_ascii_lowercase();
                if matches!(t.as_str(), "/d" | "/node" | "/affinity") {
                    i += 2;
                } else if t.starts_with('/')
                    && t.len() > 1
                    && !t.get(1..).is_some_and(|r| r.contains('/'))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            if argv.get(i).is_none() {
                return Step::Done;
            }
            drop_front(cmd, i, "start")
        }
        "doas" => {
            let i = skip_options(argv, &['u', 'C'], &[]);
            cmd.elevated = true;
            if any_short_flag(argv, i, &['C']) {
                return Step::NoCommand;
            }
            drop_front(cmd, i, "doas")
        }
        "pkexec" | "runas" | "gosu" | "su-exec" => {
            cmd.elevated = true;
            let i = if program == "pkexec" {
                skip_options(argv, &[], &["user"])
            } else if program == "runas" {
                // runas /user:admin "cmd" → payload in cmd dialect.
                let rest: Vec<&str> = argv
                    .iter()
                    .skip(1)
                    .map(|w| w.text.as_str())
                    .filter(|t| !t.starts_with('/'))
                    .collect();
                if let Some(last) = rest.last() {
                    out.payloads.push(Payload {
                        dialect: Dialect::Cmd,
                        text: (*last).to_owned(),
                        via: "runas",
                        encoded: false,
                    });
                }
                return Step::NoCommand;
            } else {
                2 // gosu USER cmd…, su-exec USER cmd…
            };
            drop_front(cmd, i, "elevate")
        }
        "su" | "runuser" => {
            cmd.elevated = true;
            // su [opts] [user] -c 'command'
            let mut payload = None;
            let mut k = 1;
            while let Some(w) = argv.get(k) {
                let t = w.text.as_str();
                if t == "-c" || t == "--command" {
                    payload = argv.get(k + 1).map(|w| w.text.clone());
                    break;
                }
                if let Some(v) = t.strip_prefix("--command=") {
                    payload = Some(v.to_owned());
                    break;
                }
                k += 1;
            }
            match payload {
                Some(text) => {
                    out.payloads.push(Payload {
                        dialect: Dialect::Posix,
                        text,
                        via: "su -c",
                        encoded: false,
                    });
                    Step::NoCommand
                }
                // Interactive root shell: keep `su` as the command (elevation is the finding).
                None => Step::Done,
            }
        }
        "env" => {
            let mut i = 1;
            let mut chdir: Option<&str> = None;
            let mut first_assignment: Option<usize> = None;
            while let Some(w) = argv.get(i) {
                let t = w.text.as_str();
                if t == "--" {
                    i += 1;
                    break;
                }
                if matches!(t, "--help" | "--version") {
                    return Step::NoCommand;
                }
                if t == "-S"
                    || t.starts_with("--split-string")
                    || (t.starts_with("-S") && !t.starts_with("--"))
                {
                    // env -S 'cmd args': a command line split by env itself.
                    let separate = t == "-S" || t == "--split-string";
                    // `env -S bash -e`: a value that is one plain word splits into itself, so
                    // the words from it on are the command (`env bash -e`).
                    if separate
                        && argv.get(i + 1).is_some_and(|w| {
                            !w.dynamic
                                && !w.text.is_empty()
                                && !w.text.contains(|c: char| {
                                    c.is_whitespace() || matches!(c, '\\' | '\'' | '"' | '$' | '#')
                                })
                        })
                    {
                        i += 1;
                        continue;
                    }
                    let text = if separate {
                        argv.get(i + 1).map(|w| w.text.clone())
                    } else {
                        t.split_once('=')
                            .map(|(_, v)| v.to_owned())
                            .or_else(|| t.get(2..).map(str::to_owned))
                    };
                    // The words after the value are more arguments of the split command
                    // (`env -S 'bash -c' 'rm -rf /'`).
                    let after = argv.get(i + if separate { 2 } else { 1 }..).unwrap_or(&[]);
                    let text = text.map(|mut text| {
                        if !after.is_empty() {
                            text.push(' ');
                            text.push_str(&super::rules::argv_text(after.iter().copied()));
                        }
                        text
                    });
                    cmd.opaque = true;
                    if let Some(text) = text {
                        out.payloads.push(Payload {
                            dialect: Dialect::Posix,
                            text,
                            via: "env -S",
                            encoded: false,
                        });
                    }
                    return Step::NoCommand;
                }
                if matches!(t, "-u" | "--unset" | "-C" | "--chdir") {
                    if matches!(t, "-C" | "--chdir") {
                        chdir = argv.get(i + 1).map(|w| w.text.as_str());
                    }
                    i += 2;
                    continue;
                }
                if let Some(d) = t.strip_prefix("--chdir=").or_else(|| {
                    t.strip_prefix("-C")
                        .filter(|d| !d.is_empty() && !t.starts_with("--"))
                }) {
                    chdir = Some(d);
                    i += 1;
                    continue;
                }
                if t.starts_with('-') && t.len() > 1 {
                    i += 1;
                    continue;
                }
                if let Some((k, v)) = t.split_once('=') {
                    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        first_assignment.get_or_insert(i);
                        cmd.env.push((k.to_owned(), v.to_owned()));
                        i += 1;
                        continue;
                    }
                }
                break;
            }
            if i >= argv.len() {
                // `env`, `env -i`, `env FOO=1`: prints the environment.
                return Step::Done;
            }
            if let Some(dir) = chdir {
                let from = first_assignment.unwrap_or(i);
                return cd_payload(out, dir, argv.get(from..).unwrap_or(&[]));
            }
            drop_front(cmd, i, "env")
        }
        "command" | "builtin" => {
            let i = skip_options(argv, &[], &[]);
            if any_short_flag(argv, i, &['v', 'V']) {
                return Step::NoCommand;
            }
            drop_front(cmd, i, "command")
        }
        "exec" => {
            let i = skip_options(argv, &['a'], &[]);
            drop_front(cmd, i, "exec")
        }
        "nohup" | "setsid" | "time" | "caffeinate" | "unbuffer" | "catchsegv" | "chrt"
        | "taskset" | "cgexec" | "firejail" | "proxychains" | "proxychains4" | "torsocks"
        | "tsocks" | "trickle" | "faketime" => {
            let with_value: &[char] = match program {
                "time" => &['o', 'f'],
                "taskset" => &['c'],
                "cgexec" => &['g'],
                "trickle" => &['u', 'd'],
                _ => &[],
            };
            let mut i = skip_options(argv, with_value, &["output", "format"]);
            // chrt PRIORITY cmd, taskset MASK cmd, faketime TIME cmd
            if matches!(program, "chrt" | "faketime")
                || (program == "taskset" && !any_short_flag(argv, i, &['c']))
            {
                i += 1;
            }
            if any_long_flag(argv, i, &["--help", "--version"]) {
                return Step::NoCommand;
            }
            drop_front(cmd, i, "wrapper")
        }
        "chronic" | "ifne" | "eatmydata" | "nocache" | "fakechroot" | "torify" | "fakeroot"
        | "tini" | "dumb-init" | "catatonit" | "prlimit" | "ssh-agent" | "dbus-launch"
        | "systemd-inhibit" | "sandbox-exec" | "tsp" | "sem" | "linux32" | "linux64" => {
            // Runners that take options, then the command: `chronic -e cmd`, `ifne -n cmd`,
            // `tini -p SIGTERM -- cmd`, `prlimit --nofile=64 cmd`, `ssh-agent -t 60 cmd`,
            // `sandbox-exec -p '(…)' cmd`, `sem -j2 cmd` (GNU parallel's semaphore).
            let (short, long): (&[char], &[&str]) = match program {
                "fakeroot" => (&['l', 's', 'i', 'b'], &["lib", "faked"]),
                "tini" => (&['p', 'e'], &[]),
                "dumb-init" => (&['r'], &["rewrite"]),
                "prlimit" => (&['p', 'o'], &["pid", "output"]),
                "ssh-agent" => (&['a', 'E', 'O', 'P', 't'], &[]),
                "systemd-inhibit" => (&[], &["what", "who", "why", "mode"]),
                "sandbox-exec" => (&['f', 'p', 'n', 'D'], &[]),
                "tsp" => (&['L', 'D', 'N', 'W'], &[]),
                "sem" => (&['j'], &["jobs", "id", "semaphoretimeout", "st"]),
                _ => (&[], &[]),
            };
            drop_front(cmd, skip_options(argv, short, long), "wrapper")
        }
        "setarch" | "runcon" | "lckdo" => {
            // One operand before the command: `setarch ARCH [-R] cmd`, `runcon CONTEXT cmd`
            // (or `runcon -t TYPE cmd`), `lckdo [-w] [-W s] LOCKFILE cmd`.
            let i = match program {
                "setarch" => 1 + skip_options(argv.get(1..).unwrap_or(&[]), &[], &[]),
                "runcon" if argv.get(1).is_some_and(|w| w.text.starts_with('-')) => skip_options(
                    argv,
                    &['u', 'r', 't', 'l'],
                    &["user", "role", "type", "range"],
                ),
                "runcon" => 2,
                _ => skip_options(argv, &['W'], &[]) + 1,
            };
            drop_front(cmd, i, "wrapper")
        }
        "arch" => {
            // macOS `arch -x86_64 cmd`, `arch -arch arm64 -e K=V cmd` (`arch` alone prints the
            // machine's architecture).
            if !argv.get(1).is_some_and(|w| w.text.starts_with('-')) {
                return Step::Done;
            }
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-arch" | "-e" | "-d" => i += 2,
                    t if t.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            drop_front(cmd, i, "wrapper")
        }
        "entr" => {
            // `entr [-acdnprz] utility args`; with `-s` the utility is a shell command.
            let i = skip_options(argv, &[], &[]);
            let shell = argv
                .get(1..i)
                .unwrap_or(&[])
                .iter()
                .any(|w| !w.text.starts_with("--") && w.text.contains('s'));
            if shell {
                if let Some(w) = argv.get(i) {
                    out.shell(w.text.clone(), "entr -s");
                }
                return Step::NoCommand;
            }
            drop_front(cmd, i, "wrapper")
        }
        "conhost" => {
            // Windows' console host runs its command line: `conhost.exe [--headless]
            // [--width N] [--height N] [--signal H] [--server H] [--feature pty] cmd args`.
            let i = skip_options(
                argv,
                &[],
                &["width", "height", "signal", "server", "feature"],
            );
            drop_front(cmd, i, "conhost")
        }
        "nice" => {
            // nice -n 10 cmd, nice -10 cmd, nice --adjustment=5 cmd
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                let t = w.text.as_str();
                if t == "-n" || t == "--adjustment" {
                    i += 2;
                } else if t.starts_with('-') && t.len() > 1 && t != "--" {
                    i += 1;
                } else {
                    if t == "--" {
                        i += 1;
                    }
                    break;
                }
            }
            drop_front(cmd, i, "nice")
        }
        "ionice" => {
            let i = skip_options(
                argv,
                &['c', 'n', 'p', 'P', 'u'],
                &["class", "classdata", "pid", "pgid", "uid"],
            );
            if any_short_flag(argv, i, &['p', 'P', 'u']) {
                return Step::NoCommand;
            }
            drop_front(cmd, i, "ionice")
        }
        "timeout" => {
            let i = skip_options(argv, &['s', 'k'], &["signal", "kill-after"]);
            // then DURATION
            drop_front(cmd, i + 1, "timeout")
        }
        "stdbuf" => {
            let i = skip_options(argv, &['i', 'o', 'e'], &["input", "output", "error"]);
            drop_front(cmd, i, "stdbuf")
        }
        "busybox" | "toybox" => {
            if argv.get(1).is_some_and(|w| w.text.starts_with('-')) {
                return Step::NoCommand;
            }
            drop_front(cmd, 1, "busybox")
        }
        "chroot" => {
            let i = skip_options(argv, &[], &["userspec", "groups"]);
            cmd.elevated = true;
            drop_front(cmd, i + 1, "chroot")
        }
        "unshare" | "nsenter" | "systemd-run" | "strace" | "ltrace" | "valgrind" | "gdb"
        | "flatpak-spawn" | "dbus-run-session" | "xvfb-run" | "with-contenv" | "s6-setuidgid"
        | "chpst" | "daemonize" | "start-stop-daemon" => {
            let (short, long): (&[char], &[&str]) = match program {
                "strace" | "ltrace" => (
                    &['o', 'e', 'p', 's', 'u', 'E', 'a', 'P', 'I', 'b', 'X'],
                    &["output", "trace", "signal", "string-limit"],
                ),
                "nsenter" => (&['t', 'S', 'G'], &["target", "setuid", "setgid"]),
                "systemd-run" => (
                    &['u', 'p', 'E', 'M', 'H'],
                    &[
                        "unit",
                        "property",
                        "setenv",
                        "machine",
                        "host",
                        "uid",
                        "gid",
                        "description",
                        "slice",
                        "working-directory",
                    ],
                ),
                "gdb" => (&['x', 'p'], &[]),
                "xvfb-run" => (
                    &['n', 's', 'f', 'e'],
                    &["server-num", "server-args", "auth-file", "error-file"],
                ),
                _ => (&[], &[]),
            };
            let i = skip_options(argv, short, long);
            if program == "gdb" && !any_long_flag(argv, i, &["--args"]) {
                // Only `gdb --args prog …` runs a command.
                return Step::Done;
            }
            drop_front(cmd, i, "wrapper")
        }
        "numactl" | "setpriv" | "proot" | "cpulimit" => {
            let (short, long): (&[char], &[&str]) = match program {
                "numactl" => (
                    &['N', 'm', 'C', 'i', 'p', 'c'],
                    &[
                        "cpunodebind",
                        "membind",
                        "physcpubind",
                        "interleave",
                        "preferred",
                        "cpubind",
                    ],
                ),
                "setpriv" => (
                    &[],
                    &[
                        "reuid",
                        "regid",
                        "ruid",
                        "euid",
                        "rgid",
                        "egid",
                        "groups",
                        "inh-caps",
                        "ambient-caps",
                        "bounding-set",
                        "securebits",
                        "pdeathsig",
                        "selinux-label",
                        "apparmor-profile",
                        "landlock-access",
                        "landlock-rule",
                    ],
                ),
                "proot" => (
                    &['r', 'b', 'm', 'w', 'q', 'k', 'R', 'S'],
                    &[
                        "rootfs",
                        "bind",
                        "mount",
                        "cwd",
                        "pwd",
                        "qemu",
                        "kernel-release",
                    ],
                ),
                _ => (&['l', 'p', 'e', 'P'], &["limit", "pid", "exe", "path"]),
            };
            let i = skip_options(argv, short, long);
            if program == "cpulimit"
                && argv.get(1..i).is_some_and(|opts| {
                    opts.iter().any(|w| {
                        matches!(w.text.as_str(), "-p" | "-e" | "-P")
                            || w.text.starts_with("--pid")
                            || w.text.starts_with("--exe")
                            || w.text.starts_with("--path")
                    })
                })
            {
                // cpulimit -p PID / -e EXE: limits a running process.
                return Step::NoCommand;
            }
            if program == "setpriv" {
                cmd.elevated = true;
            }
            drop_front(cmd, i, "wrapper")
        }
        "bwrap" => {
            // Options take 0, 1 or 2 values (`--bind SRC DEST`); the command follows them.
            const TWO: &[&str] = &[
                "--bind",
                "--bind-try",
                "--dev-bind",
                "--dev-bind-try",
                "--ro-bind",
                "--ro-bind-try",
                "--symlink",
                "--setenv",
                "--bind-data",
                "--ro-bind-data",
                "--file",
                "--chmod",
            ];
            const NONE: &[&str] = &[
                "--unshare-all",
                "--share-net",
                "--unshare-user",
                "--unshare-user-try",
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup",
                "--unshare-cgroup-try",
                "--die-with-parent",
                "--new-session",
                "--as-pid-1",
                "--clearenv",
                "--disable-userns",
                "--assert-userns-disabled",
                "--help",
                "--version",
                "--level-prefix",
            ];
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                let t = w.text.as_str();
                if t == "--" {
                    i += 1;
                    break;
                }
                if !t.starts_with("--") {
                    break;
                }
                i += if TWO.contains(&t) {
                    3
                } else if NONE.contains(&t) {
                    1
                } else {
                    2
                };
            }
            drop_front(cmd, i, "wrapper")
        }
        "capsh" => {
            // capsh [opts] -- ARGS: ARGS go to /bin/bash (`capsh -- -c 'cmd'`).
            let Some(dashes) = argv.iter().position(|w| w.text == "--") else {
                return Step::NoCommand;
            };
            cmd.elevated = true;
            if argv.get(dashes + 1).is_some_and(|w| w.text == "-c") {
                if let Some(w) = argv.get(dashes + 2) {
                    out.shell(w.text.clone(), "capsh -- -c");
                }
            }
            Step::NoCommand
        }
        "flock" => {
            // flock [opts] FILE cmd… | flock [opts] FILE -c 'cmd'
            let i = skip_options(argv, &['w', 'E'], &["timeout", "conflict-exit-code"]);
            if let Some(pos) = argv
                .iter()
                .position(|w| w.text == "-c" || w.text == "--command")
            {
                if let Some(w) = argv.get(pos + 1) {
                    out.shell(w.text.clone(), "flock -c");
                }
                return Step::NoCommand;
            }
            drop_front(cmd, i + 1, "flock")
        }
        "watch" => {
            let i = skip_options(argv, &['n', 'd', 'q'], &["interval", "differences"]);
            let text: Vec<&str> = argv.iter().skip(i).map(|w| w.text.as_str()).collect();
            if !text.is_empty() {
                out.shell(text.join(" "), "watch");
            }
            Step::NoCommand
        }
        "script" => script(out, argv),
        "xargs" => {
            let i = skip_options(
                argv,
                &['I', 'n', 'L', 'P', 'd', 'E', 's', 'a'],
                &[
                    "replace",
                    "max-args",
                    "max-lines",
                    "max-procs",
                    "delimiter",
                    "eof",
                    "max-chars",
                    "arg-file",
                    "process-slot-var",
                ],
            );
            cmd.args_unknown = true;
            if argv.get(i).is_none() {
                // xargs alone runs echo.
                return Step::NoCommand;
            }
            drop_front(cmd, i, "xargs")
        }
        "parallel" => {
            let i = skip_options(
                argv,
                &['j', 'S', 'N', 'n'],
                &["jobs", "sshlogin", "max-args", "joblog", "results"],
            );
            // Everything before ::: is the command template.
            let end = argv
                .iter()
                .position(|w| w.text == ":::" || w.text == "::::")
                .unwrap_or(argv.len());
            if end <= i {
                return parallel_lines(out, argv, end);
            }
            cmd.args_unknown = true;
            if end - i == 1 {
                // parallel 'rm -rf {}' ::: … : a quoted command line.
                if let Some(w) = argv.get(i) {
                    out.shell(w.text.clone(), "parallel");
                }
            }
            cmd.argv.truncate(end);
            drop_front(cmd, i, "parallel")
        }
        _ => Step::Done,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `program_name_into` as it was written with a char-pattern `rsplit` (the reference).
    fn program_name_by_rsplit(word: &str) -> String {
        let mut start = word.len().saturating_sub(256);
        while !word.is_char_boundary(start) {
            start += 1;
        }
        let word = word.get(start..).unwrap_or(word);
        let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let base = match base.len().checked_sub(4) {
            Some(at)
                if base
                    .get(at..)
                    .is_some_and(|t| t.eq_ignore_ascii_case(".exe")) =>
            {
                base.get(..at).unwrap_or(base)
            }
            _ => base,
        };
        base.to_ascii_lowercase()
    }

    #[test]
    fn every_shell_name_ends_in_sh() {
        assert!(SHELLS.iter().all(|s| s.ends_with("sh")));
        assert!(is_shell("bash5.2") && is_shell("sh") && is_shell("csh") && !is_shell("ls"));
    }

    #[test]
    fn program_name_is_the_lowercase_basename_as_before() {
        use crate::analysis::shell::model::testing::Rng;
        const PIECES: [&str; 18] = [
            "/", "\\", "a", "RM", ".exe", ".EXE", "é", "€", "-", "x.", "ß/", "\\\\", "~", " ",
            "ls", "_", "9", "exe",
        ];
        let mut rng = Rng(7);
        let mut plain = 0;
        let mut out = String::new();
        let mut long = "ä/".repeat(200);
        long.push_str("Kubectl.Exe");
        for word in [
            "",
            "/",
            "C:\\Tools\\GIT.EXE",
            "/usr/bin/rm",
            "a\\",
            long.as_str(),
        ] {
            program_name_into(word, &mut out);
            assert_eq!(out, program_name_by_rsplit(word), "{word:?}");
        }
        for _ in 0..4000 {
            let word: String = (0..rng.below(12))
                .map(|_| PIECES[rng.below(PIECES.len())])
                .collect();
            program_name_into(&word, &mut out);
            assert_eq!(out, program_name_by_rsplit(&word), "{word:?}");
            if is_plain_program_name(&word) {
                plain += 1;
                assert_eq!(word, program_name_by_rsplit(&word), "{word:?}");
            }
        }
        assert!(plain > 100, "{plain}");
    }

    #[test]
    fn peeling_into_a_reused_peeled_is_peeling_afresh() {
        let lines = [
            "sudo -u root rm -rf /",
            "ls",
            "",
            "env FOO=1 sh -c 'rm x'",
            "nohup",
            "xargs -0 rm",
            "su root -c reboot",
            "git status",
            "sudo -l",
            "timeout 5 nice -n 2 sudo rm x",
        ];
        let all: Vec<Vec<Word>> = lines.iter().map(|s| words(s)).collect();
        let mut reused = Peeled::default();
        for (i, ws) in all.iter().enumerate() {
            // Every order: each line after every other one.
            for prev in &all {
                peel_into(prev.iter(), &[], &mut reused);
                peel_into(ws.iter(), &[], &mut reused);
                let refs: Vec<&Word> = ws.iter().collect();
                assert_eq!(reused, peel(&refs, &[]), "{}", lines[i]);
            }
        }
    }

    #[test]
    fn wrappers_are_exactly_the_arms_of_step_with() {
        let src = include_str!("command.rs");
        let body = src
            .split("\nfn step_with<")
            .nth(1)
            .and_then(|rest| rest.split("\n        _ => Step::Done,").next())
            .unwrap();
        let mut arms: Vec<&str> = Vec::new();
        for line in body.lines() {
            let Some(pattern) = line
                .strip_prefix("        ")
                .filter(|l| l.starts_with('"') || l.starts_with("| \""))
            else {
                continue;
            };
            let pattern = pattern.split("=>").next().unwrap();
            assert!(!pattern.contains(" if "), "guarded arm: {line}");
            arms.extend(pattern.split('"').skip(1).step_by(2));
        }
        arms.sort_unstable();
        assert_eq!(
            arms, WRAPPERS,
            "WRAPPERS must list the arms of step_with, sorted"
        );
        for w in WRAPPERS {
            assert!(is_wrapper(w), "{w}");
            assert!(!is_wrapper(&format!("{w}x")) && !is_wrapper(&w[1..]), "{w}");
        }
        let src_fn = src.split("fn is_wrapper(").nth(1).unwrap();
        let src_fn = src_fn.split("\n}").next().unwrap();
        assert_eq!(
            src_fn.matches('"').count(),
            2 * WRAPPERS.len(),
            "is_wrapper lists WRAPPERS"
        );
        // Every other top-level arm is the default one.
        for line in body
            .lines()
            .filter(|l| l.starts_with("        ") && !l.starts_with("         "))
        {
            let l = line.trim_start();
            assert!(
                l.starts_with('"')
                    || l.starts_with("| \"")
                    || l.starts_with('}')
                    || l.starts_with("match program"),
                "unexpected arm in step_with: {line}"
            );
        }
    }

    #[test]
    fn program_names_strip_exe_and_reuse_the_buffer() {
        for (word, name) in [
            ("/usr/bin/SUDO.EXE", "sudo"),
            ("C:\\Windows\\System32\\Cmd.Exe", "cmd"),
            ("a.exe.exe", "a.exe"),
            ("É.exe", "É"),
            (".exe", ""),
            ("exe", "exe"),
            ("./deploy.sh", "deploy.sh"),
            ("", ""),
        ] {
            assert_eq!(program_name(word), name, "{word}");
        }
        let mut buf = String::from("leftover");
        program_name_into("RM", &mut buf);
        assert_eq!(buf, "rm");
    }

    #[test]
    fn shells_with_version_suffixes() {
        // `is_shell` strips the suffix characters; that is exact only because every shell
        // name ends in a letter.
        assert!(SHELLS
            .iter()
            .all(|s| s.ends_with(|c: char| c.is_ascii_alphabetic())));
        for p in [
            "sh",
            "bash",
            "bash5",
            "bash-5.2",
            "zsh-5.9",
            "busybox-sh",
            "tcsh",
            "csh",
            "dash.1-",
        ] {
            assert!(is_shell(p), "{p}");
        }
        for p in [
            "shx", "bashx5", "csh5", "5bash", "", "-", "echo", "sh5a", "ba",
        ] {
            assert!(!is_shell(p), "{p}");
        }
    }

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace()
            .map(|t| Word {
                text: t.to_owned(),
                ..Word::default()
            })
            .collect()
    }

    fn peeled(s: &str) -> (Vec<String>, Vec<&'static str>, bool, Vec<Payload>, bool) {
        let ws = words(s);
        let refs: Vec<&Word> = ws.iter().collect();
        let p = peel(&refs, &[]);
        let c = p.commands.first();
        (
            c.map(|c| c.argv.iter().map(|w| w.text.clone()).collect())
                .unwrap_or_default(),
            c.map(|c| c.wrappers.clone()).unwrap_or_default(),
            p.elevated,
            p.payloads,
            c.is_some_and(|c| c.args_unknown),
        )
    }

    fn argv(s: &str) -> Vec<String> {
        peeled(s).0
    }

    #[test]
    fn shebang_programs() {
        for (text, prog) in [
            ("#!/usr/bin/python3\nprint(1)", Some("python3")),
            ("#!/usr/bin/env -S node --flag\n", Some("node")),
            ("#! /bin/BASH -e", Some("bash")),
            ("#!/usr/bin/env", Some("")),
            ("#!", Some("")),
            ("echo hi\n#!/bin/sh", None),
        ] {
            assert_eq!(shebang_program(text).as_deref(), prog, "{text:?}");
        }
    }

    #[test]
    fn program_names() {
        assert_eq!(program_name("/usr/bin/sudo"), "sudo");
        assert_eq!(program_name("C:\\Windows\\System32\\CMD.EXE"), "cmd");
        assert_eq!(program_name("rm"), "rm");
        assert!(is_shell("bash5"));
        assert!(is_shell("zsh-5.9"));
        assert!(!is_shell("bashful"));
        assert!(is_powershell("pwsh-preview"));
    }

    #[test]
    fn peels_sudo_with_option_values() {
        assert_eq!(argv("sudo rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("sudo -u root rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("sudo --user=root -- rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("sudo -E -H -u admin -g wheel rm x"), ["rm", "x"]);
        assert_eq!(argv("sudo -uroot rm x"), ["rm", "x"]);
        assert!(peeled("sudo rm x").2, "elevated");
        assert_eq!(argv("doas -u root rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("sudo -l"), Vec::<String>::new());
    }

    #[test]
    fn peels_env_and_keeps_assignments() {
        assert_eq!(argv("env FOO=1 rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("env -i -u PATH BAR=2 rm x"), ["rm", "x"]);
        // A working directory makes the rest a `cd DIR && …` payload (assignments kept).
        let (_, _, _, payloads, _) = peeled("env -i -u PATH -C /tmp BAR=2 rm x");
        assert_eq!(payloads[0].text, "cd /tmp && BAR=2 rm x");
        let (_, _, elevated, payloads, _) = peeled("sudo -D / rm -rf x");
        assert!(elevated);
        assert_eq!(payloads[0].text, "cd / && rm -rf x");
        assert_eq!(argv("env --help rm -rf /"), Vec::<String>::new());
        // A one-word split string is that word: the command goes on from it.
        assert_eq!(argv("env -S rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("/usr/bin/env -S bash -e"), ["bash", "-e"]);
        // An attached one is a command line (see `rules::tests::privilege_and_opaque`).
        let (_, _, _, payloads, _) = peeled("env -Srm");
        assert_eq!(payloads[0].via, "env -S");
    }

    #[test]
    fn command_v_is_a_query_not_a_run() {
        assert_eq!(argv("command -v rm -rf /"), Vec::<String>::new());
        assert_eq!(argv("command -V rm"), Vec::<String>::new());
        assert_eq!(argv("command rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("builtin rm x"), ["rm", "x"]);
        assert_eq!(argv("busybox --help rm -rf /"), Vec::<String>::new());
        assert_eq!(argv("busybox rm -rf /"), ["rm", "-rf", "/"]);
    }

    #[test]
    fn peels_process_wrappers() {
        for s in [
            "nohup rm -rf /",
            "nice -n 19 rm -rf /",
            "nice -5 rm -rf /",
            "time rm -rf /",
            "time -p rm -rf /",
            "timeout 5s rm -rf /",
            "timeout -s KILL -k 2 5 rm -rf /",
            "stdbuf -oL rm -rf /",
            "stdbuf -o L rm -rf /",
            "ionice -c 3 rm -rf /",
            "setsid rm -rf /",
            "exec rm -rf /",
            "exec -a name rm -rf /",
            "/usr/bin/nohup /usr/bin/nice rm -rf /",
            "sudo nohup nice -n 5 timeout 10 rm -rf /",
            "strace -f -o /tmp/x rm -rf /",
            "systemd-run --user rm -rf /",
            "chroot / rm -rf /",
            "flock /tmp/lock rm -rf /",
        ] {
            assert_eq!(argv(s), ["rm", "-rf", "/"], "{s}");
        }
    }

    #[test]
    fn xargs_and_parallel_run_a_command_with_unknown_args() {
        let (a, _, _, _, unknown) = peeled("xargs -0 -I {} rm -rf {}");
        assert_eq!(a, ["rm", "-rf", "{}"]);
        assert!(unknown);
        assert_eq!(argv("xargs -n1 rm -rf"), ["rm", "-rf"]);
        assert_eq!(argv("xargs"), Vec::<String>::new());
        assert_eq!(argv("parallel rm -rf ::: a b"), ["rm", "-rf"]);
    }

    #[test]
    fn command_line_payloads() {
        let (_, _, el, p, _) = peeled("su root -c reboot");
        assert!(el);
        assert_eq!(p[0].text, "reboot");
        let (_, _, _, p, _) = peeled("flock /tmp/l -c reboot");
        assert_eq!(p[0].via, "flock -c");
        let (_, _, _, p, _) = peeled("watch -n 1 rm -rf /x");
        assert_eq!(p[0].text, "rm -rf /x");
        let (_, _, _, p, _) = peeled("script -q -c reboot /dev/null");
        assert_eq!(p[0].text, "reboot");
    }

    #[test]
    fn assignments_after_a_wrapper_are_environment() {
        let ws = words("sudo LD_PRELOAD=/x.so FOO=1 rm -rf /");
        let refs: Vec<&Word> = ws.iter().collect();
        let p = peel(&refs, &[]);
        let c = p.commands.first().expect("a command");
        assert_eq!(c.program, "rm");
        assert!(c.env.iter().any(|(k, v)| k == "LD_PRELOAD" && v == "/x.so"));
        assert_eq!(argv("doas VAR=v rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(argv("nohup A=1 rm x"), ["rm", "x"]);
        assert_eq!(argv("sudo -u root EDITOR=vi visudo"), ["visudo"]);
        assert_eq!(argv("rm A=1"), ["rm", "A=1"]);
    }

    #[test]
    fn wrapper_help_runs_nothing() {
        for s in [
            "nice --help rm -rf /",
            "timeout --version rm -rf /",
            "nohup --help rm -rf /",
            "stdbuf --help rm -rf /",
            "ionice --version rm -rf /",
            "xargs --help rm -rf /",
        ] {
            assert_eq!(argv(s), Vec::<String>::new(), "{s}");
        }
        // The command's own --help is its business.
        assert_eq!(argv("nice rm --help"), ["rm", "--help"]);
    }

    #[test]
    fn cmd_forwarders_and_run0() {
        assert_eq!(argv("call rd /s /q C:\\"), ["rd", "/s", "/q", "C:\\"]);
        assert_eq!(argv("call :label x"), ["call", ":label", "x"]);
        assert_eq!(argv("start /b /wait cmd /c x"), ["cmd", "/c", "x"]);
        assert_eq!(argv("start /d C:\\t /min prog a"), ["prog", "a"]);
        assert_eq!(argv("conhost cmd /c x"), ["cmd", "/c", "x"]);
        assert_eq!(
            argv("conhost.exe --headless --width 80 cmd /c x"),
            ["cmd", "/c", "x"]
        );
        let ws: Vec<Word> = vec![
            Word {
                text: "start".into(),
                ..Word::default()
            },
            Word {
                text: String::new(),
                quoted: true,
                fully_quoted: true,
                ..Word::default()
            },
            Word {
                text: "/wait".into(),
                ..Word::default()
            },
            Word {
                text: "cmd".into(),
                ..Word::default()
            },
        ];
        let refs: Vec<&Word> = ws.iter().collect();
        assert_eq!(peel(&refs, &[]).commands[0].program, "cmd");
        let (a, _, el, _, _) = peeled("run0 --user=root rm -rf /");
        assert_eq!(a, ["rm", "-rf", "/"]);
        assert!(el);
        let (_, _, el, _, _) = peeled("run0");
        assert!(el);
    }

    #[test]
    fn sudo_edit_is_sudoedit() {
        let ws = words("sudo -e /etc/sudoers");
        let refs: Vec<&Word> = ws.iter().collect();
        let p = peel(&refs, &[]);
        let c = p.commands.first().expect("a command");
        assert_eq!(c.program, "sudoedit");
        assert_eq!(c.argv.last().map(|w| w.text.as_str()), Some("/etc/sudoers"));
        assert!(p.elevated);
    }

    #[test]
    fn plain_commands_stay() {
        assert_eq!(argv("git status"), ["git", "status"]);
        assert!(peeled("git status").1.is_empty());
        assert_eq!(argv("nohup"), Vec::<String>::new());
    }

    #[test]
    fn runners_with_options_are_peeled() {
        use crate::analysis::shell::rules::testing::{
            assert_deep_critical, assert_deep_not_critical,
        };
        for s in [
            "chronic -e rm -rf ~",
            "ifne -n rm -rf ~",
            "eatmydata rm -rf ~",
            "nocache rm -rf ~",
            "fakeroot -l /lib/x.so -- rm -rf ~",
            "fakechroot rm -rf ~",
            "torify rm -rf ~",
            "tini -p SIGTERM -- rm -rf ~",
            "dumb-init -r 15:2 rm -rf ~",
            "catatonit -- rm -rf ~",
            "prlimit --nofile=64 -p 1 rm -rf ~",
            "ssh-agent -t 60 rm -rf ~",
            "dbus-launch --exit-with-session rm -rf ~",
            "systemd-inhibit --why x rm -rf ~",
            "sandbox-exec -p '(version 1)' rm -rf ~",
            "tsp -L job rm -rf ~",
            "sem -j2 rm -rf ~",
            "linux64 rm -rf ~",
            "setarch x86_64 -R rm -rf ~",
            "runcon system_u:system_r:unconfined_t rm -rf ~",
            "runcon -t unconfined_t rm -rf ~",
            "lckdo -W 5 /tmp/lock rm -rf ~",
            "arch -x86_64 rm -rf ~",
            "arch -arch arm64 -e A=1 rm -rf ~",
            "ls | entr -s 'rm -rf ~'",
            "ls | entr -r rm -rf ~",
        ] {
            assert_deep_critical(s);
        }
        for s in [
            "chronic make test",
            "sem -j2 make",
            "arch",
            "prlimit",
            "ssh-agent -s",
            "ls | entr -c make",
            "setarch --list",
        ] {
            assert_deep_not_critical(s);
        }
    }
}
