//! Plain-text output: one rule explained in full (`mcpdbg explain`).

use std::io::{self, Write};

use crate::rules::Rule;

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

/// Greedy word wrap.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_on_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("", 5), Vec::<String>::new());
    }
}
