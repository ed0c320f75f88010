//! `socat -v` captures (`socat -v STDIO EXEC:server 2>capture.log`).
//!
//! Each transfer is a header `> 2026/11/29 21:14:20.000331949  length=N
//! from=A to=B` (`>` client to server, `<` server to client) followed by the
//! N bytes it carried, escaped (`\\` and `\r`) and with every non-ASCII byte
//! printed as `.`. Chunks bear no relation to messages, and a chunk that does
//! not end in a newline has the next header glued to it. The reader rebuilds
//! each direction's byte stream and splits it into lines. Text between
//! chunks is the server's stderr (it inherits socat's).

use std::collections::VecDeque;

use super::lines::Lines;
use super::record::{Assembly, Body, LineParser, Record};
use crate::wire::dir::Dir;
use crate::wire::time::Timestamp;

/// A parsed chunk header.
struct Header {
    dir: Dir,
    time: Option<Timestamp>,
    length: usize,
}

/// `> 2026/11/29 21:14:20.000331949  length=41 from=0 to=40`, at the start of `s`.
/// Returns the header and the number of bytes it spans.
fn header(s: &[u8]) -> Option<(Header, usize)> {
    let dir = match s.first()? {
        b'>' => Dir::ClientToServer,
        b'<' => Dir::ServerToClient,
        _ => return None,
    };
    let text = std::str::from_utf8(s.get(..s.len().min(120))?)
        .ok()
        .or_else(|| {
            let end = s.iter().position(|&b| b >= 0x80).unwrap_or(s.len());
            std::str::from_utf8(&s[..end]).ok()
        })?;
    let rest = text.get(2..)?;
    let (date, rest) = rest.split_once(' ')?;
    let (time, rest) = rest.split_once("  length=")?;
    if date.len() != 10 || date.as_bytes()[4] != b'/' {
        return None;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let length: usize = rest[..digits].parse().ok()?;
    let rest = rest[digits..].strip_prefix(" from=")?;
    let a = rest.bytes().take_while(u8::is_ascii_digit).count();
    let rest = rest[a..].strip_prefix(" to=")?;
    let b = rest.bytes().take_while(u8::is_ascii_digit).count();
    if a == 0 || b == 0 {
        return None;
    }
    let consumed = text.len() - rest.len() + b;
    Some((
        Header {
            dir,
            time: stamp(date, time),
            length,
        },
        consumed,
    ))
}

/// socat 1.7 prints microseconds in a nine-digit field (`.000331949` is
/// .331949 s); other versions may print real nanoseconds.
fn stamp(date: &str, time: &str) -> Option<Timestamp> {
    let (hms, frac) = time.split_once('.')?;
    let frac = if frac.len() == 9 && frac.starts_with("000") {
        &frac[3..]
    } else {
        frac
    };
    let text = format!("{} {hms}.{frac}", date.replace('/', "-"));
    let mut t = Timestamp::parse_local(&text)?;
    t.text = format!("{date} {time}").into();
    Some(t)
}

/// Whether a line starts like a socat header (for format detection).
pub fn matches(line: &[u8]) -> bool {
    header(line).is_some()
}

/// The chunk being read.
struct Chunk {
    dir: Dir,
    time: Option<Timestamp>,
    remaining: usize,
}

/// Reads a `socat -v` capture.
pub struct SocatReader {
    lines: Lines,
    queue: VecDeque<Record>,
    chunk: Option<Chunk>,
    /// The partial line of each direction: client, server.
    pending: [Assembly; 2],
    /// Where each partial line's text began: a line is reported at the
    /// data line that holds its start, not where its newline came.
    starts: [Option<u64>; 2],
    noted: bool,
    last_line: u64,
}

impl SocatReader {
    pub fn new(lines: Lines) -> SocatReader {
        SocatReader {
            lines,
            queue: VecDeque::new(),
            chunk: None,
            pending: Default::default(),
            starts: [None; 2],
            noted: false,
            last_line: 0,
        }
    }

    fn slot(dir: Dir) -> usize {
        usize::from(dir == Dir::ServerToClient)
    }

    /// Adds data bytes to a direction and emits its completed lines.
    fn data(&mut self, line_no: u64, dir: Dir, time: &Option<Timestamp>, bytes: &[u8]) {
        let slot = Self::slot(dir);
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let pending = &mut self.pending[slot];
            pending.push(&rest[..end]);
            let line = pending.take();
            let start = self.starts[slot].take().unwrap_or(line_no);
            super::record::queue_assembled(&mut self.queue, start, time.clone(), dir, line, true);
            rest = &rest[end + 1..];
        }
        if !rest.is_empty() {
            self.starts[slot].get_or_insert(line_no);
            self.pending[slot].push(rest);
        }
    }

    fn read(&mut self, line_no: u64, bytes: Vec<u8>, terminated: bool) {
        self.last_line = line_no;
        if !self.noted {
            self.noted = true;
            self.queue.push_back(Record::new(line_no, None, Body::Note(
                    "socat -v replaces every non-ASCII byte with `.`, so UTF-8 text and invalid bytes cannot be judged; times are local without a zone".into(),
                ), terminated, None));
        }
        let mut rest: &[u8] = &bytes;
        loop {
            if let Some(chunk) = self.chunk.as_mut() {
                // Decode escaped data until the chunk's length is used up.
                let (dir, time) = (chunk.dir, chunk.time.clone());
                let mut out = Vec::new();
                let mut i = 0;
                while i < rest.len() && chunk.remaining > 0 {
                    let (byte, width) = match (rest[i], rest.get(i + 1)) {
                        (b'\\', Some(b'\\')) => (b'\\', 2),
                        (b'\\', Some(b'r')) => (b'\r', 2),
                        (b, _) => (b, 1),
                    };
                    out.push(byte);
                    chunk.remaining -= 1;
                    i += width;
                }
                // The end of the physical line is a newline in the data.
                let line_ended_inside = i == rest.len() && chunk.remaining > 0 && terminated;
                if line_ended_inside {
                    out.push(b'\n');
                    chunk.remaining -= 1;
                }
                if chunk.remaining == 0 {
                    self.chunk = None;
                }
                self.data(line_no, dir, &time, &out);
                rest = &rest[i..];
                if line_ended_inside || rest.is_empty() {
                    return;
                }
                continue;
            }
            if let Some((h, width)) = header(rest) {
                self.chunk = Some(Chunk {
                    dir: h.dir,
                    time: h.time,
                    remaining: h.length,
                });
                rest = &rest[width..];
                if rest.is_empty() {
                    return;
                }
                continue;
            }
            // Text between chunks: the server's stderr or socat's own messages.
            if !rest.is_empty() {
                self.queue.push_back(Record::new(
                    line_no,
                    None,
                    Body::Line {
                        dir: Dir::Stderr,
                        bytes: rest.to_vec().into(),
                    },
                    terminated,
                    None,
                ));
            }
            return;
        }
    }
}

