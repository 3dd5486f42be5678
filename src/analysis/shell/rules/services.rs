//! Services, schedules, firewalls, power, processes and system settings
//! (`control-plane-change`): `systemctl`/`service`/`launchctl`/`sc`, `crontab` (its jobs from
//! stdin become payloads), `schtasks` (`/tr` is a payload), `at`, `iptables`/`nft`/`ufw`/
//! `firewall-cmd`/`pfctl`/`netsh`, `sysctl -w`, `reboot`/`shutdown`, `kill`/`pkill`/`taskkill`,
//! `ip`/`ifconfig`/`route`, mounts, kernel modules, hostname/clock, registry writes, package
//! removal, and the PowerShell service/task/firewall/Defender cmdlets. Read forms (`systemctl
//! status`, `crontab -l`, `iptables -L`) are read-only. Stopping or killing the OpenClaw
//! gateway is `self-protection`. Terminal multiplexers (`tmux new 'cmd'`, `tmux send-keys`,
//! `screen -dm cmd`) run their command: it becomes a payload.

use super::infra::control;
use super::{cluster, long, lower, parse, parse_head, Call, Category, Out, Part};
use crate::analysis::shell::command::Dialect;
use crate::finding;
use std::borrow::Cow;

/// Names of the gate and its host, found in a lowercased argument.
pub(super) const GATE_NAMES: super::needles::Needles<2> =
    super::needles::Needles::lowered(["openclaw", "human-gate"]);

fn mentions_gate(c: &Call<'_, '_>) -> bool {
    c.args.iter().any(|w| GATE_NAMES.any_in(&w.text))
}

/// Programs [`apply`] knows (checked before any per-argument work).
pub(super) const CONTROL_PROGS: super::Words = super::Words::new(&[
    "systemctl",
    "service",
    "launchctl",
    "sc",
    "crontab",
    "schtasks",
    "at",
    "batch",
    "iptables",
    "ip6tables",
    "iptables-legacy",
    "iptables-nft",
    "ebtables",
    "arptables",
    "nft",
    "ufw",
    "firewall-cmd",
    "pfctl",
    "ipfw",
    "netsh",
    "sysctl",
    "reboot",
    "shutdown",
    "halt",
    "poweroff",
    "telinit",
    "init",
    "kill",
    "pkill",
    "killall",
    "xkill",
    "skill",
    "killall5",
    "taskkill",
    "tskill",
    "ip",
    "ifconfig",
    "route",
    "mount",
    "umount",
    "swapoff",
    "swapon",
    "modprobe",
    "insmod",
    "rmmod",
    "kextload",
    "kextunload",
    "hostnamectl",
    "timedatectl",
    "localectl",
    "hostname",
    "date",
    "reg",
    "bcdedit",
    "apt",
    "apt-get",
    "yum",
    "dnf",
    "apk",
    "zypper",
    "brew",
    "snap",
    "choco",
    "winget",
    "tmux",
    "screen",
    "byobu",
]);

