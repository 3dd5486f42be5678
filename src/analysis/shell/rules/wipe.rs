//! Disk and permission wipes (`disk-or-permission-wipe`, critical): filesystem formatting
//! (`mkfs*`, `mke2fs`, `mkswap`, `Format-Volume`, `format X:`, `diskutil eraseDisk`),
//! partition-table rewrites (`sgdisk --zap*`, `parted rm|mklabel`, `fdisk`/`sfdisk` on a
//! device, `diskpart`, `Clear-Disk`, `Remove-Partition`), device wipes (`wipefs -a`,
//! `blkdiscard`, `hdparm --security-erase`, `nvme format`, `badblocks -w`, `cryptsetup
//! luksFormat`), volume and pool destruction (`lvremove`, `zpool destroy`, `zfs destroy`),
//! backup deletion (`vssadmin delete shadows`, `wmic shadowcopy delete`, `wbadmin delete`,
//! `cipher /w`), recursive permission/ownership rewrites of broad or top-level trees (`chmod
//! -R`, `chown -R`, `chgrp -R`, `setfacl -R`, `icacls /t`, `takeown /r`), world-writable modes
//! on broad paths or recursively, and fork bombs. Writes to raw devices (`dd of=/dev/sda`,
//! `> /dev/nvme0n1`) are caught where files are written. Also: `chmod +x` (`effects.
//! makes_executable`), setuid bits and `setcap` (`privilege-elevation`).

use super::system::is_block_device;
use super::{cluster, long, shown, Call, Out};
use crate::analysis::paths::{self, Breadth};
use crate::analysis::shell::model::Word;
use crate::finding;

/// Wipe rules for the program itself.
pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    match c.prog {
        "chmod" => chmod(c, out),
        "chown" | "chgrp" => chown(c, out),
        "icacls" | "cacls" | "xcacls" => icacls(c, out),
        "takeown" => takeown(c, out),
        "setfacl" if super::has_opt(c.args, &['R'], &["recursive"]) => {
            recursive_perm(c, out, "`setfacl -R`", c.plain());
        }
        "setcap" => out.add(
            &finding::PRIVILEGE_ELEVATION,
            "`setcap` grants a program capabilities",
        ),
        "diskutil" => {
            let verbs = [
                "erasedisk",
                "erasevolume",
                "zerodisk",
                "randomdisk",
                "secureerase",
                "partitiondisk",
                "reformat",
                "eraseappleraid",
                "deletecontainer",
                "deletevolume",
            ];
            if let Some(v) = c
                .args
                .iter()
                .map(|w| w.text.to_ascii_lowercase())
                .find(|t| {
                    verbs.contains(&t.as_str()) || t.starts_with("apfs") && t.contains("delete")
                })
            {
                out.not_read_only();
                out.add(
                    &finding::DISK_OR_PERMISSION_WIPE,
                    format!("`diskutil {v}` erases a disk or volume"),
                );
            }
        }
        ":" if c.ctx.piped_in => out.add(
            &finding::DISK_OR_PERMISSION_WIPE,
            "a function piping into itself in the background (a fork bomb)",
        ),
        _ => {}
    }
    disk(c, out);
}

/// A mode that lets everyone write (`777`, `o+w`, `a=rwx`).
fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_ascii_digit()) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|d| d & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let Some(op_at) = clause.find(['+', '=']) else {
            return false;
        };
        let who = clause.get(..op_at).unwrap_or("");
        let perms = clause.get(op_at + 1..).unwrap_or("");
        (who.contains('o') || who.contains('a')) && perms.contains('w')
    })
}

/// setuid/setgid bits (`4755`, `u+s`).
fn sets_id(mode: &str) -> bool {
    if mode.len() == 4 && mode.chars().all(|c| c.is_ascii_digit()) {
        return mode
            .chars()
            .next()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|d| d & 6 != 0);
    }
    mode.split(',').any(|cl| {
        cl.find(['+', '='])
            .is_some_and(|at| cl.get(at + 1..).unwrap_or("").contains('s'))
    })
}

