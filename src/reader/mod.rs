//! Readers: bytes in a log file -> [`Record`]s.
//!
//! One submodule per input format. Each reader is a streaming iterator over
//! records that holds one line at a time; none of them interprets JSON.
//! Auto-detection looks at a bounded prefix of the input only.
//! A reader returns `Err` only when the underlying read fails; lines it cannot
//! understand become [`Body::Unreadable`] records, which later stages report.

use std::fmt;
use std::io::{self, Read};

pub mod claude;
pub mod claude_code;
pub mod codex;
pub mod cursor;
pub mod envelope;
pub mod gateway;
pub mod jetbrains;
pub mod native;
pub mod ndjson;
pub mod socat;
pub mod strace;
pub mod vscode;
pub mod zed;
pub mod zstd;

use crate::wire::dir::Dir;
use crate::wire::event::Event;
use crate::wire::line::LineBytes;
use crate::wire::time::Timestamp;

/// What one record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// A line written to one of the server's streams, without its `\n`
    /// (a `\r` before it is kept: it is part of what was sent).
    Line { dir: Dir, bytes: LineBytes },
    /// A session event written by a recorder (`# ...` in the native format),
    /// or a host's lifecycle line (`Server transport closed`).
    Event(Event),
    /// A message the log shows only in part, as minimal JSON the reader
    /// rebuilt from what it could read (id, method, outcome).
    Partial {
        dir: Dir,
        json: Vec<u8>,
        why: PartialWhy,
    },
    /// The host reported that it could not parse a line of the server's
    /// stdout (its words): evidence of stray output the log does not contain.
    HostParseError(String),
    /// What the reader had to assume about this log (reported once per file).
    Note(std::borrow::Cow<'static, str>),
    /// The compressed input could not be decoded past this point (the last
    /// record of such an input): the decoder's words, and how many lines
    /// were read before.
    Undecodable { error: String, lines_read: u64 },
    /// A line longer than the line cap ([`max_line`]): its length in bytes.
    /// The line itself follows as its head only.
    Overlong { length: u64 },
    /// A line the format cannot interpret, kept for the report.
    Unreadable(Vec<u8>),
}

/// Why a message is only partly known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialWhy {
    /// The host logs summaries (`method="tools/call" id=3 params`).
    Summary,
    /// The host cut the payload (`...[N chars truncated]...`).
    HostTruncated,
    /// A gateway logged its own words for a failed call instead of the
    /// server's answer.
    GatewayError,
    /// The host logs events (a tool call started, completed, failed), not
    /// messages: the message is rebuilt from them.
    HostEvents,
}

/// One record of a log: a line of traffic with where and when it was seen.
/// A record's session name ([`Record::source`]): shared, so that a reader
/// hands out the same name record after record without allocating it for
/// each (records are read on one thread and freed on another, see
/// [`crate::pipeline`]).
pub type Source = std::sync::Arc<str>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in the input file.
    pub line: u64,
    pub time: Option<Timestamp>,
    pub body: Body,
    /// False when the input ended without a newline after this record.
    pub terminated: bool,
    /// The session this record belongs to, in logs that interleave several
    /// servers (the server's name in Claude Desktop's `mcp.log`).
    pub source: Option<Source>,
}

/// The input formats mcpdbg reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `[TIMESTAMP] MARKER RAW-LINE`, the format `mcpdbg record` writes.
    Native,
    /// Plain newline-delimited JSON with no markers (a `tee` of the pipe).
    Ndjson,
    /// Claude Desktop's per-server `mcp-server-NAME.log`.
    ClaudeServer,
    /// Claude Desktop's aggregate `mcp.log` (several servers).
    ClaudeAggregate,
    /// VS Code's MCP output log.
    VsCode,
    /// Zed's `Zed.log` at TRACE level.
    Zed,
    /// Zed's RPC view, copied from the app (`// Send:` / `// Receive:`).
    ZedRpc,
    /// A `socat -v` capture.
    Socat,
    /// An `strace -e trace=read,write` capture of the server.
    Strace,
    /// mcpsnoop's session log (JSON envelopes, one per line).
    Mcpsnoop,
    /// The MCP Inspector's protocol export (a JSON array).
    Inspector,
    /// JetBrains IDEs' per-server `mcp/<server>.log`.
    JetBrains,
    /// The GitHub Agentic Workflows gateway's `rpc-messages.jsonl`.
    GhAw,
    /// The gh-aw gateway's per-server `mcp-logs/<server_id>.log`.
    GhAwServer,
    /// Claude Code's per-server `mcp-logs-<server>/<ts>.jsonl` (or `.txt`).
    ClaudeCode,
    /// Claude Code's `--debug` log.
    ClaudeCodeDebug,
    /// OpenAI Codex CLI's `codex-tui.log`.
    Codex,
    /// Cursor's MCP logs (per server, or the shared `MCP Logs.log`).
    Cursor,
    /// A three-file `tee` capture (`--client`, `--server`, `--stderr`); never
    /// detected, only given.
    Tee,
}