/// Cmdlets [`apply`] knows.
pub(super) const CONTROL_CMDLETS: super::Words = super::Words::new(&[
    "stop-service",
    "start-service",
    "restart-service",
    "set-service",
    "suspend-service",
    "new-service",
    "remove-service",
    "register-scheduledtask",
    "unregister-scheduledtask",
    "set-scheduledtask",
    "start-scheduledtask",
    "disable-scheduledtask",
    "new-netfirewallrule",
    "set-netfirewallrule",
    "remove-netfirewallrule",
    "disable-netfirewallrule",
    "set-netfirewallprofile",
    "set-mppreference",
    "add-mppreference",
    "set-executionpolicy",
    "stop-computer",
    "restart-computer",
    "stop-process",
    "set-itemproperty",
    "new-itemproperty",
    "remove-itemproperty",
    "set-date",
    "disable-netadapter",
    "invoke-cimmethod",
    "set-netipaddress",
    "set-dnsclientserveraddress",
]);

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    if !c.prog_in(&CONTROL_PROGS) && !c.ps_in(&CONTROL_CMDLETS) {
        return;
    }
    // Lowercase copies only of words with capitals (a word without is its own lowercase).
    let words: Vec<Cow<'_, str>> = c.plain().iter().map(|w| lower(&w.text)).collect();
    let first = words.first().map(AsRef::as_ref).unwrap_or("");
    let has = |s: &str| c.args.iter().any(|w| w.text == s);
    let who = Ticked(c.prog);
    let changed: Option<String> = match c.prog {
        "systemctl" => match first {
            "" | "status" | "show" | "cat" | "help" | "is-active" | "is-enabled" | "is-failed"
            | "is-system-running" | "list-units" | "list-unit-files" | "list-timers"
            | "list-sockets" | "list-dependencies" | "list-jobs" | "get-default"
            | "show-environment" => {
                out.category(Category::ReadOnly);
                None
            }
            _ => Some(super::detail(&[
                Part::T("`"),
                Part::T(c.prog),
                Part::T("` "),
                Part::T(first),
                Part::T(" changes system services"),
            ])),
        },
        "service" => match words.get(1).map(AsRef::as_ref) {
            Some("status") | None => {
                out.category(Category::ReadOnly);
                None
            }
            Some(a) => Some(format!("{who} {a} changes a system service")),
        },
        "launchctl" => match first {
            "list" | "print" | "blame" | "print-disabled" | "help" | "version" | "managerpid" => {
                out.category(Category::ReadOnly);
                None
            }
            _ => Some(format!("{who} {first} changes launch services")),
        },
        "sc" => match first {
            "query" | "queryex" | "qc" | "qdescription" | "getdisplayname" | "getkeyname"
            | "enumdepend" => None,
            "" => None,
            _ => Some(format!("`sc {first}` changes a Windows service")),
        },
        "crontab" => {
            if has("-l") {
                out.category(Category::ReadOnly);
                None
            } else {
                if let Some(jobs) = c.ctx.stdin_text {
                    for job in cron_jobs(jobs) {
                        out.payload(Dialect::Posix, job, "crontab", false);
                    }
                }
                // `crontab FILE` installs the file: its jobs when the line shows its text
                // (`echo '* * * * * …' > j && crontab j`, `crontab <(…)`).
                let mut skip = false;
                for w in c.args {
                    let t = w.text.as_str();
                    if std::mem::take(&mut skip) {
                        continue;
                    }
                    if t == "-u" {
                        skip = true;
                    } else if !t.starts_with('-') {
                        if let Some((jobs, _)) = c.ctx.known.text(t) {
                            for job in cron_jobs(jobs) {
                                out.payload(Dialect::Posix, job, "crontab", false);
                            }
                        }
                    }
                }
                Some("`crontab` replaces or removes scheduled jobs".to_owned())
            }
        }
        "schtasks" => {
            let l: Vec<String> = c.args.iter().map(|w| w.text.to_ascii_lowercase()).collect();
            if let Some(i) = l.iter().position(|t| t == "/tr") {
                if let Some(cmd) = c.arg(i + 1) {
                    out.payload(Dialect::Cmd, cmd.to_owned(), "schtasks /tr", false);
                }
            }
            (!l.iter().any(|t| t == "/query"))
                .then(|| "`schtasks` changes scheduled tasks".to_owned())
        }
        "tmux" | "screen" | "byobu" => {
            multiplexer(c, out);
            None
        }
        "at" | "batch" => Some(format!("{who} schedules commands")),
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" | "ebtables"
        | "arptables" => {
            let read = c.args.iter().all(|w| {
                let t = w.text.as_str();
                !t.starts_with('-')
                    || cluster(t).is_some_and(|cl| cl.chars().all(|ch| "LSnvxt".contains(ch)))
                    || matches!(
                        long(t),
                        Some(
                            "list"
                                | "list-rules"
                                | "numeric"
                                | "verbose"
                                | "line-numbers"
                                | "table"
                        )
                    )
            }) && has_list(c);
            if read {
                out.category(Category::ReadOnly);
                None
            } else {
                Some(format!("{who} changes firewall rules"))
            }
        }
        "nft" => (!matches!(first, "list" | "-a" | "describe"))
            .then(|| "`nft` changes firewall rules".to_owned()),
        "ufw" => (!matches!(first, "status" | "show" | "app" | "version" | ""))
            .then(|| format!("`ufw {first}` changes the firewall")),
        "firewall-cmd" => (!c.args.iter().all(|w| {
            let t = w.text.as_str();
            t.starts_with("--list")
                || t.starts_with("--get")
                || t.starts_with("--query")
                || t == "--state"
                || t.starts_with("--zone")
                || t == "--permanent"
        }))
        .then(|| "`firewall-cmd` changes the firewall".to_owned()),
        "pfctl" | "ipfw" => (!c
            .args
            .iter()
            .any(|w| w.text.starts_with("-s") || w.text == "list"))
        .then(|| format!("{who} changes the firewall")),
        "netsh" => (!c.args.iter().any(|w| w.text.eq_ignore_ascii_case("show")))
            .then(|| "`netsh` changes network or firewall settings".to_owned()),
        "sysctl" => {
            let writes = has("-w")
                || has("-p")
                || has("--system")
                || c.args
                    .iter()
                    .any(|w| w.text.contains('=') && !w.text.starts_with('-'));
            if writes {
                Some("`sysctl` changes kernel parameters".to_owned())
            } else {
                out.category(Category::ReadOnly);
                None
            }
        }
        "reboot" | "shutdown" | "halt" | "poweroff" | "telinit" | "init" => {
            if c.prog == "shutdown" && (has("-c") || has("/a"))
                || c.prog == "init"
                    && !words
                        .iter()
                        .any(|w| matches!(w.as_ref(), "0" | "1" | "6" | "s"))
            {
                None
            } else {
                Some(format!("{who} stops or restarts the machine"))
            }
        }
        "kill" | "pkill" | "killall" | "xkill" | "skill" | "killall5" | "taskkill" | "tskill" => {
            if c.prog == "kill" && (has("-l") || has("-L")) {
                None
            } else {
                Some(format!("{who} stops processes"))
            }
        }
        "ip" => {
            let verbs = [
                "add", "del", "delete", "set", "flush", "change", "replace", "append", "prepend",
                "exec", "attach", "detach",
            ];
            if words.iter().any(|w| verbs.contains(&w.as_ref())) {
                Some("`ip` changes network configuration".to_owned())
            } else {
                out.category(Category::ReadOnly);
                None
            }
        }
        "ifconfig" => {
            if words.len() >= 2 {
                Some("`ifconfig` changes an interface".to_owned())
            } else {
                out.category(Category::ReadOnly);
                None
            }
        }
        "route" => words
            .iter()
            .any(|w| matches!(w.as_ref(), "add" | "del" | "delete" | "change" | "flush"))
            .then(|| "`route` changes routing".to_owned()),
        "mount" | "umount" | "swapoff" | "swapon" => {
            if c.prog == "mount" && c.args.is_empty() {
                out.category(Category::ReadOnly);
                None
            } else {
                Some(format!("{who} changes mounts"))
            }
        }
        "modprobe" | "insmod" | "rmmod" | "kextload" | "kextunload" => {
            Some(format!("{who} changes kernel modules"))
        }
        "hostnamectl" | "timedatectl" | "localectl" => {
            (!matches!(first, "" | "status")).then(|| format!("{who} changes system settings"))
        }
        "hostname" => (!words.is_empty() && !has("-f") && !has("-I") && !has("-i"))
            .then(|| "`hostname` renames the machine".to_owned()),
        "date" => (has("-s") || c.args.iter().any(|w| w.text.starts_with("--set")))
            .then(|| "`date -s` sets the clock".to_owned()),
        "reg" => {
            let key = words.get(1).map(AsRef::as_ref).unwrap_or("");
            let value_only = c
                .args
                .iter()
                .any(|w| matches!(w.text.to_ascii_lowercase().as_str(), "/v" | "/va" | "/ve"));
            if first == "delete" && !value_only && registry_broad(key) {
                out.not_read_only();
                out.add(
                    &finding::SYSTEM_LOCATION_WRITE,
                    format!(
                        "`reg delete` deletes the registry branch {}",
                        super::shown(key)
                    ),
                );
            } else if matches!(first, "add" | "import" | "copy" | "restore" | "load")
                && registry_autostart(key)
            {
                out.not_read_only();
                out.add(
                    &finding::SYSTEM_LOCATION_WRITE,
                    format!(
                        "`reg {first}` writes an autostart key {}",
                        super::shown(key)
                    ),
                );
            }
            (!matches!(first, "query" | "export" | "compare" | ""))
                .then(|| format!("`reg {first}` changes the registry"))
        }
        "bcdedit" => (!c.args.is_empty() && !has("/enum"))
            .then(|| "`bcdedit` changes boot configuration".to_owned()),
        "apt" | "apt-get" | "yum" | "dnf" | "apk" | "zypper" | "brew" | "snap" | "choco"
        | "winget" => matches!(
            first,
            "remove" | "purge" | "autoremove" | "erase" | "del" | "uninstall"
        )
        .then(|| format!("{who} {first} removes system packages")),
        _ => None,
    };
    if matches!(c.ps(), "set-itemproperty" | "new-itemproperty") {
        autostart_property(c, out);
    }
    let posix_handled = matches!(c.prog, "kill" | "sc" | "ps");
    let changed = changed.or_else(|| {
        (!posix_handled && c.ps_in(&CONTROL_CMDLETS))
            .then(|| format!("`{}` changes system state", c.prog))
    });
    if let Some(why) = changed {
        if mentions_gate(c) && !matches!(c.prog, "systemctl" | "service")
            || mentions_gate(c)
                && matches!(
                    first,
                    "stop" | "disable" | "mask" | "kill" | "restart" | "reload"
                )
        {
            out.not_read_only();
            out.add(
                &finding::SELF_PROTECTION,
                format!("{why}, targeting the gateway"),
            );
        }
        control(out, why);
    }
}

