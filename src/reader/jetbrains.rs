//! JetBrains IDEs' per-server MCP log (`<IDE log dir>/mcp/<server>.log`).
//!
//! Lines are `YYYY-MM-DD hh:mm:ss,mmm TAG - TEXT` in local time without a
//! zone. `CLIENT` carries the JSON the IDE sent (re-serialised by the IDE),
//! `SERVER` one line of the server's stdout exactly as read, so a line there
//! that is not JSON is stray stdout. `INFO` and any other tag are the IDE's
//! own words. Unprefixed lines continue the previous entry and are skipped.

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Body, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// The tags that make a line JetBrains' for detection (others are read
/// as host notes once the format is known).
const TAGS: [&str; 3] = ["CLIENT", "SERVER", "INFO"];

/// `2026-11-03 10:00:00,120 TAG - ` -> time, tag and text.
fn prefix(line: &str) -> Option<(Timestamp, &str, &str)> {
    let stamp = line.get(..23)?;
    let b = stamp.as_bytes();
    if b[4] != b'-' || b[7] != b'-' || b[10] != b' ' || b[13] != b':' || b[19] != b',' {
        return None;
    }
    let rest = line.get(23..)?.strip_prefix(' ')?;
    let end = rest.find(" - ").or_else(|| {
        // An empty text: `TAG -` at the end of the line.
        rest.strip_suffix(" -").map(str::len)
    })?;
    let tag = &rest[..end];
    if tag.is_empty() || tag.len() > 16 || !tag.bytes().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let text = rest.get(end + 3..).unwrap_or("");
    // chrono reads `,` as no fraction separator: give it a `.`.
    let dotted = format!("{}.{}", &stamp[..19], &stamp[20..]);
    let mut time = Timestamp::parse_local(&dotted)?;
    time.text = stamp.into();
    Some((time, tag, text))
}

/// Whether a line starts like JetBrains' MCP log (for format detection).
pub fn matches(line: &str) -> bool {
    prefix(line).is_some_and(|(_, tag, _)| TAGS.contains(&tag))
}

/// Reads a JetBrains MCP log.
pub struct JetBrainsReader {
    lines: Lines,
    queue: VecDeque<Record>,
    noted: bool,
}

impl JetBrainsReader {
    pub fn new(lines: Lines) -> JetBrainsReader {
        JetBrainsReader {
            lines,
            queue: VecDeque::new(),
            noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &LineBytes, terminated: bool) {
        let text = super::record::text(bytes);
        let Some((time, tag, message)) = prefix(&text) else {
            return; // the continuation of a multi-line entry
        };
        let record = |time: Option<Timestamp>, body: Body| {
            Record::new(line_no, time, body, terminated, None)
        };
        if !self.noted {
            self.noted = true;
            self.queue.push_back(record(
                None,
                Body::Note(
                    "times are local without a zone (compared within this log only); the IDE logs the JSON it sent re-serialised, so client-side CRLF, BOM and blank-line rules cannot be judged (the server's lines are as read)"
                        .into(),
                ),
            ));
        }
        let body = match tag {
            "CLIENT" => Body::Line {
                dir: Dir::ClientToServer,
                bytes: bytes.part(message.trim_end_matches('\r').as_bytes()),
            },
            // The server's line as read: a `\r` the server wrote is kept.
            "SERVER" => Body::Line {
                dir: Dir::ServerToClient,
                bytes: bytes.part(message.as_bytes()),
            },
            "INFO" => Body::Event(Event::host(message.trim_end_matches('\r'))),
            other => Body::Event(Event::host(format!(
                "{other}: {}",
                message.trim_end_matches('\r')
            ))),
        };
        self.queue.push_back(record(Some(time), body));
    }
}

super::record::line_parser!(JetBrainsReader);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert!(matches(
            "2026-11-03 10:00:00,131 CLIENT - {\"id\":1,\"method\":\"tools/list\"}"
        ));
        assert!(matches("2026-11-03 10:00:00,398 SERVER - Loading index"));
        assert!(matches(
            "2026-11-03 10:00:00,120 INFO - Starting MCP server"
        ));
        // Other tags are read, but do not make a file JetBrains'.
        assert!(!matches("2026-11-03 10:00:00,120 WARN - x"));
        assert!(prefix("2026-11-03 10:00:00,120 WARN - x").is_some());
        // Python's logging without ` - ` and VS Code's log are not this.
        assert!(!matches(
            "2025-11-13 15:00:40,151 INFO Successfully connected"
        ));
        assert!(!matches(
            "2026-10-05 09:49:21.376 [info] Connection state: Running"
        ));
        assert!(!matches("2026-11-03 10:00:00,120 info - lower case"));
        let (time, tag, text) = prefix("2026-11-03 10:00:00,120 SERVER - ").expect("empty");
        assert_eq!(
            (&*time.text, tag, text),
            ("2026-11-03 10:00:00,120", "SERVER", "")
        );
    }
}
