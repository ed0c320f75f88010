//! The tools' context cost as text (`crate::cost`): one table, per tool,
//! under a legend that says what is counted; `stats` shows it after the
//! slowest requests, `probe` after the session.

use std::io::{self, Write};

use super::columns::{bytes, columns, para, table, table_width};
use crate::cost::{self, ToolCosts};
use crate::text::{escape_control, fit};

/// The tools' rows: a header, one row per tool (the costliest definition
/// first), the tools past the cap summed, and the total.
fn tool_rows(costs: &ToolCosts) -> Vec<Vec<String>> {
    let dash = || "-".to_string();
    let mut rows = vec![
        [
            "tool",
            "definition",
            "tokens",
            "results",
            "result p50",
            "result max",
            "tokens p50",
            "tokens max",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    let row = |name: String, tool: &cost::ToolCost| {
        let median = tool.results.median();
        vec![
            name,
            tool.definition.map_or_else(dash, |d| bytes(d.bytes)),
            tool.definition.map_or_else(dash, |d| d.tokens.to_string()),
            tool.results.count.to_string(),
            median.map_or_else(dash, |m| bytes(m.bytes)),
            median.map_or_else(dash, |_| bytes(tool.results.max.bytes)),
            median.map_or_else(dash, |m| m.tokens.to_string()),
            median.map_or_else(dash, |_| tool.results.max.tokens.to_string()),
        ]
    };
    for tool in costs.sorted() {
        rows.push(row(escape_control(&tool.name).into_owned(), tool));
    }
    if let Some((other, listed)) = costs.other() {
        rows.push(row(format!("({} more listed, summed)", listed), other));
    }
    let t = costs.totals();
    rows.push(vec![
        format!("total ({} listed)", t.listed),
        bytes(t.definitions.bytes),
        t.definitions.tokens.to_string(),
        t.results.to_string(),
    ]);
    rows
}

/// The tools' context cost (`crate::cost`), under a legend that says what
/// is counted, in `width` columns: whole when it fits, else the definitions
/// and the results apart, the tool's name in each (cut with `…` when too
/// long). Nothing when no tool was listed or called.
pub fn tool_costs(costs: &ToolCosts, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    if costs.is_empty() {
        return Ok(());
    }
    let legend = format!(
        "tool context cost, as minified JSON (definitions: name, title, description, inputSchema, outputSchema, annotations; results: each tools/call result); {}",
        costs.tokenizer.legend()
    );
    para(out, width, "", &legend, 2)?;
    let rows: Vec<Vec<String>> = tool_rows(costs)
        .into_iter()
        .map(|mut r| {
            r[0] = format!("  {}", r[0]);
            r
        })
        .collect();
    match width {
        Some(w) if table_width(&rows) > w => {
            for (i, part) in [&[0, 1, 2, 3][..], &[0, 3, 4, 5, 6, 7][..]]
                .iter()
                .enumerate()
            {
                if i > 0 {
                    writeln!(out)?;
                }
                let picked = columns(&rows, part, w);
                let mut text = Vec::new();
                table(&picked, 1, &mut text)?;
                for line in String::from_utf8_lossy(&text).lines() {
                    writeln!(out, "{}", fit(line, w))?;
                }
            }
        }
        _ => table(&rows, 1, out)?,
    }
    let sampled = costs
        .sorted()
        .iter()
        .any(|t| t.results.count > t.results.sampled() as u64);
    if sampled {
        let note = format!(
            "note: the medians of tools called more than {} times are those of a uniform sample of {} of their results",
            cost::SAMPLE,
            cost::SAMPLE
        );
        para(out, width, "", &note, 2)?;
    }
    if costs.other().is_some() {
        let note = format!(
            "note: more than {} tools: the rest are summed in one row",
            cost::MAX_TOOLS
        );
        para(out, width, "", &note, 2)?;
    }
    Ok(())
}
