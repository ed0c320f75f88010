//! A captured session's server side, as `mcpdbg mock` serves it:
//! records -> [`Served`].
//!
//! One pass over the items of a log (the readers and the transport do the
//! framing), split into sessions as `check` splits it (a lane per server in
//! a log of several, [`Boundary`] within a lane, numbered in the order
//! `check` reports them), keeping one session: each client request with
//! what the server wrote after it (its response, the notifications and
//! requests tied to it, stray lines, the process's end), each client
//! notification with what followed it, and the matching key of each
//! request ([`key`]: the one definition of which requests are the same,
//! used for the live requests too). It pairs with the one request table
//! ([`Pairing`]), judges nothing and does no I/O of its own. Memory is
//! bounded: [`MAX_REQUESTS`] requests and [`MAX_BYTES`] of payload text are
//! kept, [`MAX_OUTPUTS`] messages after one client message; the rest is
//! counted and said.

use std::collections::HashMap;
use std::io::{self, Read};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::facts::pairing::{Opened, Pairing};
use crate::reader::{self, Body, Format, PartialWhy, Source};
use crate::rules::finding::Findings;
use crate::session::Boundary;
use crate::transport::{Item, Transport};
use crate::wire::dir::{Dir, Side};
use crate::wire::event::{Ending, EventKind};
use crate::wire::message::{Kind, Message, RequestId};

/// The client requests kept from the session served; past it the rest of
/// the session is counted, not served.
pub const MAX_REQUESTS: usize = crate::views::capture::MAX_REQUESTS;
/// The client notifications kept.
pub const MAX_NOTES: usize = MAX_REQUESTS;
/// The bytes kept, in all (every session being read): payload text, and
/// each record's own size.
pub const MAX_BYTES: usize = 256 << 20;
/// What the server wrote after one client message that is kept (a stream
/// of progress notifications); the rest is counted.
pub const MAX_OUTPUTS: usize = 10_000;
/// The most of a stray line that is kept (and written again).
pub const MAX_STRAY: usize = 64 << 10;

/// What the budget counts for each thing kept besides its text: its
/// record (and a share of its table's spare room).
const OUTPUT: usize = 2 * std::mem::size_of::<Output>();
const EXCHANGE: usize = 2 * std::mem::size_of::<Exchange>();
const NOTE: usize = 2 * std::mem::size_of::<Note>();

/// The `_meta` keys of a request that change from client to client and
/// run to run, left out of [`key`]: the progress token, the client's
/// name and capabilities (2026-07-28 puts them on every request), and the
/// trace context.
pub const VOLATILE_META: [&str; 6] = [
    "progressToken",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "traceparent",
    "tracestate",
    "baggage",
];

/// The methods matched loosely, on their name only: the handshake, whose
/// params name the client.
pub const LOOSE: [&str; 2] = ["initialize", "server/discover"];

/// Which session of the log to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Session N (1-based), as `check` numbers them.
    Number(usize),
    /// The first with a handshake; failing that, the first the server
    /// answered a request in; failing that, the first.
    Default,
}

/// Why the session served was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Picked {
    Asked,
    Handshake,
    Answered,
    First,
}

