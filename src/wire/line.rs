//! One line's bytes, shared with the chunk it was read into.

use std::fmt;

/// A line's bytes, without copying them out of the read buffer: a range of
/// a chunk shared with the other lines read with it (the chunk is freed, or
/// reused, when its last line is dropped), or bytes of its own.
#[derive(Clone)]
pub struct LineBytes {
    chunk: std::rc::Rc<Vec<u8>>,
    range: std::ops::Range<usize>,
    /// `chunk` holds the input's lines as read (each from its start), not
    /// a copy of a payload: the bytes before `range` on its line are the
    /// prefix a reader skipped.
    in_line: bool,
}

impl LineBytes {
    /// The bytes `range` of a chunk that other lines may share.
    pub fn in_chunk(chunk: std::rc::Rc<Vec<u8>>, range: std::ops::Range<usize>) -> LineBytes {
        LineBytes {
            chunk,
            range,
            in_line: true,
        }
    }

    /// A whole line of the input in a vector of its own.
    pub fn whole_line(v: Vec<u8>) -> LineBytes {
        LineBytes {
            in_line: true,
            ..v.into()
        }
    }

    /// How many bytes of the input's line come before these bytes (the
    /// prefix a reader skipped with [`LineBytes::skip`]); `None` when the
    /// bytes are a copy, not a slice of the line. Scans back to the line's
    /// start: meant for the rare line that needs it (a parse error).
    pub fn offset_in_line(&self) -> Option<usize> {
        if !self.in_line {
            return None;
        }
        let before = &self.chunk[..self.range.start];
        Some(match memchr::memrchr(b'\n', before) {
            Some(newline) => before.len() - newline - 1,
            None => before.len(),
        })
    }

    /// The bytes as a vector of their own (moved when they are not shared).
    pub fn into_vec(self) -> Vec<u8> {
        let LineBytes { chunk, range, .. } = self;
        let whole = range.start == 0 && range.end == chunk.len();
        match std::rc::Rc::try_unwrap(chunk) {
            Ok(v) if whole => v,
            Ok(v) => v[range].to_vec(),
            Err(shared) => shared[range].to_vec(),
        }
    }

    /// Drops the first `n` bytes (a prefix the reader has read), without copying.
    pub fn skip(mut self, n: usize) -> LineBytes {
        self.range.start = (self.range.start + n).min(self.range.end);
        self
    }
}

impl From<Vec<u8>> for LineBytes {
    fn from(v: Vec<u8>) -> LineBytes {
        let range = 0..v.len();
        LineBytes {
            chunk: std::rc::Rc::new(v),
            range,
            in_line: false,
        }
    }
}

impl std::ops::Deref for LineBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.chunk[self.range.clone()]
    }
}

impl AsRef<[u8]> for LineBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq for LineBytes {
    fn eq(&self, other: &LineBytes) -> bool {
        **self == **other
    }
}

impl Eq for LineBytes {}

impl fmt::Debug for LineBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
