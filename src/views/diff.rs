//! Two captured sessions -> a [`Comparison`] (`mcpdbg diff`, and the report
//! of `mcpdbg replay`).
//!
//! Pure: no I/O, no clock. Compares the handshake, the tool, resource and
//! prompt lists, and each client request of the first log with its match in
//! the second (same method, in order, preferring equal params). Result
//! differences are named by JSON path (`result.content[0].text`), and
//! `--ignore` patterns drop volatile paths. The verdict says whether the
//! second session behaves as the first (or, with [`Expect::Fixed`], whether
//! its hangs and errors are gone and nothing else changed).

use std::collections::BTreeSet;

use indexmap::IndexMap;
use serde_json::Value;

use crate::views::capture::{Capture, Exchange, Outcome};

/// What the second session is expected to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The same behaviour as the first.
    Same,
    /// The first one's hangs and errors are gone; nothing else changed.
    Fixed,
}

/// The request rows the verdict counts (`--id`, `--method`, `--tool`): a
/// row counts when it matches any of them; with none given, every row
/// counts. The session-wide differences (handshake, lists, new rules,
/// replay notes) count whatever the target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// Recorded ids.
    pub ids: Vec<crate::wire::message::RequestId>,
    /// Methods; `tools/*` matches a prefix.
    pub methods: Vec<String>,
    /// Tools, prompts or resources: the row's subject.
    pub tools: Vec<String>,
}

impl Target {
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.methods.is_empty() && self.tools.is_empty()
    }

    /// Whether the verdict counts this row.
    pub fn counts(&self, r: &Row) -> bool {
        if self.is_empty() {
            return true;
        }
        let id = r.before.as_ref().or(r.after.as_ref()).map(|s| &s.id);
        let method = |p: &String| match p.strip_suffix('*') {
            Some(prefix) => r.method.starts_with(prefix),
            None => *p == r.method,
        };
        id.is_some_and(|id| self.ids.contains(id))
            || self.methods.iter().any(method)
            || r.subject.as_ref().is_some_and(|s| self.tools.contains(s))
    }

    /// The target in words, for the verdict: `id 8, tool wait_for_ever`.
    pub fn describe(&self) -> String {
        let ids = self.ids.iter().map(|i| format!("id {i}"));
        let methods = self.methods.iter().map(|m| format!("method {m}"));
        let tools = self.tools.iter().map(|t| format!("tool {t}"));
        ids.chain(methods)
            .chain(tools)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A path pattern for `--ignore`: `result.meta.time`, `result.content[*].text`,
/// `*.timestamp`. `*` and `[*]` match any one member or index; a pattern
/// matches a path and everything under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern(Vec<String>);

impl Pattern {
    pub fn parse(text: &str) -> Pattern {
        Pattern(segments(text))
    }

    fn matches(&self, path: &[String]) -> bool {
        self.0.len() <= path.len()
            && self
                .0
                .iter()
                .zip(path)
                .all(|(p, s)| p == s || p == "*" || (p == "[*]" && s.starts_with('[')))
    }
}

/// Splits `a.b[0]["c d"]` into `a`, `b`, `[0]`, `c d`.
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '[' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                let mut inner = String::new();
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    inner.push(c);
                }
                match serde_json::from_str::<String>(&inner) {
                    Ok(key) => out.push(key),
                    Err(_) => out.push(format!("[{inner}]")),
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Joins segments back into a path: identifiers with `.`, other keys quoted.
fn join(path: &[String]) -> String {
    let mut out = String::new();
    for s in path {
        if s.starts_with('[') {
            out.push_str(s);
        } else if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(s);
        } else {
            out.push('[');
            out.push_str(&Value::from(s.as_str()).to_string());
            out.push(']');
        }
    }
    out
}

/// One difference between two JSON values.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub path: String,
    /// `None`: absent on that side.
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// The differences between `a` and `b` under `root`, leaves first in
/// document order, without the ignored paths.
pub fn json_diff(root: &str, a: &Value, b: &Value, ignore: &[Pattern]) -> Vec<Change> {
    let mut out = Vec::new();
    let mut path = segments(root);
    walk(&mut path, Some(a), Some(b), ignore, &mut out);
    out
}

