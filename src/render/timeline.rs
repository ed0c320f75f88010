//! The timeline as text: one aligned row per message, written as the rows
//! come (nothing is buffered), findings on indented lines below their row,
//! and with `--full` the whole message pretty-printed. Every piece of text
//! from the log is escaped before it reaches the terminal, and every line
//! goes through [`CommandGuard`], so that none is a CI runner's command.

use std::io::{self, Write};

use crate::rules::Severity;
use crate::text::{CommandGuard, duration, escape_control, fit, hanging, hard_wrap};
use crate::views::conversation::{Entry, EntryKind, OtherKind};
use crate::views::passes::Prepared;
use crate::views::timeline::{Burst, Row, Sink};
use crate::wire::dir::Dir;

/// Column widths; longer values push the rest of the row right.
const TIME: usize = 9;
const ID: usize = 4;
const MESSAGE: usize = 28;
const ANSWERS: usize = 7;
const LATENCY: usize = 9;

/// The compact layout's columns (a terminal too narrow for the full one):
/// a narrower time and message, and the answers and latency in front of the
/// summary.
const COMPACT_TIME: usize = 7;
const COMPACT_MESSAGE: usize = 20;
const COMPACT_MESSAGE_MIN: usize = 12;
/// The summary column the full layout must leave on a terminal, or the
/// compact one is used.
const SUMMARY_MIN: usize = 30;

/// Writes the text timeline.
pub struct Text<'a> {
    /// Where the rows go, through the guard every human output has.
    out: CommandGuard<&'a mut dyn Write>,
    /// Print whole messages under their rows.
    full: bool,
    line_width: usize,
    /// The terminal's columns (or `--width`): rows are cut to fit, findings
    /// and `--full`'s messages wrapped.
    width: Option<usize>,
    /// The compact layout's message column, when the full layout leaves the
    /// summary too little room.
    compact: Option<usize>,
}

impl<'a> Text<'a> {
    pub fn new(out: &'a mut dyn Write, full: bool) -> Text<'a> {
        Text {
            out: CommandGuard::new(out),
            full,
            line_width: 4,
            width: None,
            compact: None,
        }
    }

    /// Fitted to `width` columns (a terminal's, or `--width`): rows cut
    /// with `…`, findings word-wrapped with a hanging indent, `--full`'s
    /// message lines broken (never cut) with a deeper indent, and a compact
    /// layout when the full one would leave the summary under 30 columns.
    /// `None`: the fixed layout.
    pub fn fitted(mut self, width: Option<usize>) -> Text<'a> {
        self.width = width;
        self
    }

    /// Writes `text`, word-wrapped to the width with continuation lines
    /// indented by `indent`, or whole without a width.
    fn para(&mut self, prefix: &str, text: &str, indent: usize) -> io::Result<()> {
        match self.width {
            None => writeln!(self.out, "{prefix}{text}"),
            Some(w) => {
                for line in hanging(prefix, text, w, indent) {
                    writeln!(self.out, "{line}")?;
                }
                Ok(())
            }
        }
    }

    fn indent(&self) -> String {
        " ".repeat(self.line_width + 2)
    }
}

/// `result tools/call`, `error -32601 ping`, the method, or what the row is.
pub fn message_label(entry: &Entry) -> String {
    let method = entry.method.as_deref().map(escape_control);
    match entry.kind {
        EntryKind::Request | EntryKind::Notification => method.unwrap_or_default().into_owned(),
        EntryKind::Response => {
            let head = match &entry.error {
                Some(e) => match e.code {
                    Some(code) => format!("error {code}"),
                    None => "error".to_string(),
                },
                None => "result".to_string(),
            };
            match method {
                Some(m) => format!("{head} {m}"),
                None => head,
            }
        }
        EntryKind::Stderr => "stderr".to_string(),
        EntryKind::Other => match entry.other {
            Some(OtherKind::Event) => "event",
            Some(OtherKind::Noise) => "not a message",
            Some(OtherKind::BadElement) | None => "bad batch element",
        }
        .to_string(),
    }
}

