//! Lexical path classification shared by every analyzer (shell, Code Mode, file mutations,
//! reads): is a target a root, a home, a system directory, a credential, the gate's own
//! configuration, or a project-scoped location?
//!
//! Purely lexical: no filesystem access, no cwd (the host gives none authoritatively), no
//! variable values. `~`, `$HOME`, `${HOME}`, `%USERPROFILE%` and `$env:USERPROFILE` are homes;
//! any other unresolved expansion makes a target unverifiable. `..` is resolved lexically and a
//! relative path that climbs out of the working directory is treated as unverifiable.
//!
//! Windows spellings resolve to the place Windows opens: verbatim and device prefixes
//! (`\\?\C:\`, `\\.\`, `\??\`, `\\?\UNC\`), administrative shares (`\\host\C$\` is drive
//! `C:`), NTFS stream suffixes (`x::$DATA`), trailing dots and spaces of a segment, and 8.3
//! short names of protected names (`SSH~1`, `OPENCL~1`, `OPENC~12`, hashed `OP1A2B~1.JSO`;
//! one that may stand for several, `GI7E21~1`, is read as each: [`any_reading`]); macOS
//! `/private/etc`, `/private/var`, `/private/tmp` are `/etc`, `/var`, `/tmp`.
//!
//! `$OPENCLAW_CONFIG_PATH` and `$OPENCLAW_STATE_DIR` (any shell's spelling) name the live
//! configuration and state directory wherever they are, so they read as the default
//! `~/.openclaw/openclaw.json` and `~/.openclaw`.
//!
//! A relative path that climbs out of its working directory into an entry of OpenClaw's state
//! directory (`../extensions/…` from the default workspace `~/.openclaw/workspace`) is the
//! gate's own ([`climbs_into_state_dir`]): the host does not say where the workspace is, so
//! the default layout is assumed.

/// How risky a target of a recursive delete or bulk permission change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breadth {
    /// `/`, a drive root, a home, a system directory or the working directory itself
    /// (`.`, `*`, `./*`), or anything whose value is not known statically.
    Broad(&'static str),
    /// Strictly inside the working directory or inside a non-system absolute directory.
    Scoped,
}

/// A lexically normalized path: forward slashes, no `.` segments, `..` resolved where possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormPath {
    /// The anchor: "/" (absolute), "~" (home), "c:" (drive, lowercase), or "" (relative).
    pub anchor: String,
    pub segments: Vec<String>,
    /// A relative path climbed above its start (`../x`), or `..` went above an anchor.
    pub escapes: bool,
}

const HOME_PREFIXES: [&str; 10] = [
    "~",
    "$HOME",
    "${HOME}",
    "%USERPROFILE%",
    "%HOMEDRIVE%%HOMEPATH%",
    "%HOMEPATH%",
    "$env:USERPROFILE",
    "$env:HOME",
    "$env:HOMEPATH",
    "${env:USERPROFILE}",
];

/// Windows per-user directories inside the home: (prefix, path below the home).
const HOME_SUBDIRS: [(&str, &str); 6] = [
    ("%APPDATA%", "/AppData/Roaming"),
    ("%LOCALAPPDATA%", "/AppData/Local"),
    ("$env:APPDATA", "/AppData/Roaming"),
    ("$env:LOCALAPPDATA", "/AppData/Local"),
    ("${env:APPDATA}", "/AppData/Roaming"),
    ("${env:LOCALAPPDATA}", "/AppData/Local"),
];

/// `s` is `prefix` alone or `prefix/…` (ASCII case-insensitive); the reference forms use it.
#[cfg(test)]
fn anchored_at(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        && (s.len() == prefix.len() || s.get(prefix.len()..prefix.len() + 1) == Some("/"))
}

/// Top-level directories of a Unix system (and a few Windows ones, lowercase).
const SYSTEM_DIRS: [&str; 24] = [
    "bin",
    "boot",
    "dev",
    "etc",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "home",
    "users",
    "system",
    "library",
    "applications",
    "windows",
    "program files",
];

impl NormPath {
    /// The normalized path as text: `/etc/hosts`, `~/.ssh/id_rsa`, `c:/Users/me`, `src/a.rs`,
    /// an escaping relative path starting with `../`.
    pub fn render(&self) -> String {
        let body = self.segments.join("/");
        match self.anchor.as_str() {
            "" if self.escapes => format!("../{body}"),
            "" if body.is_empty() => ".".to_owned(),
            "" => body,
            "/" => format!("/{body}"),
            a if body.is_empty() => format!("{a}/"),
            a => format!("{a}/{body}"),
        }
    }
}

/// Normalizes a path lexically. Backslashes are separators (Windows forms).
pub fn normalize(raw: &str) -> NormPath {
    let (anchor, below, rest) = split_anchor(raw.trim());
    let mut segments: Vec<String> = Vec::with_capacity(separators(rest) + 3);
    let mut escapes = false;
    for_each_raw_segment(below, rest, false, |seg| match canon(seg) {
        "" | "." => {}
        ".." => {
            if segments.pop().is_none() {
                escapes = true;
            }
        }
        other => segments.push(other.to_owned()),
    });
    if anchor == "/" && private_alias(&segments) {
        segments.remove(0);
    }
    NormPath {
        anchor: anchor.to_owned(),
        segments,
        escapes,
    }
}

/// How many `/` and `\\` a text has.
fn separators(text: &str) -> usize {
    text.bytes().filter(|&b| is_sep(b)).count()
}

/// Calls `f` with each segment before `.`/`..` are resolved: those a home form stands for,
/// then `rest` split at `/` and `\\` (a plain byte loop: paths are short, and an iterator
/// or searcher set up per path cost more than the scan).
fn for_each_raw_segment<'a>(
    below: &'static str,
    rest: &'a str,
    lower: bool,
    mut f: impl FnMut(&'a str),
) {
    if !below.is_empty() {
        for x in below.split('/') {
            f(static_segment(x, lower));
        }
    }
    let mut start = 0;
    for (i, &c) in rest.as_bytes().iter().enumerate() {
        if is_sep(c) {
            f(rest.get(start..i).unwrap_or(""));
            start = i + 1;
        }
    }
    f(rest.get(start..).unwrap_or(""));
}

/// [`normalize`] borrowing its segments from the text: one allocation (the segment list)
/// instead of one per segment and per rewritten form. Splitting at `/` and `\` alike is
/// splitting the text with every `\` made a `/`, which [`normalize`] did by copying it.
#[derive(Debug)]
pub(crate) struct Norm<'a> {
    /// `/`, `~`, a lowercase drive (`c:`) or `""`, as [`NormPath::anchor`].
    pub(crate) anchor: &'static str,
    pub(crate) segments: Vec<&'a str>,
    pub(crate) escapes: bool,
}

impl Norm<'_> {
    /// [`NormPath::render`] of this path.
    pub(crate) fn render(&self) -> String {
        let len = self.segments.iter().map(|s| s.len() + 1).sum::<usize>();
        let mut out = String::with_capacity(len + 3);
        match self.anchor {
            "" if self.escapes => out.push_str("../"),
            "" if self.segments.is_empty() => out.push('.'),
            "" => {}
            "/" => out.push('/'),
            a => {
                out.push_str(a);
                out.push('/');
            }
        }
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            out.push_str(s);
        }
        out
    }
}

/// The anchors of drive letters (lowercase), indexed by letter.
const DRIVES: [&str; 26] = [
    "a:", "b:", "c:", "d:", "e:", "f:", "g:", "h:", "i:", "j:", "k:", "l:", "m:", "n:", "o:", "p:",
    "q:", "r:", "s:", "t:", "u:", "v:", "w:", "x:", "y:", "z:",
];

fn is_sep(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

/// `anchored_at` where `\` is a separator too.
fn anchored_at_sep(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        && s.as_bytes().get(prefix.len()).is_none_or(|&b| is_sep(b))
}

/// The anchor of a trimmed path, the segments its home form stands for (`%APPDATA%` is
/// `AppData/Roaming` below the home) and the rest of the text to split.
fn split_anchor(s: &str) -> (&'static str, &'static str, &str) {
    if let Some((anchor, rest)) = windows_prefix(s) {
        return (anchor, "", rest);
    }
    // Every home form starts with `~`, `$` or `%`.
    let home_form = s.starts_with(['~', '$', '%']);
    for h in HOME_PREFIXES.iter().take_while(|_| home_form) {
        if anchored_at_sep(s, h) {
            return ("~", "", s.get(h.len()..).unwrap_or(""));
        }
    }
    for (h, below) in HOME_SUBDIRS.iter().take_while(|_| home_form) {
        if anchored_at_sep(s, h) {
            return ("~", below, s.get(h.len()..).unwrap_or(""));
        }
    }
    let b = s.as_bytes();
    match (b.first(), b.get(1)) {
        (Some(&d), Some(&b':')) if d.is_ascii_alphabetic() => {
            let i = usize::from(d.to_ascii_lowercase() - b'a');
            (
                DRIVES.get(i).copied().unwrap_or(""),
                "",
                s.get(2..).unwrap_or(""),
            )
        }
        (Some(&f), _) if is_sep(f) => ("/", "", s),
        (Some(b'~'), _) => {
            // ~user/...: another user's home.
            let rest = s.get(1..).unwrap_or("");
            let after = rest
                .bytes()
                .position(is_sep)
                .and_then(|i| rest.get(i + 1..))
                .unwrap_or("");
            ("~", "", after)
        }
        _ => ("", "", s),
    }
}

/// Windows spellings of a local path behind a prefix: the verbatim and device forms
/// (`\\?\C:\…`, `\\.\C:\…`, `\??\C:\…`, `\\?\UNC\host\share\…`) and an administrative
/// share (`\\host\C$\…`, which is drive `C:` of that machine): (anchor, rest to split).
/// Other UNC paths (`\\server\share\…`) are `None`: absolute, below `/`.
fn windows_prefix(s: &str) -> Option<(&'static str, &str)> {
    let b = s.as_bytes();
    if !(b.len() > 3 && b.first().is_some_and(|&c| is_sep(c))) {
        return None;
    }
    let mut rest = s;
    // `\\?\`, `\\.\`, `\??\` (also with forward slashes), repeated.
    loop {
        let r = rest.as_bytes();
        let prefixed = matches!(
            (r.first(), r.get(1), r.get(2), r.get(3)),
            (Some(&a), Some(&c), Some(b'?' | b'.'), Some(&d)) if is_sep(a) && is_sep(c) && is_sep(d)
        ) || matches!(
            (r.first(), r.get(1), r.get(2), r.get(3)),
            (Some(&a), Some(b'?'), Some(b'?'), Some(&d)) if is_sep(a) && is_sep(d)
        );
        if !prefixed {
            break;
        }
        rest = rest.get(4..)?;
    }
    let verbatim = rest.len() < s.len();
    let r = rest.as_bytes();
    if verbatim {
        if let (Some(&d), Some(b':')) = (r.first(), r.get(1)) {
            if d.is_ascii_alphabetic() {
                let i = usize::from(d.to_ascii_lowercase() - b'a');
                return Some((DRIVES.get(i).copied().unwrap_or(""), rest.get(2..)?));
            }
        }
        // `\\?\UNC\host\share\…`
        if r.len() > 4
            && rest.get(..3).is_some_and(|u| u.eq_ignore_ascii_case("unc"))
            && r.get(3).is_some_and(|&c| is_sep(c))
        {
            rest = rest.get(4..)?;
        } else {
            return Some(("/", rest));
        }
    } else if r.get(1).is_some_and(|&c| is_sep(c)) {
        // `\\host\…`
        rest = rest.get(2..)?;
    } else {
        return None;
    }
    // `host\share\…`: an administrative share `X$` is drive X.
    let host_end = rest.bytes().position(is_sep)?;
    let after = rest.get(host_end + 1..)?;
    let a = after.as_bytes();
    if let (Some(&d), Some(b'$')) = (a.first(), a.get(1)) {
        if d.is_ascii_alphabetic() && a.get(2).is_none_or(|&c| is_sep(c)) {
            let i = usize::from(d.to_ascii_lowercase() - b'a');
            return Some((DRIVES.get(i).copied().unwrap_or(""), after.get(2..)?));
        }
    }
    verbatim.then_some(("/", rest))
}

/// `/private/etc`, `/private/var`, `/private/tmp`: on macOS `/etc`, `/var` and `/tmp` are
/// links to these, so they are the same places.
fn private_alias<S: AsRef<str>>(segments: &[S]) -> bool {
    segments
        .first()
        .is_some_and(|s| s.as_ref().eq_ignore_ascii_case("private"))
        && segments.get(1).is_some_and(|s| {
            let s = s.as_ref();
            s.eq_ignore_ascii_case("etc")
                || s.eq_ignore_ascii_case("var")
                || s.eq_ignore_ascii_case("tmp")
        })
}

/// Protected names Windows may be given in their 8.3 short form (`SSH~1` for `.ssh`,
/// `OPENCL~1` for `.openclaw`, `OPENCL~1.JSO` for `openclaw.json`, `GIT~1` for `.git`), and
/// the directories on the way to protected places (`DOCUME~1` for `Documents`, `MICROS~1`
/// for `Microsoft`, `EXTENS~1` for OpenClaw's `extensions`).
const SHORT_NAMED: [&str; 42] = [
    ".ssh",
    ".openclaw",
    "openclaw.json",
    ".git",
    ".gitconfig",
    ".git-credentials",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".config",
    ".aws",
    ".kube",
    ".docker",
    ".gnupg",
    ".password-store",
    ".npmrc",
    ".netrc",
    ".pgpass",
    ".pypirc",
    ".env",
    "authorized_keys",
    "known_hosts",
    "credentials",
    "start menu",
    "windowspowershell",
    "powershell",
    "program files",
    "programdata",
    "microsoft.powershell_profile.ps1",
    "documents",
    "microsoft",
    "windowsapps",
    "extensions",
    "exec-approvals.json",
    ".local",
    ".oh-my-zsh",
    ".cargo",
];

/// One path segment as Windows resolves it: an NTFS stream suffix dropped (`x::$DATA`,
/// `x:stream`, `dir::$INDEX_ALLOCATION`), trailing dots and spaces dropped (`sudoers.`),
/// and an 8.3 short name of a protected name ([`SHORT_NAMED`]) read as that name. Segments
/// of dots only (`.`, `..`) are left as they are. Most segments are returned at once.
fn canon(seg: &str) -> &str {
    let b = seg.as_bytes();
    match b.last() {
        None => return seg,
        Some(b'.' | b' ') => {}
        Some(_) if memchr::memchr2(b':', b'~', b).is_none() => return seg,
        Some(_) => {}
    }
    let s = seg_core(seg);
    short_name(s).unwrap_or(s)
}

/// A segment without what Windows drops when it opens it: an NTFS stream suffix (`x::$DATA`)
/// and trailing dots and spaces (segments of dots only are left as they are).
fn seg_core(seg: &str) -> &str {
    let mut s = seg;
    if let Some(i) = memchr::memchr(b':', seg.as_bytes()) {
        s = s.get(..i).unwrap_or(s);
    }
    if !s.bytes().all(|c| c == b'.') {
        s = s.trim_end_matches(['.', ' ']);
    }
    s
}

/// The parts of an 8.3 short name `PREFIX~N[.EXT]` (any case): the prefix and the extension.
/// The prefix has no dot or space, the number 1 to 6 digits, both together at most 8
/// characters with the `~`, the extension at most 3.
fn short_parts(s: &str) -> Option<(&str, &str)> {
    let tilde = memchr::memchr(b'~', s.as_bytes())?;
    let prefix = s.get(..tilde)?;
    let after = s.get(tilde + 1..)?;
    let (num, ext) = after.split_once('.').unwrap_or((after, ""));
    let ok = !prefix.is_empty()
        && !prefix.contains(['.', ' '])
        && !num.is_empty()
        && num.bytes().all(|c| c.is_ascii_digit())
        && prefix.len() + 1 + num.len() <= 8
        && ext.len() <= 3;
    ok.then_some((prefix, ext))
}

/// Whether a short name with `prefix` and `ext` may stand for `long`. Windows keeps the first
/// characters of the name without its dots and spaces (six before `~1`, fewer before a longer
/// number: `OPENC~12`), or, once several names share those, the first two and four hex
/// digits of a hash (`OP1A2B~1`); the extension is the long one's first three characters.
/// Any prefix of the name counts, so every number and hash is covered.
fn short_may_be(prefix: &str, ext: &str, long: &str) -> bool {
    let (base, long_ext) = match long.rfind('.') {
        Some(i) if i > 0 => (long.get(..i).unwrap_or(""), long.get(i + 1..).unwrap_or("")),
        _ => (long, ""),
    };
    let want_ext = long_ext.get(..long_ext.len().min(3)).unwrap_or("");
    if !ext.eq_ignore_ascii_case(want_ext) {
        return false;
    }
    let starts = |head: &[u8]| {
        let mut squeezed = base.bytes().filter(|&c| c != b'.' && c != b' ');
        head.iter()
            .all(|&h| squeezed.next() == Some(h.to_ascii_lowercase()))
    };
    let p = prefix.as_bytes();
    let hashed = p.len() == 6
        && p.get(2..)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        && starts(p.get(..2).unwrap_or(&[]));
    hashed || starts(p)
}

/// The protected names an 8.3 short name may stand for, in [`SHORT_NAMED`]'s order.
fn short_names(s: &str) -> impl Iterator<Item = &'static str> + '_ {
    let parts = short_parts(s);
    SHORT_NAMED
        .iter()
        .copied()
        .filter(move |long| parts.is_some_and(|(p, e)| short_may_be(p, e, long)))
}

/// The first of [`short_names`]: the reading one normalization takes ([`any_reading`] tries
/// the others).
fn short_name(s: &str) -> Option<&'static str> {
    short_names(s).next()
}

