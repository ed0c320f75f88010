//! The lifecycle family: the handshake and the era. It follows where the
//! handshake stands (its [`Phase`]), the versions proposed and negotiated
//! (and so the revision every family is judged by, [`State::revision`]),
//! the peers' names, and an era probe; and it reports what breaks the
//! handshake: `missing-initialize`, `starts-mid-session`,
//! `request-before-initialized`, `initialize-repeated`, `initialize-failed`,
//! `unknown-protocol-version`, `version-downgrade`, `version-upgrade`,
//! `missing-initialized`, `probe-only-session` and `ping-not-answered`.

use serde_json::Value;

use crate::facts::Implementation;
use crate::facts::Open;
use crate::protocol::{self, Era, Revision};
use crate::rules::ctx::Ctx;
use crate::rules::finding::{Finding, Findings};
use crate::rules::{Rule, capabilities};
use crate::text::excerpt;
use crate::wire::dir::{Dir, Side};
use crate::wire::message::{Field, Kind, Message, RequestId};
use crate::wire::time::At;

/// Where the handshake stands.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Phase {
    /// No client message yet.
    Fresh,
    /// The client probed with `server/discover` and waits for the answer.
    Probing,
    /// `initialize` sent; its answer is found by the request table.
    Initializing,
    /// `initialize` answered; waiting for `notifications/initialized`.
    AwaitInitialized { result: At },
    /// `initialize` was answered with an error; a retry is allowed.
    Failed,
    /// Working: handshake done, modern era, or a log that starts mid-session.
    Ready,
}

/// Where the handshake stands, and what it established.
#[derive(Debug)]
pub(crate) struct State {
    /// `--revision`: overrides the revision read from the log.
    forced: Option<Revision>,
    era: Option<Era>,
    phase: Phase,
    pub(crate) requested: Option<String>,
    pub(crate) negotiated: Option<String>,
    /// [`State::revision`] as last worked out from `forced`, `negotiated`
    /// and `requested` ([`State::versions_changed`], after each is set):
    /// every message asks.
    revision: Option<Revision>,
    pub(crate) client: Option<Implementation>,
    pub(crate) server: Option<Implementation>,
    /// A recorder's `start` event came before the first message.
    pub(crate) known_start: bool,
    /// The capture starts after the handshake.
    pub(crate) mid_session: bool,
    /// The log holds the host's calls, not the wire: it has no handshake
    /// to miss, so the session is not said to start mid-way.
    pub(crate) no_handshake: bool,
    /// The id of the client's `initialize`, once sent.
    pub(crate) init_id: Option<RequestId>,
    /// `notifications/initialized` came before the `initialize` result (a
    /// recording of header-framed bodies writes a body late): it was sent.
    initialized_early: bool,
    /// The phase before a repeated `initialize`, restored if the server
    /// rightly refuses it.
    reinit_from: Option<Phase>,
    /// The client's first `server/discover` while it sent nothing else, and
    /// how it was answered (true: a result): a probe-only session.
    probe: Option<(At, Option<bool>)>,
    /// The client sent something other than `server/discover`.
    not_only_probe: bool,
    /// In a log without its handshake: where the log first showed a
    /// 2026-only shape, and what it was (the era and revision come from it).
    pub(crate) era_evidence: Option<(u64, &'static str)>,
    /// Where the server refused `server/discover` with an error that is no
    /// modern one (the legacy signal): a legacy server, whatever revision
    /// the client's requests then declare.
    legacy_refusal: Option<u64>,
    /// The server answered a newer version than asked (the client's message
    /// count then): a client that disconnects instead of sending
    /// `notifications/initialized` does right.
    upgraded: Option<u64>,
}

impl State {
    /// A session not begun; `forced` is `--revision`.
    pub(crate) fn new(forced: Option<Revision>) -> State {
        State {
            forced,
            era: None,
            phase: Phase::Fresh,
            requested: None,
            negotiated: None,
            revision: forced,
            client: None,
            server: None,
            known_start: false,
            mid_session: false,
            no_handshake: false,
            init_id: None,
            initialized_early: false,
            reinit_from: None,
            probe: None,
            not_only_probe: false,
            legacy_refusal: None,
            era_evidence: None,
            upgraded: None,
        }
    }

    /// The log holds the host's calls, not the wire (no handshake to see).
    pub(crate) fn without_handshake(&mut self) {
        if self.phase == Phase::Fresh {
            self.phase = Phase::Ready;
            self.mid_session = true;
            self.no_handshake = true;
        }
    }

