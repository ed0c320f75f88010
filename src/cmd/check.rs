//! `mcpdbg check`: files (in parallel, with a progress line), a growing
//! file (`--follow`), or a three-file `tee` capture, through the pipeline.

use std::fs::File;
use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use super::{Output, emit, status};
use crate::exit::ExitStatus;
use crate::live::follow::{self, FollowOptions};
use crate::live::progress::{self, Counted, Counter};
use crate::pipeline::{self, Options, Tee};
use crate::render::{OutputFormat, json};
use crate::report::{FileReport, Report};

/// What `check` reads.
#[derive(Clone, Debug)]
pub enum Input {
    /// Files checked whole (`-` is standard input; a directory is its files).
    Files(Vec<PathBuf>),
    /// Files named in a list (`-`: standard input), one per line or
    /// NUL-separated (`null`), read as the checks go.
    FilesFrom { list: PathBuf, null: bool },
    /// One file followed as it grows.
    Follow {
        path: PathBuf,
        poll: Duration,
        status_every: Duration,
    },
    /// A three-file `tee` capture.
    Tee {
        client: PathBuf,
        server: PathBuf,
        stderr: Option<PathBuf>,
    },
}

/// `mcpdbg check`'s options.
#[derive(Clone, Debug)]
pub struct Check {
    pub input: Input,
    pub options: Options,
    pub output: Output,
    /// Files checked at once; `None`: one per core.
    pub jobs: Option<usize>,
    /// No progress line and no hints on stderr.
    pub quiet: bool,
}

