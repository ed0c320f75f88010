//! A started server's output, read the one way `probe` and `replay` both
//! read it: a thread per stream cuts it into lines, a line longer than
//! [`LINE_LIMIT`] is skipped as it is read (only its length is kept), and
//! at most [`IN_FLIGHT`] lines wait to be handled, so a flooding server
//! waits on its pipe and what mcpdbg holds stays bounded. [`Budget`] counts
//! what is recorded against [`OUTPUT_LIMIT`].

use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::SyncSender;
use std::thread;

use chrono::{DateTime, Utc};

use super::transcript::Transcript;
use crate::wire::event::text as event;

/// The longest line of the server's output that is recorded: a longer one
/// is skipped as it is read and a `# gap` event gives its size.
pub const LINE_LIMIT: usize = 16 << 20;

/// The most of the server's output (stdout and stderr) recorded: past it,
/// the run says so and stops, as at a hang.
pub const OUTPUT_LIMIT: u64 = 1 << 30;

/// Lines read but not yet handled (with [`LINE_LIMIT`], what the readers
/// hold is bounded).
pub(crate) const IN_FLIGHT: usize = 8;

/// What one of the server's streams gave.
pub(crate) enum Output {
    Line {
        stderr: bool,
        bytes: Vec<u8>,
        /// False for a last line without its newline.
        terminated: bool,
        at: DateTime<Utc>,
    },
    /// A line longer than [`LINE_LIMIT`], skipped: its length.
    Cut {
        stderr: bool,
        bytes: u64,
    },
    Closed {
        stderr: bool,
    },
}

impl Output {
    /// The stream's name, as transcript events say it.
    pub(crate) fn stream(stderr: bool) -> &'static str {
        if stderr { "stderr" } else { "stdout" }
    }
}

