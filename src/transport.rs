//! The stdio transport layer: records -> JSON-RPC frames.
//!
//! Owns everything about how bytes become messages: byte order marks, CRLF,
//! blank lines, invalid UTF-8, stray text, Content-Length headers, messages
//! spread over several lines and lines cut off at the end of the log. It emits
//! [`Item`]s for the session and reports the transport rules. It knows nothing
//! of ids, methods or the handshake, and does no I/O.

use serde_json::Value;

use crate::reader::{Body, PartialWhy, Record};
use crate::rules::Rule;
use crate::rules::finding::Findings;
use crate::rules::framing;
use crate::text::{excerpt, excerpt_bytes};
use crate::wire::dir::Dir;
use crate::wire::event::{Event, EventKind};
use crate::wire::line::LineBytes;
use crate::wire::message::{self, Frame, Message};
use crate::wire::skim::{Build, ReadAhead};

pub use crate::wire::time::At;

impl Item {
    /// Done with: the messages' members go back to the parser's pool
    /// (`Message::recycle`), to be read into again.
    #[inline]
    pub fn recycle(self) {
        match self {
            Item::Message { msg, .. } => msg.recycle(),
            Item::Batch { items, .. } => items.into_iter().flatten().for_each(Message::recycle),
            _ => {}
        }
    }
}

/// What the transport hands to the session.
#[derive(Debug)]
pub enum Item {
    Message {
        at: At,
        dir: Dir,
        msg: Message,
    },
    Batch {
        at: At,
        dir: Dir,
        items: Vec<Result<Message, String>>,
    },
    /// A line of the server's stderr (an excerpt of it).
    Stderr {
        at: At,
        text: String,
    },
    /// A line on a JSON stream that yielded no message (stray text, broken
    /// JSON, a header): already reported here, counted by the session.
    Noise {
        at: At,
        dir: Dir,
    },
    /// A session event from a recorder (`# ...`) or a host.
    Event {
        at: At,
        event: Event,
    },
}

impl Item {
    /// Where the item is in the log.
    pub fn at(&self) -> &At {
        match self {
            Item::Message { at, .. }
            | Item::Batch { at, .. }
            | Item::Stderr { at, .. }
            | Item::Noise { at, .. }
            | Item::Event { at, .. } => at,
        }
    }
}

/// Lines a multi-line message may span before mcpdbg stops reassembling it.
const MULTILINE_MAX_LINES: usize = 10_000;
/// Bytes a multi-line message may hold while being reassembled.
const MULTILINE_MAX_BYTES: usize = 16 * 1024 * 1024;

/// A message being reassembled from several lines.
struct Pending {
    start: At,
    start_excerpt: String,
    text: String,
    /// Where the text stands, scanned as it grows: it is parsed only once
    /// it can be whole, so a message of N lines costs O(its bytes), not
    /// O(N x its bytes).
    scan: Nesting,
    /// The continuation lines, kept to be re-read one by one if the
    /// reassembly fails.
    lines: Vec<(At, Vec<u8>, bool)>,
    /// Started while the lines of a failed reassembly were read again: if
    /// this one fails too, its lines are read once more as single lines
    /// only (see [`Transport::abandon`]).
    nested: bool,
}

/// The nesting of JSON text read so far, outside and inside strings: enough
/// to tell when a message spread over lines may be complete.
#[derive(Debug, Default)]
struct Nesting {
    depth: u64,
    in_string: bool,
    escaped: bool,
    /// Something no JSON text holds: a closing bracket too many, or a line
    /// break inside a string.
    broken: bool,
}

