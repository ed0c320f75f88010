//! Gateways' per-message logs: one JSON object per line whose fields name
//! the time, the direction, the session and the message. A [`Mapping`] says
//! which fields those are; the GitHub Agentic Workflows gateway (gh-aw,
//! `mcp-logs/rpc-messages.jsonl`, both record layouts) is one mapping, and
//! another gateway's log is one more.
//!
//! A gateway that is itself the MCP client logs its own calls, not the
//! wire: no handshake, no notifications, requests without ids and responses
//! with a placeholder id. With [`Ids::InOrder`] the reader numbers each
//! session's requests (1, 2, ...) and gives each response the id of that
//! session's oldest open request, so the session pairs them in order; a
//! failed call (the gateway's own error text instead of a payload) becomes
//! a hang (a timeout), an end of the connection (EOF) or an error answer.
//!
//! Also here: the gateway's per-server log `mcp-logs/<server_id>.log`
//! (`[TS] [LEVEL] [CATEGORY] TEXT`, the server's stderr as
//! `[stderr] LINE`), which holds the start failures.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;
use std::borrow::Cow;

use super::shallow::{self, Fields, Splice};

use super::lines::Lines;
use super::record::{Body, PartialWhy, Record};
use crate::wire::dir::Dir;
use crate::wire::event::{Ending, Event};
use crate::wire::time::Timestamp;

/// How a log's messages carry their ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ids {
    /// The messages are the wire's, ids included.
    Wire,
    /// Requests carry no usable id and responses a placeholder: pair each
    /// session's responses with its requests in order.
    InOrder,
}

/// Which fields of a record name what.
#[derive(Debug)]
pub struct Mapping {
    /// The time (RFC 3339).
    pub time: &'static str,
    /// The record's kind; its values for a request and a response. Other
    /// values are the gateway's own records (verdicts): notes.
    pub kind: &'static [&'static str],
    pub request: &'static [&'static str],
    pub response: &'static [&'static str],
    /// The direction, used when the kind does not say; its value for a
    /// message to the server and for one from it.
    pub direction: &'static str,
    pub to_server: &'static str,
    pub from_server: &'static str,
    /// The session: one per value (the server).
    pub session: &'static str,
    /// The message as a JSON value.
    pub message: &'static str,
    /// The method, when the message lacks it.
    pub method: &'static str,
    /// The gateway's own error text for a call that failed.
    pub error: &'static str,
    pub ids: Ids,
    /// What the note of this format says.
    pub note: &'static str,
}

/// The gh-aw gateway's `rpc-messages.jsonl`: until May 2026 `{timestamp,
/// direction: OUT|IN, type: REQUEST|RESPONSE, server_id, method?, error?,
/// payload}`; since then `{timestamp, event: rpc_request|rpc_response,
/// _schema, direction, server_id, method?, error?, payload}`.
pub const GH_AW: Mapping = Mapping {
    time: "timestamp",
    kind: &["type", "event"],
    request: &["REQUEST", "rpc_request"],
    response: &["RESPONSE", "rpc_response"],
    direction: "direction",
    to_server: "OUT",
    from_server: "IN",
    session: "server_id",
    message: "payload",
    method: "method",
    error: "error",
    ids: Ids::InOrder,
    note: "the gateway logs its own calls to each server, not the wire: no handshake, notifications or request ids, and a placeholder id on responses; mcpdbg numbers each server's calls 1, 2, ... and pairs responses with them in order, so id, handshake, framing and notification rules are not judged",
};

/// Requests one session may have open in the reader's order table; past
/// it the oldest is forgotten (its answer then pairs one call late).
const OPEN_MAX: usize = 20_000;
/// Sessions (servers) whose order tables are kept; records of more
/// servers are read without pairing.
const SESSIONS_MAX: usize = 10_000;

