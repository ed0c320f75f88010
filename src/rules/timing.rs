//! The timing family: `slow-response` (an answer slower than `--slow`, or
//! close to the client's own timeout as its cancels show it) and
//! `server-stalled` (the stall detector, [`stall`]). All time is the log's.

use crate::facts::{Facts, Open};
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::rules::finding::{Finding, Findings};
use crate::text::duration;
use crate::wire::dir::{Dir, Side};
use crate::wire::message::RequestId;
use crate::wire::time::At;
use crate::wire::time::Timestamp;

pub(crate) mod stall;

/// The least time a handshake request sent as the server starts (after a
/// recorder's `start` event) is judged against by `slow-response`: its
/// time includes the server's own start (an interpreter loading its SDK
/// takes seconds, more on a loaded machine), which the handler cannot
/// make faster. Hosts wait for `initialize` far longer than for a call.
const START_SLOW_SECONDS: f64 = 30.0;

/// A response that took this share of the client's timeout is slow.
const CLIENT_TIMEOUT_SHARE: f64 = 0.8;

/// What the family remembers: answer times and silences, and the
/// client's timeout once a cancel showed it.
#[derive(Default)]
pub(crate) struct State {
    /// Stalls: the server's silences, answer times per tool (bounded).
    stalls: stall::Stalls,
    /// The client's timeout, when a cancel showed it: seconds, the cancel's
    /// line and its reason.
    client_timeout: Option<(f64, u64, Box<str>)>,
}

impl State {
    /// A message at `time`: a stall being judged may end.
    pub(crate) fn tick(&mut self, time: Option<&Timestamp>, findings: &mut Findings) {
        let mut judged = Vec::new();
        self.stalls.tick(time, &mut judged);
        for f in judged {
            findings.push(f);
        }
    }

    /// The stalls confirmed so far (bounded), for hang stories.
    pub(crate) fn stalls(&self) -> &std::collections::VecDeque<stall::Stall> {
        &self.stalls.confirmed
    }

    /// The server wrote at `time`.
    pub(crate) fn wrote(&mut self, time: Option<&Timestamp>) {
        self.stalls.wrote(time);
    }

    /// The log ended: a stall being judged is judged.
    pub(crate) fn close(&mut self, findings: &mut Findings) {
        let mut judged = Vec::new();
        self.stalls.close(&mut judged);
        for f in judged {
            findings.push(f);
        }
    }

    /// The client cancelled a request it sent at `sent` because it timed
    /// out (`reason`): its timeout is the reason's number, else the wait.
    pub(crate) fn client_gave_up(&mut self, at: &At, sent: Option<&Timestamp>, reason: &str) {
        let waited = match (sent, &at.time) {
            (Some(sent), Some(now)) => Some(sent.seconds_until(now)),
            _ => None,
        };
        if let Some(seconds) = reason_seconds(reason).or(waited.filter(|w| *w > 0.0)) {
            self.client_timeout = Some((seconds, at.line, reason.into()));
        }
    }

    /// How long a request took: `slow-response` against `--slow` or the
    /// client's own timeout, and the stall detector.
    pub(crate) fn answered(
        &mut self,
        facts: &Facts,
        at: &At,
        requester: Side,
        id: &RequestId,
        open: &Open,
        ctx: &mut Ctx<'_>,
    ) {
        let (Some(start), Some(end), Some(took)) = (&open.time, &at.time, latency(open, at)) else {
            return;
        };
        let with_start = with_start(facts, open);
        let limit = if with_start {
            facts.slow_seconds.max(START_SLOW_SECONDS)
        } else {
            facts.slow_seconds
        };
        // Worded only for a finding (most answers are in time).
        let what = || match &open.subject {
            Some(s) => format!("`{}` {s:?}", open.method),
            None => format!("`{}`", open.method),
        };
        let client_timeout = self
            .client_timeout
            .as_ref()
            .filter(|_| requester == Side::Client && !with_start);
        let message = if took > limit {
            let mut text = if with_start {
                format!(
                    "{} (id {id}, line {}) took {} with the server's start, over the limit of {} for a handshake sent as the server starts",
                    what(),
                    open.line,
                    duration(took),
                    duration(limit)
                )
            } else {
                format!(
                    "{} (id {id}, line {}) took {}, over the --slow limit of {}",
                    what(),
                    open.line,
                    duration(took),
                    duration(limit)
                )
            };
            if let Some((timeout, line, reason)) = client_timeout {
                text.push_str(&format!(
                    "; the client's timeout is {} (its cancel at line {line}: {reason:?})",
                    duration(*timeout)
                ));
            }
            Some(text)
        } else {
            client_timeout
                .filter(|(timeout, ..)| took >= CLIENT_TIMEOUT_SHARE * timeout)
                .map(|(timeout, line, reason)| {
                    format!(
                        "{} (id {id}, line {}) took {}, {}% of the client's {} timeout (its cancel at line {line}: {reason:?}): a little slower and the client gives up",
                        what(),
                        open.line,
                        duration(took),
                        (100.0 * took / timeout).round() as i64,
                        duration(*timeout)
                    )
                })
        };
        let slow = message.map(|m| {
            ctx.finding(Rule::SlowResponse, m)
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(open.line)
        });
        if requester != Side::Client {
            if let Some(f) = slow {
                ctx.findings.push(f);
            }
            return;
        }
        let kind = open.subject.as_deref().unwrap_or(&open.method);
        let answer = stall::Answer {
            kind,
            line: open.line,
            sent: start,
            answered: end,
            open: facts.client_open + 1,
        };
        let base = || {
            Finding::new(Rule::ServerStalled, open.line, String::new())
                .time(open.time.as_ref())
                .dir(Dir::ClientToServer)
                .id(Some(id))
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(at.line)
        };
        let mut out = Vec::new();
        self.stalls.answer(answer, slow, base, &mut out);
        for f in out {
            ctx.findings.push(f);
        }
    }
}

