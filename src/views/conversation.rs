//! The conversation view of a session: transport items -> [`Entry`]s, one
//! per message, stderr line or event, for `timeline`, `stats` and
//! `check --follow`.
//!
//! Owns a light pairing of requests and responses (per sender, by id) so
//! that a response row can say which request it answers and how long it
//! took, and a light direction inference for logs without markers (the
//! method table, then the request a response answers). What waits for an
//! answer and what settles it are the session's judgements, asked of
//! `facts::pairing` (so a view never calls a request open that `check`
//! does not); [`Conversations`] keeps one conversation per lane, as `check`
//! splits a log of several servers. It judges nothing: rules and findings
//! stay with the session. Pure: no I/O, no clock; memory grows with the
//! requests still open.

use serde_json::{Map, Value};

use crate::cost::Measured;
use crate::facts::pairing::{self, Opened, Pairing};
use crate::session::Boundary;
use crate::text::excerpt;
use crate::transport::{At, Item};
use crate::wire::dir::Dir;
use crate::wire::dir::Side;
use crate::wire::message::{ErrorInfo, Kind, Message, RequestId};
use crate::wire::time::Timestamp;

/// What a row of the conversation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    Request,
    Response,
    Notification,
    /// A line of the server's stderr.
    Stderr,
    /// Anything else: a session event, a line that is no message, a batch
    /// element that is no message.
    Other,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Request => "request",
            EntryKind::Response => "response",
            EntryKind::Notification => "notification",
            EntryKind::Stderr => "stderr",
            EntryKind::Other => "other",
        }
    }
}

/// What kind of `Other` row it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherKind {
    /// A recorder event (`# ...`).
    Event,
    /// A line on a JSON stream that is no message (stray text, broken JSON).
    Noise,
    /// A batch element that is no message.
    BadElement,
}

/// The request a response answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    /// The line of the request.
    pub line: u64,
    /// Seconds from the request to the response, when both have timestamps.
    pub latency: Option<f64>,
    /// The sender had cancelled the request before this response.
    pub cancelled: bool,
}

/// One row of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The line the message starts on.
    pub line: u64,
    pub time: Option<Timestamp>,
    /// Who wrote it; inferred for logs without markers (`Unknown` when it
    /// cannot be placed).
    pub dir: Dir,
    pub kind: EntryKind,
    /// Set for `Other` rows.
    pub other: Option<OtherKind>,
    pub id: Option<RequestId>,
    /// The method; for a response, the method of the request it answers.
    pub method: Option<String>,
    /// The tool, prompt or resource a request is about (for a response: of
    /// the request it answers).
    pub subject: Option<String>,
    /// For an error response.
    pub error: Option<ErrorInfo>,
    /// A result that says `isError: true` (a tool that failed).
    pub is_error_result: bool,
    /// For a response: the request it answers, when it was seen.
    pub answers: Option<Answered>,
    /// For a response: the other side's shutdown error to a request whose
    /// sender had closed the connection ([`Pairing::shutdown_error`]): no
    /// answer, the request stays open.
    pub shutdown: bool,
    /// A short summary of the payload, unescaped (renderers escape it).
    pub summary: String,
    /// For batch elements: (index, count).
    pub batch: Option<(usize, usize)>,
    /// Raw bytes of the line(s) it came from (0 for batch elements after the
    /// first, whose line was counted once). Set by the reader-facing driver.
    pub bytes: u64,
    /// The raw text, when the driver keeps it (`--full`, HTML).
    pub raw: Option<String>,
    /// For an answer to `tools/list` or `tools/call`, when the driver
    /// measures them (`stats`, `probe`): what its tools or its result cost.
    pub cost: Option<Box<Measured>>,
    /// After this row: how many requests the server and the client owe an
    /// answer to (cancelled ones excused), as [`Conversation::owed`].
    pub owed: [usize; 2],
    /// The index of the session the row belongs to within its file, as
    /// `check` numbers them (the report's `sessions` and each finding's
    /// `session`): a lane opens one, a restart the next.
    pub session: usize,
    /// For a request: it waits for an answer ([`pairing::awaited`]: not a
    /// notification method sent with an id).
    pub awaited: bool,
    /// For a request: the W3C `traceparent` its `params._meta` carries
    /// (OpenTelemetry context propagation), as written.
    pub traceparent: Option<String>,
}

