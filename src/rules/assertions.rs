//! The assertions family: contracts the user states on the command line or
//! in the configuration file (`--expect-tool`, `--forbid-tool`,
//! `--max-latency`, `--require-complete`, `--max-result-bytes`), each
//! failure a finding of its own rule (`expected-tool-not-called`,
//! `forbidden-tool-called`, `latency-over-budget`, `request-not-completed`,
//! `result-over-budget`), so that every output and `--fail-on` carry it.
//! They are not protocol rules: each runs only when its assertion is given.
//!
//! It re-decides nothing: a request's latency, and whether it includes the
//! server's start, is the timing family's ([`timing::latency`],
//! [`timing::with_start`]); which requests are still open at the end is
//! the session's hang model, which hands them over ([`Incomplete`]). Its
//! own state: for each expected tool, whether it was called and where it
//! was first listed, handed from a session to the next one of the same
//! server ([`State::hand_over`]) so that a restarted server is judged over
//! all its sessions; and the answers `--max-latency` could not judge
//! because the log has no time for them. Bounded by the assertions given.

use std::io;

use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

use crate::facts::{Facts, Open};
use crate::rules::ctx::Ctx;
use crate::rules::finding::{Finding, Findings};
use crate::rules::{Rule, timing};
use crate::text::{duration, excerpt};
use crate::wire::dir::Dir;
use crate::wire::message::{Field, RequestId};
use crate::wire::time::At;

/// The assertions given: what the session must and must not do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Assertions {
    /// `--expect-tool`: tools the session must call.
    pub expect_tools: IndexSet<String>,
    /// `--forbid-tool`: tools the session must not call.
    pub forbid_tools: IndexSet<String>,
    /// `--max-latency SECONDS`: the budget of every request the client sends.
    pub max_latency: Option<f64>,
    /// `--max-latency NAME=SECONDS`: a tool's (its `tools/call`s) or a
    /// method's own budget, which wins over [`Assertions::max_latency`].
    pub latency_for: IndexMap<String, f64>,
    /// `--require-complete`: every request answered by the end.
    pub require_complete: bool,
    /// `--max-result-bytes`: the largest `tools/call` result.
    pub max_result_bytes: Option<u64>,
}

impl Assertions {
    /// No assertion is given.
    pub fn is_empty(&self) -> bool {
        self.rules().is_empty()
    }

    /// The rules the given assertions can fire (the test cases JUnit lists).
    pub fn rules(&self) -> Vec<Rule> {
        [
            (Rule::ExpectedToolNotCalled, !self.expect_tools.is_empty()),
            (Rule::ForbiddenToolCalled, !self.forbid_tools.is_empty()),
            (
                Rule::LatencyOverBudget,
                self.max_latency.is_some() || !self.latency_for.is_empty(),
            ),
            (Rule::RequestNotCompleted, self.require_complete),
            (Rule::ResultOverBudget, self.max_result_bytes.is_some()),
        ]
        .into_iter()
        .filter_map(|(rule, given)| given.then_some(rule))
        .collect()
    }

    /// A request's budget and the name it was given for (`None`: the
    /// default): its tool's own (a `tools/call`), else its method's, else
    /// the default.
    fn budget<'a>(
        &'a self,
        method: &str,
        tool: Option<&crate::facts::SubjectText>,
    ) -> Option<(f64, Option<&'a str>)> {
        if self.latency_for.is_empty() {
            // No budget named (the default): nothing to look up.
            return self.max_latency.map(|s| (s, None));
        }
        let named = tool
            .filter(|_| method == "tools/call")
            .and_then(|t| self.latency_for.get_key_value(&**t))
            .or_else(|| self.latency_for.get_key_value(method));
        match named {
            Some((name, seconds)) => Some((*seconds, Some(name.as_str()))),
            None => self.max_latency.map(|s| (s, None)),
        }
    }
}

/// What the family remembers of a session.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The expected tools' tally; `None` when no tool is expected, or once
    /// handed over to the next session of the same server.
    tally: Option<Box<Tally>>,
    /// Answers `--max-latency` could not judge for lack of a time: how
    /// many, and the first one's line.
    untimed: Option<(u64, u64)>,
}

/// The expected tools, over the sessions of one server.
#[derive(Debug)]
struct Tally {
    /// Per tool of [`Assertions::expect_tools`], in its order: called, and
    /// where the first `tools/list` answer that listed it is.
    tools: Vec<(bool, Option<At>)>,
    /// The line of the first `tools/list` answer.
    first_listing: Option<u64>,
    /// How many sessions it covers.
    sessions: u32,
}

