//! Findings: plain data saying which rule fired where, and the collector that
//! keeps them bounded.
//!
//! A finding stores a location and a short message (excerpts of the log are
//! capped by [`crate::text::excerpt`]), never a whole line.

use crate::facts::hash::IndexMap;
use crate::protocol::Revision;
use crate::rules::{Rule, Severity};
use crate::wire::dir::Dir;
use crate::wire::message::RequestId;
use crate::wire::time::Timestamp;

/// One rule break (or analysis note) at one place in a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    /// Index of the session within its file.
    pub session: usize,
    /// 1-based line in the input file.
    pub line: u64,
    /// The file the line is in, when a report covers several files (a
    /// three-file `tee` capture); `None` for the report's own file.
    pub file: Option<String>,
    pub time: Option<Timestamp>,
    /// Who wrote the line the finding points at.
    pub dir: Option<Dir>,
    pub id: Option<RequestId>,
    pub method: Option<String>,
    /// The tool, prompt or resource (name or URI) the request is about,
    /// when the finding is about one.
    pub subject: Option<String>,
    /// Other lines involved (the earlier use of an id, the request a
    /// response answers, the end of a multi-line message).
    pub related: Vec<u64>,
    /// Lowercase, specific, no trailing period.
    pub message: String,
}

impl Finding {
    pub fn new(rule: Rule, line: u64, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            severity: rule.severity(),
            session: 0,
            line,
            file: None,
            time: None,
            dir: None,
            id: None,
            method: None,
            subject: None,
            related: Vec::new(),
            message: message.into(),
        }
    }

    pub fn time(mut self, time: Option<&Timestamp>) -> Finding {
        self.time = time.cloned();
        self
    }

    /// Lowers or raises the rule's default severity when `cond` holds.
    pub fn dir(mut self, dir: Dir) -> Finding {
        self.dir = Some(dir);
        self
    }

    pub fn id(mut self, id: Option<&RequestId>) -> Finding {
        self.id = id.cloned();
        self
    }

    pub fn method(mut self, method: Option<&str>) -> Finding {
        self.method = method.map(str::to_owned);
        self
    }

    pub fn subject(mut self, subject: Option<&str>) -> Finding {
        self.subject = subject.map(str::to_owned);
        self
    }

    pub fn related(mut self, line: u64) -> Finding {
        self.related.push(line);
        self
    }
}

/// How many findings of one rule a file lists before it only counts them.
pub const PER_RULE_LIMIT: usize = 200;

/// How often a rule fired in a file: in all, where first, and how many of
/// each severity are listed.
#[derive(Debug)]
struct Tally {
    total: usize,
    first_line: u64,
    /// Listed, by [`Severity`] (info, warning, error).
    listed: [usize; 3],
}

impl Tally {
    fn new(first_line: u64) -> Tally {
        Tally {
            total: 0,
            first_line,
            listed: [0; 3],
        }
    }
}

fn slot(severity: Severity) -> usize {
    match severity {
        Severity::Info => 0,
        Severity::Warning => 1,
        Severity::Error => 2,
    }
}

/// Collects the findings of one file, at most [`PER_RULE_LIMIT`] per rule
/// and severity: a rule whose severity varies (`invalid-id-type` is info for
/// `1.0`, an error for `7.5`) lists its errors even after 200 notes, so the
/// cap never hides a more severe finding (nor the exit status it sets).
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<Finding>,
    /// In the order the rules first fired (the order of the limit's notes);
    /// hashed with foldhash, as it is asked for every finding.
    per_rule: IndexMap<Rule, Tally>,
    session: usize,
    /// The revision what is pushed now is judged by, while the session
    /// judges a message: a rule whose catalogue row does not apply to it is
    /// not reported ([`Findings::judge_under`]).
    under: Option<Revision>,
}

impl Findings {
    /// Sets the session index stamped on findings from now on.
    pub fn set_session(&mut self, session: usize) {
        self.session = session;
    }

    /// The catalogue's gate: until the next call, a finding of a rule whose
    /// row's revisions do not include `revision` is dropped (`None`: the
    /// revision is not known, and nothing is dropped). The session sets it
    /// to the revision each message is judged by and clears it when done,
    /// so this is the one place a row's revision range is applied.
    pub fn judge_under(&mut self, revision: Option<Revision>) {
        self.under = revision;
    }

