//! The views of a session beside `check`: the conversation's rows
//! (`conversation`), the timeline's filters and windows (`timeline`), the
//! numbers (`stats`), and the captures that `diff` and `replay` compare
//! (`capture`, `diff`), the traces of `check --format otlp-json` (`otlp`), and the server side
//! `mock` serves (`served`). `passes` drives reader -> transport -> conversation
//! for the row views.

pub mod baseline;
pub mod capture;
pub mod conversation;
pub mod diff;
pub mod otlp;
pub mod passes;
pub mod served;
pub mod stats;
pub mod timeline;
