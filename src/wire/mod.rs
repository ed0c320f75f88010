//! The vocabulary of the wire: directions and sides, timestamps, one line of
//! JSON parsed (`skim`) and classified into messages (`message`). Pure: no
//! state, no I/O; every stage builds on it and it builds on nothing.

pub mod bound;
pub mod dir;
pub mod event;
pub mod exact;
pub mod line;
pub mod message;
pub mod skim;
pub mod time;
