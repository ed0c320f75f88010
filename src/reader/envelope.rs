//! JSON exports of other MCP tools: mcpsnoop's session log (one envelope per
//! line) and the MCP Inspector's protocol export (one pretty-printed array).
//!
//! mcpsnoop envelopes are `{"session_id", "server_label", "seq", "ts",
//! "direction": "c2s"|"s2c"|"stderr"|"meta", "raw"?: MESSAGE, "text"?: LINE,
//! "truncated"?: bool}`; a line that was not JSON is in `text`. Each session
//! id is its own session. The Inspector's export is an array of `{"id",
//! "timestamp", "direction": "request"|"response"|"notification",
//! "origin"?: "client"|"server", "message", "response"?, "duration"?}` where
//! a request carries its response.

use crate::wire::event::Event;
use std::collections::VecDeque;
use std::io;

use super::claude::rebuild_cut;
use super::lines::Lines;
use super::record::{Body, PartialWhy, Record};
use super::shallow::{self, Fields};
use crate::wire::dir::Dir;
use crate::wire::time::Timestamp;

/// Whether a line is an mcpsnoop envelope (for format detection).
pub fn matches_mcpsnoop(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('{')
        && line.contains("\"seq\"")
        && line.contains("\"direction\"")
        && Fields::parse(line.as_bytes())
            .is_some_and(|v| v.contains("seq") && v.contains("direction") && v.contains("ts"))
}

/// Whether the start of a file looks like an Inspector export.
pub fn matches_inspector(prefix: &str) -> bool {
    prefix.trim_start().starts_with('[')
        && prefix.contains("\"direction\"")
        && prefix.contains("\"message\"")
        && prefix.contains("\"timestamp\"")
}

/// Reads mcpsnoop's JSONL session log.
pub struct McpsnoopReader {
    lines: Lines,
    queue: VecDeque<Record>,
    noted: bool,
}

impl McpsnoopReader {
    pub fn new(lines: Lines) -> McpsnoopReader {
        McpsnoopReader {
            lines,
            queue: VecDeque::new(),
            noted: false,
        }
    }

    fn read(&mut self, line_no: u64, bytes: &[u8], terminated: bool) {
        // The envelope's members as their text: the message is handed on
        // as written, never built into a tree.
        let Some(env) = Fields::parse(bytes) else {
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                self.queue.push_back(Record::new(
                    line_no,
                    None,
                    Body::Unreadable(bytes.to_vec()),
                    terminated,
                    None,
                ));
            }
            return;
        };
        let time = env.str("ts").and_then(|t| Timestamp::parse(&t));
        let source: Option<super::record::Source> = env.str("session_id").map(|id| {
            match env.str("server_label").filter(|l| !l.is_empty()) {
                Some(label) => format!("{label} {id}"),
                None => id.to_string(),
            }
            .into()
        });
        let text = env.str("text");
        let raw = env.raw("raw").filter(|v| v.get() != "null");
        let truncated = env.bool("truncated") == Some(true);
        let dir = match env.str("direction").as_deref() {
            Some("c2s") => Dir::ClientToServer,
            Some("s2c") => Dir::ServerToClient,
            Some("stderr") => Dir::Stderr,
            Some("meta") => {
                let command = raw
                    .and_then(Fields::of)
                    .and_then(|m| m.raw("command"))
                    .and_then(|c| shallow::elements(c.get()))
                    .map(|c| {
                        c.into_iter()
                            .filter_map(shallow::string)
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                self.push(
                    line_no,
                    time,
                    Body::Event(Event::start(&command)),
                    terminated,
                    source,
                );
                return;
            }
            _ => return,
        };
        if !self.noted {
            self.noted = true;
            self.push(
                line_no,
                None,
                Body::Note("mcpsnoop stores messages re-encoded as JSON values, not the bytes on the wire: CRLF, BOM and blank-line rules cannot be judged".into()),
                terminated,
                source.clone(),
            );
        }
        let body = match (raw, text) {
            (Some(raw), _) => Body::Line {
                dir,
                bytes: shallow::minify(raw.get()).into(),
            },
            (None, Some(text)) if truncated && dir != Dir::Stderr => match rebuild_cut(&text) {
                Some(json) => Body::Partial {
                    dir,
                    json: json.into_bytes(),
                    why: PartialWhy::HostTruncated,
                },
                None => return,
            },
            (None, Some(text)) => Body::Line {
                dir,
                bytes: text.as_bytes().to_vec().into(),
            },
            (None, None) => return,
        };
        self.push(line_no, time, body, terminated, source);
    }

    fn push(
        &mut self,
        line: u64,
        time: Option<Timestamp>,
        body: Body,
        terminated: bool,
        source: Option<super::record::Source>,
    ) {
        self.queue
            .push_back(Record::new(line, time, body, terminated, source));
    }
}

super::record::line_parser!(McpsnoopReader);

/// The largest Inspector export read (it is held whole).
const INSPECTOR_MAX: usize = 256 * 1024 * 1024;

/// Reads the MCP Inspector's protocol export.
///
/// The export is held as its text (at most [`INSPECTOR_MAX`]) with where
/// each entry starts and ends; an entry is read when its records are asked
/// for, its members as their text, so the export costs about its size.
pub struct InspectorReader {
    lines: Option<Lines>,
    queue: VecDeque<Record>,
    text: String,
    /// Byte offset of each line of `text`.
    starts: Vec<usize>,
    /// Each entry's byte range in `text`, and the next to read.
    entries: Vec<(usize, usize)>,
    next: usize,
}

impl InspectorReader {
    pub fn new(lines: Lines) -> InspectorReader {
        InspectorReader {
            lines: Some(lines),
            queue: VecDeque::new(),
            text: String::new(),
            starts: Vec::new(),
            entries: Vec::new(),
            next: 0,
        }
    }