fn walk(
    path: &mut Vec<String>,
    a: Option<&Value>,
    b: Option<&Value>,
    ignore: &[Pattern],
    out: &mut Vec<Change>,
) {
    if a == b || ignore.iter().any(|p| p.matches(path)) {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: Vec<&String> = x
                .keys()
                .chain(y.keys().filter(|k| !x.contains_key(*k)))
                .collect();
            for k in keys {
                path.push(k.clone());
                walk(path, x.get(k), y.get(k), ignore, out);
                path.pop();
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                path.push(format!("[{i}]"));
                walk(path, x.get(i), y.get(i), ignore, out);
                path.pop();
            }
        }
        _ => out.push(Change {
            path: join(path),
            before: a.cloned(),
            after: b.cloned(),
        }),
    }
}

/// What became of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// The same error (or `isError` result) in both: the same behaviour, but
    /// not fixed.
    SameError,
    DifferentResult,
    DifferentError,
    /// An error (or `isError` result) now, a success before.
    ErrorNow,
    /// A success now, an error (or `isError` result) before.
    ErrorGone,
    HangReproduced,
    HangGone,
    NewHang,
    /// Only in the first session.
    Missing,
    /// Only in the second session.
    Extra,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::SameError => "same error",
            Verdict::DifferentResult => "different result",
            Verdict::DifferentError => "different error",
            Verdict::ErrorNow => "error now",
            Verdict::ErrorGone => "error before",
            Verdict::HangReproduced => "hang reproduced",
            Verdict::HangGone => "hang gone",
            Verdict::NewHang => "new hang",
            Verdict::Missing => "missing",
            Verdict::Extra => "extra",
        }
    }

    /// Whether this counts as a difference under `expect`.
    pub fn differs(self, expect: Expect) -> bool {
        match expect {
            Expect::Same => !matches!(
                self,
                Verdict::Same | Verdict::SameError | Verdict::HangReproduced
            ),
            Expect::Fixed => {
                !matches!(self, Verdict::Same | Verdict::HangGone | Verdict::ErrorGone)
            }
        }
    }
}

/// One side of a request row.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub line: u64,
    pub id: crate::wire::message::RequestId,
    /// `result`, `error CODE`, `isError`, `no answer` (a row holds two:
    /// the usual words are not allocated).
    pub outcome: std::borrow::Cow<'static, str>,
    pub latency: Option<f64>,
}

/// A client request in both sessions.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub method: String,
    pub subject: Option<String>,
    pub before: Option<Side>,
    pub after: Option<Side>,
    pub verdict: Verdict,
    pub changes: Vec<Change>,
    pub params_changed: bool,
    /// The request was answered in the second session, but only after the
    /// replay's timeout: counted as a hang.
    pub late: bool,
    /// `slower` or `faster` when the latency at least doubled or halved and
    /// moved by 100 ms or more (shown, not counted as a difference).
    pub latency: Option<&'static str>,
}

/// Methods whose results the handshake and list sections compare: their
/// rows compare only the outcome.
const COMPARED_ELSEWHERE: [&str; 5] = [
    "initialize",
    "server/discover",
    "tools/list",
    "resources/list",
    "prompts/list",
];

fn latency_change(before: Option<f64>, after: Option<f64>) -> Option<&'static str> {
    let (a, b) = (before?, after?);
    if (b - a).abs() < 0.1 {
        None
    } else if b >= 2.0 * a {
        Some("slower")
    } else if a >= 2.0 * b {
        Some("faster")
    } else {
        None
    }
}

/// A change in a tool, resource or prompt list.
#[derive(Clone, Debug, PartialEq)]
pub struct ListChange {
    /// `tools`, `resources`, `prompts`.
    pub list: &'static str,
    pub name: String,
    /// `added`, `removed`, `changed`.
    pub change: &'static str,
    pub changes: Vec<Change>,
}

