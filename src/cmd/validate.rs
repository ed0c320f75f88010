//! `mcpdbg validate`: one message on its own.
//!
//! The message goes through the same transport and message rules as a line of
//! a session (`transport`, `checks`), under a revision and a direction given on
//! the command line (or inferred from the method table). What needs a whole
//! session (pairing, ordering, the handshake, negotiated capabilities) cannot
//! be judged, and the report says so instead of guessing. No I/O.

use crate::facts::pairing::Pairing;
use crate::protocol::Revision;
use crate::reader::{Body, Record};
use crate::report::{FileReport, MessageReport};
use crate::rules::checks::{self, Context};
use crate::rules::finding::Findings;
use crate::transport::{Item, Transport};
use crate::wire::dir::Dir;
use crate::wire::dir::Side;
use crate::wire::message::{Kind, Message};

/// How to judge the message.
#[derive(Clone, Debug)]
pub struct ValidateOptions {
    pub revision: Revision,
    /// Who sent it; inferred from the method when not given.
    pub side: Option<Side>,
    /// For a response: the method of the request it answers.
    pub answers: Option<String>,
}

/// Validates one message (the bytes of an argument or of standard input).
pub fn validate(name: &str, input: &[u8], options: &ValidateOptions) -> FileReport {
    // A trailing newline is how a message ends on the wire, not part of it.
    let input = input.strip_suffix(b"\n").unwrap_or(input);
    let given = options.side.map(Side::dir).unwrap_or(Dir::Unknown);
    let mut findings = Findings::default();
    let mut transport = Transport::new();
    let mut items = Vec::new();
    let lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let count = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        let record = Record {
            line: i as u64 + 1,
            time: None,
            body: Body::Line {
                dir: given,
                bytes: line.to_vec().into(),
            },
            // The input is the whole message: its end is the message's end,
            // newline or not (a message cut short is broken JSON, not a
            // stream that stopped mid-line).
            terminated: true,
            source: None,
        };
        transport.push(record, &mut findings, &mut items);
    }
    transport.finish(&mut findings, &mut items);

    let mut report = MessageReport {
        kind: "not a message",
        dir: options.side.map(Side::dir),
        method: None,
        id: None,
        revision: options.revision,
        cannot_show: Vec::new(),
    };
    for item in items {
        match item {
            Item::Message { at, msg, .. } => {
                let side = options.side.unwrap_or_else(|| infer(&msg));
                report.kind = kind_name(&msg);
                report.dir = Some(side.dir());
                report.method = msg.method.clone();
                report.id = msg.id.id().cloned();
                judge(&msg, side, at.line, options, &mut findings);
            }
            Item::Batch { at, items, .. } => {
                report.kind = "batch";
                if let Some(f) = checks::batch_alone(at.line, &items, options.revision) {
                    findings.push(f);
                }
                for msg in items.into_iter().flatten() {
                    let side = options.side.unwrap_or_else(|| infer(&msg));
                    judge(&msg, side, at.line, options, &mut findings);
                }
            }
            Item::Stderr { .. } | Item::Noise { .. } | Item::Event { .. } => {}
        }
    }
    if report.kind == "not a message" && findings.is_empty() {
        // Text with no known sender is not reported by the transport.
        let text = String::from_utf8_lossy(&input[..input.len().min(800)]).into_owned();
        findings.push(crate::rules::framing::not_json_input(&text));
    }
    report.cannot_show = cannot_show(&report, options);
    FileReport {
        path: name.to_string(),
        format: "message",
        sessions: Vec::new(),
        findings: findings.finish(),
        message: Some(report),
        read: crate::report::Reading {
            bytes: input.len() as u64,
            lines: count as u64,
            elapsed: Default::default(),
        },
        tool_cost: None,
        tool_schemas: None,
    }
}

/// The sender of a message on its own: the pairing component's inference
/// with nothing open (a request or notification by the method table).
fn infer(msg: &Message) -> Side {
    Pairing::<()>::default().infer_sender(msg)
}

fn kind_name(msg: &Message) -> &'static str {
    match msg.kind {
        Kind::Request => "request",
        Kind::Notification => "notification",
        Kind::Response if msg.is_error() => "error response",
        Kind::Response => "response",
    }
}

