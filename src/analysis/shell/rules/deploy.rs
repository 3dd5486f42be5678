//! Production deployment and publishing (`production-deployment`, critical):
//! - a deploy command — a program or script named for deploying/releasing/publishing
//!   (`deploy.sh`, `release-it`), a deploy subcommand of a known tool (`kubectl
//!   apply|rollout|set`, `helm upgrade|install`, `terraform apply`, `pulumi up`, `vercel`,
//!   `netlify|fly|firebase|serverless|eb|cdk|sam|wrangler deploy`, `gcloud app deploy`,
//!   `ansible-playbook`, `cap … deploy`, `argocd app sync`, `docker stack deploy`, `compose up`,
//!   `gh workflow run deploy…`, task runners' `deploy` targets and package scripts; not the
//!   reads and previews among them: `kubectl rollout status|history`, a cloud CLI's
//!   `list|show|get|what-if|validate` or `get-*`/`list-*` paths) — with a
//!   production marker among its words or environment (`prod`, `production`, `prd` as a token
//!   — not `pre-prod`/`non-prod` —, `--prod`, `live` as a whole word or value, camel case
//!   `ProdStack`); without one it is a `control-plane-change`. `vercel`/`vc promote|rollback`
//!   always act on production;
//! - publishing to a public package registry, which cannot be taken back (`npm|pnpm|yarn|bun
//!   publish`, `npm unpublish`, `cargo publish`, `twine upload`, `gem push`, `poetry publish`,
//!   `dotnet nuget push`, `mvn deploy`, `gradle publish`, `gh release create`, `yarn
//!   workspaces foreach … npm publish`, …), unless
//!   `--dry-run` or a local registry.
//!
//! Dry runs (`--dry-run`, `--check`, `--preview`) deploy nothing.

use super::infra::{dry_run, kube_words};
use super::{contains_ci, lower, shown, tokens, Call, Out};
use crate::finding;
use std::borrow::Cow;

const DEPLOY_VERBS: &[&str] = &[
    "deploy",
    "release",
    "publish",
    "ship",
    "promote",
    "rollout",
    "deployment",
];

/// A word that names production: a token `prod`/`production`/`prd` (not `pre-prod`,
/// `non-prod`), `--prod`, or exactly `live`.
pub(super) fn is_prod_marker_word(text: &str) -> bool {
    if !(super::contains_ci(text, "pr") || super::contains_ci(text, "live")) {
        return false;
    }
    // `ProdStack` → `Prod Stack`: camel case separates tokens too.
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut prev_lower = false;
    for ch in text.chars() {
        if ch.is_ascii_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        spaced.push(ch);
    }
    let lower = spaced.to_ascii_lowercase();
    let value = lower.rsplit_once('=').map_or(lower.as_str(), |(_, v)| v);
    if matches!(
        lower.trim_start_matches('-'),
        "prod" | "production" | "live" | "prd"
    ) || matches!(value, "live")
    {
        return true;
    }
    let toks: Vec<String> = tokens(&lower).collect();
    toks.iter().enumerate().any(|(i, t)| {
        matches!(t.as_str(), "prod" | "production" | "prd")
            && !i
                .checked_sub(1)
                .and_then(|k| toks.get(k))
                .is_some_and(|p| matches!(p.as_str(), "pre" | "non" | "not" | "no"))
    })
}

/// Tools with deploy subcommands ([`deploy_command`]).
pub(super) const DEPLOYERS: super::Words = super::Words::new(&[
    "kubectl",
    "oc",
    "helm",
    "terraform",
    "tofu",
    "terragrunt",
    "opentofu",
    "pulumi",
    "vercel",
    "vc",
    "netlify",
    "ntl",
    "fly",
    "flyctl",
    "firebase",
    "serverless",
    "sls",
    "eb",
    "cdk",
    "sam",
    "wrangler",
    "kamal",
    "copilot",
    "amplify",
    "skaffold",
    "spin",
    "dokku",
    "railway",
    "render",
    "zeet",
    "cf",
    "heroku",
    "gcloud",
    "az",
    "aws",
    "doctl",
    "gh",
    "glab",
    "ansible-playbook",
    "ansible",
    "cap",
    "capistrano",
    "mina",
    "fab",
    "octo",
    "argocd",
    "docker",
    "podman",
    "docker-compose",
    "podman-compose",
    "make",
    "just",
    "task",
    "rake",
    "mix",
    "invoke",
    "mage",
    "gradle",
    "gradlew",
    "mvn",
    "mvnw",
    "nx",
    "turbo",
    "lerna",
    "npm",
    "pnpm",
    "yarn",
    "bun",
]);