/// The server side of one session.
#[derive(Debug)]
pub struct Served {
    pub format: Format,
    /// The session served (1-based) and how many the log holds.
    pub number: usize,
    pub sessions: usize,
    pub picked: Picked,
    /// The server's name, in a log of several.
    pub name: Option<String>,
    pub first_line: Option<u64>,
    pub last_line: Option<u64>,
    pub exchanges: Vec<Exchange>,
    pub notes: Vec<Note>,
    /// What the server wrote before the client's first message.
    pub start: Vec<Output>,
    /// What it wrote after the client closed its stdin.
    pub end: Vec<Output>,
    /// The session is of the 2026-07-28 era: a `server/discover` was
    /// answered, or the client's requests carry their version in `_meta`.
    pub modern: bool,
    /// What a 2026-07-28 server said of itself, and the versions the
    /// client asked for (for a `server/discover` the log lacks).
    pub server_info: Option<Value>,
    pub versions: Vec<String>,
    /// Client requests (and notifications) past the limits, and messages
    /// after one client message past [`MAX_OUTPUTS`]; the line where the
    /// byte budget ran out.
    pub left_out: u64,
    pub outputs_left_out: u64,
    pub cut_at: Option<u64>,
    /// Where a string holds one of mcpdbg's redaction marks, and it.
    pub redacted: Option<(u64, String)>,
    /// Where the log shows the messages only as summaries or tool events,
    /// and what it shows: nothing of it can be served.
    pub partial: Option<(u64, &'static str)>,
    /// Server messages the log shows only in part (a host's or a tracer's
    /// cut, a line over the line limit), and the first one's line: a cut
    /// answer is served as an error that says so, a cut notification is
    /// left out.
    pub cut: u64,
    pub first_cut: Option<u64>,
}

/// A client request and what the server wrote after it.
#[derive(Debug)]
pub struct Exchange {
    pub line: u64,
    /// When it was sent, in microseconds since the epoch, when the log says.
    pub time: Option<i64>,
    pub method: Box<str>,
    /// Its matching key's params part ([`key`]).
    pub key: Box<str>,
    /// The line of its response; `None`: never answered in the log.
    pub answered: Option<u64>,
    /// Its response, the notifications tied to it (its progress, its
    /// subscription's) and everything else the server wrote before the
    /// client's next message, in order.
    pub outputs: Vec<Output>,
}

/// A client notification and what the server wrote after it.
#[derive(Debug)]
pub struct Note {
    pub line: u64,
    pub time: Option<i64>,
    pub method: Box<str>,
    pub outputs: Vec<Output>,
}

/// One thing the server wrote.
#[derive(Debug)]
pub struct Output {
    pub line: u64,
    pub time: Option<i64>,
    pub what: Out,
}

#[derive(Debug)]
pub enum Out {
    /// The response to its request: its JSON text, numbers as written (the
    /// id is replaced by the live request's).
    Response(Box<str>),
    /// A notification; `progress`: its token is its request's (rewritten to
    /// the live one); `subscription`: its `_meta` subscription id is its
    /// `subscriptions/listen` request's id (rewritten too).
    Notification {
        json: Box<str>,
        progress: bool,
        subscription: bool,
    },
    /// A request of the server's (a legacy server's roots, sampling,
    /// elicitation or ping): its id as JSON text, the message, and when the
    /// client's answer came (what waits for it counts its delay from there).
    Request {
        id: Box<str>,
        json: Box<str>,
        answered: Option<i64>,
    },
    /// A line on stdout that was no message (its first [`MAX_STRAY`] bytes).
    Stray(Box<[u8]>),
    /// The server's process ended while the client was connected, with a
    /// request open or a failure status: the status, when known.
    Exit(Option<i32>),
}

/// The params part of a request's matching key: its params in a canonical
/// form (object members sorted, no whitespace), with the [`VOLATILE_META`]
/// keys left out, an emptied `_meta` and empty params as none. The
/// handshake's requests ([`LOOSE`]) match on their method alone. Two
/// requests are the same when their methods and keys are equal.
pub fn key(method: &str, params: Option<&Value>) -> String {
    let mut out = String::new();
    if LOOSE.contains(&method) {
        return out;
    }
    if let Some(params) = normalized(params) {
        canonical(&params, &mut out);
    }
    out
}

/// Params without the volatile `_meta` keys; `None` when nothing is left.
pub fn normalized(params: Option<&Value>) -> Option<Value> {
    let params = params?;
    let Value::Object(map) = params else {
        return Some(params.clone());
    };
    let mut map = map.clone();
    if let Some(Value::Object(meta)) = map.get_mut("_meta") {
        for k in VOLATILE_META {
            meta.shift_remove(k);
        }
        if meta.is_empty() {
            map.shift_remove("_meta");
        }
    }
    (!map.is_empty()).then_some(Value::Object(map))
}

/// `v` as JSON text with object members sorted by key.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Where the server's next output goes: after which client message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    Start,
    Exchange(usize),
    Note(usize),
    End,
}

/// What an open request of the pairing table stands for.
#[derive(Debug)]
enum Slot {
    /// A client request: its exchange.
    Client(usize),
    /// A server request: where its output is.
    Server(Anchor, usize),
}

