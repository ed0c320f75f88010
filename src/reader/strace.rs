//! `strace -f -tt -s 65535 -e trace=read,write -o trace.log SERVER` captures.
//!
//! Lines are `[PID ][HH:MM:SS.uuuuuu ]read(FD, "C-escaped bytes"[...], N) = R`
//! (or `write`). A call split by another thread shows as `read(3,
//! <unfinished ...>` and later `<... read resumed>"...", N) = R`. Strings longer
//! than `-s` are cut and followed by `...`. The protocol descriptors are found
//! by content: the descriptor that reads JSON-RPC is the client's side, the one
//! written with JSON-RPC the server's (current Python servers move them off 0
//! and 1 and point fd 1 at stderr). Writes to fd 2 are stderr.

use std::collections::{HashMap, VecDeque};

use super::claude::rebuild_cut;
use super::lines::Lines;
use super::record::{Assembly, Body, LineParser, PartialWhy, Record};
use crate::wire::dir::Dir;
use crate::wire::time::Timestamp;

/// One parsed syscall.
#[derive(Debug, PartialEq)]
struct Call {
    pid: Option<u32>,
    time: Option<String>,
    write: bool,
    fd: u32,
    data: Vec<u8>,
    /// The string was cut at `-s`.
    cut: bool,
}

/// A syscall waiting for its `<... resumed>` line.
struct Unfinished {
    time: Option<String>,
    write: bool,
    fd: u32,
}

/// What a descriptor turned out to carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    ClientToServer,
    ServerToClient,
}

/// Splits `[PID ][TIME ]rest`.
fn preamble(line: &str) -> (Option<u32>, Option<String>, &str) {
    let mut rest = line.trim_start();
    let mut pid = None;
    let mut time = None;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && rest[digits..].starts_with(' ') {
        pid = rest[..digits].parse().ok();
        rest = rest[digits..].trim_start();
    }
    let t = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b':' || *b == b'.')
        .count();
    if t >= 8 && rest[t..].starts_with(' ') && rest[..t].contains(':') {
        time = Some(rest[..t].to_string());
        rest = rest[t..].trim_start();
    }
    (pid, time, rest)
}

