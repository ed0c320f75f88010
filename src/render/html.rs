//! The timeline as one self-contained HTML page: an SVG sequence diagram
//! with a client lane and a server lane, an arrow per message, stderr as
//! notes on the server lane, findings marked, requests never answered in
//! red down to the end of the lane, and the whole message shown on click.
//!
//! No network: inline CSS and JS only, and a Content-Security-Policy that
//! forbids loading anything. Long sessions are split into pages of
//! [`PAGE_ROWS`] rows, each its own small SVG, written as the rows come (one
//! page is buffered at a time). Every piece of log text is escaped for HTML;
//! the click details travel as JSON in a `<script type="application/json">`
//! with `<`, `>` and `&` escaped, and the page's script only ever assigns
//! them to `textContent`.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::report::Implementation;
use crate::rules::Severity;
use crate::text::{duration, escape_control};
use crate::views::conversation::{Entry, EntryKind, OtherKind};
use crate::views::passes::Prepared;
use crate::views::timeline::{Burst, Row, Sink};
use crate::wire::dir::Dir;

use super::timeline::{arrow, burst_label, message_label, pretty};

/// Rows per page (one SVG each).
pub const PAGE_ROWS: usize = 200;

/// The most lines of one burst of stderr its expandable element holds (the
/// rest are counted).
pub const BURST_LINES: usize = 200;

/// The red of a request never answered.
pub const UNANSWERED_RED: &str = "#d00000";
/// The client lane.
pub const CLIENT_BLUE: &str = "#1f6feb";
/// The server lane.
pub const SERVER_GREEN: &str = "#1a7f37";

/// The longest message text shown on click, in bytes.
const DETAIL_BYTES: usize = 256 * 1024;
/// The longest arrow label, in characters.
const LABEL_CHARS: usize = 46;
/// The longest note, in characters.
const NOTE_CHARS: usize = 40;
/// How many never-answered requests get their own bar on one page.
const BARS: usize = 6;

// The geometry of a page, in SVG units.
const WIDTH: u32 = 940;
const CLIENT_X: u32 = 250;
const SERVER_X: u32 = 620;
const NOTE_X: u32 = 640;
const NOTE_W: u32 = 292;
const HEAD: u32 = 48;
const ROW: u32 = 20;
const FIRST_ROW_Y: u32 = 62;
/// A box across the lanes (an event, a message of unknown direction, a line
/// of noise from the client): from `BOX_ABOVE` above its row for `BOX_H`,
/// its text's baseline `BOX_BASELINE` below the row. It ends clear of the
/// next row's label (drawn above that row's arrow, its letters reaching up
/// to about 7 below this row), which a box to 8 below covered.
const BOX_ABOVE: u32 = 10;
const BOX_H: u32 = 14;
const BOX_BASELINE: u32 = 1;

