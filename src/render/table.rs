//! The human report: a session summary and a findings table per file, made
//! with `tabled` (the only module that uses it). Every piece of text that
//! comes from the log is escaped before it reaches the terminal, and every
//! line goes through [`CommandGuard`], so that none is a CI runner's
//! command.

use std::io::{self, Write};

use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Style as TableStyle, Width};

use crate::report::{FileReport, MessageReport, Report};
use crate::report::{Implementation, Summary};
use crate::rules::finding::Finding;
use crate::rules::{Rule, Severity};
use crate::text::{CommandGuard, escape_control, fit, hanging, wrap};
use crate::wire::dir::Dir;
use crate::wire::dir::Side;
use crate::wire::time::Timestamp;

use super::style::Style;

/// The width the message column wraps at.
const MESSAGE_WIDTH: usize = 72;

pub fn render(report: &Report, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let out = &mut CommandGuard::new(out);
    for (i, file) in report.files.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        render_file(file, style, out)?;
    }
    let [info, warning, error] = report.tally();
    writeln!(
        out,
        "{} error{}, {} warning{}, {} info",
        error,
        if error == 1 { "" } else { "s" },
        warning,
        if warning == 1 { "" } else { "s" },
        info
    )
}

fn render_file(file: &FileReport, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let path = if file.path == "-" {
        "<stdin>".to_string()
    } else {
        escape_control(&file.path).into_owned()
    };
    if let Some(message) = &file.message {
        return render_message(&path, message, &file.findings, style, out);
    }
    writeln!(out, "{path} ({} format)", file.format)?;
    let many = file.sessions.len() > 1;
    for (n, session) in file.sessions.iter().enumerate() {
        match (&session.name, many) {
            (Some(name), _) => writeln!(
                out,
                "session {} of {}: {}",
                n + 1,
                file.sessions.len(),
                escape_control(name)
            )?,
            (None, true) => writeln!(out, "session {} of {}", n + 1, file.sessions.len())?,
            (None, false) => {}
        }
        writeln!(out, "{}", summary(session, style.width))?;
    }
    if let Some(costs) = file.tool_cost.as_ref().filter(|c| !c.is_empty()) {
        super::cost::tool_costs(costs, style.width, out)?;
        writeln!(out)?;
    }
    if file.findings.is_empty() {
        writeln!(out, "no findings")?;
        return Ok(());
    }
    writeln!(out, "{}", findings(&file.findings, many, style))?;
    Ok(())
}

/// `validate`: what the message is, its findings, and what it cannot show.
fn render_message(
    path: &str,
    message: &MessageReport,
    list: &[Finding],
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let name = if path == "<stdin>" {
        "message from <stdin>".to_string()
    } else {
        "message".to_string()
    };
    writeln!(out, "{name}")?;
    let mut b = Rows::default();
    b.push_record(["kind", message.kind]);
    // The rows' arrows (`C->S`, `S->C`), the one spelling of the human output.
    let dir = message.dir.map_or("-".to_string(), |d| match d {
        Dir::Unknown => "unknown".to_string(),
        d => d.arrow().to_string(),
    });
    b.push_record(["direction", &dir]);
    b.push_record(["method", message.method.as_deref().unwrap_or("-")]);
    b.push_record([
        "id",
        &message
            .id
            .as_ref()
            .map_or("-".to_string(), ToString::to_string),
    ]);
    b.push_record(["judged under", message.revision.as_str()]);
    let mut table = b.build();
    table.with(TableStyle::rounded());
    writeln!(out, "{table}")?;
    if list.is_empty() {
        writeln!(out, "no findings: well formed for {}", message.revision)?;
    } else {
        writeln!(out, "{}", findings(list, false, style))?;
    }
    writeln!(out, "one message cannot show:")?;
    for note in &message.cannot_show {
        writeln!(out, "  - {note}")?;
    }
    Ok(())
}

