//! Plain-text output: one rule explained in full (`mcpdbg explain`).

use std::io::{self, Write};

use crate::rules::Rule;
use crate::text::{hanging, hard_wrap, wrap};

/// The column the prose wraps at in the fixed layout.
const PROSE: usize = 76;

/// Summary, why it matters, the fix, the spec source and an example.
pub fn explain(rule: Rule, out: &mut dyn Write) -> io::Result<()> {
    explain_fitted(rule, None, out)
}

/// [`explain`] in `width` columns: the prose wraps to fit and each example
/// line is broken (not cut) with a deeper indent. `None`: the fixed layout.
pub fn explain_fitted(rule: Rule, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let i = rule.info();
    let title = format!("{} ({}, {})", i.name, i.severity, i.group.as_str());
    let intro = "Example (native transcript: `>` client to server, `<` server to client):";
    let prose = width.map_or(PROSE, |w| w.saturating_sub(2).min(PROSE));
    match width {
        None => {
            writeln!(out, "{title}")?;
            writeln!(out, "{}", i.summary)?;
        }
        Some(w) => {
            for line in hanging("", &title, w, 2)
                .into_iter()
                .chain(hanging("", i.summary, w, 0))
            {
                writeln!(out, "{line}")?;
            }
        }
    }
    writeln!(out)?;
    section(out, "Why it matters", i.why, prose)?;
    section(out, "How to fix it", i.fix, prose)?;
    section(out, "Revisions", &i.revisions.to_string(), prose)?;
    section(out, "Spec", i.spec, prose)?;
    match width {
        None => {
            writeln!(out, "{intro}")?;
            for line in i.example.lines() {
                writeln!(out, "  {line}")?;
            }
        }
        Some(w) => {
            for line in hanging("", intro, w, 2) {
                writeln!(out, "{line}")?;
            }
            for line in i.example.lines() {
                for piece in hard_wrap(&format!("  {line}"), w, 6) {
                    writeln!(out, "{piece}")?;
                }
            }
        }
    }
    Ok(())
}

fn section(out: &mut dyn Write, title: &str, text: &str, width: usize) -> io::Result<()> {
    writeln!(out, "{title}:")?;
    for line in wrap(text, width) {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)
}
