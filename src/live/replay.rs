//! `mcpdbg replay`: a capture's client side played against a live server.
//!
//! Starts the server, sends the client's recorded requests and notifications
//! in their original order, each once the responses it originally followed
//! have come again (or timed out), answers the server's own requests with
//! the client's recorded answers (by method, in order), and writes the new
//! session as a native transcript. It reads the clock (to pace, to time out
//! and to stamp the transcript) and does I/O; it judges nothing: the caller
//! reads the transcript back and compares it with [`crate::views::diff`].

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ffi::OsString;

use std::io::{self, BufRead, BufReader, Write};

use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use super::output::{self, Budget, IN_FLIGHT, Output, Recorded};
use super::process;
use super::transcript::Transcript;
use chrono::Utc;
use serde_json::{Map, Value, json};

use super::signal_name;
use crate::views::capture::{Capture, Outcome, Send};
use crate::wire::dir::Dir;
use crate::wire::event::text as event;
use crate::wire::message::RequestId;

/// Where a replay of `log` is written when `--transcript` is not given:
/// `.mcpdbg/replays/NAME.replay-TIME.log` in the directory of `log` (NAME
/// its file name, TIME the UTC time of the replay, `-2` and so on after
/// the stamp when a replay of the same second is there). In a hidden
/// directory, so that a glob of captures (`logs/*.log`) does not take the
/// replays for captures. The directory is made owner-only when missing;
/// when it cannot be, creating the transcript says why.
pub fn default_out(log: &Path) -> PathBuf {
    let dir = match log.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join(REPLAYS),
        _ => PathBuf::from(REPLAYS),
    };
    let _ = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir);
    let name = log
        .file_name()
        .map_or("session".into(), |n| n.to_string_lossy().into_owned());
    super::transcript::fresh_name(|stamp| dir.join(format!("{name}.replay-{stamp}.log")))
}

/// The directory of default replay transcripts, beside the log replayed.
pub const REPLAYS: &str = ".mcpdbg/replays";

/// Where `replay --redact` records the session before it is redacted: a
/// hidden file beside `out` (owner-only, like every transcript), which
/// [`write_redacted`] replaces by `out` and which is removed when the
/// replay ends, however it ends.
pub fn unredacted_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or("replay".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.unredacted-{}", std::process::id()))
}

/// Writes `out` (created new, owner-only, as the replay's transcript) from
/// the transcript at `recording` with the strings `redactor` knows as its
/// placeholders: each message with its strings replaced (JSON re-written
/// compactly), each stderr line whole, events and text that is no record
/// with their secret shapes masked. Timestamps and markers are kept, so
/// `out` is still a native transcript that `check` and `diff` read.
pub fn write_redacted(
    recording: &Path,
    out: &Path,
    redactor: &mut crate::redact::Redactor,
) -> io::Result<()> {
    use crate::reader::native::{Marker, parse_prefix};
    let file = std::fs::File::open(recording).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot read {}: {e}", recording.display()),
        )
    })?;
    let mut transcript = Transcript::create(out)?;
    for line in BufReader::new(file).split(b'\n') {
        let line = line?;
        let redacted = match parse_prefix(&line) {
            Some((_, marker, start)) => {
                let payload = String::from_utf8_lossy(&line[start..]);
                let text = match marker {
                    Marker::Line(Dir::Stderr) => redactor.whole(&payload),
                    Marker::Line(_) => redactor.raw(&payload),
                    Marker::Event => redactor.apply(&payload),
                };
                let mut bytes = line[..start].to_vec();
                bytes.extend_from_slice(text.as_bytes());
                bytes
            }
            None => redactor.apply(&String::from_utf8_lossy(&line)).into_bytes(),
        };
        transcript.raw_line(&redacted)?;
    }
    transcript.flush()
}

/// How the client's messages are paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Each message as soon as what it waited for has happened.
    Fast,
    /// Also keep the recorded gap since the previous client message, up
    /// to [`Options::max_gap`].
    Original,
}

/// What `mcpdbg replay` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The server command and its arguments.
    pub command: Vec<OsString>,
    /// The new transcript; created, never overwritten.
    pub out: PathBuf,
    pub timing: Timing,
    /// The longest recorded gap kept with [`Timing::Original`], in seconds.
    pub max_gap: f64,
    /// Seconds to wait for each response; `None`: twice the recorded
    /// latency, at least 5 s (30 s when the log has no times), and no limit
    /// for requests that were never answered in the log.
    pub timeout: Option<f64>,
    /// Seconds to wait for the handshake's answer (`initialize`,
    /// `server/discover`): it includes the server's start.
    pub start_timeout: f64,
    /// Seconds to wait, once everything was sent, for requests with no
    /// limit before ending the replay.
    pub grace: f64,
    /// Stop at the first request that times out.
    pub stop_on_hang: bool,
    /// Give the requests fresh ids (1, 2, ...) instead of the recorded ones.
    pub renumber: bool,
}

