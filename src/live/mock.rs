//! `mcpdbg mock`: a captured session's server side served to a live client
//! on stdio.
//!
//! Reads the client's messages from its input a line at a time and answers
//! each request with the recorded response of the matching recorded request
//! ([`served::key`]: method and params, volatile `_meta` keys left out; the
//! handshake on its method alone), repeats in recorded order, the reply
//! carrying the live request's id. What the server wrote after a recorded
//! client message (its progress, list changes, log messages, its own
//! requests, and with `--faults` its stray lines and its crash) goes out
//! after the live one, in order, progress tokens and subscription ids
//! rewritten to the live ones. A request no recorded one matches is a miss:
//! a JSON-RPC error naming the method and the nearest recorded requests,
//! and a line on stderr (or, lenient, the nearest one's answer). It reads
//! the clock only to pace the recorded delays (`--timing recorded`); what
//! a request is and how it ended in the log is the capture's
//! ([`crate::views::served`]) and the check's (the caller's `why`).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::text::excerpt;
use crate::views::served::{self, Exchange, Out, Output, Served};
use crate::wire::exact;

/// How the answers are paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// At once.
    Fast,
    /// With the recorded delay after the request (and between what
    /// followed it); a request never answered in the log is never answered.
    Recorded,
}

/// What `mcpdbg mock` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    pub timing: Timing,
    /// Answer a miss with the nearest recorded request's answer.
    pub lenient: bool,
    /// Reproduce the capture's faults: stray stdout lines, requests never
    /// answered left unanswered, the server's crash.
    pub faults: bool,
    /// Per recorded request line never answered, what the check said of
    /// it (the hang model's words), for the error that stands in for it.
    pub why: HashMap<u64, String>,
}

/// How the serving went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Live requests answered from the recording (or left unanswered as
    /// recorded).
    pub answered: u64,
    /// Live requests no recorded one matched (answered with an error).
    pub misses: u64,
    /// `--faults` reproduced the server's exit, with this status (`None`:
    /// it was killed or its status is unknown).
    pub exit: Option<Option<i32>>,
}

/// The longest client line read; a longer one is skipped and said.
pub const LINE_LIMIT: usize = super::output::LINE_LIMIT;
/// The most operations waiting at once (paced outputs, server requests
/// waiting for the client's answer); past it a new one is sent at once.
const MAX_WAITING: usize = crate::facts::pairing::MAX_OPEN;
/// The longest recorded delay kept.
const MAX_DELAY: f64 = 86_400.0;
/// The recorded requests a miss is compared with (distinct params).
const NEAR_SCAN: usize = 100;
/// The nearest recorded requests a miss names.
const NEAR_SHOWN: usize = 3;
/// A code and the id of a JSON-RPC error the mock makes.
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

enum Input {
    Line(Vec<u8>),
    TooLong(usize),
    End,
}

/// Reads the client's lines on a thread of its own, each up to
/// [`LINE_LIMIT`] bytes.
fn read_lines(input: Box<dyn Read + Send>, tx: SyncSender<Input>) {
    thread::spawn(move || {
        let mut input = BufReader::with_capacity(64 << 10, input);
        let mut line = Vec::new();
        let mut skipped = 0usize;
        loop {
            let buf = match input.fill_buf() {
                Ok([]) => break,
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let (part, done) = match memchr::memchr(b'\n', buf) {
                Some(at) => (&buf[..at], at + 1),
                None => (buf, buf.len()),
            };
            let ends = done > part.len();
            if skipped > 0 || line.len() + part.len() > LINE_LIMIT {
                skipped += line.len() + part.len();
                line.clear();
            } else {
                line.extend_from_slice(part);
            }
            input.consume(done);
            if ends {
                let sent = if skipped > 0 {
                    tx.send(Input::TooLong(std::mem::take(&mut skipped)))
                } else {
                    tx.send(Input::Line(std::mem::take(&mut line)))
                };
                if sent.is_err() {
                    return;
                }
            }
        }
        if !line.is_empty() {
            let _ = tx.send(Input::Line(line));
        }
        let _ = tx.send(Input::End);
    });
}

/// The recorded requests of one method and params, in recorded order, and
/// how many the live client has had.
struct Slot {
    list: Vec<usize>,
    next: usize,
}

/// What the server wrote after one live message, being sent.
struct Op<'a> {
    outputs: &'a [Output],
    next: usize,
    /// Its recorded request, when it answers one.
    exchange: Option<&'a Exchange>,
    /// When the last output went (or the message came, or the client
    /// answered the server's request), and the recorded time it stands
    /// for: delays count from there.
    at: Instant,
    recorded: Option<i64>,
    live_id: Option<Value>,
    live_token: Option<Value>,
    /// The server's request it waits for the client to answer (its id as
    /// JSON text), and the recorded time of that answer.
    waiting: Option<(String, Option<i64>)>,
}