impl Format {
    pub const ALL: [Format; 18] = [
        Format::Native,
        Format::Ndjson,
        Format::ClaudeServer,
        Format::ClaudeAggregate,
        Format::VsCode,
        Format::Zed,
        Format::ZedRpc,
        Format::Socat,
        Format::Strace,
        Format::Mcpsnoop,
        Format::Inspector,
        Format::JetBrains,
        Format::GhAw,
        Format::GhAwServer,
        Format::ClaudeCode,
        Format::ClaudeCodeDebug,
        Format::Codex,
        Format::Cursor,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Ndjson => "ndjson",
            Format::ClaudeServer => "claude-server",
            Format::ClaudeAggregate => "claude-aggregate",
            Format::VsCode => "vscode",
            Format::Zed => "zed",
            Format::ZedRpc => "zed-rpc",
            Format::Socat => "socat",
            Format::Strace => "strace",
            Format::Mcpsnoop => "mcpsnoop",
            Format::Inspector => "inspector",
            Format::JetBrains => "jetbrains",
            Format::GhAw => "gh-aw",
            Format::GhAwServer => "gh-aw-server",
            Format::ClaudeCode => "claude-code",
            Format::ClaudeCodeDebug => "claude-code-debug",
            Format::Codex => "codex",
            Format::Cursor => "cursor",
            Format::Tee => "tee",
        }
    }

    /// Whether the format's logs hold messages at all (some hosts log only
    /// their lifecycle and the server's stderr).
    pub fn holds_messages(self) -> bool {
        !matches!(
            self,
            Format::GhAwServer
                | Format::ClaudeCode
                | Format::ClaudeCodeDebug
                | Format::Codex
                | Format::Cursor
        )
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much of the input auto-detection looks at.
const DETECT_BYTES: usize = 64 * 1024;
const DETECT_LINES: usize = 40;

/// Decides the format from the first lines of the input: a host format
/// when at least a quarter of the lines carry its prefix (host logs mix in
/// unprefixed stderr and continuation lines), else native or ndjson by
/// majority.
pub fn detect(prefix: &[u8]) -> Format {
    let (mut native, mut total) = (0usize, 0usize);
    let mut host = [
        (0usize, Format::ClaudeServer),
        (0, Format::ClaudeAggregate),
        (0, Format::VsCode),
        (0, Format::Zed),
        (0, Format::ZedRpc),
        (0, Format::Socat),
        (0, Format::Strace),
        (0, Format::Mcpsnoop),
        (0, Format::JetBrains),
        (0, Format::GhAw),
        (0, Format::GhAwServer),
        (0, Format::ClaudeCode),
        (0, Format::ClaudeCodeDebug),
        (0, Format::Codex),
        (0, Format::Cursor),
    ];
    if claude_code::matches_txt_array(&String::from_utf8_lossy(&prefix[..prefix.len().min(4096)])) {
        return Format::ClaudeCode;
    }
    if envelope::matches_inspector(&String::from_utf8_lossy(&prefix[..prefix.len().min(4096)])) {
        return Format::Inspector;
    }
    let lines = prefix
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    for line in lines.take(DETECT_LINES) {
        total += 1;
        let text = String::from_utf8_lossy(line);
        // socat's headers start with `>`/`<` too: ask socat first.
        if socat::matches(line) {
            host[5].0 += 4;
        } else if native::parse_prefix(line).is_some() {
            native += 1;
        } else if claude::matches(&text, claude::Layout::PerServer) {
            // Claude's full prefix (time with milliseconds and `Z`, the
            // server's name, a level) is the host's own: it outweighs the
            // screenfuls of stderr a server writes between its lines.
            host[0].0 += 4;
        } else if claude::matches(&text, claude::Layout::Aggregate) {
            host[1].0 += 4;
        } else if cursor::matches(&text) {
            // Cursor's lines have VS Code's prefix: its own words decide.
            host[14].0 += 4;
        } else if vscode::matches(&text) {
            host[2].0 += 1;
        } else if zed::matches_log(&text) {
            host[3].0 += 1;
        } else if zed::matches_rpc(&text) {
            // A few markers among many lines of pretty JSON.
            host[4].0 += 8;
        } else if strace::matches(&text) {
            host[6].0 += 1;
        } else if envelope::matches_mcpsnoop(&text) {
            host[7].0 += 1;
        } else if jetbrains::matches(&text) {
            host[8].0 += 1;
        } else if gateway::matches_gh_aw(&text) {
            host[9].0 += 1;
        } else if gateway::matches_gh_aw_server(&text) {
            host[10].0 += 1;
        } else if claude_code::matches_jsonl(&text) {
            host[11].0 += 1;
        } else if claude_code::matches_debug(&text) {
            host[12].0 += 4;
        } else if claude_code::matches_debug_any(&text) {
            host[12].0 += 1;
        } else if codex::matches(&text) {
            host[13].0 += 1;
        }
    }
    let (best, format) = host
        .into_iter()
        .max_by_key(|(n, _)| *n)
        .expect("host formats");
    if best > 0 && best >= native && best * 4 >= total {
        // Cursor's per-server files share VS Code's prefix and may open
        // with a screenful of stderr: Cursor's own words further on, and
        // none of VS Code's, decide.
        if format == Format::VsCode && cursor::decides(prefix) {
            return Format::Cursor;
        }
        return format;
    }
    if native * 2 < total {
        if let Some(format) = below_a_screenful(prefix) {
            return format;
        }
    }
    // An empty input is read as native: it has no records either way.
    if native * 2 >= total {
        Format::Native
    } else {
        Format::Ndjson
    }
}

/// A host format whose every own line carries its prefix, found anywhere in
/// the bounded prefix: for logs whose first lines are all unprefixed text
/// (a traceback, a banner, a multi-line host entry). It needs two such
/// lines, and more of them than lines of JSON.
fn below_a_screenful(prefix: &[u8]) -> Option<Format> {
    let mut counts = [
        (0usize, Format::JetBrains),
        (0, Format::GhAwServer),
        (0, Format::Codex),
        (0, Format::ClaudeCodeDebug),
        (0, Format::ClaudeServer),
        (0, Format::ClaudeAggregate),
    ];
    let mut json = 0usize;
    for line in prefix.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if gateway::matches_gh_aw_server(&text) {
            counts[1].0 += 1;
        } else if line
            .trim_ascii_start()
            .first()
            .is_some_and(|&b| b == b'{' || b == b'[')
        {
            json += 1;
        } else if jetbrains::matches(&text) {
            counts[0].0 += 1;
        } else if codex::matches(&text) {
            counts[2].0 += 1;
        } else if claude_code::matches_debug(&text) {
            counts[3].0 += 1;
        } else if claude::matches(&text, claude::Layout::PerServer) {
            counts[4].0 += 1;
        } else if claude::matches(&text, claude::Layout::Aggregate) {
            counts[5].0 += 1;
        }
    }
    let (best, format) = counts.into_iter().max_by_key(|(n, _)| *n)?;
    (best >= 2 && best > json).then_some(format)
}

