//! Deletion: POSIX `rm`/`rmdir`/`unlink`/`shred`, `rimraf`, PowerShell `Remove-Item` (and its
//! aliases `rm`, `ri`, `del`, `erase`, `rd`, `rmdir`), CMD `rd`/`rmdir /s` and `del`/`erase`,
//! `find -delete` / `-exec …`, `rsync --delete`.
//!
//! A recursive deletion is judged by each target's breadth ([`paths::delete_breadth`]):
//! broad (root, home, system directory, drive root, the working directory, anything only known
//! at run time) is `recursive-delete-broad` (critical), anything else
//! `recursive-delete-scoped`. Commands whose targets are supplied at run time (`xargs rm`,
//! `find … -exec rm {} \;`) delete under the producer's roots when known
//! ([`super::Call::roots`]) and are broad otherwise; a `find` walk makes even a plain `rm`
//! recursive. A non-recursive delete is `file-delete`, raised to the matching critical finding
//! for system, credential (absolute) or self-protected paths, and to broad for a bare glob of a
//! broad directory (`rm -f /*`, `del /q C:\*`) or a run-time operand that may split into
//! options and paths (`rm $x`); one double-quoted operand alone (`rm -f "$f"`,
//! [`Word::one_word`]) is one file named at run time.

use super::{
    cluster, cmd_switches, long, ps_param_name, ps_parse, psp, shown, system, Call, Category, Out,
};
use std::borrow::Cow;

use crate::analysis::paths::{self, Breadth};
use crate::analysis::shell::command::{peel, Cmd};
use crate::analysis::shell::model::Word;
use crate::finding;

/// One thing a deletion acts on.
pub(super) enum Target<'t> {
    Path {
        text: Cow<'t, str>,
        dynamic: bool,
        glob: bool,
    },
    /// Supplied at run time (xargs, find -exec, a pipe).
    Unknown,
}

impl<'t> Target<'t> {
    pub fn word(w: &'t Word) -> Target<'t> {
        Target::Path {
            text: Cow::Borrowed(&w.text),
            dynamic: w.dynamic,
            glob: w.glob,
        }
    }
}

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    match c.prog {
        "rm" => posix_rm(c, out),
        "rmdir" => {
            posix_plain(c, out, "rmdir");
            cmd_rd(c, out);
        }
        "rd" => cmd_rd(c, out),
        "del" | "erase" => cmd_del(c, out),
        "unlink" => posix_plain(c, out, "unlink"),
        "shred" | "srm" | "wipe" => shred(c, out),
        "rimraf" | "del-cli" | "trash" | "trash-put" => rimraf(c, out),
        "find" => find(c, out),
        "fd" | "fdfind" => {
            let (pos, cmd) = fd_parse(c.args);
            if !cmd.is_empty() {
                let dot = Word {
                    text: ".".to_owned(),
                    ..Word::default()
                };
                let roots: Vec<&Word> = match pos.get(1..) {
                    Some(r) if !r.is_empty() => r.to_vec(),
                    _ => vec![&dot],
                };
                find_exec(c, out, cmd, &roots);
            } else {
                out.category(Category::ReadOnly);
            }
        }
        "rsync" => rsync(c, out),
        "robocopy" => robocopy(c, out),
        _ => {}
    }
    // `rm -rf x` is POSIX; `rm -Recurse x` / `ri x` are PowerShell.
    let powershell_shaped = !matches!(c.prog, "rm" | "rmdir" | "del" | "erase" | "rd")
        || c.args.iter().any(|w| {
            super::ps_param_name(&w.text).is_some_and(|(n, _)| {
                REMOVE_ITEM
                    .iter()
                    .any(|p| n.len() >= p.min && super::ps_name_prefixes(p.name, n))
            })
        })
        || c.args.is_empty() && c.ctx.piped_in && !c.cmd.args_unknown;
    if c.ps() == "remove-item" && powershell_shaped {
        remove_item(c, out);
    }
}

/// Brace alternatives classified per target word.
const MAX_BRACE_EXPANSIONS: usize = 64;

/// Reports a deletion of `targets` by `who`.
pub(super) fn report(
    c: &Call<'_, '_>,
    out: &mut Out,
    who: &str,
    recursive: bool,
    targets: &[Target],
) {
    out.not_read_only();
    let mut previous: Option<&str> = None;
    for t in targets {
        // Repeats of the same word cost nothing (`rm -rf a a a …`).
        if let Target::Path { text, .. } = t {
            if previous == Some(text.as_ref()) {
                continue;
            }
            previous = Some(text.as_ref());
        }
        match t {
            Target::Path {
                text,
                dynamic,
                glob: true,
            } if text.contains('{') => {
                // `rm -rf /{etc,usr}`: each alternative is a target (bounded).
                match paths::expand_braces(text, MAX_BRACE_EXPANSIONS) {
                    Some(alts) => {
                        if alts.len() >= MAX_BRACE_EXPANSIONS {
                            out.incomplete("a brace expansion with too many alternatives");
                        }
                        for alt in &alts {
                            let glob = alt.contains(['*', '?', '[', '{']);
                            path(c, out, who, recursive, alt, *dynamic, glob);
                        }
                    }
                    None => path(c, out, who, recursive, text, *dynamic, true),
                }
            }
            Target::Path {
                text,
                dynamic,
                glob,
            } => path(c, out, who, recursive, text, *dynamic, *glob),
            Target::Unknown => match c.roots {
                Some([]) => {
                    path(c, out, who, true, ".", false, false);
                }
                Some(roots) => {
                    for r in roots {
                        path(c, out, who, true, &r.text, r.dynamic, r.glob);
                    }
                }
                None if recursive => out.add(
                    &finding::RECURSIVE_DELETE_BROAD,
                    format!("{who} recursively deletes targets only known at run time"),
                ),
                None => {
                    out.add(
                        &finding::FILE_DELETE,
                        format!("{who} deletes files named at run time"),
                    );
                    out.add(
                        &finding::DYNAMIC_EXPANSION,
                        format!("{who} deletes files named at run time"),
                    );
                }
            },
        }
    }
}

