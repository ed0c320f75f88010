//! `mcpdbg diff` and `mcpdbg replay`: the comparison as text.
//!
//! Plain aligned columns (no `tabled`), one section per part of the
//! comparison. Everything taken from a log is escaped and cut to an excerpt
//! before it is written.

use std::io::{self, Write};

use serde_json::Value;

use super::para;
use crate::text::{CommandGuard, duration, escape_control, excerpt};
use crate::views::diff::{Change, Comparison, Labels, Side};

fn clean(text: &str) -> String {
    escape_control(&excerpt(text)).into_owned()
}

fn value(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".to_string(),
        Some(v) => clean(&crate::wire::exact::to_string(v)),
    }
}

fn change(c: &Change) -> String {
    format!(
        "{}: {} -> {}",
        clean(&c.path),
        value(&c.before),
        value(&c.after)
    )
}

fn side(s: &Option<Side>) -> String {
    match s {
        None => "-".to_string(),
        Some(s) => match s.latency {
            Some(l) => format!("{} {}", s.outcome, duration(l)),
            None => s.outcome.to_string(),
        },
    }
}

fn line(s: &Option<Side>) -> String {
    s.as_ref().map_or("-".to_string(), |s| s.line.to_string())
}

pub fn render(labels: &Labels, c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    render_fitted(labels, c, None, out)
}

