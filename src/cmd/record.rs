//! `mcpdbg record`: relay a server's stdio and write the transcript; with
//! `--check`, check it afterwards (the report on stderr).

use std::fs::File;
use std::io;

use super::Color;
use crate::exit::ExitStatus;
use crate::live::record::{self, RecordOptions};
use crate::pipeline::{self, Options};
use crate::render::{self, OutputFormat};
use crate::report::Report;

pub fn run(options: &RecordOptions, check: bool) -> io::Result<ExitStatus> {
    let recorded = match record::run(options) {
        Ok(r) => r,
        Err(e) => {
            crate::say!("mcpdbg record: {e}");
            return Ok(ExitStatus::Code(e.exit_code()));
        }
    };
    if let (true, Some(path)) = (check, &recorded.path) {
        let name = path.display().to_string();
        let report = Report {
            files: vec![pipeline::check(
                &name,
                Box::new(File::open(path)?),
                &Options::default(),
            )?],
        };
        let stderr = io::stderr();
        let style = Color::Auto.style(&stderr);
        render::render(&report, OutputFormat::Table, style, &mut stderr.lock())?;
    }
    Ok(ExitStatus::Code((recorded.exit_code & 0xff) as u8))
}
