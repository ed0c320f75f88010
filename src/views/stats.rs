//! `mcpdbg stats`: numbers about one or more sessions, per method and per
//! side: counts, errors, latency percentiles, bytes each way, the slowest
//! requests, stderr volume and how long each side kept the other waiting.
//!
//! [`Stats`] accumulates conversation rows and is pure (all time comes from
//! the log's timestamps); [`collect`] wires one input through it. Memory
//! grows with the methods seen and keeps one number per answered request
//! (the latencies the percentiles are taken from); the tools' context cost
//! (`crate::cost`) is bounded on its own.

use std::io::{self, Read};

use indexmap::IndexMap;

use crate::cost::{Measured, Tokenizer, ToolCosts};
use crate::reader::Format;
use crate::redact::Redactor;
use crate::views::conversation::{Entry, EntryKind, OpenRequest};
use crate::views::passes::Entries;
use crate::wire::dir::Dir;
use crate::wire::message::RequestId;
use crate::wire::time::Timestamp;

/// How many of the slowest requests are listed.
pub const SLOWEST: usize = 10;

/// Byte counters by direction: client->server, server->client, stderr, unknown.
pub type Bytes = [u64; 4];

fn bytes_slot(dir: Dir) -> usize {
    match dir {
        Dir::ClientToServer => 0,
        Dir::ServerToClient => 1,
        Dir::Stderr => 2,
        Dir::Unknown => 3,
    }
}

/// One input's totals.
#[derive(Clone, Debug, PartialEq)]
pub struct FileStats {
    pub path: String,
    pub format: Format,
    pub lines: u64,
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    /// Messages by direction: client->server, server->client, unknown.
    pub messages: [u64; 3],
    pub stderr_lines: u64,
}

impl FileStats {
    /// Seconds from the first to the last timestamp.
    pub fn duration(&self) -> Option<f64> {
        Some(
            self.first_time
                .as_ref()?
                .seconds_until(self.last_time.as_ref()?),
        )
    }
}

/// The numbers of one method sent in one direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MethodStats {
    pub method: String,
    /// The direction the request or notification travelled.
    pub dir: Option<Dir>,
    pub notification: bool,
    pub count: u64,
    /// Error responses and results with `isError: true`.
    pub errors: u64,
    /// Requests never answered.
    pub unanswered: u64,
    /// Latencies of the answers, in seconds (unsorted).
    pub latencies: Vec<f64>,
    /// Bytes of the messages and their answers, by direction.
    pub bytes: Bytes,
}

impl MethodStats {
    /// The `q` quantile of the latencies (nearest rank), if any were timed.
    pub fn percentile(&self, q: f64) -> Option<f64> {
        let mut sorted = self.latencies.clone();
        sorted.sort_by(f64::total_cmp);
        percentile(&sorted, q)
    }

    pub fn max(&self) -> Option<f64> {
        self.latencies.iter().copied().max_by(f64::total_cmp)
    }
}

fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// A slow request: answered after `seconds`, or never answered after
/// waiting at least `seconds` (until the log ended, or until the sender
/// cancelled it).
#[derive(Clone, Debug, PartialEq)]
pub struct Slow {
    pub path: String,
    pub line: u64,
    pub dir: Dir,
    pub method: String,
    pub subject: Option<String>,
    pub id: Option<RequestId>,
    pub seconds: f64,
    pub answered: bool,
    pub cancelled: bool,
    /// Never answered: its sender closed the connection with it open (the
    /// wait ends there).
    pub closed: bool,
}

/// How long one side kept the other waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Waiting {
    /// Seconds during which at least one request to this side was open
    /// (and not cancelled).
    pub open_seconds: f64,
    /// Answers this side gave, and their latencies summed.
    pub answers: u64,
    pub latency_sum: f64,
}

/// Numbers over every input given.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub files: Vec<FileStats>,
    /// Keyed by (method, direction, notification).
    pub methods: IndexMap<(String, Option<Dir>, bool), MethodStats>,
    /// Slowest first, at most [`SLOWEST`].
    pub slowest: Vec<Slow>,
    pub stderr: (u64, u64),
    /// Lines that were no message (stray text, broken JSON): count, bytes.
    pub noise: (u64, u64),
    /// `[server, client]`: the server answers the client's requests.
    pub waiting: [Waiting; 2],
    pub bytes: Bytes,
    /// Answers stamped before their requests (a clock that went back, lines
    /// out of order): their latencies are negative.
    pub negative_latencies: u64,
    /// What the tools listed and their results cost (`crate::cost`),
    /// counted with its tokenizer.
    pub tools: ToolCosts,
}

