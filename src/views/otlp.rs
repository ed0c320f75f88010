//! The OpenTelemetry view of a log: the sessions `check` sees as traces,
//! for `check --format otlp-json` and `--export-otlp`.
//!
//! One trace per session, with a root span (`mcp session`, INTERNAL) that
//! covers it and carries the findings tied to no request. Each request is a
//! CLIENT span from the requester's side (the client's requests, and the
//! server's own: sampling, elicitation, roots), from the request's line to
//! its answer; where the log shows the answer, the responder's handling is
//! its SERVER child over the same times (on a pipe both ends see the same
//! bytes). A request never answered is a CLIENT span that ends where its
//! session ends, with an error status: the hang, as the session judged it
//! (the conversation asks the same pairing `check` asks). A request whose
//! `params._meta` carries a W3C `traceparent` joins that trace: its span's
//! parent is the traceparent's span, with a link to the session's root.
//!
//! Names and attributes follow the OpenTelemetry semantic conventions for
//! MCP ([`CONVENTIONS`]); mcpdbg's own are under `mcpdbg.`. Each finding is
//! a span event (`mcpdbg.finding`) on the span of its line. Times come from
//! the log's timestamps; a log without any gets times from its line
//! numbers (one millisecond a line from the file's modification time), and
//! says so in the resource (`mcpdbg.timestamps`) and on stderr.
//!
//! Pure: spans are handed to a sink as they complete, so memory is bounded
//! by the requests still open (at most [`MAX_PENDING`]) and the findings.

use std::collections::HashMap;
use std::io::{self, Read};

use indexmap::IndexMap;

use crate::facts::hash::Fnv;
use crate::pipeline::Options;
use crate::reader::Format;
use crate::report::{FileReport, Summary};
use crate::rules::finding::Finding;
use crate::views::conversation::{Entry, EntryKind, OpenRequest};
use crate::views::passes::{self, Entries};
use crate::wire::dir::{Dir, Side};
use crate::wire::message::RequestId;
use crate::wire::time::Timestamp;

/// The conventions the names and attributes follow.
pub const CONVENTIONS: &str = "OpenTelemetry GenAI semantic conventions v0.1.0 (Model Context Protocol spans; status: Development)";

/// The most requests kept open at once; beyond it the oldest is written
/// out as still open where the log had reached (`mcpdbg.untracked`).
pub const MAX_PENDING: usize = 100_000;

/// A span's kind, as OTLP numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    Internal = 1,
    Server = 2,
    Client = 3,
}

/// An attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Str(String),
    Int(i64),
    Bool(bool),
}

/// A named value.
pub type KeyValue = (&'static str, Attr);

/// A span event: a finding, or a cancellation.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanEvent {
    pub time: u64,
    pub name: &'static str,
    pub attributes: Vec<KeyValue>,
}

/// One span, ready to write.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The session it belongs to (its resource).
    pub session: usize,
    pub trace: [u8; 16],
    pub id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    /// A link to the session's root, for a span that joined another trace.
    pub link: Option<([u8; 16], [u8; 8])>,
    pub name: String,
    pub kind: SpanKind,
    /// Unix nanoseconds.
    pub start: u64,
    pub end: u64,
    pub attributes: Vec<KeyValue>,
    pub events: Vec<SpanEvent>,
    /// The status: `Some(description)` is ERROR, `None` is UNSET.
    pub error: Option<String>,
}

/// Where the times come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// The log's own timestamps.
    Log,
    /// None in the log: one millisecond a line from this Unix time (ns).
    Lines { base: u64 },
}

/// What one log's resource says, per session.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub attributes: Vec<KeyValue>,
}

/// The resource of session `index` of `report`.
pub fn resource(report: &FileReport, index: usize, timing: Timing) -> Resource {
    let summary = report.sessions.get(index);
    let server = summary.and_then(|s| s.server.as_ref());
    let name = server
        .map(|s| s.name.clone())
        .or_else(|| summary.and_then(|s| s.name.clone()))
        .unwrap_or_else(|| "unknown_service".into());
    let mut attributes = vec![("service.name", Attr::Str(name))];
    if let Some(version) = server.and_then(|s| s.version.clone()) {
        attributes.push(("service.version", Attr::Str(version)));
    }
    attributes.push(("mcpdbg.log.path", Attr::Str(report.path.clone())));
    attributes.push(("mcpdbg.log.format", Attr::Str(report.format.into())));
    attributes.push(("mcpdbg.session.index", Attr::Int(index as i64)));
    attributes.push((
        "mcpdbg.timestamps",
        Attr::Str(
            match timing {
                Timing::Log => "log",
                Timing::Lines { .. } => "synthetic: none in the log; one millisecond a line from the file's modification time",
            }
            .into(),
        ),
    ));
    Resource { attributes }
}

