//! `mcpdbg probe`: a scripted host. Starts a server, talks to it the way a
//! host does, and writes the session as a native transcript, which the
//! caller then checks like any capture.
//!
//! The conversation: the handshake (`initialize` in the legacy era,
//! `server/discover` in the modern one, discover then `initialize` when it
//! fails with `--era auto`), then
//! `tools/list`, `resources/list`, `resources/templates/list` and
//! `prompts/list` where the server declared the capability (following
//! `nextCursor`), `ping` (legacy: the modern era has none), and the tool
//! calls asked for with `--call` (modern: each request with `_meta`); no
//! tool is called unasked. The host declares no client capabilities, so the
//! server's own requests (roots, sampling, elicitation) are refused with an
//! error response; its `ping` is answered. A request not answered within
//! the timeout is given up on and stays open in the transcript, where
//! `check` reports it as a hang naming the request. At the end stdin is
//! closed, then the process group gets SIGTERM and, after a grace period,
//! SIGKILL.
//!
//! Like `record` and `replay`, this reads the clock and handles processes;
//! it judges nothing.

use std::ffi::OsString;

use std::io::{self, Write};

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitStatus};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::output::{self, Budget, IN_FLIGHT, Output, Recorded};
use super::process;
use super::signal_name;
use super::transcript::Transcript;
use chrono::Utc;
use serde_json::{Map, Value, json};

/// The protocol version the probe asks for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The protocol version of the modern era's requests.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Which era the probe speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeEra {
    /// `initialize`, `notifications/initialized`, then requests.
    Legacy,
    /// `server/discover`, then requests that each carry their version and
    /// capabilities in `_meta`; no `ping` (the era has none).
    Modern,
    /// `server/discover` first; on an error (or no answer), `initialize`,
    /// as current SDKs do.
    Auto,
}

/// The most pages of one list the probe reads.
const MAX_PAGES: usize = 100;

/// What `mcpdbg probe` was asked to do.
#[derive(Clone, Debug)]
pub struct ProbeOptions {
    /// The server command and its arguments.
    pub command: Vec<OsString>,
    pub era: ProbeEra,
    /// The transcript to keep (`--transcript`); `None`: the caller records
    /// to [`temporary_out`] and removes it.
    pub out: Option<PathBuf>,
    /// Seconds to wait for each response.
    pub timeout: f64,
    /// Seconds to wait for the answer to `initialize`, which includes the
    /// server's start (an interpreter loading its SDK can take seconds).
    pub start_timeout: f64,
    /// Tools to call, with their arguments, in order.
    pub calls: Vec<(String, Value)>,
    /// Seconds between closing stdin and SIGTERM, and between SIGTERM and
    /// SIGKILL.
    pub grace: f64,
}

/// Where a probe is recorded when no transcript is kept: a file of its own
/// in the temporary directory (`TMPDIR`), created owner-only like every
/// transcript, which the caller removes when the report is written.
pub fn temporary_out() -> PathBuf {
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    super::transcript::fresh_name(|stamp| dir.join(format!("mcpdbg-probe-{pid}-{stamp}.log")))
}

/// What happened, besides the transcript.
#[derive(Clone, Debug, Default)]
pub struct Probed {
    /// What the user should know (a request given up on, the server had
    /// to be stopped).
    pub notes: Vec<String>,
    /// The requests given up on, as `METHOD id N`.
    pub timed_out: Vec<String>,
    /// How the server ended (`None`: it could not be reaped).
    pub exit: Option<ExitStatus>,
}

/// The host's side of the session.
struct Host {
    transcript: Transcript,
    stdin: Option<ChildStdin>,
    rx: Receiver<Output>,
    /// The server's output recorded, against [`output::OUTPUT_LIMIT`].
    output: Budget,
    next_id: i64,
    stdout_open: bool,
    stderr_open: bool,
    timeout: Duration,
    /// Modern era: every request after `server/discover` carries `_meta`.
    modern: bool,
    result: Probed,
}

/// How a request ended.
enum Reply {
    Result(Map<String, Value>),
    Error,
    /// No answer within the timeout, or the server closed its stdout.
    None,
}

