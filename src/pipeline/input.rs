//! The input judgement: whether what a subcommand was given is a log at
//! all. Every subcommand that reads a log (`check`, `stats`, `timeline`,
//! `diff`, `replay`'s LOG) asks here, so the same file gets the same
//! refusal, in the same words, with exit status 2, whichever reads it:
//!
//! - [`admit`]: binary data (many NUL bytes, or mostly control bytes and
//!   invalid UTF-8, in the first block of the decompressed stream) is no
//!   log, refused before anything else reads it ([`binary`]);
//! - [`judge`]: a file in which the pipeline found no MCP message (and
//!   nothing else went wrong) is no capture of a session;
//! - [`expand`]: a directory is read as its files (Claude Code's
//!   `mcp-logs-SERVER/` directories too), bounded.
//!
//! A refusal travels as an [`io::Error`] carrying a [`Refusal`], whose text
//! names the file and says why: `mcpdbg: TEXT` on stderr, exit status 2.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::report::FileReport;

/// Why an input is not read as a log; its text names the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    message: String,
}

impl Refusal {
    fn new(message: String) -> Refusal {
        Refusal { message }
    }

    /// The refusal as the error a reader returns (`mcpdbg: TEXT` on stderr
    /// from `main`, exit status 2).
    pub fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// The refusal an error carries, if it is one.
pub fn refusal(e: &io::Error) -> Option<&Refusal> {
    e.get_ref()?.downcast_ref::<Refusal>()
}

/// What to say when reading `name` failed: a refusal as it is (it names
/// the file), any other error as `cannot read NAME: ERROR`.
pub fn read_failure(name: &str, e: &io::Error) -> String {
    match refusal(e) {
        Some(r) => r.to_string(),
        None => format!("cannot read {name}: {e}"),
    }
}

/// How an input is named in a refusal: `-` is standard input.
pub fn shown(name: &str) -> &str {
    if name == "-" { "standard input" } else { name }
}

/// How much of the decompressed stream [`admit`] looks at (the same block
/// the format is detected from).
pub const SNIFF_BYTES: usize = 64 * 1024;
/// The share of a block's bytes, in percent, that are control bytes or
/// invalid UTF-8 above which it is binary data.
pub const BINARY_PERCENT: usize = 30;
/// The share of a block's bytes, in thousandths, that are NUL above which
/// it is binary data (an executable's first block is mostly NUL; random
/// bytes hold 4 in 1000, and are caught by [`BINARY_PERCENT`]).
pub const BINARY_NUL_PERMILLE: usize = 10;
/// The fewest bytes the shares are taken of: a shorter input is read as
/// a log (a few stray bytes in a short log are not a share; what it
/// holds is findings).
pub const BINARY_MIN_BYTES: usize = 256;

/// Reads the first [`SNIFF_BYTES`] of `input` (decompressed, when it is
/// gzip or zstd) and refuses binary data; otherwise hands `input` back
/// whole. Bounded: at most [`SNIFF_BYTES`] read ahead and decoded.
pub fn admit(name: &str, mut input: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut raw = Vec::with_capacity(8 * 1024);
    (&mut input)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut raw)?;
    let decoded = crate::reader::decoded_prefix(&raw, SNIFF_BYTES);
    if let Some(why) = binary(&decoded) {
        return Err(
            Refusal::new(format!("{}: binary data, not a log: {why}", shown(name))).into_io(),
        );
    }
    Ok(Box::new(io::Cursor::new(raw).chain(input)))
}

/// Why a block is binary data, or `None` for text (a log may hold some
/// invalid UTF-8, a stray control byte, even a NUL a server wrote to its
/// stderr: those are findings, not a refusal). In order: a compression
/// mcpdbg does not decode, a UTF-16 byte-order mark; then, in a block of
/// at least [`BINARY_MIN_BYTES`], more than [`BINARY_NUL_PERMILLE`]‰ of NUL
/// bytes, or more than [`BINARY_PERCENT`]% of control bytes (other than
/// tab, newline, carriage return, form feed, vertical tab, backspace and
/// escape) and bytes of invalid UTF-8.
pub fn binary(block: &[u8]) -> Option<String> {
    for (magic, what) in [
        (&b"\xfd7zXZ\x00"[..], "xz-compressed"),
        (b"BZh", "bzip2-compressed"),
        (b"PK\x03\x04", "a zip archive"),
    ] {
        if block.starts_with(magic) && block.len() > magic.len() {
            return Some(format!(
                "{what} (mcpdbg decompresses gzip and zstd only): decompress it first"
            ));
        }
    }
    if block.starts_with(b"\xff\xfe") || block.starts_with(b"\xfe\xff") {
        return Some(
            "UTF-16 text (a byte-order mark), which mcpdbg does not read: convert it to UTF-8 \
             (iconv -f UTF-16 -t UTF-8)"
                .into(),
        );
    }
    if block.len() < BINARY_MIN_BYTES {
        return None;
    }
    let nuls = memchr::memchr_iter(0, block).count();
    if nuls * 1000 > block.len() * BINARY_NUL_PERMILLE {
        let first = memchr::memchr(0, block).unwrap_or(0);
        return Some(format!(
            "first NUL byte at offset {first}, and {nuls} in its first {} bytes",
            block.len()
        ));
    }
    let control = |b: &u8| (*b < 0x20 && !b"\t\n\r\x0b\x0c\x08\x1b".contains(b)) || *b == 0x7f;
    let mut odd = 0usize;
    let mut chunks = block.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        odd += chunk.valid().bytes().filter(control).count();
        // A character cut by the end of the block is not invalid.
        let cut =
            chunks.peek().is_none() && chunk.invalid().len() < 4 && block.len() == SNIFF_BYTES;
        if !cut {
            odd += chunk.invalid().len();
        }
    }
    (odd * 100 > block.len() * BINARY_PERCENT).then(|| {
        format!(
            "{odd} of its first {} bytes are control bytes or invalid UTF-8 (more than \
             {BINARY_PERCENT}%)",
            block.len()
        )
    })
}

