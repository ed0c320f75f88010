//! Renderers: a [`Report`] -> bytes on a writer. One file per output format;
//! the format enum is matched only here.

use std::io::{self, Write};

use crate::report::Report;
pub use style::Style;

pub mod ci;
pub mod columns;
pub mod concise;
pub mod cost;
pub mod diff;
pub mod diff_json;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod mermaid;
pub mod otlp;
pub mod sarif;
pub mod stats;
pub mod stats_json;
pub mod style;
pub mod table;
pub mod text;
pub mod timeline;
pub mod timeline_json;

/// The output formats of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Human-readable tables.
    Table,
    /// One line per finding: `path:line: severity rule: message`.
    Concise,
    /// One versioned JSON document.
    Json,
    /// JSON Lines: one record per line (file, session, finding, error).
    Jsonl,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JUnit XML.
    Junit,
}

/// Writes the report in the chosen format (the CI formats with their
/// default options).
pub fn render(
    report: &Report,
    format: OutputFormat,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    render_with(report, format, style, &ci::CiOptions::default(), out)
}

/// Writes the report in the chosen format; `ci` is read by the CI formats.
pub fn render_with(
    report: &Report,
    format: OutputFormat,
    style: Style,
    ci: &ci::CiOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Table => table::render(report, style, out),
        OutputFormat::Concise => concise::render(report, out),
        OutputFormat::Json => json::render(report, out),
        OutputFormat::Jsonl => json::render_lines(report, out),
        OutputFormat::Sarif => sarif::render(report, ci, out),
        OutputFormat::Github => github::render(report, ci, out),
        OutputFormat::Junit => junit::render(report, ci, out),
    }
}

pub(crate) use columns::para;