/// A reader that turns each line into zero or more records, queued: the
/// readers of host logs, which skip, split or join lines.
pub trait LineParser {
    /// The lines it reads and the records it has queued.
    fn parts(&mut self) -> (&mut Lines, &mut std::collections::VecDeque<Record>);
    /// Takes one line of input (its bytes shared with the chunk it was read
    /// into: [`LineBytes::part`] hands the message on without a copy).
    fn line(&mut self, line: u64, bytes: LineBytes, terminated: bool);
    /// The input ended: flush what is half-read. Called again on every later
    /// `next`, so it must leave nothing to flush a second time.
    fn end(&mut self) {}
}

/// A [`LineParser`] as an iterator of records.
pub struct Parsed<P>(pub P);

impl<P: LineParser> Iterator for Parsed<P> {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(record) = self.0.parts().1.pop_front() {
                return Some(Ok(record));
            }
            match self.0.parts().0.next_shared() {
                Ok(Some((line, bytes, terminated))) => self.0.line(line, bytes, terminated),
                Ok(None) => {
                    self.0.end();
                    return self.0.parts().1.pop_front().map(Ok);
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// A streaming source of records.
pub type Records = Box<dyn Iterator<Item = io::Result<Record>>>;

/// An input opened for reading: its format, its records and how many
/// lines were read so far (records may skip lines, such as continuation
/// lines a format ignores).
pub struct Opened {
    pub format: Format,
    pub records: Records,
    pub lines: LineCount,
}

/// Opens a reader over `input` (gzip and zstd are decoded), detecting the
/// format unless `forced`. A compressed input that cannot be decoded to
/// its end ends with a [`Body::Undecodable`] record: what was decoded is
/// read, and every consumer hears that the rest is missing.
pub fn open(input: Box<dyn Read>, forced: Option<Format>) -> io::Result<Opened> {
    open_decoded(input, forced)
}

/// What a compressed input's decoder said when the data ended early.
pub type DecodeError = std::rc::Rc<std::cell::RefCell<Option<String>>>;

/// A decoder whose error ends the stream instead of the analysis: what was
/// decoded is analysed, and the error is kept for the report.
struct Forgiving {
    inner: Box<dyn Read>,
    error: DecodeError,
}

impl Read for Forgiving {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.error.borrow().is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => {
                *self.error.borrow_mut() = Some(e.to_string());
                Ok(0)
            }
            other => other,
        }
    }
}

/// Wraps gzip (`1f 8b`) and zstd (`28 b5 2f fd`, or a skippable frame
/// first, as pzstd writes) inputs in a decoder, by
/// their magic bytes: rotated host logs are often compressed.
fn decompress(
    mut input: Box<dyn Read>,
    error: &DecodeError,
) -> io::Result<(Box<dyn Read>, Option<&'static str>)> {
    let mut magic = Vec::with_capacity(4);
    (&mut input).take(4).read_to_end(&mut magic)?;
    let input: Box<dyn Read> = Box::new(io::Cursor::new(magic.clone()).chain(input));
    let (decoded, kind): (Box<dyn Read>, _) = if magic.starts_with(&[0x1f, 0x8b]) {
        (
            Box::new(flate2::read::MultiGzDecoder::new(input)),
            Some("gzip"),
        )
    } else if zstd::is_zstd(&magic) {
        (Box::new(zstd::Zstd::new(input)), Some("zstd"))
    } else {
        return Ok((input, None));
    };
    Ok((
        Box::new(Forgiving {
            inner: decoded,
            error: error.clone(),
        }),
        kind,
    ))
}

fn open_decoded(input: Box<dyn Read>, forced: Option<Format>) -> io::Result<Opened> {
    let error = DecodeError::default();
    let (mut input, _) = decompress(input, &error)?;
    let mut prefix = Vec::with_capacity(8 * 1024);
    (&mut input)
        .take(DETECT_BYTES as u64)
        .read_to_end(&mut prefix)?;
    let format = forced.unwrap_or_else(|| detect(&prefix));
    let lines = Lines::new(Box::new(io::Cursor::new(prefix).chain(input)));
    let count = lines.count.clone();
    let cuts = lines.cuts.clone();
    let records: Records = match format {
        Format::Native => Box::new(native::NativeReader::new(lines)),
        Format::Ndjson => Box::new(ndjson::NdjsonReader::new(lines)),
        Format::ClaudeServer => Box::new(Parsed(claude::ClaudeReader::new(
            lines,
            claude::Layout::PerServer,
        ))),
        Format::ClaudeAggregate => Box::new(Parsed(claude::ClaudeReader::new(
            lines,
            claude::Layout::Aggregate,
        ))),
        Format::VsCode => Box::new(Parsed(vscode::VsCodeReader::new(lines))),
        Format::Zed => Box::new(Parsed(zed::ZedLogReader::new(lines))),
        Format::ZedRpc => Box::new(Parsed(zed::ZedRpcReader::new(lines))),
        Format::Socat => Box::new(Parsed(socat::SocatReader::new(lines))),
        Format::Strace => Box::new(Parsed(strace::StraceReader::new(lines))),
        Format::Mcpsnoop => Box::new(Parsed(envelope::McpsnoopReader::new(lines))),
        Format::Inspector => Box::new(envelope::InspectorReader::new(lines)),
        Format::JetBrains => Box::new(Parsed(jetbrains::JetBrainsReader::new(lines))),
        Format::GhAw => Box::new(Parsed(gateway::EnvelopeReader::new(lines, &gateway::GH_AW))),
        Format::GhAwServer => Box::new(Parsed(gateway::GhAwServerReader::new(lines))),
        Format::ClaudeCode => Box::new(Parsed(claude_code::ClaudeCodeReader::new(
            lines,
            claude_code::Layout::Jsonl,
        ))),
        Format::ClaudeCodeDebug => Box::new(Parsed(claude_code::ClaudeCodeReader::new(
            lines,
            claude_code::Layout::Debug,
        ))),
        Format::Codex => Box::new(Parsed(codex::CodexReader::new(lines))),
        Format::Cursor => Box::new(Parsed(cursor::CursorReader::new(lines))),
        // Three files are read by `pipeline::check_tee`; one file is plain.
        Format::Tee => Box::new(ndjson::NdjsonReader::new(lines)),
    };
    let records = Box::new(DecodeTail {
        records,
        error,
        lines: count.clone(),
        reported: false,
        cuts,
        held: None,
    });
    Ok(Opened {
        format,
        records,
        lines: count,
    })
}

/// A reader's records, then the decoder's error as a last record. An end
/// of the records without an error is an end for now only (a followed file
/// may grow).
struct DecodeTail {
    records: Records,
    error: DecodeError,
    lines: LineCount,
    /// The error was handed on (the decoder stays stopped: the error is
    /// kept, and a kept error makes every read return nothing).
    reported: bool,
    /// Lines cut at the line cap, reported just before the first record
    /// at or after them.
    cuts: Cuts,
    /// A record read while a cut before it was reported.
    held: Option<io::Result<Record>>,
}

impl DecodeTail {
    /// The next cut line at or before `line` (every one left at the end).
    fn cut_before(&mut self, line: Option<u64>) -> Option<Record> {
        let mut cuts = self.cuts.borrow_mut();
        let &(at, length) = cuts.front()?;
        if line.is_some_and(|l| l < at) {
            return None;
        }
        cuts.pop_front();
        Some(Record {
            line: at,
            time: None,
            body: Body::Overlong { length },
            terminated: true,
            source: None,
        })
    }
}

impl Iterator for DecodeTail {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        // A record is 136 bytes: `take` would copy the empty `held` out and
        // back on every record, and the record through two more places.
        let next = if self.held.is_some() {
            self.held.take()
        } else {
            let next = self.records.next();
            if next.is_some() && self.cuts.borrow().is_empty() {
                return next;
            }
            next
        };
        let line = match &next {
            Some(Ok(record)) => Some(record.line),
            Some(Err(_)) => return next,
            None => None,
        };
        if let Some(cut) = self.cut_before(line) {
            self.held = next;
            return Some(Ok(cut));
        }
        match next {
            None if self.reported => None,
            None => {
                let error = self.error.borrow().clone()?;
                self.reported = true;
                let lines_read = self.lines.get();
                Some(Ok(Record {
                    line: lines_read.max(1),
                    time: None,
                    body: Body::Undecodable { error, lines_read },
                    terminated: true,
                    source: None,
                }))
            }
            other => other,
        }
    }
}

