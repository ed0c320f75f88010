//! What a reader yields: [`Record`]s and their [`Body`], the [`LineParser`]
//! the host readers implement, and the small text helpers they share. The
//! readers build on this file and [`super::lines`], never on the dispatcher
//! in `mod.rs` (which names them all), so no reader depends on another's
//! caller.

use std::collections::VecDeque;
use std::io;

use super::lines::Lines;
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// What one record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// A line written to one of the server's streams, without its `\n`
    /// (a `\r` before it is kept: it is part of what was sent).
    Line { dir: Dir, bytes: LineBytes },
    /// A session event written by a recorder (`# ...` in the native format),
    /// or a host's lifecycle line (`Server transport closed`).
    Event(Event),
    /// A message the log shows only in part, as minimal JSON the reader
    /// rebuilt from what it could read (id, method, outcome).
    Partial {
        dir: Dir,
        json: Vec<u8>,
        why: PartialWhy,
    },
    /// The host reported that it could not parse a line of the server's
    /// stdout (its words): evidence of stray output the log does not contain.
    HostParseError(String),
    /// The host reported that a line of the server's stdout parsed as JSON
    /// but its schema rejected it as a JSON-RPC message (a ZodError dump):
    /// what the host said of it, summarised.
    HostRejected(String),
    /// What the reader had to assume about this log (reported once per file).
    Note(std::borrow::Cow<'static, str>),
    /// The compressed input could not be decoded past this point (the last
    /// record of such an input): the decoder's words, and how many lines
    /// were read before.
    Undecodable { error: String, lines_read: u64 },
    /// A line longer than the line cap ([`max_line`](super::lines::max_line)): its length in bytes.
    /// The line itself follows as its head only.
    Overlong { length: u64 },
    /// A line the format cannot interpret, kept for the report.
    Unreadable(Vec<u8>),
}

/// Why a message is only partly known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialWhy {
    /// The host logs summaries (`method="tools/call" id=3 params`).
    Summary,
    /// The host cut the payload (`...[N chars truncated]...`).
    HostTruncated,
    /// A gateway logged its own words for a failed call instead of the
    /// server's answer.
    GatewayError,
    /// The host logs events (a tool call started, completed, failed), not
    /// messages: the message is rebuilt from them.
    HostEvents,
}

/// One record of a log: a line of traffic with where and when it was seen.
/// A record's session name ([`Record::source`]): shared, so that a reader
/// hands out the same name record after record without allocating it for
/// each (records are read on one thread and freed on another, see
/// [`crate::pipeline`]).
pub type Source = std::sync::Arc<str>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in the input file.
    pub line: u64,
    pub time: Option<Timestamp>,
    pub body: Body,
    /// False when the input ended without a newline after this record.
    pub terminated: bool,
    /// The session this record belongs to, in logs that interleave several
    /// servers (the server's name in Claude Desktop's `mcp.log`).
    pub source: Option<Source>,
}

impl Record {
    /// A record of line `line` (1-based), at `time` when the log says,
    /// `terminated` unless the input ended without a newline after it, of
    /// the session `source` in a log of several.
    pub fn new(
        line: u64,
        time: Option<Timestamp>,
        body: Body,
        terminated: bool,
        source: Option<Source>,
    ) -> Record {
        Record {
            line,
            time,
            body,
            terminated,
            source,
        }
    }
}

/// A reader that turns each line into zero or more records, queued: the
/// readers of host logs, which skip, split or join lines.
pub trait LineParser {
    /// The lines it reads and the records it has queued.
    fn parts(&mut self) -> (&mut Lines, &mut std::collections::VecDeque<Record>);
    /// Takes one line of input (its bytes shared with the chunk it was read
    /// into: [`LineBytes::part`] hands the message on without a copy).
    fn line(&mut self, line: u64, bytes: LineBytes, terminated: bool);
    /// The input ended: flush what is half-read. Called again on every later
    /// `next`, so it must leave nothing to flush a second time.
    fn end(&mut self) {}
}