impl Entry {
    fn new(at: &At, dir: Dir, kind: EntryKind) -> Entry {
        Entry {
            line: at.line,
            time: at.time.clone(),
            dir,
            kind,
            other: None,
            id: None,
            method: None,
            subject: None,
            error: None,
            is_error_result: false,
            answers: None,
            shutdown: false,
            summary: String::new(),
            batch: None,
            bytes: 0,
            raw: None,
            cost: None,
            owed: [0; 2],
            session: 0,
            awaited: false,
            traceparent: None,
        }
    }

    /// An error response or a result with `isError: true`.
    pub fn is_failure(&self) -> bool {
        self.error.is_some() || self.is_error_result
    }
}

/// A request waiting for its response.
#[derive(Clone, Debug, PartialEq)]
pub struct Open {
    pub line: u64,
    pub time: Option<Timestamp>,
    pub method: String,
    pub subject: Option<String>,
    /// The sender cancelled it (`notifications/cancelled`).
    pub cancelled: bool,
    /// When it was cancelled, if the log says.
    pub cancelled_time: Option<Timestamp>,
    /// Where its sender closed the connection with it open.
    pub closed: Option<At>,
}

/// A request still open, with who sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRequest {
    pub id: RequestId,
    /// The direction the request travelled.
    pub dir: Dir,
    pub open: Open,
}

/// At most this many requests left open by earlier sessions of a file are
/// kept (a log of many restarts stays bounded).
const ABANDONED_KEPT: usize = crate::facts::pairing::MAX_OPEN;

/// The conversation state of one file.
#[derive(Debug, Default)]
pub struct Conversation {
    /// Open requests by their sender (the session's pairing component).
    open: Pairing<Open>,
    /// How many of them are not cancelled: `[client's, server's]` (what the
    /// server and the client owe), kept as they change.
    owed: [usize; 2],
    /// Requests left open by an earlier session of the same file.
    abandoned: Vec<OpenRequest>,
    /// Where a restarted server's session begins.
    boundary: Boundary,
    /// The session the rows belong to now ([`Conversations`] numbers them).
    session: usize,
    /// The last item opened a new session (taken by [`Conversations`]).
    restarted: bool,
}

impl Conversation {
    pub fn new() -> Conversation {
        Conversation::default()
    }

    /// Takes one item; returns its rows (several for a batch).
    pub fn observe(&mut self, item: &Item) -> Vec<Entry> {
        let mut entries = self.rows(item);
        if let Some(last) = entries.last_mut() {
            last.owed = self.owed();
        }
        entries
    }

    fn rows(&mut self, item: &Item) -> Vec<Entry> {
        if self.boundary.starts_session(item) {
            self.restarted = true;
            // A new server process with fresh id spaces; what was open
            // stays unanswered.
            let room = ABANDONED_KEPT.saturating_sub(self.abandoned.len());
            let open: Vec<OpenRequest> = self.open().take(room).collect();
            self.abandoned.extend(open);
            self.open.clear();
            self.owed = [0; 2];
        }
        match item {
            Item::Message { at, dir, msg } => vec![self.message(at, *dir, msg)],
            Item::Batch { at, dir, items } => {
                let count = items.len();
                items
                    .iter()
                    .enumerate()
                    .map(|(i, element)| {
                        let mut entry = match element {
                            Ok(msg) => {
                                let mut e = self.message(at, *dir, msg);
                                e.owed = self.owed();
                                e
                            }
                            Err(why) => {
                                let mut e = Entry::new(at, *dir, EntryKind::Other);
                                e.other = Some(OtherKind::BadElement);
                                e.summary = why.clone();
                                e
                            }
                        };
                        entry.batch = Some((i, count));
                        entry
                    })
                    .collect()
            }
            Item::Stderr { at, text } => {
                let mut e = Entry::new(at, Dir::Stderr, EntryKind::Stderr);
                e.summary = text.clone();
                vec![e]
            }
            Item::Noise { at, dir } => {
                let mut e = Entry::new(at, *dir, EntryKind::Other);
                e.other = Some(OtherKind::Noise);
                vec![e]
            }
            Item::Event { at, event } => {
                self.open.event(at, &event.kind);
                let mut e = Entry::new(at, Dir::Unknown, EntryKind::Other);
                e.other = Some(OtherKind::Event);
                e.summary = excerpt(event.text.trim());
                vec![e]
            }
        }
    }

