//! Claude Code's logs: the per-server `mcp-logs-<server>/<ts>.jsonl` (one
//! JSON object per line: `debug` or `error` text, `timestamp`, `sessionId`,
//! `cwd`; the 2025 `.txt` form is the same objects in one pretty-printed
//! array) and the `--debug` text log (`[TS ]"[" LEVEL "] " TEXT`, MCP lines
//! `MCP server "<name>": <text>` and `MCP server "<name>" Server stderr:
//! <chunk>`, several servers in one file).
//!
//! Neither holds JSON-RPC: only the host's events. Tool calls become
//! messages rebuilt from them (`Calling MCP tool: T` a `tools/call` request
//! with an id the reader numbers, `Tool 'T' completed successfully` /
//! `failed after` its answer, paired per tool in order), so that hangs,
//! latency, the timeline and stats work; connection attempts start
//! sessions, drops and failures end them.

use std::collections::{HashMap, VecDeque};

use super::shallow::Fields;

use super::lines::Lines;
use super::record::{Body, LineParser, Record, ToolCalls, cap_name};
use crate::wire::dir::Dir;
use crate::wire::event::{Ending, Event, Facts};
use crate::wire::time::Timestamp;

/// Which of Claude Code's logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `mcp-logs-<server>/<ts>.jsonl` (or the 2025 `.txt` array).
    Jsonl,
    /// The `--debug` text log.
    Debug,
}

/// Servers whose state the debug log's reader keeps.
const SERVERS_MAX: usize = 10_000;
/// Bytes of one object of the 2025 pretty-printed array gathered at most.
const OBJECT_MAX: usize = 1 << 20;

const NOTE: &str = "Claude Code logs tool events, not JSON-RPC: each `Calling MCP tool` is shown as a `tools/call` request with an id mcpdbg numbers, answered by the tool's `completed`/`failed` line (calls to the same tool pair in order); handshake, id, envelope, content, capability and notification rules cannot be judged from this log, and server stderr may be written late, so it is not ordered against the tool events by time";

/// Whether a line is one of the `.jsonl` objects (for detection).
pub fn matches_jsonl(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('{')
        && line.contains("\"timestamp\"")
        && (line.contains("\"debug\"") || line.contains("\"error\""))
        && Fields::parse(line.as_bytes()).is_some_and(|v| {
            v.str("timestamp").is_some()
                && (v.str("debug").is_some() || v.str("error").is_some())
                && (v.contains("sessionId") || v.contains("cwd"))
        })
}

/// Whether the start of a file is the 2025 pretty-printed array.
pub fn matches_txt_array(prefix: &str) -> bool {
    let mut lines = prefix.lines().map(str::trim).filter(|l| !l.is_empty());
    lines.next() == Some("[")
        && lines.next() == Some("{")
        && lines
            .next()
            .is_some_and(|l| l.starts_with("\"debug\":") || l.starts_with("\"error\":"))
}

/// `[TS ][LEVEL] MCP server "<name>"` -> time, level, name and the rest
/// (`: text` or ` Server stderr: chunk`).
fn debug_prefix(line: &str) -> Option<(Option<Timestamp>, &str, &str, &str)> {
    let (time, rest) = match line.find(" [") {
        Some(i) if i >= 20 && line.as_bytes()[10] == b'T' => {
            (Some(Timestamp::parse(&line[..i])?), &line[i + 1..])
        }
        _ => (None, line),
    };
    let rest = rest.strip_prefix('[')?;
    let end = super::record::close_bracket(rest)?;
    let level = &rest[..end];
    if !matches!(level, "DEBUG" | "WARN" | "ERROR" | "INFO") {
        return None;
    }
    let rest = rest[end + 2..].strip_prefix("MCP server \"")?;
    let q = rest.find('"')?;
    Some((time, level, &rest[..q], &rest[q + 1..]))
}

/// Whether a line is an MCP line of the `--debug` log (for detection).
pub fn matches_debug(line: &str) -> bool {
    debug_prefix(line).is_some()
}

