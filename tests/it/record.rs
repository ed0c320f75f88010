//! `mcpdbg record` against real software: the official MCP Python SDK as
//! client and server (installed, pinned, by `scripts/test` into
//! `target/sdk-venv`), plus lifecycle tests with plain shell servers.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use mcpdbg::reader::{self, Body, Format};
use mcpdbg::wire::dir::Dir;
use mcpdbg::wire::event::EventKind;
use serde_json::Value;

use crate::common::{root, sdk_python};

fn mcpdbg() -> &'static str {
    env!("CARGO_BIN_EXE_mcpdbg")
}

/// A fresh scratch directory under target/, removed and recreated.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("test-scratch").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The byte streams a transcript recorded, rebuilt from its records.
#[derive(Default)]
struct Streams {
    client: Vec<u8>,
    server: Vec<u8>,
    stderr: Vec<u8>,
    events: Vec<String>,
}

fn streams(transcript: &Path) -> Streams {
    let reader::Opened {
        format, records, ..
    } = reader::open(
        Box::new(fs::File::open(transcript).expect("transcript")),
        None,
    )
    .expect("read");
    assert_eq!(format, Format::Native);
    let mut s = Streams::default();
    let mut partial = None;
    for record in records {
        let record = record.expect("record");
        match record.body {
            Body::Event(event) => {
                partial = match event.kind {
                    EventKind::PartialLine(Dir::ClientToServer) => Some("stdin"),
                    EventKind::PartialLine(Dir::ServerToClient) => Some("stdout"),
                    EventKind::PartialLine(Dir::Stderr) => Some("stderr"),
                    _ => None,
                };
                s.events.push(event.text);
            }
            Body::Line { dir, bytes } => {
                let (target, name) = match dir {
                    Dir::ClientToServer => (&mut s.client, "stdin"),
                    Dir::ServerToClient => (&mut s.server, "stdout"),
                    Dir::Stderr => (&mut s.stderr, "stderr"),
                    Dir::Unknown => panic!("native records have a direction"),
                };
                target.extend_from_slice(&bytes);
                if partial.take() != Some(name) {
                    target.push(b'\n');
                }
            }
            Body::Partial { .. }
            | Body::HostParseError(_)
            | Body::HostRejected(_)
            | Body::Note(_)
            | Body::Undecodable { .. }
            | Body::Overlong { .. } => {
                panic!("the native format has no partial messages or notes")
            }
            Body::Unreadable(line) => panic!(
                "unreadable transcript line: {}",
                String::from_utf8_lossy(&line)
            ),
        }
    }
    s
}

fn check_json(transcript: &Path) -> (Option<i32>, Value) {
    let out = Command::new(mcpdbg())
        .args(["check", "--format", "json"])
        .arg(transcript)
        .output()
        .expect("check runs");
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).expect("json"),
    )
}

/// Runs the SDK client scenario through tap -> recorder -> SDK server.
fn sdk(scenario: &str, mode: &str) -> (Value, PathBuf, PathBuf) {
    let dir = scratch(&format!("sdk-{scenario}-{mode}"));
    let transcript = dir.join("session.log");
    let out = Command::new(sdk_python())
        .arg(root().join("tests/sdk/client.py"))
        .args([scenario, mode, mcpdbg()])
        .arg(&transcript)
        .arg(&dir)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "client failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("client prints JSON");
    (seen, transcript, dir)
}