/// Whether the log has timestamps (the first pass saw one).
pub fn timing(first_time: Option<&Timestamp>, base: u64) -> Timing {
    match first_time {
        Some(_) => Timing::Log,
        None => Timing::Lines { base },
    }
}

/// Where spans go: each span, with the resource of a session (asked only
/// when the writer starts a block of that session's spans).
pub type Emit<'a> = dyn FnMut(&Span, &dyn Fn(usize) -> Resource) -> io::Result<()> + 'a;

/// Exports one log through `emit`:
/// the first pass is `check`'s (its report, findings and sessions), the
/// second the conversation's rows. `base`: the Unix time (ns) a log
/// without timestamps is timed from. Returns the report and the timing.
pub fn run(
    path: &str,
    open: &dyn Fn() -> io::Result<Box<dyn Read>>,
    options: &Options,
    base: u64,
    emit: &mut Emit<'_>,
) -> io::Result<(FileReport, Timing)> {
    let mut prepared = passes::prepare(path, open()?, options)?;
    // A log with no MCP message is refused as every subcommand refuses it.
    crate::pipeline::input::judge(&prepared.report, options.format.is_some())
        .map_err(crate::pipeline::input::Refusal::into_io)?;
    let mut entries = Entries::open(open()?, Format::from_name(prepared.report.format), false)?;
    if let Some(redactor) = prepared.redactor.take() {
        entries.redact(redactor);
    }
    let timing = timing(prepared.first_time.as_ref(), base);
    let report = prepared.report;
    {
        let mut exporter = Exporter::new(&report, timing);
        let resource_of = |session: usize| resource(&report, session, timing);
        let mut sink = |span: Span| emit(&span, &resource_of);
        for entry in &mut entries {
            exporter.entry(&entry?, &mut sink)?;
        }
        let unanswered = entries.unanswered();
        exporter.finish(&unanswered, &mut sink)?;
    }
    Ok((report, timing))
}

/// A request waiting for its answer.
struct Pending {
    span: Span,
    line: u64,
}

/// Builds the spans of one log from its `check` report and its rows.
pub struct Exporter<'a> {
    report: &'a FileReport,
    timing: Timing,
    /// The last time seen (a line without a timestamp in a timed log takes
    /// the time before it).
    last: u64,
    /// Findings by session and line, not yet on a span.
    findings: HashMap<(usize, u64), Vec<usize>>,
    used: Vec<bool>,
    /// By session, request line and id.
    pending: IndexMap<(usize, u64, String), Pending>,
}

