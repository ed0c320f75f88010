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
//!                       (classify.rs turns JSON into messages: pure)
//!       ──Session::observe──▶ findings as they happen   session.rs
//!       ──Session::finish──▶ Summary + hangs            session.rs
//!       ──Report──▶ render::{table, json} ──▶ Write     report.rs, render/
//! ```
//!
//! `record.rs` is the recorder (`mcpdbg record`): it relays a live session
//! and writes the native transcript that the pipeline reads.
//! `check.rs` wires the stages; `main.rs` only parses arguments and maps
//! the outcome to an exit code. `protocol.rs` holds the spec's facts (revisions
//! and the method table), `rules.rs` the rule catalogue.
//!
//! # Invariants, written as absences
//!
//! - Nothing but `reader`, `record` and `main` does I/O; only `record` reads
//!   the clock (to stamp what it records): the analysis takes all time from
//!   the log.
//! - Bad input never produces `Err` or a panic: it becomes a finding. `Err`
//!   means a file could not be opened, read or written.
//! - No stage holds the whole input: memory follows open requests and used
//!   ids. Findings keep excerpts (at most 200 characters), never whole lines.
//! - Only `render/table.rs` imports `tabled`; only `render/json.rs` knows the
//!   JSON schema; no domain type derives `Serialize`.
//! - Rule metadata lives only in `rules.rs`.

pub mod check;
pub mod classify;
pub mod conversation;
pub mod finding;
pub mod protocol;
pub mod reader;
pub mod record;
pub mod render;
pub mod report;
pub mod rules;
pub mod session;
pub mod text;
pub mod transport;
pub mod views;
