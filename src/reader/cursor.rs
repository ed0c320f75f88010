//! Cursor's MCP logs: the per-server `logs/<ts>/mcp-server-user-<name>.log`
//! (2026; no tag) and the older shared files (`MCP Logs.log`, `Cursor
//! MCP.log`) whose lines carry a tag, `user-<name>: ` or (early 2025) the
//! last four characters of the server's name.
//!
//! Lines are VS Code's log channel format (`YYYY-MM-DD HH:MM:SS.mmm [level]
//! TEXT`, local time). Cursor logs no MCP messages: its lifecycle lines,
//! each chunk of the server's stderr at `[error]` (a multi-line chunk goes
//! on over unprefixed lines), and stray stdout as the host's JSON parse
//! error: `Client error for command Unexpected token 'S', "Starting MCP
//! server" is not valid JSON` (the first characters of the line).

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, ErrorBlock, Record, ToolCalls};
use crate::wire::dir::Dir;
use crate::wire::event::{Ending, Event, EventKind};

/// Cursor's own words, which tell its log from VS Code's.
const CURSOR_WORDS: [&str; 5] = [
    "stdio process with command",
    "Client error for command",
    "connected to stdio server",
    "CreateClient",
    "Client closed for command",
];

/// The tag of a line, if any: `user-<name>`, or a four-character suffix
/// that came with one of Cursor's words (then `known` keeps it, so that
/// the server's stderr under the same tag is read as that server's).
fn tag<'a>(
    message: &'a str,
    known: &mut std::collections::HashSet<Box<str>>,
) -> (Option<&'a str>, &'a str) {
    if let Some(rest) = message.strip_prefix("user-") {
        if let Some((name, text)) = rest.split_once(": ") {
            if !name.contains(' ') {
                return (Some(&message[..5 + name.len()]), text);
            }
        }
    }
    // Early 2025: `arch: Starting new stdio process ...`.
    if let Some((name, text)) = message.split_once(": ") {
        if name.chars().count() == 4 && !name.contains(' ') {
            if known.contains(name) {
                return (Some(name), text);
            }
            if CURSOR_WORDS.iter().any(|w| text.contains(w)) {
                if known.len() < MARKED_MAX {
                    known.insert(name.into());
                }
                return (Some(name), text);
            }
        }
    }
    (None, message)
}

/// Whether a line is Cursor's (for detection): the log channel prefix with
/// one of Cursor's own texts or tags.
pub fn matches(line: &str) -> bool {
    super::vscode::prefix(line).is_some_and(|(_, message)| {
        CURSOR_WORDS.iter().any(|w| message.contains(w)) || message.starts_with("user-")
    })
}

/// VS Code's own texts, which Cursor's logs never hold.
const VSCODE_WORDS: [&str; 5] = [
    "[editor -> server]",
    "[server -> editor]",
    "[server stderr]",
    "Connection state:",
    "Failed to parse message:",
];

/// Whether a prefix that reads as VS Code's log is Cursor's: a line with
/// Cursor's words and none with VS Code's (the whole bounded prefix, not
/// only its first lines, which may all be stderr).
pub fn decides(prefix: &[u8]) -> bool {
    let mut cursor = false;
    for line in prefix.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if VSCODE_WORDS.iter().any(|w| text.contains(w)) {
            return false;
        }
        cursor |= matches(&text);
    }
    cursor
}

/// Reads a Cursor MCP log.
pub struct CursorReader {
    lines: Lines,
    queue: VecDeque<Record>,
    /// The previous record was stderr of this source: unprefixed lines
    /// continue it.
    in_stderr: Option<Option<super::record::Source>>,
    /// Sessions that had their note and mark; bounded.
    marked: std::collections::HashSet<Option<super::record::Source>>,
    /// Sessions known to have connected (a later client error is an end,
    /// not a start failure); bounded with `marked`.
    connected: std::collections::HashSet<Option<super::record::Source>>,
    /// Early 2025's four-character tags seen with Cursor's words; bounded.
    tags: std::collections::HashSet<Box<str>>,
    /// The tool calls open, per session; bounded with `marked`.
    calls: std::collections::HashMap<Option<super::record::Source>, ToolCalls>,
    /// An `[error]` record that opened with `[`: the lines of what may be a
    /// ZodError dump, gathered until its `]`.
    block: Option<ErrorBlock>,
}

/// How many sessions `connected` and the tags remember.
const MARKED_MAX: usize = super::record::SEEN_MAX;

impl CursorReader {
    pub fn new(lines: Lines) -> CursorReader {
        CursorReader {
            lines,
            queue: VecDeque::new(),
            in_stderr: None,
            marked: Default::default(),
            connected: Default::default(),
            tags: Default::default(),
            calls: Default::default(),
            block: None,
        }
    }