fn path(
    c: &Call<'_, '_>,
    out: &mut Out,
    who: &str,
    recursive: bool,
    text: &str,
    dynamic: bool,
    glob: bool,
) {
    if !out.spend() {
        if recursive {
            out.add(
                &finding::RECURSIVE_DELETE_BROAD,
                format!("{who} recursively deletes more targets than the gate verifies"),
            );
        } else {
            out.add(&finding::FILE_DELETE, format!("{who} deletes files"));
        }
        return;
    }
    let simple = c.ctx.cwd.is_none() && !dynamic && !glob && super::plain_relative(text);
    let b = if simple {
        Breadth::Scoped
    } else {
        system::special_target(c, out, who, "deletes", text);
        c.breadth(text, dynamic, glob)
    };
    if recursive {
        match b {
            Breadth::Broad(why) => out.add_with(&finding::RECURSIVE_DELETE_BROAD, || {
                format!("{who} recursively deletes {} ({why})", shown(text))
            }),
            Breadth::Scoped => out.add_with(&finding::RECURSIVE_DELETE_SCOPED, || {
                format!("{who} recursively deletes {}", shown(text))
            }),
        }
        return;
    }
    out.add_with(&finding::FILE_DELETE, || {
        format!("{who} deletes {}", shown(text))
    });
    // A run-time POSIX operand may split into options and globs (`rm $x` → `rm -rf /`); a
    // PowerShell `Remove-Item $x` binds one path and, without `-Recurse`, deletes no tree.
    let splits = who != REMOVE_ITEM_WHO;
    if let Breadth::Broad(why) = b {
        if bare_glob(text) || splits && dynamic && !super::only_home_expansion(text) {
            out.add_with(&finding::RECURSIVE_DELETE_BROAD, || {
                format!("{who} deletes everything matching {} ({why})", shown(text))
            });
        }
    }
}

/// The last path segment is only wildcards (`*`, `*.*`, `/*`, `C:\*`, `[a-z]*`).
fn bare_glob(text: &str) -> bool {
    let last = text.rsplit(['/', '\\']).next().unwrap_or(text);
    last.contains(['*', '?']) && crate::analysis::paths::only_wildcards(last, true)
}

/// A `Remove-Item` parameter (`-Recurse`, `-r`, `–Force`), matched without allocating.
fn remove_item_param(t: &str) -> bool {
    let Some(rest) = t
        .strip_prefix('-')
        .or_else(|| t.strip_prefix(['\u{2013}', '\u{2014}', '\u{2015}']))
    else {
        return false;
    };
    let name = rest.split(':').next().unwrap_or(rest);
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphabetic())
        && REMOVE_ITEM.iter().any(|p| {
            name.len() >= p.min
                && p.name
                    .get(..name.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(name))
        })
}

/// Valid short options of GNU/BSD `rm`.
const RM_SHORT: &str = "fiIrRdvPWx";

/// How findings name PowerShell `Remove-Item`.
const REMOVE_ITEM_WHO: &str = "`Remove-Item`";

/// Parameters of PowerShell `Remove-Item`.
const REMOVE_ITEM: &[super::PsParam] = &[
    psp("path", 2, true),
    psp("literalpath", 1, true),
    psp("pspath", 3, true),
    psp("lp", 2, true),
    psp("filter", 2, true),
    psp("include", 3, true),
    psp("exclude", 2, true),
    psp("recurse", 1, false),
    psp("force", 2, false),
    psp("credential", 2, true),
    psp("stream", 1, true),
    psp("whatif", 2, false),
    psp("confirm", 3, false),
];

fn posix_rm(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut no_preserve = false;
    let mut ended = false;
    let mut targets = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    for w in c.args {
        let t = w.text.as_str();
        if !ended {
            if t == "--" {
                ended = true;
                continue;
            }
            if let Some(n) = long(t) {
                if "recursive".starts_with(n) {
                    recursive = true;
                } else if n.len() >= 4 && "no-preserve-root".starts_with(n) {
                    no_preserve = true;
                }
                continue;
            }
            if let Some(cl) = cluster(t) {
                let valid = cl.chars().all(|ch| RM_SHORT.contains(ch));
                let powershell = cl.len() >= 2 && remove_item_param(t);
                if (valid || !powershell) && cl.contains(['r', 'R']) {
                    recursive = true;
                }
                continue;
            }
        }
        if c.cmd.args_unknown && t == "{}" {
            continue;
        }
        targets.push(Target::word(w));
        operands.push(w);
    }
    if c.cmd.args_unknown {
        targets.push(Target::Unknown);
    }
    // `rm -f "$f"`: the one operand is one word named at run time (its expansions quoted).
    // Were it an option (`-rf`), no operand would be left: it deletes one file, unlike the
    // split `rm $x` (`rm -rf /`).
    if let ([one], false, false) = (operands.as_slice(), recursive, c.cmd.args_unknown) {
        if one.one_word && !one.glob && !super::only_home_expansion(&one.text) {
            out.not_read_only();
            out.add_with(&finding::FILE_DELETE, || {
                format!("`rm` deletes {}, named at run time", shown(&one.text))
            });
            out.add_with(&finding::DYNAMIC_EXPANSION, || {
                format!("`rm` deletes {}, named at run time", shown(&one.text))
            });
            return;
        }
    }
    if no_preserve && recursive {
        out.add(
            &finding::RECURSIVE_DELETE_BROAD,
            "`rm --no-preserve-root` removes the protection of `/`",
        );
    }
    report(c, out, "`rm`", recursive, &targets);
}