fn read(path: PathBuf) -> Vec<u8> {
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn sdk_sessions_are_relayed_and_recorded_byte_for_byte() {
    for (mode, era, version) in [
        ("legacy", "legacy", "2025-11-25"),
        ("auto", "modern", "2026-07-28"),
    ] {
        let (seen, transcript, dir) = sdk("session", mode);
        // The SDK client got real answers through the recorder.
        assert_eq!(seen["protocol_version"], version, "{mode}");
        assert_eq!(seen["add"], "5");
        assert_eq!(seen["count"], "counted to 3");
        assert_eq!(seen["progress"].as_array().map(Vec::len), Some(3));
        assert_eq!(seen["fail_is_error"], true);
        // Bytes: what the client sent = what the server received = the
        // transcript's `>` records; and the same for the other direction.
        let s = streams(&transcript);
        let client_sent = read(dir.join("client-sent.bin"));
        let client_received = read(dir.join("client-received.bin"));
        assert!(!client_sent.is_empty() && !client_received.is_empty());
        assert_eq!(
            client_sent,
            read(dir.join("server-received.bin")),
            "{mode}: client -> server"
        );
        assert_eq!(
            client_received,
            read(dir.join("server-sent.bin")),
            "{mode}: server -> client"
        );
        assert_eq!(s.client, client_sent, "{mode}: transcript > records");
        assert_eq!(s.server, client_received, "{mode}: transcript < records");
        // Stderr is recorded, and the lifecycle events are there.
        let stderr = String::from_utf8_lossy(&s.stderr);
        assert!(stderr.contains("sdk test server starting"), "{stderr}");
        assert!(
            stderr.contains("ValueError: disk on fire"),
            "the failing tool's traceback: {stderr}"
        );
        assert!(s.events[0].starts_with("start "), "{:?}", s.events);
        assert!(s.events.iter().any(|e| e == "stdin closed"));
        assert_eq!(
            s.events.last().map(String::as_str),
            Some("server exited with status 0")
        );
        // The transcript is owner-only, and `check` finds a clean session.
        let mode_bits = fs::metadata(&transcript)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode_bits, 0o600);
        let (code, report) = check_json(&transcript);
        assert_eq!(
            report["files"][0]["findings"],
            Value::Array(vec![]),
            "{mode}: {report:#}"
        );
        assert_eq!(code, Some(0));
        let session = &report["files"][0]["sessions"][0];
        assert_eq!(session["era"], era);
        assert_eq!(session["protocol_version"], version);
        assert_eq!(session["server"]["name"], "sdk-test-server");
    }
}

