//! Zed's `Zed.log` and its in-app RPC view.
//!
//! `Zed.log` lines are `2026-09-19T23:48:16+07:00 TRACE [target] text` (local
//! time with its offset, a five-wide level). Traffic is `outgoing message:
//! JSON` and `recv: JSON` at TRACE, stderr `context server stderr: TEXT` at
//! DEBUG; Zed logs every outgoing message twice (client and transport), so
//! the second copy is dropped. The RPC view that people copy from the app
//! is blocks of pretty-printed JSON after `// Send:` and `// Receive:` lines,
//! with no times.

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, LineParser, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// `2026-09-19T23:48:16+07:00 TRACE [target] ` -> time, target, text.
fn prefix(line: &str) -> Option<(Timestamp, &str, &str)> {
    let (stamp, rest) = line.split_once(' ')?;
    if stamp.len() < 20 || !stamp.contains('T') {
        return None;
    }
    let time = Timestamp::parse(stamp)?;
    let level = rest.get(..5)?;
    if !matches!(level, "TRACE" | "DEBUG" | "INFO " | "WARN " | "ERROR") {
        return None;
    }
    let rest = rest.get(5..)?.trim_start().strip_prefix('[')?;
    let (target, text) = rest.split_once("] ")?;
    Some((time, target, text))
}

/// Whether a line starts like `Zed.log` (for format detection).
pub fn matches_log(line: &str) -> bool {
    prefix(line).is_some()
}

/// Whether a line is a marker of the RPC view (for format detection).
pub fn matches_rpc(line: &str) -> bool {
    let t = line.trim();
    t == "// Send:" || t == "// Receive:"
}

/// Reads `Zed.log`.
pub struct ZedLogReader {
    lines: Lines,
    queue: VecDeque<Record>,
    last_outgoing: Option<String>,
    noted: bool,
}

impl ZedLogReader {
    pub fn new(lines: Lines) -> ZedLogReader {
        ZedLogReader {
            lines,
            queue: VecDeque::new(),
            last_outgoing: None,
            noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &LineBytes, terminated: bool) {
        let text = super::record::text(bytes);
        let Some((time, target, message)) = prefix(text.trim_end_matches('\r')) else {
            return; // a wrapped continuation, or the blank line after `recv:`
        };
        let record = |body: Body, time: Option<Timestamp>| {
            Record::new(line_no, time, body, terminated, None)
        };
        let body = if let Some(json) = message.strip_prefix("outgoing message: ") {
            // The same message logged by the client and by the transport.
            if self.last_outgoing.as_deref() == Some(json) {
                self.last_outgoing = None;
                return;
            }
            self.last_outgoing = Some(json.to_string());
            Body::Line {
                dir: Dir::ClientToServer,
                bytes: bytes.part(json.as_bytes()),
            }
        } else if let Some(json) = message
            .strip_prefix("recv: ")
            .or_else(|| message.strip_prefix("Unhandled JSON from context_server: "))
        {
            Body::Line {
                dir: Dir::ServerToClient,
                bytes: bytes.part(json.as_bytes()),
            }
        } else if let Some(err) = message.strip_prefix("context server stderr: ") {
            Body::Line {
                dir: Dir::Stderr,
                bytes: err.as_bytes().to_vec().into(),
            }
        } else if target.starts_with("context_server") || target.contains("context_server") {
            Body::Event(Event::host(message))
        } else {
            return; // the rest of Zed's log is about other things
        };
        if !self.noted {
            self.noted = true;
            self.queue.push_back(record(
                Body::Note("Zed logs payloads as it sent and received them, at TRACE level only; other log lines are skipped".into()),
                None,
            ));
        }
        self.queue.push_back(record(body, Some(time)));
    }
}

super::record::line_parser!(ZedLogReader);

/// Reads the RPC view: pretty-printed messages between markers.
pub struct ZedRpcReader {
    lines: Lines,
    queue: VecDeque<Record>,
    /// The block being read: its direction, first line and text.
    block: Option<(Dir, u64, String)>,
    noted: bool,
}

impl ZedRpcReader {
    pub fn new(lines: Lines) -> ZedRpcReader {
        ZedRpcReader {
            lines,
            queue: VecDeque::new(),
            block: None,
            noted: false,
        }
    }

    fn flush(&mut self) {
        let Some((dir, line, text)) = self.block.take() else {
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        if !self.noted {
            self.noted = true;
            self.queue.push_back(Record::new(line, None, Body::Note(
                    "Zed's RPC view pretty-prints messages and has no times: messages are re-serialised, framing rules cannot be judged, and latencies are unknown".into(),
                ), true, None));
        }
        // Re-serialise compactly: the view's layout is Zed's, not the wire's.
        // Its whitespace taken out, not rebuilt as a tree: a structured
        // message costs about its size.
        let bytes = match serde_json::from_str::<&serde_json::value::RawValue>(&text) {
            Ok(raw) => super::shallow::minify(raw.get()),
            Err(_) => text.into_bytes(),
        };
        self.queue.push_back(Record::new(
            line,
            None,
            Body::Line {
                dir,
                bytes: bytes.into(),
            },
            true,
            None,
        ));
    }

    fn read(&mut self, line_no: u64, bytes: &[u8]) {
        let text = super::record::text(bytes);
        let dir = match text.trim() {
            "// Send:" => Some(Dir::ClientToServer),
            "// Receive:" => Some(Dir::ServerToClient),
            _ => None,
        };
        match (dir, self.block.as_mut()) {
            (Some(dir), _) => {
                self.flush();
                self.block = Some((dir, line_no + 1, String::new()));
            }
            (None, Some((_, _, block))) => {
                block.push_str(&text);
                block.push('\n');
            }
            (None, None) => {}
        }
    }
}

impl LineParser for ZedRpcReader {
    fn parts(&mut self) -> (&mut Lines, &mut VecDeque<Record>) {
        (&mut self.lines, &mut self.queue)
    }

    fn line(&mut self, line: u64, bytes: LineBytes, terminated: bool) {
        let _ = terminated;
        self.read(line, &bytes)
    }

    fn end(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert!(matches_log(
            "2026-09-19T23:48:16+07:00 TRACE [context_server::client] outgoing message: {}"
        ));
        assert!(matches_log(
            "2026-07-04T00:19:33-06:00 ERROR [crates/context_server/src/transport/stdio_transport.rs:58] Broken pipe (os error 32)"
        ));
        assert!(!matches_log("2026-09-19T23:48:16Z > {}"));
        assert!(matches_rpc("// Send:"));
        assert!(matches_rpc("  // Receive:  "));
    }
}
