//! `mcpdbg check`: files (in parallel, with a progress line), a growing
//! file (`--follow`), or a three-file `tee` capture, through the pipeline.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{Output, emit};
use crate::exit::ExitStatus;
use crate::live::follow::{self, FollowOptions};
use crate::live::progress::{self, Counted, Counter};
use crate::pipeline::{self, Options, Tee};
use crate::report::{FileReport, Report};

/// What `check` reads.
#[derive(Clone, Debug)]
pub enum Input {
    /// Files checked whole (`-` is standard input).
    Files(Vec<PathBuf>),
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

pub fn run(check: Check) -> io::Result<ExitStatus> {
    let options = &check.options;
    let mut report = Report::default();
    let mut failed = false;
    match &check.input {
        Input::Follow {
            path,
            poll,
            status_every,
        } => match follow_file(path, options, *poll, *status_every)? {
            Some(followed) => report = followed,
            None => return Ok(ExitStatus::Error),
        },
        Input::Tee {
            client,
            server,
            stderr,
        } => match check_tee(client, server, stderr.as_deref(), options) {
            Ok(file) => report.files.push(file),
            Err(message) => {
                eprintln!("mcpdbg: {message}");
                failed = true;
            }
        },
        Input::Files(files) => {
            let jobs = check
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .max(1);
            let counter = Arc::new(Counter::default());
            let work = || check_files(files, options, jobs, &counter, check.quiet);
            let results = if !check.quiet && io::stderr().is_terminal() {
                let total = files
                    .iter()
                    .map(|f| {
                        std::fs::metadata(f)
                            .ok()
                            .filter(|m| m.is_file())
                            .map(|m| m.len())
                    })
                    .sum::<Option<u64>>();
                progress::run(&counter, total, files.len(), io::stderr(), work)
            } else {
                work()
            };
            for result in results {
                match result {
                    Ok(file) => report.files.push(file),
                    Err(message) => {
                        eprintln!("mcpdbg: {message}");
                        failed = true;
                    }
                }
            }
        }
    }
    emit(&report, &check.output, &options.filter, failed)
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
    eprintln!(
        "mcpdbg: following {}; Ctrl-C prints the report",
        path.display()
    );
    match follow::follow(path, &follow, &stop, &mut io::stdout(), &mut io::stderr()) {
        Ok(report) => Ok(Some(report)),
        Err(e) => {
            eprintln!("mcpdbg: cannot follow {}: {e}", path.display());
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

/// Checks one file (or standard input for `-`); the error is a message.
fn check_one(
    path: &Path,
    options: &Options,
    counter: &Arc<Counter>,
    quiet: bool,
) -> Result<FileReport, String> {
    let name = path.display().to_string();
    let input: Box<dyn Read> = if name == "-" {
        if io::stdin().is_terminal() && !quiet {
            eprintln!("mcpdbg: reading a capture from standard input (end it with Ctrl-D)");
        }
        Box::new(Counted::new(io::stdin(), counter.clone()))
    } else {
        let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
        Box::new(Counted::new(file, counter.clone()))
    };
    let result =
        pipeline::check(&name, input, options).map_err(|e| format!("cannot read {name}: {e}"));
    counter.file_done();
    result
}

/// Checks files on up to `jobs` threads (each file is an independent
/// session); the results come back in the order the files were given.
fn check_files(
    files: &[PathBuf],
    options: &Options,
    jobs: usize,
    counter: &Arc<Counter>,
    quiet: bool,
) -> Vec<Result<FileReport, String>> {
    if jobs <= 1 || files.len() <= 1 || files.iter().any(|f| f.as_os_str() == "-") {
        return files
            .iter()
            .map(|f| check_one(f, options, counter, quiet))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<_, String>>>> =
        files.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(files.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    let result = check_one(path, options, counter, quiet);
                    *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err("internal error: a file was not checked".to_string()))
        })
        .collect()
}