impl<'a> Exporter<'a> {
    pub fn new(report: &'a FileReport, timing: Timing) -> Exporter<'a> {
        let mut findings: HashMap<(usize, u64), Vec<usize>> = HashMap::new();
        for (i, f) in report.findings.iter().enumerate() {
            if f.file.is_none() {
                findings.entry((f.session, f.line)).or_default().push(i);
            }
        }
        let last = report
            .sessions
            .iter()
            .find_map(|s| s.first_time.as_ref())
            .map_or(0, nanos);
        Exporter {
            report,
            timing,
            last,
            findings,
            used: vec![false; report.findings.len()],
            pending: IndexMap::new(),
        }
    }

    /// The trace of session `index` (also its `mcp.session.id`).
    pub fn session_trace(&self, index: usize) -> [u8; 16] {
        let first = self
            .report
            .sessions
            .get(index)
            .and_then(|s| s.first_line)
            .unwrap_or(0);
        trace_id(&[
            self.report.path.as_bytes(),
            &(index as u64).to_le_bytes(),
            &first.to_le_bytes(),
        ])
    }

    fn root_id(&self, index: usize) -> [u8; 8] {
        span_id(&self.session_trace(index), &[b"session"])
    }

    /// The time of a row.
    fn at(&mut self, line: u64, time: Option<&Timestamp>) -> u64 {
        match self.timing {
            Timing::Lines { base } => line_time(base, line),
            Timing::Log => {
                if let Some(t) = time {
                    // Never backwards: a late line with an earlier stamp
                    // (two clocks in one log) ends no span before it starts.
                    self.last = nanos(t).max(self.last);
                }
                self.last
            }
        }
    }

    /// Takes one row; hands over the spans it completes.
    pub fn entry(
        &mut self,
        e: &Entry,
        sink: &mut dyn FnMut(Span) -> io::Result<()>,
    ) -> io::Result<()> {
        let time = self.at(e.line, e.time.as_ref());
        match e.kind {
            EntryKind::Request => {
                // What the session waits on: a notification method sent
                // with an id is no request (`notification-with-id`).
                let (Some(id), true) = (&e.id, e.awaited) else {
                    return Ok(());
                };
                let span = self.request_span(e, id, time);
                if self.pending.len() >= MAX_PENDING {
                    if let Some((_, mut old)) = self.pending.shift_remove_index(0) {
                        old.span.end = time;
                        old.span
                            .attributes
                            .push(("mcpdbg.untracked", Attr::Bool(true)));
                        self.close_client(&mut old.span, old.line);
                        sink(old.span)?;
                    }
                }
                self.pending.insert(
                    (e.session, e.line, id_text(id)),
                    Pending { span, line: e.line },
                );
            }
            EntryKind::Response if !e.shutdown => {
                let (Some(id), Some(answered)) = (&e.id, &e.answers) else {
                    return Ok(());
                };
                let key = (e.session, answered.line, id_text(id));
                let Some(Pending { mut span, line }) = self.pending.shift_remove(&key) else {
                    return Ok(());
                };
                span.end = time.max(span.start);
                span.attributes
                    .push(("mcpdbg.response.line", Attr::Int(e.line as i64)));
                if answered.cancelled {
                    span.attributes.push(("mcpdbg.cancelled", Attr::Bool(true)));
                }
                let failure = failure(e);
                if let Some((attrs, description)) = &failure {
                    span.attributes.extend(attrs.iter().cloned());
                    span.error = Some(description.clone());
                }
                // The responder's handling, a child over the same times.
                let mut server = Span {
                    session: span.session,
                    trace: span.trace,
                    id: span_id(&span.trace, &[&span.id, b"server"]),
                    parent: Some(span.id),
                    link: None,
                    name: span.name.clone(),
                    kind: SpanKind::Server,
                    start: span.start,
                    end: span.end,
                    attributes: span
                        .attributes
                        .iter()
                        .filter(|(k, _)| *k != "mcpdbg.sender")
                        .cloned()
                        .collect(),
                    events: Vec::new(),
                    error: span.error.clone(),
                };
                server
                    .attributes
                    .push(("mcpdbg.responder", Attr::Str(side_name(e.dir).into())));
                self.attach(&mut server, e.session, e.line, Some(id));
                self.close_client(&mut span, line);
                sink(span)?;
                sink(server)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The CLIENT span of a request, open.
    fn request_span(&self, e: &Entry, id: &RequestId, time: u64) -> Span {
        let method = e.method.clone().unwrap_or_default();
        let session_trace = self.session_trace(e.session);
        let root = self.root_id(e.session);
        let joined = e.traceparent.as_deref().and_then(traceparent);
        let trace = joined.map_or(session_trace, |(t, _)| t);
        let id_text = id_text(id);
        let span_id = span_id(
            &trace,
            &[&session_trace, &e.line.to_le_bytes(), id_text.as_bytes()],
        );
        let target = match method.as_str() {
            "tools/call" | "prompts/get" => e.subject.clone(),
            _ => None,
        };
        let name = match &target {
            Some(t) => format!("{method} {t}"),
            None => method.clone(),
        };
        let mut attributes = vec![
            ("mcp.method.name", Attr::Str(method.clone())),
            ("jsonrpc.request.id", Attr::Str(id_text)),
            ("mcp.session.id", Attr::Str(hex(&session_trace))),
            ("network.transport", Attr::Str("pipe".into())),
        ];
        if let Some(v) = self
            .report
            .sessions
            .get(e.session)
            .and_then(|s| s.protocol_version.clone())
        {
            attributes.push(("mcp.protocol.version", Attr::Str(v)));
        }
        match (method.as_str(), &e.subject) {
            ("tools/call", Some(tool)) => {
                attributes.push(("gen_ai.tool.name", Attr::Str(tool.clone())));
                attributes.push(("gen_ai.operation.name", Attr::Str("execute_tool".into())));
            }
            ("tools/call", None) => {
                attributes.push(("gen_ai.operation.name", Attr::Str("execute_tool".into())));
            }
            ("prompts/get", Some(prompt)) => {
                attributes.push(("gen_ai.prompt.name", Attr::Str(prompt.clone())));
            }
            ("resources/read" | "resources/subscribe" | "resources/unsubscribe", Some(uri)) => {
                attributes.push(("mcp.resource.uri", Attr::Str(uri.clone())))
            }
            _ => {}
        }
        attributes.push(("mcpdbg.line", Attr::Int(e.line as i64)));
        attributes.push(("mcpdbg.sender", Attr::Str(side_name(e.dir).into())));
        Span {
            session: e.session,
            trace,
            id: span_id,
            parent: Some(joined.map_or(root, |(_, parent)| parent)),
            link: joined.map(|_| (session_trace, root)),
            name,
            kind: SpanKind::Client,
            start: time,
            end: time,
            attributes,
            events: Vec::new(),
            error: None,
        }
    }

    /// Puts the findings of the request's line on its span.
    fn close_client(&mut self, span: &mut Span, line: u64) {
        let id = id_attr(span);
        let (session, start) = (span.session, span.start);
        self.take_findings(session, line, id.as_deref(), &mut span.events, start);
    }

    /// Puts the findings of `line` on `span`.
    fn attach(&mut self, span: &mut Span, session: usize, line: u64, id: Option<&RequestId>) {
        let id = id.map(id_text);
        let end = span.end;
        self.take_findings(session, line, id.as_deref(), &mut span.events, end);
    }

    /// The events of the findings at `line` (those naming another id stay
    /// for their own span), marked used.
    fn take_findings(
        &mut self,
        session: usize,
        line: u64,
        id: Option<&str>,
        events: &mut Vec<SpanEvent>,
        default_time: u64,
    ) {
        let Some(list) = self.findings.get(&(session, line)) else {
            return;
        };
        let list = list.clone();
        for i in list {
            if self.used[i] {
                continue;
            }
            let f = &self.report.findings[i];
            if let (Some(want), Some(fid)) = (id, &f.id) {
                if id_text(fid) != want {
                    continue;
                }
            }
            self.used[i] = true;
            let time = match (self.timing, &f.time) {
                (Timing::Log, Some(t)) => nanos(t),
                _ => default_time,
            };
            events.push(finding_event(f, time));
        }
    }

    /// Ends the log: the requests never answered, then each session's
    /// root with the findings no span took.
    pub fn finish(
        mut self,
        unanswered: &[OpenRequest],
        sink: &mut dyn FnMut(Span) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut pending: Vec<Pending> = std::mem::take(&mut self.pending).into_values().collect();
        pending.sort_by_key(|p| (p.span.session, p.line));
        let unanswered: HashMap<(u64, String), &OpenRequest> = unanswered
            .iter()
            .map(|u| ((u.open.line, id_text(&u.id)), u))
            .collect();
        for mut p in pending {
            let session = p.span.session;
            let end = self.session_end(session).max(p.span.start);
            p.span.end = end;
            let open = id_attr(&p.span).and_then(|id| unanswered.get(&(p.line, id)).copied());
            let cancelled = open.is_some_and(|u| u.open.cancelled);
            let last_line = self
                .report
                .sessions
                .get(session)
                .and_then(|s| s.last_line)
                .unwrap_or(p.line);
            if cancelled {
                p.span
                    .attributes
                    .push(("error.type", Attr::Str("cancelled".into())));
                p.span.error = Some(format!(
                    "cancelled by its sender and never answered (the log ends at line {last_line})"
                ));
                if let Some(at) = open.and_then(|u| u.open.cancelled_time.as_ref()) {
                    let time = match self.timing {
                        Timing::Log => nanos(at),
                        Timing::Lines { .. } => end,
                    };
                    p.span.events.push(SpanEvent {
                        time,
                        name: "notifications/cancelled",
                        attributes: vec![(
                            "mcp.method.name",
                            Attr::Str("notifications/cancelled".into()),
                        )],
                    });
                }
            } else {
                p.span
                    .attributes
                    .push(("error.type", Attr::Str("no_response".into())));
                p.span.error = Some(format!(
                    "never answered: the log ends at line {last_line} with the request open"
                ));
            }
            p.span
                .attributes
                .push(("mcpdbg.unanswered", Attr::Bool(true)));
            self.close_client(&mut p.span, p.line);
            sink(p.span)?;
        }
        // Each session's findings, in one pass over them.
        let mut by_session: Vec<Vec<usize>> = vec![Vec::new(); self.report.sessions.len()];
        for (i, f) in self.report.findings.iter().enumerate() {
            if let Some(list) = by_session.get_mut(f.session) {
                list.push(i);
            }
        }
        for (index, findings) in by_session.iter().enumerate() {
            let root = self.root(index, findings);
            sink(root)?;
        }
        Ok(())
    }

    /// Where session `index` ends in time.
    fn session_end(&self, index: usize) -> u64 {
        let s = self.report.sessions.get(index);
        self.session_time(
            s.and_then(|s| s.last_time.as_ref()),
            s.and_then(|s| s.last_line),
        )
    }

    /// Where session `index` starts in time.
    fn session_start(&self, index: usize) -> u64 {
        let s = self.report.sessions.get(index);
        self.session_time(
            s.and_then(|s| s.first_time.as_ref()),
            s.and_then(|s| s.first_line),
        )
    }

    /// The time of a session's first or last line: its timestamp, or the
    /// line's own time in a log without any.
    fn session_time(&self, time: Option<&Timestamp>, line: Option<u64>) -> u64 {
        match self.timing {
            Timing::Log => time.map_or(self.last, nanos),
            Timing::Lines { base } => line_time(base, line.unwrap_or(0)),
        }
    }

    /// The root span of session `index`, with every finding of the session
    /// no request's span took.
    fn root(&mut self, index: usize, findings: &[usize]) -> Span {
        let trace = self.session_trace(index);
        let start = self.session_start(index);
        let end = self.session_end(index).max(start);
        let summary: Option<&Summary> = self.report.sessions.get(index);
        let mut attributes = vec![
            ("mcp.session.id", Attr::Str(hex(&trace))),
            ("network.transport", Attr::Str("pipe".into())),
        ];
        if let Some(s) = summary {
            if let Some(v) = &s.protocol_version {
                attributes.push(("mcp.protocol.version", Attr::Str(v.clone())));
            }
            if let Some(era) = s.era {
                attributes.push(("mcpdbg.era", Attr::Str(era.as_str().into())));
            }
            if let Some(c) = &s.client {
                attributes.push(("mcpdbg.client.name", Attr::Str(c.name.clone())));
                if let Some(v) = &c.version {
                    attributes.push(("mcpdbg.client.version", Attr::Str(v.clone())));
                }
            }
            if let Some(line) = s.first_line {
                attributes.push(("mcpdbg.first_line", Attr::Int(line as i64)));
            }
            if let Some(line) = s.last_line {
                attributes.push(("mcpdbg.last_line", Attr::Int(line as i64)));
            }
        }
        let mut events = Vec::new();
        let mut errors = 0usize;
        for &i in findings {
            let f = &self.report.findings[i];
            if f.severity == crate::rules::Severity::Error {
                errors += 1;
            }
            if self.used[i] {
                continue;
            }
            self.used[i] = true;
            let time = match (self.timing, &f.time) {
                (Timing::Log, Some(t)) => nanos(t),
                (Timing::Lines { base }, _) => line_time(base, f.line),
                _ => start,
            };
            events.push(finding_event(f, time));
        }
        events.sort_by_key(|e| e.time);
        Span {
            session: index,
            trace,
            id: self.root_id(index),
            parent: None,
            link: None,
            name: "mcp session".into(),
            kind: SpanKind::Internal,
            start,
            end,
            attributes,
            events,
            error: (errors > 0).then(|| {
                format!(
                    "{errors} error finding{} in the session",
                    if errors == 1 { "" } else { "s" }
                )
            }),
        }
    }
}

/// The attributes and status of a failed answer: a JSON-RPC error, or a
/// tool result with `isError: true`.
fn failure(e: &Entry) -> Option<(Vec<KeyValue>, String)> {
    if let Some(error) = &e.error {
        let code = error
            .code
            .map_or_else(|| "_OTHER".to_string(), |c| c.to_string());
        let mut attrs = vec![("error.type", Attr::Str(code.clone()))];
        if error.code.is_some() {
            attrs.push(("rpc.response.status_code", Attr::Str(code.clone())));
        }
        let description = error
            .message
            .clone()
            .unwrap_or_else(|| format!("JSON-RPC error {code}"));
        return Some((attrs, description));
    }
    e.is_error_result.then(|| {
        (
            vec![("error.type", Attr::Str("tool_error".into()))],
            "the tool's result says isError: true".to_string(),
        )
    })
}

/// Who wrote a message, as the `mcpdbg.sender` and `mcpdbg.responder`
/// attributes say it.
fn side_name(dir: Dir) -> &'static str {
    match Side::of(dir) {
        Side::Client => "client",
        Side::Server => "server",
        Side::Unknown => "unknown",
    }
}

fn finding_event(f: &Finding, time: u64) -> SpanEvent {
    SpanEvent {
        time,
        name: "mcpdbg.finding",
        attributes: vec![
            ("mcpdbg.rule", Attr::Str(f.rule.name().into())),
            ("mcpdbg.severity", Attr::Str(f.severity.as_str().into())),
            ("mcpdbg.message", Attr::Str(f.message.clone())),
            ("mcpdbg.line", Attr::Int(f.line as i64)),
        ],
    }
}

fn id_attr(span: &Span) -> Option<String> {
    span.attributes.iter().find_map(|(k, v)| match (k, v) {
        (&"jsonrpc.request.id", Attr::Str(s)) => Some(s.clone()),
        _ => None,
    })
}

/// An id as `jsonrpc.request.id` writes it: the number, or the string's
/// own text.
pub fn id_text(id: &RequestId) -> String {
    match id {
        RequestId::Int(n) => n.to_string(),
        RequestId::Str(s) | RequestId::Num(s) => s.to_string(),
    }
}

/// The time of `line` in a log without timestamps: one millisecond a line
/// from `base` (Unix nanoseconds).
fn line_time(base: u64, line: u64) -> u64 {
    base.saturating_add(line.saturating_mul(1_000_000))
}

/// Unix nanoseconds of a timestamp (0 before 1970 or past 2262).
fn nanos(t: &Timestamp) -> u64 {
    t.at.timestamp_nanos_opt()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

/// A W3C `traceparent` (`00-TRACE-PARENT-FLAGS`): its trace and parent
/// ids, when it is well formed and neither is all zeros.
pub fn traceparent(text: &str) -> Option<([u8; 16], [u8; 8])> {
    let mut parts = text.split('-');
    let version = parts.next()?;
    let trace = parts.next()?;
    let parent = parts.next()?;
    let flags = parts.next()?;
    if version.len() != 2
        || version == "ff"
        || flags.len() != 2
        || !is_hex(version)
        || !is_hex(flags)
    {
        return None;
    }
    if version == "00" && parts.next().is_some() {
        return None;
    }
    let trace: [u8; 16] = unhex(trace)?;
    let parent: [u8; 8] = unhex(parent)?;
    (trace != [0; 16] && parent != [0; 8]).then_some((trace, parent))
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N || !is_hex(s) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Lowercase hex, as OTLP/JSON writes ids.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn trace_id(fields: &[&[u8]]) -> [u8; 16] {
    let mut a = Fnv::new();
    let mut b = Fnv::new();
    b.field(b"mcpdbg trace");
    for f in fields {
        a.field(f);
        b.field(f);
    }
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.0.to_be_bytes());
    out[8..].copy_from_slice(&b.0.to_be_bytes());
    if out == [0; 16] {
        out[15] = 1;
    }
    out
}

fn span_id(trace: &[u8; 16], fields: &[&[u8]]) -> [u8; 8] {
    let mut h = Fnv::new();
    h.field(trace);
    for f in fields {
        h.field(f);
    }
    let out = h.0.to_be_bytes();
    if out == [0; 8] {
        [0, 0, 0, 0, 0, 0, 0, 1]
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_read_only_when_well_formed() {
        let (t, p) =
            traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").expect("valid");
        assert_eq!(hex(&t), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(hex(&p), "00f067aa0ba902b7");
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "",
            "00-é-x-01",
        ] {
            assert_eq!(traceparent(bad), None, "{bad}");
        }
        // A later version may append fields.
        assert!(
            traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xx").is_some()
        );
    }

    #[test]
    fn ids_are_never_all_zeros_and_differ_by_field() {
        let a = trace_id(&[b"a.log", &0u64.to_le_bytes()]);
        let b = trace_id(&[b"a.log", &1u64.to_le_bytes()]);
        assert_ne!(a, b);
        assert_ne!(a, [0; 16]);
        assert_ne!(span_id(&a, &[b"x"]), span_id(&a, &[b"y"]));
    }
}