/// The lengths (bits) and lowercase first letters (bits `b - b'a'`) of [`DEPLOY_VERBS`]: a
/// token of another length or first letter is none of them, without comparing each.
#[expect(
    clippy::indexing_slicing,
    reason = "evaluated for a constant only: an index out of range fails the build"
)]
const VERB_SHAPES: (u64, u32) = {
    let (mut lens, mut firsts) = (0u64, 0u32);
    let mut i = 0;
    while i < DEPLOY_VERBS.len() {
        let v = DEPLOY_VERBS[i].as_bytes();
        assert!(v.len() < 64 && !v.is_empty() && v[0].is_ascii_lowercase());
        lens |= 1 << v.len();
        firsts |= 1 << (v[0] - b'a');
        i += 1;
    }
    (lens, firsts)
};

/// The program is named for deploying (`deploy.sh`, `release-it`, `ship`): one of its
/// alphanumeric tokens is a deploy verb. `tokens` without the lowercase copies (the verbs are
/// lowercase ASCII). Asked for every command's program: a token is compared only when its
/// length and first letter are some verb's ([`VERB_SHAPES`]).
pub(super) fn names_deploy_verb(prog: &str) -> bool {
    // Tokens are runs of ASCII letters and digits, so splitting the bytes finds the same ones
    // (the bytes of other characters are never ASCII).
    let (lens, firsts) = VERB_SHAPES;
    prog.as_bytes()
        .split(|b| !b.is_ascii_alphanumeric())
        .any(|t| {
            let shaped = t.len() < 64
                && lens >> t.len() & 1 != 0
                && t.first().is_some_and(|b| {
                    let l = b.to_ascii_lowercase().wrapping_sub(b'a');
                    l < 26 && firsts >> l & 1 != 0
                });
            shaped
                && DEPLOY_VERBS
                    .iter()
                    .any(|v| v.as_bytes().eq_ignore_ascii_case(t))
        })
}

/// What is being deployed, when this is a deploy command (not whether it is production).
fn deploy_command(c: &Call<'_, '_>) -> Option<String> {
    if names_deploy_verb(c.prog) {
        return Some(format!("`{}`", c.prog));
    }
    if !c.prog_in(&DEPLOYERS) {
        return None;
    }
    let kube;
    let words: Vec<Cow<'_, str>> = if matches!(c.prog, "kubectl" | "oc" | "helm") {
        kube = kube_words(c.args);
        kube.as_slice()
    } else {
        c.plain()
    }
    .iter()
    .map(|w| lower(&w.text))
    .collect();
    let w0 = words.first().map(AsRef::as_ref).unwrap_or("");
    let w1 = words.get(1).map(AsRef::as_ref).unwrap_or("");
    let verb_in =
        |w: &str| tokens(w).any(|t| DEPLOY_VERBS.contains(&t.as_str())) && !w.contains('/');
    let known = match c.prog {
        // `rollout status|history` only read.
        "kubectl" | "oc" => {
            matches!(
                w0,
                "apply" | "create" | "replace" | "set" | "rollout" | "patch" | "scale" | "edit"
            ) && !(w0 == "rollout" && matches!(w1, "status" | "history"))
        }
        "helm" => matches!(w0, "install" | "upgrade" | "rollback" | "i"),
        "terraform" | "tofu" | "terragrunt" | "opentofu" => {
            words.iter().any(|w| w.starts_with("apply"))
        }
        "pulumi" => matches!(w0, "up" | "update"),
        "vercel" | "vc" => !matches!(
            w0,
            "dev"
                | "ls"
                | "list"
                | "login"
                | "logout"
                | "whoami"
                | "link"
                | "pull"
                | "env"
                | "logs"
                | "inspect"
                | "build"
                | "help"
                | "init"
                | "domains"
                | "dns"
                | "certs"
                | "secrets"
                | "projects"
                | "teams"
                | "switch"
        ),
        "netlify" | "ntl" | "fly" | "flyctl" | "firebase" | "serverless" | "sls" | "eb" | "cdk"
        | "sam" | "wrangler" | "kamal" | "copilot" | "amplify" | "skaffold" | "spin" | "dokku"
        | "railway" | "render" | "zeet" | "cf" | "heroku" => {
            verb_in(w0)
                || verb_in(w1)
                || matches!(w0, "up" | "push" | "run" | "apply")
                    && matches!(c.prog, "railway" | "cf" | "skaffold" | "copilot")
        }
        // A read or a preview of a deployment (`az deployment group what-if|show|list`,
        // `aws deploy get-deployment`) deploys nothing.
        "gcloud" | "az" | "aws" | "doctl" => {
            let path = || words.iter().take(4).map(AsRef::as_ref);
            path().any(verb_in) && !path().any(is_cloud_read_verb)
        }
        "gh" | "glab" => {
            w0 == "workflow"
                && w1 == "run"
                && words
                    .iter()
                    .any(|w| tokens(w).any(|t| DEPLOY_VERBS.contains(&t.as_str())))
        }
        "ansible-playbook" | "ansible" | "cap" | "capistrano" | "mina" | "fab" | "octo"
        | "argocd" => c.prog != "argocd" || words.iter().any(|w| w == "sync"),
        "docker" | "podman" => {
            (w0 == "stack" && w1 == "deploy")
                || (w0 == "compose" && words.iter().any(|w| w == "up"))
                || (w0 == "service" && w1 == "update")
        }
        "docker-compose" | "podman-compose" => words.iter().any(|w| w == "up"),
        "git" => false,
        // Mix's own `release` task and its generator build locally (a project alias named
        // `deploy` or `release.prod` still counts).
        "mix" if matches!(w0, "release" | "phx.gen.release") => false,
        "make" | "just" | "task" | "rake" | "mix" | "invoke" | "mage" | "gradle" | "gradlew"
        | "mvn" | "mvnw" | "nx" | "turbo" | "lerna" => words.iter().any(|w| verb_in(w)),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = if matches!(w0, "run" | "run-script" | "exec") {
                w1
            } else {
                w0
            };
            verb_in(script) && script != "publish"
        }
        _ => false,
    };
    known.then(|| {
        let path: Vec<&str> = words.iter().take(2).map(AsRef::as_ref).collect();
        format!("`{} {}`", c.prog, path.join(" ")).replace(" `", "`")
    })
}