/// One session being read.
struct Build {
    number: usize,
    served: Served,
    open: Pairing<Slot>,
    /// Progress tokens of open requests (as JSON text) -> their exchange,
    /// and back.
    tokens: HashMap<String, usize>,
    token_of: HashMap<usize, String>,
    anchor: Anchor,
    bytes: usize,
    handshake: bool,
    answered_any: bool,
    ended: bool,
    /// The client let the server go (closed its stdin, signalled it).
    let_go: bool,
    /// The bytes the budget has left, while an item is taken.
    room: usize,
    /// The line of the last record that showed a message only in part.
    partial_line: Option<u64>,
    /// The last line the server wrote on stdout, until the transport says
    /// whether it was a message.
    last_stdout: Option<(u64, crate::wire::line::LineBytes)>,
}

/// Reads `input` and keeps the session `pick` names. `Err` only when
/// reading fails; `Ok(None)` when the log holds no such session (with how
/// many it holds).
pub fn read(
    input: Box<dyn Read>,
    format: Option<Format>,
    pick: Pick,
) -> io::Result<Result<Served, usize>> {
    let reader::Opened {
        format, records, ..
    } = reader::open(input, format)?;
    let mut reading = Reading {
        format,
        pick,
        lanes: IndexMap::new(),
        sessions: 0,
        builds: Vec::new(),
        best: None,
        bytes: 0,
        findings: Findings::default(),
        items: Vec::new(),
    };
    for record in records {
        reading.record(record?);
    }
    reading.finish();
    Ok(reading.result())
}

struct Lane {
    transport: Transport,
    boundary: Boundary,
    /// The number of the lane's current session (0-based).
    session: usize,
}

struct Reading {
    format: Format,
    pick: Pick,
    lanes: IndexMap<Option<Source>, Lane>,
    /// Sessions opened so far.
    sessions: usize,
    builds: Vec<Build>,
    /// The first session (0-based) with a handshake, when one is known.
    best: Option<usize>,
    /// Payload bytes kept by every build.
    bytes: usize,
    findings: Findings,
    items: Vec<Item>,
}

impl Reading {
    fn record(&mut self, record: reader::Record) {
        if matches!(record.body, Body::Undecodable { .. }) {
            return;
        }
        let pos = self.lane(&record.source);
        let session = self.lanes[pos].session;
        if let Some(b) = self.builds.iter_mut().find(|b| b.number == session) {
            match &record.body {
                Body::Line {
                    dir: Dir::ServerToClient,
                    bytes,
                } => b.last_stdout = Some((record.line, bytes.clone())),
                Body::Partial { why, .. } => {
                    if matches!(why, PartialWhy::Summary | PartialWhy::HostEvents) {
                        b.served
                            .partial
                            .get_or_insert((record.line, partial_why(*why)));
                    }
                    b.partial_line = Some(record.line);
                }
                _ => {}
            }
        }
        let lane = &mut self.lanes[pos];
        lane.transport
            .push(record, &mut self.findings, &mut self.items);
        self.feed(pos);
    }

    fn feed(&mut self, pos: usize) {
        let items = std::mem::take(&mut self.items);
        for item in items {
            if self.lanes[pos].boundary.starts_session(&item) {
                let ended = self.lanes[pos].session;
                self.end_session(ended);
                let key = self.lanes.get_index(pos).expect("a lane").0.clone();
                let number = self.open_session(&key);
                self.lanes[pos].session = number;
            }
            let session = self.lanes[pos].session;
            self.item(session, item);
        }
    }

    fn lane(&mut self, key: &Option<Source>) -> usize {
        if let Some(pos) = self.lanes.get_index_of(key) {
            return pos;
        }
        let session = self.open_session(key);
        self.lanes
            .insert_full(
                key.clone(),
                Lane {
                    transport: Transport::new().exact_numbers(),
                    boundary: Boundary::default(),
                    session,
                },
            )
            .0
    }

    /// A new session: read when it may be the one served.
    fn open_session(&mut self, source: &Option<Source>) -> usize {
        let number = self.sessions;
        self.sessions += 1;
        let wanted = match self.pick {
            Pick::Number(n) => n == number + 1,
            Pick::Default => self.best.is_none_or(|best| number < best),
        };
        if wanted {
            let mut build = Build::new(number, self.format);
            build.served.name = source.as_deref().map(str::to_string);
            self.builds.push(build);
        }
        number
    }

