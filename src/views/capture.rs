//! A captured session as `diff` and `replay` see it: records -> [`Capture`].
//!
//! One light pass over the items of a log (the readers and the transport do
//! the framing): the handshake, each client request with its response, the
//! server's requests with the client's answers, and the client's messages in
//! their original order with what each one waited for. It judges nothing
//! (rules stay with the session) and does no I/O of its own: it reads the
//! records it is given. Only the first session of a log is taken.

use std::io::{self, Read};

use serde_json::{Map, Value};

use crate::facts::pairing::Pairing;
use crate::reader::{self, Body, Format, PartialWhy};
use crate::rules::finding::Findings;
use crate::session::Boundary;
use crate::transport::{Item, Transport};
use crate::wire::dir::Dir;
use crate::wire::dir::Side;
use crate::wire::message::{Kind, Message, RequestId};
use crate::wire::time::Timestamp;

/// How a request ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `result`, as sent.
    Result(Value),
    /// The `error` object, as sent.
    Error(Value),
    /// Never answered in the log.
    Open,
}

/// A client request and its response.
#[derive(Clone, Debug)]
pub struct Exchange {
    pub line: u64,
    pub time: Option<Timestamp>,
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    pub outcome: Outcome,
    /// The line of the response.
    pub answer_line: Option<u64>,
    /// Seconds from the request to its response, when both have times.
    pub latency: Option<f64>,
    /// The client sent `notifications/cancelled` for it.
    pub cancelled: bool,
    /// The log shows the request or its response only in part (a host's
    /// summary or a cut payload): only the outcome kind is real.
    pub partial: bool,
}

impl Exchange {
    /// The tool, prompt or resource the request is about.
    pub fn subject(&self) -> Option<String> {
        let p = self.params.as_ref()?;
        ["name", "uri"]
            .iter()
            .find_map(|k| p.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    }

    /// An error response, or a tool result with `isError: true`.
    pub fn failed(&self) -> bool {
        match &self.outcome {
            Outcome::Error(_) => true,
            Outcome::Result(r) => r.get("isError") == Some(&Value::Bool(true)),
            Outcome::Open => false,
        }
    }
}

/// A message the client sent on its own (a request or a notification).
#[derive(Clone, Debug)]
pub struct Send {
    pub line: u64,
    pub time: Option<Timestamp>,
    /// The whole message, as parsed, kept as its compact JSON text (a
    /// tenth of the parsed tree: a capture holds one per client message);
    /// [`Send::fields`] reads it.
    pub message: Box<str>,
    /// Index in [`Capture::requests`] when it is a request.
    pub request: Option<usize>,
    /// Requests (indices in [`Capture::requests`]) whose responses arrived
    /// after the previous client message and before this one: what it waited for.
    pub after: Vec<usize>,
}

impl Send {
    /// The members of the message.
    pub fn fields(&self) -> Map<String, Value> {
        serde_json::from_str(&self.message).unwrap_or_default()
    }
}

/// A request the server sent, with the client's answer.
#[derive(Clone, Debug)]
pub struct ServerRequest {
    pub line: u64,
    pub method: String,
    /// The client's response object (with `result` or `error`), if any.
    pub answer: Option<Map<String, Value>>,
}

/// What the handshake showed (`initialize`, or the 2026 `server/discover`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Handshake {
    pub protocol_version: Option<Value>,
    pub requested_version: Option<Value>,
    pub client_info: Option<Value>,
    pub client_capabilities: Option<Value>,
    pub server_info: Option<Value>,
    pub server_capabilities: Option<Value>,
    pub instructions: Option<Value>,
}

/// One captured session.
#[derive(Clone, Debug)]
pub struct Capture {
    pub format: Format,
    pub handshake: Handshake,
    pub requests: Vec<Exchange>,
    pub sends: Vec<Send>,
    pub server_requests: Vec<ServerRequest>,
    /// Why the client side cannot be replayed, when it cannot (the line and
    /// the reason).
    pub not_replayable: Option<(u64, String)>,
    /// The log holds more than one session; only the first was taken.
    pub more_sessions: bool,
    /// Lines the log had.
    pub lines: u64,
    /// Client requests beyond [`Limits::max_requests`]: counted, not taken
    /// (nor their answers, nor the client messages after the last one taken).
    pub left_out: u64,
    /// The [`Limits::max_requests`] it was read with.
    pub max_requests: usize,
}