    /// Whether the gate lets `rule` through ([`Findings::judge_under`]).
    fn applies(&self, rule: Rule) -> bool {
        self.under
            .is_none_or(|revision| rule.info().revisions.applies(revision))
    }

    /// Whether a finding of `rule` at `severity` would still be listed
    /// (under the limit). When it would not, [`Findings::count`] records it
    /// without the cost of building its message.
    pub fn wants(&self, rule: Rule, severity: Severity) -> bool {
        self.per_rule
            .get(&rule)
            .is_none_or(|t| t.listed[slot(severity)] < PER_RULE_LIMIT)
    }

    /// Counts a finding of `rule` at `line` without listing it.
    pub fn count(&mut self, rule: Rule, line: u64) {
        if !self.applies(rule) {
            return;
        }
        self.per_rule
            .entry(rule)
            .or_insert_with(|| Tally::new(line))
            .total += 1;
    }

    /// Pushes the finding `build` makes, of `rule` at `severity`: past the
    /// rule's limit it is counted as [`Findings::push`] would count it,
    /// without being built (its words, excerpts and copies cost
    /// far more than the count; a log past the limit has thousands).
    pub fn push_with(&mut self, rule: Rule, severity: Severity, build: impl FnOnce() -> Finding) {
        if !self.applies(rule) {
            return;
        }
        // Past the limit: what `count` does, the rule's tally found once.
        if let Some(tally) = self.per_rule.get_mut(&rule) {
            if tally.listed[slot(severity)] >= PER_RULE_LIMIT {
                tally.total += 1;
                return;
            }
        }
        self.push(build());
    }

    pub fn push(&mut self, mut finding: Finding) {
        if !self.applies(finding.rule) {
            return;
        }
        finding.session = self.session;
        let tally = self
            .per_rule
            .entry(finding.rule)
            .or_insert_with(|| Tally::new(finding.line));
        tally.total += 1;
        let listed = &mut tally.listed[slot(finding.severity)];
        if *listed < PER_RULE_LIMIT {
            *listed += 1;
            self.list.push(finding);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The findings listed so far, in the order they were pushed (a caller
    /// that remembers the length sees what is new since).
    pub fn listed(&self) -> &[Finding] {
        &self.list
    }

    /// The first listed finding that matches, to amend it (e.g. with a count).
    pub fn find_mut(&mut self, pred: impl Fn(&Finding) -> bool) -> Option<&mut Finding> {
        self.list.iter_mut().find(|f| pred(f))
    }

    /// The findings sorted by line (those of one line in the order they
    /// were found, a `too-many-findings` note after them), with that note
    /// for each rule that went over the limit.
    pub fn finish(mut self) -> Vec<Finding> {
        for (rule, tally) in &self.per_rule {
            let listed: usize = tally.listed.iter().sum();
            if tally.total > listed {
                let (count, first_line) = (tally.total, tally.first_line);
                let of_each = if tally.listed.iter().filter(|n| **n > 0).count() > 1 {
                    format!(" (at most {PER_RULE_LIMIT} of each severity)")
                } else {
                    String::new()
                };
                let mut note = Finding::new(
                    Rule::TooManyFindings,
                    first_line,
                    format!(
                        "{rule} fired {count} times; the first {listed} are listed{of_each}, {} more are not",
                        count - listed
                    ),
                );
                note.session = self.session;
                self.list.push(note);
            }
        }
        // Stable: findings on one line keep the order they were found in.
        self.list
            .sort_by_key(|f| (f.line, f.rule == Rule::TooManyFindings));
        self.list
    }
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
        findings.into_iter().filter_map(|f| self.one(f)).collect()
    }

    /// One finding as it is reported: `None` when it is not selected or
    /// turned off, else with its severity overridden.
    pub fn one(&self, mut f: Finding) -> Option<Finding> {
        f.severity = self.level(f.rule, f.severity)?;
        Some(f)
    }

    /// The severity a finding of `rule` found at `found` is reported with,
    /// or `None` when the rule is not reported at all.
    pub fn level(&self, rule: Rule, found: Severity) -> Option<Severity> {
        if !self.select.is_empty() && !self.select.contains(&rule) || self.ignore.contains(&rule) {
            return None;
        }
        match self.severity.iter().rev().find(|(r, _)| *r == rule) {
            Some((_, level)) => *level,
            None => Some(found),
        }
    }
}
