//! `mcpdbg record`: run a server, relay its stdio byte for byte, and write
//! the native transcript.
//!
//! Three relay threads (host stdin -> server stdin, server stdout -> host
//! stdout, server stderr -> our stderr) read chunks, queue each (shared, not
//! copied) for one writer thread, then forward it. Queueing before forwarding
//! keeps causality in the transcript: a request is always written before the
//! response it causes. Relaying never waits for the disk: when the bounded
//! queue is full, the chunk is still forwarded but not recorded, and a `gap`
//! event says how many bytes are missing. The writer splits chunks into lines
//! and flushes whenever the queue runs empty, so a crash loses at most the
//! lines in flight.
//!
//! This is the one part of mcpdbg that reads the clock (to stamp records) and
//! handles processes and signals; it does no analysis.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread;
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};

use super::signal_name;
use crate::wire::event::text as event;

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
    /// Bytes read from a stream, in read order, with the time they were read.
    /// The writer splits them into lines; a line is stamped with the time of
    /// the chunk that completes it.
    Chunk(Stream, String, Arc<Vec<u8>>),
    /// Bytes of a stream that were not queued (the queue was full): the
    /// writer drops the line they cut and notes the gap.
    Gap(Stream, String, usize),
    /// The stream ended: a last line without newline is written now.
    Eof(Stream, String),
    /// The recorder stops waiting for the stream: a last line without
    /// newline is written now, and the stream is not closed.
    Flush(Stream, String),
    Event(String, String),
    /// The session is over: write what came before and stop. Threads that
    /// are still alive (a host that never closes stdin, the signal handler)
    /// hold senders, so the writer cannot wait for the channel to close.
    Stop,
}

impl Entry {
    fn bytes(&self) -> usize {
        match self {
            Entry::Chunk(_, _, chunk) => chunk.len(),
            Entry::Event(_, text) => text.len(),
            Entry::Gap(..) | Entry::Eof(..) | Entry::Flush(..) | Entry::Stop => 0,
        }
    }
}

/// Bytes that may wait in the queue before relay threads start dropping data.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// Entries that may wait in the queue.
const QUEUE_ENTRIES: usize = 4096;
/// Read size of the relay threads.
const CHUNK: usize = 256 * 1024;
/// The pipe size asked for on the server's stdin and stdout.
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1024 * 1024;
/// The longest line kept whole; the rest of a longer line becomes a gap.
const MAX_LINE: usize = 256 * 1024 * 1024;

/// Once the server has exited, how long its stdout and stderr may go
/// without progress (nothing read from the server, nothing delivered to the
/// host) before the recorder stops waiting for them.
const DRAIN_STALL: Duration = Duration::from_secs(2);
/// The longest the recorder drains a server that has exited, progress or
/// not (a host reading 1 byte a second).
const DRAIN_LIMIT: Duration = Duration::from_secs(300);

/// What one output relay has done, for the drain at the end.
#[derive(Default)]
struct Progress {
    /// Bytes read from the server (and queued for the transcript).
    read: AtomicU64,
    /// Bytes the host (or our stderr) took.
    delivered: AtomicU64,
    /// Blocked writing to the host, not reading from the server.
    writing: AtomicBool,
    /// The host closed its end: the rest is recorded, not delivered.
    closed: AtomicBool,
}

impl Progress {
    fn total(&self) -> u64 {
        self.read.load(Ordering::Relaxed) + self.delivered.load(Ordering::Relaxed)
    }
}

/// Bytes waiting in a pipe (FIONREAD), if the system says.
fn pipe_pending(fd: std::os::fd::RawFd) -> Option<u64> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which is valid.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    (r == 0).then_some(n.max(0) as u64)
}

/// The current time as the transcript writes it: RFC 3339, UTC, microseconds.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The queue from relay threads to the writer, with its byte budget.
#[derive(Clone)]
struct Queue {
    tx: SyncSender<Entry>,
    in_flight: Arc<AtomicUsize>,
    /// Read buffers the writer is done with, for the relays to reuse.
    pool: Pool,
}

/// Spare read buffers: reusing them spares a fresh zeroed allocation (and
/// its page faults) per chunk.
#[derive(Clone, Default)]
struct Pool(Arc<std::sync::Mutex<Vec<Vec<u8>>>>);

impl Pool {
    const KEEP: usize = 64;

