//! A stalled server: it wrote nothing for a while with several requests
//! open, then answered one slow request and, right after it, requests that
//! are normally fast (a blocking call in an async handler stops the whole
//! event loop, so the requests sent meanwhile are answered in a burst when
//! it returns). The slow request is the likely culprit, the fast ones its
//! victims; one `server-stalled` finding names both, in place of the
//! `slow-response` findings each would get.
//!
//! Streaming and bounded: the last [`DURATIONS_KEPT`] answer times of at
//! most [`KINDS_KEPT`] tools or methods (for their median), and at most one
//! stall being judged, with at most [`KINDS_KEPT`] kinds of victims. Each
//! answer costs O(1); a median is computed only for a possible victim.

use foldhash::HashMap;

use crate::rules::finding::Finding;
use crate::text::duration;
use crate::wire::time::Timestamp;

/// A silence shorter than this is not a stall.
pub const STALL_SECONDS: f64 = 1.0;
/// A victim waited at least this long: every request answered in the
/// burst that waited so is a victim, whatever its kind usually takes.
const VICTIM_SECONDS: f64 = 0.5;
/// How many confirmed stalls are kept for hang stories.
pub const STALLS_KEPT: usize = 16;
/// How many answer times are kept per tool or method.
const DURATIONS_KEPT: usize = 16;
/// How many tools or methods have answer times kept.
const KINDS_KEPT: usize = 256;
/// How many victim lines a finding lists.
const LINES_LISTED: usize = 8;

/// The last answer times of one tool or method, in a ring.
#[derive(Debug, Default)]
struct Ring {
    seconds: Vec<f32>,
    next: usize,
}

impl Ring {
    fn push(&mut self, s: f64) {
        if self.seconds.len() < DURATIONS_KEPT {
            self.seconds.push(s as f32);
        } else {
            self.seconds[self.next] = s as f32;
        }
        self.next = (self.next + 1) % DURATIONS_KEPT;
    }

    fn median(&self) -> Option<f64> {
        let mut v = self.seconds.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f32::total_cmp);
        Some(f64::from(v[v.len() / 2]))
    }
}

/// One answered request, as the stall detector sees it.
pub struct Answer<'a> {
    /// The tool, prompt or resource, else the method: what a person names.
    pub kind: &'a str,
    pub line: u64,
    pub sent: &'a Timestamp,
    pub answered: &'a Timestamp,
    /// The requester's requests open as it is answered, itself included.
    pub open: usize,
}

/// The victims of one kind.
#[derive(Debug)]
struct Victims {
    kind: Box<str>,
    count: u64,
    median: Option<f64>,
    longest: f64,
}

/// A stall being judged: the culprit is answered; its victims follow.
#[derive(Debug)]
struct Pending {
    kind: Box<str>,
    sent: Timestamp,
    ended: Timestamp,
    silence: f64,
    open: usize,
    /// The culprit's `slow-response`, held until the stall is confirmed
    /// (dropped) or not (reported).
    held: Option<Finding>,
    victims: Vec<Victims>,
    lines: Vec<u64>,
    more_lines: u64,
    /// The finding's base, built by the session (time, direction, id, method).
    base: Finding,
}

/// A confirmed stall, for the stories of requests still open at the end:
/// the culprit's kind and request line, when it was sent and answered.
#[derive(Clone, Debug)]
pub struct Stall {
    pub kind: Box<str>,
    pub line: u64,
    pub sent: Timestamp,
    pub ended: Timestamp,
    pub silence: f64,
}

/// The detector's state for one session.
#[derive(Debug, Default)]
pub struct Stalls {
    /// The last [`STALLS_KEPT`] confirmed stalls.
    pub confirmed: std::collections::VecDeque<Stall>,
    /// When the server last wrote a message (the parsed time only: no
    /// allocation per message).
    last_write: Option<chrono::DateTime<chrono::FixedOffset>>,
    times: HashMap<Box<str>, Ring>,
    pending: Option<Pending>,
    /// The newest time any message had: a log whose clock ran backwards
    /// (lines appended out of order) shows no stall.
    newest: Option<chrono::DateTime<chrono::FixedOffset>>,
}

impl Stalls {
    /// The server wrote a message at `time` (after the message is judged).
    pub fn wrote(&mut self, time: Option<&Timestamp>) {
        if let Some(t) = time {
            self.last_write = Some(t.at);
        }
    }

    /// A message at `time`: a stall whose burst is over is judged.
    pub fn tick(&mut self, time: Option<&Timestamp>, out: &mut Vec<Finding>) {
        if let Some(t) = time {
            self.newest = Some(self.newest.map_or(t.at, |n| n.max(t.at)));
        }
        let over = match (&self.pending, time) {
            (Some(p), Some(t)) => p.ended.seconds_until(t) > window(p.silence),
            _ => false,
        };
        if over {
            self.close(out);
        }
    }

