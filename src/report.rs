//! The report: what `check` found in each input, as plain data for the
//! renderers. Knows no output format.

use crate::finding::Finding;
use crate::reader::Format;
use crate::rules::Severity;
use crate::session::Summary;

/// The analysis of one input file.
#[derive(Debug)]
pub struct FileReport {
    /// As the user named it; `-` for standard input.
    pub path: String,
    pub format: Format,
    pub sessions: Vec<Summary>,
    /// Sorted by line.
    pub findings: Vec<Finding>,
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
