//! Wiring for the views (`timeline`, `stats`): reader -> transport ->
//! conversation, one record at a time.
//!
//! [`prepare`] is the first pass over a file: the `check` report (its
//! findings are marked on the timeline) and the requests never answered
//! (drawn in red). [`Entries`] is the streaming pass: the conversation's
//! rows with the raw bytes they came from. Neither holds the whole input:
//! raw lines are kept only until the message they belong to is complete.

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::pipeline::{Checker, Options};
use crate::rules::finding::Findings;
use indexmap::IndexMap;

use crate::cost::{self, Measured, Tokenizer};
use crate::reader::{self, Body, Format, Records, Source};
use crate::redact::Redactor;
use crate::report::FileReport;
use crate::text::excerpt_bytes;
use crate::transport::{Item, Transport};
use crate::views::conversation::{Conversations, Entry, EntryKind, OpenRequest, OtherKind};
use crate::wire::dir::Dir;
use crate::wire::message::{Kind, Message};
use crate::wire::time::Timestamp;

/// What the first pass knows about a file.
#[derive(Debug)]
pub struct Prepared {
    /// The `check` report of the file.
    pub report: FileReport,
    /// Requests never answered, sorted by line.
    pub unanswered: Vec<OpenRequest>,
    /// The first and last timestamps of the log.
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    /// The last line number.
    pub last_line: u64,
    /// Under `--redact`: the strings seen, for the second pass.
    pub redactor: Option<Redactor>,
}

impl Prepared {
    /// Whether the request on `line` was never answered, and if so whether
    /// it had been cancelled.
    pub fn unanswered_at(&self, line: u64) -> Option<&OpenRequest> {
        // Sorted by line (`prepare`): a binary search, not a scan per row.
        let at = self.unanswered.partition_point(|r| r.open.line < line);
        self.unanswered.get(at).filter(|r| r.open.line == line)
    }
}

/// The first pass: checks the file and notes what stays unanswered.
/// `Err` only when reading fails.
pub fn prepare(path: &str, input: Box<dyn Read>, options: &Options) -> io::Result<Prepared> {
    let reader::Opened {
        format,
        records,
        lines,
    } = reader::open(input, options.format)?;
    // Built whole: the conversation below reads a picked message again.
    let mut checker = Checker::new(options).whole_messages();
    let mut conversation = Conversations::new();
    let mut first_time = None;
    let mut last_time = None;
    let mut last_line = 0;
    for record in records {
        let record = record?;
        last_line = record.line;
        if let Some(t) = &record.time {
            if first_time.is_none() {
                first_time = Some(t.clone());
            }
            last_time = Some(t.clone());
        }
        checker.push(record, &mut |lane, item| {
            conversation.observe(lane, item);
        });
    }
    // As `check` reads a whole input: the lines read count for the
    // forced-format note and for the input judgement.
    checker.lines_read(lines.get());
    let (mut report, mut redactor) = checker.finish_redacted(path, format, &mut |lane, item| {
        conversation.observe(lane, item);
    });
    report.read.lines = lines.get();
    let mut unanswered = conversation.unanswered();
    if let Some(redactor) = &mut redactor {
        for open in &mut unanswered {
            if let Some(subject) = &mut open.open.subject {
                *subject = redactor.apply(subject);
            }
            open.open.method = redactor.token(&open.open.method);
            open.id = redactor.id(&open.id);
        }
    }
    Ok(Prepared {
        report,
        redactor,
        unanswered,
        first_time,
        last_time,
        last_line,
    })
}

/// How many raw lines of one stream are kept while a message is incomplete
/// (the transport's own limit for messages spread over several lines).
const RAW_MAX_LINES: usize = 10_000;
/// How many raw bytes of one stream are kept while a message is incomplete.
const RAW_MAX_BYTES: usize = 16 * 1024 * 1024;

/// A raw line waiting for the message it belongs to.
struct RawLine {
    line: u64,
    bytes: Vec<u8>,
    terminated: bool,
}

/// One lane's share of the stream (a log that interleaves several servers
/// has a lane per server, as `check` has): its transport and the raw lines
/// of its messages still incomplete.
struct Lane {
    transport: Transport,
    raw: [VecDeque<RawLine>; 4],
    raw_bytes: [usize; 4],
}

impl Lane {
    fn keep(&mut self, dir: Dir, line: u64, bytes: &[u8], terminated: bool) {
        let slot = dir.index();
        let lines = &mut self.raw[slot];
        lines.push_back(RawLine {
            line,
            bytes: bytes.to_vec(),
            terminated,
        });
        self.raw_bytes[slot] += bytes.len();
        while lines.len() > RAW_MAX_LINES || self.raw_bytes[slot] > RAW_MAX_BYTES {
            match lines.pop_front() {
                Some(old) => self.raw_bytes[slot] -= old.bytes.len(),
                None => break,
            }
        }
    }
}

