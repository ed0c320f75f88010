//! Markdown output: the rule catalogue as a table for docs/rules.md.

use std::io::{self, Write};

use crate::rules::Rule;

/// One row per rule: name, severity, group, revisions, summary.
pub fn rules(rules: &[Rule], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "| rule | severity | group | revisions | summary |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for rule in rules {
        let i = rule.info();
        writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            i.name,
            i.severity,
            i.group.as_str(),
            i.revisions,
            i.summary.replace('|', "\\|")
        )?;
    }
    Ok(())
}