impl Host {
    fn send(&mut self, message: &Value) -> io::Result<()> {
        if self.stdin.is_none() {
            // Closed: the transcript holds only what was written.
            return Ok(());
        }
        let mut bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
        self.transcript.line(Utc::now(), ">", &bytes)?;
        bytes.push(b'\n');
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(&bytes).and_then(|_| stdin.flush()),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        };
        if sent.is_err() && self.stdin.take().is_some() {
            self.result
                .notes
                .push("the server stopped reading its stdin".to_string());
            self.transcript.event("stdin closed")?;
        }
        Ok(())
    }

    fn notify(&mut self, method: &str) -> io::Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    /// Sends a request and waits for its response, handling whatever else
    /// the server writes meanwhile.
    fn request(&mut self, method: &str, params: Option<Value>) -> io::Result<Reply> {
        let timeout = self.timeout;
        let params = if self.modern {
            let mut params = params.unwrap_or_else(|| json!({}));
            params["_meta"] = modern_meta(false);
            Some(params)
        } else {
            params
        };
        self.request_within(method, params, timeout)
    }

    fn request_within(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> io::Result<Reply> {
        if self.stdin.is_none() || !self.stdout_open || self.output.flooded() {
            return Ok(Reply::None);
        }
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message)?;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let text = format!(
                    "probe: no answer to {method} id {id} within {}",
                    crate::text::duration(timeout.as_secs_f64())
                );
                self.transcript.event(&text)?;
                self.result.timed_out.push(format!("{method} id {id}"));
                return Ok(Reply::None);
            }
            self.transcript.flush()?;
            match self.rx.recv_timeout(left) {
                Ok(event) => {
                    if let Some(reply) = self.event(event, id)? {
                        return Ok(reply);
                    }
                    if !self.stdout_open || self.output.flooded() {
                        return Ok(Reply::None);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(Reply::None),
            }
        }
    }

    /// Records one event; returns the reply when it answers request `waiting`.
    fn event(&mut self, event: Output, waiting: i64) -> io::Result<Option<Reply>> {
        match self
            .output
            .record(event, "probe", &mut self.transcript, &mut self.result.notes)?
        {
            Recorded::Stdout(bytes) => return self.server_wrote(&bytes, waiting),
            Recorded::Closed { stderr: true } => self.stderr_open = false,
            Recorded::Closed { stderr: false } => self.stdout_open = false,
            Recorded::Done => {}
        }
        Ok(None)
    }

    fn server_wrote(&mut self, bytes: &[u8], waiting: i64) -> io::Result<Option<Reply>> {
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return Ok(None);
        };
        let messages = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        let mut reply = None;
        for m in messages {
            let Value::Object(obj) = m else { continue };
            match (obj.get("method").and_then(Value::as_str), obj.get("id")) {
                (Some(method), Some(id)) => self.refuse(method, id.clone())?,
                (None, Some(id)) if id.as_i64() == Some(waiting) => {
                    reply = Some(match obj.get("result") {
                        Some(Value::Object(result)) => Reply::Result(result.clone()),
                        _ => Reply::Error,
                    });
                }
                _ => {}
            }
        }
        Ok(reply)
    }

    /// Answers a request of the server's: `ping` with an empty result,
    /// anything else with an error (the probe declared no capability).
    fn refuse(&mut self, method: &str, id: Value) -> io::Result<()> {
        let reply = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32601,
                "message": format!("mcpdbg probe does not offer {method}: it declared no client capabilities"),
            }})
        };
        self.send(&reply)
    }

    /// Lists every page of `method` (`tools/list`, ...).
    fn list(&mut self, method: &str) -> io::Result<()> {
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.take().map(|c| json!({"cursor": c}));
            let Reply::Result(result) = self.request(method, params)? else {
                return Ok(());
            };
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
                _ => return Ok(()),
            }
        }
        self.result.notes.push(format!(
            "{method} still had more pages after {MAX_PAGES}; the probe stopped there"
        ));
        Ok(())
    }
}

/// Runs the conversation, recording it to `out`. `Err` when the server
/// cannot be started or the transcript cannot be written.
pub fn run(options: &ProbeOptions, out: &Path) -> io::Result<Probed> {
    let (program, args, shown) = process::command_line(&options.command)?;
    let mut transcript = Transcript::create(out)?;
    transcript.event(&crate::wire::event::text::start(&shown))?;
    let mut child = process::spawn(program, args, &mut transcript, "probe")?;
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    output::pump(child.stdout.take().expect("piped"), false, tx.clone());
    output::pump(child.stderr.take().expect("piped"), true, tx);
    let mut host = Host {
        transcript,
        stdin: child.stdin.take(),
        rx,
        output: Budget::default(),
        next_id: 1,
        stdout_open: true,
        stderr_open: true,
        timeout: Duration::from_secs_f64(options.timeout),
        modern: false,
        result: Probed::default(),
    };
    converse(&mut host, options)?;
    // A server that left a request unanswered is stopped with SIGTERM
    // before its stdin closes: many SDKs answer every open request with an
    // error once their input ends, which would turn the hang into a slow
    // answer. The transcript then ends with the request open, and `check`
    // reports it as unanswered.
    // A server past the output limit is stopped the same way: it is not
    // read any more, so it would block on its pipe, not exit.
    let abrupt = !host.result.timed_out.is_empty() || host.output.flooded();
    if !abrupt && host.stdin.take().is_some() {
        host.transcript.event("stdin closed")?;
    }
    end(&mut host, &mut child, options.grace, abrupt)?;
    if host.stdin.take().is_some() {
        host.transcript.event("stdin closed")?;
    }
    host.transcript.flush()?;
    Ok(host.result)
}

/// `params._meta` of a modern request (`clientInfo` on `server/discover`).
fn modern_meta(discover: bool) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if discover {
        meta["io.modelcontextprotocol/clientInfo"] = client_info();
    }
    meta
}

fn client_info() -> Value {
    json!({"name": "mcpdbg-probe", "version": env!("CARGO_PKG_VERSION")})
}

