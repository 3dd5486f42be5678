//! Session authority: what one person's answer may cover, for how long, and nothing more.
//!
//! State is per session (keyed by the host's `sessionKey`), in memory, bounded: at most
//! [`MAX_SESSIONS`] sessions (least recently used evicted), and per session at most
//! [`MAX_PENDING`] pending approvals, [`MAX_GRANTS`] grants, [`MAX_COOLDOWNS`] cooldowns and
//! [`MAX_ENVELOPES`] envelopes (oldest dropped). A new `sessionId` under the same key is a new
//! session: everything resets. Every transition is a pure function of (state, event, `nowMs`);
//! each session keeps a monotone clock (the highest `nowMs` it has seen), so a clock that goes
//! backwards can never extend a grant or a cooldown.
//!
//! The step runs after policy and analyzers, in this order (DESIGN.md):
//! 1. **deny cooldown**: after an explicit deny, an ask in the same semantic scope (or an
//!    identical call) becomes a block for `denyCooldownMs`; it never touches auto or block;
//! 2. **critical bypass**: anything but a plain approval (critical, block, fail-closed) is
//!    never passed by authority;
//! 3. **exec lease** (owner command), **allow-always lease**, **approval window**,
//!    **adaptive safe-file lease** (`adaptive.rs`), **authorization envelope**
//!    (`envelope.rs`): each may turn an approval into auto, saying so in `source` and in an
//!    info finding.
//!
//! Time: each session keeps the highest `nowMs` it has seen. Expiry is measured on that
//! monotone clock, so a clock that goes backwards never extends a cooldown or a grant; and
//! while the supplied time is behind it (a rollback, or a glitch into the future), no grant,
//! window, lease or envelope is applied or created — the session asks (fail closed) until the
//! clock has caught up. A jump forward expires grants (fail closed) and may end a cooldown
//! early, which only means the call asks again.
//!
//! Resolutions come back from the shim with the call id it passed to `decide`:
//! allow-once → an approval window (when configured); allow-always → a path-bound lease for
//! `allowAlwaysTtlMs` (an exact-repeat lease when the call has no verified targets; and a
//! window); allow-always is only offered when it can become one of those leases; deny → a cooldown; timeout / cancelled → nothing (fail
//! closed). The flood detector only adds a hint to the prompt; it never allows anything.
//!
//! Non-goals: persistence (grants never outlive the process, nor the session), unattended
//! policy (`unattended.rs`, stateless), what counts as "the same call" (`src/scope.rs`).

pub mod adaptive;
pub mod command;
pub mod config;
pub mod envelope;
pub mod unattended;

use crate::analysis::dispatch::CallAnalysis;
use crate::call::Call;
use crate::decision::{Class, Decision, Resolution, Severity, Source};
use crate::finding::{self, Finding, FindingSpec};
use crate::json::parse_strict;
use crate::scope::{self, Scope};
use adaptive::Adaptive;
use config::{AdaptiveMode, EnvelopeMode, SessionConfig, WindowMode, WindowScope};
use envelope::Envelope;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

pub const MAX_SESSIONS: usize = 256;
pub const MAX_PENDING: usize = 64;
pub const MAX_GRANTS: usize = 64;
pub const MAX_COOLDOWNS: usize = 64;
pub const MAX_ENVELOPES: usize = 8;
pub const MAX_ADAPTIVE: usize = 8;
/// Asks remembered per session for the flood detector.
pub const MAX_ASKS: usize = 1024;
/// A pending approval older than this is forgotten (the host's longest timeout is 10 min).
pub const PENDING_TTL_MS: f64 = 15.0 * 60_000.0;
/// Longest session key or id kept.
pub const MAX_ID_CHARS: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GrantKind {
    Lease,
    Window,
}

