//! The framing family: how bytes become lines and lines become messages.
//! The transport (`src/transport.rs`) decides what a line is (a CRLF, a
//! byte order mark, invalid UTF-8, a blank line, LSP headers, stray text,
//! broken, glued, cut or pretty-printed JSON, a batch too large to follow,
//! JSON that is no message); these are the findings' words, each at the
//! line and with the writer it is about.

use crate::rules::Rule;
use crate::rules::finding::{Finding, Findings};
use crate::text::{excerpt, excerpt_bytes};
use crate::wire::dir::Dir;
use crate::wire::time::At;

/// A finding of `rule` at `at`, about what `dir`'s writer sent.
fn about(rule: Rule, at: &At, dir: Dir, text: String) -> Finding {
    Finding::new(rule, at.line, text)
        .time(at.time.as_ref())
        .dir(dir)
}

/// The compressed input could not be decoded past `lines_read` lines.
pub fn undecodable(error: &str, lines_read: u64) -> Finding {
    Finding::new(
        Rule::CorruptCompressedInput,
        lines_read.max(1),
        format!(
            "the compressed input could not be decoded to its end ({}); the first {lines_read} lines were analysed, the rest is missing",
            excerpt(error)
        ),
    )
}

/// A line longer than the line cap: its head was kept, the rest skipped.
pub fn overlong(line: u64, length: u64) -> Finding {
    let mib = |n: u64| n as f64 / (1u64 << 20) as f64;
    Finding::new(
        Rule::LineTooLong,
        line,
        format!(
            "line {line} is {length} bytes ({:.1} MiB), longer than the line limit of {:.0} MiB (MCPDBG_MAX_LINE): its first {} KiB were kept and analysed, the rest was skipped; reading went on",
            mib(length),
            mib(crate::reader::max_line() as u64),
            crate::reader::HEAD >> 10,
        ),
    )
}

/// The size of one message above which a widely used client gives up:
/// the TypeScript SDK v2's stdio `maxBufferSize` default, 10 MiB.
pub(crate) const CLIENT_LIMIT: usize = 10 * 1024 * 1024;

/// A line of JSON of `length` bytes, over [`CLIENT_LIMIT`] (and within the
/// line limit: a longer one is `line-too-long`).
pub(crate) fn over_client_limit(at: &At, dir: Dir, length: usize) -> Finding {
    let mib = |n: usize| n as f64 / (1u64 << 20) as f64;
    about(
        Rule::MessageOverClientLimit,
        at,
        dir,
        format!(
            "this message is {length} bytes ({:.1} MiB), over the {:.0} MiB a TypeScript SDK v2 reader accepts by default (`maxBufferSize`): that client closes the connection",
            mib(length),
            mib(CLIENT_LIMIT),
        ),
    )
}

/// A host's word that it could not parse a line of the server's stdout.
pub(crate) fn host_parse_error(at: &At, text: &str) -> Finding {
    about(
        Rule::StrayOutput,
        at,
        Dir::ServerToClient,
        format!(
            "the host could not parse a line of server stdout: \"{}\"",
            excerpt(text)
        ),
    )
}

/// A host's word that a line of the server's stdout was JSON but its
/// schema rejected it as a JSON-RPC message (`said`: the host's issues,
/// summarised).
pub(crate) fn host_rejected(at: &At, said: &str) -> Finding {
    let why = if said.is_empty() {
        String::new()
    } else {
        format!(": {}", excerpt(said))
    };
    about(
        Rule::InvalidMessage,
        at,
        Dir::ServerToClient,
        format!(
            "the host rejected a line of server stdout that is JSON but not a JSON-RPC message{why}"
        ),
    )
}

/// A transcript line without a direction marker, or with a marker after
/// something that is not a timestamp (`stamp`).
pub(crate) fn malformed_record(at: &At, stamp: Option<&[u8]>, bytes: &[u8]) -> Finding {
    let message = match stamp {
        Some(stamp) => format!(
            "line has a direction marker, but `{}` before it is not an RFC 3339 timestamp, so it is skipped: \"{}\"",
            excerpt_bytes(stamp),
            excerpt_bytes(bytes)
        ),
        None => format!(
            "line has no direction marker (`>`, `<`, `!` or `#`) and is skipped: \"{}\"",
            excerpt_bytes(bytes)
        ),
    };
    Finding::new(Rule::MalformedRecord, at.line, message).time(at.time.as_ref())
}

/// The first line of a side that ends in CRLF.
pub(crate) fn crlf(at: &At, dir: Dir) -> Finding {
    about(
        Rule::CrlfLineEnding,
        at,
        dir,
        format!("{} line ends in CRLF (\\r\\n), expected LF", dir.writer()),
    )
}

/// A line that is not UTF-8: its first bad `byte`, at `offset`.
pub(crate) fn invalid_utf8(at: &At, dir: Dir, byte: u8, offset: usize) -> Finding {
    about(
        Rule::InvalidUtf8,
        at,
        dir,
        format!(
            "{} line is not valid UTF-8 (bad byte 0x{byte:02x} at offset {offset}); analysed with the bytes replaced",
            dir.writer(),
        ),
    )
}

/// A line that starts with a byte order mark.
pub(crate) fn bom(at: &At, dir: Dir) -> Finding {
    about(
        Rule::Bom,
        at,
        dir,
        format!(
            "{} line starts with a UTF-8 byte order mark (EF BB BF)",
            dir.writer()
        ),
    )
}

