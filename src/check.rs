//! `mcpdbg check`: runs the pipeline over one input.
//!
//! reader -> transport -> session -> findings, one record at a time. This is
//! the only place that wires the stages together; it does no rendering.

use std::io::{self, Read};

use crate::finding::Findings;
use crate::reader::{self, Format};
use crate::report::FileReport;
use crate::session::{Config, Session};
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
    let mut findings = Findings::default();
    let mut transport = Transport::new();
    let mut session = Session::new(options.session.clone());
    let mut sessions = Vec::new();
    let mut items = Vec::new();
    let feed = |items: &mut Vec<Item>,
                session: &mut Session,
                findings: &mut Findings,
                sessions: &mut Vec<_>| {
        for item in items.drain(..) {
            // A recorder's `# start` event after traffic opens a new session.
            if let Item::Event { text, .. } = &item {
                if text.trim_start().starts_with("start") && !session.is_empty() {
                    let done = std::mem::replace(session, Session::new(options.session.clone()));
                    sessions.push(done.finish(findings));
                    findings.set_session(sessions.len());
                }
            }
            session.observe(item, findings);
        }
    };
    for record in records {
        transport.push(record?, &mut findings, &mut items);
        feed(&mut items, &mut session, &mut findings, &mut sessions);
    }
    transport.finish(&mut findings, &mut items);
    feed(&mut items, &mut session, &mut findings, &mut sessions);
    sessions.push(session.finish(&mut findings));
    Ok(FileReport {
        path: path.to_string(),
        format,
        sessions,
        findings: findings.finish(),
    })
}
