//! The session state machine: transport items -> findings and a summary.
//!
//! Tracks the handshake and era, the requests each side has open and the ids
//! each side has used, and judges each message as it goes: its own rules
//! (lifecycle, ids and pairing, tools, timing) and, through `features.rs`,
//! capabilities, progress, tasks and the 2026 features; the per-message
//! checks are `rules::checks`. Each rule reports through one [`Ctx`] (the
//! message, and the findings behind the catalogue's gate: the revision the
//! message is judged by, decided here once). At the end, what is still open
//! becomes hangs. It does no I/O and never reads the clock: all time comes
//! from the log's timestamps. Memory grows with open requests and used ids,
//! not with the log's size.

use serde_json::Value;

use crate::finding::{Finding, Findings};
use crate::protocol::{self, Era, Revision};
use crate::rules::Rule;
use crate::rules::checks;
use crate::text::{duration, excerpt};
use crate::transport::{At, Item};
use crate::wire::dir::{Dir, Side};
use crate::wire::event::{Ending, EventKind};
use crate::wire::message::{Field, IdField, Kind, Message, RequestId};
use crate::wire::time::Timestamp;

use ctx::{Ctx, request_subject};
pub use hang::{FollowStop, LogCut};
use hash::HashMap;

mod crash;
mod ctx;
mod features;
mod hang;
mod hash;
pub mod official;
pub mod pairing;
pub mod schemas;
mod stall;
mod tool_errors;

pub use pairing::MAX_OPEN;

/// The least time a handshake request sent as the server starts (after a
/// recorder's `start` event) is judged against by `slow-response`: its
/// time includes the server's own start (an interpreter loading its SDK
/// takes seconds, more on a loaded machine), which the handler cannot
/// make faster. Hosts wait for `initialize` far longer than for a call.
pub const START_SLOW_SECONDS: f64 = 30.0;
use pairing::{Opened, Pairing};

/// Where one server process's session ends and the next begins: a
/// recorder's `# start` event after at least one message (a restarted
/// server, with fresh id spaces). The one definition of that boundary: the
/// check, the row views and the captures of diff and replay each keep one.
/// Also a client's `initialize` after the session ended (stdin closed, the
/// server exited, the host closed the transport): a host that restarted its
/// server without a recorder in front of it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Boundary {
    traffic: bool,
    ended: bool,
}

impl Boundary {
    /// Takes the next item; true when it opens a new session (the item
    /// itself belongs to the new one).
    pub fn starts_session(&mut self, item: &Item) -> bool {
        self.restart(item).is_some()
    }

    /// Takes the next item; says why when it opens a new session.
    pub fn restart(&mut self, item: &Item) -> Option<Restart> {
        match item {
            Item::Message { dir, msg, .. }
                if self.ended
                    && *dir != Dir::ServerToClient
                    && msg.kind == Kind::Request
                    && msg.method.as_deref() == Some("initialize") =>
            {
                self.ended = false;
                return Some(Restart::Reinitialized);
            }
            Item::Message { .. } => self.traffic = true,
            Item::Batch { items, .. } if items.iter().any(Result::is_ok) => self.traffic = true,
            Item::Event { event, .. } if event.kind == EventKind::Start && self.traffic => {
                self.traffic = false;
                self.ended = false;
                return Some(Restart::Started);
            }
            Item::Event { event, .. }
                if matches!(event.kind, EventKind::End(_)) && self.traffic =>
            {
                self.ended = true;
            }
            _ => {}
        }
        None
    }
}

/// Why a new session began (see [`Boundary`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// A recorder's `# start`: the server process was started again.
    Started,
    /// The client sent `initialize` after the session had ended.
    Reinitialized,
}

impl Restart {
    /// The `session-restarted` note at the item that opened the session.
    pub fn finding(self, at: &At) -> Finding {
        let why = match self {
            Restart::Started => "the server was started again",
            Restart::Reinitialized => "the client sent `initialize` again after the session ended",
        };
        Finding::new(
            Rule::SessionRestarted,
            at.line,
            format!("a new session begins here: {why}; ids, the handshake and open requests start afresh (the earlier session's hangs are reported with it)"),
        )
        .time(at.time.as_ref())
    }
}

/// What the user told us about the session.
#[derive(Clone, Debug)]
pub struct Config {
    /// Overrides the revision read from the log.
    pub revision: Option<Revision>,
    /// Responses slower than this many seconds are reported.
    pub slow_seconds: f64,
    /// `--schema-check`: judge tool calls and results against the schemas
    /// the server listed, and every message against the official JSON
    /// Schema of the session's revision.
    pub schema_check: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            revision: None,
            slow_seconds: 5.0,
            schema_check: false,
        }
    }
}

/// A peer's `name` and `version` as it declared them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    pub name: String,
    pub version: Option<String>,
}

impl Implementation {
    fn from_value(v: Option<&Value>) -> Option<Implementation> {
        let v = v?;
        Some(Implementation {
            name: v.field("name")?.as_str()?.to_string(),
            version: v
                .field("version")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        })
    }
}

/// Running counts, per side, used for the summary and for hang stories
/// ("after the request, the server answered 3 others").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Messages sent, indexed by [`Side`].
    pub messages: [u64; 3],
    /// Responses sent, indexed by [`Side`].
    pub responses: [u64; 3],
    /// Lines on a JSON stream that were not messages, indexed by [`Side`].
    pub noise: [u64; 3],
    pub stderr: u64,
}

/// A request's method as the session keeps it: the protocol table's own
/// name when the method is in it (most are), so that following a request
/// allocates nothing for its name; else the name as sent.
type MethodName = std::borrow::Cow<'static, str>;

/// A request's tool, prompt or resource name as the session keeps it: in
/// place when it is as short as most are.
type SubjectText = crate::text::InlineText<30>;

fn method_name(method: &str) -> MethodName {
    match protocol::method(method) {
        Some(info) => MethodName::Borrowed(info.name),
        None => MethodName::Owned(method.to_owned()),
    }
}

/// A request waiting for its response.
#[derive(Clone, Debug)]
struct Open {
    line: u64,
    time: Option<Timestamp>,
    method: MethodName,
    /// The tool, prompt or resource it is about, when the params say.
    subject: Option<SubjectText>,
    cancelled: Option<At>,
    /// The cancellation's reason when it is not a timeout ("no longer
    /// needed", a user's abort): the canceller's choice, not a hang.
    chosen: Option<Box<str>>,
    /// The cancellation's reason when it is a timeout ("timed out after
    /// 2.0s"), quoted in the hang story.
    timed_out: Option<Box<str>>,
    counts: Counts,
    /// A list request that carried a `cursor` (a later page).
    paged: bool,
    /// `--schema-check` found its `tools/call` arguments breaking the
    /// listed `inputSchema`.
    bad_arguments: bool,
    /// Its id was already in use when it was sent (`id-reuse`).
    reused: bool,
    /// The revision its `_meta` declares: it rules the request's exchange
    /// (its answer, its cancellation, its hang), whatever the session's.
    declared: Option<Revision>,
}

/// An id a side has used: where first, and where it was answered.
#[derive(Clone, Copy, Debug)]
struct Used {
    line: u64,
    answered: Option<u64>,
    /// Sent past the open-request cap: not followed, so its answer is
    /// accepted without a check.
    forgotten: bool,
}