    /// The requests still open, oldest first, with the direction they went.
    pub fn open(&self) -> impl Iterator<Item = OpenRequest> + '_ {
        let mut all: Vec<OpenRequest> = self
            .open
            .all()
            .map(|(side, id, open)| {
                let mut open = open.clone();
                open.closed = self.open.closed_after(side, open.line).cloned();
                OpenRequest {
                    id: id.clone(),
                    dir: side.dir(),
                    open,
                }
            })
            .collect();
        all.sort_by_key(|r| r.open.line);
        all.into_iter()
    }

    /// Every request never answered: those left by earlier sessions in the
    /// file, then those open now, each group oldest first.
    pub fn unanswered(&self) -> Vec<OpenRequest> {
        let mut all = self.abandoned.clone();
        all.extend(self.open());
        all
    }

    /// How many requests each side owes a response to and is not excused
    /// from by a cancellation: `[server, client]` (the server owes the
    /// client's requests).
    pub fn owed(&self) -> [usize; 2] {
        self.owed
    }

    /// Counts a request of `side` as owed (`+1`) or no longer owed (`-1`).
    fn owe(&mut self, side: Side, delta: isize) {
        if let Some(n) = self.owed.get_mut(side.index()) {
            *n = n.saturating_add_signed(delta);
        }
    }

    fn message(&mut self, at: &At, dir: Dir, msg: &Message) -> Entry {
        // Summaries quote payloads: read a skimmed message's strings whole;
        // a long array of scalars stays cut, its length counted.
        let whole;
        let mut counted = Vec::new();
        let msg = if msg.is_cut() || msg.has_exact() {
            let copy;
            (copy, counted) = msg.for_summary();
            whole = copy;
            &whole
        } else {
            msg
        };
        let dir = if dir == Dir::Unknown {
            self.infer(msg)
        } else {
            dir
        };
        let kind = match msg.kind {
            Kind::Request => EntryKind::Request,
            Kind::Notification => EntryKind::Notification,
            Kind::Response => EntryKind::Response,
        };
        let mut e = Entry::new(at, dir, kind);
        e.id = msg.id.id().cloned();
        e.method = msg.method.clone();
        match msg.kind {
            Kind::Request => {
                e.subject = subject(msg);
                e.summary = request_summary(msg);
                e.traceparent = msg
                    .params()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("traceparent"))
                    .and_then(Value::as_str)
                    .filter(|t| t.len() <= TRACEPARENT_MAX)
                    .map(str::to_owned);
                if let Some(id) = pairing::awaited(msg) {
                    e.awaited = true;
                    let side = Side::of(dir);
                    let request = Open {
                        line: at.line,
                        time: at.time.clone(),
                        method: msg.method.clone().unwrap_or_default(),
                        subject: e.subject.clone(),
                        cancelled: false,
                        cancelled_time: None,
                        closed: None,
                    };
                    match self.open.open(side, id, request) {
                        Opened::New => self.owe(side, 1),
                        Opened::Replaced(old) if old.cancelled => self.owe(side, 1),
                        Opened::Replaced(_) | Opened::Full => {}
                    }
                }
            }
            Kind::Notification => {
                e.summary = notification_summary(msg);
                if msg.method.as_deref() == Some("notifications/cancelled") {
                    let id = msg
                        .params()
                        .and_then(|p| p.get("requestId"))
                        .and_then(RequestId::from_json);
                    let side = Side::of(dir);
                    if let Some(id) = id {
                        self.cancelled(at, side, &id);
                    }
                }
            }
            Kind::Response if self.open.shutdown_error(Side::of(dir).other(), msg) => {
                // Not an answer: the request stays open (and owed).
                let sender = Side::of(dir).other();
                if let Some(open) = e.id.as_ref().and_then(|id| self.open.get(sender, id)) {
                    e.method = Some(open.method.clone());
                    e.subject = open.subject.clone();
                }
                e.shutdown = true;
                e.error = msg.error();
                let closed = self.open.closed(sender).map_or(0, |at| at.line);
                e.summary = format!(
                    "{}; written after the {} closed the connection (line {closed}): the {}'s shutdown, not an answer",
                    response_summary(msg, e.method.as_deref(), &counted),
                    sender.as_str(),
                    sender.other().as_str()
                );
            }
            Kind::Response => {
                let sender = Side::of(dir).other();
                let request = e.id.as_ref().and_then(|id| {
                    self.open
                        .answer(sender, id)
                        .or_else(|| Some(self.open.answer_loosely(sender, id)?.1))
                });
                if request.as_ref().is_some_and(|open| !open.cancelled) {
                    self.owe(sender, -1);
                }
                if let Some(open) = request {
                    e.answers = Some(Answered {
                        line: open.line,
                        latency: match (&open.time, &at.time) {
                            (Some(a), Some(b)) => Some(a.seconds_until(b)),
                            _ => None,
                        },
                        cancelled: open.cancelled,
                    });
                    e.method = Some(open.method);
                    e.subject = open.subject;
                }
                e.error = msg.error();
                e.is_error_result = msg
                    .result()
                    .and_then(|r| r.get("isError"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                e.summary = response_summary(msg, e.method.as_deref(), &counted);
            }
        }
        e
    }

    /// A `notifications/cancelled` from `side` for request `id`: the
    /// sender's own request is excused from its answer; a server's cancel
    /// of the client's `subscriptions/listen` ends the listen.
    fn cancelled(&mut self, at: &At, side: Side, id: &RequestId) {
        if let Some(open) = self.open.get_mut(side, id) {
            let first = !open.cancelled;
            open.cancelled = true;
            open.cancelled_time = at.time.clone();
            if first {
                self.owe(side, -1);
            }
            return;
        }
        let ends = self
            .open
            .get(side.other(), id)
            .is_some_and(|open| pairing::cancel_ends_listen(side, &open.method));
        if ends {
            if let Some(open) = self.open.answer(side.other(), id) {
                if !open.cancelled {
                    self.owe(side.other(), -1);
                }
            }
        }
    }

    /// The direction of a message in a log without markers: the pairing
    /// component's inference, the same as the session's.
    fn infer(&self, msg: &Message) -> Dir {
        self.open.infer_sender(msg).dir()
    }
}