    fn take(&self) -> Vec<u8> {
        let mut buf = self
            .0
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        buf.resize(CHUNK, 0);
        buf
    }

    fn give(&self, chunk: Arc<Vec<u8>>) {
        if let (Ok(buf), Ok(mut pool)) = (Arc::try_unwrap(chunk), self.0.lock()) {
            if pool.len() < Pool::KEEP {
                pool.push(buf);
            }
        }
    }
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

    /// Queues an entry, waiting for room: for the rare entries that must not
    /// be lost (events, gaps, ends of streams).
    fn send(&self, entry: Entry) {
        self.in_flight.fetch_add(entry.bytes(), Ordering::Relaxed);
        let _ = self.tx.send(entry);
    }

    fn event(&self, text: impl Into<String>) {
        self.send(Entry::Event(now(), text.into()));
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

/// Ends the last line of a transcript opened for appending when it stops
/// mid-line (a session cut short), so that this session's first record
/// starts a line of its own.
fn end_last_line(mut file: &File) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8];
    file.read_exact_at(&mut last, len - 1)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// How many numbered names [`open_named`] tries after the first.
const NAME_TRIES: u32 = 1000;

/// Opens the transcript named by the `--out` template. A template with
/// `{time}` or `{pid}` asks for a new file: when its name is taken (two
/// sessions started in the same second), `-2`, `-3`, ... is added before the
/// extension until a free name is found.
fn open_named(template: &str, append: bool) -> io::Result<(PathBuf, File)> {
    let path = expand_path(template, std::process::id(), &Utc::now());
    // A host config naming `.vscode/logs/s.log` in a fresh workspace: the
    // directory is made (owner-only, like the transcript). When that fails,
    // opening the file says why.
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
    {
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
    }
    let numbered = !append && (template.contains("{time}") || template.contains("{pid}"));
    let mut tried = path.clone();
    for n in 1..=NAME_TRIES + 1 {
        if n > 1 {
            tried = numbered_name(&path, n);
        }
        match open_transcript(&tried, append) {
            Ok(file) => return Ok((tried, file)),
            Err(e) if numbered && e.kind() == io::ErrorKind::AlreadyExists && !is_link(&tried) => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "cannot open {} for recording: it and {NAME_TRIES} numbered names after it exist",
            path.display()
        ),
    ))
}