    /// Session `number` ended: with the default pick, a session without a
    /// handshake is kept only while no earlier one is as good a fallback
    /// (one the server answered in, or failing that the first).
    fn end_session(&mut self, number: usize) {
        let Some(at) = self.builds.iter().position(|b| b.number == number) else {
            return;
        };
        self.builds[at].ended = true;
        if self.pick != Pick::Default || self.builds[at].handshake {
            return;
        }
        let answered = self.builds[at].answered_any;
        let dominated = self
            .builds
            .iter()
            .any(|b| b.number < number && b.ended && !b.handshake && (b.answered_any || !answered));
        if dominated {
            let gone = self.builds.remove(at);
            self.bytes -= gone.bytes;
        }
    }

    fn item(&mut self, session: usize, item: Item) {
        let Some(at) = self.builds.iter().position(|b| b.number == session) else {
            return;
        };
        let room = MAX_BYTES.saturating_sub(self.bytes);
        let build = &mut self.builds[at];
        let before = build.bytes;
        build.item(item, room);
        self.bytes += build.bytes - before;
        let handshake = build.handshake;
        if handshake && self.best.is_none_or(|b| session < b) {
            self.best = Some(session);
            // Later sessions can no longer be the first with a handshake.
            let mut freed = 0;
            self.builds.retain(|b| {
                let keep = b.number <= session;
                if !keep {
                    freed += b.bytes;
                }
                keep
            });
            self.bytes -= freed;
        }
    }

    fn finish(&mut self) {
        let keys: Vec<_> = self.lanes.keys().cloned().collect();
        for key in keys {
            let pos = self.lanes.get_index_of(&key).expect("a lane");
            let lane = &mut self.lanes[pos];
            lane.transport.finish(&mut self.findings, &mut self.items);
            self.feed(pos);
            let session = self.lanes[pos].session;
            self.end_session(session);
        }
    }

    fn result(mut self) -> Result<Served, usize> {
        let sessions = self.sessions;
        let at = match self.pick {
            Pick::Number(_) => (!self.builds.is_empty()).then_some(0),
            Pick::Default => {
                let first = |f: &dyn Fn(&Build) -> bool| {
                    self.builds
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| f(b))
                        .min_by_key(|(_, b)| b.number)
                        .map(|(i, _)| i)
                };
                first(&|b| b.handshake)
                    .or_else(|| first(&|b| b.answered_any))
                    .or_else(|| first(&|_| true))
            }
        };
        let Some(at) = at else {
            return Err(sessions);
        };
        let build = self.builds.swap_remove(at);
        let picked = match self.pick {
            Pick::Number(_) => Picked::Asked,
            Pick::Default if build.handshake => Picked::Handshake,
            Pick::Default if build.answered_any => Picked::Answered,
            Pick::Default => Picked::First,
        };
        let mut served = build.served;
        served.number = build.number + 1;
        served.sessions = sessions;
        served.picked = picked;
        Ok(served)
    }
}

/// A log's time as microseconds since the epoch (what the mock's delays
/// are counted in: 8 bytes where a timestamp keeps its text).
fn micros(time: &Option<crate::wire::time::Timestamp>) -> Option<i64> {
    time.as_ref().map(|t| t.at.timestamp_micros())
}

fn partial_why(why: PartialWhy) -> &'static str {
    match why {
        PartialWhy::Summary => {
            "the log holds only summaries of the messages (method, id and outcome)"
        }
        PartialWhy::HostTruncated => "the host cut a message in its log",
        PartialWhy::GatewayError => "a gateway logged its own words instead of a message",
        PartialWhy::HostEvents => "the host logs tool events, not its messages",
    }
}

impl Build {
    fn new(number: usize, format: Format) -> Build {
        Build {
            number,
            served: Served {
                format,
                number: number + 1,
                sessions: 0,
                picked: Picked::First,
                name: None,
                first_line: None,
                last_line: None,
                exchanges: Vec::new(),
                notes: Vec::new(),
                start: Vec::new(),
                end: Vec::new(),
                modern: false,
                server_info: None,
                versions: Vec::new(),
                left_out: 0,
                outputs_left_out: 0,
                cut_at: None,
                redacted: None,
                partial: None,
                cut: 0,
                first_cut: None,
            },
            open: Pairing::default(),
            tokens: HashMap::new(),
            token_of: HashMap::new(),
            anchor: Anchor::Start,
            bytes: 0,
            handshake: false,
            answered_any: false,
            ended: false,
            let_go: false,
            room: 0,
            last_stdout: None,
            partial_line: None,
        }
    }