/// A line as text: borrowed when it is valid UTF-8 (checked with SIMD, the
/// common case on multi-gigabyte logs), else with bad bytes replaced.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Where the first `] ` is in a host log's prefix (`[info] `, `[server] `):
/// `str::find` sets up a substring search on every call, once or twice on
/// every line of the log; a `]` is rare enough to look for alone.
pub(crate) fn close_bracket(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memchr_iter(b']', b).find(|&i| b.get(i + 1) == Some(&b' '))
}

/// How many lines a reader has read.
pub type LineCount = std::rc::Rc<std::cell::Cell<u64>>;

/// Bytes read at a time; a line longer than this is gathered on its own.
const CHUNK: usize = 1 << 20;

/// The longest line held, in bytes: 256 MiB, or `MCPDBG_MAX_LINE` (bytes,
/// with an optional `K`, `M` or `G` suffix for KiB, MiB, GiB). A longer line
/// is cut: its first [`HEAD`] bytes are kept, the rest is skipped, and a
/// [`Body::Overlong`] record says so.
pub fn max_line() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        std::env::var("MCPDBG_MAX_LINE")
            .ok()
            .and_then(|v| parse_size(&v))
            .unwrap_or(256 << 20)
    })
}

fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 10),
        b'M' | b'm' => (&text[..text.len() - 1], 20),
        b'G' | b'g' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    let n: usize = digits.parse().ok()?;
    n.checked_mul(1 << shift).filter(|&n| n >= CHUNK)
}

