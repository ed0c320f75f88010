//! mcpdbg: an offline debugger for Model Context Protocol (MCP) stdio sessions.
//!
//! # Codemap
//!
//! The pipeline, one stage per module, each consuming the previous one's
//! output one item at a time:
//!
//! ```text
//! bytes ──reader──▶ Record {line, time?, body}        reader/{native,ndjson}.rs
//!       ──transport──▶ Item {Message | Batch | Stderr | Noise | Event}   transport.rs
//!                       (skim.rs parses a line, cutting long payload strings;
//!                        classify.rs turns JSON into messages: both pure)
//!       ──Session::observe──▶ findings as they happen   session.rs
//!       ──Session::finish──▶ Summary + hangs            session.rs
//!       ──Report──▶ render::{table, json} ──▶ Write     report.rs, render/
//! ```
//!
//! `record.rs` is the recorder (`mcpdbg record`): it relays a live session
//! and writes the native transcript that the pipeline reads.
//! `checks.rs` judges one message in its context; the session and
//! `validate.rs` (`mcpdbg validate`, one message on its own) share it.
//!
//! The views read the same items as the session, from the side:
//!
//! ```text
//! Item ──conversation──▶ Entry {line, dir, kind, id, method, answers, latency, summary}
//!      views.rs: the first pass (check report + requests never answered),
//!                then Entries (rows streamed with their raw bytes)
//!      ──timeline──▶ filters, --around window ──▶ render::{timeline, mermaid, html}
//!      ──stats──▶ per-method numbers ──▶ render::{stats, stats_json}
//! pipeline::Checker + conversation, fed as a file grows ──follow──▶ live findings
//! ```
//! `redact.rs` (`--redact`) remembers the strings the items carry and
//! rewrites the report's text on its way out; the analysis sees the real log.
//!
//! `diff` and `replay` compare two sessions:
//!
//! ```text
//! Item ──capture──▶ Capture {handshake, requests + outcomes, client sends, server requests}
//!      two Captures ──diff──▶ Comparison ──▶ render::{diff, diff_json}
//! replay.rs: a Capture's client side played against a live server, written
//!            as a native transcript, then read back and compared
//! ```
//!
//! `check.rs` wires the stages; `main.rs` only parses arguments and maps
//! the outcome to an exit code. `protocol.rs` holds the spec's facts (revisions
//! and the method table), `rules.rs` the rule catalogue.
//!
//! # Invariants, written as absences
//!
//! - Nothing but `reader`, `record`, `follow`, `progress`, `replay` and `main`
//!   does I/O (renderers only write to the writer they are given); only
//!   `record` (to stamp what it records), `follow` (to poll and to age open
//!   requests), `progress` (to draw a long check's progress line) and `replay`
//!   (to pace, time out and stamp) read the clock or wait: the analysis, the
//!   timeline, the stats and `diff` take all time from the log.
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
//! - The conversation judges nothing: rules and findings stay with the
//!   session; the views only show them.
//! - Rule metadata lives only in `rules.rs`.

pub mod cmd;
pub mod exit;
pub mod finding;
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
