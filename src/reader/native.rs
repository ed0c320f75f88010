//! The native transcript format: one record per line,
//! `[TIMESTAMP SP] MARKER [SP RAW-LINE]`.
//!
//! MARKER is `>` (client to server), `<` (server to client), `!` (server
//! stderr) or `#` (a session event); the spellings `->`/`<-`, `c2s`/`s2c`,
//! `send`/`recv` (seen from the client) and `stderr` are accepted too.
//! TIMESTAMP is RFC 3339. RAW-LINE is everything after the single space that
//! follows the marker, byte for byte (it may be empty, hold a CR or be invalid
//! UTF-8).

use std::io;

use super::lines::Lines;
use super::record::{Body, Record};
use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::time::Timestamp;

/// What a marker says a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Line(Dir),
    Event,
}

fn marker(token: &[u8]) -> Option<Marker> {
    Some(match token {
        b">" | b"->" | b"c2s" | b"send" => Marker::Line(Dir::ClientToServer),
        b"<" | b"<-" | b"s2c" | b"recv" => Marker::Line(Dir::ServerToClient),
        b"!" | b"stderr" => Marker::Line(Dir::Stderr),
        b"#" => Marker::Event,
        _ => return None,
    })
}

/// Splits a line into its optional timestamp, its marker and the offset where
/// the raw line starts. `None` when the line is not a native record.
pub fn parse_prefix(line: &[u8]) -> Option<(Option<Timestamp>, Marker, usize)> {
    // Most lines: a one-byte marker and its space.
    if let (Some(first), Some(b' ')) = (line.get(..1), line.get(1)) {
        if let Some(mark) = marker(first) {
            return Some((None, mark, 2));
        }
    }
    let (first, after_first) = token(line, 0);
    if let Some(mark) = marker(first) {
        return Some((None, mark, raw_start(line, after_first)));
    }
    let time = Timestamp::parse(std::str::from_utf8(first).ok()?)?;
    if after_first >= line.len() {
        return None;
    }
    let (second, after_second) = token(line, after_first + 1);
    let mark = marker(second)?;
    Some((Some(time), mark, raw_start(line, after_second)))
}

/// The first token of a line that is not a native record only because
/// that token, before a marker, is not a timestamp.
pub fn bad_timestamp(line: &[u8]) -> Option<&[u8]> {
    let (first, after_first) = token(line, 0);
    if first.is_empty() || marker(first).is_some() || after_first >= line.len() {
        return None;
    }
    let (second, _) = token(line, after_first + 1);
    marker(second).map(|_| first)
}

/// The token starting at `start`, up to the next space, and the offset after it.
fn token(line: &[u8], start: usize) -> (&[u8], usize) {
    let rest = &line[start.min(line.len())..];
    let end = memchr::memchr(b' ', rest).unwrap_or(rest.len());
    (&rest[..end], start + end)
}

/// The raw line starts after exactly one space following the marker.
fn raw_start(line: &[u8], after_marker: usize) -> usize {
    if after_marker < line.len() {
        after_marker + 1
    } else {
        line.len()
    }
}

/// Reads native records.
pub struct NativeReader {
    lines: Lines,
}

impl NativeReader {
    pub fn new(lines: Lines) -> NativeReader {
        NativeReader { lines }
    }
}

impl Iterator for NativeReader {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        let (line, bytes, terminated) = match self.lines.next_shared() {
            Ok(Some(l)) => l,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        let Some((time, mark, start)) = parse_prefix(&bytes) else {
            return Some(Ok(Record::new(
                line,
                None,
                Body::Unreadable(bytes.into_vec()),
                terminated,
                None,
            )));
        };
        // Only the raw line is kept, still in the chunk it was read into.
        let raw = bytes.skip(start);
        let body = match mark {
            Marker::Line(dir) => Body::Line { dir, bytes: raw },
            Marker::Event => Body::Event(Event::recorder(String::from_utf8_lossy(&raw))),
        };
        Some(Ok(Record::new(line, time, body, terminated, None)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<(Option<String>, Marker, String)> {
        parse_prefix(line.as_bytes())
            .map(|(t, m, s)| (t.map(|t| t.text.to_string()), m, line[s..].to_string()))
    }

    #[test]
    fn a_bad_timestamp_before_a_marker_is_named() {
        assert_eq!(
            bad_timestamp(b"2026-13-45T99:00:00Z > {}"),
            Some(&b"2026-13-45T99:00:00Z"[..])
        );
        assert_eq!(
            bad_timestamp(b"yesterday # started"),
            Some(&b"yesterday"[..])
        );
        assert_eq!(bad_timestamp(b"hello world"), None);
        assert_eq!(bad_timestamp(b"> {}"), None);
    }

    #[test]
    fn markers_and_raw_lines() {
        let c2s = Marker::Line(Dir::ClientToServer);
        assert_eq!(parse("> {}"), Some((None, c2s, "{}".into())));
        assert_eq!(parse(">  {} "), Some((None, c2s, " {} ".into())));
        assert_eq!(parse(">"), Some((None, c2s, "".into())));
        assert_eq!(parse("> "), Some((None, c2s, "".into())));
        assert_eq!(parse("send x"), Some((None, c2s, "x".into())));
        assert_eq!(
            parse("recv x"),
            Some((None, Marker::Line(Dir::ServerToClient), "x".into()))
        );
        assert_eq!(
            parse("! boom"),
            Some((None, Marker::Line(Dir::Stderr), "boom".into()))
        );
        assert_eq!(
            parse("2026-07-28T10:00:00.000001Z # server exited with status 1"),
            Some((
                Some("2026-07-28T10:00:00.000001Z".into()),
                Marker::Event,
                "server exited with status 1".into()
            ))
        );
        assert_eq!(parse("2026-07-28T10:00:00Z"), None);
        assert_eq!(parse("2026-07-28T10:00:00Z x y"), None);
        assert_eq!(parse("{\"jsonrpc\":\"2.0\"}"), None);
        assert_eq!(parse(""), None);
    }
}