/// What is kept of a line longer than the cap.
pub const HEAD: usize = 64 << 10;

/// Lines cut at the cap: (line number, length in bytes), oldest first.
pub type Cuts = std::rc::Rc<std::cell::RefCell<std::collections::VecDeque<(u64, u64)>>>;

/// Splits a byte stream into lines, keeping each line's bytes exactly
/// (without the `\n`) and whether it was terminated. Reads into chunks that
/// the lines share ([`LineBytes`]): a line is not copied out of them.
pub struct Lines {
    source: Box<dyn Read>,
    chunk: Chunk,
    /// The unread bytes: `chunk[start..end]`.
    start: usize,
    end: usize,
    line_no: u64,
    count: LineCount,
    /// The line cap, and the lines cut at it.
    cap: usize,
    cuts: Cuts,
    /// Chunks read before, kept to be read into again once their lines
    /// are gone (lines kept a while, as [`crate::pipeline`] keeps those read
    /// ahead, would otherwise cost a new chunk at every refill).
    spare: Vec<std::sync::Arc<Vec<u8>>>,
}

/// How many earlier chunks [`Lines`] keeps to read into again.
const SPARE_CHUNKS: usize = 4;

impl Lines {
    pub fn new(source: Box<dyn Read>) -> Lines {
        Lines::with_cap(source, max_line())
    }

    /// Lines of at most `cap` bytes (a line shorter than half a chunk,
    /// 512 KiB, is never cut).
    pub fn with_cap(source: Box<dyn Read>, cap: usize) -> Lines {
        Lines {
            source,
            chunk: Chunk::new(Vec::new()),
            start: 0,
            end: 0,
            line_no: 0,
            count: LineCount::default(),
            cap: cap.max(HEAD),
            cuts: Cuts::default(),
            spare: Vec::new(),
        }
    }

    /// The lines cut at the cap so far, taken: (line number, length).
    pub fn take_cuts(&self) -> Vec<(u64, u64)> {
        self.cuts.borrow_mut().drain(..).collect()
    }

