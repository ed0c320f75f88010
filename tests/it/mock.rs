//! `mcpdbg mock` against real clients: the official Python SDK client
//! (tests/mock/client.py, mcp pinned in tests/sdk/requirements.txt) and the
//! official TypeScript SDK clients (tests/mock/client.mjs, pinned in
//! tests/mock/package-lock.json), each replaying the recorded tool calls of
//! corpus sessions against a mock of that session; and the miss, lenient,
//! timing, fault and refusal behaviours, some through a plain pipe where the
//! exact bytes on the client's stream are the point. What each call must
//! get is read from the transcript's raw lines here, not through mcpdbg.

use crate::common::*;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A client `tools/call` of a recorded session and the server's answer.
#[derive(Debug, Clone)]
struct Call {
    line: usize,
    name: String,
    arguments: Value,
    /// The whole response object (`result` or `error`); `None`: never
    /// answered.
    answer: Option<Value>,
    /// A 2026 retry of an `input_required` answer (it carries
    /// `inputResponses` or `requestState`).
    retry: bool,
}

/// The messages of a native transcript: (line, marker, JSON), from its raw
/// lines (`TIMESTAMP MARKER PAYLOAD`).
fn messages(log: &str) -> Vec<(usize, char, Value)> {
    let text = std::fs::read_to_string(root().join(log)).expect("the log");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some((_, rest)) = line.split_once(' ') else {
            continue;
        };
        let mut chars = rest.chars();
        let marker = chars.next().unwrap_or(' ');
        if !matches!(marker, '>' | '<') {
            continue;
        }
        if let Ok(v) = serde_json::from_str::<Value>(chars.as_str().trim_start()) {
            out.push((n + 1, marker, v));
        }
    }
    out
}

/// The session's `tools/call` requests with their answers.
fn recorded_calls(log: &str) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    let mut open: HashMap<String, usize> = HashMap::new();
    for (line, marker, v) in messages(log) {
        let id = v.get("id").map(|id| id.to_string());
        match (marker, v["method"].as_str(), id) {
            ('>', Some("tools/call"), Some(id)) => {
                let params = &v["params"];
                open.insert(id, calls.len());
                calls.push(Call {
                    line,
                    name: params["name"].as_str().expect("a tool name").to_string(),
                    arguments: params.get("arguments").cloned().unwrap_or(json!({})),
                    answer: None,
                    retry: params.get("inputResponses").is_some()
                        || params.get("requestState").is_some(),
                });
            }
            ('>', Some(_), Some(id)) => {
                open.remove(&id);
            }
            ('<', None, Some(id)) => {
                if let Some(i) = open.remove(&id) {
                    calls[i].answer = Some(v);
                }
            }
            _ => {}
        }
    }
    calls
}

/// The version the recorded handshake settled on: `initialize`'s, or the
/// 2026 version of a session without one.
fn negotiated(log: &str) -> String {
    for (_, marker, v) in messages(log) {
        if marker == '<' {
            if let Some(version) = v["result"]["protocolVersion"].as_str() {
                return version.to_string();
            }
        }
        if marker == '>' {
            if let Some(version) =
                v["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()
            {
                return version.to_string();
            }
        }
    }
    panic!("{log}: no version");
}

/// The steps that replay a session's answered calls (a 2026 retry is the
/// client's own doing: only the first request of a chain is a step), each
/// with the answer it must get (for a chain, its last).
fn replay_steps(log: &str) -> Vec<(Value, Call)> {
    let calls = recorded_calls(log);
    let mut steps = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        if call.retry || call.answer.is_none() {
            continue;
        }
        let mut last = call.clone();
        for later in &calls[i + 1..] {
            let input_required = last
                .answer
                .as_ref()
                .and_then(|a| a["result"]["resultType"].as_str())
                == Some("input_required");
            if !(later.retry && later.name == call.name && input_required) {
                break;
            }
            last = later.clone();
        }
        steps.push((
            json!({"call": call.name, "arguments": call.arguments}),
            last,
        ));
    }
    assert!(!steps.is_empty(), "{log}: no answered call");
    steps
}