/// `rmdir`/`unlink`: non-recursive deletes of their operands.
fn posix_plain(c: &Call<'_, '_>, out: &mut Out, who: &str) {
    let mut targets: Vec<Target> = c
        .plain()
        .iter()
        .copied()
        .filter(|w| cmd_switches(&w.text).is_none() && !(c.cmd.args_unknown && w.text == "{}"))
        .map(Target::word)
        .collect();
    if c.cmd.args_unknown {
        targets.push(Target::Unknown);
    }
    if !targets.is_empty() {
        report(c, out, &format!("`{who}`"), false, &targets);
    }
}

/// CMD `rd`/`rmdir [/s] [/q] dir…`.
fn cmd_rd(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut targets = Vec::new();
    for w in c.args {
        match cmd_switches(&w.text) {
            Some(s) => recursive |= s.contains(&'s'),
            None if w.text.starts_with('-') => {}
            None => targets.push(Target::word(w)),
        }
    }
    if recursive {
        report(c, out, "`rd /s`", true, &targets);
    } else if c.prog == "rd" && !targets.is_empty() {
        report(c, out, "`rd`", false, &targets);
    }
}

/// CMD `del`/`erase [/p] [/f] [/s] [/q] [/a[:attrs]] names…`; `/s` deletes matching files in
/// every subdirectory.
fn cmd_del(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut targets = Vec::new();
    for w in c.args {
        match cmd_switches(&w.text) {
            Some(s) => recursive |= s.contains(&'s'),
            None if ps_param_name(&w.text).is_some() => {}
            None => targets.push(Target::word(w)),
        }
    }
    if c.cmd.args_unknown {
        targets.push(Target::Unknown);
    }
    let who = if recursive { "`del /s`" } else { "`del`" };
    report(c, out, who, recursive, &targets);
}

fn remove_item(c: &Call<'_, '_>, out: &mut Out) {
    let p = ps_parse(c.args, REMOVE_ITEM);
    if p.has("whatif") {
        return;
    }
    let recursive = p.has("recurse");
    let mut texts: Vec<(String, bool, bool)> = Vec::new();
    for (name, v) in &p.named {
        if matches!(*name, "path" | "literalpath" | "pspath" | "lp") {
            if let Some(v) = v {
                // `$x`, `(Get-Location).Drive.Root`: a path only known at run time.
                let dynamic = v.contains('$') || v.starts_with('(');
                texts.push(((*v).to_owned(), dynamic, v.contains(['*', '?'])));
            }
        }
    }
    for w in &p.pos {
        texts.push((
            w.text.clone(),
            w.dynamic || w.text.starts_with('('),
            w.glob || w.text.contains(['*', '?']),
        ));
    }
    let mut targets = Vec::new();
    for (text, dynamic, glob) in texts {
        for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let lower = part.to_ascii_lowercase();
            if recursive && super::services::registry_broad(part) {
                out.add_with(&finding::SYSTEM_LOCATION_WRITE, || {
                    format!("`Remove-Item` deletes the registry branch {}", shown(part))
                });
            }
            if lower.contains("historysavepath") || lower.contains("consolehost_history") {
                out.add(
                    &finding::HISTORY_TAMPERING,
                    "`Remove-Item` deletes the PowerShell history file",
                );
            }
            targets.push(Target::Path {
                text: part.to_owned().into(),
                dynamic,
                glob,
            });
        }
    }
    if targets.is_empty() && (c.ctx.piped_in || c.cmd.args_unknown) {
        targets.push(Target::Unknown);
    }
    // Items piped in from a listing are deleted with everything below them.
    let recursive =
        recursive || (c.ctx.piped_in && !c.cmd.args_unknown && p.pos.is_empty() && !p.has("path"));
    report(c, out, REMOVE_ITEM_WHO, recursive, &targets);
}

fn shred(c: &Call<'_, '_>, out: &mut Out) {
    let p = super::parse(c.args, "ns", &["iterations", "size", "random-source"]);
    out.not_read_only();
    for w in &p.pos {
        system::special_target(c, out, "`shred`", "overwrites", &w.text);
        out.add(
            &finding::DISK_OR_PERMISSION_WIPE,
            format!("`{}` overwrites {} beyond recovery", c.prog, shown(&w.text)),
        );
    }
    if p.pos.is_empty() && c.cmd.args_unknown {
        out.add(
            &finding::DISK_OR_PERMISSION_WIPE,
            format!("`{}` overwrites files named at run time", c.prog),
        );
    }
}

fn rimraf(c: &Call<'_, '_>, out: &mut Out) {
    let mut targets: Vec<Target> = c.plain().iter().copied().map(Target::word).collect();
    if c.cmd.args_unknown {
        targets.push(Target::Unknown);
    }
    report(c, out, &format!("`{}`", c.prog), true, &targets);
}