pub fn run(mut check: Check) -> io::Result<ExitStatus> {
    // A directory is its files, each checked as if it had been named.
    if let Input::Files(files) = &check.input {
        match pipeline::input::expand(files) {
            Ok(files) => check.input = Input::Files(files),
            Err(refusal) => {
                crate::say!("mcpdbg: {refusal}");
                return Ok(ExitStatus::Error);
            }
        }
    }
    if check.output.otlp {
        return otlp_main(&check);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = jobs(&check, cores);
    // One file at a time with a core to spare: each file's lines are read
    // ahead on a second thread (`--jobs 1` keeps one thread).
    check.options.read_ahead = jobs == 1 && cores >= 2 && check.jobs != Some(1);
    let options = &check.options;
    let mut report = Report::default();
    let mut failed = false;
    let paths = match &check.input {
        Input::Follow {
            path,
            poll,
            status_every,
        } => {
            match follow_file(path, options, *poll, *status_every)? {
                Some(followed) => report = followed,
                None => return Ok(ExitStatus::Error),
            }
            None
        }
        Input::Tee {
            client,
            server,
            stderr,
        } => {
            match check_tee(client, server, stderr.as_deref(), options) {
                Ok(file) => report.files.push(file),
                Err(message) => {
                    crate::say!("mcpdbg: {message}");
                    failed = true;
                }
            }
            None
        }
        Input::Files(files) => Some(Paths::Given(files.clone().into_iter())),
        Input::FilesFrom { list, null } => Some(Paths::Listed(PathList::open(list, *null)?)),
    };
    let Some(paths) = paths else {
        return emit(&report, &check.output, &options.filter, failed);
    };
    let paths = Mutex::new((0, paths));
    let counter = Arc::new(Counter::default());
    let progress = !check.quiet && io::stderr().is_terminal();
    let (total, count) = match &check.input {
        Input::Files(files) => (
            files
                .iter()
                .map(|f| {
                    std::fs::metadata(f)
                        .ok()
                        .filter(|m| m.is_file())
                        .map(|m| m.len())
                })
                .sum::<Option<u64>>(),
            files.len(),
        ),
        _ => (None, 0),
    };
    let with_progress = |work: &mut dyn FnMut() -> io::Result<()>| {
        if progress {
            progress::run(&counter, total, count, io::stderr(), work)
        } else {
            work()
        }
    };
    // Checks every path (on `jobs` threads), handing each result to `sink`.
    let check_all = |sink: &mut dyn FnMut(usize, Result<FileReport, Failure>) -> io::Result<()>| {
        with_progress(&mut || check_paths(&paths, options, jobs, &counter, check.quiet, &mut *sink))
    };
    if check.output.format == OutputFormat::Jsonl
        && check.output.exports.is_empty()
        && check.output.otlp_file.is_none()
    {
        // Streamed: each file's records as it finishes, in the order the
        // files finish; nothing but the worst severity is kept (with an
        // --export-*, the report is kept whole for it).
        let mut out = super::writer(&check.output.file)?;
        let mut worst = None;
        check_all(&mut |_, result| {
            match result {
                Ok(file) => {
                    worst = worst.max(file.worst());
                    json::file_lines(&file, &mut out)?;
                }
                Err(failure) => {
                    crate::say!("mcpdbg: {}", failure.message);
                    failed = true;
                    json::error_line(&failure.path, &failure.message, &mut out)?;
                }
            }
            out.flush()
        })?;
        if listed_nothing(&check.input, &paths) {
            return Ok(ExitStatus::Error);
        }
        return Ok(status(worst, check.output.fail_on, failed));
    }
    let mut results: Vec<Option<Result<FileReport, Failure>>> = Vec::new();
    check_all(&mut |i, result| {
        if results.len() <= i {
            results.resize_with(i + 1, || None);
        }
        results[i] = Some(result);
        Ok(())
    })?;
    if listed_nothing(&check.input, &paths) {
        return Ok(ExitStatus::Error);
    }
    for result in results.into_iter().flatten() {
        match result {
            Ok(file) => report.files.push(file),
            Err(failure) => {
                crate::say!("mcpdbg: {}", failure.message);
                failed = true;
            }
        }
    }
    if failed && report.files.is_empty() {
        // Nothing could be checked: the reasons are on stderr, and an empty
        // report on stdout would read as "no findings".
        return Ok(ExitStatus::Error);
    }
    let status = emit(&report, &check.output, &options.filter, failed)?;
    if let (Some(path), Input::Files(files)) = (&check.output.otlp_file, &check.input) {
        let out = super::writer(&Some(path.clone()))?;
        // The files the check could read (it said why the others could not).
        let readable: std::collections::HashSet<&str> =
            report.files.iter().map(|f| f.path.as_str()).collect();
        let files: Vec<PathBuf> = files
            .iter()
            .filter(|f| readable.contains(f.display().to_string().as_str()))
            .cloned()
            .collect();
        write_otlp(&files, options, out, check.quiet)?;
    }
    Ok(status)
}

/// `check --format otlp-json`: the sessions as traces on the main output,
/// the report in each `--export-*` format, and the exit status of the
/// findings.
fn otlp_main(check: &Check) -> io::Result<ExitStatus> {
    let Input::Files(files) = &check.input else {
        // The command line refuses other inputs.
        return Ok(ExitStatus::Error);
    };
    let out = super::writer(&check.output.file)?;
    let (report, failed) = write_otlp(files, &check.options, out, check.quiet)?;
    if failed && report.files.is_empty() {
        return Ok(ExitStatus::Error);
    }
    let ci = super::ci_options(&check.output, &check.options.filter);
    super::export(&report, &check.output.exports, &ci)?;
    Ok(status(report.worst(), check.output.fail_on, failed))
}

/// Writes the traces of `files` as one OTLP/JSON document to `out`;
/// returns their reports and whether a file could not be read (said on
/// stderr).
fn write_otlp(
    files: &[PathBuf],
    options: &Options,
    out: Box<dyn Write>,
    quiet: bool,
) -> io::Result<(Report, bool)> {
    let mut writer = crate::render::otlp::Writer::new(out)?;
    let mut report = Report::default();
    let mut failed = false;
    for (i, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        let result = (|| {
            let open = super::reopenable(path)?;
            // Binary data is refused before either pass reads it.
            pipeline::input::admit(&name, open()?)?;
            let base = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
            let open = || open().map(|r| r as Box<dyn Read>);
            crate::views::otlp::run(&name, &open, options, base, &mut |span, resource| {
                writer.span(i, span, resource)
            })
        })();
        match result {
            Ok((file, timing)) => {
                if !quiet && matches!(timing, crate::views::otlp::Timing::Lines { .. }) {
                    crate::say!(
                        "mcpdbg: {name} has no timestamps: its spans are timed by line, one millisecond a line from the file's modification time"
                    );
                }
                report.files.push(file);
            }
            Err(e) => {
                crate::say!("mcpdbg: {}", pipeline::input::read_failure(&name, &e));
                failed = true;
            }
        }
    }
    writer.finish()?;
    Ok((report, failed))
}

/// A `--files-from` list that named no file at all: said on stderr, so
/// that a CI step whose log collection found nothing does not pass with
/// "0 errors" (exit 2 follows).
fn listed_nothing(input: &Input, paths: &Mutex<(usize, Paths)>) -> bool {
    let Input::FilesFrom { list, .. } = input else {
        return false;
    };
    let named = paths.lock().unwrap_or_else(|p| p.into_inner()).0;
    if named == 0 {
        let list = match list.to_str() {
            Some("-") => "the list on standard input".to_string(),
            _ => list.display().to_string(),
        };
        crate::say!(
            "mcpdbg: {list} names no file, so nothing was checked (an empty list is an error: a CI step that gathered no logs should not pass)"
        );
    }
    named == 0
}

/// Follows `path` until Ctrl-C; `None` when it could not be followed (said
/// on stderr).
fn follow_file(
    path: &Path,
    options: &Options,
    poll: Duration,
    status_every: Duration,
) -> io::Result<Option<Report>> {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The first signal asks for the report; a second one ends at once.
        signal_hook::flag::register_conditional_shutdown(signal, 130, stop.clone())?;
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let follow = FollowOptions {
        check: options.clone(),
        poll,
        status_every,
    };
    crate::say!(
        "mcpdbg: following {}; Ctrl-C prints the report",
        path.display()
    );
    // Standard output and error through the guard every human output has.
    let mut out = crate::text::CommandGuard::new(io::stdout());
    let mut err = crate::text::CommandGuard::new(io::stderr());
    match follow::follow(path, &follow, &stop, &mut out, &mut err) {
        Ok(report) => Ok(Some(report)),
        Err(e) => {
            crate::say!("mcpdbg: cannot follow {}: {e}", path.display());
            Ok(None)
        }
    }
}

/// Opens and checks a three-file capture; the error is a message.
fn check_tee(
    client: &Path,
    server: &Path,
    stderr: Option<&Path>,
    options: &Options,
) -> Result<FileReport, String> {
    let open = |path: &Path| -> Result<(String, Box<dyn Read>), String> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
        Ok((name, Box::new(file)))
    };
    let tee = Tee {
        client: open(client)?,
        server: open(server)?,
        stderr: stderr.map(open).transpose()?,
    };
    pipeline::check_tee(tee, options).map_err(|e| format!("cannot read the capture: {e}"))
}