/// What a client got for a call is what the recording holds: the same
/// structured content (exactly), content, failure flag, or error code.
fn assert_got(what: &str, outcome: &Value, call: &Call) {
    let answer = call.answer.as_ref().expect("answered");
    if let Some(error) = answer.get("error") {
        assert_eq!(
            outcome["error"]["code"], error["code"],
            "{what}: line {} was answered with an error: {outcome}",
            call.line
        );
        return;
    }
    let recorded = &answer["result"];
    let got = &outcome["result"];
    assert!(
        got.is_object(),
        "{what}: line {}: no result: {outcome}",
        call.line
    );
    assert_eq!(
        got.get("structuredContent"),
        recorded.get("structuredContent"),
        "{what}: line {}",
        call.line
    );
    let texts = |v: &Value| -> Vec<(Value, Value)> {
        v["content"]
            .as_array()
            .map(|c| {
                c.iter()
                    .map(|b| (b["type"].clone(), b["text"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(texts(got), texts(recorded), "{what}: line {}", call.line);
    assert_eq!(
        got["isError"].as_bool().unwrap_or(false),
        recorded["isError"].as_bool().unwrap_or(false),
        "{what}: line {}",
        call.line
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/mock").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `mcpdbg mock ARGS LOG` wrapped so that its exit status is written to
/// `status` (the client starts and ends it).
fn mock_command(log: &str, args: &[&str], status: &Path) -> Vec<String> {
    let mut command = vec![
        "sh".to_string(),
        "-c".to_string(),
        // $0 is the status file: a client passes no environment on.
        "\"$@\"; echo $? > \"$0\"".to_string(),
        status.to_str().expect("utf-8").to_string(),
        env!("CARGO_BIN_EXE_mcpdbg").to_string(),
        "mock".to_string(),
    ];
    command.extend(args.iter().map(|a| a.to_string()));
    command.push(root().join(log).to_str().expect("utf-8").to_string());
    let _ = std::fs::remove_file(status);
    command
}

/// The mock's exit status, once its client is done.
fn mock_status(status: &Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(status) {
            if text.ends_with('\n') {
                return text.trim().parse().expect("a status");
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the mock did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `command` to its end, killing it after `limit`.
fn output_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break child.wait().expect("reaped");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

/// The Python SDK client's run of `steps` against `command`: its JSON
/// document and stderr (the mock's stderr too).
fn python_client(mode: &str, steps: &Value, command: &[String]) -> (Value, String) {
    let mut cmd = Command::new(sdk_python());
    cmd.current_dir(root())
        .arg(root().join("tests/mock/client.py"))
        .arg(mode)
        .arg(steps.to_string())
        .arg("--")
        .args(command);
    client_output(cmd)
}

/// The TypeScript SDK client's run (`sdk`: v1 or v2).
fn node_client(sdk: &str, mode: &str, steps: &Value, command: &[String]) -> (Value, String) {
    let dir = root().join("target/mock-node");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/client")
            .exists()
            && dir.join("node_modules/@modelcontextprotocol/sdk").exists(),
        "{} lacks the TypeScript SDK clients: run scripts/test, which installs them from \
         tests/mock/package-lock.json",
        dir.display()
    );
    // The script runs beside its node_modules; the copy is the committed one.
    std::fs::copy(root().join("tests/mock/client.mjs"), dir.join("client.mjs")).expect("copy");
    let mut cmd = Command::new("node");
    cmd.current_dir(root())
        .arg(dir.join("client.mjs"))
        .args([sdk, mode])
        .arg(steps.to_string())
        .arg("--")
        .args(command);
    client_output(cmd)
}

fn client_output(cmd: Command) -> (Value, String) {
    let out = output_within(cmd, Duration::from_secs(90));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}): {}\nstderr:\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (doc, stderr)
}

/// The sessions each client replays, with the mode it connects in.
/// (In auto mode against a legacy capture, the client's `server/discover`
/// probe gets the legacy server's -32601 and it falls back to `initialize`.)
const PYTHON_SESSIONS: [(&str, &str); 6] = [
    ("tests/corpus/py-sdk-1/clean.log", "legacy"),
    ("tests/corpus/rmcp/clean.log", "legacy"),
    ("tests/corpus/py-sdk-2/bad-arguments-iserror.log", "legacy"),
    ("tests/corpus/fastmcp/modern-auto-client.log", "auto"),
    ("tests/corpus/py-sdk-2/modern-timeout-cancelled.log", "auto"),
    ("tests/corpus/reference/everything-clean.log", "auto"),
];

const TYPESCRIPT_SESSIONS: [(&str, &str, &str); 6] = [
    ("tests/corpus/ts-sdk/clean.log", "v1", "legacy"),
    (
        "tests/corpus/reference/everything-clean.log",
        "v1",
        "legacy",
    ),
    (
        "tests/corpus/rmcp/bad-arguments-unknown-tool.log",
        "v1",
        "legacy",
    ),
    (
        "tests/corpus/ts-sdk-v2/mrtr-elicitation-retry.log",
        "v2",
        "2026-07-28",
    ),
    (
        "tests/corpus/ts-sdk-v2/modern-pinned-no-discover.log",
        "v2",
        "2026-07-28",
    ),
    ("tests/corpus/ts-sdk/stray-console-log.log", "v2", "auto"),
];

#[test]
fn the_python_sdk_client_gets_the_recorded_results() {
    let dir = scratch("python");
    let status = dir.join("status");
    for (log, mode) in PYTHON_SESSIONS {
        let steps = replay_steps(log);
        let mut list = vec![json!({"list": true})];
        list.extend(steps.iter().map(|(s, _)| s.clone()));
        let (doc, stderr) =
            python_client(mode, &Value::Array(list), &mock_command(log, &[], &status));
        let what = format!("{log} ({mode})\n{stderr}");
        assert_eq!(doc["protocol_version"], negotiated(log), "{what}");
        let outcomes = doc["steps"].as_array().expect("steps");
        assert!(outcomes[0]["result"]["tools"].is_array(), "{what}: {doc}");
        for (outcome, (_, call)) in outcomes[1..].iter().zip(&steps) {
            assert_got(&what, outcome, call);
        }
        assert_eq!(mock_status(&status), 0, "{what}");
        assert!(!stderr.contains("mcpdbg mock: miss"), "{what}");
    }
}

#[test]
fn the_typescript_sdk_clients_get_the_recorded_results() {
    let dir = scratch("typescript");
    let status = dir.join("status");
    for (log, sdk, mode) in TYPESCRIPT_SESSIONS {
        let steps = replay_steps(log);
        let mut list: Vec<Value> = steps.iter().map(|(s, _)| s.clone()).collect();
        if sdk == "v1" {
            // v1 validates structured content against the listed schemas.
            list.insert(0, json!({"list": true}));
            list.push(json!({"ping": true}));
        }
        let (doc, stderr) = node_client(
            sdk,
            mode,
            &Value::Array(list),
            &mock_command(log, &[], &status),
        );
        let what = format!("{log} ({sdk} {mode})\n{stderr}");
        let mut outcomes = doc["steps"].as_array().expect("steps").clone();
        if sdk == "v1" {
            assert!(
                outcomes.remove(0)["result"]["tools"].is_array(),
                "{what}: {doc}"
            );
            assert_eq!(outcomes.pop().expect("ping")["result"], json!({}), "{what}");
        }
        assert_eq!(outcomes.len(), steps.len(), "{what}: {doc}");
        for (outcome, (_, call)) in outcomes.iter().zip(&steps) {
            assert_got(&what, outcome, call);
        }
        assert_eq!(mock_status(&status), 0, "{what}");
    }
}

/// The corpus runs above cover at least five servers, both eras, each
/// era with both clients.
#[test]
fn the_client_runs_cover_five_servers_and_both_eras() {
    let servers: std::collections::BTreeSet<&str> = PYTHON_SESSIONS
        .iter()
        .map(|(log, _)| *log)
        .chain(TYPESCRIPT_SESSIONS.iter().map(|(log, _, _)| *log))
        .map(|log| log.split('/').nth(2).expect("a software folder"))
        .collect();
    assert!(servers.len() >= 5, "{servers:?}");
    let modern = |log: &str| negotiated(log).as_str() >= "2026-07-28";
    assert!(PYTHON_SESSIONS.iter().any(|(l, _)| modern(l)));
    assert!(PYTHON_SESSIONS.iter().any(|(l, _)| !modern(l)));
    assert!(TYPESCRIPT_SESSIONS.iter().any(|(l, _, _)| modern(l)));
    assert!(TYPESCRIPT_SESSIONS.iter().any(|(l, _, _)| !modern(l)));
}

const CLEAN: &str = "tests/corpus/ts-sdk/clean.log";

#[test]
fn a_miss_is_an_error_naming_the_nearest_and_fails_the_mock() {
    let dir = scratch("miss");
    let status = dir.join("status");
    // The log's add call (line 9) has b = 3.
    let add = recorded_calls(CLEAN)
        .into_iter()
        .find(|c| c.name == "add")
        .expect("an add call");
    assert_eq!((add.line, &add.arguments), (9, &json!({"a": 2, "b": 3})));
    let steps = json!([
        {"call": "add", "arguments": {"a": 2, "b": 4}},
        {"call": "add", "arguments": {"a": 2, "b": 3}},
    ]);
    let (doc, stderr) = python_client("legacy", &steps, &mock_command(CLEAN, &[], &status));
    let miss = &doc["steps"][0]["error"];
    assert_eq!(miss["code"], -32602, "{doc}\n{stderr}");
    let text = miss["message"].as_str().expect("a message");
    for part in ["tools/call", "nearest", "line 9", "arguments.b differs"] {
        assert!(text.contains(part), "{part:?} not in {text:?}");
    }
    assert_eq!(
        doc["steps"][1]["result"]["structuredContent"],
        json!({"sum": 5})
    );
    assert!(stderr.contains("mcpdbg mock: miss: tools/call"), "{stderr}");
    assert!(stderr.contains("1 miss"), "{stderr}");
    assert_eq!(mock_status(&status), 1);
}

#[test]
fn lenient_answers_a_miss_with_the_nearest() {
    let dir = scratch("lenient");
    let status = dir.join("status");
    let steps = json!([{"call": "add", "arguments": {"a": 2, "b": 4}}]);
    let command = mock_command(CLEAN, &["--lenient"], &status);
    let (doc, stderr) = python_client("legacy", &steps, &command);
    assert_eq!(
        doc["steps"][0]["result"]["structuredContent"],
        json!({"sum": 5}),
        "{stderr}"
    );
    assert!(
        stderr.contains("--lenient") && stderr.contains("line 9"),
        "{stderr}"
    );
    assert_eq!(mock_status(&status), 0);
}

const HANG: &str = "tests/corpus/py-sdk-1/hang-timeout.log";

#[test]
fn recorded_timing_keeps_a_hang_hanging_and_a_slow_call_slow() {
    let dir = scratch("timing");
    let status = dir.join("status");
    // The log's wait_forever call (line 5) is never answered.
    let hang = recorded_calls(HANG);
    assert_eq!(
        (hang[0].name.as_str(), hang[0].answer.is_none()),
        ("wait_forever", true)
    );
    let steps = json!([
        {"call": "wait_forever", "arguments": {}, "timeout": 1.0},
        {"ping": true},
    ]);
    let command = mock_command(HANG, &["--timing", "recorded"], &status);
    let (doc, stderr) = python_client("legacy", &steps, &command);
    let timed_out = &doc["steps"][0];
    assert!(timed_out.get("result").is_none(), "{doc}\n{stderr}");
    let said = timed_out.to_string().to_lowercase();
    assert!(
        said.contains("timed out") || said.contains("timeout"),
        "{said}"
    );
    assert_eq!(doc["steps"][1]["result"], json!({}), "{doc}");
    assert_eq!(mock_status(&status), 0, "{stderr}");
    // By default it is answered at once, with an error that says why.
    let (doc, stderr) = python_client("legacy", &steps, &mock_command(HANG, &[], &status));
    let error = &doc["steps"][0]["error"];
    assert_eq!(error["code"], -32603, "{doc}\n{stderr}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("never answered"),
        "{error}"
    );
    assert_eq!(mock_status(&status), 0);
    // A call answered after 1.01 s in the log takes as long; at once without.
    let slow = "tests/corpus/reference/everything-clean.log";
    let call = recorded_calls(slow)
        .into_iter()
        .find(|c| c.name == "trigger-long-running-operation")
        .expect("the slow call");
    let steps = json!([{"call": call.name, "arguments": call.arguments}]);
    let mut took = Vec::new();
    for args in [&["--timing", "recorded"][..], &[]] {
        let command = mock_command(slow, args, &status);
        let (doc, stderr) = node_client("v1", "legacy", &steps, &command);
        assert_got(&format!("{slow}\n{stderr}"), &doc["steps"][0], &call);
        took.push(doc["steps"][0]["ms"].as_u64().expect("ms"));
        assert_eq!(mock_status(&status), 0);
    }
    assert!(took[0] >= 950 && took[1] < 950, "{took:?} ms");
}

/// The mock on plain pipes: what the client's stream carries, line by line.
struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Live {
    fn start(args: &[&str]) -> Live {
        let mut child = mcpdbg()
            .arg("mock")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mock starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        Live {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        let _ = stdin.write_all(line.as_bytes());
        let _ = stdin.write_all(b"\n");
        let _ = stdin.flush();
    }

    fn recv(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Closes the mock's stdin and waits for it: its exit status and stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s.code();
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (status, self.stderr.join().expect("stderr"))
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const WAIT: Duration = Duration::from_secs(10);

#[test]
fn faults_put_the_stray_lines_on_the_clients_stream_where_they_were() {
    let log = "tests/corpus/py-sdk-1/stray-child-process.log";
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    for faults in [true, false] {
        let mut args = vec![log];
        if faults {
            args.insert(0, "--faults");
        }
        let mut live = Live::start(&args);
        live.send(INIT);
        assert!(
            live.recv(WAIT)
                .expect("the handshake")
                .contains("\"serverInfo\"")
        );
        live.send(INITIALIZED);
        live.send(call);
        let first = live.recv(WAIT).expect("a line");
        if faults {
            // The child process's output came before the result (line 7).
            assert_eq!(first, "Linux");
            let answer: Value =
                serde_json::from_str(&live.recv(WAIT).expect("the answer")).unwrap();
            assert_eq!(
                answer["result"]["structuredContent"],
                json!({"result": "hi"})
            );
        } else {
            let answer: Value = serde_json::from_str(&first).unwrap();
            assert_eq!(answer["id"], 1);
        }
        let (status, stderr) = live.finish();
        assert_eq!(status, Some(0), "{stderr}");
    }
    // A stray line at start-up, written while the server answered initialize.
    let mut live = Live::start(&["--faults", "tests/corpus/ts-sdk/stray-console-log.log"]);
    live.send(INIT);
    assert_eq!(
        live.recv(WAIT).as_deref(),
        Some("notes server starting, 3 notes loaded")
    );
    assert!(
        live.recv(WAIT)
            .expect("the handshake")
            .contains("\"serverInfo\"")
    );
    let (status, _) = live.finish();
    assert_eq!(status, Some(0));
}

#[test]
fn faults_leave_an_unanswered_request_unanswered_and_crash_where_the_server_did() {
    let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait_forever","arguments":{}}}"#;
    let mut live = Live::start(&["--faults", HANG]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(INITIALIZED);
    live.send(call);
    live.send(r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#);
    let answer: Value = serde_json::from_str(&live.recv(WAIT).expect("the ping's answer")).unwrap();
    assert_eq!(answer, json!({"jsonrpc":"2.0","id":6,"result":{}}));
    assert_eq!(
        live.recv(Duration::from_millis(1500)),
        None,
        "wait_forever stays unanswered"
    );
    let (status, stderr) = live.finish();
    assert_eq!(status, Some(0));
    assert!(
        stderr.contains("left tools/call (id 5) unanswered"),
        "{stderr}"
    );

    // The server exited with status 3 in the crash call (line 5, exit at line 10).
    let log = "tests/corpus/py-sdk-1/exit-mid-request.log";
    let crash = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crash","arguments":{}}}"#;
    let mut live = Live::start(&["--faults", log]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(INITIALIZED);
    live.send(crash);
    assert_eq!(live.recv(WAIT), None, "no answer: the mock exits");
    let (status, stderr) = live.finish();
    assert_eq!(status, Some(3), "{stderr}");
    assert!(stderr.contains("line 10, status 3"), "{stderr}");
    // Without --faults the call gets an error with the check's words for it.
    let mut live = Live::start(&[log]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(crash);
    let answer: Value = serde_json::from_str(&live.recv(WAIT).expect("an error")).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["data"]["line"], 5);
    let recorded = answer["error"]["data"]["recorded"]
        .as_str()
        .expect("the check's words");
    assert!(recorded.contains("never answered"), "{recorded}");
    let (status, _) = live.finish();
    assert_eq!(status, Some(0));
}

#[test]
fn a_redacted_capture_is_refused_unless_allowed() {
    let dir = scratch("redacted");
    let text = std::fs::read_to_string(root().join(CLEAN)).unwrap();
    // What `replay --redact` writes: strings as their placeholders.
    let redacted = text.replace("\"hello\"", "\"[redacted 1]\"");
    assert_ne!(redacted, text);
    let path = dir.join("redacted.log");
    std::fs::write(&path, redacted).unwrap();
    let path = path.to_str().unwrap();
    let out = run(&["mock", path]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("redacted capture") && stderr.contains("--allow-redacted"),
        "{stderr}"
    );
    let mut live = Live::start(&["--allow-redacted", path]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"[redacted 1]"}}}"#);
    let answer: Value = serde_json::from_str(&live.recv(WAIT).expect("an answer")).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "[redacted 1]");
    assert_eq!(live.finish().0, Some(0));
}

#[test]
fn a_log_of_several_sessions_serves_one_and_says_which() {
    let log = "tests/corpus/ts-sdk/restart.log";
    let echo = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}"#;
    let mut live = Live::start(&[log]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(echo);
    let answer: Value = serde_json::from_str(&live.recv(WAIT).expect("an answer")).unwrap();
    assert_eq!(
        answer["error"]["code"], -32601,
        "the first session lists tools, calls none"
    );
    let (status, stderr) = live.finish();
    assert_eq!(status, Some(1));
    assert!(
        stderr.contains("holds 2 sessions; serving session 1"),
        "{stderr}"
    );
    let mut live = Live::start(&["--session", "2", log]);
    live.send(INIT);
    live.recv(WAIT).expect("the handshake");
    live.send(echo);
    let answer: Value = serde_json::from_str(&live.recv(WAIT).expect("an answer")).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "again");
    assert_eq!(live.finish().0, Some(0));
    let out = run(&["mock", "--session", "3", log]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds 2 sessions"));
}

#[test]
fn hostile_client_input_gets_errors_not_a_panic() {
    let mut live = Live::start(&[CLEAN]);
    let noise = noise(7, 4096);
    live.send(&String::from_utf8_lossy(&noise).replace('\n', " "));
    live.send("[1, {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}, \"x\"]");
    live.send("{\"jsonrpc\":\"2.0\",\"id\":{\"deep\":[[[[1]]]]},\"method\":\"tools/call\",\"params\":[1,2]}");
    live.send(&"[".repeat(100_000));
    let mut got = Vec::new();
    while let Some(line) = live.recv(Duration::from_secs(2)) {
        got.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    assert_eq!(got[0]["error"]["code"], -32700, "{got:?}");
    assert!(
        got.iter().any(|v| v["id"] == 3 && v["result"] == json!({})),
        "{got:?}"
    );
    let (status, stderr) = live.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        status,
        Some(1),
        "the tools/call with array params is a miss: {stderr}"
    );
}

#[test]
fn help_teaches_mock_with_examples_and_a_host_entry() {
    let out = run(&["mock", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for part in [
        "Examples:",
        "mcpdbg mock session.log",
        "\"args\": [\"mock\"",
        "--faults",
        "Exit status:",
    ] {
        assert!(text.contains(part), "{part:?} not in mock --help");
    }
}

/// The README's host configuration runs: its arguments, with a real
/// capture in place of the example's, start a mock that serves it.
#[test]
fn the_readmes_host_configuration_starts_a_mock() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let block = readme
        .split("```json\n")
        .skip(1)
        .map(|b| &b[..b.find("```").expect("block end")])
        .find(|b| b.contains("\"mock\""))
        .expect("a JSON block with mock");
    let config: Value = serde_json::from_str(block).expect("the block is JSON");
    let server = config["mcpServers"]
        .as_object()
        .and_then(|m| m.values().next())
        .expect("a server entry");
    assert!(server["command"].as_str().unwrap().ends_with("mcpdbg"));
    let mut args: Vec<String> = server["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a string").to_string())
        .collect();
    assert_eq!(args[0], "mock");
    *args.last_mut().expect("LOG") = root().join(CLEAN).to_str().unwrap().to_string();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut live = Live::start(&args[1..]);
    live.send(INIT);
    assert!(live.recv(WAIT).expect("the handshake").contains("ts-notes"));
    assert_eq!(live.finish().0, Some(0));
}

/// A capture in another format (an strace of the server) is served; the
/// tools/list answer it shows cut (line 7: strace kept its first 50 bytes)
/// is an error that says so, the others are whole.
#[test]
fn an_answer_the_log_shows_in_part_is_an_error_that_says_so() {
    let log = "fixtures/formats/strace/hang.log";
    let mut live = Live::start(&[log]);
    live.send(INIT);
    let init: Value = serde_json::from_str(&live.recv(WAIT).expect("the handshake")).unwrap();
    assert_eq!(
        init["result"]["serverInfo"],
        json!({"name": "notes", "version": "1.2.0"})
    );
    live.send(INITIALIZED);
    live.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list: Value = serde_json::from_str(&live.recv(WAIT).expect("an answer")).unwrap();
    assert_eq!(list["error"]["code"], -32603, "{list}");
    assert!(
        list["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only in part (line 7)")
    );
    live.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"café \\ budget"}}}"#);
    let found: Value = serde_json::from_str(&live.recv(WAIT).expect("an answer")).unwrap();
    assert_eq!(
        found["result"]["content"][0]["text"], "2 notes match",
        "{found}"
    );
    let (status, stderr) = live.finish();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.contains("1 server message only in part"), "{stderr}");
}

/// Every corpus session answers its own client side: its recorded client
/// messages, sent to a mock of it, get no miss, and each request gets the
/// result or error the log shows for it (a request the log never answered,
/// or answered only with the shutdown error after the client left, gets the
/// mock's "never answered" error). The one log of two sessions serves the
/// first, so the second's call is a miss.
#[test]
fn every_corpus_session_answers_its_own_client_side() {
    let mut logs: Vec<PathBuf> = Vec::new();
    for dir in std::fs::read_dir(root().join("tests/corpus")).expect("corpus") {
        let dir = dir.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "log") {
                logs.push(f);
            }
        }
    }
    logs.sort();
    assert!(logs.len() >= 40, "{logs:?}");
    for path in logs {
        let log = path
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let several = log.ends_with("ts-sdk/restart.log");
        let mut answers: HashMap<String, Value> = HashMap::new();
        let mut sent = Vec::new();
        let mut requests = Vec::new();
        for (_, marker, v) in messages(&log) {
            let id = v.get("id").map(|id| id.to_string());
            match (marker, id, v.get("method").is_some()) {
                ('>', Some(id), true) => {
                    requests.push(id);
                    sent.push(v);
                }
                ('>', _, _) => sent.push(v),
                ('<', Some(id), false) => {
                    answers.entry(id).or_insert(v);
                }
                _ => {}
            }
        }
        let mut input = String::new();
        for v in &sent {
            input.push_str(&v.to_string());
            input.push('\n');
        }
        let out = run_stdin(&["mock", &log], input.as_bytes());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if several {
            assert_eq!(out.status.code(), Some(1), "{log}: {stderr}");
            assert!(stderr.contains("miss: tools/call"), "{log}: {stderr}");
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{log}: {stderr}");
        let mut got: HashMap<String, Value> = HashMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v.get("method").is_none() {
                if let Some(id) = v.get("id") {
                    got.entry(id.to_string()).or_insert(v);
                }
            }
        }
        for id in &requests {
            let reply = got
                .get(id)
                .unwrap_or_else(|| panic!("{log}: no answer to id {id}: {stderr}"));
            let same = answers.get(id).is_some_and(|recorded| {
                reply.get("result") == recorded.get("result")
                    && reply.get("error") == recorded.get("error")
            });
            if same {
                continue;
            }
            // Not the recorded answer: then there was none, or only the
            // shutdown error after the client closed.
            let shutdown = answers
                .get(id)
                .is_some_and(|recorded| recorded["error"]["code"] == -32000);
            assert!(
                !answers.contains_key(id) || shutdown,
                "{log} id {id}: {reply} against {:?}",
                answers.get(id)
            );
            let text = reply["error"]["message"].as_str().unwrap_or_default();
            assert!(text.contains("never answered"), "{log} id {id}: {reply}");
        }
    }
}