/// What a capture keeps.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Keep the client's messages to send them again (`replay`); `diff`
    /// compares requests only.
    pub sends: bool,
    /// The client requests taken; the rest of the session is counted. A
    /// capture holds about 500 bytes a request (more with its params and
    /// result), so this bounds its memory.
    pub max_requests: usize,
}

/// The default of `--max-requests`.
pub const MAX_REQUESTS: usize = 250_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            sends: true,
            max_requests: MAX_REQUESTS,
        }
    }
}

/// Reads a log with the default [`Limits`]. `Err` only when reading fails.
pub fn read(input: Box<dyn Read>, format: Option<Format>) -> io::Result<Capture> {
    read_with(input, format, Limits::default())
}

/// Reads a log, keeping what `limits` allow. `Err` only when reading fails.
pub fn read_with(
    input: Box<dyn Read>,
    format: Option<Format>,
    limits: Limits,
) -> io::Result<Capture> {
    let reader::Opened {
        format,
        records,
        lines,
    } = reader::open(input, format)?;
    let mut builder = Builder::new(format, limits);
    let mut transport = Transport::new().exact_numbers();
    let mut findings = Findings::default();
    let mut items = Vec::new();
    for record in records {
        let record = record?;
        let traffic = matches!(record.body, Body::Line { .. } | Body::Partial { .. });
        if traffic && builder.first_source.is_none() {
            builder.first_source = Some(record.source.clone());
        }
        match &builder.first_source {
            Some(first) if *first != record.source => {
                if traffic {
                    builder.capture.more_sessions = true;
                }
                continue;
            }
            None if !traffic && record.source.is_some() => continue,
            _ => {}
        }
        if builder.stopped {
            continue;
        }
        if let Body::Partial { dir, why, .. } = &record.body {
            if *dir != Dir::ServerToClient {
                builder.partial_client(record.line, *why);
            }
        }
        let partial = matches!(record.body, Body::Partial { .. });
        transport.push(record, &mut findings, &mut items);
        for item in items.drain(..) {
            builder.take(item, partial);
        }
    }
    transport.finish(&mut findings, &mut items);
    for item in items.drain(..) {
        builder.take(item, false);
    }
    builder.capture.lines = lines.get();
    Ok(builder.finish())
}

struct Builder {
    capture: Capture,
    /// Open requests: a client's -> its index in `requests`, a server's ->
    /// its index in `server_requests`.
    open: Pairing<usize>,
    answered_since: Vec<usize>,
    first_source: Option<Option<crate::reader::Source>>,
    /// Where a restarted server's session begins: only the first is taken.
    boundary: Boundary,
    stopped: bool,
    limits: Limits,
}

impl Builder {
    fn new(format: Format, limits: Limits) -> Builder {
        Builder {
            capture: Capture {
                format,
                handshake: Handshake::default(),
                requests: Vec::new(),
                sends: Vec::new(),
                server_requests: Vec::new(),
                not_replayable: None,
                more_sessions: false,
                lines: 0,
                left_out: 0,
                max_requests: limits.max_requests,
            },
            open: Pairing::default(),
            answered_since: Vec::new(),
            first_source: None,
            boundary: Boundary::default(),
            stopped: false,
            limits,
        }
    }

    fn partial_client(&mut self, line: u64, why: PartialWhy) {
        if self.capture.not_replayable.is_some() {
            return;
        }
        let reason = match why {
            PartialWhy::Summary => {
                "the log holds only summaries of the client's messages (method, id and outcome, as Claude Desktop writes since mid-2026), not their params"
            }
            PartialWhy::HostTruncated => "the host cut this client message in its log",
            PartialWhy::GatewayError => "a gateway logged its own words instead of this message",
            PartialWhy::HostEvents => "the host logs tool events, not its messages",
        };
        self.capture.not_replayable = Some((line, reason.to_string()));
    }

    /// Takes one item of the first session; a second one stops the capture.
    fn take(&mut self, item: Item, partial: bool) {
        if self.stopped {
            return;
        }
        if self.boundary.starts_session(&item) {
            self.capture.more_sessions = true;
            self.stopped = true;
            return;
        }
        self.item(item, partial);
    }

    fn item(&mut self, item: Item, partial: bool) {
        match item {
            Item::Message { at, dir, msg } => self.message(at.line, at.time, dir, msg, partial),
            Item::Batch { at, dir, items } => {
                for msg in items.into_iter().flatten() {
                    self.message(at.line, at.time.clone(), dir, msg, partial);
                }
            }
            Item::Event { at, event } => self.open.event(&at, &event.kind),
            Item::Stderr { .. } | Item::Noise { .. } => {}
        }
    }

