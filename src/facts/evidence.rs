//! What the session keeps that may explain a hang, bounded: stderr lines
//! that read like errors and the last one, crash reports, the process's
//! end (typed, from the recorder's events and the hosts' words), and where
//! and how the log was cut or following stopped. `rules/hangs.rs` words a
//! hang from it.

use std::collections::VecDeque;

use super::crash;
use crate::text::excerpt;
use crate::wire::dir::Side;
use crate::wire::event::Ending;
use crate::wire::time::Timestamp;

/// How a log was cut short ([`crate::session::Session::log_cut`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogCut {
    /// It ends in the middle of a message (`truncated-line`).
    MidMessage,
    /// The compressed input could not be decoded to its end
    /// (`corrupt-compressed-input`).
    Undecodable,
}

/// Where `check --follow` was stopped (Ctrl-C) while the log went on.
#[derive(Clone, Debug)]
pub struct FollowStop {
    /// The log's newest timestamp and the seconds since its line was read,
    /// when the log has timestamps: an open request's wait runs on them to
    /// when following stopped (as the status line counts it), not to the
    /// last line.
    pub clock: Option<(Timestamp, f64)>,
}

/// The session's records for hang stories.
#[derive(Default)]
pub(crate) struct Evidence {
    pub(crate) last_stderr: Option<(u64, String)>,
    /// Recent stderr lines that look like errors (bounded), to quote in hangs.
    pub(crate) stderr_errors: VecDeque<(u64, String)>,
    /// Stderr lines that report a crash (bounded), and the reader's state.
    pub(crate) crashes: VecDeque<(u64, crash::Crash, String)>,
    crash_reader: crash::Reader,
    /// Lifecycle events (stdin closed, exit, signals, a host's word that the
    /// server ended or did not start), with how the server ended, bounded,
    /// for hang stories.
    pub(crate) ends: Vec<(u64, Option<Ending>, String)>,
    /// Where the log was cut short, and how ([`Session::log_cut`]).
    pub(crate) cut: Option<(u64, LogCut)>,
    /// The cut line, when the log stops inside one, and who wrote it: it
    /// was counted as text on the JSON stream, which it is not.
    pub(crate) cut_text: Option<(u64, Side)>,
    /// `check --follow` was stopped (Ctrl-C) while the log went on: it does
    /// not end where the reading stopped.
    pub(crate) follow_stopped: Option<FollowStop>,
    /// The last `notifications/cancelled` of each side that names no
    /// request the log shows (a summary log omits its target): its line.
    pub(crate) untargeted_cancel: [Option<u64>; 3],
}

impl Evidence {
    /// A stderr line.
    pub(crate) fn stderr(&mut self, line: u64, text: String) {
        if let Some(kind) = self.crash_reader.line(&text) {
            if self.crashes.len() == STDERR_ERRORS_KEPT {
                self.crashes.pop_front();
            }
            self.crashes.push_back((line, kind, text.clone()));
        }
        if looks_like_error(&text) {
            if self.stderr_errors.len() == STDERR_ERRORS_KEPT {
                self.stderr_errors.pop_front();
            }
            self.stderr_errors.push_back((line, text.clone()));
        }
        self.last_stderr = Some((line, text));
    }

    /// A lifecycle event: the server ended (`ending`), or did not start
    /// (`None`); `text` as the log words it.
    pub(crate) fn ended(&mut self, line: u64, ending: Option<Ending>, text: &str) {
        if self.ends.len() == ENDS_KEPT {
            self.ends.remove(0);
        }
        self.ends.push((line, ending, excerpt(text.trim())));
    }
}

/// How many lifecycle events a session keeps for hang stories.
const ENDS_KEPT: usize = 8;

/// How many error-looking stderr lines a session keeps for hang stories.
const STDERR_ERRORS_KEPT: usize = 256;

/// Whether a stderr line reads like an error report (the line that names
/// the exception, not the `Traceback` header).
pub(crate) fn looks_like_error(text: &str) -> bool {
    let t = text.trim_start();
    t.contains("Error:")
        || t.contains("Exception:")
        || t.contains("panicked at")
        || t.starts_with("Error")
        || t.starts_with("FATAL")
        || t.starts_with("fatal:")
        || t.contains("[error]")
        || t.contains(" ERROR ")
}
