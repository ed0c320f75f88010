//! `mcpdbg stats`: per-method numbers over one or more files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::Form;
use crate::cost::{Tokenizer, ToolCosts};
use crate::exit::ExitStatus;
use crate::pipeline;
use crate::reader::Format;
use crate::redact::Redactor;
use crate::render;
use crate::views::stats::{self, Stats};

/// `mcpdbg stats`'s options.
#[derive(Clone, Debug)]
pub struct StatsCommand {
    /// `-` is standard input; a directory is its files.
    pub files: Vec<PathBuf>,
    pub form: Form,
    pub input: Option<Format>,
    pub redact: bool,
    /// `--width`: the columns the table fits in, terminal or not.
    pub width: Option<usize>,
    /// `--tokens`: how the tools' context cost counts tokens.
    pub tokens: Tokenizer,
}

pub fn run(s: StatsCommand) -> io::Result<ExitStatus> {
    if let Err(why) = super::tokenizer(s.tokens) {
        crate::say!("mcpdbg stats: {why}");
        return Ok(ExitStatus::Error);
    }
    let mut all = Stats {
        tools: ToolCosts::new(s.tokens),
        ..Stats::default()
    };
    let mut redactor = s.redact.then(Redactor::default);
    let mut failed = false;
    // Files read: when none could be, nothing is printed on stdout (an
    // empty report would read as a clean log).
    let mut read = 0usize;
    // A directory is its files, each added as if it had been named.
    let files = match pipeline::input::expand(&s.files) {
        Ok(files) => files,
        Err(refusal) => {
            crate::say!("mcpdbg: {refusal}");
            return Ok(ExitStatus::Error);
        }
    };
    for path in &files {
        let name = path.display().to_string();
        match add(&mut all, path, &s, &mut redactor) {
            Ok(None) => read += 1,
            Ok(Some(short)) => {
                read += 1;
                crate::say!("mcpdbg: {name}: {short}")
            }
            Err(e) => {
                crate::say!("mcpdbg: {}", pipeline::input::read_failure(&name, &e));
                failed = true;
            }
        }
    }
    if read == 0 && failed {
        return Ok(ExitStatus::Error);
    }
    let width = super::width(s.width, &io::stdout());
    let mut out = io::BufWriter::new(io::stdout().lock());
    match s.form {
        Form::Table => render::stats::render_fitted(&all, width, &mut out)?,
        Form::Json => render::stats_json::render(&all, &mut out)?,
    }
    out.flush()?;
    Ok(if failed {
        ExitStatus::Error
    } else {
        ExitStatus::Clean
    })
}

/// Adds one input to `all`, judged as every subcommand judges a log:
/// binary data is refused before it is read, and a log in which the
/// numbers found no message is checked whole to learn whether it holds
/// none (then it is refused, and what it added is taken back).
fn add(
    all: &mut Stats,
    path: &Path,
    s: &StatsCommand,
    redactor: &mut Option<Redactor>,
) -> io::Result<Option<String>> {
    let name = path.display().to_string();
    let open = super::reopenable(path)?;
    let input = pipeline::input::admit(&name, open()?)?;
    let mark = all.mark();
    let short = stats::collect(all, &name, input, s.input, redactor)?;
    let counted = all
        .files
        .last()
        .is_some_and(|f| f.messages.iter().sum::<u64>() > 0);
    if !counted {
        let options = pipeline::Options {
            format: s.input,
            ..Default::default()
        };
        if let Err(e) = pipeline::input::check_log(&name, open()?, &options) {
            all.take_back(mark);
            return Err(e);
        }
    }
    Ok(short)
}
