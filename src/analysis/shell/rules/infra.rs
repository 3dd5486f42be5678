//! Infrastructure: infrastructure as code, clusters and clouds.
//! - destruction (`infrastructure-destruction`): `terraform`/`tofu`/`terragrunt destroy` and
//!   `apply -auto-approve`/`-destroy`, `pulumi destroy`/`up --yes`/`stack rm`, `kubectl
//!   delete`/`drain`/`replace --force`/`apply --prune`, `helm uninstall`, `aws s3 rm
//!   --recursive`, `aws s3 rb`, `aws <svc> delete-*|terminate-*|remove-*|…`, `gsutil rm -r`/`rb`,
//!   `gcloud … delete`, `az … delete`, destroy/delete verbs of other cloud CLIs, and the
//!   options that delete under a creating or stopping verb (`az deployment … create --mode
//!   Complete`, `nomad job stop -purge`); `pulumi down` is `pulumi destroy`;
//! - `control-plane-change` for cluster and cloud writes (`kubectl apply`, `helm install`,
//!   `aws … create-*`), read-only categories for their reads (`kubectl get`, `aws … describe-*`);
//! - remote access into clusters (`kubectl exec` payloads — with the line's stdin when `-i`
//!   forwards it —, `gcloud … ssh --command`) and secrets
//!   (`kubectl get secret` is a credential read, in `net`).
//!
//! Containers are in `containers`, services and schedules in `services`, production
//! deployment and publishing in `deploy`.

use super::{cluster, long, parse, plain_words, Call, Category, Out};
use crate::analysis::shell::command::Dialect;
use crate::analysis::shell::model::Word;
use crate::finding;

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    match c.prog {
        "terraform" | "tofu" | "terragrunt" | "opentofu" => terraform(c, out),
        "pulumi" => pulumi(c, out),
        "kubectl" | "oc" | "microk8s.kubectl" => kubectl(c, out),
        "microk8s" | "k3s" | "k0s" | "minikube" => bundled(c, out),
        "helm" => helm(c, out),
        "aws" => aws(c, out),
        "gsutil" => gsutil(c, out),
        "rclone" => rclone(c, out),
        "s3cmd" | "mc" => object_store(c, out),
        "vagrant" if c.plain().first().is_some_and(|w| w.text == "destroy") => {
            destroy(out, "`vagrant destroy` deletes the machine and its disks");
        }
        "gcloud" => gcloud(c, out),
        "docker" | "podman" | "nerdctl" | "finch" => super::containers::docker(c, out, c.args),
        "docker-compose" | "podman-compose" => super::containers::compose(c, out, c.args),
        _ => {}
    }
    if c.prog_in(&CLOUD) {
        cloud(c, out);
    }
    super::services::apply(c, out);
    super::deploy::apply(c, out);
}

pub(super) fn destroy(out: &mut Out, why: impl Into<String>) {
    out.not_read_only();
    out.add(&finding::INFRASTRUCTURE_DESTRUCTION, why);
}

pub(super) fn control(out: &mut Out, why: impl Into<String>) {
    out.not_read_only();
    out.add(&finding::CONTROL_PLANE_CHANGE, why);
}

pub(super) fn dry_run(args: &[&Word]) -> bool {
    args.iter().any(|w| {
        let t = w.text.as_str();
        t == "--dry-run=client"
            || t == "--dry-run=server"
            || t == "--dry-run"
            || t == "--dryrun"
            || t == "--check"
            || t == "--plan"
            || t == "--preview"
    })
}

