//! `mcpdbg stats` as text: aligned columns computed from the finished
//! numbers. Text from the log (paths, methods, tool names, ids) is escaped.

use std::io::{self, Write};

use crate::text::{CommandGuard, duration, escape_control};
use crate::views::stats::{MethodStats, Slow, Stats};
use crate::wire::dir::Dir;

/// `812 B`, `14.2 KiB`, `3.1 MiB`.
pub fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < 10.0 * KIB {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else if f < KIB * KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else {
        format!("{:.1} GiB", f / (KIB * KIB * KIB))
    }
}

fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Left-aligned first columns, right-aligned numbers.
fn table(rows: &[Vec<String>], left: usize, out: &mut dyn Write) -> io::Result<()> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = widths[c] - cell.chars().count();
            if c < left {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
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
        writeln!(
            out,
            "{path}: {} format, {}, {span}; {messages} messages, {}",
            f.format,
            plural(f.lines, "line"),
            plural(f.stderr_lines, "stderr line")
        )?;
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
    } else {
        table(&rows, 3, out)?;
    }
    writeln!(out)?;
    if stats.slowest.is_empty() {
        writeln!(
            out,
            "slowest requests: none timed (the log has no timestamps or no requests)"
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
        table(&rows, 5, out)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "stderr: {}, {}",
        plural(stats.stderr.0, "line"),
        bytes(stats.stderr.1)
    )?;
    if stats.noise.0 > 0 {
        writeln!(
            out,
            "lines that are no message: {}, {}",
            stats.noise.0,
            bytes(stats.noise.1)
        )?;
    }
    writeln!(
        out,
        "bytes: {} C->S, {} S->C, {} stderr{}",
        bytes(stats.bytes[0]),
        bytes(stats.bytes[1]),
        bytes(stats.bytes[2]),
        if stats.bytes[3] > 0 {
            format!(", {} of unknown direction", bytes(stats.bytes[3]))
        } else {
            String::new()
        }
    )?;
    let total: Option<f64> = stats.files.iter().map(|f| f.duration()).sum();
    writeln!(
        out,
        "waiting (time with at least one request open; a cancelled request stops the wait):"
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
        writeln!(
            out,
            "  {who}: {open}; {} timed, {} in all",
            plural(w.answers, "answer"),
            duration(w.latency_sum)
        )?;
    }
    match stats.negative_latencies {
        0 => {}
        1 => writeln!(
            out,
            "note: 1 answer is stamped before its request (the log's clock went back, or its lines are out of order): its latency is negative"
        )?,
        n => writeln!(
            out,
            "note: {n} answers are stamped before their requests (the log's clock went back, or its lines are out of order): their latencies are negative"
        )?,
    }
    Ok(())
}
