//! One line's bytes, shared with the chunk it was read into.

use std::fmt;

/// A line's bytes, without copying them out of the read buffer: a range of
/// a chunk shared with the other lines read with it (the chunk is freed, or
/// reused, when its last line is dropped), or bytes of its own.
#[derive(Clone)]
pub struct LineBytes {
    chunk: std::sync::Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
    /// Where the bytes sit in the input's line.
    place: Place,
}

/// Where a [`LineBytes`]' bytes sit in the line of the input they came from.
#[derive(Clone, Copy)]
enum Place {
    /// `chunk` holds the input's lines as read (each from its start): the
    /// bytes before `range` on its line are the prefix a reader skipped.
    Chunk,
    /// `chunk` holds a slice of one line that started this many bytes into
    /// it (bytes a reader skipped after that are counted in `range`).
    At(usize),
    /// A copy (re-serialised, unescaped, decoded): not a slice of a line.
    Copy,
}

impl LineBytes {
    /// The bytes `range` of a chunk that other lines may share.
    pub fn in_chunk(chunk: std::sync::Arc<Vec<u8>>, range: std::ops::Range<usize>) -> LineBytes {
        LineBytes {
            chunk,
            range,
            place: Place::Chunk,
        }
    }

    /// A whole line of the input in a vector of its own.
    pub fn whole_line(v: Vec<u8>) -> LineBytes {
        LineBytes {
            place: Place::At(0),
            ..v.into()
        }
    }

    /// `part`, a slice of these bytes (the message a reader found after a
    /// host's prefix), sharing their chunk: nothing is copied, and it keeps
    /// its place in the line. When `part` is not inside them (text a reader
    /// unescaped or rebuilt), a copy that has no place in the line.
    pub fn part(&self, part: &[u8]) -> LineBytes {
        let (start, base) = (part.as_ptr() as usize, self.as_ptr() as usize);
        if start < base || start - base + part.len() > self.len() {
            return part.to_vec().into();
        }
        let from = self.range.start + (start - base);
        LineBytes {
            chunk: self.chunk.clone(),
            range: from..from + part.len(),
            place: self.place,
        }
    }

    /// The chunk the bytes are in and where: what another thread needs to
    /// read them (see [`crate::pipeline`]).
    pub(crate) fn shared(&self) -> (&std::sync::Arc<Vec<u8>>, std::ops::Range<usize>) {
        (&self.chunk, self.range.clone())
    }

    /// How many bytes of the input's line come before these bytes (the
    /// prefix a reader skipped with [`LineBytes::skip`]); `None` when the
    /// bytes are a copy, not a slice of the line. Scans back to the line's
    /// start: meant for the rare line that needs it (a parse error).
    pub fn offset_in_line(&self) -> Option<usize> {
        match self.place {
            Place::Copy => None,
            Place::At(start) => Some(start + self.range.start),
            Place::Chunk => {
                let before = &self.chunk[..self.range.start];
                Some(match memchr::memrchr(b'\n', before) {
                    Some(newline) => before.len() - newline - 1,
                    None => before.len(),
                })
            }
        }
    }

    /// The bytes as a vector of their own (moved when they are not shared).
    pub fn into_vec(self) -> Vec<u8> {
        let LineBytes { chunk, range, .. } = self;
        let whole = range.start == 0 && range.end == chunk.len();
        match std::sync::Arc::try_unwrap(chunk) {
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
            chunk: std::sync::Arc::new(v),
            range,
            place: Place::Copy,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_of_shared_bytes_keeps_its_place_without_a_copy() {
        let chunk = std::sync::Arc::new(b"first line\nT0 [debug] {\"id\":1}\nlast\n".to_vec());
        // The second line, as the reader hands it over: a range of the chunk.
        let line = LineBytes::in_chunk(chunk.clone(), 11..30);
        assert_eq!(&*line, b"T0 [debug] {\"id\":1}");
        let json = line.part(&line[11..]);
        assert_eq!(&*json, b"{\"id\":1}");
        assert_eq!(json.offset_in_line(), Some(11));
        assert!(std::sync::Arc::ptr_eq(&json.chunk, &chunk));
        // A long line gathered on its own keeps its start as well.
        let whole = LineBytes::whole_line(b"T0 [debug] {}".to_vec());
        let part = whole.part(&whole[11..]);
        assert_eq!((&*part, part.offset_in_line()), (&b"{}"[..], Some(11)));
        assert_eq!(part.skip(1).offset_in_line(), Some(12));
        // Bytes from elsewhere are a copy with no place.
        let other = b"{\"id\":1}".to_vec();
        let copy = line.part(&other);
        assert_eq!((&*copy, copy.offset_in_line()), (&other[..], None));
        assert_eq!(LineBytes::from(other).offset_in_line(), None);
    }
}
