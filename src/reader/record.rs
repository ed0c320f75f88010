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

#[cfg(test)]
mod tests {
    use super::*;

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