fn terraform(c: &Call<'_, '_>, out: &mut Out) {
    let p = c.plain();
    let words: Vec<&str> = p.iter().map(|w| w.text.as_str()).collect();
    let has = |s: &str| {
        c.args.iter().any(|w| {
            w.text == s || w.text.starts_with(&format!("{s}=")) && !w.text.ends_with("=false")
        })
    };
    let auto = has("-auto-approve")
        || has("--auto-approve")
        || has("--terragrunt-non-interactive")
        || has("--non-interactive");
    out.effects().network = true;
    let destroying = words
        .iter()
        .any(|w| matches!(*w, "destroy" | "destroy-all"));
    let applying = words.iter().any(|w| matches!(*w, "apply" | "apply-all"));
    if destroying || applying && has("-destroy") {
        destroy(
            out,
            format!("`{} destroy` deletes managed infrastructure", c.prog),
        );
    } else if applying && auto {
        destroy(
            out,
            format!(
                "`{} apply -auto-approve` changes infrastructure without review",
                c.prog
            ),
        );
    } else if applying
        || words.first().is_some_and(|w| {
            matches!(
                *w,
                "import" | "taint" | "untaint" | "force-unlock" | "state" | "workspace"
            )
        })
    {
        let listing = words.first() == Some(&"state")
            && words
                .get(1)
                .is_some_and(|w| matches!(*w, "list" | "show" | "pull"))
            || words.first() == Some(&"workspace")
                && words
                    .get(1)
                    .is_some_and(|w| matches!(*w, "list" | "show" | "select"));
        if !listing {
            control(out, format!("`{}` changes infrastructure state", c.prog));
        }
    } else if words.first().is_some_and(|w| matches!(*w, "fmt")) {
        out.category(Category::DevFormat);
    } else if words.first().is_some_and(|w| matches!(*w, "validate")) {
        out.category(Category::DevTest);
    } else if words.first().is_some_and(|w| {
        matches!(
            *w,
            "plan" | "show" | "output" | "providers" | "graph" | "version"
        )
    }) {
        out.category(Category::ReadOnly);
    }
}

fn pulumi(c: &Call<'_, '_>, out: &mut Out) {
    let words: Vec<&str> = c.plain().iter().map(|w| w.text.as_str()).collect();
    let yes = c
        .args
        .iter()
        .any(|w| matches!(w.text.as_str(), "--yes" | "-y" | "--skip-preview" | "-f"));
    out.effects().network = true;
    match words.as_slice() {
        ["destroy" | "down", ..] | ["stack", "rm", ..] | ["stack", "remove", ..] => {
            destroy(out, "`pulumi destroy` deletes managed infrastructure")
        }
        ["up" | "update", ..] if yes => destroy(
            out,
            "`pulumi up --yes` changes infrastructure without review",
        ),
        ["up" | "update" | "refresh" | "import" | "cancel", ..] => {
            control(out, "`pulumi` changes infrastructure")
        }
        ["preview" | "stack" | "whoami" | "version" | "about", ..] => {
            out.category(Category::ReadOnly)
        }
        _ => {}
    }
}

/// Subcommand of kubectl-like tools after global options with values.
pub(super) fn kube_words<'w>(args: &[&'w Word]) -> Vec<&'w Word> {
    let p = parse(
        args,
        "nslcfopLtk",
        &[
            "namespace",
            "context",
            "cluster",
            "user",
            "kubeconfig",
            "server",
            "token",
            "as",
            "as-group",
            "as-uid",
            "request-timeout",
            "certificate-authority",
            "client-certificate",
            "client-key",
            "tls-server-name",
            "cache-dir",
            "selector",
            "output",
            "filename",
            "container",
            "field-selector",
            "template",
            "grace-period",
            "timeout",
            "type",
            "image",
            "replicas",
            "port",
            "patch",
            "kube-context",
            "repo",
            "version",
            "values",
            "set",
            "set-string",
            "set-file",
            "profile",
            "region",
            "project",
            "zone",
        ],
    );
    p.pos
}

/// `microk8s kubectl …`, `k3s kubectl …`, `minikube kubectl -- …`, `microk8s helm3 …`: a
/// distribution's bundled client, checked as that client (a versioned or prefixed name is
/// read as the client through [`client_alias`] when the inner command is checked).
fn bundled(c: &Call<'_, '_>, out: &mut Out) {
    let Some(tool) = c.args.first().map(|w| w.text.as_str()) else {
        return;
    };
    if matches!(tool, "kubectl" | "helm" | "oc" | "ctr" | "crictl")
        || client_alias(&tool.to_ascii_lowercase()).is_some()
    {
        c.sub_check(out, c.args, false);
    }
}

/// The cluster and infrastructure clients that are installed under versioned or
/// distribution-prefixed names.
const VERSIONED_CLIENTS: [&str; 5] = ["kubectl", "helm", "oc", "terraform", "tofu"];

