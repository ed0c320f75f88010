//! The native transcript that `replay` and `probe` write as they talk to a
//! server: created new (never overwritten, never through a link, mode
//! 0600), one timestamped line per record, events escaped onto one line.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

/// How many names [`fresh_name`] tries before it gives the last one (whose
/// creation then fails and says why).
const NAMES_TRIED: u32 = 1000;

/// A default transcript name stamped with the UTC time that no file has
/// yet: `name(STAMP)`, else `name(STAMP-2)`, `name(STAMP-3)`, ...; two runs
/// in one second (probes back to back) no longer collide.
pub(crate) fn fresh_name(name: impl Fn(&str) -> PathBuf) -> PathBuf {
    let stamp = Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let mut path = name(&stamp);
    let mut n = 2;
    while taken(&path) && n <= NAMES_TRIED {
        path = name(&format!("{stamp}-{n}"));
        n += 1;
    }
    path
}

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

#[cfg(test)]
mod name_tests {
    use super::*;

    /// Runs back to back get names of their own: the second never takes
    /// the first's file (it exited 2, "File exists", and started no server).
    #[test]
    fn back_to_back_runs_get_fresh_names() {
        let dir = std::env::temp_dir().join(format!("mcpdbg-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let name = |stamp: &str| dir.join(format!("probe-{stamp}.log"));
        let mut taken = Vec::new();
        for _ in 0..3 {
            let path = fresh_name(name);
            assert!(!taken.contains(&path), "{path:?} given twice");
            Transcript::create(&path).expect("a fresh name is free");
            taken.push(path);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