    /// Takes one item of the session; `room`: the bytes the budget has left.
    fn item(&mut self, item: Item, room: usize) {
        self.room = room;
        let at = item.at();
        if !matches!(item, Item::Event { .. }) {
            self.served.first_line.get_or_insert(at.line);
            self.served.last_line = Some(at.line);
        }
        match item {
            Item::Message { at, dir, msg } => self.message(at.line, micros(&at.time), dir, msg),
            Item::Batch { at, dir, items } => {
                for msg in items.into_iter().flatten() {
                    self.message(at.line, micros(&at.time), dir, msg);
                }
            }
            Item::Noise {
                at,
                dir: Dir::ServerToClient,
            } => {
                let Some((line, bytes)) = self.last_stdout.take() else {
                    return;
                };
                if line != at.line {
                    return;
                }
                let kept: Box<[u8]> = bytes[..bytes.len().min(MAX_STRAY)].into();
                if self.fits(kept.len() + OUTPUT, at.line) {
                    self.output(at.line, micros(&at.time), Out::Stray(kept));
                }
            }
            Item::Event { at, event } => {
                self.open.event(&at, &event.kind);
                let EventKind::End(end) = event.kind else {
                    return;
                };
                if end == Ending::StdinClosed {
                    self.anchor = Anchor::End;
                }
                if matches!(
                    end,
                    Ending::StdinClosed | Ending::SignalForwarded | Ending::Closed
                ) {
                    self.let_go = true;
                }
                // The process died while the client was still connected,
                // with a request open or a failure status: a crash.
                if end.is_death() && !self.let_go {
                    let status = match end {
                        Ending::Exited(code) => code,
                        _ => None,
                    };
                    let open = self.open.len(Side::Client) > 0;
                    let failed = !matches!(end, Ending::Exited(Some(0) | None));
                    if open || failed {
                        self.output(at.line, micros(&at.time), Out::Exit(status));
                    }
                }
            }
            Item::Stderr { .. } | Item::Noise { .. } => {}
        }
    }

    /// Whether `bytes` more fit in the budget; when not, the rest of the
    /// session is cut there.
    fn fits(&mut self, bytes: usize, line: u64) -> bool {
        if self.served.cut_at.is_some() {
            return false;
        }
        if bytes > self.room {
            self.served.cut_at = Some(line);
            return false;
        }
        self.room -= bytes;
        self.bytes += bytes;
        true
    }

    fn outputs(&mut self, anchor: Anchor) -> &mut Vec<Output> {
        match anchor {
            Anchor::Start => &mut self.served.start,
            Anchor::End => &mut self.served.end,
            Anchor::Exchange(i) => &mut self.served.exchanges[i].outputs,
            Anchor::Note(i) => &mut self.served.notes[i].outputs,
        }
    }

    fn output_at(
        &mut self,
        anchor: Anchor,
        line: u64,
        time: Option<i64>,
        what: Out,
    ) -> Option<usize> {
        let list = self.outputs(anchor);
        if list.len() >= MAX_OUTPUTS {
            self.served.outputs_left_out += 1;
            return None;
        }
        list.push(Output { line, time, what });
        Some(list.len() - 1)
    }

    fn output(&mut self, line: u64, time: Option<i64>, what: Out) -> Option<usize> {
        self.output_at(self.anchor, line, time, what)
    }

    /// The direction of a message in a log without markers: the pairing
    /// component's inference; one it cannot place counts as the client's
    /// (as a capture for replay reads it).
    fn infer(&self, msg: &Message) -> Dir {
        match self.open.infer_sender(msg) {
            Side::Unknown if msg.kind != Kind::Response => Dir::ClientToServer,
            side => side.dir(),
        }
    }

