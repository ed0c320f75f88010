//! `mcpdbg rules` and `mcpdbg explain`: the rule catalogue.

use std::io::{self, Write};

use crate::exit::ExitStatus;
use crate::render;
use crate::rules::Rule;

/// How the catalogue is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogueFormat {
    Table,
    Text,
    Json,
    Markdown,
}

/// `mcpdbg rules`: every rule; the table fits `width` (`--width`) or the
/// terminal.
pub fn rules(format: CatalogueFormat, width: Option<usize>) -> io::Result<ExitStatus> {
    let width = super::width(width, &io::stdout());
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        CatalogueFormat::Table | CatalogueFormat::Text => {
            render::table::rules_fitted(Rule::ALL, width, &mut out)?
        }
        CatalogueFormat::Json => render::json::rules(Rule::ALL, &mut out)?,
        CatalogueFormat::Markdown => render::markdown::rules(Rule::ALL, &mut out)?,
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// `mcpdbg explain RULE`: one rule, as prose (fitted to `width` or the
/// terminal) or JSON.
pub fn explain(
    rule: Rule,
    format: CatalogueFormat,
    width: Option<usize>,
) -> io::Result<ExitStatus> {
    let width = super::width(width, &io::stdout());
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        CatalogueFormat::Json => render::json::rules(&[rule], &mut out)?,
        _ => render::text::explain_fitted(rule, width, &mut out)?,
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
