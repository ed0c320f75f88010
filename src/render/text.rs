//! Plain-text output: one rule explained in full (`mcpdbg explain`).

use std::io::{self, Write};

use crate::rules::Rule;
use crate::text::wrap;

/// Summary, why it matters, the fix, the spec source and an example.
pub fn explain(rule: Rule, out: &mut dyn Write) -> io::Result<()> {
    let i = rule.info();
    writeln!(out, "{} ({}, {})", i.name, i.severity, i.group.as_str())?;
    writeln!(out, "{}", i.summary)?;
    writeln!(out)?;
    section(out, "Why it matters", i.why)?;
    section(out, "How to fix it", i.fix)?;
    section(out, "Revisions", &i.revisions.to_string())?;
    section(out, "Spec", i.spec)?;
    writeln!(
        out,
        "Example (native transcript: `>` client to server, `<` server to client):"
    )?;
    for line in i.example.lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn section(out: &mut dyn Write, title: &str, text: &str) -> io::Result<()> {
    writeln!(out, "{title}:")?;
    for line in wrap(text, 76) {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)
}