/// `dir/s-T.log` as `dir/s-T-N.log` (the number before the last extension).
fn numbered_name(path: &Path, n: u32) -> PathBuf {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let numbered = match name.rfind('.').filter(|&i| i > 0) {
        Some(dot) => format!("{}-{n}{}", &name[..dot], &name[dot..]),
        None => format!("{name}-{n}"),
    };
    path.with_file_name(numbered)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Opens the transcript: owner-only, never through a symlink, never over an
/// existing file unless appending.
fn open_transcript(path: &PathBuf, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    if append {
        options.read(true).append(true).create(true);
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

/// Why a recording could not run.
#[derive(Debug)]
pub enum RecordError {
    /// The server command could not be started.
    Start(String, io::Error),
    /// Anything else that failed around the session.
    Io(io::Error),
}

impl RecordError {
    /// The exit status `mcpdbg record` ends with: 127 (or 126 without
    /// permission) when the server cannot start, as shells do; 2 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            RecordError::Start(_, e) if e.kind() == io::ErrorKind::PermissionDenied => 126,
            RecordError::Start(..) => 127,
            RecordError::Io(_) => 2,
        }
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Io(e) => write!(f, "{e}"),
            RecordError::Start(program, e) => write!(f, "cannot start {program}: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<io::Error> for RecordError {
    fn from(e: io::Error) -> Self {
        RecordError::Io(e)
    }
}

/// The outcome of a recording.
pub struct Recorded {
    /// The transcript; `None` when it could not be opened (said on stderr).
    pub path: Option<PathBuf>,
    /// The server's exit status as a shell reports it (128 + signal).
    pub exit_code: i32,
}

/// Runs the server under the recorder until it exits.
pub fn run(options: &RecordOptions) -> Result<Recorded, RecordError> {
    let (program, args) = options
        .command
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no server command given"))?;
    // The transcript never keeps the server from starting: the host would
    // see a broken server. Without one, the session runs unrecorded.
    let opened = open_named(&options.out, options.append).and_then(|(path, file)| {
        if options.append {
            end_last_line(&file).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot append to {}: {e}", path.display()),
                )
            })?;
        }
        Ok((path, file))
    });
    let (path, file): (Option<PathBuf>, Option<File>) = match opened {
        Ok((path, file)) => (Some(path), Some(file)),
        Err(e) => {
            crate::say!("mcpdbg record: {e}; the server runs unrecorded");
            (None, None)
        }
    };
    let (tx, rx) = mpsc::sync_channel(QUEUE_ENTRIES);
    let in_flight = Arc::new(AtomicUsize::new(0));
    let pool = Pool::default();
    let queue = Queue {
        tx,
        in_flight: in_flight.clone(),
        pool: pool.clone(),
    };
    let writer = thread::spawn(move || match file {
        Some(file) => {
            let start = file.metadata().map(|m| m.len()).unwrap_or(0);
            write_transcript(file, start, rx, in_flight, pool)
        }
        None => write_transcript(io::sink(), 0, rx, in_flight, pool),
    });
    queue.event(event::start(&command_line(&options.command)));

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
            return Err(RecordError::Start(
                program.to_string_lossy().into_owned(),
                e,
            ));
        }
    };
    let pid = child.id();
    forward_signals(pid, queue.clone())?;

    let child_stdin = child.stdin.take().expect("piped");
    let child_stdout = child.stdout.take().expect("piped");
    let child_stderr = child.stderr.take().expect("piped");
    // Larger pipes mean fewer, larger reads and writes when a server sends a
    // lot; a failure only costs speed. Only Linux can resize a pipe.
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        for fd in [
            child_stdin.as_raw_fd(),
            child_stdout.as_raw_fd(),
            io::stdout().as_raw_fd(),
        ] {
            // SAFETY: fcntl(2) on descriptors that stay open for the whole
            // call (the child's pipes and our stdout); it reads no memory of ours.
            unsafe {
                libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_SIZE);
            }
        }
    }
    let (done_tx, done_rx) = mpsc::channel();
    {
        let queue = queue.clone();
        // Not joined: it may stay blocked reading a host that never closes stdin.
        thread::spawn(move || relay(io::stdin().lock(), Some(child_stdin), Stream::Stdin, &queue));
    }
    let progress: [Arc<Progress>; 2] = Default::default();
    let fds = {
        use std::os::fd::AsRawFd;
        [child_stdout.as_raw_fd(), child_stderr.as_raw_fd()]
    };
    for ((stream, source), progress) in [
        (
            Stream::Stdout,
            Box::new(child_stdout) as Box<dyn Read + Send>,
        ),
        (Stream::Stderr, Box::new(child_stderr)),
    ]
    .into_iter()
    .zip(progress.iter().cloned())
    {
        let queue = queue.clone();
        let done = done_tx.clone();
        thread::spawn(move || {
            // Unlocked handles: holding the stderr lock here could deadlock
            // with the writer thread reporting a disk error.
            let sink: Box<dyn Write> = match stream {
                Stream::Stdout => Box::new(io::stdout()),
                _ => Box::new(io::stderr()),
            };
            relay_counted(source, Some(sink), stream, &queue, Some(&progress));
            let _ = done.send(stream);
        });
    }
    drop(done_tx);

    let status = wait(&mut child)?;
    drain(&done_rx, &progress, fds, &queue);
    let exit_code = match (status.code(), status.signal()) {
        (Some(code), _) => {
            queue.event(event::exited(code));
            code
        }
        (None, Some(sig)) => {
            queue.event(event::killed(sig, signal_name(sig)));
            128 + sig
        }
        (None, None) => {
            queue.event("server ended with an unknown status");
            1
        }
    };
    // A host line the server never saw the end of is still recorded: the
    // stdin relay is not joined, it may be blocked on a host that goes on.
    queue.send(Entry::Flush(Stream::Stdin, now()));
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

/// Forwards SIGTERM, SIGINT and SIGHUP to the server and notes them.
fn forward_signals(pid: u32, queue: Queue) -> io::Result<()> {
    let mut signals =
        signal_hook::iterator::Signals::new([libc::SIGTERM, libc::SIGINT, libc::SIGHUP])?;
    thread::spawn(move || {
        for sig in signals.forever() {
            queue.event(event::forwarded(signal_name(sig)));
            // SAFETY: kill(2) with a pid we spawned and a valid signal number.
            unsafe {
                libc::kill(pid as libc::pid_t, sig);
            }
        }
    });
    Ok(())
}