/// `fd [opts] [PATTERN] [PATHS…] [-x|-X CMD…]`: the operands and the command it runs.
fn fd_parse<'a, 'w>(args: &'a [&'w Word]) -> (Vec<&'w Word>, &'a [&'w Word]) {
    let exec = args
        .iter()
        .position(|w| matches!(w.text.as_str(), "-x" | "-X" | "--exec" | "--exec-batch"));
    let (head, cmd) = match exec {
        Some(i) => (
            args.get(..i).unwrap_or(&[]),
            args.get(i + 1..).unwrap_or(&[]),
        ),
        None => (args, &[][..]),
    };
    let p = super::parse(
        head,
        "etdEScjoT",
        &[
            "extension",
            "type",
            "max-depth",
            "min-depth",
            "exact-depth",
            "exclude",
            "size",
            "changed-within",
            "changed-before",
            "owner",
            "color",
            "threads",
            "base-directory",
            "path-separator",
            "search-path",
            "ignore-file",
            "max-results",
            "format",
        ],
    );
    (p.pos, cmd)
}

/// `find`'s starting points and the index where its expression begins.
fn split_find<'w>(args: &[&'w Word]) -> (Vec<&'w Word>, usize) {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") && t.len() <= 3 => i += 1,
            _ => break,
        }
    }
    let mut roots = Vec::new();
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if (t.starts_with('-') && t.len() > 1) || matches!(t, "(" | ")" | "!" | ",") {
            break;
        }
        roots.push(*w);
        i += 1;
    }
    (roots, i)
}

/// The directories a path-listing command walks (empty: the working directory), for
/// [`super::Context::fed_roots`] when its output feeds `xargs`: `find ROOTS…`, `fd PATTERN
/// ROOTS…`, `ls DIRS…`, `Get-ChildItem DIRS…`, `git ls-files`. `None` for any other program,
/// or when the listing is of glob matches (then the fed paths are unknown).
pub fn find_roots<'w>(cmd: &Cmd<'w>) -> Option<Vec<&'w Word>> {
    let args = cmd.argv.get(1..).unwrap_or(&[]);
    match cmd.program.as_str() {
        "find" => Some(split_find(args).0),
        "fd" | "fdfind" => Some(fd_parse(args).0.get(1..).unwrap_or(&[]).to_vec()),
        "ls" | "dir" | "gci" | "get-childitem" | "exa" | "eza" => {
            let p = super::plain_words(args);
            (!p.iter().any(|w| w.glob || w.dynamic)).then_some(p)
        }
        "git" if args.first().is_some_and(|w| w.text == "ls-files") => Some(Vec::new()),
        _ => None,
    }
}