/// The user can execute afterwards (`+x`, `u+x`, `755`).
fn makes_exec(mode: &str) -> bool {
    if mode.len() >= 3 && mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        return digits
            .len()
            .checked_sub(3)
            .and_then(|i| digits.get(i))
            .is_some_and(|d| d & 1 != 0);
    }
    mode.split(',').any(|cl| {
        cl.find(['+', '=']).is_some_and(|at| {
            let who = cl.get(..at).unwrap_or("");
            (who.is_empty() || who.contains(['u', 'a']))
                && cl.get(at + 1..).unwrap_or("").contains('x')
        })
    })
}

fn chmod(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut mode: Option<&str> = None;
    let mut reference = false;
    let mut targets: Vec<&Word> = Vec::new();
    let mut ended = false;
    for w in c.args {
        let t = w.text.as_str();
        if !ended && t == "--" {
            ended = true;
            continue;
        }
        if !ended {
            if let Some(n) = long(t) {
                recursive |= "recursive".starts_with(n) && n.len() >= 3;
                reference |= n == "reference";
                continue;
            }
            if let Some(cl) = cluster(t) {
                if cl.chars().all(|ch| "RcfvHLP".contains(ch)) {
                    recursive |= cl.contains('R');
                    continue;
                }
            }
        }
        if mode.is_none() && !reference {
            mode = Some(t);
        } else {
            targets.push(w);
        }
    }
    out.not_read_only();
    let mode = mode.unwrap_or("");
    let ww = world_writable(mode);
    if sets_id(mode) {
        out.add(
            &finding::PRIVILEGE_ELEVATION,
            format!("`chmod {mode}` sets the setuid/setgid bit"),
        );
    }
    if recursive {
        recursive_perm(c, out, "`chmod -R`", &targets);
    }
    under_find_roots(c, out, "`chmod`", ww);
    for w in &targets {
        let broad =
            ww && !recursive && matches!(c.breadth(&w.text, w.dynamic, w.glob), Breadth::Broad(_));
        if ww && (recursive || broad) {
            out.add(
                &finding::DISK_OR_PERMISSION_WIPE,
                format!(
                    "`chmod {mode}` makes {} writable by everyone",
                    shown(&w.text)
                ),
            );
        } else if ww && paths::is_system_write_target(&w.text) {
            out.add(
                &finding::SYSTEM_LOCATION_WRITE,
                format!("`chmod {mode}` opens the system file {}", shown(&w.text)),
            );
        }
        if sets_id(mode) && paths::is_system_write_target(&c.resolve(&w.text)) {
            // A setuid system binary (`chmod u+s /bin/bash`) is a root shell for anyone.
            out.add(
                &finding::SYSTEM_LOCATION_WRITE,
                format!("`chmod {mode}` makes {} run as its owner", shown(&w.text)),
            );
        }
        if makes_exec(mode) {
            out.effects().makes_executable.push(w.text.clone());
        }
    }
    if c.cmd.args_unknown && ww && recursive {
        out.add(
            &finding::DISK_OR_PERMISSION_WIPE,
            format!("`chmod -R {mode}` on paths named at run time"),
        );
    }
}

/// System configuration and binaries whose owner controls the machine (`/etc/…`, `/bin`,
/// `/usr/bin`, `/boot`, …); not `/usr/local`, `/opt` or home, which users commonly own.
fn owner_sensitive(path: &str) -> bool {
    let n = paths::normalize(path);
    let seg = |i: usize| n.segments.get(i).map(|s| s.to_ascii_lowercase());
    n.anchor == "/"
        && !n.escapes
        && match seg(0).as_deref() {
            Some("etc" | "bin" | "sbin" | "boot" | "lib" | "lib64") => true,
            Some("usr") => matches!(seg(1).as_deref(), Some("bin" | "sbin" | "lib" | "libexec")),
            _ => false,
        }
}

/// `root`, `root:root`, `0`, `0:0`, `:root`, `root:wheel`: ownership stays with root.
fn is_root_owner(t: &str) -> bool {
    let user = t.split([':', '.']).next().unwrap_or("");
    matches!(user, "root" | "0") || user.is_empty() && !t.is_empty()
}