/// Waits, once the server has exited, for its stdout and stderr relays to
/// deliver what it wrote: as long as they make progress (a slow host), up
/// to [`DRAIN_LIMIT`]; then an event says what was left and why.
fn drain(
    done: &Receiver<Stream>,
    progress: &[Arc<Progress>; 2],
    fds: [std::os::fd::RawFd; 2],
    queue: &Queue,
) {
    let start = Instant::now();
    let mut open = [true, true];
    let mut last: u64 = progress.iter().map(|p| p.total()).sum();
    while open.iter().any(|&o| o) {
        match done.recv_timeout(DRAIN_STALL) {
            Ok(stream) => open[usize::from(stream == Stream::Stderr)] = false,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let total: u64 = progress.iter().map(|p| p.total()).sum();
                if total != last && start.elapsed() < DRAIN_LIMIT {
                    last = total;
                    continue;
                }
                let why = if total != last {
                    format!("still going after {} s", DRAIN_LIMIT.as_secs())
                } else {
                    format!("no progress for {} s", DRAIN_STALL.as_secs())
                };
                for (i, name) in ["stdout", "stderr"].into_iter().enumerate() {
                    if !open[i] {
                        continue;
                    }
                    let p = &progress[i];
                    let stream = if i == 0 {
                        Stream::Stdout
                    } else {
                        Stream::Stderr
                    };
                    queue.send(Entry::Flush(stream, now()));
                    let read = p.read.load(Ordering::Relaxed);
                    let delivered = p.delivered.load(Ordering::Relaxed);
                    let host = if i == 0 {
                        "the host"
                    } else {
                        "mcpdbg's stderr"
                    };
                    let in_pipe = pipe_pending(fds[i])
                        .map(|n| format!("; {n} more bytes were left unread in the pipe, neither recorded nor delivered"))
                        .unwrap_or_default();
                    let text = if p.writing.load(Ordering::Relaxed)
                        && !p.closed.load(Ordering::Relaxed)
                    {
                        format!(
                            "server exited; {host} stopped reading its {name} ({why}): {delivered} of the {read} bytes recorded were delivered{in_pipe}; stopped relaying it"
                        )
                    } else {
                        format!(
                            "server exited but its {name} is still held open by another process ({why}); {read} bytes recorded, {delivered} delivered; stopped recording it"
                        )
                    };
                    queue.event(text);
                }
                break;
            }
        }
    }
}

/// Relays one stream chunk by chunk and queues the chunks for the writer.
fn relay(source: impl Read, sink: Option<impl Write>, stream: Stream, queue: &Queue) {
    relay_counted(source, sink, stream, queue, None)
}

/// [`relay`], counting what it reads and delivers in `progress`.
fn relay_counted(
    mut source: impl Read,
    mut sink: Option<impl Write>,
    stream: Stream,
    queue: &Queue,
    progress: Option<&Progress>,
) {
    let mut dropped = 0usize;
    let mut spare: Option<Vec<u8>> = None;
    loop {
        let mut buf = spare.take().unwrap_or_else(|| queue.pool.take());
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                spare = Some(buf);
                continue;
            }
            Err(_) => break,
        };
        // Queue before forwarding, so that a request is always in the
        // transcript before the response it causes. Queueing never waits: a
        // full queue means a gap, never a slower session.
        buf.truncate(n);
        let buf = Arc::new(buf);
        let stamp = now();
        if dropped > 0 && queue.offer(Entry::Gap(stream, stamp.clone(), dropped)) {
            dropped = 0;
        }
        if dropped > 0 || !queue.offer(Entry::Chunk(stream, stamp, buf.clone())) {
            dropped += n;
        }
        if let Some(p) = progress {
            p.read.fetch_add(n as u64, Ordering::Relaxed);
            p.writing.store(true, Ordering::Relaxed);
        }
        if let Some(out) = sink.as_mut() {
            if deliver(out, &buf, progress).is_err() {
                // The reader went away (server stdin closed, host stdout
                // closed): keep draining and recording, stop forwarding.
                sink = None;
                if let Some(p) = progress {
                    p.closed.store(true, Ordering::Relaxed);
                }
            }
        }
        if let Some(p) = progress {
            p.writing.store(false, Ordering::Relaxed);
        }
        queue.pool.give(buf);
    }
    // Queued before the sink is closed: closing the server's stdin may end
    // the server, and the session with it, before a later entry is queued.
    if dropped > 0 {
        queue.send(Entry::Gap(stream, now(), dropped));
    }
    queue.send(Entry::Eof(stream, now()));
    drop(sink);
}