/// The longest `traceparent` kept (the W3C form is 55 characters; later
/// versions may append fields).
const TRACEPARENT_MAX: usize = 256;

/// The conversations of one input, one per lane: a log that interleaves
/// several servers (Claude Desktop's `mcp.log`) is several sessions with
/// their own id spaces, split as `check` splits them (the lane numbers of
/// [`crate::pipeline::Each`]). Each row's `owed` counts what every lane owes.
#[derive(Debug, Default)]
pub struct Conversations {
    lanes: Vec<Conversation>,
    /// What all lanes owe, `[server, client]`, kept as they change.
    owed: [usize; 2],
    /// How many sessions were opened: the next one's index.
    sessions: usize,
}

impl Conversations {
    pub fn new() -> Conversations {
        Conversations::default()
    }

    /// Opens lanes up to `lane`, each with a new session, in the order
    /// `check` opens them: a driver that sees a lane's first record before
    /// its first item (a message spread over lines) opens it then, so that
    /// the sessions are numbered as `check` numbers them.
    pub fn open_lane(&mut self, lane: usize) {
        while self.lanes.len() <= lane {
            let mut conversation = Conversation::new();
            conversation.session = self.sessions;
            self.sessions += 1;
            self.lanes.push(conversation);
        }
    }

    /// Takes one item of lane `lane`; returns its rows (several for a
    /// batch).
    pub fn observe(&mut self, lane: usize, item: &Item) -> Vec<Entry> {
        self.open_lane(lane);
        let conversation = &mut self.lanes[lane];
        let before = conversation.owed();
        let others = [0, 1].map(|i| self.owed[i].saturating_sub(before[i]));
        let mut entries = conversation.observe(item);
        if std::mem::take(&mut conversation.restarted) {
            conversation.session = self.sessions;
            self.sessions += 1;
        }
        for entry in &mut entries {
            entry.owed = [0, 1].map(|i| entry.owed[i] + others[i]);
            entry.session = conversation.session;
        }
        let after = conversation.owed();
        self.owed = [0, 1].map(|i| others[i] + after[i]);
        entries
    }

    /// Every request never answered, in every lane, oldest first.
    pub fn unanswered(&self) -> Vec<OpenRequest> {
        let mut all: Vec<OpenRequest> = self
            .lanes
            .iter()
            .flat_map(Conversation::unanswered)
            .collect();
        all.sort_by_key(|r| r.open.line);
        all
    }
}

