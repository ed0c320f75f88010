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

use serde_json::Value;

use super::claude::rebuild_cut;
use super::lines::Lines;
use super::record::{Body, PartialWhy, Record};
use crate::wire::dir::Dir;
use crate::wire::time::Timestamp;

/// Whether a line is an mcpsnoop envelope (for format detection).
pub fn matches_mcpsnoop(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('{')
        && line.contains("\"seq\"")
        && line.contains("\"direction\"")
        && serde_json::from_str::<Value>(line).is_ok_and(|v| {
            v.get("seq").is_some() && v.get("direction").is_some() && v.get("ts").is_some()
        })
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
        let Ok(Value::Object(env)) = serde_json::from_slice::<Value>(bytes) else {
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
        let time = env
            .get("ts")
            .and_then(Value::as_str)
            .and_then(Timestamp::parse);
        let source: Option<super::record::Source> =
            env.get("session_id").and_then(Value::as_str).map(|id| {
                match env
                    .get("server_label")
                    .and_then(Value::as_str)
                    .filter(|l| !l.is_empty())
                {
                    Some(label) => format!("{label} {id}"),
                    None => id.to_string(),
                }
                .into()
            });
        let text = env.get("text").and_then(Value::as_str);
        let raw = env.get("raw").filter(|v| !v.is_null());
        let truncated = env.get("truncated").and_then(Value::as_bool) == Some(true);
        let dir = match env.get("direction").and_then(Value::as_str) {
            Some("c2s") => Dir::ClientToServer,
            Some("s2c") => Dir::ServerToClient,
            Some("stderr") => Dir::Stderr,
            Some("meta") => {
                let command = raw
                    .and_then(|m| m.get("command"))
                    .and_then(Value::as_array)
                    .map(|c| {
                        c.iter()
                            .filter_map(Value::as_str)
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
                bytes: (raw.to_string().into_bytes()).into(),
            },
            (None, Some(text)) if truncated && dir != Dir::Stderr => match rebuild_cut(text) {
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
pub struct InspectorReader {
    lines: Option<Lines>,
    queue: VecDeque<Record>,
}

impl InspectorReader {
    pub fn new(lines: Lines) -> InspectorReader {
        InspectorReader {
            lines: Some(lines),
            queue: VecDeque::new(),
        }
    }

    /// Reads the whole export and turns its entries into records.
    fn load(&mut self, mut lines: Lines) -> io::Result<()> {
        let mut text = String::new();
        let mut starts = Vec::new(); // byte offset of each line
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
        let line_of = |offset: usize| starts.partition_point(|&s| s <= offset) as u64;
        let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(&text) else {
            self.record(
                1,
                None,
                Body::Unreadable(b"(not a JSON array of protocol entries)".to_vec()),
            );
            return Ok(());
        };
        let offsets = element_offsets(&text);
        self.record(
            1,
            None,
            Body::Note("the Inspector exports messages re-serialised and pretty-printed; a request's response is taken from the request's entry".into()),
        );
        for (i, entry) in entries.iter().enumerate() {
            let line = offsets.get(i).map_or(1, |&o| line_of(o));
            let time = entry
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(Timestamp::parse);
            let origin = entry.get("origin").and_then(Value::as_str);
            let dir = match origin {
                Some("client") => Dir::ClientToServer,
                Some("server") => Dir::ServerToClient,
                _ => Dir::Unknown,
            };
            if let Some(message) = entry.get("message") {
                self.record(
                    line,
                    time.clone(),
                    Body::Line {
                        dir,
                        bytes: (message.to_string().into_bytes()).into(),
                    },
                );
            }
            if let Some(response) = entry.get("response").filter(|r| !r.is_null()) {
                let back = match dir {
                    Dir::ClientToServer => Dir::ServerToClient,
                    Dir::ServerToClient => Dir::ClientToServer,
                    other => other,
                };
                // An absurd duration (1e300, negative, NaN) means no time
                // for the response, never an overflow.
                let at = match (&time, entry.get("duration").and_then(Value::as_f64)) {
                    (Some(t), Some(ms)) => response_time(t, ms),
                    _ => None,
                };
                self.record(
                    line,
                    at,
                    Body::Line {
                        dir: back,
                        bytes: (response.to_string().into_bytes()).into(),
                    },
                );
            }
        }
        Ok(())
    }

    fn record(&mut self, line: u64, time: Option<Timestamp>, body: Body) {
        self.queue
            .push_back(Record::new(line, time, body, true, None));
    }
}

/// Byte offsets where the elements of a top-level JSON array start.
fn element_offsets(text: &str) -> Vec<usize> {
    let mut offsets = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut expect = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if expect && !c.is_whitespace() {
            offsets.push(i);
            expect = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expect = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect = true,
            _ => {}
        }
    }
    offsets
}

impl Iterator for InspectorReader {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(lines) = self.lines.take() {
            if let Err(e) = self.load(lines) {
                return Some(Err(e));
            }
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

    #[test]
    fn offsets() {
        assert_eq!(
            element_offsets("[\n {\"a\": \"[,]\"},\n {\"b\": 1}\n]"),
            vec![3, 18]
        );
    }
}