    /// A client request was answered. `slow` is its `slow-response`, if it
    /// is one; `base` the finding a stall would be built on. What is to be
    /// reported now goes to `out`.
    pub fn answer(
        &mut self,
        a: Answer<'_>,
        slow: Option<Finding>,
        base: impl FnOnce() -> Finding,
        out: &mut Vec<Finding>,
    ) {
        let took = a.sent.seconds_until(a.answered);
        if let Some(p) = &mut self.pending {
            let in_burst = p.ended.seconds_until(a.answered) <= window(p.silence);
            // Every request answered in the burst waited on the stall,
            // whether sent before the culprit or during its silence.
            if in_burst {
                let median = self.times.get(a.kind).and_then(Ring::median);
                // Answered in the burst after waiting: stalled with the
                // rest, even a kind that is often slow.
                if took >= VICTIM_SECONDS {
                    let kinds = p.victims.len();
                    match p.victims.iter_mut().find(|v| &*v.kind == a.kind) {
                        Some(v) => {
                            v.count += 1;
                            v.longest = v.longest.max(took);
                        }
                        None if kinds < KINDS_KEPT => p.victims.push(Victims {
                            kind: a.kind.into(),
                            count: 1,
                            median,
                            longest: took,
                        }),
                        None => {}
                    }
                    if p.lines.len() < LINES_LISTED {
                        p.lines.push(a.line);
                    } else {
                        p.more_lines += 1;
                    }
                    return; // its wait is the stall's, reported with it
                }
            }
            if !in_burst {
                self.close(out);
            }
        }
        // The server's silence while the culprit ran: from its last write
        // or the culprit's sending, whichever is later (an idle time before
        // the call is no stall); the culprit ran through nearly all of it.
        let since = self.last_write.map_or(a.sent.at, |w| w.max(a.sent.at));
        let silence = {
            let d = a.answered.at.signed_duration_since(since);
            d.num_microseconds().map_or(0.0, |us| us as f64 / 1e6)
        };
        let in_order = self.newest.is_none_or(|n| n <= a.answered.at);
        let culprit = self.pending.is_none()
            && in_order
            && silence >= STALL_SECONDS
            && silence >= 0.9 * took
            && a.open >= 2;
        if culprit {
            self.pending = Some(Pending {
                kind: a.kind.into(),
                sent: a.sent.clone(),
                ended: a.answered.clone(),
                silence,
                open: a.open,
                held: slow,
                victims: Vec::new(),
                lines: Vec::new(),
                more_lines: 0,
                base: base(),
            });
            return;
        }
        out.extend(slow);
        self.record(a.kind, took);
    }

    /// Keeps an answer time for the kind's median.
    fn record(&mut self, kind: &str, took: f64) {
        if let Some(ring) = self.times.get_mut(kind) {
            ring.push(took);
        } else if self.times.len() < KINDS_KEPT {
            let mut ring = Ring::default();
            ring.push(took);
            self.times.insert(kind.into(), ring);
        }
    }

    /// Judges the stall being looked at, if any: with victims it is a
    /// stall, else the culprit was only slow.
    pub fn close(&mut self, out: &mut Vec<Finding>) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let took = p.sent.seconds_until(&p.ended);
        if p.victims.is_empty() {
            out.extend(p.held);
            self.record(&p.kind, took);
            return;
        }
        let victims: Vec<String> = p
            .victims
            .iter()
            .map(|v| {
                let median = v.median.map_or("no earlier answer".to_string(), |m| {
                    format!("median {}", duration(m))
                });
                format!(
                    "{} `{}` call{} ({median}; {} waited up to {})",
                    v.count,
                    v.kind,
                    if v.count == 1 { "" } else { "s" },
                    if v.count == 1 { "it" } else { "they" },
                    duration(v.longest)
                )
            })
            .collect();
        let count: u64 = p.victims.iter().map(|v| v.count).sum();
        let mut lines: Vec<String> = p.lines.iter().map(u64::to_string).collect();
        if p.more_lines > 0 {
            lines.push(format!("{} more", p.more_lines));
        }
        let text = format!(
            "`{}` stalled the server for {} with {} requests open (it took {}): {} {} answered only when it returned, all at once (request{} at line{} {}); a blocking call in `{}` likely stalled the event loop",
            p.kind,
            duration(p.silence),
            p.open,
            duration(took),
            victims.join(", "),
            if count == 1 { "was" } else { "were" },
            if count == 1 { "" } else { "s" },
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
            p.kind
        );
        if self.confirmed.len() == STALLS_KEPT {
            self.confirmed.pop_front();
        }
        self.confirmed.push_back(Stall {
            kind: p.kind.clone(),
            line: p.base.line,
            sent: p.sent.clone(),
            ended: p.ended.clone(),
            silence: p.silence,
        });
        let mut finding = p.base;
        finding.message = text;
        out.push(finding);
    }
}

