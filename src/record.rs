//! `mcpdbg record`: run a server, relay its stdio byte for byte, and write
//! the native transcript.
//!
//! Three relay threads (host stdin -> server stdin, server stdout -> host
//! stdout, server stderr -> our stderr) forward each chunk as soon as it is
//! read, then hand the completed lines to one writer thread through a bounded
//! queue. Relaying never waits for the disk: when the queue is full, lines are
//! dropped and a `gap` event says how many bytes are missing. The writer
//! flushes whenever the queue runs empty, so a crash loses at most the lines in
//! flight.
//!
//! This is the one part of mcpdbg that reads the clock (to stamp records) and
//! handles processes and signals; it does no analysis.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// The transcript path; `{pid}` and `{time}` are expanded.
    pub out: String,
    pub append: bool,
    /// The server command and its arguments.
    pub command: Vec<OsString>,
}

/// The three streams of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
}

impl Stream {
    fn marker(self) -> &'static [u8] {
        match self {
            Stream::Stdin => b">",
            Stream::Stdout => b"<",
            Stream::Stderr => b"!",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Stream::Stdin => "stdin",
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// What the relay threads send to the writer.
enum Entry {
    /// Complete lines of one stream, each with its timestamp.
    Lines(Stream, Vec<(String, Vec<u8>)>),
    /// A line that ended without a newline (at the end of its stream).
    Partial(Stream, String, Vec<u8>),
    Event(String, String),
    /// The session is over: write what came before and stop. Threads that
    /// are still alive (a host that never closes stdin, the signal handler)
    /// hold senders, so the writer cannot wait for the channel to close.
    Stop,
}

impl Entry {
    fn bytes(&self) -> usize {
        match self {
            Entry::Lines(_, lines) => lines.iter().map(|(_, l)| l.len() + 40).sum(),
            Entry::Partial(_, _, l) => l.len() + 40,
            Entry::Event(_, text) => text.len() + 40,
            Entry::Stop => 0,
        }
    }
}

/// Bytes that may wait in the queue before relay threads start dropping lines.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// Entries that may wait in the queue.
const QUEUE_ENTRIES: usize = 4096;
/// Read size of the relay threads.
const CHUNK: usize = 256 * 1024;
/// The longest line kept whole; the rest of a longer line becomes a gap.
const MAX_LINE: usize = 256 * 1024 * 1024;

/// The current time as the transcript writes it: RFC 3339, UTC, microseconds.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The queue from relay threads to the writer, with its byte budget.
#[derive(Clone)]
struct Queue {
    tx: SyncSender<Entry>,
    in_flight: Arc<AtomicUsize>,
}

impl Queue {
    /// Queues an entry unless the queue is full; returns whether it was queued.
    fn offer(&self, entry: Entry) -> bool {
        let size = entry.bytes();
        if self.in_flight.load(Ordering::Relaxed) + size > QUEUE_BYTES {
            return false;
        }
        self.in_flight.fetch_add(size, Ordering::Relaxed);
        match self.tx.try_send(entry) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.in_flight.fetch_sub(size, Ordering::Relaxed);
                false
            }
        }
    }

    /// Queues an event, waiting for room: events are rare and must not be lost.
    fn event(&self, text: impl Into<String>) {
        let entry = Entry::Event(now(), text.into());
        self.in_flight.fetch_add(entry.bytes(), Ordering::Relaxed);
        let _ = self.tx.send(entry);
    }
}

/// Expands `{pid}` and `{time}` in the output path.
pub fn expand_path(template: &str, pid: u32, time: &chrono::DateTime<Utc>) -> PathBuf {
    PathBuf::from(
        template
            .replace("{pid}", &pid.to_string())
            .replace("{time}", &time.format("%Y%m%dT%H%M%SZ").to_string()),
    )
}

/// Opens the transcript: owner-only, never through a symlink, never over an
/// existing file unless appending.
fn open_transcript(path: &PathBuf, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    if append {
        options.append(true).create(true);
    } else {
        options.write(true).create_new(true);
    }
    options.open(path).map_err(|e| {
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let hint = match e.kind() {
            _ if is_link => "; it is a symbolic link, which record never follows".to_string(),
            io::ErrorKind::AlreadyExists => {
                "; it exists: add --append to add this session to it, or put {time} or {pid} in --out".to_string()
            }
            _ => String::new(),
        };
        io::Error::new(e.kind(), format!("cannot open {} for recording: {e}{hint}", path.display()))
    })
}

