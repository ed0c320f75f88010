//! `--format github`: GitHub Actions workflow commands, one line per
//! finding, so that a check step annotates the run and the pull request:
//!
//! `::error file=PATH,line=N,title=RULE::MESSAGE` (`::warning` for a
//! warning, `::notice` for an info), then one plain summary line.
//!
//! The runner reads a command per line and splits it at the first `::`
//! after the properties and at the `,` and `=` between them, so text from
//! the log is escaped: in the message `%`, CR and LF become `%25`, `%0D`
//! and `%0A`; in a property value `:` and `,` also become `%3A` and `%2C`.
//! A message therefore never ends its line, and a file name never ends its
//! property, whatever the log holds.
//!
//! Before that, the other control characters (ESC, NUL, ...) and the
//! bidirectional overrides are shown as `\xNN` / `\u{NNNN}`, as the table
//! shows them: the runner would pass them on to its log viewer, which reads
//! ANSI sequences, and to the annotation, where an override can reorder
//! what a reviewer reads. Tab, CR and LF are kept (CR and LF escaped).

use std::io::{self, Write};

use crate::render::ci::{self, CiOptions, Place};
use crate::report::Report;
use crate::rules::Severity;
use crate::text::needs_escape;

pub fn render(report: &Report, options: &CiOptions, out: &mut dyn Write) -> io::Result<()> {
    let dirs = options.dirs();
    for file in &report.files {
        for f in &file.findings {
            let command = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = Vec::new();
            match ci::place(f.file.as_deref().unwrap_or(&file.path), dirs.as_ref()) {
                Place::Relative(path) => props.push(format!("file={}", property(&path))),
                Place::Absolute(path) => {
                    props.push(format!("file={}", property(&path.to_string_lossy())))
                }
                // Standard input has no file to annotate: the annotation
                // stands on the run.
                Place::Other(_) => {}
            }
            if f.line > 0 && props.len() == 1 {
                props.push(format!("line={}", f.line));
            }
            props.push(format!("title={}", property(f.rule.name())));
            writeln!(out, "::{command} {}::{}", props.join(","), data(&f.message))?;
        }
    }
    let [info, warning, error] = report.tally();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    writeln!(
        out,
        "mcpdbg: {}, {}, {} in {}",
        plural(error, "error", "errors"),
        plural(warning, "warning", "warnings"),
        plural(info, "note", "notes"),
        plural(report.files.len(), "file", "files"),
    )
}

/// Escapes a command's data (the message).
pub fn data(text: &str) -> String {
    escape(text, false)
}

/// Escapes a property value.
pub fn property(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            '\t' => out.push(c),
            c if needs_escape(c) => {
                crate::text::push_code(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_are_escaped() {
        assert_eq!(data("50% done\r\n::error::x"), "50%25 done%0D%0A::error::x");
        assert_eq!(property("a,b:c%\n"), "a%2Cb%3Ac%25%0A");
        assert_eq!(data("\x1b[2J\t\u{202e}"), "\\x1b[2J\t\\u{202e}");
    }
}