/// What the two sessions are, for the report's header.
#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    /// `diff` or `replay`.
    pub kind: &'static str,
    pub before: (String, &'static str),
    pub after: (String, &'static str),
    /// The server command a replay ran.
    pub command: Option<String>,
}

/// The comparison of two sessions.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub expect: Expect,
    pub handshake: Vec<Change>,
    pub lists: Vec<ListChange>,
    /// Items per list in each session (`None` when never listed).
    pub list_sizes: Vec<(&'static str, Option<usize>, Option<usize>)>,
    pub rows: Vec<Row>,
    /// Rule name -> number of findings, per session.
    pub findings_before: IndexMap<String, usize>,
    pub findings_after: IndexMap<String, usize>,
    /// Notes about the second session that are differences in themselves
    /// (a server request the replay had no answer for).
    pub notes: Vec<String>,
    /// The rows the verdict counts.
    pub target: Target,
    /// Requests past the limit of requests taken from each log
    /// (`--max-requests`): counted, not compared. `None` when none was.
    pub left_out: Option<LeftOut>,
}

/// The requests a comparison left out, per log, past `max_requests`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeftOut {
    pub before: u64,
    pub after: u64,
    pub max_requests: usize,
}

impl LeftOut {
    /// In words, for the text output.
    pub fn describe(&self) -> String {
        let n = crate::text::thousands(self.max_requests as u64);
        format!(
            "compared the first {n} requests of each log; not compared: {} more before, {} more after (--max-requests raises the limit)",
            crate::text::thousands(self.before),
            crate::text::thousands(self.after),
        )
    }
}

/// Rules whose changes the request rows already show, or that depend on
/// the clock of one run.
const ROW_RULES: [&str; 3] = ["unanswered-request", "cancelled-request", "slow-response"];

impl Comparison {
    /// Rules that fire only in the second session (besides the ones the
    /// request rows show, and the assertion rules, whose failures `replay`
    /// lists as notes).
    pub fn new_rules(&self) -> Vec<&str> {
        self.findings_after
            .keys()
            .filter(|r| !self.findings_before.contains_key(*r) && !ROW_RULES.contains(&r.as_str()))
            .filter(|r| !crate::rules::Rule::from_name(r).is_some_and(|r| r.needs_assertion()))
            .map(String::as_str)
            .collect()
    }

    /// Rules that fired only in the first session.
    pub fn gone_rules(&self) -> Vec<&str> {
        self.findings_before
            .keys()
            .filter(|r| !self.findings_after.contains_key(*r))
            .map(String::as_str)
            .collect()
    }

    /// The rows the verdict counts (indices in `rows`).
    pub fn counted(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&i| self.target.counts(&self.rows[i]))
            .collect()
    }

    /// The number of differences that make the exit status 1.
    pub fn differences(&self) -> usize {
        let rows = self
            .rows
            .iter()
            .filter(|r| self.target.counts(r))
            .filter(|r| {
                r.verdict.differs(self.expect)
                    || (r.params_changed
                        && r.verdict != Verdict::Missing
                        && r.verdict != Verdict::Extra)
            })
            .count();
        self.handshake.len() + self.lists.len() + rows + self.new_rules().len() + self.notes.len()
    }

    /// `same`, `fixed` or `differs`.
    pub fn verdict(&self) -> &'static str {
        match (self.differences(), self.expect) {
            (0, Expect::Same) => "same",
            (0, Expect::Fixed) => "fixed",
            _ => "differs",
        }
    }
}

/// Rule name -> number of findings of a `check` report.
pub fn rule_counts(findings: &[crate::rules::finding::Finding]) -> IndexMap<String, usize> {
    let mut out = IndexMap::new();
    for f in findings {
        *out.entry(f.rule.name().to_string()).or_insert(0) += 1;
    }
    out
}

