//! mcpdbg: an offline debugger for Model Context Protocol (MCP) stdio sessions.
//!
//! # Codemap
//!
//! The folders are the pipeline; every command runs the same stages
//! (`docs/development.md` has the whole file list):
//!
//! ```text
//! bytes ──reader/──▶ Record {line, time?, body}          one file per input format
//!       ──transport──▶ Item {Message | Batch | Stderr | Noise | Event}
//!                       (wire/skim.rs parses a line, cutting long payload strings;
//!                        wire/message.rs turns JSON into messages: both pure)
//!       ──session/──▶ findings as they happen, then Summary + hangs
//!                       (the session hands each message to the rule families
//!                        of rules/, which make every finding; rules/mod.rs:
//!                        the catalogue, whose revisions gate them; both read
//!                        facts/: what the session established, with
//!                        facts/pairing.rs, the one request table and inference)
//!       ──report──▶ render/ ──▶ Write                     one file per output format
//! ```
//!
//! `pipeline.rs` is the one wiring of reader, transport and session
//! (`Checker` feeds it record by record). `views/` shows a session beside
//! `check`: the conversation's rows (`timeline`), numbers (`stats`), and the
//! captures `diff` and `replay` compare; they pair with the one request
//! table of `facts/pairing.rs`. Each top-level module names only the layers
//! below it (a test reads the imports). `live/` holds what runs live: the recorder, replay,
//! mock, probe, `check --follow` and the progress line. `cmd/` has one module per
//! subcommand; `main.rs` parses the arguments (`cli.rs`), runs one and maps
//! its [`exit::ExitStatus`]. `wire/` is the vocabulary every stage shares.

//! # Invariants, written as absences
//!
//! - Nothing but `reader`, `live/`, `cmd/` and `main` does I/O (renderers
//!   only write to the writer they are given); only `live/` reads the clock
//!   or waits (to stamp, pace, time out, poll, draw progress and time a
//!   file's check for the JSON Lines `file` record): the
//!   analysis, the timeline, the stats and `diff` take all time from the log.
//! - Bad input never produces `Err` or a panic: it becomes a finding. `Err`
//!   means a file could not be opened, read or written.
//! - No stage holds the whole input: memory follows open requests and used
//!   ids. Findings keep excerpts (at most 200 characters), never whole lines.
//!   The timeline keeps raw lines only until their message is complete, and
//!   buffers at most one HTML page or the `--around` context; `stats` keeps
//!   one latency per answered request.
//! - Only `render/table.rs` imports `tabled`; only `render/json.rs` knows the
//!   `check` JSON schema, only `render/stats_json.rs` the `stats` one and
//!   only `render/diff_json.rs` the `diff`/`replay` one; no
//!   domain type derives `Serialize`.
//! - Only `rules/` makes findings (and the finding cap its own note); the
//!   session, the transport and the commands decide what a message or a
//!   line is and ask a family. The conversation judges nothing: the views
//!   only show findings.
//! - Rule metadata lives only in `rules/mod.rs`.

/// `eprintln!` for mcpdbg's own messages on standard error: the line is
/// written through [`text::say_line`] (control characters escaped, CI
/// command markers broken).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::text::say_line(&::std::format!($($arg)*))
    };
}

pub mod cmd;
pub mod cost;
pub mod exit;
pub mod facts;
pub mod live;
pub mod pipeline;
pub mod protocol;
pub mod reader;
pub mod redact;
pub mod render;
pub mod report;
pub mod rules;
pub mod session;
pub mod text;
pub mod transport;
pub mod views;
pub mod wire;