/// The comparison in `width` columns (a terminal's, or `--width`): long
/// lines word-wrapped with a hanging indent, and the requests as two lines
/// each when their table is too wide. `None`: the fixed layout.
pub fn render_fitted(
    labels: &Labels,
    c: &Comparison,
    width: Option<usize>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let out = &mut CommandGuard::new(out);
    let w = width;
    para(
        out,
        w,
        "before: ",
        &format!("{} ({})", clean(&labels.before.0), labels.before.1),
        8,
    )?;
    match &labels.command {
        Some(cmd) => para(
            out,
            w,
            "after:  ",
            &format!(
                "{} ({}, replayed against {})",
                clean(&labels.after.0),
                labels.after.1,
                clean(cmd)
            ),
            8,
        )?,
        None => para(
            out,
            w,
            "after:  ",
            &format!("{} ({})", clean(&labels.after.0), labels.after.1),
            8,
        )?,
    }

    writeln!(out, "\nhandshake")?;
    if c.handshake.is_empty() {
        writeln!(out, "  same")?;
    }
    for ch in &c.handshake {
        para(out, w, "  ", &change(ch), 6)?;
    }

    writeln!(out, "\nlists")?;
    for (list, before, after) in &c.list_sizes {
        let n = |v: &Option<usize>| v.map_or("not listed".to_string(), |n| n.to_string());
        para(
            out,
            w,
            "  ",
            &format!("{list}: {} -> {}", n(before), n(after)),
            6,
        )?;
    }
    for l in &c.lists {
        let singular = l.list.trim_end_matches('s');
        para(
            out,
            w,
            "  ",
            &format!("{singular} {} {}", clean(&l.name), l.change),
            6,
        )?;
        for ch in &l.changes {
            para(out, w, "    ", &change(ch), 8)?;
        }
    }

    writeln!(out, "\nrequests")?;
    let header = [
        "before",
        "after",
        "method",
        "subject",
        "outcome before",
        "outcome after",
        "verdict",
    ];
    // Two passes over the rows, the first for the columns' widths, so that
    // the table is written as it goes, not held (a million rows cost
    // hundreds of MiB as cells).
    let cells = |r: &crate::views::diff::Row| -> [String; 7] {
        let mut verdict = r.verdict.as_str().to_string();
        if !c.target.counts(r) {
            verdict.push_str(" (not counted)");
        }
        if r.late {
            verdict.push_str(" (answered after the timeout)");
        }
        if let Some(l) = r.latency {
            verdict.push_str(", ");
            verdict.push_str(l);
        }
        if r.params_changed {
            verdict.push_str(", params differ");
        }
        [
            line(&r.before),
            line(&r.after),
            clean(&r.method),
            r.subject.as_deref().map_or(String::new(), clean),
            side(&r.before),
            side(&r.after),
            verdict,
        ]
    };
    let header = header.map(str::to_string);
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &c.rows {
        for (w, cell) in widths.iter_mut().zip(cells(r)) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let write_row = |out: &mut dyn Write, row: &[String; 7]| -> io::Result<()> {
        let mut text = String::from(" ");
        for (i, cell) in row.iter().enumerate() {
            text.push(' ');
            text.push_str(cell);
            if i < 6 {
                let pad = widths[i] - cell.chars().count();
                text.extend(std::iter::repeat_n(' ', pad + 1));
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    // The table's width: a space, then each cell and a space between.
    let table = 1 + widths.iter().map(|w| w + 1).sum::<usize>() + widths.len() - 1;
    match w.filter(|&w| table > w) {
        None => {
            write_row(out, &header)?;
            for r in &c.rows {
                write_row(out, &cells(r))?;
                for d in &r.changes {
                    para(out, w, "      ", &change(d), 10)?;
                }
            }
        }
        Some(_) => {
            // Too wide: each request on two lines, `before -> after
            // method subject`, then the outcomes and the verdict.
            let two = |out: &mut dyn Write, row: &[String; 7]| -> io::Result<()> {
                let head = format!("{} -> {}: {} {}", row[0], row[1], row[2], row[3]);
                para(out, w, "  ", head.trim_end(), 6)?;
                let outcome = format!("{} -> {}: {}", row[4], row[5], row[6]);
                para(out, w, "    ", &outcome, 8)
            };
            two(out, &header)?;
            for r in &c.rows {
                two(out, &cells(r))?;
                for d in &r.changes {
                    para(out, w, "      ", &change(d), 10)?;
                }
            }
        }
    }

    writeln!(out, "\nfindings of check")?;
    for (name, map) in [("before", &c.findings_before), ("after", &c.findings_after)] {
        let list: Vec<String> = map.iter().map(|(r, n)| format!("{r} {n}")).collect();
        let text = if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        };
        para(out, w, "  ", &format!("{name}: {text}"), 6)?;
    }
    let new = c.new_rules();
    if !new.is_empty() {
        para(out, w, "  ", &format!("only after: {}", new.join(", ")), 6)?;
    }
    let gone = c.gone_rules();
    if !gone.is_empty() {
        para(
            out,
            w,
            "  ",
            &format!("only before: {}", gone.join(", ")),
            6,
        )?;
    }

    if !c.notes.is_empty() {
        writeln!(out, "\nreplay")?;
        for n in &c.notes {
            para(out, w, "  ", &clean(n), 4)?;
        }
    }

    let n = c.differences();
    let verdict = c.verdict();
    let expectation = match c.expect {
        crate::views::diff::Expect::Same => "the same behaviour",
        crate::views::diff::Expect::Fixed => {
            "the recorded hangs and errors gone, nothing else changed"
        }
    };
    let plural = if n == 1 { "" } else { "s" };
    writeln!(out)?;
    para(
        out,
        w,
        "",
        &format!("{verdict}: {n} difference{plural} from {expectation}"),
        2,
    )?;
    if !c.target.is_empty() {
        para(out, w, "", &clean(&counted_rows(c)), 2)?;
    }
    if let Some(left_out) = &c.left_out {
        para(out, w, "", &left_out.describe(), 2)?;
    }
    Ok(())
}

/// Which request rows the verdict counted, with a target: `counted (id 8,
/// tool lookup): tools/call "lookup" line 20 -> 20`.
pub fn counted_rows(c: &Comparison) -> String {
    let rows: Vec<String> = c
        .counted()
        .into_iter()
        .map(|i| {
            let r = &c.rows[i];
            let subject = r
                .subject
                .as_deref()
                .map_or(String::new(), |s| format!(" {s:?}"));
            format!(
                "{}{subject} line {} -> {} ({})",
                r.method,
                line(&r.before),
                line(&r.after),
                r.verdict.as_str()
            )
        })
        .collect();
    let what = if rows.is_empty() {
        "no request row matches".to_string()
    } else {
        rows.join("; ")
    };
    format!(
        "counted ({}; with the handshake, the lists and the rules): {what}",
        c.target.describe()
    )
}