/// Compares two sessions. `late` holds the indices of requests of `a` that
/// the replay gave up waiting for.
pub fn compare(
    a: &Capture,
    b: &Capture,
    ignore: &[Pattern],
    expect: Expect,
    late: &BTreeSet<usize>,
) -> Comparison {
    let handshake = handshake(a, b, ignore);
    let (lists, list_sizes) = lists(a, b, ignore);
    Comparison {
        expect,
        handshake,
        lists,
        list_sizes,
        rows: rows(a, b, ignore, late),
        findings_before: IndexMap::new(),
        findings_after: IndexMap::new(),
        notes: Vec::new(),
        target: Target::default(),
        left_out: (a.left_out > 0 || b.left_out > 0).then(|| LeftOut {
            before: a.left_out,
            after: b.left_out,
            max_requests: a.max_requests.min(b.max_requests),
        }),
    }
}

fn handshake(a: &Capture, b: &Capture, ignore: &[Pattern]) -> Vec<Change> {
    let (x, y) = (&a.handshake, &b.handshake);
    let fields: [(&str, &Option<Value>, &Option<Value>); 6] = [
        ("protocolVersion", &x.protocol_version, &y.protocol_version),
        ("serverInfo", &x.server_info, &y.server_info),
        (
            "capabilities",
            &x.server_capabilities,
            &y.server_capabilities,
        ),
        ("instructions", &x.instructions, &y.instructions),
        ("clientInfo", &x.client_info, &y.client_info),
        (
            "clientCapabilities",
            &x.client_capabilities,
            &y.client_capabilities,
        ),
    ];
    let mut out = Vec::new();
    for (name, before, after) in fields {
        let mut path = vec![name.to_string()];
        walk(&mut path, before.as_ref(), after.as_ref(), ignore, &mut out);
    }
    out
}

const LISTS: [(&str, &str, &str); 3] = [
    ("tools/list", "tools", "name"),
    ("resources/list", "resources", "uri"),
    ("prompts/list", "prompts", "name"),
];

/// Every item the session listed, by key (pages joined; a later listing
/// replaces an earlier one's item).
fn listed(c: &Capture, method: &str, list: &str, key: &str) -> Option<IndexMap<String, Value>> {
    let mut out: Option<IndexMap<String, Value>> = None;
    for e in c.requests.iter().filter(|e| e.method == method) {
        let Outcome::Result(r) = &e.outcome else {
            continue;
        };
        let Some(items) = r.get(list).and_then(Value::as_array) else {
            continue;
        };
        let map = out.get_or_insert_with(IndexMap::new);
        for item in items {
            if let Some(k) = item.get(key).and_then(Value::as_str) {
                map.insert(k.to_string(), item.clone());
            }
        }
    }
    out
}

