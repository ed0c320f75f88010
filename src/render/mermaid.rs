//! The timeline as a Mermaid sequence diagram (`sequenceDiagram`), which
//! GitHub issues and most Markdown viewers render. Written as the rows come.
//!
//! Text from the log never reaches the diagram as syntax: every character
//! outside a small safe set becomes a Mermaid entity code (`#59;`), so a
//! method name cannot end a statement, open a comment or inject markup.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::report::Implementation;
use crate::text::{CommandGuard, duration, escape_control};
use crate::views::conversation::{Entry, EntryKind, OtherKind};
use crate::views::passes::Prepared;
use crate::views::timeline::{Row, Sink};
use crate::wire::dir::Dir;

use super::timeline::{burst_label, message_label};

/// The longest payload summary or note shown, in characters.
const LABEL_CHARS: usize = 80;

/// The longest file name shown in the diagram's comment, in characters.
const PATH_CHARS: usize = 400;

/// Writes the Mermaid diagram.
pub struct Mermaid<'a> {
    /// Where the diagram goes, through the guard every human output has.
    out: CommandGuard<&'a mut dyn Write>,
    /// Request lines never answered, and whether each was cancelled.
    /// The lines of requests never answered, and whether each was cancelled.
    unanswered: std::collections::HashMap<u64, bool>,
}

impl<'a> Mermaid<'a> {
    pub fn new(out: &'a mut dyn Write) -> Mermaid<'a> {
        Mermaid {
            out: CommandGuard::new(out),
            unanswered: std::collections::HashMap::new(),
        }
    }
}

/// How far back from the limit a cut looks for a space to cut at, in
/// characters.
const WORD_BACK: usize = 30;

/// Mermaid-safe text: terminal controls escaped, then every character that
/// is not plainly text written as an entity code, and cut to `max` chars,
/// at a space when there is one in the last [`WORD_BACK`] of them.
pub fn text(raw: &str, max: usize) -> String {
    let escaped = escape_control(raw);
    let cut = escaped.char_indices().nth(max).map(|(at, _)| {
        let head = &escaped[..at];
        let floor = head
            .char_indices()
            .rev()
            .nth(WORD_BACK.min(max.saturating_sub(1)))
            .map_or(0, |(i, _)| i);
        match head[floor..].rfind(' ') {
            Some(space) if floor + space > 0 => floor + space,
            _ => at,
        }
    });
    let mut out = String::with_capacity(escaped.len());
    for (i, c) in escaped.char_indices() {
        if Some(i) == cut {
            out.truncate(out.trim_end().len());
            out.push_str("#8230;");
            break;
        }
        let plain = c.is_ascii_alphanumeric()
            || (!c.is_ascii() && c.is_alphanumeric())
            || " _./,()'=+-:@*?!$[]{}|~^".contains(c);
        if plain {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", c as u32);
        }
    }
    out.trim_end().to_string()
}

fn participant(role: &str, who: &Option<Implementation>) -> String {
    match who {
        Some(i) => {
            let version = i
                .version
                .as_deref()
                .map_or(String::new(), |v| format!(" {v}"));
            text(&format!("{role} {}{version}", i.name), LABEL_CHARS)
        }
        None => role.to_string(),
    }
}

/// `C`/`S` for the sender and receiver of a message, when known.
fn ends(dir: Dir) -> Option<(&'static str, &'static str)> {
    match dir {
        Dir::ClientToServer => Some(("C", "S")),
        Dir::ServerToClient => Some(("S", "C")),
        Dir::Stderr | Dir::Unknown => None,
    }
}

impl Mermaid<'_> {
    /// `tools/call id 9 (never answered): file_note(path, body)`: what the
    /// message is in full, then its summary cut to [`LABEL_CHARS`].
    fn label(&self, entry: &Entry) -> String {
        if matches!(entry.kind, EntryKind::Stderr | EntryKind::Other) {
            return text(&entry.summary, LABEL_CHARS);
        }
        let mut head = message_label(entry);
        if let Some((i, n)) = entry.batch {
            head = format!("[batch {}/{n}] {head}", i + 1);
        }
        if let Some(id) = &entry.id {
            head.push_str(&format!(" id {id}"));
        }
        if let Some(a) = &entry.answers {
            match a.latency {
                Some(s) => head.push_str(&format!(" (line {}, {})", a.line, duration(s))),
                None => head.push_str(&format!(" (line {})", a.line)),
            }
        }
        if entry.kind == EntryKind::Request {
            match self.unanswered.get(&entry.line) {
                Some(true) => head.push_str(" (cancelled, never answered)"),
                Some(false) => head.push_str(" (never answered)"),
                None => {}
            }
        }
        let head = text(&head, 3 * LABEL_CHARS);
        if entry.summary.is_empty() {
            head
        } else {
            format!("{head}: {}", text(&entry.summary, LABEL_CHARS))
        }
    }

    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let label = self.label(entry);
        let unanswered = self.unanswered.contains_key(&entry.line);
        match (entry.kind, ends(entry.dir)) {
            (EntryKind::Request, Some((from, to))) => {
                let arrow = if unanswered { "-x" } else { "->>" };
                writeln!(self.out, "    {from}{arrow}{to}: {label}")
            }
            (EntryKind::Response, Some((from, to))) => {
                let arrow = if entry.error.is_some() { "--x" } else { "-->>" };
                writeln!(self.out, "    {from}{arrow}{to}: {label}")
            }
            (EntryKind::Notification, Some((from, to))) => {
                writeln!(self.out, "    {from}-){to}: {label}")
            }
            (EntryKind::Stderr, _) => writeln!(self.out, "    Note right of S: stderr: {label}"),
            (EntryKind::Other, Some((from, _))) if entry.other == Some(OtherKind::Noise) => {
                let side = if from == "S" {
                    "right of S"
                } else {
                    "left of C"
                };
                writeln!(self.out, "    Note {side}: not JSON: {label}")
            }
            (EntryKind::Other, _) if entry.other == Some(OtherKind::Event) => {
                writeln!(self.out, "    Note over C,S: event: {label}")
            }
            (EntryKind::Other, _) => {
                writeln!(self.out, "    Note over C,S: not a message: {label}")
            }
            // Messages whose direction is not known span both lanes.
            _ => writeln!(self.out, "    Note over C,S: ? {label}"),
        }
    }
}

