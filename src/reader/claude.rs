//! Claude Desktop's logs: the per-server `mcp-server-NAME.log` and the
//! aggregate `mcp.log`.
//!
//! Per-server lines are `TS [NAME] [LEVEL] MSG [META]`; the aggregate puts the
//! level first (`TS [LEVEL] [NAME] MSG`) and interleaves every server, so its
//! records carry the server's name as their source. MSG is
//! `Message from client: PAYLOAD`, `Message from server: PAYLOAD` or a
//! lifecycle text. PAYLOAD is one line of re-serialised JSON (possibly cut
//! with `...[N chars truncated]...`) or, from mid-2026, a summary
//! (`method="tools/call" id=3 params`, `id=3 result(1 blocks)`,
//! `id=9 error(code=-32603)`). META is ` { metadata: undefined }`, an
//! inspect block over several lines (`{` ... `}`), or a JSON object on error
//! lines. In the per-server file, unprefixed lines outside a metadata block
//! are the server's raw stderr; in the aggregate they are continuations.

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, ErrorBlock, LineParser, PartialWhy, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// Which of the two Claude Desktop files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `mcp-server-NAME.log`: one server, with its stderr.
    PerServer,
    /// `mcp.log`: all servers, no stderr.
    Aggregate,
}

/// A parsed Claude line: time, server name (if any), level, message.
struct Prefix<'a> {
    time: Timestamp,
    name: Option<&'a str>,
    level: &'a str,
    message: &'a str,
}

/// `[...] ` at the start of `s`: the inside and the rest.
fn bracket(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix('[')?;
    let end = super::record::close_bracket(rest)?;
    Some((&rest[..end], &rest[end + 2..]))
}

fn is_level(s: &str) -> bool {
    matches!(s, "info" | "error" | "warn" | "debug")
}

/// `2025-03-10T17:03:18.749Z ` with exactly three fraction digits and `Z`.
fn claude_time(line: &str) -> Option<(Timestamp, &str)> {
    let stamp = line.get(..24)?;
    let b = stamp.as_bytes();
    if b[10] != b'T' || b[19] != b'.' || b[23] != b'Z' || line.as_bytes().get(24) != Some(&b' ') {
        return None;
    }
    Some((Timestamp::parse(stamp)?, &line[25..]))
}

fn prefix(line: &str, layout: Layout) -> Option<Prefix<'_>> {
    let (time, rest) = claude_time(line)?;
    match layout {
        Layout::PerServer => {
            let (name, rest) = bracket(rest)?;
            let (level, message) = bracket(rest)?;
            is_level(level).then_some(Prefix {
                time,
                name: Some(name),
                level,
                message,
            })
        }
        Layout::Aggregate => {
            let (level, rest) = bracket(rest)?;
            if !is_level(level) {
                return None;
            }
            match bracket(rest) {
                Some((name, message)) => Some(Prefix {
                    time,
                    name: Some(name),
                    level,
                    message,
                }),
                None => Some(Prefix {
                    time,
                    name: None,
                    level,
                    message: rest,
                }),
            }
        }
    }
}

/// Whether a line starts like this layout (for format detection).
pub fn matches(line: &str, layout: Layout) -> bool {
    prefix(line, layout).is_some()
}

/// Reads either Claude Desktop file.
pub struct ClaudeReader {
    lines: Lines,
    layout: Layout,
    /// Inside a multi-line inspect block (`{` ... `}`).
    in_metadata: bool,
    queue: VecDeque<Record>,
    /// The last server name read, handed out again while lines name it.
    last_source: Option<super::record::Source>,
    /// An `[error] [` record and the lines after it: perhaps a ZodError
    /// dump, gathered until its `]`.
    block: Option<ErrorBlock>,
}

impl ClaudeReader {
    pub fn new(lines: Lines, layout: Layout) -> ClaudeReader {
        ClaudeReader {
            lines,
            layout,
            in_metadata: false,
            queue: VecDeque::new(),
            last_source: None,
            block: None,
        }
    }

