//! The JSON output: one document, versioned. This file is the only place
//! that knows the wire schema; it builds it field by field from the report,
//! so renaming a domain type cannot change the output by accident.
//!
//! Schema version 1:
//! `{"version": 1, "files": [FILE], "summary": {"error", "warning", "info"}}`;
//! FILE is `{"path", "format", "sessions": [SESSION], "findings": [FINDING]}`;
//! SESSION is `{"name", "era", "protocol_version", "requested_version", "revision",
//! "client", "server", "messages", "pending" (at most 1000), "pending_total",
//! "first_line", "last_line",
//! "mid_session"}` plus, when the era was read off a log without its handshake,
//! `"era_evidence": {"line", "what"}`; FINDING is `{"rule", "severity", "session", "line",
//! "message"}` plus, where known, `"file"` (in a three-file capture), `"time"`, `"direction"`, `"id"`,
//! `"method"`, `"subject"` (the tool, prompt or resource a request is about;
//! added in the same version) and `"related"`. `mcpdbg validate` uses the same document with
//! `"format": "message"`, no sessions, and a `"message"` object per file:
//! `{"kind", "direction", "method", "id", "revision", "cannot_show"}`.
//! `mcpdbg probe` adds `"tool_cost"` to its file (and to the JSON Lines
//! `file` record): what the server's tools cost, the object of `stats`'
//! document (`render/stats_json.rs`); added within version 1.
//! `check` adds `"tool_schemas": {"checked", "skipped", "unread_listings",
//! "first_line"}` to a file (and to the JSON Lines `file` record) whose
//! tool-schema checks reached their work budget: how many tool calls and
//! results were checked and how many were not, how many listings were not
//! read, and the first line left unchecked; added within version 1.
//!
//! JSON Lines (`--format jsonl`), the same schema version: one object per
//! line, each starting `"type", "version", "path"`. Per file, in this order:
//! `{"type": "file", .., "format", "bytes", "lines", "seconds", "sessions"
//! (how many), "summary": {"error", "warning", "info"}}` (plus `"message"`
//! for `validate`), then `{"type": "session", .., "session" (its index),
//! SESSION's fields}` per session, then `{"type": "finding", .., FINDING's
//! fields}` per finding; a file that could not be read is one `{"type":
//! "error", .., "message"}`.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::report::{FileReport, MessageReport, Report};
use crate::report::{Implementation, Summary};
use crate::rules::Rule;
use crate::rules::finding::Finding;
use crate::wire::dir::Side;

/// The version of the JSON schema. Bump it when a field changes meaning or
/// disappears; adding a field does not bump it.
pub const SCHEMA_VERSION: u64 = 1;

pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let [info, warning, error] = report.tally();
    let doc = json!({
        "version": SCHEMA_VERSION,
        "files": report.files.iter().map(file).collect::<Vec<_>>(),
        "summary": {"error": error, "warning": warning, "info": info},
    });
    crate::wire::exact::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

/// The report as JSON Lines, file by file (what `check` streams as each
/// file finishes).
pub fn render_lines(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for f in &report.files {
        file_lines(f, out)?;
    }
    Ok(())
}

/// One file's JSON Lines records: `file`, then a `session` per session,
/// then a `finding` per finding.
pub fn file_lines(f: &FileReport, out: &mut dyn Write) -> io::Result<()> {
    let [info, warning, error] = f.tally();
    let mut head = record("file", &f.path);
    head.insert("format".into(), f.format.into());
    head.insert("bytes".into(), f.read.bytes.into());
    head.insert("lines".into(), f.read.lines.into());
    // Microseconds, so that a small file does not read as zero.
    head.insert(
        "seconds".into(),
        json!(f.read.elapsed.as_micros() as f64 / 1e6),
    );
    head.insert("sessions".into(), f.sessions.len().into());
    head.insert(
        "summary".into(),
        json!({"error": error, "warning": warning, "info": info}),
    );
    if let Some(m) = &f.message {
        head.insert("message".into(), message(m));
    }
    if let Some(costs) = &f.tool_cost {
        head.insert("tool_cost".into(), super::stats_json::tool_cost(costs));
    }
    if let Some(undone) = &f.tool_schemas {
        head.insert("tool_schemas".into(), tool_schemas(undone));
    }
    line(head, out)?;
    for (i, s) in f.sessions.iter().enumerate() {
        let mut r = record("session", &f.path);
        r.insert("session".into(), i.into());
        if let Value::Object(fields) = session(s) {
            r.extend(fields);
        }
        line(r, out)?;
    }
    for found in &f.findings {
        let mut r = record("finding", &f.path);
        if let Value::Object(fields) = finding(found) {
            r.extend(fields);
        }
        line(r, out)?;
    }
    Ok(())
}

/// The JSON Lines record of a file that could not be read.
pub fn error_line(path: &str, message: &str, out: &mut dyn Write) -> io::Result<()> {
    let mut r = record("error", path);
    r.insert("message".into(), message.into());
    line(r, out)
}