    /// A client message: an era probe, or something else.
    pub(crate) fn client_message(&mut self, at: &At, msg: &Message) {
        if msg.kind == Kind::Request && msg.method.as_deref() == Some("server/discover") {
            self.probe.get_or_insert_with(|| (at.clone(), None));
        } else {
            self.not_only_probe = true;
        }
    }

    /// A message of a log that has no handshake (a capture started
    /// mid-session, a host's log of calls): a shape only 2026-07-28 has
    /// (a `_meta` protocol version naming it, a `resultType`, a multi
    /// round-trip's `inputRequests`, `inputResponses` or `requestState`,
    /// `subscriptions/listen` or `server/discover`) shows the era, and the
    /// revision's rules apply from there. O(1): a few field lookups, and
    /// nothing once the era is known to be modern.
    pub(crate) fn evidence(&mut self, at: &At, msg: &Message) {
        if !(self.mid_session || self.no_handshake)
            || self.era == Some(Era::Modern)
            || self.forced.is_some()
        {
            return;
        }
        let modern_meta = msg
            .meta_str(protocol::META_PROTOCOL_VERSION)
            .and_then(Revision::parse)
            .is_some_and(|r| r.era() == Era::Modern);
        let what = if modern_meta {
            Some("a `_meta` protocol version of 2026-07-28")
        } else {
            match msg.kind {
                Kind::Request => match msg.method.as_deref() {
                    Some("subscriptions/listen") => Some("a `subscriptions/listen` request"),
                    Some("server/discover") => Some("a `server/discover` request"),
                    _ => msg
                        .params()
                        .filter(|p| {
                            p.field("inputResponses").is_some() || p.field("requestState").is_some()
                        })
                        .map(|_| "a retry with `inputResponses` or `requestState`"),
                },
                Kind::Response => msg.result().and_then(|r| {
                    if r.field("resultType").is_some() {
                        Some("a `resultType` in a result")
                    } else if r.field("inputRequests").is_some() {
                        Some("`inputRequests` in a result")
                    } else {
                        None
                    }
                }),
                Kind::Notification => None,
            }
        };
        if let Some(what) = what {
            self.era = Some(Era::Modern);
            self.era_evidence = Some((at.line, what));
            self.versions_changed();
        }
    }

    /// Whether `msg` is the handshake's request or its answer (judged by
    /// what it settles on, not by what the client proposes).
    pub(crate) fn is_handshake(&self, msg: &Message) -> bool {
        match msg.kind {
            Kind::Request => msg.method.as_deref() == Some("initialize"),
            Kind::Response => self.init_id.is_some() && msg.id.id() == self.init_id.as_ref(),
            Kind::Notification => false,
        }
    }

    pub(crate) fn era(&self) -> Option<Era> {
        self.forced.map(Revision::era).or(self.era)
    }

    /// The revision rules are gated on: `--revision`, else the negotiated
    /// one, else the one the client asked for.
    pub(crate) fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// The revision settled on, not proposed: `--revision`, else the
    /// negotiated one.
    pub(crate) fn settled_revision(&self) -> Option<Revision> {
        self.forced
            .or_else(|| self.negotiated.as_deref().and_then(Revision::parse))
    }

    /// Sets the negotiated version (and so [`State::revision`]).
    fn set_negotiated(&mut self, version: Option<String>) {
        self.negotiated = version;
        self.versions_changed();
    }

    /// Works [`State::revision`] out again from the versions.
    fn versions_changed(&mut self) {
        let evidenced = self.era_evidence.map(|_| Revision::V2026_07_28);
        self.revision = self
            .forced
            .or_else(|| self.negotiated.as_deref().and_then(Revision::parse))
            .or_else(|| self.requested.as_deref().and_then(Revision::parse))
            .or(evidenced)
            .filter(|r| self.speaks(*r) || self.forced.is_some());
    }

    /// Whether the server can be judged by `revision`: not by a 2026 one
    /// once it refused `server/discover` the legacy way.
    fn speaks(&self, revision: Revision) -> bool {
        self.legacy_refusal.is_none() || revision.era() != Era::Modern
    }

    /// Whether reusing an answered request id breaks the negotiated revision.
    pub(crate) fn reuse_after_completion_forbidden(&self) -> bool {
        match self.revision() {
            Some(rev) => rev <= Revision::V2025_11_25,
            None => self.era() == Some(Era::Legacy),
        }
    }