#[derive(Debug, Clone, PartialEq)]
struct Grant {
    kind: GrantKind,
    key: String,
    until: f64,
    /// Set for `turn` windows: only calls of this run match.
    run_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Cooldown {
    keys: Vec<String>,
    until: f64,
}

#[derive(Debug, Clone, PartialEq)]
struct Pending {
    call_id: String,
    /// [`id_tag`] of `call_id`.
    id_tag: u64,
    scope: Scope,
    class: Class,
    run_id: Option<String>,
    /// For a capability request: the root an approval grants.
    capability: Option<String>,
    at: f64,
}

#[derive(Debug, Clone, PartialEq, Default)]
struct Session {
    session_id: Option<String>,
    /// Highest `nowMs` seen: the session's own monotone clock.
    clock: f64,
    /// The last supplied `nowMs` was behind `clock`: grants are neither applied nor created.
    rolled_back: bool,
    used: u64,
    pending: VecDeque<Pending>,
    grants: VecDeque<Grant>,
    cooldowns: VecDeque<Cooldown>,
    exec_until: f64,
    asks: VecDeque<f64>,
    envelopes: VecDeque<Envelope>,
    adaptive: VecDeque<Adaptive>,
}

impl Session {
    fn prune(&mut self, t: f64) {
        // Pending approvals are kept in the order they were asked, each stamped with the
        // session's monotone clock, so the expired ones are a prefix (no scan of the rest).
        while self
            .pending
            .front()
            .is_some_and(|p| t - p.at > PENDING_TTL_MS)
        {
            self.pending.pop_front();
        }
        self.grants.retain(|g| t < g.until);
        self.cooldowns.retain(|c| t < c.until);
        self.envelopes.retain(|e| t < e.until);
        self.adaptive.retain(|a| t < a.until && a.uses_left > 0);
    }
}

/// How many of `asks` lie within `window` before `t`: `asks` is ascending (each is the
/// session's monotone clock when it was pushed), so the old ones are a prefix and one binary
/// search counts the rest, however many asks a flood has left.
fn asks_within(asks: &VecDeque<f64>, t: f64, window: f64) -> usize {
    asks.len() - asks.partition_point(|a| t - *a >= window)
}

/// At most [`MAX_ID_CHARS`] characters (a text of at most that many bytes is, uncounted).
fn within_id_limit(text: &str) -> bool {
    text.len() <= MAX_ID_CHARS || text.chars().count() <= MAX_ID_CHARS
}

/// A call id's tag: its length and its last eight bytes in one word. Equal ids have equal
/// tags, so looking for an id among the pending approvals compares one word per entry (no
/// read of each id's text: ids mostly differ in their last characters, a sequence number),
/// and the texts only where the tags agree.
fn id_tag(id: &str) -> u64 {
    let bytes = id.as_bytes();
    let tail = bytes.get(bytes.len().saturating_sub(8)..).unwrap_or(&[]);
    let mut last = [0u8; 8];
    if let Some(dst) = last.get_mut(..tail.len()) {
        dst.copy_from_slice(tail);
    }
    u64::from_le_bytes(last) ^ (bytes.len() as u64).rotate_right(8)
}

fn push_bounded<T>(q: &mut VecDeque<T>, item: T, max: usize) {
    q.push_back(item);
    while q.len() > max {
        q.pop_front();
    }
}

/// Every session's authority state: the one long-lived store, owned by the engine.
#[derive(Debug, Clone, Default)]
pub struct Sessions {
    map: BTreeMap<String, Session>,
    tick: u64,
    /// How exact keys are digested: keyed by the shim's secret, else SHA-256 (`src/scope.rs`).
    exact_digest: scope::ExactDigest,
}

/// A usable time: finite and not negative.
fn valid_now(now: Option<f64>) -> Option<f64> {
    now.filter(|n| n.is_finite() && *n >= 0.0)
}

impl Sessions {
    /// A store whose exact keys are SHA-256 digests (no secret supplied).
    pub fn new() -> Sessions {
        Sessions::default()
    }

    /// A store whose exact keys are digested as `exact_digest` says (the engine's, keyed by
    /// the shim's per-process secret).
    pub fn with_exact_digest(exact_digest: scope::ExactDigest) -> Sessions {
        Sessions {
            exact_digest,
            ..Sessions::default()
        }
    }

    /// Sessions currently kept.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The session for `key` (created, or reset when `id` names a different session), with
    /// the effective time (never earlier than what this session has seen).
    fn session(&mut self, key: &str, id: Option<&str>, now: f64) -> Option<(&mut Session, f64)> {
        session_in(&mut self.map, &mut self.tick, key, id, now)
    }

    fn for_call(&mut self, call: &Call) -> Option<(&mut Session, f64)> {
        session_of(&mut self.map, &mut self.tick, call)
    }

