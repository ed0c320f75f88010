//! `mcpdbg probe -- SERVER...`: talk to a server as a host does, record the
//! session, then check it like `check`.

use std::fs::File;
use std::io;

use super::{Output, emit};
use crate::exit::ExitStatus;
use crate::live::probe::{self, ProbeOptions};
use crate::pipeline::{self, Options};
use crate::report::Report;

/// Runs the probe (`options.out` is the transcript) and reports its check.
pub fn run(options: &ProbeOptions, check: &Options, output: &Output) -> io::Result<ExitStatus> {
    let probed = match probe::run(options) {
        Ok(probed) => probed,
        Err(e) => {
            eprintln!("mcpdbg probe: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    for note in &probed.notes {
        eprintln!("mcpdbg probe: {note}");
    }
    let out = &options.out;
    eprintln!("mcpdbg probe: the session is in {}", out.display());
    let name = out.display().to_string();
    let file = File::open(out)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open {name}: {e}")))?;
    let report = Report {
        files: vec![pipeline::check(&name, Box::new(file), check)?],
    };
    emit(&report, output, &check.filter, false)
}