    fn message(&mut self, line: u64, time: Option<i64>, dir: Dir, mut msg: Message) {
        let dir = if dir == Dir::Unknown {
            self.infer(&msg)
        } else {
            dir
        };
        if dir == Dir::Stderr {
            return;
        }
        msg.expand(); // served whole, numbers as written
        let cut = msg.partial || self.partial_line == Some(line);
        if cut && dir == Dir::ServerToClient {
            self.served.cut += 1;
            self.served.first_cut.get_or_insert(line);
            if msg.kind == Kind::Response {
                self.cut_response(line, time, &msg);
            }
            return;
        }
        let fields = msg.fields().into_owned();
        if self.served.redacted.is_none() {
            if let Some(mark) = fields.values().find_map(crate::redact::mark_in) {
                self.served.redacted = Some((line, mark));
            }
        }
        match (dir, msg.kind) {
            (Dir::ClientToServer, Kind::Request) => self.client_request(line, time, &msg, &fields),
            (Dir::ClientToServer, Kind::Notification) => {
                let method = msg.method.clone().unwrap_or_default();
                if self.served.notes.len() >= MAX_NOTES || !self.fits(method.len() + NOTE, line) {
                    self.served.left_out += 1;
                    return;
                }
                self.served.notes.push(Note {
                    line,
                    time,
                    method: method.into(),
                    outputs: Vec::new(),
                });
                self.anchor = Anchor::Note(self.served.notes.len() - 1);
            }
            (Dir::ClientToServer, Kind::Response) => {
                let Some(Slot::Server(anchor, at)) = msg
                    .id
                    .id()
                    .and_then(|id| self.open.answer(Side::Server, id))
                else {
                    return;
                };
                if let Some(Output {
                    what: Out::Request { answered, .. },
                    ..
                }) = self.outputs(anchor).get_mut(at)
                {
                    *answered = time;
                }
            }
            (Dir::ServerToClient, Kind::Response) => self.server_response(line, time, &msg, fields),
            (Dir::ServerToClient, Kind::Notification) => {
                self.server_notification(line, time, &msg, fields)
            }
            (Dir::ServerToClient, Kind::Request) => {
                let Some(id) = msg.id.id() else { return };
                let json = crate::wire::exact::to_string(&Value::Object(fields));
                if !self.fits(json.len() + OUTPUT, line) {
                    return;
                }
                let what = Out::Request {
                    id: crate::wire::exact::to_string(&id.to_json()).into(),
                    json: json.into(),
                    answered: None,
                };
                let anchor = self.anchor;
                if let Some(at) = self.output(line, time, what) {
                    self.open.open(Side::Server, id, Slot::Server(anchor, at));
                }
            }
            _ => {}
        }
    }