/// Readings of one path [`any_reading`] tries, at most.
const MAX_READINGS: usize = 16;

/// True when `f` holds for a reading of `raw`: the path itself, and when a segment is an 8.3
/// short name that may stand for several protected names (`GI7E21~1`: `.git`, `.gitconfig`
/// or `.git-credentials`; `BA3C4D~1`: any `.bash*` file), the path with that segment spelled
/// out as each of them (at most [`MAX_READINGS`] readings). A path without a `~` before a
/// digit is read once, as it is.
pub(crate) fn any_reading(raw: &str, mut f: impl FnMut(&str) -> bool) -> bool {
    let b = raw.as_bytes();
    let short = memchr::memchr_iter(b'~', b).any(|i| b.get(i + 1).is_some_and(u8::is_ascii_digit));
    if f(raw) {
        return true;
    }
    if !short {
        return false;
    }
    let mut readings = vec![String::with_capacity(raw.len() + 16)];
    let mut start = 0;
    for end in memchr::memchr2_iter(b'/', b'\\', b).chain(std::iter::once(b.len())) {
        let seg = raw.get(start..end).unwrap_or("");
        let sep = raw.get(end..end + 1).unwrap_or("");
        let longs: Vec<&str> = short_names(seg_core(seg)).collect();
        if longs.len() > 1 && readings.len() * longs.len() <= MAX_READINGS {
            readings = readings
                .iter()
                .flat_map(|r| longs.iter().map(move |l| format!("{r}{l}{sep}")))
                .collect();
        } else {
            for r in &mut readings {
                r.push_str(seg);
                r.push_str(sep);
            }
        }
        start = end + 1;
    }
    readings.iter().any(|r| f(r))
}

/// A home-subdirectory segment as written in [`HOME_SUBDIRS`], or lowercase.
fn static_segment(seg: &'static str, lower: bool) -> &'static str {
    match seg {
        "AppData" if lower => "appdata",
        "Roaming" if lower => "roaming",
        "Local" if lower => "local",
        other => other,
    }
}

/// [`normalize`], borrowed. `lower`: the text is already ASCII-lowercase, so the segments a
/// home form stands for are given lowercase too (see [`lowered`]).
pub(crate) fn norm(raw: &str, lower: bool) -> Norm<'_> {
    let s = raw.trim();
    let (anchor, below, rest) = split_anchor(s);
    let mut segments: Vec<&str> = Vec::with_capacity(separators(rest) + 3);
    let mut escapes = false;
    for_each_raw_segment(below, rest, lower, |seg| match canon(seg) {
        "" | "." => {}
        ".." => {
            if segments.pop().is_none() {
                escapes = true;
            }
        }
        other => segments.push(other),
    });
    if anchor == "/" && private_alias(&segments) {
        segments.remove(0);
    }
    Norm {
        anchor,
        segments,
        escapes,
    }
}

/// [`norm`] of the ASCII-lowercase form of `raw` (copied only when it has an uppercase
/// letter): the segments equal [`normalize`]'s lowercased, with the same anchor and
/// `escapes` (anchors are found ignoring case and drives are lowercase anyway).
pub(crate) fn lowered<R>(raw: &str, f: impl FnOnce(&Norm<'_>) -> R) -> R {
    let t = raw.trim();
    // A long text is copied lowercase without looking first (the copy is a vectorized loop;
    // a byte-by-byte search for an uppercase letter is not).
    if t.len() > 64 || t.bytes().any(|b| b.is_ascii_uppercase()) {
        let low = t.to_ascii_lowercase();
        f(&norm(&low, true))
    } else {
        f(&norm(t, true))
    }
}

fn has_unresolved_expansion(raw: &str) -> bool {
    // Backslashes only matter as separators after a home form: `$`, `` ` ``, `%`, `!` are
    // counted the same with them as with the slashes they would become.
    let t = raw.trim();
    let s = HOME_PREFIXES
        .iter()
        .copied()
        .chain(HOME_SUBDIRS.iter().map(|(h, _)| *h))
        .find(|h| anchored_at_sep(t, h))
        .map_or(t, |h| t.get(h.len()..).unwrap_or(""));
    let b = s.as_bytes();
    memchr::memchr3(b'$', b'`', b'%', b).is_some() || memchr::memchr_iter(b'!', b).nth(1).is_some()
}

/// Classifies the target of a recursive delete / recursive chmod-chown.
/// `dynamic` and `glob` come from the lexer's word flags.
pub fn delete_breadth(raw: &str, dynamic: bool, glob: bool) -> Breadth {
    if dynamic || has_unresolved_expansion(raw) {
        return Breadth::Broad("a target only known at run time");
    }
    let p = norm(raw, false);
    if p.escapes {
        return Breadth::Broad("a target outside the working directory");
    }
    let first = p.segments.first().map(|s| s.to_ascii_lowercase());
    // Segments that are only wildcards (`*`, `.*`, `?`), bracket classes counted as one
    // wildcard when the word is a glob (`[a-z]*`, `.[!.]*`: everything, or every dot-file).
    let all_glob = |segs: &[&str]| segs.iter().all(|s| only_wildcards(s, glob));
    match p.anchor {
        "/" => {
            if p.segments.is_empty() || all_glob(&p.segments) {
                return Breadth::Broad("the filesystem root");
            }
            let Some(first) = first else {
                return Breadth::Broad("the filesystem root");
            };
            if SYSTEM_DIRS.contains(&first.as_str()) {
                // /home/u/project/build is scoped; /home, /home/u, /etc/x, /usr/lib are not.
                let user_home = matches!(first.as_str(), "home" | "users");
                if user_home
                    && p.segments.len() >= 3
                    && !all_glob(p.segments.get(2..).unwrap_or(&[]))
                {
                    return Breadth::Scoped;
                }
                if first == "var"
                    && p.segments.get(1).is_some_and(|s| *s == "tmp")
                    && p.segments.len() >= 3
                {
                    return Breadth::Scoped;
                }
                return Breadth::Broad("a system or home directory");
            }
            if first == "tmp"
                && (p.segments.len() == 1 || all_glob(p.segments.get(1..).unwrap_or(&[])))
            {
                return Breadth::Broad("the temporary directory itself");
            }
            if p.segments.len() == 1 {
                // `/mnt`, `/media`, `/data`, `/w`: a top-level directory (like `C:\w`).
                return Breadth::Broad("a top-level directory");
            }
            Breadth::Scoped
        }
        "~" => {
            if p.segments.is_empty() || all_glob(&p.segments) {
                return Breadth::Broad("the home directory");
            }
            // Windows per-user application data (`%APPDATA%`, `%LOCALAPPDATA%`).
            if p.segments.len() <= 2 && first.as_deref() == Some("appdata") {
                return Breadth::Broad("the application data directory");
            }
            // Dot-directories directly in home hold credentials and configuration.
            if p.segments.len() == 1 && first.as_deref().is_some_and(|f| f.starts_with('.')) {
                return Breadth::Broad("a configuration directory in home");
            }
            if p.segments.len() == 1
                && matches!(
                    first.as_deref(),
                    Some(
                        "documents"
                            | "desktop"
                            | "downloads"
                            | "pictures"
                            | "projects"
                            | "src"
                            | "code"
                            | "work"
                            | "library"
                    )
                )
            {
                return Breadth::Broad("a top-level home directory");
            }
            Breadth::Scoped
        }
        "" => {
            if p.segments.is_empty() || all_glob(&p.segments) {
                return Breadth::Broad("the working directory itself");
            }
            if glob
                && p.segments.len() == 1
                && p.segments.first().is_some_and(|s| s.starts_with('*'))
            {
                return Breadth::Broad("everything in the working directory");
            }
            Breadth::Scoped
        }
        _ => {
            // Drive: c:/ or c:/windows etc.
            if p.segments.is_empty() || all_glob(&p.segments) {
                return Breadth::Broad("a drive root");
            }
            let first = first.unwrap_or_default();
            if p.segments.len() == 1
                || SYSTEM_DIRS.contains(&first.as_str())
                    && !(first == "users" && p.segments.len() >= 3)
            {
                return Breadth::Broad("a system or top-level directory");
            }
            Breadth::Scoped
        }
    }
}

/// A path segment made only of `*`, `?`, `.` and (in a glob) `[…]` classes.
pub(crate) fn only_wildcards(s: &str, glob: bool) -> bool {
    let mut in_class = false;
    for c in s.chars() {
        match c {
            '[' if glob && !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '*' | '?' | '.' => {}
            _ => return false,
        }
    }
    !in_class
}

/// A URL (`scheme://…`, other than `file://`): a network address, never a local path.
pub fn is_url(raw: &str) -> bool {
    // The scheme is what precedes the first `://` (found from each `:`, no substring
    // searcher set up per call).
    let b = raw.as_bytes();
    let sep = memchr::memchr_iter(b':', b)
        .find(|&i| b.get(i + 1..).is_some_and(|r| r.starts_with(b"//")));
    sep.and_then(|i| raw.get(..i)).is_some_and(|scheme| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !scheme.eq_ignore_ascii_case("file")
    })
}

/// Paths whose content is a credential: reading them hands the secret to the model.
pub fn is_credential_path(raw: &str) -> bool {
    if is_url(raw) {
        return false;
    }
    any_reading(raw, |t| {
        lowered(t, |p| {
            credential_in(p.anchor, &p.segments)
                // `../credentials/oauth.json` from the default workspace.
                || (p.anchor.is_empty() && p.escapes && climbed_state_secret(&p.segments))
        })
    })
}

/// A relative path that climbs out of its working directory, read from where it may land:
/// `/…` and `~/…` (a project in home is one `..` from `~/.bashrc`). `None` for any other path.
pub fn climb_rooted(raw: &str) -> Option<[String; 2]> {
    let n = norm(raw, false);
    (n.anchor.is_empty() && n.escapes).then(|| {
        let joined = n.segments.join("/");
        [format!("/{joined}"), format!("~/{joined}")]
    })
}

/// What a read tool must not hand the model without asking: a credential path
/// ([`is_credential_path`]) or a shell or REPL history file ([`history_name`]), in one
/// normalization.
pub fn is_secret_to_read(raw: &str) -> bool {
    if is_url(raw) {
        return false;
    }
    any_reading(raw, |t| {
        lowered(t, |p| {
            credential_in(p.anchor, &p.segments)
                || history_name(p.segments.last().copied().unwrap_or(""))
                // Climbing out may land at the root (`../../../../proc/self/environ`), or in
                // OpenClaw's state directory (`../credentials/oauth.json` from the workspace).
                || (p.anchor.is_empty()
                    && p.escapes
                    && (credential_in("/", &p.segments) || climbed_state_secret(&p.segments)))
        })
    })
}

