//! Lines: a byte stream split into lines that share the chunks they were
//! read into, with the line cap ([`max_line`]) applied as they are read.

use std::io::{self, Read};

use crate::wire::line::LineBytes;

/// How many lines a reader has read.
pub type LineCount = std::rc::Rc<std::cell::Cell<u64>>;

/// Bytes read at a time; a line longer than this is gathered on its own.
const CHUNK: usize = 1 << 20;

/// The longest line held, in bytes: 256 MiB, or `MCPDBG_MAX_LINE` (bytes,
/// with an optional `K`, `M` or `G` suffix for KiB, MiB, GiB). A longer line
/// is cut: its first [`HEAD`] bytes are kept, the rest is skipped, and a
/// [`Body::Overlong`](super::record::Body::Overlong) record says so.
pub fn max_line() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        std::env::var("MCPDBG_MAX_LINE")
            .ok()
            .and_then(|v| parse_size(&v))
            .unwrap_or(256 << 20)
    })
}

fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 10),
        b'M' | b'm' => (&text[..text.len() - 1], 20),
        b'G' | b'g' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    let n: usize = digits.parse().ok()?;
    n.checked_mul(1 << shift).filter(|&n| n >= CHUNK)
}

/// What is kept of a line longer than the cap.
pub const HEAD: usize = 64 << 10;

/// Lines cut at the cap: (line number, length in bytes), oldest first.
pub type Cuts = std::rc::Rc<std::cell::RefCell<std::collections::VecDeque<(u64, u64)>>>;

/// Splits a byte stream into lines, keeping each line's bytes exactly
/// (without the `\n`) and whether it was terminated. Reads into chunks that
/// the lines share ([`LineBytes`]): a line is not copied out of them.
pub struct Lines {
    source: Box<dyn Read>,
    chunk: Chunk,
    /// The unread bytes: `chunk[start..end]`.
    start: usize,
    end: usize,
    line_no: u64,
    pub(super) count: LineCount,
    /// The line cap, and the lines cut at it.
    cap: usize,
    pub(super) cuts: Cuts,
    /// Chunks read before, kept to be read into again once their lines
    /// are gone (lines kept a while, as [`crate::pipeline`] keeps those read
    /// ahead, would otherwise cost a new chunk at every refill).
    spare: Vec<std::sync::Arc<Vec<u8>>>,
}

/// How many earlier chunks [`Lines`] keeps to read into again.
const SPARE_CHUNKS: usize = 4;

impl Lines {
    pub fn new(source: Box<dyn Read>) -> Lines {
        Lines::with_cap(source, max_line())
    }

    /// Lines of at most `cap` bytes (a line shorter than half a chunk,
    /// 512 KiB, is never cut).
    pub fn with_cap(source: Box<dyn Read>, cap: usize) -> Lines {
        Lines {
            source,
            chunk: Chunk::new(Vec::new()),
            start: 0,
            end: 0,
            line_no: 0,
            count: LineCount::default(),
            cap: cap.max(HEAD),
            cuts: Cuts::default(),
            spare: Vec::new(),
        }
    }

    /// The lines cut at the cap so far, taken: (line number, length).
    pub fn take_cuts(&self) -> Vec<(u64, u64)> {
        self.cuts.borrow_mut().drain(..).collect()
    }