/// Whether a log the pipeline read whole is a capture of a session: `Err`
/// when no MCP message was found in it and nothing else went wrong (no
/// finding at warning or above), whatever its format, with the likely
/// reason. A log whose format carries no JSON-RPC (tool events, lifecycle
/// lines) is kept. `forced`: `--input` named the format.
pub fn judge(file: &FileReport, forced: bool) -> Result<(), Refusal> {
    let messages: u64 = file
        .sessions
        .iter()
        .map(|s| s.counts.messages.iter().sum::<u64>())
        .sum();
    let carries_messages = crate::reader::Format::from_name(file.format)
        .is_none_or(crate::reader::Format::holds_messages);
    // A finding at warning or above already says what is wrong; so does
    // the reader's note when `--input` forced a format on a log of another.
    let serious = file.findings.iter().any(|f| {
        f.severity >= crate::rules::Severity::Warning
            || (forced && f.rule == crate::rules::Rule::FormatAssumption)
    });
    if messages > 0 || !carries_messages || serious || file.message.is_some() {
        return Ok(());
    }
    let lines = file.read.lines;
    let why = match file.format {
        _ if lines == 0 => "it is empty".to_string(),
        "vscode" => "VS Code writes the messages to the server's output log only at log level \
             Debug or Trace (Info, the default, shows only its lifecycle and stderr): run \
             \"Developer: Set Log Level...\", pick the MCP server's channel, choose Trace and \
             reproduce"
            .to_string(),
        "zed" => "Zed logs the messages only at TRACE level: enable trace logging for \
             `context_server` and reproduce"
            .to_string(),
        "native" | "ndjson" => format!(
            "none of its {lines} lines is a JSON-RPC message; is it a capture? `mcpdbg record \
             --out FILE -- SERVER` makes one"
        ),
        format => format!("its {lines} lines, read as {format}, hold none"),
    };
    Err(Refusal::new(format!(
        "no MCP message found in {}: {why}",
        shown(&file.path)
    )))
}

/// Reads one log whole through the pipeline, as every subcommand that
/// reads a log does first or alongside its own pass: refused when it is
/// binary ([`admit`]) or holds no MCP message ([`judge`]).
pub fn check_log(
    name: &str,
    input: Box<dyn Read + Send>,
    options: &super::Options,
) -> io::Result<FileReport> {
    let input = admit(name, input)?;
    let report = super::check(name, input, options)?;
    judge(&report, options.format.is_some()).map_err(Refusal::into_io)?;
    Ok(report)
}

/// The most files a directory given as input is read as, in all.
pub const MAX_FILES: usize = 10_000;
/// The subdirectories a directory's own files are joined by: Claude
/// Code's per-server folders (`mcp-logs-SERVER/`, one file per session)
/// in its per-project cache folder.
const HOST_SUBDIRS: &str = "mcp-logs-";

/// The inputs `paths` name: each directory as the regular files in it
/// (sorted by name, hidden files skipped, no subdirectory but Claude
/// Code's `mcp-logs-SERVER/` ones, which are read the same way), anything
/// else as it is (`-`, a file, a path that does not exist: opening it
/// says what is wrong). Refused: a directory that cannot be listed or
/// holds no file, and more than [`MAX_FILES`] files from directories.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Refusal> {
    let mut out = Vec::with_capacity(paths.len());
    let mut from_dirs = 0usize;
    for path in paths {
        if path.as_os_str() == "-" || !std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            out.push(path.clone());
            continue;
        }
        let files = files_in(path, MAX_FILES - from_dirs)?;
        if files.is_empty() {
            return Err(Refusal::new(format!(
                "{}: a directory with no log file in it (hidden files are skipped, and \
                 subdirectories but Claude Code's mcp-logs-SERVER/)",
                path.display()
            )));
        }
        from_dirs += files.len();
        out.extend(files);
    }
    Ok(out)
}

