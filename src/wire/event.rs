//! Session events: what a recorder notes between the lines it relays (`#`
//! lines in the native transcript) and the lifecycle lines hosts write.
//!
//! Written and parsed here, once: the recorder and the replay write their
//! events with the constructors below, the native reader parses `#` lines
//! with [`Event::recorder`], and the host readers classify their own lines
//! with [`Event::host`], which never mistakes a host's words for a
//! recorder's mark (a host line "Starting server" starts no new session).

use std::fmt;

use crate::wire::dir::Dir;

/// What an event means to the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A recorder started a server: a new server process, fresh id spaces.
    Start,
    /// A recorder could not keep up: bytes were relayed but not recorded.
    Gap,
    /// The next line of this stream ended without a newline.
    PartialLine(Dir),
    /// The server's process or transport ended, or was told to (exit,
    /// signal, stdin closed, a host's "transport closed").
    End,
    /// A host says the server did not start or its connection failed
    /// before any call (a failed launch, a failed handshake).
    StartFailed,
    /// The log holds the host's own calls, not the wire: no handshake, and
    /// ids numbered by the reader. The session is judged as started, and
    /// the handshake and id rules stay silent.
    NoHandshake,
    /// Anything else: shown, never judged.
    Note,
}

/// One event: its meaning and its text as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    pub text: String,
    /// What a host's line established about the session (its negotiated
    /// version, era and server), for hosts that log no handshake.
    pub facts: Option<Box<Facts>>,
}

/// A session's facts as a host's summary line states them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub protocol_version: Option<String>,
    /// The era by the host's word: true for modern, false for legacy.
    pub modern: Option<bool>,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
}

/// How hosts say that the server or its transport ended, matched at the
/// start of the host's line (case aside): Claude Desktop's transport lines,
/// VS Code's connection states and early exit, Cursor's closed client,
/// Claude Code's dropped connection. A host line that only mentions such a
/// word ("Received progress from the exit planner tool") is a note: a word
/// anywhere in a line is no evidence that the server died.
const HOST_ENDS: [&str; 9] = [
    "server transport closed",
    "client transport closed",
    "server disconnected",
    "server exited",
    "client closed",
    "connection state: stopped",
    "connection state: error",
    "extension host shut down",
    "stdio connection dropped",
];

/// How hosts say it inside a sentence about one server: `MCP server notes
/// exited with code 1` (JetBrains), a process `killed by signal 9`.
const HOST_END_CLAUSES: [&str; 3] = [
    " exited with code ",
    " exited with status ",
    " killed by signal ",
];

impl Event {
    /// A recorder's event (a `#` line of the native transcript).
    pub fn recorder(text: impl Into<String>) -> Event {
        let text = text.into();
        let trimmed = text.trim();
        let kind = if trimmed == "start" || trimmed.starts_with("start ") {
            EventKind::Start
        } else if trimmed.starts_with("gap") {
            EventKind::Gap
        } else if let Some(stream) = trimmed.strip_prefix(PARTIAL_LINE) {
            match stream {
                "stdin" => EventKind::PartialLine(Dir::ClientToServer),
                "stdout" => EventKind::PartialLine(Dir::ServerToClient),
                "stderr" => EventKind::PartialLine(Dir::Stderr),
                _ => EventKind::Note,
            }
        } else if recorder_end(trimmed) {
            EventKind::End
        } else {
            EventKind::Note
        };
        Event {
            kind,
            text,
            facts: None,
        }
    }

    /// A host's own line about the session (`Server transport closed`):
    /// an end when it says so, else a note; never a recorder's start, gap
    /// or partial-line mark.
    pub fn host(text: impl Into<String>) -> Event {
        let text = text.into();
        let kind = if host_end(text.trim()) {
            EventKind::End
        } else {
            EventKind::Note
        };
        Event {
            kind,
            text,
            facts: None,
        }
    }

    /// A host's line that says a server (or connection) starts: a new
    /// session when traffic came before it.
    pub fn host_start(text: impl Into<String>) -> Event {
        Event {
            kind: EventKind::Start,
            text: text.into(),
            facts: None,
        }
    }

    /// A host's line that says the server or its connection ended.
    pub fn host_end(text: impl Into<String>) -> Event {
        Event {
            kind: EventKind::End,
            text: text.into(),
            facts: None,
        }
    }

    /// A host's line that says the server failed to start or connect.
    pub fn start_failed(text: impl Into<String>) -> Event {
        Event {
            kind: EventKind::StartFailed,
            text: text.into(),
            facts: None,
        }
    }

    /// A reader's mark: this log shows the host's calls, not the wire.
    pub fn no_handshake(text: impl Into<String>) -> Event {
        Event {
            kind: EventKind::NoHandshake,
            text: text.into(),
            facts: None,
        }
    }

