//! Notes about the session and the analysis itself, not about a message:
//! `recording-gap` (the recorder dropped part of the session),
//! `server-start-failed` (a host's word that the server did not start),
//! `session-restarted` (a new session begins in the same log) and
//! `direction-inferred` (a log without direction markers).

use crate::facts::Inference;
use crate::facts::Restart;
use crate::rules::Rule;
use crate::rules::finding::Finding;
use crate::text::excerpt;
use crate::wire::time::At;

/// A recorder's `# gap` event (`text`).
pub(crate) fn recording_gap(at: &At, text: &str) -> Finding {
    Finding::new(
        Rule::RecordingGap,
        at.line,
        format!(
            "the recording has a gap here ({}); findings near it may be wrong",
            excerpt(text.trim())
        ),
    )
    .time(at.time.as_ref())
}

/// A host's line saying the server did not start (`text`).
pub(crate) fn start_failed(at: &At, text: &str) -> Finding {
    Finding::new(
        Rule::ServerStartFailed,
        at.line,
        format!(
            "the host reports that the server did not start: {}",
            excerpt(text.trim())
        ),
    )
    .time(at.time.as_ref())
}

/// The `session-restarted` note at the item that opened a new session.
pub fn session_restarted(restart: Restart, at: &At) -> Finding {
    let why = match restart {
        Restart::Started => "the server was started again",
        Restart::Reinitialized => "the client sent `initialize` again after the session ended",
        Restart::StartedOver => {
            "the client sent `initialize` again with the id of its first, starting its ids over: a fresh server process, as hosts that start a server per operation do"
        }
    };
    Finding::new(
        Rule::SessionRestarted,
        at.line,
        format!("a new session begins here: {why}; ids, the handshake and open requests start afresh (the earlier session's hangs are reported with it)"),
    )
    .time(at.time.as_ref())
}

/// How the senders of a log without direction markers were placed, from
/// the session's `inf`erence; `None` for a log with markers.
pub(crate) fn direction_inferred(inf: &Inference, first_line: u64) -> Option<Finding> {
    if inf.seen == 0 && inf.text_lines == 0 {
        return None;
    }
    let mut parts = vec![format!(
        "no direction markers: the sender of {} of {} messages was inferred from the method table and id pairing",
        inf.placed, inf.seen
    )];
    if let Some(line) = inf.first_unplaced {
        parts.push(format!(
            "{} could not be placed (first at line {line})",
            inf.unplaced
        ));
    }
    if let Some(line) = inf.first_text {
        parts.push(format!(
            "{} non-JSON lines may be stderr or stray stdout, which this format cannot tell apart (first at line {line})",
            inf.text_lines
        ));
    }
    Some(Finding::new(
        Rule::DirectionInferred,
        first_line,
        parts.join("; "),
    ))
}
