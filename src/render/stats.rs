//! `mcpdbg stats` as text: aligned columns computed from the finished
//! numbers. Text from the log (paths, methods, tool names, ids) is escaped.

use std::io::{self, Write};

use super::columns::{bytes, columns, para, table, table_width};
use super::cost::tool_costs;
use crate::text::{CommandGuard, duration, escape_control, fit};
use crate::views::stats::{MethodStats, Slow, Stats};
use crate::wire::dir::Dir;

fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn seconds(s: Option<f64>) -> String {
    s.map_or("-".to_string(), duration)
}

fn method_row(m: &MethodStats, unknown_bytes: bool) -> Vec<String> {
    let request = !m.notification && m.dir.is_some();
    let dash = || "-".to_string();
    let mut row = vec![
        escape_control(&m.method).into_owned(),
        m.dir.map_or("?", Dir::arrow).to_string(),
        if m.notification {
            "notification"
        } else if m.dir.is_some() {
            "request"
        } else {
            "response"
        }
        .to_string(),
        m.count.to_string(),
        if m.notification {
            dash()
        } else {
            m.errors.to_string()
        },
        if request {
            m.unanswered.to_string()
        } else {
            dash()
        },
        if request {
            seconds(m.percentile(0.5))
        } else {
            dash()
        },
        if request {
            seconds(m.percentile(0.95))
        } else {
            dash()
        },
        if request { seconds(m.max()) } else { dash() },
        bytes(m.bytes[0]),
        bytes(m.bytes[1]),
    ];
    if unknown_bytes {
        row.push(bytes(m.bytes[3]));
    }
    row
}

fn slow_row(s: &Slow) -> Vec<String> {
    let mut request = escape_control(&s.method).into_owned();
    if let Some(subject) = &s.subject {
        request.push_str(&format!(
            " {}",
            escape_control(&serde_json::Value::from(subject.as_str()).to_string())
        ));
    }
    if let Some(id) = &s.id {
        request.push_str(&format!(" id {}", escape_control(&id.to_string())));
    }
    let note = match (s.answered, s.cancelled) {
        (true, false) => String::new(),
        (true, true) => "answered after it was cancelled".to_string(),
        (false, false) if s.closed => {
            "never answered (waited until its sender closed the connection)".to_string()
        }
        (false, false) => "never answered (waited until the log ended)".to_string(),
        (false, true) => "cancelled after that, never answered".to_string(),
    };
    vec![
        if s.answered {
            duration(s.seconds)
        } else {
            format!("≥ {}", duration(s.seconds))
        },
        request,
        s.dir.arrow().to_string(),
        format!("{}:{}", escape_control(&s.path), s.line),
        note,
    ]
}

pub fn render(stats: &Stats, out: &mut dyn Write) -> io::Result<()> {
    render_fitted(stats, None, out)
}

/// The per-method table in `width` columns: whole when it fits; otherwise
/// split, the method and direction repeated in each part: counts, then
/// latencies and bytes (together when they fit with the method cut to 16
/// characters, else apart). Method names too long for a part are cut with
/// `…`.
fn methods_fitted(rows: &[Vec<String>], width: usize, out: &mut dyn Write) -> io::Result<()> {
    if table_width(rows) <= width {
        return table(rows, 3, out);
    }
    let times = [0, 1, 6, 7, 8];
    let bytes: Vec<usize> = [0, 1].into_iter().chain(9..rows[0].len()).collect();
    let both: Vec<usize> = times.iter().copied().chain(9..rows[0].len()).collect();
    let mut parts = vec![vec![0, 1, 2, 3, 4, 5]];
    let name = table_width(&columns(rows, &[0], usize::MAX)).min(16);
    let rest = table_width(&columns(rows, &both[1..], usize::MAX)) + 2;
    if name + rest <= width {
        parts.push(both);
    } else {
        parts.push(times.to_vec());
        parts.push(bytes);
    }
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let picked = columns(rows, part, width);
        let left = if part.contains(&2) { 3 } else { 2 };
        let mut text = Vec::new();
        table(&picked, left, &mut text)?;
        for line in String::from_utf8_lossy(&text).lines() {
            writeln!(out, "{}", fit(line, width))?;
        }
    }
    Ok(())
}

/// The slowest requests in `width` columns: the table as it is when it
/// fits; otherwise the note (and, when even that is not enough, where the
/// request is) on an indented line under its row.
fn slowest_fitted(rows: &[Vec<String>], width: usize, out: &mut dyn Write) -> io::Result<()> {
    if table_width(rows) <= width {
        return table(rows, 5, out);
    }
    let four = columns(rows, &[0, 1, 2, 3], usize::MAX);
    let inline_where = table_width(&four) <= width;
    let shown: &[usize] = if inline_where {
        &[1, 0, 2, 3]
    } else {
        &[1, 0, 2]
    };
    // The request column is the one cut: put it first for `columns`, then
    // back in its place.
    let picked: Vec<Vec<String>> = columns(rows, shown, width)
        .into_iter()
        .map(|mut r| {
            r.swap(0, 1);
            r
        })
        .collect();
    let mut text = Vec::new();
    table(&picked, picked[0].len(), &mut text)?;
    let text = String::from_utf8_lossy(&text);
    // Under the request column.
    let indent = rows.iter().map(|r| r[0].chars().count()).max().unwrap_or(0) + 2;
    for (line, row) in text.lines().zip(rows) {
        writeln!(out, "{}", fit(line, width))?;
        let note = match (inline_where, row[4].is_empty()) {
            (true, _) => row[4].clone(),
            (false, true) => row[3].clone(),
            (false, false) => format!("{}: {}", row[3], row[4]),
        };
        if !note.trim().is_empty() && row[0].trim() != "latency" {
            let pad = " ".repeat(indent.min(width / 2));
            para(out, Some(width), &pad, &note, indent)?;
        }
    }
    Ok(())
}

