//! `mcpdbg check --follow`: checks a file while it grows, as `tail -f`
//! follows it, and prints each finding as it appears.
//!
//! The only module besides the recorder that waits and reads the clock: it
//! polls the file, feeds complete lines to the same pipeline `check` runs
//! ([`Checker`]), and while requests are open prints a status line with the
//! oldest one and how long it has waited. When the file shrinks (truncated)
//! or the path names a new file (rotated), what was read so far becomes a
//! finished part of the report and reading starts again at the beginning.
//! When `stop` is set (Ctrl-C), the last partial line is read and the
//! report is returned. The analysis itself stays in the pipeline.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::pipeline::{Checker, Options};
use crate::reader::{self, Format, Records};
use crate::report::{FileReport, Report};
use crate::session::Waiting;
use crate::text::{duration, escape_control};
use crate::transport::Item;
use crate::wire::event::EventKind;
use crate::wire::time::Timestamp;

/// How `--follow` polls.
#[derive(Clone, Debug)]
pub struct FollowOptions {
    pub check: Options,
    /// How often the file is looked at.
    pub poll: Duration,
    /// How often the oldest open request is reported while there is one.
    pub status_every: Duration,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            check: Options::default(),
            poll: Duration::from_millis(200),
            status_every: Duration::from_secs(5),
        }
    }
}

/// Complete lines waiting for the reader. Reading it when it is empty
/// returns 0 bytes, which ends the reader's iteration for now; the next
/// call after more lines arrive carries on where it stopped.
#[derive(Clone, Default)]
struct Feed(Rc<RefCell<VecDeque<u8>>>);

impl Read for Feed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut queue = self.0.borrow_mut();
        let (front, _) = queue.as_slices();
        let n = buf.len().min(front.len());
        buf[..n].copy_from_slice(&front[..n]);
        queue.drain(..n);
        Ok(n)
    }
}

/// How much of the file is read at a time: what is appended is read and
/// run through the pipeline a piece at a time, so following a large file
/// holds one piece (and the line it ends in), never the file.
const PIECE: usize = 1 << 20;

/// The identity of a file, to notice when its path names another one.
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

/// One generation of the followed file: from its start (or from when it was
/// truncated or replaced) to now.
struct Part {
    file: File,
    id: (u64, u64),
    offset: u64,
    /// Bytes after the last newline read.
    partial: Vec<u8>,
    feed: Feed,
    reader: Option<(Format, Records)>,
    checker: Checker,
    /// How many findings were printed.
    printed: usize,
    /// When this process first saw each open request without a timestamp.
    first_seen: HashMap<u64, Instant>,
    /// The newest timestamp in the log, and when it was read.
    latest: Option<(Timestamp, Instant)>,
    /// By lane (each server of a log that interleaves several), the line
    /// of the last event that ended the server (exit, signal, closed
    /// transport): requests before it are never answered, so they are no
    /// longer waited on.
    ended: Vec<u64>,
    /// Lines to print with the next findings (the server's end).
    notes: Vec<String>,
}

impl Part {
    fn open(path: &Path, options: &Options) -> io::Result<Part> {
        let file = File::open(path)?;
        let id = identity(&file.metadata()?);
        Ok(Part {
            file,
            id,
            offset: 0,
            partial: Vec::new(),
            feed: Feed::default(),
            reader: None,
            checker: Checker::new(options),
            printed: 0,
            first_seen: HashMap::new(),
            latest: None,
            ended: Vec::new(),
            notes: Vec::new(),
        })
    }

    /// Reads what was appended, a piece at a time, and runs its complete
    /// lines through the pipeline.
    fn poll(&mut self, options: &Options) -> io::Result<()> {
        let mut chunk = vec![0; PIECE];
        loop {
            let n = match self.file.read(&mut chunk) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.offset += n as u64;
            let read = &chunk[..n];
            match memchr::memrchr(b'\n', read) {
                Some(end) => {
                    let mut feed = self.feed.0.borrow_mut();
                    feed.extend(self.partial.drain(..));
                    feed.extend(&read[..=end]);
                    self.partial.extend_from_slice(&read[end + 1..]);
                }
                None => {
                    self.partial.extend_from_slice(read);
                    continue;
                }
            }
            self.run(options)?;
        }
    }