/// A name or a text from the log, cut to a bounded length for the tables
/// and the events.
fn cap(s: &str) -> String {
    const MAX: usize = 240;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Whether a line is a gh-aw `rpc-messages.jsonl` record (for detection).
pub fn matches_gh_aw(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('{')
        && line.contains("\"server_id\"")
        && line.contains("\"payload\"")
        && Fields::parse(line.as_bytes()).is_some_and(|v| {
            v.str("server_id").is_some() && ["type", "event"].iter().any(|k| v.str(k).is_some())
        })
}

/// The calls one session has open, oldest first: the reader's ids and
/// methods.
#[derive(Default)]
struct Order {
    next: u64,
    open: VecDeque<(u64, Box<str>)>,
    noted: bool,
}

/// Reads a gateway's per-message log through a [`Mapping`].
pub struct EnvelopeReader {
    lines: Lines,
    queue: VecDeque<Record>,
    map: &'static Mapping,
    sessions: HashMap<super::record::Source, Order>,
    /// Records without a session field form a session of their own.
    unnamed: Order,
    overflow_noted: bool,
}

/// How a failed call ended, from the gateway's error text.
#[derive(Debug, PartialEq)]
enum Failure {
    /// The gateway stopped waiting: the server never answered.
    Timeout,
    /// The server's stdout ended with the call open.
    Closed,
    /// An error answer (the server's or the gateway's).
    Error,
}

///
/// Only the gateway's own transport errors mean a timeout or a lost
/// server: Go's `context deadline exceeded`, and an `EOF`, a broken pipe or
/// a closed connection or file, each as the last cause of the error chain
/// (Go wraps a cause as `calling "tools/call": CAUSE`). A server's error
/// answer is quoted in the same field and may say "timeout" or "EOF:"
/// anywhere (`upstream API timeout`, `EOF: unexpected end of the index`):
/// that is the server's error result, not a hang or a crash.
fn failure(text: &str) -> Failure {
    let lower = text.trim().to_ascii_lowercase();
    let cause = lower.rsplit(": ").next().unwrap_or(&lower);
    match cause {
        "context deadline exceeded" => Failure::Timeout,
        "eof" | "unexpected eof" | "broken pipe" | "connection closed" | "file already closed" => {
            Failure::Closed
        }
        _ if cause.ends_with("write: broken pipe") => Failure::Closed,
        _ => Failure::Error,
    }
}

impl EnvelopeReader {
    pub fn new(lines: Lines, map: &'static Mapping) -> EnvelopeReader {
        EnvelopeReader {
            lines,
            queue: VecDeque::new(),
            map,
            sessions: HashMap::new(),
            unnamed: Order::default(),
            overflow_noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &[u8], terminated: bool) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let map = self.map;
        // The record's members as their text: the payload is handed on as
        // written (with an id added), never built into a tree.
        let Some(rec) = Fields::parse(bytes) else {
            super::record::add(
                &mut self.queue,
                line_no,
                None,
                Body::Unreadable(bytes.to_vec()),
                terminated,
                &None,
            );
            return;
        };
        let time = rec.str(map.time).and_then(|t| Timestamp::parse(&t));
        let source: Option<super::record::Source> = rec.str(map.session).map(|s| cap(&s).into());
        let kind = map
            .kind
            .iter()
            .find_map(|k| rec.str(k))
            .map(Cow::into_owned);
        let dir_field = rec.str(map.direction);
        let request = match kind.as_deref() {
            Some(k) if map.request.contains(&k) => true,
            Some(k) if map.response.contains(&k) => false,
            Some(other) => {
                // The gateway's own verdict (a denial): its words, no fault.
                let detail = rec
                    .raw(map.error)
                    .or_else(|| rec.raw("reason"))
                    .and_then(shallow::string)
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                let text = format!("gateway verdict {}{detail}", cap(other));
                super::record::add(
                    &mut self.queue,
                    line_no,
                    time,
                    Body::Event(Event::host(text)),
                    terminated,
                    &source,
                );
                return;
            }
            None => match dir_field.as_deref() {
                Some(d) if d == map.to_server => true,
                Some(d) if d == map.from_server => false,
                _ => {
                    super::record::add(
                        &mut self.queue,
                        line_no,
                        time,
                        Body::Unreadable(bytes.to_vec()),
                        terminated,
                        &source,
                    );
                    return;
                }
            },
        };
        let method = rec.str(map.method).map(Cow::into_owned);
        let error = rec
            .str(map.error)
            .filter(|e| !e.is_empty())
            .map(Cow::into_owned);
        let message = rec.raw(map.message);
        if map.ids == Ids::Wire {
            let body = match message {
                Some(m) => Body::Line {
                    dir: if request {
                        Dir::ClientToServer
                    } else {
                        Dir::ServerToClient
                    },
                    bytes: shallow::minify(m.get()).into(),
                },
                None => Body::Unreadable(bytes.to_vec()),
            };
            super::record::add(&mut self.queue, line_no, time, body, terminated, &source);
            return;
        }
        // Ids in order: the session's table.
        let order = match &source {
            None => &mut self.unnamed,
            Some(name) => {
                if !self.sessions.contains_key(name) && self.sessions.len() >= SESSIONS_MAX {
                    if !self.overflow_noted {
                        self.overflow_noted = true;
                        super::record::add(&mut self.queue,
                            line_no,
                            None,
                            Body::Note(
                                format!(
                                    "more than {SESSIONS_MAX} servers in one log: the calls of the later ones are not paired"
                                )
                                .into(),
                            ),
                            terminated,
                            &source,
                        );
                    }
                    return;
                }
                self.sessions.entry(name.clone()).or_default()
            }
        };
        let first = !order.noted;
        order.noted = true;
        let mut out: Vec<(Option<Timestamp>, Body)> = Vec::new();
        if first {
            out.push((None, Body::Note(map.note.into())));
            out.push((
                time.clone(),
                Body::Event(Event::no_handshake(match &source {
                    Some(s) => format!("calls of the gateway to server {s}"),
                    None => "calls of the gateway".to_string(),
                })),
            ));
        }
        if request {
            let fields = message.and_then(Fields::of);
            let empty = Fields::parse(b"{}").expect("an object");
            let mut msg = Splice::new(fields.as_ref().unwrap_or(&empty));
            order.next += 1;
            let id = order.next;
            msg.set("id", id.to_string());
            if msg.get("params") == Some("null") {
                msg.remove("params");
            }
            if msg.get("jsonrpc").is_none() {
                msg.set("jsonrpc", r#""2.0""#.to_string());
            }
            let said = fields.as_ref().and_then(|f| f.str("method"));
            let method = match (said, method) {
                (Some(m), _) => m.into_owned(),
                (None, Some(m)) => {
                    msg.set("method", Value::from(m.as_str()).to_string());
                    m
                }
                (None, None) => {
                    super::record::add(
                        &mut self.queue,
                        line_no,
                        time,
                        Body::Unreadable(bytes.to_vec()),
                        terminated,
                        &source,
                    );
                    return;
                }
            };
            if order.open.len() == OPEN_MAX {
                order.open.pop_front();
            }
            order.open.push_back((id, cap(&method).into_boxed_str()));
            out.push((
                time,
                Body::Line {
                    dir: Dir::ClientToServer,
                    bytes: msg.to_bytes().into(),
                },
            ));
        } else {
            match order.open.pop_front() {
                None => out.push((
                    time,
                    Body::Event(Event::host(format!(
                        "the gateway logged a response with no call open{}",
                        error.map(|e| format!(": {}", cap(&e))).unwrap_or_default()
                    ))),
                )),
                Some((id, method)) => match error {
                    Some(e) => {
                        let e = cap(&e);
                        match failure(&e) {
                            Failure::Timeout => out.push((
                                time,
                                Body::Event(Event::host(format!(
                                    "the gateway gave up on `{method}` (id {id}): {e}"
                                ))),
                            )),
                            Failure::Closed => out.push((
                                time,
                                Body::Event(Event::host_end(
                                    format!(
                                        "the server's connection closed unexpectedly with `{method}` (id {id}) open: {e}"
                                    ),
                                    Ending::Lost,
                                )),
                            )),
                            Failure::Error => {
                                let json = serde_json::json!({
                                    "jsonrpc": "2.0",
                                    "id": id,
                                    "error": {"message": e},
                                });
                                out.push((
                                    time,
                                    Body::Partial {
                                        dir: Dir::ServerToClient,
                                        json: json.to_string().into_bytes(),
                                        why: PartialWhy::GatewayError,
                                    },
                                ));
                            }
                        }
                    }
                    None => {
                        // Not an object: the record's payload is the result.
                        let fields = message.and_then(Fields::of);
                        let bytes = match &fields {
                            Some(f) => {
                                let mut msg = Splice::new(f);
                                msg.set("id", id.to_string());
                                msg.to_bytes()
                            }
                            None => {
                                let result =
                                    message.map_or("null".into(), |m| shallow::minify(m.get()));
                                let mut b = br#"{"jsonrpc":"2.0","result":"#.to_vec();
                                b.extend_from_slice(&result);
                                b.extend_from_slice(format!(r#","id":{id}}}"#).as_bytes());
                                b
                            }
                        };
                        out.push((
                            time,
                            Body::Line {
                                dir: Dir::ServerToClient,
                                bytes: bytes.into(),
                            },
                        ));
                    }
                },
            }
        }
        for (time, body) in out {
            super::record::add(&mut self.queue, line_no, time, body, terminated, &source);
        }
    }
}

super::record::line_parser!(EnvelopeReader);

/// `[TS] [LEVEL] [CATEGORY] TEXT` -> time (if it parses), level and text.
fn server_log_prefix(line: &str) -> Option<(Option<Timestamp>, &str, &str)> {
    let rest = line.strip_prefix('[')?;
    let end = rest.find("] [")?;
    let stamp = &rest[..end];
    if stamp.len() < 19 || stamp.as_bytes()[4] != b'-' {
        return None;
    }
    let rest = &rest[end + 3..];
    let lend = rest.find("] [")?;
    let level = &rest[..lend];
    if !matches!(level, "DEBUG" | "INFO" | "WARN" | "WARNING" | "ERROR") {
        return None;
    }
    let rest = &rest[lend + 3..];
    let cend = rest.find(']')?;
    let text = rest[cend + 1..]
        .strip_prefix(' ')
        .unwrap_or(&rest[cend + 1..]);
    let time = Timestamp::parse(stamp).or_else(|| Timestamp::parse_local(stamp));
    Some((time, level, text))
}

/// Whether a line is a gh-aw per-server log line (for detection).
pub fn matches_gh_aw_server(line: &str) -> bool {
    server_log_prefix(line).is_some()
}

/// Reads gh-aw's `mcp-logs/<server_id>.log`.
pub struct GhAwServerReader {
    lines: Lines,
    queue: VecDeque<Record>,
    noted: bool,
}

impl GhAwServerReader {
    pub fn new(lines: Lines) -> GhAwServerReader {
        GhAwServerReader {
            lines,
            queue: VecDeque::new(),
            noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &[u8], terminated: bool) {
        let text = super::record::text(bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let record = |time: Option<Timestamp>, body: Body| {
            Record::new(line_no, time, body, terminated, None)
        };
        let Some((time, level, message)) = server_log_prefix(text) else {
            return; // the continuation of a multi-line entry
        };
        if !self.noted {
            self.noted = true;
            self.queue.push_back(record(
                None,
                Body::Note("the gateway's per-server log holds the server's stderr and the gateway's lifecycle lines, not its messages (those are in rpc-messages.jsonl, checked on their own)".into()),
            ));
            self.queue.push_back(record(
                None,
                Body::Event(Event::no_handshake("the gateway's log of one server")),
            ));
        }
        if let Some(line) = message.strip_prefix("[stderr] ") {
            self.queue.push_back(record(
                time,
                Body::Line {
                    dir: Dir::Stderr,
                    bytes: line.as_bytes().to_vec().into(),
                },
            ));
            return;
        }
        if message == "[stderr]" {
            self.queue.push_back(record(
                time,
                Body::Line {
                    dir: Dir::Stderr,
                    bytes: Vec::new().into(),
                },
            ));
            return;
        }
        if message.contains("failed to connect") || message.contains("failed to start") {
            // The Go SDK's decoder names the first byte that is not JSON:
            // the server wrote text on stdout before its first message.
            if message.contains("invalid character")
                && message.contains("looking for beginning of value")
            {
                self.queue.push_back(record(
                    time.clone(),
                    Body::HostParseError(message.to_string()),
                ));
            }
            self.queue
                .push_back(record(time, Body::Event(Event::start_failed(message))));
            return;
        }
        let text = if level == "INFO" || level == "DEBUG" {
            message.to_string()
        } else {
            format!("{level}: {message}")
        };
        self.queue
            .push_back(record(time, Body::Event(Event::host(text))));
    }
}

super::record::line_parser!(GhAwServerReader);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert!(matches_gh_aw(
            r#"{"direction":"OUT","method":"tools/call","payload":{},"server_id":"notes","timestamp":"2026-03-03T10:00:00.120000000Z","type":"REQUEST"}"#
        ));
        assert!(matches_gh_aw(
            r#"{"timestamp":"2026-11-03T10:00:05.120Z","event":"rpc_response","_schema":"rpc-message/v2","direction":"IN","server_id":"notes","payload":{}}"#
        ));
        assert!(!matches_gh_aw(
            r#"{"jsonrpc":"2.0","id":1,"result":{"server_id":"x","payload":1}}"#
        ));
        assert!(matches_gh_aw_server(
            "[2026-11-03T10:00:00.120Z] [INFO] [backend] [stderr] listening"
        ));
        assert!(!matches_gh_aw_server("[notes] [info] Message from client"));
        assert!(!matches_gh_aw_server(
            "[2026-11-03T10:00:00.120Z] [trace] [x] y"
        ));
    }

    #[test]
    fn failures() {
        assert_eq!(failure("context deadline exceeded"), Failure::Timeout);
        assert_eq!(
            failure("calling \"tools/call\": context deadline exceeded"),
            Failure::Timeout
        );
        assert_eq!(failure("calling \"tools/call\": EOF"), Failure::Closed);
        assert_eq!(failure("EOF"), Failure::Closed);
        assert_eq!(
            failure("calling \"tools/call\": write |1: broken pipe"),
            Failure::Closed
        );
        assert_eq!(
            failure("calling \"tools/call\": connection closed"),
            Failure::Closed
        );
        assert_eq!(
            failure("calling \"tools/call\": unknown tool"),
            Failure::Error
        );
        // A server's own error answer, whatever words it uses.
        for text in [
            "calling \"tools/call\": upstream API timeout",
            "calling \"tools/call\": the search timed out, try a narrower query",
            "calling \"tools/call\": EOF: unexpected end of the index",
            "calling \"tools/call\": timeout waiting for lock",
        ] {
            assert_eq!(failure(text), Failure::Error, "{text}");
        }
    }
}