impl Nesting {
    fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                // Most of a payload is inside strings: skip to the next
                // quote or backslash.
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    Some(at) => {
                        i += at;
                        if bytes[i] == b'"' {
                            self.in_string = false;
                        } else {
                            self.escaped = true;
                        }
                        i += 1;
                    }
                    None => return,
                }
                continue;
            }
            match bytes[i] {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => match self.depth.checked_sub(1) {
                    Some(d) => self.depth = d,
                    None => self.broken = true,
                },
                _ => {}
            }
            i += 1;
        }
    }

    /// The line break that joins two lines.
    fn newline(&mut self) {
        if self.in_string {
            self.broken = true;
        }
    }

    /// Whether a parse could succeed now (or fail on something other than
    /// the text ending early).
    fn may_be_whole(&self) -> bool {
        self.broken || (self.depth == 0 && !self.in_string)
    }
}

/// Per-direction transport state.
#[derive(Default)]
struct Stream {
    multiline: Option<Pending>,
    crlf: u64,
    blank: u64,
    headers: u64,
    /// The next line of this stream ended without a newline (a recorder event said so).
    partial_next: bool,
}

/// The transport state of one file.
pub struct Transport {
    streams: [Stream; 3],
    /// What the reader assumed: note -> (first line, how often).
    notes: indexmap::IndexMap<String, (u64, u64)>,
    /// The line number of the last record, and whether it was terminated.
    last: Option<(u64, bool)>,
    /// While a line is read: how many bytes of the input's line come before
    /// its text (a host's prefix), when known, so that a parse error's
    /// column counts in the line as the user sees it.
    column_base: Option<usize>,
    /// Keep the numbers a double would change as written, for the views
    /// ([`Transport::exact_numbers`]).
    exact: bool,
    /// What the parser builds of each message ([`Transport::whole_messages`]).
    build: Build,
    /// The line where the input ended in the middle of a message
    /// (`truncated-line`), if it did, and who wrote it.
    cut: Option<(u64, Dir)>,
    /// A line longer than the line limit (`line-too-long`): its head comes
    /// next, and is read as a message cut short, not as broken JSON.
    overlong: Option<u64>,
    /// The lines of a failed reassembly are being read again (see
    /// [`Transport::abandon`]): with `Single`, no reassembly starts.
    rereading: Reread,
}

/// How the lines of a failed reassembly are being read again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Reread {
    #[default]
    No,
    /// A message may start on one of them and span the next.
    Lines,
    /// Each on its own: they failed twice.
    Single,
}

fn slot(dir: Dir) -> usize {
    match dir {
        Dir::ClientToServer => 0,
        Dir::ServerToClient => 1,
        Dir::Unknown | Dir::Stderr => 2,
    }
}

/// Whether text on a JSON stream is an attempt at JSON: `{` followed by a
/// key or `}` (or nothing, as in a pretty-printed first line), or `[`
/// followed by `{`, `[`, `]` or nothing. `[INFO] ready` and `{foo}` are text.
fn looks_like_json(text: &str) -> bool {
    // Nearly every line: an object whose first key follows at once.
    if text.as_bytes().starts_with(b"{\"") {
        return true;
    }
    let t = text.trim_start();
    let mut chars = t.chars();
    let next = |chars: std::str::Chars<'_>| chars.as_str().trim_start().chars().next();
    match chars.next() {
        Some('{') => matches!(next(chars), None | Some('"' | '}')),
        Some('[') => matches!(next(chars), None | Some('{' | '[' | ']')),
        _ => false,
    }
}

fn is_header(text: &str) -> bool {
    text.get(..15)
        .is_some_and(|p| p.eq_ignore_ascii_case("content-length:"))
        || text
            .get(..13)
            .is_some_and(|p| p.eq_ignore_ascii_case("content-type:"))
}

impl Default for Transport {
    fn default() -> Self {
        Transport::new()
    }
}

impl Transport {
    pub fn new() -> Transport {
        Transport {
            streams: Default::default(),
            notes: Default::default(),
            last: None,
            column_base: None,
            exact: false,
            build: Build::Checks,
            cut: None,
            overlong: None,
            rereading: Reread::No,
        }
    }

