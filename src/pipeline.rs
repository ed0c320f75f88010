//! The pipeline over one input: reader -> transport -> session ->
//! findings, one record at a time; it does no rendering. [`check`] runs it
//! over a whole input, [`Checker`] is the same fed record by record (what
//! `check --follow` and the views' first pass use). The views' second pass
//! and the captures of `diff` and `replay` read the same records through
//! the same reader and transport, pairing with the session's component.

use std::io::{self, Read};

pub mod input;

use indexmap::IndexMap;

use crate::reader::{self, Body, Format, Record};
use crate::redact::Redactor;
use crate::report::FileReport;
use crate::rules::finding::{Finding, Findings};
use crate::rules::{Rule, framing};
use crate::session::{Boundary, Config, FollowStop, LogCut, Session, Summary, Waiting};
use crate::transport::{Item, Transport};
use crate::wire::dir::Dir;
use crate::wire::message::{self, Frame, Kind, RequestId};
use crate::wire::skim::{Ahead, Build, Op, ReadAhead};

/// Options for checking one input.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub session: Config,
    /// Forces an input format instead of detecting it.
    pub format: Option<Format>,
    /// Which rules to report, and at what severity.
    pub filter: Filter,
    /// `--redact`: hide the log's strings in what is reported.
    pub redact: bool,
    /// Read the lines ahead on a second thread ([`read_ahead`]): for one
    /// input checked while another core is free.
    pub read_ahead: bool,
}

pub use crate::rules::finding::Filter;

/// One session source's pipeline: its transport, its current session, and
/// that session's index in the report.
struct Lane {
    transport: Transport,
    session: Session,
    boundary: Boundary,
    index: usize,
    /// The lane's number: the order the sources first appeared in (what a
    /// view of the same records is told, [`Each`]).
    number: usize,
}

/// What a [`Checker`] hands a view of the same input: each item, with the
/// number of the lane (the server, in a log that interleaves several) it
/// belongs to, lanes numbered from 0 in the order they first appear. A view
/// keeps what it pairs per lane, so that it splits the log as `check` does.
pub type Each<'a> = dyn FnMut(usize, &Item) + 'a;

/// Checks one input. `Err` only when reading fails; bad content is findings.
pub fn check(path: &str, input: Box<dyn Read + Send>, options: &Options) -> io::Result<FileReport> {
    let mut checker = Checker::new(options);
    let (format, lines) = if options.read_ahead {
        let (short, input) = short_lines(input)?;
        if short {
            read_ahead(input, options.format, &mut checker, Builds::WhileBehind)?
        } else {
            let opened = reader::open(input, options.format)?;
            read_in_turns(opened.records, &mut checker)?;
            (opened.format, opened.lines.get())
        }
    } else {
        let opened = reader::open(input, options.format)?;
        for record in opened.records {
            checker.push(record?, &mut |_, _| {});
        }
        (opened.format, opened.lines.get())
    };
    Ok(checker.read_all(path, format, lines))
}

/// Whether the input's lines are short, by its first [`PEEK`] bytes: then
/// reading it on the other thread too ([`read_ahead`]) pays; with long
/// lines, reading it here and parsing the lines on both threads in turn
/// ([`read_in_turns`]) does. Returns the input, whole.
fn short_lines(input: Box<dyn Read + Send>) -> io::Result<(bool, Box<dyn Read + Send>)> {
    let mut peek = Vec::with_capacity(PEEK);
    let mut input = input;
    (&mut input).take(PEEK as u64).read_to_end(&mut peek)?;
    let lines = memchr::memchr_iter(b'\n', &peek).count();
    let short = lines * SHORT_LINE >= peek.len();
    Ok((short, Box::new(io::Cursor::new(peek).chain(input))))
}

/// How much of an input [`short_lines`] looks at, and the mean length of
/// a short line.
const PEEK: usize = 64 << 10;
const SHORT_LINE: usize = 1024;

/// How many records go between the threads at a time, at most, and how
/// many bytes they hold (a batch ends at the first record past it).
const AHEAD_BATCH: usize = 4096;
const AHEAD_BYTES: usize = 64 << 10;
/// How many short lines make a batch worth handing to the other thread.
const AHEAD_MIN_SHORT: usize = 64;
/// How many batches may be read ahead of the one being fed.
const AHEAD_DEPTH: usize = 2;
/// How many batches [`read_in_turns`] holds, read or not, and how many
/// bytes in them, before it waits for the first.
const AHEAD_HELD: usize = 6;
const AHEAD_HELD_BYTES: usize = 8 << 20;
/// How many of them [`read_in_turns`]'s other thread may have.
const AHEAD_THERE: usize = 4;
/// How many messages the read-ahead thread builds between looks at
/// whether the other thread took the next batch.
const AHEAD_BUILD: usize = 16;

/// Lines handed to the read-ahead thread, and what it read of them: the
/// tapes of short lines, and, when that thread read the input too, the
/// frames of long ones.
#[derive(Default)]
struct AheadBatch {
    /// The chunks the lines are in (each once per batch: a line's chunk is
    /// shared, and its count is touched once, not once per line).
    chunks: Vec<std::sync::Arc<Vec<u8>>>,
    /// Per record: its line's chunk (an index in `chunks`) and range, when it
    /// is a line the transport may parse.
    lines: Vec<Option<(usize, std::ops::Range<usize>)>>,
    /// How many of `lines` are short (written as tapes) and long.
    short: usize,
    long: usize,
    /// The bytes the batch's records hold.
    bytes: usize,
    /// What the thread wrote: all the tapes, and per record what it read.
    tape: Vec<Op>,
    read: Vec<Option<LineRead>>,
    /// Messages built from their tapes on the read-ahead thread (see
    /// [`AheadBatch::build_some`]), taken as they are fed.
    built: Vec<Option<(Frame, bool)>>,
    /// How many of `read` [`AheadBatch::build_some`] looked at.
    build_from: usize,
    /// On the way back to the read-ahead thread: the members of messages
    /// built there that the session is done with.
    #[allow(clippy::vec_box)]
    back: Vec<Box<crate::wire::message::Members>>,
}

/// Per chunk, when the lines of `lines` in it are valid UTF-8: where the
/// span from the first's start to the last's end starts, and the span,
/// checked whole. `None` for a chunk whose span is not valid UTF-8 (a line
/// in it, or between them, is not), or is mostly not these lines' bytes:
/// each line is then checked on its own.
fn utf8_spans<'c>(
    chunks: &'c [std::sync::Arc<Vec<u8>>],
    lines: impl Iterator<Item = &'c (usize, std::ops::Range<usize>)>,
) -> Vec<Option<(usize, &'c str)>> {
    // Per chunk: the span, and how many of its bytes are the lines'.
    let mut bounds: Vec<Option<(std::ops::Range<usize>, usize)>> = vec![None; chunks.len()];
    for (chunk, range) in lines {
        let Some(slot) = bounds.get_mut(*chunk) else {
            continue;
        };
        let (span, bytes) = slot.get_or_insert((range.clone(), 0));
        span.start = span.start.min(range.start);
        span.end = span.end.max(range.end);
        *bytes += range.len();
    }
    bounds
        .into_iter()
        .zip(chunks)
        .map(|(bound, chunk)| {
            let (span, bytes) = bound?;
            if span.len() > 2 * bytes + 4096 {
                return None;
            }
            let text = simdutf8::basic::from_utf8(chunk.get(span.clone())?).ok()?;
            Some((span.start, text))
        })
        .collect()
}