    /// The next line as `(line number, bytes, terminated)`, in a vector of
    /// its own.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Vec<u8>, bool)>> {
        Ok(self
            .next_shared()?
            .map(|(line, bytes, terminated)| (line, bytes.into_vec(), terminated)))
    }

    /// The next line, sharing the chunk it was read into. `None` at the end
    /// of the input.
    pub fn next_shared(&mut self) -> io::Result<Option<(u64, LineBytes, bool)>> {
        Ok(self.next_raw()?.map(|(line, bytes, terminated)| {
            let bytes = match bytes {
                Raw::Chunk(range) => LineBytes::in_chunk(self.chunk.share(), range),
                Raw::Long(v) => LineBytes::whole_line(v),
            };
            (line, bytes, terminated)
        }))
    }

    fn next_raw(&mut self) -> io::Result<Option<(u64, Raw, bool)>> {
        let mut scanned = self.start;
        let mut long: Option<Vec<u8>> = None;
        // Past the cap: the line's head is in `long`, and this many bytes
        // of it were read in all.
        let mut cut: Option<u64> = None;
        // A read of 0 bytes ends the input for now; a later call reads again
        // (`check --follow` feeds the reader as the file grows).
        let mut at_end = false;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.chunk[scanned..self.end]) {
                let end = scanned + i;
                self.cut_last(&mut long, &mut cut, end);
                let raw = self.line_ending_at(long.take(), end, cut);
                let tail = end - self.start;
                self.start = end + 1;
                return Ok(Some((self.count_line(cut, tail), raw, true)));
            }
            if at_end {
                if self.start == self.end && long.is_none() {
                    return Ok(None);
                }
                let end = self.end;
                self.cut_last(&mut long, &mut cut, end);
                let raw = self.line_ending_at(long.take(), end, cut);
                let tail = end - self.start;
                self.start = end;
                return Ok(Some((self.count_line(cut, tail), raw, false)));
            }
            // No newline in what is buffered: make room, then read more.
            let pending = self.end - self.start;
            if pending >= CHUNK / 2 {
                // A long line: gathered on its own, the chunk reused for
                // reading; past the cap, only counted.
                let bytes = &self.chunk[self.start..self.end];
                if let Some(read) = &mut cut {
                    *read += bytes.len() as u64;
                } else {
                    let v = long.get_or_insert_with(Vec::new);
                    if v.len() + bytes.len() > self.cap {
                        cut = Some((v.len() + bytes.len()) as u64);
                        v.truncate(HEAD);
                        v.shrink_to_fit();
                    } else {
                        grow_within(v, bytes.len(), self.cap);
                        v.extend_from_slice(bytes);
                    }
                }
                self.start = self.end;
            }
            let pending = self.end - self.start;
            match self.chunk.get_mut() {
                Some(chunk) if chunk.len() == CHUNK => {
                    chunk.copy_within(self.start..self.end, 0);
                }
                _ => {
                    // A line read earlier still holds the chunk: an earlier
                    // one whose lines are all gone, or a new one.
                    let free = self
                        .spare
                        .iter()
                        .position(|c| std::sync::Arc::strong_count(c) == 1 && c.len() == CHUNK);
                    let mut next = match free {
                        Some(i) => self.spare.swap_remove(i),
                        None => std::sync::Arc::new(vec![0u8; CHUNK]),
                    };
                    std::sync::Arc::get_mut(&mut next).expect("no line holds it")[..pending]
                        .copy_from_slice(&self.chunk[self.start..self.end]);
                    let old = self.chunk.replace(next);
                    if old.len() == CHUNK && self.spare.len() < SPARE_CHUNKS {
                        self.spare.push(old);
                    }
                }
            }
            self.start = 0;
            self.end = pending;
            scanned = pending;
            let chunk = self.chunk.get_mut().expect("just made unique");
            let n = loop {
                match self.source.read(&mut chunk[pending..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            at_end = n == 0;
            self.end += n;
        }
    }

    /// Cuts a long line whose last piece, up to `end`, takes it past the cap.
    fn cut_last(&self, long: &mut Option<Vec<u8>>, cut: &mut Option<u64>, end: usize) {
        if let (Some(v), None) = (long.as_mut(), *cut) {
            if v.len() + (end - self.start) > self.cap {
                *cut = Some(v.len() as u64);
                v.truncate(HEAD);
                v.shrink_to_fit();
            }
        }
    }

    /// The line that ends at `end` of the chunk: a range of it, or the end
    /// of a long line gathered so far.
    fn line_ending_at(&self, long: Option<Vec<u8>>, end: usize, cut: Option<u64>) -> Raw {
        let range = self.start..end;
        match long {
            Some(v) if cut.is_some() => Raw::Long(v),
            Some(mut v) => {
                v.extend_from_slice(&self.chunk[range]);
                Raw::Long(v)
            }
            None => Raw::Chunk(range),
        }
    }

    /// Counts a line; `cut` is how much of it was read before its last
    /// `tail` bytes when it went past the cap.
    fn count_line(&mut self, cut: Option<u64>, tail: usize) -> u64 {
        self.line_no += 1;
        self.count.set(self.line_no);
        if let Some(read) = cut {
            self.cuts
                .borrow_mut()
                .push_back((self.line_no, read + tail as u64));
        }
        self.line_no
    }
}