    /// Feeds what the reader has to the pipeline.
    fn run(&mut self, options: &Options) -> io::Result<()> {
        if self.reader.is_none() {
            if self.feed.0.borrow().is_empty() {
                return Ok(());
            }
            let opened = reader::open(Box::new(self.feed.clone()), options.format)?;
            self.reader = Some((opened.format, opened.records));
        }
        let (_, records) = self.reader.as_mut().expect("opened above");
        let now = Instant::now();
        let mut ends = Vec::new();
        for record in records {
            let record = record?;
            if let Some(t) = &record.time {
                self.latest = Some((t.clone(), now));
            }
            let mut ended = Vec::new();
            self.checker.push(record, &mut |lane, item| {
                if let Item::Event { at, event } = item {
                    if matches!(event.kind, EventKind::End(_)) {
                        ended.push((lane, at.line, event.text.clone()));
                    }
                }
            });
            // What the server's session still waits on as it ends.
            for (lane, line, text) in ended {
                let open = self.checker.waiting(lane).len();
                ends.push((lane, line, text, open));
            }
        }
        for (lane, line, text, open) in ends {
            if lane >= self.ended.len() {
                self.ended.resize(lane + 1, 0);
            }
            self.ended[lane] = line;
            let open = match open {
                0 => String::new(),
                1 => "; 1 request still open will never be answered".to_string(),
                n => format!("; {n} requests still open will never be answered"),
            };
            self.notes.push(format!(
                "line {line}: the server ended ({}){open}",
                escape_control(text.trim())
            ));
        }
        Ok(())
    }

    /// Prints the findings found since the last call.
    fn print_new(&mut self, out: &mut dyn Write) -> io::Result<()> {
        for note in self.notes.drain(..) {
            writeln!(out, "{note}")?;
        }
        let fresh = self.checker.findings_since(self.printed);
        self.printed = self.checker.findings_listed();
        for f in &fresh {
            writeln!(
                out,
                "line {}: {} {}: {}",
                f.line,
                f.severity,
                f.rule,
                escape_control(&f.message)
            )?;
        }
        out.flush()
    }

    /// The requests still waited on (cancelled ones are not), oldest first.
    fn waited_on(&mut self, now: Instant) -> Vec<Waiting> {
        let mut open: Vec<Waiting> = Vec::new();
        for lane in 0..self.checker.lanes() {
            let ended = self.ended.get(lane).copied().unwrap_or(0);
            open.extend(
                self.checker
                    .waiting(lane)
                    .into_iter()
                    .filter(|r| r.line > ended),
            );
        }
        open.sort_by_key(|r| r.line);
        let lines: std::collections::HashSet<u64> = open.iter().map(|r| r.line).collect();
        self.first_seen.retain(|line, _| lines.contains(line));
        for r in &open {
            self.first_seen.entry(r.line).or_insert(now);
        }
        open
    }

    /// Reads the last line even without its newline and ends the part;
    /// `stopped`: reading stopped (Ctrl-C) while the file may go on.
    fn finish(mut self, name: &str, options: &Options, stopped: bool) -> io::Result<FileReport> {
        if stopped {
            let clock = self
                .latest
                .as_ref()
                .map(|(newest, read)| (newest.clone(), read.elapsed().as_secs_f64()));
            self.checker
                .stop_following(crate::facts::evidence::FollowStop { clock });
        }
        let partial = std::mem::take(&mut self.partial);
        self.feed.0.borrow_mut().extend(partial);
        self.run(options)?;
        let format = self.reader.as_ref().map_or(Format::Native, |(f, _)| *f);
        Ok(self.checker.finish(name, format, &mut |_, _| {}))
    }
}