    /// A host's word on what the handshake established (a log without it).
    pub(crate) fn established(&mut self, facts: &crate::wire::event::Facts) {
        if let Some(v) = &facts.protocol_version {
            self.set_negotiated(Some(excerpt(v)));
        }
        match facts.modern {
            Some(true) => self.era = Some(Era::Modern),
            Some(false) => self.era = Some(Era::Legacy),
            None => {
                if let Some(rev) = self.negotiated.as_deref().and_then(Revision::parse) {
                    self.era = Some(rev.era());
                }
            }
        }
        if let Some(name) = &facts.server_name {
            self.server = Some(Implementation {
                name: excerpt(name),
                version: facts.server_version.as_deref().map(excerpt),
            });
        }
    }

    /// The revision a message is judged by: `--revision`, else the one its
    /// exchange declares (`declared`, `Session::declared_for`), else the
    /// session's (for the handshake, the one settled on, not proposed).
    pub(crate) fn judged_by(
        &self,
        declared: Option<Revision>,
        handshake: bool,
    ) -> Option<Revision> {
        let declared = declared.filter(|r| self.speaks(*r));
        self.forced.or(declared).or_else(|| {
            if handshake {
                self.settled_revision()
            } else {
                self.revision()
            }
        })
    }

    /// A client's `initialize` in a session already initialised (the
    /// `initialize-repeated` case of the lifecycle).
    pub(crate) fn repeats_initialize(&self, side: Side, method: &str) -> bool {
        method == "initialize"
            && side == Side::Client
            && matches!(
                self.phase,
                Phase::Initializing | Phase::AwaitInitialized { .. } | Phase::Ready
            )
            && self.era() != Some(Era::Modern)
            && !self.mid_session
    }

    /// The handshake, for client messages and early server requests.
    pub(crate) fn step(
        &mut self,
        side: Side,
        msg: &Message,
        caps: &mut capabilities::State,
        ctx: &mut Ctx<'_>,
    ) {
        let method = msg.method.as_deref().unwrap_or_default();
        if side == Side::Server {
            let before_initialized = !matches!(self.phase, Phase::Ready) && !self.mid_session;
            if msg.kind == Kind::Request
                && method != "ping"
                && before_initialized
                && self.era() == Some(Era::Legacy)
            {
                ctx.fire(
                    Rule::RequestBeforeInitialized,
                    format!("server sent `{method}` before the client completed the handshake with `notifications/initialized`"),
                );
            }
            return;
        }
        if side != Side::Client {
            return;
        }
        if matches!(self.phase, Phase::Ready) && method != "initialize" {
            // Past the handshake only a new `initialize` steps it (below):
            // nothing to read of the rest.
            return;
        }
        let modern_version = msg
            .meta_str(protocol::META_PROTOCOL_VERSION)
            .map(str::to_owned);
        match (&self.phase, method) {
            (Phase::Fresh | Phase::Probing | Phase::Failed, "initialize") => {
                self.start_initialize(msg, caps, ctx)
            }
            (Phase::Fresh, "server/discover") => {
                self.phase = Phase::Probing;
                self.set_requested(modern_version, ctx);
                self.client = self
                    .client
                    .take()
                    .or_else(|| Implementation::from_value(msg.meta(protocol::META_CLIENT_INFO)));
            }
            (Phase::Probing, _) if modern_version.is_some() && self.legacy_refusal.is_some() => {
                // The server is legacy: no 2026 era, and no handshake
                // either; the client's fault, said once.
                self.phase = Phase::Ready;
                let line = self.legacy_refusal.unwrap_or_default();
                let finding = ctx.finding(
                    Rule::NoLegacyFallback,
                    format!(
                        "client sent `{method}` as a 2026-07-28 request after the server refused `server/discover` at line {line} the legacy way, instead of falling back to `initialize`; the server was never initialised, and its answers are judged by no 2026 rule"
                    ),
                );
                ctx.push(finding.related(line));
            }
            (Phase::Fresh | Phase::Probing, _) if modern_version.is_some() => {
                self.era = Some(Era::Modern);
                self.phase = Phase::Ready;
                self.set_requested(modern_version, ctx);
                self.client = self
                    .client
                    .take()
                    .or_else(|| Implementation::from_value(msg.meta(protocol::META_CLIENT_INFO)));
            }
            (Phase::Fresh, _) => {
                self.era = Some(Era::Legacy);
                self.phase = Phase::Ready;
                if self.known_start {
                    ctx.fire(
                        Rule::MissingInitialize,
                        format!("the session starts with `{method}` instead of `initialize`; the server has not been initialised"),
                    );
                } else {
                    self.mid_session = true;
                    ctx.fire(
                        Rule::StartsMidSession,
                        format!(
                            "the first client message is `{method}`, not a handshake: the capture starts mid-session, so handshake rules stay silent{}",
                            if self.forced.is_some() { "" } else { ", and revision rules wait for a message that shows the revision (or set --revision)" }
                        ),
                    );
                }
            }
            (_, "initialize") if self.repeats_initialize(side, method) => {
                ctx.fire(
                    Rule::InitializeRepeated,
                    "`initialize` sent again in a session that was already initialised; mcpdbg follows the new handshake, and judges the ids after it afresh".to_string(),
                );
                self.reinit_from = Some(self.phase.clone());
                self.start_initialize(msg, caps, ctx);
            }
            (Phase::AwaitInitialized { .. }, "notifications/initialized") => {
                self.phase = Phase::Ready
            }
            (Phase::Initializing, "notifications/initialized") => self.initialized_early = true,
            (
                Phase::Initializing
                | Phase::AwaitInitialized { .. }
                | Phase::Failed
                | Phase::Probing,
                _,
            ) if msg.kind == Kind::Request && method != "ping" && method != "server/discover" => {
                let waiting_for = if matches!(self.phase, Phase::AwaitInitialized { .. }) {
                    "before sending `notifications/initialized`"
                } else {
                    "before the server answered `initialize`"
                };
                ctx.fire(
                    Rule::RequestBeforeInitialized,
                    format!("client sent `{method}` {waiting_for}"),
                );
            }
            _ => {}
        }
    }