    /// The next line as `(line number, bytes, terminated)`, in a vector of
    /// its own.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Vec<u8>, bool)>> {
        Ok(self
            .next_shared()?
            .map(|(line, bytes, terminated)| (line, bytes.into_vec(), terminated)))
    }

    /// The next line, sharing the chunk it was read into. `None` at the end
    /// of the input.
    pub fn next_shared(&mut self) -> io::Result<Option<(u64, LineBytes, bool)>> {
        Ok(self.next_raw()?.map(|(line, bytes, terminated)| {
            let bytes = match bytes {
                Raw::Chunk(range) => LineBytes::in_chunk(self.chunk.share(), range),
                Raw::Long(v) => LineBytes::whole_line(v),
            };
            (line, bytes, terminated)
        }))
    }

    fn next_raw(&mut self) -> io::Result<Option<(u64, Raw, bool)>> {
        let mut scanned = self.start;
        let mut long: Option<Vec<u8>> = None;
        // Past the cap: the line's head is in `long`, and this many bytes
        // of it were read in all.
        let mut cut: Option<u64> = None;
        // A read of 0 bytes ends the input for now; a later call reads again
        // (`check --follow` feeds the reader as the file grows).
        let mut at_end = false;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.chunk[scanned..self.end]) {
                let end = scanned + i;
                self.cut_last(&mut long, &mut cut, end);
                let raw = self.line_ending_at(long.take(), end, cut);
                let tail = end - self.start;
                self.start = end + 1;
                return Ok(Some((self.count_line(cut, tail), raw, true)));
            }
            if at_end {
                if self.start == self.end && long.is_none() {
                    return Ok(None);
                }
                let end = self.end;
                self.cut_last(&mut long, &mut cut, end);
                let raw = self.line_ending_at(long.take(), end, cut);
                let tail = end - self.start;
                self.start = end;
                return Ok(Some((self.count_line(cut, tail), raw, false)));
            }
            // No newline in what is buffered: make room, then read more.
            let pending = self.end - self.start;
            if pending >= CHUNK / 2 {
                // A long line: gathered on its own, the chunk reused for
                // reading; past the cap, only counted.
                let bytes = &self.chunk[self.start..self.end];
                if let Some(read) = &mut cut {
                    *read += bytes.len() as u64;
                } else {
                    let v = long.get_or_insert_with(Vec::new);
                    if v.len() + bytes.len() > self.cap {
                        cut = Some((v.len() + bytes.len()) as u64);
                        v.truncate(HEAD);
                        v.shrink_to_fit();
                    } else {
                        grow_within(v, bytes.len(), self.cap);
                        v.extend_from_slice(bytes);
                    }
                }
                self.start = self.end;
            }
            let pending = self.end - self.start;
            match self.chunk.get_mut() {
                Some(chunk) if chunk.len() == CHUNK => {
                    chunk.copy_within(self.start..self.end, 0);
                }
                _ => {
                    // A line read earlier still holds the chunk: an earlier
                    // one whose lines are all gone, or a new one.
                    let free = self
                        .spare
                        .iter()
                        .position(|c| std::sync::Arc::strong_count(c) == 1 && c.len() == CHUNK);
                    let mut next = match free {
                        Some(i) => self.spare.swap_remove(i),
                        None => std::sync::Arc::new(vec![0u8; CHUNK]),
                    };
                    std::sync::Arc::get_mut(&mut next).expect("no line holds it")[..pending]
                        .copy_from_slice(&self.chunk[self.start..self.end]);
                    let old = self.chunk.replace(next);
                    if old.len() == CHUNK && self.spare.len() < SPARE_CHUNKS {
                        self.spare.push(old);
                    }
                }
            }
            self.start = 0;
            self.end = pending;
            scanned = pending;
            let chunk = self.chunk.get_mut().expect("just made unique");
            let n = loop {
                match self.source.read(&mut chunk[pending..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            at_end = n == 0;
            self.end += n;
        }
    }

    /// Cuts a long line whose last piece, up to `end`, takes it past the cap.
    fn cut_last(&self, long: &mut Option<Vec<u8>>, cut: &mut Option<u64>, end: usize) {
        if let (Some(v), None) = (long.as_mut(), *cut) {
            if v.len() + (end - self.start) > self.cap {
                *cut = Some(v.len() as u64);
                v.truncate(HEAD);
                v.shrink_to_fit();
            }
        }
    }

    /// The line that ends at `end` of the chunk: a range of it, or the end
    /// of a long line gathered so far.
    fn line_ending_at(&self, long: Option<Vec<u8>>, end: usize, cut: Option<u64>) -> Raw {
        let range = self.start..end;
        match long {
            Some(v) if cut.is_some() => Raw::Long(v),
            Some(mut v) => {
                v.extend_from_slice(&self.chunk[range]);
                Raw::Long(v)
            }
            None => Raw::Chunk(range),
        }
    }

    /// Counts a line; `cut` is how much of it was read before its last
    /// `tail` bytes when it went past the cap.
    fn count_line(&mut self, cut: Option<u64>, tail: usize) -> u64 {
        self.line_no += 1;
        self.count.set(self.line_no);
        if let Some(read) = cut {
            self.cuts
                .borrow_mut()
                .push_back((self.line_no, read + tail as u64));
        }
        self.line_no
    }
}

