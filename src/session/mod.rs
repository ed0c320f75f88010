//! The session state machine: transport items -> findings and a summary.
//!
//! Keeps what every rule family reads (`core`: the requests each side has
//! open, the ids each side has used, direction inference; `evidence`: what
//! may explain a hang) and hands each message to the families of `rules/`
//! in a fixed order, which is the order of findings on one line:
//!
//! - a request: `modern` (a 2026 retry), `ids` (reuse, the open-request
//!   limit), `lifecycle` (the handshake), `capabilities`, `modern` and
//!   `utilities` (what they remember of it), `assertions` and `tools` (a
//!   call: a forbidden or expected tool, its arguments);
//! - a notification: `lifecycle`, `capabilities`, then by method
//!   `modern` or `utilities` (a cancel, progress, a task's status), and
//!   `modern` (a 2026 subscription), `tools` (a list change);
//! - a response: `ids` (duplicate, loose or orphan answers), then for the
//!   request it answers `timing`, `utilities`, `modern`, `lifecycle`
//!   (`ping`), `assertions` (latency and result budgets, listed tools),
//!   `tools`, `lifecycle` (the handshake's answers);
//! - then every message: `checks` (the message in its context),
//!   `deprecations` (a deprecated feature, unless a check refused the
//!   message) and, under `--schema-check`, `schema`.
//!
//! Each family reports through one [`Ctx`] (the message, and the findings
//! behind the catalogue's gate: the revision the message is judged by,
//! decided here once). At the end, `lifecycle` and `timing` close, what
//! is still open becomes `hangs`, and `assertions` judges what is left
//! (the hangs for `--require-complete`, the tools never called). It does
//! no I/O and never reads the clock: all time comes from the log's
//! timestamps. Memory grows with open requests and used ids, not with the
//! log's size.

use serde_json::Value;

use crate::protocol::{Era, Revision};
use crate::rules::checks;
use crate::rules::finding::{Finding, Findings};
use crate::text::excerpt;
use crate::transport::{At, Item};
use crate::wire::dir::{Dir, Side};
use crate::wire::event::EventKind;
use crate::wire::message::{Field, IdField, Kind, Message, RequestId};

use crate::facts::evidence::Evidence;
pub use crate::facts::evidence::{FollowStop, LogCut};
use crate::facts::{
    Before, Cancel, Facts, Inference, MethodName, Open, SubjectText, UsedIds, declared_revision,
    method_name,
};
pub use crate::facts::{Counts, Implementation};
pub use crate::report::{OpenRequest, Summary};
use crate::rules::assertions::{self, Assertions, Incomplete};
use crate::rules::ctx::{Ctx, request_subject};
use crate::rules::{
    Rule, capabilities, deprecations, hangs, ids, lifecycle, modern, notes, schema, timing, tools,
    utilities,
};

pub(crate) mod boundary;

use crate::facts::pairing;
pub use crate::facts::pairing::MAX_OPEN;
pub use boundary::{Boundary, Restart};

use crate::facts::pairing::{Opened, Pairing};

/// What the user told us about the session.
#[derive(Clone, Debug)]
pub struct Config {
    /// Overrides the revision read from the log.
    pub revision: Option<Revision>,
    /// Responses slower than this many seconds are reported.
    pub slow_seconds: f64,
    /// `--schema-check`: judge every message against the official JSON
    /// Schema of the session's revision, and every tool call and result
    /// against the listed schemas, past the tool-schema work budget.
    pub schema_check: bool,
    /// The tool-schema checks: tool calls and results against the schemas
    /// the server listed (on unless `--no-tool-schemas`).
    pub tool_schemas: bool,
    /// What the tool-schema checks of the file's sessions share (their
    /// compiled schemas and work budget): one per file.
    pub work: crate::facts::schemas::Shared,
    /// `--target-revision`: deprecations are judged as if the session
    /// moved to this revision, besides its own.
    pub target_revision: Option<Revision>,
    /// `--expect-tool`, `--max-latency`, ...: the assertions family's
    /// contracts (none by default).
    pub assertions: Assertions,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            revision: None,
            slow_seconds: 5.0,
            schema_check: false,
            tool_schemas: true,
            work: Default::default(),
            target_revision: None,
            assertions: Assertions::default(),
        }
    }
}

