//! Containers: `docker`/`podman`/`nerdctl` and compose.
//! - `container-data-destruction`: `system prune -a|--volumes`, `volume prune|rm`, `image
//!   prune -a`, `container prune`, `compose down -v|--rmi`, `rm -v`, `rm -a`, wholesale
//!   `rm -f`/`rmi -f` (several or run-time targets);
//! - commands run inside containers (`run`, `exec`, `compose exec|run`) become payloads; paths
//!   under a host mount are rewritten to the host's (`-v /:/host … rm -rf /host` is `rm -rf /`,
//!   `-v $PWD:/w … rm -rf /w` is `rm -rf .`); privileged runs and broad host mounts are
//!   `privilege-elevation`; `exec` is `remote-access`, and `exec -i` hands the line's stdin
//!   (a heredoc, here-string, pipe of known text) to its payload (`docker exec -i db psql
//!   <<'SQL'` is judged as `psql` reading that SQL), as `compose exec|run` always do;
//! - `docker push` is `network-mutation` only, unless the image names production: image tags
//!   are mutable and routinely pushed to private registries by CI, unlike a registry version,
//!   and the registry's audience cannot be seen in the command.

use super::infra::{control, destroy};
use super::{cluster, long, parse, parse_head, plain_words, shown, Call, Category, Out};
use crate::analysis::shell::command::Dialect;
use crate::analysis::shell::model::Word;
use crate::finding;

/// The engine's options that take a value (`docker -H host ps`, `--context x`).
const GLOBAL_SHORT_VALUES: &str = "Hcl";
const GLOBAL_VALUES: &[&str] = &[
    "host",
    "context",
    "config",
    "log-level",
    "tlscacert",
    "tlscert",
    "tlskey",
];

