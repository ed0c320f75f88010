//! The progress line of a long `check`: how much of the input was read, on
//! stderr, redrawn ten times a second once a check has run for a second,
//! and erased when it ends. Only on a terminal (the caller decides), so
//! logs and pipes never see it.
//!
//! The inputs are counted as they are read ([`Counted`]), before any
//! decompression, so the fraction is of the files' sizes on disk. Each
//! file's check is timed here too ([`timed`]), for the JSON Lines output.

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Shown only after this long: short checks stay silent.
const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(100);
const BAR: usize = 24;

/// What the readers have done so far, shared with the drawing thread.
#[derive(Debug, Default)]
pub struct Counter {
    bytes: AtomicU64,
    files_done: AtomicUsize,
}

impl Counter {
    /// One more input finished.
    pub fn file_done(&self) {
        self.files_done.fetch_add(1, Ordering::Relaxed);
    }
}

/// A reader that adds what it reads to a [`Counter`].
pub struct Counted<R> {
    inner: R,
    counter: Arc<Counter>,
}

impl<R: Read> Counted<R> {
    pub fn new(inner: R, counter: Arc<Counter>) -> Counted<R> {
        Counted { inner, counter }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Runs `work` and says how long it took (the time of one file's check).
pub fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let result = work();
    (result, start.elapsed())
}

/// Runs `work`, drawing progress on `out` while it runs if it takes longer
/// than a second. `total` is the inputs' size in bytes (`None` when one is
/// standard input), `files` how many inputs there are.
pub fn run<T>(
    counter: &Arc<Counter>,
    total: Option<u64>,
    files: usize,
    out: impl Write + Send,
    work: impl FnOnce() -> T,
) -> T {
    let (done, wait) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let counter = counter.clone();
        scope.spawn(move || draw(&counter, total, files, out, &wait));
        let result = work();
        drop(done);
        result
    })
}

fn draw(
    counter: &Counter,
    total: Option<u64>,
    files: usize,
    mut out: impl Write,
    wait: &mpsc::Receiver<()>,
) {
    let start = Instant::now();
    let mut drawn = false;
    while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(TICK) {
        let elapsed = start.elapsed();
        if elapsed < DELAY {
            continue;
        }
        let line = line(
            counter.bytes.load(Ordering::Relaxed),
            total,
            counter.files_done.load(Ordering::Relaxed),
            files,
            elapsed,
        );
        // Errors writing the progress line are not worth stopping a check.
        let _ = write!(out, "\r\x1b[2K{line}");
        let _ = out.flush();
        drawn = true;
    }
    if drawn {
        let _ = write!(out, "\r\x1b[2K");
        let _ = out.flush();
    }
}

/// The progress line: a bar when the size is known, the bytes read, the
/// files done and the time so far.
fn line(read: u64, total: Option<u64>, done: usize, files: usize, elapsed: Duration) -> String {
    let mut text = String::from("mcpdbg: checking ");
    match total.filter(|t| *t > 0) {
        Some(total) => {
            let fraction = (read as f64 / total as f64).min(1.0);
            let filled = (fraction * BAR as f64).round() as usize;
            text.push_str(&format!(
                "[{}{}] {} of {} ({:.0}%)",
                "#".repeat(filled),
                "-".repeat(BAR - filled),
                size(read),
                size(total),
                fraction * 100.0
            ));
        }
        None => text.push_str(&size(read)),
    }
    if files > 1 {
        text.push_str(&format!(", {done} of {files} files"));
    }
    let seconds = elapsed.as_secs_f64();
    let rate = read as f64 / seconds.max(1e-9);
    text.push_str(&format!(", {}/s, {seconds:.1} s", size(rate as u64)));
    text
}

fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_how_far() {
        let first = line(
            250_000_000,
            Some(1_000_000_000),
            1,
            4,
            Duration::from_millis(2500),
        );
        assert_eq!(
            first,
            "mcpdbg: checking [######------------------] 250.0 MB of 1.0 GB (25%), 1 of 4 files, 100.0 MB/s, 2.5 s"
        );
        let second = line(1_500, None, 0, 1, Duration::from_secs(2));
        assert_eq!(second, "mcpdbg: checking 1.5 KB, 750 B/s, 2.0 s");
    }

    #[test]
    fn short_work_draws_nothing_and_counts_bytes() {
        let counter = Arc::new(Counter::default());
        let mut out = Vec::new();
        let read = run(&counter, Some(10), 1, &mut out, || {
            let mut text = String::new();
            Counted::new(&b"0123456789"[..], counter.clone())
                .read_to_string(&mut text)
                .expect("read");
            text
        });
        assert_eq!(read, "0123456789");
        assert_eq!(counter.bytes.load(Ordering::Relaxed), 10);
        assert!(out.is_empty(), "nothing drawn in under a second");
    }
}