    /// The session-authority step for one call whose decision has been through policy and
    /// analyzers (not yet finished). Returns the call's scope, for [`Sessions::record`].
    pub fn authorize(
        &mut self,
        cfg: &SessionConfig,
        call: &Call,
        d: &mut Decision,
        analysis: Option<&CallAnalysis>,
    ) -> Scope {
        self.authorize_held(cfg, call, d, analysis).0
    }

    /// [`Sessions::authorize`], also handing back the call's session, held for
    /// [`Held::record`] of the same call (its ask is remembered there without looking the
    /// session up again).
    pub(crate) fn authorize_held(
        &mut self,
        cfg: &SessionConfig,
        call: &Call,
        d: &mut Decision,
        analysis: Option<&CallAnalysis>,
    ) -> (Scope, Held<'_>) {
        let Sessions {
            map,
            tick,
            exact_digest,
        } = self;
        let scope = scope::of(call, d, analysis, exact_digest);
        let capability = envelope::is_request(call);
        if capability {
            shape_capability(cfg, call, d);
        }
        let mut session = session_of(map, tick, call);
        if let Some((s, t)) = &mut session {
            authority(cfg, call, d, analysis, &scope, capability, s, *t);
        }
        (scope, Held { session, tick })
    }

    /// After the decision is finished: remembers an ask as pending under the shim's call id,
    /// and adds the flood hint to the prompt.
    pub fn record(&mut self, cfg: &SessionConfig, call: &Call, d: &mut Decision, scope: Scope) {
        let ids = Ids {
            call_id: call.call_id.as_deref().map(Cow::Borrowed),
            run_id: call.run_id.as_deref().map(Cow::Borrowed),
        };
        self.record_ids(cfg, call, ids, d, scope);
    }

    /// [`Sessions::record`] with the call's id and run id as `ids` says (the call's own are
    /// not read).
    fn record_ids(
        &mut self,
        cfg: &SessionConfig,
        call: &Call,
        ids: Ids<'_>,
        d: &mut Decision,
        scope: Scope,
    ) {
        if !matches!(d.decision, Class::Approval | Class::Critical) {
            return;
        }
        let Some((s, t)) = self.for_call(call) else {
            return;
        };
        record_in(s, t, cfg, call, ids, d, scope);
    }

    /// Applies one approval outcome. Request: `{"sessionKey", "sessionId"?, "callId",
    /// "resolution": "allow-once"|"allow-always"|"deny"|"timeout"|"cancelled", "nowMs"}`.
    /// Answer: `{"ok": true, "effects": [..]}` or `{"ok": false, "error": ".."}`.
    pub fn resolve_json(&mut self, cfg: &SessionConfig, text: &str) -> String {
        match self.resolve(cfg, text) {
            Ok(effects) => json!({"ok": true, "effects": effects}).to_string(),
            Err(e) => json!({"ok": false, "error": e}).to_string(),
        }
    }