/// One MCP session being analysed.
pub struct Session {
    config: Config,
    /// The handshake, the era and the revision (the lifecycle family).
    lifecycle: lifecycle::State,
    open: Pairing<Open>,
    used: [UsedIds; 3],
    /// Requests not followed because of [`MAX_OPEN`], per side.
    unfollowed: [u64; 3],
    counts: Counts,
    first: Option<At>,
    last: Option<At>,
    /// What may explain a hang: stderr, crashes, the process's end, a cut.
    evidence: Evidence,
    inference: Inference,
    /// The families that remember: what each side declared; progress
    /// tokens and tasks; the 2026 retries, pages and listens.
    capabilities: capabilities::State,
    utilities: utilities::State,
    modern: modern::State,
    name: Option<String>,
    /// The tool-call family: listed tools, their schemas.
    tools: tools::State,
    /// The timing family: answer times, stalls, the client's timeout.
    timing: timing::State,
    /// `--schema-check` against the official schema.
    schema: schema::State,
    /// The assertions family: the expected tools' tally.
    assertions: assertions::State,
    /// Some request declared its revision in `_meta` (so an answer's or a
    /// cancellation's request may be judged by its own).
    declares: bool,
}

impl Session {
    pub fn new(config: Config) -> Session {
        let work = config.work.clone();
        Session {
            lifecycle: lifecycle::State::new(config.revision),
            assertions: assertions::State::new(&config.assertions),
            config,
            open: Pairing::default(),
            used: Default::default(),
            unfollowed: [0; 3],
            counts: Counts::default(),
            first: None,
            last: None,
            evidence: Default::default(),
            inference: Inference::default(),
            capabilities: Default::default(),
            utilities: Default::default(),
            modern: Default::default(),
            name: None,
            tools: tools::State::new(work),
            timing: Default::default(),
            schema: Default::default(),
            declares: false,
        }
    }

    /// The session ends and `next`, of the same server, begins (a
    /// restart): what is judged over all of a server's sessions (the
    /// expected tools) goes on in `next`.
    pub fn hand_over(&mut self, next: &mut Session) {
        self.assertions.hand_over(&mut next.assertions);
    }

    /// Names the session (the server's name in a log of several servers).
    pub fn set_name(&mut self, name: Option<&str>) {
        self.name = name.map(str::to_owned);
    }

    /// True until the session has seen a message.
    pub fn is_empty(&self) -> bool {
        self.counts.messages.iter().sum::<u64>() == 0
    }

    fn era(&self) -> Option<Era> {
        self.lifecycle.era()
    }

    /// The revision rules are gated on: `--revision`, else the negotiated
    /// one, else the one the client asked for.
    pub fn revision(&self) -> Option<Revision> {
        self.lifecycle.revision()
    }

    /// What the rule families are judged with, as the session stands.
    fn facts(&self) -> Facts {
        Facts {
            revision: self.revision(),
            era: self.era(),
            mid_session: self.lifecycle.mid_session,
            no_handshake: self.lifecycle.no_handshake,
            tool_schemas: self.config.tool_schemas,
            schema_check: self.config.schema_check,
            known_start: self.lifecycle.known_start,
            slow_seconds: self.config.slow_seconds,
            client_open: self.open.len(Side::Client),
        }
    }

    fn touch(&mut self, at: &At) {
        if self.first.is_none() {
            self.first = Some(at.clone());
        }
        // The last line, with the last time the log gave (a line without
        // one keeps the time before it): updated in place, a time cloned
        // only when the line has one.
        match &mut self.last {
            Some(last) => {
                last.line = at.line;
                if let Some(time) = &at.time {
                    last.time = Some(time.clone());
                }
            }
            None => self.last = Some(at.clone()),
        }
    }

