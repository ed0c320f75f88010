//! OpenAI Codex CLI's `codex-tui.log` (`tracing` fmt lines:
//! `TS LEVEL [SPANS: ]TARGET: MESSAGE [FIELD=VALUE ...]`, RFC 3339 UTC with
//! microseconds, the level right-aligned to five columns).
//!
//! Codex logs no MCP messages; what it logs of its servers is each stderr
//! line (`MCP server stderr (<program>): <line>`, one session per program)
//! and start failures (``MCP client for `<name>` failed to start: <error>``,
//! in the session of that name). Everything else is Codex's own and skipped.
//! The message is matched, not the target: module paths change.

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::time::Timestamp;

/// `TS  LEVEL ` -> time, level and the rest (`[spans: ]target: message`).
fn prefix(line: &str) -> Option<(Timestamp, &str, &str)> {
    let space = line.find(' ')?;
    let stamp = &line[..space];
    if !stamp.ends_with('Z') || stamp.as_bytes().get(10) != Some(&b'T') {
        return None;
    }
    let time = Timestamp::parse(stamp)?;
    let rest = line[space..].trim_start();
    let (level, rest) = rest.split_once(' ')?;
    if !matches!(level, "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR") {
        return None;
    }
    Some((time, level, rest))
}

/// The message after `[spans: ]target: `: the first `: ` after a token
/// without spaces that looks like a module path.
fn message(rest: &str) -> &str {
    if let Some(i) = rest.find("MCP ") {
        return &rest[i..];
    }
    rest.split_once(": ").map_or(rest, |(_, m)| m)
}

/// Whether a line is Codex's (for detection): a tracing line whose target
/// is Codex's, or whose message is one of Codex's MCP texts. A server's own
/// tracing lines on stderr in another host's log are not counted.
pub fn matches(line: &str) -> bool {
    let Some((_, _, rest)) = prefix(line) else {
        return false;
    };
    rest.starts_with("codex")
        || rest.contains("MCP server stderr (")
        || rest.contains("MCP client for `")
}

/// Reads `codex-tui.log`.
pub struct CodexReader {
    lines: Lines,
    queue: VecDeque<Record>,
    /// The program of the last stderr line (for the over-limit line, which
    /// names none).
    last_program: Option<super::record::Source>,
    /// Sessions that have had their note and mark; bounded.
    marked: std::collections::HashSet<Option<super::record::Source>>,
}

/// A name from the log, bounded.
fn cap(s: &str) -> super::record::Source {
    const MAX: usize = 240;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => s[..i].into(),
        None => s.into(),
    }
}

impl CodexReader {
    pub fn new(lines: Lines) -> CodexReader {
        CodexReader {
            lines,
            queue: VecDeque::new(),
            last_program: None,
            marked: Default::default(),
        }
    }

    /// Queues `record`, after this format's notes the first time its
    /// server is seen.
    fn push(&mut self, record: Record) {
        if record.source.is_none() {
            self.queue.push_back(record);
            return;
        }
        let notes = || {
            [
                Body::Note("Codex CLI logs no MCP messages: only each server's stderr (by program) and start failures (by server name); no message, pairing or handshake rule can be judged".into()),
                Body::Event(Event::no_handshake("Codex's log of a server")),
            ]
        };
        super::record::add_noted(&mut self.queue, &mut self.marked, notes, record);
    }

    fn read(&mut self, line_no: u64, bytes: &[u8], t: bool) {
        let text = super::record::text(bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let unreadable = |reader: &mut CodexReader| {
            reader.queue.push_back(Record::new(
                line_no,
                None,
                Body::Unreadable(bytes.to_vec()),
                t,
                None,
            ))
        };
        let Some((time, _level, rest)) = prefix(text) else {
            // A continuation or not Codex's; a broken line of its MCP texts
            // is said.
            if text.contains("MCP server stderr (") || text.contains("MCP client for `") {
                unreadable(self);
            }
            return;
        };
        let message = message(rest);
        if let Some(after) = message.strip_prefix("MCP server stderr (") {
            let Some((program, line)) = after
                .split_once("): ")
                .or_else(|| after.strip_suffix("):").map(|p| (p, "")))
            else {
                unreadable(self);
                return;
            };
            let program = cap(program);
            self.last_program = Some(program.clone());
            self.push(Record::new(
                line_no,
                Some(time),
                Body::Line {
                    dir: Dir::Stderr,
                    bytes: line.as_bytes().to_vec().into(),
                },
                t,
                Some(program),
            ));
        } else if message.starts_with("MCP server stderr line exceeded limit") {
            let source = self.last_program.clone();
            self.push(Record::new(
                line_no,
                Some(time),
                Body::Event(Event::host(message)),
                t,
                source,
            ));
        } else if let Some(after) = message.strip_prefix("MCP client for `") {
            let Some((name, what)) = after.split_once('`') else {
                unreadable(self);
                return;
            };
            let event = if what.trim_start().starts_with("failed to start") {
                Event::start_failed(message)
            } else {
                Event::host(message)
            };
            self.push(Record::new(
                line_no,
                Some(time),
                Body::Event(event),
                t,
                Some(cap(name)),
            ));
        }
    }
}

super::record::line_parser!(CodexReader);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert!(matches(
            "2026-11-03T10:00:00.120456Z  INFO codex_rmcp_client::stdio_server_launcher: MCP server stderr (notes-server): listening on stdio"
        ));
        assert!(matches(
            "2026-11-03T10:00:00.120456Z ERROR codex_core::mcp: MCP client for `notes` failed to start: program not found"
        ));
        assert!(matches(
            "2026-11-03T10:00:00.120456Z DEBUG codex_tui::app: redraw"
        ));
        // A Rust server's own tracing line on stderr is not Codex's.
        assert!(!matches(
            "2025-03-31T21:30:55.174967Z  INFO server: sending"
        ));
        assert!(!matches(
            "2026-10-05 09:49:21.376 [info] Connection state: Running"
        ));
    }
}