    fn resolve(&mut self, cfg: &SessionConfig, text: &str) -> Result<Vec<&'static str>, String> {
        let mut obj = fields(
            text,
            &["sessionKey", "sessionId", "callId", "resolution", "nowMs"],
        )?;
        let key = string(&mut obj, "sessionKey")?.ok_or("sessionKey: missing")?;
        let id = string(&mut obj, "sessionId")?;
        let call_id = string(&mut obj, "callId")?.ok_or("callId: missing")?;
        let resolution = string(&mut obj, "resolution")?.ok_or("resolution: missing")?;
        let now = number(&mut obj, "nowMs")?;
        let allow = match resolution.as_str() {
            "allow-once" | "allow-always" => true,
            "deny" | "timeout" | "cancelled" => false,
            _ => {
                return Err(format!(
                    "resolution: expected one of \"allow-once\", \"allow-always\", \"deny\", \"timeout\", \"cancelled\", got `{}`",
                    crate::call::short(&resolution)
                ))
            }
        };
        let (s, t) = self
            .session(&key, id.as_deref(), now)
            .ok_or("sessionKey: expected 1 to 512 characters")?;
        let at =
            s.pending.iter().position(|p| p.call_id == call_id).ok_or(
                "callId: no pending approval with this id in this session (nothing granted)",
            )?;
        let p = s.pending.remove(at).ok_or("callId: vanished")?;
        let mut effects = Vec::new();
        if resolution == "deny" && cfg.deny_cooldown_ms > 0 {
            let keys = [
                Some(p.scope.exact.clone()),
                p.scope.path.clone(),
                p.scope.category.clone(),
            ]
            .into_iter()
            .flatten()
            .collect();
            push_bounded(
                &mut s.cooldowns,
                Cooldown {
                    keys,
                    until: t + cfg.deny_cooldown_ms as f64,
                },
                MAX_COOLDOWNS,
            );
            effects.push("cooldown");
        }
        if !allow || s.rolled_back {
            return Ok(effects);
        }
        if let Some(root) = p.capability {
            if let (Some(run_id), true) = (p.run_id, cfg.envelopes.mode != EnvelopeMode::Off) {
                push_bounded(
                    &mut s.envelopes,
                    Envelope {
                        root,
                        run_id,
                        until: t + cfg.envelopes.ttl_ms as f64,
                    },
                    MAX_ENVELOPES,
                );
                effects.push("envelope");
            }
            return Ok(effects);
        }
        if p.class != Class::Approval {
            return Ok(effects); // critical is never remembered
        }
        if resolution == "allow-always"
            && cfg.remember_allow_always
            && cfg.adaptive.mode != AdaptiveMode::Off
            && p.scope.safe_file
        {
            push_bounded(
                &mut s.adaptive,
                Adaptive {
                    roots: p.scope.dirs.clone(),
                    uses_left: cfg.adaptive.uses,
                    until: t + cfg.adaptive.ttl_ms as f64,
                },
                MAX_ADAPTIVE,
            );
            effects.push("adaptive-lease");
        }
        if resolution == "allow-always" && cfg.remember_allow_always {
            // Path-bound when the analyser verified the targets, else exact repeats only.
            let key = p
                .scope
                .path
                .clone()
                .or_else(|| p.scope.exact_reusable.then(|| p.scope.exact.clone()));
            if let Some(k) = key {
                push_bounded(
                    &mut s.grants,
                    Grant {
                        kind: GrantKind::Lease,
                        key: k,
                        until: t + cfg.allow_always_ttl_ms as f64,
                        run_id: None,
                    },
                    MAX_GRANTS,
                );
                effects.push("lease");
            }
        }
        let w = cfg.window;
        let key = match w.scope {
            WindowScope::Path if w.category_fallback => p.scope.path.or(p.scope.category),
            WindowScope::Path => p.scope.path,
            WindowScope::Category => p.scope.category.or(p.scope.path),
        };
        let run_id = match w.mode {
            WindowMode::Turn => p.run_id,
            _ => None,
        };
        let open = match w.mode {
            WindowMode::Off => false,
            WindowMode::Turn => run_id.is_some(),
            WindowMode::Time => true,
        };
        if let (Some(key), true) = (key, open) {
            push_bounded(
                &mut s.grants,
                Grant {
                    kind: GrantKind::Window,
                    key,
                    until: t + w.ttl_ms as f64,
                    run_id,
                },
                MAX_GRANTS,
            );
            effects.push("window");
        }
        Ok(effects)
    }

    /// The owner's exec lease command. Request: `{"sessionKey", "sessionId"?, "nowMs",
    /// "args", "senderIsOwner"}`. Answer: `{"ok": true, "active", "expiresAtMs", "text"}` or
    /// `{"ok": false, "error"}`.
    pub fn exec_lease_json(&mut self, text: &str) -> String {
        match self.exec_lease(text) {
            Ok((until, text)) => json!({
                "ok": true,
                "active": until.is_some(),
                "expiresAtMs": until,
                "text": text,
            })
            .to_string(),
            Err(e) => json!({"ok": false, "error": e}).to_string(),
        }
    }