/// `Set-ItemProperty`/`New-ItemProperty` on an autostart key (`HKCU:\…\CurrentVersion\Run`,
/// `-Path:HKLM:\…\Winlogon`): the value runs a program at logon, as `reg add` to it does.
fn autostart_property(c: &Call<'_, '_>, out: &mut Out) {
    let key = c.args.iter().map(|w| w.text.as_str()).find(|t| {
        let t = match t.strip_prefix('-') {
            Some(opt) => opt.split_once(':').map_or("", |(_, v)| v),
            None => t,
        };
        registry_autostart(t)
    });
    if let Some(key) = key {
        out.not_read_only();
        out.add(
            &finding::SYSTEM_LOCATION_WRITE,
            format!("`{}` writes an autostart key {}", c.prog, super::shown(key)),
        );
    }
}

/// A program name in backticks where it is formatted (no string of its own).
struct Ticked<'a>(&'a str);

impl std::fmt::Display for Ticked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("`")?;
        f.write_str(self.0)?;
        f.write_str("`")
    }
}

/// The commands of crontab lines (`m h dom mon dow cmd`, `@reboot cmd`), comments and
/// variable lines skipped.
fn cron_jobs(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let skip = if l.starts_with('@') { 1 } else { 5 };
            if fields.len() <= skip || fields.first().is_some_and(|f| f.contains('=')) {
                return None;
            }
            Some(fields.get(skip..).unwrap_or(&[]).join(" "))
        })
        .take(super::MAX_PAYLOADS)
        .collect()
}