impl Sink for Mermaid<'_> {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()> {
        self.unanswered.clear();
        for r in &prepared.unanswered {
            // The first request of a line counts, as for the other views.
            self.unanswered
                .entry(r.open.line)
                .or_insert(r.open.cancelled);
        }
        let session = prepared.report.sessions.first();
        writeln!(self.out, "sequenceDiagram")?;
        // The path goes through `text` too: a `%%{init: ...}%%` in a file
        // name would be a directive even inside a comment.
        writeln!(
            self.out,
            "    %% mcpdbg timeline of {}",
            text(&prepared.report.path, PATH_CHARS)
        )?;
        writeln!(
            self.out,
            "    participant C as {}",
            participant("client", &session.and_then(|s| s.client.clone()))
        )?;
        writeln!(
            self.out,
            "    participant S as {}",
            participant("server", &session.and_then(|s| s.server.clone()))
        )
    }

    fn row(&mut self, row: Row) -> io::Result<()> {
        match (&row.entry, &row.burst) {
            (Some(_), Some(burst)) => writeln!(
                self.out,
                "    Note right of S: {}: {}",
                text(&burst_label(row.line, burst), LABEL_CHARS),
                text(&burst.headline, LABEL_CHARS)
            )?,
            (Some(entry), None) => self.entry(entry)?,
            (None, _) => {}
        }
        for f in &row.findings {
            writeln!(
                self.out,
                "    Note over C,S: {}",
                text(
                    &format!(
                        "line {}: {} {}: {}",
                        row.line, f.severity, f.rule, f.message
                    ),
                    LABEL_CHARS + 40
                )
            )?;
        }
        Ok(())
    }

    fn end(&mut self, _: &Prepared, shown: u64) -> io::Result<()> {
        if shown == 0 {
            writeln!(self.out, "    Note over C,S: no row matches")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_text_cannot_become_syntax() {
        assert_eq!(text("tools/call id 4", 80), "tools/call id 4");
        assert_eq!(text("a;b#c%%d", 80), "a#59;b#35;c#37;#37;d");
        assert_eq!(text("<br>\n\x1b[2J", 80), "#60;br#62;#92;n#92;x1b[2J");
        assert_eq!(text("é…", 80), "é#8230;");
        assert_eq!(text("abcdef", 3), "abc#8230;");
    }

    #[test]
    fn a_long_text_is_cut_at_a_word() {
        assert_eq!(text("stalled the event loop", 14), "stalled the#8230;");
        assert_eq!(text("stalled the event loop", 12), "stalled the#8230;");
        // No space near the limit: cut at the limit.
        let long = format!("a {}", "b".repeat(60));
        assert_eq!(text(&long, 40), format!("a {}#8230;", "b".repeat(38)));
        assert_eq!(text("a b", 3), "a b");
    }
}
