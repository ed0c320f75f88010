//! `mcpdbg probe -- SERVER...`: talk to a server as a host does, record the
//! session, then check it like `check`; with `--baseline`, compare the
//! server's lists with a stored baseline (or write it).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Output, emit};
use crate::exit::ExitStatus;
use crate::live::probe::{self, ProbeOptions};
use crate::pipeline::{self, Options};
use crate::report::Report;
use crate::rules::baseline::Surface;
use crate::views::capture;

/// `--baseline FILE`, with `--update-baseline`.
#[derive(Clone, Debug)]
pub struct Baseline {
    pub path: PathBuf,
    /// Write the file from this run instead of comparing with it.
    pub update: bool,
}

/// Runs the probe (`options.out` is the transcript) and reports its check,
/// with the baseline's findings when one is given.
pub fn run(
    options: &ProbeOptions,
    baseline: Option<&Baseline>,
    check: &Options,
    output: &Output,
) -> io::Result<ExitStatus> {
    // The baseline is read before the server starts: a missing or broken
    // file is a usage error, not a probe.
    let stored = match baseline {
        Some(b) if !b.update => match read_baseline(&b.path) {
            Ok(surface) => Some(surface),
            Err(e) => {
                crate::say!("mcpdbg probe: {e}");
                return Ok(ExitStatus::Error);
            }
        },
        _ => None,
    };
    let probed = match probe::run(options) {
        Ok(probed) => probed,
        Err(e) => {
            crate::say!("mcpdbg probe: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    for note in &probed.notes {
        crate::say!("mcpdbg probe: {note}");
    }
    let out = &options.out;
    crate::say!("mcpdbg probe: the session is in {}", out.display());
    let name = out.display().to_string();
    let open = || {
        File::open(out).map_err(|e| io::Error::new(e.kind(), format!("cannot open {name}: {e}")))
    };
    let mut file = pipeline::check(&name, Box::new(open()?), check)?;
    let mut output = output.clone();
    if let Some(b) = baseline {
        output.baseline = true;
        let now = Surface::of(&capture::read(Box::new(open()?), None)?);
        let shown = b.path.display().to_string();
        if b.update {
            if let Some(why) = now.incomplete() {
                crate::say!(
                    "mcpdbg probe: the baseline {shown} was not written: {why}; fix the server or raise --timeout"
                );
                return Ok(ExitStatus::Error);
            }
            if let Err(e) = write_atomic(&b.path, now.to_json().as_bytes()) {
                crate::say!("mcpdbg probe: cannot write the baseline {shown}: {e}");
                return Ok(ExitStatus::Error);
            }
            crate::say!(
                "mcpdbg probe: wrote the baseline {shown} ({})",
                now.counts()
            );
        } else if let Some(stored) = &stored {
            let (found, notes) = crate::rules::baseline::compare(stored, &now, &shown);
            for note in notes {
                crate::say!("mcpdbg probe: {note}");
            }
            file.findings
                .extend(found.into_iter().filter_map(|f| check.filter.one(f)));
            file.findings.sort_by_key(|f| f.line);
        }
    }
    let report = Report { files: vec![file] };
    emit(&report, &output, &check.filter, false)
}

fn read_baseline(path: &Path) -> Result<Surface, String> {
    let shown = path.display();
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!(
                "there is no baseline {shown}; write it with --baseline {shown} --update-baseline"
            ));
        }
        Err(e) => return Err(format!("cannot read the baseline {shown}: {e}")),
    };
    Surface::parse(&text).map_err(|e| {
        format!("{shown} is not a baseline: {e}; write it again with --update-baseline")
    })
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a reader sees the old file or the new one, never half of one.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".into());
    let temp = dir.join(format!(".{base}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}
