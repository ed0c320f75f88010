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

/// `mcpdbg rules`: every rule.
pub fn rules(format: CatalogueFormat) -> io::Result<ExitStatus> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        CatalogueFormat::Table | CatalogueFormat::Text => {
            render::table::rules(Rule::ALL, &mut out)?
        }
        CatalogueFormat::Json => render::json::rules(Rule::ALL, &mut out)?,
        CatalogueFormat::Markdown => render::markdown::rules(Rule::ALL, &mut out)?,
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// `mcpdbg explain RULE`: one rule, as prose or JSON.
pub fn explain(rule: Rule, format: CatalogueFormat) -> io::Result<ExitStatus> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        CatalogueFormat::Json => render::json::rules(&[rule], &mut out)?,
        _ => render::text::explain(rule, &mut out)?,
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