/// The conversation of one input as a stream of rows.
pub struct Entries {
    format: Format,
    records: Records,
    /// By source, numbered in the order they first appear.
    lanes: IndexMap<Option<Source>, Lane>,
    /// The transports' findings; the first pass reports them.
    scratch: Findings,
    conversation: Conversations,
    items: Vec<Item>,
    keep_raw: bool,
    queue: VecDeque<Entry>,
    done: bool,
    first_time: Option<Timestamp>,
    last_time: Option<Timestamp>,
    last_line: u64,
    /// With `--redact`: rows show placeholders for the log's strings.
    redactor: Option<Redactor>,
    /// What the decoder said when a compressed input ended early.
    undecodable: Option<String>,
    /// Measure the answers to `tools/list` and `tools/call` ([`Entries::measure`]).
    measure: Option<Tokenizer>,
}

impl Entries {
    /// Opens the stream. With `keep_raw`, each row carries the text of the
    /// line(s) it came from.
    pub fn open(
        input: Box<dyn Read>,
        forced: Option<Format>,
        keep_raw: bool,
    ) -> io::Result<Entries> {
        let reader::Opened {
            format, records, ..
        } = reader::open(input, forced)?;
        Ok(Entries {
            format,
            records,
            lanes: IndexMap::new(),
            scratch: Findings::default(),
            conversation: Conversations::new(),
            items: Vec::new(),
            keep_raw,
            queue: VecDeque::new(),
            done: false,
            first_time: None,
            last_time: None,
            last_line: 0,
            redactor: None,
            undecodable: None,
            measure: None,
        })
    }

    /// Gives each answer to `tools/list` and `tools/call` its `cost` (see
    /// `crate::cost`), counted with `tokenizer`: the message as sent, also
    /// under `--redact` (the names are the placeholders, the sizes those of
    /// the strings they stand for).
    pub fn measure(&mut self, tokenizer: Tokenizer) {
        self.measure = Some(tokenizer);
    }

    /// Redacts every row from here on (`--redact`), continuing the
    /// placeholders of `redactor`.
    pub fn redact(&mut self, redactor: Redactor) {
        self.redactor = Some(redactor);
    }

