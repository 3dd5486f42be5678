//! Disk and permission wipes (`disk-or-permission-wipe`, critical): filesystem formatting
//! (`mkfs*`, `mke2fs`, `mkswap`, `Format-Volume`, `format X:`, `diskutil eraseDisk`),
//! partition-table rewrites (`sgdisk --zap*`, `parted rm|mklabel`, `fdisk`/`sfdisk` on a
//! device, `diskpart`, `Clear-Disk`, `Remove-Partition`), device wipes (`wipefs -a`,
//! `blkdiscard`, `hdparm --security-erase`, `nvme format`, `badblocks -w`, `cryptsetup
//! luksFormat`), volume and pool destruction (`lvremove`, `zpool destroy`, `zfs destroy`),
//! backup deletion (`vssadmin delete shadows`, `wmic shadowcopy delete`, `wbadmin delete`,
//! `cipher /w`), recursive permission/ownership rewrites of broad or top-level trees (`chmod
//! -R`, `chown -R`, `chgrp -R`, `setfacl -R`, `icacls /t`, `takeown /r`; not hardening below
//! the home: a mode that keeps the owner's access and only takes from others, `chown -R $USER`),
//! world-writable modes on broad paths or recursively, and fork bombs. Permission, owner and
//! attribute changes on the gate's own files (`chattr`, `Set-Acl` too) are judged by
//! `gate::permissions`. Writes to raw devices (`dd of=/dev/sda`,
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
        "setfacl" => setfacl(c, out),
        "chattr" => chattr(c, out),
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
    if c.ps == Some("set-acl") {
        set_acl(c, out);
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

/// What the owner keeps after `mode`: (read, search/execute), starting from both; `None` when
/// the mode is not known here (a word built at run time, a mode copied from another class
/// such as `u=g`, anything malformed).
fn owner_after(mode: &str) -> Option<(bool, bool)> {
    if mode.is_empty() {
        return None;
    }
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        if mode.len() > 4 || mode.bytes().any(|b| b > b'7') {
            return None;
        }
        let d = mode.as_bytes();
        let owner = d
            .len()
            .checked_sub(3)
            .and_then(|i| d.get(i))
            .map_or(0, |b| b - b'0');
        return Some((owner & 4 != 0, owner & 1 != 0));
    }
    let (mut r, mut x) = (true, true);
    for clause in mode.split(',') {
        let at = clause.find(['+', '-', '='])?;
        let who = clause.get(..at)?;
        if !who.bytes().all(|b| b"ugoa".contains(&b)) {
            return None;
        }
        let owner = who.is_empty() || who.contains(['u', 'a']);
        let mut rest = clause.get(at..)?;
        while let Some(op) = rest.chars().next() {
            let end = rest
                .get(1..)?
                .find(['+', '-', '='])
                .map_or(rest.len(), |i| i + 1);
            let perms = rest.get(1..end)?;
            rest = rest.get(end..)?;
            if !perms.bytes().all(|b| b"rwxXst".contains(&b)) {
                return None;
            }
            if !owner {
                continue;
            }
            let (pr, px) = (perms.contains('r'), perms.contains(['x', 'X']));
            match op {
                '+' => (r, x) = (r || pr, x || px),
                '-' => (r, x) = (r && !pr, x && !px),
                _ => (r, x) = (pr, px),
            }
        }
    }
    Some((r, x))
}

/// The mode gives the group or others write access, or anything at all with `+` (numeric:
/// a group or other digit with write).
fn grants_others(mode: &str) -> bool {
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        let d = mode.as_bytes();
        let n = d.len();
        return [n.checked_sub(2), n.checked_sub(1)]
            .into_iter()
            .flatten()
            .filter_map(|i| d.get(i))
            .any(|b| (b.wrapping_sub(b'0')) & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let at = clause.find(['+', '-', '=']).unwrap_or(0);
        let who = clause.get(..at).unwrap_or("");
        who != "u" && (clause.contains('+') || clause.contains('=') && clause.contains('w'))
    })
}

/// The last segment of a path has an extension (`openclaw.json`, `index.js`): a file, which
/// its owner can read without the execute bit a directory needs.
fn file_like(path: &str) -> bool {
    let last = path
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("");
    last.get(1..).is_some_and(|t| t.contains('.'))
}

