//! The hang model's words: a request still open when the log ends is a
//! `cancelled-request` (its sender gave up on it) or an `unanswered-request`,
//! and its story says what the owing side did after it (answers, other
//! messages, stray text, stderr, the process's end) and the likely cause.
//! Pure: the session decides which requests hang and gathers the
//! [`Evidence`] (`facts/evidence.rs`); this file words it, for every
//! input format alike.

use std::collections::VecDeque;

use crate::facts::crash::Crash;
use crate::facts::evidence::{FollowStop, LogCut};
use crate::rules::finding::Finding;
use crate::rules::timing::stall::Stall;
use crate::rules::{Rule, Severity};
use crate::text::duration;
use crate::wire::dir::Side;
use crate::wire::event::Ending;
use crate::wire::message::RequestId;
use crate::wire::time::At;
use crate::wire::time::Timestamp;

/// A request still open at the end, as its story reads it.
pub(crate) struct Request<'a> {
    pub line: u64,
    pub time: Option<&'a Timestamp>,
    pub method: &'a str,
    pub subject: Option<&'a str>,
    /// Where its sender cancelled it.
    pub cancelled: Option<&'a At>,
    /// The cancel's reason when it was the sender's choice, not a timeout.
    pub chosen: Option<&'a str>,
    /// The cancel's reason when it was a timeout.
    pub timed_out: Option<&'a str>,
    /// Its id was in use when it was sent.
    pub reused: bool,
    /// The log cut its payload: its id and method were recovered.
    pub cut: bool,
    /// The request it likely retries (one its sender gave up on).
    pub retry_of: Option<(&'a RequestId, u64)>,
    /// Where its sender closed the connection with it open.
    pub closed: Option<&'a At>,
    /// The line of the owing side's shutdown error to it, after the close.
    pub shutdown: Option<u64>,
    /// What the side that owes its answer did after it.
    pub after: Activity,
}

/// What a side did after a request: later answers, other messages, lines
/// on its JSON stream that were no message, stderr lines.
pub(crate) struct Activity {
    pub answered: u64,
    pub sent: u64,
    pub noise: u64,
    pub stderr: u64,
}

/// What the session saw that may explain a hang (its bounded records).
pub(crate) struct Evidence<'a> {
    /// The log's last line and time.
    pub end_line: u64,
    pub end_time: Option<&'a Timestamp>,
    /// The lifecycle events: a stream closed, the process's exit, a host's
    /// transport closing (how, typed; `None` for a failed start).
    pub ends: &'a [(u64, Option<Ending>, String)],
    /// Stderr lines that read like errors, and the last stderr line.
    pub stderr_errors: &'a VecDeque<(u64, String)>,
    pub last_stderr: &'a Option<(u64, String)>,
    /// Stderr lines that report a crash.
    pub crashes: &'a VecDeque<(u64, Crash, String)>,
    /// Where and how the log was cut short, and the side whose message was
    /// cut.
    pub cut: Option<(u64, LogCut)>,
    pub cut_text: Option<(u64, Side)>,
    /// Where following stopped (`check --follow`, Ctrl-C).
    pub follow_stopped: Option<&'a FollowStop>,
    /// The requester's last cancel whose target the log does not show.
    pub untargeted_cancel: Option<u64>,
    /// The server's confirmed stalls (bounded).
    pub stalls: &'a VecDeque<Stall>,
}

/// The rule and severity a request still open at the end is reported
/// with: `cancelled-request` when its sender cancelled it (a note when by
/// choice, not a timeout), else `unanswered-request`.
pub(crate) fn listed_as(cancelled: bool, chosen: bool) -> (Rule, Severity) {
    let rule = if cancelled {
        Rule::CancelledRequest
    } else {
        Rule::UnansweredRequest
    };
    let severity = if chosen {
        Severity::Info
    } else {
        rule.info().severity
    };
    (rule, severity)
}