    /// A transport for the views, which show and compare payloads: each
    /// message keeps its numbers that a double would change (an integer
    /// beyond 64 bits, a decimal of more digits than a double holds) as
    /// written (see [`crate::wire::message::Frame::keep_exact`]), and every
    /// member is built ([`Transport::whole_messages`]). The rules see the
    /// same messages either way; this costs one more scan of each line.
    pub fn exact_numbers(mut self) -> Transport {
        self.exact = true;
        self.whole_messages()
    }

    /// A transport whose messages are built whole ([`Build::Views`]), for a
    /// view that shows every message: a busy notification's `params` are
    /// not picked, which would make the view read its line again.
    pub fn whole_messages(mut self) -> Transport {
        self.build = Build::Views;
        self
    }

    /// Takes one record; appends what it yields to `out`.
    pub fn push(&mut self, record: Record, findings: &mut Findings, out: &mut Vec<Item>) {
        if let Some(item) = self.push_ahead(record, None, findings, out) {
            out.push(item);
        }
    }

    /// [`Transport::push`] of a record whose line was read ahead
    /// ([`crate::wire::skim::read_ahead`], with this transport's build):
    /// when the line is a plain line of JSON, its message is built from
    /// `ahead`. The item of such a line's one message is handed back
    /// rather than appended to `out`: the common case, it then goes to the
    /// session without being moved into and out of a buffer (an item is
    /// 192 bytes). Anything else goes to `out`.
    pub(crate) fn push_ahead(
        &mut self,
        record: Record,
        ahead: Option<ReadAhead<'_>>,
        findings: &mut Findings,
        out: &mut Vec<Item>,
    ) -> Option<Item> {
        self.last = Some((record.line, record.terminated));
        let at = At {
            line: record.line,
            time: record.time,
        };
        match record.body {
            Body::Line {
                dir: Dir::Stderr,
                bytes,
            } => {
                let text = excerpt_bytes(bytes.strip_suffix(b"\r").unwrap_or(&bytes));
                out.push(Item::Stderr { at, text });
            }
            Body::Line { dir, bytes } if self.overlong.take_if(|l| *l == at.line).is_some() => {
                // The head of a line over the limit: `line-too-long` said
                // so; the message's id and method, when the head holds
                // them, still pair it (its answer is no orphan), and its
                // cut JSON is no `invalid-json`.
                let head = String::from_utf8_lossy(&bytes);
                let rebuilt = crate::reader::claude::rebuild_cut(head.trim_start());
                let frame = rebuilt
                    .and_then(|json| serde_json::from_str::<Value>(&json).ok())
                    .map(message::classify);
                if let Some(Frame::Message(mut msg)) = frame {
                    msg.partial = true;
                    msg.cut = true;
                    return Some(Item::Message { at, dir, msg });
                }
            }
            Body::Line { dir, bytes } => {
                if bytes.len() > framing::CLIENT_LIMIT
                    && dir != Dir::Unknown
                    && looks_like_message(&bytes)
                {
                    findings.push(framing::over_client_limit(&at, dir, bytes.len()));
                }
                let terminated =
                    record.terminated && !std::mem::take(&mut self.streams[slot(dir)].partial_next);
                if self.streams[slot(dir)].multiline.is_some() {
                    self.continue_multiline(at, dir, bytes.into_vec(), terminated, findings, out);
                } else {
                    // The common case, a plain line of JSON, parsed without
                    // copies.
                    match parse_plain(bytes, self.exact, self.build, ahead) {
                        Ok(Frame::Message(msg)) => return Some(Item::Message { at, dir, msg }),
                        Ok(frame) => emit(at, dir, frame, findings, out),
                        Err(bytes) => self.line(at, dir, bytes, terminated, findings, out),
                    }
                }
            }
            Body::Event(event) => {
                // `mcpdbg record` announces a line that ended without a newline.
                if let EventKind::PartialLine(dir @ (Dir::ClientToServer | Dir::ServerToClient)) =
                    event.kind
                {
                    self.streams[slot(dir)].partial_next = true;
                }
                out.push(Item::Event { at, event })
            }
            Body::Partial { dir, json, why } => {
                let note = match why {
                    PartialWhy::Summary => {
                        "the log shows message summaries (method, id, outcome), not payloads: content, shape and envelope rules stay silent"
                    }
                    PartialWhy::HostTruncated => {
                        "some payloads were cut short in the log (by the host or the capture tool): their id and method are used, their content is not judged"
                    }
                    PartialWhy::HostEvents => {
                        "tool calls are rebuilt from the host's events: only the method, the tool and the outcome are known"
                    }
                    PartialWhy::GatewayError => {
                        "failed calls are logged as the gateway's error text, not the server's answer: they count as error answers, their code and content are not judged"
                    }
                };
                self.note(note, at.line);
                match serde_json::from_slice::<Value>(&json).map(message::classify) {
                    Ok(Frame::Message(mut msg)) => {
                        msg.partial = true;
                        msg.cut = why == PartialWhy::HostTruncated;
                        out.push(Item::Message { at, dir, msg });
                    }
                    _ => out.push(Item::Noise { at, dir }),
                }
            }
            Body::HostParseError(text) => {
                findings.push(framing::host_parse_error(&at, &text));
                out.push(Item::Noise {
                    at,
                    dir: Dir::ServerToClient,
                });
            }
            Body::HostRejected(said) => {
                findings.push(framing::host_rejected(&at, &said));
                out.push(Item::Noise {
                    at,
                    dir: Dir::ServerToClient,
                });
            }
            Body::Note(text) => self.note(&text, at.line),
            Body::Undecodable { error, lines_read } => {
                findings.push(framing::undecodable(&error, lines_read))
            }
            Body::Overlong { length } => {
                self.overlong = Some(at.line);
                findings.push(framing::overlong(at.line, length))
            }
            Body::Unreadable(bytes) => {
                let rule = Rule::MalformedRecord;
                findings.push_with(rule, rule.severity(), || {
                    let stamp = crate::reader::native::bad_timestamp(&bytes);
                    framing::malformed_record(&at, stamp, &bytes)
                })
            }
        }
        None
    }