    fn client_request(
        &mut self,
        line: u64,
        time: Option<i64>,
        msg: &Message,
        fields: &Map<String, Value>,
    ) {
        let (Some(id), Some(method)) = (msg.id.id(), msg.method.as_deref()) else {
            return;
        };
        let params = fields.get("params");
        let meta = params.and_then(|p| p.get("_meta"));
        if let Some(v) = meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str)
        {
            self.served.modern = true;
            if !self.served.versions.iter().any(|x| x == v) && self.served.versions.len() < 8 {
                self.served.versions.push(v.to_string());
            }
        }
        let key = key(method, params);
        if self.served.exchanges.len() >= MAX_REQUESTS
            || !self.fits(key.len() + method.len() + EXCHANGE, line)
        {
            self.served.left_out += 1;
            return;
        }
        let index = self.served.exchanges.len();
        self.served.exchanges.push(Exchange {
            line,
            time,
            method: method.into(),
            key: key.into(),
            answered: None,
            outputs: Vec::new(),
        });
        self.anchor = Anchor::Exchange(index);
        if let Opened::Full = self.open.open(Side::Client, id, Slot::Client(index)) {
            return;
        }
        if let Some(token) = meta.and_then(|m| m.get("progressToken")) {
            if self.tokens.len() < crate::facts::pairing::MAX_OPEN {
                let token = crate::wire::exact::to_string(token);
                // A token reused while its first request is open is the
                // later request's from now on.
                if let Some(old) = self.tokens.insert(token.clone(), index) {
                    self.token_of.remove(&old);
                }
                self.token_of.insert(index, token);
            }
        }
    }

    /// Exchange `index` was answered: its progress token is free again.
    fn forget_token(&mut self, index: usize) {
        if let Some(token) = self.token_of.remove(&index) {
            self.tokens.remove(&token);
        }
    }

    /// A response the log shows only in part: served as an error that
    /// says so (the request is answered in the log, not here).
    fn cut_response(&mut self, line: u64, time: Option<i64>, msg: &Message) {
        if self.open.shutdown_error(Side::Client, msg) {
            return;
        }
        let Some(Slot::Client(index)) = msg
            .id
            .id()
            .and_then(|id| self.open.answer(Side::Client, id))
        else {
            return;
        };
        self.forget_token(index);
        self.answered_any = true;
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": -32603,
                "message": format!(
                    "mcpdbg mock: the log shows the recorded answer only in part (line {line}): it cannot be served"
                ),
            },
        });
        let json = crate::wire::exact::to_string(&error);
        if !self.fits(json.len() + OUTPUT, line) {
            return;
        }
        self.served.exchanges[index].answered = Some(line);
        self.output_at(
            Anchor::Exchange(index),
            line,
            time,
            Out::Response(json.into()),
        );
    }

    fn server_response(
        &mut self,
        line: u64,
        time: Option<i64>,
        msg: &Message,
        mut fields: Map<String, Value>,
    ) {
        // The server's shutdown after the client closed the connection
        // answers nothing: the request stays open.
        if self.open.shutdown_error(Side::Client, msg) {
            return;
        }
        let Some(Slot::Client(index)) = msg
            .id
            .id()
            .and_then(|id| self.open.answer(Side::Client, id))
        else {
            return;
        };
        self.forget_token(index);
        let method = self.served.exchanges[index].method.clone();
        if LOOSE.contains(&&*method) && fields.contains_key("result") {
            self.handshake = true;
            if &*method == "server/discover" {
                self.served.modern = true;
            }
        }
        self.answered_any = true;
        if self.served.server_info.is_none() {
            self.served.server_info = fields
                .get("result")
                .and_then(|r| r.get("_meta"))
                .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
                .cloned();
        }
        fields.insert("id".into(), Value::Null);
        let json = crate::wire::exact::to_string(&Value::Object(fields));
        if !self.fits(json.len() + OUTPUT, line) {
            return;
        }
        self.served.exchanges[index].answered = Some(line);
        self.output_at(
            Anchor::Exchange(index),
            line,
            time,
            Out::Response(json.into()),
        );
    }

    fn server_notification(
        &mut self,
        line: u64,
        time: Option<i64>,
        msg: &Message,
        fields: Map<String, Value>,
    ) {
        let params = fields.get("params");
        let token = params
            .and_then(|p| p.get("progressToken"))
            .map(crate::wire::exact::to_string);
        let by_token = match (msg.method.as_deref(), token) {
            (Some("notifications/progress"), Some(t)) => self.tokens.get(&t).copied(),
            _ => None,
        };
        let subscription = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("io.modelcontextprotocol/subscriptionId"))
            .and_then(RequestId::from_json)
            .and_then(|id| match self.open.get(Side::Client, &id) {
                Some(Slot::Client(i))
                    if &*self.served.exchanges[*i].method == "subscriptions/listen" =>
                {
                    Some(*i)
                }
                _ => None,
            });
        let json = crate::wire::exact::to_string(&Value::Object(fields));
        if !self.fits(json.len() + OUTPUT, line) {
            return;
        }
        let what = Out::Notification {
            json: json.into(),
            progress: by_token.is_some(),
            subscription: subscription.is_some(),
        };
        match by_token.or(subscription) {
            Some(i) => self.output_at(Anchor::Exchange(i), line, time, what),
            None => self.output(line, time, what),
        };
    }
}

