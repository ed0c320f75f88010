//! `mcpdbg timeline`: the conversation as text, JSON, Mermaid or HTML.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::writer;
use crate::exit::ExitStatus;
use crate::render;
use crate::views::timeline::{self, Sink};

/// The drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawing {
    Text,
    Json,
    Mermaid,
    Html,
}

/// `mcpdbg timeline`'s options.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub file: PathBuf,
    pub options: timeline::Options,
    pub drawing: Drawing,
    /// `--out`; standard output when `None`.
    pub out: Option<PathBuf>,
    /// `--full`: whole payloads.
    pub full: bool,
    /// `--width`: the columns the text fits in, terminal or not.
    pub width: Option<usize>,
}

pub fn run(t: Timeline) -> io::Result<ExitStatus> {
    let name = t.file.display().to_string();
    let open = reopenable(&t.file)?;
    let mut out = writer(&t.out)?;
    let mut sink: Box<dyn Sink + '_> = match t.drawing {
        Drawing::Text => {
            // On a terminal the rows fit its width; a file or pipe gets
            // them whole, unless --width says otherwise.
            let width = match t.out {
                Some(_) => t.width,
                None => super::width(t.width, &io::stdout()),
            };
            Box::new(render::timeline::Text::new(&mut out, t.full).fitted(width))
        }
        Drawing::Json => Box::new(render::timeline_json::Json::new(&mut out)),
        Drawing::Mermaid => Box::new(render::mermaid::Mermaid::new(&mut out)),
        Drawing::Html => Box::new(render::html::Html::new(&mut out)),
    };
    timeline::run(&name, &open, &t.options, sink.as_mut())?;
    drop(sink);
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// How the timeline opens its input for each of its two passes. A regular
/// file is opened again; anything else (`-` for standard input, a pipe, a
/// FIFO, `/dev/stdin`) can be read only once, so it is first copied to an
/// unnamed temporary file (owner-only, removed at once) that both passes
/// read.
type Reopen = Box<dyn Fn() -> io::Result<Box<dyn Read>>>;

fn reopenable(path: &Path) -> io::Result<Reopen> {
    let cannot_open =
        |e: io::Error| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()));
    let stdin = path.as_os_str() == "-";
    if !stdin && std::fs::metadata(path).map_err(cannot_open)?.is_file() {
        let path = path.to_path_buf();
        return Ok(Box::new(move || {
            File::open(&path)
                .map(|f| Box::new(f) as Box<dyn Read>)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()))
                })
        }));
    }
    let mut input: Box<dyn Read> = if stdin {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).map_err(cannot_open)?)
    };
    let mut spool = spool_file()?;
    io::copy(&mut input, &mut spool)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display())))?;
    Ok(Box::new(move || {
        let mut f = spool.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        Ok(Box::new(f) as Box<dyn Read>)
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
        let path = dir.join(format!(
            "mcpdbg-timeline-{}-{stamp}-{n}",
            std::process::id()
        ));
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