    /// The gathered `[error]` block: a ZodError dump is one stdout line the
    /// host rejected (one finding at its first line); anything else is read
    /// as the lines of the file are (stderr in the per-server file).
    fn flush_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        let block = match block.finish() {
            Ok(rejected) => return self.queue.push_back(rejected),
            Err(block) => block,
        };
        self.queue.push_back(Record::new(
            block.line,
            block.time,
            Body::Event(Event::host("[")),
            block.terminated,
            block.source.clone(),
        ));
        if self.layout == Layout::PerServer {
            for (line, text) in block.lines {
                self.queue.push_back(Record::new(
                    line,
                    None,
                    Body::Line {
                        dir: Dir::Stderr,
                        bytes: text.into_bytes().into(),
                    },
                    block.terminated,
                    None,
                ));
            }
        }
    }

    fn read(&mut self, line_no: u64, bytes: LineBytes, terminated: bool) {
        let record =
            |time: Option<Timestamp>, body: Body, source: Option<super::record::Source>| {
                Record::new(line_no, time, body, terminated, source)
            };
        let text = super::record::text(&bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if let Some(block) = &mut self.block {
            if claude_time(text).is_none() {
                if block.push(line_no, text) {
                    self.flush_block();
                }
                return;
            }
            self.flush_block();
        }
        if self.in_metadata {
            if text.starts_with('}') {
                self.in_metadata = false;
            }
            return;
        }
        let Some(p) = prefix(text, self.layout) else {
            if self.layout == Layout::PerServer {
                // The server's own stderr, written raw into the file.
                self.queue.push_back(record(
                    None,
                    Body::Line {
                        dir: Dir::Stderr,
                        bytes,
                    },
                    None,
                ));
            }
            return;
        };
        let source = match (self.layout, p.name) {
            (Layout::Aggregate, Some(name)) => Some(match &self.last_source {
                Some(last) if **last == *name => last.clone(),
                _ => self.last_source.insert(name.into()).clone(),
            }),
            _ => None,
        };
        let (message, opens_block) = strip_metadata(p.message);
        if opens_block {
            self.in_metadata = true;
        }
        if self.layout == Layout::Aggregate && p.name.is_none() {
            return; // host-level lines belong to no server
        }
        if p.level == "error" && message.trim_end() == "[" {
            // Perhaps a ZodError dump over the next lines: gathered first.
            self.block = Some(ErrorBlock::new(line_no, Some(p.time), source, terminated));
            return;
        }
        let body = if let Some(payload) = message.strip_prefix("Message from client: ") {
            payload_body(&bytes, Dir::ClientToServer, payload)
        } else if let Some(payload) = message.strip_prefix("Message from server: ") {
            payload_body(&bytes, Dir::ServerToClient, payload)
        } else if super::record::is_json_parse_error(message) {
            Body::HostParseError(message.to_string())
        } else if message == "Initializing server..." {
            // The host launches the server's process: after traffic, a new
            // session (what the new process writes is not the old one's).
            Body::Event(Event::host_start(message))
        } else if let Some(verdict) = message.strip_prefix("Era probe verdict: ") {
            // The host's choice of era for this server (2026): a fact.
            let modern = match verdict.split_whitespace().next() {
                Some("modern") => Some(true),
                Some("legacy") => Some(false),
                _ => None,
            };
            Body::Event(Event::established(
                message,
                crate::wire::event::Facts {
                    modern,
                    ..Default::default()
                },
            ))
        } else {
            Body::Event(Event::host(message))
        };
        if matches!(body, Body::Line { .. }) {
            self.queue.push_back(record(
                None,
                Body::Note(
                    "the host logs re-serialised JSON, not the bytes on the wire: CRLF, BOM and blank-line rules cannot be judged"
                        .into(),
                ),
                source.clone(),
            ));
        }
        self.queue.push_back(record(Some(p.time), body, source));
    }
}

/// Removes the metadata suffix; says whether it opens a multi-line block.
fn strip_metadata(message: &str) -> (&str, bool) {
    if let Some(m) = message.strip_suffix(" { metadata: undefined }") {
        return (m, false);
    }
    if let Some(m) = message.strip_suffix(" {") {
        return (m, true);
    }
    // Early error lines end in a JSON object: `... {"context":"connection",...}`.
    // Not a message line: its payload may hold those bytes.
    if message.starts_with("Message from ") {
        return (message, false);
    }
    match memchr::memmem::find(message.as_bytes(), b" {\"context\":") {
        Some(i) => (&message[..i], false),
        None => (message, false),
    }
}