/// `chmod MODE` on `target` leaves its owner the access OpenClaw needs (read, and search on
/// a directory or under `-R`) and opens it to nobody else.
fn keeps_owner_access(mode: &str, target: &str, recursive: bool) -> bool {
    owner_after(mode).is_some_and(|(r, x)| r && (x || !recursive && file_like(target)))
        && !world_writable(mode)
}

/// What a numeric or symbolic `mode` does to `target` (a file or directory, not recursive),
/// for callers outside the shell rules (Code Mode's `fs.chmod`): (the owner keeps the access
/// OpenClaw needs and nobody else gains write, everyone may write, setuid/setgid).
pub fn mode_effects(mode: &str, target: &str) -> (bool, bool, bool) {
    (
        keeps_owner_access(mode, target, false),
        world_writable(mode),
        sets_id(mode),
    )
}

/// Inside the home, below it (`~/.ssh`, `$HOME/.openclaw`): a recursive mode change there that
/// keeps the owner's access and only takes from others (`chmod -R go-rwx ~/.ssh`, `chmod -R
/// 700 ~/.openclaw`) is hardening, not a wipe.
fn below_home(path: &str) -> bool {
    let n = paths::normalize(path);
    n.anchor == "~" && !n.escapes && !n.segments.is_empty()
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
        let hardening = |w: &&Word| {
            (!w.dynamic || super::only_home_expansion(&w.text))
                && !w.glob
                && keeps_owner_access(mode, &w.text, true)
                && !grants_others(mode)
                && below_home(&c.resolve(&w.text))
        };
        let wiped: Vec<&Word> = targets.iter().copied().filter(|w| !hardening(w)).collect();
        recursive_perm(c, out, "`chmod -R`", &wiped);
    }
    under_find_roots(c, out, "`chmod`", ww);
    for w in &targets {
        let harmless = !reference && keeps_owner_access(mode, &w.text, recursive);
        super::gate::permissions(c, out, &format!("`chmod {mode}`"), w, harmless);
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
    let mut owner = "";
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
            owner = t;
        } else {
            targets.push(w);
        }
    }
    out.not_read_only();
    if recursive {
        // Giving a tree in the home back to the user running the command (`sudo chown -R
        // $USER ~/.openclaw` after files were created as root) is a repair, not a wipe.
        let restores = |w: &&Word| {
            (!w.dynamic || super::only_home_expansion(&w.text))
                && !reference
                && owner_is_current_user(owner)
                && below_home(&c.resolve(&w.text))
        };
        let wiped: Vec<&Word> = targets.iter().copied().filter(|w| !restores(w)).collect();
        recursive_perm(c, out, &format!("`{} -R`", c.prog), &wiped);
    }
    // Handing the gate's files to another owner (`chown -R root ~/.openclaw/extensions`); the
    // group alone (`chgrp`, `chown :staff`) or the current user (`chown -R $USER`, after files
    // were created by `sudo`) leaves the owner's access.
    let harmless = c.prog == "chgrp" || !reference && owner_is_current_user(owner);
    for w in &targets {
        super::gate::permissions(c, out, &format!("`{}`", c.prog), w, harmless);
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

/// A `chown` owner spec whose user is the one running the command (`$USER`, `$(whoami)`,
/// `$(id -u)`, with any group), or no user at all (`:staff`).
fn owner_is_current_user(spec: &str) -> bool {
    let user = spec
        .split_once(':')
        .map_or(spec, |(u, _)| u)
        .trim_matches(['"', '\'']);
    user.is_empty()
        || matches!(
            user,
            "$USER"
                | "${USER}"
                | "$LOGNAME"
                | "${LOGNAME}"
                | "$UID"
                | "${UID}"
                | "$(whoami)"
                | "`whoami`"
                | "$(id -u)"
                | "$(id -un)"
                | "$(id -nu)"
                | "$(id -u -n)"
                | "`id -u`"
                | "`id -un`"
        )
}

/// `chattr [-RVf] [-v n] [-p n] +i|-i|=… files`: setting or clearing the immutable or
/// append-only attribute of the gate's files (`chattr +i ~/.openclaw/openclaw.json`) keeps
/// its user from changing them, or is the first step of replacing them.
fn chattr(c: &Call<'_, '_>, out: &mut Out) {
    // `-v n` and `-p n` take values; every other dashed letter is either one of `-R -V -f` or
    // an attribute being cleared (`-i`, `-ia`); `+i` and `=ai` stay positional words.
    let p = super::parse(c.args, "vp", &[]);
    let is_mode = |t: &str| {
        t.starts_with(['+', '='])
            && t.len() > 1
            && t.bytes().skip(1).all(|b| b.is_ascii_alphabetic())
    };
    let locks = p.opts.iter().any(|(n, _)| matches!(*n, "i" | "a"))
        || p.pos
            .iter()
            .any(|w| is_mode(&w.text) && w.text.contains(['i', 'a']));
    out.not_read_only();
    for w in p.pos.into_iter().filter(|w| !is_mode(&w.text)) {
        super::gate::permissions(c, out, "`chattr`", w, !locks);
    }
}

/// `setfacl`: recursive changes of broad trees are wipes; entries added to the gate's files
/// (`-m u::---`, `--set`, a restore) are `self-protection`; removing entries (`-x`, `-b`,
/// `-k`) is not.
fn setfacl(c: &Call<'_, '_>, out: &mut Out) {
    let p = super::parse(
        c.args,
        "mMxX",
        &[
            "modify",
            "modify-file",
            "set",
            "set-file",
            "remove",
            "remove-file",
        ],
    );
    let recursive = p.has("R") || p.has("recursive");
    let adds = p.opts.iter().any(|(n, _)| {
        matches!(
            *n,
            "m" | "M" | "modify" | "modify-file" | "set" | "set-file" | "restore"
        )
    });
    out.not_read_only();
    if recursive {
        recursive_perm(c, out, "`setfacl -R`", &p.pos);
    }
    for w in p.pos {
        super::gate::permissions(c, out, "`setfacl`", w, !adds);
    }
}

/// `Set-Acl [-Path] X [-AclObject] $acl`: an access list only known at run time, on the gate's
/// files, may lock its owner out.
fn set_acl(c: &Call<'_, '_>, out: &mut Out) {
    let mut skip = false;
    for w in c.args {
        let t = w.text.as_str();
        if skip {
            skip = false;
            continue;
        }
        if t.starts_with('-') {
            let lower = t.to_ascii_lowercase();
            skip = !lower.contains(':')
                && !matches!(lower.as_str(), "-passthru" | "-whatif" | "-confirm");
            if lower.starts_with("-p") || lower.starts_with("-l") {
                skip = false;
            }
            continue;
        }
        super::gate::permissions(c, out, "`Set-Acl`", w, false);
    }
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
    let mut locks_out = false;
    let mut cut = false;
    let mut grants = false;
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
            // Denials, another owner, or inheritance cut without a grant of its own may lock
            // the owner out of the gate's files (`/inheritance:r /grant:r %USERNAME%:F` and
            // `/remove Users` are the usual hardening).
            locks_out |= matches!(name, "deny" | "setowner");
            cut |= sw == "inheritance:r";
            grants |= name == "grant";
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
    let locks_out = locks_out || cut && !grants;
    out.not_read_only();
    if recursive && mutate {
        recursive_perm(c, out, &format!("`{} /t`", c.prog), &targets);
    }
    for w in &targets {
        super::gate::permissions(c, out, &format!("`{}`", c.prog), w, !locks_out);
    }
}

/// `takeown /f X [/a] [/r]`: recursive ownership changes of broad trees are wipes; handing the
/// gate's files to the Administrators group (`/a`) is `self-protection`, as `chown root` is
/// (taking them for the current user, the default, is not).
fn takeown(c: &Call<'_, '_>, out: &mut Out) {
    let mut recursive = false;
    let mut admins = false;
    let mut targets: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(w) = c.args.get(i) {
        i += 1;
        match w.text.to_ascii_lowercase().as_str() {
            "/r" => recursive = true,
            "/a" => admins = true,
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
    for w in targets {
        super::gate::permissions(c, out, "`takeown /a`", w, !admins);
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
    fn locking_the_gate_out_of_its_own_files() {
        for s in [
            "chmod 000 ~/.openclaw/extensions/human-gate",
            "chmod -R 000 ~/.openclaw/extensions",
            "chmod a-rwx ~/.openclaw/extensions/human-gate/dist/index.js",
            "chmod -r ~/.openclaw/openclaw.json",
            "chmod 600 ~/.openclaw",
            "chmod -R 600 ~/.openclaw/extensions",
            "chmod u=w,go= ~/.openclaw/openclaw.json",
            "chmod 777 ~/.openclaw/openclaw.json",
            "chmod --reference=/tmp/x ~/.openclaw/openclaw.json",
            "chmod $MODE ~/.openclaw/openclaw.json",
            "cd ~/.openclaw && chmod -R u= extensions",
            "sudo chattr +i ~/.openclaw/openclaw.json",
            "chattr -R +i ~/.openclaw/extensions/human-gate",
            "chattr -i ~/.openclaw/openclaw.json",
            "chattr -ia ~/.openclaw/openclaw.json",
            "chattr -v 3 +i ~/.openclaw/openclaw.json",
            "chattr -Rf +a ~/.openclaw/extensions/human-gate",
            "sudo chown -R root:root ~/.openclaw/extensions/human-gate",
            "chown nobody ~/.openclaw/openclaw.json",
            "setfacl -m u::--- ~/.openclaw/extensions/human-gate",
            "setfacl -Rm u::--- ~/.openclaw/extensions/human-gate",
            "setfacl --modify=u::--- ~/.openclaw/openclaw.json",
            "setfacl --set u::--- ~/.openclaw/openclaw.json",
            "icacls '%USERPROFILE%\\.openclaw\\extensions' /deny Everyone:F",
            "icacls 'C:\\Users\\me\\.openclaw' /setowner Administrators /t",
            "icacls '%USERPROFILE%\\.openclaw\\openclaw.json' /inheritance:r",
            "Set-Acl -Path '~/.openclaw/openclaw.json' -AclObject $acl",
            "takeown /f '%USERPROFILE%\\.openclaw\\openclaw.json' /a",
            "takeown /A /F 'C:\\Users\\me\\.openclaw\\extensions\\human-gate'",
        ] {
            assert_has(s, &SELF_PROTECTION);
            assert_critical(s);
        }
        for s in [
            "chmod 600 ~/.openclaw/openclaw.json",
            "chmod 400 ~/.openclaw/openclaw.json",
            "chmod 700 ~/.openclaw",
            "chmod -R go-rwx ~/.openclaw",
            "chmod go-r ~/.openclaw/openclaw.json",
            "chmod u+x ~/.openclaw/extensions/human-gate/bin/run.sh",
            "chmod 000 ~/.openclaw/workspace/tmp.txt",
            "chmod 000 ./openclaw-notes.txt",
            "sudo chown -R $USER:$USER ~/.openclaw",
            "chgrp staff ~/.openclaw/openclaw.json",
            "setfacl -b ~/.openclaw/openclaw.json",
            "icacls '%USERPROFILE%\\.openclaw\\openclaw.json' /inheritance:r /grant:r %USERNAME%:F",
            "lsattr ~/.openclaw/openclaw.json",
            "chattr +c ~/.openclaw/logs",
            "chattr -v 3 +c ~/.openclaw/logs",
            "takeown /f '%USERPROFILE%\\.openclaw\\openclaw.json'",
            "takeown /f .\\build /a /r",
            "setfacl -x u:bob ~/.openclaw/openclaw.json",
        ] {
            assert_not(s, &SELF_PROTECTION);
        }
        assert_eq!(owner_after("000"), Some((false, false)));
        assert_eq!(owner_after("u=rw,go="), Some((true, false)));
        assert_eq!(owner_after("a-rwx,u+rX"), Some((true, true)));
        assert_eq!(owner_after("u=g"), None);
        assert!(file_like("~/.openclaw/openclaw.json") && !file_like("~/.openclaw"));
    }

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
        // Hardening in the home is no wipe.
        for s in [
            "chmod -R 700 ~/.ssh",
            "chmod -R go-rwx ~/.openclaw",
            "chmod -R og= $HOME/.gnupg",
            "sudo chown -R $USER:$USER ~/.openclaw",
            "sudo chown -R $(whoami) ~/.npm",
        ] {
            assert_not(s, &DISK_OR_PERMISSION_WIPE);
        }
        for s in [
            "chmod -R 700 ~",
            "chmod -R go+w ~/.ssh",
            "chown -R alice ~/.config",
        ] {
            assert_has(s, &DISK_OR_PERMISSION_WIPE);
        }
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
