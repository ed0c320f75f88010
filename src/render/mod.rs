//! Renderers: a [`Report`] -> bytes on a writer. One file per output format;
//! the format enum is matched only here.

use std::io::{self, Write};

use crate::report::Report;

pub mod diff;
pub mod diff_json;
pub mod html;
pub mod json;
pub mod markdown;
pub mod mermaid;
pub mod stats;
pub mod stats_json;
pub mod table;
pub mod text;
pub mod timeline;

/// The output formats of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Human-readable tables.
    Table,
    /// One versioned JSON document.
    Json,
}

/// How human output should look.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    pub color: bool,
}

/// Writes the report in the chosen format.
pub fn render(
    report: &Report,
    format: OutputFormat,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Table => table::render(report, style, out),
        OutputFormat::Json => json::render(report, out),
    }
}