/// How the host marks the middle of a payload it cut.
const TRUNCATION: &str = " chars truncated]...";

/// `line` is the log's line that holds `payload`.
fn payload_body(line: &LineBytes, dir: Dir, payload: &str) -> Body {
    let payload = payload.trim_end();
    if payload.starts_with('{') || payload.starts_with('[') {
        // One searcher for every line: building it costs more than a
        // search of a short payload.
        static CUT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"...["));
        if let Some((cut, marker)) = CUT
            .find(payload.as_bytes())
            .and_then(|i| Some((i, i + payload[i..].find(TRUNCATION)?)))
        {
            let tail = &payload[marker + TRUNCATION.len()..];
            return match rebuild_cut_around(&payload[..cut], Some(tail)) {
                Some(json) => Body::Partial {
                    dir,
                    json: json.into_bytes(),
                    why: PartialWhy::HostTruncated,
                },
                None => Body::Note(
                    "the host cut a payload before its id: that message is not in the analysis"
                        .into(),
                ),
            };
        }
        return Body::Line {
            dir,
            bytes: line.part(payload.as_bytes()),
        };
    }
    match summary(payload) {
        Some(json) => Body::Partial {
            dir,
            json: json.into_bytes(),
            why: PartialWhy::Summary,
        },
        None => Body::Event(Event::host(format!(
            "unreadable message summary: {payload}"
        ))),
    }
}

/// `method="tools/call" id=3 params` | `id=3 result(1 blocks)` |
/// `id=9 error(code=-32603)` -> minimal JSON.
fn summary(text: &str) -> Option<String> {
    let mut method = None;
    let mut id = None;
    let mut outcome = None;
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("method=\"") {
            let end = r.find('"')?;
            method = Some(&r[..end]);
            rest = r[end + 1..].trim_start();
        } else if let Some(r) = rest.strip_prefix("id=") {
            let (value, after) = if let Some(quoted) = r.strip_prefix('"') {
                let end = quoted.find('"')? + 2;
                (&r[..end], &r[end..])
            } else {
                let end = r.find(' ').unwrap_or(r.len());
                (&r[..end], &r[end..])
            };
            serde_json::from_str::<serde_json::Value>(value).ok()?;
            id = Some(value);
            rest = after.trim_start();
        } else if let Some(r) = rest.strip_prefix("error(code=") {
            let end = r.find(')')?;
            let code: i64 = r[..end].parse().ok()?;
            outcome = Some(format!("\"error\":{{\"code\":{code},\"message\":\"\"}}"));
            rest = r[end + 1..].trim_start();
        } else if let Some(r) = rest.strip_prefix("result") {
            outcome = Some("\"result\":{}".to_string());
            rest = match r.strip_prefix('(') {
                Some(inner) => inner.get(inner.find(')')? + 1..)?.trim_start(),
                None => r.trim_start(),
            };
        } else if let Some(r) = rest.strip_prefix("params") {
            rest = r.trim_start();
        } else {
            return None;
        }
    }
    let mut parts = vec!["\"jsonrpc\":\"2.0\"".to_string()];
    if let Some(id) = id {
        parts.push(format!("\"id\":{id}"));
    }
    match (method, outcome) {
        (Some(m), None) => parts.push(format!("\"method\":{}", serde_json::Value::from(m))),
        (None, Some(o)) if id.is_some() => parts.push(o),
        _ => return None,
    }
    Some(format!("{{{}}}", parts.join(",")))
}

/// What a payload cut short still shows (its head, up to where the log
/// cut it): the top-level id, method and outcome -> minimal JSON, or
/// `None` when no message can be rebuilt (a request whose id was cut
/// off). A tool call keeps its tool's name when the head shows it.
pub(crate) fn rebuild_cut(head: &str) -> Option<String> {
    rebuild_cut_around(head, None)
}

