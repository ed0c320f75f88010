//! `mcpdbg check`: runs the pipeline over one input.
//!
//! reader -> transport -> session -> findings, one record at a time. This is
//! the only place that wires the stages together; it does no rendering.
//! [`Checker`] is the same pipeline fed record by record, for `--follow`.

use std::io::{self, Read};

use crate::finding::{Finding, Findings};
use crate::reader::{self, Format, Record};
use crate::report::FileReport;
use crate::session::{Config, Session, Summary};
use crate::transport::{Item, Transport};

/// Options for checking one input.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub session: Config,
    /// Forces an input format instead of detecting it.
    pub format: Option<Format>,
}

/// Checks one input. `Err` only when reading fails; bad content is findings.
pub fn check(path: &str, input: Box<dyn Read>, options: &Options) -> io::Result<FileReport> {
    let (format, records) = reader::open(input, options.format)?;
    let mut checker = Checker::new(options);
    for record in records {
        checker.push(record?, &mut |_| {});
    }
    Ok(checker.finish(path, format, &mut |_| {}))
}

/// The pipeline of one input, fed one record at a time: what [`check`] runs
/// over a whole file, and what `check --follow` feeds as a file grows.
pub struct Checker {
    config: Config,
    transport: Transport,
    session: Session,
    findings: Findings,
    sessions: Vec<Summary>,
    items: Vec<Item>,
}

impl Checker {
    pub fn new(options: &Options) -> Checker {
        Checker {
            config: options.session.clone(),
            transport: Transport::new(),
            session: Session::new(options.session.clone()),
            findings: Findings::default(),
            sessions: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Takes one record. `each` sees every item the record yields before the
    /// session takes it (the views pair requests from the same items).
    pub fn push(&mut self, record: Record, each: &mut dyn FnMut(&Item)) {
        self.transport
            .push(record, &mut self.findings, &mut self.items);
        self.feed(each);
    }

    /// The findings listed so far, in the order they were found.
    pub fn findings(&self) -> &[Finding] {
        self.findings.listed()
    }

    /// Ends the input: flushes the transport, turns what is still open into
    /// hangs and returns the report.
    pub fn finish(mut self, path: &str, format: Format, each: &mut dyn FnMut(&Item)) -> FileReport {
        self.transport.finish(&mut self.findings, &mut self.items);
        self.feed(each);
        self.sessions.push(self.session.finish(&mut self.findings));
        FileReport {
            path: path.to_string(),
            format,
            sessions: self.sessions,
            findings: self.findings.finish(),
        }
    }

    fn feed(&mut self, each: &mut dyn FnMut(&Item)) {
        for item in self.items.drain(..) {
            each(&item);
            // A recorder's `# start` event after traffic opens a new session.
            if let Item::Event { text, .. } = &item {
                if text.trim_start().starts_with("start") && !self.session.is_empty() {
                    let done =
                        std::mem::replace(&mut self.session, Session::new(self.config.clone()));
                    self.sessions.push(done.finish(&mut self.findings));
                    self.findings.set_session(self.sessions.len());
                }
            }
            self.session.observe(item, &mut self.findings);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks a transcript and returns `(rule, line)` for every finding.
    fn findings(transcript: &str) -> Vec<(&'static str, u64)> {
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(transcript.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("in-memory read");
        report
            .findings
            .iter()
            .map(|f| (f.rule.name(), f.line))
            .collect()
    }

    const INIT: &str = r#"# start
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

    fn with_init(rest: &str) -> String {
        format!("{INIT}{rest}")
    }

    #[test]
    fn both_sides_may_use_the_same_small_ids() {
        let t = with_init(
            r#"< {"jsonrpc":"2.0","id":0,"method":"roots/list"}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
> {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&t), vec![]);
    }

    #[test]
    fn id_reuse_after_completion_depends_on_the_revision() {
        let legacy = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&legacy), vec![("id-reuse", 7)]);
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let modern = format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[]}}}}\n\
             > {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[]}}}}\n"
        );
        assert_eq!(findings(&modern), vec![]);
    }

    #[test]
    fn ids_are_compared_as_exact_json_values() {
        let t = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
> {"jsonrpc":"2.0","id":"1","method":"tools/list"}
< {"jsonrpc":"2.0","id":"1","result":{"tools":[]}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"#,
        );
        assert_eq!(findings(&t), vec![]);
    }

    #[test]
    fn a_mid_session_capture_stays_quiet_about_what_it_cannot_know() {
        let t = r#"> {"jsonrpc":"2.0","id":9,"method":"tools/list"}
< {"jsonrpc":"2.0","id":8,"result":{"tools":[]}}
< {"jsonrpc":"2.0","id":9,"result":{"tools":[]}}
> [{"jsonrpc":"2.0","id":10,"method":"ping"}]
< {"jsonrpc":"2.0","id":10,"result":{}}
"#;
        assert_eq!(findings(t), vec![("starts-mid-session", 1)]);
    }

    #[test]
    fn discover_probe_then_fallback_is_valid() {
        let t = r#"> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
        assert_eq!(findings(t), vec![]);
    }

    #[test]
    fn a_start_event_after_traffic_opens_a_new_session() {
        let t = format!("{INIT}{INIT}");
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.into_bytes())),
            &Options::default(),
        )
        .expect("read");
        assert_eq!(report.sessions.len(), 2);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
    }

    #[test]
    fn a_hang_names_what_the_owing_side_did_next() {
        let t = with_init(
            r#"> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
! RuntimeError: worker died
# server exited with status 1
"#,
        );
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.into_bytes())),
            &Options::default(),
        )
        .expect("read");
        let hang = &report.findings[0];
        assert_eq!((hang.rule.name(), hang.line), ("unanswered-request", 5));
        for part in [
            "`tools/call` \"slow\" (id 1)",
            "server owes the reply",
            "answered 1 later request",
            "RuntimeError: worker died",
            "server exited with status 1",
        ] {
            assert!(
                hang.message.contains(part),
                "{part:?} missing from {:?}",
                hang.message
            );
        }
    }

    #[test]
    fn plain_logs_infer_directions() {
        let t = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":0,"method":"roots/list"}
{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
"#;
        let report = check(
            "t",
            Box::new(std::io::Cursor::new(t.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("read");
        assert_eq!(report.format, Format::Ndjson);
        let counts = report.sessions[0].counts.messages;
        assert_eq!(counts, [3, 2, 0], "client, server, unknown");
        let rules: Vec<_> = report.findings.iter().map(|f| f.rule.name()).collect();
        assert_eq!(rules, vec!["direction-inferred"]);
    }
}