/// A relative path climbing out of the workspace ([`climbs_into_state_dir`]) to one of
/// OpenClaw's secret stores: the segments read as if below `.openclaw`.
fn climbed_state_secret(lower: &[&str]) -> bool {
    if !lower.first().is_some_and(|f| STATE_ENTRIES.contains(f)) {
        return false;
    }
    let mut below = Vec::with_capacity(lower.len() + 1);
    below.push(".openclaw");
    below.extend_from_slice(lower);
    is_openclaw_secret(&below)
}

/// Shell and REPL history files (lowercase name): commands typed with tokens and passwords in
/// them. Reading one hands those to the model; writing or deleting one is history tampering
/// (the shell rules' `system::is_history_file`), not a credential write (so not in
/// [`credential_in`]).
pub fn history_name(name: &str) -> bool {
    matches!(
        name,
        ".bash_history"
            | ".zsh_history"
            | ".zhistory"
            | ".sh_history"
            | ".ash_history"
            | ".ksh_history"
            | "fish_history"
            | ".history"
            | ".python_history"
            | ".node_repl_history"
            | ".psql_history"
            | ".mysql_history"
            | ".sqlite_history"
            | ".rediscli_history"
            | ".irb_history"
            | ".lesshst"
            | ".viminfo"
            | ".wget-hsts"
            | "consolehost_history.txt"
    )
}

/// [`is_credential_path`] of a normalized path with lowercase segments.
pub(crate) fn credential_in(anchor: &str, lower: &[&str]) -> bool {
    let name = lower.last().copied().unwrap_or("");
    let parent = lower
        .len()
        .checked_sub(2)
        .and_then(|i| lower.get(i))
        .copied()
        .unwrap_or("");
    let in_dir = |d: &str| lower.contains(&d);
    // Private keys and key stores.
    if (name.starts_with("id_") && !name.ends_with(".pub"))
        || name.ends_with(".pem")
        || name.ends_with(".key")
        || name.ends_with(".p12")
        || name.ends_with(".pfx")
        || name.ends_with(".keystore")
        || name.ends_with(".jks")
        || name == "private.key"
    {
        return true;
    }
    // Dotenv files (but not .env.example / .env.sample / .env.template).
    if (name == ".env" || name.starts_with(".env.") || name.ends_with(".env"))
        && !name.ends_with(".example")
        && !name.ends_with(".sample")
        && !name.ends_with(".template")
        && !name.ends_with(".dist")
    {
        return true;
    }
    if more_secrets(anchor, lower, name, parent) {
        return true;
    }
    if matches!(
        name,
        ".netrc"
            | "_netrc"
            | ".pgpass"
            | ".npmrc"
            | ".pypirc"
            | ".git-credentials"
            | "credentials"
            | "credentials.json"
            | "credentials.db"
            | "access_tokens.db"
            | "secrets.yaml"
            | "secrets.yml"
            | "secrets.json"
            | "shadow"
            | "gshadow"
            | "master.key"
            | "auth.json"
            | "hosts.yml"
            | "kubeconfig"
            | "token"
            | ".vault-token"
            | "service-account.json"
            | "keyring"
    ) {
        if name == "hosts.yml" {
            return parent == "gh";
        }
        // Password hashes live in a system's `etc` (also a mounted root's); a workspace's
        // `tests/fixtures/shadow` is project data.
        if name == "shadow" || name == "gshadow" {
            return in_system_etc(anchor, lower);
        }
        if name == "token" || name == "keyring" {
            return in_dir(".config") || in_dir(".docker") || parent.starts_with('.');
        }
        if name == "auth.json" {
            return in_dir(".codex")
                || in_dir(".docker")
                || in_dir(".openclaw")
                || parent.starts_with('.');
        }
        return true;
    }
    if parent == ".ssh" && !name.ends_with(".pub") && name != "known_hosts" && name != "config" {
        return true;
    }
    if is_cloud_credential(lower, name, parent) || is_local_secret_store(lower, name, parent) {
        return true;
    }
    if (parent == ".aws" && matches!(name, "credentials" | "config"))
        || (parent == ".kube" && name == "config")
        || (parent == ".docker" && name == "config.json")
    {
        return true;
    }
    if in_dir(".gnupg")
        || in_dir(".password-store")
        || (in_dir("gcloud") && (name.ends_with(".json") || name.ends_with(".db")))
    {
        return true;
    }
    // Process environments: /proc/<pid>/environ holds every secret variable.
    if anchor == "/"
        && lower.len() == 3
        && lower.first().is_some_and(|s| *s == "proc")
        && name == "environ"
    {
        return true;
    }
    is_openclaw_secret(lower)
}

/// Secrets found by the session 13 red team: direnv files (`.envrc`, which export them),
/// PuTTY keys, SSH host keys, MySQL option files with passwords, Cargo's registry token, AWS
/// SSO and CLI session caches, GNOME keyrings, Safari cookies, any process's or thread's
/// environment under `/proc` (also through `/proc/self/root`), and container secrets
/// (`/run/secrets`, Kubernetes service account tokens under `/var/run/secrets`).
fn more_secrets(anchor: &str, lower: &[&str], name: &str, parent: &str) -> bool {
    if matches!(
        name,
        ".envrc" | ".my.cnf" | ".mylogin.cnf" | "credentials.toml"
    ) || name.ends_with(".ppk")
        || name.ends_with(".binarycookies")
        || (name.starts_with("ssh_host_") && name.ends_with("_key"))
        || (parent == "keyrings" && name.ends_with(".keyring"))
    {
        return true;
    }
    // (The name first: the segment scan is the costly part on a long word.)
    if name.ends_with(".json") {
        if let Some(i) = lower.iter().position(|s| *s == ".aws") {
            if matches!(lower.get(i + 1..), Some(["sso" | "cli", "cache", _])) {
                return true;
            }
        }
    }
    anchor == "/"
        && matches!(
            lower,
            ["proc", .., "environ"] | ["run", "secrets", _, ..] | ["var", "run", "secrets", _, ..]
        )
}

/// Files on this machine that hold secrets though they are not credential files by name:
/// Terraform state (resource passwords and keys in plain text), the macOS keychain, browsers'
/// saved logins and cookies, and cryptocurrency wallets. `lower`: lowercase segments, `name`
/// the last. (Shell histories hold typed secrets too, but writing them is history tampering,
/// not a credential write: they are not here.)
fn is_local_secret_store(lower: &[&str], name: &str, parent: &str) -> bool {
    if name.ends_with(".tfstate") || name.ends_with(".tfstate.backup") {
        return true;
    }
    if name == "wallet.dat" {
        return true;
    }
    if parent == "keychains" || name.ends_with(".keychain") || name.ends_with(".keychain-db") {
        return true;
    }
    let in_dir = |d: &str| lower.contains(&d);
    let firefox = in_dir("firefox") || in_dir(".mozilla") || in_dir("mozilla");
    if firefox
        && matches!(
            name,
            "logins.json" | "key4.db" | "key3.db" | "cookies.sqlite"
        )
    {
        return true;
    }
    let chromium = lower.iter().any(|s| {
        matches!(
            *s,
            "google-chrome"
                | "chrome"
                | "chromium"
                | "edge"
                | "microsoft-edge"
                | "bravesoftware"
                | "brave-browser"
                | "vivaldi"
                | "opera"
                | "com.operasoftware.opera"
        )
    });
    if chromium && matches!(name, "login data" | "cookies" | "web data" | "local state") {
        return true;
    }
    parent == "keystore" && in_dir(".ethereum")
}

/// Well-known cloud and CLI credential files: Azure CLI token caches, Terraform Cloud, OCI,
/// boto/s3cmd, Databricks, Pulumi, doctl, Cloud Foundry, Alibaba, IBM Cloud, Claude/Codex.
fn is_cloud_credential(lower: &[&str], name: &str, parent: &str) -> bool {
    if lower.contains(&".azure") {
        return name == "accesstokens.json"
            || name.starts_with("msal_token_cache")
            || name.starts_with("service_principal_entries")
            || name == "msal_http_cache.bin";
    }
    if name.starts_with("msal_token_cache") || name == "accesstokens.json" {
        return true;
    }
    matches!(
        name,
        ".boto"
            | ".s3cfg"
            | ".databrickscfg"
            | "credentials.tfrc.json"
            | ".credentials.json"
            | "application_default_credentials.json"
    ) || (parent == ".oci" && name == "config")
        || (parent == ".pulumi" && name == "credentials.json")
        || (parent == "doctl" && name == "config.yaml")
        || (parent == ".cf" && name == "config.json")
        || (parent == ".aliyun" && name == "config.json")
        || (parent == ".bluemix" && name == "config.json")
        || (parent == ".fly" && name == "config.yml")
        || (parent == ".config" && name == "hub")
}

/// OpenClaw's own secret stores: `openclaw.json` (gateway, channel and provider tokens) and its
/// backups, and under `.openclaw/`: `credentials/`, `secrets/`, `gateway.token`, and the SQLite
/// auth stores (`state/*.sqlite`, `agents/*/agent/*.sqlite`, legacy `auth-profiles.json`).
fn is_openclaw_secret(lower: &[&str]) -> bool {
    let name = lower.last().copied().unwrap_or("");
    let example =
        name.ends_with(".example") || name.ends_with(".sample") || name.ends_with(".template");
    if (name == "openclaw.json" || name.starts_with("openclaw.json.")) && !example {
        return true;
    }
    let Some(i) = lower.iter().position(|s| *s == ".openclaw") else {
        return false;
    };
    let rest = lower.get(i + 1..).unwrap_or(&[]);
    let sqlite = name.ends_with(".sqlite") || name.contains(".sqlite-") || name.ends_with(".db");
    match rest.first().copied() {
        Some("credentials" | "secrets") => rest.len() >= 2,
        Some("gateway.token") => rest.len() == 1,
        Some("state") => sqlite,
        Some("agents") => sqlite || name == "auth-profiles.json",
        _ => false,
    }
}

/// Directories whose files are credentials (`~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.kube`,
/// `~/.docker`, `~/.password-store`, `gcloud`, `.openclaw/credentials`, `.openclaw/secrets`), or
/// a root or home that contains them: searching file contents there returns secrets.
pub fn is_credential_dir(raw: &str) -> bool {
    if is_url(raw) {
        return false;
    }
    any_reading(raw, |t| {
        lowered(t, |p| credential_dir_in(p.anchor, &p.segments, p.escapes))
    })
}

/// [`is_credential_dir`] of a normalized path with lowercase segments. A relative path that
/// climbs out of the working directory (`../../..`) may reach a home or the root: it counts as
/// one when it would be one anchored at `/` or at `~`.
fn credential_dir_in(anchor: &str, lower: &[&str], escapes: bool) -> bool {
    let holds = |s: &&str| {
        matches!(
            *s,
            ".ssh" | ".aws" | ".gnupg" | ".kube" | ".docker" | ".password-store" | "gcloud"
        )
    };
    if lower.iter().any(holds) {
        return true;
    }
    if let Some(i) = lower.iter().position(|s| *s == ".openclaw") {
        match lower.get(i + 1).copied() {
            None => return true,
            Some("credentials" | "secrets" | "state" | "agents") => return true,
            _ => {}
        }
    }
    // A root or home is an ancestor of every credential directory above.
    let first = lower.first().copied();
    match anchor {
        "~" => lower.is_empty() || lower == [".config"],
        "/" => {
            lower.is_empty()
                || first == Some("root") && lower.len() == 1
                || matches!(first, Some("home" | "users")) && lower.len() <= 2
        }
        "" => {
            escapes
                && (lower.is_empty()
                    || lower == ["root"]
                    || lower == [".config"]
                    || matches!(first, Some("home" | "users")) && lower.len() <= 2
                    // OpenClaw's secret directories, one level above the default workspace.
                    || matches!(first, Some("credentials" | "secrets" | "state" | "agents")))
        }
        _ => lower.is_empty() || first == Some("users") && lower.len() <= 2,
    }
}

/// Writing here changes who can log in, what runs as root, or how the system boots.
/// Segments are compared ignoring ASCII case (no lowercase copies); a test keeps the
/// lowercasing form as its reference.
pub fn is_system_write_target(raw: &str) -> bool {
    if is_url(raw) {
        return false;
    }
    any_reading(raw, |t| {
        if let Some((anchor, segs, n)) = simple_segments(t) {
            return system_write_target_in(anchor, segs.get(..n).unwrap_or(&[]));
        }
        let p = norm(t, false);
        system_write_target_in(p.anchor, &p.segments)
    })
}

/// Most segments [`simple_segments`] keeps on the stack.
const SIMPLE_SEGMENTS: usize = 16;

/// [`normalize`] without allocating, for the paths it only splits: no backslash, no home form
/// (nothing starting with `~`, `$` or `%`), no `..`, at most [`SIMPLE_SEGMENTS`] segments.
/// The anchor is `/`, `""` or the drive (`C:`, not lowercased: callers here only test that
/// it ends with `:`). `None` for any other path (take `normalize`).
fn simple_segments(raw: &str) -> Option<(&str, [&str; SIMPLE_SEGMENTS], usize)> {
    let t = raw.trim();
    let b = t.as_bytes();
    if t.starts_with(['~', '$', '%'])
        || t.starts_with("//")
        || memchr::memchr(b'\\', b).is_some()
        || b.windows(2).any(|w| w == b"..")
    {
        return None;
    }
    let (anchor, rest) = if b.len() >= 2
        && b.first().is_some_and(u8::is_ascii_alphabetic)
        && b.get(1) == Some(&b':')
    {
        (t.get(..2)?, t.get(2..)?)
    } else if t.starts_with('/') {
        ("/", t)
    } else {
        ("", t)
    };
    let mut segs = [""; SIMPLE_SEGMENTS];
    let mut n = 0;
    for seg in rest.split('/').map(canon) {
        match seg {
            "" | "." => {}
            ".." => return None,
            seg => {
                *segs.get_mut(n)? = seg;
                n += 1;
            }
        }
    }
    if anchor == "/" && private_alias(segs.get(..n)?) {
        return None;
    }
    Some((anchor, segs, n))
}