    /// The gathered `[error]` block: a ZodError dump is one stdout line
    /// the host rejected (one finding at its first line); anything else is
    /// the server's stderr, line by line.
    fn flush_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        let block = match block.finish() {
            Ok(rejected) => return self.push(rejected),
            Err(block) => block,
        };
        // Not a dump: the `[` and the lines after it are the server's stderr.
        let first = std::iter::once((block.line, "[".to_string()));
        for (i, (line, text)) in first.chain(block.lines).enumerate() {
            let time = if i == 0 { block.time.clone() } else { None };
            self.push(Record::new(
                line,
                time,
                Body::Line {
                    dir: Dir::Stderr,
                    bytes: text.into_bytes().into(),
                },
                block.terminated,
                block.source.clone(),
            ));
        }
    }

    /// Queues `record`, after this format's notes the first time its
    /// server is seen.
    fn push(&mut self, record: Record) {
        let notes = || {
            [
                Body::Note("Cursor logs no MCP messages: its lifecycle, its tool calls, the server's stderr and its own parse errors for stray stdout; each `Calling tool` is shown as a `tools/call` request with an id mcpdbg numbers, answered by `Successfully called tool` (calls to the same tool pair in order; a failed call is not logged, so it stays open); times are local without a zone; no handshake, id, envelope or content rule can be judged".into()),
                Body::Event(Event::no_handshake("Cursor's log of a server")),
            ]
        };
        super::record::add_noted(&mut self.queue, &mut self.marked, notes, record);
    }

    fn read(&mut self, line_no: u64, bytes: &[u8], t: bool) {
        let text = super::record::text(bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let Some((time, message)) = super::vscode::prefix(text) else {
            // An unprefixed line: more of a block being gathered, or of a
            // stderr chunk, else skipped.
            if let Some(block) = &mut self.block {
                if block.push(line_no, text) {
                    self.flush_block();
                }
                return;
            }
            if let Some(source) = self.in_stderr.clone() {
                self.push(Record::new(
                    line_no,
                    None,
                    Body::Line {
                        dir: Dir::Stderr,
                        bytes: text.as_bytes().to_vec().into(),
                    },
                    t,
                    source,
                ));
            }
            return;
        };
        self.flush_block();
        self.in_stderr = None;
        let level = text
            .get(25..)
            .and_then(|r| r.split_once(']'))
            .map_or("", |(l, _)| l);
        let (tag, body) = tag(message, &mut self.tags);
        let source: Option<super::record::Source> = tag.map(Into::into);
        let record = if let Some(what) = body.strip_prefix("Client error for command ") {
            if super::record::is_json_parse_error(what) {
                Body::HostParseError(what.to_string())
            } else if self.connected.contains(&source) {
                Body::Event(Event::host_end(body, Ending::Closed))
            } else {
                Body::Event(Event::start_failed(body))
            }
        } else if body.starts_with("Starting new stdio process") {
            self.connected.remove(&source);
            self.calls.remove(&source);
            Body::Event(Event::host_start(body))
        } else if let Some(tool) = quoted(body, "Calling tool '") {
            if !self.calls.contains_key(&source) && self.calls.len() >= MARKED_MAX {
                Body::Event(Event::host(body))
            } else {
                self.calls.entry(source.clone()).or_default().start(tool)
            }
        } else if let Some(tool) = quoted(body, "Successfully called tool '") {
            match self.calls.get_mut(&source).and_then(|c| c.finish(tool)) {
                Some(id) => ToolCalls::message(serde_json::json!({
                    "jsonrpc": "2.0", "id": id, "result": {},
                })),
                None => Body::Event(Event::host(format!(
                    "{body} (no call of this tool is open)"
                ))),
            }
        } else if body.starts_with("Error in MCP:") {
            Body::Event(Event::host(body))
        } else if body.contains("connected to stdio server") {
            if self.connected.len() < MARKED_MAX {
                self.connected.insert(source.clone());
            }
            Body::Event(Event::host(body))
        } else if body.starts_with("Client closed for command") {
            // The server's process went away (the SDK's transport closed):
            // with a call open, the server died with it.
            Body::Event(Event::host_end(body, Ending::Lost))
        } else if body.contains("exited") {
            Body::Event(Event::host_end(body, Ending::Exited(None)))
        } else if level == "error" && body.trim() == "[" {
            // Perhaps a ZodError dump over the next lines: gathered first.
            self.block = Some(ErrorBlock::new(line_no, Some(time), source, t));
            return;
        } else if level == "error" {
            self.in_stderr = Some(source.clone());
            Body::Line {
                dir: Dir::Stderr,
                bytes: body.as_bytes().to_vec().into(),
            }
        } else {
            Body::Event(Event::host(body))
        };
        let restart = matches!(&record, Body::Event(e) if e.kind == EventKind::Start)
            && self.marked.contains(&source);
        self.push(Record::new(
            line_no,
            Some(time.clone()),
            record,
            t,
            source.clone(),
        ));
        if restart {
            // A new session of a server seen before: it too has no handshake.
            let mark = Body::Event(Event::no_handshake("Cursor's log of a server"));
            self.push(Record::new(line_no, Some(time), mark, t, source));
        }
    }
}

/// The name between `prefix` and the next `'` in a host's text (`Calling
/// tool 'search' with ...` -> `search`).
fn quoted<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('\'')?])
}

super::record::line_parser!(CursorReader, end: |reader| { reader.flush_block() });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_detection() {
        let mut known = Default::default();
        assert_eq!(
            tag("user-wirewiki: Client error for command x", &mut known),
            (Some("user-wirewiki"), "Client error for command x")
        );
        assert_eq!(tag("Error: x", &mut known), (None, "Error: x"));
        assert_eq!(
            tag(
                "arch: Starting new stdio process with command: npx",
                &mut known
            ),
            (Some("arch"), "Starting new stdio process with command: npx")
        );
        assert_eq!(
            tag("arch: Error: x", &mut known),
            (Some("arch"), "Error: x")
        );
        assert_eq!(
            tag("Successfully connected to stdio server", &mut known),
            (None, "Successfully connected to stdio server")
        );
        assert!(matches(
            "2025-11-05 09:59:50.750 [info] Successfully connected to stdio server"
        ));
        assert!(!matches(
            "2026-10-05 09:49:21.376 [info] Connection state: Running"
        ));
    }
}