/// `open: tools/call "search" id 4 (line 12) waiting 35.2 s; 2 more open`.
///
/// The wait is measured on the log's own clock up to its newest timestamp,
/// plus the time since that line was read: right for a live recording, and
/// for an old file it does not depend on when the log was written. Without
/// timestamps it counts from when this process read the request.
fn status(part: &Part, open: &[Waiting], now: Instant) -> String {
    let oldest = &open[0];
    let waited = match (&oldest.time, &part.latest) {
        (Some(start), Some((latest, read))) => {
            start.seconds_until(latest).max(0.0) + now.duration_since(*read).as_secs_f64()
        }
        _ => part
            .first_seen
            .get(&oldest.line)
            .map_or(0.0, |seen| now.duration_since(*seen).as_secs_f64()),
    };
    let what = match &oldest.subject {
        Some(subject) => format!(
            "{} \"{}\"",
            escape_control(&oldest.method),
            escape_control(subject)
        ),
        None => escape_control(&oldest.method).into_owned(),
    };
    let mut line = format!(
        "open: {what} id {} (line {}) waiting {}",
        escape_control(&oldest.id.to_string()),
        oldest.line,
        duration(waited)
    );
    if open.len() > 1 {
        line.push_str(&format!("; {} more open", open.len() - 1));
    }
    line
}

/// A compressed file cannot be followed: what is appended to it is not
/// readable until the compressor ends a block, and the tail would be lost.
fn refuse_compressed(path: &Path) -> io::Result<()> {
    use std::io::Read;
    let mut magic = Vec::with_capacity(4);
    std::fs::File::open(path)?.take(4).read_to_end(&mut magic)?;
    let kind = if magic.starts_with(&[0x1f, 0x8b]) {
        "gzip"
    } else if crate::reader::zstd::is_zstd(&magic) {
        "zstd"
    } else {
        return Ok(());
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is {kind}-compressed, and --follow reads a plain file as it grows (a compressed tail cannot be read until the compressor ends it); check the whole file without --follow, or follow the uncompressed log"
        ),
    ))
}