fn judge(msg: &Message, side: Side, line: u64, options: &ValidateOptions, findings: &mut Findings) {
    let context = Context {
        revision: Some(options.revision),
        era: Some(options.revision.era()),
        side,
        request_method: options.answers.as_deref(),
    };
    for hit in checks::message(msg, &context) {
        let finding = hit
            .finding(line)
            .dir(side.dir())
            .id(msg.id.id())
            .method(msg.method.as_deref().or(options.answers.as_deref()));
        findings.push(finding);
    }
    // Capabilities a message declares that its revision does not have.
    let caps = match (msg.method.as_deref(), msg.kind) {
        (Some("initialize"), Kind::Request) => msg
            .params()
            .and_then(|p| p.get("capabilities"))
            .map(|c| (c, Side::Client)),
        (None, Kind::Response) if options.answers.as_deref() == Some("initialize") => msg
            .result()
            .and_then(|r| r.get("capabilities"))
            .map(|c| (c, Side::Server)),
        _ => None,
    };
    if let Some((caps, owner)) = caps {
        for f in crate::rules::capabilities::revision_findings(caps, owner, options.revision, line)
        {
            findings.push(f);
        }
    }
}

/// What this message alone cannot tell.
fn cannot_show(report: &MessageReport, options: &ValidateOptions) -> Vec<String> {
    let mut notes = vec![
        "id reuse, ordering and pairing with other messages (use `mcpdbg check` on a session)"
            .to_string(),
        "whether the capability this message relies on was negotiated".to_string(),
    ];
    if report.method.as_deref() == Some("tools/call") {
        notes.push("whether the tool's own input schema accepts the arguments".to_string());
    }
    if report.kind.contains("response") && options.answers.is_none() {
        notes.push("which request a response answers, so its result shape is not checked (give --answers METHOD)".to_string());
    }
    if options.side.is_none() && report.dir == Some(Dir::Unknown) {
        notes.push("who sent it (give --dir c2s or --dir s2c)".to_string());
    }
    notes
}

/// `mcpdbg validate`: one message (from the argument, or standard input
/// when `message` is `None` or `-`), judged and reported like `check`.
pub fn run(
    message: Option<&str>,
    options: &ValidateOptions,
    output: &super::Output,
) -> std::io::Result<crate::exit::ExitStatus> {
    use std::io::{IsTerminal, Read};
    let (name, bytes) = match message {
        Some(text) if text != "-" => ("<argument>", text.as_bytes().to_vec()),
        _ => {
            // One message is at most a line: more than the line limit is
            // refused, not held.
            let limit = crate::reader::max_line() as u64;
            let mut buf = Vec::new();
            if std::io::stdin().is_terminal() {
                crate::say!("mcpdbg: reading a message from standard input (end it with Ctrl-D)");
                super::Typed::new(std::io::stdin().lock())
                    .take(limit + 1)
                    .read_to_end(&mut buf)?;
            } else {
                std::io::stdin().take(limit + 1).read_to_end(&mut buf)?;
            }
            if buf.len() as u64 > limit {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "standard input holds more than {limit} bytes, the line limit (MCPDBG_MAX_LINE): validate reads one message; check reads a log"
                    ),
                ));
            }
            ("-", buf)
        }
    };
    let report = crate::report::Report {
        files: vec![validate(name, &bytes, options)],
    };
    super::emit(&report, output, &crate::pipeline::Filter::default(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(message: &str, revision: Revision) -> Vec<&'static str> {
        let options = ValidateOptions {
            revision,
            side: None,
            answers: None,
        };
        validate("m", message.as_bytes(), &options)
            .findings
            .iter()
            .map(|f| f.rule.name())
            .collect()
    }

    #[test]
    fn the_issue_examples() {
        let latest = Revision::LATEST;
        assert_eq!(
            rules(
                r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}"#,
                latest
            ),
            vec!["null-id"]
        );
        assert_eq!(
            rules(
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
                Revision::V2025_06_18
            ),
            vec!["batch"]
        );
        assert_eq!(
            rules(
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","args":{"path":"/tmp/a"}}}"#,
                Revision::V2025_06_18
            ),
            vec!["args-not-arguments"]
        );
        assert_eq!(
            rules(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/List"}"#,
                Revision::V2025_06_18
            ),
            vec!["unknown-method"]
        );
    }

    #[test]
    fn transport_problems_are_reported_too() {
        assert_eq!(
            // The input is the whole message: cut short, it is broken JSON.
            rules("{\"jsonrpc\":\"2.0\",\"id\":1,", Revision::LATEST),
            vec!["invalid-json"]
        );
        assert_eq!(
            rules(
                "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}",
                Revision::V2025_06_18
            ),
            vec!["multi-line-json"]
        );
        assert_eq!(rules("hello", Revision::LATEST), vec!["stray-output"]);
    }
}