/// The client a versioned or distribution-prefixed program name stands for: `helm3`,
/// `helm-3`, `kubectl1.29`, `kubectl-v1.29`, `terraform_1.5.7`, and the snap aliases
/// `microk8s.helm3`, `microk8s.kubectl` (`prog` is a lowercase basename). `None` for the
/// client's own name and anything else. Cheap on other names: a last byte that is no digit
/// and no `microk8s.` prefix answer at once.
pub(super) fn client_alias(prog: &str) -> Option<&'static str> {
    let name = prog.strip_prefix("microk8s.");
    if name.is_none() && !prog.as_bytes().last().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let name = name.unwrap_or(prog);
    VERSIONED_CLIENTS.into_iter().find(|base| {
        let Some(ver) = name.strip_prefix(base) else {
            return false;
        };
        let ver = ver.strip_prefix(['-', '_', '.']).unwrap_or(ver);
        let ver = ver.strip_prefix('v').unwrap_or(ver);
        // The bare client behind a prefix (`microk8s.helm`), or a version: digits and dots,
        // starting with a digit.
        ver.is_empty() && name.len() < prog.len()
            || ver.as_bytes().first().is_some_and(u8::is_ascii_digit)
                && ver.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

fn kubectl(c: &Call<'_, '_>, out: &mut Out) {
    out.effects().network = true;
    let pos = kube_words(c.args);
    let words: Vec<String> = pos.iter().map(|w| w.text.to_ascii_lowercase()).collect();
    let sub = words.first().map(String::as_str).unwrap_or("");
    let what = words
        .get(1..)
        .unwrap_or(&[])
        .iter()
        .take(2)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let dry = dry_run(c.args);
    match sub {
        "delete" if !dry => destroy(
            out,
            format!("`kubectl delete {what}` removes cluster resources"),
        ),
        "drain" if !dry => destroy(
            out,
            format!("`kubectl drain {what}` evicts every pod from a node"),
        ),
        "replace" if c.args.iter().any(|w| w.text == "--force") && !dry => destroy(
            out,
            "`kubectl replace --force` deletes and recreates resources",
        ),
        "apply" if c.args.iter().any(|w| w.text == "--prune") && !dry => destroy(
            out,
            "`kubectl apply --prune` deletes resources missing from the manifests",
        ),
        "exec" | "attach" | "debug" | "cp" | "port-forward" | "proxy" => {
            out.not_read_only();
            out.add(
                &finding::REMOTE_ACCESS,
                format!("`kubectl {sub}` reaches into the cluster"),
            );
            if sub == "exec" {
                if let Some(at) = c.args.iter().position(|w| w.text == "--") {
                    let mut cmd = super::argv_text(c.args.iter().skip(at + 1).copied());
                    if super::forwards_stdin(c.args.get(..at).unwrap_or(&[])) {
                        cmd = super::feed_stdin(c, out, cmd);
                    }
                    out.payload(Dialect::Posix, cmd, "kubectl exec", false);
                }
            }
        }
        "get" | "describe" | "logs" | "log" | "top" | "explain" | "version" | "api-resources"
        | "api-versions" | "cluster-info" | "diff" | "events" | "wait" | "auth" | "completion"
        | "plugin" => out.category(Category::ReadOnly),
        "config" => match words.get(1).map(String::as_str) {
            Some("view" | "get-contexts" | "current-context" | "get-clusters" | "get-users") => {
                out.category(Category::ReadOnly)
            }
            _ => control(out, "`kubectl config` changes the cluster configuration"),
        },
        "" => {}
        _ if dry => out.category(Category::ReadOnly),
        _ => control(out, format!("`kubectl {sub}` changes cluster state")),
    }
}

fn helm(c: &Call<'_, '_>, out: &mut Out) {
    out.effects().network = true;
    let words: Vec<String> = kube_words(c.args)
        .iter()
        .map(|w| w.text.to_ascii_lowercase())
        .collect();
    let sub = words.first().map(String::as_str).unwrap_or("");
    let dry = dry_run(c.args);
    match sub {
        "uninstall" | "delete" | "del" | "un" if !dry => destroy(
            out,
            format!("`helm {sub}` removes a release and its resources"),
        ),
        "install" | "upgrade" | "rollback" | "i" if !dry => {
            control(out, format!("`helm {sub}` changes cluster state"))
        }
        "list" | "ls" | "status" | "get" | "show" | "inspect" | "template" | "lint" | "search"
        | "history" | "version" | "env" | "verify" => out.category(Category::ReadOnly),
        "push" => {
            out.not_read_only();
            out.add(&finding::NETWORK_MUTATION, "`helm push` publishes a chart");
        }
        _ => {}
    }
}

fn aws(c: &Call<'_, '_>, out: &mut Out) {
    let (svc, op) = super::net::aws_svc_op(c);
    let has = |s: &str| c.args.iter().any(|w| w.text == s);
    if has("--dry-run") || has("--dryrun") {
        out.category(Category::ReadOnly);
        return;
    }
    match (svc.as_str(), op.as_str()) {
        ("s3", "rm") => {
            if has("--recursive") {
                destroy(
                    out,
                    "`aws s3 rm --recursive` deletes every object under a prefix",
                );
            } else {
                out.not_read_only();
                out.add(&finding::FILE_DELETE, "`aws s3 rm` deletes an object");
            }
        }
        ("s3", "rb") => destroy(out, "`aws s3 rb` deletes a bucket"),
        ("s3", "cp" | "mv" | "sync") => {
            out.not_read_only();
            let pos = c.plain();
            let to_cloud = pos.last().is_some_and(|w| w.text.starts_with("s3://"));
            if to_cloud {
                out.add(
                    &finding::NETWORK_MUTATION,
                    format!("`aws s3 {op}` uploads to S3"),
                );
            } else if let Some(dest) = pos.last() {
                if op == "sync" && has("--delete") {
                    super::delete::report(
                        c,
                        out,
                        "`aws s3 sync --delete`",
                        true,
                        &[super::delete::Target::word(dest)],
                    );
                }
                super::system::write_target(c, out, &format!("`aws s3 {op}`"), dest, false);
                out.effects().downloads_to.push(dest.text.clone());
            }
        }
        ("s3", "ls" | "presign") => out.category(Category::ReadOnly),
        (_, op)
            if [
                "delete-",
                "terminate-",
                "remove-",
                "deregister-",
                "purge-",
                "destroy-",
                "disable-",
                "cancel-",
                "stop-",
                "reset-",
            ]
            .iter()
            .any(|p| op.starts_with(p))
                && !op.starts_with("stop-")
                && !op.starts_with("cancel-")
                // `aws kms schedule-key-deletion`: the key, and all data encrypted under it.
                || op.starts_with("schedule-") && op.ends_with("-deletion") =>
        {
            destroy(out, format!("`aws {svc} {op}` deletes cloud resources"));
        }
        (_, op)
            if [
                "describe-",
                "get-",
                "list-",
                "head-",
                "lookup-",
                "search-",
                "batch-get-",
                "scan",
                "query",
                "validate-",
                "estimate-",
                "simulate-",
                "filter-",
                "test-",
            ]
            .iter()
            .any(|p| op.starts_with(p))
                || matches!(svc.as_str(), "sts" | "help" | "configure") =>
        {
            out.category(Category::ReadOnly)
        }
        ("", _) | (_, "") => {}
        _ => control(out, format!("`aws {svc} {op}` changes cloud resources")),
    }
}

fn gsutil(c: &Call<'_, '_>, out: &mut Out) {
    let p = parse(c.args, "ohu", &[]);
    let mut pos = p.pos.iter();
    let sub = pos.next().map(|w| w.text.as_str()).unwrap_or("");
    let sub_args: Vec<&Word> = c
        .args
        .iter()
        .skip_while(|w| w.text != sub)
        .skip(1)
        .copied()
        .collect();
    let recursive = sub_args
        .iter()
        .any(|w| cluster(&w.text).is_some_and(|cl| cl.contains(['r', 'R', 'a'])));
    match sub {
        "rm" if recursive => destroy(out, "`gsutil rm -r` deletes every object under a prefix"),
        "rm" => {
            out.not_read_only();
            out.add(&finding::FILE_DELETE, "`gsutil rm` deletes objects");
        }
        "rb" => destroy(out, "`gsutil rb` deletes a bucket"),
        "rsync" | "cp" | "mv" => {
            out.not_read_only();
            if plain_words(&sub_args)
                .last()
                .is_some_and(|w| w.text.starts_with("gs://"))
            {
                out.add(
                    &finding::NETWORK_MUTATION,
                    format!("`gsutil {sub}` uploads to Cloud Storage"),
                );
            }
        }
        "ls" | "cat" | "du" | "stat" | "version" | "hash" => out.category(Category::ReadOnly),
        _ => {}
    }
}

/// `s3cmd del|rm -r`, `s3cmd rb -r|--force`, `mc rm -r|--recursive`, `mc rb --force`: recursive
/// object-store removal; other deletions delete objects.
fn object_store(c: &Call<'_, '_>, out: &mut Out) {
    let sub = c.plain().first().map(|w| w.text.as_str()).unwrap_or("");
    let flag = |short: char, long_name: &str| {
        c.args.iter().any(|w| {
            cluster(&w.text).is_some_and(|cl| cl.contains(short))
                || long(&w.text) == Some(long_name)
        })
    };
    let deletes = matches!(sub, "del" | "rm" | "rb" | "deleteall" | "purge");
    if !deletes {
        return;
    }
    let recursive = flag('r', "recursive") || sub == "rb" && flag('f', "force") || sub == "purge";
    if recursive {
        destroy(
            out,
            format!("`{} {sub}` removes objects recursively", c.prog),
        );
    } else {
        out.not_read_only();
        out.add(
            &finding::FILE_DELETE,
            format!("`{} {sub}` deletes objects", c.prog),
        );
    }
}

/// `rclone purge REMOTE:PATH` removes a path with everything in it (recursive cloud storage
/// removal); `rclone delete|rmdirs` on a remote root (`remote:`, `remote:bucket`) empties it.
fn rclone(c: &Call<'_, '_>, out: &mut Out) {
    let p = parse(
        c.args,
        "",
        &["config", "filter", "include", "exclude", "max-depth"],
    );
    let sub = p.pos.first().map(|w| w.text.as_str()).unwrap_or("");
    let dry = p.has("dry-run") || p.has("n") || p.has("i") || p.has("interactive");
    let targets = p.pos.get(1..).unwrap_or(&[]);
    let remote_root = |t: &str| {
        t.split_once(':').is_some_and(|(_, path)| {
            path.trim_matches('/')
                .split('/')
                .filter(|s| !s.is_empty())
                .count()
                <= 1
        }) || t.contains('$')
    };
    match sub {
        "purge" if !dry => destroy(out, "`rclone purge` deletes a path and everything in it"),
        "delete" | "rmdirs" | "cleanup" if !dry => {
            out.not_read_only();
            if targets.iter().any(|w| remote_root(&w.text) || w.dynamic) {
                destroy(out, format!("`rclone {sub}` empties a remote or bucket"));
            } else {
                out.add(
                    &finding::FILE_DELETE,
                    format!("`rclone {sub}` deletes files"),
                );
            }
        }
        "deletefile" if !dry => {
            out.not_read_only();
            out.add(&finding::FILE_DELETE, "`rclone deletefile` deletes a file");
        }
        "ls" | "lsd" | "lsl" | "lsf" | "lsjson" | "cat" | "size" | "about" | "check" | "md5sum"
        | "sha1sum" | "hashsum" | "version" | "listremotes" | "tree" => {
            out.category(Category::ReadOnly)
        }
        _ => {}
    }
}

fn gcloud(c: &Call<'_, '_>, out: &mut Out) {
    let words: Vec<String> = c
        .plain()
        .iter()
        .map(|w| w.text.to_ascii_lowercase())
        .collect();
    let has_word = |s: &str| words.iter().any(|w| w == s);
    if words.first().is_some_and(|w| w == "storage") && has_word("rm") {
        if c.args
            .iter()
            .any(|w| matches!(w.text.as_str(), "-r" | "--recursive" | "-R"))
        {
            destroy(
                out,
                "`gcloud storage rm -r` deletes every object under a prefix",
            );
        } else {
            out.not_read_only();
            out.add(&finding::FILE_DELETE, "`gcloud storage rm` deletes objects");
        }
        return;
    }
    if words.iter().any(|w| w == "ssh") {
        out.not_read_only();
        out.add(
            &finding::REMOTE_ACCESS,
            "`gcloud … ssh` opens a remote shell",
        );
        for w in c.args {
            if let Some(cmd) = w.text.strip_prefix("--command=") {
                out.payload(
                    Dialect::Posix,
                    cmd.to_owned(),
                    "gcloud ssh --command",
                    false,
                );
            }
        }
    }
}

/// Cloud and platform CLIs judged by the verbs of their command path.
pub(super) const CLOUD: super::Words = super::Words::new(&[
    "gcloud",
    "az",
    "doctl",
    "fly",
    "flyctl",
    "heroku",
    "vercel",
    "vc",
    "netlify",
    "railway",
    "firebase",
    "supabase",
    "wrangler",
    "hcloud",
    "linode-cli",
    "vultr-cli",
    "scw",
    "oci",
    "ibmcloud",
    "openstack",
    "eksctl",
    "aliyun",
    "civo",
    "exo",
    "render",
    "neonctl",
    "pscale",
    "turso",
    "upstash",
    "mongocli",
    "atlas",
    "cf",
    "eb",
    "copilot",
    "sam",
    "cdk",
    "serverless",
    "sls",
    "amplify",
    "gh",
    "glab",
    "argocd",
    "nomad",
    "consul",
    "kind",
    "minikube",
    "k3d",
    "linode",
    "ovhcloud",
    "databricks",
    "snowsql",
    "bq",
    "cloudflared",
    "doppler",
    "influx",
]);

const DESTROY_VERBS: &[&str] = &[
    "delete",
    "destroy",
    "remove",
    "rm",
    "terminate",
    "purge",
    "drop",
    "wipe",
    "reset",
    "delete-batch",
    "deprovision",
    "decommission",
    "nuke",
];

const READ_VERBS: &[&str] = &[
    "list", "ls", "get", "describe", "show", "info", "status", "logs", "log", "whoami", "version",
    "help", "view", "inspect", "open", "search", "browse", "diff", "history",
];

fn cloud(c: &Call<'_, '_>, out: &mut Out) {
    out.effects().network = true;
    if c.prog == "gcloud" && out.has(&finding::INFRASTRUCTURE_DESTRUCTION) {
        return;
    }
    let words: Vec<String> = c
        .plain()
        .iter()
        .map(|w| w.text.to_ascii_lowercase())
        .collect();
    let local_cluster = matches!(c.prog, "kind" | "minikube" | "k3d");
    let verb = words.iter().find_map(|w| {
        let pieces: Vec<&str> = w.split(':').collect();
        let last = pieces.last().copied().unwrap_or("");
        DESTROY_VERBS
            .iter()
            .find(|v| last == **v || w == *v || w.starts_with(&format!("{v}-")) && c.prog == "az")
            .copied()
    });
    if let Some(v) = verb {
        if dry_run(c.args) {
            return;
        }
        let path: Vec<&str> = words.iter().take(3).map(String::as_str).collect();
        if local_cluster {
            control(
                out,
                format!("`{} {}` deletes a local cluster", c.prog, path.join(" ")),
            );
        } else {
            destroy(
                out,
                format!("`{} {}` {v}s cloud resources", c.prog, path.join(" ")),
            );
        }
        return;
    }
    if c.prog == "gh" {
        gh(c, out, &words);
        return;
    }
    if let Some(why) = destroys_by_option(c, &words) {
        destroy(out, why);
        return;
    }
    let read = words
        .iter()
        .any(|w| READ_VERBS.contains(&w.rsplit(':').next().unwrap_or(w)))
        || words.is_empty();
    if read {
        out.category(Category::ReadOnly);
    } else if words.iter().any(|w| {
        let v = w.rsplit(':').next().unwrap_or(w);
        matches!(
            v,
            "create"
                | "update"
                | "set"
                | "deploy"
                | "scale"
                | "apply"
                | "add"
                | "put"
                | "modify"
                | "attach"
                | "detach"
                | "start"
                | "stop"
                | "restart"
                | "reboot"
                | "enable"
                | "disable"
                | "import"
                | "resize"
                | "promote"
                | "release"
                | "up"
                | "run"
                | "rollback"
                | "sync"
                | "publish"
                | "unset"
                | "grant"
                | "revoke"
        )
    }) {
        control(out, format!("`{}` changes cloud resources", c.prog));
    }
}

/// Cloud commands whose verb creates or stops but whose option deletes: an Azure deployment
/// in `--mode Complete` deletes every resource of the group its template does not name;
/// `nomad job stop -purge` removes the job and its history.
fn destroys_by_option(c: &Call<'_, '_>, words: &[String]) -> Option<String> {
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match c.prog {
        "az" if w(0) == "deployment" && words.iter().any(|x| x == "create") => {
            let complete = c.args.iter().enumerate().any(|(i, a)| {
                let t = a.text.as_str();
                t.strip_prefix("--mode=")
                    .or_else(|| {
                        (t == "--mode")
                            .then(|| c.args.get(i + 1).map(|v| v.text.as_str()))
                            .flatten()
                    })
                    .is_some_and(|v| v.eq_ignore_ascii_case("complete"))
            });
            complete.then(|| {
                "`az deployment … --mode Complete` deletes every resource its template leaves out"
                    .to_owned()
            })
        }
        "nomad" if w(0) == "job" && w(1) == "stop" => c
            .args
            .iter()
            .any(|a| matches!(a.text.as_str(), "-purge" | "--purge"))
            .then(|| "`nomad job stop -purge` removes the job".to_owned()),
        _ => None,
    }
}

fn gh(c: &Call<'_, '_>, out: &mut Out, words: &[String]) {
    let sub = words.first().map(String::as_str).unwrap_or("");
    let action = words.get(1).map(String::as_str).unwrap_or("");
    match (sub, action) {
        ("api", _) => {
            let p = parse(
                c.args,
                "XfFH",
                &["method", "field", "raw-field", "header", "input"],
            );
            let method = p
                .value("X")
                .or_else(|| p.value("method"))
                .map(str::to_ascii_uppercase);
            let sends =
                p.has("f") || p.has("F") || p.has("field") || p.has("raw-field") || p.has("input");
            if method.as_deref().is_some_and(|m| m != "GET") || sends {
                out.not_read_only();
                out.add(&finding::NETWORK_MUTATION, "`gh api` changes GitHub state");
            } else {
                out.category(Category::ReadOnly);
            }
        }
        ("release", "create" | "upload" | "edit") => {
            out.not_read_only();
            out.add(
                &finding::PRODUCTION_DEPLOYMENT,
                "`gh release` publishes a release",
            );
        }
        (_, "list" | "view" | "status" | "diff" | "checks" | "watch")
        | ("status" | "search" | "browse", _) => out.category(Category::ReadOnly),
        (
            _,
            "create" | "merge" | "close" | "comment" | "edit" | "review" | "reopen" | "ready"
            | "set" | "sync" | "fork" | "rename" | "archive" | "run" | "rerun" | "cancel"
            | "enable" | "disable" | "transfer",
        ) => {
            out.not_read_only();
            out.add(
                &finding::NETWORK_MUTATION,
                format!("`gh {sub} {action}` changes GitHub state"),
            );
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::Category;
    use super::client_alias;
    use crate::finding::*;

    #[test]
    fn terraform_and_pulumi() {
        for s in [
            "terraform destroy",
            "terraform destroy -auto-approve",
            "terraform -chdir=infra destroy",
            "terraform apply -auto-approve",
            "terraform apply --auto-approve",
            "terraform apply -destroy",
            "tofu destroy",
            "terragrunt run-all destroy",
            "terragrunt apply --terragrunt-non-interactive",
            "pulumi destroy --yes",
            "pulumi up --yes",
            "pulumi up -y",
            "pulumi stack rm dev",
        ] {
            assert_has(s, &INFRASTRUCTURE_DESTRUCTION);
        }
        assert_not_critical("terraform plan");
        assert_not_critical("terraform plan -destroy");
        assert_not_critical("terraform init");
        assert_not_critical("terraform validate");
        assert_has("terraform apply", &CONTROL_PLANE_CHANGE);
        assert_not_critical("terraform apply");
        assert_category("terraform fmt", Category::DevFormat);
        assert_not_critical("pulumi preview");
    }
    #[test]
    fn kubernetes() {
        for s in [
            "kubectl delete namespace prod",
            "kubectl delete pods --all",
            "kubectl -n kube-system delete deploy x",
            "kubectl --context prod delete svc x",
            "kubectl drain node-1 --ignore-daemonsets",
            "kubectl replace --force -f x.yaml",
            "kubectl apply --prune -l app=x -f dir/",
            "helm uninstall x",
            "helm delete x",
            "helm -n prod uninstall api",
            "oc delete project x",
        ] {
            assert_has(s, &INFRASTRUCTURE_DESTRUCTION);
            assert_critical(s);
        }
        for s in [
            "kubectl get pods",
            "kubectl describe pod x",
            "kubectl logs x",
            "kubectl -n x get svc",
            "helm list",
            "helm status x",
            "helm template .",
        ] {
            assert_category(s, Category::ReadOnly);
            assert_not_critical(s);
        }
        assert_not_critical("kubectl delete pod x --dry-run=client");
        assert_not_critical("rclone delete remote:bucket/logs/old");
        assert_has("rclone delete remote:bucket/logs/old", &FILE_DELETE);
        assert_not_critical("rclone purge --dry-run remote:bucket");
        assert_category("rclone ls remote:bucket", Category::ReadOnly);
        assert_has("kubectl apply -f x.yaml", &CONTROL_PLANE_CHANGE);
        assert_not_critical("kubectl apply -f x.yaml");
        assert_has("kubectl scale deploy x --replicas=3", &CONTROL_PLANE_CHANGE);
        assert_has("kubectl cordon node-1", &CONTROL_PLANE_CHANGE);
        assert_has("helm install x ./chart", &CONTROL_PLANE_CHANGE);
        assert_has("kubectl exec -it pod -- rm -rf /data", &REMOTE_ACCESS);
        assert_eq!(
            payloads("kubectl exec -it pod -- rm -rf /data"),
            ["rm -rf /data"]
        );
    }
    #[test]
    fn cloud_deletions() {
        for s in [
            "aws s3 rm s3://bucket --recursive",
            "aws s3 rb s3://bucket --force",
            "aws --profile p s3 rb s3://bucket",
            "aws ec2 terminate-instances --instance-ids i-1",
            "aws rds delete-db-instance --db-instance-identifier x",
            "aws iam delete-user --user-name x",
            "aws cloudformation delete-stack --stack-name x",
            "aws dynamodb delete-table --table-name x",
            "aws sqs purge-queue --queue-url x",
            "aws kms schedule-key-deletion --key-id k --pending-window-in-days 7",
            "gsutil rm -r gs://bucket",
            "gsutil -m rm -r gs://bucket/x",
            "gsutil rb gs://bucket",
            "rclone purge remote:bucket",
            "rclone purge remote:bucket/dir/sub",
            "rclone delete remote:",
            "rclone delete s3:bucket",
            "gcloud projects delete my-project",
            "gcloud compute instances delete vm-1 --zone z",
            "gcloud storage rm -r gs://b",
            "gcloud container clusters delete c",
            "az group delete --name rg --yes",
            "az vm delete -n vm -g rg",
            "az storage blob delete-batch -s c",
            "doctl compute droplet delete web-1",
            "fly apps destroy my-app",
            "flyctl destroy my-app",
            "heroku apps:destroy --app x",
            "vercel remove my-app",
            "gh repo delete org/repo --yes",
        ] {
            assert_has(s, &INFRASTRUCTURE_DESTRUCTION);
            assert_critical(s);
        }
        assert_has("aws s3 rm s3://bucket/key", &FILE_DELETE);
        assert_not_critical("aws s3 rm s3://bucket/key");
        assert_not_critical("aws s3 ls");
        assert_not_critical("aws ec2 describe-instances");
        assert_not_critical("aws ec2 terminate-instances --instance-ids i-1 --dry-run");
        assert_not_critical("aws kms cancel-key-deletion --key-id k");
        assert_not_critical("gcloud compute instances list");
        assert_not_critical("az vm list");
        assert_not_critical("minikube delete");
        // Bundled clients are their client.
        for s in [
            "microk8s kubectl delete ns prod",
            "k3s kubectl -n prod delete deploy api",
            "minikube kubectl -- delete ns payments",
            "microk8s helm uninstall api",
            "microk8s helm3 uninstall api",
            "microk8s.helm3 uninstall api",
            "helm3 uninstall api -n prod",
            "kubectl1.29 delete ns prod",
            "kubectl-v1.29 delete ns prod",
            "terraform_1.5.7 destroy -auto-approve",
            "k0s kubectl delete pvc --all",
        ] {
            assert_has(s, &INFRASTRUCTURE_DESTRUCTION);
        }
        assert_not_critical("microk8s kubectl get pods");
        assert_not_critical("microk8s status");
        assert_not_critical("microk8s helm3 list -A");
        assert_not_critical("helm3 status api");
        assert_eq!(client_alias("helm3"), Some("helm"));
        assert_eq!(client_alias("microk8s.kubectl"), Some("kubectl"));
        assert_eq!(client_alias("kubectl-1.29"), Some("kubectl"));
        for other in [
            "helm", "kubectl", "helmfile", "oci2", "helm3x", "ocaml4", "python3",
        ] {
            assert_eq!(client_alias(other), None, "{other}");
        }
        assert_not_critical("k3s server");
        assert_has("aws s3 cp x.txt s3://b/x.txt", &NETWORK_MUTATION);
        assert_has("aws ec2 run-instances --image-id x", &CONTROL_PLANE_CHANGE);
        assert!(verdict("aws s3 ls").effects.network);
    }
}
