//! Text fitted to columns, for the renderers that lay out their own
//! (`stats`, the tools' cost, `diff`): paragraphs wrapped with a hanging
//! indent, and tables of left-aligned names and right-aligned numbers.
//! Names nothing of the report: a leaf the renderers share.

use std::io::{self, Write};

use crate::text::fit;

/// Writes `prefix` and `text`, word-wrapped to `width` with continuation
/// lines indented by `indent`, or whole without a width.
pub(crate) fn para(
    out: &mut dyn Write,
    width: Option<usize>,
    prefix: &str,
    text: &str,
    indent: usize,
) -> io::Result<()> {
    match width {
        None => writeln!(out, "{prefix}{text}"),
        Some(w) => {
            for line in crate::text::hanging(prefix, text, w, indent) {
                writeln!(out, "{line}")?;
            }
            Ok(())
        }
    }
}

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

/// The widest cell of each column of `rows`, in characters.
fn column_widths(rows: &[Vec<String>]) -> Vec<usize> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Left-aligned first columns, right-aligned numbers.
pub(crate) fn table(rows: &[Vec<String>], left: usize, out: &mut dyn Write) -> io::Result<()> {
    let widths = column_widths(rows);
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

/// The width of a [`table`] of `rows`.
pub(crate) fn table_width(rows: &[Vec<String>]) -> usize {
    let widths = column_widths(rows);
    widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)
}

/// The columns of `rows` named by `columns`, the first one (a name) cut
/// with `…` so that the table fits `width` where it can.
pub(crate) fn columns(rows: &[Vec<String>], columns: &[usize], width: usize) -> Vec<Vec<String>> {
    let mut picked: Vec<Vec<String>> = rows
        .iter()
        .map(|r| columns.iter().filter_map(|&c| r.get(c).cloned()).collect())
        .collect();
    let over = table_width(&picked).saturating_sub(width);
    if over > 0 {
        let name = table_width(&picked.iter().map(|r| r[..1].to_vec()).collect::<Vec<_>>());
        let keep = name.saturating_sub(over).max(4);
        for row in picked.iter_mut().skip(1) {
            row[0] = fit(&row[0], keep).into_owned();
        }
    }
    picked
}