enum Step {
    /// Everything sent.
    Done,
    /// The recorded server exits here (`--faults`).
    Exit,
    /// The next output is due later (in `due`).
    Wait,
    /// Waiting for the client's answer to the server's request.
    Blocked,
}

struct Mock<'a, W: Write> {
    served: &'a Served,
    options: &'a Options,
    out: W,
    /// Recorded requests by method, then key.
    slots: HashMap<&'a str, HashMap<&'a str, Slot>>,
    /// Recorded requests by method, for the near misses.
    by_method: HashMap<&'a str, Vec<usize>>,
    /// Recorded client notifications by method, and how many were had.
    notes: HashMap<&'a str, Slot>,
    ops: BTreeMap<u64, Op<'a>>,
    /// When each paced operation's next output is due.
    due: BinaryHeap<Reverse<(Instant, u64)>>,
    seq: u64,
    /// Live request ids (JSON text) of the operations still sending.
    live: HashMap<String, u64>,
    /// The server's requests waiting for the client's answer (id as JSON
    /// text) -> their operation.
    waiting: HashMap<String, u64>,
    next_server_id: u64,
    /// What was said once already.
    said: HashSet<String>,
    outcome: Outcome,
    /// Standard output is closed: the client is gone.
    gone: bool,
}

/// Serves `served` to the client writing `input` and reading `out`, until
/// the input ends (or, with `--faults`, the recorded server crashes).
/// `Err` only when writing fails for another reason than a closed output.
pub fn serve<W: Write>(
    served: &Served,
    options: &Options,
    input: Box<dyn Read + Send>,
    out: W,
) -> io::Result<Outcome> {
    let mut slots: HashMap<&str, HashMap<&str, Slot>> = HashMap::new();
    let mut by_method: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in served.exchanges.iter().enumerate() {
        slots
            .entry(&e.method)
            .or_default()
            .entry(&e.key)
            .or_insert_with(|| Slot {
                list: Vec::new(),
                next: 0,
            })
            .list
            .push(i);
        by_method.entry(&e.method).or_default().push(i);
    }
    let mut notes: HashMap<&str, Slot> = HashMap::new();
    for (i, n) in served.notes.iter().enumerate() {
        notes
            .entry(&n.method)
            .or_insert_with(|| Slot {
                list: Vec::new(),
                next: 0,
            })
            .list
            .push(i);
    }
    let mut mock = Mock {
        served,
        options,
        out,
        slots,
        by_method,
        notes,
        ops: BTreeMap::new(),
        due: BinaryHeap::new(),
        seq: 0,
        live: HashMap::new(),
        waiting: HashMap::new(),
        next_server_id: 1,
        said: HashSet::new(),
        outcome: Outcome::default(),
        gone: false,
    };
    let (tx, rx) = mpsc::sync_channel(64);
    read_lines(input, tx);
    mock.run(&rx)?;
    Ok(mock.outcome)
}

