//! `mcpdbg check`: runs the pipeline over one input.
//!
//! reader -> transport -> session -> findings, one record at a time. This is
//! the only place that wires the stages together; it does no rendering.

use std::io::{self, Read};

use indexmap::IndexMap;

use crate::finding::{Finding, Findings};
use crate::reader::{self, Format};
use crate::report::FileReport;
use crate::rules::{Rule, Severity};
use crate::session::{Config, Session, Summary};
use crate::transport::{Item, Transport};

/// Options for checking one input.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub session: Config,
    /// Forces an input format instead of detecting it.
    pub format: Option<Format>,
    /// Which rules to report, and at what severity.
    pub filter: Filter,
}

/// `--select`, `--ignore` and `--severity`: which findings to keep and how
/// severe they are.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only these rules (empty: all).
    pub select: Vec<Rule>,
    pub ignore: Vec<Rule>,
    /// Severity overrides; `None` turns the rule off.
    pub severity: Vec<(Rule, Option<Severity>)>,
}

impl Filter {
    /// Keeps the selected findings and applies the severity overrides.
    pub fn apply(&self, findings: Vec<Finding>) -> Vec<Finding> {
        findings
            .into_iter()
            .filter(|f| self.select.is_empty() || self.select.contains(&f.rule))
            .filter(|f| !self.ignore.contains(&f.rule))
            .filter_map(|mut f| {
                match self.severity.iter().rev().find(|(rule, _)| *rule == f.rule) {
                    Some((_, None)) => return None,
                    Some((_, Some(level))) => f.severity = *level,
                    None => {}
                }
                Some(f)
            })
            .collect()
    }
}

/// Opens a session for a source: the session and its index in the report.
type NewSession<'a> = dyn Fn(&mut Vec<Option<Summary>>, &Option<Box<str>>) -> (Session, usize) + 'a;

/// One session source's pipeline state.
struct Lane {
    transport: Transport,
    session: Session,
    /// The session's index in the report.
    index: usize,
}

impl Lane {
    /// Hands the transport's items to the session; a recorder's `# start`
    /// event after traffic closes the session and opens a new one.
    fn feed(
        &mut self,
        items: &mut Vec<Item>,
        findings: &mut Findings,
        sessions: &mut Vec<Option<Summary>>,
        key: &Option<Box<str>>,
        new_session: &NewSession,
    ) {
        for item in items.drain(..) {
            if let Item::Event { text, .. } = &item {
                if text.trim_start().starts_with("start") && !self.session.is_empty() {
                    let (fresh, index) = new_session(sessions, key);
                    let done = std::mem::replace(&mut self.session, fresh);
                    sessions[self.index] = Some(done.finish(findings));
                    self.index = index;
                    findings.set_session(index);
                }
            }
            self.session.observe(item, findings);
        }
    }
}

/// Checks one input. `Err` only when reading fails; bad content is findings.
pub fn check(path: &str, input: Box<dyn Read>, options: &Options) -> io::Result<FileReport> {
    let (format, records, lines_read) = reader::open_counted(input, options.format)?;
    let mut findings = Findings::default();
    // One lane per session source: a log that interleaves several servers
    // (Claude Desktop's mcp.log) is several independent sessions.
    let mut lanes: IndexMap<Option<Box<str>>, Lane> = IndexMap::new();
    let mut sessions: Vec<Option<Summary>> = Vec::new();
    let mut items = Vec::new();
    let new_session = |sessions: &mut Vec<Option<Summary>>, name: &Option<Box<str>>| {
        sessions.push(None);
        let mut session = Session::new(options.session.clone());
        session.set_name(name.as_deref());
        (session, sessions.len() - 1)
    };
    for record in records {
        let record = record?;
        let key = record.source.clone();
        if !lanes.contains_key(&key) {
            let (session, index) = new_session(&mut sessions, &key);
            lanes.insert(
                key.clone(),
                Lane {
                    transport: Transport::new(),
                    session,
                    index,
                },
            );
        }
        let lane = lanes.get_mut(&key).expect("inserted above");
        findings.set_session(lane.index);
        lane.transport.push(record, &mut findings, &mut items);
        lane.feed(&mut items, &mut findings, &mut sessions, &key, &new_session);
    }
    if lanes.is_empty() {
        let key = None;
        let (session, index) = new_session(&mut sessions, &key);
        lanes.insert(
            key,
            Lane {
                transport: Transport::new(),
                session,
                index,
            },
        );
    }
    for (key, mut lane) in lanes {
        findings.set_session(lane.index);
        lane.transport.finish(&mut findings, &mut items);
        lane.feed(&mut items, &mut findings, &mut sessions, &key, &new_session);
        sessions[lane.index] = Some(lane.session.finish(&mut findings));
    }
    let sessions: Vec<Summary> = sessions.into_iter().flatten().collect();
    let last_line = lines_read.get();
    if let Some(forced) = options.format.filter(|_| last_line > 0) {
        if sessions
            .iter()
            .all(|s| s.counts.messages.iter().sum::<u64>() == 0)
        {
            findings.set_session(0);
            findings.push(Finding::new(
                Rule::FormatAssumption,
                1,
                format!(
                    "no message was read from {last_line} lines with --input {forced}: is it the right format? (without --input the format is detected)"
                ),
            ));
        }
    }
    Ok(FileReport {
        path: path.to_string(),
        format: format.as_str(),
        sessions,
        findings: options.filter.apply(findings.finish()),
        message: None,
    })
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
> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
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
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"complete\",\"tools\":[]}}}}\n\
             > {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{{meta}}}}}\n\
             < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"resultType\":\"complete\",\"tools\":[]}}}}\n"
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
        let t = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
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
        assert_eq!(report.format, "ndjson");
        let counts = report.sessions[0].counts.messages;
        assert_eq!(counts, [3, 2, 0], "client, server, unknown");
        let rules: Vec<_> = report.findings.iter().map(|f| f.rule.name()).collect();
        assert_eq!(rules, vec!["direction-inferred"]);
    }
}