/// A command line for the `# start` event: arguments with spaces or quotes
/// are single-quoted.
fn command_line(command: &[OsString]) -> String {
    command
        .iter()
        .map(|a| {
            let a = a.to_string_lossy();
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.into_owned()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The outcome of a recording.
pub struct Recorded {
    pub path: PathBuf,
    /// The server's exit status as a shell reports it (128 + signal).
    pub exit_code: i32,
}

/// Runs the server under the recorder until it exits.
pub fn run(options: &RecordOptions) -> io::Result<Recorded> {
    let path = expand_path(&options.out, std::process::id(), &Utc::now());
    let file = open_transcript(&path, options.append)?;
    let (tx, rx) = mpsc::sync_channel(QUEUE_ENTRIES);
    let in_flight = Arc::new(AtomicUsize::new(0));
    let queue = Queue {
        tx,
        in_flight: in_flight.clone(),
    };
    let writer = thread::spawn(move || write_transcript(file, rx, in_flight));
    queue.event(format!("start {}", command_line(&options.command)));

    let (program, args) = options
        .command
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no server command given"))?;
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: a Ctrl-C meant for the recorder reaches the
        // server once, forwarded, not twice.
        .process_group(0)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            queue.event(format!("server could not be started: {e}"));
            let _ = queue.tx.send(Entry::Stop);
            drop(queue);
            let _ = writer.join();
            return Err(io::Error::new(
                e.kind(),
                format!("cannot start {}: {e}", program.to_string_lossy()),
            ));
        }
    };
    let pid = child.id();
    forward_signals(pid, queue.clone())?;

    let child_stdin = child.stdin.take().expect("piped");
    let child_stdout = child.stdout.take().expect("piped");
    let child_stderr = child.stderr.take().expect("piped");
    let (done_tx, done_rx) = mpsc::channel();
    {
        let queue = queue.clone();
        // Not joined: it may stay blocked reading a host that never closes stdin.
        thread::spawn(move || relay(io::stdin().lock(), Some(child_stdin), Stream::Stdin, &queue));
    }
    for (stream, source) in [
        (
            Stream::Stdout,
            Box::new(child_stdout) as Box<dyn Read + Send>,
        ),
        (Stream::Stderr, Box::new(child_stderr)),
    ] {
        let queue = queue.clone();
        let done = done_tx.clone();
        thread::spawn(move || {
            // Unlocked handles: holding the stderr lock here could deadlock
            // with the writer thread reporting a disk error.
            let sink: Box<dyn Write> = match stream {
                Stream::Stdout => Box::new(io::stdout()),
                _ => Box::new(io::stderr()),
            };
            relay(source, Some(sink), stream, &queue);
            let _ = done.send(stream);
        });
    }
    drop(done_tx);

    let status = wait(&mut child)?;
    // Drain what the server wrote before it exited; a grandchild that keeps
    // the pipes open must not keep us running forever.
    let mut open = 2;
    while open > 0 {
        match done_rx.recv_timeout(Duration::from_secs(2)) {
            Ok(_) => open -= 1,
            Err(_) => {
                queue.event("server exited but its stdout or stderr is still held open by another process; stopped recording them");
                break;
            }
        }
    }
    let exit_code = match (status.code(), status.signal()) {
        (Some(code), _) => {
            queue.event(format!("server exited with status {code}"));
            code
        }
        (None, Some(sig)) => {
            queue.event(format!(
                "server killed by signal {sig} ({})",
                signal_name(sig)
            ));
            128 + sig
        }
        (None, None) => {
            queue.event("server ended with an unknown status");
            1
        }
    };
    let _ = queue.tx.send(Entry::Stop);
    drop(queue);
    writer
        .join()
        .map_err(|_| io::Error::other("the transcript writer failed"))??;
    Ok(Recorded { path, exit_code })
}

fn wait(child: &mut Child) -> io::Result<std::process::ExitStatus> {
    loop {
        match child.wait() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGKILL => "SIGKILL",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}

/// Forwards SIGTERM, SIGINT and SIGHUP to the server and notes them.
fn forward_signals(pid: u32, queue: Queue) -> io::Result<()> {
    let mut signals =
        signal_hook::iterator::Signals::new([libc::SIGTERM, libc::SIGINT, libc::SIGHUP])?;
    thread::spawn(move || {
        for sig in signals.forever() {
            queue.event(format!(
                "{} received; forwarded to the server",
                signal_name(sig)
            ));
            // SAFETY: kill(2) with a pid we spawned and a valid signal number.
            unsafe {
                libc::kill(pid as libc::pid_t, sig);
            }
        }
    });
    Ok(())
}

/// Relays one stream chunk by chunk and queues its completed lines.
fn relay(mut source: impl Read, mut sink: Option<impl Write>, stream: Stream, queue: &Queue) {
    let mut buf = vec![0u8; CHUNK];
    let mut line: Vec<u8> = Vec::new();
    let mut oversize = 0usize;
    let mut dropped = 0usize;
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buf[..n];
        // Forward first: the session must not wait for the transcript.
        if let Some(out) = sink.as_mut() {
            if out.write_all(chunk).and_then(|()| out.flush()).is_err() {
                // The reader went away (server stdin closed, host stdout
                // closed): keep draining and recording, stop forwarding.
                sink = None;
            }
        }
        let stamp = now();
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            take(&mut line, &rest[..i], &mut oversize);
            lines.push((stamp.clone(), std::mem::take(&mut line)));
            if oversize > 0 {
                dropped += oversize;
                oversize = 0;
            }
            rest = &rest[i + 1..];
        }
        take(&mut line, rest, &mut oversize);
        if !lines.is_empty() {
            if dropped > 0 && queue.offer(Entry::Event(stamp.clone(), gap(dropped, stream))) {
                dropped = 0;
            }
            let size: usize = lines.iter().map(|(_, l)| l.len() + 1).sum();
            if !queue.offer(Entry::Lines(stream, lines)) {
                dropped += size;
            }
        }
    }
    drop(sink);
    if dropped > 0 || oversize > 0 {
        queue.event(gap(dropped + oversize, stream));
    }
    if !line.is_empty() {
        let entry = Entry::Partial(stream, now(), line);
        queue.in_flight.fetch_add(entry.bytes(), Ordering::Relaxed);
        let _ = queue.tx.send(entry);
    }
    queue.event(format!("{} closed", stream.name()));
}