/// The numbers before an input ([`Stats::mark`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    files: usize,
    methods: usize,
    stderr: (u64, u64),
    noise: (u64, u64),
    waiting: [Waiting; 2],
    bytes: Bytes,
}

/// The accumulation of one input.
pub struct FileCollector<'a> {
    stats: &'a mut Stats,
    path: String,
    messages: [u64; 3],
    stderr_lines: u64,
    /// The time and owed counts after the last timed row.
    last: Option<(Timestamp, [usize; 2])>,
}

impl Stats {
    /// Starts the numbers of one input.
    pub fn file(&mut self, path: &str) -> FileCollector<'_> {
        FileCollector {
            stats: self,
            path: path.to_string(),
            messages: [0; 3],
            stderr_lines: 0,
            last: None,
        }
    }

    /// What an input that adds no message can change, to be taken back
    /// ([`Stats::take_back`]) when that input is refused.
    pub fn mark(&self) -> Mark {
        Mark {
            files: self.files.len(),
            methods: self.methods.len(),
            stderr: self.stderr,
            noise: self.noise,
            waiting: self.waiting,
            bytes: self.bytes,
        }
    }

    /// Takes back what was added since `mark`, by an input that added no
    /// message (no method's numbers, latencies or slow requests changed).
    pub fn take_back(&mut self, mark: Mark) {
        self.files.truncate(mark.files);
        self.methods.truncate(mark.methods);
        self.stderr = mark.stderr;
        self.noise = mark.noise;
        self.waiting = mark.waiting;
        self.bytes = mark.bytes;
    }

    /// The methods, most used first (then by name, for a stable order).
    pub fn methods_sorted(&self) -> Vec<&MethodStats> {
        let mut all: Vec<&MethodStats> = self.methods.values().collect();
        all.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.method.cmp(&b.method))
                .then_with(|| a.dir.cmp(&b.dir))
        });
        all
    }

    fn slow(&mut self, slow: Slow) {
        let at = self
            .slowest
            .iter()
            .position(|s| s.seconds < slow.seconds)
            .unwrap_or(self.slowest.len());
        if at < SLOWEST {
            self.slowest.insert(at, slow);
            self.slowest.truncate(SLOWEST);
        }
    }
}

/// The most distinct (method, direction, kind) rows kept.
const MAX_METHODS: usize = 10_000;
/// The row that counts the methods past [`MAX_METHODS`].
const OTHER_METHODS: &str = "(other methods)";