/// Writes `buf` to `out`, counting each partial write as delivered.
fn deliver(out: &mut impl Write, mut buf: &[u8], progress: Option<&Progress>) -> io::Result<()> {
    while !buf.is_empty() {
        match out.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(k) => {
                if let Some(p) = progress {
                    p.delivered.fetch_add(k as u64, Ordering::Relaxed);
                }
                buf = &buf[k..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    out.flush()
}

/// One stream's line assembly in the writer.
#[derive(Default)]
struct Assembly {
    /// The start of a line whose end has not been read yet.
    partial: Vec<u8>,
    /// Skip up to the next newline: its start was lost in a gap.
    skip: bool,
    /// Bytes not recorded since the last gap note.
    lost: usize,
}

/// Turns the relay threads' entries into transcript records.
struct Transcript<W: Write> {
    out: W,
    streams: [Assembly; 3],
}

impl<W: Write> Transcript<W> {
    fn new(out: W) -> Transcript<W> {
        Transcript {
            out,
            streams: Default::default(),
        }
    }

    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        match entry {
            Entry::Chunk(stream, stamp, chunk) => self.chunk(*stream, stamp, chunk),
            Entry::Gap(stream, stamp, bytes) => {
                let s = &mut self.streams[*stream as usize];
                let lost = bytes + s.lost + s.partial.len();
                s.partial.clear();
                s.lost = 0;
                s.skip = true;
                write_record(&mut self.out, stamp, b"#", gap(lost, *stream).as_bytes())
            }
            Entry::Eof(stream, stamp) | Entry::Flush(stream, stamp) => {
                let s = &mut self.streams[*stream as usize];
                if s.lost > 0 {
                    let lost = std::mem::take(&mut s.lost);
                    write_record(&mut self.out, stamp, b"#", gap(lost, *stream).as_bytes())?;
                }
                let s = &mut self.streams[*stream as usize];
                if !s.partial.is_empty() {
                    let line = std::mem::take(&mut s.partial);
                    let note = event::partial_line(stream.name());
                    write_record(&mut self.out, stamp, b"#", note.as_bytes())?;
                    write_record(&mut self.out, stamp, stream.marker(), &line)?;
                }
                if matches!(entry, Entry::Flush(..)) {
                    return Ok(());
                }
                let closed = format!("{} closed", stream.name());
                write_record(&mut self.out, stamp, b"#", closed.as_bytes())
            }
            // Text from the command line or the environment is escaped so
            // that an event stays one record (a newline in a server argument
            // must not write records of its own).
            Entry::Event(stamp, text) => write_record(
                &mut self.out,
                stamp,
                b"#",
                crate::text::escape_control(text).as_bytes(),
            ),
            Entry::Stop => Ok(()),
        }
    }

    fn chunk(&mut self, stream: Stream, stamp: &str, chunk: &[u8]) -> io::Result<()> {
        let s = &mut self.streams[stream as usize];
        let mut rest = chunk;
        if s.skip {
            match memchr::memchr(b'\n', rest) {
                Some(i) => {
                    let lost = std::mem::take(&mut s.lost) + i + 1;
                    s.skip = false;
                    rest = &rest[i + 1..];
                    write_record(&mut self.out, stamp, b"#", gap(lost, stream).as_bytes())?;
                }
                None => {
                    s.lost += rest.len();
                    return Ok(());
                }
            }
        }
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let s = &mut self.streams[stream as usize];
            if s.partial.is_empty() {
                write_record(&mut self.out, stamp, stream.marker(), &rest[..i])?;
            } else {
                let room = MAX_LINE.saturating_sub(s.partial.len());
                let keep = i.min(room);
                s.partial.extend_from_slice(&rest[..keep]);
                s.lost += i - keep;
                let line = std::mem::take(&mut s.partial);
                write_record(&mut self.out, stamp, stream.marker(), &line)?;
            }
            rest = &rest[i + 1..];
        }
        let s = &mut self.streams[stream as usize];
        let room = MAX_LINE.saturating_sub(s.partial.len());
        let keep = rest.len().min(room);
        s.partial.extend_from_slice(&rest[..keep]);
        s.lost += rest.len() - keep;
        if s.lost > 0 && s.partial.is_empty() {
            let lost = std::mem::take(&mut s.lost);
            write_record(&mut self.out, stamp, b"#", gap(lost, stream).as_bytes())?;
        }
        Ok(())
    }
}

fn gap(bytes: usize, stream: Stream) -> String {
    event::gap(bytes, stream.name())
}

/// The writer thread: turns entries into transcript lines, flushing whenever
/// the queue runs empty.
fn write_transcript<S: Store>(
    file: S,
    start: u64,
    rx: Receiver<Entry>,
    in_flight: Arc<AtomicUsize>,
    pool: Pool,
) -> io::Result<()> {
    // Records are assembled in memory and handed to the file whole, so that
    // a failed write (a full disk) never splices two records together.
    let mut committer = Committer::new(file, start);
    let mut transcript = Transcript::new(Vec::with_capacity(COMMIT_BYTES));
    let mut warned_gap = false;
    let mut stopped = false;
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(entry) = next {
            if matches!(entry, Entry::Stop) {
                stopped = true;
                break;
            }
            in_flight.fetch_sub(entry.bytes(), Ordering::Relaxed);
            if let (Entry::Gap(stream, _, bytes), false) = (&entry, warned_gap) {
                crate::say!(
                    "mcpdbg record: the transcript could not keep up; {bytes} bytes of {} were relayed but not recorded (see the `# gap` events)",
                    stream.name()
                );
                warned_gap = true;
            }
            // Writing to memory cannot fail.
            let _ = transcript.entry(&entry);
            if let Entry::Chunk(_, _, chunk) = entry {
                pool.give(chunk);
            }
            if transcript.out.len() >= COMMIT_BYTES {
                committer.commit(&mut transcript.out);
            }
            next = rx.try_recv().ok();
        }
        committer.commit(&mut transcript.out);
        if stopped {
            break;
        }
    }
    // Write errors were reported as they happened; they never change the
    // outcome of the session, whose exit status stays the server's.
    committer.finish();
    Ok(())
}