/// The ids a side has used, compactly: integer ids counted up from 0 or 1
/// (what clients and SDKs send) in a vector indexed by the id, 8 bytes
/// each; other integers in a map (about 34 bytes each with the table);
/// string (and float) ids in a map by a 64-bit fingerprint, the same size
/// whatever the id's length (two ids of one session share a fingerprint
/// with odds of about 1 in 10^7 even among a million ids, and the seed
/// differs on every run). Lines are kept as u32 (saturating).
#[derive(Debug, Default)]
struct UsedIds {
    /// `dense[id]` for ids below its length; `(0, _)` is unused (lines
    /// count from 1).
    dense: Vec<(u32, u32)>,
    ints: HashMap<i64, (u32, u32)>,
    others: HashMap<u64, (u32, u32)>,
    fingerprint: foldhash::quality::RandomState,
}

/// `answered` encoding: 0 none, `FORGOTTEN` not followed, else line + 1.
const FORGOTTEN: u32 = u32::MAX;
/// How far past the dense ids a new id may be and still extend them (the
/// gap is filled with unused slots): a few skipped ids cost little, a jump
/// to a large id goes to the map.
const DENSE_GAP: usize = 64;

fn line32(line: u64) -> u32 {
    line.clamp(1, u64::from(u32::MAX - 2)) as u32
}

impl UsedIds {
    /// Where `n` is in the dense ids, when it was kept there.
    fn dense_index(&self, n: i64) -> Option<usize> {
        usize::try_from(n)
            .ok()
            .filter(|&i| self.dense.get(i).is_some_and(|slot| slot.0 != 0))
    }

    fn slot(&mut self, id: &RequestId) -> Option<&mut (u32, u32)> {
        match id {
            RequestId::Int(n) => match self.dense_index(*n) {
                Some(i) => Some(&mut self.dense[i]),
                None => self.ints.get_mut(n),
            },
            other => {
                let print = self.print(other);
                self.others.get_mut(&print)
            }
        }
    }

    fn get(&self, id: &RequestId) -> Option<Used> {
        let (line, answered) = *match id {
            RequestId::Int(n) => match self.dense_index(*n) {
                Some(i) => &self.dense[i],
                None => self.ints.get(n)?,
            },
            other => self.others.get(&self.print(other))?,
        };
        Some(Used {
            line: u64::from(line),
            answered: (answered != 0 && answered != FORGOTTEN).then(|| u64::from(answered - 1)),
            forgotten: answered == FORGOTTEN,
        })
    }

    fn insert(&mut self, id: &RequestId, line: u64, forgotten: bool) {
        let value = (line32(line), if forgotten { FORGOTTEN } else { 0 });
        match id {
            RequestId::Int(n) => match usize::try_from(*n) {
                Ok(i) if i < self.dense.len() && !self.ints.contains_key(n) => {
                    self.dense[i] = value
                }
                Ok(i) if i <= self.dense.len() + DENSE_GAP && !self.ints.contains_key(n) => {
                    self.dense.resize(i, (0, 0));
                    self.dense.push(value);
                }
                _ => {
                    self.ints.insert(*n, value);
                }
            },
            other => {
                let print = self.print(other);
                self.others.insert(print, value);
            }
        }
    }

    fn print(&self, id: &RequestId) -> u64 {
        std::hash::BuildHasher::hash_one(&self.fingerprint, id)
    }

    fn answer(&mut self, id: &RequestId, line: u64) {
        if let Some(slot) = self.slot(id) {
            slot.1 = line32(line) + 1;
        }
    }
}

/// Where the handshake stands.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
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

/// A request still open when the log ended.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRequest {
    pub id: RequestId,
    pub method: String,
    pub dir: Dir,
    pub line: u64,
}

/// What the session established, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The server's name, in logs that interleave several servers.
    pub name: Option<String>,
    pub era: Option<Era>,
    pub requested_version: Option<String>,
    pub protocol_version: Option<String>,
    /// The revision the rules were gated on.
    pub revision: Option<Revision>,
    pub client: Option<Implementation>,
    pub server: Option<Implementation>,
    pub counts: Counts,
    /// The first [`PENDING_LISTED`] requests still open at the end.
    pub pending: Vec<OpenRequest>,
    /// How many requests were still open at the end (listed or not).
    pub pending_total: usize,
    pub first_line: Option<u64>,
    pub last_line: Option<u64>,
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    pub mid_session: bool,
}

/// Direction inference bookkeeping for logs without markers.
#[derive(Debug, Default)]
struct Inference {
    seen: u64,
    placed: u64,
    unplaced: u64,
    first_unplaced: Option<u64>,
    text_lines: u64,
    first_text: Option<u64>,
}

/// One MCP session being analysed.
pub struct Session {
    config: Config,
    era: Option<Era>,
    phase: Phase,
    requested: Option<String>,
    negotiated: Option<String>,
    /// [`Session::revision`] as last worked out from `config`, `negotiated`
    /// and `requested` ([`Session::versions_changed`], after each is set):
    /// every message asks.
    revision: Option<Revision>,
    client: Option<Implementation>,
    server: Option<Implementation>,
    open: Pairing<Open>,
    used: [UsedIds; 3],
    /// Requests not followed because of [`MAX_OPEN`], per side.
    unfollowed: [u64; 3],
    counts: Counts,
    known_start: bool,
    mid_session: bool,
    first: Option<At>,
    last: Option<At>,
    last_stderr: Option<(u64, String)>,
    /// Recent stderr lines that look like errors (bounded), to quote in hangs.
    stderr_errors: std::collections::VecDeque<(u64, String)>,
    /// Stderr lines that report a crash (bounded), and the reader's state.
    crashes: std::collections::VecDeque<(u64, crash::Crash, String)>,
    crash_reader: crash::Reader,
    /// Lifecycle events (stdin closed, exit, signals, a host's word that the
    /// server ended or did not start), with how the server ended, bounded,
    /// for hang stories.
    ends: Vec<(u64, Option<Ending>, String)>,
    /// Where the log was cut short, and how ([`Session::log_cut`]).
    cut: Option<(u64, LogCut)>,
    /// The cut line, when the log stops inside one, and who wrote it: it
    /// was counted as text on the JSON stream, which it is not.
    cut_text: Option<(u64, Side)>,
    /// `check --follow` was stopped (Ctrl-C) while the log went on: it does
    /// not end where the reading stopped.
    follow_stopped: Option<FollowStop>,
    inference: Inference,
    /// The id of the client's `initialize`, once sent.
    init_id: Option<RequestId>,
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
    /// The server answered a newer version than asked (the client's message
    /// count then): a client that disconnects instead of sending
    /// `notifications/initialized` does right.
    upgraded: Option<u64>,
    /// Capabilities, progress tokens, tasks, subscriptions.
    features: features::State,
    name: Option<String>,
    /// The log holds the host's calls, not the wire: it has no handshake
    /// to miss, so the session is not said to start mid-way.
    no_handshake: bool,
    /// The listed tools and their compiled schemas.
    tools: Box<schemas::Tools>,
    /// The names of the server's last complete `tools/list`.
    listing: tool_errors::Listing,
    /// Stalls: the server's silences, answer times per tool (bounded).
    stalls: stall::Stalls,
    /// The client's timeout, when a cancel showed it: seconds, the cancel's
    /// line and its reason.
    client_timeout: Option<(f64, u64, Box<str>)>,
    /// Messages `schema-violation` reported (`--schema-check`).
    violations: u64,
    /// Some request declared its revision in `_meta` (so an answer's or a
    /// cancellation's request may be judged by its own).
    declares: bool,
}