    fn start_initialize(
        &mut self,
        msg: &Message,
        caps: &mut capabilities::State,
        ctx: &mut Ctx<'_>,
    ) {
        self.era = Some(Era::Legacy);
        self.phase = Phase::Initializing;
        let params = msg.params();
        let version = params
            .and_then(|p| p.field("protocolVersion"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.set_requested(version, ctx);
        self.client = Implementation::from_value(params.and_then(|p| p.field("clientInfo")));
        self.init_id = msg.id.id().cloned();
        caps.client_declared(params.and_then(|p| p.field("capabilities")));
    }

    fn set_requested(&mut self, version: Option<String>, ctx: &mut Ctx<'_>) {
        if let Some(v) = &version {
            if Revision::parse(v).is_none() && self.requested.as_deref() != Some(v) {
                ctx.fire(
                    Rule::UnknownProtocolVersion,
                    format!(
                        "client asked for protocol version {:?}, which is not a released revision",
                        excerpt(v)
                    ),
                );
            }
        }
        if version.is_some() {
            self.requested = version;
            self.versions_changed();
        }
    }

    /// A `ping` answered with an error (`ping-not-answered`).
    pub(crate) fn ping_answered(
        &self,
        requester: Side,
        id: &RequestId,
        open: &Open,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        let ping_required = self.era() != Some(Era::Modern)
            && self.revision().is_none_or(|r| r <= Revision::V2025_11_25);
        if &*open.method == "ping" && ping_required {
            if let Some(error) = msg.error() {
                ctx.findings.push(
                    ctx.finding(
                        Rule::PingNotAnswered,
                        format!(
                            "the {} answered the {}'s `ping` (id {id}, line {}) with error {}: {:?} instead of an empty result; a peer that pings for liveness takes this as a dead connection",
                            requester.other().as_str(),
                            requester.as_str(),
                            open.line,
                            error.code.map_or("without a code".to_string(), |c| c.to_string()),
                            excerpt(error.message.as_deref().unwrap_or(""))
                        ),
                    )
                    .method(Some("ping"))
                    .related(open.line),
                );
            }
        }
    }

    /// A client request answered: the handshake's answers move the phase
    /// and settle the version.
    pub(crate) fn answered(
        &mut self,
        method: &str,
        msg: &Message,
        client_messages: u64,
        caps: &mut capabilities::State,
        ctx: &mut Ctx<'_>,
    ) {
        match (method, &self.phase) {
            ("initialize", Phase::Initializing) => {
                self.initialize_answered(msg, client_messages, caps, ctx)
            }
            ("server/discover", _) => {
                if let Some((_, answer @ None)) = &mut self.probe {
                    *answer = Some(msg.result().is_some());
                }
                self.discover_answered(ctx.at().line, msg, caps);
            }
            _ => {}
        }
        self.modern_answer(msg);
    }

    fn discover_answered(&mut self, at_line: u64, msg: &Message, caps: &mut capabilities::State) {
        if let Some(result) = msg.result() {
            // The answer may arrive after the client already went on with
            // modern requests (pipelined), so the phase may be Ready.
            self.era = Some(Era::Modern);
            if self.phase == Phase::Probing {
                self.phase = Phase::Ready;
            }
            caps.server_declared(result.field("capabilities"));
        } else if let Some(error) = msg.error() {
            if error.code.is_some_and(protocol::is_modern_discover_error) {
                self.era = Some(Era::Modern);
            } else if self.phase == Phase::Probing {
                // The legacy signal: the client should fall back.
                self.legacy_refusal = Some(at_line);
                self.era = Some(Era::Legacy);
                self.versions_changed();
            }
        }
    }

    fn modern_answer(&mut self, msg: &Message) {
        if self.era() == Some(Era::Modern) {
            // The codes only a 2026 server answers (header mismatch, a
            // missing client capability) accept the request's version as a
            // result does; -32022 refuses it.
            let modern_error = msg
                .error()
                .is_some_and(|e| matches!(e.code, Some(-32020 | -32021)));
            if modern_error && self.negotiated.is_none() {
                self.set_negotiated(self.requested.clone());
            }
            if let Some(result) = msg.result() {
                if self.negotiated.is_none() {
                    self.set_negotiated(self.requested.clone());
                }
                if self.server.is_none() {
                    self.server = Implementation::from_value(
                        result
                            .field("_meta")
                            .and_then(|m| m.get(protocol::META_SERVER_INFO)),
                    );
                }
            }
        }
    }

    fn initialize_answered(
        &mut self,
        msg: &Message,
        client_messages: u64,
        caps: &mut capabilities::State,
        ctx: &mut Ctx<'_>,
    ) {
        let at = ctx.at();
        let reinit_from = self.reinit_from.take();
        let Some(result) = msg.result() else {
            if let Some(phase) = reinit_from {
                // A server refusing a second initialize does right; the
                // first handshake stands.
                self.phase = phase;
                return;
            }
            let error = msg.error().unwrap_or(crate::wire::message::ErrorInfo {
                code: None,
                message: None,
            });
            ctx.fire(
                Rule::InitializeFailed,
                format!(
                    "server rejected `initialize` with error {}: {:?}",
                    error
                        .code
                        .map_or("without a code".to_string(), |c| c.to_string()),
                    excerpt(error.message.as_deref().unwrap_or(""))
                ),
            );
            self.phase = Phase::Failed;
            return;
        };
        self.phase = if self.initialized_early {
            Phase::Ready
        } else {
            Phase::AwaitInitialized { result: at.clone() }
        };
        self.server = Implementation::from_value(result.field("serverInfo"));
        let answered = result
            .field("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(v) = &answered {
            match (Revision::parse(v), self.requested.as_deref().and_then(Revision::parse)) {
                (None, _) => ctx.fire(
                    Rule::UnknownProtocolVersion,
                    format!("server answered protocol version {:?}, which is not a released revision", excerpt(v)),
                ),
                (Some(got), Some(asked)) if got < asked => ctx.fire(
                    Rule::VersionDowngrade,
                    format!("client asked for {asked} and the server answered {got}: features newer than {got} are off for this session"),
                ),
                (Some(got), Some(asked)) if got > asked => {
                    self.upgraded = Some(client_messages);
                    ctx.fire(
                        Rule::VersionUpgrade,
                        format!("client asked for {asked} and the server answered the newer {got}: a client that does not support {got} must disconnect"),
                    )
                }
                _ => {}
            }
        }
        self.set_negotiated(answered);
        caps.server_declared(result.field("capabilities"));
        caps.negotiated(self.revision(), ctx);
    }

    /// The log ended at `end_line`: a probe-only session, a handshake the
    /// client never completed.
    pub(crate) fn finish(&self, end_line: u64, client_messages: u64, findings: &mut Findings) {
        if let (Some((at, answer)), false) = (&self.probe, self.not_only_probe) {
            let how = match answer {
                Some(true) => {
                    "the server answered it (it speaks the 2026-07-28 revision); an auto-mode client holds the real session in another process"
                }
                Some(false) => {
                    "the server answered with an error, the sign of a legacy server; the client falls back to `initialize`, often in a new process"
                }
                None => {
                    "the server did not answer; a client falls back to `initialize` after its timeout"
                }
            };
            findings.push(
                Finding::new(
                    Rule::ProbeOnlySession,
                    at.line,
                    format!("this session is only an era probe: the client sent `server/discover` and nothing else; {how}"),
                )
                .time(at.time.as_ref())
                .dir(Dir::ClientToServer)
                .method(Some("server/discover")),
            );
        }
        let disconnected = self.upgraded == Some(client_messages);
        if let (Phase::AwaitInitialized { result }, false) = (&self.phase, disconnected) {
            let text = format!(
                "`initialize` succeeded but the client never sent `notifications/initialized` before the log ends at line {end_line}"
            );
            findings.push(
                Finding::new(Rule::MissingInitialized, result.line, text)
                    .time(result.time.as_ref())
                    .dir(Dir::ServerToClient),
            );
        }
    }
}