/// A request still open at the end that the hang model reports (as
/// `unanswered-request` or `cancelled-request`), as the session hands it
/// over for `--require-complete`.
pub(crate) struct Incomplete {
    pub(crate) line: u64,
    pub(crate) time: Option<crate::wire::time::Timestamp>,
    /// Who sent it.
    pub(crate) dir: Dir,
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) subject: Option<String>,
    pub(crate) cancelled: bool,
}

/// How many incomplete requests one `request-not-completed` names.
const NAMED: usize = 5;

impl State {
    pub(crate) fn new(asserts: &Assertions) -> State {
        State {
            tally: (!asserts.expect_tools.is_empty()).then(|| {
                Box::new(Tally {
                    tools: vec![(false, None); asserts.expect_tools.len()],
                    first_listing: None,
                    sessions: 1,
                })
            }),
            untimed: None,
        }
    }

    /// The session ends and the next one of the same server begins: the
    /// expected tools are judged over both, at the end of the last.
    pub(crate) fn hand_over(&mut self, next: &mut State) {
        if let Some(mut tally) = self.tally.take() {
            tally.sessions += 1;
            next.tally = Some(tally);
        }
    }

    /// A client's `tools/call`: an expected tool is called; a forbidden
    /// one is a finding at the call.
    pub(crate) fn call(&mut self, asserts: &Assertions, ctx: &mut Ctx<'_>) {
        if asserts.expect_tools.is_empty() && asserts.forbid_tools.is_empty() {
            return;
        }
        let Some(name) = ctx
            .msg()
            .params()
            .and_then(|p| p.field("name"))
            .and_then(Value::as_str)
        else {
            return;
        };
        if let (Some(i), Some(tally)) = (asserts.expect_tools.get_index_of(name), &mut self.tally) {
            tally.tools[i].0 = true;
        }
        if asserts.forbid_tools.contains(name) {
            let id = ctx
                .msg()
                .id
                .id()
                .map_or(String::new(), |id| format!(" (id {id})"));
            ctx.fire(
                Rule::ForbiddenToolCalled,
                format!(
                    "the client called `{}`{id}, a tool --forbid-tool forbids",
                    excerpt(name)
                ),
            );
        }
    }