impl<'a, W: Write> Mock<'a, W> {
    fn run(&mut self, rx: &Receiver<Input>) -> io::Result<()> {
        let served = self.served;
        let start = &served.start;
        self.start(start, None, start.first().and_then(|o| o.time), None, None)?;
        loop {
            if self.gone || self.outcome.exit.is_some() {
                return Ok(());
            }
            let due = self.step_due()?;
            if self.gone || self.outcome.exit.is_some() {
                return Ok(());
            }
            let wait = due
                .map(|d| d.saturating_duration_since(Instant::now()))
                .unwrap_or(Duration::from_secs(3600));
            match rx.recv_timeout(wait) {
                Ok(Input::Line(line)) => self.line(&line)?,
                Ok(Input::TooLong(n)) => crate::say!(
                    "mcpdbg mock: skipped a client line of {n} bytes, over the limit of {} MiB: \
                     its request (if it was one) is not answered",
                    LINE_LIMIT >> 20
                ),
                Ok(Input::End) | Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
        // The client closed the connection: what the server wrote after
        // that in the log (a buffer flushed at exit) goes out with --faults.
        if self.options.faults {
            let served = self.served;
            for o in &served.end {
                if let Out::Stray(bytes) = &o.what {
                    self.write(bytes)?;
                }
            }
        }
        Ok(())
    }

    /// Sends what is due of the operations whose time came (each waits in
    /// `due` once, so this is O(log n) an output); returns when the next
    /// is due.
    fn step_due(&mut self) -> io::Result<Option<Instant>> {
        let now = Instant::now();
        while let Some(&Reverse((at, seq))) = self.due.peek() {
            if at > now {
                return Ok(Some(at));
            }
            self.due.pop();
            self.step(seq)?;
            if self.gone || self.outcome.exit.is_some() {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// Starts sending `outputs` after a live message.
    fn start(
        &mut self,
        outputs: &'a [Output],
        exchange: Option<&'a Exchange>,
        recorded: Option<i64>,
        live_id: Option<Value>,
        live_token: Option<Value>,
    ) -> io::Result<()> {
        let seq = self.seq;
        self.seq += 1;
        if let Some(id) = &live_id {
            self.live.insert(exact::to_string(id), seq);
        }
        self.ops.insert(
            seq,
            Op {
                outputs,
                next: 0,
                exchange,
                at: Instant::now(),
                recorded,
                live_id,
                live_token,
                waiting: None,
            },
        );
        self.step(seq)?;
        Ok(())
    }

    /// Sends what is due of operation `seq`.
    fn step(&mut self, seq: u64) -> io::Result<Option<Step>> {
        loop {
            let paced = self.options.timing == Timing::Recorded && self.ops.len() <= MAX_WAITING;
            let Some(op) = self.ops.get_mut(&seq) else {
                return Ok(None);
            };
            if op.waiting.is_some() {
                return Ok(Some(Step::Blocked));
            }
            let Some(output) = op.outputs.get(op.next) else {
                let op = self.ops.remove(&seq).expect("an operation");
                if let Some(id) = &op.live_id {
                    self.live.remove(&exact::to_string(id));
                }
                self.finished(&op)?;
                return Ok(Some(Step::Done));
            };
            if paced {
                let gap = match (op.recorded, &output.time) {
                    (Some(from), Some(to)) => to.saturating_sub(from) as f64 / 1e6,
                    _ => 0.0,
                };
                let gap = if gap.is_finite() {
                    gap.clamp(0.0, MAX_DELAY)
                } else {
                    0.0
                };
                let due = op
                    .at
                    .checked_add(Duration::from_secs_f64(gap))
                    .unwrap_or(op.at);
                if due > Instant::now() {
                    self.due.push(Reverse((due, seq)));
                    return Ok(Some(Step::Wait));
                }
                op.at = due;
                if output.time.is_some() {
                    op.recorded = output.time;
                }
            }
            op.next += 1;
            if let Some(step) = self.emit(seq, output)? {
                return Ok(Some(step));
            }
            if self.gone {
                return Ok(None);
            }
        }
    }

    /// Writes one recorded output for operation `seq`; a [`Step`] when it
    /// stops the operation.
    fn emit(&mut self, seq: u64, output: &'a Output) -> io::Result<Option<Step>> {
        let (live_id, live_token) = {
            let op = &self.ops[&seq];
            (op.live_id.clone(), op.live_token.clone())
        };
        match &output.what {
            Out::Response(json) => {
                let Ok(Value::Object(mut msg)) = exact::parse(json) else {
                    return Ok(None);
                };
                msg.insert("id".into(), live_id.unwrap_or(Value::Null));
                self.outcome.answered += 1;
                self.send(&Value::Object(msg))?;
            }
            Out::Notification {
                json,
                progress,
                subscription,
            } => {
                let Ok(Value::Object(mut msg)) = exact::parse(json) else {
                    return Ok(None);
                };
                let params = msg.get_mut("params").and_then(Value::as_object_mut);
                if *progress {
                    // A live request that asked for no progress gets none.
                    let (Some(token), Some(params)) = (live_token, params) else {
                        return Ok(None);
                    };
                    params.insert("progressToken".into(), token);
                } else if *subscription {
                    let meta = params
                        .and_then(|p| p.get_mut("_meta"))
                        .and_then(Value::as_object_mut);
                    if let (Some(id), Some(meta)) = (live_id, meta) {
                        meta.insert("io.modelcontextprotocol/subscriptionId".into(), id);
                    }
                }
                self.send(&Value::Object(msg))?;
            }
            Out::Request { id, json, answered } => {
                let Ok(Value::Object(mut msg)) = exact::parse(json) else {
                    return Ok(None);
                };
                let mut id = id.to_string();
                if self.waiting.contains_key(&id) {
                    // The same recorded request waits already (a request
                    // asked twice): this one gets an id of its own.
                    let fresh = Value::from(format!("mcpdbg-mock-{}", self.next_server_id));
                    self.next_server_id += 1;
                    id = exact::to_string(&fresh);
                    msg.insert("id".into(), fresh);
                }
                self.send(&Value::Object(msg))?;
                if self.waiting.len() < MAX_WAITING {
                    if let Some(op) = self.ops.get_mut(&seq) {
                        op.waiting = Some((id.clone(), *answered));
                    }
                    self.waiting.insert(id, seq);
                    return Ok(Some(Step::Blocked));
                }
            }
            Out::Stray(bytes) => {
                if self.options.faults {
                    self.write(bytes)?;
                }
            }
            Out::Exit(status) => {
                if self.options.faults {
                    let status_text = status.map_or("unknown".into(), |c| c.to_string());
                    crate::say!(
                        "mcpdbg mock: the recorded server ended here (line {}, status \
                         {status_text}): exiting as it did (--faults)",
                        output.line
                    );
                    self.outcome.exit = Some(*status);
                    return Ok(Some(Step::Exit));
                }
            }
        }
        Ok(None)
    }

    /// An operation sent everything: a request the log never answered is
    /// left unanswered (--faults, --timing recorded) or answered with an
    /// error that says so.
    fn finished(&mut self, op: &Op<'a>) -> io::Result<()> {
        let Some(e) = op.exchange else {
            return Ok(());
        };
        if e.answered.is_some() {
            return Ok(());
        }
        let id = op.live_id.clone().unwrap_or(Value::Null);
        let shown = exact::to_string(&id);
        let why = self.options.why.get(&e.line);
        if self.options.faults || self.options.timing == Timing::Recorded {
            self.outcome.answered += 1;
            crate::say!(
                "mcpdbg mock: left {} (id {shown}) unanswered, as the recorded server left line {}",
                e.method,
                e.line
            );
            return Ok(());
        }
        let message = format!(
            "mcpdbg mock: the recorded server never answered this {} (line {}); mock --faults or \
             --timing recorded leaves it unanswered",
            e.method, e.line
        );
        crate::say!(
            "mcpdbg mock: answered {} (id {shown}) with an error: the recorded server never answered it (line {})",
            e.method,
            e.line
        );
        self.outcome.answered += 1;
        let mut data = Map::new();
        data.insert("line".into(), e.line.into());
        if let Some(why) = why {
            data.insert("recorded".into(), why.clone().into());
        }
        self.error(id, INTERNAL_ERROR, &message, Some(Value::Object(data)))
    }

    fn line(&mut self, line: &[u8]) -> io::Result<()> {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches('\r');
        if text.trim().is_empty() {
            return Ok(());
        }
        let value = match exact::parse(text) {
            Ok(v) => v,
            Err(e) => {
                crate::say!(
                    "mcpdbg mock: the client wrote a line that is not JSON ({e}): {}",
                    excerpt(text)
                );
                return self.error(Value::Null, -32700, "Parse error", None);
            }
        };
        match value {
            Value::Array(items) => {
                if self.said.insert("batch".into()) {
                    crate::say!(
                        "mcpdbg mock: the client sent a batch; its members are answered one by one"
                    );
                }
                for item in items {
                    self.message(item)?;
                }
                Ok(())
            }
            other => self.message(other),
        }
    }

    fn message(&mut self, value: Value) -> io::Result<()> {
        let Value::Object(msg) = value else {
            crate::say!(
                "mcpdbg mock: the client sent JSON that is no message: {}",
                excerpt(&exact::to_string(&value))
            );
            return self.error(Value::Null, -32600, "Invalid Request", None);
        };
        let method = msg.get("method").and_then(Value::as_str);
        match (method, msg.get("id")) {
            (Some(method), Some(id)) => self.request(method, id.clone(), msg.get("params")),
            (Some(method), None) => self.notification(method, msg.get("params")),
            (None, Some(id)) => self.answer(id),
            (None, None) => {
                crate::say!(
                    "mcpdbg mock: the client sent an object that is no message: {}",
                    excerpt(&exact::to_string(&Value::Object(msg.clone())))
                );
                Ok(())
            }
        }
    }

    /// The client's answer to a server request: what waited for it goes on.
    fn answer(&mut self, id: &Value) -> io::Result<()> {
        let Some(seq) = self.waiting.remove(&exact::to_string(id)) else {
            return Ok(());
        };
        if let Some(op) = self.ops.get_mut(&seq) {
            if let Some((_, answered)) = op.waiting.take() {
                op.at = Instant::now();
                if answered.is_some() {
                    op.recorded = answered;
                }
            }
        }
        self.step(seq)?;
        Ok(())
    }

    fn notification(&mut self, method: &str, params: Option<&Value>) -> io::Result<()> {
        if method == "notifications/cancelled" {
            let target = params
                .and_then(|p| p.get("requestId"))
                .map(exact::to_string)
                .and_then(|id| self.live.remove(&id));
            if let Some(seq) = target {
                // The receiver of a cancel sends nothing more for it.
                if let Some(op) = self.ops.remove(&seq) {
                    if let Some((id, _)) = op.waiting {
                        self.waiting.remove(&id);
                    }
                }
            }
        }
        let served = self.served;
        let Some(slot) = self.notes.get_mut(method) else {
            return Ok(());
        };
        let Some(&i) = slot.list.get(slot.next) else {
            return Ok(());
        };
        slot.next += 1;
        let note = &served.notes[i];
        if note.outputs.is_empty() {
            return Ok(());
        }
        self.start(&note.outputs, None, note.time, None, None)
    }

    fn request(&mut self, method: &str, id: Value, params: Option<&Value>) -> io::Result<()> {
        let key = served::key(method, params);
        if let Some(i) = self.take(method, &key) {
            return self.answer_with(i, id, params);
        }
        let shown = exact::to_string(&id);
        let legacy_discover = method == "server/discover" && !self.served.modern;
        if legacy_discover {
            if self.said.insert("discover".into()) {
                crate::say!(
                    "mcpdbg mock: answered server/discover (id {shown}) with -32601, as a legacy \
                     server does: the recorded session is legacy and holds none"
                );
            }
            self.outcome.answered += 1;
            return self.error(id, METHOD_NOT_FOUND, "Method not found", None);
        }
        if method == "server/discover" {
            if self.said.insert("discover".into()) {
                crate::say!(
                    "mcpdbg mock: answered server/discover (id {shown}) with a result made from the \
                     recorded session, which holds none (its client probed in another process)"
                );
            }
            self.outcome.answered += 1;
            let result = self.served.discover_result();
            return self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        }
        if method == "ping" {
            if self.said.insert("ping".into()) {
                crate::say!(
                    "mcpdbg mock: answered ping (id {shown}) with {{}}: the recorded session holds no ping"
                );
            }
            self.outcome.answered += 1;
            return self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}}));
        }
        self.miss(method, id, params)
    }

    /// The next recorded request of this method and key; past the last,
    /// the last again (said once).
    fn take(&mut self, method: &str, key: &str) -> Option<usize> {
        let slot = self.slots.get_mut(method)?.get_mut(key)?;
        let at = slot.next.min(slot.list.len() - 1);
        let repeat = slot.next >= slot.list.len();
        slot.next += 1;
        let i = slot.list[at];
        if repeat && self.said.insert(format!("repeat {method} {key}")) {
            crate::say!(
                "mcpdbg mock: {method} was asked more often than recorded; answering again as line {}",
                self.served.exchanges[i].line
            );
        }
        Some(i)
    }

    fn answer_with(&mut self, i: usize, id: Value, params: Option<&Value>) -> io::Result<()> {
        let served = self.served;
        let e = &served.exchanges[i];
        let token = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .cloned();
        self.start(&e.outputs, Some(e), e.time, Some(id), token)
    }

    /// No recorded request matches: an error naming the nearest ones (or,
    /// lenient, the nearest one's answer).
    fn miss(&mut self, method: &str, id: Value, params: Option<&Value>) -> io::Result<()> {
        let shown = exact::to_string(&id);
        let live = served::normalized(params);
        let near = self.near(method, live.as_ref());
        let asked = live.as_ref().map_or(String::new(), |p| {
            format!(" {}", excerpt(&exact::to_string(p)))
        });
        if self.options.lenient {
            if let Some((i, differs)) = near.first() {
                let e = &self.served.exchanges[*i];
                let (m, k) = (e.method.clone(), e.key.clone());
                crate::say!(
                    "mcpdbg mock: --lenient: {method}{asked} (id {shown}) matches no recorded \
                     request; answered as the nearest, line {} ({})",
                    e.line,
                    differences(differs)
                );
                let i = self.take(&m, &k).unwrap_or(*i);
                return self.answer_with(i, id, params);
            }
        }
        self.outcome.misses += 1;
        let (code, text) = if near.is_empty() {
            let mut methods: Vec<&str> = self.by_method.keys().copied().collect();
            methods.sort_by_key(|m| self.by_method[m][0]);
            methods.truncate(8);
            (
                METHOD_NOT_FOUND,
                format!(
                    "mcpdbg mock: the recording holds no {method} request (it holds: {})",
                    if methods.is_empty() {
                        "none".to_string()
                    } else {
                        methods.join(", ")
                    }
                ),
            )
        } else {
            let list: Vec<String> = near
                .iter()
                .map(|(i, differs)| {
                    let e = &self.served.exchanges[*i];
                    format!(
                        "line {} {} ({})",
                        e.line,
                        excerpt(&shown_key(&e.key)),
                        differences(differs)
                    )
                })
                .collect();
            (
                INVALID_PARAMS,
                format!(
                    "mcpdbg mock: no recorded {method} request has these params; nearest: {}",
                    list.join("; ")
                ),
            )
        };
        crate::say!(
            "mcpdbg mock: miss: {method}{asked} (id {shown}): {}",
            text.trim_start_matches("mcpdbg mock: ")
        );
        let nearest: Vec<Value> = near
            .iter()
            .map(|(i, differs)| {
                let e = &self.served.exchanges[*i];
                json!({
                    "line": e.line,
                    "params": exact::parse(&e.key).unwrap_or(Value::Null),
                    "differs": differs,
                })
            })
            .collect();
        let data = json!({"method": method, "nearest": nearest});
        self.error(id, code, &text, Some(data))
    }

    /// The recorded requests of `method` nearest to `params`: the fewest
    /// differing members first, then the earliest, none with more than
    /// twice the nearest's (or one more); with the paths that differ.
    fn near(&self, method: &str, params: Option<&Value>) -> Vec<(usize, Vec<String>)> {
        let Some(list) = self.by_method.get(method) else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        let mut ranked: Vec<(usize, usize, Vec<String>)> = Vec::new();
        for &i in list {
            let e = &self.served.exchanges[i];
            if !seen.insert(&*e.key) {
                continue;
            }
            if seen.len() > NEAR_SCAN {
                break;
            }
            let recorded = if e.key.is_empty() {
                None
            } else {
                exact::parse(&e.key).ok()
            };
            let mut paths = Vec::new();
            let mut count = 0;
            diff(
                params,
                recorded.as_ref(),
                &mut String::new(),
                &mut paths,
                &mut count,
            );
            ranked.push((count, i, paths));
        }
        ranked.sort_by_key(|(count, i, _)| (*count, *i));
        // Only the near ones: a call of another tool is no near miss of
        // this one's arguments.
        let best = ranked.first().map_or(0, |(count, _, _)| *count);
        ranked
            .into_iter()
            .take_while(|(count, _, _)| *count <= (2 * best).max(best + 1))
            .take(NEAR_SHOWN)
            .map(|(_, i, paths)| (i, paths))
            .collect()
    }

    fn error(
        &mut self,
        id: Value,
        code: i64,
        message: &str,
        data: Option<Value>,
    ) -> io::Result<()> {
        let mut error = Map::new();
        error.insert("code".into(), code.into());
        error.insert("message".into(), message.into());
        if let Some(data) = data {
            error.insert("data".into(), data);
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
    }

    fn send(&mut self, msg: &Value) -> io::Result<()> {
        let bytes = exact::to_vec(msg).map_err(io::Error::other)?;
        self.write(&bytes)
    }

    /// Writes one line to the client; a closed output ends the serving.
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.gone {
            return Ok(());
        }
        let written = self
            .out
            .write_all(bytes)
            .and_then(|_| self.out.write_all(b"\n"))
            .and_then(|_| self.out.flush());
        match written {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.gone = true;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// A key's params as the user wrote them (numbers as written).
fn shown_key(key: &str) -> String {
    if key.is_empty() {
        return "(no params)".into();
    }
    exact::parse(key).map_or_else(|_| key.to_string(), |v| exact::to_string(&v))
}

fn differences(paths: &[String]) -> String {
    match paths {
        [] => "the same params".into(),
        [one] => format!("{one} differs"),
        more => format!("{} differ", more.join(", ")),
    }
}

/// Counts the members where `a` and `b` differ (a value present on one
/// side only counts once), keeping the first [`NEAR_SHOWN`] paths.
fn diff(
    a: Option<&Value>,
    b: Option<&Value>,
    path: &mut String,
    paths: &mut Vec<String>,
    count: &mut usize,
) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x
                .keys()
                .chain(y.keys().filter(|k| !x.contains_key(*k)))
                .collect();
            keys.sort();
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                diff(x.get(k), y.get(k), path, paths, count);
                path.truncate(len);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                diff(Some(p), Some(q), path, paths, count);
                path.truncate(len);
            }
        }
        (x, y) if x == y => {}
        _ => {
            *count += 1;
            if paths.len() < NEAR_SHOWN {
                paths.push(if path.is_empty() {
                    "params".into()
                } else {
                    path.clone()
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::served::Pick;

    fn served(log: &str) -> Served {
        served::read(
            Box::new(io::Cursor::new(log.as_bytes().to_vec())),
            None,
            Pick::Default,
        )
        .expect("reads")
        .expect("a session")
    }

    fn serve_lines(log: &str, options: &Options, client: &str) -> (Vec<Value>, Outcome) {
        let s = served(log);
        let mut out = Vec::new();
        let outcome = serve(
            &s,
            options,
            Box::new(io::Cursor::new(client.as_bytes().to_vec())),
            &mut out,
        )
        .expect("serves");
        let lines = String::from_utf8(out).expect("utf-8");
        let values = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::String(l.to_string())))
            .collect();
        (values, outcome)
    }

    fn options() -> Options {
        Options {
            timing: Timing::Fast,
            lenient: false,
            faults: false,
            why: HashMap::new(),
        }
    }

    const LOG: &str = concat!(
        "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
        "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"2\"}}}\n",
        "> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3},\"_meta\":{\"progressToken\":\"p\"}}}\n",
        "< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n",
        "< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"5\"}],\"structuredContent\":{\"sum\":5}}}\n",
        "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}}}\n",
        "< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"five\"}]}}\n",
        "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}\n",
        "< not json\n",
    );

    #[test]
    fn answers_with_the_recorded_results_in_order_and_the_live_ids() {
        let client = concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"clientInfo\":{\"name\":\"other\"}}}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"arguments\":{\"b\":3,\"a\":2},\"name\":\"add\",\"_meta\":{\"progressToken\":99}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}\n",
        );
        let (out, outcome) = serve_lines(LOG, &options(), client);
        assert_eq!(out.len(), 5, "{out:?}");
        assert_eq!(out[0]["id"], "a");
        assert_eq!(out[0]["result"]["serverInfo"]["name"], "s");
        assert_eq!(out[1]["params"]["progressToken"], 99, "the live token");
        assert_eq!(out[2]["id"], 10);
        assert_eq!(out[2]["result"]["structuredContent"], json!({"sum": 5}));
        // A repeat gets the second recorded answer; without a token, no progress.
        assert_eq!(out[3]["id"], 11);
        assert_eq!(out[3]["result"]["content"][0]["text"], "five");
        assert_eq!(out[4], json!({"jsonrpc":"2.0","id":12,"result":{}}));
        assert_eq!(
            outcome,
            Outcome {
                answered: 4,
                misses: 0,
                exit: None
            }
        );
    }

    #[test]
    fn a_miss_names_the_nearest_and_lenient_answers_it() {
        let client = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":4}}}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/list\"}\n";
        let (out, outcome) = serve_lines(LOG, &options(), client);
        assert_eq!(outcome.misses, 2);
        assert_eq!(out[0]["error"]["code"], INVALID_PARAMS);
        let text = out[0]["error"]["message"].as_str().unwrap();
        assert!(
            text.contains("tools/call")
                && text.contains("line 4")
                && text.contains("arguments.b differs"),
            "{text}"
        );
        assert_eq!(out[0]["error"]["data"]["nearest"][0]["line"], 4);
        assert_eq!(out[1]["error"]["code"], METHOD_NOT_FOUND);
        assert!(
            out[1]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("initialize, tools/call")
        );
        let lenient = Options {
            lenient: true,
            ..options()
        };
        let (out, outcome) = serve_lines(LOG, &lenient, client);
        assert_eq!(outcome.misses, 1, "no resources/list to answer with");
        assert_eq!(out[0]["result"]["structuredContent"], json!({"sum": 5}));
        assert_eq!(out[0]["id"], 7);
    }

    #[test]
    fn a_request_never_answered_is_an_error_or_with_faults_no_answer() {
        let client = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"hang\"}}\n";
        let (out, _) = serve_lines(LOG, &options(), client);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["error"]["data"]["line"], 9);
        let faults = Options {
            faults: true,
            ..options()
        };
        let (out, outcome) = serve_lines(LOG, &faults, client);
        assert_eq!(
            out,
            [Value::String("not json".into())],
            "the stray line, no answer"
        );
        assert_eq!(outcome.misses, 0);
    }

    /// An input_required chain: the first request gets the recorded
    /// input_required result, a retry with the recorded answers gets the
    /// recorded retry's result, and a retry with other answers is a miss
    /// whose nearest is the recorded retry.
    #[test]
    fn an_input_required_chain_replays_as_one_operation() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"a"}}"#;
        let log = format!(
            concat!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{{\"name\":\"deploy\",{meta}}}}}\n",
                "< {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"s1\"}}}}\n",
                "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"deploy\",\"inputResponses\":{{\"ok\":{{\"action\":\"accept\"}}}},\"requestState\":\"s1\",{meta}}}}}\n",
                "< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"complete\",\"content\":[]}}}}\n",
            ),
            meta = meta
        );
        let live_meta = meta.replace("\"a\"", "\"another client\"");
        let first = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"deploy\",{live_meta}}}}}\n"
        );
        let retry = |action: &str, id: u32| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"deploy\",\"requestState\":\"s1\",\"inputResponses\":{{\"ok\":{{\"action\":\"{action}\"}}}},{live_meta}}}}}\n"
            )
        };
        let client = format!("{first}{}{}", retry("accept", 8), retry("decline", 9));
        let (out, outcome) = serve_lines(&log, &options(), &client);
        assert_eq!(out[0]["result"]["resultType"], "input_required");
        assert_eq!(out[1]["id"], 8);
        assert_eq!(out[1]["result"]["resultType"], "complete");
        assert_eq!(outcome.misses, 1);
        assert_eq!(
            out[2]["error"]["data"]["nearest"][0]["line"], 3,
            "{}",
            out[2]
        );
        assert_eq!(
            out[2]["error"]["data"]["nearest"][0]["differs"],
            json!(["inputResponses.ok.action"])
        );
    }

    #[test]
    fn near_misses_count_differing_members() {
        let mut paths = Vec::new();
        let mut count = 0;
        diff(
            Some(&json!({"name":"add","arguments":{"a":2,"b":4,"c":1}})),
            Some(&json!({"name":"add","arguments":{"a":2,"b":3}})),
            &mut String::new(),
            &mut paths,
            &mut count,
        );
        assert_eq!(count, 2);
        assert_eq!(paths, ["arguments.b", "arguments.c"]);
    }
}