/// A file that could not be checked: its path as given, and why (the
/// message names the path too).
#[derive(Debug)]
struct Failure {
    path: String,
    message: String,
}

/// Checks one file (or standard input for `-`).
fn check_one(
    path: &Path,
    options: &Options,
    counter: &Arc<Counter>,
    quiet: bool,
) -> Result<FileReport, Failure> {
    let name = path.display().to_string();
    let bytes = Arc::new(AtomicU64::new(0));
    let (result, elapsed) = progress::timed(|| {
        let input: Box<dyn Read + Send> = if name == "-" {
            Box::new(Measured::new(
                Counted::new(super::stdin(quiet), counter.clone()),
                &bytes,
            ))
        } else {
            let file = File::open(path).map_err(|e| {
                let hint = match e.kind() {
                    io::ErrorKind::NotFound => host_log_hint(path),
                    _ => None,
                };
                match hint {
                    Some(hint) => format!("cannot open {name}: {e}; {hint}"),
                    None => format!("cannot open {name}: {e}"),
                }
            })?;
            Box::new(Measured::new(Counted::new(file, counter.clone()), &bytes))
        };
        // Binary data and a file with no MCP message are refused here, as
        // every subcommand that reads a log refuses them.
        pipeline::input::check_log(&name, input, options)
            .map_err(|e| pipeline::input::read_failure(&name, &e))
    });
    counter.file_done();
    match result {
        Ok(mut report) => {
            report.read.bytes = bytes.load(Ordering::Relaxed);
            report.read.elapsed = elapsed;
            Ok(report)
        }
        Err(message) => Err(Failure {
            path: name,
            message,
        }),
    }
}

/// A reader that counts what one file gave (before decompression).
struct Measured<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R> Measured<R> {
    fn new(inner: R, bytes: &Arc<AtomicU64>) -> Measured<R> {
        Measured {
            inner,
            bytes: bytes.clone(),
        }
    }
}

impl<R: Read> Read for Measured<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The files to check: given on the command line, or read one by one from
/// a list as the checks ask for them.
enum Paths {
    Given(std::vec::IntoIter<PathBuf>),
    Listed(PathList),
}

impl Paths {
    fn next(&mut self) -> Option<Result<PathBuf, Failure>> {
        match self {
            Paths::Given(files) => files.next().map(Ok),
            Paths::Listed(list) => list.next(),
        }
    }
}