/// `stderr ×19 (lines 3-21)`: what a burst of stderr lines is.
pub fn burst_label(first_line: u64, burst: &Burst) -> String {
    format!(
        "stderr ×{} (lines {first_line}-{})",
        burst.count, burst.last_line
    )
}

/// The direction column: `C->S`, `S->C`, `S!` (stderr), `#` (event), `?`.
pub fn arrow(entry: &Entry) -> &'static str {
    match (entry.kind, entry.other, entry.dir) {
        (EntryKind::Other, Some(OtherKind::Event), _) => "#",
        (_, _, dir) => dir.arrow(),
    }
}

/// The summary column, with a batch position in front.
pub fn summary(entry: &Entry) -> String {
    let text = escape_control(&entry.summary);
    match entry.batch {
        Some((i, n)) => format!("[batch {}/{n}] {text}", i + 1),
        None => text.into_owned(),
    }
}

/// The whole message: JSON pretty-printed, anything else as written.
pub fn pretty(raw: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| raw.to_string()),
        Err(_) => raw.to_string(),
    }
}

impl Sink for Text<'_> {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()> {
        self.line_width = prepared.last_line.to_string().len().max(4);
        let report = &prepared.report;
        let path = if report.path == "-" {
            "<stdin>".to_string()
        } else {
            escape_control(&report.path).into_owned()
        };
        let start = match &prepared.first_time {
            Some(t) => format!(", times from {}", escape_control(&t.text)),
            None => ", no timestamps".to_string(),
        };
        self.para("", &format!("{path} ({} format{start})", report.format), 2)?;
        // The full layout's columns before the summary, and its two spaces.
        let before_summary = self.line_width + TIME + 4 + ID + MESSAGE + ANSWERS + LATENCY + 7 * 2;
        self.compact = self
            .width
            .filter(|w| w.saturating_sub(before_summary) < SUMMARY_MIN)
            .map(|w| {
                let others = self.line_width + COMPACT_TIME + 4 + ID + 5 * 2;
                w.saturating_sub(others + SUMMARY_MIN)
                    .clamp(COMPACT_MESSAGE_MIN, COMPACT_MESSAGE)
            });
        if let Some(message) = self.compact {
            let header = format!(
                "{:>w$}  {:>COMPACT_TIME$}  {:<4}  {:>ID$}  {:<message$}  (answers, latency) summary",
                "line",
                "time",
                "dir",
                "id",
                "message",
                w = self.line_width
            );
            let width = self.width.unwrap_or(header.len());
            return writeln!(self.out, "{}", fit(&header, width));
        }
        let header = format!(
            "{:>w$}  {:>TIME$}  {:<4}  {:>ID$}  {:<MESSAGE$}  {:>ANSWERS$}  {:>LATENCY$}  summary",
            "line",
            "time",
            "dir",
            "id",
            "message",
            "answers",
            "latency",
            w = self.line_width
        );
        writeln!(self.out, "{header}")
    }

    fn row(&mut self, row: Row) -> io::Result<()> {
        let time = row.rel.map_or("-".to_string(), |s| format!("{s:.3}"));
        let text = match &row.entry {
            Some(e) => {
                let id = e.id.as_ref().map_or(String::new(), |id| {
                    escape_control(&id.to_string()).into_owned()
                });
                let message = match &row.burst {
                    Some(b) => burst_label(row.line, b),
                    None => message_label(e),
                };
                let answers = match (&e.answers, e.kind) {
                    (Some(a), _) => a.line.to_string(),
                    (None, EntryKind::Response) if e.shutdown => "-".to_string(),
                    (None, EntryKind::Response) => "?".to_string(),
                    (None, _) => String::new(),
                };
                let latency = e
                    .answers
                    .as_ref()
                    .and_then(|a| a.latency)
                    .map_or(String::new(), duration);
                let summary = match &row.burst {
                    Some(b) => escape_control(&b.headline).into_owned(),
                    None => summary(e),
                };
                match self.compact {
                    None => format!(
                        "{:>w$}  {:>TIME$}  {:<4}  {:>ID$}  {:<MESSAGE$}  {:>ANSWERS$}  {:>LATENCY$}  {}",
                        row.line,
                        time,
                        arrow(e),
                        id,
                        message,
                        answers,
                        latency,
                        summary,
                        w = self.line_width
                    ),
                    Some(m) => {
                        // `(2, 637 ms) result text`: the answered line and
                        // the latency in front of the summary.
                        let prefix = match (answers.is_empty(), latency.is_empty()) {
                            (true, _) => String::new(),
                            (false, true) => format!("({answers}) "),
                            (false, false) => format!("({answers}, {latency}) "),
                        };
                        format!(
                            "{:>w$}  {:>COMPACT_TIME$}  {:<4}  {:>ID$}  {:<m$}  {prefix}{summary}",
                            row.line,
                            time,
                            arrow(e),
                            id,
                            message,
                            w = self.line_width
                        )
                    }
                }
            }
            None => format!(
                "{:>w$}  {:>t$}  {:<4}  {:>ID$}  {:<m$}",
                row.line,
                "-",
                "",
                "",
                "(no message)",
                w = self.line_width,
                t = if self.compact.is_some() {
                    COMPACT_TIME
                } else {
                    TIME
                },
                m = self.compact.unwrap_or(MESSAGE)
            ),
        };
        let text = text.trim_end();
        match self.width {
            Some(w) => writeln!(self.out, "{}", fit(text, w))?,
            None => writeln!(self.out, "{text}")?,
        }
        let indent = self.indent();
        for f in &row.findings {
            self.para(
                &format!("{indent}└ "),
                &format!("{} {}: {}", f.severity, f.rule, escape_control(&f.message)),
                indent.len() + 2,
            )?;
        }
        if self.full {
            if let Some(raw) = row.entry.as_ref().and_then(|e| e.raw.as_deref()) {
                for line in pretty(raw).lines() {
                    let line = escape_control(line);
                    match self.width {
                        None => writeln!(self.out, "{indent}  {line}")?,
                        Some(w) => {
                            // Broken, not cut: --full promises the whole
                            // message. Continuations go two deeper than
                            // the line's own indent.
                            let own = line.len() - line.trim_start().len();
                            let text = format!("{indent}  {line}");
                            for piece in hard_wrap(&text, w, indent.len() + 2 + own + 2) {
                                writeln!(self.out, "{piece}")?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, prepared: &Prepared, shown: u64) -> io::Result<()> {
        if shown == 0 {
            writeln!(self.out, "(no row matches)")?;
        }
        let mut tally = [0usize; 3];
        for f in &prepared.report.findings {
            tally[f.severity as usize] += 1;
        }
        let open = if prepared.unanswered.is_empty() {
            "every request was answered".to_string()
        } else {
            let list: Vec<String> = prepared
                .unanswered
                .iter()
                .map(|r| {
                    format!(
                        "{} id {} (line {}{}{})",
                        escape_control(&r.open.method),
                        escape_control(&r.id.to_string()),
                        r.open.line,
                        match r.dir {
                            Dir::ServerToClient => ", from the server",
                            _ => "",
                        },
                        if r.open.cancelled { ", cancelled" } else { "" }
                    )
                })
                .collect();
            format!("never answered: {}", list.join(", "))
        };
        let last = format!(
            "{} lines; {} error{}, {} warning{}, {} info; {open}",
            prepared.last_line,
            tally[Severity::Error as usize],
            if tally[Severity::Error as usize] == 1 {
                ""
            } else {
                "s"
            },
            tally[Severity::Warning as usize],
            if tally[Severity::Warning as usize] == 1 {
                ""
            } else {
                "s"
            },
            tally[Severity::Info as usize],
        );
        self.para("", &last, 2)
    }
}