/// How long a request took to be answered at `at`: from its timestamp to
/// the answer's, in seconds; `None` when either has no time. The one
/// latency every rule judges (`slow-response`, `server-stalled`,
/// `latency-over-budget`).
pub(crate) fn latency(open: &Open, at: &At) -> Option<f64> {
    match (&open.time, &at.time) {
        (Some(start), Some(end)) => Some(start.seconds_until(end)),
        _ => None,
    }
}

/// Whether a request's latency includes the server's start: a handshake
/// request (`initialize`, `server/discover`) sent as the server starts,
/// after a recorder's `start` event. The handler cannot make that time
/// shorter, so it is judged against a longer limit, or by a budget named
/// for its method.
pub(crate) fn with_start(facts: &Facts, open: &Open) -> bool {
    facts.known_start && matches!(&*open.method, "initialize" | "server/discover")
}

/// Reads a timeout's length from a cancel's reason: "timed out after
/// 2.0s", "Request timed out after 60000ms", "timeout of 30 seconds".
fn reason_seconds(reason: &str) -> Option<f64> {
    let bytes = reason.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number: f64 = reason[start..i].parse().ok()?;
        let unit: String = reason[i..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect::<String>()
            .to_ascii_lowercase();
        let scale = match unit.as_str() {
            "ms" | "msec" | "millisecond" | "milliseconds" => 0.001,
            "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            _ => continue,
        };
        return Some(number * scale).filter(|s| s.is_finite() && *s > 0.0);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::reason_seconds;
    use crate::rules::Rule;

    #[test]
    fn a_cancel_reason_gives_the_client_timeout() {
        assert_eq!(reason_seconds("timed out after 2.0s"), Some(2.0));
        assert_eq!(
            reason_seconds("Request timed out after 60000ms"),
            Some(60.0)
        );
        assert_eq!(reason_seconds("timeout of 30 seconds"), Some(30.0));
        assert_eq!(reason_seconds("MCP error -32001: Request timed out"), None);
        assert_eq!(reason_seconds("deadline 5 min"), Some(300.0));
        assert_eq!(reason_seconds("timed out"), None);
    }

    fn findings(log: String) -> Vec<crate::rules::finding::Finding> {
        let options = crate::pipeline::Options::default();
        let input = Box::new(std::io::Cursor::new(log.into_bytes()));
        crate::pipeline::check("t.log", input, &options)
            .expect("a report")
            .findings
    }

    const HEAD: &str = "2026-11-02T09:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"stuck\"}}\n";

    /// A timeout reason without a number: the cancel's timing is the
    /// client's timeout; a later answer at 90% of it is slow.
    #[test]
    fn the_cancel_timing_gives_the_client_timeout() {
        let log = format!(
            "{HEAD}\
2026-11-02T09:00:03.000000Z > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":1,\"reason\":\"Request timed out\"}}}}\n\
2026-11-02T09:00:03.100000Z > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"report\"}}}}\n\
2026-11-02T09:00:05.800000Z < {{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"content\":[]}}}}\n"
        );
        let found = findings(log);
        let slow = found
            .iter()
            .find(|f| f.rule == Rule::SlowResponse)
            .unwrap_or_else(|| panic!("no slow-response: {found:?}"));
        assert!(
            slow.message
                .contains("took 2.7 s, 90% of the client's 3.0 s timeout"),
            "{}",
            slow.message
        );
    }

    /// A cancel with another reason is the client's choice: no timeout is
    /// learnt from it, and the cancelled request stays a note.
    #[test]
    fn a_chosen_cancel_teaches_no_timeout() {
        let log = format!(
            "{HEAD}\
2026-11-02T09:00:03.000000Z > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":1,\"reason\":\"user pressed stop\"}}}}\n\
2026-11-02T09:00:03.100000Z > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"report\"}}}}\n\
2026-11-02T09:00:05.800000Z < {{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"content\":[]}}}}\n"
        );
        let found = findings(log);
        assert!(
            !found.iter().any(|f| f.rule == Rule::SlowResponse),
            "{found:?}"
        );
        let cancelled = found
            .iter()
            .find(|f| f.rule == Rule::CancelledRequest)
            .expect("cancelled-request");
        assert_eq!(cancelled.severity, crate::rules::Severity::Info);
    }
}