/// The longest summary kept, in characters.
const SUMMARY_CHARS: usize = 120;

fn cap(text: String) -> String {
    match crate::text::head(&text, SUMMARY_CHARS) {
        Some(head) => format!("{head}…"),
        None => text,
    }
}

fn str_of<'a>(map: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a str> {
    map?.get(key)?.as_str()
}

fn subject(msg: &Message) -> Option<String> {
    let params = msg.params();
    let key = match msg.method.as_deref()? {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    str_of(params, key).map(excerpt)
}

/// `{a, b}`: the keys of an object, `_meta` left out.
fn keys(map: &Map<String, Value>) -> String {
    let keys: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "_meta")
        .collect();
    format!("{{{}}}", keys.join(", "))
}

/// The longest argument value shown in a row, in characters.
const VALUE_CHARS: usize = 40;

/// An argument's value as a row shows it: compact JSON on one line
/// (strings quoted), cut at [`VALUE_CHARS`].
fn value_excerpt(v: &Value) -> String {
    let text = crate::wire::exact::to_string(v);
    match crate::text::head(&text, VALUE_CHARS) {
        Some(head) => format!("{head}…"),
        None => text,
    }
}

/// The start of a text on one line: runs of whitespace as one space.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > SUMMARY_CHARS * 4 {
            break;
        }
    }
    out
}

/// What a result's first content block says: its text, or its type.
fn first_block(blocks: &[Value]) -> Option<String> {
    let block = blocks.first()?;
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").and_then(Value::as_str).map(one_line),
        Some(kind) => Some(match block.get("mimeType").and_then(Value::as_str) {
            Some(mime) => format!("{kind} {mime}"),
            None => kind.to_string(),
        }),
        None => None,
    }
}

/// A short rendering of any JSON value: strings as text, the rest compact.
fn short(v: &Value) -> String {
    match v {
        Value::String(s) => match crate::wire::exact::marked(s) {
            Some(number) => excerpt(number),
            None => excerpt(s),
        },
        other => excerpt(&crate::wire::exact::to_string(other)),
    }
}

fn implementation(v: Option<&Value>) -> Option<String> {
    let v = v?;
    let name = v.get("name")?.as_str()?;
    Some(match v.get("version").and_then(Value::as_str) {
        Some(version) => format!("{name} {version}"),
        None => name.to_string(),
    })
}

fn request_summary(msg: &Message) -> String {
    let params = msg.params();
    let text = match msg.method.as_deref().unwrap_or_default() {
        "initialize" => {
            let mut parts = Vec::new();
            if let Some(v) = str_of(params, "protocolVersion") {
                parts.push(format!("protocolVersion {v}"));
            }
            if let Some(i) = implementation(params.and_then(|p| p.get("clientInfo"))) {
                parts.push(format!("client {i}"));
            }
            parts.join(", ")
        }
        "tools/call" | "prompts/get" => {
            let name = str_of(params, "name").unwrap_or("?");
            let args = match params.and_then(|p| p.get("arguments")) {
                Some(Value::Object(args)) => args
                    .iter()
                    .map(|(k, v)| format!("{k}={}", value_excerpt(v)))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(_) | None => String::new(),
            };
            format!("{name}({args})")
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            str_of(params, "uri").unwrap_or_default().to_string()
        }
        _ => match params {
            Some(p) if p.keys().any(|k| k != "_meta") => keys(p),
            _ => String::new(),
        },
    };
    cap(text)
}

fn notification_summary(msg: &Message) -> String {
    let params = msg.params();
    let get = |k: &str| params.and_then(|p| p.get(k));
    let text = match msg.method.as_deref().unwrap_or_default() {
        "notifications/cancelled" => {
            let id = get("requestId").map(short).unwrap_or_else(|| "?".into());
            match str_of(params, "reason") {
                Some(reason) => format!("request {id}: {reason}"),
                None => format!("request {id}"),
            }
        }
        "notifications/progress" => {
            let mut text = format!(
                "token {}: {}",
                get("progressToken")
                    .map(short)
                    .unwrap_or_else(|| "?".into()),
                get("progress").map(short).unwrap_or_else(|| "?".into())
            );
            if let Some(total) = get("total") {
                text.push_str(&format!("/{}", short(total)));
            }
            if let Some(m) = str_of(params, "message") {
                text.push_str(&format!(" {m}"));
            }
            text
        }
        "notifications/message" => {
            let mut text = str_of(params, "level").unwrap_or("?").to_string();
            if let Some(logger) = str_of(params, "logger") {
                text.push_str(&format!(" {logger}"));
            }
            if let Some(data) = get("data") {
                text.push_str(&format!(": {}", short(data)));
            }
            text
        }
        _ => match params {
            Some(p) if p.keys().any(|k| k != "_meta") => keys(p),
            _ => String::new(),
        },
    };
    cap(text)
}