/// Bytes of records gathered before they are handed to the file.
const COMMIT_BYTES: usize = 64 * 1024;

/// Where the transcript goes: a file, or a fake one in the tests.
trait Store: Write {
    /// Cuts the store back to `len` bytes, writing on from there.
    fn cut(&mut self, len: u64) -> io::Result<()>;
}

/// No transcript: the session runs unrecorded.
impl Store for io::Sink {
    fn cut(&mut self, _len: u64) -> io::Result<()> {
        Ok(())
    }
}

impl Store for File {
    fn cut(&mut self, len: u64) -> io::Result<()> {
        use std::io::{Seek, SeekFrom};
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len)).map(|_| ())
    }
}

/// Writes whole records to the store. When a write fails (a full disk),
/// what it could not write is counted by stream; when writing works again,
/// a record cut by the failure is removed (or ended, when the store cannot
/// be cut), `# gap` events say what is missing, and recording goes on.
struct Committer<S: Store> {
    store: S,
    /// The store's length up to its last whole record.
    whole: u64,
    /// Bytes of a record cut by a failed write, after `whole`.
    torn: u64,
    /// Bytes not written, by stream (stdin, stdout, stderr), and events.
    lost: [usize; 3],
    lost_events: usize,
    /// The error of the outage under way.
    failing: Option<String>,
    /// Bytes not written over the whole session, and the outages.
    total_lost: u64,
    outages: usize,
}

impl<S: Store> Committer<S> {
    fn new(store: S, whole: u64) -> Committer<S> {
        Committer {
            store,
            whole,
            torn: 0,
            lost: [0; 3],
            lost_events: 0,
            failing: None,
            total_lost: 0,
            outages: 0,
        }
    }