    /// The direction of a message in a log without markers: the pairing
    /// component's inference, the same as the session's; a request or
    /// notification it cannot place (`ping`, either side's) counts as the
    /// client's, so that a replay sends it.
    fn infer(&self, msg: &Message) -> Dir {
        match self.open.infer_sender(msg) {
            Side::Unknown if msg.kind != Kind::Response => Dir::ClientToServer,
            side => side.dir(),
        }
    }

    fn message(
        &mut self,
        line: u64,
        time: Option<Timestamp>,
        dir: Dir,
        mut msg: Message,
        partial: bool,
    ) {
        let dir = if dir == Dir::Unknown {
            self.infer(&msg)
        } else {
            dir
        };
        // Past the limit, the client's requests are counted and the rest of
        // the session is left out but for the answers to the requests taken
        // (which may come after the first one left out): what was taken
        // stays a whole prefix.
        let request = dir == Dir::ClientToServer && msg.kind == Kind::Request;
        let past = self.capture.left_out > 0
            || (request && self.capture.requests.len() >= self.limits.max_requests);
        if past && !(dir == Dir::ServerToClient && msg.kind == Kind::Response) {
            if request {
                self.capture.left_out += 1;
            }
            return;
        }
        msg.expand(); // a capture is compared and replayed whole
        let partial = partial || msg.partial;
        match (dir, msg.kind) {
            (Dir::ClientToServer, Kind::Request | Kind::Notification) => {
                let mut request = None;
                if msg.kind == Kind::Request {
                    if let (Some(id), Some(method)) = (msg.id.id(), &msg.method) {
                        let index = self.capture.requests.len();
                        self.capture.requests.push(Exchange {
                            line,
                            time: time.clone(),
                            id: id.clone(),
                            method: method.clone(),
                            params: msg.fields().get("params").cloned(),
                            outcome: Outcome::Open,
                            answer_line: None,
                            latency: None,
                            cancelled: false,
                            partial,
                        });
                        self.open.open(Side::Client, id, index);
                        request = Some(index);
                        self.handshake_request(method, &msg);
                    }
                }
                if msg.method.as_deref() == Some("notifications/cancelled") {
                    let target = msg
                        .params()
                        .and_then(|p| p.get("requestId"))
                        .and_then(RequestId::from_json);
                    if let Some(&i) = target.and_then(|id| self.open.get(Side::Client, &id)) {
                        self.capture.requests[i].cancelled = true;
                    }
                }
                if !self.limits.sends {
                    self.answered_since.clear();
                    return;
                }
                self.capture.sends.push(Send {
                    line,
                    time,
                    message: Value::Object(msg.fields().into_owned()).to_string().into(),
                    request,
                    after: std::mem::take(&mut self.answered_since),
                });
            }
            // The server's shutdown after the client closed the connection
            // answers nothing: the request stays open.
            (Dir::ServerToClient, Kind::Response)
                if self.open.shutdown_error(Side::Client, &msg) => {}
            (Dir::ServerToClient, Kind::Response) => {
                let Some(index) = msg
                    .id
                    .id()
                    .and_then(|id| self.open.answer(Side::Client, id))
                else {
                    return;
                };
                let obj = msg.fields();
                let outcome = match (obj.get("result"), obj.get("error")) {
                    (Some(r), _) => Outcome::Result(r.clone()),
                    (None, Some(e)) => Outcome::Error(e.clone()),
                    (None, None) => Outcome::Error(Value::Null),
                };
                let exchange = &mut self.capture.requests[index];
                exchange.latency = match (&exchange.time, &time) {
                    (Some(a), Some(b)) => Some(a.seconds_until(b).max(0.0)),
                    _ => None,
                };
                exchange.outcome = outcome;
                exchange.answer_line = Some(line);
                exchange.partial |= partial;
                let method = exchange.method.clone();
                self.handshake_result(&method, &msg);
                self.answered_since.push(index);
            }
            (Dir::ServerToClient, Kind::Request) => {
                if let (Some(id), Some(method)) = (msg.id.id(), &msg.method) {
                    let index = self.capture.server_requests.len();
                    self.open.open(Side::Server, id, index);
                    self.capture.server_requests.push(ServerRequest {
                        line,
                        method: method.clone(),
                        answer: None,
                    });
                }
            }
            (Dir::ClientToServer, Kind::Response) => {
                if let Some(index) = msg
                    .id
                    .id()
                    .and_then(|id| self.open.answer(Side::Server, id))
                {
                    self.capture.server_requests[index].answer = Some(msg.fields().into_owned());
                }
            }
            _ => {}
        }
    }