/// `tmux new-session 'cmd'`, `tmux send-keys 'cmd' Enter`, `screen -dm cmd args`: the
/// command runs in a new terminal.
fn multiplexer(c: &Call<'_, '_>, out: &mut Out) {
    out.not_read_only();
    if c.prog == "screen" {
        let p = parse_head(c.args, "SpcXe", &[]);
        if !p.pos.is_empty() {
            c.sub_check(out, &p.pos, false);
        }
        return;
    }
    let sub = c.arg(0).unwrap_or("");
    let rest = c.args.get(1..).unwrap_or(&[]);
    match sub {
        "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
        | "respawn-pane" | "respawnp" | "respawn-window" | "run-shell" | "run" | "if-shell"
        | "pipe-pane" => {
            let p = parse_head(rest, "stncFelxyLbp", &[]);
            if !p.pos.is_empty() {
                let text: Vec<&str> = p.pos.iter().map(|w| w.text.as_str()).collect();
                out.payload(Dialect::Posix, text.join(" "), "tmux", false);
            }
        }
        "send-keys" | "send" => {
            let p = parse(rest, "tN", &[]);
            let keys: Vec<&str> = p
                .pos
                .iter()
                .map(|w| w.text.as_str())
                .filter(|k| !matches!(*k, "Enter" | "C-m" | "KPEnter" | "C-j"))
                .collect();
            if !keys.is_empty() {
                out.payload(Dialect::Posix, keys.join(" "), "tmux send-keys", false);
            }
        }
        _ => {}
    }
}