    /// The redactor back, with the strings these rows added.
    pub fn take_redactor(&mut self) -> Option<Redactor> {
        self.redactor.take()
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The first and last timestamps read so far.
    pub fn times(&self) -> (Option<&Timestamp>, Option<&Timestamp>) {
        (self.first_time.as_ref(), self.last_time.as_ref())
    }

    /// Why the rows stop short, when a compressed input could not be
    /// decoded to its end (the `corrupt-compressed-input` finding's words).
    pub fn undecodable(&self) -> Option<&str> {
        self.undecodable.as_deref()
    }

    /// The last line read so far.
    pub fn last_line(&self) -> u64 {
        self.last_line
    }

    /// Every request not answered so far (at the end: never answered).
    pub fn unanswered(&self) -> Vec<OpenRequest> {
        self.conversation.unanswered()
    }

    /// The number of the lane of `source`, opened on first use.
    fn lane(&mut self, source: &Option<Source>) -> usize {
        if let Some(number) = self.lanes.get_index_of(source) {
            return number;
        }
        let lane = Lane {
            transport: Transport::new().exact_numbers(),
            raw: Default::default(),
            raw_bytes: [0; 4],
        };
        let number = self.lanes.insert_full(source.clone(), lane).0;
        // Its session is numbered now, as `check` numbers it.
        self.conversation.open_lane(number);
        number
    }

    /// Turns the items the transport yielded into rows.
    fn drain(&mut self, number: usize, current: u64) {
        let lane = &mut self.lanes[number];
        let mut touched = [false; 4];
        let items = std::mem::take(&mut self.items);
        // Where each item's lines end: at the line of the next item of its
        // slot. Many items come at once when a reassembly fails (its lines
        // read again one by one), each its own lines, not all those after
        // it (which made a row per line of a long unclosed block hold the
        // rest of the block: quadratic).
        let mut ends = vec![None; items.len()];
        let mut next: [Option<u64>; 4] = [None; 4];
        for (i, item) in items.iter().enumerate().rev() {
            let (line, slot) = match item {
                Item::Message { at, dir, .. }
                | Item::Batch { at, dir, .. }
                | Item::Noise { at, dir } => (at.line, dir.index()),
                Item::Stderr { at, .. } => (at.line, Dir::Stderr.index()),
                Item::Event { .. } => continue,
            };
            ends[i] = next[slot].filter(|&n| n > line);
            next[slot] = Some(next[slot].map_or(line, |n| n.min(line)));
        }
        for (mut item, end) in items.into_iter().zip(ends) {
            // Measured as sent: under --redact, the responses are copied
            // before their strings become placeholders.
            let sent = match (self.measure, &self.redactor) {
                (Some(_), Some(_)) => Some(responses(&item)),
                _ => None,
            };
            if let Some(redactor) = &mut self.redactor {
                redactor.redact_item(&mut item);
            }
            let (line, slot, event) = match &item {
                Item::Message { at, dir, .. }
                | Item::Batch { at, dir, .. }
                | Item::Noise { at, dir } => (at.line, Some(dir.index()), None),
                Item::Stderr { at, .. } => (at.line, Some(Dir::Stderr.index()), None),
                Item::Event { at, event } => (at.line, None, Some(event.text.clone())),
            };
            let mut entries = self.conversation.observe(number, &item);
            if let Some(tokenizer) = self.measure {
                measure(&mut entries, &item, sent, tokenizer);
            }
            let (bytes, raw) = match (slot, event) {
                (Some(slot), _) => {
                    touched[slot] = true;
                    let mut bytes = 0u64;
                    let mut raw = Vec::new();
                    let lines = &lane.raw[slot];
                    let from = lines.partition_point(|l| l.line < line);
                    for l in lines
                        .range(from..)
                        .take_while(|l| end.is_none_or(|e| l.line < e))
                    {
                        bytes += l.bytes.len() as u64 + u64::from(l.terminated);
                        if !raw.is_empty() {
                            raw.push(b'\n');
                        }
                        raw.extend_from_slice(&l.bytes);
                    }
                    (bytes, Some(raw))
                }
                (None, Some(text)) => (0, Some(text.into_bytes())),
                (None, None) => (0, None),
            };
            if let (Some(first), Some(raw)) = (entries.first_mut(), raw) {
                first.bytes = bytes;
                if first.other == Some(OtherKind::Noise) {
                    let text = raw.strip_suffix(b"\r").unwrap_or(&raw);
                    first.summary = excerpt_bytes(text);
                    if let Some(redactor) = &mut self.redactor {
                        first.summary = redactor.apply(&first.summary);
                    }
                }
                if self.keep_raw {
                    let text = String::from_utf8_lossy(&raw);
                    first.raw = Some(match &mut self.redactor {
                        Some(r) if slot == Some(Dir::Stderr.index()) => r.whole(&text),
                        Some(r) => r.raw(&text),
                        None => text.into_owned(),
                    });
                }
            }
            self.queue.extend(entries);
        }
        for (slot, touched) in touched.into_iter().enumerate() {
            if touched {
                let lines = &mut lane.raw[slot];
                while lines.front().is_some_and(|l| l.line <= current) {
                    let old = lines.pop_front().expect("front exists");
                    lane.raw_bytes[slot] -= old.bytes.len();
                }
            }
        }
    }
}

/// Copies of an item's responses, one place per row of the item.
fn responses(item: &Item) -> Vec<Option<Message>> {
    let response = |m: &Message| (m.kind == Kind::Response).then(|| m.clone());
    match item {
        Item::Message { msg, .. } => vec![response(msg)],
        Item::Batch { items, .. } => items
            .iter()
            .map(|m| m.as_ref().ok().and_then(response))
            .collect(),
        _ => Vec::new(),
    }
}

/// An item's messages, one place per row of the item (a batch element that
/// is no message has a row and no message).
fn messages(item: &Item) -> Vec<Option<&Message>> {
    match item {
        Item::Message { msg, .. } => vec![Some(msg)],
        Item::Batch { items, .. } => items.iter().map(|m| m.as_ref().ok()).collect(),
        _ => Vec::new(),
    }
}

/// Gives the rows of answers to `tools/list` and `tools/call` their cost:
/// the tools' names as shown (`item`, redacted or not), their sizes as sent
/// (`sent`, the responses before redaction, when redacted). A message the
/// log shows only in part (a host cut it) is not measured.
fn measure(
    entries: &mut [Entry],
    item: &Item,
    sent: Option<Vec<Option<Message>>>,
    tokenizer: Tokenizer,
) {
    for (i, (entry, shown)) in entries.iter_mut().zip(messages(item)).enumerate() {
        let Some(shown) = shown else { continue };
        let method = match entry.method.as_deref() {
            Some(m @ ("tools/list" | "tools/call")) => m,
            _ => continue,
        };
        if entry.kind != EntryKind::Response
            || entry.answers.is_none()
            || entry.error.is_some()
            || shown.partial
            || shown.cut
        {
            continue;
        }
        let plain = sent
            .as_ref()
            .and_then(|s| s.get(i))
            .and_then(Option::as_ref);
        let as_sent = plain.unwrap_or(shown);
        if method == "tools/call" {
            let size = entry.subject.as_ref().and(result_size(as_sent, tokenizer));
            entry.cost = size.map(|size| Box::new(Measured::Result(size)));
            continue;
        }
        let mut tools = listed(as_sent, tokenizer);
        if plain.is_some() {
            // The names as shown (placeholders), the sizes as sent.
            tools = listed(shown, tokenizer)
                .into_iter()
                .zip(tools)
                .map(|((name, _), (_, size))| (name, size))
                .collect();
        }
        entry.cost = Some(Box::new(Measured::Listed(tools)));
    }
}

/// The size of a message's `result`: read from its line when the reader
/// cut it (never built whole), else from the message.
fn result_size(m: &Message, tokenizer: Tokenizer) -> Option<cost::Size> {
    if m.is_cut() {
        return cost::result_of_text(&m.cut_text()?, tokenizer);
    }
    m.result().map(|r| cost::value(r, tokenizer))
}

/// The tools a `tools/list` answer lists, with their definitions' sizes:
/// read from its line when the reader cut it, else from the message.
fn listed(m: &Message, tokenizer: Tokenizer) -> Vec<(String, cost::Size)> {
    if m.is_cut() {
        return m
            .cut_text()
            .map(|text| cost::listed_of_text(&text, tokenizer))
            .unwrap_or_default();
    }
    m.result()
        .map(|r| cost::listed(r, tokenizer))
        .unwrap_or_default()
}

impl Iterator for Entries {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.queue.pop_front() {
                return Some(Ok(entry));
            }
            if self.done {
                return None;
            }
            match self.records.next() {
                Some(Ok(record)) => {
                    let line = record.line;
                    self.last_line = line;
                    if let Some(t) = &record.time {
                        if self.first_time.is_none() {
                            self.first_time = Some(t.clone());
                        }
                        self.last_time = Some(t.clone());
                    }
                    if let Body::Undecodable { error, lines_read } = &record.body {
                        // The input's, not one lane's (as `check` has it).
                        self.undecodable =
                            Some(crate::rules::framing::undecodable(error, *lines_read).message);
                        continue;
                    }
                    let number = self.lane(&record.source);
                    let lane = &mut self.lanes[number];
                    if let Body::Line { dir, bytes } = &record.body {
                        lane.keep(*dir, line, bytes, record.terminated);
                    }
                    lane.transport
                        .push(record, &mut self.scratch, &mut self.items);
                    self.drain(number, line);
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    self.done = true;
                    for number in 0..self.lanes.len() {
                        self.lanes[number]
                            .transport
                            .finish(&mut self.scratch, &mut self.items);
                        self.drain(number, u64::MAX);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<Entry> {
        Entries::open(
            Box::new(io::Cursor::new(text.as_bytes().to_vec())),
            None,
            true,
        )
        .expect("open")
        .map(|e| e.expect("read"))
        .collect()
    }

    #[test]
    fn rows_carry_their_raw_lines_and_bytes() {
        let e = entries(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
             < {\n\
             < \"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
             ! boom\n\
             < stray text\n",
        );
        let rows: Vec<_> = e
            .iter()
            .map(|e| (e.line, e.kind, e.bytes, e.raw.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            rows,
            vec![
                (
                    1,
                    EntryKind::Request,
                    41,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".into()
                ),
                (
                    2,
                    EntryKind::Response,
                    38,
                    "{\n\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".into()
                ),
                (4, EntryKind::Stderr, 5, "boom".into()),
                (5, EntryKind::Other, 11, "stray text".into()),
            ]
        );
        assert_eq!(e[1].answers.as_ref().map(|a| a.line), Some(1));
        assert_eq!(e[3].summary, "stray text");
    }

    #[test]
    fn the_first_pass_knows_what_was_never_answered() {
        let text = "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
                    # start again\n\
                    > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
                    < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
        let p = prepare(
            "t",
            Box::new(io::Cursor::new(text.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("read");
        let open: Vec<_> = p
            .unanswered
            .iter()
            .map(|r| (r.open.line, r.open.method.as_str()))
            .collect();
        assert_eq!(open, vec![(1, "tools/call")]);
        assert_eq!(p.last_line, 4);
        assert!(p.unanswered_at(1).is_some() && p.unanswered_at(3).is_none());
    }
}
