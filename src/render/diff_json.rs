//! `mcpdbg diff --format json` and `mcpdbg replay --format json`: the
//! comparison document, schema version 1. Built from explicit fields (no
//! domain type derives `Serialize`), so the wire format changes only here; a
//! test pins it.

use std::io::{self, Write};

use serde_core::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};

use crate::views::diff::{Change, Comparison, Expect, Labels, Row, Side};
use crate::wire::exact::Exact;

/// The version of the comparison document.
pub const VERSION: u64 = 1;

fn change(c: &Change) -> Value {
    json!({"path": c.path, "before": c.before, "after": c.after})
}

fn side(s: &Option<Side>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => json!({
            "line": s.line,
            "id": s.id.to_json(),
            "outcome": &*s.outcome,
            "latency_seconds": s.latency.map(|l| (l * 1e6).round() / 1e6),
        }),
    }
}

fn counts(map: &indexmap::IndexMap<String, usize>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::from(*v)))
            .collect(),
    )
}

pub fn render(labels: &Labels, c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let head = json!({
        "version": VERSION,
        "kind": labels.kind,
        "before": {"path": labels.before.0, "format": labels.before.1},
        "after": {"path": labels.after.0, "format": labels.after.1, "command": labels.command},
        "expect": match c.expect { Expect::Same => "same", Expect::Fixed => "fixed" },
        "verdict": c.verdict(),
        "differences": c.differences(),
        "handshake": c.handshake.iter().map(change).collect::<Vec<_>>(),
        "lists": {
            "sizes": c.list_sizes.iter().map(|(l, a, b)| json!({"list": l, "before": a, "after": b})).collect::<Vec<_>>(),
            "changes": c.lists.iter().map(|l| json!({
                "list": l.list,
                "name": l.name,
                "change": l.change,
                "changes": l.changes.iter().map(change).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        },
    });
    let tail = json!({
        "findings": {
            "before": counts(&c.findings_before),
            "after": counts(&c.findings_after),
            "only_after": c.new_rules(),
            "only_before": c.gone_rules(),
        },
        "notes": c.notes,
        "target": (!c.target.is_empty()).then(|| c.target.describe()),
        "counted": c.counted(),
        "left_out": c.left_out.map(|l| json!({
            "before": l.before,
            "after": l.after,
            "max_requests": l.max_requests,
        })),
    });
    // The request rows are written one at a time, never built as one tree
    // (a comparison holds up to `--max-requests` of them).
    let doc = Doc {
        head,
        rows: c,
        tail,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

fn row(c: &Comparison, r: &Row) -> Value {
    json!({
        "method": r.method,
        "subject": r.subject,
        "before": side(&r.before),
        "after": side(&r.after),
        "verdict": r.verdict.as_str(),
        "late": r.late,
        "latency": r.latency,
        "params_changed": r.params_changed,
        "changes": r.changes.iter().map(change).collect::<Vec<_>>(),
        "counted": c.target.counts(r),
    })
}

/// The document: `head`'s members, `requests`, then `tail`'s members.
struct Doc<'a> {
    head: Value,
    rows: &'a Comparison,
    tail: Value,
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        fn members(v: &Value) -> impl Iterator<Item = (&String, &Value)> {
            v.as_object().into_iter().flatten()
        }
        for (k, v) in members(&self.head) {
            map.serialize_entry(k, &Exact(v))?;
        }
        map.serialize_entry("requests", &Rows(self.rows))?;
        for (k, v) in members(&self.tail) {
            map.serialize_entry(k, &Exact(v))?;
        }
        map.end()
    }
}

struct Rows<'a>(&'a Comparison);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for r in &self.0.rows {
            seq.serialize_element(&Exact(&row(self.0, r)))?;
        }
        seq.end()
    }
}
