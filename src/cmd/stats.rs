//! `mcpdbg stats`: per-method numbers over one or more files.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use super::Form;
use crate::exit::ExitStatus;
use crate::reader::Format;
use crate::redact::Redactor;
use crate::render;
use crate::views::stats::{self, Stats};

/// `mcpdbg stats`'s options.
#[derive(Clone, Debug)]
pub struct StatsCommand {
    /// `-` is standard input.
    pub files: Vec<PathBuf>,
    pub form: Form,
    pub input: Option<Format>,
    pub redact: bool,
    /// `--width`: the columns the table fits in, terminal or not.
    pub width: Option<usize>,
}

pub fn run(s: StatsCommand) -> io::Result<ExitStatus> {
    let mut all = Stats::default();
    let mut redactor = s.redact.then(Redactor::default);
    let mut failed = false;
    // Files read: when none could be, nothing is printed on stdout (an
    // empty report would read as a clean log).
    let mut read = 0usize;
    for path in &s.files {
        let name = path.display().to_string();
        let input: Box<dyn Read> = if name == "-" {
            Box::new(io::stdin())
        } else {
            match File::open(path) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    crate::say!("mcpdbg: cannot open {name}: {e}");
                    failed = true;
                    continue;
                }
            }
        };
        match stats::collect(&mut all, &name, input, s.input, &mut redactor) {
            Ok(None) => read += 1,
            Ok(Some(short)) => {
                read += 1;
                crate::say!("mcpdbg: {name}: {short}")
            }
            Err(e) => {
                crate::say!("mcpdbg: cannot read {name}: {e}");
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