impl Session {
    pub fn new(config: Config) -> Session {
        let revision = config.revision;
        Session {
            config,
            era: None,
            phase: Phase::Fresh,
            requested: None,
            negotiated: None,
            revision,
            client: None,
            server: None,
            open: Pairing::default(),
            used: Default::default(),
            unfollowed: [0; 3],
            counts: Counts::default(),
            known_start: false,
            mid_session: false,
            first: None,
            last: None,
            last_stderr: None,
            stderr_errors: Default::default(),
            crashes: Default::default(),
            crash_reader: Default::default(),
            ends: Vec::new(),
            cut: None,
            cut_text: None,
            follow_stopped: None,
            inference: Inference::default(),
            init_id: None,
            initialized_early: false,
            reinit_from: None,
            probe: None,
            not_only_probe: false,
            upgraded: None,
            features: features::State::default(),
            name: None,
            no_handshake: false,
            tools: Box::default(),
            listing: Default::default(),
            stalls: stall::Stalls::default(),
            client_timeout: None,
            violations: 0,
            declares: false,
        }
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
        self.config.revision.map(Revision::era).or(self.era)
    }

    /// The revision rules are gated on: `--revision`, else the negotiated
    /// one, else the one the client asked for.
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// The revision settled on, not proposed: `--revision`, else the
    /// negotiated one.
    fn settled_revision(&self) -> Option<Revision> {
        self.config
            .revision
            .or_else(|| self.negotiated.as_deref().and_then(Revision::parse))
    }

    /// Sets the negotiated version (and so [`Session::revision`]).
    fn set_negotiated(&mut self, version: Option<String>) {
        self.negotiated = version;
        self.versions_changed();
    }

    /// Works [`Session::revision`] out again from the versions.
    fn versions_changed(&mut self) {
        self.revision = self
            .config
            .revision
            .or_else(|| self.negotiated.as_deref().and_then(Revision::parse))
            .or_else(|| self.requested.as_deref().and_then(Revision::parse));
    }

    /// Whether reusing an answered request id breaks the negotiated revision.
    fn reuse_after_completion_forbidden(&self) -> bool {
        match self.revision() {
            Some(rev) => rev <= Revision::V2025_11_25,
            None => self.era() == Some(Era::Legacy),
        }
    }

    fn touch(&mut self, at: &At) {
        if self.first.is_none() {
            self.first = Some(at.clone());
        }
        let time = at
            .time
            .clone()
            .or_else(|| self.last.as_ref().and_then(|l| l.time.clone()));
        self.last = Some(At {
            line: at.line,
            time,
        });
    }

    /// Takes one item from the transport.
    pub fn observe(&mut self, item: Item, findings: &mut Findings) {
        findings.judge_under(self.revision());
        self.observe_gated(item, findings);
        findings.judge_under(None);
    }

    /// [`Session::observe`] under the catalogue's gate.
    fn observe_gated(&mut self, item: Item, findings: &mut Findings) {
        match item {
            Item::Message { at, dir, msg } => {
                self.touch(&at);
                self.message(&at, dir, msg, findings);
            }
            Item::Batch { at, dir, items } => {
                self.touch(&at);
                self.batch(&at, dir, items, findings);
            }
            Item::Stderr { at, text } => {
                self.touch(&at);
                self.counts.stderr += 1;
                if let Some(kind) = self.crash_reader.line(&text) {
                    if self.crashes.len() == STDERR_ERRORS_KEPT {
                        self.crashes.pop_front();
                    }
                    self.crashes.push_back((at.line, kind, text.clone()));
                }
                if looks_like_error(&text) {
                    if self.stderr_errors.len() == STDERR_ERRORS_KEPT {
                        self.stderr_errors.pop_front();
                    }
                    self.stderr_errors.push_back((at.line, text.clone()));
                }
                self.last_stderr = Some((at.line, text));
            }
            Item::Noise { at, dir } => {
                self.touch(&at);
                self.counts.noise[Side::of(dir).index()] += 1;
                if dir == Dir::Unknown {
                    self.inference.text_lines += 1;
                    self.inference.first_text.get_or_insert(at.line);
                }
            }
            Item::Event { at, event } => {
                self.touch(&at);
                if let Some(facts) = &event.facts {
                    self.established(facts);
                }
                let text = event.text;
                match event.kind {
                    EventKind::Start if self.is_empty() => self.known_start = true,
                    EventKind::Gap => findings.push(
                        Finding::new(
                            Rule::RecordingGap,
                            at.line,
                            format!(
                                "the recording has a gap here ({}); findings near it may be wrong",
                                excerpt(text.trim())
                            ),
                        )
                        .time(at.time.as_ref()),
                    ),
                    EventKind::End(ending) => {
                        if self.ends.len() == ENDS_KEPT {
                            self.ends.remove(0);
                        }
                        self.ends
                            .push((at.line, Some(ending), excerpt(text.trim())));
                    }
                    EventKind::StartFailed => {
                        findings.push(
                            Finding::new(
                                Rule::ServerStartFailed,
                                at.line,
                                format!(
                                    "the host reports that the server did not start: {}",
                                    excerpt(text.trim())
                                ),
                            )
                            .time(at.time.as_ref()),
                        );
                        if self.ends.len() == ENDS_KEPT {
                            self.ends.remove(0);
                        }
                        self.ends.push((at.line, None, excerpt(text.trim())));
                    }
                    EventKind::NoHandshake => {
                        if self.phase == Phase::Fresh {
                            self.phase = Phase::Ready;
                            self.mid_session = true;
                            self.no_handshake = true;
                        }
                    }
                    EventKind::Start | EventKind::PartialLine(_) | EventKind::Note => {}
                }
            }
        }
    }