    /// A host's line that states the session's facts (shown as a note).
    pub fn established(text: impl Into<String>, facts: Facts) -> Event {
        Event {
            kind: EventKind::Note,
            text: text.into(),
            facts: Some(Box::new(facts)),
        }
    }

    /// A new server process, as a recorder writes it.
    pub fn start(command: &str) -> Event {
        Event {
            kind: EventKind::Start,
            text: text::start(command),
            facts: None,
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether a recorder's event is one of its ends, as [`text`] writes them:
/// a stream closed on stdin, the server's exit or signal, a signal
/// forwarded. Other event text is kept and ignored (docs/formats.md).
fn recorder_end(text: &str) -> bool {
    text == text::closed("stdin")
        || text.starts_with("server exited with status ")
        || text.starts_with("server killed by signal ")
        || text.ends_with(" received; forwarded to the server")
}

/// Whether a host's line says the server or its transport ended
/// ([`HOST_ENDS`], [`HOST_END_CLAUSES`]).
fn host_end(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    HOST_ENDS.iter().any(|p| lower.starts_with(p))
        || HOST_END_CLAUSES.iter().any(|c| lower.contains(c))
}

const PARTIAL_LINE: &str = "partial line follows on ";

/// The recorder's texts, so that what is written is what [`Event::recorder`]
/// parses.
pub mod text {
    use super::PARTIAL_LINE;

    /// `start COMMAND`.
    pub fn start(command: &str) -> String {
        format!("start {command}")
    }

    /// Bytes of a stream relayed but not recorded.
    pub fn gap(bytes: usize, stream: &str) -> String {
        format!("gap: {bytes} bytes of {stream} were not recorded")
    }

    /// The next line of `stream` (`stdin`, `stdout`, `stderr`) has no newline.
    pub fn partial_line(stream: &str) -> String {
        format!("{PARTIAL_LINE}{stream}")
    }

    /// `stdin closed`, `stdout closed`, `stderr closed`.
    pub fn closed(stream: &str) -> String {
        format!("{stream} closed")
    }

    pub fn exited(code: i32) -> String {
        format!("server exited with status {code}")
    }

    pub fn killed(signal: i32, name: &str) -> String {
        format!("server killed by signal {signal} ({name})")
    }

    pub fn forwarded(name: &str) -> String {
        format!("{name} received; forwarded to the server")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_recorder_writes_it_reads_back() {
        let cases = [
            (text::start("python server.py"), EventKind::Start),
            (text::gap(12, "stdout"), EventKind::Gap),
            (
                text::partial_line("stdout"),
                EventKind::PartialLine(Dir::ServerToClient),
            ),
            (
                text::partial_line("stdin"),
                EventKind::PartialLine(Dir::ClientToServer),
            ),
            (text::closed("stdin"), EventKind::End),
            (text::exited(0), EventKind::End),
            (text::killed(15, "SIGTERM"), EventKind::End),
            (text::forwarded("SIGINT"), EventKind::End),
            ("replay: no answer".to_string(), EventKind::Note),
        ];
        for (text, kind) in cases {
            assert_eq!(Event::recorder(text.clone()).kind, kind, "{text}");
        }
        assert_eq!(Event::start("x").text, text::start("x"));
    }

    #[test]
    fn a_host_line_is_never_a_recorder_mark() {
        for line in [
            "Starting server notes",
            "start notes",
            "gap in the log",
            "partial line follows on stdout",
        ] {
            assert_eq!(Event::host(line).kind, EventKind::Note, "{line}");
        }
        assert_eq!(Event::host("Server transport closed").kind, EventKind::End);
        assert_eq!(
            Event::host("Connection state: Stopped").kind,
            EventKind::End
        );
    }

    /// A host line is an end by how the host says it, never by a word it
    /// happens to contain.
    #[test]
    fn a_host_line_ends_the_server_only_in_the_hosts_words() {
        for line in [
            "Server transport closed unexpectedly, this is likely due to the process exiting early.",
            "Client transport closed",
            "Server disconnected. For troubleshooting guidance, please visit our debugging documentation",
            "Connection state: Error Process exited with code 1",
            "Server exited before responding to `initialize` request.",
            "Extension host shut down, server will stop.",
            "MCP server notes exited with code 1",
            "Client closed for command",
            "STDIO connection dropped after 4s uptime",
        ] {
            assert_eq!(Event::host(line).kind, EventKind::End, "{line}");
        }
        for line in [
            "Received progress from the exit planner tool",
            "Discovered 2 tools",
            "tool `exit_gracefully` registered",
            "signal handler installed",
            "Connection state: Running",
            "user disconnected the VPN, retrying",
            "stdin closed",
        ] {
            assert_eq!(Event::host(line).kind, EventKind::Note, "{line}");
        }
        // The recorder's own grammar; other event text is a note.
        assert_eq!(
            Event::recorder("exit planner started").kind,
            EventKind::Note
        );
        assert_eq!(
            Event::recorder("signal handler installed").kind,
            EventKind::Note
        );
    }
}
