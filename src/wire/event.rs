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
    /// signal, stdin closed, a host's "transport closed"): how, typed.
    End(Ending),
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

/// How a server's process or transport ended, by the words of whoever saw
/// it (the recorder's grammar, a host's phrases): what the hang model
/// reads, instead of matching the event's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The client closed the server's stdin (the recorder saw it).
    StdinClosed,
    /// The process exited, with this status when the log says.
    Exited(Option<i32>),
    /// The process was killed by a signal.
    Killed,
    /// A signal reached the recorder and was passed on to the server.
    SignalForwarded,
    /// The host lost the server: its transport closed without the host
    /// closing it (Claude Desktop's "Server transport closed unexpectedly",
    /// Claude Code's "STDIO connection dropped", a gateway's EOF).
    Lost,
    /// The host closed or stopped the connection, or says it is gone
    /// without saying why ("Client transport closed", "Connection state:
    /// Stopped", "Server disconnected").
    Closed,
}

impl Ending {
    /// Whether the server died (or was killed) rather than being let go.
    pub fn is_death(self) -> bool {
        matches!(self, Ending::Exited(_) | Ending::Killed | Ending::Lost)
    }
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
/// start of the host's line (case aside), and what each means: Claude
/// Desktop's transport lines and "Server disconnected", VS Code's
/// connection states, early exit and extension host, Cursor's closed
/// client, Claude Code's dropped connection. A host line that only mentions
/// such a word ("Received progress from the exit planner tool") is a note:
/// a word anywhere in a line is no evidence that the server died. The
/// first phrase that matches wins.
const HOST_ENDS: [(&str, Ending); 10] = [
    ("server transport closed unexpectedly", Ending::Lost),
    ("server transport closed", Ending::Closed),
    ("client transport closed", Ending::Closed),
    ("server disconnected", Ending::Closed),
    ("server exited", Ending::Exited(None)),
    ("client closed", Ending::Closed),
    ("connection state: stopped", Ending::Closed),
    ("connection state: error", Ending::Closed),
    ("extension host shut down", Ending::Closed),
    ("stdio connection dropped", Ending::Lost),
];

/// How hosts say it inside a sentence about one server, checked first:
/// `MCP server notes exited with code 1` (JetBrains), `Connection state:
/// Error Process exited with code 1` (VS Code), a process `killed by
/// signal 9`.
const EXITED_WITH: [&str; 2] = [" exited with code ", " exited with status "];
const KILLED_BY: &str = " killed by signal ";

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
        } else if let Some(ending) = recorder_end(trimmed) {
            EventKind::End(ending)
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
        let kind = host_end(text.trim()).map_or(EventKind::Note, EventKind::End);
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

    /// A host's line that says the server or its connection ended, and
    /// how (the reader knows its host's words).
    pub fn host_end(text: impl Into<String>, ending: Ending) -> Event {
        Event {
            kind: EventKind::End(ending),
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

/// A recorder's end, as [`text`] writes them: stdin closed, the server's
/// exit or signal, a signal forwarded. Other event text is kept and
/// ignored (docs/formats.md).
fn recorder_end(text: &str) -> Option<Ending> {
    if text == text::closed("stdin") {
        Some(Ending::StdinClosed)
    } else if let Some(status) = text.strip_prefix("server exited with status ") {
        Some(Ending::Exited(status.trim().parse().ok()))
    } else if text.starts_with("server killed by signal ") {
        Some(Ending::Killed)
    } else if text.ends_with(" received; forwarded to the server") {
        Some(Ending::SignalForwarded)
    } else {
        None
    }
}

/// How a host's line says the server or its transport ended, if it does
/// ([`EXITED_WITH`], [`KILLED_BY`], then [`HOST_ENDS`]).
fn host_end(text: &str) -> Option<Ending> {
    let lower = text.to_ascii_lowercase();
    for clause in EXITED_WITH {
        if let Some(at) = lower.find(clause) {
            let rest = &lower[at + clause.len()..];
            let digits = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .map_or(rest, |end| &rest[..end]);
            return Some(Ending::Exited(digits.parse().ok()));
        }
    }
    if lower.contains(KILLED_BY) {
        return Some(Ending::Killed);
    }
    HOST_ENDS
        .iter()
        .find(|(phrase, _)| lower.starts_with(phrase))
        .map(|(_, ending)| *ending)
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
            (text::closed("stdin"), EventKind::End(Ending::StdinClosed)),
            (text::exited(0), EventKind::End(Ending::Exited(Some(0)))),
            (text::killed(15, "SIGTERM"), EventKind::End(Ending::Killed)),
            (
                text::forwarded("SIGINT"),
                EventKind::End(Ending::SignalForwarded),
            ),
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
            // A word of an end in a line that says no end.
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
        assert_eq!(
            Event::host("Server transport closed").kind,
            EventKind::End(Ending::Closed)
        );
        assert_eq!(
            Event::host("Connection state: Stopped").kind,
            EventKind::End(Ending::Closed)
        );
    }

    /// A host line is an end by how the host says it, never by a word it
    /// happens to contain.
    #[test]
    fn a_host_line_ends_the_server_only_in_the_hosts_words() {
        for (line, ending) in [
            (
                "Server transport closed unexpectedly, this is likely due to the process exiting early.",
                Ending::Lost,
            ),
            ("Client transport closed", Ending::Closed),
            (
                "Server disconnected. For troubleshooting guidance, please visit our debugging documentation",
                Ending::Closed,
            ),
            (
                "Connection state: Error Process exited with code 1",
                Ending::Exited(Some(1)),
            ),
            (
                "Server exited before responding to `initialize` request.",
                Ending::Exited(None),
            ),
            (
                "Extension host shut down, server will stop.",
                Ending::Closed,
            ),
            (
                "MCP server notes exited with code 1",
                Ending::Exited(Some(1)),
            ),
            ("Client closed for command", Ending::Closed),
            ("STDIO connection dropped after 4s uptime", Ending::Lost),
            ("server killed by signal 9 (SIGKILL)", Ending::Killed),
        ] {
            assert_eq!(Event::host(line).kind, EventKind::End(ending), "{line}");
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
