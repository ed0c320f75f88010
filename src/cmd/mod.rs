//! One module per subcommand: each takes its options (plain data; the
//! library never sees the argument parser), does its work over the
//! pipeline, the views or the live modules, writes to standard output and
//! standard error, and returns an [`ExitStatus`]. `Err` means a file could
//! not be opened, read or written.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::exit::ExitStatus;
use crate::pipeline::Filter;
use crate::render::ci::CiOptions;
use crate::render::{self, OutputFormat, Style};
use crate::report::Report;
use crate::rules::{Rule, Severity};

pub mod catalogue;
pub mod check;
pub mod diff;
pub mod mock;
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
    /// The tool-schema checks ran (not `--no-tool-schemas`): JUnit lists
    /// their rules as test cases.
    pub tool_schemas: bool,
    /// The assertion rules whose assertion was given: in effect, so JUnit
    /// lists them as test cases.
    pub assertions: Vec<Rule>,
    /// `--width`: the columns the table fits in, terminal or not.
    pub width: Option<usize>,
    /// `-o/--output`: the report is written to this file (created or
    /// replaced) instead of standard output.
    pub file: Option<PathBuf>,
    /// `--export-sarif`, `--export-junit`, `--export-json`: the same report
    /// in another format, each to its file, beside the main output.
    pub exports: Vec<(OutputFormat, PathBuf)>,
    /// `check --format otlp-json`: the main output is the sessions as
    /// OpenTelemetry traces, not the report.
    pub otlp: bool,
    /// `check --export-otlp FILE`: the traces to this file too.
    pub otlp_file: Option<PathBuf>,
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
            tool_schemas: true,
            assertions: Vec::new(),
            width: None,
            file: None,
            exports: Vec::new(),
            otlp: false,
            otlp_file: None,
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

/// Renders a report to standard output (or `-o FILE`), and to each
/// `--export-*` file in its format, and maps it to an exit status:
/// `failed` (an input could not be read) wins, then findings at or above
/// `--fail-on`.
pub fn emit(
    report: &Report,
    output: &Output,
    filter: &Filter,
    failed: bool,
) -> io::Result<ExitStatus> {
    emit_with(report, output, filter, failed, &mut |_| Ok(()))
}

/// [`emit`], with `before` writing to the main output ahead of the report
/// (a note in the table).
pub fn emit_with(
    report: &Report,
    output: &Output,
    filter: &Filter,
    failed: bool,
    before: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<ExitStatus> {
    let ci = ci_options(output, filter);
    match &output.file {
        Some(path) => {
            let file = create(path)?;
            let style = Style {
                width: width(output.width, &file),
                ..output.color.style(&file)
            };
            let mut out = io::BufWriter::new(file);
            before(&mut out)?;
            render::render_with(report, output.format, style, &ci, &mut out)?;
            out.flush()?;
        }
        None => {
            let stdout = io::stdout();
            let style = Style {
                width: width(output.width, &stdout),
                ..output.color.style(&stdout)
            };
            let mut out = io::BufWriter::new(stdout.lock());
            before(&mut out)?;
            render::render_with(report, output.format, style, &ci, &mut out)?;
            out.flush()?;
        }
    }
    export(report, &output.exports, &ci)?;
    Ok(status(report.worst(), output.fail_on, failed))
}

/// What the CI formats read from the output options.
pub fn ci_options(output: &Output, filter: &Filter) -> CiOptions {
    CiOptions {
        fail_on: output.fail_on,
        filter: filter.clone(),
        base: output.sarif_base.clone(),
        baseline: output.baseline,
        schema_check: output.schema_check,
        tool_schemas: output.tool_schemas,
        assertions: output.assertions.clone(),
    }
}

/// Writes the report to each `--export-*` file in its format (no colour,
/// the fixed layout): one renderer for every command and format.
pub fn export(
    report: &Report,
    exports: &[(OutputFormat, PathBuf)],
    ci: &CiOptions,
) -> io::Result<()> {
    for (format, path) in exports {
        let mut out = io::BufWriter::new(create(path)?);
        let style = Style {
            width: None,
            color: false,
        };
        render::render_with(report, *format, style, ci, &mut out)?;
        out.flush().map_err(|e| {
            io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
        })?;
    }
    Ok(())
}

/// Creates (or replaces) an output file, saying which when it cannot.
fn create(path: &Path) -> io::Result<File> {
    File::create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))
}

