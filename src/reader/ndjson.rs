//! Plain newline-delimited JSON with no direction markers: what a `tee` of
//! the server's pipes produces. Every line is a record of unknown direction;
//! the session infers directions from the messages.

use std::io;

use super::lines::Lines;
use super::record::{Body, Record};
use crate::wire::dir::Dir;

/// Reads a plain newline-delimited log.
pub struct NdjsonReader {
    lines: Lines,
}

impl NdjsonReader {
    pub fn new(lines: Lines) -> NdjsonReader {
        NdjsonReader { lines }
    }
}

impl Iterator for NdjsonReader {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.lines.next_shared() {
            Ok(Some((line, bytes, terminated))) => Some(Ok(Record::new(
                line,
                None,
                Body::Line {
                    dir: Dir::Unknown,
                    bytes,
                },
                terminated,
                None,
            ))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}
