//! `--format junit`: JUnit XML, which nearly every CI dashboard reads.
//!
//! `<testsuites>` holds one `<testsuite>` per input file (named by its
//! path) and that one `<testcase>` per rule that applies to the file: every
//! rule of the catalogue that `--select`, `--ignore` and `--severity ...=off`
//! left on and whose revisions include one the file's sessions were judged
//! under (all rules when no revision is known), and every rule that fired
//! whatever its revisions. Each finding at or above `--fail-on` is a
//! `<failure>` of its rule's test case; findings below it are listed in the
//! case's `<system-out>`. `tests`, `failures`, `errors` and `skipped` count
//! test cases and failure elements the way JUnit tools recount them:
//! `failures` is the number of `<failure>` elements, `errors` and `skipped`
//! are 0 (a rule that does not apply is left out, not skipped).
//!
//! Text from the log is escaped for XML 1.0, and the characters XML 1.0
//! cannot carry at all (control characters but tab, LF and CR, U+FFFE,
//! U+FFFF) are written as `\xNN` / `\u{NNNN}`, as the table output shows them.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::protocol::Revision;
use crate::render::ci::CiOptions;
use crate::report::{FileReport, Report};
use crate::rules::finding::Finding;
use crate::rules::{Group, Rule, Severity};

pub fn render(report: &Report, options: &CiOptions, out: &mut dyn Write) -> io::Result<()> {
    let suites: Vec<Suite> = report
        .files
        .iter()
        .map(|f| Suite::new(f, options))
        .collect();
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let mut xml = String::new();
    xml.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"mcpdbg check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    for suite in &suites {
        suite.write(options, &mut xml);
    }
    xml.push_str("</testsuites>\n");
    out.write_all(xml.as_bytes())
}

/// One input file: its rules that apply, each with its findings.
struct Suite<'a> {
    file: &'a FileReport,
    revisions: Vec<Revision>,
    cases: Vec<(Rule, Vec<&'a Finding>)>,
    fail_on: Option<Severity>,
}

