//! `--format concise`: one line per finding, `path:line: severity rule:
//! message`, as compilers and linters print them (grep- and editor-friendly).
//! Nothing else is printed: no summary, no tally. Text from the log is
//! escaped, and a message's line breaks are shown as spaces.

use std::io::{self, Write};

use crate::report::Report;
use crate::text::{CommandGuard, escape_control};

pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let out = &mut CommandGuard::new(out);
    for file in &report.files {
        let path = if file.path == "-" {
            "<stdin>".to_string()
        } else {
            escape_control(&file.path).into_owned()
        };
        for f in &file.findings {
            let at = match &f.file {
                Some(part) => escape_control(part).into_owned(),
                None => path.clone(),
            };
            let message: Vec<_> = f
                .message
                .lines()
                .map(|l| escape_control(l.trim()))
                .collect();
            writeln!(
                out,
                "{at}:{}: {} {}: {}",
                f.line,
                f.severity.as_str(),
                f.rule.name(),
                message.join(" ")
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::FileReport;
    use crate::rules::Rule;
    use crate::rules::finding::Finding;

    #[test]
    fn one_line_per_finding() {
        let mut file = FileReport {
            path: "a.log".into(),
            format: "native",
            sessions: Vec::new(),
            findings: Vec::new(),
            message: None,
            read: Default::default(),
            tool_cost: None,
            tool_schemas: None,
        };
        file.findings.push(Finding::new(
            Rule::StrayOutput,
            7,
            "server wrote text\nto stdout",
        ));
        let report = Report { files: vec![file] };
        let mut out = Vec::new();
        render(&report, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a.log:7: error stray-output: server wrote text to stdout\n"
        );
    }
}