type Lists = (
    Vec<ListChange>,
    Vec<(&'static str, Option<usize>, Option<usize>)>,
);

fn lists(a: &Capture, b: &Capture, ignore: &[Pattern]) -> Lists {
    let mut changes = Vec::new();
    let mut sizes = Vec::new();
    for (method, list, key) in LISTS {
        let (x, y) = (listed(a, method, list, key), listed(b, method, list, key));
        sizes.push((
            list,
            x.as_ref().map(IndexMap::len),
            y.as_ref().map(IndexMap::len),
        ));
        let (Some(x), Some(y)) = (x, y) else {
            continue;
        };
        for (name, item) in &x {
            match y.get(name) {
                None => changes.push(ListChange {
                    list,
                    name: name.clone(),
                    change: "removed",
                    changes: Vec::new(),
                }),
                Some(other) => {
                    let diff = json_diff("", item, other, ignore);
                    if !diff.is_empty() {
                        changes.push(ListChange {
                            list,
                            name: name.clone(),
                            change: "changed",
                            changes: diff,
                        });
                    }
                }
            }
        }
        for name in y.keys().filter(|k| !x.contains_key(*k)) {
            changes.push(ListChange {
                list,
                name: name.clone(),
                change: "added",
                changes: Vec::new(),
            });
        }
    }
    (changes, sizes)
}

fn side(e: &Exchange) -> Side {
    let outcome = match &e.outcome {
        Outcome::Open if e.cancelled => "no answer (cancelled)".into(),
        Outcome::Open => "no answer".into(),
        Outcome::Error(err) => match err.get("code").and_then(Value::as_i64) {
            Some(code) => format!("error {code}").into(),
            None => "error".into(),
        },
        Outcome::Result(_) if e.failed() => "isError".into(),
        Outcome::Result(_) => "result".into(),
    };
    Side {
        line: e.line,
        id: e.id.clone(),
        outcome,
        latency: e.latency,
    }
}

/// Pairs the requests: for each request of `b`, the first unpaired request
/// of `a` with the same method and equal params, else the first unpaired one
/// with the same method (both in order).
fn pairs(a: &Capture, b: &Capture) -> Vec<(Option<usize>, Option<usize>)> {
    // Each request of `b` takes the first request of `a` left with the same
    // method and the same params, else the first left with the same method.
    // Queues with lazy removal keep this linear (a Vec's `remove` made a
    // million pings quadratic).
    let key = |e: &Exchange| e.params.as_ref().map(Value::to_string);
    let mut by_method: std::collections::HashMap<&str, std::collections::VecDeque<usize>> =
        std::collections::HashMap::new();
    let mut by_params: std::collections::HashMap<
        (&str, Option<String>),
        std::collections::VecDeque<usize>,
    > = std::collections::HashMap::new();
    for (i, e) in a.requests.iter().enumerate() {
        by_method.entry(e.method.as_str()).or_default().push_back(i);
        by_params
            .entry((e.method.as_str(), key(e)))
            .or_default()
            .push_back(i);
    }
    let mut pair_of_a: Vec<Option<usize>> = vec![None; a.requests.len()];
    let mut extra = Vec::new();
    let first_left = |queue: &mut std::collections::VecDeque<usize>, taken: &[Option<usize>]| {
        while let Some(&i) = queue.front() {
            if taken[i].is_none() {
                return Some(i);
            }
            queue.pop_front();
        }
        None
    };
    for (j, e) in b.requests.iter().enumerate() {
        let method = e.method.as_str();
        let same = by_params
            .get_mut(&(method, key(e)))
            .and_then(|q| first_left(q, &pair_of_a));
        let pick = same.or_else(|| {
            by_method
                .get_mut(method)
                .and_then(|q| first_left(q, &pair_of_a))
        });
        match pick {
            Some(i) => pair_of_a[i] = Some(j),
            None => extra.push(j),
        }
    }
    let mut out: Vec<(Option<usize>, Option<usize>)> = pair_of_a
        .into_iter()
        .enumerate()
        .map(|(i, j)| (Some(i), j))
        .collect();
    out.extend(extra.into_iter().map(|j| (None, Some(j))));
    out
}

/// `Same`, or `SameError` when the request failed in both sessions. The
/// error that answers the 2026 `server/discover` probe of a legacy server is
/// part of a normal handshake, not an error to fix.
fn same_error(x: &Exchange) -> Verdict {
    if x.failed() && x.method != "server/discover" {
        Verdict::SameError
    } else {
        Verdict::Same
    }
}

fn rows(a: &Capture, b: &Capture, ignore: &[Pattern], late: &BTreeSet<usize>) -> Vec<Row> {
    pairs(a, b)
        .into_iter()
        .filter_map(|(i, j)| {
            let x = i.map(|i| &a.requests[i]);
            let y = j.map(|j| &b.requests[j]);
            // Late: timed out in the replay, yet answered after all (a
            // request nothing answered is a hang, not a late answer).
            let late = i.is_some_and(|i| late.contains(&i))
                && y.is_some_and(|y| y.outcome != Outcome::Open);
            let base = x.or(y)?;
            let mut row = Row {
                method: base.method.clone(),
                subject: base.subject(),
                before: x.map(side),
                after: y.map(side),
                verdict: Verdict::Same,
                changes: Vec::new(),
                params_changed: false,
                late,
                latency: None,
            };
            let (Some(x), Some(y)) = (x, y) else {
                row.verdict = if x.is_some() {
                    Verdict::Missing
                } else {
                    Verdict::Extra
                };
                return Some(row);
            };
            row.params_changed = x.params != y.params && !x.partial && !y.partial;
            row.latency = latency_change(x.latency, y.latency);
            let compared =
                !x.partial && !y.partial && !COMPARED_ELSEWHERE.contains(&x.method.as_str());
            let after_open = late || y.outcome == Outcome::Open;
            row.verdict = match (&x.outcome, &y.outcome) {
                (Outcome::Open, _) if after_open => Verdict::HangReproduced,
                (Outcome::Open, _) => Verdict::HangGone,
                (_, _) if after_open => Verdict::NewHang,
                (_, _) if x.failed() && !y.failed() => Verdict::ErrorGone,
                (_, _) if !x.failed() && y.failed() => Verdict::ErrorNow,
                (Outcome::Error(e), Outcome::Error(f)) => {
                    if e.get("code") == f.get("code") {
                        same_error(x)
                    } else {
                        row.changes = json_diff("error", e, f, ignore);
                        Verdict::DifferentError
                    }
                }
                (Outcome::Result(r), Outcome::Result(s)) => {
                    if compared {
                        row.changes = json_diff("result", r, s, ignore);
                    }
                    if row.changes.is_empty() {
                        same_error(x)
                    } else {
                        Verdict::DifferentResult
                    }
                }
                _ => Verdict::DifferentResult,
            };
            Some(row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_name_members_and_indices() {
        let a = json!({"content": [{"type": "text", "text": "5"}], "a b": 1});
        let b = json!({"content": [{"type": "text", "text": "6"}], "extra": true});
        let d = json_diff("result", &a, &b, &[]);
        let paths: Vec<&str> = d.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            ["result.content[0].text", "result[\"a b\"]", "result.extra"]
        );
        assert_eq!(d[1].after, None);
    }

    #[test]
    fn ignore_patterns_match_a_path_and_what_is_under_it() {
        let a = json!({"meta": {"t": 1}, "content": [{"id": "x", "v": 1}]});
        let b = json!({"meta": {"t": 2}, "content": [{"id": "y", "v": 1}]});
        let ignore = [
            Pattern::parse("result.meta"),
            Pattern::parse("result.content[*].id"),
        ];
        assert!(json_diff("result", &a, &b, &ignore).is_empty());
        assert_eq!(json_diff("result", &a, &b, &ignore[..1]).len(), 1);
        assert!(json_diff("result", &a, &b, &[Pattern::parse("*")]).is_empty());
    }

    fn capture(text: &str) -> Capture {
        crate::views::capture::read(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            None,
        )
        .expect("in-memory capture")
    }

    #[test]
    fn a_timed_out_request_is_late_only_when_something_answered_it() {
        let before = capture(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\
             > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n",
        );
        // The replay: `a` answered after its timeout, `b` never.
        let after = capture(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n\
             > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n",
        );
        let timed_out: BTreeSet<usize> = [0, 1].into_iter().collect();
        let c = compare(&before, &after, &[], Expect::Same, &timed_out);
        let by = |name: &str| {
            c.rows
                .iter()
                .find(|r| r.subject.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("no row {name}: {:?}", c.rows))
        };
        assert!(by("a").late);
        assert_eq!(by("a").verdict, Verdict::NewHang);
        assert!(!by("b").late, "nothing answered b: {:?}", by("b"));
        assert_eq!(by("b").verdict, Verdict::NewHang);
    }

    #[test]
    fn verdicts_under_each_expectation() {
        assert!(!Verdict::HangReproduced.differs(Expect::Same));
        assert!(Verdict::HangReproduced.differs(Expect::Fixed));
        assert!(!Verdict::HangGone.differs(Expect::Fixed));
        assert!(Verdict::HangGone.differs(Expect::Same));
        assert!(Verdict::DifferentResult.differs(Expect::Fixed));
        assert!(!Verdict::SameError.differs(Expect::Same));
        assert!(Verdict::SameError.differs(Expect::Fixed));
    }
}