/// What happened during the replay, besides the transcript.
#[derive(Clone, Debug, Default)]
pub struct Replayed {
    /// Requests (indices in [`Capture::requests`]) the replay gave up on.
    pub timed_out: BTreeSet<usize>,
    /// Things that differ from the recording in themselves (a server
    /// request with no recorded answer).
    pub differences: Vec<String>,
    /// What the user should know (stopped at a hang, messages not sent, the
    /// server had to be killed).
    pub notes: Vec<String>,
    /// How the server ended (`None`: it could not be reaped).
    pub exit: Option<ExitStatus>,
}

pub use super::output::{LINE_LIMIT, OUTPUT_LIMIT};

enum Event {
    Server(Output),
    /// Writing to the server's stdin failed (it closed it).
    StdinFailed,
}

impl From<Output> for Event {
    fn from(output: Output) -> Event {
        Event::Server(output)
    }
}

/// The server's stdin, written by a thread of its own so that a server
/// that does not read never blocks the replay's clock.
struct Stdin {
    tx: Sender<Vec<u8>>,
    /// Bytes handed to the writer.
    queued: u64,
    /// Bytes the writer has written.
    written: Arc<AtomicU64>,
}

fn writer(mut stdin: ChildStdin, events: SyncSender<Event>) -> Stdin {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let written = Arc::new(AtomicU64::new(0));
    let count = Arc::clone(&written);
    thread::spawn(move || {
        for bytes in rx {
            if stdin.write_all(&bytes).and_then(|_| stdin.flush()).is_err() {
                let _ = events.send(Event::StdinFailed);
                return;
            }
            count.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        }
    });
    Stdin {
        tx,
        queued: 0,
        written,
    }
}

struct Pending {
    request: usize,
    deadline: Option<Instant>,
}

/// The replay's state.
struct Run<'a> {
    capture: &'a Capture,
    options: &'a Options,
    transcript: Transcript,
    stdin: Option<Stdin>,
    /// Bytes queued for and written to the stdin, kept once it is closed.
    stdin_bytes: Option<(u64, Arc<AtomicU64>)>,
    /// The server's output recorded, against [`OUTPUT_LIMIT`].
    output: Budget,
    settled: Vec<bool>,
    /// New id (as JSON text) -> the request waiting for it.
    pending: HashMap<String, Pending>,
    /// The client's recorded answers to the server's requests, by method.
    answers: HashMap<&'a str, VecDeque<&'a Map<String, Value>>>,
    /// Recorded id -> the id sent, with `--renumber`.
    renumbered: HashMap<RequestId, Value>,
    next_id: i64,
    /// When each request (index in [`Capture::requests`]) was sent.
    sent_at: Vec<Option<Instant>>,
    stdout_open: bool,
    stderr_open: bool,
    result: Replayed,
}