    fn note(&mut self, text: &str, line: u64) {
        // Looked up before it is copied: a host log repeats its note on
        // every message line.
        match self.notes.get_mut(text) {
            Some(entry) => entry.1 += 1,
            None => {
                self.notes.insert(text.to_string(), (line, 1));
            }
        }
    }

    /// Strips a CR and decodes UTF-8, reporting both. Returns the text.
    fn normalise<'a>(
        &mut self,
        at: &At,
        dir: Dir,
        bytes: &'a [u8],
        findings: &mut Findings,
    ) -> std::borrow::Cow<'a, str> {
        let bytes = match bytes.strip_suffix(b"\r") {
            Some(stripped) => {
                let stream = &mut self.streams[slot(dir)];
                stream.crlf += 1;
                if stream.crlf == 1 {
                    findings.push(framing::crlf(at, dir));
                }
                stripped
            }
            None => bytes,
        };
        match std::str::from_utf8(bytes) {
            Ok(text) => text.into(),
            Err(e) => {
                findings.push(framing::invalid_utf8(
                    at,
                    dir,
                    bytes[e.valid_up_to()],
                    e.valid_up_to(),
                ));
                String::from_utf8_lossy(bytes)
            }
        }
    }

    /// One complete line on a JSON stream (not a continuation) that is not
    /// plainly one JSON value (see [`parse_plain`]).
    fn line(
        &mut self,
        at: At,
        dir: Dir,
        bytes: LineBytes,
        terminated: bool,
        findings: &mut Findings,
        out: &mut Vec<Item>,
    ) {
        let base = bytes.offset_in_line();
        let (bytes, bom) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
            Some(rest) => {
                findings.push(framing::bom(&at, dir));
                (rest, 3)
            }
            None => (&bytes[..], 0),
        };
        let text = self.normalise(&at, dir, bytes, findings);
        // A line with bad UTF-8 is read with its bytes replaced: its
        // columns are no longer the line's.
        self.column_base = match &text {
            std::borrow::Cow::Borrowed(_) => base.map(|b| b + bom),
            std::borrow::Cow::Owned(_) => None,
        };
        self.text_line(at, dir, &text, terminated, findings, out);
        self.column_base = None;
    }

    fn text_line(
        &mut self,
        at: At,
        dir: Dir,
        text: &str,
        terminated: bool,
        findings: &mut Findings,
        out: &mut Vec<Item>,
    ) {
        let stream = &mut self.streams[slot(dir)];
        if text.trim().is_empty() {
            // The empty line after Content-Length headers is part of that framing.
            if stream.headers > 0 {
                return;
            }
            stream.blank += 1;
            if stream.blank == 1 && dir != Dir::Unknown {
                findings.push(framing::blank_line(&at, dir));
            }
            return;
        }
        if is_header(text) {
            stream.headers += 1;
            if stream.headers == 1 {
                findings.push(framing::content_length(&at, dir, text));
            }
            out.push(Item::Noise { at, dir });
            return;
        }
        // A header glued to the end of a body: `{...}Content-Length: 93`.
        if stream.headers > 0 {
            if let Some(pos) = text.find("Content-Length:").filter(|&p| p > 0) {
                let (body, header) = text.split_at(pos);
                self.text_line(at.clone(), dir, body, true, findings, out);
                self.text_line(at, dir, header, terminated, findings, out);
                return;
            }
        }
        if !looks_like_json(text) {
            if dir != Dir::Unknown {
                let rule = Rule::StrayOutput;
                findings.push_with(rule, rule.severity(), || {
                    framing::stray_output(&at, dir, text)
                });
            }
            out.push(Item::Noise { at, dir });
            return;
        }
        match crate::wire::skim::parse_keeping(text, self.build) {
            Ok(mut frame) => {
                if self.exact {
                    frame.keep_exact(text);
                }
                emit(at, dir, frame, findings, out)
            }
            Err(e) if e.is_eof() && terminated && self.rereading != Reread::Single => {
                let mut scan = Nesting::default();
                scan.feed(text.as_bytes());
                self.streams[slot(dir)].multiline = Some(Pending {
                    start: at,
                    start_excerpt: excerpt(text),
                    text: text.to_string(),
                    scan,
                    lines: Vec::new(),
                    nested: self.rereading == Reread::Lines,
                });
            }
            Err(e) => self.broken(at, dir, text, &e, terminated, findings, out),
        }
    }

    /// A line that looks like JSON and does not parse.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call site; the pieces are all distinct"
    )]
    fn broken(
        &mut self,
        at: At,
        dir: Dir,
        text: &str,
        error: &serde_json::Error,
        terminated: bool,
        findings: &mut Findings,
        out: &mut Vec<Item>,
    ) {
        // Several messages glued on one line: report, then analyse each.
        let values: Vec<Value> = serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .map_while(Result::ok)
            .collect();
        let glued = values.len() >= 2
            && serde_json::Deserializer::from_str(text)
                .into_iter::<Value>()
                .all(|v| v.is_ok());
        // Worded only when listed (past the rule's limit, counted).
        let column_base = self.column_base;
        if glued {
            let rule = Rule::InvalidJson;
            findings.push_with(rule, rule.severity(), || {
                framing::glued(&at, dir, values.len())
            });
        } else if !terminated && error.is_eof() {
            self.cut = Some((at.line, dir));
            let rule = Rule::TruncatedLine;
            findings.push_with(rule, rule.severity(), || framing::cut_line(&at, dir, text));
        } else {
            let rule = Rule::InvalidJson;
            findings.push_with(rule, rule.severity(), || {
                framing::invalid_json(&at, dir, &describe(error, column_base), text)
            });
        }
        if glued {
            for value in values {
                emit(at.clone(), dir, message::classify(value), findings, out);
            }
        } else {
            out.push(Item::Noise { at, dir });
        }
    }

    fn continue_multiline(
        &mut self,
        at: At,
        dir: Dir,
        bytes: Vec<u8>,
        terminated: bool,
        findings: &mut Findings,
        out: &mut Vec<Item>,
    ) {
        let text = self.normalise(&at, dir, &bytes, findings).into_owned();
        let pending = self.streams[slot(dir)]
            .multiline
            .as_mut()
            .expect("caller checked");
        pending.text.push('\n');
        pending.scan.newline();
        pending.text.push_str(&text);
        pending.scan.feed(text.as_bytes());
        pending.lines.push((at.clone(), bytes, terminated));
        if !pending.scan.may_be_whole() {
            // Still inside an object or array: what a parse would call an
            // early end of input, without parsing.
            if !(terminated
                && pending.lines.len() < MULTILINE_MAX_LINES
                && pending.text.len() < MULTILINE_MAX_BYTES)
            {
                self.abandon(dir, findings, out);
            }
            return;
        }
        match serde_json::from_str::<Value>(&pending.text) {
            Ok(value) => {
                let pending = self.streams[slot(dir)].multiline.take().expect("present");
                findings.push(framing::multi_line(
                    &pending.start,
                    at.line,
                    pending.lines.len() + 1,
                    dir,
                ));
                let mut frame = message::classify(value);
                if self.exact {
                    frame.keep_exact(&pending.text);
                }
                emit(pending.start, dir, frame, findings, out);
            }
            Err(e)
                if e.is_eof()
                    && terminated
                    && pending.lines.len() < MULTILINE_MAX_LINES
                    && pending.text.len() < MULTILINE_MAX_BYTES => {}
            Err(_) => self.abandon(dir, findings, out),
        }
    }

    /// Gives up on a reassembly: the first line is broken JSON, the others
    /// are read again one by one (a message may start on one of them and
    /// span the next). When a reassembly started so fails too, its lines
    /// are read as single lines: each line is read again at most twice, so
    /// unclosed blocks nested in each other (`{` lines of a pretty-printed
    /// text cut short) cost linear time, not one pass per block.
    fn abandon(&mut self, dir: Dir, findings: &mut Findings, out: &mut Vec<Item>) {
        let Some(pending) = self.streams[slot(dir)].multiline.take() else {
            return;
        };
        let at_end = self.last.is_some_and(|(line, terminated)| {
            !terminated
                && pending
                    .lines
                    .last()
                    .map_or(pending.start.line, |(a, _, _)| a.line)
                    == line
        });
        if at_end {
            self.cut = Some((pending.start.line, dir));
        }
        let rule = if at_end {
            Rule::TruncatedLine
        } else {
            Rule::InvalidJson
        };
        findings.push_with(rule, rule.severity(), || {
            framing::never_completes(&pending.start, dir, &pending.start_excerpt, at_end)
        });
        out.push(Item::Noise {
            at: pending.start,
            dir,
        });
        if at_end {
            return;
        }
        let outer = self.rereading;
        self.rereading = if pending.nested {
            Reread::Single
        } else {
            outer.max(Reread::Lines)
        };
        for (at, bytes, terminated) in pending.lines {
            // Re-read without a second CRLF or UTF-8 report: those were made.
            let text =
                String::from_utf8_lossy(bytes.strip_suffix(b"\r").unwrap_or(&bytes)).into_owned();
            if self.streams[slot(dir)].multiline.is_some() {
                self.continue_multiline(at, dir, bytes, terminated, findings, out);
            } else {
                self.text_line(at, dir, &text, terminated, findings, out);
            }
        }
        self.rereading = outer;
    }

    /// The line where the input ended in the middle of a message, and who
    /// wrote it, once the input is read ([`Transport::finish`]): the log
    /// was cut short there.
    pub fn cut_at(&self) -> Option<(u64, Dir)> {
        self.cut
    }

    /// Ends the file: flushes unfinished reassemblies and adds the counts to
    /// the once-per-side findings.
    pub fn finish(&mut self, findings: &mut Findings, out: &mut Vec<Item>) {
        if let Some((_, (first, _))) = self.notes.first() {
            let text = self
                .notes
                .iter()
                .map(|(note, (_, count))| {
                    if *count > 1 {
                        format!("{note} ({count} lines)")
                    } else {
                        note.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join("; ");
            findings.push(framing::format_assumption(*first, text));
            self.notes.clear();
        }
        for dir in [Dir::ClientToServer, Dir::ServerToClient, Dir::Unknown] {
            while self.streams[slot(dir)].multiline.is_some() {
                self.abandon(dir, findings, out);
            }
            let stream = &self.streams[slot(dir)];
            framing::counted(findings, dir, stream.crlf, stream.blank, stream.headers);
        }
    }
}

/// Parses a line that is plainly one JSON value: no BOM or CR to report,
/// valid UTF-8, not a header. A message that keeps its line takes `bytes`.
/// With `exact`, the frame keeps its numbers as written (see [`Transport::exact_numbers`]);
/// `build` says what is built of it; `ahead`, the line's tape when it was
/// read ahead with `build`.
/// `None` for anything else, which the transport's full path handles.
fn parse_plain(
    bytes: LineBytes,
    exact: bool,
    build: Build,
    ahead: Option<ReadAhead<'_>>,
) -> Result<Frame, LineBytes> {
    // What was read ahead of the very same bytes: only of a line that passed
    // the checks below (its UTF-8 checked as it was read), which are not
    // made again, as they would touch the line's bytes on this thread.
    let ahead = ahead.filter(|ahead| std::ptr::eq(ahead.text().as_bytes(), &*bytes));
    let text = match &ahead {
        Some(ahead) => ahead.text(),
        None => {
            if !may_be_json_line(&bytes) {
                return Err(bytes);
            }
            match simdutf8::basic::from_utf8(&bytes) {
                Ok(text) if is_json_text(text) => text,
                _ => return Err(bytes),
            }
        }
    };
    let parse = || crate::wire::skim::parse_cut_as(text, build).ok();
    let read = match ahead {
        Some(ReadAhead::Tape(tape)) => crate::wire::skim::parse_ahead(text, tape).or_else(parse),
        Some(ReadAhead::Parsed { read, .. }) => read,
        None => parse(),
    };
    match read {
        Some((mut frame, cut)) => {
            if exact {
                frame.keep_exact(text);
            }
            if cut {
                frame.keep_line(bytes);
            }
            Ok(frame)
        }
        None => Err(bytes),
    }
}

/// Whether a line starts (after blanks and a byte order mark) like a JSON
/// object or array: O(1) for a message, whatever its size.
fn looks_like_message(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    bytes
        .iter()
        .take(64)
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// Whether a line's bytes may be a plain line of JSON (no byte order mark,
/// no carriage return), before their UTF-8 is checked.
pub(crate) fn may_be_json_line(bytes: &[u8]) -> bool {
    !(bytes.starts_with(b"\xef\xbb\xbf") || bytes.ends_with(b"\r"))
}

/// Whether a line's text is read as JSON (not stray text, not a header):
/// with [`may_be_json_line`], what makes [`parse_plain`] parse a line.
pub(crate) fn is_json_text(text: &str) -> bool {
    looks_like_json(text) && !is_header(text)
}

fn emit(at: At, dir: Dir, frame: Frame, findings: &mut Findings, out: &mut Vec<Item>) {
    match frame {
        Frame::Message(msg) => out.push(Item::Message { at, dir, msg }),
        Frame::Batch(items) => out.push(Item::Batch { at, dir, items }),
        Frame::LongBatch { items, skipped } => {
            findings.push(framing::batch_too_large(&at, dir, items.len(), skipped));
            out.push(Item::Batch { at, dir, items });
        }
        Frame::Invalid(why) => {
            findings.push(framing::not_a_message(&at, dir, &why));
            out.push(Item::Noise { at, dir });
        }
    }
}

/// serde_json's error without its position, then where it is: the column
/// in the input's line (bytes, counted from 1, the host's prefix included)
/// when the text is a slice of that line; else the byte of the message
/// (counted from 1: a log that holds the message escaped or decoded, not
/// as a slice of its line, or a message over several lines).
fn describe(error: &serde_json::Error, base: Option<usize>) -> String {
    let text = error.to_string();
    let text = match text.find(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    match base {
        Some(base) if error.line() <= 1 => format!("{text} at column {}", base + error.column()),
        _ if error.line() > 1 => format!(
            "{text} at byte {} of the message's line {}",
            error.column(),
            error.line()
        ),
        _ => format!("{text} at byte {} of the message", error.column()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn json_lookalikes() {
        assert!(looks_like_json("{\"jsonrpc\":\"2.0\"}"));
        assert!(looks_like_json("{"));
        assert!(looks_like_json("  { \"a\": 1"));
        assert!(looks_like_json("[{\"a\":1}]"));
        assert!(looks_like_json("[]"));
        assert!(!looks_like_json("[INFO] server ready"));
        assert!(!looks_like_json("{foo}"));
        assert!(!looks_like_json("Starting server"));
        assert!(!looks_like_json("[2026-01-01] started"));
    }

    #[test]
    fn nesting_follows_strings_escapes_and_brackets() {
        let mut n = Nesting::default();
        n.feed(br#"{"a": "}]\"{", "b": ["#);
        assert!(!n.may_be_whole(), "brackets in strings do not count");
        n.newline();
        n.feed(br#"1, {"c": "\\"}]"#);
        assert!(!n.may_be_whole());
        n.newline();
        n.feed(b"}");
        assert!(n.may_be_whole() && !n.broken);
        let mut n = Nesting::default();
        n.feed(br#"{"a": "open"#);
        n.newline();
        assert!(n.broken && n.may_be_whole(), "a line break inside a string");
        let mut n = Nesting::default();
        n.feed(b"{}}");
        assert!(n.broken, "a closing bracket too many");
    }

    /// Lines of one stream through the transport: the messages' lines and
    /// the rules it reported.
    fn through(lines: &[&str]) -> (Vec<u64>, Vec<Rule>) {
        let mut transport = Transport::new();
        let mut findings = Findings::default();
        let mut items = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let record = Record {
                line: i as u64 + 1,
                time: None,
                body: Body::Line {
                    dir: Dir::ServerToClient,
                    bytes: line.as_bytes().to_vec().into(),
                },
                terminated: true,
                source: None,
            };
            transport.push(record, &mut findings, &mut items);
        }
        transport.finish(&mut findings, &mut items);
        let lines = items
            .iter()
            .filter_map(|item| match item {
                Item::Message { at, .. } => Some(at.line),
                _ => None,
            })
            .collect();
        (lines, findings.finish().iter().map(|f| f.rule).collect())
    }

    #[test]
    fn a_message_over_lines_is_parsed_once_it_is_whole() {
        let (messages, rules) = through(&[
            "{",
            r#"  "jsonrpc": "2.0", "id": 1,"#,
            r#"  "result": {"text": "a } and a \" and ]"}"#,
            "}",
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ]);
        assert_eq!(messages, vec![1, 5], "{rules:?}");
        assert_eq!(rules, vec![Rule::MultiLineJson]);
        // A line break inside a string: no message; the lines are read
        // again one by one.
        let (messages, rules) = through(&[r#"{"jsonrpc":"2.0","id":1,"result":"a"#, r#"b"}"#]);
        assert!(messages.is_empty(), "{messages:?}");
        assert!(rules.contains(&Rule::InvalidJson), "{rules:?}");
    }

    #[test]
    fn headers() {
        assert!(is_header("Content-Length: 93"));
        assert!(is_header("content-length:93"));
        assert!(is_header("Content-Type: application/vscode-jsonrpc"));
        assert!(!is_header("Content"));
    }
}