    fn exec_lease(&mut self, text: &str) -> Result<(Option<f64>, String), String> {
        let mut obj = fields(
            text,
            &["sessionKey", "sessionId", "nowMs", "args", "senderIsOwner"],
        )?;
        let key = string(&mut obj, "sessionKey")?
            .ok_or("sessionKey: missing (the command needs a stable session)")?;
        let id = string(&mut obj, "sessionId")?;
        let now = number(&mut obj, "nowMs")?;
        let args = string(&mut obj, "args")?.unwrap_or_default();
        if obj.remove("senderIsOwner") != Some(Value::Bool(true)) {
            return Err("only the owner may use /human_gate_exec".to_owned());
        }
        let cmd = command::parse(&args)?;
        let (s, t) = self
            .session(&key, id.as_deref(), now)
            .ok_or("sessionKey: expected 1 to 512 characters")?;
        match cmd {
            command::Command::Off => {
                s.exec_until = 0.0;
                Ok((
                    None,
                    "exec lease off: exec asks again in this session".to_owned(),
                ))
            }
            command::Command::Minutes(_) if s.rolled_back => Err(
                "the clock is behind what this session has seen; no lease granted, try again later"
                    .to_owned(),
            ),
            command::Command::Minutes(m) => {
                s.exec_until = t + (m * 60_000) as f64;
                Ok((
                    Some(s.exec_until),
                    format!("exec lease on for {m} min in this session: ordinary exec runs without asking; block rules, deny cooldowns, critical and self-protection findings and Code Mode still apply"),
                ))
            }
            command::Command::Status if t < s.exec_until => {
                let mins = ((s.exec_until - t) / 60_000.0).ceil();
                Ok((
                    Some(s.exec_until),
                    format!("exec lease on: {mins} min left"),
                ))
            }
            command::Command::Status => Ok((None, "exec lease off".to_owned())),
        }
    }
}

/// A call's id and run id as [`Sessions::record_ids`] reads them: borrowed from the call, or
/// handed over.
struct Ids<'a> {
    call_id: Option<Cow<'a, str>>,
    run_id: Option<Cow<'a, str>>,
}

/// The session of `call` (see [`Sessions::session`]), from the store's parts.
fn session_of<'m>(
    map: &'m mut BTreeMap<String, Session>,
    tick: &mut u64,
    call: &Call,
) -> Option<(&'m mut Session, f64)> {
    let now = valid_now(call.now_ms)?;
    let key = call.session_key.as_deref()?;
    session_in(map, tick, key, call.session_id.as_deref(), now)
}

/// The session for `key` (created, or reset when `id` names a different session), with
/// the effective time (never earlier than what this session has seen).
fn session_in<'m>(
    map: &'m mut BTreeMap<String, Session>,
    tick: &mut u64,
    key: &str,
    id: Option<&str>,
    now: f64,
) -> Option<(&'m mut Session, f64)> {
    if key.is_empty() || !within_id_limit(key) {
        return None;
    }
    let id = id.filter(|i| !i.is_empty() && within_id_limit(i));
    *tick += 1;
    // The key is copied only for a new session (most calls find theirs).
    if !map.contains_key(key) {
        if map.len() >= MAX_SESSIONS {
            let oldest = map
                .iter()
                .min_by_key(|(_, s)| s.used)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                map.remove(&k);
            }
        }
        map.insert(key.to_owned(), Session::default());
    }
    let s = map.get_mut(key)?;
    match (&s.session_id, id) {
        (Some(old), Some(new)) if old != new => *s = Session::default(),
        _ => {}
    }
    if s.session_id.is_none() {
        s.session_id = id.map(str::to_owned);
    }
    s.used = *tick;
    s.rolled_back = now < s.clock;
    let t = if now > s.clock { now } else { s.clock };
    s.clock = t;
    s.prune(t);
    Some((s, t))
}

