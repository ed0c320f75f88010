//! Reading a server's stderr for the crash that explains a hang: a Rust
//! panic, an abort or a fatal signal, a Node.js uncaught exception, a Python
//! traceback, a Go panic, a .NET or Java unhandled exception. Line by line,
//! with one counter of state (inside a Python traceback), so O(1) per line.

/// How a process reported its crash; worded to follow "the handler ...".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// Rust's `thread '...' panicked at`, Go's `panic:` / `fatal error:`.
    Panic,
    /// An exception: uncaught (Node.js, .NET, Java) or a Python traceback.
    Uncaught,
    /// `abort()`, a fatal signal, a segmentation fault, Rust's `fatal
    /// runtime error`.
    Abort,
}

impl Crash {
    pub fn verb(self) -> &'static str {
        match self {
            Crash::Panic => "panicked",
            Crash::Uncaught => "threw an exception",
            Crash::Abort => "aborted",
        }
    }
}

/// The state of the reader between lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reader {
    /// Inside a Python traceback: the first line that is not indented and
    /// reads like an exception names it. Other lines (another thread's
    /// logging, interleaved) are let through, this many at most.
    traceback: u8,
}

impl Reader {
    /// Takes the next stderr line; says when it reports a crash.
    pub fn line(&mut self, text: &str) -> Option<Crash> {
        let t = text.trim_end();
        if t.starts_with("Traceback (most recent call last)") {
            self.traceback = TRACEBACK_STRAYS;
            return None;
        }
        if self.traceback > 0 {
            if t.starts_with(' ') || t.starts_with('\t') || t.is_empty() {
                return None; // the frames and their source lines
            }
            if python_exception(t) {
                self.traceback = 0;
                return Some(Crash::Uncaught);
            }
            self.traceback -= 1;
        }
        let s = t.trim_start();
        if s.contains("panicked at") || s.starts_with("panic: ") || s.starts_with("fatal error: ") {
            return Some(Crash::Panic);
        }
        if s.starts_with("Unhandled exception.")
            || s.starts_with("Unhandled Exception:")
            || s.starts_with("Exception in thread ")
            || s.starts_with("Uncaught ")
            || s.contains("UnhandledPromiseRejection")
            || s.contains("triggerUncaughtException")
        {
            return Some(Crash::Uncaught);
        }
        if s.contains("fatal runtime error")
            || s.contains("core dumped")
            || s.starts_with("Aborted")
            || s.starts_with("Segmentation fault")
            || s.contains("SIGSEGV")
            || s.contains("SIGABRT")
        {
            return Some(Crash::Abort);
        }
        None
    }
}

/// Lines of other output a traceback may be interleaved with.
const TRACEBACK_STRAYS: u8 = 8;

/// `ValueError: bad`, `asyncio.exceptions.CancelledError`, `KeyboardInterrupt`:
/// a dotted name ending in Error, Exception, Interrupt or Exit, then `:` or
/// the end of the line.
fn python_exception(line: &str) -> bool {
    let name = line.split(':').next().unwrap_or("");
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && ["Error", "Exception", "Interrupt", "Exit", "Warning"]
            .iter()
            .any(|end| name.ends_with(end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crashes(lines: &[&str]) -> Vec<(usize, Crash)> {
        let mut r = Reader::default();
        lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| r.line(l).map(|c| (i, c)))
            .collect()
    }

    #[test]
    fn each_runtime_s_crash_is_read() {
        use Crash::*;
        assert_eq!(
            crashes(&["thread 'main' panicked at src/main.rs:4:5:", "boom"]),
            vec![(0, Panic)]
        );
        assert_eq!(
            crashes(&[
                "panic: runtime error: index out of range",
                "",
                "goroutine 1 [running]:"
            ]),
            vec![(0, Panic)]
        );
        assert_eq!(
            crashes(&[
                "Traceback (most recent call last):",
                "  File \"server.py\", line 9, in handle",
                "    raise ValueError(\"bad\")",
                "ValueError: bad",
            ]),
            vec![(3, Uncaught)]
        );
        assert_eq!(
            crashes(&[
                "Traceback (most recent call last):",
                "  File \"x.py\", line 1",
                "KeyboardInterrupt"
            ]),
            vec![(2, Uncaught)]
        );
        assert_eq!(
            crashes(&["Unhandled exception. System.InvalidOperationException: no"]),
            vec![(0, Uncaught)]
        );
        assert_eq!(
            crashes(&["Exception in thread \"main\" java.lang.NullPointerException"]),
            vec![(0, Uncaught)]
        );
        assert_eq!(
            crashes(&[
                "node:internal/process/promises:289",
                "            triggerUncaughtException(err, true /* fromPromise */);"
            ]),
            vec![(1, Uncaught)]
        );
        assert_eq!(
            crashes(&["fatal runtime error: stack overflow"]),
            vec![(0, Abort)]
        );
        assert_eq!(
            crashes(&["Segmentation fault (core dumped)"]),
            vec![(0, Abort)]
        );
        // Another thread's logging in the middle of the traceback.
        assert_eq!(
            crashes(&[
                "Traceback (most recent call last):",
                "  File \"x.py\", line 1",
                "INFO worker 2 started",
                "TimeoutError: lock held",
                "ValueError: a log line, not this traceback's",
            ]),
            vec![(3, Uncaught)]
        );
        // Logging that merely mentions errors is no crash.
        assert_eq!(
            crashes(&[
                "INFO request failed: ValueError: bad input",
                "ValueError: not after a traceback",
                "Error: retrying"
            ]),
            vec![]
        );
    }
}