/// The longest path a list may name; a longer entry is an error for that
/// entry (and a bound on what one entry holds in memory).
const MAX_PATH: usize = 64 * 1024;

/// `--files-from`: paths one per line (a trailing CR is dropped, empty
/// lines skipped), or NUL-separated with `--null` (`find -print0`), read
/// as they are needed, never as a whole.
struct PathList {
    name: String,
    input: Box<dyn BufRead + Send>,
    separator: u8,
    /// The entry number, for messages.
    entry: u64,
    /// The list could not be read further.
    done: bool,
}

impl PathList {
    fn open(list: &Path, null: bool) -> io::Result<PathList> {
        let name = list.display().to_string();
        let input: Box<dyn BufRead + Send> = if name == "-" {
            Box::new(io::BufReader::new(io::stdin()))
        } else {
            let file = File::open(list).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot open the path list {name}: {e}"))
            })?;
            Box::new(io::BufReader::new(file))
        };
        Ok(PathList {
            name: if name == "-" {
                "the list on standard input".into()
            } else {
                name
            },
            input,
            separator: if null { 0 } else { b'\n' },
            entry: 0,
            done: false,
        })
    }

    /// The next path, or why the next entry names none; `None` at the end.
    fn next(&mut self) -> Option<Result<PathBuf, Failure>> {
        loop {
            if self.done {
                return None;
            }
            let (mut bytes, too_long) = match self.entry() {
                Ok(Some(entry)) => entry,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(Failure {
                        path: self.name.clone(),
                        message: format!("cannot read {}: {e}", self.name),
                    }));
                }
            };
            self.entry += 1;
            let what = if self.separator == 0 { "entry" } else { "line" };
            if too_long {
                return Some(Err(Failure {
                    path: String::from_utf8_lossy(&bytes[..200.min(bytes.len())]).into_owned(),
                    message: format!(
                        "{what} {} of {} is longer than {MAX_PATH} bytes: not a path",
                        self.entry, self.name
                    ),
                }));
            }
            if self.separator == b'\n' && bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
            if bytes.is_empty() {
                continue;
            }
            if bytes == b"-" {
                return Some(Err(Failure {
                    path: "-".into(),
                    message: format!(
                        "{what} {} of {} is `-`: standard input cannot be named in a path list",
                        self.entry, self.name
                    ),
                }));
            }
            return Some(path_of(bytes).map_err(|bytes| Failure {
                path: String::from_utf8_lossy(&bytes).into_owned(),
                message: format!(
                    "{what} {} of {} is not UTF-8, which paths must be here",
                    self.entry, self.name
                ),
            }));
        }
    }

    /// The bytes up to the next separator (without it), at most
    /// [`MAX_PATH`] of them, and whether there were more.
    fn entry(&mut self) -> io::Result<Option<(Vec<u8>, bool)>> {
        let mut bytes = Vec::new();
        let mut too_long = false;
        let mut any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any.then_some((bytes, too_long)));
            }
            any = true;
            let (part, found) = match memchr::memchr(self.separator, buf) {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            let room = MAX_PATH.saturating_sub(bytes.len());
            if part.len() > room {
                too_long = true;
            }
            bytes.extend_from_slice(&part[..part.len().min(room)]);
            let used = found.unwrap_or(buf.len());
            self.input.consume(used);
            if found.is_some() {
                return Ok(Some((bytes, too_long)));
            }
        }
    }
}

#[cfg(unix)]
fn path_of(bytes: Vec<u8>) -> Result<PathBuf, Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_of(bytes: Vec<u8>) -> Result<PathBuf, Vec<u8>> {
    String::from_utf8(bytes)
        .map(PathBuf::from)
        .map_err(|e| e.into_bytes())
}

/// How many files are checked at a time: `--jobs`, else one per core;
/// one for a single file and when standard input is among them (it is read
/// on the main thread).
fn jobs(check: &Check, cores: usize) -> usize {
    match &check.input {
        Input::Files(files) if files.len() <= 1 || files.iter().any(|f| f.as_os_str() == "-") => 1,
        _ => check.jobs.unwrap_or(cores).max(1),
    }
}

