//! Native benchmark of the policy core (no WASM, no shim): the same corpus, config and worst
//! cases as `bench/run.mjs`, through `Gate::decide_json` (request JSON in, decision JSON out),
//! plus a per-phase split (request parsing, policy + analysis + finish, analysis alone,
//! decision encoding) to show where the time goes. Reports, never asserts.
//!
//!   cargo run --release --example native-bench [-- PASSES]
//!
//! "Typical" calls are those whose request JSON is at most `TYPICAL_MAX_BYTES` (2 KiB); the
//! others are "large". Each figure is a per-call latency in µs (nearest-rank percentiles).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use openclaw_human_gate::analysis::dispatch;
use openclaw_human_gate::audit::{decide_for_hook, AuditMemo};
use openclaw_human_gate::call::Call;
use openclaw_human_gate::gate::Gate;
use openclaw_human_gate::scope::ExactDigest;
use openclaw_human_gate::session::Sessions;
use std::hint::black_box;
use std::time::Instant;

const TYPICAL_MAX_BYTES: usize = 2048;

/// A session store keyed like the plugin's (the shim passes a random per-process secret; the
/// bench a fixed one): the exact key is SipHash, not the SHA-256 fallback.
fn keyed_sessions() -> Sessions {
    Sessions::with_exact_digest(ExactDigest::from_hex("8f3a2b1c4d5e6f708192a3b4c5d6e7f8").unwrap())
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

fn summary(name: &str, xs: &mut [f64]) {
    if xs.is_empty() {
        return;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    println!(
        "  {name:<34} n={:<6} p50 {:>8.2} µs  p99 {:>8.2} µs  max {:>9.2} µs",
        xs.len(),
        pct(xs, 50.0),
        pct(xs, 99.0),
        xs[xs.len() - 1]
    );
}

fn median_time(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut xs: Vec<f64> = (0..runs + 3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .skip(3)
        .collect();
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `native-bench loop typical|corpus:SUBSTRING|NAME-PREFIX SECONDS`: only those calls, in a
    // loop (for a profiler).
    let profile = (args.first().map(String::as_str) == Some("loop")).then(|| {
        (
            args.get(1).cloned().unwrap_or_default(),
            args.get(2)
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(3.0),
        )
    });
    // `native-bench calls typical|corpus:SUBSTRING|NAME-PREFIX N`: exactly N calls of those
    // (for instruction counts: `valgrind --tool=callgrind`, then divide by N). With
    // NATIVE_BENCH_HOOK set, each call takes the gate hook's path (`audit::decide_for_hook`
    // with the shim's session fields), as the WASM `decideForHook` does.
    let fixed_calls = (args.first().map(String::as_str) == Some("calls")).then(|| {
        (
            args.get(1).cloned().unwrap_or_default(),
            args.get(2)
                .and_then(|s| s.parse::<u64>().ok())
                .unwrap_or(10),
        )
    });
    let passes: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(200);
    let config = std::fs::read_to_string(format!("{root}/bench/config.json")).unwrap();
    let corpus: Vec<String> = std::fs::read_to_string(format!("{root}/bench/corpus.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let gate = Gate::new(&config);
    assert!(
        gate.config_errors().is_empty(),
        "{:?}",
        gate.config_errors()
    );
    let limits = gate.config().semantic_analysis.limits;
    let worst = worst_cases();
    if let Some((what, n)) = fixed_calls {
        let reqs = select(&what, &corpus, &worst);
        // NATIVE_BENCH_HOOK: the gate hook's path (session fields, session authority, record);
        // NATIVE_BENCH_SESSIONS: session fields and authority, decision JSON only.
        let hook = std::env::var("NATIVE_BENCH_HOOK").is_ok();
        let with_session = std::env::var("NATIVE_BENCH_SESSIONS").is_ok();
        let (mut sessions, mut memo) = (keyed_sessions(), AuditMemo::default());
        for k in 0..n {
            let r = reqs[k as usize % reqs.len()];
            if hook {
                let req = in_session(r, k);
                black_box(decide_for_hook(
                    &gate,
                    &mut sessions,
                    &mut memo,
                    black_box(&req),
                ));
            } else if with_session {
                let req = in_session(r, k);
                black_box(gate.decide_in_json(&mut sessions, black_box(&req)));
            } else {
                black_box(gate.decide_json(black_box(r)));
            }
        }
        println!("{n} calls");
        return;
    }
    if let Some((what, secs)) = profile {
        let reqs = select(&what, &corpus, &worst);
        let t = Instant::now();
        let mut n = 0u64;
        let mut sessions = keyed_sessions();
        let with_session = std::env::var("NATIVE_BENCH_SESSIONS").is_ok();
        while t.elapsed().as_secs_f64() < secs {
            for r in &reqs {
                if with_session {
                    let req = in_session(r, n);
                    black_box(gate.decide_in_json(&mut sessions, black_box(&req)));
                } else {
                    black_box(gate.decide_json(black_box(r)));
                }
                n += 1;
            }
        }
        println!(
            "{n} calls, {:.2} µs each",
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
        return;
    }

    let (mut all, mut typical, mut large) = (Vec::new(), Vec::new(), Vec::new());
    let (mut sessions, mut in_sessions, mut seq) = (keyed_sessions(), Vec::new(), 0u64);
    let mut per_call: Vec<Vec<f64>> = vec![Vec::new(); corpus.len()];
    let (mut parse, mut decide, mut analysis, mut encode) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for pass in 0..passes + 10 {
        for (k, req) in corpus.iter().enumerate() {
            let t0 = Instant::now();
            let out = gate.decide_json(black_box(req));
            let us = t0.elapsed().as_secs_f64() * 1e6;
            black_box(out);
            // As the shim calls it: with a call id, through session authority.
            let session_req = in_session(req, seq);
            seq += 1;
            let t0 = Instant::now();
            black_box(gate.decide_in_json(&mut sessions, black_box(&session_req)));
            let us_session = t0.elapsed().as_secs_f64() * 1e6;
            // Phases, timed separately (each on its own; their sum is close to the whole).
            let t0 = Instant::now();
            let call = Call::parse(req).unwrap();
            let t1 = Instant::now();
            let d = gate.decide_call(&call);
            let t2 = Instant::now();
            let a = dispatch::analyze_call(&call, &limits);
            let t3 = Instant::now();
            let json = serde_json::to_string(&d).unwrap();
            let t4 = Instant::now();
            black_box((a, json));
            if pass < 10 {
                continue;
            }
            all.push(us);
            per_call[k].push(us);
            if req.len() <= TYPICAL_MAX_BYTES {
                typical.push(us);
                in_sessions.push(us_session);
                parse.push((t1 - t0).as_secs_f64() * 1e6);
                decide.push((t2 - t1).as_secs_f64() * 1e6);
                analysis.push((t3 - t2).as_secs_f64() * 1e6);
                encode.push((t4 - t3).as_secs_f64() * 1e6);
            } else {
                large.push(us);
            }
        }
    }
    println!(
        "native bench: {} corpus calls × {passes} passes; typical = request ≤ {TYPICAL_MAX_BYTES} bytes",
        corpus.len()
    );
    summary("all (decide_json)", &mut all);
    summary("typical (decide_json)", &mut typical);
    summary("large (decide_json)", &mut large);
    summary("typical (decide_in_json)", &mut in_sessions);
    println!(" typical, by phase:");
    summary("Call::parse", &mut parse);
    summary("decide_call (policy+analysis+finish)", &mut decide);
    summary("analyze_call alone", &mut analysis);
    summary("encode decision", &mut encode);

    let mut slowest: Vec<(f64, &String)> = per_call
        .iter_mut()
        .zip(&corpus)
        .filter(|(_, r)| r.len() <= TYPICAL_MAX_BYTES)
        .map(|(xs, r)| {
            xs.sort_by(|a, b| a.total_cmp(b));
            (xs[xs.len() / 2], r)
        })
        .collect();
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(" slowest typical calls (median µs):");
    for (us, r) in slowest.iter().take(6) {
        println!("  {us:>8.2}  {}", r.chars().take(110).collect::<String>());
    }
    println!(" worst cases (median of 15):");
    for (name, req) in &worst {
        let whole = median_time(15, || {
            black_box(gate.decide_json(black_box(req)));
        });
        let call = Call::parse(req).unwrap();
        let ana = median_time(15, || {
            black_box(dispatch::analyze_call(black_box(&call), &limits));
        });
        println!("  {name:<24} decide_json {whole:>9.1} µs  analysis alone {ana:>9.1} µs");
    }
}

/// `req` with the fields the shim adds (call id, session id, run id, time), for session authority.
fn in_session(req: &str, n: u64) -> String {
    // `nowMs` as the shim sends it: without a time the session-authority step is skipped.
    let now = 1_700_000_000_000u64 + n;
    format!(
        "{{\"callId\":\"bench-{n}\",\"sessionId\":\"s\",\"runId\":\"run-bench\",\"nowMs\":{now},{}",
        req.get(1..).unwrap_or("")
    )
}

/// An exec request for the first 16 KB of `cmd` (all ASCII here).
fn exec16(cmd: String) -> String {
    serde_json::json!({"toolName":"exec","params":{"command": &cmd[..cmd.len().min(16384)]}})
        .to_string()
}

/// The worst cases of `bench/run.mjs`, as request JSON.
fn worst_cases() -> Vec<(&'static str, String)> {
    vec![
        ("20 KB command", {
            let cmd: String = (0..800)
                .map(|i| format!("echo \"item {i}\" | grep -v x;"))
                .collect::<Vec<_>>()
                .join(" ");
            serde_json::json!({"toolName":"exec","params":{"command": &cmd[..cmd.len().min(20480)]}}).to_string()
        }),
        (
            "10 000 nested $(",
            serde_json::json!({"toolName":"exec","params":{"command": format!("{}rm -rf /{}", "$(".repeat(10000), ")".repeat(10000))}}).to_string(),
        ),
        (
            "10 000 unclosed quotes",
            serde_json::json!({"toolName":"exec","params":{"command": format!("echo {}", "'\"".repeat(5000))}}).to_string(),
        ),
        (
            "4 096 one-word commands",
            serde_json::json!({"toolName":"exec","params":{"command": "ls;".repeat(4096)}}).to_string(),
        ),
        (
            "16 KB of CMD deletes",
            exec16("del /s /q C:\\x & ".repeat(1200)),
        ),
        (
            "16 KB of PowerShell deletes",
            exec16("Remove-Item -Recurse -Force C:\\x; ".repeat(600)),
        ),
        ("16 KB of backticks", exec16("`a`;".repeat(4096))),
        (
            "16 KB of scoped deletes",
            exec16((0..3000).map(|i| format!("rm -rf a{i};")).collect()),
        ),
        (
            "16 KB of bash -c",
            exec16("bash -c 'sh -c \"ls; ls\"';".repeat(700)),
        ),
        (
            "16 KB of heredocs",
            exec16("cat <<E\n$(x)\nE\n".repeat(1200)),
        ),
        ("16 KB Code Mode", {
            let items: Vec<String> = (0..2000).map(|i| format!("\"{i}\"")).collect();
            let code = format!("const a = [{}];", items.join(","));
            serde_json::json!({"toolName":"exec","toolKind":"code_mode_exec","params":{"code": &code[..code.len().min(16384)]}}).to_string()
        }),
    ]
}

/// The requests `what` names (see the `loop` and `calls` modes).
fn select<'a>(
    what: &str,
    corpus: &'a [String],
    worst: &'a [(&'static str, String)],
) -> Vec<&'a String> {
    let reqs: Vec<&String> = if what == "typical" {
        corpus
            .iter()
            .filter(|r| r.len() <= TYPICAL_MAX_BYTES)
            .collect()
    } else if let Some(needle) = what.strip_prefix("corpus:") {
        corpus.iter().filter(|r| r.contains(needle)).collect()
    } else {
        worst
            .iter()
            .filter(|(n, _)| n.starts_with(what))
            .map(|(_, r)| r)
            .collect()
    };
    assert!(!reqs.is_empty(), "nothing matches {what}");
    reqs
}