pub(super) fn docker(c: &Call<'_, '_>, out: &mut Out, args: &[&Word]) {
    let Some(at) = first_positional(args, GLOBAL_SHORT_VALUES, GLOBAL_VALUES) else {
        return;
    };
    let Some(sub_word) = args.get(at) else {
        return;
    };
    let rest: &[&Word] = args.get(at + 1..).unwrap_or(&[]);
    let sub = sub_word.text.as_str();
    // Only these subcommands read the plain words after them (`docker volume rm x`): the
    // others (`run`, `exec`, `compose` …) parse their own arguments.
    let reads_plain = matches!(
        sub,
        "system"
            | "volume"
            | "image"
            | "container"
            | "rm"
            | "rmi"
            | "network"
            | "builder"
            | "buildx"
            | "stack"
            | "push"
    );
    let rest_plain = if reads_plain {
        plain_words(rest)
    } else {
        Vec::new()
    };
    let second = rest_plain.first().map(|w| w.text.as_str()).unwrap_or("");
    let flag = |short: char, long_name: &str| {
        rest.iter().any(|w| {
            cluster(&w.text).is_some_and(|cl| cl.contains(short))
                || long(&w.text) == Some(long_name)
        })
    };
    let many = |targets: &[&Word]| {
        targets.len() >= 2 || targets.iter().any(|w| w.dynamic) || c.cmd.args_unknown
    };
    // `docker rm $(docker ps -aq)`: the targets are every container, image or volume.
    let everything = reads_plain && rest_plain.iter().any(|w| lists_everything(w));
    // Written into the details that name it (most subcommands make none): no copy up front.
    let who = Who(c.prog, sub);
    match sub {
        // `podman system reset` deletes every container, image, volume and network.
        "system" if second == "reset" => wipe(
            out,
            format!("{who} reset deletes all containers, images and volumes"),
        ),
        "system" if second == "prune" => {
            if flag('a', "all") || rest.iter().any(|w| w.text == "--volumes") {
                wipe(
                    out,
                    format!("{who} prune removes all unused images, containers or volumes"),
                );
            } else {
                control(
                    out,
                    format!("{who} prune removes stopped containers and caches"),
                );
            }
        }
        // Disk usage, engine information and the event stream: reads only.
        "system" if matches!(second, "df" | "info" | "events") => out.category(Category::ReadOnly),
        "volume" => match second {
            "prune" | "rm" | "remove" => wipe(out, format!("{who} {second} deletes volume data")),
            "ls" | "list" | "inspect" => out.category(Category::ReadOnly),
            _ => control(out, format!("{who} changes volumes")),
        },
        "image" => match second {
            "prune" if flag('a', "all") => {
                wipe(out, format!("{who} prune -a removes every unused image"))
            }
            "rm" | "remove" if many(rest_plain.get(1..).unwrap_or(&[])) || everything => {
                wipe(out, format!("{who} rm removes images wholesale"))
            }
            "ls" | "list" | "inspect" | "history" => out.category(Category::ReadOnly),
            "build" => out.category(Category::DevBuild),
            _ => control(out, format!("{who} changes images")),
        },
        "container" => match second {
            "prune" => wipe(out, format!("{who} prune removes every stopped container")),
            "rm" | "remove"
                if flag('v', "volumes")
                    || everything
                    || (flag('f', "force") && many(rest_plain.get(1..).unwrap_or(&[]))) =>
            {
                wipe(out, format!("{who} rm removes containers and their data"))
            }
            "ls" | "list" | "inspect" | "logs" | "top" | "stats" | "port" | "diff" => {
                out.category(Category::ReadOnly)
            }
            "exec" => container_exec(c, out, rest.get(1..).unwrap_or(&[])),
            "run" => container_run(c, out, rest.get(1..).unwrap_or(&[])),
            _ => control(out, format!("{who} changes containers")),
        },
        "rm" => {
            if flag('v', "volumes")
                || flag('a', "all")
                || everything
                || (flag('f', "force") && many(&rest_plain))
            {
                wipe(out, format!("{who} removes containers and their data"));
            } else {
                control(out, format!("{who} removes containers"));
            }
        }
        "rmi" => {
            if many(&rest_plain) && flag('f', "force") || everything {
                wipe(out, format!("{who} removes images wholesale"));
            } else {
                control(out, format!("{who} removes images"));
            }
        }
        "network" | "builder" | "buildx" if second == "prune" || second == "rm" => control(
            out,
            format!("{who} {second} removes networks or build caches"),
        ),
        "compose" => compose(c, out, rest),
        "stack" if second == "rm" || second == "remove" => {
            destroy(out, format!("{who} rm removes a deployed stack"))
        }
        "run" | "create" => container_run(c, out, rest),
        "exec" => container_exec(c, out, rest),
        "push" => {
            out.effects().network = true;
            out.not_read_only();
            out.add(
                &finding::NETWORK_MUTATION,
                format!("{who} publishes an image"),
            );
            if let Some(img) = rest_plain
                .iter()
                .find(|w| super::deploy::is_prod_marker_word(&w.text))
            {
                out.add(
                    &finding::PRODUCTION_DEPLOYMENT,
                    format!("{who} publishes the production image {}", shown(&img.text)),
                );
            }
        }
        "pull" | "login" | "logout" => {
            out.effects().network = true;
            out.not_read_only();
        }
        "build" => out.category(Category::DevBuild),
        "ps" | "images" | "logs" | "inspect" | "version" | "info" | "stats" | "top" | "history"
        | "port" | "diff" | "events" | "search" => out.category(Category::ReadOnly),
        "stop" | "kill" | "restart" | "pause" | "unpause" | "start" | "update" | "rename"
        | "swarm" | "service" | "node" | "secret" | "config" | "plugin" | "cp" | "commit"
        | "tag" | "save" | "load" | "import" | "export" | "network" => {
            control(out, format!("{who} changes containers or the engine"))
        }
        _ => {}
    }
}