/// [`rebuild_cut`] of a payload the host cut in the middle: `tail` is
/// what follows the cut. The TypeScript SDK writes a request's `jsonrpc`
/// and `id` last, so a request whose head has no id usually ends with it
/// (`..."jsonrpc":"2.0","id":4}`): it is taken from there, so the request
/// still pairs.
pub(crate) fn rebuild_cut_around(head: &str, tail: Option<&str>) -> Option<String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut key_start = None;
    let mut last_key: Option<&str> = None;
    // The depth-1 key whose object is open (`params`), for its `name`.
    let mut outer: Option<&str> = None;
    let (mut id, mut method, mut outcome, mut name) = (None, None, None, None);
    let bytes = head.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
                if let Some(start) = key_start.take() {
                    last_key = Some(&head[start..i]);
                }
            }
        } else {
            match c {
                b'"' => {
                    in_string = true;
                    // A key follows `{` or `,`: at depth 1, or in `params`.
                    let before = head[..i].trim_end();
                    let keyed = depth == 1 || (depth == 2 && outer == Some("params"));
                    if keyed && (before.ends_with('{') || before.ends_with(',')) {
                        key_start = Some(i + 1);
                    }
                }
                b'{' | b'[' => {
                    if depth == 1 {
                        outer = last_key.filter(|_| c == b'{');
                    }
                    depth += 1
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                b':' if depth == 2 && outer == Some("params") && last_key == Some("name") => {
                    let value = head[i + 1..].trim_start();
                    let mut stream =
                        serde_json::Deserializer::from_str(value).into_iter::<String>();
                    if let Some(Ok(n)) = stream.next() {
                        name = Some(n);
                    }
                }
                b':' if depth == 1 => {
                    let value = head[i + 1..].trim_start();
                    match last_key {
                        Some("id") => {
                            let mut stream = serde_json::Deserializer::from_str(value)
                                .into_iter::<serde_json::Value>();
                            if let Some(Ok(v)) = stream.next() {
                                id = Some(v.to_string());
                            }
                        }
                        Some("method") => {
                            let mut stream =
                                serde_json::Deserializer::from_str(value).into_iter::<String>();
                            if let Some(Ok(m)) = stream.next() {
                                method = Some(m);
                            }
                        }
                        Some("result") => outcome = Some("\"result\":{}"),
                        Some("error") => outcome = Some("\"error\":{\"code\":0,\"message\":\"\"}"),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    if id.is_none() {
        id = tail.and_then(tail_id);
    }
    let mut parts = vec!["\"jsonrpc\":\"2.0\"".to_string()];
    if let Some(id) = &id {
        parts.push(format!("\"id\":{id}"));
    }
    match (method, outcome) {
        // A request whose id was cut off cannot be paired: leave it out
        // rather than report it as a request without id.
        (Some(m), _) if id.is_some() || m.starts_with("notifications/") => {
            parts.push(format!("\"method\":{}", serde_json::Value::from(m)));
            if let Some(name) = name {
                parts.push(format!(
                    "\"params\":{{\"name\":{}}}",
                    serde_json::Value::from(name)
                ));
            }
        }
        (None, Some(o)) if id.is_some() => parts.push(o.to_string()),
        _ => return None,
    }
    Some(format!("{{{}}}", parts.join(",")))
}

/// The id a cut payload's tail ends with: `"id":V}` or `"id":V,"jsonrpc":"2.0"}`
/// at its very end (a number or a string), else `None`.
fn tail_id(tail: &str) -> Option<String> {
    let tail = tail.trim_end();
    let body = tail.strip_suffix('}')?;
    let body = body.strip_suffix(",\"jsonrpc\":\"2.0\"").unwrap_or(body);
    let at = body.rfind("\"id\":")?;
    let value = body[at + 5..].trim();
    let before = body[..at].trim_end();
    if !(before.ends_with(',') || before.ends_with('{')) {
        return None;
    }
    match serde_json::from_str::<serde_json::Value>(value).ok()? {
        v @ (serde_json::Value::Number(_) | serde_json::Value::String(_)) => Some(v.to_string()),
        _ => None,
    }
}

impl LineParser for ClaudeReader {
    fn parts(&mut self) -> (&mut Lines, &mut VecDeque<Record>) {
        (&mut self.lines, &mut self.queue)
    }

    fn line(&mut self, line: u64, bytes: LineBytes, terminated: bool) {
        self.read(line, bytes, terminated)
    }

    fn end(&mut self) {
        self.flush_block();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        assert_eq!(
            summary(r#"method="tools/call" id=3 params"#).as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#)
        );
        assert_eq!(
            summary(r#"method="notifications/initialized""#).as_deref(),
            Some(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        );
        assert_eq!(
            summary("id=6 result(1 blocks)").as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":6,"result":{}}"#)
        );
        assert_eq!(
            summary("id=0 result").as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#)
        );
        assert_eq!(
            summary("id=9 error(code=-32603)").as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":""}}"#)
        );
        assert_eq!(
            summary(r#"id="a b" result"#).as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":"a b","result":{}}"#)
        );
        assert_eq!(summary("something else"), None);
    }

    #[test]
    fn cut_payloads_keep_their_top_level_id_and_method() {
        assert_eq!(
            rebuild_cut(
                r##"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"# Over"##
            )
            .as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)
        );
        assert_eq!(
            rebuild_cut(
                r#"{"method":"tools/call","params":{"name":"x","arguments":{"id":99,"text":"ab"#
            ),
            None,
            "a nested id is not the message id; the client's own id comes last and was cut"
        );
        assert_eq!(
            rebuild_cut(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{"id":99,"text":"ab"#).as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#)
        );
        assert_eq!(rebuild_cut(r#"{"params":{"a":"#), None);
    }

    #[test]
    fn one_server_name_is_shared_by_the_records_that_name_it() {
        let log = "2025-04-17T04:45:39.334Z [info] [files] Message from client: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n\
                   2025-04-17T04:45:39.335Z [info] [files] Message from server: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                   2025-04-17T04:45:39.336Z [info] [notes] Message from client: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n\
                   2025-04-17T04:45:39.337Z [info] [files] Message from server: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n";
        let opened = super::super::open(
            Box::new(std::io::Cursor::new(log.as_bytes().to_vec())),
            Some(super::super::Format::ClaudeAggregate),
        )
        .expect("open");
        let sources: Vec<super::super::Source> = opened
            .records
            .map(|r| r.expect("record"))
            .filter(|r| matches!(r.body, Body::Line { .. }))
            .map(|r| r.source.expect("a server name"))
            .collect();
        let names: Vec<&str> = sources.iter().map(|s| &**s).collect();
        assert_eq!(names, ["files", "files", "notes", "files"]);
        assert!(std::sync::Arc::ptr_eq(&sources[0], &sources[1]));
        assert!(!std::sync::Arc::ptr_eq(&sources[1], &sources[3]));
    }

    #[test]
    fn prefixes() {
        let per_server = "2025-03-10T17:03:18.764Z [demo] [info] Message from client: {}";
        assert!(matches(per_server, Layout::PerServer));
        assert!(!matches(per_server, Layout::Aggregate));
        let aggregate = "2025-04-17T04:45:39.334Z [info] [filesystem] Message from client: {}";
        assert!(matches(aggregate, Layout::Aggregate));
        assert!(!matches(aggregate, Layout::PerServer));
        // A Rust tracing line on stderr looks close but is not Claude's.
        assert!(!matches(
            "2025-03-31T21:30:55.174967Z  INFO server: sending",
            Layout::PerServer
        ));
        assert_eq!(strip_metadata("x { metadata: undefined }"), ("x", false));
        // An error line's JSON tail goes; a payload that holds the same
        // bytes stays whole.
        assert_eq!(
            strip_metadata(r#"Server disconnected. {"context":"connection","stack":"x"}"#),
            ("Server disconnected.", false)
        );
        let payload = r#"Message from server: {"jsonrpc":"2.0","id":1,"result":{"text":"a {\"context\": 1}"}}"#;
        assert_eq!(strip_metadata(payload), (payload, false));
        assert_eq!(
            strip_metadata("Using MCP server command: a with args and path: {"),
            ("Using MCP server command: a with args and path:", true)
        );
    }
}