/// The session-authority step (cooldown, critical bypass, leases, windows, envelopes) for
/// one call in its session `s` at time `t` (see [`Sessions::authorize`]).
#[allow(clippy::too_many_arguments)]
fn authority(
    cfg: &SessionConfig,
    call: &Call,
    d: &mut Decision,
    analysis: Option<&CallAnalysis>,
    scope: &Scope,
    capability: bool,
    s: &mut Session,
    t: f64,
) {
    // 1. deny cooldown: ask → block only.
    if matches!(d.decision, Class::Approval | Class::Critical) {
        let keys: Vec<&String> = [
            Some(&scope.exact),
            scope.path.as_ref(),
            scope.category.as_ref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        if let Some(c) = s
            .cooldowns
            .iter()
            .find(|c| t < c.until && c.keys.iter().any(|k| keys.contains(&k)))
        {
            let secs = ((c.until - t) / 1000.0).ceil();
            d.findings.push(Finding::new(
                &finding::DENY_COOLDOWN,
                format!("denied in this session; cooldown ends in {secs} s"),
            ));
            d.raise(Class::Block, Severity::Warning);
            d.source = Source::DenyCooldown;
            d.rule_id = None;
            d.reason = format!(
                    "Blocked: a person denied the same call in this session moments ago (deny cooldown, {secs} s left); not asking again"
                );
            d.normalize();
            return;
        }
    }
    // 2. critical bypass: only plain approvals can be passed by authority (and nothing
    // is passed while the clock is behind what this session has seen). An approval whose
    // analysis stopped short (a limit crossed: what was not analysed may be critical) is a
    // fail-closed ask too: no lease, window or envelope passes it.
    if d.decision != Class::Approval || d.unevaluated() || capability || s.rolled_back {
        return;
    }
    // 3. exec lease, lease / window, envelope.
    if t < s.exec_until && is_ordinary_exec(call, d) {
        let mins = ((s.exec_until - t) / 60_000.0).ceil();
        pass(
            d,
            Source::ExecLease,
            &finding::EXEC_LEASE,
            format!("owner exec lease, {mins} min left"),
            "Allowed by the owner's exec lease for this session (/human_gate_exec)",
        );
        return;
    }
    let run = call.run_id.as_deref();
    let hit = s.grants.iter().find(|g| {
        t < g.until
            && (Some(&g.key) == scope.path.as_ref()
                || Some(&g.key) == scope.category.as_ref()
                || (g.kind == GrantKind::Lease && scope.exact_reusable && g.key == scope.exact))
            && (g.run_id.is_none() || g.run_id.as_deref() == run)
    });
    if let Some(g) = hit {
        let mins = ((g.until - t) / 60_000.0).ceil();
        match g.kind {
                GrantKind::Lease => pass(
                    d,
                    Source::SessionLease,
                    &finding::SESSION_LEASE,
                    format!("allow-always for the same scope, {mins} min left"),
                    "Allowed by an earlier allow-always for the same kind of call in the same directories",
                ),
                GrantKind::Window => pass(
                    d,
                    Source::ApprovalWindow,
                    &finding::APPROVAL_WINDOW,
                    format!("approved earlier, window {mins} min left"),
                    "Allowed by the approval window: the same kind of call in the same scope was approved",
                ),
            }
        return;
    }
    if cfg.adaptive.mode != AdaptiveMode::Off {
        if let Some(a) = s.adaptive.iter_mut().find(|a| a.covers(scope, t)) {
            if cfg.adaptive.mode == AdaptiveMode::Enforce {
                a.uses_left -= 1;
                let left = a.uses_left;
                pass(
                        d,
                        Source::AdaptiveLease,
                        &finding::ADAPTIVE_LEASE,
                        format!("safe file write below an allow-always directory, {left} uses left"),
                        "Allowed by an adaptive safe-file lease learned from an earlier allow-always (experimental)",
                    );
                return;
            }
            d.findings.push(Finding::new(
                &finding::ADAPTIVE_LEASE_CANDIDATE,
                format!("{} uses left", a.uses_left),
            ));
            d.normalize();
        }
    }
    if cfg.envelopes.mode != EnvelopeMode::Off {
        let configured = cfg
            .envelopes
            .auto_allow_configured_write_roots
            .then_some(cfg.envelopes.write_roots.iter())
            .into_iter()
            .flatten();
        let granted = s
            .envelopes
            .iter()
            .filter(|e| t < e.until && Some(e.run_id.as_str()) == run)
            .map(|e| &e.root);
        let root = granted
            .chain(configured)
            .find(|root| envelope::covers(root, call, d, analysis))
            .cloned();
        if let Some(root) = root {
            if cfg.envelopes.mode == EnvelopeMode::Enforce {
                pass(
                    d,
                    Source::Envelope,
                    &finding::ENVELOPE,
                    format!("writes under {root}"),
                    "Allowed by the authorization envelope approved for this run",
                );
            } else {
                d.findings.push(Finding::new(
                    &finding::ENVELOPE_SHADOW,
                    format!("writes under {root}"),
                ));
                d.normalize();
            }
        }
    }
}

/// The session [`Sessions::authorize_held`] found for a call, held until its ask is recorded.
pub(crate) struct Held<'s> {
    session: Option<(&'s mut Session, f64)>,
    tick: &'s mut u64,
}

impl Held<'_> {
    /// [`Sessions::record`] in the held session.
    pub(crate) fn record(self, cfg: &SessionConfig, call: &Call, d: &mut Decision, scope: Scope) {
        let ids = Ids {
            call_id: call.call_id.as_deref().map(Cow::Borrowed),
            run_id: call.run_id.as_deref().map(Cow::Borrowed),
        };
        self.record_ids(cfg, call, ids, d, scope);
    }

    /// [`Held::record`] for a caller that reads the call's id and run id no more
    /// (`Gate::decide_in_read_for_host`): they are moved into the pending entry instead of
    /// copied, and the call is left without them. Everything else is what `record` does.
    pub(crate) fn record_taking_ids(
        self,
        cfg: &SessionConfig,
        call: &mut Call,
        d: &mut Decision,
        scope: Scope,
    ) {
        if !matches!(d.decision, Class::Approval | Class::Critical) {
            return;
        }
        let ids = Ids {
            call_id: call.call_id.take().map(Cow::Owned),
            run_id: call.run_id.take().map(Cow::Owned),
        };
        self.record_ids(cfg, call, ids, d, scope);
    }

    fn record_ids(
        self,
        cfg: &SessionConfig,
        call: &Call,
        ids: Ids<'_>,
        d: &mut Decision,
        scope: Scope,
    ) {
        if !matches!(d.decision, Class::Approval | Class::Critical) {
            return;
        }
        // What looking the session up again did (`Sessions::record`): the same session at
        // the same time, used once more (its clock and rollback flag are unchanged by a
        // second look at the same time), pruned again.
        let Some((s, t)) = self.session else {
            return;
        };
        *self.tick += 1;
        s.used = *self.tick;
        s.prune(t);
        record_in(s, t, cfg, call, ids, d, scope);
    }
}