fn implementation(i: &Option<Implementation>) -> String {
    match i {
        Some(Implementation {
            name,
            version: Some(v),
        }) => format!("{} {}", escape_control(name), escape_control(v)),
        Some(Implementation {
            name,
            version: None,
        }) => escape_control(name).into_owned(),
        None => "-".to_string(),
    }
}

/// `1 stderr line`, `2 stderr lines`.
fn count(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn summary(s: &Summary, width: Option<usize>) -> String {
    let mut b = Rows::default();
    let era = match (s.era, s.mid_session, s.era_evidence) {
        (Some(era), mid, Some((line, what))) => format!(
            "{} (shown at line {line} by {what}{})",
            era.as_str(),
            if mid {
                "; the log starts mid-session"
            } else {
                ""
            }
        ),
        (Some(era), false, None) => era.as_str().to_string(),
        (Some(era), true, None) => format!("{} (the log starts mid-session)", era.as_str()),
        (None, ..) => "unknown".to_string(),
    };
    b.push_record(["era", &era]);
    // Escaped here: a line break in a value is kept (the open requests are
    // one per line), so one in the log's text must not reach it.
    let version = match (
        s.protocol_version.as_deref().map(escape_control),
        s.requested_version.as_deref().map(escape_control),
    ) {
        (Some(p), Some(r)) if p == r => p.into_owned(),
        (Some(p), Some(r)) => format!("{p} (client asked for {r})"),
        (Some(p), None) => p.into_owned(),
        (None, Some(r)) => format!("not negotiated (client asked for {r})"),
        (None, None) => "-".to_string(),
    };
    b.push_record(["protocol version", &version]);
    b.push_record(["client", &implementation(&s.client)]);
    b.push_record(["server", &implementation(&s.server)]);
    let c = &s.counts;
    let mut messages = format!(
        "{} C->S, {} S->C",
        c.messages[Side::Client as usize],
        c.messages[Side::Server as usize]
    );
    let unknown = c.messages[Side::Unknown as usize];
    if unknown > 0 {
        messages.push_str(&format!(", {unknown} of unknown direction"));
    }
    messages.push_str(&format!(", {}", count(c.stderr, "stderr line")));
    let noise: u64 = c.noise.iter().sum();
    if noise > 0 {
        messages.push_str(&format!(", {}", count(noise, "non-message line")));
    }
    b.push_record(["messages", &messages]);
    // A table row per open request is unreadable past a few dozen.
    const SHOWN: usize = 20;
    let open = if s.pending.is_empty() {
        "none".to_string()
    } else {
        let mut lines: Vec<String> = s
            .pending
            .iter()
            .take(SHOWN)
            .map(|p| {
                format!(
                    "{} id {} (line {}, {})",
                    escape_control(&p.method),
                    p.id,
                    p.line,
                    p.dir.arrow()
                )
            })
            .collect();
        if s.pending_total > SHOWN {
            lines.push(format!("... and {} more", s.pending_total - SHOWN));
        }
        lines.join("\n")
    };
    b.push_record(["open requests", &open]);
    let value = match width {
        // Two columns: `│ key │ value │`.
        Some(w) => w.saturating_sub(b.keys + 7).max(MIN_WIDTH),
        None => MESSAGE_WIDTH + 20,
    };
    let mut table = b.build_wrapped(value);
    table.with(TableStyle::rounded());
    table.to_string()
}

/// The narrowest a wrapped column gets, however narrow the terminal.
const MIN_WIDTH: usize = 20;

/// The widest cell of each column, in characters.
fn widths(rows: &[Vec<String>]) -> Vec<usize> {
    let mut out = Vec::new();
    for row in rows {
        out.resize(out.len().max(row.len()), 0);
        for (i, cell) in row.iter().enumerate() {
            let w = cell.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            out[i] = out[i].max(w);
        }
    }
    out
}

/// Key-value rows whose values are escaped (they come from the log).
#[derive(Default)]
struct Rows {
    records: Vec<[String; 2]>,
    /// The widest key.
    keys: usize,
}

impl Rows {
    fn push_record(&mut self, [key, value]: [&str; 2]) {
        let lines: Vec<_> = value.split('\n').map(escape_control).collect();
        self.keys = self.keys.max(key.chars().count());
        self.records.push([key.to_string(), lines.join("\n")]);
    }

    fn build(self) -> tabled::Table {
        let mut b = Builder::default();
        for record in self.records {
            b.push_record(record);
        }
        b.build()
    }

    /// The table with each value word-wrapped to `width` characters.
    fn build_wrapped(mut self, width: usize) -> tabled::Table {
        for [_, value] in &mut self.records {
            *value = wrap(value, width).join("\n");
        }
        self.build()
    }
}

/// Word-wraps column `col` of every row but the header to `width`
/// characters (before the table is built: tabled's own word wrap can start
/// a line with a space).
fn wrap_column(rows: &mut [Vec<String>], col: usize, width: usize) {
    for row in rows.iter_mut().skip(1) {
        if let Some(cell) = row.get_mut(col) {
            *cell = wrap(cell, width).join("\n");
        }
    }
}

fn paint(severity: Severity, color: bool) -> String {
    if !color {
        return severity.as_str().to_string();
    }
    let code = match severity {
        Severity::Error => "1;31",
        Severity::Warning => "33",
        Severity::Info => "36",
    };
    format!("\x1b[{code}m{}\x1b[0m", severity.as_str())
}

fn findings(list: &[Finding], many_sessions: bool, style: Style) -> String {
    let mut timed = list.iter().any(|f| f.time.is_some());
    let mut rows = finding_rows(list, many_sessions, timed, false);
    let mut message = MESSAGE_WIDTH;
    let mut rule = None;
    if let Some(w) = style.width {
        let fit = |rows: &[Vec<String>]| {
            let cols = widths(rows);
            let others: usize = cols[..cols.len() - 1].iter().sum();
            // `│ a │ b │ c │`: three characters per column and one more.
            (w.saturating_sub(others + 3 * cols.len() + 1), cols[1])
        };
        let (mut room, mut rules) = fit(&rows);
        // A narrow terminal gives the time column up before the message.
        if timed && room < 32 {
            timed = false;
            rows = finding_rows(list, many_sessions, false, false);
            (room, rules) = fit(&rows);
        }
        // Then long rule names are wrapped, down to "severity"'s width.
        if room < MIN_WIDTH {
            let narrower = rules.saturating_sub(MIN_WIDTH - room).max(8);
            if narrower < rules {
                room += rules - narrower;
                rule = Some(narrower);
            }
        }
        message = room.max(MIN_WIDTH);
    }
    if style.color {
        rows = finding_rows(list, many_sessions, timed, true);
    }
    let last = rows[0].len() - 1;
    wrap_column(&mut rows, last, message);
    let mut b = Builder::default();
    for row in rows {
        b.push_record(row);
    }
    let mut table = b.build();
    table.with(TableStyle::rounded());
    if let Some(rule) = rule {
        table.modify(Columns::one(1), Width::wrap(rule));
    }
    table.to_string()
}

/// The findings table's header and rows (`color`: the severities painted).
fn finding_rows(
    list: &[Finding],
    many_sessions: bool,
    timed: bool,
    color: bool,
) -> Vec<Vec<String>> {
    let mut header = vec!["severity", "rule", "line"];
    if timed {
        header.push("time");
    }
    header.push("message");
    let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for f in list {
        let mut row = vec![
            paint(f.severity, color),
            f.rule.name().to_string(),
            match (&f.file, many_sessions) {
                (Some(file), _) => format!("{}:{}", escape_control(file), f.line),
                (None, true) => format!("{} (s{})", f.line, f.session + 1),
                (None, false) => f.line.to_string(),
            },
        ];
        if timed {
            row.push(f.time.as_ref().map_or(String::new(), time_of_day));
        }
        row.push(escape_control(&f.message).into_owned());
        rows.push(row);
    }
    rows
}

/// The rule catalogue as a table.
pub fn rules(rules: &[Rule], out: &mut dyn Write) -> io::Result<()> {
    rules_fitted(rules, None, out)
}

/// The widest the revisions and summary columns of the catalogue get.
const REVISIONS_WIDTH: usize = 24;
const SUMMARY_WIDTH: usize = 56;
/// The narrowest summary column the catalogue is drawn as a table with.
const SUMMARY_MIN: usize = 24;

/// The rule catalogue in `width` columns: the table with its revisions and
/// summary wrapped narrower, or, when even that does not fit, a list (the
/// name, severity and revisions on a line, the summary indented below).
/// `None`: the fixed layout.
pub fn rules_fitted(rules: &[Rule], width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let out = &mut CommandGuard::new(out);
    let names = rules
        .iter()
        .map(|r| r.info().name.chars().count())
        .max()
        .unwrap_or(0)
        .max("rule".len());
    // `│ a │ b │ c │ d │`: three characters per column and one more.
    let others = names + "severity".len() + 3 * 4 + 1;
    let (revisions, summary) = match width {
        None => (REVISIONS_WIDTH, SUMMARY_WIDTH),
        Some(w) => {
            let room = w.saturating_sub(others);
            let revisions = (room / 3).clamp(12, REVISIONS_WIDTH);
            let summary = room.saturating_sub(revisions).min(SUMMARY_WIDTH);
            if summary < SUMMARY_MIN {
                return rules_list(rules, w, out);
            }
            (revisions, summary)
        }
    };
    let mut rows = vec![
        ["rule", "severity", "revisions", "summary"]
            .map(String::from)
            .to_vec(),
    ];
    for rule in rules {
        let info = rule.info();
        rows.push(vec![
            info.name.to_string(),
            info.severity.as_str().to_string(),
            info.revisions.to_string(),
            info.summary.to_string(),
        ]);
    }
    wrap_column(&mut rows, 2, revisions);
    wrap_column(&mut rows, 3, summary);
    let mut b = Builder::default();
    for row in rows {
        b.push_record(row);
    }
    let mut table = b.build();
    table.with(TableStyle::rounded());
    writeln!(out, "{table}")
}

/// The catalogue as a list for a narrow terminal: `name  severity
/// revisions`, then the summary indented.
fn rules_list(rules: &[Rule], width: usize, out: &mut dyn Write) -> io::Result<()> {
    for rule in rules {
        let info = rule.info();
        let head = format!("{}  {}  ", info.name, info.severity.as_str());
        let revisions = info.revisions.to_string();
        let lines = if head.chars().count() + 12 <= width {
            hanging(&head, &revisions, width, 4)
        } else {
            let mut lines = vec![fit(info.name, width).into_owned()];
            lines.extend(hanging(
                "    ",
                &format!("{}, {revisions}", info.severity.as_str()),
                width,
                6,
            ));
            lines
        };
        for line in lines.iter().chain(&hanging("  ", info.summary, width, 2)) {
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    Ok(())
}

/// The time of day as the log wrote it (in its own zone), to milliseconds.
fn time_of_day(t: &Timestamp) -> String {
    t.at.format("%H:%M:%S%.3f").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_day() {
        let t = |s: &str| time_of_day(&Timestamp::parse(s).unwrap());
        assert_eq!(t("2026-07-28T10:00:03.120456Z"), "10:00:03.120");
        assert_eq!(t("2026-07-28T10:00:03+02:00"), "10:00:03.000");
        let local = Timestamp::parse_local("2026-10-05 09:49:21.376").unwrap();
        assert_eq!(time_of_day(&local), "09:49:21.376");
    }
}