/// The finding for a request of `side` still open at the end of the log:
/// `cancelled-request` when its sender gave up on it, else
/// `unanswered-request`, each with the story of what the owing side did
/// after it.
pub(crate) fn finding(
    ev: &Evidence<'_>,
    side: Side,
    id: &RequestId,
    open: &Request<'_>,
) -> Finding {
    let owner = side.other();
    let end_time = ev.end_time;
    let end_line = ev.end_line;
    let waited = |until: Option<&Timestamp>| match (open.time, until) {
        (Some(start), Some(end)) => Some(duration(start.seconds_until(end).max(0.0))),
        _ => None,
    };
    let what = match &open.subject {
        Some(s) => format!("`{}` {s:?}", open.method),
        None => format!("`{}`", open.method),
    };
    let (rule, severity) = listed_as(open.cancelled.is_some(), open.chosen.is_some());
    let finding = if let Some(cancel) = open.cancelled {
        let after = waited(cancel.time.as_ref()).map_or(String::new(), |w| format!(" after {w}"));
        Finding::new(
            rule,
            open.line,
            match open.chosen {
                Some(reason) => format!(
                    "{} cancelled {what} (id {id}) at line {}{after} ({reason:?}), its own choice rather than a timeout; it was never answered",
                    side.as_str(),
                    cancel.line
                ),
                None => {
                    let why = open
                        .timed_out
                        .map_or(String::new(), |r| format!(" ({r:?}: its timeout)"));
                    let mut text = format!(
                        "{} cancelled {what} (id {id}) at line {}{after}{why}; it was never answered",
                        side.as_str(),
                        cancel.line
                    );
                    // The hang behind the timeout: what the owner did meanwhile.
                    if owner != Side::Unknown {
                        text.push_str(&story(ev, owner, open));
                    }
                    text
                }
            },
        )
        .related(cancel.line)
    } else {
        let (never, ends) = if ev.follow_stopped.is_some() {
            ("not", "following stopped")
        } else {
            ("never", "the log ends")
        };
        let mut text = if side == Side::Unknown {
            format!("request {what} (id {id}) from an unknown side was {never} answered")
        } else {
            format!(
                "{} request {what} (id {id}) was {never} answered: the {} owes the reply",
                side.as_str(),
                owner.as_str()
            )
        };
        let clock = ev.follow_stopped.and_then(|s| s.clock.as_ref());
        // Its sender closing the connection ends the wait, not the log.
        let closed_at;
        let (ends, end_line, end_time) = match open.closed {
            Some(at) => {
                closed_at = format!("the {} closed the connection", side.as_str());
                (closed_at.as_str(), at.line, at.time.as_ref())
            }
            None => (ends, end_line, end_time),
        };
        let waited = match (open.time, clock) {
            (Some(start), Some((newest, since))) if open.closed.is_none() => Some(duration(
                start.seconds_until(newest).max(0.0) + since.max(0.0),
            )),
            _ => waited(end_time),
        };
        match waited {
            Some(w) => text.push_str(&format!(
                "; it had waited {w} when {ends} at line {end_line}"
            )),
            None => text.push_str(&format!("; {ends} at line {end_line}")),
        }
        if owner != Side::Unknown {
            text.push_str(&story(ev, owner, open));
        }
        if let Some(line) = ev.untargeted_cancel.filter(|l| *l > open.line) {
            text.push_str(&format!(
                "; the {} sent `notifications/cancelled` at line {line}, whose target the log does not show: it may have cancelled this request",
                side.as_str()
            ));
        }
        if open.cut {
            text.push_str(
                "; the log cut the request's payload: its id and method were recovered from what is left",
            );
        }
        Finding::new(rule, open.line, text)
    };
    let mut finding = finding;
    if let Some((id, line)) = open.retry_of {
        finding.message.push_str(&format!(
            "; it retries id {id} (line {line}), the same call its sender gave up on by a timeout: one operation, tried again"
        ));
        finding = finding.related(line);
    }
    finding.severity = severity;
    finding
        .time(open.time)
        .dir(side.dir())
        .id(Some(id))
        .method(Some(open.method))
        .subject(open.subject)
}

/// After `line`, the server's stdin was closed and it then exited with
/// status 0: it was alive, and it left when asked.
fn exited_when_asked(ev: &Evidence<'_>, line: u64) -> bool {
    let closed = ev
        .ends
        .iter()
        .find(|(l, ending, _)| *l > line && *ending == Some(Ending::StdinClosed))
        .map(|(l, ..)| *l);
    closed.is_some_and(|closed| {
        ev.ends
            .iter()
            .any(|(l, ending, _)| *l > closed && *ending == Some(Ending::Exited(Some(0))))
    })
}