#[test]
fn sdk_server_printing_to_stdout_is_reported() {
    let (seen, transcript, _) = sdk("stray", "legacy");
    assert_eq!(
        seen["stray"], "done",
        "the SDK client skips the stray line and still gets the answer"
    );
    let (code, report) = check_json(&transcript);
    assert_eq!(code, Some(1));
    let findings = report["files"][0]["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["rule"], "stray-output");
    assert_eq!(findings[0]["direction"], "server-to-client");
    assert!(
        findings[0]["message"]
            .as_str()
            .expect("message")
            .contains("debug: stray tool called")
    );
}

#[test]
fn sdk_server_that_never_answers_is_reported_as_a_hang() {
    let (seen, transcript, _) = sdk("hang", "legacy");
    assert_eq!(seen["hang_answered"], false);
    let s = streams(&transcript);
    assert!(
        s.events
            .iter()
            .any(|e| e == "SIGTERM received; forwarded to the server"),
        "{:?}",
        s.events
    );
    assert!(
        s.events
            .iter()
            .any(|e| e == "server killed by signal 15 (SIGTERM)"),
        "{:?}",
        s.events
    );
    let (code, report) = check_json(&transcript);
    assert_eq!(code, Some(1));
    let findings = report["files"][0]["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let hang = &findings[0];
    assert_eq!(hang["rule"], "unanswered-request");
    assert_eq!(hang["method"], "tools/call");
    // The id the SDK client gave the call of the `hang` tool.
    let call: Value = String::from_utf8_lossy(&s.client)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("client lines are JSON"))
        .find(|m| m["params"]["name"] == "hang")
        .expect("the hang call was recorded");
    assert!(call["id"].is_number());
    assert_eq!(hang["id"], call["id"]);
    let message = hang["message"].as_str().expect("message");
    assert!(message.contains("\"hang\""), "{message}");
    assert!(message.contains("server killed by signal 15"), "{message}");
}

/// The official SDK client leaves with a call still running (`close`):
/// the SDK server answers it with its shutdown error once its stdin
/// closes, which is no answer, so the call is a hang in either era; a
/// 2026-07-28 client that did not cancel it first is told
/// (`closed-without-cancel`). Cancelled first (`cancel-close`), the call
/// is only a `cancelled-request` note.
#[test]
fn sdk_client_leaving_with_a_call_running_is_a_hang_not_an_answer() {
    for mode in ["legacy", "auto"] {
        let (seen, transcript, _) = sdk("close", mode);
        assert_eq!(seen["add"], "5", "{mode}");
        assert_eq!(seen["hang_error"], "Connection closed", "{mode}");
        let (code, report) = check_json(&transcript);
        assert_eq!(code, Some(1), "{mode}");
        let findings = report["files"][0]["findings"].as_array().expect("findings");
        let rules: Vec<&str> = findings
            .iter()
            .map(|f| f["rule"].as_str().expect("rule"))
            .collect();
        let expected: &[&str] = if mode == "auto" {
            &["unanswered-request", "closed-without-cancel"]
        } else {
            &["unanswered-request"]
        };
        assert_eq!(rules, expected, "{mode}: {findings:#?}");
        let message = findings[0]["message"].as_str().expect("message");
        assert!(message.contains("\"hang\""), "{message}");
        assert!(
            message.contains("when the client closed the connection at line"),
            "{message}"
        );
        assert!(
            message.contains("is the server's shutdown, not an answer"),
            "{message}"
        );

        let (_, transcript, _) = sdk("cancel-close", mode);
        let (code, report) = check_json(&transcript);
        assert_eq!(code, Some(0), "{mode}");
        let findings = report["files"][0]["findings"].as_array().expect("findings");
        assert_eq!(findings.len(), 1, "{mode}: {findings:#?}");
        assert_eq!(findings[0]["rule"], "cancelled-request", "{mode}");
        assert_eq!(findings[0]["severity"], "info", "{mode}");
    }
}

/// Starts the recorder around `server` (a shell command).
fn record(dir: &Path, server: &str, extra: &[&str]) -> Child {
    Command::new(mcpdbg())
        .arg("record")
        .args(extra)
        .arg("--out")
        .arg(dir.join("t.log"))
        .args(["--", "sh", "-c", server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("recorder starts")
}

/// Waits for a child, failing the test if it does not end in `limit`.
fn wait_for(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the recorder did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn transcript_lines(dir: &Path) -> Vec<String> {
    String::from_utf8_lossy(&read(dir.join("t.log")))
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn killing_the_recorder_loses_no_line_already_relayed() {
    let dir = scratch("kill-recorder");
    let mut child = record(&dir, "while read -r l; do echo \"$l\"; done", &[]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for i in 0..100 {
        writeln!(stdin, "{{\"n\":{i}}}").expect("write");
        let mut echoed = String::new();
        stdout.read_line(&mut echoed).expect("echo");
        assert_eq!(echoed, format!("{{\"n\":{i}}}\n"));
    }
    // Every relayed line reaches the file while the recorder is still alive
    // (it flushes whenever it is idle), so SIGKILL cannot lose them.
    let deadline = Instant::now() + Duration::from_secs(20);
    while transcript_lines(&dir)
        .iter()
        .filter(|l| l.contains(" < {\"n\":"))
        .count()
        < 100
    {
        assert!(
            Instant::now() < deadline,
            "lines not flushed: {:?}",
            transcript_lines(&dir)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    let lines = transcript_lines(&dir);
    for i in 0..100 {
        let at = |marker: &str| {
            let wanted = format!(" {marker} {{\"n\":{i}}}");
            lines
                .iter()
                .position(|l| l.ends_with(&wanted))
                .unwrap_or_else(|| panic!("{wanted} missing"))
        };
        // Causality: what the client sent is recorded before the echo it caused.
        assert!(at(">") < at("<"), "line {i} recorded out of order");
    }
}

#[test]
fn a_killed_server_ends_the_recording_with_its_signal() {
    let dir = scratch("kill-server");
    // The last words before the pid: once the pid is read they were
    // written, and the kill cannot come before them.
    let mut child = record(&dir, "echo 'last words' >&2; echo $$; exec sleep 60", &[]);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut pid = String::new();
    stdout.read_line(&mut pid).expect("pid");
    let pid: i32 = pid.trim().parse().expect("a pid");
    // SAFETY: kill(2) on the server process the recorder started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(128 + 9));
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.server, format!("{pid}\n").into_bytes());
    assert_eq!(s.stderr, b"last words\n");
    assert_eq!(
        s.events.last().map(String::as_str),
        Some("server killed by signal 9 (SIGKILL)")
    );
}

#[test]
fn closing_stdin_early_is_passed_on_and_recorded() {
    let dir = scratch("close-stdin");
    let mut child = record(&dir, "cat; echo 'stdin ended' >&2; exit 3", &[]);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"{\"a\":1}\n{\"b\":2}").expect("write");
    drop(stdin);
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(
        status.code(),
        Some(3),
        "the server's exit status is the recorder's"
    );
    assert_eq!(
        out, b"{\"a\":1}\n{\"b\":2}",
        "relayed unchanged, last line without newline"
    );
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.client, b"{\"a\":1}\n{\"b\":2}");
    assert_eq!(s.server, b"{\"a\":1}\n{\"b\":2}");
    assert!(s.events.contains(&"stdin closed".to_string()));
    assert!(
        s.events
            .contains(&"partial line follows on stdout".to_string())
    );
    assert_eq!(
        s.events.last().map(String::as_str),
        Some("server exited with status 3")
    );
}

#[test]
fn a_10_mb_line_is_relayed_and_recorded_whole() {
    let dir = scratch("big-line");
    let mut child = record(&dir, "head -c 10000000 /dev/zero | tr '\\0' x; echo", &[]);
    drop(child.stdin.take());
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = wait_for(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0));
    assert_eq!(out.len(), 10_000_001);
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.server, out);
}

#[test]
fn a_server_that_never_reads_stdin_does_not_hang_the_recorder() {
    let dir = scratch("no-read");
    let mut child = record(&dir, "sleep 1; echo done", &[]);
    let mut stdin = child.stdin.take().expect("stdin");
    // More than a pipe holds; the host keeps its end open all along.
    let writer = std::thread::spawn(move || {
        let line = [b'z'; 1023];
        for _ in 0..2048 {
            if stdin
                .write_all(&line)
                .and_then(|()| stdin.write_all(b"\n"))
                .is_err()
            {
                break;
            }
        }
        stdin
    });
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = wait_for(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(0));
    assert_eq!(out, b"done\n");
    let _stdin = writer.join().expect("writer");
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.server, b"done\n");
    // The exit is the last event, but for the note of a host line the
    // recorder read only the start of (the host writes on while the server
    // exits: whether a chunk it read ended inside a line is up to timing).
    let exit = s
        .events
        .iter()
        .position(|e| e == "server exited with status 0")
        .expect("exit event");
    let after: Vec<&str> = s.events[exit + 1..].iter().map(String::as_str).collect();
    assert!(
        after.is_empty() || after == ["partial line follows on stdin"],
        "events after the exit: {after:?}"
    );
}

#[test]
fn sigterm_is_forwarded_to_the_server() {
    let dir = scratch("sigterm");
    let mut child = record(
        &dir,
        "trap 'echo got-term; exit 4' TERM; echo ready; while :; do sleep 0.1; done",
        &[],
    );
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut ready = String::new();
    stdout.read_line(&mut ready).expect("ready");
    assert_eq!(ready, "ready\n");
    // SAFETY: kill(2) on the recorder this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(4));
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.server, b"ready\ngot-term\n");
    assert!(
        s.events
            .contains(&"SIGTERM received; forwarded to the server".to_string()),
        "{:?}",
        s.events
    );
}

#[test]
fn the_transcript_is_never_overwritten_nor_written_through_a_link() {
    let dir = scratch("out-file");
    let out = dir.join("t.log");
    fs::write(&out, b"precious\n").expect("write");
    let run = |args: &[&str]| {
        Command::new(mcpdbg())
            .arg("record")
            .args(args)
            .args(["--", "sh", "-c", "echo hi"])
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    // The server still starts (the host must not see a broken server);
    // the session runs unrecorded.
    let refused = run(&["--out", out.to_str().expect("utf-8")]);
    assert_eq!(refused.status.code(), Some(0));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--append") && err.contains("runs unrecorded"),
        "{err}"
    );
    assert_eq!(refused.stdout, b"hi\n", "the server ran");
    assert_eq!(read(out.clone()), b"precious\n");

    let appended = run(&["--append", "--out", out.to_str().expect("utf-8")]);
    assert_eq!(appended.status.code(), Some(0));
    let text = String::from_utf8(read(out.clone())).expect("utf-8");
    assert!(
        text.starts_with("precious\n") && text.contains(" < hi\n"),
        "{text}"
    );

    let link = dir.join("link.log");
    std::os::unix::fs::symlink(&out, &link).expect("symlink");
    for args in [&["--out"][..], &["--append", "--out"][..]] {
        let mut args = args.to_vec();
        args.push(link.to_str().expect("utf-8"));
        let refused = run(&args);
        assert_eq!(refused.status.code(), Some(0), "{args:?}");
        assert_eq!(refused.stdout, b"hi\n", "the server ran");
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("symbolic link"),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );
    }
    assert!(
        String::from_utf8(read(out))
            .expect("utf-8")
            .starts_with("precious\n")
    );

    // A directory that does not exist yet is made.
    let nested = dir.join("fresh/logs/s.log");
    let made = run(&["--out", nested.to_str().expect("utf-8")]);
    assert_eq!(
        made.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(
        String::from_utf8(read(nested))
            .expect("utf-8")
            .contains(" < hi\n")
    );
    // One that cannot be made: the server runs unrecorded.
    fs::write(dir.join("plain"), b"").expect("write");
    let blocked = dir.join("plain/sub/s.log");
    let unrecorded = run(&["--out", blocked.to_str().expect("utf-8")]);
    assert_eq!(unrecorded.status.code(), Some(0));
    assert_eq!(unrecorded.stdout, b"hi\n");
    assert!(String::from_utf8_lossy(&unrecorded.stderr).contains("runs unrecorded"));

    let templated = dir.join("s-{pid}-{time}.log");
    let made = run(&["--out", templated.to_str().expect("utf-8")]);
    assert_eq!(made.status.code(), Some(0));
    let names: Vec<String> = fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("s-"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        !names[0].contains('{') && names[0].ends_with("Z.log"),
        "{names:?}"
    );
}

#[test]
fn a_newline_in_a_server_argument_stays_inside_the_start_event() {
    let dir = scratch("start-newline");
    let forged = "x\n2026-01-01T00:00:00Z > {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\"}\r\u{1b}[2J";
    let out = Command::new(mcpdbg())
        .arg("record")
        .arg("--out")
        .arg(dir.join("t.log"))
        .args(["--", "sh", "-c", "echo hi", forged])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let lines = transcript_lines(&dir);
    let start = lines
        .iter()
        .find(|l| l.contains(" # start "))
        .expect("a start event");
    assert!(
        start.ends_with("x\\n2026-01-01T00:00:00Z > {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\"}\\r\\x1b[2J'"),
        "{start}"
    );
    // Nothing but the server's own line is a message.
    let s = streams(&dir.join("t.log"));
    assert!(
        s.client.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&s.client)
    );
    assert_eq!(s.server, b"hi\n");
    let (_, report) = check_json(&dir.join("t.log"));
    let findings = report["files"][0]["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .all(|f| f["rule"] != "invalid-json" && f["rule"] != "unanswered-request"),
        "{findings:?}"
    );
}