/// Appends to the line being assembled, up to [`MAX_LINE`].
fn take(line: &mut Vec<u8>, part: &[u8], oversize: &mut usize) {
    let room = MAX_LINE.saturating_sub(line.len());
    let keep = part.len().min(room);
    line.extend_from_slice(&part[..keep]);
    *oversize += part.len() - keep;
}

fn gap(bytes: usize, stream: Stream) -> String {
    format!("gap: {bytes} bytes of {} were not recorded", stream.name())
}

/// The writer thread: turns entries into transcript lines.
fn write_transcript(
    file: File,
    rx: Receiver<Entry>,
    in_flight: Arc<AtomicUsize>,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1024 * 1024, file);
    let mut failed: Option<io::Error> = None;
    let mut lost = 0usize;
    let mut stopped = false;
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(entry) = next {
            if matches!(entry, Entry::Stop) {
                stopped = true;
                break;
            }
            in_flight.fetch_sub(entry.bytes(), Ordering::Relaxed);
            if let Err(e) = write_entry(&mut out, &entry) {
                lost += entry.bytes();
                if failed.is_none() {
                    eprintln!(
                        "mcpdbg record: cannot write the transcript: {e}; the session goes on, unrecorded parts become gaps"
                    );
                    failed = Some(e);
                }
            } else if lost > 0 {
                let note = Entry::Event(
                    now(),
                    format!("gap: about {lost} bytes were not recorded (write error)"),
                );
                if write_entry(&mut out, &note).is_ok() {
                    lost = 0;
                }
            }
            next = rx.try_recv().ok();
        }
        if let Err(e) = out.flush() {
            if failed.is_none() {
                eprintln!("mcpdbg record: cannot write the transcript: {e}");
                failed = Some(e);
            }
        }
        if stopped {
            break;
        }
    }
    out.flush()
}

fn write_entry(out: &mut impl Write, entry: &Entry) -> io::Result<()> {
    match entry {
        Entry::Lines(stream, lines) => {
            for (stamp, line) in lines {
                write_record(out, stamp, stream.marker(), line)?;
            }
            Ok(())
        }
        Entry::Partial(stream, stamp, line) => {
            write_record(
                out,
                stamp,
                b"#",
                format!("partial line follows on {}", stream.name()).as_bytes(),
            )?;
            write_record(out, stamp, stream.marker(), line)
        }
        Entry::Event(stamp, text) => write_record(out, stamp, b"#", text.as_bytes()),
        Entry::Stop => Ok(()),
    }
}

fn write_record(out: &mut impl Write, stamp: &str, marker: &[u8], line: &[u8]) -> io::Result<()> {
    out.write_all(stamp.as_bytes())?;
    out.write_all(b" ")?;
    out.write_all(marker)?;
    out.write_all(b" ")?;
    out.write_all(line)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_expand_placeholders() {
        let t = chrono::DateTime::parse_from_rfc3339("2026-11-29T08:07:06Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            expand_path("/tmp/s-{time}-{pid}.log", 42, &t),
            PathBuf::from("/tmp/s-20261129T080706Z-42.log")
        );
        assert_eq!(expand_path("plain.log", 1, &t), PathBuf::from("plain.log"));
    }

    #[test]
    fn command_lines_quote_what_needs_it() {
        let cmd: Vec<OsString> = ["python", "-m", "my server", "--name=it's"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            command_line(&cmd),
            "python -m 'my server' '--name=it'\\''s'"
        );
    }

    #[test]
    fn timestamps_are_rfc3339_utc_micros() {
        let t = now();
        assert_eq!(t.len(), "2026-11-29T08:07:06.123456Z".len(), "{t}");
        assert!(t.ends_with('Z'));
        assert!(crate::reader::Timestamp::parse(&t).is_some());
    }

    #[test]
    fn partial_lines_are_announced_before_the_record() {
        let mut out = Vec::new();
        write_entry(
            &mut out,
            &Entry::Partial(Stream::Stdout, "T".into(), b"{\"a\"".to_vec()),
        )
        .unwrap();
        assert_eq!(out, b"T # partial line follows on stdout\nT < {\"a\"\n");
    }
}