/// The files of `dir` (and of its `mcp-logs-*` subdirectories), sorted,
/// at most `room` of them.
fn files_in(dir: &Path, room: usize) -> Result<Vec<PathBuf>, Refusal> {
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    list(dir, room, &mut files, &mut subdirs)?;
    subdirs.sort();
    for sub in subdirs {
        let mut inner = Vec::new();
        list(
            &sub,
            room.saturating_sub(files.len()),
            &mut inner,
            &mut Vec::new(),
        )?;
        files.extend(inner);
    }
    files.sort();
    Ok(files)
}

/// Adds the regular files of `dir` to `files` and its host subdirectories
/// to `subdirs`; refused past `room` files.
fn list(
    dir: &Path,
    room: usize,
    files: &mut Vec<PathBuf>,
    subdirs: &mut Vec<PathBuf>,
) -> Result<(), Refusal> {
    let cannot =
        |e: io::Error| Refusal::new(format!("cannot read the directory {}: {e}", dir.display()));
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name();
        let Some(text) = name.to_str() else {
            // A name that is not UTF-8 is still a file to read.
            if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
                files.push(entry.path());
            }
            continue;
        };
        if text.starts_with('.') {
            continue;
        }
        // Symbolic links are followed: a link to a log is a log.
        let Ok(meta) = std::fs::metadata(entry.path()) else {
            continue;
        };
        if meta.is_file() {
            if files.len() >= room {
                return Err(Refusal::new(format!(
                    "{}: more than {MAX_FILES} files in the directories given, too many to read \
                     as inputs; name the files (`find DIR -type f | mcpdbg check --files-from -`)",
                    dir.display()
                )));
            }
            files.push(entry.path());
        } else if meta.is_dir() && text.starts_with(HOST_SUBDIRS) && subdirs.len() < MAX_FILES {
            subdirs.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_is_told_from_text_with_a_few_bad_bytes() {
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(4096, 0);
        assert_eq!(
            binary(&elf).as_deref(),
            Some("first NUL byte at offset 7, and 4089 in its first 4096 bytes")
        );
        // A log with some invalid UTF-8 and a stray control byte is text.
        let mut log = Vec::new();
        for i in 0..200 {
            log.extend_from_slice(format!("> {{\"jsonrpc\":\"2.0\",\"id\":{i}}}\n").as_bytes());
            if i % 10 == 0 {
                log.extend_from_slice(b"! caf\xe9 \x07 \x1b[31mred\x1b[0m \0nul\n");
            }
        }
        assert_eq!(binary(&log), None);
        // Short inputs are judged by NUL bytes only.
        assert_eq!(
            binary(b"> \xff\xfe{\"a\x80\"}\n< \xc3\x28\n\xed\xa0\x80\n"),
            None
        );
        // Random bytes without a NUL: mostly control bytes and invalid UTF-8.
        let mut x = 7u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ((x >> 24) as u8).max(1)
            })
            .collect();
        assert!(binary(&noise).is_some_and(|w| w.contains("invalid UTF-8")));
        // Latin-1 text is text.
        let latin = "d\u{e9}j\u{e0} vu, fa\u{e7}ade ".repeat(100);
        let latin: Vec<u8> = latin.chars().map(|c| c as u32 as u8).collect();
        assert_eq!(binary(&latin), None);
        // A character cut by the end of the block is not counted.
        let mut full = "\u{e9}".repeat(SNIFF_BYTES / 2 - 1).into_bytes();
        full.extend_from_slice(b"a\xc3");
        assert_eq!(full.len(), SNIFF_BYTES);
        assert_eq!(binary(&full), None);
        assert!(binary(b"\xff\xfe>\0 \0").is_some_and(|w| w.contains("UTF-16")));
        assert!(binary(b"\xfd7zXZ\0\0\x01").is_some_and(|w| w.contains("xz")));
    }

    #[test]
    fn admit_hands_the_input_back_whole() {
        let text = b"> {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n".repeat(5000);
        let mut back = Vec::new();
        admit("t", Box::new(io::Cursor::new(text.clone())))
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, text);
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(300, 0);
        let err = admit("-", Box::new(io::Cursor::new(elf)))
            .err()
            .expect("refused");
        assert_eq!(
            read_failure("-", &err),
            "standard input: binary data, not a log: first NUL byte at offset 7, and 293 in its \
             first 300 bytes"
        );
        // Compressed text is judged by what it decompresses to.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut gz, &text).unwrap();
        let gz = gz.finish().unwrap();
        assert!(gz.contains(&0));
        assert!(admit("t.gz", Box::new(io::Cursor::new(gz))).is_ok());
    }
}
