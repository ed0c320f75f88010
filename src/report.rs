//! The report: what `check` found in each input, as plain data for the
//! renderers. Knows no output format.

use crate::finding::Finding;
use crate::protocol::Revision;
use crate::rules::Severity;
use crate::session::Summary;
use crate::wire::dir::Dir;
use crate::wire::message::RequestId;

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
        for f in self.files.iter().flat_map(|f| &f.findings) {
            t[f.severity as usize] += 1;
        }
        t
    }
}