/// `--tokens ENCODING`: refused (with why) when this build cannot count
/// with it (exact counts need the `tokenizer` feature).
pub fn tokenizer(tokens: crate::cost::Tokenizer) -> Result<(), String> {
    if tokens.available() {
        return Ok(());
    }
    Err(format!(
        "--tokens {} needs a build with the `tokenizer` feature (cargo install --locked --path . --features tokenizer); without it, tokens are estimated (--tokens estimate)",
        tokens.as_str()
    ))
}

/// A file removed when this is dropped (a transcript nobody asked to
/// keep, on every way out of the command).
pub struct Removed(pub PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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

/// What a subcommand reading a log from standard input says first when
/// standard input is a terminal (nothing would show that it waits for
/// typing otherwise); `None` with `quiet` or from a pipe or file.
pub fn reading_stdin_note(terminal: bool, quiet: bool) -> Option<&'static str> {
    (terminal && !quiet)
        .then_some("mcpdbg: reading a capture from standard input (end it with Ctrl-D)")
}

/// Standard input as every subcommand that reads a log reads it: on a
/// terminal, said on stderr ([`reading_stdin_note`]) and ended by one
/// Ctrl-D ([`Typed`]).
pub fn stdin(quiet: bool) -> Box<dyn io::Read + Send> {
    let terminal = io::stdin().is_terminal();
    if let Some(note) = reading_stdin_note(terminal, quiet) {
        crate::say!("{note}");
    }
    if terminal {
        Box::new(Typed::new(io::stdin()))
    } else {
        Box::new(io::stdin())
    }
}

/// How a command that reads its input more than once opens it again. A
/// regular file is opened again; anything else (`-` for standard input, a
/// pipe, a FIFO, `/dev/stdin`) can be read only once, so it is first
/// copied to an unnamed temporary file (owner-only, removed at once) that
/// every pass reads.
pub type Reopen = Box<dyn Fn() -> io::Result<Box<dyn io::Read + Send>>>;

pub fn reopenable(path: &std::path::Path) -> io::Result<Reopen> {
    use std::io::{Seek, SeekFrom};
    let cannot_open =
        |e: io::Error| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()));
    let stdin = path.as_os_str() == "-";
    if !stdin && std::fs::metadata(path).map_err(cannot_open)?.is_file() {
        let path = path.to_path_buf();
        return Ok(Box::new(move || {
            File::open(&path)
                .map(|f| Box::new(f) as Box<dyn io::Read + Send>)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()))
                })
        }));
    }
    let mut input: Box<dyn io::Read> = if stdin {
        self::stdin(false)
    } else {
        Box::new(File::open(path).map_err(cannot_open)?)
    };
    let mut spool = spool_file()?;
    io::copy(&mut input, &mut spool)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display())))?;
    Ok(Box::new(move || {
        let mut f = spool.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        Ok(Box::new(f) as Box<dyn io::Read + Send>)
    }))
}

/// A new temporary file, already unlinked.
fn spool_file() -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = std::env::temp_dir();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for n in 0..100 {
        let path = dir.join(format!("mcpdbg-input-{}-{stamp}-{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
        {
            Ok(f) => {
                let _ = std::fs::remove_file(&path);
                return Ok(f);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot create a temporary file in {}: {e}", dir.display()),
                ));
            }
        }
    }
    Err(io::Error::other("cannot create a temporary file"))
}

/// Where a command writes: a file (`--out`), created at the first write
/// or flush (so that an input refused before anything is written leaves
/// no empty file), or standard output.
pub fn lazy_writer(out: &Option<PathBuf>) -> Box<dyn Write> {
    match out {
        Some(path) => Box::new(Lazy {
            path: path.clone(),
            file: None,
        }),
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
    }
}

struct Lazy {
    path: PathBuf,
    file: Option<io::BufWriter<File>>,
}

impl Lazy {
    fn file(&mut self) -> io::Result<&mut io::BufWriter<File>> {
        if self.file.is_none() {
            let file = File::create(&self.path).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot write {}: {e}", self.path.display()),
                )
            })?;
            self.file = Some(io::BufWriter::new(file));
        }
        Ok(self.file.as_mut().expect("created"))
    }
}

impl Write for Lazy {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file()?.flush()
    }
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

    /// `check`, `stats` and `timeline` read standard input through
    /// [`stdin`]: the note is said on a terminal only, and not with `quiet`.
    #[test]
    fn standard_input_is_announced_on_a_terminal_only() {
        let note = reading_stdin_note(true, false).expect("a note");
        assert!(note.contains("standard input") && note.contains("Ctrl-D"));
        assert_eq!(reading_stdin_note(false, false), None);
        assert_eq!(reading_stdin_note(true, true), None);
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