/// A cloud CLI's command-path word that only reads or previews (`list`, `show`, `what-if`,
/// `get-deployment`).
fn is_cloud_read_verb(w: &str) -> bool {
    matches!(
        w,
        "list"
            | "ls"
            | "show"
            | "describe"
            | "get"
            | "what-if"
            | "validate"
            | "wait"
            | "export"
            | "logs"
            | "status"
            | "history"
    ) || ["get-", "list-", "describe-", "batch-get-"]
        .iter()
        .any(|p| w.starts_with(p))
}

/// Subcommands that always act on production: `vercel promote|rollback` point the production
/// domains at a deployment.
fn always_production(c: &Call<'_, '_>) -> bool {
    matches!(c.prog, "vercel" | "vc")
        && c.plain()
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "promote" | "rollback"))
}

/// Package managers and release tools that publish ([`publish_command`]).
pub(super) const PUBLISHERS: super::Words = super::Words::new(&[
    "npm",
    "pnpm",
    "bun",
    "yarn",
    "cargo",
    "twine",
    "gem",
    "poetry",
    "flit",
    "hatch",
    "uv",
    "pdm",
    "dotnet",
    "nuget",
    "mvn",
    "mvnw",
    "gradle",
    "gradlew",
    "pod",
    "vsce",
    "ovsx",
    "lerna",
    "changeset",
    "semantic-release",
    "release-it",
    "np",
    "jsr",
    "deno",
    "mix",
]);