    /// A client request answered (the answer is `ctx`'s message): its
    /// latency against its budget, a `tools/call` result's size, the
    /// expected tools a `tools/list` answer lists.
    pub(crate) fn answered(
        &mut self,
        asserts: &Assertions,
        facts: &Facts,
        open: &Open,
        ctx: &mut Ctx<'_>,
    ) {
        if let Some((budget, named)) = asserts.budget(&open.method, open.subject.as_ref()) {
            // A handshake sent as the server starts includes the start:
            // only a budget named for its method judges it.
            if named.is_some() || !timing::with_start(facts, open) {
                self.latency(budget, named, open, ctx);
            }
        }
        match &*open.method {
            "tools/call" => {
                if let Some(limit) = asserts.max_result_bytes {
                    result_size(limit, open, ctx);
                }
            }
            "tools/list" => {
                if let (Some(tally), Some(tools)) = (
                    &mut self.tally,
                    ctx.msg()
                        .result()
                        .and_then(|r| r.field("tools"))
                        .and_then(Value::as_array),
                ) {
                    let at = ctx.at();
                    tally.first_listing.get_or_insert(at.line);
                    for name in tools.iter().filter_map(|t| t.field("name")?.as_str()) {
                        if let Some(i) = asserts.expect_tools.get_index_of(name) {
                            tally.tools[i].1.get_or_insert_with(|| at.clone());
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn latency(&mut self, budget: f64, named: Option<&str>, open: &Open, ctx: &mut Ctx<'_>) {
        let at = ctx.at();
        let Some(took) = timing::latency(open, at) else {
            let untimed = self.untimed.get_or_insert((0, at.line));
            untimed.0 += 1;
            return;
        };
        if took <= budget {
            return;
        }
        let (took_text, budget_text) = match (duration(took), duration(budget)) {
            // Shown alike: the difference is below what they show.
            (a, b) if a == b => (format!("{took:.3} s"), format!("{budget:.3} s")),
            pair => pair,
        };
        let whose = match named {
            Some(name) => format!("`{}`'s --max-latency budget", excerpt(name)),
            None => "the --max-latency budget".to_string(),
        };
        let text = format!(
            "{} was answered after {took_text}, over {whose} of {budget_text}",
            request_words(open, ctx.msg().id.id()),
        );
        let finding = ctx
            .finding(Rule::LatencyOverBudget, text)
            .method(Some(&open.method))
            .subject(open.subject.as_deref())
            .related(open.line);
        ctx.push(finding);
    }

    /// The session ends at `end` (its last line): the answers latency was
    /// not judged for, the requests not completed (`incomplete`, from the
    /// hang model), and the expected tools never called, unless they were
    /// handed over to a next session.
    pub(crate) fn finish(
        &mut self,
        asserts: &Assertions,
        end: &At,
        mut incomplete: Vec<Incomplete>,
        findings: &mut Findings,
    ) {
        if let Some((count, line)) = self.untimed {
            findings.push(Finding::new(
                Rule::FormatAssumption,
                line,
                format!(
                    "--max-latency could not be judged for {count} answer{} (the first at line {line}): the log has no time for them or their requests, and a latency needs both",
                    if count == 1 { "" } else { "s" }
                ),
            ));
        }
        if asserts.require_complete && !incomplete.is_empty() {
            incomplete.sort_by_key(|r| r.line);
            findings.push(not_completed(&incomplete, end.line));
        }
        if let Some(tally) = self.tally.take() {
            for (name, (called, listed)) in asserts.expect_tools.iter().zip(&tally.tools) {
                if !called {
                    findings.push(not_called(name, listed.as_ref(), &tally, end));
                }
            }
        }
    }
}

/// A request as findings name it: `` `tools/call` "add" (id 2, line 7) ``.
fn request_words(open: &Open, id: Option<&RequestId>) -> String {
    let what = match open.subject.as_deref() {
        Some(s) => format!("`{}` {s:?}", open.method),
        None => format!("`{}`", open.method),
    };
    match id {
        Some(id) => format!("{what} (id {id}, line {})", open.line),
        None => format!("{what} (line {})", open.line),
    }
}

/// A `tools/call` answer's `result` against `--max-result-bytes`.
fn result_size(limit: u64, open: &Open, ctx: &mut Ctx<'_>) {
    let msg = ctx.msg();
    // A host's summary holds no result to measure.
    if msg.partial {
        return;
    }
    let Some(result) = msg.whole_result() else {
        return;
    };
    let size = json_size(&result);
    if size <= limit {
        return;
    }
    let at_least = if msg.cut { "at least " } else { "" };
    let cut = if msg.cut { " (the log cut it)" } else { "" };
    let text = format!(
        "{} returned a result of {at_least}{size} bytes{cut}, over the --max-result-bytes budget of {limit} bytes",
        request_words(open, msg.id.id()),
    );
    let finding = ctx
        .finding(Rule::ResultOverBudget, text)
        .method(Some(&open.method))
        .subject(open.subject.as_deref())
        .related(open.line);
    ctx.push(finding);
}

/// The bytes of `value` written as compact JSON, counted as it is written.
fn json_size(value: &Value) -> u64 {
    struct Count(u64);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that cannot fail does not fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The one `request-not-completed` of a session: at the first incomplete
/// request (`list`, sorted by line), naming up to [`NAMED`] of them.
fn not_completed(list: &[Incomplete], end_line: u64) -> Finding {
    let first = &list[0];
    let named: Vec<String> = list
        .iter()
        .take(NAMED)
        .map(|r| {
            let what = match &r.subject {
                Some(s) => format!("`{}` {s:?}", r.method),
                None => format!("`{}`", r.method),
            };
            let how = if r.cancelled {
                "cancelled"
            } else {
                "never answered"
            };
            format!(
                "{} {what} (id {}, line {}, {how})",
                r.dir.writer(),
                r.id,
                r.line
            )
        })
        .collect();
    let more = match list.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    let count = match list.len() {
        1 => "1 request was".to_string(),
        n => format!("{n} requests were"),
    };
    let mut finding = Finding::new(
        Rule::RequestNotCompleted,
        first.line,
        format!(
            "{count} not completed when the session ended (line {end_line}), which --require-complete forbids: {}{more}",
            named.join("; ")
        ),
    )
    .time(first.time.as_ref())
    .dir(first.dir)
    .id(Some(&first.id))
    .method(Some(&first.method))
    .subject(first.subject.as_deref());
    finding.related = list
        .iter()
        .skip(1)
        .take(NAMED - 1)
        .map(|r| r.line)
        .collect();
    finding
}

/// The `expected-tool-not-called` of `name`: at the first answer that
/// listed it, else at the end of the (last) session.
fn not_called(name: &str, listed: Option<&At>, tally: &Tally, end: &At) -> Finding {
    let sessions = match tally.sessions {
        1 => "the session".to_string(),
        n => format!("the server's {n} sessions in this log"),
    };
    let head = format!(
        "{sessions} never called `{}`, which --expect-tool expects",
        excerpt(name)
    );
    let (line, text) = match (listed, tally.first_listing) {
        (Some(at), _) => (at.line, format!("{head}; the server listed it here")),
        (None, Some(first)) => (
            end.line,
            format!(
                "{head}, and the server's tools/list answers (the first at line {first}) never listed it"
            ),
        ),
        (None, None) => (
            end.line,
            format!("{head}; no tools/list answer is in the log"),
        ),
    };
    let mut finding = Finding::new(Rule::ExpectedToolNotCalled, line, text).subject(Some(name));
    match listed {
        Some(at) => {
            finding = finding
                .time(at.time.as_ref())
                .dir(Dir::ServerToClient)
                .method(Some("tools/list"));
        }
        None => finding = finding.time(end.time.as_ref()),
    }
    if let (None, Some(first)) = (listed, tally.first_listing) {
        finding = finding.related(first);
    }
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(log: &str, asserts: Assertions) -> Vec<Finding> {
        let mut options = crate::pipeline::Options::default();
        options.session.assertions = asserts;
        let input = Box::new(std::io::Cursor::new(log.as_bytes().to_vec()));
        crate::pipeline::check("t.log", input, &options)
            .expect("a report")
            .findings
    }

    fn of(found: &[Finding], rule: Rule) -> Vec<(u64, String)> {
        found
            .iter()
            .filter(|f| f.rule == rule)
            .map(|f| (f.line, f.message.clone()))
            .collect()
    }

    const LOG: &str = "\
2026-11-02T09:00:00.000Z # start python server.py
2026-11-02T09:00:00.000Z > {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}
2026-11-02T09:00:03.000Z < {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}
2026-11-02T09:00:03.100Z > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}
2026-11-02T09:00:03.100Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}
2026-11-02T09:00:03.200Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\"}}]}}
2026-11-02T09:00:03.300Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{}}}
2026-11-02T09:00:03.500Z < {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3\"}]}}
";

    /// The budget of a request: its tool's own, else its method's, else the
    /// default; a handshake sent as the server starts only by its method's.
    #[test]
    fn a_named_budget_wins_and_the_start_is_judged_only_by_its_own() {
        let mut asserts = Assertions {
            max_latency: Some(0.15),
            ..Assertions::default()
        };
        let found = findings(LOG, asserts.clone());
        // add took 200 ms (line 8); initialize 3 s with the start: not judged.
        let over = of(&found, Rule::LatencyOverBudget);
        assert_eq!(over.len(), 1, "{found:#?}");
        assert_eq!(over[0].0, 8);
        assert!(
            over[0]
                .1
                .contains("`tools/call` \"add\" (id 2, line 7) was answered after 200 ms, over the --max-latency budget of 150 ms"),
            "{}",
            over[0].1
        );
        asserts.latency_for.insert("add".into(), 0.25);
        asserts.latency_for.insert("initialize".into(), 2.0);
        let found = findings(LOG, asserts);
        let over = of(&found, Rule::LatencyOverBudget);
        assert_eq!(over.len(), 1, "{found:#?}");
        assert_eq!(over[0].0, 3);
        assert!(
            over[0]
                .1
                .contains("over `initialize`'s --max-latency budget of 2.0 s"),
            "{}",
            over[0].1
        );
    }

    #[test]
    fn expected_tools_are_located_where_listed_or_at_the_end() {
        let asserts = Assertions {
            expect_tools: ["add", "slow", "nope"]
                .map(String::from)
                .into_iter()
                .collect(),
            ..Assertions::default()
        };
        let found = of(&findings(LOG, asserts), Rule::ExpectedToolNotCalled);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(found[0].0, 6);
        assert!(found[0].1.contains("never called `slow`"), "{}", found[0].1);
        assert_eq!(found[1].0, 8);
        assert!(
            found[1]
                .1
                .contains("the server's tools/list answers (the first at line 6) never listed it"),
            "{}",
            found[1].1
        );
    }

    #[test]
    fn result_sizes_are_compact_json_bytes() {
        let size = r#"{"content":[{"type":"text","text":"3"}]}"#.len() as u64;
        let at = |limit: u64| {
            let asserts = Assertions {
                max_result_bytes: Some(limit),
                ..Assertions::default()
            };
            of(&findings(LOG, asserts), Rule::ResultOverBudget)
        };
        assert!(at(size).is_empty());
        let over = at(size - 1);
        assert_eq!(over.len(), 1);
        assert!(
            over[0].1.contains(&format!("a result of {size} bytes")),
            "{}",
            over[0].1
        );
    }
}