    /// Writes `records` (whole records) and empties it.
    fn commit(&mut self, records: &mut Vec<u8>) {
        if records.is_empty() && self.failing.is_none() {
            return;
        }
        let mut prefix = Vec::new();
        if self.torn > 0 {
            if self.store.cut(self.whole).is_ok() {
                self.torn = 0;
            } else {
                // The store cannot be cut (a device): end the cut record.
                prefix.push(b'\n');
            }
        }
        if self.failing.is_some() {
            let stamp = now();
            let cause = self.failing.clone().unwrap_or_default();
            let note = format!("transcript: writing failed ({cause}) and resumes here");
            let _ = write_record(&mut prefix, &stamp, b"#", note.as_bytes());
            for stream in [Stream::Stdin, Stream::Stdout, Stream::Stderr] {
                let lost = self.lost[stream as usize];
                if lost > 0 {
                    let _ = write_record(&mut prefix, &stamp, b"#", gap(lost, stream).as_bytes());
                }
            }
            if self.lost_events > 0 {
                let text = format!(
                    "gap: {} recorder events were not recorded",
                    self.lost_events
                );
                let _ = write_record(&mut prefix, &stamp, b"#", text.as_bytes());
            }
        }
        let prefix_len = prefix.len();
        let buf = if prefix.is_empty() {
            std::mem::take(records)
        } else {
            prefix.extend_from_slice(records);
            records.clear();
            prefix
        };
        let mut written = 0;
        let result = loop {
            if written == buf.len() {
                break self.store.flush();
            }
            match self.store.write(&buf[written..]) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(k) => written += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        match result {
            Ok(()) => {
                if self.failing.take().is_some() {
                    crate::say!(
                        "mcpdbg record: the transcript is written again; what could not be written is counted in `# gap` events"
                    );
                }
                // A cut record that could not be removed was ended by the
                // prefix's first byte: it is a (broken) whole record now.
                self.whole += self.torn + buf.len() as u64;
                self.torn = 0;
                self.lost = [0; 3];
                self.lost_events = 0;
            }
            Err(e) => {
                let whole = buf[..written]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                if whole > 0 {
                    self.whole += self.torn + whole as u64;
                    self.torn = (written - whole) as u64;
                } else {
                    self.torn += written as u64;
                }
                if whole >= prefix_len {
                    // The gap events went out: count afresh.
                    self.lost = [0; 3];
                    self.lost_events = 0;
                }
                for line in buf[whole.max(prefix_len)..].split_inclusive(|&b| b == b'\n') {
                    self.count_lost(line);
                }
                if self.failing.is_none() {
                    self.outages += 1;
                    crate::say!(
                        "mcpdbg record: cannot write the transcript: {e}; the session goes on, and once writing works again `# gap` events say what is missing"
                    );
                }
                self.failing = Some(e.to_string());
            }
        }
        let mut buf = buf;
        buf.clear();
        if buf.capacity() <= 4 * COMMIT_BYTES {
            *records = buf;
        }
    }

    /// Counts a record that was not written.
    fn count_lost(&mut self, line: &[u8]) {
        self.total_lost += line.len() as u64;
        let Some(space) = memchr::memchr(b' ', line) else {
            return;
        };
        let body = line.len().saturating_sub(space + 3);
        match line.get(space + 1) {
            Some(b'>') => self.lost[0] += body,
            Some(b'<') => self.lost[1] += body,
            Some(b'!') => self.lost[2] += body,
            _ => self.lost_events += 1,
        }
    }

    /// The last word on stderr when the outage never ended.
    fn finish(&mut self) {
        if let Some(cause) = &self.failing {
            crate::say!(
                "mcpdbg record: the transcript could not be written to the end ({cause}): {} bytes of records were not written",
                self.total_lost
            );
        }
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

    /// A disk that takes `room` more bytes, then fails with ENOSPC.
    struct Disk {
        data: Vec<u8>,
        room: Option<usize>,
        can_cut: bool,
    }

    impl Write for Disk {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = self.room.map_or(buf.len(), |r| r.min(buf.len()));
            if n == 0 && !buf.is_empty() {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            if let Some(r) = self.room.as_mut() {
                *r -= n;
            }
            self.data.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Store for Disk {
        fn cut(&mut self, len: u64) -> io::Result<()> {
            if !self.can_cut {
                return Err(io::ErrorKind::Unsupported.into());
            }
            self.data.truncate(len as usize);
            Ok(())
        }
    }

    fn full_disk_session(can_cut: bool) -> String {
        let disk = Disk {
            data: Vec::new(),
            room: None,
            can_cut,
        };
        let mut c = Committer::new(disk, 0);
        let mut records = b"T1 > {\"a\":1}\nT2 < {\"a\":1}\n".to_vec();
        c.commit(&mut records);
        // The disk fills 10 bytes into the next record...
        c.store.room = Some(10);
        records.extend_from_slice(b"T3 < {\"b\":22222222}\n");
        c.commit(&mut records);
        // ... stays full for another record and an event ...
        records.extend_from_slice(b"T4 ! warn\nT5 # stdin closed\n");
        c.commit(&mut records);
        // ... and has room again.
        c.store.room = None;
        records.extend_from_slice(b"T6 < {\"c\":3}\n");
        c.commit(&mut records);
        String::from_utf8(c.store.data).expect("utf-8")
    }

    /// The lines with the stamps of the gap events replaced by `S`.
    fn stamped(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| match l.split_once(' ') {
                Some((t, rest)) if t.len() > 2 => format!("S {rest}"),
                _ => l.to_string(),
            })
            .collect()
    }

    #[test]
    fn a_full_disk_leaves_a_gap_event_and_no_spliced_record() {
        let lines = stamped(&full_disk_session(true));
        assert_eq!(
            lines,
            [
                "T1 > {\"a\":1}",
                "T2 < {\"a\":1}",
                "S # transcript: writing failed (No space left on device (os error 28)) and resumes here",
                "S # gap: 15 bytes of stdout were not recorded",
                "S # gap: 5 bytes of stderr were not recorded",
                "S # gap: 1 recorder events were not recorded",
                "T6 < {\"c\":3}",
            ]
        );
    }

    #[test]
    fn a_full_device_that_cannot_be_cut_ends_the_cut_record_on_its_own_line() {
        let lines = stamped(&full_disk_session(false));
        assert_eq!(lines[2], "T3 < {\"b\":");
        assert!(
            lines[3].starts_with("S # transcript: writing failed"),
            "{lines:?}"
        );
        assert_eq!(lines.last().map(String::as_str), Some("T6 < {\"c\":3}"));
        assert_eq!(lines.len(), 8, "{lines:?}");
    }

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
    fn numbered_names_go_before_the_extension() {
        assert_eq!(
            numbered_name(Path::new("d/s-20261129T080706Z.log"), 2),
            PathBuf::from("d/s-20261129T080706Z-2.log")
        );
        assert_eq!(
            numbered_name(Path::new("d/t.x.log"), 3),
            PathBuf::from("d/t.x-3.log")
        );
        assert_eq!(
            numbered_name(Path::new("d/plain"), 2),
            PathBuf::from("d/plain-2")
        );
        assert_eq!(
            numbered_name(Path::new("d/.hidden"), 2),
            PathBuf::from("d/.hidden-2")
        );
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
        assert!(crate::wire::time::Timestamp::parse(&t).is_some());
    }

    fn replay(entries: &[Entry]) -> String {
        let mut t = Transcript::new(Vec::new());
        for e in entries {
            t.entry(e).unwrap();
        }
        String::from_utf8(t.out).unwrap()
    }

    fn chunk(stream: Stream, time: &str, bytes: &str) -> Entry {
        Entry::Chunk(stream, time.into(), Arc::new(bytes.as_bytes().to_vec()))
    }

    #[test]
    fn lines_are_assembled_across_chunks_and_stamped_when_complete() {
        let out = replay(&[
            chunk(Stream::Stdout, "T1", "{\"a\":1}\n{\"b\""),
            chunk(Stream::Stdin, "T2", "{\"c\":3}\n"),
            chunk(Stream::Stdout, "T3", ":2}\n\n"),
            chunk(Stream::Stdout, "T4", "{\"d\""),
            Entry::Eof(Stream::Stdout, "T5".into()),
        ]);
        assert_eq!(
            out,
            "T1 < {\"a\":1}\nT2 > {\"c\":3}\nT3 < {\"b\":2}\nT3 < \n\
             T5 # partial line follows on stdout\nT5 < {\"d\"\nT5 # stdout closed\n"
        );
    }

    #[test]
    fn a_gap_drops_the_lines_it_cut_and_says_so() {
        let out = replay(&[
            chunk(Stream::Stdout, "T1", "{\"a\":1}\n{\"b\""),
            Entry::Gap(Stream::Stdout, "T2".into(), 100),
            chunk(Stream::Stdout, "T3", "tail of a lost line\n{\"c\":3}\n"),
        ]);
        assert_eq!(
            out,
            "T1 < {\"a\":1}\nT2 # gap: 104 bytes of stdout were not recorded\n\
             T3 # gap: 20 bytes of stdout were not recorded\nT3 < {\"c\":3}\n"
        );
    }
}