/// Reads `stream` on a thread of its own, sending each line (or cut line)
/// and then [`Output::Closed`] as `E`; stops when the receiver is gone.
pub(crate) fn pump<E>(stream: impl Read + Send + 'static, stderr: bool, tx: SyncSender<E>)
where
    E: From<Output> + Send + 'static,
{
    thread::spawn(move || {
        let send = |o: Output| tx.send(E::from(o)).is_ok();
        let mut reader = BufReader::with_capacity(1 << 16, stream);
        let mut line = Vec::new();
        // Bytes of the line being skipped; 0: not skipping.
        let mut skipped: u64 = 0;
        loop {
            let buf = match reader.fill_buf() {
                Ok([]) => break,
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let (chunk, newline) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let used = chunk.len() + usize::from(newline);
            if skipped > 0 || line.len() + chunk.len() > LINE_LIMIT {
                skipped += (line.len() + chunk.len()) as u64;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
            reader.consume(used);
            if newline {
                let output = if skipped > 0 {
                    Output::Cut {
                        stderr,
                        bytes: std::mem::take(&mut skipped),
                    }
                } else {
                    Output::Line {
                        stderr,
                        bytes: std::mem::take(&mut line),
                        terminated: true,
                        at: Utc::now(),
                    }
                };
                if !send(output) {
                    return;
                }
            }
        }
        let last = if skipped > 0 {
            Some(Output::Cut {
                stderr,
                bytes: skipped,
            })
        } else if !line.is_empty() {
            Some(Output::Line {
                stderr,
                bytes: line,
                terminated: false,
                at: Utc::now(),
            })
        } else {
            None
        };
        if let Some(output) = last {
            send(output);
        }
        send(Output::Closed { stderr });
    });
}

/// The server's output recorded so far, against [`OUTPUT_LIMIT`].
#[derive(Debug, Default)]
pub(crate) struct Budget {
    recorded: u64,
    flooded: bool,
}

/// What [`Budget::record`] did with one piece of output.
pub(crate) enum Recorded {
    /// A line of stdout, recorded: the caller reads it as a message.
    Stdout(Vec<u8>),
    /// The stream ended (recorded as an event).
    Closed { stderr: bool },
    /// Recorded (a stderr line, a gap), or dropped past the limit.
    Done,
}

impl Budget {
    /// Records one piece of the server's output in `transcript`, the same
    /// for `probe` and `replay` (`who`): a line with its marker (after a
    /// `partial line` event when it had no newline), a cut line as a `gap`
    /// event and a note, a closed stream as an event; nothing past
    /// [`OUTPUT_LIMIT`].
    pub(crate) fn record(
        &mut self,
        output: Output,
        who: &str,
        transcript: &mut Transcript,
        notes: &mut Vec<String>,
    ) -> io::Result<Recorded> {
        match output {
            Output::Line {
                stderr,
                bytes,
                terminated,
                at,
            } => {
                if !self.take(bytes.len() as u64 + 1, who, transcript, notes)? {
                    return Ok(Recorded::Done);
                }
                if !terminated {
                    transcript.event(&event::partial_line(Output::stream(stderr)))?;
                }
                transcript.line(at, if stderr { "!" } else { "<" }, &bytes)?;
                Ok(if stderr {
                    Recorded::Done
                } else {
                    Recorded::Stdout(bytes)
                })
            }
            Output::Cut { stderr, bytes } => {
                // Only the event is recorded.
                if self.take(1, who, transcript, notes)? {
                    transcript.event(&event::gap(
                        usize::try_from(bytes).unwrap_or(usize::MAX),
                        Output::stream(stderr),
                    ))?;
                    notes.push(format!(
                        "the server wrote a line of {bytes} bytes on its {}, longer than the {who}'s limit ({} MiB): it was not recorded (a `# gap` event in the transcript)",
                        Output::stream(stderr),
                        LINE_LIMIT >> 20
                    ));
                }
                Ok(Recorded::Done)
            }
            Output::Closed { stderr } => {
                transcript.event(&event::closed(Output::stream(stderr)))?;
                Ok(Recorded::Closed { stderr })
            }
        }
    }

    /// Counts `bytes` of output; false once [`OUTPUT_LIMIT`] is passed.
    /// The first time, the transcript and `notes` say so (`who: ...`, the
    /// command that stops).
    fn take(
        &mut self,
        bytes: u64,
        who: &str,
        transcript: &mut Transcript,
        notes: &mut Vec<String>,
    ) -> io::Result<bool> {
        if self.flooded {
            return Ok(false);
        }
        self.recorded = self.recorded.saturating_add(bytes);
        if self.recorded <= OUTPUT_LIMIT {
            return Ok(true);
        }
        self.flooded = true;
        let text = format!(
            "the server wrote more than {} MiB; the rest of its output was not recorded and the {who} stopped",
            OUTPUT_LIMIT >> 20
        );
        transcript.event(&format!("{who}: {text}"))?;
        notes.push(text);
        Ok(false)
    }

    pub(crate) fn flooded(&self) -> bool {
        self.flooded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_line_over_the_limit_is_skipped_as_it_is_read() {
        let mut input = vec![b'x'; LINE_LIMIT + 10];
        input.extend_from_slice(b"\nok\ntail");
        let (tx, rx) = mpsc::sync_channel::<Output>(IN_FLIGHT);
        pump(io::Cursor::new(input), true, tx);
        let got: Vec<Output> = rx.iter().collect();
        assert!(
            matches!(got[0], Output::Cut { stderr: true, bytes } if bytes == LINE_LIMIT as u64 + 10)
        );
        assert!(
            matches!(&got[1], Output::Line { bytes, terminated: true, .. } if bytes.as_slice() == b"ok")
        );
        assert!(
            matches!(&got[2], Output::Line { bytes, terminated: false, .. } if bytes.as_slice() == b"tail")
        );
        assert!(matches!(got[3], Output::Closed { stderr: true }));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn the_budget_says_once_that_it_is_passed() {
        let dir = std::env::temp_dir().join(format!("mcpdbg-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("t.log");
        let _ = std::fs::remove_file(&path);
        let mut transcript = Transcript::create(&path).expect("transcript");
        let mut notes = Vec::new();
        let mut budget = Budget::default();
        let mut take = |n| {
            budget
                .take(n, "probe", &mut transcript, &mut notes)
                .expect("write")
        };
        assert!(take(OUTPUT_LIMIT));
        assert!(!take(1));
        assert!(!take(1));
        assert!(budget.flooded());
        assert_eq!(notes.len(), 1, "{notes:?}");
        transcript.flush().expect("flush");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(
            text.matches("probe: the server wrote more than 1024 MiB")
                .count(),
            1
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