fn chown(c: &Call<'_, '_>, out: &mut Out) {
    let mut to_root = false;
    let mut recursive = false;
    let mut reference = false;
    let mut owner_seen = false;
    let mut targets: Vec<&Word> = Vec::new();
    for w in c.args {
        let t = w.text.as_str();
        if let Some(n) = long(t) {
            recursive |= "recursive".starts_with(n) && n.len() >= 3;
            reference |= n == "reference";
            continue;
        }
        if let Some(cl) = cluster(t) {
            recursive |= cl.contains('R');
            continue;
        }
        if !owner_seen && !reference {
            owner_seen = true;
            to_root = is_root_owner(t);
        } else {
            targets.push(w);
        }
    }
    out.not_read_only();
    if recursive {
        recursive_perm(c, out, &format!("`{} -R`", c.prog), &targets);
    }
    if !to_root {
        // `chown u /etc/sudoers`: the new owner may rewrite a system or credential file.
        if let Some(w) = targets
            .iter()
            .find(|w| owner_sensitive(&c.resolve(&w.text)))
        {
            out.add(
                &finding::SYSTEM_LOCATION_WRITE,
                format!(
                    "`{}` hands the system file {} to another owner",
                    c.prog,
                    shown(&w.text)
                ),
            );
        }
    }
    under_find_roots(c, out, &format!("`{}`", c.prog), true);
}

/// `find / -exec chmod 777 {} +`, `find ROOT | xargs chown u`: the change reaches every path
/// under the roots, like `-R` on them. Roots inside the working directory count only for
/// world-writable modes (`find . -name '*.sh' -exec chmod +x {} +` is ordinary).
fn under_find_roots(c: &Call<'_, '_>, out: &mut Out, who: &str, any_root: bool) {
    let Some(roots) = c.roots.filter(|_| c.cmd.args_unknown) else {
        return;
    };
    let dot = Word {
        text: ".".to_owned(),
        ..Word::default()
    };
    let all: Vec<&Word> = if roots.is_empty() {
        vec![&dot]
    } else {
        roots.to_vec()
    };
    let chosen: Vec<&Word> = all
        .into_iter()
        .filter(|w| any_root || w.dynamic || paths::is_absolute(&c.resolve(&w.text)))
        .collect();
    recursive_perm(c, out, &format!("{who} under `find`"), &chosen);
}

/// A recursive permission/ownership change: critical on broad targets, and on top-level
/// directories (`/w`, `/data`): a whole tree's permissions are not a project-scoped change.
fn recursive_perm(c: &Call<'_, '_>, out: &mut Out, who: &str, targets: &[&Word]) {
    for w in targets {
        if !out.spend() {
            out.add(
                &finding::DISK_OR_PERMISSION_WIPE,
                format!("{who} rewrites more targets than the gate verifies"),
            );
            break;
        }
        let n = paths::normalize(&c.resolve(&w.text));
        let top_level = (n.anchor == "/" || n.anchor.ends_with(':')) && n.segments.len() <= 1;
        // An application tree three levels down (`/var/www/app`, `/srv/app/data`) is scoped for
        // an ownership or mode change (it deletes nothing), outside the system's own trees.
        let app_tree = n.anchor == "/"
            && n.segments.len() >= 3
            && !n.segments.first().is_some_and(|s| {
                matches!(
                    s.to_ascii_lowercase().as_str(),
                    "etc" | "usr" | "bin" | "sbin" | "lib" | "lib64" | "boot" | "root"
                )
            });
        let b = match c.breadth(&w.text, w.dynamic, w.glob) {
            Breadth::Scoped if top_level => Breadth::Broad("a top-level directory"),
            Breadth::Broad(_) if app_tree && !w.dynamic && !w.glob => Breadth::Scoped,
            b => b,
        };
        if let Breadth::Broad(why) = b {
            out.add(
                &finding::DISK_OR_PERMISSION_WIPE,
                format!("{who} rewrites {} ({why})", shown(&w.text)),
            );
        }
    }
    if c.cmd.args_unknown && targets.is_empty() && c.roots.is_none() {
        out.add(
            &finding::DISK_OR_PERMISSION_WIPE,
            format!("{who} rewrites paths named at run time"),
        );
    }
}