/// What the owing side did after a request, and the likely cause: the
/// hang's story.
fn story(ev: &Evidence<'_>, owner: Side, open: &Request<'_>) -> String {
    let Activity {
        answered,
        sent,
        noise,
        stderr,
    } = open.after;
    // A message cut where the log stops is no text on the stream.
    let cut = ev
        .cut_text
        .is_some_and(|(line, side)| side == owner && line > open.line);
    let noise = noise.saturating_sub(u64::from(cut));
    let mut parts = Vec::new();
    if answered > 0 {
        parts.push(format!(
            "answered {answered} later request{}",
            plural(answered)
        ));
    }
    if sent > answered {
        parts.push(format!(
            "sent {} other message{}",
            sent - answered,
            plural(sent - answered)
        ));
    }
    if noise > 0 {
        parts.push(format!(
            "wrote {noise} non-message line{} on its JSON stream",
            plural(noise)
        ));
    }
    if owner == Side::Server && stderr > 0 {
        let error = ev.stderr_errors.iter().find(|(line, _)| *line > open.line);
        let last = match (error, &ev.last_stderr) {
            (Some((el, et)), Some((ll, lt))) if el != ll => {
                format!(" (first error at line {el}: {et:?}; last at line {ll}: {lt:?})")
            }
            (Some((line, text)), _) | (None, Some((line, text))) => {
                format!(" (last at line {line}: {text:?})")
            }
            (None, None) => String::new(),
        };
        parts.push(format!(
            "wrote {stderr} stderr line{}{last}",
            plural(stderr)
        ));
    }
    let mut text = if parts.is_empty() {
        format!("; after it the {} sent nothing", owner.as_str())
    } else {
        format!("; after it the {} {}", owner.as_str(), parts.join(", "))
    };
    let ends: Vec<String> = ev
        .ends
        .iter()
        .filter(|(line, ..)| *line > open.line)
        .map(|(line, _, what)| format!("line {line}: {what}"))
        .collect();
    if !ends.is_empty() {
        text.push_str(&format!("; then {}", ends.join(", ")));
    }
    if let Some(line) = open.shutdown {
        text.push_str(&format!(
            "; its error -32000 at line {line}, written after the {} closed the connection, is the {}'s shutdown, not an answer",
            owner.other().as_str(),
            owner.as_str()
        ));
    }
    // The likely cause, where the evidence points at one.
    let alive = owner == Side::Server && exited_when_asked(ev, open.line);
    let died = !alive
        && ev
            .ends
            .iter()
            .any(|(line, ending, _)| *line > open.line && ending.is_some_and(Ending::is_death));
    let first_error = ev.stderr_errors.iter().find(|(line, _)| *line > open.line);
    let crash = ev
        .crashes
        .iter()
        .find(|(line, ..)| *line > open.line)
        .filter(|_| owner == Side::Server);
    let cut_after = ev.cut.filter(|(line, _)| *line > open.line);
    let stalled = open.time.and_then(|sent| {
        ev.stalls.iter().find(|st| {
            owner == Side::Server
                && st.line != open.line
                && st.sent.seconds_until(sent) >= 0.0
                && sent.seconds_until(&st.ended) >= 0.0
        })
    });
    // The host stopped the server (a signal the recorder forwarded): the
    // process died of that, not on its own.
    let stopped = ev
        .ends
        .iter()
        .find(|(line, ending, _)| *line > open.line && *ending == Some(Ending::SignalForwarded))
        .filter(|_| owner == Side::Server && died);
    let cause = match (open.reused, noise > 0, first_error, died, answered > 0) {
        (true, ..) => Some(
            "its id was used twice, so its answer may have gone to the other request"
                .to_string(),
        ),
        _ if crash.is_some() => crash.map(|(line, kind, text)| {
            // Node.js prints the error a few lines after its crash
            // marker: quote the error line when there is one.
            let (line, text) = ev
                .stderr_errors
                .iter()
                .find(|(l, _)| *l >= *line && *l <= line + 8)
                .map_or((line, text), |(l, t)| (l, t));
            if died {
                format!(
                    "the server crashed with the request open: it {} (line {line}: {text:?})",
                    kind.verb()
                )
            } else {
                format!(
                    "the handler {} (line {line}: {text:?}) and never answered",
                    kind.verb()
                )
            }
        }),
        // The log stops there: what is missing may hold the answer.
        _ if !died && cut_after.is_some() => cut_after.map(|(line, how)| match how {
            LogCut::MidMessage => {
                let writer = ev.cut_text.map_or(owner, |(_, writer)| writer);
                let answer = if writer == owner {
                    "that message or come after it"
                } else {
                    "in what is missing"
                };
                let w = writer.as_str();
                if ev.follow_stopped.is_some() {
                    format!(
                        "following stopped in the middle of a {w} message at line {line} (it was still being written): the answer may be {answer}"
                    )
                } else {
                    format!(
                        "the log ends in the middle of a {w} message at line {line} (a capture cut short, or a {w} that stopped while writing): the answer may be {answer}"
                    )
                }
            }
            LogCut::Undecodable => format!(
                "the log is cut short: the compressed input could not be decoded past line {line}, and the answer may be in what is missing"
            ),
        }),
        // The host saw the process go: that, not the stray text before
        // it, is why the request stayed open.
        (_, true, None, true, false) => Some(format!(
            "the {} died with the request open (it had written non-message text on its JSON stream after it)",
            owner.as_str()
        )),
        (_, true, ..) => Some(format!(
            "the {} wrote non-message text on its JSON stream after it, which the reader may have choked on",
            owner.as_str()
        )),
        (_, _, Some((line, err)), true, _) => Some(format!(
            "the {} died with the request open (its error, line {line}: {err:?})",
            owner.as_str()
        )),
        (_, _, Some((line, err)), false, _) => Some(format!(
            "the handler failed (line {line}: {err:?}) and never answered"
        )),
        (_, _, None, false, true) if open.closed.is_some() && open.cancelled.is_none() => Some(format!(
            "the {} closed the connection while the {} was still on the request (it kept answering later ones): a handler slower than the {} would wait, or stuck",
            owner.other().as_str(),
            owner.as_str(),
            owner.other().as_str()
        )),
        // Sent while a stall held the event loop: the later answers came in
        // its burst; the request is its victim, not the server's choice.
        (_, _, None, _, true) if stalled.is_some() => stalled.map(|st| {
            format!(
                "it was sent while the server stalled ({} of silence until `{}`, line {}, returned): a blocking call stopped the event loop, and this request is one of its victims, never answered",
                duration(st.silence),
                st.kind,
                st.line
            )
        }),
        (_, _, None, _, true) => Some(format!(
            "the {} is stuck on this request (it kept answering later ones)",
            owner.as_str()
        )),
        (_, _, None, true, false) if stopped.is_some() => stopped.map(|(line, _, what)| {
            format!(
                "the server had not answered when the client stopped it (line {line}: {what}): a handler that never finished, or a server that does not answer this request at all"
            )
        }),
        (_, _, None, true, false) => {
            Some(format!("the {} died with the request open", owner.as_str()))
        }
        (_, _, None, false, false) if alive => Some(
            "the handler never finished: the server was alive (it exited with status 0 once its stdin closed), so the handler waits on something that never comes (an event, a lock, a call without a timeout)"
                .to_string(),
        ),
        _ => None,
    };
    if let Some(cause) = cause {
        text.push_str(&format!("; likely: {cause}"));
    }
    text
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(after: Activity) -> Request<'static> {
        Request {
            line: 10,
            time: None,
            method: "tools/call",
            subject: Some("sync"),
            cancelled: None,
            chosen: None,
            timed_out: None,
            reused: false,
            cut: false,
            retry_of: None,
            closed: None,
            shutdown: None,
            after,
        }
    }

    fn story_of(ends: &[(u64, Option<Ending>, String)], after: Activity) -> String {
        let (errors, crashes, stalls) = (VecDeque::new(), VecDeque::new(), VecDeque::new());
        let ev = Evidence {
            end_line: 20,
            end_time: None,
            ends,
            stderr_errors: &errors,
            last_stderr: &None,
            crashes: &crashes,
            cut: None,
            cut_text: None,
            follow_stopped: None,
            untargeted_cancel: None,
            stalls: &stalls,
        };
        finding(&ev, Side::Client, &RequestId::Int(2), &request(after)).message
    }

    /// The story is a function of what the session saw: a server that kept
    /// answering is stuck on the request; one whose process ended after it
    /// died with it open.
    #[test]
    fn the_story_follows_the_evidence() {
        let busy = Activity {
            answered: 1,
            sent: 1,
            noise: 0,
            stderr: 0,
        };
        let text = story_of(&[], busy);
        assert!(
            text.starts_with("client request `tools/call` \"sync\" (id 2) was never answered: the server owes the reply; the log ends at line 20; after it the server answered 1 later request"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "likely: the server is stuck on this request (it kept answering later ones)"
            ),
            "{text}"
        );
        let quiet = Activity {
            answered: 0,
            sent: 0,
            noise: 0,
            stderr: 0,
        };
        let ends = [(
            15,
            Some(Ending::Exited(Some(1))),
            "server exited with status 1".to_string(),
        )];
        let text = story_of(&ends, quiet);
        assert!(
            text.ends_with("after it the server sent nothing; then line 15: server exited with status 1; likely: the server died with the request open"),
            "{text}"
        );
    }
}