fn find(c: &Call<'_, '_>, out: &mut Out) {
    let (roots, start) = split_find(c.args);
    let expr = c.args.get(start..).unwrap_or(&[]);
    let mut deletes = false;
    let mut writes: Vec<&Word> = Vec::new();
    let mut execs: Vec<&[&Word]> = Vec::new();
    let mut patterns: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(w) = expr.get(i) {
        match w.text.as_str() {
            "-delete" => deletes = true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let from = i + 1;
                let mut j = from;
                while let Some(x) = expr.get(j) {
                    if x.text == ";" || x.text == "+" {
                        break;
                    }
                    j += 1;
                }
                execs.push(expr.get(from..j).unwrap_or(&[]));
                i = j;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = expr.get(i + 1) {
                    writes.push(f);
                }
                i += if w.text == "-fprintf" { 2 } else { 1 };
            }
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
            | "-iregex" => {
                if let Some(p) = expr.get(i + 1) {
                    patterns.push(p.text.as_str());
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let dot = Word {
        text: ".".to_owned(),
        ..Word::default()
    };
    let root_words: Vec<&Word> = if roots.is_empty() { vec![&dot] } else { roots };
    if deletes {
        let targets: Vec<Target> = root_words.iter().map(|w| Target::word(w)).collect();
        report(c, out, "`find -delete`", true, &targets);
    }
    let mut sub_read_only = true;
    for inner in &execs {
        sub_read_only &= find_exec(c, out, inner, &root_words);
    }
    for f in &writes {
        system::write_target(c, out, "`find -fprint`", f, false);
    }
    // The files found are secrets when a name test selects secret names, or when nothing
    // selects by name and a starting point is (or is below) a credential directory
    // (`find ~/.ssh -type f -exec base64 {} +`; `-name '*'` selects nothing).
    let selecting: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| {
            !p.chars()
                .all(|ch| matches!(ch, '*' | '.' | '/' | '\'' | '"'))
        })
        .collect();
    let secret_files = if selecting.is_empty() {
        root_words
            .iter()
            .any(|w| paths::is_credential_dir(&w.text) || paths::is_credential_path(&w.text))
    } else {
        selecting.iter().any(|p| secret_name_pattern(p))
    };
    if secret_files && !execs.is_empty() {
        let reads = execs.iter().any(|inner| {
            let prog = inner
                .first()
                .map(|w| super::basename(&w.text))
                .unwrap_or_default();
            !only_names(&prog)
        });
        if reads {
            out.effects().reads_secret = true;
            out.add(
                &finding::CREDENTIAL_READ,
                "`find -exec` runs a command on credential files",
            );
        }
    }
    if !deletes && writes.is_empty() && sub_read_only {
        out.category(Category::ReadOnly);
    }
}

/// A name pattern (`*.pem`, `id_*`, `.env`, `credentials`) that matches credential files.
fn secret_name_pattern(p: &str) -> bool {
    let p = p.trim_matches(['*', '\'', '"']);
    let p = p.strip_prefix('\\').unwrap_or(p);
    let template = [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|t| super::contains_ci(p, t));
    !p.is_empty()
        && !template
        && (paths::is_credential_path(p)
            || [
                "id_rsa",
                "id_ed25519",
                "id_ecdsa",
                "id_dsa",
                ".pem",
                ".key",
                ".p12",
                ".pfx",
                "credentials",
                ".env",
                ".netrc",
                ".pgpass",
                ".git-credentials",
            ]
            .iter()
            .any(|s| super::contains_ci(p, s)))
}

/// Commands that handle file names without reading the files (`rm`, `ls`, `chmod`, …).
fn only_names(prog: &str) -> bool {
    matches!(
        prog,
        "rm" | "rmdir"
            | "unlink"
            | "shred"
            | "ls"
            | "echo"
            | "printf"
            | "chmod"
            | "chown"
            | "stat"
            | "file"
            | "touch"
            | "basename"
            | "dirname"
            | "realpath"
            | "readlink"
            | "wc"
            | "du"
    )
}

/// A listing of credential files: `find ROOTS` under a credential directory or with a
/// credential name test (`-name '*.pem'`, `-iname 'id_*'`), `fd PATTERN`/`fd -e pem`, `ls`/`gci`
/// of a credential directory or pattern (`ls ~/.ssh`, `ls ~/.ssh/id_*`), `locate id_rsa`. What it
/// prints are secret paths: a command that reads the paths it is given reads secrets
/// ([`reads_listed_files`]).
pub fn lists_secrets(cmd: &Cmd<'_>) -> bool {
    let args = cmd.argv.get(1..).unwrap_or(&[]);
    let secret_place = |w: &&Word| {
        !w.text.starts_with('-')
            && (paths::is_credential_dir(&w.text)
                || paths::is_credential_path(&w.text)
                || secret_name_pattern(&w.text))
    };
    match cmd.program.as_str() {
        "find" => {
            let (roots, start) = split_find(args);
            let expr = args.get(start..).unwrap_or(&[]);
            // The name tests that select (`-name '*'` selects nothing).
            let mut tests = expr.windows(2).filter_map(|w| match w {
                [a, b]
                    if matches!(
                        a.text.as_str(),
                        "-name"
                            | "-iname"
                            | "-path"
                            | "-ipath"
                            | "-wholename"
                            | "-iwholename"
                            | "-regex"
                            | "-iregex"
                    ) && !b.text.chars().all(|ch| matches!(ch, '*' | '.' | '/')) =>
                {
                    Some(b.text.as_str())
                }
                _ => None,
            });
            match tests.next() {
                // Named files: secret when a name is (`find ~/.ssh -name '*.pub'` is not).
                Some(first) => secret_name_pattern(first) || tests.any(secret_name_pattern),
                // Every file under the roots: secret under a credential directory.
                None => roots.iter().any(|w| {
                    paths::is_credential_dir(&w.text) || paths::is_credential_path(&w.text)
                }),
            }
        }
        "fd" | "fdfind" => {
            let (pos, _) = fd_parse(args);
            let ext = args.windows(2).any(|w| match w {
                [a, b] => {
                    matches!(a.text.as_str(), "-e" | "--extension")
                        && secret_name_pattern(&format!(".{}", b.text))
                }
                _ => false,
            });
            ext || pos.first().is_some_and(|p| secret_name_pattern(&p.text))
                || pos.iter().skip(1).any(secret_place)
        }
        "ls" | "dir" | "gci" | "get-childitem" | "exa" | "eza" | "tree" | "locate" | "plocate"
        | "mlocate" | "slocate" => args.iter().any(secret_place),
        // `grep -rl 'PRIVATE KEY' /`: the files that hold secrets.
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "git" => {
            if cmd.program == "git" && args.first().is_none_or(|w| w.text != "grep") {
                return false;
            }
            let names_files = args.iter().any(|w| {
                let t = w.text.as_str();
                t == "--files-with-matches"
                    || t.starts_with('-')
                        && !t.starts_with("--")
                        && t.bytes().skip(1).all(|b| b.is_ascii_alphabetic())
                        && t.contains('l')
            });
            names_files
                && args.iter().any(|w| {
                    [
                        "private key",
                        "begin rsa",
                        "begin openssh",
                        "begin ec",
                        "secret",
                        "password",
                        "passwd",
                        "token",
                        "api_key",
                        "apikey",
                        "akia",
                    ]
                    .iter()
                    .any(|m| super::contains_ci(&w.text, m))
                })
        }
        _ => false,
    }
}

/// A command given listed paths that reads the files, not only their names: through a pipe
/// (`piped`) by `xargs`/`parallel`, as a file list on stdin (`tar -T -`, `cpio -o`, `zip -@`)
/// or into a loop variable (`| while read f`); as words of a substitution (`tar cz $(find …)`,
/// `for f in $(find …)`).
pub fn reads_listed_files(cmd: &Cmd<'_>, piped: bool) -> bool {
    let prog = cmd.program.as_str();
    if !piped {
        return prog == "for" || !only_names(prog) && cmd.argv.len() > 1;
    }
    if cmd.args_unknown {
        return !only_names(prog);
    }
    matches!(
        prog,
        "tar" | "bsdtar" | "cpio" | "zip" | "7z" | "7za" | "pax" | "afio" | "rsync" | "read"
    )
}

/// `find … -exec CMD {} ;`: CMD runs once per found path (under the roots). Returns whether it
/// only reads.
fn find_exec(c: &Call<'_, '_>, out: &mut Out, inner: &[&Word], roots: &[&Word]) -> bool {
    if inner.is_empty() {
        return true;
    }
    if c.depth + 1 >= super::MAX_DEPTH {
        out.incomplete("commands nested too deeply to follow");
        return false;
    }
    let peeled = peel(inner, &[]);
    for p in peeled.payloads {
        out.payload(p.dialect, p.text, p.via, p.encoded);
    }
    let ctx = super::Context {
        cwd: c.ctx.cwd,
        fed_roots: Some(roots),
        ..super::Context::default()
    };
    let mut read_only = true;
    for mut cmd in peeled.commands {
        cmd.args_unknown = true;
        cmd.elevated |= peeled.elevated;
        let v = super::check_at(&cmd, &ctx, c.depth + 1);
        read_only &= v.read_only;
        out.merge(v);
    }
    read_only
}

/// `robocopy SRC DST … /MIR` (or `/PURGE`) deletes whatever in the destination tree the source
/// lacks: a recursive delete of the destination (`robocopy C:\empty C:\ /MIR` empties the
/// drive). `/L` only lists.
fn robocopy(c: &Call<'_, '_>, out: &mut Out) {
    let switch = |name: &str| {
        c.args.iter().any(|w| {
            w.text.len() == name.len() + 1
                && w.text
                    .get(1..)
                    .is_some_and(|t| t.eq_ignore_ascii_case(name))
                && w.text.starts_with(['/', '-'])
        })
    };
    if !(switch("mir") || switch("purge")) || switch("l") {
        return;
    }
    let Some(dest) = c.args.iter().filter(|w| !w.text.starts_with('/')).nth(1) else {
        return;
    };
    report(c, out, "`robocopy /mir`", true, &[Target::word(dest)]);
}

/// `rsync --delete…` deletes destination files missing from the source;
/// `--remove-source-files` deletes the sources.
fn rsync(c: &Call<'_, '_>, out: &mut Out) {
    let p = super::parse(
        c.args,
        "efBT",
        &[
            "rsh",
            "exclude",
            "include",
            "filter",
            "exclude-from",
            "include-from",
            "files-from",
            "password-file",
            "log-file",
            "temp-dir",
            "partial-dir",
            "backup-dir",
            "suffix",
            "chmod",
            "chown",
            "rsync-path",
            "out-format",
            "compare-dest",
            "link-dest",
            "copy-dest",
            "bwlimit",
            "timeout",
            "port",
        ],
    );
    // `-n`/`--dry-run` only lists what would change (`--dry` is its shortest prefix).
    if p.opts
        .iter()
        .any(|(n, _)| *n == "n" || n.len() >= 3 && "dry-run".starts_with(n))
    {
        return;
    }
    let deletes = p.opts.iter().any(|(n, _)| n.starts_with("del"));
    let Some(dest) = p.pos.last().filter(|_| p.pos.len() >= 2) else {
        return;
    };
    // A local destination is written (`rsync -a evil/ ~/.openclaw/`).
    if !remote_spec(&dest.text) {
        system::special_target(c, out, "`rsync`", "writes", &dest.text);
    }
    if deletes {
        let text = remote_path(&dest.text);
        report(
            c,
            out,
            "`rsync --delete`",
            true,
            &[Target::Path {
                text: text.into(),
                dynamic: dest.dynamic,
                glob: dest.glob,
            }],
        );
    }
    if p.has("remove-source-files") {
        let sources = p.pos.get(..p.pos.len() - 1).unwrap_or(&[]);
        let targets: Vec<Target> = sources
            .iter()
            .map(|w| Target::Path {
                text: remote_path(&w.text).into(),
                dynamic: w.dynamic,
                glob: w.glob,
            })
            .collect();
        report(c, out, "`rsync --remove-source-files`", false, &targets);
    }
}

/// `host:path`, `user@host:path` or an `rsync://` URL (not a drive letter, not a local path
/// with a colon after a slash).
fn remote_spec(t: &str) -> bool {
    t.starts_with("rsync://")
        || t.split_once(':')
            .is_some_and(|(host, _)| host.len() > 1 && !host.contains(['/', '\\']))
}

/// The path part of `host:path` (an empty path is the remote home).
fn remote_path(t: &str) -> String {
    if let Some(rest) = t.strip_prefix("rsync://") {
        return rest
            .split_once('/')
            .map(|(_, p)| format!("/{p}"))
            .unwrap_or_else(|| "/".to_owned());
    }
    let drive = t.len() >= 2 && t.as_bytes().get(1) == Some(&b':');
    match t.split_once(':') {
        Some((host, path)) if !drive && !host.contains('/') => {
            if path.is_empty() {
                "~".to_owned()
            } else if path.starts_with('/') || path.starts_with('~') {
                path.to_owned()
            } else {
                format!("~/{path}")
            }
        }
        _ => t.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::analysis::shell::command::Dialect::{Cmd, PowerShell};
    use crate::finding::*;

    #[test]
    fn broad_rm_is_critical_in_every_flag_shape() {
        for s in [
            "rm -rf /",
            "rm -fr /",
            "rm -Rf /",
            "rm -r -f /",
            "rm -r  -f  /",
            "rm --recursive --force /etc",
            "rm -rf ~",
            "rm -rf $HOME",
            "rm -rf ${HOME}",
            "rm -rf ~/",
            "rm -rf .",
            "rm -rf ..",
            "rm -rf *",
            "rm -rf ./*",
            "rm -rf /tmp/../home/u",
            "rm -rf $TMPDIR/../x",
            "rm -rf /usr/lib",
            "rm -rf -- /",
            "rm -rfv /home",
            "rm --recur /var",
            "rm -rf $DIR",
            "rm -rf /*",
            "rm -rf 'C:\\'",
            "rm -rf .//",
            "rm -rf .///",
            "rm -rf ././/",
            "find .// -delete",
        ] {
            assert_has(s, &RECURSIVE_DELETE_BROAD);
            assert_critical(s);
        }
    }

    #[test]
    fn scoped_rm_is_a_warning() {
        for s in [
            "rm -rf ./dist",
            "rm -rf build/",
            "rm -rf node_modules",
            "rm -rf target/debug",
            "rm -rf /tmp/build-123",
            "rm -rf \"$HOME/project/build\"",
        ] {
            assert_has(s, &RECURSIVE_DELETE_SCOPED);
            assert_not_critical(s);
        }
    }

    #[test]
    fn plain_deletes_are_file_delete() {
        for s in [
            "rm file.txt",
            "rm -f file.txt",
            "unlink x",
            "rmdir empty",
            "rm -- -rf",
        ] {
            assert_has(s, &FILE_DELETE);
            assert_not_critical(s);
        }
        assert_not("rm -- -rf", &RECURSIVE_DELETE_SCOPED);
    }

    #[test]
    fn plain_deletes_of_special_paths_are_critical() {
        assert_has("rm /etc/sudoers", &SYSTEM_LOCATION_WRITE);
        assert_has("rm ~/.ssh/authorized_keys", &SYSTEM_LOCATION_WRITE);
        assert_has("rm ~/.aws/credentials", &SYSTEM_LOCATION_WRITE);
        assert_has("rm ~/.openclaw/openclaw.json", &SELF_PROTECTION);
        assert_has("rm -rf ~/.openclaw/extensions/human-gate", &SELF_PROTECTION);
        assert_has("rm ~/.bash_history", &HISTORY_TAMPERING);
        assert_not_critical("rm .env");
        assert_critical("rm -f /*");
        assert_critical("rm ~/*");
    }

    #[test]
    fn one_double_quoted_operand_is_one_file() {
        for s in ["rm -f \"$f\"", "rm -- \"${d}/x.map\"", "rm \"$(cat name)\""] {
            assert_has(s, &FILE_DELETE);
            assert_not_critical(s);
        }
        // Split, several words, another operand it could turn recursive, a glob.
        for s in [
            "rm -f $f",
            "rm -f \"\"$f",
            "rm -f \"$@\"",
            "rm -f \"${a[@]}\"",
            "rm -f \"$a\" \"$b\"",
            "rm \"$opt\" /home",
            "rm -f \"$d\"/*",
        ] {
            assert_critical(s);
        }
    }

    #[test]
    fn no_preserve_root() {
        assert_critical("rm -rf --no-preserve-root /");
        assert_critical("rm -r --no-preserve-root ./x");
    }

    #[test]
    fn xargs_rm_without_known_roots_is_broad() {
        assert_critical("xargs rm -rf");
        assert_critical("xargs -0 -I {} rm -rf {}");
        assert_has("xargs rm", &FILE_DELETE);
        assert_not_critical("xargs rm");
    }

    #[test]
    fn find_delete_uses_the_roots() {
        assert_critical("find . -name '*.log' -delete");
        assert_critical("find / -name '*.key' -delete");
        assert_critical("find -name x -delete");
        assert_critical("find ~ -type f -delete");
        assert_has("find ./build -name '*.o' -delete", &RECURSIVE_DELETE_SCOPED);
        assert_not_critical("find ./build -name '*.o' -delete");
        assert_critical("find -L / -delete");
    }

    #[test]
    fn find_exec_rm_deletes_under_the_roots() {
        assert_critical("find . -exec rm {} ;");
        assert_critical("find / -name '*.key' -exec rm {} ;");
        assert_critical("find / -name x -exec rm -f {} +");
        assert_critical("find . -type d -execdir rm -rf {} +");
        assert_critical("find / -exec sudo rm {} ;");
        assert_critical("find / -exec shred -u {} ;");
        assert_has(
            "find ./build -name '*.o' -exec rm {} ;",
            &RECURSIVE_DELETE_SCOPED,
        );
        assert_not_critical("find ./build -name '*.o' -exec rm {} ;");
    }

    #[test]
    fn find_exec_shell_is_a_payload() {
        let p = payloads("find . -exec sh -c 'rm -rf \"$1\"' _ {} ;");
        assert!(p.iter().any(|t| t.contains("rm -rf")), "{p:?}");
        let p = payloads("find ./build -exec sh -c 'rm -rf {}' ;");
        assert!(p.iter().any(|t| t == "rm -rf ./build"), "{p:?}");
        let p = payloads("find . -exec sh -c 'rm -rf {}' ;");
        assert!(p.iter().any(|t| t == "rm -rf ."), "{p:?}");
    }

    #[test]
    fn find_read_only_forms() {
        assert_read_only("find . -name '*.rs'");
        assert_read_only("find src -type f -exec grep -l foo {} ;");
        assert_not_critical("find . -name '*.rs' -print");
        let v = verdict("find . -fprint /etc/x");
        assert!(!v.read_only);
        assert_has("find . -fprint /etc/cron.d/x", &SYSTEM_LOCATION_WRITE);
        assert_has("find / -name id_rsa -exec cat {} ;", &CREDENTIAL_READ);
        assert_not("find / -name id_rsa", &CREDENTIAL_READ);
        // Every file under a credential directory, read by the command run on each.
        assert_has("find ~/.ssh -type f -exec base64 {} +", &CREDENTIAL_READ);
        assert_has("find ~/.aws -name '*' -exec cat {} ;", &CREDENTIAL_READ);
        assert_not("find ~/.ssh -name '*.pub' -exec cat {} ;", &CREDENTIAL_READ);
        assert_not("find ~/.ssh -type f -exec ls -l {} +", &CREDENTIAL_READ);
        assert_not("find ./src -type f -exec cat {} +", &CREDENTIAL_READ);
    }

    #[test]
    fn powershell_remove_item() {
        for s in [
            "Remove-Item -Recurse -Force C:\\w",
            "Remove-Item C:\\ -Recurse",
            "remove-item -r -fo $env:USERPROFILE",
            "ri -Recurse -Path C:\\Users\\me",
            "Remove-Item -LiteralPath ~ -Recurse",
            "rm -Recurse -Force C:\\",
            "Remove-Item -Rec C:\\Windows",
            "Remove-Item –Recurse C:\\x",
            "del -Recurse C:\\data",
            "Microsoft.PowerShell.Management\\Remove-Item -Recurse C:\\",
        ] {
            assert_critical_in(PowerShell, s);
        }
        assert_has_in(
            PowerShell,
            "Remove-Item -Recurse .\\dist",
            &RECURSIVE_DELETE_SCOPED,
        );
        assert_not_critical_in(PowerShell, "Remove-Item -Recurse .\\dist");
        assert_has_in(PowerShell, "Remove-Item file.txt", &FILE_DELETE);
        assert_not_critical_in(PowerShell, "Remove-Item -Recurse C:\\ -WhatIf");
        assert_not_critical_in(
            PowerShell,
            "Remove-Item -Recurse:$false -Force C:\\x\\y\\z.txt",
        );
        assert_has_in(
            PowerShell,
            "Remove-Item (Get-PSReadlineOption).HistorySavePath",
            &HISTORY_TAMPERING,
        );
        // Without -Recurse, a run-time path is one item, not a tree.
        for s in [
            "Remove-Item $x",
            "Remove-Item (Get-PSReadlineOption).HistorySavePath",
        ] {
            assert_has_in(PowerShell, s, &FILE_DELETE);
            assert_not_in(PowerShell, s, &RECURSIVE_DELETE_BROAD);
        }
        assert_critical_in(PowerShell, "Remove-Item C:\\*");
        assert_critical("rm $x");
    }

    #[test]
    fn powershell_remove_item_from_a_pipe() {
        let v = verdict_with("Remove-Item -Force", true);
        assert!(
            v.findings.iter().any(|f| f.id == RECURSIVE_DELETE_BROAD.id),
            "{v:?}"
        );
    }

    #[test]
    fn cmd_rd_and_del() {
        for s in [
            "rd /s /q C:\\",
            "rmdir /s /q C:\\Users",
            "RD /S /Q %USERPROFILE%",
            "rd /s/q C:\\w",
            "del /s /q C:\\*",
            "del /f /s /q C:\\*.*",
            "erase /s /q *",
            "del /q C:\\*",
        ] {
            assert_critical_in(Cmd, s);
            assert_critical_in(PowerShell, s);
        }
        assert_has_in(Cmd, "rd /s /q build", &RECURSIVE_DELETE_SCOPED);
        assert_not_critical_in(Cmd, "rd /s /q build");
        assert_has_in(Cmd, "del notes.txt", &FILE_DELETE);
        assert_not_critical_in(Cmd, "del notes.txt");
        assert_not_critical("rmdir /home/u/empty");
    }

    #[test]
    fn shred_and_rimraf() {
        assert_has("shred -u secret.txt", &DISK_OR_PERMISSION_WIPE);
        assert_has("shred /dev/sda", &DISK_OR_PERMISSION_WIPE);
        assert_critical("rimraf /");
        assert_not_critical("rimraf dist");
        assert_has("npx rimraf dist", &RECURSIVE_DELETE_SCOPED);
        assert_critical("npx rimraf@5 ~");
    }

    #[test]
    fn robocopy_mirror_deletes_the_destination() {
        for s in [
            "robocopy C:\\empty C:\\ /MIR",
            "robocopy empty %USERPROFILE% /e /purge",
            "robocopy x C:\\Windows *.* -mir",
        ] {
            assert_deep_critical(s);
        }
        assert_has(
            "robocopy src\\assets build\\assets /MIR",
            &RECURSIVE_DELETE_SCOPED,
        );
        assert_not_critical("robocopy src\\assets build\\assets /MIR");
        for s in [
            "robocopy C:\\empty C:\\ /MIR /L",
            "robocopy .\\dist C:\\ /E",
        ] {
            assert_not(s, &RECURSIVE_DELETE_BROAD);
        }
    }

    #[test]
    fn rsync_delete() {
        assert_critical("rsync -a --delete empty/ ~/");
        assert_critical("rsync -a --delete empty/ host:");
        assert_critical("rsync -a --delete empty/ /");
        assert_has("rsync -a --delete src/ dist/", &RECURSIVE_DELETE_SCOPED);
        assert_not_critical("rsync -a --delete src/ dist/");
        assert_not("rsync -a src/ dist/", &RECURSIVE_DELETE_SCOPED);
        assert_has("rsync --remove-source-files a.txt host:/x", &FILE_DELETE);
        assert_has("rsync -a ./evil/ ~/.openclaw/", &SELF_PROTECTION);
        assert_not("rsync -a ./evil/ host:.openclaw/", &SELF_PROTECTION);
        // A dry run deletes nothing.
        for s in [
            "rsync -an --delete empty/ ~/",
            "rsync --dry-run -a --delete empty/ /",
            "rsync -a --dry --delete-before empty/ ~/",
        ] {
            assert_not(s, &RECURSIVE_DELETE_BROAD);
            assert_not_critical(s);
        }
    }

    #[test]
    fn look_alikes_stay_clean() {
        for s in [
            "echo rm -rf /",
            "echo \"rm -rf /\"",
            "printf 'rm -rf /'",
            "grep -rn 'rm -rf' .",
            "ls -la",
            "format-list",
            "cat rm.txt",
        ] {
            assert_not_critical(s);
            assert_not(s, &RECURSIVE_DELETE_SCOPED);
            assert_not(s, &FILE_DELETE);
        }
    }
}