impl Run<'_> {
    fn timeout(&self, request: usize) -> Option<f64> {
        let e = &self.capture.requests[request];
        // The handshake is sent as the server starts: its wait includes the
        // start, which a loaded machine can stretch to seconds.
        if matches!(e.method.as_str(), "initialize" | "server/discover") {
            return Some(self.options.start_timeout);
        }
        if let Some(t) = self.options.timeout {
            return Some(t);
        }
        match (&e.outcome, e.latency) {
            (Outcome::Open, _) => None,
            (_, Some(l)) => Some((2.0 * l).max(5.0)),
            (_, None) => Some(30.0),
        }
    }

    fn write_stdin(&mut self, message: &Value) -> io::Result<()> {
        // Numbers a double would change go out as the log wrote them.
        let mut bytes = crate::wire::exact::to_vec(message).map_err(io::Error::other)?;
        self.transcript.line(Utc::now(), ">", &bytes)?;
        bytes.push(b'\n');
        let len = bytes.len() as u64;
        let sent = match self.stdin.as_mut() {
            Some(stdin) => {
                let sent = stdin.tx.send(bytes).is_ok();
                if sent {
                    stdin.queued += len;
                }
                sent
            }
            None => false,
        };
        if !sent {
            self.stdin_failed()?;
        }
        Ok(())
    }

    fn stdin_failed(&mut self) -> io::Result<()> {
        if let Some(stdin) = self.stdin.take() {
            self.result
                .notes
                .push("the server stopped reading its stdin".to_string());
            self.transcript.event(&event::closed("stdin"))?;
            self.stdin_bytes = Some((stdin.queued, stdin.written));
        }
        Ok(())
    }

    /// Closes the server's stdin once what was queued is written.
    fn close_stdin(&mut self) -> io::Result<()> {
        if let Some(stdin) = self.stdin.take() {
            self.transcript.event(&event::closed("stdin"))?;
            self.stdin_bytes = Some((stdin.queued, stdin.written));
        }
        Ok(())
    }

    fn send(&mut self, s: &Send) -> io::Result<()> {
        let mut message = s.fields();
        if self.options.renumber {
            if let Some(id) = s.request.map(|i| self.capture.requests[i].id.clone()) {
                let new = Value::from(self.next_id);
                self.next_id += 1;
                self.renumbered.insert(id, new.clone());
                message.insert("id".into(), new);
            }
            if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
                if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                    let new = params
                        .get("requestId")
                        .and_then(RequestId::from_json)
                        .and_then(|id| self.renumbered.get(&id).cloned());
                    if let Some(new) = new {
                        params.insert("requestId".into(), new);
                    }
                }
            }
        }
        if let Some(i) = s.request {
            self.sent_at[i] = Some(Instant::now());
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            let deadline = self
                .timeout(i)
                .map(|t| Instant::now() + Duration::from_secs_f64(t));
            self.pending.insert(
                crate::wire::exact::to_string(&id),
                Pending {
                    request: i,
                    deadline,
                },
            );
        }
        self.write_stdin(&Value::Object(message))
    }

    fn answer(&mut self, request: &Map<String, Value>) -> io::Result<()> {
        let (Some(method), Some(id)) = (
            request.get("method").and_then(Value::as_str),
            request.get("id"),
        ) else {
            return Ok(());
        };
        let recorded = self.answers.get_mut(method).and_then(VecDeque::pop_front);
        let mut reply = Map::new();
        reply.insert("jsonrpc".into(), "2.0".into());
        reply.insert("id".into(), id.clone());
        match recorded {
            Some(answer) => {
                for key in ["result", "error"] {
                    if let Some(v) = answer.get(key) {
                        reply.insert(key.into(), v.clone());
                    }
                }
            }
            None => {
                let text = format!(
                    "the server sent `{method}` (id {}) and the recorded session has no further answer to it; mcpdbg answered with an error",
                    crate::wire::exact::to_string(id)
                );
                self.result.differences.push(text);
                reply.insert(
                    "error".into(),
                    json!({
                        "code": -32603,
                        "message": format!("mcpdbg replay: the recorded session has no answer for this {method} request"),
                    }),
                );
            }
        }
        self.write_stdin(&Value::Object(reply))
    }

    fn server_wrote(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(value) = std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| crate::wire::exact::parse(text).ok())
        else {
            return Ok(());
        };
        let messages = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        for m in messages {
            let Value::Object(obj) = m else { continue };
            match (obj.contains_key("method"), obj.get("id")) {
                (true, Some(_)) => self.answer(&obj)?,
                (false, Some(id)) => {
                    if let Some(p) = self.pending.remove(&crate::wire::exact::to_string(id)) {
                        self.settled[p.request] = true;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn event(&mut self, event: Event) -> io::Result<()> {
        let output = match event {
            Event::StdinFailed => return self.stdin_failed(),
            Event::Server(output) => output,
        };
        match self.output.record(
            output,
            "replay",
            &mut self.transcript,
            &mut self.result.notes,
        )? {
            Recorded::Stdout(bytes) => self.server_wrote(&bytes)?,
            Recorded::Closed { stderr: true } => self.stderr_open = false,
            Recorded::Closed { stderr: false } => self.stdout_open = false,
            Recorded::Done => {}
        }
        Ok(())
    }

    /// Gives up on the requests whose time is up; true when one was.
    fn expire(&mut self, now: Instant, all: bool) -> io::Result<bool> {
        let expired: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| all || p.deadline.is_some_and(|d| d <= now))
            .map(|(k, _)| k.clone())
            .collect();
        for key in &expired {
            let p = self.pending.remove(key).expect("pending");
            self.settled[p.request] = true;
            self.result.timed_out.insert(p.request);
            let e = &self.capture.requests[p.request];
            let waited = match p.deadline {
                Some(_) => format!(
                    "within {}",
                    crate::text::duration(self.timeout(p.request).unwrap_or(0.0))
                ),
                None => "before the replay ended".to_string(),
            };
            self.transcript.event(&format!(
                "replay: no answer to {} id {key} {waited}",
                e.method
            ))?;
        }
        Ok(!expired.is_empty())
    }
}

/// The request (index in [`Capture::requests`]) a recorded
/// `notifications/cancelled` is about: the latest one sent before it with
/// that id.
fn cancel_target(capture: &Capture, s: &Send) -> Option<usize> {
    if !s.message.contains("notifications/cancelled") {
        return None;
    }
    let message = s.fields();
    if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
        return None;
    }
    let id = message
        .get("params")
        .and_then(|p| p.get("requestId"))
        .and_then(RequestId::from_json)?;
    capture
        .requests
        .iter()
        .rposition(|e| e.line < s.line && e.id == id)
}

/// When a recorded cancel is sent.
enum Cancel {
    /// The server answered the request: a client sends no cancel then.
    Skip,
    /// Not before this: the recorded delay after the request was sent (or
    /// `--timeout`), whatever the pacing, so that a fixed handler has the
    /// time it had.
    At(Instant),
}

fn cancel_due(run: &Run<'_>, request: usize, s: &Send) -> Cancel {
    if run.settled[request] && !run.result.timed_out.contains(&request) {
        return Cancel::Skip;
    }
    let Some(sent) = run.sent_at[request] else {
        return Cancel::At(Instant::now());
    };
    let recorded = match (&run.capture.requests[request].time, &s.time) {
        (Some(a), Some(b)) => Some(a.seconds_until(b).max(0.0)),
        _ => None,
    };
    match run.options.timeout.or(recorded) {
        Some(delay) => Cancel::At(sent + Duration::from_secs_f64(delay)),
        None => Cancel::At(Instant::now()),
    }
}

/// Waits for the server to end, recording what it still writes; after
/// `patience`, stops its process group (SIGTERM, then SIGKILL).
fn end(run: &mut Run<'_>, child: &mut Child, rx: &Receiver<Event>) -> io::Result<()> {
    let start = Instant::now();
    let mut signalled = 0;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let waited = start.elapsed();
        if signalled == 0 && waited > Duration::from_secs(3) {
            run.result.notes.push(
                "the server did not exit within 3 s of its stdin closing; mcpdbg sent SIGTERM"
                    .to_string(),
            );
            process::signal_group(child, libc::SIGTERM);
            signalled = 1;
        } else if signalled == 1 && waited > Duration::from_secs(5) {
            process::signal_group(child, libc::SIGKILL);
            signalled = 2;
        } else if waited > Duration::from_secs(10) {
            break None;
        }
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(e) => run.event(e)?,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => thread::sleep(Duration::from_millis(50)),
        }
    };
    // What the server wrote before it ended; its streams may stay open in
    // a child it left behind, so this is bounded too.
    let drain = Instant::now() + Duration::from_secs(1);
    while (run.stdout_open || run.stderr_open) && Instant::now() < drain {
        let left = drain.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(e) => run.event(e)?,
            Err(_) => break,
        }
    }
    if let Some((queued, written)) = &run.stdin_bytes {
        let unwritten = queued.saturating_sub(written.load(Ordering::Relaxed));
        if unwritten > 0 {
            let text = format!(
                "{unwritten} bytes of the client's messages were never written to the server (it did not read its stdin); the transcript shows them as sent"
            );
            run.transcript.event(&format!("replay: {text}"))?;
            run.result.notes.push(text);
        }
    }
    if let Some(s) = status {
        match (s.code(), s.signal()) {
            (Some(code), _) => run.transcript.event(&event::exited(code))?,
            (None, Some(sig)) => run
                .transcript
                .event(&event::killed(sig, signal_name(sig)))?,
            _ => {}
        }
    }
    run.result.exit = status;
    Ok(())
}