/// What the read-ahead thread read of a record's line.
enum LineRead {
    /// A short line's tape: its range in the batch's tapes, and whether
    /// something was left out.
    Tape(std::ops::Range<usize>, bool),
    /// A long line, parsed whole (`None`: refused by the parser). Boxed:
    /// a frame is 120 bytes, and every record of a batch has an entry,
    /// written on one thread and read on the other.
    Parsed(Box<Option<(Frame, bool)>>),
    /// A short line's message, built from its tape on the read-ahead
    /// thread: its place in the batch's `built`.
    Built(usize),
}

impl AheadBatch {
    /// Reads the next records into `recs`, up to a batch, taking note of
    /// their lines; `false` when the input ended.
    fn fill(&mut self, records: &mut reader::Records, recs: &mut Vec<Record>) -> io::Result<bool> {
        for record in records.by_ref() {
            let record = record?;
            self.bytes += self.add(&record);
            recs.push(record);
            if recs.len() == AHEAD_BATCH || self.bytes >= AHEAD_BYTES {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Takes note of a record's line; returns the bytes the record holds
    /// (what bounds a batch).
    fn add(&mut self, record: &Record) -> usize {
        let Body::Line { dir, bytes } = &record.body else {
            self.lines.push(None);
            return match &record.body {
                Body::Partial { json, .. } => json.len(),
                Body::Unreadable(bytes) => bytes.len(),
                Body::HostParseError(text)
                | Body::HostRejected(text)
                | Body::Undecodable { error: text, .. } => text.len(),
                _ => 0,
            };
        };
        // Only a line of a message stream that may be a plain line of JSON.
        let line = (*dir != Dir::Stderr && crate::transport::may_be_json_line(bytes)).then(|| {
            let (chunk, range) = bytes.shared();
            if !self
                .chunks
                .last()
                .is_some_and(|c| std::sync::Arc::ptr_eq(c, chunk))
            {
                self.chunks.push(chunk.clone());
            }
            (self.chunks.len() - 1, range)
        });
        if line.is_some() {
            if crate::wire::skim::may_read_ahead(bytes.len()) {
                self.short += 1;
            } else {
                self.long += 1;
            }
        }
        self.lines.push(line);
        bytes.len()
    }

    /// On the read-ahead thread: writes each short line's tape and, with
    /// `long`, parses each long line whole (the thread that read the
    /// input, where the line's bytes are in the core's cache).
    fn read(&mut self, build: Build, long: bool) {
        self.tape.clear();
        self.read.clear();
        let read_here =
            |range: &std::ops::Range<usize>| long || crate::wire::skim::may_read_ahead(range.len());
        // The UTF-8 of the lines read here, checked a chunk's span at a time
        // (a call per line cost more than the check of a short line).
        let spans = utf8_spans(
            &self.chunks,
            self.lines
                .iter()
                .flatten()
                .filter(|(_, range)| read_here(range)),
        );
        for line in &self.lines {
            let read = line.as_ref().and_then(|(chunk, range)| {
                let short = crate::wire::skim::may_read_ahead(range.len());
                if !read_here(range) {
                    return None;
                }
                let text = match spans.get(*chunk).copied().flatten() {
                    // `None` only when the range does not start and end at
                    // char boundaries of the span, never for a line's.
                    Some((base, span)) => span.get(range.start - base..range.end - base),
                    None => simdutf8::basic::from_utf8(&self.chunks[*chunk][range.clone()]).ok(),
                }?;
                // What the transport would check before parsing (`add` checked
                // the rest): it trusts what was read ahead.
                if !crate::transport::is_json_text(text) {
                    return None;
                }
                if !short {
                    return Some(LineRead::Parsed(Box::new(
                        crate::wire::skim::parse_cut_as(text, build).ok(),
                    )));
                }
                let from = self.tape.len();
                Some(
                    match crate::wire::skim::read_ahead(text, build, &mut self.tape) {
                        Some(cut) => LineRead::Tape(from..self.tape.len(), cut),
                        // Not one the short-line reader reads: parsed whole here
                        // too, not left to the checking thread.
                        None => LineRead::Parsed(Box::new(
                            crate::wire::skim::parse_cut_as(text, build).ok(),
                        )),
                    },
                )
            });
            self.read.push(read);
        }
    }

    /// On the read-ahead thread, while the other is behind: builds the
    /// messages of up to `n` more short lines from their tapes (the work
    /// the other thread would do first); `false` when none is left.
    fn build_some(&mut self, n: usize) -> bool {
        let mut done = 0;
        while self.build_from < self.read.len() {
            let i = self.build_from;
            self.build_from += 1;
            let Some(LineRead::Tape(range, cut)) = &self.read[i] else {
                continue;
            };
            let Some((chunk, line)) = self.lines[i].clone() else {
                continue;
            };
            // SAFETY: as in `ahead`: `read` found these bytes valid UTF-8.
            let text = unsafe { std::str::from_utf8_unchecked(&self.chunks[chunk][line]) };
            let ahead = Ahead {
                tape: &self.tape[range.clone()],
                cut: *cut,
                text,
            };
            if let Some(read) = crate::wire::skim::parse_ahead(text, ahead) {
                self.read[i] = Some(LineRead::Built(self.built.len()));
                self.built.push(Some(read));
            }
            done += 1;
            if done == n {
                return true;
            }
        }
        false
    }

    /// Whether enough of the batch's lines are short for the other thread
    /// to write their tapes (a batch of long lines goes to the skim parser
    /// on the checking thread, sooner than the other thread wakes).
    fn worth_reading(&self) -> bool {
        self.short >= AHEAD_MIN_SHORT
    }

    /// Feeds the batch's records, `records`, to `checker`, each with what
    /// was read ahead of it.
    fn feed(&mut self, records: impl IntoIterator<Item = Record>, checker: &mut Checker) {
        for (i, record) in records.into_iter().enumerate() {
            let ahead = self.ahead(i);
            checker.push_ahead(record, ahead, &mut |_, _| {});
        }
    }

    /// What was read ahead of the batch's `i`th record (taken: a parsed
    /// frame is handed over).
    fn ahead(&mut self, i: usize) -> Option<ReadAhead<'_>> {
        let read = self.read.get_mut(i)?.take()?;
        let (chunk, line) = self.lines.get(i)?.clone()?;
        let bytes = &self.chunks[chunk][line];
        // SAFETY: `read` found these very bytes valid UTF-8 (a tape is
        // written, and a line parsed, only of a line that is), and they
        // have not changed since: a chunk is written only while no line
        // holds it (`Lines` reads into a chunk through `Arc::get_mut`), and
        // the batch holds it.
        let text = |bytes| unsafe { std::str::from_utf8_unchecked(bytes) };
        Some(match read {
            LineRead::Tape(range, cut) => ReadAhead::Tape(Ahead {
                tape: &self.tape[range],
                cut,
                text: text(bytes),
            }),
            LineRead::Parsed(read) => ReadAhead::Parsed {
                text: text(bytes),
                read: *read,
            },
            LineRead::Built(at) => ReadAhead::Parsed {
                text: text(bytes),
                read: self.built.get_mut(at)?.take(),
            },
        })
    }

    fn clear(&mut self) {
        self.chunks.clear();
        self.lines.clear();
        self.short = 0;
        self.long = 0;
        self.bytes = 0;
        self.tape.clear();
        self.read.clear();
        self.built.clear();
        self.build_from = 0;
    }
}

/// [`read_ahead`] for an input of long lines: this thread reads the
/// records, and the two threads share the reading of the batches (the
/// skim parser's parse of each long line, the tapes of short lines): a
/// batch goes to the other thread while it has fewer than
/// [`AHEAD_THERE`] in hand, and is read here otherwise, where its bytes
/// are in this core's cache. This thread then feeds the batches in order,
/// each as soon as it is read, so that the parse of one batch runs beside
/// the parse of the next. At most [`AHEAD_HELD`] batches, and
/// [`AHEAD_HELD_BYTES`] of lines, are held at a time. The findings are the same as one thread's (the same records reach
/// the same session in order, and a line is parsed the same on either
/// thread).
fn read_in_turns(records: reader::Records, checker: &mut Checker) -> io::Result<()> {
    let build = checker.build;
    std::thread::scope(|scope| {
        let (to_reader, batches) = std::sync::mpsc::sync_channel::<AheadBatch>(AHEAD_THERE);
        let (done, read) = std::sync::mpsc::sync_channel::<AheadBatch>(AHEAD_THERE);
        scope.spawn(move || {
            for mut batch in batches {
                batch.read(build, true);
                if done.send(batch).is_err() {
                    break;
                }
            }
        });
        let mut held = HeldBatches {
            waiting: std::collections::VecDeque::new(),
            spare: Vec::new(),
            spare_recs: Vec::new(),
        };
        let mut records = records;
        let mut end = false;
        while !end {
            let mut batch = held.spare.pop().unwrap_or_default();
            let mut recs = held
                .spare_recs
                .pop()
                .unwrap_or_else(|| Vec::with_capacity(AHEAD_BATCH));
            end = !batch.fill(&mut records, &mut recs)?;
            let bytes = batch.bytes;
            let at = if !batch.worth_reading() && batch.long == 0 {
                batch.clear();
                held.spare.push(batch);
                Held::Unread
            } else if held.there() < AHEAD_THERE {
                to_reader.send(batch).map_err(|_| ahead_stopped())?;
                Held::There
            } else {
                batch.read(build, true);
                Held::Read(batch)
            };
            held.waiting.push_back((recs, at, bytes));
            // What is ready is fed at once (a batch not read ahead while
            // its lines are in this core's cache and their chunk is free to
            // be read into again); the first is waited for only when too
            // many batches, or too many bytes, are held (a run of lines of
            // hundreds of megabytes is held one at a time, as on one
            // thread).
            while held.feed_first(&read, checker, held.too_many())? {}
        }
        drop(to_reader);
        while held.feed_first(&read, checker, true)? {}
        Ok(())
    })
}

/// The error when [`read_in_turns`]'s other thread is gone.
fn ahead_stopped() -> io::Error {
    io::Error::other("the read-ahead thread stopped")
}

/// Where a batch that waits to be fed in [`read_in_turns`] is.
enum Held {
    /// Nothing in it worth reading ahead: its lines are parsed as they are
    /// fed.
    Unread,
    /// On the other thread, being read.
    There,
    /// Read.
    Read(AheadBatch),
}

/// [`read_in_turns`]'s batches: those waiting to be fed, in order, and
/// the emptied ones to be filled again.
struct HeldBatches {
    /// Each with the bytes its records hold.
    waiting: std::collections::VecDeque<(Vec<Record>, Held, usize)>,
    /// Emptied batches and record buffers: a buffer of records is 4,096
    /// records long, and one allocated per batch of a few long lines cost
    /// page faults on every batch.
    spare: Vec<AheadBatch>,
    spare_recs: Vec<Vec<Record>>,
}

impl HeldBatches {
    /// Whether more batches, or bytes, are held than the first should wait
    /// to be fed.
    fn too_many(&self) -> bool {
        self.waiting.len() > AHEAD_HELD
            || self
                .waiting
                .iter()
                .map(|(_, _, bytes)| bytes)
                .sum::<usize>()
                > AHEAD_HELD_BYTES
    }

    /// How many are on the other thread (sent, not yet back).
    fn there(&self) -> usize {
        self.waiting
            .iter()
            .filter(|(_, held, _)| matches!(held, Held::There))
            .count()
    }

    /// Feeds the first batch waiting when it is ready, or, with `wait`, once
    /// the other thread (sending to `read`) has read it; `false` when none
    /// was fed.
    fn feed_first(
        &mut self,
        read: &std::sync::mpsc::Receiver<AheadBatch>,
        checker: &mut Checker,
        wait: bool,
    ) -> io::Result<bool> {
        let Some((_, held, _)) = self.waiting.front_mut() else {
            return Ok(false);
        };
        if let Held::There = held {
            let batch = if wait {
                read.recv().map_err(|_| ahead_stopped())?
            } else {
                match read.try_recv() {
                    Ok(batch) => batch,
                    Err(std::sync::mpsc::TryRecvError::Empty) => return Ok(false),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        return Err(ahead_stopped());
                    }
                }
            };
            *held = Held::Read(batch);
        }
        let (mut recs, held, _) = self.waiting.pop_front().expect("a batch waits");
        match held {
            Held::Read(mut batch) => {
                batch.feed(recs.drain(..), checker);
                batch.clear();
                self.spare.push(batch);
            }
            _ => recs
                .drain(..)
                .for_each(|record| checker.push_ahead(record, None, &mut |_, _| {})),
        }
        self.spare_recs.push(recs);
        Ok(true)
    }
}

/// Reads `input` on a second thread and feeds its records to `checker`:
/// the other thread opens the input, reads its records and writes the tape
/// of each short line ([`crate::wire::skim::read_ahead`]), a batch at a
/// time; this thread builds each message from its tape and checks it while
/// the other reads the next batch. When this thread is behind (the batches
/// before wait to be fed), the other builds messages of the batch in hand
/// from their tapes too, until this one takes the next batch: the two
/// share the work as their loads allow (`builds`). What crosses between
/// the threads is records (their lines shared, not copied), tapes and
/// those messages, whose members go back to the thread that allocated
/// them once the session is done with them, to be read into again there
/// (`fast::give_spare`): memory allocated on one thread and freed on the
/// other cost glibc's allocator more than building the message did. The
/// batches' buffers go back to be filled again, and at most
/// [`AHEAD_DEPTH`] batches are in flight, so memory stays bounded. The
/// findings are the same as one thread's (the same records reach the same
/// session in order, and a message is the same built on either thread).
/// Returns the input's format and how many lines were read.
fn read_ahead(
    input: Box<dyn Read + Send>,
    forced: Option<Format>,
    checker: &mut Checker,
    builds: Builds,
) -> io::Result<(Format, u64)> {
    let build = checker.build;
    std::thread::scope(|scope| {
        let (send, batches) =
            std::sync::mpsc::sync_channel::<(Vec<Record>, AheadBatch)>(AHEAD_DEPTH);
        // Emptied batches, back to be filled again (room for every batch
        // there can be, so that handing one back never waits).
        let (give_back, emptied) =
            std::sync::mpsc::sync_channel::<(Vec<Record>, AheadBatch)>(AHEAD_DEPTH + 2);
        let reading = scope.spawn(move || -> io::Result<(Format, u64)> {
            crate::wire::skim::set_ahead();
            let opened = reader::open(input, forced)?;
            let mut records = opened.records;
            let mut end = false;
            'read: while !end {
                let (mut recs, mut batch) = emptied
                    .try_recv()
                    .unwrap_or_else(|_| (Vec::with_capacity(AHEAD_BATCH), AheadBatch::default()));
                batch.back.drain(..).for_each(crate::wire::skim::give_spare);
                end = !batch.fill(&mut records, &mut recs)?;
                // Short lines' tapes are written when there are enough of
                // them to pay; long lines are parsed here, where their bytes
                // were read.
                if batch.worth_reading() || batch.long > 0 {
                    batch.read(build, true);
                }
                // While the other thread is behind (the batches before
                // this one wait), build this batch's messages for it.
                if builds == Builds::All {
                    batch.build_some(usize::MAX);
                }
                let mut next = (recs, batch);
                loop {
                    match send.try_send(next) {
                        Ok(()) => break,
                        Err(std::sync::mpsc::TrySendError::Full(mut full)) => {
                            if !full.1.build_some(AHEAD_BUILD) {
                                if send.send(full).is_err() {
                                    break 'read;
                                }
                                break;
                            }
                            next = full;
                        }
                        Err(std::sync::mpsc::TrySendError::Disconnected(_)) => break 'read,
                    }
                }
            }
            Ok((opened.format, opened.lines.get()))
        });
        for (mut recs, mut batch) in batches {
            batch.feed(recs.drain(..), checker);
            batch.clear();
            crate::wire::skim::take_back(&mut batch.back);
            // The other thread may be done: then the batch is dropped here.
            let _ = give_back.try_send((recs, batch));
        }
        let joined = reading.join();
        crate::wire::skim::forget_back();
        match joined {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Which messages [`read_ahead`]'s reading thread builds from their tapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builds {
    /// As many as it can while the checking thread is behind: the two
    /// threads share that work as their loads allow.
    WhileBehind,
    /// Every one (what the tests run, to see that a message built on
    /// either thread is checked the same).
    #[cfg_attr(not(test), allow(dead_code))]
    All,
}

/// The pipeline of one input, fed one record at a time: what [`check`] runs
/// over a whole file, and what a follower feeds as a file grows. A log that
/// interleaves several servers (Claude Desktop's `mcp.log`) is several
/// independent sessions, one lane each.
pub struct Checker {
    options: Options,
    lanes: IndexMap<Option<crate::reader::Source>, Lane>,
    /// The last record's source and the position of its lane: most logs
    /// have one source, and a log of several has runs of one, so a record's
    /// lane is found by comparing its source with the last one, not by
    /// hashing it (forgotten when a lane is removed, which moves another).
    last_lane: Option<(Option<crate::reader::Source>, usize)>,
    /// How many lanes were opened (the next lane's number).
    lanes_opened: usize,
    /// Finished sessions by index; `None` while a session is still open.
    sessions: Vec<Option<Summary>>,
    findings: Findings,
    items: Vec<Item>,
    lines_read: u64,
    /// With `--redact`: the strings seen so far.
    redactor: Option<Redactor>,
    /// What the parser builds of each message.
    build: Build,
    /// The line where a compressed input stopped decoding, if it did.
    undecodable: Option<u64>,
    /// `check --follow` was stopped before the log ended ([`Checker::stop_following`]).
    follow_stopped: Option<FollowStop>,
}

impl Checker {
    pub fn new(options: &Options) -> Checker {
        Checker {
            // The tool-schema checks' cache and budget: one per file.
            options: Options {
                session: Config {
                    work: Default::default(),
                    ..options.session.clone()
                },
                ..options.clone()
            },
            lanes: IndexMap::new(),
            last_lane: None,
            lanes_opened: 0,
            sessions: Vec::new(),
            findings: Findings::default(),
            items: Vec::new(),
            lines_read: 0,
            redactor: options.redact.then(Redactor::default),
            build: Build::Checks,
            undecodable: None,
            follow_stopped: None,
        }
    }

    /// A checker whose messages are built whole, for a view that also shows
    /// what it is fed (see [`Transport::whole_messages`]).
    pub fn whole_messages(mut self) -> Checker {
        self.build = Build::Views;
        self
    }

    /// Takes one record. `each` sees every item the record yields before the
    /// session takes it.
    pub fn push(&mut self, record: Record, each: &mut Each<'_>) {
        self.push_ahead(record, None, each);
    }

    /// [`Checker::push`] of a record whose line was read ahead (see
    /// [`read_ahead`]).
    fn push_ahead(&mut self, record: Record, ahead: Option<ReadAhead<'_>>, each: &mut Each<'_>) {
        if let Body::Undecodable { error, lines_read } = &record.body {
            // The input's, not one session's: reported with the first.
            self.findings.set_session(0);
            self.findings
                .push(crate::rules::framing::undecodable(error, *lines_read));
            self.undecodable = Some(record.line);
            return;
        }
        let pos = self.lane(&record.source);
        let lane = &mut self.lanes[pos];
        self.findings.set_session(lane.index);
        let mut item =
            lane.transport
                .push_ahead(record, ahead, &mut self.findings, &mut self.items);
        self.feed(pos, each);
        // Fed where it lies (not moved out of the option first).
        if let Some(item) = &mut item {
            self.feed_item(pos, item, each);
        }
        // Done with: a message's members go back to the parser's pool.
        if let Some(item) = item {
            item.recycle();
        }
    }

    /// The requests lane `number` still waits on now ([`Session::waiting`]).
    pub fn waiting(&self, number: usize) -> Vec<Waiting> {
        self.lanes
            .values()
            .filter(|lane| lane.number == number)
            .flat_map(|lane| lane.session.waiting())
            .collect()
    }

    /// How many lanes were opened (lanes are numbered from 0).
    pub fn lanes(&self) -> usize {
        self.lanes_opened
    }

    /// How many lines the reader read (for the forced-format note).
    pub fn lines_read(&mut self, lines: u64) {
        self.lines_read = lines;
    }

    /// [`Checker::finish`] of a whole input that the reader read `lines` of.
    fn read_all(mut self, path: &str, format: Format, lines: u64) -> FileReport {
        self.lines_read(lines);
        let mut report = self.finish(path, format, &mut |_, _| {});
        report.read.lines = lines;
        report
    }

    /// `check --follow` was stopped (Ctrl-C) while the log may go on: what
    /// is still open at [`Checker::finish`] was open when following stopped,
    /// not at the log's end.
    pub fn stop_following(&mut self, stop: FollowStop) {
        self.follow_stopped = Some(stop);
    }

    /// Ends the input: flushes the transports, turns what is still open into
    /// hangs and returns the report.
    pub fn finish(self, path: &str, format: Format, each: &mut Each<'_>) -> FileReport {
        self.finish_redacted(path, format, each).0
    }

    /// [`Checker::finish`], handing back the strings it saw under `--redact`
    /// so that a later view of the same file uses the same placeholders.
    pub fn finish_redacted(
        mut self,
        path: &str,
        format: Format,
        each: &mut Each<'_>,
    ) -> (FileReport, Option<Redactor>) {
        if self.lanes.is_empty() {
            self.lane(&None);
        }
        let keys: Vec<_> = self.lanes.keys().cloned().collect();
        for key in keys {
            let pos = self.lane(&key);
            let lane = &mut self.lanes[pos];
            self.findings.set_session(lane.index);
            lane.transport.finish(&mut self.findings, &mut self.items);
            self.feed(pos, each);
            let lane = &mut self.lanes[pos];
            // What cut the log: a compressed input that stops decoding
            // leaves its last line cut too.
            let cut_line = lane.transport.cut_at();
            let cut = match (self.undecodable, cut_line) {
                (Some(line), _) => Some((line, LogCut::Undecodable)),
                (None, Some((line, _))) => Some((line, LogCut::MidMessage)),
                (None, None) => None,
            };
            if let Some((line, how)) = cut {
                let text = cut_line.map(|(line, dir)| (line, crate::wire::dir::Side::of(dir)));
                lane.session.log_cut(line, how, text);
            }
            if let Some(stop) = &self.follow_stopped {
                lane.session.follow_stopped(stop.clone());
            }
            // swap_remove: O(1), so 10,000 servers in one log stay linear.
            let lane = self.lanes.swap_remove(&key).expect("lane exists");
            self.last_lane = None;
            self.findings.set_session(lane.index);
            self.sessions[lane.index] = Some(lane.session.finish(&mut self.findings));
        }
        self.findings.set_session(0);
        let tool_schemas = crate::rules::tools::file_note(
            self.options.session.tool_schemas,
            &self.options.session.work,
            &mut self.findings,
        );
        let mut sessions: Vec<Summary> = self.sessions.into_iter().flatten().collect();
        if let Some(redactor) = &mut self.redactor {
            sessions.iter_mut().for_each(|s| redactor.summary(s));
        }
        if let Some(forced) = self
            .options
            .format
            .filter(|f| self.lines_read > 0 && f.holds_messages())
        {
            if sessions
                .iter()
                .all(|s| s.counts.messages.iter().sum::<u64>() == 0)
            {
                self.findings.set_session(0);
                self.findings
                    .push(framing::nothing_read(self.lines_read, &forced.to_string()));
            }
        }
        let mut findings = self.options.filter.apply(self.findings.finish());
        if let Some(redactor) = &mut self.redactor {
            for finding in &mut findings {
                redactor.finding(finding);
            }
        }
        let report = FileReport {
            path: path.to_string(),
            format: format.as_str(),
            sessions,
            findings,
            message: None,
            read: Default::default(),
            tool_cost: None,
            tool_schemas,
        };
        (report, self.redactor)
    }

    /// How many findings are listed so far (what [`Checker::findings_since`]
    /// counts from).
    pub fn findings_listed(&self) -> usize {
        self.findings.listed().len()
    }

    /// The findings listed from index `from` on, as they are reported:
    /// filtered by `--select`, `--ignore` and `--severity`, and redacted
    /// under `--redact`.
    pub fn findings_since(&mut self, from: usize) -> Vec<Finding> {
        let filter = &self.options.filter;
        let mut fresh: Vec<Finding> = self.findings.listed()[from..]
            .iter()
            .filter_map(|f| filter.one(f.clone()))
            .collect();
        if let Some(redactor) = &mut self.redactor {
            fresh.iter_mut().for_each(|f| redactor.finding(f));
        }
        fresh
    }

    /// The position of a source's lane, opened on first use.
    #[inline]
    fn lane(&mut self, key: &Option<crate::reader::Source>) -> usize {
        if let Some((last, pos)) = &self.last_lane {
            if last == key {
                return *pos;
            }
        }
        let pos = self.lane_of(key);
        self.last_lane = Some((key.clone(), pos));
        pos
    }

    /// [`Checker::lane`] by the source's hash.
    #[inline(never)]
    fn lane_of(&mut self, key: &Option<crate::reader::Source>) -> usize {
        if let Some(pos) = self.lanes.get_index_of(key) {
            return pos;
        }
        let (session, index) = self.new_session(key);
        let number = self.lanes_opened;
        self.lanes_opened += 1;
        self.lanes
            .insert_full(
                key.clone(),
                Lane {
                    transport: match self.build {
                        Build::Checks => Transport::new(),
                        Build::Views => Transport::new().whole_messages(),
                    },
                    session,
                    boundary: Boundary::default(),
                    index,
                    number,
                },
            )
            .0
    }

    fn new_session(&mut self, key: &Option<crate::reader::Source>) -> (Session, usize) {
        self.sessions.push(None);
        let mut session = Session::new(self.options.session.clone());
        session.set_name(key.as_deref());
        (session, self.sessions.len() - 1)
    }

    /// Hands a lane's items to its session; a recorder's `# start` event
    /// after traffic closes the session and opens a new one.
    fn feed(&mut self, pos: usize, each: &mut Each<'_>) {
        // Most records leave no item here (a plain line's one message goes
        // straight to the session): nothing to drain.
        if self.items.is_empty() {
            return;
        }
        // Drained and put back, so the buffer is allocated once.
        let mut items = std::mem::take(&mut self.items);
        for mut item in items.drain(..) {
            self.feed_item(pos, &mut item, each);
            item.recycle();
        }
        self.items = items;
    }

    /// Feeds one item to the session of lane `pos`; the caller recycles it
    /// (taken by reference: an item is 192 bytes, not moved twice more).
    fn feed_item(&mut self, pos: usize, item: &mut Item, each: &mut Each<'_>) {
        if let Some(redactor) = &mut self.redactor {
            redactor.remember_item(item);
        }
        each(self.lanes[pos].number, item);
        if let Some(restart) = self.lanes[pos].boundary.restart(item) {
            let key = self.lanes.get_index(pos).expect("lane exists").0.clone();
            let (fresh, index) = self.new_session(&key);
            let lane = &mut self.lanes[pos];
            let mut done = std::mem::replace(&mut lane.session, fresh);
            done.hand_over(&mut lane.session);
            let old = std::mem::replace(&mut lane.index, index);
            self.findings.set_session(old);
            self.sessions[old] = Some(done.finish(&mut self.findings));
            self.findings.set_session(index);
            self.findings
                .push(crate::rules::notes::session_restarted(restart, item.at()));
        }
        self.lanes[pos].session.observe(item, &mut self.findings);
    }
}

/// The inputs of a three-file `tee` capture: what the client sent, what the
/// server wrote to stdout, and (optionally) its stderr, each with its name.
pub struct Tee {
    pub client: (String, Box<dyn Read>),
    pub server: (String, Box<dyn Read>),
    pub stderr: Option<(String, Box<dyn Read>)>,
}

/// Rules that need the order between the files, which a three-file capture
/// does not have.
const UNORDERED: [Rule; 3] = [
    Rule::RequestBeforeInitialized,
    Rule::ResponseAfterCancel,
    Rule::CancelUnknownRequest,
];

/// One stream of a three-file capture, with its next line parsed enough to
/// merge it with the other stream.
struct TeeStream {
    lines: reader::Lines,
    dir: Dir,
    next: Option<(u64, Vec<u8>, bool)>,
    /// What `next` is, parsed once when it is read: the merge asks again
    /// for every line of the other stream while this one waits (a 2 MB line
    /// against 10,000 was parsed 10,000 times, seconds of work).
    peeked: Option<Peek>,
}

/// What the merge needs to know about a line.
#[derive(Clone)]
enum Peek {
    Request(RequestId),
    Response(RequestId),
    Notification,
    /// Not a message (stray text, broken JSON): depends on nothing.
    Noise,
}

impl TeeStream {
    fn new(input: Box<dyn Read>, dir: Dir) -> io::Result<TeeStream> {
        let mut lines =
            reader::Lines::new(Box::new(io::BufReader::with_capacity(64 * 1024, input)));
        let next = lines.next_line()?;
        let peeked = Self::classify(&next);
        Ok(TeeStream {
            lines,
            dir,
            next,
            peeked,
        })
    }

    fn peek(&self) -> Option<Peek> {
        self.peeked.clone()
    }

    fn classify(next: &Option<(u64, Vec<u8>, bool)>) -> Option<Peek> {
        let (_, bytes, _) = next.as_ref()?;
        let frame = serde_json::from_slice::<serde_json::Value>(bytes).map(message::classify);
        Some(match frame {
            Ok(Frame::Message(m)) => match (m.kind, m.id.id()) {
                (Kind::Request, Some(id)) => Peek::Request(id.clone()),
                (Kind::Response, Some(id)) => Peek::Response(id.clone()),
                (Kind::Notification, _) => Peek::Notification,
                _ => Peek::Noise,
            },
            _ => Peek::Noise,
        })
    }

    fn take(&mut self) -> io::Result<Option<Record>> {
        let Some((line, bytes, terminated)) = self.next.take() else {
            return Ok(None);
        };
        self.next = self.lines.next_line()?;
        self.peeked = Self::classify(&self.next);
        Ok(Some(Record {
            line,
            time: None,
            body: Body::Line {
                dir: self.dir,
                bytes: bytes.into(),
            },
            terminated,
            source: None,
        }))
    }
}

/// Checks a three-file `tee` capture. The files have no timestamps, so the
/// order between client and server lines is rebuilt from the ids: a response
/// goes right after the request it answers, a client's answer after the
/// server's request, everything else keeps its file's order. Stderr comes
/// last. Findings point at the file of the side they are about.
pub fn check_tee(tee: Tee, options: &Options) -> io::Result<FileReport> {
    let mut options = options.clone();
    options.filter.ignore.extend(UNORDERED);
    let mut checker = Checker::new(&options);
    let names = [
        tee.client.0.clone(),
        tee.server.0.clone(),
        tee.stderr.as_ref().map(|s| s.0.clone()).unwrap_or_default(),
    ];
    let mut client = TeeStream::new(tee.client.1, Dir::ClientToServer)?;
    let mut server = TeeStream::new(tee.server.1, Dir::ServerToClient)?;
    let note = format!(
        "three files without timestamps: the order between {} and {} was rebuilt from the ids, stderr is placed after the messages, and {} are not judged",
        names[0],
        names[1],
        UNORDERED
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    checker.push(
        Record {
            line: 1,
            time: None,
            body: Body::Note(note.into()),
            terminated: true,
            source: None,
        },
        &mut |_, _| {},
    );
    let mut lines = 0;
    let mut open_client = std::collections::HashSet::new();
    let mut open_server = std::collections::HashSet::new();
    loop {
        let take_server = match (client.peek(), server.peek()) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(c), Some(s)) => match (c, s) {
                (_, Peek::Response(id)) if open_client.contains(&id) => true,
                (Peek::Response(id), _) if open_server.contains(&id) => false,
                // A client's answer waits for the server's request.
                (Peek::Response(_), _) => true,
                // Text depends on nothing; a server notification (progress,
                // logging) belongs to work already under way.
                (_, Peek::Noise) => true,
                (_, Peek::Notification) => !open_client.is_empty(),
                _ => false,
            },
        };
        let (stream, own, other) = if take_server {
            (&mut server, &mut open_server, &mut open_client)
        } else {
            (&mut client, &mut open_client, &mut open_server)
        };
        match stream.peek() {
            Some(Peek::Request(id)) => {
                own.insert(id);
            }
            Some(Peek::Response(id)) => {
                other.remove(&id);
            }
            _ => {}
        }
        if let Some(record) = stream.take()? {
            lines += 1;
            checker.push(record, &mut |_, _| {});
        }
    }
    if let Some((_, input)) = tee.stderr {
        let mut stderr = TeeStream::new(input, Dir::Stderr)?;
        while let Some(record) = stderr.take()? {
            lines += 1;
            checker.push(record, &mut |_, _| {});
        }
    }
    let name = names
        .iter()
        .filter(|n| !n.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" + ");
    let mut report = checker.finish(&name, Format::Tee, &mut |_, _| {});
    report.read.lines = lines;
    for finding in &mut report.findings {
        finding.file = match finding.dir {
            Some(Dir::ClientToServer) => Some(names[0].clone()),
            Some(Dir::ServerToClient) => Some(names[1].clone()),
            Some(Dir::Stderr) if !names[2].is_empty() => Some(names[2].clone()),
            _ => None,
        };
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks a transcript and returns `(rule, line)` for every finding.
    fn findings(transcript: &str) -> Vec<(&'static str, u64)> {
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(transcript.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("in-memory read");
        report
            .findings
            .iter()
            .map(|f| (f.rule.name(), f.line))
            .collect()
    }

    const INIT: &str = r#"# start
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

    fn with_init(rest: &str) -> String {
        format!("{INIT}{rest}")
    }

    /// An answer to a notification sent with an id is the peer treating it
    /// as a request: the notification is the finding, the answer no orphan;
    /// a second answer is still a duplicate, and the id stays used.
    #[test]
    fn an_answered_notification_with_an_id_is_no_orphan() {
        let t = r#"# start
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","id":2,"method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":2,"result":{}}
< {"jsonrpc":"2.0","id":2,"result":{}}
< {"jsonrpc":"2.0","id":9,"result":{}}
"#;
        assert_eq!(
            findings(t),
            vec![
                ("notification-with-id", 4),
                ("duplicate-response", 6),
                ("orphan-response", 7)
            ]
        );
    }

    /// A server answering a newer version: the client that then disconnects
    /// is right; one that goes on without `notifications/initialized` is not.
    #[test]
    fn a_newer_version_answer_excuses_only_a_disconnect() {
        let init = r#"# start
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
"#;
        let gone = format!("{init}# SIGTERM received; forwarded to the server\n");
        assert_eq!(findings(&gone), vec![("version-upgrade", 3)]);
        let went_on = format!(
            "{init}> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[]}}}}\n"
        );
        assert_eq!(
            findings(&went_on),
            vec![
                ("version-upgrade", 3),
                ("missing-initialized", 3),
                ("request-before-initialized", 4)
            ]
        );
    }

    /// `notifications/initialized` logged before the `initialize` result it
    /// follows (header-framed bodies are recorded late) was sent: neither
    /// "never sent" nor the requests after it "before initialized".
    #[test]
    fn an_initialized_logged_before_the_result_was_sent() {
        let t = r#"# start
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#;
        assert_eq!(findings(t), vec![]);
    }

    /// A second `initialize` with ids starting over (the first one's id): a
    /// new session with a note (a host that starts a server per operation),
    /// not an `id-reuse` per reused id; after an end event, the same; a
    /// repeat with a fresh id, refused, keeps the session:
    /// `initialize-repeated`.
    #[test]
    fn a_client_starting_over_is_one_finding_or_a_new_session() {
        let again = r#"> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
"#;
        let t = format!("# start\n{again}{again}");
        assert_eq!(findings(&t), vec![("session-restarted", 9)]);
        let t = format!("# start\n{again}# stdin closed\n{again}");
        assert_eq!(findings(&t), vec![("session-restarted", 10)]);
        let refused = r#"> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Already initialized"}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
< {"jsonrpc":"2.0","id":4,"result":{"tools":[]}}
"#;
        let t = format!("# start\n{again}{refused}");
        assert_eq!(findings(&t), vec![("initialize-repeated", 9)]);
    }

    /// A cancel that gave up waiting is a hang the client cut short (a
    /// warning); one the client chose ("no longer needed") is a note.
    #[test]
    fn a_cancel_is_a_warning_only_when_it_gave_up_waiting() {
        let severity = |reason: &str| {
            let t = with_init(&format!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{}}}}}}\n> {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":1{reason}}}}}\n"
            ));
            let report = check(
                "t",
                Box::new(std::io::Cursor::new(t.into_bytes())),
                &Options::default(),
            )
            .expect("read");
            report
                .findings
                .iter()
                .filter(|f| f.rule == Rule::CancelledRequest)
                .map(|f| f.severity)
                .collect::<Vec<_>>()
        };
        use crate::rules::Severity::{Info, Warning};
        assert_eq!(severity(""), vec![Warning]);
        assert_eq!(
            severity(r#","reason":"McpError: MCP error -32001: Request timed out""#),
            vec![Warning]
        );
        assert_eq!(severity(r#","reason":"Deadline exceeded""#), vec![Warning]);
        assert_eq!(severity(r#","reason":"no longer needed""#), vec![Info]);
        assert_eq!(
            severity(r#","reason":"AbortError: This operation was aborted""#),
            vec![Info]
        );
    }

    /// The era comes from what was negotiated: an `initialize` proposing
    /// 2026-07-28 answered with 2025-11-25 is a legacy handshake (the
    /// downgrade is the one finding), not a method outside its revision.
    #[test]
    fn a_proposed_2026_initialize_answered_legacy_is_legacy() {
        let t = r#"# start
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#;
        assert_eq!(findings(t), vec![("version-downgrade", 3)]);
    }

    #[test]
    fn both_sides_may_use_the_same_small_ids() {
        let t = with_init(
            r#"< {"jsonrpc":"2.0","id":0,"method":"roots/list"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
> {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&t), vec![]);
    }

    #[test]
    fn id_reuse_after_completion_depends_on_the_revision() {
        let legacy = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&legacy), vec![("id-reuse", 7)]);
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let modern = format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"complete\",\"tools\":[],\"ttlMs\":0,\"cacheScope\":\"private\"}}}}\n\
             > {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"complete\",\"tools\":[],\"ttlMs\":0,\"cacheScope\":\"private\"}}}}\n"
        );
        assert_eq!(findings(&modern), vec![]);
    }

    #[test]
    fn ids_are_compared_as_exact_json_values() {
        let t = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
> {"jsonrpc":"2.0","id":"1","method":"tools/list"}
< {"jsonrpc":"2.0","id":"1","result":{"tools":[]}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&t), vec![]);
    }

    #[test]
    fn a_mid_session_capture_stays_quiet_about_what_it_cannot_know() {
        let t = r#"> {"jsonrpc":"2.0","id":9,"method":"tools/list"}
< {"jsonrpc":"2.0","id":8,"result":{"tools":[]}}
< {"jsonrpc":"2.0","id":9,"result":{"tools":[]}}
> [{"jsonrpc":"2.0","id":10,"method":"ping"}]
< {"jsonrpc":"2.0","id":10,"result":{}}
"#;
        assert_eq!(findings(t), vec![("starts-mid-session", 1)]);
    }

    #[test]
    fn discover_probe_then_fallback_is_valid() {
        let t = r#"> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
        assert_eq!(findings(t), vec![]);
    }

    #[test]
    fn a_start_event_after_traffic_opens_a_new_session() {
        let t = format!("{INIT}{INIT}");
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.into_bytes())),
            &Options::default(),
        )
        .expect("read");
        assert_eq!(report.sessions.len(), 2);
        let notes: Vec<_> = report
            .findings
            .iter()
            .map(|f| (f.rule.name(), f.session, f.line))
            .collect();
        assert_eq!(notes, vec![("session-restarted", 1, 5)]);
    }

    #[test]
    fn a_hang_names_what_the_owing_side_did_next() {
        let t = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
! RuntimeError: worker died
# server exited with status 1
"#,
        );
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.into_bytes())),
            &Options::default(),
        )
        .expect("read");
        let hang = &report.findings[0];
        assert_eq!((hang.rule.name(), hang.line), ("unanswered-request", 5));
        for part in [
            "`tools/call` \"slow\" (id 1)",
            "server owes the reply",
            "answered 1 later request",
            "RuntimeError: worker died",
            "server exited with status 1",
        ] {
            assert!(
                hang.message.contains(part),
                "{part:?} missing from {:?}",
                hang.message
            );
        }
    }

    #[test]
    fn plain_logs_infer_directions() {
        let t = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":0,"method":"roots/list"}
{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
"#;
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("read");
        assert_eq!(report.format, "ndjson");
        let counts = report.sessions[0].counts.messages;
        assert_eq!(counts, [3, 2, 0], "client, server, unknown");
        let rules: Vec<_> = report.findings.iter().map(|f| f.rule.name()).collect();
        assert_eq!(rules, vec!["direction-inferred"]);
    }

    /// An input of long lines is read on both threads, a batch on one
    /// beside the next on the other ([`read_in_turns`]): the report is
    /// the one thread's, with lines the transport does not parse as they
    /// are among them, and a line of more than [`AHEAD_HELD_BYTES`].
    #[test]
    fn long_lines_parsed_on_both_threads_are_checked_the_same() {
        let check_with = |data: &[u8], read_ahead: bool| {
            let options = Options {
                read_ahead,
                ..Options::default()
            };
            let input = Box::new(std::io::Cursor::new(data.to_vec()));
            format!("{:?}", check("t", input, &options).expect("in-memory read"))
        };
        let mut log = String::from(INIT).into_bytes();
        for i in 1..600 {
            let rows: Vec<String> = (0..60 + i % 50)
                .map(|r| {
                    format!(
                        "{{\"id\":{r},\"name\":\"row {r}\\n\",\"ok\":{}}}",
                        r % 2 == 0
                    )
                })
                .collect();
            log.extend_from_slice(
                format!(
                    "> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"q\",\"arguments\":{{}}}}}}\n< {{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{} rows\"}}],\"structuredContent\":{{\"rows\":[{}]}}}}}}\n",
                    // Now and then an answer to an unknown id.
                    if i % 97 == 0 { i + 10_000 } else { i },
                    rows.len(),
                    rows.join(",")
                )
                .as_bytes(),
            );
            match i % 50 {
                10 => log.extend_from_slice(b"< {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":\"\xff\"}\n! caf\xc3\x28\n"),
                20 => log.extend_from_slice(b"> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}\r\n< Content-Length: 12\n"),
                30 => log.extend_from_slice(b"< hello from print()\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"res\n"),
                40 => {
                    // A line of 9 MiB: held alone.
                    let text = "word ".repeat((9 << 20) / 5);
                    log.extend_from_slice(format!("< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{text}\"}}}}\n").as_bytes());
                }
                _ => {}
            }
        }
        let (short, _) =
            short_lines(Box::new(std::io::Cursor::new(log.clone()))).expect("in-memory read");
        assert!(!short, "an input of long lines");
        let one = check_with(&log, false);
        for rule in [
            Rule::InvalidUtf8,
            Rule::StrayOutput,
            Rule::OrphanResponse,
            Rule::CrlfLineEnding,
        ] {
            assert!(one.contains(&format!("{rule:?}")), "{rule:?} in {one}");
        }
        assert_eq!(check_with(&log, true), one);
    }

    /// Messages built on the read-ahead thread (here every one of them; in
    /// use, as many as it can while the checking thread is behind) are
    /// checked as those built on the checking thread: the same report, on
    /// every rule's example log and on a busy stream of like messages long
    /// enough that their members go back and forth between the threads.
    #[test]
    fn messages_built_on_the_reading_thread_are_checked_the_same() {
        let one_thread = |data: &[u8]| {
            let report = check(
                "t",
                Box::new(std::io::Cursor::new(data.to_vec())),
                &Options::default(),
            )
            .expect("in-memory read");
            format!("{report:?}")
        };
        let built_ahead = |data: &[u8]| {
            let mut checker = Checker::new(&Options::default());
            let input = Box::new(std::io::Cursor::new(data.to_vec()));
            let (format, lines) =
                read_ahead(input, None, &mut checker, Builds::All).expect("in-memory read");
            format!("{:?}", checker.read_all("t", format, lines))
        };
        let mut busy = String::from(INIT).into_bytes();
        for i in 1..2000 {
            let token = format!("p-{}", i % 5);
            busy.extend_from_slice(format!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"t{}\",\"arguments\":{{\"q\":\"caf\\u00e9 {i}\"}},\"_meta\":{{\"progressToken\":\"{token}\"}}}}}}\n",
                i % 3
            ).as_bytes());
            busy.extend_from_slice(format!(
                "< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"{token}\",\"progress\":{}}}}}\n",
                i % 4
            ).as_bytes());
            busy.extend_from_slice(format!(
                "< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"line\\n{i}\"}}}}\n"
            ).as_bytes());
            // Now and then an answer twice, an error, an unknown id, a
            // member of another shape.
            let answer = match i % 7 {
                0 => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"error\":{{\"code\":-32602,\"message\":\"bad\"}}}}"
                ),
                1 => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}",
                    i + 5000
                ),
                2 => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":{i}}}]}}}}"
                ),
                _ => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"r{i}\"}}],\"isError\":false}}}}"
                ),
            };
            busy.extend_from_slice(format!("< {answer}\n").as_bytes());
            // Now and then a line the transport does not parse as it is,
            // among those read ahead: not UTF-8 (in a message, on stderr),
            // ending in a carriage return, a header, a byte order mark.
            if i % 401 == 0 {
                busy.extend_from_slice(b"< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"\xff\xfe\"}}\n! caf\xc3\x28\n");
                busy.extend_from_slice(format!("> {{\"jsonrpc\":\"2.0\",\"id\":\"cr{i}\",\"method\":\"ping\"}}\r\n< Content-Length: 12\n< \u{feff}{{\"jsonrpc\":\"2.0\",\"id\":\"cr{i}\",\"result\":{{}}}}\n").as_bytes());
            }
            if i % 11 == 0 {
                busy.extend_from_slice(format!("< {answer}\n! a line on stderr\n").as_bytes());
            }
        }
        let report = built_ahead(&busy);
        for rule in [
            Rule::InvalidUtf8,
            Rule::CrlfLineEnding,
            Rule::ContentLengthFraming,
            Rule::Bom,
        ] {
            assert!(
                report.contains(&format!("{rule:?}")),
                "{rule:?} in {report}"
            );
        }
        let mut logs = vec![("busy".to_string(), busy)];
        let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rules");
        for entry in std::fs::read_dir(rules).expect("fixtures/rules lists") {
            let path = entry.expect("an entry").path();
            let data = std::fs::read(&path).expect("a log reads");
            logs.push((path.display().to_string(), data));
        }
        assert!(logs.len() > 50, "{} logs", logs.len());
        for (name, data) in &logs {
            assert_eq!(built_ahead(data), one_thread(data), "{name}");
        }
    }
}
