//! Readers: bytes in a log file -> [`Record`]s.
//!
//! One submodule per input format. Each reader is a streaming iterator over
//! records that holds one line at a time; none of them interprets JSON.
//! Auto-detection looks at a bounded prefix of the input only.
//! A reader returns `Err` only when the underlying read fails; lines it cannot
//! understand become [`Body::Unreadable`] records, which later stages report.

use std::fmt;
use std::io::{self, Read};

pub mod lines;
pub mod record;
pub mod shallow;

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

pub use lines::{Cuts, HEAD, LineCount, Lines, max_line};
pub use record::{Body, LineParser, Parsed, PartialWhy, Record, Source, text};

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

/// The first `limit` bytes `raw`, the start of an input, decompresses to
/// (gzip and zstd, as [`open`] decodes them; anything else as it is): what
/// the input judgement looks at ([`crate::pipeline::input::admit`]).
/// Bounded by `raw`: a stream cut short gives what was decoded of it.
pub fn decoded_prefix(raw: &[u8], limit: usize) -> Vec<u8> {
    let error = DecodeError::default();
    let Ok((decoded, kind)) = decompress(Box::new(io::Cursor::new(raw.to_vec())), &error) else {
        return raw[..raw.len().min(limit)].to_vec();
    };
    if kind.is_none() {
        return raw[..raw.len().min(limit)].to_vec();
    }
    let mut out = Vec::with_capacity(limit.min(64 * 1024));
    // A decoder's error ends the stream (`Forgiving`): what came before counts.
    let _ = decoded.take(limit as u64).read_to_end(&mut out);
    out
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
        Some(Record::new(at, None, Body::Overlong { length }, true, None))
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
                Some(Ok(Record::new(
                    lines_read.max(1),
                    None,
                    Body::Undecodable { error, lines_read },
                    true,
                    None,
                )))
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::time::Timestamp;

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
    fn timestamps_keep_their_text() {
        let t = Timestamp::parse("2026-03-01T10:00:00.123456+02:00").unwrap();
        assert_eq!(&*t.text, "2026-03-01T10:00:00.123456+02:00");
        let u = Timestamp::parse("2026-03-01T08:00:01.123456Z").unwrap();
        assert!((t.seconds_until(&u) - 1.0).abs() < 1e-9);
        assert!(Timestamp::parse("yesterday").is_none());
    }
}