fn icacls(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut mutate = false;
    let mut targets: Vec<&Word> = Vec::new();
    let mut expect_value = false;
    for w in c.args {
        if expect_value {
            expect_value = false;
            continue;
        }
        let lower = w.text.to_ascii_lowercase();
        if let Some(sw) = lower.strip_prefix('/') {
            let name = sw.split(':').next().unwrap_or("");
            match name {
                "t" => recursive = true,
                "grant" | "deny" | "remove" | "setowner" | "setintegritylevel" | "inheritance"
                | "g" | "e" | "r" | "p" => {
                    mutate = true;
                    expect_value = !sw.contains(':') || name == "inheritance";
                    if name == "inheritance" {
                        expect_value = false;
                    }
                }
                "reset" => mutate = true,
                _ => {}
            }
            continue;
        }
        if targets.is_empty() {
            targets.push(w);
        }
    }
    out.not_read_only();
    if recursive && mutate {
        recursive_perm(c, out, &format!("`{} /t`", c.prog), &targets);
    }
}

fn takeown(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut targets: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(w) = c.args.get(i) {
        i += 1;
        match w.text.to_ascii_lowercase().as_str() {
            "/r" => recursive = true,
            "/f" => {
                if let Some(t) = c.args.get(i) {
                    targets.push(t);
                }
                i += 1;
            }
            "/d" | "/s" | "/u" | "/p" => i += 1,
            _ => {}
        }
    }
    out.not_read_only();
    if recursive {
        recursive_perm(c, out, "`takeown /r`", &targets);
    }
}

/// Disk tools [`disk`] judges (with `mkfs*`/`newfs*`).
pub(super) const DISK: super::Words = super::Words::new(&[
    "mke2fs",
    "mkswap",
    "mkntfs",
    "mkdosfs",
    "mkexfatfs",
    "wipefs",
    "sgdisk",
    "gdisk",
    "cgdisk",
    "parted",
    "fdisk",
    "cfdisk",
    "sfdisk",
    "blkdiscard",
    "hdparm",
    "cryptsetup",
    "lvremove",
    "vgremove",
    "pvremove",
    "lvreduce",
    "zpool",
    "zfs",
    "nvme",
    "badblocks",
    "diskpart",
    "format",
    "format.com",
    "cipher",
    "vssadmin",
    "wmic",
    "wbadmin",
    "bcdedit",
]);

/// Formatting programs named outside the `mkfs*`/`newfs*` families.
fn is_mkfs_name(prog: &str) -> bool {
    matches!(
        prog,
        "mke2fs" | "mkswap" | "mkntfs" | "mkdosfs" | "mkexfatfs"
    )
}