impl FileCollector<'_> {
    fn method(&mut self, method: &str, dir: Option<Dir>, notification: bool) -> &mut MethodStats {
        // A log of endless distinct method names stays bounded: past the
        // cap, new names are counted together.
        let known = self
            .stats
            .methods
            .contains_key(&(method.to_string(), dir, notification));
        let method = if known || self.stats.methods.len() < MAX_METHODS {
            method
        } else {
            OTHER_METHODS
        };
        self.stats
            .methods
            .entry((method.to_string(), dir, notification))
            .or_insert_with(|| MethodStats {
                method: method.to_string(),
                dir,
                notification,
                ..MethodStats::default()
            })
    }

    /// Takes one row.
    pub fn push(&mut self, e: &Entry) {
        if let Some(t) = &e.time {
            if let Some((last, owed)) = &self.last {
                let dt = last.seconds_until(t).max(0.0);
                for (side, owed) in owed.iter().enumerate() {
                    if *owed > 0 {
                        self.stats.waiting[side].open_seconds += dt;
                    }
                }
            }
            self.last = Some((t.clone(), e.owed));
        } else if let Some((_, owed)) = &mut self.last {
            *owed = e.owed;
        }
        self.stats.bytes[bytes_slot(e.dir)] += e.bytes;
        let slot = bytes_slot(e.dir);
        match e.kind {
            EntryKind::Request | EntryKind::Notification => {
                self.messages[slot.min(2)] += 1;
                let method = e.method.clone().unwrap_or_default();
                let m = self.method(&method, Some(e.dir), e.kind == EntryKind::Notification);
                m.count += 1;
                m.bytes[slot] += e.bytes;
            }
            EntryKind::Response => {
                self.messages[slot.min(2)] += 1;
                let (method, dir) = match (&e.method, &e.answers) {
                    (Some(m), Some(_)) => (m.clone(), Some(e.dir.reverse())),
                    (Some(m), None) if e.shutdown => (m.clone(), Some(e.dir.reverse())),
                    _ => ("(response to no known request)".to_string(), None),
                };
                match (e.cost.as_deref(), &e.subject) {
                    (Some(Measured::Listed(tools)), _) => {
                        for (name, size) in tools {
                            self.stats.tools.listed(name, *size);
                        }
                    }
                    (Some(Measured::Result(size)), Some(tool)) => {
                        self.stats.tools.result(tool, *size);
                    }
                    _ => {}
                }
                let path = self.path.clone();
                let m = self.method(&method, dir, false);
                m.bytes[slot] += e.bytes;
                if e.is_failure() {
                    m.errors += 1;
                }
                if let Some(latency) = e.answers.as_ref().and_then(|a| a.latency) {
                    m.latencies.push(latency);
                    if latency < 0.0 {
                        self.stats.negative_latencies += 1;
                    }
                    let side = match e.dir {
                        Dir::ClientToServer => Some(1),
                        Dir::ServerToClient => Some(0),
                        _ => None,
                    };
                    if let Some(side) = side {
                        self.stats.waiting[side].answers += 1;
                        self.stats.waiting[side].latency_sum += latency;
                    }
                    let answered = e.answers.as_ref().expect("latency implies answers");
                    self.stats.slow(Slow {
                        path,
                        line: answered.line,
                        dir: e.dir.reverse(),
                        method,
                        subject: e.subject.clone(),
                        id: e.id.clone(),
                        seconds: latency,
                        answered: true,
                        cancelled: answered.cancelled,
                        closed: false,
                    });
                }
            }
            EntryKind::Stderr => {
                self.stderr_lines += 1;
                self.stats.stderr.0 += 1;
                self.stats.stderr.1 += e.bytes;
            }
            EntryKind::Other => {
                if e.bytes > 0 {
                    self.stats.noise.0 += 1;
                    self.stats.noise.1 += e.bytes;
                }
            }
        }
    }

    /// Ends the input: counts what was never answered.
    pub fn finish(
        mut self,
        format: Format,
        lines: u64,
        (first_time, last_time): (Option<&Timestamp>, Option<&Timestamp>),
        unanswered: &[OpenRequest],
    ) {
        for r in unanswered {
            let m = self.method(&r.open.method, Some(r.dir), false);
            m.unanswered += 1;
            // A cancelled request was waited on until it was cancelled, one
            // whose sender closed the connection until then.
            let closed = r.open.closed.as_ref().and_then(|at| at.time.as_ref());
            let end = match (&r.open.cancelled_time, r.open.cancelled) {
                (Some(t), true) => Some(t),
                _ => closed.or(last_time),
            };
            if let (Some(start), Some(end)) = (&r.open.time, end) {
                self.stats.slow(Slow {
                    path: self.path.clone(),
                    line: r.open.line,
                    dir: r.dir,
                    method: r.open.method.clone(),
                    subject: r.open.subject.clone(),
                    id: Some(r.id.clone()),
                    seconds: start.seconds_until(end).max(0.0),
                    answered: false,
                    cancelled: r.open.cancelled,
                    closed: !r.open.cancelled && closed.is_some(),
                });
            }
        }
        self.stats.files.push(FileStats {
            path: self.path,
            format,
            lines,
            first_time: first_time.cloned(),
            last_time: last_time.cloned(),
            messages: self.messages,
            stderr_lines: self.stderr_lines,
        });
    }
}

/// Adds one input to `stats`. With a redactor (`--redact`), tool names and
/// other strings read as its placeholders. `Err` only when reading fails;
/// `Some` says why the numbers stop short (a compressed input that could
/// not be decoded to its end).
pub fn collect(
    stats: &mut Stats,
    path: &str,
    input: Box<dyn Read>,
    forced: Option<Format>,
    redactor: &mut Option<Redactor>,
) -> io::Result<Option<String>> {
    let mut entries = Entries::open(input, forced, false)?;
    entries.measure(stats.tools.tokenizer);
    if let Some(r) = redactor.take() {
        entries.redact(r);
    }
    let mut file = stats.file(path);
    let read = entries.try_for_each(|entry| entry.map(|entry| file.push(&entry)));
    // The placeholders go on to the next file, whether this one was read or not.
    *redactor = entries.take_redactor();
    read?;
    file.finish(
        entries.format(),
        entries.last_line(),
        entries.times(),
        &entries.unanswered(),
    );
    Ok(entries.undecodable().map(str::to_owned))
}