fn has_list(c: &Call<'_, '_>) -> bool {
    c.args.iter().any(|w| {
        cluster(&w.text).is_some_and(|cl| cl.contains(['L', 'S']))
            || matches!(long(&w.text), Some("list" | "list-rules"))
    })
}

/// The number of key components below the hive of a registry path (`HKLM\\Software` → 1,
/// `HKEY_CURRENT_USER` → 0, `HKLM:\\Software\\X` → 2, `Registry::HKLM\\…`), or `None` when
/// it is not one.
pub(super) fn registry_branch(key: &str) -> Option<usize> {
    let lower = key.trim_matches(['"', '\'']).to_ascii_lowercase();
    let lower = lower.strip_prefix("registry::").unwrap_or(&lower);
    let mut parts = lower.split(['\\', '/']).filter(|p| !p.is_empty());
    let hive = parts.next()?.trim_end_matches(':');
    let known = matches!(
        hive,
        "hklm"
            | "hkcu"
            | "hkcr"
            | "hku"
            | "hkcc"
            | "hkey_local_machine"
            | "hkey_current_user"
            | "hkey_classes_root"
            | "hkey_users"
            | "hkey_current_config"
    );
    known.then(|| parts.count())
}

/// A hive, a top-level key (`HKLM\\Software`, `HKLM\\SYSTEM`) or a shared branch below one
/// (`HKLM\\Software\\Microsoft`, `…\\Classes`, `…\\Policies`, `HKLM\\SYSTEM\\CurrentControlSet`):
/// deleting it breaks the system or every application; an application's own key is not one.
pub(super) fn registry_broad(key: &str) -> bool {
    match registry_branch(key) {
        Some(0 | 1) => true,
        Some(2) => {
            let lower = key.to_ascii_lowercase();
            let second = lower
                .split(['\\', '/'])
                .filter(|p| !p.is_empty())
                .nth(2)
                .unwrap_or("")
                .trim_matches(['"', '\'']);
            matches!(
                second,
                "microsoft"
                    | "classes"
                    | "policies"
                    | "wow6432node"
                    | "currentcontrolset"
                    | "controlset001"
                    | "controlset002"
                    | "select"
                    | "setup"
            )
        }
        _ => false,
    }
}

