//! One module per subcommand: each takes its options (plain data; the
//! library never sees the argument parser), does its work over the
//! pipeline, the views or the live modules, writes to standard output and
//! standard error, and returns an [`ExitStatus`]. `Err` means a file could
//! not be opened, read or written.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use crate::exit::ExitStatus;
use crate::pipeline::Filter;
use crate::render::ci::CiOptions;
use crate::render::{self, OutputFormat, Style};
use crate::report::Report;
use crate::rules::Severity;

pub mod catalogue;
pub mod check;
pub mod diff;
pub mod probe;
pub mod record;
pub mod stats;
pub mod timeline;
pub mod validate;

/// When to colour the severity column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// Only on a terminal, and not when `NO_COLOR` is set.
    Auto,
    Always,
    Never,
}

impl Color {
    /// The style for output to `stream`.
    pub fn style(self, stream: &impl IsTerminal) -> Style {
        Style {
            width: None,
            color: match self {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    stream.is_terminal()
                        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                }
            },
        }
    }
}

/// How a report of findings is written, and which findings fail the run.
#[derive(Clone, Debug)]
pub struct Output {
    pub format: OutputFormat,
    pub color: Color,
    /// `--fail-on`; `None` for `never`.
    pub fail_on: Option<Severity>,
    /// `--sarif-base`.
    pub sarif_base: Option<PathBuf>,
    /// A baseline was compared (`probe --baseline`): its rules are in
    /// effect, so JUnit lists them as test cases.
    pub baseline: bool,
    /// `check --schema-check` ran: its rules are in effect, so JUnit lists
    /// them as test cases.
    pub schema_check: bool,
    /// `--width`: the columns the table fits in, terminal or not.
    pub width: Option<usize>,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            format: OutputFormat::Table,
            color: Color::Auto,
            fail_on: Some(Severity::Error),
            sarif_base: None,
            baseline: false,
            schema_check: false,
            width: None,
        }
    }
}

/// The columns human output fits in, the one answer every human view asks
/// for: `forced` (`--width`) wins; on a terminal, `COLUMNS` or the
/// terminal's own width (at least [`MIN_COLUMNS`]); otherwise `None`, the
/// fixed layout, so that pipes and files read the same everywhere.
pub fn width(forced: Option<usize>, stream: &impl IsTerminal) -> Option<usize> {
    if forced.is_some() {
        return forced;
    }
    if !stream.is_terminal() {
        return None;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(terminal_columns)
        .map(|c| c.max(MIN_COLUMNS))
}

/// The narrowest layout: `--width`'s least value, and what a smaller
/// terminal gets.
pub const MIN_COLUMNS: usize = 20;

/// The width of the terminal on standard output, from the kernel.
#[cfg(unix)]
fn terminal_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes a `winsize` into the struct we pass.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

#[cfg(not(unix))]
fn terminal_columns() -> Option<usize> {
    None
}

/// Renders a report to standard output and maps it to an exit status:
/// `failed` (an input could not be read) wins, then findings at or above
/// `--fail-on`.
pub fn emit(
    report: &Report,
    output: &Output,
    filter: &Filter,
    failed: bool,
) -> io::Result<ExitStatus> {
    let stdout = io::stdout();
    let style = Style {
        width: width(output.width, &stdout),
        ..output.color.style(&stdout)
    };
    let ci = CiOptions {
        fail_on: output.fail_on,
        filter: filter.clone(),
        base: output.sarif_base.clone(),
        baseline: output.baseline,
        schema_check: output.schema_check,
    };
    let mut out = io::BufWriter::new(stdout.lock());
    render::render_with(report, output.format, style, &ci, &mut out)?;
    out.flush()?;
    Ok(status(report.worst(), output.fail_on, failed))
}

/// The exit status of a check: `failed` (an input could not be read) wins,
/// then a `worst` finding at or above `fail_on`.
pub fn status(worst: Option<Severity>, fail_on: Option<Severity>, failed: bool) -> ExitStatus {
    if failed {
        ExitStatus::Error
    } else if fail_on.is_some_and(|t| worst.is_some_and(|w| w >= t)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// Where a command writes: a file (`--out`) or standard output.
pub fn writer(out: &Option<PathBuf>) -> io::Result<Box<dyn Write>> {
    Ok(match out {
        Some(path) => Box::new(io::BufWriter::new(File::create(path).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
        })?)),
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
    })
}

/// Standard input typed at a terminal: one Ctrl-D ends it. A terminal
/// hands over a line at Enter, or what was typed so far at Ctrl-D; the
/// kernel reports the end of input only for a Ctrl-D at the start of a
/// line, so a message typed without a final Enter would need two. Here a
/// read that does not end with a newline is the last one. (Only for a
/// terminal: a pipe's reads end anywhere.)
pub struct Typed<R> {
    inner: R,
    /// What the last read brought and how much of it was handed on.
    buf: Vec<u8>,
    at: usize,
    done: bool,
}

/// Larger than a terminal's line (4096 bytes on Linux, 1024 on macOS), so
/// a read that stops short of a newline is a Ctrl-D, not a full buffer.
const TYPED_BUFFER: usize = 64 * 1024;

impl<R: io::Read> Typed<R> {
    pub fn new(inner: R) -> Typed<R> {
        Typed {
            inner,
            buf: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl<R: io::Read> io::Read for Typed<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at == self.buf.len() {
            if self.done {
                return Ok(0);
            }
            self.buf.resize(TYPED_BUFFER, 0);
            let n = self.inner.read(&mut self.buf)?;
            self.buf.truncate(n);
            self.at = 0;
            if n == 0 || (n < TYPED_BUFFER && self.buf[n - 1] != b'\n') {
                self.done = true;
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The human and the JSON form of the outputs that have no CI format
/// (`stats`, `diff`, `replay`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Table,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Reads as a terminal hands them over.
    struct Chunks(Vec<&'static [u8]>);

    impl io::Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let chunk = self.0.remove(0);
            buf[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    #[test]
    fn one_ctrl_d_ends_typed_input() {
        // `{"a":` Enter, `1}` Ctrl-D: the second read has no newline.
        let mut typed = Typed::new(Chunks(vec![b"{\"a\":\n", b"1}", b"never read\n"]));
        let mut text = String::new();
        typed.read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"a\":\n1}");
        // Lines ended with Enter, then Ctrl-D on an empty line: a plain end.
        let mut typed = Typed::new(Chunks(vec![b"a\n", b"b\n"]));
        let mut text = String::new();
        typed.read_to_string(&mut text).unwrap();
        assert_eq!(text, "a\nb\n");
    }
}