/// The chunk [`Lines`] reads into, shared by the lines read from it.
///
/// Each line holds a count on the chunk, and the thread that checks a line
/// drops it while this one reads the next: one count, touched by two cores
/// for every line, moved its cache line between them each time (in a
/// profile of many short lines, a tenth of the reading thread's time and a
/// twentieth of the checking thread's). So the counts are taken
/// [`Chunk::CREDITS`] at a time, in one burst, and handed out one per line.
struct Chunk {
    arc: std::sync::Arc<Vec<u8>>,
    /// Counts taken on `arc` and not yet handed to a line.
    credits: usize,
}

impl Chunk {
    const CREDITS: usize = 256;

    fn new(bytes: Vec<u8>) -> Chunk {
        Chunk {
            arc: std::sync::Arc::new(bytes),
            credits: 0,
        }
    }

    /// A count on the chunk, for a line.
    fn share(&mut self) -> std::sync::Arc<Vec<u8>> {
        let ptr = std::sync::Arc::as_ptr(&self.arc);
        if self.credits == 0 {
            for _ in 0..Chunk::CREDITS {
                // SAFETY: `ptr` is from `self.arc`, alive while it is held.
                unsafe { std::sync::Arc::increment_strong_count(ptr) };
            }
            self.credits = Chunk::CREDITS;
        }
        self.credits -= 1;
        // SAFETY: one of the counts taken above, handed over.
        unsafe { std::sync::Arc::from_raw(ptr) }
    }

    /// Gives back the counts not handed out.
    fn settle(&mut self) {
        let ptr = std::sync::Arc::as_ptr(&self.arc);
        for _ in 0..std::mem::take(&mut self.credits) {
            // SAFETY: a count taken in `share` and not handed out; `self.arc`
            // holds one more, so the chunk is not freed here.
            unsafe { std::sync::Arc::decrement_strong_count(ptr) };
        }
    }

    /// The chunk to write into, when no line holds it.
    fn get_mut(&mut self) -> Option<&mut Vec<u8>> {
        self.settle();
        std::sync::Arc::get_mut(&mut self.arc)
    }

    /// Reads into `next` from now on; returns the chunk read into before.
    fn replace(&mut self, next: std::sync::Arc<Vec<u8>>) -> std::sync::Arc<Vec<u8>> {
        self.settle();
        std::mem::replace(&mut self.arc, next)
    }
}

impl std::ops::Deref for Chunk {
    type Target = Vec<u8>;

    fn deref(&self) -> &Vec<u8> {
        &self.arc
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        self.settle();
    }
}

/// Makes room in `v` for `more` bytes, doubling but never past `cap`: a
/// line near the cap does not reserve twice the cap.
fn grow_within(v: &mut Vec<u8>, more: usize, cap: usize) {
    let need = v.len() + more;
    if need > v.capacity() {
        let want = (v.capacity() * 2).clamp(need, cap.max(need));
        v.reserve_exact(want - v.len());
    }
}

/// Where a line's bytes are: in the current chunk, or gathered on their own.
enum Raw {
    Chunk(std::ops::Range<usize>),
    Long(Vec<u8>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &'static [u8], forced: Option<Format>) -> (Format, Vec<Record>) {
        let opened = open(Box::new(input), forced).unwrap();
        (opened.format, opened.records.map(Result::unwrap).collect())
    }

    #[test]
    fn detects_native_with_and_without_timestamps() {
        assert_eq!(
            detect(b"2026-01-01T00:00:00Z > {}\n2026-01-01T00:00:00Z < {}\n"),
            Format::Native
        );
        assert_eq!(detect(b"> {}\n< {}\n! hello\n"), Format::Native);
        assert_eq!(detect(b"-> {}\n<- {}\n"), Format::Native);
        assert_eq!(detect(b"{\"jsonrpc\":\"2.0\"}\n{}\n"), Format::Ndjson);
        assert_eq!(detect(b"banner\n{\"a\":1}\n{\"b\":1}\n"), Format::Ndjson);
        assert_eq!(detect(b""), Format::Native);
    }