/// Decodes a C-escaped string starting after its opening quote. Returns the
/// bytes and what follows the closing quote.
fn c_string(s: &str) -> Option<(Vec<u8>, &str)> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((out, &s[i + 1..])),
            b'\\' => {
                let c = *bytes.get(i + 1)?;
                i += 2;
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'v' => out.push(0x0b),
                    b'f' => out.push(0x0c),
                    b'x' => {
                        let hex = s.get(i..i + 2)?;
                        out.push(u8::from_str_radix(hex, 16).ok()?);
                        i += 2;
                    }
                    b'0'..=b'7' => {
                        let mut value = u32::from(c - b'0');
                        let mut n = 1;
                        while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                            value = value * 8 + u32::from(bytes[i] - b'0');
                            i += 1;
                            n += 1;
                        }
                        out.push(value as u8);
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// `"data"[...], N) = R` -> the data (at most R bytes) and whether it was cut.
fn arguments(s: &str) -> Option<(Vec<u8>, bool)> {
    let s = s.trim_start().strip_prefix('"')?;
    let (mut data, rest) = c_string(s)?;
    let cut = rest.starts_with("...");
    let ret = rest.rsplit_once("= ")?.1.split_whitespace().next()?;
    let ret: i64 = ret.parse().ok()?;
    if ret <= 0 {
        return Some((Vec::new(), false));
    }
    data.truncate(ret as usize);
    Some((data, cut))
}

/// `read(3, "..."` or `write(1, "..."` -> direction, fd and the rest.
fn call_head(s: &str) -> Option<(bool, u32, &str)> {
    let (write, rest) = if let Some(r) = s.strip_prefix("write(") {
        (true, r)
    } else {
        (false, s.strip_prefix("read(")?)
    };
    let (fd, rest) = rest.split_once(',')?;
    Some((write, fd.trim().parse().ok()?, rest))
}

/// Whether a line is an strace read/write line (for format detection).
pub fn matches(line: &str) -> bool {
    let (_, _, rest) = preamble(line);
    call_head(rest).is_some()
        || rest.starts_with("<... read resumed>")
        || rest.starts_with("<... write resumed>")
}

/// Reads an strace capture.
pub struct StraceReader {
    lines: Lines,
    queue: VecDeque<Record>,
    unfinished: HashMap<Option<u32>, Unfinished>,
    roles: HashMap<u32, Role>,
    /// Bytes of each protocol direction not yet ended by a newline.
    pending: [Assembly; 2],
    /// Writes to fd 1 before anything showed which fd the server answers on.
    undecided_stdout: Vec<(u64, Option<String>, Vec<u8>)>,
    noted_cut: bool,
    noted: bool,
    last_line: u64,
}

impl StraceReader {
    pub fn new(lines: Lines) -> StraceReader {
        StraceReader {
            lines,
            queue: VecDeque::new(),
            unfinished: HashMap::new(),
            roles: HashMap::new(),
            pending: Default::default(),
            undecided_stdout: Vec::new(),
            noted_cut: false,
            noted: false,
            last_line: 0,
        }
    }

    fn parse(&mut self, line: &str) -> Option<Call> {
        let (pid, time, rest) = preamble(line);
        if let Some(after) = rest
            .strip_prefix("<... read resumed>")
            .or_else(|| rest.strip_prefix("<... write resumed>"))
        {
            let start = self.unfinished.remove(&pid)?;
            let (data, cut) = arguments(after)?;
            return Some(Call {
                pid,
                time: start.time.or(time),
                write: start.write,
                fd: start.fd,
                data,
                cut,
            });
        }
        let (write, fd, args) = call_head(rest)?;
        if args.trim_end().ends_with("<unfinished ...>") {
            self.unfinished.insert(pid, Unfinished { time, write, fd });
            return None;
        }
        let (data, cut) = arguments(args)?;
        Some(Call {
            pid,
            time,
            write,
            fd,
            data,
            cut,
        })
    }

    /// What a write to the server's stderr held, one record per line.
    fn stderr(&mut self, line: u64, time: &Option<String>, data: &[u8]) {
        for part in data.split(|&b| b == b'\n').filter(|p| !p.is_empty()) {
            let bytes = part.to_vec();
            self.record(
                line,
                time,
                Body::Line {
                    dir: Dir::Stderr,
                    bytes: bytes.into(),
                },
                true,
            );
        }
    }

    fn record(&mut self, line: u64, time: &Option<String>, body: Body, terminated: bool) {
        self.queue
            .push_back(Record::new(line, local_time(time), body, terminated, None));
    }

    fn protocol(&mut self, line: u64, call: &Call, role: Role) {
        let (slot, dir) = match role {
            Role::ClientToServer => (0, Dir::ClientToServer),
            Role::ServerToClient => (1, Dir::ServerToClient),
        };
        if call.cut {
            // The rest of this call's bytes are unknown: keep what the head shows.
            if !self.noted_cut {
                self.noted_cut = true;
                self.record(line, &None, Body::Note("strace cut long strings at -s: those messages keep only their id and method".into()), true);
            }
            self.pending[slot].push(&call.data);
            let (head, _) = self.pending[slot].take();
            let text = String::from_utf8_lossy(&head).into_owned();
            let body = match rebuild_cut(text.trim_start()) {
                Some(json) => Body::Partial {
                    dir,
                    json: json.into_bytes(),
                    why: PartialWhy::HostTruncated,
                },
                None => Body::Note(
                    "strace cut a string before its id: that message is not in the analysis".into(),
                ),
            };
            self.record(line, &call.time, body, true);
            return;
        }
        // Each newline ends the line assembled so far (held up to the line
        // limit, as a line read whole is); what follows the last stays.
        let mut rest: &[u8] = &call.data;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.pending[slot].push(&rest[..end]);
            let assembled = self.pending[slot].take();
            let time = local_time(&call.time);
            super::record::queue_assembled(&mut self.queue, line, time, dir, assembled, true);
            rest = &rest[end + 1..];
        }
        self.pending[slot].push(rest);
    }

    fn handle(&mut self, line: u64, call: Call) {
        if call.data.is_empty() {
            return;
        }
        if call.write && call.fd == 2 {
            self.stderr(line, &call.time, &call.data);
            return;
        }
        let jsonrpc = memchr::memmem::find(&call.data, b"\"jsonrpc\"").is_some();
        let role = match self.roles.get(&call.fd) {
            Some(role) => Some(*role),
            None if jsonrpc => {
                let role = if call.write {
                    Role::ServerToClient
                } else {
                    Role::ClientToServer
                };
                self.roles.insert(call.fd, role);
                if role == Role::ServerToClient {
                    self.settle_stdout(call.fd == 1);
                }
                Some(role)
            }
            None => None,
        };
        match role {
            Some(role) if (role == Role::ServerToClient) == call.write => {
                self.protocol(line, &call, role)
            }
            _ if call.write && call.fd == 1 => {
                let answered_elsewhere = self
                    .roles
                    .iter()
                    .any(|(fd, r)| *r == Role::ServerToClient && *fd != 1);
                if answered_elsewhere {
                    // fd 1 points at stderr while the server serves on another fd.
                    self.stderr(line, &call.time, &call.data);
                } else {
                    self.undecided_stdout.push((line, call.time, call.data));
                }
            }
            _ => {}
        }
    }

    /// Once the server's answering descriptor is known, earlier writes to fd 1
    /// were either stray stdout (fd 1 is the wire) or stderr (it is not).
    fn settle_stdout(&mut self, fd1_is_wire: bool) {
        for (line, time, data) in std::mem::take(&mut self.undecided_stdout) {
            let call = Call {
                pid: None,
                time,
                write: true,
                fd: 1,
                data,
                cut: false,
            };
            if fd1_is_wire {
                self.protocol(line, &call, Role::ServerToClient);
            } else {
                self.stderr(line, &call.time, &call.data);
            }
        }
    }

    fn read(&mut self, line_no: u64, bytes: &[u8]) {
        self.last_line = line_no;
        if !self.noted {
            self.noted = true;
            self.record(
                line_no,
                &None,
                Body::Note("strace shows times of day only, and a blocking read is stamped when it started waiting: latencies are approximate".into()),
                true,
            );
        }
        let text = String::from_utf8_lossy(bytes);
        if let Some(call) = self.parse(&text) {
            self.handle(line_no, call);
        }
    }
}