/// Remembers an ask in its session `s` at time `t` (see [`Sessions::record`]).
fn record_in(
    s: &mut Session,
    t: f64,
    cfg: &SessionConfig,
    call: &Call,
    ids: Ids<'_>,
    d: &mut Decision,
    scope: Scope,
) {
    // Never offer a promise the session cannot keep: allow-always is offered only when it
    // becomes a lease (a path-bound or exact-repeat key, remembered, with a call id to
    // hear the answer by); otherwise it would silently act as allow-once.
    let keepable = cfg.remember_allow_always
        && d.decision == Class::Approval
        && (scope.path.is_some() || scope.exact_reusable)
        && ids
            .call_id
            .as_deref()
            .is_some_and(|id| !id.is_empty() && within_id_limit(id));
    if !keepable {
        d.allowed_decisions
            .retain(|r| *r != Resolution::AllowAlways);
    }
    if let Some(call_id) = ids.call_id {
        if !call_id.is_empty() && within_id_limit(&call_id) {
            // A call decided again replaces its pending entry; most calls have none.
            let tag = id_tag(&call_id);
            if s.pending
                .iter()
                .any(|p| p.id_tag == tag && p.call_id == call_id)
            {
                s.pending.retain(|p| p.call_id != call_id);
            }
            let capability = envelope::is_request(call)
                .then(|| envelope::requested_root(call).ok())
                .flatten();
            push_bounded(
                &mut s.pending,
                Pending {
                    call_id: call_id.into_owned(),
                    id_tag: tag,
                    scope,
                    class: d.decision,
                    run_id: ids.run_id.map(Cow::into_owned),
                    capability,
                    at: t,
                },
                MAX_PENDING,
            );
        }
    }
    if cfg.adaptive.mode == AdaptiveMode::Suggest
        && d.findings
            .iter()
            .any(|f| f.id == finding::ADAPTIVE_LEASE_CANDIDATE.id)
    {
        prepend_hint(&mut d.preview.description, &[adaptive::SUGGEST_HINT]);
    }
    if cfg.flood.enabled {
        push_bounded(&mut s.asks, t, MAX_ASKS);
        let window = cfg.flood.window_ms as f64;
        let n = asks_within(&s.asks, t, window);
        if n >= cfg.flood.threshold as usize {
            prepend_flood_hint(
                &mut d.preview.description,
                n as u64,
                cfg.flood.window_ms / 1000,
            );
        }
    }
}

/// `hint` (its parts one after another) put before the prompt's `description`, the whole cut
/// to [`crate::preview::MAX_DESCRIPTION_CHARS`]: one text made, not three.
fn prepend_hint(description: &mut String, hint: &[&str]) {
    let len = hint.iter().map(|p| p.len()).sum::<usize>() + description.len();
    let mut text = String::with_capacity(len);
    for part in hint {
        text.push_str(part);
    }
    text.push_str(description);
    crate::preview::sanitize::truncate_in_place(&mut text, crate::preview::MAX_DESCRIPTION_CHARS);
    *description = text;
}