/// Publishing to a public package registry (irreversible).
fn publish_command(c: &Call<'_, '_>) -> Option<&'static str> {
    if !c.prog_in(&PUBLISHERS) {
        return None;
    }
    let words: Vec<Cow<'_, str>> = c.plain().iter().map(|w| lower(&w.text)).collect();
    let w = |i: usize| words.get(i).map(AsRef::as_ref).unwrap_or("");
    let local_registry = c.args.iter().any(|a| {
        let l = a.text.as_str();
        (contains_ci(l, "registry") || contains_ci(l, "repository-url") || contains_ci(l, "index"))
            && (contains_ci(l, "localhost") || contains_ci(l, "127.0.0.1"))
    }) || c.args.windows(2).any(|p| matches!(p, [a, b] if a.text.starts_with("--registry") && (b.text.contains("localhost") || b.text.contains("127.0.0.1"))));
    if local_registry {
        return None;
    }
    let found = match c.prog {
        "npm" | "pnpm" | "bun" => match w(0) {
            "publish" => Some("publishes a package to the registry"),
            "unpublish" => Some("removes a published package from the registry"),
            "dist-tag" if w(1) == "add" || w(1) == "rm" => Some("moves a published release tag"),
            _ => None,
        },
        // `yarn workspaces foreach [opts] npm publish` publishes every workspace.
        "yarn" => (w(0) == "publish"
            || (w(0) == "npm" && w(1) == "publish")
            || (w(0) == "workspaces"
                && w(1) == "foreach"
                && words.windows(2).any(|p| {
                    p.first().is_some_and(|a| a == "npm")
                        && p.get(1).is_some_and(|b| b == "publish")
                })))
        .then_some("publishes a package to the registry"),
        "cargo" => {
            (w(0) == "publish" || w(0) == "yank").then_some("publishes a crate to crates.io")
        }
        "twine" => (w(0) == "upload").then_some("uploads a package to PyPI"),
        "gem" => (w(0) == "push" || w(0) == "yank").then_some("publishes a gem"),
        "poetry" | "flit" | "hatch" | "uv" | "pdm" => {
            (w(0) == "publish").then_some("publishes a package to PyPI")
        }
        "dotnet" => (w(0) == "nuget" && w(1) == "push").then_some("publishes a NuGet package"),
        "nuget" => (w(0) == "push").then_some("publishes a NuGet package"),
        "mvn" | "mvnw" => words
            .iter()
            .any(|x| x == "deploy")
            .then_some("deploys artifacts to a repository"),
        // `publishToMavenLocal` (and a publication's `…ToMavenLocal`) fills `~/.m2` only.
        "gradle" | "gradlew" => words
            .iter()
            .any(|x| x.starts_with("publish") && !x.ends_with("tomavenlocal"))
            .then_some("publishes artifacts"),
        "pod" => (w(0) == "trunk" && w(1) == "push").then_some("publishes a CocoaPod"),
        "vsce" | "ovsx" => (w(0) == "publish").then_some("publishes an editor extension"),
        "lerna" | "changeset" => (w(0) == "publish").then_some("publishes packages"),
        "semantic-release" | "release-it" | "np" => Some("publishes a release"),
        "jsr" | "deno" => (w(0) == "publish").then_some("publishes a package"),
        "mix" => (w(0) == "hex.publish").then_some("publishes a Hex package"),
        "swift" => None,
        _ => None,
    };
    let dry = c.args.iter().any(|a| {
        matches!(a.text.as_str(), "--dry-run" | "--dryrun" | "--dry" | "-n") && c.prog != "cargo"
            || a.text == "--dry-run"
    });
    found.filter(|_| !dry)
}

