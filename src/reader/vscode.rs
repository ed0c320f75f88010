//! VS Code's MCP output log (`mcpServer.<id>.log`, the "MCP: NAME" channel).
//!
//! Lines are `YYYY-MM-DD HH:MM:SS.mmm [LEVEL] MSG` in local time without a
//! zone. Traffic is `[editor -> server] JSON` and `[server -> editor] JSON`
//! (logged at Debug, so the channel's level must be raised), stderr is
//! `[server stderr] TEXT`, and a line of stdout that was not JSON is quoted as
//! a JSON string in `Failed to parse message: "LINE\n"`. Unprefixed lines
//! continue the previous message and are skipped.

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// `2026-10-05 09:49:21.376 [debug] ` -> time and message.
pub(super) fn prefix(line: &str) -> Option<(Timestamp, &str)> {
    let stamp = line.get(..23)?;
    let b = stamp.as_bytes();
    if b[4] != b'-' || b[10] != b' ' || b[19] != b'.' {
        return None;
    }
    let rest = line.get(24..)?.strip_prefix('[')?;
    let end = super::record::close_bracket(rest)?;
    if !matches!(
        &rest[..end],
        "trace" | "debug" | "info" | "warning" | "error"
    ) {
        return None;
    }
    Some((Timestamp::parse_local(stamp)?, &rest[end + 2..]))
}

/// Whether a line starts like VS Code's log (for format detection).
pub fn matches(line: &str) -> bool {
    prefix(line).is_some()
}

/// Reads VS Code's MCP log.
pub struct VsCodeReader {
    lines: Lines,
    queue: VecDeque<Record>,
    noted: bool,
}

impl VsCodeReader {
    pub fn new(lines: Lines) -> VsCodeReader {
        VsCodeReader {
            lines,
            queue: VecDeque::new(),
            noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &LineBytes, terminated: bool) {
        let text = super::record::text(bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let Some((time, message)) = prefix(text) else {
            return; // the continuation of a multi-line message
        };
        let record = |time: Option<Timestamp>, body: Body| {
            Record::new(line_no, time, body, terminated, None)
        };
        if !self.noted {
            self.noted = true;
            self.queue.push_back(record(
                None,
                Body::Note(
                    "times are local without a zone (compared within this log only); the host logs re-serialised JSON, so CRLF, BOM and blank-line rules cannot be judged"
                        .into(),
                ),
            ));
        }
        let body = if let Some(json) = message.strip_prefix("[editor -> server] ") {
            Body::Line {
                dir: Dir::ClientToServer,
                bytes: bytes.part(json.as_bytes()),
            }
        } else if let Some(json) = message.strip_prefix("[server -> editor] ") {
            Body::Line {
                dir: Dir::ServerToClient,
                bytes: bytes.part(json.as_bytes()),
            }
        } else if let Some(line) = message.strip_prefix("[server stderr] ") {
            Body::Line {
                dir: Dir::Stderr,
                bytes: line.as_bytes().to_vec().into(),
            }
        } else if let Some(quoted) = message.strip_prefix("Failed to parse message: ") {
            // The stray line itself, as a JSON string literal.
            match serde_json::from_str::<String>(quoted) {
                Ok(line) => Body::Line {
                    dir: Dir::ServerToClient,
                    bytes: line
                        .strip_suffix('\n')
                        .unwrap_or(&line)
                        .as_bytes()
                        .to_vec()
                        .into(),
                },
                Err(_) => Body::HostParseError(message.to_string()),
            }
        } else {
            Body::Event(Event::host(message))
        };
        self.queue.push_back(record(Some(time), body));
    }
}

super::record::line_parser!(VsCodeReader);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert!(matches(
            "2026-10-05 09:49:21.377 [debug] [editor -> server] {}"
        ));
        assert!(matches(
            "2026-02-16 12:29:51.190 [warning] [server stderr] Traceback"
        ));
        assert!(!matches("2026-10-05T09:49:21.377Z [debug] x"));
        assert!(!matches("  File \"x.py\", line 3"));
    }
}