/// Account and scheduler files: a system's when they sit in its `etc` directory.
const ACCOUNT_FILES: &[&str] = &[
    "sudoers",
    "crontab",
    "passwd",
    "shadow",
    "group",
    "gshadow",
    "master.passwd",
];

/// The path's file sits in a system's `etc` directory, the only place its account files and
/// password hashes count: `/etc/x`, a mounted root's `/mnt/sys/etc/x`, a drive's
/// `C:\rootfs\etc\x`, or `etc/x` relative to a directory the line does not show. Not in a
/// home (`~/…`, `/home/u/…`, `/Users/u/…`, `C:\Users\…`), where a workspace keeps fixtures,
/// nor deeper inside a relative path (`tests/fixtures/etc/passwd`).
pub(crate) fn in_system_etc<S: AsRef<str>>(anchor: &str, segments: &[S]) -> bool {
    let n = segments.len();
    let seg_is = |i: usize, x: &str| {
        segments
            .get(i)
            .is_some_and(|s| s.as_ref().eq_ignore_ascii_case(x))
    };
    n >= 2
        && seg_is(n - 2, "etc")
        && anchor != "~"
        && !(seg_is(0, "home") || seg_is(0, "users"))
        && (!anchor.is_empty() || n == 2)
}

/// [`is_system_write_target`] of a normalized path (anchor and segments).
pub(crate) fn system_write_target_in<S: AsRef<str>>(anchor: &str, segments: &[S]) -> bool {
    let is = |s: Option<&S>, set: &[&str]| {
        s.is_some_and(|s| set.iter().any(|x| s.as_ref().eq_ignore_ascii_case(x)))
    };
    // The account and scheduler files only count where a system keeps them: in an `etc`
    // directory reached from a root or drive anchor, outside any home (`/etc/passwd`, a mounted
    // root's `/mnt/sys/etc/shadow`). A workspace's `tests/fixtures/etc/passwd` is project data,
    // also once the shell or the exec `workdir` has rooted it under a home; callers root the
    // paths that climb out of the workspace. A key file or `.ssh` directory counts anywhere.
    if is(segments.last(), &["authorized_keys", "authorized_keys2"])
        || is(segments.last(), ACCOUNT_FILES) && in_system_etc(anchor, segments)
        || segments.iter().any(|s| {
            s.as_ref().eq_ignore_ascii_case("sudoers.d") || s.as_ref().eq_ignore_ascii_case(".ssh")
        })
    {
        return true;
    }
    let (first, second) = (segments.first(), segments.get(1));
    match anchor {
        "/" if is(
            first,
            &[
                "etc", "boot", "usr", "bin", "sbin", "lib", "lib64", "sys", "proc", "dev", "root",
            ],
        ) =>
        {
            true
        }
        "/" if is(first, &["var"]) => is(second, &["spool", "lib"]),
        // Homebrew's prefix on Apple silicon (its `bin` is on PATH and user-writable) and
        // MacPorts' programs.
        "/" if is(first, &["opt"]) => {
            is(second, &["homebrew"])
                || is(second, &["local"]) && is(segments.get(2), &["bin", "sbin"])
        }
        // macOS: what launchd starts at boot or login, and the sealed system volume.
        "/" | "~" if is(first, &["library"]) => {
            is(
                second,
                &["launchdaemons", "launchagents", "startupitems", "security"],
            ) || home_write_target(anchor, segments)
        }
        "/" if is(first, &["system"]) => true,
        "~" if is(
            first,
            &[
                ".bashrc",
                ".bash_profile",
                ".profile",
                ".zshrc",
                ".zprofile",
                ".zshenv",
                ".bash_login",
                ".gitconfig",
            ],
        ) =>
        {
            true
        }
        "~" if is(first, &[".config"]) => {
            is(second, &["autostart", "systemd", "fish"]) || home_write_target(anchor, segments)
        }
        d if d.ends_with(':') && is(first, &["windows"]) => true,
        _ => home_write_target(anchor, segments),
    }
}

/// What runs at login or at every shell, beyond [`system_write_target_in`]'s first list:
/// other shells' start-up files, X session scripts, git's XDG configuration, PowerShell
/// profiles, the Windows Startup folders — and every home-anchored class also under a home
/// spelled out (`/home/u/.zshrc`, `/Users/u/…`, `C:/Users/u/…`).
fn home_write_target<S: AsRef<str>>(anchor: &str, segments: &[S]) -> bool {
    let is = |s: Option<&S>, set: &[&str]| {
        s.is_some_and(|s| set.iter().any(|x| s.as_ref().eq_ignore_ascii_case(x)))
    };
    let at = |i: usize, set: &[&str]| is(segments.get(i), set);
    match anchor {
        "~" => {
            at(
                0,
                &[
                    ".bash_logout",
                    ".zlogin",
                    ".zlogout",
                    ".cshrc",
                    ".tcshrc",
                    ".kshrc",
                    ".mkshrc",
                    ".xprofile",
                    ".xinitrc",
                    ".xsession",
                    ".xsessionrc",
                    ".pam_environment",
                    // Sourced by the default `~/.bashrc` (Debian/Ubuntu) and every file of
                    // `~/.bashrc.d` (Fedora).
                    ".bash_aliases",
                    ".bashrc.d",
                ],
            ) || (at(0, &[".config"])
                && at(1, &["git", "environment.d", "powershell", "zsh", "bash"]))
                || (at(0, &["documents", "my documents"])
                    && at(1, &["windowspowershell", "powershell"])
                    && segments
                        .last()
                        .is_some_and(|l| l.as_ref().to_ascii_lowercase().ends_with("profile.ps1")))
                || (at(0, &["appdata"])
                    && at(1, &["roaming"])
                    && at(2, &["microsoft"])
                    && at(3, &["windows"])
                    && at(4, &["start menu"])
                    && at(5, &["programs"])
                    && at(6, &["startup"]))
                || home_code_path(segments)
        }
        // `/home/u/…`, `/Users/u/…`: the same classes as under `~`.
        "/" if at(0, &["home", "users"]) && segments.len() > 2 => {
            system_write_target_in("~", segments.get(2..).unwrap_or(&[]))
        }
        d if d.ends_with(':') => {
            (at(0, &["users"])
                && segments.len() > 2
                && system_write_target_in("~", segments.get(2..).unwrap_or(&[])))
                || (at(0, &["programdata"])
                    && at(1, &["microsoft"])
                    && at(2, &["windows"])
                    && at(3, &["start menu"])
                    && at(4, &["programs"])
                    && at(5, &["startup"]))
                // Chocolatey's shims, on every user's PATH.
                || (at(0, &["programdata"]) && at(1, &["chocolatey"]) && at(2, &["bin"]))
        }
        _ => false,
    }
}

/// Places in the home whose files run as commands or with every shell or session, found by
/// the session 14 red team (segments below the home, compared ignoring ASCII case):
/// - directories on `PATH`, where a planted program shadows the real one (`~/.local/bin`,
///   `~/bin`, toolchains' `bin`: Cargo, Go, Bun, Deno, npm's user prefix, Yarn, Volta,
///   Homebrew on Linux, Nix, .NET tools; version managers' `shims`; pnpm's home; Scoop's
///   shims; Windows' `WindowsApps` and npm's `%APPDATA%\npm`);
/// - shell frameworks sourced at start-up (`~/.oh-my-zsh`, `~/.zprezto`, `~/.bash_it`), more
///   start-up files (`~/.xonshrc`, csh's `~/.login`/`~/.logout`, `~/.shrc`), nushell's and
///   xonsh's configuration, Plasma's `env`/`shutdown` scripts and KDE's `autostart-scripts`,
///   Openbox/labwc and LXSession `autostart`, KDE 4 autostart, systemd user units under
///   `~/.local/share/systemd`;
/// - Python's user site: `.pth` files and `usercustomize`/`sitecustomize` run at every start.
fn home_code_path<S: AsRef<str>>(segments: &[S]) -> bool {
    let at = |i: usize, set: &[&str]| {
        segments
            .get(i)
            .is_some_and(|s| set.iter().any(|x| s.as_ref().eq_ignore_ascii_case(x)))
    };
    let n = segments.len();
    let on_path = at(0, &["bin"])
        || (at(1, &["bin"])
            && at(
                0,
                &[
                    ".local",
                    ".cargo",
                    "go",
                    ".bun",
                    ".deno",
                    ".npm-global",
                    ".yarn",
                    ".volta",
                    ".linuxbrew",
                    ".nix-profile",
                ],
            ))
        || (at(0, &[".linuxbrew"]) && at(1, &["sbin"]))
        || (at(0, &[".dotnet"]) && at(1, &["tools"]))
        || (at(1, &["shims"])
            && at(
                0,
                &[".pyenv", ".rbenv", ".nodenv", ".goenv", ".asdf", "scoop"],
            ))
        || (n == 4 && at(0, &[".local"]) && at(1, &["share"]) && at(2, &["pnpm"]))
        || (at(0, &["appdata"])
            && at(1, &["local"])
            && at(2, &["microsoft"])
            && at(3, &["windowsapps"]))
        || (n == 4 && at(0, &["appdata"]) && at(1, &["roaming"]) && at(2, &["npm"]));
    let start_up = at(
        0,
        &[
            ".oh-my-zsh",
            ".zprezto",
            ".bash_it",
            ".xonshrc",
            ".login",
            ".logout",
            ".shrc",
        ],
    ) || (at(0, &[".config"])
        && (at(1, &["nushell", "xonsh", "autostart-scripts"])
            || at(1, &["plasma-workspace"]) && at(2, &["env", "shutdown"])
            || at(1, &["openbox", "labwc"]) && at(2, &["autostart", "environment"])
            || at(1, &["lxsession"])
                && segments
                    .last()
                    .is_some_and(|l| l.as_ref().eq_ignore_ascii_case("autostart"))))
        || (at(0, &[".local"]) && at(1, &["share"]) && at(2, &["systemd"]))
        || (at(0, &[".kde", ".kde4"])
            && (at(1, &["autostart"]) || at(1, &["share"]) && at(2, &["autostart"])));
    let python_start = n >= 2
        && at(n - 2, &["site-packages"])
        && segments.last().is_some_and(|l| {
            let l = l.as_ref();
            l.eq_ignore_ascii_case("usercustomize.py")
                || l.eq_ignore_ascii_case("sitecustomize.py")
                || l.len() > 4
                    && l.get(l.len() - 4..)
                        .is_some_and(|e| e.eq_ignore_ascii_case(".pth"))
        })
        && ((at(0, &[".local"]) && at(1, &["lib"]))
            || (at(0, &["library"]) && at(1, &["python"]))
            || (at(0, &["appdata"]) && at(1, &["roaming"]) && at(2, &["python"])));
    on_path || start_up || python_start
}

/// Files git runs or loads code from on the next git command: hooks (`.git/hooks/…`, also a
/// submodule's `.git/modules/m/hooks/…`) and repository configuration (`.git/config`, where
/// `core.fsmonitor`, `core.hooksPath`, aliases and filters name programs). `lower` holds
/// lowercase segments.
pub(crate) fn git_code_in(lower: &[&str]) -> bool {
    let Some(i) = lower.iter().position(|s| *s == ".git") else {
        return false;
    };
    let rest = lower.get(i + 1..).unwrap_or(&[]);
    rest.contains(&"hooks")
        || rest
            .last()
            .is_some_and(|l| *l == "config" || *l == "config.worktree")
}

/// The gate's own configuration and OpenClaw's control plane: `openclaw.json` anywhere, and any
/// `.openclaw` path that is not the agent workspace (`.openclaw/workspace…`).
pub fn is_self_protected(raw: &str) -> bool {
    if is_url(raw) {
        return false;
    }
    if let Some(standing) = openclaw_variable(raw) {
        return is_self_protected(&standing);
    }
    any_reading(raw, |t| {
        lowered(t, |p| {
            self_protected_in(&p.segments)
                || climbs_into_state_dir(p.anchor, p.escapes, &p.segments)
        })
    })
}