/// How long after the culprit's answer its victims' answers still count as
/// its burst.
fn window(silence: f64) -> f64 {
    (silence / 10.0).max(0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn at(seconds: f64) -> Timestamp {
        let whole = seconds.trunc() as u32;
        let micros = ((seconds - seconds.trunc()) * 1e6).round() as u32;
        Timestamp::parse(&format!(
            "2026-11-02T09:{:02}:{:02}.{micros:06}Z",
            whole / 60,
            whole % 60
        ))
        .expect("a timestamp")
    }

    fn slow(line: u64) -> Finding {
        Finding::new(Rule::SlowResponse, line, "slow")
    }

    fn base() -> Finding {
        Finding::new(Rule::ServerStalled, 1, String::new())
    }

    /// Answers `kind` sent at `sent`, answered at `answered`, and notes the write.
    fn answer(
        s: &mut Stalls,
        kind: &str,
        line: u64,
        sent: f64,
        answered: f64,
        open: usize,
        out: &mut Vec<Finding>,
    ) {
        let (sent, answered) = (at(sent), at(answered));
        s.tick(Some(&answered), out);
        let held = (sent.seconds_until(&answered) > 5.0).then(|| slow(line));
        let a = Answer {
            kind,
            line,
            sent: &sent,
            answered: &answered,
            open,
        };
        s.answer(a, held, base, out);
        s.wrote(Some(&answered));
    }

    #[test]
    fn a_slow_request_alone_is_slow_not_a_stall() {
        let mut s = Stalls::default();
        let mut out = Vec::new();
        answer(&mut s, "add", 2, 0.0, 0.003, 1, &mut out);
        // 6 s of silence, one request open: only slow.
        answer(&mut s, "sync", 3, 0.01, 6.01, 2, &mut out);
        answer(&mut s, "add", 4, 7.0, 7.003, 1, &mut out);
        let rules: Vec<Rule> = out.iter().map(|f| f.rule).collect();
        assert_eq!(rules, vec![Rule::SlowResponse]);
        s.close(&mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn victims_answered_in_a_burst_make_a_stall_naming_the_culprit() {
        let mut s = Stalls::default();
        let mut out = Vec::new();
        for n in 0u32..5 {
            let t = f64::from(n) * 0.01;
            answer(&mut s, "add", 2 + u64::from(n), t, t + 0.003, 1, &mut out);
        }
        answer(&mut s, "sync", 20, 0.1, 6.1, 4, &mut out);
        answer(&mut s, "add", 21, 0.6, 6.11, 3, &mut out);
        answer(&mut s, "add", 22, 1.1, 6.12, 2, &mut out);
        // An answer after the burst's window ends it.
        answer(&mut s, "add", 23, 8.0, 8.003, 1, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        let f = &out[0];
        assert_eq!(f.rule, Rule::ServerStalled);
        assert!(
            f.message.starts_with(
                "`sync` stalled the server for 6.0 s with 4 requests open (it took 6.0 s): 2 `add` calls (median 3 ms"
            ),
            "{}",
            f.message
        );
        assert!(
            f.message
                .contains("a blocking call in `sync` likely stalled the event loop")
        );
    }

    /// Idle time before the culprit is no stall, and a victim that
    /// usually takes long is still a victim.
    #[test]
    fn a_stall_after_idle_time_is_found_and_every_waiter_is_a_victim() {
        let mut s = Stalls::default();
        let mut out = Vec::new();
        for n in 0u32..3 {
            let t = f64::from(n);
            answer(&mut s, "search", 2 + u64::from(n), t, t + 1.5, 1, &mut out);
        }
        // A minute of idle time, then a 3 s block with `search` waiting.
        answer(&mut s, "sync", 20, 63.0, 66.0, 2, &mut out);
        answer(&mut s, "search", 21, 63.5, 66.01, 1, &mut out);
        s.close(&mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].rule, Rule::ServerStalled);
        assert!(
            out[0].message.contains("1 `search` call (median 1.5 s"),
            "{}",
            out[0].message
        );
        assert_eq!(s.confirmed.len(), 1);
        assert_eq!(s.confirmed[0].line, 1, "the base finding's line");
    }

    #[test]
    fn the_tables_are_bounded() {
        let mut s = Stalls::default();
        let mut out = Vec::new();
        for n in 0..(KINDS_KEPT as u64 + 50) {
            let t = n as f64 * 0.01;
            for _ in 0..3 {
                answer(
                    &mut s,
                    &format!("tool{n}"),
                    n + 1,
                    t,
                    t + 0.001,
                    1,
                    &mut out,
                );
            }
        }
        assert_eq!(s.times.len(), KINDS_KEPT);
        assert!(s.times.values().all(|r| r.seconds.len() <= DURATIONS_KEPT));
        let mut ring = Ring::default();
        for n in 0..100 {
            ring.push(f64::from(n));
        }
        assert_eq!(ring.seconds.len(), DURATIONS_KEPT);
        assert_eq!(ring.median(), Some(92.0));
    }
}