    /// A host's word on what the handshake established (a log without it).
    fn established(&mut self, facts: &crate::wire::event::Facts) {
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

    fn batch(
        &mut self,
        at: &At,
        dir: Dir,
        items: Vec<Result<Message, String>>,
        findings: &mut Findings,
    ) {
        if let Some(problem) = checks::batch(&items, self.revision()) {
            findings.push(
                Finding::new(
                    Rule::Batch,
                    at.line,
                    format!("{} sent {problem}", dir.writer()),
                )
                .time(at.time.as_ref())
                .dir(dir),
            );
        }
        for item in items {
            match item {
                Ok(msg) => self.message(at, dir, msg, findings),
                Err(why) => findings.push(
                    Finding::new(
                        Rule::InvalidMessage,
                        at.line,
                        format!(
                            "{} sent a batch element that is not a message: {why}",
                            dir.writer()
                        ),
                    )
                    .time(at.time.as_ref())
                    .dir(dir),
                ),
            }
        }
    }

    fn message(&mut self, at: &At, dir: Dir, mut msg: Message, findings: &mut Findings) {
        let dir = if dir == Dir::Unknown {
            self.infer(&msg)
        } else {
            dir
        };
        let side = Side::of(dir);
        self.counts.messages[side.index()] += 1;
        let mut judged = Vec::new();
        self.stalls.tick(at.time.as_ref(), &mut judged);
        for f in judged {
            findings.push(f);
        }
        if side == Side::Client {
            if msg.kind == Kind::Request && msg.method.as_deref() == Some("server/discover") {
                self.probe.get_or_insert_with(|| (at.clone(), None));
            } else {
                self.not_only_probe = true;
            }
        }
        let declared = self.declared_for(side, &msg);
        // The handshake is judged by what it settles on, not by what the
        // client proposes (see the checks' context below).
        let handshake = match msg.kind {
            Kind::Request => msg.method.as_deref() == Some("initialize"),
            Kind::Response => self.init_id.is_some() && msg.id.id() == self.init_id.as_ref(),
            Kind::Notification => false,
        };
        findings.judge_under(self.judged_by(declared, handshake));
        let mut ctx = Ctx::new(at, dir, &msg, findings);
        let request_method = match msg.kind {
            Kind::Request => {
                self.request(at, side, &msg, &mut ctx);
                None
            }
            Kind::Notification => {
                self.notification(at, side, &msg, &mut ctx);
                None
            }
            Kind::Response => {
                self.counts.responses[side.index()] += 1;
                self.response(at, side, &msg, &mut ctx)
            }
        };
        // The message on its own, judged with what the conversation tells.
        // The handshake's own request is judged by what is negotiated, not
        // by what it proposes: an `initialize` proposing 2026-07-28 that the
        // server answers with 2025-11-25 is a legacy handshake.
        let proposal = msg.kind == Kind::Request && msg.method.as_deref() == Some("initialize");
        let context = checks::Context {
            revision: if proposal {
                self.settled_revision()
            } else {
                self.revision()
            },
            era: self.era(),
            side,
            request_method: request_method.as_deref(),
        };
        ctx.findings.judge_under(self.judged_by(declared, proposal));
        for hit in checks::message(&msg, &context) {
            let mut finding = ctx.finding(hit.rule, hit.message);
            if let Some(severity) = hit.severity {
                finding.severity = severity;
            }
            if request_method.is_some() && finding.method.is_none() {
                finding.method = request_method.as_deref().map(str::to_owned);
            }
            ctx.push(finding);
        }
        if side == Side::Server {
            self.stalls.wrote(at.time.as_ref());
        }
        if self.config.schema_check && !msg.partial {
            self.official(at, dir, &mut msg, request_method.as_deref(), findings);
        }
        msg.recycle();
    }

    /// The revision a message is judged by: `--revision`, else the one its
    /// exchange declares (`declared`, [`Session::declared_for`]), else the
    /// session's (for the handshake, the one settled on, not proposed).
    fn judged_by(&self, declared: Option<Revision>, handshake: bool) -> Option<Revision> {
        self.config.revision.or(declared).or_else(|| {
            if handshake {
                self.settled_revision()
            } else {
                self.revision()
            }
        })
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

    /// `--schema-check`: the message against the official schema of the
    /// session's revision (`schema-violation`).
    fn official(
        &mut self,
        at: &At,
        dir: Dir,
        msg: &mut Message,
        request_method: Option<&str>,
        findings: &mut Findings,
    ) {
        if self.violations > official::MAX_FINDINGS {
            return;
        }
        let Some(revision) = self.revision() else {
            return;
        };
        let method = msg.method.clone();
        let (kind, is_error) = (msg.kind, msg.is_error());
        let judge = |v: &Value| match (kind, method.as_deref(), request_method) {
            (Kind::Request | Kind::Notification, Some(m), _) => {
                official::check(revision, official::Part::Call(m), v)
            }
            (Kind::Response, _, _) if is_error => {
                official::check(revision, official::Part::Error, v)
            }
            (Kind::Response, _, Some(m)) => v
                .field("result")
                .and_then(|r| official::check(revision, official::Part::Result(m), r)),
            _ => None,
        };
        // The message whole: the parser may have cut long strings or left
        // large schemas and structured content out.
        let violation = if msg.is_cut() {
            judge(&Value::Object(msg.fields().into_owned()))
        } else {
            let whole = Value::Object(std::mem::take(msg.fields_mut()));
            let violation = judge(&whole);
            if let Value::Object(obj) = whole {
                *msg.fields_mut() = obj;
            }
            violation
        };
        let Some(v) = violation else {
            return;
        };
        self.violations += 1;
        let shown = request_method.or(method.as_deref());
        let what = match msg.kind {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response if msg.is_error() => "error response",
            Kind::Response => "result",
        };
        let text = if self.violations > official::MAX_FINDINGS {
            format!(
                "more than {} messages break the {revision} schema; the rest of the session is not checked against it",
                official::MAX_FINDINGS
            )
        } else {
            format!(
                "{} {what}{} does not match {} of the {revision} schema: {}{}",
                dir.writer(),
                match (msg.kind, shown) {
                    (Kind::Response, Some(m)) => format!(" to `{}`", excerpt(m)),
                    (_, Some(m)) => format!(" `{}`", excerpt(m)),
                    _ => String::new(),
                },
                v.definition,
                v.errors.join("; "),
                if v.more { "; and more" } else { "" }
            )
        };
        findings.push(
            Finding::new(Rule::SchemaViolation, at.line, text)
                .time(at.time.as_ref())
                .dir(dir)
                .id(msg.id.id())
                .method(shown),
        );
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

    fn request(&mut self, at: &At, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let method = msg.method.as_deref().unwrap_or_default();
        if self.repeats_initialize(side, method) {
            // A client starting over: its ids start over too. One
            // initialize-repeated (lifecycle), not an id-reuse per id.
            self.used = Default::default();
        }
        let awaited = pairing::awaited(msg);
        match (awaited, msg.id.id()) {
            (Some(id), _) => {
                self.retry_check(side, id, msg, ctx);
                self.track(at, side, id, msg, ctx);
            }
            // A notification sent with an id (`notification-with-id`): a
            // peer that answers it treats it as a request, which is no
            // orphan; the id is kept as answerable, unchecked.
            (None, Some(id)) if self.used[side.index()].get(id).is_none() => {
                self.used[side.index()].insert(id, at.line, true);
            }
            _ => {}
        }
        self.lifecycle(side, msg, ctx);
        self.gate(side, msg, ctx);
        if let Some(id) = awaited {
            self.request_features(at, side, id, msg);
        }
        if side == Side::Client && method == "tools/call" && self.call_arguments(msg, ctx) {
            if let Some(open) = msg.id.id().and_then(|id| self.open.get_mut(side, id)) {
                open.bad_arguments = true;
            }
        }
    }

    /// A `tools/call`'s arguments against the tool's listed `inputSchema`.
    /// True when they break it.
    fn call_arguments(&self, msg: &Message, ctx: &mut Ctx<'_>) -> bool {
        if !self.config.schema_check {
            return false;
        }
        let tools = &self.tools;
        let Some(params) = msg.params() else {
            return false;
        };
        let Some(name) = params.field("name").and_then(Value::as_str) else {
            return false;
        };
        // A host's log of its own calls shows no notifications: a list
        // change would not be seen, so unlisted calls are not judged there.
        let listed = if self.no_handshake {
            schemas::Listed::Yes
        } else {
            tools.called(name)
        };
        let unlisted = match listed {
            schemas::Listed::Yes => None,
            schemas::Listed::Never { listing } => Some((
                format!(
                    "`{}` is not in the server's complete tool listing before this call (its last page at line {listing}); the server can only answer it with an unknown-tool error",
                    excerpt(name)
                ),
                listing,
            )),
            schemas::Listed::Removed { listed, listing } => Some((
                format!(
                    "`{}` was listed at line {listed}, but the later listing at line {listing} no longer has it: the client calls a tool the server removed",
                    excerpt(name)
                ),
                listing,
            )),
        };
        if let Some((text, listing)) = unlisted {
            ctx.push(ctx.finding(Rule::UnlistedToolCalled, text).related(listing));
        }
        // Read whole: a call's `arguments` are not built for the checks.
        let whole = msg.whole_params();
        let arguments = whole.as_deref().and_then(|p| p.field("arguments"));
        let Some(v) = tools.arguments(name, arguments) else {
            return false;
        };
        let answer = match self.revision() {
            Some(r) if r <= Revision::V2025_06_18 => {
                format!("; under {r} the server answers with a -32602 protocol error")
            }
            Some(r) => format!("; under {r} the server answers with an `isError: true` result"),
            None => String::new(),
        };
        ctx.findings.push(
            ctx.finding(
                Rule::ArgumentsViolateInputSchema,
                format!(
                    "`{}`'s arguments break the inputSchema listed at line {}: {}{}{answer}",
                    excerpt(name),
                    v.listed_at,
                    v.errors.join("; "),
                    if v.more { "; and more" } else { "" }
                ),
            )
            .related(v.listed_at),
        );
        true
    }

    /// A `tools/call` failure answered on the other channel than the spec
    /// assigns (`unknown-tool-as-tool-error`, `invalid-arguments-wrong-channel`);
    /// a `tools/list` result's names kept for it.
    fn tool_error_channel(&mut self, at: &At, open: &Open, msg: &Message, ctx: &mut Ctx<'_>) {
        if &*open.method == "tools/list" {
            if let Some(result) = msg.result() {
                self.listing.page(at.line, result);
            }
            return;
        }
        if &*open.method != "tools/call" {
            return;
        }
        // A name cut to an excerpt is not compared with the listing.
        let name = open.subject.as_deref().unwrap_or("");
        let whole_name = !name.is_empty() && !name.ends_with('…');
        let unlisted = if whole_name {
            self.listing.lacks(name)
        } else {
            None
        };
        let revision = self.revision();
        let report_on = |rule: Rule, text: String| {
            ctx.finding(rule, text)
                .method(Some("tools/call"))
                .related(open.line)
        };
        if let Some(result) = msg.result() {
            if result.field("isError") != Some(&Value::Bool(true))
                || result
                    .field("resultType")
                    .is_some_and(|t| t.as_str() != Some("complete"))
            {
                return;
            }
            // The texts whole: the parser may have cut long ones.
            let text = msg
                .whole_result()
                .map(|r| tool_errors::result_text(&r))
                .unwrap_or_default();
            let said = tool_errors::says_unknown_tool(&text, name);
            if said || unlisted.is_some() {
                let evidence = match unlisted {
                    Some(line) => format!("the tools listed at line {line} do not include it"),
                    None => format!("its text says {:?}", excerpt(&text)),
                };
                ctx.findings.push(report_on(
                    Rule::UnknownToolAsToolError,
                    format!(
                        "`tools/call` of `{}` (line {}) is answered with `isError: true`, and {evidence}: an unknown tool is a -32602 protocol error in every revision",
                        excerpt(name),
                        open.line
                    ),
                ));
                return;
            }
            if let Some(rev) = revision.filter(|r| *r <= Revision::V2025_06_18) {
                if open.bad_arguments || tool_errors::says_invalid_arguments(&text) {
                    ctx.findings.push(report_on(
                        Rule::InvalidArgumentsWrongChannel,
                        format!(
                            "`tools/call` of `{}` (line {}) had invalid arguments and is answered with `isError: true`; under {rev} invalid arguments are a -32602 protocol error",
                            excerpt(name),
                            open.line
                        ),
                    ));
                }
            }
            return;
        }
        let Some(error) = msg.error() else {
            return;
        };
        let message = error.message.as_deref().unwrap_or("");
        let Some(rev) = revision.filter(|r| *r >= Revision::V2025_11_25) else {
            return;
        };
        if error.code != Some(-32602)
            || unlisted.is_some()
            || tool_errors::says_unknown_tool(message, name)
        {
            return;
        }
        if open.bad_arguments || tool_errors::says_invalid_arguments(message) {
            ctx.findings.push(report_on(
                Rule::InvalidArgumentsWrongChannel,
                format!(
                    "`tools/call` of `{}` (line {}) had invalid arguments and is answered with a -32602 error; from 2025-11-25 (this session: {rev}) input validation failures are an `isError: true` result, which the model sees and can correct",
                    excerpt(name),
                    open.line
                ),
            ));
        }
    }

    /// A `tools/call` result against the tool's listed `outputSchema`, and
    /// a `tools/list` result's schemas kept.
    fn tool_results(&mut self, at: &At, open: &Open, msg: &Message, ctx: &mut Ctx<'_>) {
        // Compiling and validating listed schemas reads those messages
        // whole and costs more than the rest of the check: opt-in.
        if !self.config.schema_check || msg.result().is_none() {
            return;
        }
        let revision = self.revision();
        let tools = &mut self.tools;
        // The schemas and structured content whole: the parser may have
        // left them out (read again only for a tool that declares an
        // outputSchema).
        let needs_whole = msg.is_cut()
            && match &*open.method {
                "tools/list" => true,
                "tools/call" => open
                    .subject
                    .as_deref()
                    .is_some_and(|name| tools.declares_output(name)),
                _ => false,
            };
        let whole;
        let result = if needs_whole {
            whole = msg.whole_result();
            whole.as_deref()
        } else {
            msg.result()
        };
        let Some(result) = result else {
            return;
        };
        match &*open.method {
            "tools/list" => {
                let dialect = revision.is_some_and(|r| r >= Revision::V2025_11_25);
                let lints = tools.listed(at.line, result, dialect);
                if lints.tools.is_empty() {
                    return;
                }
                let named: Vec<String> = lints
                    .tools
                    .iter()
                    .map(|(name, found)| format!("`{name}` ({})", found.join("; ")))
                    .collect();
                let more = match lints.more {
                    0 => String::new(),
                    n => format!("; and {n} more tools"),
                };
                ctx.push(ctx.finding(
                    Rule::UnportableToolSchema,
                    format!(
                        "tool schemas with constructs clients handle inconsistently: {}{more}; `mcpdbg explain unportable-tool-schema` says why each matters",
                        named.join("; ")
                    ),
                ).method(Some("tools/list")));
            }
            "tools/call" => {
                // Structured output is from 2025-06-18; an error result, a
                // task or a 2026 input-required answer is not the tool's output.
                let structured_era = revision.is_none_or(|r| r >= Revision::V2025_06_18);
                let is_error = result.field("isError").and_then(Value::as_bool) == Some(true);
                let output = result.field("content").is_some()
                    || result.field("structuredContent").is_some();
                let Some(name) = open.subject.as_deref() else {
                    return;
                };
                if !structured_era || is_error || !output {
                    return;
                }
                let (text, line) = match tools.output(name, result) {
                    schemas::Output::Conforms => return,
                    schemas::Output::Missing { listed_at } => (
                        format!(
                            "`{name}` (called at line {}) declared an outputSchema at line {listed_at}, but its result has no structuredContent",
                            open.line
                        ),
                        listed_at,
                    ),
                    schemas::Output::Violates(v) => (
                        format!(
                            "`{name}`'s structuredContent (called at line {}) breaks the outputSchema listed at line {}: {}{}",
                            open.line,
                            v.listed_at,
                            v.errors.join("; "),
                            if v.more { "; and more" } else { "" }
                        ),
                        v.listed_at,
                    ),
                };
                ctx.findings.push(
                    ctx.finding(Rule::StructuredContentMismatch, text)
                        .method(Some("tools/call"))
                        .subject(Some(name))
                        .related(line),
                );
            }
            _ => {}
        }
    }

    /// A client's `initialize` in a session already initialised (the
    /// `initialize-repeated` case of the lifecycle).
    fn repeats_initialize(&self, side: Side, method: &str) -> bool {
        method == "initialize"
            && side == Side::Client
            && matches!(
                self.phase,
                Phase::Initializing | Phase::AwaitInitialized { .. } | Phase::Ready
            )
            && self.era() != Some(Era::Modern)
            && !self.mid_session
    }

    fn track(&mut self, at: &At, side: Side, id: &RequestId, msg: &Message, ctx: &mut Ctx<'_>) {
        let method = msg.method.as_deref().unwrap_or_default();
        if let Some(prev) = self.open.get(side, id) {
            ctx.findings.push(
                ctx.finding(
                    Rule::IdReuse,
                    format!(
                        "{} reused id {id} for `{method}` while its `{}` from line {} is still unanswered; a response cannot tell them apart",
                        side.as_str(),
                        prev.method,
                        prev.line
                    ),
                )
                .related(prev.line),
            );
        } else if let Some(used) = self.used[side.index()].get(id) {
            if self.reuse_after_completion_forbidden() {
                let rev = self
                    .revision()
                    .map_or("the legacy revisions".to_string(), |r| r.to_string());
                ctx.findings.push(
                    ctx.finding(
                        Rule::IdReuse,
                        format!(
                            "{} reused id {id} (first used at line {}) for `{method}`; ids must be unique for the session under {rev}",
                            side.as_str(),
                            used.line
                        ),
                    )
                    .related(used.line),
                );
            }
        }
        let subject = request_subject(msg).map(|s| SubjectText::from(&*s));
        let reused = self.open.get(side, id).is_some();
        let declared = declared_revision(msg);
        self.declares |= declared.is_some();
        let request = Open {
            line: at.line,
            time: at.time.clone(),
            method: method_name(method),
            subject,
            cancelled: None,
            chosen: None,
            timed_out: None,
            counts: self.counts,
            bad_arguments: false,
            paged: msg.params().is_some_and(|p| p.field("cursor").is_some()),
            reused,
            declared,
        };
        if let Opened::Full = self.open.open(side, id, request) {
            self.unfollowed[side.index()] += 1;
            if self.unfollowed[side.index()] == 1 {
                ctx.fire(
                    Rule::OpenRequestLimit,
                    format!(
                        "{} has {MAX_OPEN} requests open at once; from here on its new requests are not followed (their answers are accepted unchecked, their hangs not reported)",
                        side.as_str()
                    ),
                );
            }
            self.used[side.index()].insert(id, at.line, true);
            return;
        }
        self.used[side.index()].insert(id, at.line, false);
    }

    fn notification(&mut self, at: &At, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        self.lifecycle(side, msg, ctx);
        self.gate(side, msg, ctx);
        self.notification_features(at, side, msg, ctx);
        if side == Side::Server && msg.method.as_deref() == Some("notifications/tools/list_changed")
        {
            self.tools.changed();
            self.listing.changed();
        }
    }

    /// The handshake, for client messages and early server requests.
    fn lifecycle(&mut self, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
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
        let modern_version = msg
            .meta_str(protocol::META_PROTOCOL_VERSION)
            .map(str::to_owned);
        match (&self.phase, method) {
            (Phase::Fresh | Phase::Probing | Phase::Failed, "initialize") => {
                self.start_initialize(msg, ctx)
            }
            (Phase::Fresh, "server/discover") => {
                self.phase = Phase::Probing;
                self.set_requested(modern_version, ctx);
                self.client = self
                    .client
                    .take()
                    .or_else(|| Implementation::from_value(msg.meta(protocol::META_CLIENT_INFO)));
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
                            "the first client message is `{method}`, not a handshake: the capture starts mid-session, so handshake and revision rules stay silent{}",
                            if self.config.revision.is_some() { "" } else { " (set --revision to enable the revision rules)" }
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
                self.start_initialize(msg, ctx);
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

    fn start_initialize(&mut self, msg: &Message, ctx: &mut Ctx<'_>) {
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
        self.features.client_caps = params.and_then(|p| p.field("capabilities")).cloned();
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

    fn response(
        &mut self,
        at: &At,
        side: Side,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) -> Option<MethodName> {
        let requester = side.other();
        // A missing, null or unusable id is an envelope matter (`checks`).
        let IdField::Id(id) = &msg.id else {
            return None;
        };
        // swap_remove: O(1); the order of open requests is restored by line
        // where it is shown.
        if let Some(open) = self.open.answer(requester, id) {
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
            ctx.findings.push(
                ctx.finding(
                    Rule::DuplicateResponse,
                    format!(
                        "{} answered {} request {id} (line {}) a second time; it was already answered at line {}",
                        side.as_str(),
                        requester.as_str(),
                        used.line,
                        used.answered.unwrap_or_default()
                    ),
                )
                .related(used.line),
            );
            return None;
        }
        // A type-changed echo (1 vs "1"); a linear scan, so only while few
        // requests are open.
        if let Some((request_id, open)) = self.open.answer_loosely(requester, id) {
            self.used[requester.index()].answer(&request_id, at.line);
            ctx.findings.push(
                ctx.finding(
                    Rule::IdTypeMismatch,
                    format!(
                        "response id {id} does not equal request id {request_id} of `{}` (line {}); the {} cannot match it, so that request hangs",
                        open.method,
                        open.line,
                        requester.as_str()
                    ),
                )
                .related(open.line),
            );
            return Some(open.method);
        }
        let modern_client = self.era() == Some(Era::Modern) && side == Side::Client;
        if !self.mid_session && side != Side::Unknown && !modern_client {
            ctx.fire(
                Rule::OrphanResponse,
                format!(
                    "{} response id {id} matches no request the {} sent",
                    side.as_str(),
                    requester.as_str()
                ),
            );
        }
        None
    }

    /// How long a request took: `slow-response` against `--slow` or the
    /// client's own timeout, and the stall detector.
    #[expect(
        clippy::too_many_arguments,
        reason = "the pieces of one pairing; bundling them would only rename them"
    )]
    fn judge_time(
        &mut self,
        at: &At,
        requester: Side,
        id: &RequestId,
        open: &Open,
        start: &Timestamp,
        end: &Timestamp,
        ctx: &mut Ctx<'_>,
    ) {
        let took = start.seconds_until(end);
        let with_start =
            self.known_start && matches!(&*open.method, "initialize" | "server/discover");
        let limit = if with_start {
            self.config.slow_seconds.max(START_SLOW_SECONDS)
        } else {
            self.config.slow_seconds
        };
        let what = match &open.subject {
            Some(s) => format!("`{}` {s:?}", open.method),
            None => format!("`{}`", open.method),
        };
        let client_timeout = self
            .client_timeout
            .as_ref()
            .filter(|_| requester == Side::Client && !with_start);
        let message = if took > limit {
            let mut text = if with_start {
                format!(
                    "{what} (id {id}, line {}) took {} with the server's start, over the limit of {} for a handshake sent as the server starts",
                    open.line,
                    duration(took),
                    duration(limit)
                )
            } else {
                format!(
                    "{what} (id {id}, line {}) took {}, over the --slow limit of {}",
                    open.line,
                    duration(took),
                    duration(limit)
                )
            };
            if let Some((timeout, line, reason)) = client_timeout {
                text.push_str(&format!(
                    "; the client's timeout is {} (its cancel at line {line}: {reason:?})",
                    duration(*timeout)
                ));
            }
            Some(text)
        } else {
            client_timeout
                .filter(|(timeout, ..)| took >= CLIENT_TIMEOUT_SHARE * timeout)
                .map(|(timeout, line, reason)| {
                    format!(
                        "{what} (id {id}, line {}) took {}, {}% of the client's {} timeout (its cancel at line {line}: {reason:?}): a little slower and the client gives up",
                        open.line,
                        duration(took),
                        (100.0 * took / timeout).round() as i64,
                        duration(*timeout)
                    )
                })
        };
        let slow = message.map(|m| {
            ctx.finding(Rule::SlowResponse, m)
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(open.line)
        });
        if requester != Side::Client {
            if let Some(f) = slow {
                ctx.findings.push(f);
            }
            return;
        }
        let kind = open.subject.as_deref().unwrap_or(&open.method);
        let answer = stall::Answer {
            kind,
            line: open.line,
            sent: start,
            answered: end,
            open: self.open.len(Side::Client) + 1,
        };
        let base = || {
            Finding::new(Rule::ServerStalled, open.line, String::new())
                .time(open.time.as_ref())
                .dir(Dir::ClientToServer)
                .id(Some(id))
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(at.line)
        };
        let mut out = Vec::new();
        self.stalls.answer(answer, slow, base, &mut out);
        for f in out {
            ctx.findings.push(f);
        }
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
        if let (Some(start), Some(end)) = (&open.time, &at.time) {
            self.judge_time(at, requester, id, &open, start, end, ctx);
        }
        if let Some(cancel) = &open.cancelled {
            ctx.findings.push(
                ctx.finding(
                    Rule::ResponseAfterCancel,
                    format!(
                        "`{}` (id {id}) was answered after the {} cancelled it at line {}; the answer is ignored",
                        open.method,
                        requester.as_str(),
                        cancel.line
                    ),
                )
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(cancel.line),
            );
        }
        self.response_features(at, requester, id, &open, msg, ctx);
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
        if requester != Side::Client {
            return;
        }
        self.tool_results(at, &open, msg, ctx);
        self.tool_error_channel(at, &open, msg, ctx);
        match (&*open.method, &self.phase) {
            ("initialize", Phase::Initializing) => self.initialize_answered(at, msg, ctx),
            ("server/discover", _) => {
                if let Some((_, answer @ None)) = &mut self.probe {
                    *answer = Some(msg.result().is_some());
                }
                self.discover_answered(msg);
            }
            _ => {}
        }
        self.modern_answer(msg);
    }

    fn discover_answered(&mut self, msg: &Message) {
        if let Some(result) = msg.result() {
            // The answer may arrive after the client already went on with
            // modern requests (pipelined), so the phase may be Ready.
            self.era = Some(Era::Modern);
            if self.phase == Phase::Probing {
                self.phase = Phase::Ready;
            }
            self.features.server_caps = result.field("capabilities").cloned();
        } else if msg
            .error()
            .and_then(|e| e.code)
            .is_some_and(protocol::is_modern_discover_error)
        {
            self.era = Some(Era::Modern);
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

    fn initialize_answered(&mut self, at: &At, msg: &Message, ctx: &mut Ctx<'_>) {
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
                    self.upgraded = Some(self.counts.messages[Side::Client.index()]);
                    ctx.fire(
                        Rule::VersionUpgrade,
                        format!("client asked for {asked} and the server answered the newer {got}: a client that does not support {got} must disconnect"),
                    )
                }
                _ => {}
            }
        }
        self.set_negotiated(answered);
        self.features.server_caps = result.field("capabilities").cloned();
        if let Some(rev) = self.revision() {
            let sides = [
                (Side::Client, &self.features.client_caps),
                (Side::Server, &self.features.server_caps),
            ];
            for (side, caps) in sides {
                for problem in caps
                    .iter()
                    .flat_map(|c| checks::capability_revision_problems(c, side, rev))
                {
                    ctx.fire(Rule::CapabilityRevisionMismatch, problem);
                }
            }
        }
    }

    /// The log was cut short at `line` (before [`Session::finish`]): a
    /// request left open before it may have been answered in what is
    /// missing, and its hang says so. `text`: the line cut in the middle
    /// of a message, if any, and who wrote it.
    pub fn log_cut(&mut self, line: u64, how: LogCut, text: Option<(u64, Side)>) {
        self.cut = Some((line, how));
        self.cut_text = text;
    }

    /// `check --follow` stopped reading the log here (Ctrl-C), not at its
    /// end: what is still open is said to be open when following stopped.
    pub fn follow_stopped(&mut self, stop: FollowStop) {
        self.follow_stopped = Some(stop);
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
        let mut judged = Vec::new();
        self.stalls.close(&mut judged);
        for f in judged {
            findings.push(f);
        }
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
        let disconnected = self.upgraded == Some(self.counts.messages[Side::Client.index()]);
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
        for side in [Side::Client, Side::Server, Side::Unknown] {
            for (id, open) in self.open.iter(side) {
                findings.judge_under(self.judged_by(open.declared, false));
                let rule = if open.cancelled.is_some() {
                    Rule::CancelledRequest
                } else {
                    Rule::UnansweredRequest
                };
                // What hang::finding reports it as: a cancel by choice is a
                // note.
                let severity = if open.chosen.is_some() {
                    crate::rules::Severity::Info
                } else {
                    rule.info().severity
                };
                if !findings.wants(rule, severity) {
                    // Past the listing limit: count it, skip building its story.
                    if self.hang_counts(side, open) {
                        findings.count(rule, open.line);
                    }
                    continue;
                }
                if let Some(f) = self.hang(side, id, open, end_line) {
                    findings.push(f);
                }
            }
        }
        findings.judge_under(self.revision());
        let inf = &self.inference;
        if inf.seen > 0 || inf.text_lines > 0 {
            let mut parts = vec![format!(
                "no direction markers: the sender of {} of {} messages was inferred from the method table and id pairing",
                inf.placed, inf.seen
            )];
            if let Some(line) = inf.first_unplaced {
                parts.push(format!(
                    "{} could not be placed (first at line {line})",
                    inf.unplaced
                ));
            }
            if let Some(line) = inf.first_text {
                parts.push(format!(
                    "{} non-JSON lines may be stderr or stray stdout, which this format cannot tell apart (first at line {line})",
                    inf.text_lines
                ));
            }
            findings.push(Finding::new(
                Rule::DirectionInferred,
                self.first.as_ref().map_or(1, |a| a.line),
                parts.join("; "),
            ));
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
            requested_version: self.requested.clone(),
            protocol_version: self.negotiated.clone(),
            revision: self.revision(),
            client: self.client,
            server: self.server,
            counts: self.counts,
            pending,
            pending_total,
            first_line: self.first.as_ref().map(|a| a.line),
            last_line: self.last.as_ref().map(|a| a.line),
            first_time: self.first.and_then(|a| a.time),
            last_time: self.last.and_then(|a| a.time),
            mid_session: self.mid_session && !self.no_handshake,
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
    fn hang(&self, side: Side, id: &RequestId, open: &Open, end_line: u64) -> Option<Finding> {
        if !self.hang_counts(side, open) {
            return None;
        }
        let owner = side.other().index();
        let (now, then) = (&self.counts, &open.counts);
        let request = hang::Request {
            line: open.line,
            time: open.time.as_ref(),
            method: &open.method,
            subject: open.subject.as_deref(),
            cancelled: open.cancelled.as_ref(),
            chosen: open.chosen.as_deref(),
            timed_out: open.timed_out.as_deref(),
            reused: open.reused,
            after: hang::Activity {
                answered: now.responses[owner] - then.responses[owner],
                sent: now.messages[owner] - then.messages[owner],
                noise: now.noise[owner] - then.noise[owner],
                stderr: now.stderr - then.stderr,
            },
        };
        let evidence = hang::Evidence {
            end_line,
            end_time: self.last.as_ref().and_then(|a| a.time.as_ref()),
            ends: &self.ends,
            stderr_errors: &self.stderr_errors,
            last_stderr: &self.last_stderr,
            crashes: &self.crashes,
            cut: self.cut,
            cut_text: self.cut_text,
            follow_stopped: self.follow_stopped.as_ref(),
        };
        Some(hang::finding(&evidence, side, id, &request))
    }
}

/// Reads a timeout's length from a cancel's reason: "timed out after
/// 2.0s", "Request timed out after 60000ms", "timeout of 30 seconds".
pub(crate) fn reason_seconds(reason: &str) -> Option<f64> {
    let bytes = reason.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number: f64 = reason[start..i].parse().ok()?;
        let unit: String = reason[i..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect::<String>()
            .to_ascii_lowercase();
        let scale = match unit.as_str() {
            "ms" | "msec" | "millisecond" | "milliseconds" => 0.001,
            "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            _ => continue,
        };
        return Some(number * scale).filter(|s| s.is_finite() && *s > 0.0);
    }
    None
}

/// A response that took this share of the client's timeout is slow.
const CLIENT_TIMEOUT_SHARE: f64 = 0.8;

/// How many of the requests still open at the end a summary lists.
pub const PENDING_LISTED: usize = 1000;

/// How many lifecycle events a session keeps for hang stories.
const ENDS_KEPT: usize = 8;

/// How many error-looking stderr lines a session keeps for hang stories.
const STDERR_ERRORS_KEPT: usize = 256;

/// Whether a stderr line reads like an error report (the line that names
/// the exception, not the `Traceback` header).
pub(crate) fn looks_like_error(text: &str) -> bool {
    let t = text.trim_start();
    t.contains("Error:")
        || t.contains("Exception:")
        || t.contains("panicked at")
        || t.starts_with("Error")
        || t.starts_with("FATAL")
        || t.starts_with("fatal:")
        || t.contains("[error]")
        || t.contains(" ERROR ")
}

/// The revision a request's `_meta` declares (2026-07-28 requests carry
/// it; a legacy revision named there makes it a legacy request).
fn declared_revision(msg: &Message) -> Option<Revision> {
    msg.meta_str(protocol::META_PROTOCOL_VERSION)
        .and_then(Revision::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense vector, the integer map and the other map answer alike,
    /// whichever an id landed in.
    #[test]
    fn used_ids_find_every_id_wherever_it_is_kept() {
        let mut used = UsedIds::default();
        let ids: Vec<RequestId> = [0i64, 1, 2, 5, 1_000_000, 3, 70, 200, -4, 90, 4]
            .into_iter()
            .map(RequestId::Int)
            .chain([RequestId::Str("7".into()), RequestId::Num("1.5".into())])
            .collect();
        for (line, id) in ids.iter().enumerate() {
            assert!(used.get(id).is_none(), "{id} unused yet");
            used.insert(id, line as u64 + 1, false);
        }
        // Ids counted up from 0 stay dense; jumps and negatives go to the map.
        assert!(used.dense.len() >= 6 && used.dense.len() < 200);
        assert!(used.ints.contains_key(&1_000_000) && used.ints.contains_key(&-4));
        for (line, id) in ids.iter().enumerate() {
            let seen = used.get(id).unwrap_or_else(|| panic!("{id} lost"));
            assert_eq!(seen.line, line as u64 + 1);
            assert_eq!(seen.answered, None);
            used.answer(id, 500 + line as u64);
            assert_eq!(used.get(id).unwrap().answered, Some(500 + line as u64));
        }
        // An id kept in the map before the dense ids grew past it stays found.
        let mut used = UsedIds::default();
        used.insert(&RequestId::Int(100), 1, false);
        for n in 0..300 {
            if n != 100 {
                used.insert(&RequestId::Int(n), n as u64 + 2, true);
            }
        }
        assert_eq!(used.get(&RequestId::Int(100)).unwrap().line, 1);
        assert!(used.get(&RequestId::Int(7)).unwrap().forgotten);
        assert!(used.get(&RequestId::Int(300)).is_none());
        assert!(used.dense.len() >= 300);
    }

    /// A session ends at a recorder's `# start` only after a message: a
    /// start at the top, two starts in a row, a host's note, stderr, noise
    /// or an all-broken batch before it do not split.
    #[test]
    fn a_new_session_begins_at_a_start_after_traffic() {
        use crate::wire::event::Event;
        use crate::wire::message::{Frame, classify};
        let at = || At {
            line: 1,
            time: None,
        };
        let start = || Item::Event {
            at: at(),
            event: Event::start("server"),
        };
        let message = || {
            let Frame::Message(msg) =
                classify(serde_json::json!({"jsonrpc": "2.0", "method": "ping", "id": 1}))
            else {
                panic!("a request");
            };
            Item::Message {
                at: at(),
                dir: Dir::ClientToServer,
                msg,
            }
        };
        let mut b = Boundary::default();
        assert!(!b.starts_session(&start()), "a start before any traffic");
        assert!(!b.starts_session(&Item::Stderr {
            at: at(),
            text: "hi".into()
        }));
        assert!(!b.starts_session(&Item::Noise {
            at: at(),
            dir: Dir::ServerToClient
        }));
        assert!(!b.starts_session(&Item::Batch {
            at: at(),
            dir: Dir::ClientToServer,
            items: vec![Err("x".into())]
        }));
        assert!(!b.starts_session(&Item::Event {
            at: at(),
            event: Event::host("Starting server")
        }));
        assert!(!b.starts_session(&start()));
        assert!(!b.starts_session(&message()));
        assert!(b.starts_session(&start()), "a start after a message");
        assert!(!b.starts_session(&start()), "a second start in a row");
        assert!(!b.starts_session(&message()));
        assert!(b.starts_session(&start()));
    }
}

#[cfg(test)]
mod timeout_tests {
    use super::reason_seconds;
    use crate::rules::Rule;

    #[test]
    fn a_cancel_reason_gives_the_client_timeout() {
        assert_eq!(reason_seconds("timed out after 2.0s"), Some(2.0));
        assert_eq!(
            reason_seconds("Request timed out after 60000ms"),
            Some(60.0)
        );
        assert_eq!(reason_seconds("timeout of 30 seconds"), Some(30.0));
        assert_eq!(reason_seconds("MCP error -32001: Request timed out"), None);
        assert_eq!(reason_seconds("deadline 5 min"), Some(300.0));
        assert_eq!(reason_seconds("timed out"), None);
    }

    fn findings(log: String) -> Vec<crate::finding::Finding> {
        let options = crate::pipeline::Options::default();
        let input = Box::new(std::io::Cursor::new(log.into_bytes()));
        crate::pipeline::check("t.log", input, &options)
            .expect("a report")
            .findings
    }

    const HEAD: &str = "2026-11-02T09:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"stuck\"}}\n";

    /// A timeout reason without a number: the cancel's timing is the
    /// client's timeout; a later answer at 90% of it is slow.
    #[test]
    fn the_cancel_timing_gives_the_client_timeout() {
        let log = format!(
            "{HEAD}\
2026-11-02T09:00:03.000000Z > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":1,\"reason\":\"Request timed out\"}}}}\n\
2026-11-02T09:00:03.100000Z > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"report\"}}}}\n\
2026-11-02T09:00:05.800000Z < {{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"content\":[]}}}}\n"
        );
        let found = findings(log);
        let slow = found
            .iter()
            .find(|f| f.rule == Rule::SlowResponse)
            .unwrap_or_else(|| panic!("no slow-response: {found:?}"));
        assert!(
            slow.message
                .contains("took 2.7 s, 90% of the client's 3.0 s timeout"),
            "{}",
            slow.message
        );
    }

    /// A cancel with another reason is the client's choice: no timeout is
    /// learnt from it, and the cancelled request stays a note.
    #[test]
    fn a_chosen_cancel_teaches_no_timeout() {
        let log = format!(
            "{HEAD}\
2026-11-02T09:00:03.000000Z > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":1,\"reason\":\"user pressed stop\"}}}}\n\
2026-11-02T09:00:03.100000Z > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"report\"}}}}\n\
2026-11-02T09:00:05.800000Z < {{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"content\":[]}}}}\n"
        );
        let found = findings(log);
        assert!(
            !found.iter().any(|f| f.rule == Rule::SlowResponse),
            "{found:?}"
        );
        let cancelled = found
            .iter()
            .find(|f| f.rule == Rule::CancelledRequest)
            .expect("cancelled-request");
        assert_eq!(cancelled.severity, crate::rules::Severity::Info);
    }
}

/// The catalogue gates: every rule limited to some revisions is silent in a
/// session judged by a revision outside them, whatever the code that fires
/// it decides ([`Findings::judge_under`]).
#[cfg(test)]
mod gate_tests {
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