/// strace's wall-clock time of day (`-t`, `-tt`) as a timestamp of no date.
fn local_time(time: &Option<String>) -> Option<Timestamp> {
    time.as_deref().and_then(|t| {
        Timestamp::parse_local(&format!("1970-01-01 {t}")).map(|mut ts| {
            ts.text = t.into();
            ts
        })
    })
}

impl LineParser for StraceReader {
    fn parts(&mut self) -> (&mut Lines, &mut VecDeque<Record>) {
        (&mut self.lines, &mut self.queue)
    }

    fn line(&mut self, line: u64, bytes: crate::wire::line::LineBytes, terminated: bool) {
        let _ = terminated;
        self.read(line, &bytes)
    }

    fn end(&mut self) {
        let last = self.last_line;
        // No JSON-RPC was ever written: fd 1 was the wire.
        self.settle_stdout(true);
        for (slot, dir) in [(0, Dir::ClientToServer), (1, Dir::ServerToClient)] {
            if !self.pending[slot].is_empty() {
                let assembled = self.pending[slot].take();
                super::record::queue_assembled(&mut self.queue, last, None, dir, assembled, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls() {
        let mut r = StraceReader::new(Lines::new(Box::new(std::io::Cursor::new(Vec::new()))));
        let call = r
            .parse(r#"12809 21:14:28.619486 write(1, "{\"id\": 0}\n", 10) = 10"#)
            .unwrap();
        assert_eq!(
            (call.pid, call.time.as_deref(), call.write, call.fd),
            (Some(12809), Some("21:14:28.619486"), true, 1)
        );
        assert_eq!(call.data, b"{\"id\": 0}\n");
        let cut = r
            .parse(r#"write(1, "{\"jsonrpc\": \"2.0\", \"id\": 0, \"res"..., 154) = 154"#)
            .unwrap();
        assert!(cut.cut);
        assert!(
            r.parse("17281 21:18:23.185149 read(3,  <unfinished ...>")
                .is_none()
        );
        let resumed = r
            .parse(r#"17281 21:18:23.185874 <... read resumed>"abc\n", 4096) = 4"#)
            .unwrap();
        assert_eq!(
            (resumed.fd, resumed.write, resumed.data.as_slice()),
            (3, false, &b"abc\n"[..])
        );
        let octal = r.parse(r#"read(0, "caf\303\251\t\x41", 8) = 8"#).unwrap();
        assert_eq!(octal.data, "café\tA".as_bytes());
        assert!(matches(r#"544   21:47:46.123456 read(6, "", 1)    = 0"#));
        assert!(!matches("{\"jsonrpc\":\"2.0\"}"));
    }
}