/// The stats in `width` columns (a terminal's, or `--width`); `None`: the
/// fixed layout.
pub fn render_fitted(stats: &Stats, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let out = &mut CommandGuard::new(out);
    for f in &stats.files {
        let path = if f.path == "-" {
            "<stdin>".to_string()
        } else {
            escape_control(&f.path).into_owned()
        };
        let span = f.duration().map_or("no timestamps".to_string(), duration);
        let mut messages = format!("{} C->S, {} S->C", f.messages[0], f.messages[1]);
        if f.messages[2] > 0 {
            messages.push_str(&format!(", {} of unknown direction", f.messages[2]));
        }
        let line = format!(
            "{path}: {} format, {}, {span}; {messages} messages, {}",
            f.format,
            plural(f.lines, "line"),
            plural(f.stderr_lines, "stderr line")
        );
        para(out, width, "", &line, 2)?;
    }
    writeln!(out)?;
    let unknown_bytes = stats.methods.values().any(|m| m.bytes[3] > 0);
    let mut rows = vec![
        [
            "method",
            "dir",
            "kind",
            "count",
            "errors",
            "unanswered",
            "p50",
            "p95",
            "max",
            "bytes C->S",
            "bytes S->C",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    if unknown_bytes {
        rows[0].push("bytes ?".to_string());
    }
    rows.extend(
        stats
            .methods_sorted()
            .into_iter()
            .map(|m| method_row(m, unknown_bytes)),
    );
    if rows.len() == 1 {
        writeln!(out, "no messages")?;
    } else if let Some(w) = width {
        methods_fitted(&rows, w, out)?;
    } else {
        table(&rows, 3, out)?;
    }
    writeln!(out)?;
    if stats.slowest.is_empty() {
        para(
            out,
            width,
            "",
            "slowest requests: none timed (the log has no timestamps or no requests)",
            2,
        )?;
    } else {
        writeln!(out, "slowest requests")?;
        let mut rows = vec![
            ["latency", "request", "dir", "where", ""]
                .map(str::to_string)
                .to_vec(),
        ];
        rows.extend(stats.slowest.iter().map(slow_row));
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|r| {
                let mut r = r;
                r[0] = format!("  {}", r[0]);
                r
            })
            .collect();
        match width {
            Some(w) => slowest_fitted(&rows, w, out)?,
            None => table(&rows, 5, out)?,
        }
    }
    writeln!(out)?;
    if !stats.tools.is_empty() {
        tool_costs(&stats.tools, width, out)?;
        writeln!(out)?;
    }
    let line = format!(
        "stderr: {}, {}",
        plural(stats.stderr.0, "line"),
        bytes(stats.stderr.1)
    );
    para(out, width, "", &line, 2)?;
    if stats.noise.0 > 0 {
        let line = format!(
            "lines that are no message: {}, {}",
            stats.noise.0,
            bytes(stats.noise.1)
        );
        para(out, width, "", &line, 2)?;
    }
    let line = format!(
        "bytes: {} C->S, {} S->C, {} stderr{}",
        bytes(stats.bytes[0]),
        bytes(stats.bytes[1]),
        bytes(stats.bytes[2]),
        if stats.bytes[3] > 0 {
            format!(", {} of unknown direction", bytes(stats.bytes[3]))
        } else {
            String::new()
        }
    );
    para(out, width, "", &line, 2)?;
    let total: Option<f64> = stats.files.iter().map(|f| f.duration()).sum();
    para(
        out,
        width,
        "",
        "waiting (time with at least one request open; a cancelled request stops the wait):",
        2,
    )?;
    for (side, who) in [
        (0, "the client on the server"),
        (1, "the server on the client"),
    ] {
        let w = &stats.waiting[side];
        let open = match total {
            Some(t) if t > 0.0 => format!(
                "{} of {} ({:.0}%)",
                duration(w.open_seconds),
                duration(t),
                100.0 * w.open_seconds / t
            ),
            Some(_) => duration(w.open_seconds),
            None => "-".to_string(),
        };
        let line = format!(
            "{who}: {open}; {} timed, {} in all",
            plural(w.answers, "answer"),
            duration(w.latency_sum)
        );
        para(out, width, "  ", &line, 4)?;
    }
    match stats.negative_latencies {
        0 => {}
        1 => para(
            out,
            width,
            "",
            "note: 1 answer is stamped before its request (the log's clock went back, or its lines are out of order): its latency is negative",
            2,
        )?,
        n => para(
            out,
            width,
            "",
            &format!(
                "note: {n} answers are stamped before their requests (the log's clock went back, or its lines are out of order): their latencies are negative"
            ),
            2,
        )?,
    }
    Ok(())
}
