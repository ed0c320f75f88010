//! OTLP/JSON: the spans of [`crate::views::otlp`] as one
//! `ExportTraceServiceRequest`, the file format the OpenTelemetry
//! Collector's `otlpjsonfile` receiver and OTLP/HTTP JSON endpoints take.
//!
//! Written as the spans come (memory does not grow with the log): the
//! document's `resourceSpans` holds one block per run of spans of one
//! session, with that session's resource; a log whose servers interleave
//! gets more blocks, each a valid part of the same request. Per the OTLP
//! JSON encoding: trace and span ids in lowercase hex, 64-bit integers as
//! decimal strings, enums as numbers.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::views::otlp::{Attr, KeyValue, Resource, Span, hex};

/// Writes one `ExportTraceServiceRequest`.
pub struct Writer {
    out: Box<dyn Write>,
    /// A block is open, for this file and session.
    open: Option<(usize, usize)>,
    /// Blocks written so far (a comma before the next).
    blocks: usize,
    /// Spans written in the open block.
    in_block: usize,
    /// Spans written in all.
    pub spans: u64,
}

impl Writer {
    pub fn new(mut out: Box<dyn Write>) -> io::Result<Writer> {
        out.write_all(b"{\"resourceSpans\":[")?;
        Ok(Writer {
            out,
            open: None,
            blocks: 0,
            in_block: 0,
            spans: 0,
        })
    }

    /// Writes `span` of file number `file`, opening a block with
    /// `resource` when the span's session differs from the open block's.
    pub fn span(
        &mut self,
        file: usize,
        span: &Span,
        resource: &dyn Fn(usize) -> Resource,
    ) -> io::Result<()> {
        if self.open != Some((file, span.session)) {
            self.close_block()?;
            if self.blocks > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(b"\n{\"resource\":")?;
            let resource = resource(span.session);
            serde_json::to_writer(
                &mut self.out,
                &json!({ "attributes": attributes(&resource.attributes) }),
            )?;
            self.out.write_all(b",\"scopeSpans\":[{\"scope\":")?;
            serde_json::to_writer(
                &mut self.out,
                &json!({"name": "mcpdbg", "version": env!("CARGO_PKG_VERSION")}),
            )?;
            self.out.write_all(b",\"spans\":[")?;
            self.open = Some((file, span.session));
            self.blocks += 1;
            self.in_block = 0;
        }
        if self.in_block > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n")?;
        serde_json::to_writer(&mut self.out, &span_json(span))?;
        self.in_block += 1;
        self.spans += 1;
        Ok(())
    }

    fn close_block(&mut self) -> io::Result<()> {
        if self.open.take().is_some() {
            self.out.write_all(b"]}]}")?;
        }
        Ok(())
    }

    /// Ends the document; hands the output back.
    pub fn finish(mut self) -> io::Result<Box<dyn Write>> {
        self.close_block()?;
        self.out.write_all(b"\n]}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn span_json(span: &Span) -> Value {
    let mut m = Map::new();
    m.insert("traceId".into(), hex(&span.trace).into());
    m.insert("spanId".into(), hex(&span.id).into());
    if let Some(parent) = span.parent {
        m.insert("parentSpanId".into(), hex(&parent).into());
    }
    m.insert("name".into(), span.name.clone().into());
    m.insert("kind".into(), (span.kind as u8).into());
    m.insert("startTimeUnixNano".into(), span.start.to_string().into());
    m.insert("endTimeUnixNano".into(), span.end.to_string().into());
    m.insert("attributes".into(), attributes(&span.attributes));
    if !span.events.is_empty() {
        let events: Vec<Value> = span
            .events
            .iter()
            .map(|e| {
                json!({
                    "timeUnixNano": e.time.to_string(),
                    "name": e.name,
                    "attributes": attributes(&e.attributes),
                })
            })
            .collect();
        m.insert("events".into(), events.into());
    }
    if let Some((trace, id)) = span.link {
        m.insert(
            "links".into(),
            json!([{"traceId": hex(&trace), "spanId": hex(&id)}]),
        );
    }
    m.insert(
        "status".into(),
        match &span.error {
            // STATUS_CODE_ERROR
            Some(message) => json!({"code": 2, "message": message}),
            None => json!({}),
        },
    );
    Value::Object(m)
}

fn attributes(list: &[KeyValue]) -> Value {
    list.iter()
        .map(|(key, value)| {
            let value = match value {
                Attr::Str(s) => json!({ "stringValue": s }),
                Attr::Int(n) => json!({ "intValue": n.to_string() }),
                Attr::Bool(b) => json!({ "boolValue": b }),
            };
            json!({ "key": key, "value": value })
        })
        .collect::<Vec<_>>()
        .into()
}