/// Implements [`LineParser`] for a reader that keeps its `lines` and
/// `queue` as fields and reads one line with `read(line, &bytes,
/// terminated)` (most host logs' readers).
macro_rules! line_parser {
    ($reader:ty) => {
        $crate::reader::record::line_parser!($reader, end: |_reader| {});
    };
    // `end`: what the reader flushes when the input ends.
    ($reader:ty, end: |$this:ident| $end:block) => {
        impl $crate::reader::record::LineParser for $reader {
            fn parts(
                &mut self,
            ) -> (
                &mut $crate::reader::lines::Lines,
                &mut std::collections::VecDeque<$crate::reader::record::Record>,
            ) {
                (&mut self.lines, &mut self.queue)
            }

            fn line(&mut self, line: u64, bytes: $crate::wire::line::LineBytes, terminated: bool) {
                self.read(line, &bytes, terminated)
            }

            fn end(&mut self) {
                let $this = self;
                $end
            }
        }
    };
}
pub(crate) use line_parser;

/// A line put together from pieces (socat's data chunks, strace's write
/// calls), held as [`Lines`] holds a line: up to the line limit
/// ([`super::lines::max_line`]); past it only its first [`super::lines::HEAD`] bytes are
/// kept and its length is counted, and [`queue_assembled`] says so with a
/// [`Body::Overlong`] record before the head, as for a line read whole.
#[derive(Debug, Default)]
pub struct Assembly {
    bytes: Vec<u8>,
    /// The line's whole length so far.
    length: u64,
}

