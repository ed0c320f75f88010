//! `timeline --format json`: one versioned JSON document, written as the
//! rows come (nothing is buffered).
//!
//! Schema version 1 (the version of `check`'s JSON; fields are only ever
//! added): `{"version": 1, "path", "format", "first_time", "rows": [ROW],
//! "sessions": [SESSION], "findings": [FINDING], "unanswered": [OPEN],
//! "shown", "lines"}`. SESSION and FINDING are those of `check --format
//! json`. ROW is `{"line", "time", "seconds", "direction", "kind", "id",
//! "method", "subject", "summary", "findings": [FINDING]}` plus, where
//! known, `"answers": {"line", "latency", "cancelled"}`, `"error": {"code",
//! "message"}`, `"is_error": true`, `"batch": [index, count]` (from 0),
//! `"burst"` on a stderr row (the line of the first stderr line of its
//! burst, which the other views fold into one row; one row per line here)
//! and `"message"`: the whole message as JSON (or `"text"` for a line that is
//! no JSON). OPEN is `{"id", "method", "line", "direction", "cancelled"}`.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::json::{SCHEMA_VERSION, finding, session};
use crate::views::passes::Prepared;
use crate::views::timeline::{Row, Sink};

/// Writes the JSON timeline.
pub struct Json<'a> {
    out: &'a mut dyn Write,
    rows: u64,
}

impl<'a> Json<'a> {
    pub fn new(out: &'a mut dyn Write) -> Json<'a> {
        Json { out, rows: 0 }
    }
}

/// The opening of the document, up to the rows' `[`.
fn head(prepared: &Prepared) -> String {
    let doc = json!({
        "version": SCHEMA_VERSION,
        "path": prepared.report.path,
        "format": prepared.report.format,
        "first_time": prepared.first_time.as_ref().map(|t| &*t.text),
    });
    let text = doc.to_string();
    // `{...}` -> `{..., "rows": [`
    format!("{},\"rows\":[", &text[..text.len() - 1])
}

fn row_json(row: &Row) -> Value {
    let mut m = Map::new();
    m.insert("line".into(), row.line.into());
    let e = row.entry.as_ref();
    m.insert(
        "time".into(),
        e.and_then(|e| e.time.as_ref())
            .map_or(Value::Null, |t| (*t.text).into()),
    );
    m.insert("seconds".into(), row.rel.map_or(Value::Null, Value::from));
    m.insert(
        "direction".into(),
        e.map_or(Value::Null, |e| e.dir.as_str().into()),
    );
    m.insert(
        "kind".into(),
        e.map_or(Value::Null, |e| e.kind.as_str().into()),
    );
    m.insert(
        "id".into(),
        e.and_then(|e| e.id.as_ref())
            .map_or(Value::Null, |id| id.to_json()),
    );
    m.insert(
        "method".into(),
        e.and_then(|e| e.method.clone())
            .map_or(Value::Null, Value::from),
    );
    m.insert(
        "subject".into(),
        e.and_then(|e| e.subject.clone())
            .map_or(Value::Null, Value::from),
    );
    m.insert(
        "summary".into(),
        e.map_or(Value::Null, |e| e.summary.clone().into()),
    );
    if let Some(e) = e {
        if let Some(a) = &e.answers {
            m.insert(
                "answers".into(),
                json!({"line": a.line, "latency": a.latency, "cancelled": a.cancelled}),
            );
        }
        if let Some(err) = &e.error {
            m.insert(
                "error".into(),
                json!({"code": err.code, "message": err.message}),
            );
        }
        if e.is_error_result {
            m.insert("is_error".into(), true.into());
        }
        if let Some((i, n)) = e.batch {
            m.insert("batch".into(), json!([i, n]));
        }
        if let Some(start) = row.burst_of {
            m.insert("burst".into(), start.into());
        }
        if let Some(raw) = &e.raw {
            // Numbers a double would change are kept as written.
            match crate::wire::exact::parse(raw) {
                Ok(v) if e.batch.is_none() => {
                    m.insert("message".into(), v);
                }
                _ => {
                    m.insert("text".into(), raw.clone().into());
                }
            }
        }
    }
    m.insert(
        "findings".into(),
        row.findings.iter().map(finding).collect::<Vec<_>>().into(),
    );
    Value::Object(m)
}

impl Sink for Json<'_> {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()> {
        self.out.write_all(head(prepared).as_bytes())
    }

    fn row(&mut self, row: Row) -> io::Result<()> {
        if self.rows > 0 {
            self.out.write_all(b",")?;
        }
        self.rows += 1;
        crate::wire::exact::to_writer(&mut *self.out, &row_json(&row))?;
        Ok(())
    }

    fn end(&mut self, prepared: &Prepared, shown: u64) -> io::Result<()> {
        let report = &prepared.report;
        let unanswered: Vec<Value> = prepared
            .unanswered
            .iter()
            .map(|r| {
                json!({
                    "id": r.id.to_json(),
                    "method": r.open.method,
                    "line": r.open.line,
                    "direction": r.dir.as_str(),
                    "cancelled": r.open.cancelled,
                })
            })
            .collect();
        let tail = json!({
            "sessions": report.sessions.iter().map(session).collect::<Vec<_>>(),
            "findings": report.findings.iter().map(finding).collect::<Vec<_>>(),
            "unanswered": unanswered,
            "shown": shown,
            "lines": prepared.last_line,
        });
        let text = crate::wire::exact::to_string(&tail);
        // `{...}` -> `],...}`
        write!(self.out, "],{}", &text[1..])?;
        writeln!(self.out)
    }
}