/// A record's first fields: `type`, `version`, `path`.
fn record(kind: &str, path: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), kind.into());
    m.insert("version".into(), SCHEMA_VERSION.into());
    m.insert("path".into(), path.into());
    m
}

fn line(record: Map<String, Value>, out: &mut dyn Write) -> io::Result<()> {
    crate::wire::exact::to_writer(&mut *out, &Value::Object(record))?;
    out.write_all(b"\n")
}

fn file(f: &FileReport) -> Value {
    let mut doc = json!({
        "path": f.path,
        "format": f.format,
        "sessions": f.sessions.iter().map(session).collect::<Vec<_>>(),
        "findings": f.findings.iter().map(finding).collect::<Vec<_>>(),
    });
    if let Some(m) = &f.message {
        doc["message"] = message(m);
    }
    if let Some(costs) = &f.tool_cost {
        doc["tool_cost"] = super::stats_json::tool_cost(costs);
    }
    if let Some(undone) = &f.tool_schemas {
        doc["tool_schemas"] = tool_schemas(undone);
    }
    doc
}

fn tool_schemas(u: &crate::facts::schemas::Undone) -> Value {
    json!({
        "checked": u.checked,
        "skipped": u.skipped,
        "unread_listings": u.unread,
        "first_line": u.first_line,
    })
}

fn message(m: &MessageReport) -> Value {
    json!({
        "kind": m.kind,
        "direction": m.dir.map(|d| d.as_str()),
        "method": m.method,
        "id": m.id.as_ref().map(|id| id.to_json()),
        "revision": m.revision.as_str(),
        "cannot_show": m.cannot_show,
    })
}

fn implementation(i: &Option<Implementation>) -> Value {
    match i {
        Some(i) => json!({"name": i.name, "version": i.version}),
        None => Value::Null,
    }
}

pub(crate) fn session(s: &Summary) -> Value {
    let c = &s.counts;
    let mut v = json!({
        "name": s.name,
        "era": s.era.map(|e| e.as_str()),
        "protocol_version": s.protocol_version,
        "requested_version": s.requested_version,
        "revision": s.revision.map(|r| r.as_str()),
        "client": implementation(&s.client),
        "server": implementation(&s.server),
        "messages": {
            "client_to_server": c.messages[Side::Client as usize],
            "server_to_client": c.messages[Side::Server as usize],
            "unknown_direction": c.messages[Side::Unknown as usize],
            "server_stderr": c.stderr,
            "non_message_lines": c.noise.iter().sum::<u64>(),
        },
        "pending": s.pending.iter().map(|p| json!({
            "id": p.id.to_json(),
            "method": p.method,
            "direction": p.dir.as_str(),
            "line": p.line,
        })).collect::<Vec<_>>(),
        "pending_total": s.pending_total,
        "first_line": s.first_line,
        "last_line": s.last_line,
        "mid_session": s.mid_session,
    });
    // Only when the era was read off a log without its handshake.
    if let (Some((line, what)), Some(obj)) = (s.era_evidence, v.as_object_mut()) {
        obj.insert("era_evidence".into(), json!({"line": line, "what": what}));
    }
    v
}

pub(crate) fn finding(f: &Finding) -> Value {
    let mut m = Map::new();
    m.insert("rule".into(), f.rule.name().into());
    m.insert("severity".into(), f.severity.as_str().into());
    m.insert("session".into(), f.session.into());
    m.insert("line".into(), f.line.into());
    if let Some(file) = &f.file {
        m.insert("file".into(), file.clone().into());
    }
    m.insert("message".into(), f.message.clone().into());
    if let Some(t) = &f.time {
        m.insert("time".into(), (*t.text).into());
    }
    if let Some(d) = f.dir {
        m.insert("direction".into(), d.as_str().into());
    }
    if let Some(id) = &f.id {
        m.insert("id".into(), id.to_json());
    }
    if let Some(method) = &f.method {
        m.insert("method".into(), method.clone().into());
    }
    if let Some(subject) = &f.subject {
        m.insert("subject".into(), subject.clone().into());
    }
    if !f.related.is_empty() {
        m.insert("related".into(), f.related.clone().into());
    }
    Value::Object(m)
}

/// The rule catalogue as JSON: `{"version": 1, "rules": [{"name", "severity",
/// "group", "revisions", "summary", "why", "fix", "spec", "example"}]}`.
pub fn rules(rules: &[Rule], out: &mut dyn Write) -> io::Result<()> {
    let list: Vec<Value> = rules
        .iter()
        .map(|r| {
            let i = r.info();
            json!({
                "name": i.name,
                "severity": i.severity.as_str(),
                "group": i.group.as_str(),
                "revisions": i.revisions.to_string(),
                "summary": i.summary,
                "why": i.why,
                "fix": i.fix,
                "spec": i.spec,
                "example": i.example,
            })
        })
        .collect();
    serde_json::to_writer_pretty(
        &mut *out,
        &json!({"version": SCHEMA_VERSION, "rules": list}),
    )?;
    out.write_all(b"\n")
}