impl Assembly {
    /// Adds a piece of the line (no newline in it).
    pub fn push(&mut self, piece: &[u8]) {
        self.length += piece.len() as u64;
        if self.length <= cap() {
            self.bytes.extend_from_slice(piece);
        } else if self.bytes.len() > super::lines::HEAD {
            self.bytes.truncate(super::lines::HEAD);
            self.bytes.shrink_to_fit();
        } else {
            let room = super::lines::HEAD.saturating_sub(self.bytes.len());
            self.bytes
                .extend_from_slice(&piece[..room.min(piece.len())]);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The line so far (its head when it went past the limit), and its
    /// whole length when it did; the assembly starts again empty.
    pub fn take(&mut self) -> (Vec<u8>, Option<u64>) {
        let over = (self.length > cap()).then_some(self.length);
        self.length = 0;
        (std::mem::take(&mut self.bytes), over)
    }
}

/// The longest line held whole (as [`Lines`] holds it).
fn cap() -> u64 {
    super::lines::max_line().max(super::lines::HEAD) as u64
}

/// Queues an assembled line of `dir` (from [`Assembly::take`]) at `line`:
/// a line past the limit is said first, then its head.
pub fn queue_assembled(
    queue: &mut VecDeque<Record>,
    line: u64,
    time: Option<Timestamp>,
    dir: Dir,
    (bytes, over): (Vec<u8>, Option<u64>),
    terminated: bool,
) {
    if let Some(length) = over {
        queue.push_back(Record::new(
            line,
            None,
            Body::Overlong { length },
            true,
            None,
        ));
    }
    let body = Body::Line {
        dir,
        bytes: bytes.into(),
    };
    queue.push_back(Record::new(line, time, body, terminated, None));
}

/// How many servers a reader remembers having said its notes for.
pub const SEEN_MAX: usize = 10_000;

/// Queues a record of line `line` at `time` (`terminated` unless the input
/// ended without a newline after it), of `source`'s session.
pub fn add(
    queue: &mut VecDeque<Record>,
    line: u64,
    time: Option<Timestamp>,
    body: Body,
    terminated: bool,
    source: &Option<Source>,
) {
    queue.push_back(Record::new(line, time, body, terminated, source.clone()));
}

/// Queues `record`, after the `notes` a format says once per server, the
/// first time its server is seen (`seen` remembers at most [`SEEN_MAX`]).
pub fn add_noted(
    queue: &mut VecDeque<Record>,
    seen: &mut std::collections::HashSet<Option<Source>>,
    notes: impl FnOnce() -> [Body; 2],
    record: Record,
) {
    if !seen.contains(&record.source) && seen.len() < SEEN_MAX {
        seen.insert(record.source.clone());
        for body in notes() {
            let (line, t) = (record.line, record.terminated);
            add(queue, line, None, body, t, &record.source);
        }
    }
    queue.push_back(record);
}

/// A [`LineParser`] as an iterator of records.
pub struct Parsed<P>(pub P);

impl<P: LineParser> Iterator for Parsed<P> {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(record) = self.0.parts().1.pop_front() {
                return Some(Ok(record));
            }
            match self.0.parts().0.next_shared() {
                Ok(Some((line, bytes, terminated))) => self.0.line(line, bytes, terminated),
                Ok(None) => {
                    self.0.end();
                    return self.0.parts().1.pop_front().map(Ok);
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// A line as text: borrowed when it is valid UTF-8 (checked with SIMD, the
/// common case on multi-gigabyte logs), else with bad bytes replaced.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Where the first `] ` is in a host log's prefix (`[info] `, `[server] `):
/// `str::find` sets up a substring search on every call, once or twice on
/// every line of the log; a `]` is rare enough to look for alone.
pub(crate) fn close_bracket(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memchr_iter(b']', b).find(|&i| b.get(i + 1) == Some(&b' '))
}

/// Whether a host's text is a JavaScript `JSON.parse` error (V8's words):
/// the host, on the TypeScript SDK, could not parse a line of the server's
/// stdout, and kept the connection. Each is one stray line.
pub fn is_json_parse_error(text: &str) -> bool {
    let text = text.trim_start();
    (text.starts_with("Unexpected token") && text.contains("is not valid JSON"))
        || text.contains(" in JSON at position")
        || text.starts_with("Unexpected end of JSON input")
        || text.starts_with("Unexpected non-whitespace character after JSON")
        || text.starts_with("Bad control character in string literal")
        || text.starts_with("Unterminated string in JSON")
}

/// A host's ZodError dump (`[ { "code": "invalid_union", ..., "message":
/// "Invalid input: expected \"2.0\"" } ]`, one text or a block of lines):
/// its issues summarised (`jsonrpc: Invalid input: expected "2.0"`), or
/// `None` when the text is not one. The dump is the host's schema
/// rejecting a stdout line that is JSON but not a JSON-RPC message.
pub fn zod_rejection(text: &str) -> Option<String> {
    let text = text.trim();
    if !text.starts_with('[') || !text.contains("\"code\"") {
        return None;
    }
    let summary = |issues: &[serde_json::Value]| {
        let said: Vec<String> = issues
            .iter()
            .take(3)
            .filter_map(|i| {
                let message = i.get("message")?.as_str()?;
                let path: Vec<String> = i
                    .get("path")
                    .and_then(serde_json::Value::as_array)
                    .map(|p| {
                        p.iter()
                            .map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                Some(if path.is_empty() {
                    message.to_string()
                } else {
                    format!("{}: {message}", path.join("."))
                })
            })
            .collect();
        said.join("; ")
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Array(issues)) => Some(summary(&issues)),
        // A block cut short, or with the host's own tail: its first
        // `"message"` is what it says.
        _ => Some(
            text.split("\"message\":")
                .nth(1)
                .and_then(|m| m.trim_start().strip_prefix('"'))
                .and_then(|m| m.split('"').next())
                .unwrap_or("")
                .to_string(),
        ),
    }
}

/// A name from a host's log (a tool, a server), bounded for the tables:
/// its first 240 characters.
pub fn cap_name(s: &str) -> Box<str> {
    const MAX: usize = 240;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => s[..i].into(),
        None => s.into(),
    }
}

/// The tool calls a host logs as events (`Calling tool 'T'`, then `T`
/// completed or failed), numbered by the reader and paired per tool in
/// order: what Claude Code's and Cursor's readers rebuild messages from.
/// Bounded: past [`ToolCalls::OPEN_MAX`] open calls the oldest of some
/// tool is forgotten.
#[derive(Debug, Default)]
pub struct ToolCalls {
    next: u64,
    open: std::collections::HashMap<Box<str>, VecDeque<u64>>,
    count: usize,
}

impl ToolCalls {
    /// Calls open at once before the oldest is forgotten.
    pub const OPEN_MAX: usize = 20_000;

    /// A call of `tool` starts: its `tools/call` request, with the next id.
    pub fn start(&mut self, tool: &str) -> Body {
        self.next += 1;
        let id = self.next;
        if self.count >= Self::OPEN_MAX {
            if let Some(q) = self.open.values_mut().find(|q| !q.is_empty()) {
                q.pop_front();
                self.count -= 1;
            }
        }
        let tool = cap_name(tool);
        let json = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": &*tool},
        });
        self.open.entry(tool).or_default().push_back(id);
        self.count += 1;
        ToolCalls::message(json)
    }

    /// The oldest open call of `tool` ends: its id, if one is open.
    pub fn finish(&mut self, tool: &str) -> Option<u64> {
        // Kept by its capped name, as `start` keeps it.
        let tool = cap_name(tool);
        let queue = self.open.get_mut(&tool)?;
        let id = queue.pop_front()?;
        if queue.is_empty() {
            self.open.remove(&tool);
        }
        self.count -= 1;
        Some(id)
    }

    /// A message rebuilt from the host's events (`method` set: the client's).
    pub fn message(json: serde_json::Value) -> Body {
        let dir = if json.get("method").is_some() {
            Dir::ClientToServer
        } else {
            Dir::ServerToClient
        };
        Body::Partial {
            dir,
            json: json.to_string().into_bytes(),
            why: PartialWhy::HostEvents,
        }
    }
}

/// An `[error]` record of a host log that opened with `[` and the
/// unprefixed lines after it, gathered until a line that starts with `]`:
/// perhaps a ZodError dump (Claude Desktop, Cursor), the host's schema
/// rejecting a stdout line that is JSON but not JSON-RPC. Bounded: at most
/// [`ErrorBlock::LINES_MAX`] lines and about [`ErrorBlock::BYTES_MAX`] bytes.
#[derive(Debug)]
pub struct ErrorBlock {
    pub line: u64,
    pub time: Option<Timestamp>,
    pub source: Option<Source>,
    pub terminated: bool,
    /// The lines after the opening `[`, with their numbers.
    pub lines: Vec<(u64, String)>,
    bytes: usize,
}

impl ErrorBlock {
    /// Lines gathered at most; the block is judged when it reaches them.
    pub const LINES_MAX: usize = 2_000;
    /// Bytes gathered at most (a line may be long): judged past them too.
    pub const BYTES_MAX: usize = 1 << 20;

    pub fn new(line: u64, time: Option<Timestamp>, source: Option<Source>, t: bool) -> ErrorBlock {
        ErrorBlock {
            line,
            time,
            source,
            terminated: t,
            lines: Vec::new(),
            bytes: 0,
        }
    }

    /// Takes the next unprefixed line; true when the block is complete (its
    /// `]`, or the bound).
    pub fn push(&mut self, line: u64, text: &str) -> bool {
        self.bytes += text.len();
        self.lines.push((line, text.to_string()));
        text.starts_with(']')
            || self.lines.len() >= Self::LINES_MAX
            || self.bytes >= Self::BYTES_MAX
    }

    /// A ZodError dump: one `HostRejected` record at the block's first line;
    /// anything else: the lines back, for the reader to read as it reads
    /// unprefixed lines.
    pub fn finish(self) -> Result<Record, ErrorBlock> {
        let mut text = String::from("[");
        for (_, line) in &self.lines {
            text.push('\n');
            // The closing line may carry the host's metadata tail.
            let line = line
                .strip_suffix(" { metadata: undefined }")
                .unwrap_or(line);
            text.push_str(line);
        }
        match zod_rejection(&text) {
            Some(said) => Ok(Record::new(
                self.line,
                self.time,
                Body::HostRejected(said),
                self.terminated,
                self.source,
            )),
            None => Err(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_parse_errors_and_zod_dumps() {
        for text in [
            "Unexpected token 'L', \"Loading in\"... is not valid JSON",
            "Expected ',' or '}' after property value in JSON at position 12",
            "Unexpected end of JSON input",
            "Unexpected non-whitespace character after JSON at position 2",
        ] {
            assert!(is_json_parse_error(text), "{text}");
        }
        assert!(!is_json_parse_error("spawn notes-mcp ENOENT"));
        assert!(!is_json_parse_error("MCP error -32000: Connection closed"));
        let dump = "[\n  {\n    \"code\": \"invalid_union\",\n    \"path\": [\"jsonrpc\"],\n    \"message\": \"Invalid input: expected \\\"2.0\\\"\"\n  }\n]";
        assert_eq!(
            zod_rejection(dump).as_deref(),
            Some("jsonrpc: Invalid input: expected \"2.0\"")
        );
        // Cut short: the first message is what it says.
        assert_eq!(
            zod_rejection("[ { \"code\": \"invalid_type\", \"message\": \"Required\"").as_deref(),
            Some("Required")
        );
        assert_eq!(zod_rejection("[1, 2]"), None);
        assert_eq!(zod_rejection("Connection closed"), None);
    }

    #[test]
    fn a_prefix_bracket_closes_at_the_first_bracket_and_space() {
        assert_eq!(close_bracket("info] [server] x"), Some(4));
        assert_eq!(close_bracket("a]b] c"), Some(3));
        assert_eq!(close_bracket("a] "), Some(1));
        assert_eq!(close_bracket("a]"), None);
        assert_eq!(close_bracket("info [x"), None);
        assert_eq!(close_bracket(""), None);
    }
}