fn converse(host: &mut Host, options: &ProbeOptions) -> io::Result<()> {
    let start = Duration::from_secs_f64(options.start_timeout);
    let mut modern = false;
    let mut capabilities = None;
    if options.era != ProbeEra::Legacy {
        let discover = json!({"_meta": modern_meta(true)});
        match host.request_within("server/discover", Some(discover), start)? {
            Reply::Result(result) => {
                modern = true;
                capabilities = result.get("capabilities").cloned();
            }
            _ if options.era == ProbeEra::Auto && host.stdout_open => {
                host.transcript
                    .event("probe: server/discover failed; falling back to initialize")?;
            }
            Reply::Error => {
                // Not a protocol fault (a legacy server refuses the method),
                // but nothing was probed: said, not passed over.
                host.result.notes.push(
                    "the server refused server/discover: it does not speak the 2026-07-28 era, so nothing was listed; --era auto or legacy falls back to initialize"
                        .to_string(),
                );
                return Ok(());
            }
            _ => return Ok(()),
        }
    }
    if !modern {
        let init = host.request_within(
            "initialize",
            Some(json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": client_info(),
            })),
            start,
        )?;
        let Reply::Result(init) = init else {
            return Ok(());
        };
        host.notify("notifications/initialized")?;
        capabilities = init.get("capabilities").cloned();
    }
    host.modern = modern;
    let declared = |name: &str| {
        capabilities
            .as_ref()
            .and_then(|c| c.get(name))
            .is_some_and(Value::is_object)
    };
    let (tools, resources, prompts) = (
        declared("tools"),
        declared("resources"),
        declared("prompts"),
    );
    if tools {
        host.list("tools/list")?;
    }
    if resources {
        host.list("resources/list")?;
        host.list("resources/templates/list")?;
    }
    if prompts {
        host.list("prompts/list")?;
    }
    if !modern {
        host.request("ping", None)?;
    }
    for (name, arguments) in &options.calls {
        host.request(
            "tools/call",
            Some(json!({"name": name, "arguments": arguments})),
        )?;
    }
    Ok(())
}

/// Waits for the server to exit after stdin closed: SIGTERM to its process
/// group after `grace` seconds, SIGKILL after another `grace`. `abrupt`:
/// SIGTERM at once (stdin still open), SIGKILL after `grace`.
fn end(host: &mut Host, child: &mut Child, grace: f64, abrupt: bool) -> io::Result<()> {
    let grace = Duration::from_secs_f64(grace);
    let mut start = Instant::now();
    let mut signalled = 0;
    if abrupt {
        if !host.result.timed_out.is_empty() {
            host.result.notes.push(format!(
                "the server left {} unanswered; mcpdbg sent SIGTERM before closing its stdin",
                host.result.timed_out.join(", ")
            ));
        }
        host.transcript.event("probe: sent SIGTERM")?;
        process::signal_group(child, libc::SIGTERM);
        signalled = 1;
        // SIGKILL one grace period from now.
        start = start.checked_sub(grace).unwrap_or(start);
    }
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let waited = start.elapsed();
        if signalled == 0 && waited > grace {
            host.result.notes.push(format!(
                "the server did not exit within {} of its stdin closing; mcpdbg sent SIGTERM",
                crate::text::duration(grace.as_secs_f64())
            ));
            host.transcript.event("probe: sent SIGTERM")?;
            process::signal_group(child, libc::SIGTERM);
            signalled = 1;
        } else if signalled == 1 && waited > grace * 2 {
            host.transcript.event("probe: sent SIGKILL")?;
            process::signal_group(child, libc::SIGKILL);
            signalled = 2;
        } else if waited > grace * 2 + Duration::from_secs(5) {
            break None;
        }
        match host.rx.recv_timeout(Duration::from_millis(50)) {
            Ok(e) => {
                host.event(e, -1)?;
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => thread::sleep(Duration::from_millis(50)),
        }
    };
    // What the server wrote before it ended; its streams may stay open in
    // a child it left behind, or hold more than a second's handling, so
    // this is bounded by the clock, not by the streams.
    let drain = Instant::now() + Duration::from_secs(1);
    while (host.stdout_open || host.stderr_open) && Instant::now() < drain {
        let left = drain.saturating_duration_since(Instant::now());
        match host.rx.recv_timeout(left) {
            Ok(e) => {
                host.event(e, -1)?;
            }
            Err(_) => break,
        }
    }
    if let Some(s) = status {
        match (s.code(), s.signal()) {
            (Some(code), _) => host
                .transcript
                .event(&format!("server exited with status {code}"))?,
            // Stopped by the probe's own signal: said so, so that `check`
            // does not take the probe's SIGTERM for the server dying.
            (None, Some(sig)) if signalled > 0 && matches!(sig, libc::SIGTERM | libc::SIGKILL) => {
                host.transcript.event(&format!(
                    "server stopped by mcpdbg probe with signal {sig} ({})",
                    signal_name(sig)
                ))?
            }
            (None, Some(sig)) => host.transcript.event(&format!(
                "server killed by signal {sig} ({})",
                signal_name(sig)
            ))?,
            _ => {}
        }
    }
    host.result.exit = status;
    Ok(())
}