impl LineParser for SocatReader {
    fn parts(&mut self) -> (&mut Lines, &mut VecDeque<Record>) {
        (&mut self.lines, &mut self.queue)
    }

    fn line(&mut self, line: u64, bytes: crate::wire::line::LineBytes, terminated: bool) {
        self.read(line, bytes.into_vec(), terminated)
    }

    fn end(&mut self) {
        // A stream that ended without a newline.
        for dir in [Dir::ClientToServer, Dir::ServerToClient] {
            let slot = Self::slot(dir);
            let pending = &mut self.pending[slot];
            if !pending.is_empty() {
                let line = pending.take();
                let start = self.starts[slot].take().unwrap_or(self.last_line);
                super::record::queue_assembled(&mut self.queue, start, None, dir, line, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let (h, width) =
            header(b"> 2026/11/29 21:14:20.000331949  length=41 from=0 to=40").unwrap();
        assert_eq!((h.dir, h.length, width), (Dir::ClientToServer, 41, 55));
        assert_eq!(
            h.time.unwrap().text.as_ref(),
            "2026/11/29 21:14:20.000331949"
        );
        let glued = b"< 2026/11/29 21:14:20.000654901  length=9 from=28 to=36";
        assert_eq!(header(glued).unwrap().0.length, 9);
        assert!(header(b"> not a header").is_none());
        assert!(header(b"{\"jsonrpc\":\"2.0\"}").is_none());
    }
}