    /// The requests still waited on now (not cancelled), in no order: what
    /// `check --follow`'s status line names, from the table `check` pairs
    /// with.
    pub fn waiting(&self) -> impl Iterator<Item = Waiting> + '_ {
        self.open
            .all()
            .filter(|(_, _, o)| o.cancelled.is_none())
            .map(|(_, id, o)| Waiting {
                id: id.clone(),
                method: o.method.to_string(),
                subject: o.subject.as_deref().map(str::to_owned),
                line: o.line,
                time: o.time.clone(),
            })
    }

    /// Takes one item from the transport.
    pub fn observe(&mut self, item: &mut Item, findings: &mut Findings) {
        findings.judge_under(self.revision());
        self.observe_gated(item, findings);
        findings.judge_under(None);
    }

    /// [`Session::observe`] under the catalogue's gate.
    fn observe_gated(&mut self, item: &mut Item, findings: &mut Findings) {
        match item {
            Item::Message { at, dir, msg } => {
                self.touch(at);
                self.message(at, *dir, msg, findings);
            }
            Item::Batch { at, dir, items } => {
                self.touch(at);
                self.batch(at, *dir, items, findings);
            }
            Item::Stderr { at, text } => {
                self.touch(at);
                self.counts.stderr += 1;
                self.evidence.stderr(at.line, std::mem::take(text));
            }
            Item::Noise { at, dir } => {
                self.touch(at);
                self.counts.noise[Side::of(*dir).index()] += 1;
                if *dir == Dir::Unknown {
                    self.inference.text_lines += 1;
                    self.inference.first_text.get_or_insert(at.line);
                }
            }
            Item::Event { at, event } => {
                self.touch(at);
                self.open.event(at, &event.kind);
                if let Some(facts) = &event.facts {
                    self.lifecycle.established(facts);
                }
                let text = std::mem::take(&mut event.text);
                match event.kind {
                    EventKind::Start if self.is_empty() => self.lifecycle.known_start = true,
                    EventKind::Gap => findings.push(notes::recording_gap(at, &text)),
                    EventKind::End(ending) => {
                        self.evidence.ended(at.line, Some(ending), &text);
                    }
                    EventKind::StartFailed => {
                        findings.push(notes::start_failed(at, &text));
                        self.evidence.ended(at.line, None, &text);
                    }
                    EventKind::NoHandshake => self.lifecycle.without_handshake(),
                    EventKind::Start | EventKind::PartialLine(_) | EventKind::Note => {}
                }
            }
        }
    }

    fn batch(
        &mut self,
        at: &At,
        dir: Dir,
        items: &mut [Result<Message, String>],
        findings: &mut Findings,
    ) {
        if let Some(finding) = checks::batch_finding(at, dir, items, self.revision()) {
            findings.push(finding);
        }
        for item in items {
            match item {
                Ok(msg) => self.message(at, dir, msg, findings),
                Err(why) => findings.push(checks::not_a_message(at, dir, why)),
            }
        }
    }

    fn message(&mut self, at: &At, dir: Dir, msg: &mut Message, findings: &mut Findings) {
        let dir = if dir == Dir::Unknown {
            self.infer(msg)
        } else {
            dir
        };
        let side = Side::of(dir);
        self.counts.messages[side.index()] += 1;
        self.tools.saw(msg);
        self.timing.tick(at.time.as_ref(), findings);
        if side == Side::Client {
            self.lifecycle.client_message(at, msg);
        }
        self.lifecycle.evidence(at, msg);
        let declared = self.declared_for(side, msg);
        // The handshake is judged by what it settles on, not by what the
        // client proposes (see the checks' context below).
        let handshake = self.lifecycle.is_handshake(msg);
        findings.judge_under(self.lifecycle.judged_by(declared, handshake));
        let mut ctx = Ctx::new(at, dir, msg, findings);
        let request_method = match msg.kind {
            Kind::Request => {
                self.request(at, side, msg, declared, &mut ctx);
                None
            }
            Kind::Notification => {
                self.notification(at, side, msg, &mut ctx);
                None
            }
            Kind::Response => self.response(at, side, msg, &mut ctx),
        };
        // The message on its own, judged with what the conversation tells.
        // The handshake's own request is judged by what is negotiated, not
        // by what it proposes: an `initialize` proposing 2026-07-28 that the
        // server answers with 2025-11-25 is a legacy handshake.
        let proposal = msg.kind == Kind::Request && msg.method.as_deref() == Some("initialize");
        let context = checks::Context {
            revision: if proposal {
                self.lifecycle.settled_revision()
            } else {
                self.revision()
            },
            era: self.era(),
            side,
            request_method: request_method.as_deref(),
        };
        let judged = self.lifecycle.judged_by(declared, proposal);
        ctx.findings.judge_under(judged);
        let hits = checks::message(msg, &context);
        // What a check already refuses in its revision is not also called
        // deprecated there.
        let refused = hits.iter().any(|h| {
            matches!(
                h.rule,
                Rule::ServerSentRequest | Rule::NotificationNotAllowed | Rule::MethodNotInRevision
            )
        });
        for hit in hits {
            // Past the rule's limit, counted without the finding built.
            let severity = hit.severity.unwrap_or_else(|| hit.rule.severity());
            if !ctx.findings.wants(hit.rule, severity) {
                ctx.findings.count(hit.rule, at.line);
                continue;
            }
            let mut finding = ctx.finding(hit.rule, hit.message);
            finding.severity = severity;
            if request_method.is_some() && finding.method.is_none() {
                finding.method = request_method.as_deref().map(str::to_owned);
            }
            ctx.push(finding);
        }
        let judged = deprecations::Judged {
            own: judged,
            target: self.config.target_revision,
        };
        deprecations::message(judged, msg, request_method.as_deref(), refused, &mut ctx);
        if side == Side::Server {
            self.timing.wrote(at.time.as_ref());
        }
        if self.config.schema_check && !msg.partial {
            let revision = self.revision();
            self.schema
                .check(revision, at, dir, msg, request_method.as_deref(), findings);
        }
    }

    /// The revision a message declares for its exchange: a request's own
    /// `_meta` protocol version, or that of the open request an answer or a
    /// cancellation is about. `None` when it declares none (the session's
    /// revision rules it).
    fn declared_for(&self, side: Side, msg: &Message) -> Option<Revision> {
        if msg.kind != Kind::Request && !self.declares {
            // No request declared one: an answer's lookup is saved (most
            // legacy sessions' every answer).
            return None;
        }
        match msg.kind {
            Kind::Request => declared_revision(msg),
            Kind::Response => {
                let id = msg.id.id()?;
                self.open.get(side.other(), id)?.declared
            }
            Kind::Notification if msg.method.as_deref() == Some("notifications/cancelled") => {
                let id = msg
                    .params()
                    .and_then(|p| p.field("requestId"))
                    .and_then(RequestId::from_json)?;
                [side, side.other()]
                    .into_iter()
                    .find_map(|s| self.open.get(s, &id))?
                    .declared
            }
            Kind::Notification => None,
        }
    }

    /// Infers the writer of a message in a log without direction markers.
    fn infer(&mut self, msg: &Message) -> Dir {
        self.inference.seen += 1;
        let side = self.open.infer_sender(msg);
        if side == Side::Unknown {
            self.inference.unplaced += 1;
            if self.inference.first_unplaced.is_none() {
                self.inference.first_unplaced = self.last.as_ref().map(|a| a.line);
            }
        } else {
            self.inference.placed += 1;
        }
        side.dir()
    }

    /// `declared`: the revision the request's `_meta` declares
    /// ([`Session::declared_for`]).
    fn request(
        &mut self,
        at: &At,
        side: Side,
        msg: &Message,
        declared: Option<Revision>,
        ctx: &mut Ctx<'_>,
    ) {
        let method = msg.method.as_deref().unwrap_or_default();
        if self.lifecycle.repeats_initialize(side, method) {
            // A client starting over: its ids start over too. One
            // initialize-repeated (lifecycle), not an id-reuse per id.
            self.used = Default::default();
        }
        let awaited = pairing::awaited(msg);
        match (awaited, msg.id.id()) {
            (Some(id), _) => {
                self.modern.retry(side, id, msg, ctx);
                self.track(at, side, id, msg, declared, ctx);
            }
            // A notification sent with an id (`notification-with-id`): a
            // peer that answers it treats it as a request, which is no
            // orphan; the id is kept as answerable, unchecked.
            (None, Some(id)) if self.used[side.index()].get(id).is_none() => {
                self.used[side.index()].insert(id, at.line, true);
            }
            _ => {}
        }
        self.lifecycle.step(side, msg, &mut self.capabilities, ctx);
        self.capabilities.gate(&self.facts(), side, msg, ctx);
        if let Some(id) = awaited {
            self.modern.request(side, id, msg);
            self.utilities.request(at, side, id, msg);
        }
        if side == Side::Client && method == "tools/call" {
            self.assertions.call(&self.config.assertions, ctx);
        }
        if side == Side::Client
            && method == "tools/call"
            && self.tools.call(&self.facts(), msg, ctx)
        {
            if let Some(open) = msg.id.id().and_then(|id| self.open.get_mut(side, id)) {
                open.bad_arguments = true;
            }
        }
    }

    fn track(
        &mut self,
        at: &At,
        side: Side,
        id: &RequestId,
        msg: &Message,
        declared: Option<Revision>,
        ctx: &mut Ctx<'_>,
    ) {
        let method = msg.method.as_deref().unwrap_or_default();
        let prev = self.open.get(side, id);
        let reused = prev.is_some();
        let key = self.used[side.index()].key(id);
        if let Some(prev) = prev {
            ids::reused_while_open(side, id, method, prev, ctx);
        } else if let Some(used) = self.used[side.index()].get_at(key) {
            if self.lifecycle.reuse_after_completion_forbidden() {
                ids::reused_after_answer(side, id, method, used.line, self.revision(), ctx);
            }
        }
        let subject = request_subject(msg).map(|s| SubjectText::from(&*s));
        let retry_of = self
            .utilities
            .retry_of(side, method, subject.as_ref())
            .map(Box::new);
        self.declares |= declared.is_some();
        let request = Open {
            line: at.line,
            time: at.time.clone(),
            method: method_name(method),
            subject,
            cancelled: None,
            before: Before::of(&self.counts, side.other()),
            bad_arguments: false,
            paged: msg.params().is_some_and(|p| p.field("cursor").is_some()),
            reused,
            cut: msg.cut,
            retry_of,
            shutdown: None,
            earlier_open: u32::try_from(self.open.len(side)).unwrap_or(u32::MAX),
            declared,
        };
        if let Opened::Full = self.open.open(side, id, request) {
            self.unfollowed[side.index()] += 1;
            if self.unfollowed[side.index()] == 1 {
                ids::open_limit(side, ctx);
            }
            self.used[side.index()].insert_at(key, at.line, true);
            return;
        }
        self.used[side.index()].insert_at(key, at.line, false);
    }

    fn notification(&mut self, at: &At, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        self.lifecycle.step(side, msg, &mut self.capabilities, ctx);
        self.capabilities.gate(&self.facts(), side, msg, ctx);
        match msg.method.as_deref() {
            Some("notifications/cancelled") => self.cancelled(at, side, msg, ctx),
            Some("notifications/progress") => {
                self.utilities.progress(&self.facts(), side, msg, ctx)
            }
            Some("notifications/tasks/status") => {
                if let Some(params) = msg.params() {
                    let (task, status) = (params.field("taskId"), params.field("status"));
                    self.utilities.task_status(at, task, status, ctx);
                }
            }
            _ => {}
        }
        if self.era() == Some(Era::Modern) && side == Side::Server {
            self.modern.subscription(&self.open, msg, ctx);
        }
        if side == Side::Server && msg.method.as_deref() == Some("notifications/tools/list_changed")
        {
            self.tools.list_changed();
        }
    }

    /// `notifications/cancelled`: the request it names is marked
    /// cancelled (by choice, or because the client timed out), or, in a
    /// 2026 session, a server's cancel ends its `subscriptions/listen`.
    fn cancelled(&mut self, at: &At, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let Some(id) = msg
            .params()
            .and_then(|p| p.field("requestId"))
            .and_then(RequestId::from_json)
        else {
            // Its target is not in the log: a hang's story says what it saw.
            self.evidence.untargeted_cancel[side.index()] = Some(at.line);
            return;
        };
        let facts = self.facts();
        if facts.era == Some(Era::Modern) && side == Side::Server {
            let open = self.open.get(Side::Client, &id);
            if open.is_some_and(|o| pairing::cancel_ends_listen(side, &o.method)) {
                self.open.answer(Side::Client, &id);
                self.counts.settled[Side::Server.index()] += 1;
                self.modern.listen_ended(&id);
            } else {
                modern::State::server_cancelled(&id, open, ctx);
            }
            return;
        }
        let task =
            self.utilities
                .cancelled(&facts, side, &id, self.lifecycle.init_id.as_ref(), ctx);
        if let Some(open) = self.open.get_mut(side, &id) {
            let reason = msg
                .params()
                .and_then(|p| p.field("reason"))
                .and_then(Value::as_str);
            let mut cancel = Cancel {
                at: at.clone(),
                chosen: reason
                    .filter(|r| !utilities::is_timeout(r))
                    .map(|r| excerpt(r).into_boxed_str()),
                timed_out: None,
            };
            if let Some(r) = reason.filter(|r| utilities::is_timeout(r)) {
                let r = excerpt(r).into_boxed_str();
                if side == Side::Client {
                    self.timing.client_gave_up(at, open.time.as_ref(), &r);
                }
                let subject = open.subject.as_deref();
                self.utilities
                    .gave_up(side, &id, open.line, &open.method, subject);
                cancel.timed_out = Some(r);
            }
            open.cancelled = Some(Box::new(cancel));
            return;
        }
        if task {
            return; // answered with its task long ago: the rule above says it all
        }
        let used = self.used[side.index()].get(&id);
        utilities::State::cancel_unknown(&facts, side, &id, used, ctx);
    }

    fn response(
        &mut self,
        at: &At,
        side: Side,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) -> Option<MethodName> {
        let requester = side.other();
        if self.open.shutdown_error(requester, msg) {
            // The side's shutdown after the requester closed the
            // connection: the request stays open, a hang.
            let open = msg
                .id
                .id()
                .and_then(|id| self.open.get_mut(requester, id))?;
            open.shutdown.get_or_insert(at.line);
            return Some(open.method.clone());
        }
        // A missing, null or unusable id is an envelope matter (`checks`).
        let IdField::Id(id) = &msg.id else {
            return None;
        };
        // swap_remove: O(1); the order of open requests is restored by line
        // where it is shown.
        if let Some(open) = self.open.answer(requester, id) {
            self.counts.settled[side.index()] += 1;
            self.used[requester.index()].answer(id, at.line);
            let method = open.method.clone();
            self.answered(at, requester, id, open, msg, ctx);
            return Some(method);
        }
        if let Some(used) = self.used[requester.index()]
            .get(id)
            .filter(|u| u.forgotten && u.answered.is_none())
        {
            // A request past the open-request limit: accepted unchecked.
            let _ = used;
            self.used[requester.index()].answer(id, at.line);
            return None;
        }
        if let Some(used) = self.used[requester.index()]
            .get(id)
            .filter(|u| u.answered.is_some())
        {
            ids::duplicate_response(side, id, used, ctx);
            return None;
        }
        // A type-changed echo (1 vs "1"); a linear scan, so only while few
        // requests are open.
        if let Some((request_id, open)) = self.open.answer_loosely(requester, id) {
            self.counts.settled[side.index()] += 1;
            self.used[requester.index()].answer(&request_id, at.line);
            ids::loose_echo(requester, id, &request_id, &open, ctx);
            return Some(open.method);
        }
        let modern_client = self.era() == Some(Era::Modern) && side == Side::Client;
        if !self.lifecycle.mid_session && side != Side::Unknown && !modern_client {
            ids::orphan(side, id, ctx);
        }
        None
    }

    fn answered(
        &mut self,
        at: &At,
        requester: Side,
        id: &RequestId,
        open: Open,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        let facts = self.facts();
        self.timing.answered(&facts, at, requester, id, &open, ctx);
        self.utilities.answered(at, requester, id, &open, msg, ctx);
        let facts = self.facts();
        self.modern.answered(&facts, requester, id, &open, msg, ctx);
        self.lifecycle.ping_answered(requester, id, &open, msg, ctx);
        if requester != Side::Client {
            return;
        }
        let facts = self.facts();
        self.assertions
            .answered(&self.config.assertions, &facts, &open, ctx);
        self.tools.answered(&facts, &open, ctx);
        let client_messages = self.counts.messages[Side::Client.index()];
        self.lifecycle.answered(
            &open.method,
            msg,
            client_messages,
            &mut self.capabilities,
            ctx,
        );
        let handshake = match &*open.method {
            "initialize" => true,
            "server/discover" => false,
            _ => return,
        };
        if msg.result().is_some() {
            let judged = deprecations::Judged {
                own: self.lifecycle.judged_by(None, true),
                target: self.config.target_revision,
            };
            let (client, server) = self.capabilities.declared();
            let client = client.filter(|_| handshake);
            deprecations::capabilities(judged, client, server, ctx);
        }
    }

    /// The log was cut short at `line` (before [`Session::finish`]): a
    /// request left open before it may have been answered in what is
    /// missing, and its hang says so. `text`: the line cut in the middle
    /// of a message, if any, and who wrote it.
    pub fn log_cut(&mut self, line: u64, how: LogCut, text: Option<(u64, Side)>) {
        self.evidence.cut = Some((line, how));
        self.evidence.cut_text = text;
    }

    /// `check --follow` stopped reading the log here (Ctrl-C), not at its
    /// end: what is still open is said to be open when following stopped.
    pub fn follow_stopped(&mut self, stop: FollowStop) {
        self.evidence.follow_stopped = Some(stop);
    }

    /// Ends the session: open requests become hangs.
    pub fn finish(self, findings: &mut Findings) -> Summary {
        findings.judge_under(self.revision());
        let summary = self.finish_gated(findings);
        findings.judge_under(None);
        summary
    }

    /// [`Session::finish`] under the catalogue's gate.
    fn finish_gated(mut self, findings: &mut Findings) -> Summary {
        let end_line = self.last.as_ref().map_or(0, |a| a.line);
        self.timing.close(findings);
        // `--require-complete`: the requests the hang model reports below.
        let mut incomplete = Vec::new();
        let client_messages = self.counts.messages[Side::Client.index()];
        self.lifecycle.finish(end_line, client_messages, findings);
        for side in [Side::Client, Side::Server, Side::Unknown] {
            // The lines of the side's requests still open, for each hang's
            // count of the earlier ones settled after it.
            let mut lines: Vec<u64> = self.open.iter(side).map(|(_, o)| o.line).collect();
            lines.sort_unstable();
            for (id, open) in self.open.iter(side) {
                findings.judge_under(self.lifecycle.judged_by(open.declared, false));
                let closed = self.open.closed_after(side, open.line);
                if let Some(closed) = closed.filter(|_| open.cancelled.is_none()) {
                    if side == Side::Client && self.hang_counts(side, open) {
                        findings.push(modern::State::closed_without_cancel(closed, id, open));
                    }
                }
                if self.config.assertions.require_complete && self.hang_counts(side, open) {
                    incomplete.push(Incomplete {
                        line: open.line,
                        time: open.time.clone(),
                        dir: side.dir(),
                        id: id.clone(),
                        method: open.method.to_string(),
                        subject: open.subject.as_deref().map(str::to_owned),
                        cancelled: open.cancelled.is_some(),
                    });
                }
                let (rule, severity) = hangs::listed_as(
                    open.cancelled.is_some(),
                    open.cancelled.as_ref().is_some_and(|c| c.chosen.is_some()),
                );
                if !findings.wants(rule, severity) {
                    // Past the listing limit: count it, skip building its story.
                    if self.hang_counts(side, open) {
                        findings.count(rule, open.line);
                    }
                    continue;
                }
                let earlier_open = lines.partition_point(|l| *l < open.line);
                if let Some(f) = self.hang(side, id, open, earlier_open, end_line) {
                    findings.push(f);
                }
            }
        }
        findings.judge_under(self.revision());
        let end = self.last.clone().unwrap_or(At {
            line: end_line,
            time: None,
        });
        self.assertions
            .finish(&self.config.assertions, &end, incomplete, findings);
        let first_line = self.first.as_ref().map_or(1, |a| a.line);
        if let Some(finding) = notes::direction_inferred(&self.inference, first_line) {
            findings.push(finding);
        }
        let open_requests = || self.open.all().filter(|(_, _, o)| o.cancelled.is_none());
        let pending_total = open_requests().count();
        let mut pending: Vec<OpenRequest> = open_requests()
            .map(|(side, id, o)| OpenRequest {
                id: id.clone(),
                method: o.method.to_string(),
                dir: side.dir(),
                line: o.line,
            })
            .collect();
        pending.sort_by_key(|p| p.line);
        pending.truncate(PENDING_LISTED);
        Summary {
            name: self.name.clone(),
            era: self.era(),
            requested_version: self.lifecycle.requested.clone(),
            protocol_version: self.lifecycle.negotiated.clone(),
            revision: self.revision(),
            client: self.lifecycle.client,
            server: self.lifecycle.server,
            counts: self.counts,
            pending,
            pending_total,
            first_line: self.first.as_ref().map(|a| a.line),
            last_line: self.last.as_ref().map(|a| a.line),
            first_time: self.first.and_then(|a| a.time),
            last_time: self.last.and_then(|a| a.time),
            mid_session: self.lifecycle.mid_session && !self.lifecycle.no_handshake,
            era_evidence: self.lifecycle.era_evidence,
        }
    }

    /// Whether [`Session::hang`] reports this request at all.
    fn hang_counts(&self, side: Side, open: &Open) -> bool {
        &*open.method != "subscriptions/listen"
            && !(side == Side::Server && self.era() == Some(Era::Modern))
    }

    /// The finding for a request still open at the end of the log (none for
    /// a `subscriptions/listen`, long-lived by design, nor for a 2026
    /// server's request, which `server-sent-request` reported: no 2026
    /// client answers it), worded by [`hang::finding`] from what the
    /// session saw.
    /// `still_earlier`: how many of the side's requests sent before it are
    /// still open at the end.
    fn hang(
        &self,
        side: Side,
        id: &RequestId,
        open: &Open,
        still_earlier: usize,
        end_line: u64,
    ) -> Option<Finding> {
        if !self.hang_counts(side, open) {
            return None;
        }
        let owner = side.other().index();
        let (now, then) = (&self.counts, &open.before);
        let cancel = open.cancelled.as_deref();
        let request = hangs::Request {
            line: open.line,
            time: open.time.as_ref(),
            method: &open.method,
            subject: open.subject.as_deref(),
            cancelled: cancel.map(|c| &c.at),
            chosen: cancel.and_then(|c| c.chosen.as_deref()),
            timed_out: cancel.and_then(|c| c.timed_out.as_deref()),
            reused: open.reused,
            cut: open.cut,
            retry_of: open.retry_of.as_deref().map(|(id, line)| (id, *line)),
            closed: self.open.closed_after(side, open.line),
            shutdown: open.shutdown,
            after: hangs::Activity {
                // Only requests sent after it: the earlier ones settled
                // since are not "later requests".
                answered: (now.settled[owner] - then.settled).saturating_sub(
                    u64::from(open.earlier_open).saturating_sub(still_earlier as u64),
                ),
                sent: now.messages[owner] - then.messages,
                noise: now.noise[owner] - then.noise,
                stderr: now.stderr - then.stderr,
            },
        };
        let records = &self.evidence;
        let evidence = hangs::Evidence {
            end_line,
            end_time: self.last.as_ref().and_then(|a| a.time.as_ref()),
            ends: &records.ends,
            stderr_errors: &records.stderr_errors,
            last_stderr: &records.last_stderr,
            crashes: &records.crashes,
            cut: records.cut,
            cut_text: records.cut_text,
            follow_stopped: records.follow_stopped.as_ref(),
            untargeted_cancel: records.untargeted_cancel[side.index()],
            stalls: self.timing.stalls(),
        };
        Some(hangs::finding(&evidence, side, id, &request))
    }
}