impl<'a> Suite<'a> {
    fn new(file: &'a FileReport, options: &CiOptions) -> Suite<'a> {
        let mut revisions: Vec<Revision> = file
            .sessions
            .iter()
            .filter_map(|s| s.revision)
            .chain(file.message.as_ref().map(|m| m.revision))
            .collect();
        revisions.sort();
        revisions.dedup();
        let cases = Rule::ALL
            .iter()
            .filter_map(|&rule| {
                let found: Vec<&Finding> =
                    file.findings.iter().filter(|f| f.rule == rule).collect();
                let on = options.filter.level(rule, rule.severity()).is_some();
                let in_revision = revisions.is_empty()
                    || revisions.iter().any(|r| rule.info().revisions.applies(*r));
                // The baseline rules apply only where a baseline was compared.
                let in_revision =
                    in_revision && (options.baseline || rule.info().group != Group::Baseline);
                // The schema rules apply only where `--schema-check` ran.
                let in_revision =
                    in_revision && (options.schema_check || !rule.needs_schema_check());
                // The tool-schema rules, unless `--no-tool-schemas`.
                let in_revision =
                    in_revision && (options.tool_schemas || !rule.needs_tool_schemas());
                // An assertion rule applies only where its assertion was given.
                let in_revision =
                    in_revision && (!rule.needs_assertion() || options.assertions.contains(&rule));
                (!found.is_empty() || on && in_revision).then_some((rule, found))
            })
            .collect();
        Suite {
            file,
            revisions,
            cases,
            fail_on: options.fail_on,
        }
    }

    fn fails(&self, f: &Finding) -> bool {
        self.fail_on.is_some_and(|t| f.severity >= t)
    }

    fn failures(&self) -> usize {
        self.cases
            .iter()
            .flat_map(|(_, found)| found)
            .filter(|f| self.fails(f))
            .count()
    }

    fn write(&self, options: &CiOptions, xml: &mut String) {
        let path = attr(&self.file.path);
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{path}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            self.cases.len(),
            self.failures()
        );
        xml.push_str("    <properties>\n");
        let mut property = |name: &str, value: &str| {
            let _ = writeln!(
                xml,
                "      <property name=\"{name}\" value=\"{}\"/>",
                attr(value)
            );
        };
        property("mcpdbg.input-format", self.file.format);
        let revisions: Vec<&str> = self.revisions.iter().map(|r| r.as_str()).collect();
        property("mcpdbg.revisions", &revisions.join(" "));
        property(
            "mcpdbg.fail-on",
            options.fail_on.map_or("never", Severity::as_str),
        );
        xml.push_str("    </properties>\n");
        for (rule, found) in &self.cases {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{path}\"",
                rule.name()
            );
            if found.is_empty() {
                let _ = writeln!(xml, "{open}/>");
                continue;
            }
            let _ = writeln!(xml, "{open}>");
            let mut below = String::new();
            for f in found {
                if self.fails(f) {
                    let _ = writeln!(
                        xml,
                        "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                        attr(&f.message),
                        f.severity,
                        text(&self.describe(f))
                    );
                } else {
                    below.push_str(&self.describe(f));
                }
            }
            if !below.is_empty() {
                let _ = writeln!(xml, "      <system-out>{}</system-out>", text(&below));
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }

    /// A finding in words: `PATH:LINE: SEVERITY RULE: MESSAGE`, then what
    /// else is known of it, one item per line. What comes from the log or
    /// the command line (the path, the message, an id, a method) has its
    /// control characters escaped: a newline in a method name must not
    /// write a line that reads as another finding.
    fn describe(&self, f: &Finding) -> String {
        use crate::text::escape_control as esc;
        let path = f.file.as_deref().unwrap_or(&self.file.path);
        let mut s = format!(
            "{}:{}: {} {}: {}\n",
            esc(path),
            f.line,
            f.severity,
            f.rule,
            esc(&f.message)
        );
        if !f.related.is_empty() {
            let lines: Vec<String> = f.related.iter().map(u64::to_string).collect();
            let _ = writeln!(s, "related lines: {}", lines.join(", "));
        }
        let mut about = vec![format!("session {}", f.session)];
        if let Some(d) = f.dir {
            // The rows' spelling of a direction, as every human output.
            about.push(
                match d {
                    crate::wire::dir::Dir::Stderr => "stderr",
                    crate::wire::dir::Dir::Unknown => "direction unknown",
                    d => d.arrow(),
                }
                .to_string(),
            );
        }
        if let Some(id) = &f.id {
            about.push(format!("id {}", esc(&id.to_string())));
        }
        if let Some(m) = &f.method {
            about.push(format!("method {}", esc(m)));
        }
        if let Some(t) = &f.time {
            about.push(format!("at {}", esc(&t.text)));
        }
        let _ = writeln!(s, "{}", about.join(", "));
        s
    }
}

/// Escapes text content.
fn text(s: &str) -> String {
    escape(s, false)
}

/// Escapes an attribute value (in double quotes). Tab, LF and CR are
/// written as character references, which attribute-value normalisation
/// would otherwise turn into spaces.
fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            // A bare CR in text would be read back as LF.
            '\r' => out.push_str("&#13;"),
            '\t' | '\n' => out.push(c),
            c if !allowed(c) => {
                crate::text::push_code(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// XML 1.0's `Char` production, for the characters a Rust string can hold.
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_keeps_only_what_xml_can_carry() {
        assert_eq!(attr("a\"<&>\n\t\r"), "a&quot;&lt;&amp;&gt;&#10;&#9;&#13;");
        assert_eq!(
            text("]]> \x1b[31m\x00\u{fffe}"),
            "]]&gt; \\x1b[31m\\x00\\u{fffe}"
        );
    }
}