/// Escapes text from the log for HTML and SVG text and attributes.
pub fn esc(text: &str) -> String {
    let text = escape_control(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside a `<script>` element: no `<`, `>` or `&` at all
/// (they only occur inside strings, where `\u003c` means the same).
fn script_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text` as it will be shown (terminal
/// controls already escaped, so the escapes count), with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    let text = escape_control(text);
    match crate::text::head(&text, max) {
        Some(head) => format!("{head}…"),
        None => text.into_owned(),
    }
}

fn implementation(role: &str, who: Option<&Implementation>) -> String {
    match who {
        Some(i) => match &i.version {
            Some(v) => format!("{role} {} {v}", i.name),
            None => format!("{role} {}", i.name),
        },
        None => role.to_string(),
    }
}

/// A request never answered, as the pages draw it.
#[derive(Clone, Debug)]
struct Hang {
    line: u64,
    cancelled: bool,
    /// The lane it waits on.
    lane_x: u32,
    label: String,
}

/// Writes the HTML page.
pub struct Html<'a> {
    out: &'a mut dyn Write,
    hangs: Vec<Hang>,
    client: String,
    server: String,
    /// The page being filled.
    rows: Vec<Row>,
    pages: usize,
}

impl<'a> Html<'a> {
    pub fn new(out: &'a mut dyn Write) -> Html<'a> {
        Html {
            out,
            hangs: Vec::new(),
            client: String::new(),
            server: String::new(),
            rows: Vec::new(),
            pages: 0,
        }
    }

    /// The hang on `line` (the hangs are sorted by line: a binary search).
    fn hang(&self, line: u64) -> Option<&Hang> {
        let at = self.hangs.partition_point(|h| h.line < line);
        self.hangs.get(at).filter(|h| h.line == line)
    }

    /// Writes the buffered rows as one page.
    fn flush_page(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        self.pages += 1;
        let page = self.pages;
        let first = rows.iter().map(|r| r.line).min().unwrap_or(0);
        let last = rows.iter().map(|r| r.line).max().unwrap_or(0);
        let height = FIRST_ROW_Y + rows.len() as u32 * ROW + 12;
        let bottom = height - 6;
        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="sequence diagram, lines {first} to {last}">"#
        );
        // Lanes and their heads.
        for (x, colour, name) in [
            (CLIENT_X, CLIENT_BLUE, &self.client),
            (SERVER_X, SERVER_GREEN, &self.server),
        ] {
            let _ = write!(
                svg,
                r#"<line class="lane" x1="{x}" y1="{HEAD}" x2="{x}" y2="{bottom}" stroke="{colour}"/><rect x="{}" y="8" width="220" height="30" rx="5" fill="{colour}"/><text class="head" x="{x}" y="28">{}</text>"#,
                x - 110,
                esc(&cut(name, 28))
            );
        }
        // Requests opened on earlier pages and never answered run down the whole lane.
        let mut slot = 0;
        let earlier = &self.hangs[..self.hangs.partition_point(|h| h.line < first)];
        for h in earlier.iter().take(BARS) {
            bar(&mut svg, h, slot, HEAD, bottom);
            slot += 1;
        }
        if earlier.len() > BARS {
            let _ = write!(
                svg,
                r#"<text class="more" x="{}" y="{}">+{} more never answered</text>"#,
                SERVER_X + 8,
                HEAD + 12,
                earlier.len() - BARS
            );
        }
        let mut details = Vec::with_capacity(rows.len());
        let mut bursts = String::new();
        for (i, row) in rows.iter().enumerate() {
            let y = FIRST_ROW_Y + i as u32 * ROW;
            let _ = write!(
                svg,
                r#"<g class="row" data-i="{i}" data-line="{}"><rect class="hit" x="0" y="{}" width="{WIDTH}" height="{ROW}"/>"#,
                row.line,
                y - ROW / 2
            );
            if let Some(b) = &row.burst {
                burst_element(&mut bursts, row.line, b);
            }
            let time = row.rel.map_or(String::new(), |s| format!("{s:.3}"));
            let _ = write!(
                svg,
                r#"<text class="gutter" x="8" y="{}">{}</text><text class="gutter" x="56" y="{}">{time}</text>"#,
                y + 4,
                row.line,
                y + 4
            );
            if let Some(worst) = row.findings.iter().map(|f| f.severity).max() {
                let titles: Vec<String> = row
                    .findings
                    .iter()
                    .map(|f| format!("{} {}: {}", f.severity, f.rule, f.message))
                    .collect();
                let _ = write!(
                    svg,
                    r#"<circle class="finding {}" cx="128" cy="{y}" r="6"><title>{}</title></circle>"#,
                    worst.as_str(),
                    esc(&titles.join("\n"))
                );
            }
            match &row.entry {
                Some(e) => {
                    if let Some(h) = self.hang(e.line).filter(|_| e.kind == EntryKind::Request) {
                        if slot < BARS {
                            bar(&mut svg, h, slot, y, bottom);
                            slot += 1;
                        }
                    }
                    match &row.burst {
                        Some(b) => note(
                            &mut svg,
                            "stderr",
                            y,
                            &format!("{}: {}", burst_label(row.line, b), b.headline),
                        ),
                        None => self.draw(&mut svg, e, y),
                    }
                }
                None => {
                    let _ = write!(
                        svg,
                        r#"<text class="none" x="{}" y="{}">(no message on this line)</text>"#,
                        (CLIENT_X + SERVER_X) / 2,
                        y + 4
                    );
                }
            }
            svg.push_str("</g>");
            details.push(detail(row));
        }
        svg.push_str("</svg>");
        if !bursts.is_empty() {
            bursts = format!("<div class=\"bursts\">\n{bursts}</div>\n");
        }
        let on = if page == 1 { " on" } else { "" };
        write!(
            self.out,
            "<section class=\"page{on}\" id=\"p{page}\" data-first=\"{first}\" data-last=\"{last}\">\n<h2>lines {first}–{last}</h2>\n{svg}\n{bursts}<script type=\"application/json\" class=\"details\">{}</script>\n</section>\n",
            script_json(&serde_json::Value::Array(details))
        )
    }

    /// One message, note or event on row `y`.
    fn draw(&self, svg: &mut String, e: &Entry, y: u32) {
        let hang = self.hang(e.line).filter(|_| e.kind == EntryKind::Request);
        let lanes = match e.dir {
            Dir::ClientToServer => Some((CLIENT_X, SERVER_X)),
            Dir::ServerToClient => Some((SERVER_X, CLIENT_X)),
            Dir::Stderr | Dir::Unknown => None,
        };
        let mut label = message_label(e);
        if let Some(id) = &e.id {
            label.push_str(&format!(" #{id}"));
        }
        if let (EntryKind::Request, Some(subject)) = (e.kind, &e.subject) {
            label.push_str(&format!(" {subject}"));
        }
        match (e.kind, lanes) {
            (
                EntryKind::Request | EntryKind::Response | EntryKind::Notification,
                Some((from, to)),
            ) => {
                let class = match (e.kind, hang) {
                    (_, Some(h)) if h.cancelled => "msg cancelled",
                    (_, Some(_)) => "msg unanswered",
                    (EntryKind::Response, _) if e.is_failure() => "msg failed",
                    (EntryKind::Response, _) => "msg response",
                    (EntryKind::Notification, _) => "msg notification",
                    _ => "msg request",
                };
                let suffix = match (hang, e.answers.as_ref().and_then(|a| a.latency)) {
                    (Some(h), _) if h.cancelled => " — cancelled, never answered".to_string(),
                    (Some(_), _) => " — never answered".to_string(),
                    (None, Some(latency)) => format!(" ({})", duration(latency)),
                    (None, None) => String::new(),
                };
                let label = format!(
                    "{}{suffix}",
                    cut(&label, LABEL_CHARS.saturating_sub(suffix.chars().count()))
                );
                let marker = class.rsplit(' ').next().unwrap_or("request");
                // Stop short of the lane so the arrowhead touches it.
                let end = if to > from { to - 2 } else { to + 2 };
                let _ = write!(
                    svg,
                    r#"<g class="{class}"><line x1="{from}" y1="{y}" x2="{end}" y2="{y}" marker-end="url(#head-{marker})"/><text x="{}" y="{}">{}</text></g>"#,
                    (CLIENT_X + SERVER_X) / 2,
                    y - 4,
                    esc(&label)
                );
            }
            (EntryKind::Stderr, _) => note(svg, "stderr", y, &e.summary),
            (EntryKind::Other, Some((from, _))) if e.other == Some(OtherKind::Noise) => {
                let text = format!("not JSON: {}", e.summary);
                if from == SERVER_X {
                    note(svg, "noise", y, &text);
                } else {
                    let _ = write!(
                        svg,
                        r#"<g class="noise"><rect x="{}" y="{}" width="{}" height="{BOX_H}" rx="3"/><text x="{}" y="{}">{}</text></g>"#,
                        CLIENT_X + 10,
                        y - BOX_ABOVE,
                        SERVER_X - CLIENT_X - 20,
                        CLIENT_X + 16,
                        y + BOX_BASELINE,
                        esc(&cut(&text, LABEL_CHARS))
                    );
                }
            }
            _ => {
                // Events, messages of unknown direction and bad batch elements span the lanes.
                let (class, text) = match e.other {
                    Some(OtherKind::Event) => ("event", format!("# {}", e.summary)),
                    _ => ("unplaced", format!("{} {label} {}", arrow(e), e.summary)),
                };
                let _ = write!(
                    svg,
                    r#"<g class="{class}"><rect x="{}" y="{}" width="{}" height="{BOX_H}" rx="3"/><text x="{}" y="{}">{}</text></g>"#,
                    CLIENT_X - 60,
                    y - BOX_ABOVE,
                    SERVER_X - CLIENT_X + 120,
                    (CLIENT_X + SERVER_X) / 2,
                    y + BOX_BASELINE,
                    esc(&cut(&text, LABEL_CHARS + 10))
                );
            }
        }
    }
}

/// A never-answered request's bar: from `top` down to the end of the lane.
fn bar(svg: &mut String, h: &Hang, slot: usize, top: u32, bottom: u32) {
    let x = h.lane_x + 6 + slot as u32 * 5;
    let class = if h.cancelled {
        "bar cancelled"
    } else {
        "bar unanswered"
    };
    let _ = write!(
        svg,
        r#"<line class="{class}" x1="{x}" y1="{top}" x2="{x}" y2="{bottom}"><title>{}</title></line>"#,
        esc(&h.label)
    );
}

/// A burst of stderr folded into one row, expandable below its page's
/// diagram: a `<details>` element with the lines it kept, escaped (and
/// already redacted under `--redact`), and how many it left out.
fn burst_element(out: &mut String, line: u64, b: &Burst) {
    let _ = write!(
        out,
        "<details class=\"burst\" id=\"burst-{line}\"><summary>{} · {}</summary><pre>",
        esc(&burst_label(line, b)),
        esc(&cut(&b.headline, LABEL_CHARS))
    );
    for text in &b.lines {
        out.push_str(&esc(text));
        out.push('\n');
    }
    if b.left_out() > 0 {
        let _ = writeln!(
            out,
            "… and {} more lines (`mcpdbg timeline --full` prints them)",
            b.left_out()
        );
    }
    out.push_str("</pre></details>\n");
}

/// A note beside the server lane.
fn note(svg: &mut String, class: &str, y: u32, text: &str) {
    let _ = write!(
        svg,
        r#"<g class="{class}"><line x1="{SERVER_X}" y1="{y}" x2="{NOTE_X}" y2="{y}"/><rect x="{NOTE_X}" y="{}" width="{NOTE_W}" height="16" rx="3"/><text x="{}" y="{}">{}</text></g>"#,
        y - 8,
        NOTE_X + 6,
        y + 4,
        esc(&cut(text, NOTE_CHARS))
    );
}

/// What a click on a row shows: a heading, the findings, the whole message.
fn detail(row: &Row) -> serde_json::Value {
    let mut head = format!("line {}", row.line);
    if let Some(s) = row.rel {
        head.push_str(&format!(" · {s:.3} s"));
    }
    let mut body = String::new();
    if let Some(e) = &row.entry {
        head.push_str(&format!(" · {} · {}", arrow(e), message_label(e)));
        if let Some(id) = &e.id {
            head.push_str(&format!(" · id {id}"));
        }
        if let Some(a) = &e.answers {
            head.push_str(&format!(" · answers line {}", a.line));
            if let Some(l) = a.latency {
                head.push_str(&format!(" after {}", duration(l)));
            }
        }
        if let Some(t) = &e.time {
            head.push_str(&format!(" · {}", t.text));
        }
        body = match (&row.burst, &e.raw) {
            (Some(b), _) => {
                head.push_str(&format!(" · {}", burst_label(row.line, b)));
                format!(
                    "{} lines of stderr: expanded below the diagram\n{}",
                    b.count, b.headline
                )
            }
            (None, Some(raw)) => pretty(raw),
            (None, None) => e.summary.clone(),
        };
        if body.len() > DETAIL_BYTES {
            let mut cut = DETAIL_BYTES;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            let total = body.len();
            body.truncate(cut);
            body.push_str(&format!(
                "\n… ({total} bytes in all; `mcpdbg timeline --full` prints it)"
            ));
        }
    }
    let findings: Vec<serde_json::Value> = row
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "s": f.severity.as_str(),
                "t": format!("{} {}: {}", f.severity, f.rule, escape_control(&f.message)),
            })
        })
        .collect();
    serde_json::json!({
        "h": escape_control(&head),
        "f": findings,
        "j": body.lines().map(escape_control).collect::<Vec<_>>().join("\n"),
    })
}

impl Sink for Html<'_> {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()> {
        let report = &prepared.report;
        let session = report.sessions.first();
        self.client = implementation("client", session.and_then(|s| s.client.as_ref()));
        self.server = implementation("server", session.and_then(|s| s.server.as_ref()));
        self.hangs = prepared
            .unanswered
            .iter()
            .map(|r| Hang {
                line: r.open.line,
                cancelled: r.open.cancelled,
                lane_x: if r.dir == Dir::ServerToClient {
                    CLIENT_X
                } else {
                    SERVER_X
                },
                label: format!(
                    "{} id {} (line {}) {}",
                    r.open.method,
                    r.id,
                    r.open.line,
                    if r.open.cancelled {
                        "was cancelled and never answered"
                    } else {
                        "was never answered"
                    }
                ),
            })
            .collect();
        let path = if report.path == "-" {
            "<stdin>"
        } else {
            &report.path
        };
        let mut tally = [0usize; 3];
        for f in &report.findings {
            tally[f.severity as usize] += 1;
        }
        let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let mut meta = format!(
            "{} format · {} · {} · {} · {}, {}, {} info",
            report.format,
            esc(&self.client),
            esc(&self.server),
            count(prepared.last_line as usize, "line"),
            count(tally[Severity::Error as usize], "error"),
            count(tally[Severity::Warning as usize], "warning"),
            tally[Severity::Info as usize],
        );
        if let (Some(a), Some(b)) = (&prepared.first_time, &prepared.last_time) {
            meta.push_str(&format!(" · {}", esc(&duration(a.seconds_until(b)))));
        }
        let hangs: Vec<String> = self
            .hangs
            .iter()
            .map(|h| {
                format!(
                    r##"<a href="#line-{}" class="{}">{}</a>"##,
                    h.line,
                    if h.cancelled {
                        "cancelled"
                    } else {
                        "unanswered"
                    },
                    esc(&h.label)
                )
            })
            .collect();
        let mut hangs = hangs;
        hangs.splice(0..0, stall_headlines(&report.findings));
        let hangs = if hangs.is_empty() {
            "every request was answered".to_string()
        } else {
            hangs.join(" · ")
        };
        write!(
            self.out,
            r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcpdbg timeline: {title}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>{title}</h1>
<p class="meta">{meta}</p>
<p class="hangs">{hangs}</p>
<nav><button id="prev" type="button">◀ previous</button> <span id="pos">page 1</span> <button id="next" type="button">next ▶</button> <label>line <input id="goto" size="7" inputmode="numeric"></label> <span class="legend"><i class="k-request"></i>request <i class="k-response"></i>result <i class="k-failed"></i>error <i class="k-unanswered"></i>never answered <i class="k-cancelled"></i>cancelled <i class="k-stderr"></i>stderr</span></nav>
</header>
<svg class="defs" width="0" height="0" aria-hidden="true"><defs>{MARKERS}</defs></svg>
<div id="wrap">
<main id="pages">
"#,
            title = esc(path),
        )
    }

    fn row(&mut self, row: Row) -> io::Result<()> {
        self.rows.push(row);
        if self.rows.len() == PAGE_ROWS {
            self.flush_page()?;
        }
        Ok(())
    }

    fn end(&mut self, prepared: &Prepared, shown: u64) -> io::Result<()> {
        self.flush_page()?;
        if shown == 0 {
            writeln!(self.out, "<p>No row matches.</p>")?;
        }
        let findings: Vec<String> = prepared
            .report
            .findings
            .iter()
            .map(|f| {
                format!(
                    r##"<li class="{}"><a href="#line-{}">line {}</a> {} <b>{}</b>: {}</li>"##,
                    f.severity.as_str(),
                    f.line,
                    f.line,
                    f.severity,
                    f.rule,
                    esc(&f.message)
                )
            })
            .collect();
        write!(
            self.out,
            r#"</main>
<aside id="detail">
<h2 id="d-head">Click a message to see it whole</h2>
<ul id="d-findings"></ul>
<pre id="d-json"></pre>
<h2>Findings ({count})</h2>
<ul class="findings">{findings}</ul>
</aside>
</div>
<script>{JS}</script>
</body>
</html>
"#,
            count = findings.len(),
            findings = findings.join("\n"),
        )
    }
}

/// The headline's stalls, each naming its likely culprit (the tool or
/// method of the `server-stalled` finding's request), before the hangs: the
/// cause before its victims.
fn stall_headlines(findings: &[crate::rules::finding::Finding]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.rule == crate::rules::Rule::ServerStalled)
        .map(|f| {
            let kind = f.subject.as_deref().or(f.method.as_deref()).unwrap_or("?");
            let culprit = format!("a blocking call in `{kind}` likely stalled the event loop");
            format!(
                r##"<a href="#line-{}" class="stalled">line {}: {}</a>"##,
                f.line,
                f.line,
                esc(&culprit)
            )
        })
        .collect()
}

const MARKERS: &str = concat!(
    r##"<marker id="head-request" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#24292f"/></marker>"##,
    r##"<marker id="head-response" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10" fill="none" stroke="#57606a" stroke-width="1.5"/></marker>"##,
    r##"<marker id="head-notification" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10" fill="none" stroke="#24292f" stroke-width="1.5"/></marker>"##,
    r##"<marker id="head-failed" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#bc4c00"/></marker>"##,
    r##"<marker id="head-unanswered" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#d00000"/></marker>"##,
    r##"<marker id="head-cancelled" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#9a6700"/></marker>"##,
);

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff}
header{padding:6px 16px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
h1{font-size:16px;margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.meta,.hangs{margin:2px 0;font-size:13px}
.hangs a.unanswered{color:#d00000;font-weight:600}
.hangs a.cancelled{color:#9a6700}
.hangs a.stalled{color:#cf222e}
nav{font-size:13px}
nav button{font:inherit;padding:1px 8px}
.legend{margin-left:16px;color:#57606a}
.legend i{display:inline-block;width:18px;height:4px;margin:0 4px 3px 10px;vertical-align:middle}
.k-request{background:#24292f}.k-response{background:#57606a}.k-failed{background:#bc4c00}
.k-unanswered{background:#d00000}.k-cancelled{background:#9a6700}.k-stderr{background:#d4a72c}
.defs{position:absolute;width:0;height:0}
#wrap{display:flex;align-items:flex-start}
main{flex:0 0 auto;padding:0 8px}
.page{display:none}.page.on{display:block}
.page h2{font-size:13px;font-weight:normal;color:#57606a;margin:4px 0 0}
aside{position:sticky;top:0;flex:1 1 auto;min-width:0;max-height:100vh;overflow:auto;padding:8px 12px;border-left:1px solid #d0d7de;font-size:13px}
aside h2{font-size:14px;margin:6px 0}
#d-json{white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.35 ui-monospace,monospace;background:#f6f8fa;padding:6px;margin:0}
#d-json:empty{display:none}
ul{padding-left:18px;margin:4px 0}
li.error{color:#a40e26}li.warning{color:#7d4e00}li.info{color:#0550ae}
svg text{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;fill:#1f2328}
.lane{stroke-width:4}
.head{fill:#fff!important;text-anchor:middle;font-weight:600}
.gutter{fill:#57606a!important;font-size:11px!important}
.row{cursor:pointer}
.hit{fill:transparent}
.row:hover .hit{fill:#0969da12}
.row.sel .hit{fill:#0969da26}
.msg line{stroke-width:2}
.msg text{text-anchor:middle}
.request line{stroke:#24292f}
.response line{stroke:#57606a;stroke-dasharray:6 3}
.notification line{stroke:#24292f;stroke-dasharray:2 3}
.failed line{stroke:#bc4c00;stroke-dasharray:6 3}.failed text{fill:#bc4c00}
.unanswered line{stroke:#d00000;stroke-width:3}.unanswered text{fill:#d00000;font-weight:700}
.cancelled line{stroke:#9a6700;stroke-width:2}.cancelled text{fill:#9a6700}
.bar{stroke-width:4}.bar.unanswered{stroke:#d00000}.bar.cancelled{stroke:#9a6700;stroke-dasharray:8 4}
.more{fill:#d00000!important;font-size:11px!important}
.stderr line,.noise line{stroke:#afb8c1}
.stderr text,.noise text{font-size:11px}
.stderr rect{fill:#fff8c5;stroke:#d4a72c}
.noise rect{fill:#ffebe9;stroke:#cf222e}
.event rect{fill:#f6f8fa;stroke:#afb8c1}.event text,.unplaced text,.none{text-anchor:middle;fill:#57606a}
.unplaced rect{fill:#fff;stroke:#afb8c1;stroke-dasharray:3 3}
.bursts{font-size:12px;max-width:940px}
.bursts summary{cursor:pointer;font-family:ui-monospace,monospace}
.bursts pre{white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.35 ui-monospace,monospace;background:#fff8c5;padding:6px;margin:2px 0 6px}
.finding.error{fill:#cf222e}.finding.warning{fill:#bf8700}.finding.info{fill:#0969da}
"#;

const JS: &str = r#"
(function () {
  "use strict";
  var pages = Array.prototype.slice.call(document.querySelectorAll(".page"));
  var cur = 0, cache = {}, selected = null;
  var pos = document.getElementById("pos");
  function show(i) {
    if (!pages.length) { pos.textContent = "no rows"; return; }
    i = Math.max(0, Math.min(pages.length - 1, i));
    pages[cur].classList.remove("on");
    pages[i].classList.add("on");
    cur = i;
    pos.textContent = "page " + (i + 1) + " of " + pages.length;
  }
  function details(page) {
    if (!cache[page.id]) {
      cache[page.id] = JSON.parse(page.querySelector("script.details").textContent);
    }
    return cache[page.id];
  }
  function select(row) {
    var page = row.closest(".page");
    var d = details(page)[Number(row.getAttribute("data-i"))];
    if (selected) { selected.classList.remove("sel"); }
    selected = row;
    row.classList.add("sel");
    document.getElementById("d-head").textContent = d.h;
    var list = document.getElementById("d-findings");
    list.textContent = "";
    d.f.forEach(function (f) {
      var li = document.createElement("li");
      li.className = f.s;
      li.textContent = f.t;
      list.appendChild(li);
    });
    document.getElementById("d-json").textContent = d.j;
    var burst = document.getElementById("burst-" + row.getAttribute("data-line"));
    if (burst) { burst.open = true; }
  }
  function goLine(line) {
    for (var i = 0; i < pages.length; i++) {
      if (line <= Number(pages[i].getAttribute("data-last"))) {
        show(i);
        var rows = pages[i].querySelectorAll(".row");
        for (var j = 0; j < rows.length; j++) {
          if (Number(rows[j].getAttribute("data-line")) >= line) {
            select(rows[j]);
            rows[j].scrollIntoView({block: "center"});
            return;
          }
        }
        return;
      }
    }
  }
  document.getElementById("prev").addEventListener("click", function () { show(cur - 1); });
  document.getElementById("next").addEventListener("click", function () { show(cur + 1); });
  document.getElementById("goto").addEventListener("change", function (e) {
    var n = parseInt(e.target.value, 10);
    if (n > 0) { goLine(n); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT") { return; }
    if (e.key === "ArrowLeft") { show(cur - 1); }
    if (e.key === "ArrowRight") { show(cur + 1); }
  });
  document.addEventListener("click", function (e) {
    var row = e.target.closest && e.target.closest(".row");
    if (row) { select(row); return; }
    var a = e.target.closest && e.target.closest("a[href^='#line-']");
    if (a) { e.preventDefault(); goLine(Number(a.getAttribute("href").slice(6))); }
  });
  show(0);
  var m = /^#line-(\d+)$/.exec(location.hash);
  if (m) { goLine(Number(m[1])); }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// A box across the lanes ends above where the next row's label starts:
    /// the label's baseline is 4 above that row's arrow, and its letters
    /// (12 px) reach 9 above the baseline.
    #[test]
    fn a_box_across_the_lanes_leaves_the_next_label_clear() {
        let y = FIRST_ROW_Y + 5 * ROW;
        let box_bottom = y - BOX_ABOVE + BOX_H;
        let next_label_top = y + ROW - 4 - 9;
        assert!(
            box_bottom < next_label_top,
            "{box_bottom} >= {next_label_top}"
        );
        // The box still holds its own text (11 px monospace: 8 above the
        // baseline, 3 below).
        assert!(y + BOX_BASELINE - 8 > y - BOX_ABOVE);
        assert!(y + BOX_BASELINE + 3 <= box_bottom);
    }

    #[test]
    fn escaping() {
        assert_eq!(esc("<script>&\"'"), "&lt;script&gt;&amp;&quot;&#39;");
        assert_eq!(esc("\x1b[31m"), "\\x1b[31m");
        let v = serde_json::json!({"j": "</script><!-- & \u{2028}"});
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&s).expect("json"),
            v
        );
    }
}