/// What the tools of one native transcript (a probe's) cost, counted with
/// `tokenizer`: the numbers `stats` shows for it.
pub fn tool_costs(input: Box<dyn Read>, tokenizer: Tokenizer) -> io::Result<ToolCosts> {
    let mut stats = Stats {
        tools: ToolCosts::new(tokenizer),
        ..Stats::default()
    };
    collect(&mut stats, "", input, Some(Format::Native), &mut None)?;
    Ok(stats.tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&sorted, 0.5), Some(5.0));
        assert_eq!(percentile(&sorted, 0.95), Some(10.0));
        assert_eq!(percentile(&[3.0], 0.5), Some(3.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    fn stats_of(text: &str) -> Stats {
        let mut stats = Stats::default();
        collect(
            &mut stats,
            "t",
            Box::new(io::Cursor::new(text.as_bytes().to_vec())),
            None,
            &mut None,
        )
        .expect("in memory");
        stats
    }

    /// The tools' cost is that of what was sent: a long description the
    /// reader cut is counted whole, a number as a host writes it again,
    /// members other than the definition's not at all; a batch's
    /// answers one by one (an error answer has no result); under --redact,
    /// the same sizes.
    #[test]
    fn tools_cost_what_was_sent() {
        let long = "word ".repeat(20_000);
        let definition = format!(
            r#"{{"name":"a","description":"{long}","inputSchema":{{"type":"object","maximum":2.5}}}}"#
        );
        let tool = format!(
            r#"{{"_meta":{{"k":1}},{}"#,
            definition[1..].replace("2.5", "2.50")
        );
        let log = format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[{tool}]}}}}\n\
             > [{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\"}}}},{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\"}}}}]\n\
             < [{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"content\":[]}}}},{{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{{\"code\":-1,\"message\":\"m\"}}}}]\n"
        );
        // A result whose long array of scalars the reader cut: measured
        // from its line.
        let zeros = vec!["0"; 5_000].join(",");
        let result = format!(r#"{{"content":[],"structuredContent":{{"a":[{zeros}]}}}}"#);
        let log = format!(
            "{log}> {{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\"}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{result}}}\n"
        );
        for redact in [false, true] {
            let mut stats = Stats::default();
            let mut redactor = redact.then(crate::redact::Redactor::default);
            collect(
                &mut stats,
                "t",
                Box::new(io::Cursor::new(log.clone().into_bytes())),
                None,
                &mut redactor,
            )
            .expect("in memory");
            let tools = stats.tools.sorted();
            assert_eq!(tools.len(), 1, "{redact}");
            let size = tools[0].definition.expect("listed");
            assert_eq!(size.bytes, definition.len() as u64, "{redact}");
            assert_eq!(size.tokens, (definition.len() as u64).div_ceil(4));
            assert_eq!(tools[0].results.count, 2, "{redact}");
            assert_eq!(tools[0].results.total.bytes, 14 + result.len() as u64);
            assert_eq!(tools[0].results.max.bytes, result.len() as u64);
        }
    }

    #[test]
    fn answers_stamped_before_their_requests_are_counted() {
        let s = stats_of(
            "2026-11-20T14:00:01.000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
             2026-11-20T14:00:00.500Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
             2026-11-20T14:00:02.000Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n\
             2026-11-20T14:00:02.100Z < {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n",
        );
        assert_eq!(s.negative_latencies, 1);
    }

    #[test]
    fn methods_latencies_bytes_and_waiting() {
        let s = stats_of(
            "2026-01-01T00:00:00Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n\
             2026-01-01T00:00:01Z < {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}\n\
             2026-01-01T00:00:01.5Z > {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"roots\":[]}}\n\
             2026-01-01T00:00:02Z ! working\n\
             2026-01-01T00:00:04Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"x\"}}\n\
             2026-01-01T00:00:05Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}\n\
             2026-01-01T00:00:09Z ! still working\n",
        );
        let calls = &s.methods[&("tools/call".to_string(), Some(Dir::ClientToServer), false)];
        assert_eq!((calls.count, calls.errors, calls.unanswered), (2, 1, 1));
        assert_eq!(calls.max(), Some(4.0));
        assert_eq!(
            calls.bytes[0],
            2 * 69,
            "two request lines with their newlines"
        );
        assert!(calls.bytes[1] > 0);
        let roots = &s.methods[&("roots/list".to_string(), Some(Dir::ServerToClient), false)];
        assert_eq!(roots.percentile(0.5), Some(0.5));
        assert_eq!(s.stderr.0, 2);
        // The server owed an answer from 0 to 4 s and from 5 to 9 s; the
        // client from 1 to 1.5 s.
        assert_eq!(s.waiting[0].open_seconds, 8.0);
        assert_eq!(s.waiting[1].open_seconds, 0.5);
        let slow: Vec<_> = s
            .slowest
            .iter()
            .map(|s| (s.line, s.seconds, s.answered))
            .collect();
        assert_eq!(slow, vec![(1, 4.0, true), (6, 4.0, false), (2, 0.5, true)]);
    }
}