/// Where [`parse`] would find its first positional word in `args` (the same options, values
/// and `--`), without building the parse: the subcommand of `docker [options] sub …`.
/// `tests::the_first_positional_word_is_the_parse_s_first` holds it equal to the parse.
fn first_positional(args: &[&Word], short_vals: &str, long_vals: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
        if t == "--" {
            return (i < args.len()).then_some(i);
        }
        if let Some(rest) = t.strip_prefix("--") {
            if !rest.contains('=') && long_vals.contains(&rest) {
                i += 1;
            }
            continue;
        }
        if let Some(cl) = cluster(t) {
            for (at, ch) in cl.char_indices() {
                if short_vals.contains(ch) {
                    if at + ch.len_utf8() == cl.len() {
                        i += 1;
                    }
                    break;
                }
            }
            continue;
        }
        return Some(i - 1);
    }
    None
}

/// `` `docker rm` ``: the program and subcommand a detail names, backticked.
struct Who<'a>(&'a str, &'a str);

impl std::fmt::Display for Who<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{} {}`", self.0, self.1)
    }
}

fn wipe(out: &mut Out, why: impl Into<String>) {
    out.not_read_only();
    out.add(&finding::CONTAINER_DATA_DESTRUCTION, why);
}

pub(super) fn compose(c: &Call<'_, '_>, out: &mut Out, args: &[&Word]) {
    let p = parse(
        args,
        "fp",
        &[
            "file",
            "project-name",
            "profile",
            "env-file",
            "project-directory",
            "ansi",
            "progress",
            "parallel",
        ],
    );
    let sub = p.pos.first().map(|w| w.text.as_str()).unwrap_or("");
    let has = |s: &str| {
        args.iter().any(|w| {
            w.text == s
                || cluster(&w.text)
                    .is_some_and(|cl| s.len() == 2 && cl.contains(s.trim_start_matches('-')))
        })
    };
    match sub {
        "down" => {
            if has("-v") || has("--volumes") || args.iter().any(|w| w.text == "--rmi") {
                wipe(out, "`compose down -v` deletes the project's volumes");
            } else {
                control(
                    out,
                    "`compose down` stops and removes the project's containers",
                );
            }
        }
        "rm" if has("-v") => wipe(out, "`compose rm -v` deletes anonymous volumes"),
        "build" => out.category(Category::DevBuild),
        "ps" | "logs" | "config" | "images" | "top" | "ls" | "version" | "events" | "port" => {
            out.category(Category::ReadOnly)
        }
        "exec" | "run" => {
            out.not_read_only();
            let rest: Vec<&Word> = args
                .iter()
                .skip_while(|w| w.text != sub)
                .skip(1)
                .copied()
                .collect();
            let q = parse_head(
                &rest,
                "euwpv",
                &[
                    "env",
                    "user",
                    "workdir",
                    "entrypoint",
                    "name",
                    "publish",
                    "volume",
                    "label",
                ],
            );
            if let Some((_svc, cmd)) = q.pos.split_first() {
                if !cmd.is_empty() {
                    // Compose keeps stdin open by default (`-i` is on, `-T` only drops the TTY).
                    let text = super::argv_text(cmd.iter().copied());
                    let text = super::feed_stdin(c, out, text);
                    out.payload(Dialect::Posix, text, "docker compose exec", false);
                }
            }
        }
        "" => {}
        _ => control(out, format!("`compose {sub}` changes containers")),
    }
}

/// Options of `docker run`/`create` that take a value.
const RUN_VALUES: &[&str] = &[
    "add-host",
    "annotation",
    "attach",
    "blkio-weight",
    "cap-add",
    "cap-drop",
    "cgroup-parent",
    "cgroupns",
    "cidfile",
    "cpu-period",
    "cpu-quota",
    "cpu-shares",
    "cpus",
    "cpuset-cpus",
    "cpuset-mems",
    "device",
    "device-cgroup-rule",
    "dns",
    "dns-option",
    "dns-search",
    "domainname",
    "entrypoint",
    "env",
    "env-file",
    "expose",
    "gpus",
    "group-add",
    "health-cmd",
    "health-interval",
    "health-retries",
    "health-start-period",
    "health-timeout",
    "hostname",
    "ip",
    "ip6",
    "ipc",
    "isolation",
    "label",
    "label-file",
    "link",
    "log-driver",
    "log-opt",
    "mac-address",
    "memory",
    "memory-reservation",
    "memory-swap",
    "mount",
    "name",
    "network",
    "network-alias",
    "oom-score-adj",
    "pid",
    "pids-limit",
    "platform",
    "publish",
    "pull",
    "restart",
    "runtime",
    "security-opt",
    "shm-size",
    "stop-signal",
    "stop-timeout",
    "storage-opt",
    "sysctl",
    "tmpfs",
    "ulimit",
    "user",
    "userns",
    "uts",
    "volume",
    "volume-driver",
    "volumes-from",
    "workdir",
    "net",
    "memory-swappiness",
    "kernel-memory",
];

fn container_run(c: &Call<'_, '_>, out: &mut Out, args: &[&Word]) {
    let p = parse_head(args, "aehlmpuvw", RUN_VALUES);
    out.not_read_only();
    let privileged = p.has("privileged")
        || p.values("pid")
            .chain(p.values("net"))
            .chain(p.values("network"))
            .chain(p.values("ipc"))
            .any(|v| v == "host")
        || p.values("cap-add")
            .any(|v| v.eq_ignore_ascii_case("all") || v.eq_ignore_ascii_case("sys_admin"));
    // (Borrowed from the argument words, in order: `-v`, `--volume`, then `--mount`; read
    // where needed, not collected.)
    let mounts = || {
        let volumes = p.values("v").chain(p.values("volume")).filter_map(|v| {
            let mut parts = v.split(':');
            Some((parts.next()?, parts.next()?))
        });
        let mounts = p.values("mount").filter_map(|v| {
            let get = |k: &str| {
                v.split(',')
                    .find_map(|kv| kv.split_once('=').filter(|(a, _)| *a == k).map(|(_, b)| b))
            };
            Some((
                get("source").or_else(|| get("src"))?,
                get("target")
                    .or_else(|| get("dst"))
                    .or_else(|| get("destination"))?,
            ))
        });
        volumes.chain(mounts)
    };
    let cwd = |src: &str| {
        matches!(
            src,
            "." | "./"
                | "$PWD"
                | "${PWD}"
                | "$(pwd)"
                | "`pwd`"
                | "%cd%"
                | "${pwd}"
                | "$pwd"
                | "${PWD}/"
                | "$PWD/"
        )
    };
    let host_root = mounts().find(|(src, _)| {
        !cwd(src)
            && matches!(
                super::breadth(src, src.contains('$'), false),
                crate::analysis::paths::Breadth::Broad(_)
            )
    });
    if privileged || host_root.is_some() {
        out.add(
            &finding::PRIVILEGE_ELEVATION,
            match host_root {
                Some((src, _)) => format!(
                    "`{} run` mounts the host's {} into a container",
                    c.prog,
                    shown(src)
                ),
                None => format!("`{} run` gives a container host privileges", c.prog),
            },
        );
    }
    let Some((_image, cmd)) = p.pos.split_first() else {
        return;
    };
    let entrypoint = p.value("entrypoint").map(|e| Word {
        text: e.to_owned(),
        ..Word::default()
    });
    if entrypoint.is_none() && cmd.is_empty() {
        return;
    }
    let mut joined = super::argv_text(entrypoint.iter().chain(cmd.iter().copied()));
    // Paths under a host mount are the host's paths (the working directory for `$PWD:/w`).
    if let Some((src, dst)) = host_root {
        if dst.len() > 1 {
            let base = if src == "/" {
                ""
            } else {
                src.trim_end_matches('/')
            };
            // (`replace` of an absent pattern would only copy the text.)
            if let Some(at) = find_from(&joined, dst, 0) {
                joined = replace_from(&joined, at, dst, if base.is_empty() { "/" } else { base });
            }
            if let Some(at) = find_from(&joined, "//", 0) {
                joined = replace_from(&joined, at, "//", "/");
            }
        }
    } else if let Some((_, dst)) = mounts().find(|(src, _)| cwd(src)) {
        if dst.len() > 1 {
            if let Some(at) = find_from(&joined, dst, 0) {
                joined = replace_from(&joined, at, dst, ".");
            }
        }
    }
    out.payload(Dialect::Posix, joined, "docker run", false);
}

/// `text.replace(from, to)` when `from` (not empty) was first found at `at`: the search goes on
/// from there instead of starting over (the matches after the first are the same).
fn replace_from(text: &str, at: usize, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut next = Some(at);
    while let Some(i) = next {
        out.push_str(text.get(last..i).unwrap_or(""));
        out.push_str(to);
        last = i + from.len();
        next = find_from(text, from, last);
    }
    out.push_str(text.get(last..).unwrap_or(""));
    out
}

/// `text[start..].find(needle)` as an offset in `text`, for a short needle in a command line:
/// a plain scan (a `str` search first builds a two-way searcher, which costs more here).
/// A match of valid UTF-8 bytes starts on a char boundary, like `find`'s. (The needle is never
/// empty here; for an empty one this says `None`.)
fn find_from(text: &str, needle: &str, start: usize) -> Option<usize> {
    let (hay, pat) = (text.as_bytes().get(start..)?, needle.as_bytes());
    let (&first, rest) = pat.split_first()?;
    let last_start = hay.len().checked_sub(pat.len())?;
    (0..=last_start)
        .find(|&i| hay.get(i) == Some(&first) && hay.get(i + 1..i + pat.len()) == Some(rest))
        .map(|i| start + i)
}

/// A word substituted from a quiet listing of every container, image or volume
/// (`$(docker ps -aq)`, `` `podman images -q` ``, `$(docker volume ls -q)`).
fn lists_everything(w: &Word) -> bool {
    if !w.dynamic {
        return false;
    }
    let lower = w.text.to_ascii_lowercase();
    let inner = lower
        .trim_start_matches("$(")
        .trim_start_matches('`')
        .trim_end_matches(')')
        .trim_end_matches('`');
    let words: Vec<&str> = inner.split_whitespace().collect();
    let Some((prog, rest)) = words.split_first() else {
        return false;
    };
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    if !matches!(prog, "docker" | "podman" | "nerdctl" | "finch") {
        return false;
    }
    let quiet = rest
        .iter()
        .any(|t| *t == "--quiet" || t.starts_with('-') && !t.starts_with("--") && t.contains('q'));
    let filtered = rest.iter().any(|t| t.starts_with("--filter") || *t == "-f");
    let listing = match rest.iter().find(|t| !t.starts_with('-')).copied() {
        Some("ps" | "images") => true,
        Some("container" | "image" | "volume") => rest
            .iter()
            .filter(|t| !t.starts_with('-'))
            .nth(1)
            .is_some_and(|t| matches!(*t, "ls" | "list")),
        _ => false,
    };
    listing && quiet && !filtered
}