/// The chunk [`Lines`] reads into, shared by the lines read from it.
///
/// Each line holds a count on the chunk, and the thread that checks a line
/// drops it while this one reads the next: one count, touched by two cores
/// for every line, moved its cache line between them each time (in a
/// profile of many short lines, a tenth of the reading thread's time and a
/// twentieth of the checking thread's). So the counts are taken
/// [`Chunk::CREDITS`] at a time, in one burst, and handed out one per line.
struct Chunk {
    arc: std::sync::Arc<Vec<u8>>,
    /// Counts taken on `arc` and not yet handed to a line.
    credits: usize,
}

impl Chunk {
    const CREDITS: usize = 256;

    fn new(bytes: Vec<u8>) -> Chunk {
        Chunk {
            arc: std::sync::Arc::new(bytes),
            credits: 0,
        }
    }

    /// A count on the chunk, for a line.
    fn share(&mut self) -> std::sync::Arc<Vec<u8>> {
        let ptr = std::sync::Arc::as_ptr(&self.arc);
        if self.credits == 0 {
            for _ in 0..Chunk::CREDITS {
                // SAFETY: `ptr` is from `self.arc`, alive while it is held.
                unsafe { std::sync::Arc::increment_strong_count(ptr) };
            }
            self.credits = Chunk::CREDITS;
        }
        self.credits -= 1;
        // SAFETY: one of the counts taken above, handed over.
        unsafe { std::sync::Arc::from_raw(ptr) }
    }

    /// Gives back the counts not handed out.
    fn settle(&mut self) {
        let ptr = std::sync::Arc::as_ptr(&self.arc);
        for _ in 0..std::mem::take(&mut self.credits) {
            // SAFETY: a count taken in `share` and not handed out; `self.arc`
            // holds one more, so the chunk is not freed here.
            unsafe { std::sync::Arc::decrement_strong_count(ptr) };
        }
    }

    /// The chunk to write into, when no line holds it.
    fn get_mut(&mut self) -> Option<&mut Vec<u8>> {
        self.settle();
        std::sync::Arc::get_mut(&mut self.arc)
    }

    /// Reads into `next` from now on; returns the chunk read into before.
    fn replace(&mut self, next: std::sync::Arc<Vec<u8>>) -> std::sync::Arc<Vec<u8>> {
        self.settle();
        std::mem::replace(&mut self.arc, next)
    }
}

impl std::ops::Deref for Chunk {
    type Target = Vec<u8>;

    fn deref(&self) -> &Vec<u8> {
        &self.arc
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        self.settle();
    }
}

/// Makes room in `v` for `more` bytes, doubling but never past `cap`: a
/// line near the cap does not reserve twice the cap.
fn grow_within(v: &mut Vec<u8>, more: usize, cap: usize) {
    let need = v.len() + more;
    if need > v.capacity() {
        let want = (v.capacity() * 2).clamp(need, cap.max(need));
        v.reserve_exact(want - v.len());
    }
}

/// Where a line's bytes are: in the current chunk, or gathered on their own.
enum Raw {
    Chunk(std::ops::Range<usize>),
    Long(Vec<u8>),
}