/// Follows `path` until `stop` is set, printing findings and status lines
/// to `out` and notes about truncation and rotation to `err`. Returns the
/// report of everything read (one part per generation of the file).
pub fn follow(
    path: &Path,
    options: &FollowOptions,
    stop: &AtomicBool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Report> {
    let name = path.display().to_string();
    // A file that does not exist yet is waited for, as `tail -F` does: the
    // recorder may not have started.
    let mut said = false;
    let mut part = loop {
        match Part::open(path, &options.check) {
            Ok(part) => {
                refuse_compressed(path)?;
                break part;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !said {
                    writeln!(
                        err,
                        "mcpdbg: {} does not exist yet; waiting for it",
                        escape_control(&name)
                    )?;
                    said = true;
                }
                if stop.load(Ordering::Relaxed) {
                    return Err(io::Error::new(io::ErrorKind::NotFound, "it never appeared"));
                }
                std::thread::sleep(options.poll);
            }
            Err(e) => return Err(e),
        }
    };
    let mut done = Vec::new();
    let mut last_status = Instant::now();
    loop {
        part.poll(&options.check)?;
        part.print_new(out)?;
        let now = Instant::now();
        let open = part.waited_on(now);
        if open.is_empty() {
            last_status = now;
        } else if now.duration_since(last_status) >= options.status_every {
            writeln!(out, "{}", status(&part, &open, now))?;
            out.flush()?;
            last_status = now;
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // A shorter file, or another file at the path: start again.
        let restart = match std::fs::metadata(path) {
            Ok(meta) if identity(&meta) != part.id => Some("was replaced (rotated)"),
            Ok(meta) if meta.len() < part.offset => Some("was truncated"),
            _ => None,
        };
        if let Some(what) = restart {
            match Part::open(path, &options.check) {
                Ok(next) => {
                    // Whatever the old file still held is read first.
                    part.poll(&options.check)?;
                    part.print_new(out)?;
                    let old = std::mem::replace(&mut part, next);
                    let label = format!("{name} (part {})", done.len() + 1);
                    done.push(old.finish(&label, &options.check, false)?);
                    writeln!(
                        err,
                        "mcpdbg: {} {what}; reading it again from the start",
                        escape_control(&name)
                    )?;
                    continue;
                }
                // Between the old file's removal and the new one's creation.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        std::thread::sleep(options.poll);
    }
    let label = if done.is_empty() {
        name
    } else {
        format!("{name} (part {})", done.len() + 1)
    };
    done.push(part.finish(&label, &options.check, true)?);
    Ok(Report { files: done })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_resumes_after_the_feed_runs_dry() {
        let feed = Feed::default();
        let mut records = reader::open(Box::new(feed.clone()), Some(Format::Native))
            .expect("open")
            .records;
        assert!(records.next().is_none());
        feed.0.borrow_mut().extend(b"> {}\n< {}\n".iter().copied());
        let lines: Vec<u64> = records.by_ref().map(|r| r.expect("read").line).collect();
        assert_eq!(lines, vec![1, 2]);
        feed.0.borrow_mut().extend(b"! third\n".iter().copied());
        let lines: Vec<u64> = records.map(|r| r.expect("read").line).collect();
        assert_eq!(lines, vec![3]);
    }

    /// Ctrl-C while a request is open: it was not answered when following
    /// stopped (the log may go on), not "never"; a message still being
    /// written when following stopped is said to be so.
    #[test]
    fn what_is_open_when_following_stops_is_said_to_be_open_then() {
        const HANDSHAKE: &str = r#"2026-11-20T14:03:11.000Z > {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
2026-11-20T14:03:11.100Z < {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
2026-11-20T14:03:11.200Z > {"jsonrpc":"2.0","method":"notifications/initialized"}
2026-11-20T14:03:12.000Z > {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}
2026-11-20T14:03:14.500Z < {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}
"#;
        let dir = std::env::temp_dir().join(format!("mcpdbg-follow-stop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        // Stopped after `after` of following (zero: one look at the file,
        // then the report).
        let stopped_after = |name: &str, text: &str, after: Duration| -> Vec<String> {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write the log");
            let options = FollowOptions {
                check: Options::default(),
                poll: Duration::from_millis(1),
                status_every: Duration::from_secs(60),
            };
            let stop = AtomicBool::new(after.is_zero());
            let report = std::thread::scope(|scope| {
                scope.spawn(|| {
                    std::thread::sleep(after);
                    stop.store(true, Ordering::SeqCst);
                });
                follow(&path, &options, &stop, &mut Vec::new(), &mut Vec::new()).expect("follows")
            });
            report.files[0]
                .findings
                .iter()
                .filter(|f| f.rule.name() == "unanswered-request")
                .map(|f| f.message.clone())
                .collect()
        };
        let unanswered = |name: &str, text: &str| stopped_after(name, text, Duration::ZERO);
        // The wait runs on the log's clock to its newest line (2.5 s), then
        // on this one's to when following stopped.
        let waited = |said: &[String]| -> f64 {
            assert_eq!(said.len(), 1, "{said:?}");
            let (head, rest) = said[0]
                .split_once("; it had waited ")
                .unwrap_or_else(|| panic!("{said:?}"));
            assert_eq!(
                head,
                "client request `tools/call` \"slow\" (id 1) was not answered: the server owes the reply"
            );
            let (seconds, tail) = rest.split_once(" s ").unwrap_or_else(|| panic!("{said:?}"));
            assert_eq!(
                tail,
                "when following stopped at line 5; after it the server sent 1 other message"
            );
            seconds.parse().unwrap_or_else(|_| panic!("{said:?}"))
        };
        assert!(waited(&unanswered("open.log", HANDSHAKE)) >= 2.5);
        let later = waited(&stopped_after(
            "later.log",
            HANDSHAKE,
            Duration::from_millis(1500),
        ));
        assert!(later >= 4.0, "{later} s");
        let writing = format!(
            "{HANDSHAKE}2026-11-20T14:03:15.000Z < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":["
        );
        let said = unanswered("writing.log", &writing);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("when following stopped at line 6")
                && said[0].contains("likely: following stopped in the middle of a server message at line 6 (it was still being written): the answer may be that message or come after it"),
            "{said:?}"
        );
        std::fs::remove_dir_all(&dir).expect("scratch directory removed");
    }
}
