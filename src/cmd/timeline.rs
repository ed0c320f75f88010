//! `mcpdbg timeline`: the conversation as text, JSON, Mermaid or HTML.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;

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
}

pub fn run(t: Timeline) -> io::Result<ExitStatus> {
    let name = t.file.display().to_string();
    let path = t.file.clone();
    let open = move || -> io::Result<Box<dyn Read>> {
        File::open(&path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display())))
    };
    let mut out = writer(&t.out)?;
    let mut sink: Box<dyn Sink + '_> = match t.drawing {
        Drawing::Text => {
            // On a terminal the rows fit its width; a file or pipe gets them whole.
            let width = match t.out {
                Some(_) => None,
                None => super::width(None, &io::stdout()),
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