/// OpenClaw's own location variables, which name the live configuration wherever it is:
/// `$OPENCLAW_CONFIG_PATH` (the config file) and `$OPENCLAW_STATE_DIR` (the state directory)
/// in their POSIX, PowerShell and CMD spellings, as the default path they stand for
/// (`$OPENCLAW_STATE_DIR/workspace/x` stays a workspace path). `None` for other texts.
pub(crate) fn openclaw_variable(raw: &str) -> Option<String> {
    const VARS: [(&str, &str); 2] = [
        ("OPENCLAW_CONFIG_PATH", "~/.openclaw/openclaw.json"),
        ("OPENCLAW_STATE_DIR", "~/.openclaw"),
    ];
    let t = raw.trim_matches('"');
    for (name, standing) in VARS {
        for (open, close) in [
            ("$", ""),
            ("${", "}"),
            ("$env:", ""),
            ("${env:", "}"),
            ("%", "%"),
        ] {
            let Some(rest) = t
                .get(..open.len())
                .filter(|p| p.eq_ignore_ascii_case(open))
                .and_then(|_| t.get(open.len()..))
            else {
                continue;
            };
            let Some(after) = rest
                .get(..name.len())
                .filter(|n| n.eq_ignore_ascii_case(name))
                .and_then(|_| rest.get(name.len()..))
                .and_then(|a| a.strip_prefix(close))
            else {
                continue;
            };
            // The whole name: `$OPENCLAW_STATE_DIRX` is another variable.
            if close.is_empty()
                && after
                    .chars()
                    .next()
                    .is_some_and(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            {
                continue;
            }
            return Some(format!("{standing}{after}"));
        }
    }
    None
}

/// A cheap test before [`is_self_protected`] for callers that check many texts: only a text
/// naming `openclaw`, climbing (`..`) or holding an 8.3 short name (`~` and a digit) may be
/// the gate's own.
pub fn may_be_self_protected(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(8).any(|w| w.eq_ignore_ascii_case(b"openclaw"))
        || b.windows(2).any(|w| w == b"..")
        || memchr::memchr_iter(b'~', b).any(|i| b.get(i + 1).is_some_and(u8::is_ascii_digit))
}

/// Entries of OpenClaw's state directory (`~/.openclaw`, `$OPENCLAW_STATE_DIR`) that are not
/// agent workspaces, as a relative path climbing out of the default workspace
/// (`~/.openclaw/workspace`, `~/.openclaw/workspace-<agent>`: the tools' working directory
/// unless `agents.defaults.workspace` moves it) names them: plugins (`extensions/<id>`, the
/// gate's own code), credentials and auth stores (`credentials/`, `secrets/`, `secrets.json`,
/// `gateway.token`, `state/`, `agents/`, the legacy `agent/`), the device identity and paired
/// devices, scheduled jobs (`cron/`), hooks, shared skills (loaded into every agent) and the
/// exec approvals. (`openclaw.json` counts anywhere.)
const STATE_ENTRIES: [&str; 14] = [
    "extensions",
    "credentials",
    "secrets",
    "secrets.json",
    "gateway.token",
    "state",
    "agents",
    "agent",
    "identity",
    "devices",
    "cron",
    "hooks",
    "skills",
    "exec-approvals.json",
];

/// A relative path that climbs out of its working directory into an entry of OpenClaw's state
/// directory ([`STATE_ENTRIES`]): `../extensions/human-gate/index.js` from the default
/// workspace is the gate's code. The levels climbed are not counted (the working directory
/// may be below the workspace, or a sandbox workspace one level deeper), as the rooted
/// readings of other climbs do not count them. `lower`: lowercase segments.
pub(crate) fn climbs_into_state_dir(anchor: &str, escapes: bool, lower: &[&str]) -> bool {
    anchor.is_empty() && escapes && lower.first().is_some_and(|f| STATE_ENTRIES.contains(f))
}

/// `openclaw.json` or a copy OpenClaw or a person may restore (`openclaw.json.bak`,
/// `openclaw.json.1`); not documentation of it (`openclaw.json.example`, `.sample`,
/// `.template`, `.md`), which no gateway loads. `s` is lowercase.
fn is_openclaw_json_name(s: &str) -> bool {
    s == "openclaw.json"
        || s.strip_prefix("openclaw.json.")
            .is_some_and(|ext| !matches!(ext, "example" | "sample" | "template" | "md"))
}

/// [`is_self_protected`] of a normalized path with lowercase segments.
pub(crate) fn self_protected_in(lower: &[&str]) -> bool {
    if lower.iter().any(|s| is_openclaw_json_name(s)) {
        return true;
    }
    if let Some(i) = lower.iter().position(|s| *s == ".openclaw") {
        let next = lower.get(i + 1).copied().unwrap_or("");
        // Agent workspaces, and the per-scope sandbox workspaces tools use when sandboxing is
        // on (`~/.openclaw/sandboxes/<scope>/…`, docs/gateway/sandboxing/workspace-access.md).
        let sandbox_workspace = next == "sandboxes" && lower.len() > i + 3;
        return !next.starts_with("workspace") && !sandbox_workspace;
    }
    false
}

/// Brace expansion of literal comma lists (`/{etc,usr}` → `/etc`, `/usr`;
/// `{a,b}{1,2}` → four words; nested lists expand too). `None` when the text has no such
/// list. Bounded: at most `max` results (the rest are dropped, so callers that need every
/// alternative treat a result of length `max` as incomplete).
pub fn expand_braces(text: &str, max: usize) -> Option<Vec<String>> {
    let mut done: Vec<String> = Vec::new();
    let mut work: Vec<String> = vec![text.to_owned()];
    let mut expanded = false;
    let mut steps = 0usize;
    while let Some(t) = work.pop() {
        steps += 1;
        if steps > max.saturating_mul(8) || done.len() + work.len() >= max {
            done.push(t);
            continue;
        }
        match first_brace_list(&t) {
            Some((open, close, parts)) => {
                expanded = true;
                let head = t.get(..open).unwrap_or("");
                let tail = t.get(close + 1..).unwrap_or("");
                for part in parts.iter().rev() {
                    work.push(format!("{head}{part}{tail}"));
                }
            }
            None => done.push(t),
        }
    }
    done.truncate(max);
    expanded.then_some(done)
}

/// The first `{…}` holding a top-level comma: (open index, close index, alternatives).
fn first_brace_list(t: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = t.as_bytes();
    let mut start = 0;
    while let Some(rel) = t.get(start..)?.find('{') {
        let open = start + rel;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(k),
                _ => {}
            }
        }
        let close = close?;
        if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut from = open + 1;
            for c in commas.iter().copied().chain(std::iter::once(close)) {
                parts.push(t.get(from..c)?.to_owned());
                from = c + 1;
            }
            return Some((open, close, parts));
        }
        start = open + 1;
    }
    None
}

/// Absolute (or home-anchored) after normalization.
// Kept out of line: inlined into the shell walk it cost the 20 KB worst case ~8k
// instructions of the walk's own (measured with callgrind), for a call it rarely makes.
#[inline(never)]
pub fn is_absolute(raw: &str) -> bool {
    !split_anchor(raw.trim()).0.is_empty()
}

