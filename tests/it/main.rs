//! The integration tests: one binary (the library and the command are linked
//! once, not once per file), one module per area. Each drives the built
//! `mcpdbg` as a user would (`common` runs it with a clean environment and
//! compares snapshots), except `properties`, which calls the library.
//!
//! Run one area with `cargo test --test it AREA::`, for example
//! `cargo test --test it corpus::`.

mod common;

mod assertions;
mod ci_formats;
mod cli;
mod config;
mod corpus;
mod escapes;
mod flags;
mod fleet;
mod hosts;
mod inputs;
mod mock;
mod otlp;
mod probe;
mod properties;
mod record;
mod replay;
mod tool_schemas;
mod views;
mod width;