/// Disk formatting, partitioning, wiping and shadow-copy deletion.
fn disk(c: &Call<'_, '_>, out: &mut Out) {
    let known = c.prog_in(&DISK) || c.prog.starts_with("mkfs") || c.prog.starts_with("newfs");
    if !known
        && !matches!(
            c.ps(),
            "format-volume" | "clear-disk" | "remove-partition" | "initialize-disk"
        )
    {
        return;
    }
    let lower: Vec<String> = c.args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
    let has = |s: &str| lower.iter().any(|t| t == s);
    let device = c.args.iter().any(|w| is_block_device(&w.text));
    let why: Option<String> = match c.prog {
        // Without an operand there is nothing to format (`mkfs.ext4 -V` prints its version).
        p if c.plain().is_empty()
            && (p.starts_with("mkfs") || p.starts_with("newfs") || is_mkfs_name(p)) =>
        {
            None
        }
        p if p.starts_with("mkfs") || p.starts_with("newfs") => {
            Some(format!("`{p}` formats a filesystem"))
        }
        "mke2fs" | "mkswap" | "mkntfs" | "mkdosfs" | "mkexfatfs" => {
            Some(format!("`{}` formats a filesystem", c.prog))
        }
        "wipefs"
            if !has("-n")
                && !has("--no-act")
                && lower.iter().any(|t| {
                    t == "--all"
                        || t.starts_with("--offset")
                        || cluster(t).is_some_and(|cl| cl.contains(['a', 'o']))
                }) =>
        {
            Some("`wipefs` erases filesystem signatures".to_owned())
        }
        "sgdisk" | "gdisk" | "cgdisk" => {
            let read = [
                "-p", "--print", "-i", "--info", "-v", "--verify", "-l", "--list",
            ];
            let mutates = c.args.iter().any(|w| {
                let t = w.text.as_str();
                t.starts_with('-')
                    && !read
                        .iter()
                        .any(|r| t == *r || t.starts_with(&format!("{r}=")))
            });
            (mutates || c.prog != "sgdisk" && device)
                .then(|| format!("`{}` rewrites a partition table", c.prog))
        }
        "parted" => lower
            .iter()
            .any(|t| {
                matches!(
                    t.as_str(),
                    "rm" | "mklabel" | "mktable" | "mkpart" | "mkpartfs" | "resizepart" | "rescue"
                )
            })
            .then(|| "`parted` rewrites a partition table".to_owned()),
        "fdisk" | "cfdisk" => (device && !has("-l") && !has("--list"))
            .then(|| format!("`{}` edits a partition table", c.prog)),
        "sfdisk" => (device
            && !lower.iter().any(|t| {
                matches!(
                    t.as_str(),
                    "-l" | "--list"
                        | "-d"
                        | "--dump"
                        | "-s"
                        | "--show-size"
                        | "-j"
                        | "--json"
                        | "-v"
                        | "--verify"
                )
            }))
        .then(|| "`sfdisk` writes a partition table".to_owned()),
        "blkdiscard" => Some("`blkdiscard` discards every block of a device".to_owned()),
        "hdparm" => lower
            .iter()
            .any(|t| {
                t.starts_with("--security-erase")
                    || t.starts_with("--trim-sector")
                    || t == "--write-sector"
                    || t == "--dco-restore"
            })
            .then(|| "`hdparm` erases a drive".to_owned()),
        "cryptsetup" => lower
            .iter()
            .any(|t| {
                matches!(
                    t.as_str(),
                    "luksformat" | "erase" | "lukserase" | "lukskillslot" | "reencrypt"
                )
            })
            .then(|| "`cryptsetup` destroys encryption keys or reformats".to_owned()),
        "lvremove" | "vgremove" | "pvremove" | "lvreduce" => {
            Some(format!("`{}` removes a volume", c.prog))
        }
        "zpool" => lower
            .iter()
            .any(|t| t == "destroy" || t == "labelclear")
            .then(|| "`zpool` destroys a pool".to_owned()),
        "zfs" => has("destroy").then(|| "`zfs destroy` removes datasets".to_owned()),
        "nvme" => lower
            .iter()
            .any(|t| t == "format" || t == "sanitize")
            .then(|| "`nvme` formats or sanitizes a drive".to_owned()),
        "badblocks" => (has("-w")
            || lower
                .iter()
                .any(|t| cluster(t).is_some_and(|cl| cl.contains('w'))))
        .then(|| "`badblocks -w` overwrites a device".to_owned()),
        "diskpart" => Some("`diskpart` can clean and repartition disks".to_owned()),
        "format" | "format.com" => lower
            .iter()
            .any(|t| {
                t.len() == 2 && t.ends_with(':') && t.starts_with(|c: char| c.is_ascii_alphabetic())
            })
            .then(|| "`format` formats a drive".to_owned()),
        "cipher" => lower
            .iter()
            .any(|t| t.starts_with("/w"))
            .then(|| "`cipher /w` wipes free space".to_owned()),
        "vssadmin" => (has("delete") || has("resize"))
            .then(|| "`vssadmin` deletes shadow copies (backups)".to_owned()),
        "wmic" => (lower.iter().any(|t| t.contains("shadowcopy")) && has("delete"))
            .then(|| "`wmic shadowcopy delete` deletes backups".to_owned()),
        "wbadmin" => has("delete").then(|| "`wbadmin delete` deletes backups".to_owned()),
        "bcdedit" => (has("/delete") || lower.iter().any(|t| t == "recoveryenabled"))
            .then(|| "`bcdedit` changes how the system boots".to_owned()),
        _ => None,
    };
    let why = why.or_else(|| match c.ps() {
        "format-volume" | "clear-disk" | "remove-partition" | "initialize-disk" => {
            Some(format!("`{}` wipes a disk or partition", c.prog))
        }
        _ => None,
    });
    if let Some(why) = why {
        out.not_read_only();
        out.add(&finding::DISK_OR_PERMISSION_WIPE, why);
    }
}

