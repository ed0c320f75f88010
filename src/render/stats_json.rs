//! `mcpdbg stats --format json`: the stats document, schema version 1
//! (`tool_cost` added within it).
//! Built from explicit fields (no domain type derives `Serialize`), so the
//! wire format changes only here; a test pins it.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::cost::{Size, ToolCost, ToolCosts};
use crate::views::stats::{Bytes, Stats};
use crate::wire::dir::Dir;

/// The version of the stats document.
pub const VERSION: u64 = 1;

fn bytes(b: &Bytes) -> Value {
    json!({
        "client_to_server": b[0],
        "server_to_client": b[1],
        "server_stderr": b[2],
        "unknown": b[3],
    })
}

/// Seconds to the microsecond (the precision of timestamps), without the
/// noise of summed floats.
fn secs(s: f64) -> Value {
    Value::from((s * 1e6).round() / 1e6)
}

fn dir(d: Option<Dir>) -> Value {
    d.map_or(Value::Null, |d| Value::from(d.as_str()))
}

fn size(s: Size) -> Value {
    json!({"bytes": s.bytes, "tokens": s.tokens})
}

fn tool(name: Value, t: &ToolCost) -> Value {
    let results = t.results.median().map(|median| {
        json!({
            "count": t.results.count,
            "sampled": t.results.sampled(),
            "median": size(median),
            "max": size(t.results.max),
            "total": size(t.results.total),
        })
    });
    json!({
        "name": name,
        "definition": t.definition.map(size),
        "results": results,
    })
}

/// The tools' context cost (`crate::cost`), the same object in `stats`'
/// document and in `probe`'s report (`render/json.rs`):
/// `{"tokenizer", "bytes_per_token", "tools": [TOOL], "other_tools",
/// "total"}`.
pub fn tool_cost(costs: &ToolCosts) -> Value {
    let tools: Vec<Value> = costs
        .sorted()
        .into_iter()
        .map(|t| tool(Value::from(t.name.as_str()), t))
        .collect();
    let other = costs.other().map(|(t, listed)| {
        let mut v = tool(Value::Null, t);
        v["listed"] = listed.into();
        v
    });
    let t = costs.totals();
    json!({
        "tokenizer": costs.tokenizer.as_str(),
        "bytes_per_token": costs.tokenizer.bytes_per_token(),
        "tools": tools,
        "other_tools": other,
        "total": {
            "listed": t.listed,
            "definitions": size(t.definitions),
            "results": t.results,
            "result_sizes": size(t.result_sizes),
        },
    })
}

pub fn render(stats: &Stats, out: &mut dyn Write) -> io::Result<()> {
    let files: Vec<Value> = stats
        .files
        .iter()
        .map(|f| {
            json!({
                "path": f.path,
                "format": f.format.as_str(),
                "lines": f.lines,
                "first_time": f.first_time.as_ref().map(|t| t.text.to_string()),
                "last_time": f.last_time.as_ref().map(|t| t.text.to_string()),
                "duration_seconds": f.duration().map(secs),
                "messages": {
                    "client_to_server": f.messages[0],
                    "server_to_client": f.messages[1],
                    "unknown_direction": f.messages[2],
                },
                "stderr_lines": f.stderr_lines,
            })
        })
        .collect();
    let methods: Vec<Value> = stats
        .methods_sorted()
        .into_iter()
        .map(|m| {
            let kind = if m.notification {
                "notification"
            } else if m.dir.is_some() {
                "request"
            } else {
                "response"
            };
            let latency = if m.latencies.is_empty() {
                Value::Null
            } else {
                json!({
                    "count": m.latencies.len(),
                    "p50": m.percentile(0.5).map(secs),
                    "p95": m.percentile(0.95).map(secs),
                    "max": m.max().map(secs),
                })
            };
            json!({
                "method": m.method,
                "direction": dir(m.dir),
                "kind": kind,
                "count": m.count,
                "errors": m.errors,
                "unanswered": m.unanswered,
                "latency_seconds": latency,
                "bytes": bytes(&m.bytes),
            })
        })
        .collect();
    let slowest: Vec<Value> = stats
        .slowest
        .iter()
        .map(|s| {
            json!({
                "path": s.path,
                "line": s.line,
                "direction": s.dir.as_str(),
                "method": s.method,
                "subject": s.subject,
                "id": s.id.as_ref().map(|id| id.to_json()),
                "seconds": secs(s.seconds),
                "answered": s.answered,
                "cancelled": s.cancelled,
                "closed": s.closed,
            })
        })
        .collect();
    let waiting = |i: usize| {
        let w = &stats.waiting[i];
        let timed = stats.files.iter().any(|f| f.duration().is_some());
        json!({
            "open_seconds": if timed { secs(w.open_seconds) } else { Value::Null },
            "answers": w.answers,
            "latency_sum_seconds": secs(w.latency_sum),
        })
    };
    let doc = json!({
        "version": VERSION,
        "files": files,
        "methods": methods,
        "slowest": slowest,
        "stderr": {"lines": stats.stderr.0, "bytes": stats.stderr.1},
        "non_message_lines": {"lines": stats.noise.0, "bytes": stats.noise.1},
        "waiting": {"on_server": waiting(0), "on_client": waiting(1)},
        "bytes": bytes(&stats.bytes),
        "negative_latencies": stats.negative_latencies,
        "tool_cost": tool_cost(&stats.tools),
    });
    crate::wire::exact::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