/// A request still open, as a live view names it ([`Session::waiting`]).
#[derive(Clone, Debug)]
pub struct Waiting {
    pub id: RequestId,
    pub method: String,
    /// The tool, prompt or resource it is about.
    pub subject: Option<String>,
    pub line: u64,
    pub time: Option<crate::wire::time::Timestamp>,
}

/// How many of the requests still open at the end a summary lists.
pub const PENDING_LISTED: usize = 1000;

/// The catalogue gates: every rule limited to some revisions is silent in a
/// session judged by a revision outside them, whatever the code that fires
/// it decides ([`Findings::judge_under`]).
#[cfg(test)]
mod tests {
    use crate::pipeline::{Options, check};
    use crate::protocol::Revision;
    use crate::rules::{Rule, Span};

    fn fired(example: &str, revision: Option<Revision>) -> Vec<Rule> {
        let mut options = Options::default();
        options.session.revision = revision;
        let input = Box::new(std::io::Cursor::new(format!("{example}\n").into_bytes()));
        check("example.log", input, &options)
            .expect("in-memory read")
            .findings
            .iter()
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn every_revision_limited_rule_is_silent_outside_its_revisions() {
        let mut limited = 0;
        for &rule in Rule::ALL {
            let info = rule.info();
            if info.revisions.span == Span::All || rule.needs_schema_check() {
                continue;
            }
            limited += 1;
            // The example fires the rule as it stands (so silence below is
            // the gate's doing, not an example that fires nothing).
            assert!(
                fired(info.example, None).contains(&rule),
                "{}'s example does not fire it",
                info.name
            );
            let outside: Vec<Revision> = Revision::ALL
                .into_iter()
                .filter(|r| !info.revisions.applies(*r))
                .collect();
            assert!(!outside.is_empty(), "{} applies everywhere", info.name);
            for revision in outside {
                assert!(
                    !fired(info.example, Some(revision)).contains(&rule),
                    "{} fired under {revision}, outside its revisions ({})",
                    info.name,
                    info.revisions
                );
            }
        }
        assert!(limited >= 20, "only {limited} revision-limited rules");
    }
}