/// Whether a line is any timestamped line of the `--debug` log (most are
/// not about MCP): `TS [DEBUG|INFO|WARN|ERROR] TEXT`, the level in capitals.
pub fn matches_debug_any(line: &str) -> bool {
    let Some(i) = line.find(" [") else {
        return false;
    };
    i >= 20
        && line.as_bytes()[10] == b'T'
        && ["[DEBUG] ", "[INFO] ", "[WARN] ", "[ERROR] "]
            .iter()
            .any(|l| line[i + 1..].starts_with(l))
        && Timestamp::parse(&line[..i]).is_some()
}

/// One connection's state: the calls open per tool.
#[derive(Default)]
struct Conn {
    /// A NoHandshake mark was sent for the current session.
    marked: bool,
    connected: bool,
    /// The connection was said to be gone (dropped, closed).
    ended: bool,
    calls: ToolCalls,
}

/// Reads either Claude Code log.
pub struct ClaudeCodeReader {
    lines: Lines,
    layout: Layout,
    queue: VecDeque<Record>,
    conns: HashMap<Option<super::record::Source>, Conn>,
    /// The 2025 array form: the object being gathered, and where it began.
    object: Option<(u64, String)>,
    overflow_noted: bool,
}

/// What one host text means.
enum Said<'a> {
    Starting,
    Connected,
    /// `Connection established with capabilities: JSON`.
    Established(&'a str),
    Calling(&'a str),
    Completed(&'a str),
    /// `Tool 'T' failed after D: WHY`: the tool, how it failed, and `D`.
    Failed(&'a str, Failure<'a>, &'a str),
    Dropped,
    /// `Connection error: TEXT` with V8's `JSON.parse` words: a stdout line
    /// the SDK could not parse (it kept the connection).
    StrayLine(&'a str),
    /// `Connection error: [` and a ZodError dump: a stdout line that is JSON
    /// but not JSON-RPC, its issues summarised.
    Rejected(String),
    /// Another `Connection error: TEXT`.
    ConnectionError,
    ConnectFailed,
    Closing,
    Stderr(&'a str),
    Other,
}

/// How a call failed, by the TypeScript SDK's words after `failed after D: `.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure<'a> {
    /// `MCP error -32001: Request timed out`: the host's own timeout fired;
    /// the server had not answered (the SDK then cancels the request).
    HostTimeout,
    /// `MCP error -32000: Connection closed`: the connection closed with the
    /// call open; nothing answered it.
    ConnectionClosed,
    /// `MCP error CODE: MESSAGE`: the server's JSON-RPC error answer.
    Error(i64, &'a str),
    /// Any other text: the tool's result with `isError: true`, its text.
    Tool(&'a str),
}

fn failure(why: &str) -> Failure<'_> {
    let Some(rest) = why.strip_prefix("MCP error ") else {
        return Failure::Tool(why);
    };
    let (code, message) = rest.split_once(": ").unwrap_or((rest, ""));
    match (code.parse::<i64>(), message) {
        (Ok(-32001), m) if m.starts_with("Request timed out") => Failure::HostTimeout,
        (Ok(-32000), m) if m.starts_with("Connection closed") => Failure::ConnectionClosed,
        (Ok(code), m) => Failure::Error(code, m),
        (Err(_), _) => Failure::Tool(why),
    }
}

fn said(text: &str) -> Said<'_> {
    if text.starts_with("Starting connection") {
        Said::Starting
    } else if text.starts_with("Successfully connected") {
        Said::Connected
    } else if let Some(json) = text.strip_prefix("Connection established with capabilities: ") {
        Said::Established(json)
    } else if let Some(tool) = text.strip_prefix("Calling MCP tool: ") {
        Said::Calling(tool.trim())
    } else if let Some(rest) = text.strip_prefix("Tool '") {
        let Some(q) = rest.find("' ") else {
            return Said::Other;
        };
        let (tool, what) = (&rest[..q], &rest[q + 2..]);
        if what.starts_with("completed successfully") {
            Said::Completed(tool)
        } else if let Some(after) = what.strip_prefix("failed after ") {
            let (took, why) = after.split_once(": ").unwrap_or((after, ""));
            Said::Failed(tool, failure(why), took)
        } else {
            Said::Other
        }
    } else if text.starts_with("STDIO connection dropped") {
        Said::Dropped
    } else if let Some(error) = text.strip_prefix("Connection error: ") {
        if super::record::is_json_parse_error(error) {
            Said::StrayLine(error)
        } else if let Some(said) = super::record::zod_rejection(error) {
            Said::Rejected(said)
        } else {
            Said::ConnectionError
        }
    } else if text.starts_with("Connection failed") || text.starts_with("Connection error") {
        Said::ConnectFailed
    } else if text.starts_with("Closing transport") || text.starts_with("Terminating MCP server") {
        Said::Closing
    } else if let Some(chunk) = text.strip_prefix("Server stderr: ") {
        Said::Stderr(chunk)
    } else {
        Said::Other
    }
}

impl ClaudeCodeReader {
    pub fn new(lines: Lines, layout: Layout) -> ClaudeCodeReader {
        ClaudeCodeReader {
            lines,
            layout,
            queue: VecDeque::new(),
            conns: HashMap::new(),
            object: None,
            overflow_noted: false,
        }
    }

    /// One host text of a server (`source`), with its level.
    fn text(
        &mut self,
        line: u64,
        time: Option<Timestamp>,
        text: &str,
        error: bool,
        t: bool,
        source: Option<super::record::Source>,
    ) {
        if !self.conns.contains_key(&source) && self.conns.len() >= SERVERS_MAX {
            if !self.overflow_noted {
                self.overflow_noted = true;
                super::record::add(&mut self.queue,
                    line,
                    None,
                    Body::Note(
                        format!("more than {SERVERS_MAX} servers in one log: the later ones are not read")
                            .into(),
                    ),
                    t,
                    &source,
                );
            }
            return;
        }
        let text = text.trim_end_matches(['\n', '\r']);
        let said = said(text);
        let mut out: Vec<Body> = Vec::new();
        let conn = self.conns.entry(source.clone()).or_default();
        if let Said::Starting = said {
            // A new connection attempt: a new session once calls were made.
            out.push(Body::Event(Event::host_start(text)));
            *conn = Conn::default();
        }
        if !conn.marked {
            conn.marked = true;
            out.push(Body::Note(NOTE.into()));
            out.push(Body::Event(Event::no_handshake(
                "the host's tool events, not its messages",
            )));
        }
        match said {
            Said::Starting => {}
            Said::Established(json) => {
                conn.connected = true;
                out.push(Body::Event(Event::established(text, facts(json))));
            }
            Said::Connected => {
                conn.connected = true;
                out.push(Body::Event(Event::host(text)));
            }
            Said::Calling(tool) => {
                conn.connected = true;
                out.push(conn.calls.start(tool));
            }
            Said::Completed(tool) | Said::Failed(tool, ..) => {
                let Some(id) = conn.calls.finish(tool) else {
                    out.push(Body::Event(Event::host(format!(
                        "{text} (no call of this tool is open)"
                    ))));
                    return self.queue_all(line, time, out, t, &source);
                };
                let json = match said {
                    // The host gave up: the SDK's timeout cancels the
                    // request (it may not be logged); the server never
                    // answered, so the request stays open, a hang.
                    Said::Failed(_, Failure::HostTimeout, took) => serde_json::json!({
                        "jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {
                            "requestId": id,
                            "reason": format!("Request timed out (the host's own timeout, after {took})"),
                        },
                    }),
                    // The connection closed with the call open: no answer.
                    Said::Failed(_, Failure::ConnectionClosed, _) => {
                        out.push(Body::Event(if conn.ended {
                            Event::host(text)
                        } else {
                            conn.ended = true;
                            Event::host_end(text, Ending::Lost)
                        }));
                        return self.queue_all(line, time, out, t, &source);
                    }
                    Said::Failed(_, Failure::Error(code, message), _) => serde_json::json!({
                        "jsonrpc": "2.0", "id": id,
                        "error": {"code": code, "message": message},
                    }),
                    Said::Failed(_, Failure::Tool(why), _) => serde_json::json!({
                        "jsonrpc": "2.0", "id": id,
                        "result": {
                            "content": [{"type": "text", "text": if why.is_empty() { text } else { why }}],
                            "isError": true,
                        },
                    }),
                    _ => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                };
                out.push(ToolCalls::message(json));
            }
            Said::Dropped => {
                conn.ended = true;
                out.push(Body::Event(Event::host_end(text, Ending::Lost)))
            }
            // A stdout line the SDK could not parse, or whose schema it
            // rejected: one stray line, connected or not (it kept the
            // connection).
            Said::StrayLine(error) => out.push(Body::HostParseError(error.to_string())),
            Said::Rejected(said) => out.push(Body::HostRejected(said)),
            Said::ConnectionError if !conn.connected => {
                out.push(Body::Event(Event::start_failed(text)))
            }
            Said::ConnectFailed if !conn.connected => {
                out.push(Body::Event(Event::start_failed(text)))
            }
            Said::ConnectionError | Said::ConnectFailed | Said::Closing => {
                conn.ended = true;
                out.push(Body::Event(Event::host_end(text, Ending::Closed)))
            }
            Said::Stderr(chunk) => out.push(Body::Line {
                dir: Dir::Stderr,
                bytes: chunk
                    .trim_end_matches(['\n', '\r'])
                    .as_bytes()
                    .to_vec()
                    .into(),
            }),
            Said::Other if error => out.push(Body::Event(Event::host(format!("error: {text}")))),
            Said::Other => out.push(Body::Event(Event::host(text))),
        }
        self.queue_all(line, time, out, t, &source);
    }

    fn queue_all(
        &mut self,
        line: u64,
        time: Option<Timestamp>,
        out: Vec<Body>,
        t: bool,
        source: &Option<super::record::Source>,
    ) {
        for body in out {
            super::record::add(&mut self.queue, line, time.clone(), body, t, source);
        }
    }

    /// One object of the `.jsonl` (or the 2025 array).
    fn object(&mut self, line: u64, bytes: &[u8], t: bool) {
        // The object's members as their text: only the strings read here
        // are unescaped, never a tree of the rest.
        let Some(obj) = Fields::parse(bytes) else {
            super::record::add(
                &mut self.queue,
                line,
                None,
                Body::Unreadable(bytes.to_vec()),
                t,
                &None,
            );
            return;
        };
        let time = obj.str("timestamp").and_then(|t| Timestamp::parse(&t));
        let (text, error) = match (obj.str("debug"), obj.str("error")) {
            (Some(d), _) => (d, false),
            (_, Some(e)) => (e, true),
            _ => {
                super::record::add(
                    &mut self.queue,
                    line,
                    time,
                    Body::Unreadable(bytes.to_vec()),
                    t,
                    &None,
                );
                return;
            }
        };
        self.text(line, time, &text, error, t, None);
    }

    fn read(&mut self, line_no: u64, bytes: Vec<u8>, terminated: bool) {
        match self.layout {
            Layout::Debug => {
                let text = super::record::text(&bytes);
                let Some((time, level, name, rest)) = debug_prefix(&text) else {
                    return; // other debug lines, and continuations
                };
                let (body, error) = if let Some(chunk) = rest.strip_prefix(" Server stderr: ") {
                    (format!("Server stderr: {chunk}"), true)
                } else {
                    (
                        rest.strip_prefix(": ").unwrap_or(rest).to_string(),
                        level == "ERROR",
                    )
                };
                let source = Some(cap_name(name).into());
                self.text(line_no, time, &body, error, terminated, source);
            }
            Layout::Jsonl => {
                let trimmed = bytes.trim_ascii();
                if trimmed.is_empty() {
                    return;
                }
                // The 2025 array: `[`, then objects over several lines.
                if let Some((_, text)) = &mut self.object {
                    text.push_str(&super::record::text(&bytes));
                    text.push('\n');
                    let closes = matches!(trimmed, b"}" | b"},");
                    if closes || text.len() > OBJECT_MAX {
                        let (start, text) = self.object.take().expect("gathering");
                        let text = text.trim_end().trim_end_matches(',').to_string();
                        self.object(start, text.as_bytes(), terminated);
                    }
                    return;
                }
                match trimmed {
                    b"[" | b"]" => {}
                    b"{" => self.object = Some((line_no, "{\n".to_string())),
                    _ => {
                        let one = trimmed.strip_suffix(b",").unwrap_or(trimmed);
                        self.object(line_no, one, terminated)
                    }
                }
            }
        }
    }
}

/// The capabilities line's facts: `negotiatedProtocolVersion`,
/// `protocolEra` (`legacy` or `modern`), `serverVersion {name, version}`.
fn facts(json: &str) -> Facts {
    let Some(v) = Fields::parse(json.as_bytes()) else {
        return Facts::default();
    };
    let text = |s: Option<std::borrow::Cow<'_, str>>| s.map(|s| cap_name(&s).into_string());
    let server = v.raw("serverVersion").and_then(Fields::of);
    Facts {
        protocol_version: text(v.str("negotiatedProtocolVersion")),
        modern: match v.str("protocolEra").as_deref() {
            Some("modern") => Some(true),
            Some("legacy") => Some(false),
            _ => None,
        },
        server_name: text(server.as_ref().and_then(|s| s.str("name"))),
        server_version: text(server.as_ref().and_then(|s| s.str("version"))),
    }
}

impl LineParser for ClaudeCodeReader {
    fn parts(&mut self) -> (&mut Lines, &mut VecDeque<Record>) {
        (&mut self.lines, &mut self.queue)
    }

    fn line(&mut self, line: u64, bytes: crate::wire::line::LineBytes, terminated: bool) {
        self.read(line, bytes.into_vec(), terminated)
    }

    fn end(&mut self) {
        // An object of the array cut off at the end of the file.
        if let Some((start, text)) = self.object.take() {
            super::record::add(
                &mut self.queue,
                start,
                None,
                Body::Unreadable(text.into_bytes()),
                false,
                &None,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert!(matches_jsonl(
            r#"{"debug":"Starting connection with timeout of 30000ms","timestamp":"2026-11-03T10:00:00.120Z","sessionId":"s1","cwd":"/tmp"}"#
        ));
        assert!(matches_jsonl(
            r#"{"error":"Server stderr: x\n","timestamp":"2026-11-03T10:00:00.120Z","sessionId":"s1"}"#
        ));
        assert!(!matches_jsonl(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#
        ));
        assert!(matches_txt_array(
            "[\n  {\n    \"debug\": \"Starting connection attempt\",\n"
        ));
        assert!(!matches_txt_array("[\n  {\n    \"id\": 1,\n"));
        assert!(matches_debug(
            r#"2026-10-03T04:26:18.442Z [DEBUG] MCP server "spike001": Starting connection with timeout of 30000ms"#
        ));
        assert!(matches_debug(
            r#"[ERROR] MCP server "apicurio" Server stderr: INFO connected"#
        ));
        assert!(!matches_debug(
            "2026-10-03T04:26:18.442Z [DEBUG] Loaded settings"
        ));
        assert!(!matches_debug(
            r#"2025-04-17T04:45:39.334Z [info] [filesystem] Message from client: {}"#
        ));
    }

    #[test]
    fn texts() {
        assert!(matches!(
            said("Tool 'a b' completed successfully in 12ms"),
            Said::Completed("a b")
        ));
        assert!(matches!(
            said("Tool 'x' failed after 3s: boom: bad"),
            Said::Failed("x", Failure::Tool("boom: bad"), "3s")
        ));
        assert!(matches!(
            said("Tool 'x' failed after 60003ms: MCP error -32001: Request timed out"),
            Said::Failed("x", Failure::HostTimeout, "60003ms")
        ));
        assert!(matches!(
            said("Tool 'x' failed after 2s: MCP error -32000: Connection closed"),
            Said::Failed("x", Failure::ConnectionClosed, _)
        ));
        assert!(matches!(
            said("Tool 'x' failed after 2s: MCP error -32603: boom"),
            Said::Failed("x", Failure::Error(-32603, "boom"), _)
        ));
        // A code that is no number is the tool's own text.
        assert!(matches!(
            said("Tool 'x' failed after 2s: MCP error soon: boom"),
            Said::Failed("x", Failure::Tool("MCP error soon: boom"), _)
        ));
        assert!(matches!(
            said("Connection error: Unexpected token 'L', \"Loading\"... is not valid JSON"),
            Said::StrayLine(_)
        ));
        assert!(matches!(
            said("Tool 'x' still running (30s elapsed)"),
            Said::Other
        ));
        assert!(matches!(
            said("Calling MCP tool: search"),
            Said::Calling("search")
        ));
    }
}