/// Checks the files on up to `jobs` threads (each file is an independent
/// session), handing each result to `sink` on this thread as it finishes,
/// with its position in the list. The paths are taken one at a time as a
/// thread is free, so a list is never read ahead; at most `2 * jobs`
/// finished reports wait for `sink`. An error from `sink` stops the checks.
fn check_paths(
    paths: &Mutex<(usize, Paths)>,
    options: &Options,
    jobs: usize,
    counter: &Arc<Counter>,
    quiet: bool,
    sink: &mut dyn FnMut(usize, Result<FileReport, Failure>) -> io::Result<()>,
) -> io::Result<()> {
    let next = || -> Option<(usize, Result<PathBuf, Failure>)> {
        let mut paths = paths.lock().unwrap_or_else(|p| p.into_inner());
        let (index, paths) = &mut *paths;
        let path = paths.next()?;
        *index += 1;
        Some((*index - 1, path))
    };
    let check =
        |path: Result<PathBuf, Failure>| path.and_then(|p| check_one(&p, options, counter, quiet));
    if jobs <= 1 {
        while let Some((i, path)) = next() {
            sink(i, check(path))?;
        }
        return Ok(());
    }
    let (send, receive) = mpsc::sync_channel(2 * jobs);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let send = send.clone();
            scope.spawn(move || {
                while let Some((i, path)) = next() {
                    if send.send((i, check(path))).is_err() {
                        // The sink stopped: no more checks.
                        break;
                    }
                }
            });
        }
        drop(send);
        for (i, result) in receive {
            sink(i, result)?;
        }
        Ok(())
    })
}

/// Where a host keeps the log a missing path looks like, on this OS: the
/// file names of Claude Desktop, VS Code, Claude Code, Zed and Codex.
fn host_log_hint(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let whole = path.to_string_lossy();
    let macos = cfg!(target_os = "macos");
    let (host, place) = if name == "mcp.log"
        || (name.starts_with("mcp-server-") && !whole.contains("Cursor"))
    {
        (
            "Claude Desktop",
            if macos {
                "~/Library/Logs/Claude/ (mcp.log, mcp-server-NAME.log)"
            } else {
                "~/.config/Claude/logs/ (mcp.log, mcp-server-NAME.log; Linux builds are unofficial)"
            },
        )
    } else if name.starts_with("mcpServer.") {
        (
            "VS Code",
            if macos {
                "~/Library/Application Support/Code/logs/TIME/windowN/mcpServer.ID.log"
            } else {
                "~/.config/Code/logs/TIME/windowN/mcpServer.ID.log"
            },
        )
    } else if whole.contains("mcp-logs-") || whole.contains("claude-cli-nodejs") {
        (
            "Claude Code",
            if macos {
                "~/Library/Caches/claude-cli-nodejs/DIR/mcp-logs-SERVER/ (DIR: the launch directory, `/` as `-`)"
            } else {
                "~/.cache/claude-cli-nodejs/DIR/mcp-logs-SERVER/ (DIR: the launch directory, `/` as `-`)"
            },
        )
    } else if whole.contains(".claude/debug") {
        (
            "Claude Code",
            "~/.claude/debug/SESSION.txt (with `claude --debug`)",
        )
    } else if name == "Zed.log" {
        (
            "Zed",
            if macos {
                "~/Library/Logs/Zed/Zed.log (`zed: open log` shows it)"
            } else {
                "the file its `zed: open log` command opens"
            },
        )
    } else if name == "codex-tui.log" {
        ("Codex CLI", "~/.codex/log/codex-tui.log")
    } else {
        return None;
    };
    Some(format!("{host} keeps its logs in {place}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_host_logs_are_pointed_at_their_place() {
        let hint = |p: &str| host_log_hint(Path::new(p)).unwrap_or_default();
        assert!(
            hint("logs/mcp-server-notes.log").starts_with("Claude Desktop keeps its logs in ~/")
        );
        assert!(hint("mcp.log").contains("Claude"));
        assert!(hint("x/mcpServer.mcp.config.usrlocal.notes.log").contains("/Code/logs/"));
        assert!(hint("Zed.log").starts_with("Zed"));
        assert!(hint("codex-tui.log").contains("~/.codex/log/"));
        assert!(
            hint("a/mcp-logs-notes/2025-11-02T08-05-19-374Z.jsonl").contains("claude-cli-nodejs")
        );
        assert_eq!(host_log_hint(Path::new("session.log")), None);
        #[cfg(target_os = "macos")]
        assert!(hint("mcp.log").contains("~/Library/Logs/Claude/"));
        #[cfg(target_os = "linux")]
        assert!(hint("mcp.log").contains("~/.config/Claude/logs/"));
    }
}
