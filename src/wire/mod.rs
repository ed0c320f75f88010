//! The vocabulary of the wire: directions and sides, timestamps, one line of
//! JSON lexed (`lex`), parsed (`skim`) and classified into messages
//! (`message`). No I/O; every stage builds on it and it builds only on
//! `text`. Its one state is the short-line reader's pools of members
//! (thread-local, `skim/fast.rs`), kept for speed (docs/performance.md).

pub mod bound;
pub mod dir;
pub mod event;
pub mod exact;
pub mod lex;
pub mod line;
pub mod message;
pub mod skim;
pub mod time;