/// Registry keys whose values run programs at logon or process start (persistence).
fn registry_autostart(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    registry_branch(&lower).is_some()
        && (lower.contains("\\currentversion\\run")
            || lower.contains("\\winlogon")
            || lower.contains("image file execution options")
            || lower.contains("\\currentversion\\policies\\explorer\\run")
            || lower.contains("\\environment"))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::analysis::shell::command::Dialect;
    use crate::finding::*;

    #[test]
    fn gate_names_equal_the_lowercased_searches() {
        let mut texts = corpus_texts();
        texts.extend(
            [
                "OpenClaw",
                "HUMAN-GATE.service",
                "openclaw-gateway",
                "human_gate",
            ]
            .map(String::from),
        );
        for t in &texts {
            let l = t.to_ascii_lowercase();
            let old = l.contains("openclaw") || l.contains("human-gate");
            assert_eq!(super::GATE_NAMES.any_in(t), old, "{t:?}");
        }
    }

    #[test]
    fn control_plane() {
        for s in [
            "systemctl restart nginx",
            "systemctl stop sshd",
            "systemctl disable firewalld",
            "sudo systemctl mask x",
            "service nginx restart",
            "launchctl unload x.plist",
            "crontab -r",
            "crontab jobs.txt",
            "crontab -e",
            "iptables -F",
            "iptables -A INPUT -j DROP",
            "ufw disable",
            "nft flush ruleset",
            "firewall-cmd --add-port=80/tcp",
            "sysctl -w net.ipv4.ip_forward=1",
            "reboot",
            "shutdown -h now",
            "poweroff",
            "kill -9 1234",
            "pkill node",
            "killall python",
            "taskkill /F /IM x.exe",
            "Stop-Process -Name x",
            "Stop-Service -Name wuauserv",
            "Set-ExecutionPolicy Bypass",
            "Set-MpPreference -DisableRealtimeMonitoring $true",
            "ip link set eth0 down",
            "schtasks /create /tn x /tr y",
            "sc stop wuauserv",
            "reg add HKLM\\Software\\x /v y /d z",
            "apt remove nginx",
            "kubectl cordon n1",
        ] {
            assert_has(s, &CONTROL_PLANE_CHANGE);
            assert_not_critical(s);
        }
        for s in [
            "systemctl status nginx",
            "crontab -l",
            "iptables -L",
            "iptables -nvL",
            "sysctl -a",
            "ip addr",
            "ip route show",
            "ufw status",
            "mount",
            "kill -l",
        ] {
            assert_not(s, &CONTROL_PLANE_CHANGE);
        }
        assert_has("systemctl stop openclaw-gateway", &SELF_PROTECTION);
        assert_eq!(
            payloads("crontab <<< '*/5 * * * * curl -s x | sh'"),
            ["curl -s x | sh"]
        );
        assert_eq!(
            payloads("tmux new-session -d -s x 'rm -rf /'"),
            ["rm -rf /"]
        );
        assert_eq!(
            payloads("tmux send-keys -t x 'rm -rf /' Enter"),
            ["rm -rf /"]
        );
        assert_critical("screen -dmS x rm -rf /");
        assert_eq!(
            payloads("schtasks /create /tn x /tr \"cmd /c del x\" /sc daily"),
            ["cmd /c del x"]
        );
        assert_has("pkill -f openclaw", &SELF_PROTECTION);
        assert_not("systemctl status openclaw-gateway", &SELF_PROTECTION);
    }

    #[test]
    fn autostart_keys_through_item_properties() {
        for s in [
            r"New-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name x -Value C:\evil.exe",
            r"Set-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon' Shell evil.exe",
            r"sp -Path:HKCU:\Software\Microsoft\Windows\CurrentVersion\RunOnce -Name x -Value y",
            r"reg add HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v x /d C:\evil.exe /f",
        ] {
            assert_has_in(Dialect::PowerShell, s, &SYSTEM_LOCATION_WRITE);
        }
        for s in [
            r"Set-ItemProperty -Path HKCU:\Software\MyApp -Name Theme -Value dark",
            r"Get-ItemProperty HKCU:\Software\Microsoft\Windows\CurrentVersion\Run",
            r"Remove-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name x",
        ] {
            assert_not_in(Dialect::PowerShell, s, &SYSTEM_LOCATION_WRITE);
        }
    }
}