#[test]
fn two_sessions_started_in_the_same_second_get_two_transcripts() {
    let dir = scratch("same-second");
    // The names {time} gives for the next seconds are taken already, as by
    // another session started in the same second.
    let now = chrono::Utc::now();
    let taken: Vec<PathBuf> = (-1..20)
        .map(|s| {
            let t = now + chrono::Duration::seconds(s);
            dir.join(format!("s-{}.log", t.format("%Y%m%dT%H%M%SZ")))
        })
        .collect();
    for path in &taken {
        fs::write(path, b"another session\n").expect("write");
    }
    let out = Command::new(mcpdbg())
        .arg("record")
        .arg("--out")
        .arg(dir.join("s-{time}.log"))
        .args(["--", "sh", "-c", "echo hi"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"hi\n", "the server ran");
    for path in &taken {
        assert_eq!(read(path.clone()), b"another session\n");
    }
    let made: Vec<String> = fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("Z-2.log"))
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    let text = String::from_utf8(read(dir.join(&made[0]))).expect("utf-8");
    assert!(text.contains(" < hi\n"), "{text}");
}

#[test]
fn appending_to_a_file_cut_mid_line_starts_a_new_line() {
    let dir = scratch("append-mid-line");
    let out = dir.join("t.log");
    let cut = "2026-11-30T10:00:00.000000Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"res";
    fs::write(
        &out,
        format!("2026-11-30T10:00:00.000000Z # start old\n{cut}"),
    )
    .expect("write");
    let run = Command::new(mcpdbg())
        .args(["record", "--append", "--out"])
        .arg(&out)
        .args(["--", "sh", "-c", "echo hi"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(0));
    let lines = transcript_lines(&dir);
    assert_eq!(lines[1], cut, "the old line is kept as it was");
    assert!(lines[2].ends_with(" # start sh -c 'echo hi'"), "{lines:?}");
    assert!(lines.iter().any(|l| l.ends_with(" < hi")), "{lines:?}");
    // Appending after a whole line adds no empty line.
    let again = Command::new(mcpdbg())
        .args(["record", "--append", "--out"])
        .arg(&out)
        .args(["--", "sh", "-c", "echo hi"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(0));
    let lines = transcript_lines(&dir);
    assert!(lines.iter().all(|l| !l.is_empty()), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.contains(" # start ")).count(), 3);
}

#[test]
fn a_missing_server_command_is_a_clear_error() {
    let dir = scratch("no-server");
    let out = Command::new(mcpdbg())
        .args(["record", "--out"])
        .arg(dir.join("t.log"))
        .args(["--", "/nonexistent/server"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/server"));
    let s = streams(&dir.join("t.log"));
    assert!(
        s.events
            .iter()
            .any(|e| e.starts_with("server could not be started")),
        "{:?}",
        s.events
    );
}

#[test]
fn check_flag_reports_on_stderr_after_the_session() {
    let dir = scratch("check-flag");
    let mut child = record(
        &dir,
        "cat >/dev/null; echo 'Listening on stdio'",
        &["--check"],
    );
    drop(child.stdin.take());
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "the exit status stays the server's");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    assert!(
        err.contains("stray-output") && err.contains("Listening on stdio"),
        "{err}"
    );
}

#[test]
fn a_full_disk_never_blocks_the_session() {
    // /dev/full accepts the open and fails every write with ENOSPC.
    let mut child = Command::new(mcpdbg())
        .args(["record", "--append", "--out", "/dev/full", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("recorder starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let payload: Vec<u8> = (0..2000)
        .flat_map(|i| format!("{{\"n\":{i}}}\n").into_bytes())
        .collect();
    let expected = payload.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&payload));
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    writer.join().expect("writer").expect("write");
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    assert_eq!(out, expected, "the session is relayed in full");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    assert!(err.contains("cannot write the transcript"), "{err}");
}

/// 3 MB of 1,000-byte lines, then the server exits.
const THREE_MB: &str = "head -c 3000000 /dev/zero | tr '\\0' x | fold -w 1000";

#[test]
fn a_slow_host_gets_everything_the_server_wrote_before_it_exited() {
    // The host reads 400 KB/s: when the server exits, more than 2 MB still
    // wait in the pipes, over 5 s of reading (the recorder used to give up
    // after 2 s, cutting the output mid-line).
    let dir = scratch("slow-host");
    let mut child = record(&dir, THREE_MB, &[]);
    drop(child.stdin.take());
    let mut stdout = child.stdout.take().expect("stdout");
    let mut out = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = stdout.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        std::thread::sleep(Duration::from_millis(40));
    }
    let status = wait_for(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0));
    assert_eq!(out.len(), 3_002_999);
    let s = streams(&dir.join("t.log"));
    assert_eq!(s.server, out);
    assert_eq!(
        s.events.last().map(String::as_str),
        Some("server exited with status 0"),
        "{:?}",
        s.events
    );
}

#[test]
fn a_host_that_stops_reading_is_named_with_what_it_missed() {
    // 1.5 MB fits in the pipes (1 MiB each way on Linux, and the relay's
    // buffer), so the server exits while the host holds most of it unread.
    let dir = scratch("host-stops");
    let mut child = record(
        &dir,
        "head -c 1500000 /dev/zero | tr '\\0' x | fold -w 1000",
        &[],
    );
    drop(child.stdin.take());
    // Read 100 KB, then hold the pipe open without reading.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut got = vec![0u8; 100_000];
    stdout.read_exact(&mut got).expect("read");
    let status = wait_for(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(0));
    let s = streams(&dir.join("t.log"));
    let event = s
        .events
        .iter()
        .find(|e| e.contains("stopped reading"))
        .unwrap_or_else(|| panic!("{:?}", s.events));
    assert!(
        event.starts_with(
            "server exited; the host stopped reading its stdout (no progress for 2 s): "
        ),
        "{event}"
    );
    // What it says was recorded is what the transcript holds.
    assert!(
        event.contains(&format!(
            "of the {} bytes recorded were delivered",
            s.server.len()
        )),
        "{event} ({} bytes recorded)",
        s.server.len()
    );
    assert!(!event.contains("another process"), "{event}");
    drop(stdout);
}

/// `--transcript` is the transcript, `--out` the same option (host
/// configurations carry it), and the short `-o` of older configurations
/// still records, with a one-line note that it is deprecated.
#[test]
fn record_takes_transcript_out_and_the_deprecated_short_o() {
    let dir = scratch("transcript-flag");
    for (flag, note) in [("--transcript", false), ("--out", false), ("-o", true)] {
        let out = dir.join(format!("{}.log", flag.trim_start_matches('-')));
        let run = Command::new(mcpdbg())
            .args(["record", flag])
            .arg(&out)
            .args(["--", "sh", "-c", "echo hi"])
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(run.status.code(), Some(0), "{flag}");
        assert_eq!(run.stdout, b"hi\n", "{flag}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(err.contains("-o is deprecated"), note, "{flag}: {err}");
        let text = String::from_utf8(read(out)).expect("utf-8");
        assert!(text.contains("< hi"), "{flag}: {text}");
    }
    // Both at once is a usage error.
    let both = Command::new(mcpdbg())
        .args([
            "record",
            "-o",
            "a.log",
            "--transcript",
            "b.log",
            "--",
            "true",
        ])
        .output()
        .expect("runs");
    assert_eq!(both.status.code(), Some(2));
}