/// A path below the running batch file's own directory: `%~dp0` (the `d`rive and `p`ath of
/// batch parameter 0, the script itself; also `%~p0`, `%~sdp0`, any case), then literal text
/// (`%~dp0build.cmd`, `%~dp0\tools\x.exe`). Gives that text with its leading separators
/// removed: the path relative to the script's directory. (`%~dp0` ends with a separator;
/// outside a batch file it stays literal text.) Not for a target's breadth: the directory
/// itself is only known at run time ([`delete_breadth`] reads it as such). `None` for other
/// parameters (`%~dp1` is a caller's argument's directory), an empty rest, and a rest that
/// holds another expansion.
pub fn script_dir_rest(raw: &str) -> Option<&str> {
    let after = raw.strip_prefix("%~")?;
    let digit = after.find(|c: char| !c.is_ascii_alphabetic())?;
    let mods = after.get(..digit)?;
    let mods_ok = mods.chars().any(|c| c.eq_ignore_ascii_case(&'p'))
        && mods
            .chars()
            .all(|c| matches!(c.to_ascii_lowercase(), 'd' | 'p' | 's'));
    let rest = after.get(digit..)?.strip_prefix('0')?;
    let rest = rest.trim_start_matches(['\\', '/']);
    (mods_ok && !rest.is_empty() && !rest.contains(['%', '!', '$', '`'])).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_dir_paths_are_batch_parameter_zero_directories() {
        for (raw, rest) in [
            ("%~dp0build.cmd", "build.cmd"),
            ("%~DP0build.cmd", "build.cmd"),
            ("%~dp0\\tools\\x.exe", "tools\\x.exe"),
            ("%~sdp0a/b.bat", "a/b.bat"),
            ("%~p0x.cmd", "x.cmd"),
        ] {
            assert_eq!(script_dir_rest(raw), Some(rest), "{raw}");
        }
        for raw in [
            "%~dp0",
            "%~dp0\\",
            "%~dp1build.cmd",
            "%~f0",
            "%~nx0x",
            "%~d0x.cmd",
            "%~dp0%TOOL%.cmd",
            "%~dp0!X!",
            "%dp0x",
            "x%~dp0y",
            "%~dp",
        ] {
            assert_eq!(script_dir_rest(raw), None, "{raw}");
        }
    }

    // The forms before the borrowed, lowercase-once normalization (the references).

    fn has_unresolved_expansion_oracle(raw: &str) -> bool {
        let mut s = raw.trim().replace('\\', "/");
        for h in HOME_PREFIXES
            .iter()
            .copied()
            .chain(HOME_SUBDIRS.iter().map(|(h, _)| *h))
        {
            if anchored_at(&s, h) {
                s = s.get(h.len()..).unwrap_or("").to_owned();
                break;
            }
        }
        s.contains('$')
            || s.contains('`')
            || s.contains('%')
            || s.contains("!") && s.matches('!').count() >= 2
    }

    fn normalize_oracle(raw: &str) -> NormPath {
        // Borrowed until a form needs rewriting (most paths have no backslash and no home form).
        let trimmed = raw.trim();
        if let Some((a, rest)) = windows_prefix(trimmed) {
            let mut segments: Vec<String> = Vec::new();
            let mut escapes = false;
            for seg in rest.replace('\\', "/").split('/') {
                match canon(seg) {
                    "" | "." => {}
                    ".." => {
                        if segments.pop().is_none() {
                            escapes = true;
                        }
                    }
                    other => segments.push(other.to_owned()),
                }
            }
            if a == "/" && private_alias(&segments) {
                segments.remove(0);
            }
            return NormPath {
                anchor: a.to_owned(),
                segments,
                escapes,
            };
        }
        let mut s: std::borrow::Cow<'_, str> = if trimmed.contains('\\') {
            std::borrow::Cow::Owned(trimmed.replace('\\', "/"))
        } else {
            std::borrow::Cow::Borrowed(trimmed)
        };
        let mut anchor = String::new();
        for h in HOME_PREFIXES {
            if anchored_at(&s, h) {
                anchor = "~".into();
                s = std::borrow::Cow::Owned(s.get(h.len()..).unwrap_or("").to_owned());
                break;
            }
        }
        if anchor.is_empty() {
            for (h, below) in HOME_SUBDIRS {
                if anchored_at(&s, h) {
                    anchor = "~".into();
                    s = std::borrow::Cow::Owned(format!(
                        "{below}{}",
                        s.get(h.len()..).unwrap_or("")
                    ));
                    break;
                }
            }
        }
        if anchor.is_empty() {
            let b = s.as_bytes();
            if b.len() >= 2
                && b.first().is_some_and(u8::is_ascii_alphabetic)
                && b.get(1) == Some(&b':')
            {
                anchor = s.get(..2).unwrap_or("").to_ascii_lowercase();
                s = std::borrow::Cow::Owned(s.get(2..).unwrap_or("").to_owned());
            } else if s.starts_with('/') {
                anchor = "/".into();
            } else if let Some(rest) = s.strip_prefix("~") {
                // ~user/...: another user's home.
                anchor = "~".into();
                s = std::borrow::Cow::Owned(
                    rest.split_once('/')
                        .map(|(_, r)| format!("/{r}"))
                        .unwrap_or_default(),
                );
            }
        }
        let mut segments: Vec<String> =
            Vec::with_capacity(s.bytes().filter(|&b| b == b'/').count() + 1);
        let mut escapes = false;
        for seg in s.split('/') {
            match canon(seg) {
                "" | "." => {}
                ".." => {
                    if segments.pop().is_none() {
                        escapes = true;
                    }
                }
                other => segments.push(other.to_owned()),
            }
        }
        if anchor == "/" && private_alias(&segments) {
            segments.remove(0);
        }
        NormPath {
            anchor,
            segments,
            escapes,
        }
    }

    fn is_credential_path_oracle(raw: &str) -> bool {
        !is_url(raw) && any_reading(raw, is_credential_path_oracle_one)
    }

    fn is_credential_path_oracle_one(raw: &str) -> bool {
        let p = normalize_oracle(raw);
        let lower: Vec<String> = p.segments.iter().map(|s| s.to_ascii_lowercase()).collect();
        let name = lower.last().map(String::as_str).unwrap_or("");
        let parent = lower
            .len()
            .checked_sub(2)
            .and_then(|i| lower.get(i))
            .map(String::as_str)
            .unwrap_or("");
        let in_dir = |d: &str| lower.iter().any(|s| s == d);
        // Private keys and key stores.
        if (name.starts_with("id_") && !name.ends_with(".pub"))
            || name.ends_with(".pem")
            || name.ends_with(".key")
            || name.ends_with(".p12")
            || name.ends_with(".pfx")
            || name.ends_with(".keystore")
            || name.ends_with(".jks")
            || name == "private.key"
        {
            return true;
        }
        // Dotenv files (but not .env.example / .env.sample / .env.template).
        if (name == ".env" || name.starts_with(".env.") || name.ends_with(".env"))
            && !name.ends_with(".example")
            && !name.ends_with(".sample")
            && !name.ends_with(".template")
            && !name.ends_with(".dist")
        {
            return true;
        }
        let l: Vec<&str> = lower.iter().map(String::as_str).collect();
        if more_secrets(&p.anchor, &l, name, parent) {
            return true;
        }
        if matches!(
            name,
            ".netrc"
                | "_netrc"
                | ".pgpass"
                | ".npmrc"
                | ".pypirc"
                | ".git-credentials"
                | "credentials"
                | "credentials.json"
                | "credentials.db"
                | "access_tokens.db"
                | "secrets.yaml"
                | "secrets.yml"
                | "secrets.json"
                | "shadow"
                | "gshadow"
                | "master.key"
                | "auth.json"
                | "hosts.yml"
                | "kubeconfig"
                | "token"
                | ".vault-token"
                | "service-account.json"
                | "keyring"
        ) {
            if name == "hosts.yml" {
                return parent == "gh";
            }
            if name == "shadow" || name == "gshadow" {
                return parent == "etc"
                    && !matches!(p.anchor.as_str(), "~")
                    && !lower.first().is_some_and(|f| f == "home" || f == "users")
                    && (!p.anchor.is_empty() || lower.len() == 2);
            }
            if name == "token" || name == "keyring" {
                return in_dir(".config") || in_dir(".docker") || parent.starts_with('.');
            }
            if name == "auth.json" {
                return in_dir(".codex")
                    || in_dir(".docker")
                    || in_dir(".openclaw")
                    || parent.starts_with('.');
            }
            return true;
        }
        if parent == ".ssh" && !name.ends_with(".pub") && name != "known_hosts" && name != "config"
        {
            return true;
        }
        let segments: Vec<&str> = lower.iter().map(String::as_str).collect();
        if is_cloud_credential_oracle(&lower, name, parent)
            || is_local_secret_store(&segments, name, parent)
        {
            return true;
        }
        if (parent == ".aws" && matches!(name, "credentials" | "config"))
            || (parent == ".kube" && name == "config")
            || (parent == ".docker" && name == "config.json")
        {
            return true;
        }
        if in_dir(".gnupg")
            || in_dir(".password-store")
            || (in_dir("gcloud") && (name.ends_with(".json") || name.ends_with(".db")))
        {
            return true;
        }
        // Process environments: /proc/<pid>/environ holds every secret variable.
        if p.anchor == "/"
            && lower.len() == 3
            && lower.first().is_some_and(|s| s == "proc")
            && name == "environ"
        {
            return true;
        }
        if p.anchor.is_empty() && p.escapes && climbed_state_secret(&l) {
            return true;
        }
        is_openclaw_secret_oracle(&lower)
    }

    /// Well-known cloud and CLI credential files: Azure CLI token caches, Terraform Cloud, OCI,
    /// boto/s3cmd, Databricks, Pulumi, doctl, Cloud Foundry, Alibaba, IBM Cloud, Claude/Codex.
    fn is_cloud_credential_oracle(lower: &[String], name: &str, parent: &str) -> bool {
        if lower.iter().any(|s| s == ".azure") {
            return name == "accesstokens.json"
                || name.starts_with("msal_token_cache")
                || name.starts_with("service_principal_entries")
                || name == "msal_http_cache.bin";
        }
        if name.starts_with("msal_token_cache") || name == "accesstokens.json" {
            return true;
        }
        matches!(
            name,
            ".boto"
                | ".s3cfg"
                | ".databrickscfg"
                | "credentials.tfrc.json"
                | ".credentials.json"
                | "application_default_credentials.json"
        ) || (parent == ".oci" && name == "config")
            || (parent == ".pulumi" && name == "credentials.json")
            || (parent == "doctl" && name == "config.yaml")
            || (parent == ".cf" && name == "config.json")
            || (parent == ".aliyun" && name == "config.json")
            || (parent == ".bluemix" && name == "config.json")
            || (parent == ".fly" && name == "config.yml")
            || (parent == ".config" && name == "hub")
    }

    /// OpenClaw's own secret stores: `openclaw.json` (gateway, channel and provider tokens) and its
    /// backups, and under `.openclaw/`: `credentials/`, `secrets/`, `gateway.token`, and the SQLite
    /// auth stores (`state/*.sqlite`, `agents/*/agent/*.sqlite`, legacy `auth-profiles.json`).
    fn is_openclaw_secret_oracle(lower: &[String]) -> bool {
        let name = lower.last().map(String::as_str).unwrap_or("");
        let example =
            name.ends_with(".example") || name.ends_with(".sample") || name.ends_with(".template");
        if (name == "openclaw.json" || name.starts_with("openclaw.json.")) && !example {
            return true;
        }
        let Some(i) = lower.iter().position(|s| s == ".openclaw") else {
            return false;
        };
        let rest = lower.get(i + 1..).unwrap_or(&[]);
        let sqlite =
            name.ends_with(".sqlite") || name.contains(".sqlite-") || name.ends_with(".db");
        match rest.first().map(String::as_str) {
            Some("credentials" | "secrets") => rest.len() >= 2,
            Some("gateway.token") => rest.len() == 1,
            Some("state") => sqlite,
            Some("agents") => sqlite || name == "auth-profiles.json",
            _ => false,
        }
    }

    /// Directories whose files are credentials (`~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.kube`,
    /// `~/.docker`, `~/.password-store`, `gcloud`, `.openclaw/credentials`, `.openclaw/secrets`), or
    /// a root or home that contains them: searching file contents there returns secrets.
    fn is_credential_dir_oracle(raw: &str) -> bool {
        !is_url(raw) && any_reading(raw, is_credential_dir_oracle_one)
    }

    fn is_credential_dir_oracle_one(raw: &str) -> bool {
        let p = normalize_oracle(raw);
        let lower: Vec<String> = p.segments.iter().map(|s| s.to_ascii_lowercase()).collect();
        let holds = |s: &String| {
            matches!(
                s.as_str(),
                ".ssh" | ".aws" | ".gnupg" | ".kube" | ".docker" | ".password-store" | "gcloud"
            )
        };
        if lower.iter().any(holds) {
            return true;
        }
        if let Some(i) = lower.iter().position(|s| s == ".openclaw") {
            match lower.get(i + 1).map(String::as_str) {
                None => return true,
                Some("credentials" | "secrets" | "state" | "agents") => return true,
                _ => {}
            }
        }
        // A root or home is an ancestor of every credential directory above.
        let first = lower.first().map(String::as_str);
        match p.anchor.as_str() {
            "~" => lower.is_empty() || lower == [".config"],
            "/" => {
                lower.is_empty()
                    || first == Some("root") && lower.len() == 1
                    || matches!(first, Some("home" | "users")) && lower.len() <= 2
            }
            "" => {
                p.escapes
                    && (lower.is_empty()
                        || lower == ["root"]
                        || lower == [".config"]
                        || matches!(first, Some("home" | "users")) && lower.len() <= 2
                        || matches!(first, Some("credentials" | "secrets" | "state" | "agents")))
            }
            _ => lower.is_empty() || first == Some("users") && lower.len() <= 2,
        }
    }

    fn is_self_protected_oracle(raw: &str) -> bool {
        if let Some(standing) = openclaw_variable(raw).filter(|_| !is_url(raw)) {
            return is_self_protected_oracle(&standing);
        }
        !is_url(raw) && any_reading(raw, is_self_protected_oracle_one)
    }

    fn is_self_protected_oracle_one(raw: &str) -> bool {
        let p = normalize_oracle(raw);
        let lower: Vec<String> = p.segments.iter().map(|s| s.to_ascii_lowercase()).collect();
        if p.anchor.is_empty()
            && p.escapes
            && lower.first().is_some_and(|f| {
                [
                    "extensions",
                    "credentials",
                    "secrets",
                    "secrets.json",
                    "gateway.token",
                    "state",
                    "agents",
                    "agent",
                    "identity",
                    "devices",
                    "cron",
                    "hooks",
                    "skills",
                    "exec-approvals.json",
                ]
                .contains(&f.as_str())
            })
        {
            return true;
        }
        let doc = |s: &str| {
            ["example", "sample", "template", "md"]
                .iter()
                .any(|e| s == format!("openclaw.json.{e}"))
        };
        if lower
            .iter()
            .any(|s| s == "openclaw.json" || s.starts_with("openclaw.json.") && !doc(s))
        {
            return true;
        }
        if let Some(i) = lower.iter().position(|s| s == ".openclaw") {
            let next = lower.get(i + 1).map(String::as_str).unwrap_or("");
            // Agent workspaces, and the per-scope sandbox workspaces tools use when sandboxing is
            // on (`~/.openclaw/sandboxes/<scope>/…`, docs/gateway/sandboxing/workspace-access.md).
            let sandbox_workspace = next == "sandboxes" && lower.len() > i + 3;
            return !next.starts_with("workspace") && !sandbox_workspace;
        }
        false
    }

    /// The lowercasing form [`is_system_write_target`] must equal (the reference). Writing here changes who can log in, what runs as root, or how the system boots.
    fn is_system_write_target_oracle(raw: &str) -> bool {
        !is_url(raw) && any_reading(raw, is_system_write_target_oracle_one)
    }

    fn is_system_write_target_oracle_one(raw: &str) -> bool {
        let p = normalize(raw);
        let lower: Vec<String> = p.segments.iter().map(|s| s.to_ascii_lowercase()).collect();
        let name = lower.last().map(String::as_str).unwrap_or("");
        let parent = lower.len().checked_sub(2).and_then(|i| lower.get(i));
        if matches!(name, "authorized_keys" | "authorized_keys2")
            || matches!(
                name,
                "sudoers" | "crontab" | "passwd" | "shadow" | "group" | "gshadow" | "master.passwd"
            ) && parent.is_some_and(|p| p == "etc")
                && p.anchor != "~"
                && !lower.first().is_some_and(|f| f == "home" || f == "users")
                && (!p.anchor.is_empty() || lower.len() == 2)
            || lower.iter().any(|s| s == "sudoers.d" || s == ".ssh")
        {
            return true;
        }
        match (p.anchor.as_str(), lower.first().map(String::as_str)) {
            (
                "/",
                Some(
                    "etc" | "boot" | "usr" | "bin" | "sbin" | "lib" | "lib64" | "sys" | "proc"
                    | "dev" | "root",
                ),
            ) => true,
            ("/", Some("var")) => lower.get(1).is_some_and(|s| s == "spool" || s == "lib"),
            ("/", Some("opt")) => {
                lower.get(1).is_some_and(|s| s == "homebrew")
                    || lower.get(1).is_some_and(|s| s == "local")
                        && lower.get(2).is_some_and(|s| s == "bin" || s == "sbin")
            }
            // macOS: what launchd starts at boot or login, and the sealed system volume.
            ("/" | "~", Some("library")) => {
                lower.get(1).is_some_and(|s| {
                    matches!(
                        s.as_str(),
                        "launchdaemons" | "launchagents" | "startupitems" | "security"
                    )
                }) || home_write_target_oracle(&p.anchor, &lower)
            }
            ("/", Some("system")) => true,
            (
                "~",
                Some(
                    ".bashrc" | ".bash_profile" | ".profile" | ".zshrc" | ".zprofile" | ".zshenv"
                    | ".bash_login" | ".gitconfig",
                ),
            ) => true,
            ("~", Some(".config")) => {
                lower
                    .get(1)
                    .is_some_and(|s| s == "autostart" || s == "systemd" || s == "fish")
                    || home_write_target_oracle("~", &lower)
            }
            (d, Some("windows")) if d.ends_with(':') => true,
            (anchor, _) => home_write_target_oracle(anchor, &lower),
        }
    }

    /// The reference `home_write_target` over lowercase segments.
    fn home_write_target_oracle(anchor: &str, lower: &[String]) -> bool {
        let l: Vec<&str> = lower.iter().map(String::as_str).collect();
        let rest_as_home = |skip: usize| {
            let home = format!("~/{}", l.get(skip..).unwrap_or(&[]).join("/"));
            is_system_write_target_oracle(&home)
        };
        match (anchor, l.as_slice()) {
            (
                "~",
                [".bash_logout" | ".zlogin" | ".zlogout" | ".cshrc" | ".tcshrc" | ".kshrc"
                | ".mkshrc" | ".xprofile" | ".xinitrc" | ".xsession" | ".xsessionrc"
                | ".pam_environment" | ".bash_aliases" | ".bashrc.d", ..],
            ) => true,
            ("~", [".config", "git" | "environment.d" | "powershell" | "zsh" | "bash", ..]) => true,
            ("~", ["documents" | "my documents", "windowspowershell" | "powershell", .., last]) => {
                last.ends_with("profile.ps1")
            }
            (
                "~",
                ["appdata", "roaming", "microsoft", "windows", "start menu", "programs", "startup", ..],
            ) => true,
            // (The session 14 classes are shared, not restated: `home_code_path`.)
            ("~", _) if home_code_path(&l) => true,
            (d, ["programdata", "chocolatey", "bin", ..]) if d.ends_with(':') => true,
            ("/", ["home" | "users", _, _, ..]) => rest_as_home(2),
            (d, ["users", _, _, ..]) if d.ends_with(':') => rest_as_home(2),
            (
                d,
                ["programdata", "microsoft", "windows", "start menu", "programs", "startup", ..],
            ) if d.ends_with(':') => true,
            _ => false,
        }
    }

    /// Every corpus text and word, plus path shapes the corpora lack: each home and drive
    /// form in both cases, with both separators, climbing out, `~user`, URLs.
    fn path_texts() -> Vec<String> {
        let mut texts = crate::analysis::shell::rules::testing_corpus_texts();
        let anchors = [
            "",
            "/",
            "\\",
            "~",
            "~/",
            "~\\",
            "~bob/",
            "~bob",
            "~bob\\x/",
            "$HOME",
            "${home}/",
            "%USERPROFILE%\\",
            "%appdata%/",
            "%APPDATA%",
            "%LocalAppData%\\..\\",
            "$env:APPDATA/",
            "${env:LOCALAPPDATA}/",
            "$env:userprofile\\",
            "C:",
            "c:\\",
            "Z:/",
            "1:/",
            "é/",
            "https://",
            "file://",
            " \t",
            "./",
            "../",
            "a/../../",
        ];
        let tails = [
            "",
            ".ssh/id_rsa",
            ".SSH/ID_ED25519.pub",
            ".aws/Credentials",
            ".Openclaw/openclaw.json",
            ".openclaw/workspace/x",
            ".openclaw/sandboxes/a/b/c",
            ".openclaw/Agents/x/agent/a.sqlite",
            "etc/passwd",
            "Windows/System32",
            "proc/1/environ",
            ".env.Example",
            "x/.ENV",
            "..",
            "../..",
            "a/./b//c/",
            ".config/gh/hosts.yml",
            "gcloud/x.JSON",
            ".azure/msal_token_cache.bin",
            "Library/LaunchAgents/x.plist",
            ".bashrc",
            "$X/y",
            "`id`",
            "a!b!c",
            "tmp/*",
        ];
        for a in anchors {
            for t in tails {
                texts.push(format!("{a}{t}"));
                texts.push(format!("{a}{t} "));
            }
        }
        texts
    }

    fn paths_equal_their_references(texts: &[String]) {
        for t in texts {
            let t = t.as_str();
            assert_eq!(normalize(t), normalize_oracle(t), "{t:?}");
            assert_eq!(
                norm(t, false).render(),
                normalize_oracle(t).render(),
                "{t:?}"
            );
            assert_eq!(is_credential_path(t), is_credential_path_oracle(t), "{t:?}");
            assert_eq!(is_credential_dir(t), is_credential_dir_oracle(t), "{t:?}");
            assert_eq!(is_self_protected(t), is_self_protected_oracle(t), "{t:?}");
            assert_eq!(
                is_absolute(t),
                !normalize_oracle(t).anchor.is_empty(),
                "{t:?}"
            );
            assert_eq!(
                has_unresolved_expansion(t),
                has_unresolved_expansion_oracle(t),
                "{t:?}"
            );
            lowered(t, |n| {
                let p = normalize_oracle(t);
                let lower: Vec<String> =
                    p.segments.iter().map(|s| s.to_ascii_lowercase()).collect();
                assert_eq!(
                    (n.anchor, n.escapes),
                    (p.anchor.as_str(), p.escapes),
                    "{t:?}"
                );
                assert_eq!(n.segments, lower, "{t:?}");
            });
        }
    }

    #[test]
    fn borrowed_normalization_and_classes_equal_the_references_over_the_corpora() {
        let texts = path_texts();
        paths_equal_their_references(&texts);
        let hits = texts.iter().filter(|t| is_credential_path(t)).count();
        let own = texts.iter().filter(|t| is_self_protected(t)).count();
        assert!(hits > 300 && own > 50, "{hits} {own}");
    }

    proptest::proptest! {
        #[test]
        fn borrowed_normalization_equals_the_reference_on_random_paths(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "/", "\\", "~", "..", ".", "", "$HOME", "%APPDATA%", "${env:LOCALAPPDATA}",
                    "C:", "c:", "ssh", ".SSH", ".ssh", "id_rsa", ".env", ".openclaw", "openclaw.JSON",
                    "Workspace", "sandboxes", "etc", "passwd", "AppData", "é", " ", "://", "!", "$",
                    "credentials", ".aws", "gcloud", "a.PEM", "proc", "environ", "x",
                ]),
                0..9,
            ),
            tail in "[a-zA-Z./\\~$%:!é ]{0,12}",
        ) {
            let t = format!("{}{tail}", parts.concat());
            paths_equal_their_references(&[t]);
        }
    }

    #[test]
    fn windows_prefixes_streams_dots_and_short_names_resolve_as_windows_does() {
        for (raw, anchor, segs) in [
            ("\\\\?\\C:\\Windows\\x", "c:", "windows/x"),
            ("\\\\.\\D:\\a", "d:", "a"),
            ("\\??\\C:\\Windows", "c:", "windows"),
            ("//?/c:/Users", "c:", "users"),
            ("\\\\?\\UNC\\srv\\C$\\Windows", "c:", "windows"),
            ("\\\\127.0.0.1\\c$\\Users\\me", "c:", "users/me"),
            ("//localhost/C$/x", "c:", "x"),
            ("\\\\srv\\share\\x", "/", "srv/share/x"),
            ("\\\\?\\UNC\\srv\\share\\x", "/", "srv/share/x"),
            ("//etc/hosts", "/", "etc/hosts"),
            (
                "C:\\Users\\me\\.gitconfig::$DATA",
                "c:",
                "users/me/.gitconfig",
            ),
            ("C:\\Windows::$INDEX_ALLOCATION\\x", "c:", "windows/x"),
            ("C:\\Windows.\\x. ", "c:", "windows/x"),
            ("C:\\Users\\me\\SSH~1\\config", "c:", "users/me/.ssh/config"),
            ("OPENCL~1\\OPENCL~1.JSO", "", ".openclaw/openclaw.json"),
            ("GIT~2/hooks", "", ".git/hooks"),
            ("STARTM~1", "", "start menu"),
            ("/private/etc/hosts", "/", "etc/hosts"),
            ("/private/var/x", "/", "var/x"),
            ("/private/x", "/", "private/x"),
            ("a/../..", "", ""),
            ("notes~1.md", "", "notes~1.md"),
            ("OPENCL~1.TXT", "", "opencl~1.txt"),
            ("...", "", "..."),
        ] {
            lowered(raw, |n| {
                assert_eq!(
                    (n.anchor, n.segments.join("/").as_str()),
                    (anchor, segs),
                    "{raw}"
                );
            });
        }
        assert!(is_system_write_target(
            "\\\\?\\C:\\Windows\\System32\\x.dll"
        ));
        assert!(is_system_write_target("/private/etc/pam.d/sudo"));
        assert!(is_system_write_target("C:\\Users\\me\\.gitconfig."));
        assert!(is_system_write_target("~/.bash_aliases"));
        assert!(is_system_write_target("~/.bashrc.d/x.sh"));
        assert!(is_self_protected(
            "C:\\Users\\me\\OPENCL~1\\extensions\\x.js"
        ));
        assert!(is_self_protected("D:\\cfg\\openclaw.json::$DATA"));
        assert!(!is_system_write_target("/private/tmp/build/out.txt"));
        assert!(!is_system_write_target(
            "\\\\fileserver\\team\\app\\README.md"
        ));
    }

    #[test]
    fn short_names_stand_for_every_protected_name_they_may_be() {
        // Truncated with a longer number, and hashed (two letters and four hex digits).
        assert!(is_self_protected("C:\\Users\\me\\OPENC~12\\x\\y"));
        assert!(is_self_protected(
            "C:\\Users\\me\\OP1A2B~1\\extensions\\a.js"
        ));
        assert!(is_self_protected("D:\\OP1A2B~1.JSO"));
        assert!(is_system_write_target("C:\\Users\\me\\SS4F2A~1\\config"));
        // Ambiguous: `.git`, `.gitconfig` or `.git-credentials`; any `.bash*` file.
        assert_eq!(
            short_names("GI7E21~1").collect::<Vec<_>>(),
            [".git", ".gitconfig", ".git-credentials"]
        );
        assert!(is_system_write_target("C:\\Users\\me\\GI7E21~1"));
        assert!(is_credential_path("C:\\Users\\me\\GI7E21~1"));
        assert!(is_system_write_target("C:\\Users\\me\\BA3C4D~1"));
        assert!(is_credential_path("C:\\Users\\me\\AW12CD~1\\CREDEN~1"));
        assert!(is_system_write_target(
            "C:\\Users\\me\\DOCUME~1\\WINDOW~1\\Microsoft.PowerShell_profile.ps1"
        ));
        // Not short names of protected names.
        for p in [
            "docs\\REPORT~1.PDF",
            "C:\\Users\\me\\PROJEC~1\\a.txt",
            "notes/draft~2.md",
            "src/main.rs.~1~",
            "OPENCL~1.TXT",
            "~1/x",
        ] {
            assert!(
                !is_self_protected(p) && !is_system_write_target(p) && !is_credential_path(p),
                "{p}"
            );
        }
        assert_eq!(short_parts("OPENCL~1.JSO"), Some(("OPENCL", "JSO")));
        assert_eq!(short_parts("OPENCLA~12"), None);
        assert_eq!(short_parts("a.b~1"), None);
        // The readings are bounded.
        let many = "GI7E21~1/".repeat(10);
        let mut n = 0;
        any_reading(&many, |_| {
            n += 1;
            false
        });
        assert!(n <= MAX_READINGS + 1, "{n}");
    }

    #[test]
    fn climbing_out_of_the_default_workspace_reaches_the_state_directory() {
        for p in [
            "../extensions/human-gate/index.js",
            "./../extensions/human-gate/index.js",
            "..\\Extensions\\human-gate\\index.js",
            "memory/../../extensions/x.js",
            "../../extensions/x.js",
            "..\\EXTENS~1\\human-gate\\index.js",
            "../credentials/whatsapp/creds.json",
            "../agents/main/agent/auth-profiles.json",
            "../cron/jobs.json",
            "../exec-approvals.json",
            "../skills/x/SKILL.md",
            "../openclaw.json",
        ] {
            assert!(is_self_protected(p), "{p}");
        }
        for p in [
            "../sibling/src/a.rs",
            "../workspace-work/notes.md",
            "../my-extensions/a.js",
            "../project/extensions/a.js",
            "extensions/my-ext/index.js",
            "/srv/extensions/x.js",
        ] {
            assert!(!is_self_protected(p), "{p}");
        }
        assert!(is_secret_to_read("../credentials/oauth.json"));
        assert!(is_secret_to_read("../agents/main/agent/auth-profiles.json"));
        assert!(!is_secret_to_read("../extensions/human-gate/README.md"));
        assert!(is_credential_dir("../credentials"));
        assert!(is_credential_path("../credentials/oauth.json"));
        assert!(!is_credential_path("../extensions/human-gate/index.js"));
        assert_eq!(
            climb_rooted("a/../../.bashrc"),
            Some(["/.bashrc".to_owned(), "~/.bashrc".to_owned()])
        );
        assert_eq!(climb_rooted("src/a.rs"), None);
        assert_eq!(climb_rooted("/etc/x"), None);
        assert!(!is_credential_dir("credentials"));
        assert!(may_be_self_protected("../x") && may_be_self_protected("OPENCL~1"));
        assert!(!may_be_self_protected("src/a.rs"));
    }

    #[test]
    fn path_directories_and_start_up_code_in_the_home_are_system_locations() {
        for p in [
            "~/.local/bin/git",
            "/home/u/.local/bin/python3",
            "$HOME/.local/bin/ls",
            "~/bin/ssh",
            "~/.cargo/bin/cargo",
            "~/go/bin/gopls",
            "~/.bun/bin/bun",
            "~/.deno/bin/deno",
            "~/.npm-global/bin/npm",
            "~/.pyenv/shims/python",
            "~/.asdf/shims/node",
            "~/.dotnet/tools/x",
            "~/.local/share/pnpm/node",
            "/home/linuxbrew/.linuxbrew/bin/git",
            "/opt/homebrew/bin/git",
            "/opt/local/bin/port",
            "%LOCALAPPDATA%\\Microsoft\\WindowsApps\\python.exe",
            "%APPDATA%\\npm\\npx.cmd",
            "C:\\Users\\me\\scoop\\shims\\git.exe",
            "C:\\ProgramData\\chocolatey\\bin\\git.exe",
            "~/.oh-my-zsh/custom/x.zsh",
            "/Users/me/.oh-my-zsh/oh-my-zsh.sh",
            "~/.zprezto/runcoms/zshrc",
            "~/.bash_it/custom/x.bash",
            "~/.xonshrc",
            "~/.login",
            "~/.config/nushell/config.nu",
            "~/.config/plasma-workspace/env/x.sh",
            "~/.local/share/systemd/user/x.service",
            "~/.kde/Autostart/x.sh",
            "~/.config/autostart-scripts/x.sh",
            "~/.config/openbox/autostart",
            "~/.config/lxsession/LXDE/autostart",
            "~/.local/lib/python3.12/site-packages/zz.pth",
            "~/.local/lib/python3.11/site-packages/usercustomize.py",
            "~/Library/Python/3.12/lib/python/site-packages/x.pth",
        ] {
            assert!(is_system_write_target(p), "{p}");
        }
        for p in [
            "bin/run.sh",
            "./bin/cli.js",
            ".local/bin/tool",
            "~/projects/app/bin/cli.js",
            "~/.local/share/myapp/data.json",
            "~/.local/share/pnpm/store/v3/x",
            "~/.local/state/x",
            "~/binaries/notes.txt",
            "~/oh-my-zsh-notes.md",
            "node_modules/.bin/tool",
            "~/.local/lib/python3.12/site-packages/pkg/__init__.py",
            "~/project/.venv/lib/python3.12/site-packages/x.pth",
            "/opt/app/bin/x",
        ] {
            assert!(!is_system_write_target(p), "{p}");
        }
    }

    #[test]
    fn more_secrets_and_relative_climbs_to_them() {
        for p in [
            ".envrc",
            "deploy.ppk",
            "/etc/ssh/ssh_host_ed25519_key",
            "~/.my.cnf",
            "~/.cargo/credentials.toml",
            "~/.aws/sso/cache/x.json",
            "~/.aws/cli/cache/x.json",
            "~/.local/share/keyrings/login.keyring",
            "~/Library/Cookies/Cookies.binarycookies",
            "/proc/self/task/1/environ",
            "/proc/self/root/proc/1/environ",
            "/run/secrets/db",
            "/var/run/secrets/kubernetes.io/serviceaccount/token",
            "C:\\app\\.env::$DATA",
        ] {
            assert!(is_credential_path(p), "{p}");
        }
        for p in [
            ".envrc.example",
            "/etc/ssh/ssh_host_ed25519_key.pub",
            "docker/my.cnf",
            "~/.aws/sso/README.md",
            "/run/secrets",
            "src/proc/environ.ts",
        ] {
            assert!(!is_credential_path(p), "{p}");
        }
        assert!(is_secret_to_read("../../../../proc/self/environ"));
        assert!(!is_secret_to_read("../proc/environ.md"));
        assert!(is_credential_dir("../../.."));
        assert!(is_credential_dir("../../home/u"));
        assert!(!is_credential_dir("../sibling/src"));
    }

    #[test]
    fn is_url_splits_at_the_first_separator() {
        let old = |raw: &str| {
            raw.split_once("://").is_some_and(|(scheme, _)| {
                !scheme.is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                    && !scheme.eq_ignore_ascii_case("file")
            })
        };
        let mut texts = crate::analysis::shell::rules::testing_corpus_texts();
        texts.extend(
            [
                "a:://b",
                "::/",
                "x:/:/y://",
                "https://",
                "file://x",
                "é://x",
                ":",
            ]
            .map(String::from),
        );
        for t in &texts {
            assert_eq!(is_url(t), old(t), "{t:?}");
        }
    }

    #[test]
    fn simple_segments_are_the_normalized_ones() {
        let mut texts = crate::analysis::shell::rules::testing_corpus_texts();
        texts.extend(
            [
                "/",
                "C:",
                "c:/Windows",
                " /etc/x ",
                "./a/./b//",
                "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p",
                "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q",
            ]
            .map(String::from),
        );
        let mut simple = 0;
        for t in &texts {
            let Some((anchor, segs, n)) = simple_segments(t) else {
                continue;
            };
            simple += 1;
            let p = normalize(t);
            assert_eq!(anchor.to_ascii_lowercase(), p.anchor, "{t:?}");
            assert_eq!(&segs[..n], p.segments.as_slice(), "{t:?}");
        }
        assert!(simple > 1000, "{simple}");
    }

    #[test]
    fn system_write_target_equals_the_lowercasing_form() {
        let mut texts = crate::analysis::shell::rules::testing_corpus_texts();
        for a in [
            "/",
            "~/",
            "C:\\",
            "c:/",
            "",
            "/x/../",
            "~user/",
            "/home/u/",
            "/Users/u/",
            "C:\\Users\\u\\",
            "/home/",
        ] {
            for f in [
                ".zlogin",
                ".Config/git",
                "Documents/PowerShell/profile.ps1",
                "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup",
                "ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp",
                "etc",
                "ETC",
                "var",
                "Var",
                "library",
                "LIBRARY",
                "system",
                ".bashrc",
                ".Config",
                "windows",
                "WINDOWS",
                "x",
                ".ssh",
                "sudoers.d",
            ] {
                for s in [
                    "",
                    "/spool",
                    "/LIB",
                    "/launchdaemons",
                    "/Security",
                    "/fish",
                    "/x",
                    "/SHADOW",
                ] {
                    texts.push(format!("{a}{f}{s}"));
                }
            }
        }
        let mut hits = 0;
        for t in &texts {
            assert_eq!(
                is_system_write_target(t),
                is_system_write_target_oracle(t),
                "{t:?}"
            );
            hits += usize::from(is_system_write_target(t));
        }
        assert!(hits > 100, "{hits}");
    }

    fn broad(p: &str) -> bool {
        matches!(delete_breadth(p, false, p.contains('*')), Breadth::Broad(_))
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize("/tmp/../home/u").segments, ["home", "u"]);
        assert_eq!(normalize("./a//b/./c/").segments, ["a", "b", "c"]);
        assert!(normalize("../x").escapes);
        assert_eq!(normalize("C:\\Users\\me").anchor, "c:");
        assert_eq!(normalize("$HOME/x").anchor, "~");
        assert_eq!(normalize("${HOME}").anchor, "~");
        assert_eq!(normalize("~bob/x").anchor, "~");
    }

    #[test]
    fn broad_delete_targets() {
        for p in [
            "/",
            "/*",
            "//",
            "/.",
            "~",
            "~/",
            "~/*",
            "$HOME",
            "${HOME}",
            "$HOME/",
            ".",
            "./",
            "..",
            "../",
            "*",
            "./*",
            "/etc",
            "/etc/nginx",
            "/usr/lib",
            "/home",
            "/home/u",
            "/home/u/*",
            "/Users/me",
            "/var",
            "/tmp",
            "/tmp/../home/u",
            "C:\\",
            "C:/",
            "c:\\Windows",
            "C:\\Users",
            "~/.ssh",
            "~/.config",
            "~/Documents",
            "../project",
            "/root",
            "/boot/efi",
            "%USERPROFILE%",
            "$env:USERPROFILE",
            // Any single top-level segment is broad (like `C:\w`).
            "/mnt",
            "/media",
            "/snap",
            "/w",
            "/data",
            "/srv2",
            "/mnt/",
            "%APPDATA%",
            "%HOMEDRIVE%%HOMEPATH%",
        ] {
            assert!(broad(p), "{p} should be broad");
        }
        assert!(matches!(
            delete_breadth("$TMPDIR/../x", false, false),
            Breadth::Broad(_)
        ));
        assert!(matches!(
            delete_breadth("build", true, false),
            Breadth::Broad(_)
        ));
    }

    #[test]
    fn scoped_delete_targets() {
        for p in [
            "./dist",
            "dist",
            "build/",
            "node_modules",
            "target/debug",
            "/tmp/build-123",
            "/var/tmp/x/y",
            "/home/u/project/build",
            "~/project/build",
            "/opt2/x",
            "/mnt/usb/backup",
            "C:\\Users\\me\\proj\\out",
            "a/../b",
        ] {
            assert!(!broad(p), "{p} should be scoped");
        }
    }

    #[test]
    fn windows_home_variables_anchor_at_home() {
        assert_eq!(
            normalize("%USERPROFILE%\\.ssh\\id_rsa").render(),
            "~/.ssh/id_rsa"
        );
        assert_eq!(normalize("%homepath%\\x").anchor, "~");
        assert_eq!(
            normalize("%APPDATA%\\gcloud\\credentials.db").render(),
            "~/AppData/Roaming/gcloud/credentials.db"
        );
        assert_eq!(
            normalize("$env:LOCALAPPDATA/x").render(),
            "~/AppData/Local/x"
        );
        assert_eq!(normalize("%APPDATAX%/y").anchor, "");
        assert!(is_credential_path("%USERPROFILE%\\.aws\\credentials"));
        assert!(is_credential_path("%APPDATA%\\gcloud\\credentials.db"));
    }

    #[test]
    fn brace_lists_expand() {
        assert_eq!(
            expand_braces("/{etc,usr}", 64),
            Some(vec!["/etc".to_owned(), "/usr".to_owned()])
        );
        assert_eq!(
            expand_braces("{rm,-rf,/}", 64),
            Some(vec!["rm".to_owned(), "-rf".to_owned(), "/".to_owned()])
        );
        assert_eq!(expand_braces("a{b,c{d,e}}", 64).map(|v| v.len()), Some(3));
        assert_eq!(expand_braces("{a,b}{c,d}", 64).map(|v| v.len()), Some(4));
        assert_eq!(expand_braces("x{a}y", 64), None);
        assert_eq!(expand_braces("plain", 64), None);
        let many = "{a,b}".repeat(20);
        assert!(expand_braces(&many, 64).is_some_and(|v| v.len() <= 64));
    }

    #[test]
    fn urls_are_not_local_paths() {
        assert!(is_url("http://169.254.170.2/v2/credentials"));
        assert!(!is_url("file:///home/u/.aws/credentials"));
        assert!(!is_url("~/.aws/credentials"));
        assert!(!is_credential_path("http://169.254.170.2/v2/credentials"));
        assert!(!is_credential_path("https://x/.ssh/id_rsa"));
        assert!(!is_system_write_target("https://x/etc/passwd"));
        assert!(!is_credential_dir("s3://bucket/.aws"));
        assert!(!is_self_protected("https://x/openclaw.json"));
    }

    #[test]
    fn cloud_cli_credentials() {
        for p in [
            "~/.azure/accessTokens.json",
            "~/.azure/msal_token_cache.json",
            "~/.azure/msal_token_cache.bin",
            "~/.azure/service_principal_entries.json",
            "%USERPROFILE%\\.azure\\msal_token_cache.bin",
            "~/.terraform.d/credentials.tfrc.json",
            "~/.oci/config",
            "~/.boto",
            "~/.s3cfg",
            "~/.databrickscfg",
            "~/.pulumi/credentials.json",
            "~/.config/doctl/config.yaml",
            "~/.claude/.credentials.json",
            "~/.config/hub",
        ] {
            assert!(is_credential_path(p), "{p} should be a credential");
        }
        for p in [
            "~/.azure/config",
            "~/.azure/azureProfile.json",
            "src/config.yaml",
        ] {
            assert!(!is_credential_path(p), "{p} should not be a credential");
        }
    }

    #[test]
    fn credential_paths() {
        for p in [
            "~/.ssh/id_rsa",
            "/home/u/.ssh/id_ed25519",
            ".env",
            "app/.env.production",
            "~/.aws/credentials",
            "~/.kube/config",
            "~/.netrc",
            "server.pem",
            "~/.config/gh/hosts.yml",
            "~/.docker/config.json",
            "/etc/shadow",
            "/mnt/sysroot/etc/gshadow",
            "etc/shadow",
            "~/.git-credentials",
            "~/.gnupg/private-keys-v1.d/x.key",
            "~/.npmrc",
            "infra/terraform.tfstate",
            "terraform.tfstate.backup",
            "~/Library/Keychains/login.keychain-db",
            "~/.mozilla/firefox/abc.default-release/logins.json",
            "~/.mozilla/firefox/abc.default-release/key4.db",
            "~/.config/google-chrome/Default/Login Data",
            "~/Library/Application Support/Google/Chrome/Default/Cookies",
            "~/.bitcoin/wallet.dat",
            "~/.ethereum/keystore/UTC--2020-01-01--abc",
        ] {
            assert!(is_credential_path(p), "{p}");
        }
        for p in [
            "~/.ssh/id_rsa.pub",
            ".env.example",
            "README.md",
            "src/env.rs",
            "~/.ssh/known_hosts",
            "tokens.md",
            "config.json",
            "main.tf",
            "docs/history.md",
            "src/keychain.rs",
            "~/.mozilla/firefox/abc.default-release/prefs.js",
            "~/.config/google-chrome/Default/Bookmarks",
            "cookies.txt.example",
            "tests/fixtures/shadow",
            "/tmp/out/shadow",
        ] {
            assert!(!is_credential_path(p), "{p}");
        }
    }

    #[test]
    fn openclaw_secret_stores_and_process_environments_are_credentials() {
        for p in [
            "~/.openclaw/openclaw.json",
            "/srv/x/openclaw.json.bak",
            "~/.openclaw/credentials/oauth.json",
            "~/.openclaw/credentials/whatsapp/biz/creds.json",
            "~/.openclaw/secrets/xai-api-key.txt",
            "~/.openclaw/gateway.token",
            "~/.openclaw/state/openclaw.sqlite",
            "~/.openclaw/agents/main/agent/openclaw-agent.sqlite",
            "~/.openclaw/agents/main/agent/auth-profiles.json",
            "~/.openclaw/.env",
            "/proc/self/environ",
            "/proc/1234/environ",
        ] {
            assert!(is_credential_path(p), "{p}");
        }
        for p in [
            "~/.openclaw/workspace/notes.md",
            "~/.openclaw/logs/commands.log",
            "docs/openclaw.json.example",
            "openclaw.plugin.json",
            "/proc/cpuinfo",
            "src/environ",
        ] {
            assert!(!is_credential_path(p), "{p}");
        }
    }

    #[test]
    fn credential_directories_and_their_ancestors() {
        for p in [
            "~/.ssh",
            "~/.ssh/",
            "/home/u/.aws",
            "~/.gnupg/private-keys-v1.d",
            "~",
            "/",
            "/root",
            "/home/u",
            "/Users/me",
            "~/.openclaw",
            "~/.openclaw/credentials",
            "C:\\Users\\me",
            "~/.config",
        ] {
            assert!(is_credential_dir(p), "{p}");
        }
        for p in [
            ".",
            "src",
            "/home/u/project",
            "~/project",
            "/tmp",
            "~/.openclaw/workspace",
            "/etc",
        ] {
            assert!(!is_credential_dir(p), "{p}");
        }
    }

    #[test]
    fn renders_normalized_paths() {
        for (raw, want) in [
            ("/etc/../etc/hosts", "/etc/hosts"),
            ("$HOME/.ssh/id_rsa", "~/.ssh/id_rsa"),
            ("~", "~/"),
            ("C:\\Users\\me", "c:/Users/me"),
            ("./src//a.rs", "src/a.rs"),
            ("../x", "../x"),
            (".", "."),
            ("/", "/"),
        ] {
            assert_eq!(normalize(raw).render(), want, "{raw}");
        }
    }

    #[test]
    fn system_write_targets() {
        for p in [
            "~/.ssh/authorized_keys",
            "/etc/sudoers",
            "/Library/LaunchDaemons/x.plist",
            "~/Library/LaunchAgents/com.x.plist",
            "/System/Library/x",
            "/etc/sudoers.d/x",
            "/etc/hosts",
            "/usr/local/bin/x",
            "~/.bashrc",
            "/root/.profile",
            "C:\\Windows\\System32\\x",
        ] {
            assert!(is_system_write_target(p), "{p}");
        }
        for p in ["./etc/x", "src/main.rs", "/tmp/x", "~/project/.bashrc.md"] {
            assert!(!is_system_write_target(p), "{p}");
        }
    }

    #[test]
    fn account_files_count_only_where_the_system_keeps_them() {
        // Workspace-relative fixtures and templates named like account files are data.
        for p in [
            "tests/fixtures/etc/passwd",
            "tests/fixtures/passwd",
            "roles/base/files/sudoers",
            "deploy/crontab",
            "fixtures/shadow",
            "src/known_hosts",
        ] {
            assert!(!is_system_write_target(p), "{p}");
        }
        // Outside a system's `etc` directory, absolute paths too: a workspace rooted by the
        // exec `workdir`, a home, a scratch directory.
        for p in [
            "/home/u/project/tests/fixtures/passwd",
            "/home/u/project/etc/passwd",
            "/Users/u/src/etc/sudoers",
            "~/sudoers",
            "~/etc/shadow",
            "/home/u/crontab",
            "/tmp/x/shadow",
            "C:\\x\\passwd",
            "C:\\Users\\u\\src\\etc\\group",
            "/srv/app/group",
            "~/.ssh_backup/known_hosts",
        ] {
            assert!(!is_system_write_target(p), "{p}");
        }
        // A system's `etc` (also a mounted root's), and key files or `.ssh` anywhere.
        for p in [
            "/etc/passwd",
            "/mnt/sysroot/etc/shadow",
            "/media/disk/etc/sudoers",
            "/srv/chroot/etc/group",
            "C:\\rootfs\\etc\\passwd",
            "/private/etc/master.passwd",
            "etc/passwd",
            "authorized_keys",
            "keys/authorized_keys2",
            ".ssh/config",
            "fixtures/.ssh/known_hosts",
            "work/sudoers.d/x",
        ] {
            assert!(is_system_write_target(p), "{p}");
        }
    }

    #[test]
    fn self_protection() {
        for p in [
            "~/.openclaw/openclaw.json",
            "/x/openclaw.json",
            "~/.openclaw/extensions/human-gate/index.js",
            "/home/u/.openclaw/state/x",
        ] {
            assert!(is_self_protected(p), "{p}");
        }
        for p in [
            "~/.openclaw/workspace/notes.md",
            "/home/u/.openclaw/workspace-2/a",
            "src/openclaw.ts",
            "/home/u/.openclaw/sandboxes/agent-main/src/a.rs",
        ] {
            assert!(!is_self_protected(p), "{p}");
        }
        for p in [
            "~/.openclaw/sandboxes",
            "~/.openclaw/sandboxes/agent-main",
            "~/.openclaw/sandboxes/../openclaw.json",
            "~/.openclaw/sandbox/containers.json",
            "~/.openclaw/sandboxes/x/openclaw.json",
        ] {
            assert!(is_self_protected(p), "{p}");
        }
    }
}