impl Served {
    /// A `server/discover` result for a 2026-07-28 session whose log lacks
    /// one (a client that probed in another process): the versions its
    /// client asked for, the capabilities its requests show, the server's
    /// name from its results.
    pub fn discover_result(&self) -> Value {
        let mut caps = Map::new();
        for e in &self.exchanges {
            let family = e.method.split('/').next().unwrap_or_default();
            if ["tools", "prompts", "resources", "completion"].contains(&family) {
                let name = if family == "completion" {
                    "completions"
                } else {
                    family
                };
                caps.entry(name)
                    .or_insert_with(|| Value::Object(Map::new()));
            }
        }
        let logs = self.exchanges.iter().flat_map(|e| &e.outputs).any(|o| {
            matches!(&o.what, Out::Notification { json, .. } if json.contains("\"notifications/message\""))
        });
        if logs {
            caps.insert("logging".into(), Value::Object(Map::new()));
        }
        let versions = if self.versions.is_empty() {
            vec![Value::from(crate::protocol::Revision::V2026_07_28.as_str())]
        } else {
            self.versions
                .iter()
                .map(|v| Value::from(v.as_str()))
                .collect()
        };
        let mut result = Map::new();
        result.insert("resultType".into(), "complete".into());
        result.insert("supportedVersions".into(), Value::Array(versions));
        result.insert("capabilities".into(), Value::Object(caps));
        result.insert("ttlMs".into(), 0.into());
        result.insert("cacheScope".into(), "private".into());
        if let Some(info) = &self.server_info {
            let mut meta = Map::new();
            meta.insert("io.modelcontextprotocol/serverInfo".into(), info.clone());
            result.insert("_meta".into(), Value::Object(meta));
        }
        Value::Object(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn served(text: &str, pick: Pick) -> Served {
        read(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            None,
            pick,
        )
        .expect("reads")
        .expect("a session")
    }

    #[test]
    fn the_key_leaves_out_volatile_meta_and_sorts_members() {
        let a = json!({"name":"add","arguments":{"b":3,"a":2},"_meta":{"progressToken":7}});
        let b = json!({"arguments":{"a":2,"b":3},"name":"add"});
        assert_eq!(key("tools/call", Some(&a)), key("tools/call", Some(&b)));
        assert_eq!(
            key("tools/call", Some(&b)),
            r#"{"arguments":{"a":2,"b":3},"name":"add"}"#
        );
        // The version a 2026 request asks for is kept; who asks is not.
        let modern = |v: &str, who: &str| json!({"_meta":{"io.modelcontextprotocol/protocolVersion":v,"io.modelcontextprotocol/clientInfo":{"name":who}}});
        assert_eq!(
            key("tools/list", Some(&modern("2026-07-28", "a"))),
            key("tools/list", Some(&modern("2026-07-28", "b")))
        );
        assert_ne!(
            key("tools/list", Some(&modern("2026-07-28", "a"))),
            key("tools/list", Some(&modern("2027-01-01", "a")))
        );
        // Empty params and none are the same; the handshake matches loosely.
        assert_eq!(
            key("tools/list", Some(&json!({"_meta":{"progressToken":1}}))),
            ""
        );
        assert_eq!(
            key("initialize", Some(&json!({"clientInfo":{"name":"x"}}))),
            ""
        );
    }

    #[test]
    fn keeps_what_followed_each_request_and_the_faults() {
        let log = concat!(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"2\"}}}\n",
            "> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"_meta\":{\"progressToken\":\"t\"}}}\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"crash\"}}\n",
            "< Loaded 12 notes\n",
            "< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n",
            "# server exited with status 3\n",
        );
        let s = served(log, Pick::Default);
        assert_eq!((s.number, s.sessions, s.picked), (1, 1, Picked::Handshake));
        assert_eq!(s.exchanges.len(), 3);
        assert_eq!(s.notes.len(), 1);
        assert!(matches!(&s.notes[0].outputs[..], [Output { line: 4, .. }]));
        let count = &s.exchanges[1];
        assert_eq!(count.answered, Some(9));
        // The progress is the count's (by its token), its response too.
        let lines: Vec<u64> = count.outputs.iter().map(|o| o.line).collect();
        assert_eq!(lines, [8, 9]);
        assert!(matches!(
            count.outputs[0].what,
            Out::Notification { progress: true, .. }
        ));
        // The stray line and the exit follow the crash call, the last sent.
        let crash = &s.exchanges[2];
        assert_eq!(crash.answered, None);
        assert!(matches!(&crash.outputs[0].what, Out::Stray(b) if &**b == b"Loaded 12 notes"));
        assert!(matches!(crash.outputs[1].what, Out::Exit(Some(3))));
        assert!(s.redacted.is_none());
    }

    #[test]
    fn picks_the_first_session_with_a_handshake_or_the_one_asked_for() {
        let log = concat!(
            "# start server\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n",
            "# start server\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n",
            "# start server\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n",
        );
        let s = served(log, Pick::Default);
        assert_eq!((s.number, s.sessions, s.picked), (2, 3, Picked::Handshake));
        let s = served(log, Pick::Number(1));
        assert_eq!(
            (s.number, s.picked, s.exchanges.len()),
            (1, Picked::Asked, 1)
        );
        let none = read(
            Box::new(std::io::Cursor::new(log.as_bytes().to_vec())),
            None,
            Pick::Number(4),
        )
        .expect("reads");
        assert_eq!(none.err(), Some(3));
    }

    #[test]
    fn a_redaction_mark_is_noticed() {
        let log = concat!(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"[redacted 4]\"}]}}\n",
        );
        let s = served(log, Pick::Default);
        assert_eq!(s.redacted, Some((2, "[redacted 4]".to_string())));
    }
}
