//! `mcpdbg timeline`: the conversation as text, JSON, Mermaid or HTML.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{lazy_writer, reopenable};
use crate::exit::ExitStatus;
use crate::pipeline::{self, input::Refusal};
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
    /// `-` is standard input; a directory is its files.
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
    // A directory is its files; a refusal says why there is nothing to draw.
    let files = pipeline::input::expand(std::slice::from_ref(&t.file)).map_err(Refusal::into_io)?;
    if files.len() > 1 && matches!(t.drawing, Drawing::Mermaid | Drawing::Html) {
        return Err(io::Error::other(format!(
            "{} holds {} logs, and a Mermaid diagram or an HTML page draws one: name one of \
             them, or draw them all as text or JSON (one after another)",
            t.file.display(),
            files.len()
        )));
    }
    // The output file is created only once there is something to write.
    let mut out = lazy_writer(&t.out);
    for (i, file) in files.iter().enumerate() {
        if files.len() > 1 && t.drawing == Drawing::Text {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(
                out,
                "== {} ==",
                crate::text::escape_control(&file.display().to_string())
            )?;
        }
        draw(&t, file, &mut out)?;
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// Draws one log to `out`.
fn draw(t: &Timeline, file: &Path, out: &mut dyn Write) -> io::Result<()> {
    let name = file.display().to_string();
    let open = reopenable(file)?;
    // Binary data is refused before either pass reads it; a log with no
    // MCP message after the first (`timeline::run`).
    pipeline::input::admit(&name, open()?)?;
    let open = || open().map(|r| r as Box<dyn Read>);
    let mut sink: Box<dyn Sink + '_> = match t.drawing {
        Drawing::Text => {
            // On a terminal the rows fit its width; a file or pipe gets
            // them whole, unless --width says otherwise.
            let width = match t.out {
                Some(_) => t.width,
                None => super::width(t.width, &io::stdout()),
            };
            Box::new(render::timeline::Text::new(out, t.full).fitted(width))
        }
        Drawing::Json => Box::new(render::timeline_json::Json::new(out)),
        Drawing::Mermaid => Box::new(render::mermaid::Mermaid::new(out)),
        Drawing::Html => Box::new(render::html::Html::new(out)),
    };
    timeline::run(&name, &open, &t.options, sink.as_mut())
}