/// True when a command line contains a fork bomb: a function whose body pipes or backgrounds
/// a call to itself (`:(){ :|:& };:`, `f(){ f|f& }; f`, `.() { .|.& }; .`,
/// `f() { f & f; }`), or the batch `%0|%0`. Checked over the text because a function
/// definition is not a simple command. Quoted text is data (a payload is analysed again on its
/// own). Linear: at most 64 definitions, each body scanned once.
pub fn is_fork_bomb(text: &str) -> bool {
    // Necessary conditions, checked on the raw bytes first (the scan below keeps or blanks
    // characters, never makes new ones): a self-call in a pipe or in the background needs a
    // `|` or `&`, and a definition body (`{`/`(`) or `%0|%0` needs `{`, `(` or `%`.
    // One `memchr` per byte value: a 16 KB command is scanned in a few vector passes.
    let bytes = text.as_bytes();
    let has = |b: u8| memchr::memchr(b, bytes).is_some();
    if !(has(b'|') || has(b'&')) || !(has(b'{') || has(b'(') || has(b'%')) {
        return false;
    }
    // Without `\` and `%`, the text below keeps every char it keeps in place (quoted text
    // only becomes `_`), so a definition needs `function` or a `(` with only blanks before a
    // `)` in the text itself, and `%0|%0` needs a `%`.
    if !has(b'\\') && !has(b'%') && !may_define_function(text) {
        return false;
    }
    fork_bomb_scan(text)
}

/// `text` holds `function`, or a `(` followed by whitespace and then `)`.
fn may_define_function(text: &str) -> bool {
    if memchr::memmem::find(text.as_bytes(), b"function").is_some() {
        return true;
    }
    memchr::memchr_iter(b'(', text.as_bytes()).any(|i| {
        text.get(i + 1..)
            .and_then(|rest| rest.chars().find(|c| !c.is_whitespace()))
            == Some(')')
    })
}

/// The scan [`is_fork_bomb`] runs once its prefilters pass (the tests check that the prefilters
/// never change its answer).
fn fork_bomb_scan(text: &str) -> bool {
    // Quoted text becomes one placeholder word; escapes keep their character.
    let mut s: Vec<char> = Vec::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for ch in text.chars() {
        if escaped {
            escaped = false;
            if quote.is_none() {
                s.push(ch);
            }
            continue;
        }
        match (quote, ch) {
            (None, '\\') | (Some('"'), '\\') => escaped = true,
            (None, '\'' | '"') => {
                quote = Some(ch);
                s.push('_');
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) => s.push(c),
            _ => {}
        }
    }
    let mut compact = String::with_capacity(s.len());
    compact.extend(s.iter().filter(|c| !c.is_whitespace()));
    if compact.contains("%0|%0") {
        return true;
    }
    let mut defs = 0;
    let mut i = 0;
    while i < s.len() && defs < 64 {
        let Some((name, body_start)) = definition_at(&s, i) else {
            i += 1;
            continue;
        };
        defs += 1;
        let body_end = matching_close(&s, body_start);
        let body = s.get(body_start + 1..body_end).unwrap_or(&[]);
        if calls_itself_concurrently(body, &name) {
            return true;
        }
        i = body_start + 1;
    }
    false
}

/// Characters that end a shell word.
fn is_word_end(c: char) -> bool {
    c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}' | '<' | '>')
}

/// A function definition starting at `i` (`NAME()`, `NAME ()`, `function NAME`, each followed
/// by `{` or `(`): its name and the index of the body's opening bracket.
fn definition_at(s: &[char], i: usize) -> Option<(String, usize)> {
    // Only at a word start.
    if i > 0 && s.get(i - 1).is_some_and(|c| !is_word_end(*c)) {
        return None;
    }
    let word_end = |from: usize| {
        let mut j = from;
        while s.get(j).is_some_and(|c| !is_word_end(*c)) {
            j += 1;
        }
        j
    };
    let skip_ws = |from: usize| {
        let mut j = from;
        while s.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        j
    };
    let end = word_end(i);
    if end == i {
        return None;
    }
    let word = s.get(i..end)?;
    let (name, j) = if word.iter().copied().eq("function".chars()) {
        let n0 = skip_ws(end);
        let n1 = word_end(n0);
        if n1 == n0 {
            return None;
        }
        let name: String = s.get(n0..n1)?.iter().collect();
        let mut j = skip_ws(n1);
        if s.get(j) == Some(&'(') && s.get(skip_ws(j + 1)) == Some(&')') {
            j = skip_ws(skip_ws(j + 1) + 1);
        }
        (name, j)
    } else {
        let j = skip_ws(end);
        if s.get(j) != Some(&'(') {
            return None;
        }
        let k = skip_ws(j + 1);
        if s.get(k) != Some(&')') {
            return None;
        }
        (word.iter().collect(), skip_ws(k + 1))
    };
    matches!(s.get(j), Some('{' | '(')).then_some((name, j))
}