fn container_exec(c: &Call<'_, '_>, out: &mut Out, args: &[&Word]) {
    out.not_read_only();
    out.add(
        &finding::REMOTE_ACCESS,
        format!("`{} exec` runs a command in a container", c.prog),
    );
    let p = parse_head(
        args,
        "euw",
        &["env", "env-file", "user", "workdir", "detach-keys"],
    );
    if let Some((_container, cmd)) = p.pos.split_first() {
        if let Some(first) = cmd.first() {
            let mut text = super::argv_text(cmd.iter().copied());
            let at = args
                .iter()
                .position(|w| std::ptr::eq(*w, *first))
                .unwrap_or(args.len());
            if super::forwards_stdin(args.get(..at).unwrap_or(&[])) {
                text = super::feed_stdin(c, out, text);
            }
            out.payload(Dialect::Posix, text, "docker exec", false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::Category;
    use crate::analysis::shell::model::{LexLimits, Word};
    use crate::analysis::shell::posix;
    use crate::finding::*;

    /// [`super::Who`] writes what the `format!` it replaced made, for every program and
    /// subcommand word of the corpora.
    #[test]
    fn who_writes_the_backticked_program_and_subcommand() {
        let texts = corpus_texts();
        for prog in ["docker", "podman", "nerdctl", "finch"] {
            for sub in &texts {
                let old = format!("`{} {sub}`", prog);
                assert_eq!(super::Who(prog, sub).to_string(), old);
                assert_eq!(
                    format!("{} prune", super::Who(prog, sub)),
                    format!("{old} prune")
                );
            }
        }
    }

    #[test]
    fn containers() {
        for s in [
            "docker system prune -af",
            "docker system prune -a",
            "docker system prune --volumes",
            "docker volume prune -f",
            "docker volume rm data",
            "docker image prune -a",
            "docker container prune",
            "docker compose down -v",
            "docker compose -f x.yml down --volumes",
            "docker-compose down -v",
            "docker rm -f $(docker ps -aq)",
            "docker rm $(docker ps -aq)",
            "docker rm `docker ps -a -q`",
            "docker container rm $(docker container ls -aq)",
            "docker rmi $(docker images -q)",
            "docker image rm $(docker image ls -q)",
            "docker volume rm $(docker volume ls -q)",
            "podman rm $(podman ps -qa)",
            "docker rm -f a b c",
            "docker rm -v db",
            "podman system prune -a",
            "podman volume prune",
        ] {
            assert_has(s, &CONTAINER_DATA_DESTRUCTION);
            assert_critical(s);
        }
        for s in [
            "docker ps",
            "docker images",
            "docker logs x",
            "docker inspect x",
            "docker compose ps",
        ] {
            assert_category(s, Category::ReadOnly);
        }
        assert_not_critical("docker system prune");
        assert_not_critical("docker compose down");
        assert_not_critical("docker rm old");
        assert_not_critical("docker stop $(docker ps -q)");
        assert_not_critical("docker rm $(docker ps -aq --filter status=exited)");
        // Argument boundaries survive into the container's command.
        assert_eq!(
            payloads("docker exec pg psql -c 'DROP DATABASE app'"),
            ["psql -c 'DROP DATABASE app'"]
        );
        assert_has("docker exec pg psql -c 'DROP DATABASE app'", &REMOTE_ACCESS);
        assert_not_critical("docker image prune");
        assert_category("docker build -t x .", Category::DevBuild);
    }
    #[test]
    fn container_commands_are_payloads() {
        assert_eq!(
            payloads("docker run --rm -v $PWD:/w -w /w alpine rm -rf /w"),
            ["rm -rf ."]
        );
        assert_eq!(
            payloads("docker run --rm -v \"$PWD\":/w alpine rm -rf /w/build"),
            ["rm -rf ./build"]
        );
        assert_eq!(
            payloads("docker run -it --entrypoint sh alpine -c id"),
            ["sh -c id"]
        );
        assert_eq!(
            payloads("docker exec -it web rm -rf /data"),
            ["rm -rf /data"]
        );
        assert_has("docker exec web ls", &REMOTE_ACCESS);
        assert_eq!(
            payloads("docker run -v /:/host alpine rm -rf /host"),
            ["rm -rf /"]
        );
        assert_has("docker run --privileged alpine sh", &PRIVILEGE_ELEVATION);
        assert_has(
            "docker run -v /:/host alpine ls /host",
            &PRIVILEGE_ELEVATION,
        );
        assert_eq!(
            payloads("docker compose exec web rm -rf /data"),
            ["rm -rf /data"]
        );
    }
    /// The subcommand's position as `docker` found it before: the first positional word of
    /// [`super::parse`] (then its position among the arguments).
    fn parsed_first(args: &[&Word], short_vals: &str, long_vals: &[&str]) -> Option<usize> {
        let p = super::parse(args, short_vals, long_vals);
        let first = p.pos.first()?;
        Some(
            args.iter()
                .position(|w| std::ptr::eq(*w, *first))
                .unwrap_or(0),
        )
    }

    /// [`super::first_positional`] finds what the parse found, for the arguments of every
    /// command of every corpus text (with docker's options and with `run`'s) .
    #[test]
    fn the_first_positional_word_is_the_parse_s_first() {
        let mut found = 0;
        for t in corpus_texts() {
            let script = posix::lex(&t, &LexLimits::default());
            for c in &script.commands {
                let args: Vec<&Word> = c.argv.iter().skip(1).collect();
                for (short, long) in [
                    (super::GLOBAL_SHORT_VALUES, super::GLOBAL_VALUES),
                    ("aehlmpuvw", super::RUN_VALUES),
                ] {
                    let want = parsed_first(&args, short, long);
                    assert_eq!(super::first_positional(&args, short, long), want, "{t:?}");
                    found += usize::from(want.is_some_and(|i| i > 0));
                }
            }
        }
        assert!(found > 500, "{found}");
    }

    proptest::proptest! {
        /// The same over argument lists made of options, values, `--` and words.
        #[test]
        fn the_first_positional_word_is_the_parse_s_first_for_any_arguments(
            picks in proptest::collection::vec(0usize..20, 0..8)
        ) {
            const TOKENS: [&str; 20] = [
                "--", "-H", "-Hx", "-c", "-l", "-abc", "-aH", "--host", "--host=x", "--context",
                "--foo", "--foo=bar", "-", "x", "run", "---", "-é", "-éH", "--config", "--=",
            ];
            let words: Vec<Word> = picks
                .iter()
                .map(|&i| Word { text: TOKENS[i].to_owned(), ..Word::default() })
                .collect();
            let args: Vec<&Word> = words.iter().collect();
            let (short, long) = (super::GLOBAL_SHORT_VALUES, super::GLOBAL_VALUES);
            proptest::prop_assert_eq!(
                super::first_positional(&args, short, long),
                parsed_first(&args, short, long)
            );
        }

        /// [`super::replace_from`] at the first match is `str::replace`, and
        /// [`super::find_from`] is `find`.
        #[test]
        fn replacing_from_the_first_match_is_replace(
            text in "[ab/ .é]{0,24}",
            from in "[ab/é]{1,3}",
            to in "[ab/.]{0,3}",
            start in 0usize..26,
        ) {
            if text.is_char_boundary(start.min(text.len())) {
                let start = start.min(text.len());
                proptest::prop_assert_eq!(
                    super::find_from(&text, &from, start),
                    text[start..].find(&from).map(|i| i + start)
                );
            }
            proptest::prop_assert_eq!(super::find_from(&text, &from, 0), text.find(&from));
            if let Some(at) = text.find(&from) {
                proptest::prop_assert_eq!(
                    super::replace_from(&text, at, &from, &to),
                    text.replace(&from, &to)
                );
            }
        }
    }

    #[test]
    fn docker_push_decision() {
        assert_has(
            "docker push registry.example.com/app:1.2",
            &NETWORK_MUTATION,
        );
        assert_not_critical("docker push registry.example.com/app:1.2");
        assert_not_critical("docker push localhost:5000/app");
        assert_has(
            "docker push registry.example.com/app:prod",
            &PRODUCTION_DEPLOYMENT,
        );
    }
}