/// The first empty line of a side.
pub(crate) fn blank_line(at: &At, dir: Dir) -> Finding {
    about(
        Rule::BlankLine,
        at,
        dir,
        format!(
            "{} wrote an empty line on its JSON-RPC stream",
            dir.writer()
        ),
    )
}

/// The first LSP-style header of a side (`text`).
pub(crate) fn content_length(at: &At, dir: Dir, text: &str) -> Finding {
    about(
        Rule::ContentLengthFraming,
        at,
        dir,
        format!(
            "{} frames messages with LSP-style headers: \"{}\"",
            dir.writer(),
            excerpt(text)
        ),
    )
}

/// Text that is not JSON on a JSON stream.
pub(crate) fn stray_output(at: &At, dir: Dir, text: &str) -> Finding {
    let stream = if dir == Dir::ServerToClient {
        "stdout"
    } else {
        "stdin"
    };
    about(
        Rule::StrayOutput,
        at,
        dir,
        format!(
            "{} wrote non-JSON text to {stream}: \"{}\"",
            dir.writer(),
            excerpt(text)
        ),
    )
}

/// `count` JSON messages on one line.
pub(crate) fn glued(at: &At, dir: Dir, count: usize) -> Finding {
    about(
        Rule::InvalidJson,
        at,
        dir,
        format!(
            "{} wrote {count} JSON messages on one line with no newline between them",
            dir.writer(),
        ),
    )
}

/// The stream's last line, unterminated, ends inside a message.
pub(crate) fn cut_line(at: &At, dir: Dir, text: &str) -> Finding {
    about(
        Rule::TruncatedLine,
        at,
        dir,
        format!(
            "the {} stream ends in the middle of a message (no newline): \"{}\"",
            dir.writer(),
            excerpt(text)
        ),
    )
}

/// A line that looks like JSON and does not parse (`why`, described).
pub(crate) fn invalid_json(at: &At, dir: Dir, why: &str, text: &str) -> Finding {
    about(
        Rule::InvalidJson,
        at,
        dir,
        format!(
            "{} line does not parse as JSON ({why}): \"{}\"",
            dir.writer(),
            excerpt(text)
        ),
    )
}

/// One message written over the lines from `start` to `end`.
pub(crate) fn multi_line(start: &At, end: u64, lines: usize, dir: Dir) -> Finding {
    about(
        Rule::MultiLineJson,
        start,
        dir,
        format!(
            "{} wrote one message over {lines} lines (lines {}-{end}); the receiver reads each line as a separate message and loses it",
            dir.writer(),
            start.line,
        ),
    )
    .related(end)
}

/// A JSON value started at `start` (`head`, its excerpt) that never
/// completes: the log ends inside it (`at_end`), or it is broken.
pub(crate) fn never_completes(start: &At, dir: Dir, head: &str, at_end: bool) -> Finding {
    if at_end {
        about(
            Rule::TruncatedLine,
            start,
            dir,
            format!(
                "the log ends in the middle of a {} message that starts here: \"{head}\"",
                dir.writer(),
            ),
        )
    } else {
        about(
            Rule::InvalidJson,
            start,
            dir,
            format!(
                "{} line starts a JSON value that never completes: \"{head}\"",
                dir.writer(),
            ),
        )
    }
}

/// A batch of `analysed` + `skipped` messages, the rest not followed.
pub(crate) fn batch_too_large(at: &At, dir: Dir, analysed: usize, skipped: u64) -> Finding {
    about(
        Rule::BatchTooLarge,
        at,
        dir,
        format!(
            "{} sent a batch of {} messages: the first {analysed} were analysed, the other {skipped} were checked as JSON and counted, not analysed (their requests are not followed)",
            dir.writer(),
            analysed as u64 + skipped,
        ),
    )
}

/// JSON that is not a JSON-RPC message (`why`).
pub(crate) fn not_a_message(at: &At, dir: Dir, why: &str) -> Finding {
    about(
        Rule::InvalidMessage,
        at,
        dir,
        format!(
            "{} sent JSON that is not a JSON-RPC message: {why}",
            dir.writer()
        ),
    )
}

/// `validate`'s input is not JSON (`text`, its head).
pub(crate) fn not_json_input(text: &str) -> Finding {
    Finding::new(
        Rule::StrayOutput,
        1,
        format!("the input is not a JSON message: \"{}\"", excerpt(text)),
    )
}

/// No message was read from `lines` lines read as the `forced` format.
pub(crate) fn nothing_read(lines: u64, forced: &str) -> Finding {
    Finding::new(
        Rule::FormatAssumption,
        1,
        format!(
            "no message was read from {lines} lines with --input {forced}: is it the right format? (without --input the format is detected)",
        ),
    )
}

/// What the reader assumed about the format (`text`: its notes), at the
/// first note's `line`.
pub(crate) fn format_assumption(line: u64, text: String) -> Finding {
    Finding::new(Rule::FormatAssumption, line, text)
}

/// At the end of a file: each once-per-side finding (`crlf-line-ending`,
/// `blank-line`, `content-length-framing`) of `dir` says how many of its
/// lines were so, when more than one.
pub(crate) fn counted(findings: &mut Findings, dir: Dir, crlf: u64, blank: u64, headers: u64) {
    for (rule, count, what) in [
        (Rule::CrlfLineEnding, crlf, "end in CRLF"),
        (Rule::BlankLine, blank, "are empty"),
        (Rule::ContentLengthFraming, headers, "are headers"),
    ] {
        if count > 1 {
            if let Some(f) = findings.find_mut(|f| f.rule == rule && f.dir == Some(dir)) {
                f.message
                    .push_str(&format!("; {} {} lines in all {what}", count, dir.writer()));
            }
        }
    }
}