/// The flood warning (`count` asks in `secs` seconds) put before the prompt's `description`,
/// as [`prepend_hint`] puts its parts: the numbers are written into the one text made.
fn prepend_flood_hint(description: &mut String, count: u64, secs: u64) {
    const PARTS: [&str; 3] = [
        "⚠ ",
        " approval requests in ",
        " s in this session. Check each one: nothing is approved automatically.\n",
    ];
    let [warn, asks, rest] = PARTS;
    // Two numbers of at most 20 digits each.
    let mut text = String::with_capacity(
        PARTS.iter().map(|p| p.len()).sum::<usize>() + 40 + description.len(),
    );
    text.push_str(warn);
    crate::json::push_u64(&mut text, count);
    text.push_str(asks);
    crate::json::push_u64(&mut text, secs);
    text.push_str(rest);
    text.push_str(description);
    crate::preview::sanitize::truncate_in_place(&mut text, crate::preview::MAX_DESCRIPTION_CHARS);
    *description = text;
}

/// Ordinary exec: the `exec` tool (not Code Mode), a plain approval, no self-protection finding.
fn is_ordinary_exec(call: &Call, d: &Decision) -> bool {
    call.destructive_kind() == Some("exec")
        && !scope::is_code_mode(call)
        && d.decision == Class::Approval
        && !d
            .findings
            .iter()
            .any(|f| f.id == finding::SELF_PROTECTION.id || f.severity == Severity::Critical)
}

fn pass(
    d: &mut Decision,
    source: Source,
    spec: &'static FindingSpec,
    detail: String,
    reason: &str,
) {
    d.findings.push(Finding::new(spec, detail));
    d.decision = Class::Auto;
    d.severity = Severity::Info;
    d.source = source;
    d.reason = reason.to_owned();
    d.normalize();
}

/// The capability tool always asks (never reusable), or is blocked when it cannot be granted.
fn shape_capability(cfg: &SessionConfig, call: &Call, d: &mut Decision) {
    if d.decision == Class::Block {
        return;
    }
    let bound =
        call.run_id.is_some() && call.session_key.is_some() && valid_now(call.now_ms).is_some();
    let root = if cfg.envelopes.mode == EnvelopeMode::Off {
        Err("authorization envelopes are off (authorizationEnvelopes.mode)")
    } else if !bound {
        Err("the request has no session and run to bind an envelope to")
    } else {
        envelope::requested_root(call)
    };
    match root {
        Ok(root) => {
            d.findings.push(Finding::new(
                &finding::CAPABILITY_REQUEST,
                format!("structured file writes under {root} for this run"),
            ));
            d.raise(Class::Approval, Severity::Warning);
            d.reason = format!(
                "The agent asks to write files under {root} without asking again for the rest of this run (no shell, delete or network)"
            );
        }
        Err(why) => {
            d.findings
                .push(Finding::new(&finding::CAPABILITY_REQUEST, why.to_owned()));
            d.raise(Class::Block, Severity::Warning);
            d.reason = format!("Capability request refused: {why}");
        }
    }
    d.normalize();
}

/// A strict JSON object with only the `allowed` fields.
fn fields(text: &str, allowed: &[&str]) -> Result<Map<String, Value>, String> {
    if text.len() > 64 * 1024 {
        return Err("request: larger than 64 KiB".to_owned());
    }
    let Value::Object(obj) = parse_strict(text)? else {
        return Err("request: expected a JSON object".to_owned());
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "request: unknown field `{}`",
            crate::call::short(k)
        ));
    }
    Ok(obj)
}

fn string(obj: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{key}: expected a string")),
    }
}

fn number(obj: &mut Map<String, Value>, key: &str) -> Result<f64, String> {
    match obj.remove(key) {
        Some(Value::Number(n)) => {
            valid_now(n.as_f64()).ok_or(format!("{key}: expected a time in ms, 0 or more"))
        }
        Some(_) => Err(format!("{key}: expected a number")),
        None => Err(format!("{key}: missing")),
    }
}

#[cfg(test)]
mod tests;