/// The length of `result`'s member `key`, an array of `len` elements as
/// kept: its counted length when its tail was counted, not built.
fn length(counted: &[(String, u64)], key: &str, len: usize) -> u64 {
    counted
        .iter()
        .find(|(k, _)| k == key)
        .map_or(len as u64, |(_, n)| *n)
}

fn response_summary(msg: &Message, method: Option<&str>, counted: &[(String, u64)]) -> String {
    if let Some(error) = msg.error() {
        return cap(error.message.unwrap_or_default());
    }
    let Some(result) = msg.result() else {
        return String::new();
    };
    let Value::Object(obj) = result else {
        return cap(short(result));
    };
    let text = match method {
        Some("initialize") => {
            let mut parts = Vec::new();
            if let Some(v) = obj.get("protocolVersion").and_then(Value::as_str) {
                parts.push(format!("protocolVersion {v}"));
            }
            if let Some(i) = implementation(obj.get("serverInfo")) {
                parts.push(format!("server {i}"));
            }
            parts.join(", ")
        }
        _ if obj.contains_key("content") => {
            let mut parts = Vec::new();
            let mut said = None;
            if let Some(Value::Array(blocks)) = obj.get("content") {
                let n = length(counted, "content", blocks.len());
                parts.push(format!(
                    "{n} content block{}",
                    if n == 1 { "" } else { "s" }
                ));
                said = first_block(blocks);
            }
            if let Some(flag) = obj.get("isError") {
                parts.push(format!("isError {}", short(flag)));
            }
            let mut text = parts.join(", ");
            if let Some(said) = said.filter(|s| !s.is_empty()) {
                text.push_str(": ");
                text.push_str(&said);
            }
            text
        }
        _ if obj.is_empty() => "{}".to_string(),
        _ => {
            let keys: Vec<String> = obj
                .iter()
                .filter(|(k, _)| *k != "_meta")
                .map(|(k, v)| match v {
                    Value::Array(a) => format!("{k}[{}]", length(counted, k, a.len())),
                    _ => k.clone(),
                })
                .collect();
            keys.join(", ")
        }
    };
    cap(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::message::{Frame, classify};

    fn item(line: u64, dir: Dir, json: &str) -> Item {
        let at = At { line, time: None };
        match classify(serde_json::from_str(json).expect("json")) {
            Frame::Message(msg) => Item::Message { at, dir, msg },
            Frame::Batch(items) | Frame::LongBatch { items, .. } => Item::Batch { at, dir, items },
            Frame::Invalid(_) => Item::Noise { at, dir },
        }
    }

    /// `(line, dir arrow, kind, method, answers, summary)` per row.
    type Row = (u64, &'static str, &'static str, String, Option<u64>, String);

    fn rows(items: &[(Dir, &str)]) -> Vec<Row> {
        let mut c = Conversation::new();
        items
            .iter()
            .enumerate()
            .flat_map(|(i, (dir, json))| c.observe(&item(i as u64 + 1, *dir, json)))
            .map(|e| {
                (
                    e.line,
                    e.dir.arrow(),
                    e.kind.as_str(),
                    e.method.unwrap_or_default(),
                    e.answers.map(|a| a.line),
                    e.summary,
                )
            })
            .collect()
    }

    const C: Dir = Dir::ClientToServer;
    const S: Dir = Dir::ServerToClient;
    const U: Dir = Dir::Unknown;

    #[test]
    fn responses_name_the_request_they_answer_per_sender() {
        let r = rows(&[
            (
                C,
                r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"search","arguments":{"q":"x","n":2}}}"#,
            ),
            (S, r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#),
            (
                C,
                r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///"}]}}"#,
            ),
            (
                S,
                r#"{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"a"}],"isError":true}}"#,
            ),
            (S, r#"{"jsonrpc":"2.0","id":"0","result":{}}"#),
        ]);
        assert_eq!(
            r,
            vec![
                (
                    1,
                    "C->S",
                    "request",
                    "tools/call".into(),
                    None,
                    "search(q=\"x\", n=2)".into()
                ),
                (2, "S->C", "request", "roots/list".into(), None, "".into()),
                (
                    3,
                    "C->S",
                    "response",
                    "roots/list".into(),
                    Some(2),
                    "roots[1]".into()
                ),
                (
                    4,
                    "S->C",
                    "response",
                    "tools/call".into(),
                    Some(1),
                    "1 content block, isError true: a".into()
                ),
                (5, "S->C", "response", "".into(), None, "{}".into()),
            ]
        );
    }

    #[test]
    fn plain_logs_infer_directions() {
        let r = rows(&[
            (U, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            (U, r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#),
            (U, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
            (U, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#),
        ]);
        let dirs: Vec<_> = r.iter().map(|r| (r.1, r.4)).collect();
        assert_eq!(
            dirs,
            vec![
                ("C->S", None),
                ("S->C", Some(1)),
                ("?", None),
                ("?", Some(3))
            ]
        );
    }

    #[test]
    fn cancelled_requests_stay_open_but_are_not_owed() {
        let mut c = Conversation::new();
        for (i, (dir, json)) in [
            (
                C,
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#,
            ),
            (
                C,
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"other"}}"#,
            ),
            (
                C,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
            ),
        ]
        .iter()
        .enumerate()
        {
            c.observe(&item(i as u64 + 1, *dir, json));
        }
        assert_eq!(c.owed(), [1, 0]);
        let open: Vec<_> = c.open().map(|o| (o.open.line, o.open.cancelled)).collect();
        assert_eq!(open, vec![(1, true), (2, false)]);
    }

    #[test]
    fn batches_become_one_row_per_element() {
        let r = rows(&[(
            C,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},3]"#,
        )]);
        let kinds: Vec<_> = r.iter().map(|r| r.2).collect();
        assert_eq!(kinds, vec!["request", "notification", "other"]);
    }

    #[test]
    fn a_long_array_of_scalars_is_summarised_by_its_counted_length() {
        let zeros = |n: usize| vec!["0"; n].join(",");
        let text = "y".repeat(2000);
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
        let results = [
            format!(
                r#"{{"items":[{}],"structuredContent":[{}],"next":[1]}}"#,
                zeros(1_500),
                zeros(1_200)
            ),
            format!(r#"{{"content":[{}]}}"#, zeros(2_000)),
            format!(
                r#"{{"content":[{{"type":"text","text":"{text}"}}],"rows":[{}]}}"#,
                zeros(1_001)
            ),
        ];
        let mut c = Conversation::new();
        let at = |line| At { line, time: None };
        let mut summaries = Vec::new();
        for (i, result) in results.iter().enumerate() {
            let line = i as u64 * 2 + 1;
            for (line, dir, json) in [
                (
                    line,
                    C,
                    request.replace("\"id\":1", &format!("\"id\":{line}")),
                ),
                (
                    line + 1,
                    S,
                    format!(r#"{{"jsonrpc":"2.0","id":{line},"result":{result}}}"#),
                ),
            ] {
                let Ok(Frame::Message(msg)) = crate::wire::skim::parse(&json) else {
                    panic!("not a message: {json}");
                };
                let cut = msg.is_cut();
                let (copy, counted) = msg.for_summary();
                // Read for the summary, the array still stands as its first
                // elements (its tail counted, not built).
                if cut {
                    let kept = copy
                        .result()
                        .and_then(|r| r.get("items").or(r.get("content")));
                    let kept = kept.and_then(Value::as_array).map_or(0, Vec::len);
                    assert!(kept <= crate::wire::bound::TRIVIAL_KEPT, "{kept} kept");
                    assert!(!counted.is_empty() || dir == C);
                }
                for e in c.observe(&Item::Message {
                    at: at(line),
                    dir,
                    msg,
                }) {
                    if e.kind == EntryKind::Response {
                        summaries.push(e.summary);
                    }
                }
            }
        }
        assert_eq!(
            summaries,
            vec![
                "items[1500], structuredContent[1200], next[1]".to_string(),
                "2000 content blocks".to_string(),
                cap(format!("1 content block: {text}")),
            ]
        );
    }
}
