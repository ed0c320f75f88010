//! The report: what `check` found in each input, as plain data for the
//! renderers. Knows no output format.

use std::time::Duration;

use crate::cost::ToolCosts;
pub use crate::facts::{Counts, Implementation};
use crate::protocol::Era;
use crate::protocol::Revision;
use crate::rules::Severity;
use crate::rules::finding::Finding;
use crate::wire::dir::Dir;
use crate::wire::message::RequestId;
use crate::wire::time::Timestamp;

/// The analysis of one input file (or, for `validate`, one message).
#[derive(Debug)]
pub struct FileReport {
    /// As the user named it; `-` for standard input.
    pub path: String,
    /// The input format's name (`native`, `ndjson`, or `message` for `validate`).
    pub format: &'static str,
    pub sessions: Vec<Summary>,
    /// Sorted by line.
    pub findings: Vec<Finding>,
    /// What `validate` made of its one message.
    pub message: Option<MessageReport>,
    /// How much was read, and how long the check took.
    pub read: Reading,
    /// `probe`: what the server's tools cost a model's context
    /// (`crate::cost`); `None` for the other commands.
    pub tool_cost: Option<ToolCosts>,
    /// What the tool-schema checks left undone past their work budget
    /// (`None`: nothing).
    pub tool_schemas: Option<crate::facts::schemas::Undone>,
}

/// How much of an input was read and how long its check took (the JSON
/// Lines `file` record). The pipeline counts the lines; `check` counts the
/// bytes (as stored: before decompression) and times the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub bytes: u64,
    /// Lines read (decompressed; in a three-file capture, of all its files).
    pub lines: u64,
    /// From opening the file to its report; zero when not timed.
    pub elapsed: Duration,
}

/// One message on its own, as `mcpdbg validate` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageReport {
    /// `request`, `notification`, `response`, `error response`, `batch` or
    /// `not a message`.
    pub kind: &'static str,
    pub dir: Option<Dir>,
    pub method: Option<String>,
    pub id: Option<RequestId>,
    /// The revision the rules were judged under.
    pub revision: Revision,
    /// What one message cannot show, in words.
    pub cannot_show: Vec<String>,
}

/// The analysis of every input, in the order given.
#[derive(Debug, Default)]
pub struct Report {
    pub files: Vec<FileReport>,
}

impl Report {
    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.files
            .iter()
            .flat_map(|f| &f.findings)
            .map(|f| f.severity)
            .max()
    }

    /// How many findings have each severity: `[info, warning, error]`.
    pub fn tally(&self) -> [usize; 3] {
        let mut t = [0; 3];
        for f in &self.files {
            for (total, n) in t.iter_mut().zip(f.tally()) {
                *total += n;
            }
        }
        t
    }
}

impl FileReport {
    /// How many of this file's findings have each severity: `[info,
    /// warning, error]`.
    pub fn tally(&self) -> [usize; 3] {
        let mut t = [0; 3];
        for f in &self.findings {
            t[f.severity as usize] += 1;
        }
        t
    }

    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
}

/// A request still open when the log ended.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRequest {
    pub id: RequestId,
    pub method: String,
    pub dir: Dir,
    pub line: u64,
}

/// What the session established, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The server's name, in logs that interleave several servers.
    pub name: Option<String>,
    pub era: Option<Era>,
    pub requested_version: Option<String>,
    pub protocol_version: Option<String>,
    /// The revision the rules were gated on.
    pub revision: Option<Revision>,
    pub client: Option<Implementation>,
    pub server: Option<Implementation>,
    pub counts: Counts,
    /// The first [`PENDING_LISTED`] requests still open at the end.
    pub pending: Vec<OpenRequest>,
    /// How many requests were still open at the end (listed or not).
    pub pending_total: usize,
    pub first_line: Option<u64>,
    pub last_line: Option<u64>,
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    pub mid_session: bool,
    /// In a log without its handshake, the line whose 2026-only shape
    /// showed the era, and what it was.
    pub era_evidence: Option<(u64, &'static str)>,
}