    /// Reads the whole export and finds its entries.
    fn load(&mut self, mut lines: Lines) -> io::Result<()> {
        let mut text = String::new();
        let mut starts = Vec::new();
        while let Some((_, bytes, _)) = lines.next_line()? {
            starts.push(text.len());
            text.push_str(&String::from_utf8_lossy(&bytes));
            text.push('\n');
            if text.len() > INSPECTOR_MAX {
                self.record(
                    1,
                    None,
                    Body::Unreadable(
                        b"(the export is larger than 256 MiB and was not read)".to_vec(),
                    ),
                );
                return Ok(());
            }
        }
        let Some(entries) = shallow::elements(&text) else {
            self.record(
                1,
                None,
                Body::Unreadable(b"(not a JSON array of protocol entries)".to_vec()),
            );
            return Ok(());
        };
        let base = text.as_ptr() as usize;
        self.entries = entries
            .iter()
            .map(|e| {
                let start = e.get().as_ptr() as usize - base;
                (start, start + e.get().len())
            })
            .collect();
        self.record(
            1,
            None,
            Body::Note("the Inspector exports messages re-serialised and pretty-printed; a request's response is taken from the request's entry".into()),
        );
        self.text = text;
        self.starts = starts;
        Ok(())
    }

    /// Queues the records of entry `i`.
    fn entry(&mut self, i: usize) {
        let (start, end) = self.entries[i];
        let line = self.starts.partition_point(|&s| s <= start) as u64;
        let Some(entry) = Fields::parse(&self.text.as_bytes()[start..end]) else {
            return; // an element that is not an object holds no message
        };
        let time = entry.str("timestamp").and_then(|t| Timestamp::parse(&t));
        let dir = match entry.str("origin").as_deref() {
            Some("client") => Dir::ClientToServer,
            Some("server") => Dir::ServerToClient,
            _ => Dir::Unknown,
        };
        let mut out = Vec::new();
        if let Some(message) = entry.raw("message") {
            out.push((
                time.clone(),
                Body::Line {
                    dir,
                    bytes: shallow::minify(message.get()).into(),
                },
            ));
        }
        if let Some(response) = entry.raw("response").filter(|r| r.get() != "null") {
            let back = match dir {
                Dir::ClientToServer => Dir::ServerToClient,
                Dir::ServerToClient => Dir::ClientToServer,
                other => other,
            };
            // An absurd duration (1e300, negative, NaN) means no time
            // for the response, never an overflow.
            let at = match (&time, entry.f64("duration")) {
                (Some(t), Some(ms)) => response_time(t, ms),
                _ => None,
            };
            out.push((
                at,
                Body::Line {
                    dir: back,
                    bytes: shallow::minify(response.get()).into(),
                },
            ));
        }
        for (time, body) in out {
            self.record(line, time, body);
        }
    }

    fn record(&mut self, line: u64, time: Option<Timestamp>, body: Body) {
        self.queue
            .push_back(Record::new(line, time, body, true, None));
    }
}

impl Iterator for InspectorReader {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(lines) = self.lines.take() {
            if let Err(e) = self.load(lines) {
                return Some(Err(e));
            }
        }
        while self.queue.is_empty() && self.next < self.entries.len() {
            self.next += 1;
            self.entry(self.next - 1);
        }
        if self.next == self.entries.len() && self.queue.is_empty() {
            // Read: its memory goes back before the analysis ends.
            self.text = String::new();
            self.entries = Vec::new();
            self.starts = Vec::new();
        }
        self.queue.pop_front().map(Ok)
    }
}

/// The time of a response `ms` milliseconds after its request, when that is
/// a time at all.
fn response_time(request: &Timestamp, ms: f64) -> Option<Timestamp> {
    let micros = ms * 1000.0;
    if !micros.is_finite() || micros < 0.0 || micros > i64::MAX as f64 {
        return None;
    }
    let at = request
        .at
        .checked_add_signed(chrono::TimeDelta::microseconds(micros as i64))?;
    Some(Timestamp {
        text: format!("{} (+{ms} ms)", request.text).into(),
        at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert!(matches_mcpsnoop(
            r#"{"session_id":"a","seq":1,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"stdio","raw":{}}"#
        ));
        assert!(!matches_mcpsnoop(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        ));
        assert!(matches_inspector(
            "[\n  {\n    \"id\": 1,\n    \"timestamp\": \"x\",\n    \"direction\": \"request\",\n    \"message\": {}"
        ));
    }
}