    /// Claude's own prefix outweighs a screenful of a server's stderr, in
    /// the first lines or only further down the bounded prefix.
    #[test]
    fn claude_lines_outweigh_a_screenful_of_stderr() {
        let claude =
            "2026-09-14T08:12:03.101Z [w] [info] Initializing server... { metadata: undefined }\n";
        let mut log = String::from(claude);
        for i in 0..30 {
            log.push_str(&format!("  File \"/srv/w/m{i}.py\", line {i}, in load\n"));
        }
        log.push_str(claude);
        log.push_str(claude);
        assert_eq!(detect(log.as_bytes()), Format::ClaudeServer);
        let mut late = String::new();
        for i in 0..60 {
            late.push_str(&format!("warning {i}: deprecated\n"));
        }
        late.push_str(claude);
        late.push_str(claude);
        assert_eq!(detect(late.as_bytes()), Format::ClaudeServer);
        // One Claude-like line in a log of JSON does not decide.
        let mut json = String::from(claude);
        for _ in 0..40 {
            json.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n");
        }
        assert_eq!(detect(json.as_bytes()), Format::Ndjson);
    }

    #[test]
    fn keeps_line_numbers_and_termination() {
        let (format, recs) = read_all(b"> a\n\n< b", None);
        assert_eq!(format, Format::Native);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].line, 1);
        assert_eq!(recs[2].line, 3);
        assert!(recs[0].terminated && !recs[2].terminated);
    }

    #[test]
    fn a_line_past_the_cap_keeps_its_head_and_reading_goes_on() {
        let cap = 1 << 20;
        for (len, newline) in [(3 * cap + 17, true), (cap + 1, true), (5 * cap, false)] {
            let mut input = b"> first\n".to_vec();
            input.extend(std::iter::repeat_n(b'x', len));
            if newline {
                input.extend_from_slice(b"\n> after\n");
            }
            let mut lines = Lines::with_cap(Box::new(io::Cursor::new(input)), cap);
            assert_eq!(&*lines.next_line().unwrap().unwrap().1, b"> first");
            let (no, head, terminated) = lines.next_line().unwrap().unwrap();
            assert_eq!((no, head.len(), terminated), (2, HEAD, newline), "{len}");
            assert_eq!(lines.take_cuts(), vec![(2, len as u64)], "{len}");
            if newline {
                let (no, after, _) = lines.next_line().unwrap().unwrap();
                assert_eq!((no, &*after), (3, &b"> after"[..]));
            }
            assert!(lines.next_line().unwrap().is_none());
            assert!(lines.take_cuts().is_empty());
        }
        // At the cap exactly: whole.
        let input = vec![b'y'; cap];
        let mut lines = Lines::with_cap(Box::new(io::Cursor::new(input)), cap);
        assert_eq!(lines.next_line().unwrap().unwrap().1.len(), cap);
        assert!(lines.take_cuts().is_empty());
    }

    /// Lines take their counts on the chunk in bursts ([`Chunk`]): the
    /// counts not handed out go back, so that a chunk no line holds is
    /// read into again, and one freed with its last line.
    #[test]
    fn a_chunk_is_read_into_again_once_its_lines_are_gone_and_freed_with_the_last() {
        let line = format!("{}\n", "x".repeat(99));
        let input = line.repeat(200_000).into_bytes();
        let mut lines = Lines::new(Box::new(io::Cursor::new(input)));
        let mut kept = Vec::new();
        let mut chunks = std::collections::HashSet::new();
        let mut n = 0;
        while let Some((_, bytes, _)) = lines.next_shared().unwrap() {
            n += 1;
            let (chunk, _) = bytes.shared();
            chunks.insert(std::sync::Arc::as_ptr(chunk) as usize);
            if n <= 10 {
                kept.push(bytes);
            }
        }
        assert_eq!(n, 200_000);
        // 20 MB read through 1 MiB chunks: the first, held by the lines
        // kept, and one read into again and again.
        assert_eq!(chunks.len(), 2, "{} chunks", chunks.len());
        let first = std::sync::Arc::downgrade(kept[0].shared().0);
        drop(lines);
        assert_eq!(first.strong_count(), 10);
        drop(kept);
        assert!(first.upgrade().is_none());
    }

    #[test]
    fn a_prefix_bracket_closes_at_the_first_bracket_and_space() {
        assert_eq!(close_bracket("info] [server] x"), Some(4));
        assert_eq!(close_bracket("a]b] c"), Some(3));
        assert_eq!(close_bracket("a] "), Some(1));
        assert_eq!(close_bracket("a]"), None);
        assert_eq!(close_bracket("info [x"), None);
        assert_eq!(close_bracket(""), None);
    }

    #[test]
    fn timestamps_keep_their_text() {
        let t = Timestamp::parse("2026-03-01T10:00:00.123456+02:00").unwrap();
        assert_eq!(&*t.text, "2026-03-01T10:00:00.123456+02:00");
        let u = Timestamp::parse("2026-03-01T08:00:01.123456Z").unwrap();
        assert!((t.seconds_until(&u) - 1.0).abs() < 1e-9);
        assert!(Timestamp::parse("yesterday").is_none());
    }
}