/// Plays the client side of `capture` against the server. `Err` when the
/// server cannot be started or the transcript cannot be written.
pub fn run(capture: &Capture, options: &Options) -> io::Result<Replayed> {
    let (program, args, command) = process::command_line(&options.command)?;
    let mut transcript = Transcript::create(&options.out)?;
    // `# start` says that the transcript holds the session from its
    // beginning: true of the replay only when the log's client side starts
    // with the handshake.
    let from_start = capture
        .requests
        .first()
        .is_some_and(|e| e.method == "initialize" || e.method == "server/discover")
        && capture.sends.first().and_then(|s| s.request) == Some(0);
    if from_start {
        transcript.event(&event::start(&command))?;
    } else {
        transcript.event(&format!(
            "replay of a capture that starts after the handshake: {command}"
        ))?;
    }
    let mut child = process::spawn(program, args, &mut transcript, "replay")?;
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    let stdin = writer(child.stdin.take().expect("piped"), tx.clone());
    output::pump(child.stdout.take().expect("piped"), false, tx.clone());
    output::pump(child.stderr.take().expect("piped"), true, tx);

    let mut answers: HashMap<&str, VecDeque<&Map<String, Value>>> = HashMap::new();
    for r in &capture.server_requests {
        if let Some(a) = &r.answer {
            answers.entry(r.method.as_str()).or_default().push_back(a);
        }
    }
    let mut run = Run {
        capture,
        options,
        transcript,
        stdin: Some(stdin),
        stdin_bytes: None,
        output: Budget::default(),
        settled: vec![false; capture.requests.len()],
        pending: HashMap::new(),
        answers,
        renumbered: HashMap::new(),
        next_id: 1,
        sent_at: vec![None; capture.requests.len()],
        stdout_open: true,
        stderr_open: true,
        result: Replayed::default(),
    };

    let mut next = 0;
    let mut last_send: Option<(Instant, Option<crate::wire::time::Timestamp>)> = None;
    let mut grace: Option<Instant> = None;
    loop {
        let mut wake: Option<Instant> = None;
        while next < capture.sends.len() && run.stdin.is_some() {
            let s = &capture.sends[next];
            if !s.after.iter().all(|&i| run.settled[i]) {
                break;
            }
            if let Some(r) = cancel_target(capture, s) {
                match cancel_due(&run, r, s) {
                    Cancel::Skip => {
                        let e = &capture.requests[r];
                        run.transcript.event(&format!(
                            "replay: the recorded cancel of {} id {} (line {}) not sent: the server answered it",
                            e.method, e.id, s.line
                        ))?;
                        next += 1;
                        continue;
                    }
                    Cancel::At(due) if Instant::now() < due => {
                        wake = Some(due);
                        break;
                    }
                    Cancel::At(_) => {}
                }
            }
            if options.timing == Timing::Original {
                if let (Some((at, Some(t0))), Some(t1)) = (&last_send, &s.time) {
                    let gap = t0.seconds_until(t1).clamp(0.0, options.max_gap);
                    let due = *at + Duration::from_secs_f64(gap);
                    if Instant::now() < due {
                        wake = Some(due);
                        break;
                    }
                }
            }
            run.send(s)?;
            last_send = Some((Instant::now(), s.time.clone()));
            next += 1;
        }
        if !run.stdout_open || run.stdin.is_none() || run.output.flooded() {
            break;
        }
        if next == capture.sends.len() {
            if run.pending.is_empty() {
                break;
            }
            if run.pending.values().all(|p| p.deadline.is_none()) {
                let g = *grace
                    .get_or_insert_with(|| Instant::now() + Duration::from_secs_f64(options.grace));
                if Instant::now() >= g {
                    run.expire(Instant::now(), true)?;
                    break;
                }
                wake = Some(wake.map_or(g, |w| w.min(g)));
            }
        }
        if let Some(d) = run.pending.values().filter_map(|p| p.deadline).min() {
            wake = Some(wake.map_or(d, |w| w.min(d)));
        }
        let wait = wake
            .map(|w| w.saturating_duration_since(Instant::now()))
            .unwrap_or(Duration::from_millis(200))
            .min(Duration::from_millis(200));
        run.transcript.flush()?;
        match rx.recv_timeout(wait) {
            Ok(e) => run.event(e)?,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if run.expire(Instant::now(), false)? && options.stop_on_hang {
            run.result.notes.push(format!(
                "stopped at the first hang (--stop-on-hang); {} client message(s) not sent",
                capture.sends.len() - next
            ));
            break;
        }
    }
    if next < capture.sends.len() && !options.stop_on_hang && !run.output.flooded() {
        run.result.notes.push(format!(
            "the server closed its {} before the replay ended; {} client message(s) not sent",
            if run.stdout_open { "stdin" } else { "stdout" },
            capture.sends.len() - next
        ));
    }
    run.close_stdin()?;
    end(&mut run, &mut child, &rx)?;
    run.transcript.flush()?;
    Ok(run.result)
}