pub(super) fn apply(c: &Call<'_, '_>, out: &mut Out) {
    if let Some(what) = publish_command(c) {
        out.effects().network = true;
        out.not_read_only();
        out.add(
            &finding::PRODUCTION_DEPLOYMENT,
            format!("`{}` {what}", c.prog),
        );
        return;
    }
    if dry_run(c.args) {
        return;
    }
    let Some(what) = deploy_command(c) else {
        return;
    };
    let marker = c
        .cmd
        .argv
        .iter()
        .map(|w| w.text.as_str())
        .chain(c.cmd.env.iter().map(|(_, v)| v.as_str()))
        .find(|t| is_prod_marker_word(t))
        .or_else(|| always_production(c).then_some(c.prog));
    out.not_read_only();
    match marker {
        Some(m) => out.add(
            &finding::PRODUCTION_DEPLOYMENT,
            format!("{what} deploys to production ({})", shown(m)),
        ),
        None => out.add(&finding::CONTROL_PLANE_CHANGE, format!("{what} deploys")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::is_prod_marker_word;
    use crate::finding::*;

    #[test]
    fn production_deployments() {
        for s in [
            "kubectl apply -f k8s/production/",
            "kubectl --context prod-east apply -f x.yaml",
            "kubectl apply -n prod -f x.yaml",
            "helm upgrade --install api ./chart -n production",
            "helm upgrade api ./chart --kube-context prod",
            "vercel --prod",
            "vercel deploy --prod",
            "netlify deploy --prod",
            "fly deploy -a app-prod",
            "firebase deploy --project prod",
            "serverless deploy --stage production",
            "sls deploy -s prod",
            "cap production deploy",
            "eb deploy prod-env",
            "gcloud app deploy --project my-prod",
            "ansible-playbook -i inventories/production site.yml",
            "./deploy.sh prod",
            "scripts/deploy-prod.sh",
            "npm run deploy:prod",
            "yarn deploy --env=production",
            "make deploy ENV=production",
            "terraform apply -var-file=prod.tfvars",
            "ENV=production ./deploy.sh",
            "docker stack deploy -c prod.yml app",
            "az webapp deploy --name app-prod --src-path x.zip",
            "npm publish",
            "pnpm publish --access public",
            "yarn npm publish",
            "cargo publish",
            "twine upload dist/*",
            "gem push x.gem",
            "poetry publish --build",
            "dotnet nuget push x.nupkg",
            "gh release create v1.0.0",
            "npm unpublish x@1.0.0",
            "git push production main",
            "vc --prod",
            "vercel promote https://app-abc.vercel.app --yes",
            "vc rollback",
            "yarn workspaces foreach -A npm publish",
            "npx netlify-cli deploy --prod",
        ] {
            assert_has(s, &PRODUCTION_DEPLOYMENT);
            assert_critical(s);
        }
        for s in [
            "kubectl apply -f deploy.yaml",
            "helm upgrade api ./chart -n staging",
            "vercel",
            "netlify deploy",
            "npm publish --dry-run",
            "cargo publish --dry-run",
            "npm publish --registry http://localhost:4873",
            "kubectl apply -n pre-prod -f x.yaml",
            "cat deploy/production.yaml",
            "grep prod deploy.log",
            "npm run build",
            "ansible-playbook --check -i production site.yml",
            "dotnet publish -c Release",
            "less release-notes.md",
            "kubectl rollout status deploy/api -n production",
            "kubectl rollout history deploy/api --context prod",
            "az deployment group what-if -g rg-prod --template-file main.bicep",
            "az deployment group list -g rg-prod",
            "aws deploy get-deployment --deployment-id d-1 --profile prod",
            "vc deploy",
        ] {
            assert_not(s, &PRODUCTION_DEPLOYMENT);
        }
    }

    /// Local builds named like releases: Mix's `release` task and generator, Gradle's
    /// `publishToMavenLocal`. Their remote counterparts stay production deployments.
    #[test]
    fn local_release_builds_are_no_deployment() {
        for s in [
            "MIX_ENV=prod mix release",
            "mix release --overwrite",
            "mix phx.gen.release --docker",
            "./gradlew publishToMavenLocal",
            "gradle publishMavenPublicationToMavenLocal",
        ] {
            assert_not(s, &PRODUCTION_DEPLOYMENT);
        }
        for s in [
            "MIX_ENV=prod mix deploy",
            "mix hex.publish",
            "./gradlew publish",
            "./gradlew publishToMavenLocal publish",
            "gradle publishAllPublicationsToSonatypeRepository",
        ] {
            assert_has(s, &PRODUCTION_DEPLOYMENT);
        }
    }
    #[test]
    fn deploy_verbs_in_program_names_as_by_character_tokens() {
        use crate::analysis::shell::model::testing::Rng;
        let reference = |prog: &str| {
            prog.split(|ch: char| !ch.is_ascii_alphanumeric()).any(|t| {
                super::DEPLOY_VERBS
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(t))
            })
        };
        assert!(super::DEPLOY_VERBS.iter().all(|v| v.len() >= 4));
        const PIECES: [&str; 12] = [
            "deploy", "Ship", "RELEASE", "-", ".", "é", "x", "2", "promote", "roll", "out", "_",
        ];
        let mut rng = Rng(3);
        for _ in 0..4000 {
            let p: String = (0..rng.below(5))
                .map(|_| PIECES[rng.below(PIECES.len())])
                .collect();
            assert_eq!(super::names_deploy_verb(&p), reference(&p), "{p:?}");
        }
        for t in super::super::testing::corpus_texts() {
            for w in t.split_whitespace().chain([t.as_str()]) {
                assert_eq!(super::names_deploy_verb(w), reference(w), "{w:?}");
            }
        }
        for v in super::DEPLOY_VERBS {
            for w in [
                v.to_string(),
                v.to_ascii_uppercase(),
                format!("{v}x"),
                v[1..].to_string(),
            ] {
                assert_eq!(super::names_deploy_verb(&w), reference(&w), "{w:?}");
            }
        }
    }

    #[test]
    fn markers() {
        assert!(is_prod_marker_word("prod"));
        assert!(is_prod_marker_word("--prod"));
        assert!(is_prod_marker_word("--environment=prod"));
        assert!(is_prod_marker_word("prod-east"));
        assert!(is_prod_marker_word("k8s/production/x.yaml"));
        assert!(is_prod_marker_word("live"));
        assert!(is_prod_marker_word("ProdStack"));
        assert!(is_prod_marker_word("myAppProd"));
        assert!(!is_prod_marker_word("Products"));
        assert!(!is_prod_marker_word("pre-prod"));
        assert!(!is_prod_marker_word("non-prod"));
        assert!(!is_prod_marker_word("product"));
        assert!(!is_prod_marker_word("--live-reload"));
        assert!(!is_prod_marker_word("staging"));
    }
}
