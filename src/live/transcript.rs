//! The native transcript that `replay` and `probe` write as they talk to a
//! server: created new (never overwritten, never through a link, mode
//! 0600), one timestamped line per record, events escaped onto one line.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use chrono::{DateTime, Utc};

/// A transcript being written.
pub(crate) struct Transcript {
    out: BufWriter<File>,
}

impl Transcript {
    pub(crate) fn create(path: &Path) -> io::Result<Transcript> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| {
                io::Error::new(e.kind(), format!("cannot create {}: {e}", path.display()))
            })?;
        Ok(Transcript {
            out: BufWriter::new(file),
        })
    }

    /// A line of a stream, behind its marker (`>`, `<`, `!`).
    pub(crate) fn line(&mut self, at: DateTime<Utc>, marker: &str, bytes: &[u8]) -> io::Result<()> {
        write!(self.out, "{} {marker} ", stamp(at))?;
        self.out.write_all(bytes)?;
        self.out.write_all(b"\n")
    }

    /// An event line; text from the log or the command line is escaped so
    /// that it stays on one line.
    pub(crate) fn event(&mut self, text: &str) -> io::Result<()> {
        writeln!(
            self.out,
            "{} # {}",
            stamp(Utc::now()),
            crate::text::escape_control(text)
        )
    }

    /// A line of another transcript, as it is (without its newline).
    pub(crate) fn raw_line(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.write_all(b"\n")
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn stamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}