    fn handshake_request(&mut self, method: &str, msg: &Message) {
        let h = &mut self.capture.handshake;
        let Some(p) = msg.params() else { return };
        if method == "initialize" && h.client_info.is_none() {
            h.requested_version = p.get("protocolVersion").cloned();
            h.client_info = p.get("clientInfo").cloned();
            h.client_capabilities = p.get("capabilities").cloned();
        } else if h.client_info.is_none() {
            // 2026: every request names the client in `_meta`.
            if let Some(v) = msg.meta("io.modelcontextprotocol/protocolVersion") {
                h.requested_version.get_or_insert_with(|| v.clone());
            }
            if let Some(c) = msg.meta("io.modelcontextprotocol/clientCapabilities") {
                h.client_capabilities.get_or_insert_with(|| c.clone());
            }
            if let Some(c) = msg.meta("io.modelcontextprotocol/clientInfo") {
                h.client_info = Some(c.clone());
            }
        }
    }

    fn handshake_result(&mut self, method: &str, msg: &Message) {
        let Some(r) = msg.result().and_then(Value::as_object) else {
            return;
        };
        let h = &mut self.capture.handshake;
        if method != "initialize" && method != "server/discover" {
            return;
        }
        if method == "initialize" || h.server_info.is_none() {
            h.protocol_version = r
                .get("protocolVersion")
                .cloned()
                .or_else(|| h.protocol_version.take());
            if method == "server/discover" && h.protocol_version.is_none() {
                h.protocol_version = h.requested_version.clone();
            }
            h.server_info = r.get("serverInfo").cloned();
            h.server_capabilities = r.get("capabilities").cloned();
            h.instructions = r.get("instructions").cloned();
        }
    }

    fn finish(self) -> Capture {
        self.capture
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(text: &'static str) -> Capture {
        read(Box::new(text.as_bytes()), None).expect("reads")
    }

    #[test]
    fn pairs_requests_and_records_what_each_send_waited_for() {
        let c = capture(concat!(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"2\"}}}\n",
            "> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}\n",
            "< {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"roots\":[]}}\n",
            "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
        ));
        assert_eq!(c.requests.len(), 3);
        assert_eq!(
            c.requests[0].outcome,
            Outcome::Result(
                serde_json::json!({"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"2"}})
            )
        );
        assert_eq!(c.requests[1].outcome, Outcome::Open);
        assert_eq!(c.requests[1].subject().as_deref(), Some("add"));
        assert_eq!(c.sends.len(), 4);
        assert_eq!(c.sends[1].after, vec![0]);
        assert!(c.sends[2].after.is_empty());
        assert_eq!(c.server_requests.len(), 1);
        assert!(c.server_requests[0].answer.is_some());
        assert_eq!(
            c.handshake.server_info,
            Some(serde_json::json!({"name":"s","version":"2"}))
        );
        assert!(c.not_replayable.is_none());
    }

    #[test]
    fn past_max_requests_the_answers_to_the_requests_taken_still_count() {
        // Request 2 is the last one taken; its answer comes after request 3,
        // the first one left out.
        let log = [
            r#"> {"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"< {"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"> {"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            r#"> {"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            r#"< {"jsonrpc":"2.0","id":2,"result":{}}"#,
            r#"< {"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
            r#"> {"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        ]
        .join("\n");
        let limits = Limits {
            sends: true,
            max_requests: 2,
        };
        let c = read_with(
            Box::new(std::io::Cursor::new(log.into_bytes())),
            None,
            limits,
        )
        .expect("reads");
        assert_eq!(c.requests.len(), 2);
        assert_eq!(c.left_out, 2);
        assert!(
            c.requests.iter().all(|e| e.outcome != Outcome::Open),
            "{:?}",
            c.requests
        );
        // Nothing the client sent after the limit is kept.
        assert!(!c.requests[1].cancelled);
        assert_eq!(c.sends.len(), 2);
    }

    #[test]
    fn infers_directions_in_a_plain_capture() {
        let c = capture(concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n",
        ));
        assert_eq!(c.format, Format::Ndjson);
        assert_eq!(c.requests.len(), 1);
        assert!(matches!(c.requests[0].outcome, Outcome::Result(_)));
    }
}