/// Index of the bracket closing the one at `open` (any of `{}`/`()` nest), or the end.
fn matching_close(s: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, c) in s.iter().enumerate().skip(open) {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// The body runs `name` in a pipeline or in the background.
fn calls_itself_concurrently(body: &[char], name: &str) -> bool {
    // Split into segments at control operators, remembering the operator on each side.
    let mut segments: Vec<(String, char, char)> = Vec::new();
    let mut cur = String::new();
    let mut before = ';';
    let mut k = 0;
    while let Some(&c) = body.get(k) {
        let op = match c {
            ';' | '\n' | '{' | '}' | '(' | ')' => Some(';'),
            '|' | '&' => {
                let doubled = body.get(k + 1) == Some(&c);
                if doubled {
                    k += 1;
                    Some(';')
                } else {
                    Some(c)
                }
            }
            _ => None,
        };
        match op {
            Some(op) => {
                segments.push((std::mem::take(&mut cur), before, op));
                before = op;
            }
            None => cur.push(c),
        }
        k += 1;
    }
    segments.push((cur, before, ';'));
    segments.iter().any(|(seg, before, after)| {
        seg.split_whitespace().next() == Some(name)
            && (*before == '|' || *after == '|' || *after == '&')
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::finding::*;

    #[test]
    fn permission_wipes() {
        for s in [
            "chmod -R 777 /",
            "chmod -R 777 ./build",
            "chmod 777 /",
            "chown -R root /w",
            "chown -R root:root /",
            "chown -R nobody ~",
            "chgrp -R users /etc",
            "chmod --recursive 755 /usr",
            "chmod -R a+rwx ~",
            "sudo chmod -R 000 /",
            "icacls 'C:\\' /grant Everyone:F /t",
            "takeown /f 'C:\\Windows' /r",
            "setfacl -R -m u:x:rwx /",
        ] {
            assert_has(s, &DISK_OR_PERMISSION_WIPE);
        }
        for s in [
            "chmod -R 755 ./build",
            "chmod +x script.sh",
            "chmod 644 README.md",
            "chown -R me ./dist",
            "chmod 600 ~/.ssh/authorized_keys",
            "chmod 700 ~/.ssh",
        ] {
            assert_not_critical(s);
        }
        let v = verdict("chmod +x s.sh");
        assert_eq!(v.effects.makes_executable, ["s.sh"]);
        let v = verdict("chmod 755 s.sh");
        assert_eq!(v.effects.makes_executable, ["s.sh"]);
        assert_has("chmod u+s /bin/bash", &PRIVILEGE_ELEVATION);
        assert_has("chmod 4755 x", &PRIVILEGE_ELEVATION);
        assert_critical("chmod 666 /etc/passwd");
        assert!(world_writable("777") && world_writable("o+w") && !world_writable("755"));
    }

    #[test]
    fn formatters_without_an_operand_format_nothing() {
        for s in [
            "mkfs.ext4 -V",
            "mke2fs -V",
            "mkfs.xfs -V",
            "mkswap --version",
        ] {
            assert_not(s, &DISK_OR_PERMISSION_WIPE);
        }
        assert_critical("mkfs.ext4 -V /dev/sda1");
        assert_critical("mkfs -V /dev/sdb");
    }

    #[test]
    fn disk_wipes() {
        for s in [
            "mkfs.ext4 /dev/sda1",
            "mkfs -t xfs /dev/sdb",
            "mkswap /dev/sdb2",
            "wipefs -a /dev/sda",
            "sgdisk --zap-all /dev/sda",
            "sgdisk -Z /dev/nvme0n1",
            "parted /dev/sda --script mklabel gpt",
            "parted -s /dev/sda rm 1",
            "fdisk /dev/sda",
            "blkdiscard /dev/nvme0n1",
            "zpool destroy tank",
            "zfs destroy -r tank/data",
            "diskpart /s wipe.txt",
            "format D: /q",
            "cipher /w:C:\\",
            "vssadmin delete shadows /all /quiet",
            "wmic shadowcopy delete",
            "Format-Volume -DriveLetter D",
            "Clear-Disk -Number 1 -RemoveData",
            "Remove-Partition -DiskNumber 0 -PartitionNumber 1",
            "cryptsetup luksFormat /dev/sdb",
            "lvremove -f vg/lv",
            "diskutil eraseDisk JHFS+ X /dev/disk2",
            "diskutil zeroDisk disk2",
        ] {
            assert_has(s, &DISK_OR_PERMISSION_WIPE);
            assert_critical(s);
        }
        for s in [
            "fdisk -l",
            "fdisk -l /dev/sda",
            "sgdisk -p /dev/sda",
            "parted -l",
            "wipefs /dev/sda",
            "sfdisk -d /dev/sda",
            "clang-format -i x.c",
            "cargo fmt",
            "git format-patch -1",
            "lsblk",
            "diskutil list",
        ] {
            assert_not(s, &DISK_OR_PERMISSION_WIPE);
        }
    }

    #[test]
    fn permission_changes_under_find_roots() {
        for s in [
            "find / -exec chmod 777 {} +",
            "find / -type f -exec chmod 644 {} ;",
            "find /etc -exec chown nobody {} +",
            "find ~ -exec chmod 700 {} +",
            "find . -exec chmod 777 {} +",
        ] {
            assert_has(s, &DISK_OR_PERMISSION_WIPE);
        }
        for s in [
            "find . -name '*.sh' -exec chmod +x {} +",
            "find ./build -exec chmod 644 {} +",
            "find /home/u/project/build -exec chmod 644 {} +",
        ] {
            assert_not(s, &DISK_OR_PERMISSION_WIPE);
        }
    }

    #[test]
    fn fork_bomb_prefilters_change_no_answer() {
        let mut texts = corpus_texts();
        let pieces = [
            "(",
            ")",
            "{",
            "}",
            "|",
            "&",
            "%",
            "%0",
            "\\",
            "'",
            "\"",
            " ",
            "\n",
            "\u{a0}",
            "f",
            ":",
            "function",
            ";",
            "_",
            "x",
            ":()",
            "{ :|:& }",
            "f()",
            "{ f|f& }",
            "function f ",
        ];
        let mut rng = crate::analysis::shell::model::testing::Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let n = rng.below(14);
            texts.push((0..n).map(|_| pieces[rng.below(pieces.len())]).collect());
        }
        let mut bombs = 0;
        for t in &texts {
            let b = is_fork_bomb(t);
            assert_eq!(b, fork_bomb_scan(t), "{t:?}");
            bombs += usize::from(b);
        }
        assert!(bombs > 300, "{bombs}");
    }

    #[test]
    fn fork_bombs() {
        assert!(is_fork_bomb(":(){ :|:& };:"));
        assert!(is_fork_bomb(":() { : | : & }; :"));
        assert!(is_fork_bomb("bomb(){ bomb|bomb& }; bomb"));
        assert!(is_fork_bomb("function f { f|f& }; f"));
        assert!(is_fork_bomb("%0|%0"));
        assert!(!is_fork_bomb("ls | grep x &"));
        assert!(!is_fork_bomb("a|a"));
        assert!(!is_fork_bomb("f(){ echo; }; a|a&"));
        let long = "x|x&".repeat(5000);
        assert!(!is_fork_bomb(&long));
        assert!(!is_fork_bomb("echo ':(){ :|:& };:' is a fork bomb"));
        // Any function that pipes or backgrounds calls to itself.
        assert!(is_fork_bomb("f(){ f|f& };f"));
        assert!(is_fork_bomb(".() { .|.& }; ."));
        assert!(is_fork_bomb("boom() { boom & boom; }; boom"));
        assert!(is_fork_bomb("function x() { x | x; }"));
        assert!(is_fork_bomb("g(){\n  g | g &\n}\ng"));
        assert!(!is_fork_bomb("f() { f; }"));
        assert!(!is_fork_bomb("f() { echo f | cat & }; f"));
        assert!(!is_fork_bomb("g() { echo hi; }; g | g &"));
        assert!(!is_fork_bomb("f() { \"f|f&\"; }"));
        assert_has(": | :", &DISK_OR_PERMISSION_WIPE);
        let v = verdict_with(":", true);
        assert!(v
            .findings
            .iter()
            .any(|f| f.id == DISK_OR_PERMISSION_WIPE.id));
    }
}
