//! `mcpdbg diff` over the fixtures in `fixtures/replay/` (snapshots and the
//! pinned JSON schema), and `mcpdbg replay` against real software: servers
//! on the official MCP Python SDK (installed, pinned, by `scripts/test` into
//! `target/sdk-venv`), driven by a session recorded with the SDK's client.

use crate::common::*;

use std::path::Path;

use serde_json::{Value, json};

const BEFORE: &str = "fixtures/replay/hang-before.log";
const FIXED: &str = "fixtures/replay/hang-fixed.log";
const CHANGED: &str = "fixtures/replay/changed-server.log";

/// (snapshot name, arguments): each case's exit status and output are kept
/// in tests/snapshots/diff/.
const DIFF_CASES: &[(&str, &[&str])] = &[
    ("same", &["diff", BEFORE, BEFORE]),
    ("fixed-as-same", &["diff", BEFORE, FIXED]),
    (
        "fixed-as-fixed",
        &[
            "diff",
            "--expect",
            "fixed",
            "--ignore",
            "serverInfo.version",
            BEFORE,
            FIXED,
        ],
    ),
    (
        "fixed-targeted",
        &[
            "diff",
            "--expect",
            "fixed",
            "--tool",
            "file_note",
            "--id",
            "1",
            BEFORE,
            FIXED,
        ],
    ),
    ("changed", &["diff", BEFORE, CHANGED]),
    (
        "changed-ignoring",
        &[
            "diff",
            "--ignore",
            "result.content[*].text",
            "--ignore",
            "protocolVersion",
            BEFORE,
            CHANGED,
        ],
    ),
    (
        "changed-json",
        &["diff", "--format", "json", BEFORE, CHANGED],
    ),
];

#[test]
fn diff_outputs_match_their_snapshots() {
    let mut failures = Vec::new();
    for (name, args) in DIFF_CASES {
        let out = run(args);
        failures.extend(snapshot(
            &Path::new("tests/snapshots/diff").join(format!("{name}.txt")),
            &transcript(&out),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn diff_exit_status_says_whether_the_sessions_differ() {
    for (args, code) in [
        (vec!["diff", BEFORE, BEFORE], 0),
        (vec!["diff", BEFORE, FIXED], 1),
        (vec!["diff", "--expect", "fixed", BEFORE, FIXED], 1),
        (
            vec![
                "diff",
                "--expect",
                "fixed",
                "--ignore",
                "serverInfo.version",
                BEFORE,
                FIXED,
            ],
            0,
        ),
        (vec!["diff", "--expect", "fixed", BEFORE, BEFORE], 1),
        (vec!["diff", BEFORE, "fixtures/replay/no-such.log"], 2),
    ] {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}\n{}",
            transcript(&out)
        );
    }
}

fn keys(v: &Value, expected: &[&str], what: &str) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what} is an object"));
    let have: Vec<&str> = obj.keys().map(String::as_str).collect();
    assert_eq!(have, expected, "{what}");
}

#[test]
fn diff_json_version_1_is_pinned() {
    let doc = json_of(&run(&["diff", "--format", "json", BEFORE, CHANGED]));
    keys(
        &doc,
        &[
            "version",
            "kind",
            "before",
            "after",
            "expect",
            "verdict",
            "differences",
            "handshake",
            "lists",
            "requests",
            "findings",
            "notes",
            "target",
            "counted",
            "left_out",
        ],
        "document",
    );
    assert_eq!(doc["left_out"], Value::Null);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["kind"], "diff");
    assert_eq!(doc["verdict"], "differs");
    keys(&doc["before"], &["path", "format"], "before");
    keys(&doc["after"], &["path", "format", "command"], "after");
    keys(&doc["handshake"][0], &["path", "before", "after"], "change");
    keys(&doc["lists"], &["sizes", "changes"], "lists");
    keys(
        &doc["lists"]["sizes"][0],
        &["list", "before", "after"],
        "size",
    );
    keys(
        &doc["lists"]["changes"][0],
        &["list", "name", "change", "changes"],
        "list change",
    );
    for r in doc["requests"].as_array().expect("requests") {
        keys(
            r,
            &[
                "method",
                "subject",
                "before",
                "after",
                "verdict",
                "late",
                "latency",
                "params_changed",
                "changes",
                "counted",
            ],
            "request",
        );
        keys(
            &r["before"],
            &["line", "id", "outcome", "latency_seconds"],
            "side",
        );
    }
    let add = &doc["requests"][2];
    assert_eq!(add["subject"], "add");
    assert_eq!(add["verdict"], "different result");
    assert_eq!(add["changes"][0]["path"], "result.content[0].text");
    assert_eq!(add["changes"][0]["before"], "5");
    assert_eq!(add["changes"][0]["after"], "6");
    keys(
        &doc["findings"],
        &["before", "after", "only_after", "only_before"],
        "findings",
    );
}

#[test]
fn diff_takes_at_most_max_requests_and_says_so_in_every_format() {
    // CHANGED differs from BEFORE at its third request (`add`): with two
    // requests taken from each log, the difference is not seen, and the
    // outputs say that the rest was counted, not compared.
    let out = run(&[
        "diff",
        "--format",
        "json",
        "--max-requests",
        "2",
        BEFORE,
        CHANGED,
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["requests"].as_array().map(Vec::len), Some(2), "{doc:#}");
    let left = &doc["left_out"];
    keys(left, &["before", "after", "max_requests"], "left_out");
    assert_eq!(left["max_requests"], 2);
    let total = |path: &str| {
        let text = std::fs::read_to_string(root().join(path)).expect("fixture");
        text.lines()
            .filter(|l| l.contains("\"method\"") && l.contains("\"id\"") && l.contains(" > "))
            .count() as u64
    };
    assert_eq!(left["before"].as_u64(), Some(total(BEFORE) - 2), "{doc:#}");
    assert_eq!(left["after"].as_u64(), Some(total(CHANGED) - 2), "{doc:#}");
    let text = run(&["diff", "--max-requests", "2", BEFORE, CHANGED]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("compared the first 2 requests of each log; not compared:"),
        "{stdout}"
    );
    // Without the limit, the difference is there.
    let whole = json_of(&run(&["diff", "--format", "json", BEFORE, CHANGED]));
    assert!(whole["requests"].as_array().map(Vec::len) > Some(2));
    assert_eq!(whole["verdict"], "differs");
    let zero = mcpdbg()
        .args(["diff", "--max-requests", "0", BEFORE, CHANGED])
        .output()
        .expect("runs");
    assert_eq!(zero.status.code(), Some(2), "{}", transcript(&zero));
}

#[test]
fn diff_escapes_log_text() {
    let dir = root().join("target/test-scratch/diff-escapes");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let a = dir.join("a.log");
    let b = dir.join("b.log");
    let call = "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\\u001b[2J\"}}\n";
    std::fs::write(
        &a,
        format!(
            "{call}< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[],\"v\":\"a\"}}}}\n"
        ),
    )
    .expect("write");
    std::fs::write(&b, format!("{call}< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[],\"v\":\"\\u202e\\u001b[31m\"}}}}\n")).expect("write");
    let out = run(&[
        "diff",
        a.to_str().expect("utf-8"),
        b.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        !text.contains('\x1b') && !text.contains('\u{202e}'),
        "{text}"
    );
    assert!(text.contains("x\\x1b[2J"), "{text}");
}

// ------------------------------------------------------- against the SDK

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = root().join("target/test-scratch/replay").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Records SCENARIO (tests/sdk/client.py) through `mcpdbg record` against
/// tests/sdk/server.py with SERVER_VARIANT=variant; returns the transcript.
fn record(dir: &Path, scenario: &str, mode: &str, variant: &str) -> std::path::PathBuf {
    let transcript = dir.join("recorded.log");
    let out = std::process::Command::new(sdk_python())
        .arg(root().join("tests/sdk/client.py"))
        .args([scenario, mode, env!("CARGO_BIN_EXE_mcpdbg")])
        .arg(&transcript)
        .arg(dir)
        .env("SERVER_VARIANT", variant)
        .output()
        .expect("client runs");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    transcript
}

/// `mcpdbg replay --format json ARGS LOG -- python server.py` with
/// SERVER_VARIANT=variant; returns the exit status, the document and the
/// new transcript.
fn replay(log: &Path, variant: &str, args: &[&str]) -> (i32, Value, String) {
    let dir = log.parent().expect("dir");
    let new = dir.join(format!(
        "replayed-{variant}-{}.log",
        args.join("_").replace(['-', '.', '/'], "")
    ));
    let _ = std::fs::remove_file(&new);
    let out = mcpdbg()
        .args(["replay", "--format", "json", "--out"])
        .arg(&new)
        .args(args)
        .arg(log)
        .arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .env("SERVER_VARIANT", variant)
        .output()
        .expect("replay runs");
    let code = out.status.code().expect("exit status");
    assert!(code < 2, "replay failed:\n{}", transcript(&out));
    let transcript = std::fs::read_to_string(&new).expect("new transcript");
    (code, json_of(&out), transcript)
}

/// The request rows as (method, subject, verdict).
fn verdicts(doc: &Value) -> Vec<(String, String, String)> {
    doc["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|r| {
            let s = |v: &Value| v.as_str().unwrap_or("").to_string();
            (s(&r["method"]), s(&r["subject"]), s(&r["verdict"]))
        })
        .collect()
}

fn row<'a>(doc: &'a Value, subject: &str) -> &'a Value {
    doc["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| r["subject"] == subject)
        .unwrap_or_else(|| panic!("no request about {subject}: {doc:#}"))
}

#[test]
fn sdk_session_replayed_against_the_same_server_is_the_same() {
    for mode in ["auto", "legacy"] {
        let dir = scratch(&format!("same-{mode}"));
        let log = record(&dir, "session", mode, "");
        let (code, doc, new) = replay(&log, "", &[]);
        assert_eq!(code, 0, "{mode}: {doc:#}");
        assert_eq!(doc["verdict"], "same");
        assert_eq!(doc["kind"], "replay");
        let rows = verdicts(&doc);
        assert!(rows.len() >= 4, "{rows:?}");
        assert!(
            rows.iter()
                .all(|r| r.2 == if r.1 == "fail" { "same error" } else { "same" }),
            "{rows:?}"
        );
        assert!(new.contains("# server exited with status 0"), "{new}");
        // Renumbered ids give the same comparison.
        let (code, doc, new) = replay(&log, "", &["--renumber"]);
        assert_eq!(code, 0, "{mode} --renumber: {doc:#}");
        assert!(new.contains("\"id\":1,"), "{new}");
        // The failing tool still fails: not fixed.
        let (code, doc, _) = replay(&log, "", &["--expect", "fixed"]);
        assert_eq!(code, 1, "{mode} --expect fixed: {doc:#}");
        assert_eq!(doc["differences"], 1);
    }
}

#[test]
fn replay_reports_a_different_value_at_its_request() {
    let dir = scratch("value");
    let log = record(&dir, "session", "auto", "");
    let (code, doc, _) = replay(&log, "value", &[]);
    assert_eq!(code, 1, "{doc:#}");
    let add = row(&doc, "add");
    assert_eq!(add["verdict"], "different result");
    let paths: Vec<&str> = add["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["path"].as_str().expect("path"))
        .collect();
    assert!(paths.contains(&"result.content[0].text"), "{paths:?}");
    let text = add["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["path"] == "result.content[0].text")
        .expect("text change");
    assert_eq!(
        (&text["before"], &text["after"]),
        (&json!("5"), &json!("6"))
    );
    assert_eq!(row(&doc, "count")["verdict"], "same");
    assert_eq!(row(&doc, "fail")["verdict"], "same error");
    assert!(doc["handshake"].as_array().expect("handshake").is_empty());
    // Ignoring the paths that changed makes the sessions the same.
    let (code, doc, _) = replay(
        &log,
        "value",
        &[
            "--ignore",
            "result.content[*].text",
            "--ignore",
            "result.structuredContent",
        ],
    );
    assert_eq!(code, 0, "{doc:#}");
}

#[test]
fn replay_reports_a_new_hang_and_goes_on_or_stops() {
    let dir = scratch("hang");
    let log = record(&dir, "session", "auto", "");
    // The limit leaves a loaded machine time to answer the other calls: only
    // `add`, which this server variant never answers, may reach it.
    let (code, doc, new) = replay(&log, "hang", &["--timeout", "3"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(row(&doc, "add")["verdict"], "new hang");
    assert_eq!(row(&doc, "count")["verdict"], "same");
    assert_eq!(row(&doc, "fail")["verdict"], "same error");
    assert!(
        new.contains("# replay: no answer to tools/call id 3 within 3"),
        "{new}"
    );
    let (code, doc, _) = replay(&log, "hang", &["--timeout", "3", "--stop-on-hang"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(row(&doc, "add")["verdict"], "new hang");
    assert_eq!(row(&doc, "count")["verdict"], "missing");
}

#[test]
fn replay_reports_a_different_server_version_in_the_handshake() {
    let dir = scratch("version");
    let log = record(&dir, "session", "legacy", "");
    let (code, doc, _) = replay(&log, "version", &[]);
    assert_eq!(code, 1, "{doc:#}");
    let changes = doc["handshake"].as_array().expect("handshake");
    assert!(
        changes
            .iter()
            .any(|c| c["path"] == "serverInfo.version" && c["after"] == "2.0.0"),
        "{changes:?}"
    );
    assert_eq!(row(&doc, "add")["verdict"], "same");
    let (code, doc, _) = replay(&log, "version", &["--ignore", "serverInfo.version"]);
    assert_eq!(code, 0, "{doc:#}");
}

#[test]
fn a_recorded_hang_is_reproduced_then_proven_fixed() {
    let dir = scratch("fixed");
    let log = record(&dir, "hang", "legacy", "");
    let (code, doc, _) = replay(&log, "", &["--grace", "1"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(row(&doc, "hang")["verdict"], "hang reproduced");
    let (code, doc, _) = replay(&log, "", &["--grace", "1", "--expect", "fixed"]);
    assert_eq!(code, 1, "{doc:#}");
    let (code, doc, _) = replay(&log, "fixed", &["--expect", "fixed"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["verdict"], "fixed");
    assert_eq!(row(&doc, "hang")["verdict"], "hang gone");
}

#[test]
fn server_requests_are_answered_from_the_log() {
    let dir = scratch("ask");
    let log = record(&dir, "ask", "legacy", "ask");
    let recorded = std::fs::read_to_string(&log).expect("log");
    assert!(recorded.contains("\"method\":\"roots/list\""), "{recorded}");
    assert!(
        recorded.contains("\"method\":\"sampling/createMessage\""),
        "{recorded}"
    );
    let (code, doc, new) = replay(&log, "ask", &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(row(&doc, "ask")["verdict"], "same");
    assert!(new.contains("file:///srv/notes"), "{new}");
    assert!(new.contains("sampled answer"), "{new}");
    // Without the recorded sampling answer, the server gets an error and
    // the replay says so.
    let cut: String = recorded
        .lines()
        .filter(|l| !(l.contains(" > ") && l.contains("sampled answer")))
        .map(|l| format!("{l}\n"))
        .collect();
    let cut_log = dir.join("without-sampling-answer.log");
    std::fs::write(&cut_log, cut).expect("write");
    let (code, doc, new) = replay(&cut_log, "ask", &[]);
    assert_eq!(code, 1, "{doc:#}");
    let notes = doc["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().expect("note").contains("sampling/createMessage")),
        "{notes:?}"
    );
    assert!(
        new.contains("no answer for this sampling/createMessage request"),
        "{new}"
    );
    assert_ne!(row(&doc, "ask")["verdict"], "same");
}

#[test]
fn a_summary_only_log_is_refused_with_the_reason() {
    let log = root().join("fixtures/formats/claude-server/summary-era.log");
    let out = mcpdbg()
        .args(["replay"])
        .arg(&log)
        .args(["--", "true"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot be replayed") && err.contains("summaries"),
        "{err}"
    );
}

/// A server that answers every request with an empty result.
const ECHO_SERVER: &str = "import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if isinstance(m, dict) and 'method' in m and 'id' in m:
        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {}}), flush=True)
";

/// Host formats whose logs hold tool events or stderr, not client messages.
const EVENT_ONLY: [&str; 5] = [
    "claude-code",
    "claude-code-debug",
    "codex",
    "cursor",
    "gh-aw-server",
];

#[test]
fn every_host_format_with_whole_client_messages_replays() {
    let dir = scratch("formats");
    let mut replayed = 0;
    for fixture in fixtures()
        .into_iter()
        .filter(|f| f.starts_with("fixtures/formats"))
    {
        let name = fixture.to_str().expect("utf-8").replace('/', "_");
        let new = dir.join(format!("{name}.replay.log"));
        let out = mcpdbg()
            .args([
                "replay",
                "--format",
                "json",
                "--timeout",
                "3",
                "--grace",
                "0.2",
            ])
            .arg("--out")
            .arg(&new)
            .arg(&fixture)
            .arg("--")
            .arg(sdk_python())
            .args(["-c", ECHO_SERVER])
            .output()
            .expect("replay runs");
        let text = String::from_utf8_lossy(&std::fs::read(root().join(&fixture)).expect("fixture"))
            .into_owned();
        // Logs of tool events or of stderr only: no client message to send.
        let dir = fixture
            .parent()
            .and_then(|d| d.file_name())
            .expect("format dir");
        if EVENT_ONLY.iter().any(|f| dir == *f) {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
            assert!(
                err.contains("tool events") || err.contains("no client message"),
                "{}",
                transcript(&out)
            );
            continue;
        }
        if text
            .lines()
            .any(|l| l.contains("Message from client: {") && l.contains(" chars truncated]..."))
        {
            // A client message the host cut: it cannot be sent as it was.
            assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("the host cut this client message"),
                "{}",
                transcript(&out)
            );
            continue;
        }
        if text.contains("Message from client: method=") {
            // Claude Desktop's summary era: refused, with the reason.
            assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
            assert!(String::from_utf8_lossy(&out.stderr).contains("summaries"));
            continue;
        }
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}: {}",
            fixture.display(),
            transcript(&out)
        );
        let doc = json_of(&out);
        for r in doc["requests"].as_array().expect("requests") {
            assert!(
                !r["after"].is_null(),
                "{}: a recorded request was not replayed: {r}",
                fixture.display()
            );
        }
        replayed += 1;
    }
    assert!(replayed >= 15, "only {replayed} host logs replayed");
}

/// Answers `tools/call` after half a second, everything else at once.
const SLOW_SERVER: &str = "import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if 'id' in m and 'method' in m:
        if m['method'] == 'tools/call':
            time.sleep(0.5)
        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'content': []}}, separators=(',', ':')), flush=True)
";

const PACED_LOG: &str = "\
2026-11-20T14:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}
2026-11-20T14:00:00.600000Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}
2026-11-20T14:00:00.700000Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}
2026-11-20T14:00:00.701000Z < {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}
2026-11-20T14:00:02.200000Z > {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}
2026-11-20T14:00:02.201000Z < {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}
";

/// (seconds of the day, marker, rest) of each traffic line of a transcript.
fn timed_lines(transcript: &str) -> Vec<(f64, String, String)> {
    transcript
        .lines()
        .filter_map(|l| {
            let (stamp, rest) = l.split_once(' ')?;
            let (marker, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let clock = stamp.get(11..26)?;
            let mut parts = clock.split(':');
            let h: f64 = parts.next()?.parse().ok()?;
            let m: f64 = parts.next()?.parse().ok()?;
            let s: f64 = parts.next()?.parse().ok()?;
            Some((
                h * 3600.0 + m * 60.0 + s,
                marker.to_string(),
                rest.to_string(),
            ))
        })
        .collect()
}

fn at(lines: &[(f64, String, String)], marker: &str, id: &str) -> (usize, f64) {
    let needle = format!("\"id\":{id},");
    lines
        .iter()
        .enumerate()
        .find(|(_, (_, m, rest))| m == marker && rest.contains(&needle))
        .map(|(i, (t, _, _))| (i, *t))
        .unwrap_or_else(|| panic!("no {marker} line with id {id}: {lines:?}"))
}

#[test]
fn replay_waits_for_what_each_message_followed_and_keeps_gaps_on_request() {
    let dir = scratch("paced");
    let log = dir.join("paced.log");
    std::fs::write(&log, PACED_LOG).expect("write");
    let run_with = |args: &[&str], name: &str| {
        let new = dir.join(name);
        let out = mcpdbg()
            .arg("replay")
            .args(args)
            .arg("--out")
            .arg(&new)
            .arg(&log)
            .arg("--")
            .arg(sdk_python())
            .args(["-c", SLOW_SERVER])
            .output()
            .expect("replay runs");
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        timed_lines(&std::fs::read_to_string(&new).expect("new transcript"))
    };
    let fast = run_with(&[], "fast.log");
    let (answer, answered_at) = at(&fast, "<", "1");
    let (ping, ping_at) = at(&fast, ">", "2");
    assert!(ping > answer && ping_at >= answered_at, "{fast:?}");
    let (_, third) = at(&fast, ">", "3");
    assert!(third - ping_at < 1.0, "fast keeps no gap: {fast:?}");

    let original = run_with(&["--timing", "original"], "original.log");
    let (_, second) = at(&original, ">", "2");
    let (_, third) = at(&original, ">", "3");
    assert!(third - second >= 1.4, "the 1.5 s gap is kept: {original:?}");

    let capped = run_with(&["--timing", "original", "--max-gap", "0.2"], "capped.log");
    let (_, second) = at(&capped, ">", "2");
    let (_, third) = at(&capped, ">", "3");
    assert!(third - second < 1.0, "the gap is capped: {capped:?}");
}

// ------------------------------------------------------------ properties

/// Lines of a session: markers, messages of every kind, broken JSON, text.
fn session_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let marker = prop_oneof![
        Just(""),
        Just("> "),
        Just("< "),
        Just("! "),
        Just("# "),
        Just("2026-11-02T09:00:00.000000Z > "),
        Just("2026-11-02T09:00:01.500000Z < "),
    ];
    let id = prop_oneof![
        Just("1".to_string()),
        Just("\"1\"".to_string()),
        Just("null".to_string()),
        (0u32..4).prop_map(|n| n.to_string()),
    ];
    let method = prop_oneof![
        Just("initialize"),
        Just("server/discover"),
        Just("tools/call"),
        Just("tools/list"),
        Just("ping"),
        Just("roots/list"),
        Just("notifications/cancelled"),
    ];
    let body = prop_oneof![
        (id.clone(), method.clone()).prop_map(|(i, m)| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"{m}","params":{{"name":"t","requestId":1}}}}"#)),
        method.prop_map(|m| format!(r#"{{"jsonrpc":"2.0","method":"{m}"}}"#)),
        id.clone().prop_map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"protocolVersion":"2025-06-18","tools":[{{"name":"t"}},{{"name":7}}],"content":[],"isError":true}}}}"#)),
        id.prop_map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32603,"message":"x"}}}}"#)),
        Just("[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]".to_string()),
        Just("{\"jsonrpc\":\"2.0\",\"id\":".to_string()),
        Just("start server".to_string()),
        "[ -~]{0,30}",
    ];
    (marker, body).prop_map(|(m, b)| format!("{m}{b}"))
}

fn capture_of(text: &str) -> mcpdbg::views::capture::Capture {
    mcpdbg::views::capture::read(
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        None,
    )
    .expect("in-memory input reads")
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, .. Default::default() })]

    #[test]
    fn a_session_compared_with_itself_is_the_same(
        lines in proptest::collection::vec(session_line(), 0..40),
    ) {
        use mcpdbg::views::diff::{compare, Expect, Labels};
        let c = capture_of(&lines.join("\n"));
        let same = compare(&c, &c, &[], Expect::Same, &Default::default());
        proptest::prop_assert_eq!(same.differences(), 0, "{:?}", same);
        let labels = Labels {
            kind: "diff",
            before: ("a".into(), "native"),
            after: ("b".into(), "native"),
            command: None,
        };
        let mut out = Vec::new();
        mcpdbg::render::diff_json::render(&labels, &same, &mut out).expect("render");
        serde_json::from_slice::<Value>(&out).expect("valid JSON");
        mcpdbg::render::diff::render(&labels, &same, &mut Vec::new()).expect("render");
    }

    #[test]
    fn any_two_sessions_compare_without_panicking(
        a in proptest::collection::vec(session_line(), 0..30),
        b in proptest::collection::vec(session_line(), 0..30),
        ignore in proptest::collection::vec("[a-z.*\\[\\]0-9\"]{0,12}", 0..3),
    ) {
        use mcpdbg::views::diff::{compare, Expect, Pattern};
        let (x, y) = (capture_of(&a.join("\n")), capture_of(&b.join("\n")));
        let ignore: Vec<Pattern> = ignore.iter().map(|p| Pattern::parse(p)).collect();
        let late = (0..x.requests.len()).step_by(2).collect();
        let c = compare(&x, &y, &ignore, Expect::Fixed, &late);
        let _ = c.verdict();
    }
}

// ------------------------------------------------------- hostile servers

/// A native log: the handshake, then a `tools/call` of `echo` (id `id`,
/// arguments `arguments`) answered with `result` (JSON texts).
fn log_with_call(
    dir: &Path,
    name: &str,
    id: &str,
    arguments: &str,
    result: &str,
) -> std::path::PathBuf {
    let log = dir.join(name);
    let text = format!(
        "> {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n\
         < {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n\
         > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{arguments}}}}}\n\
         < {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n"
    );
    std::fs::write(&log, text).expect("write log");
    log
}

/// [`log_with_call`] whose arguments hold `payload` bytes, answered.
fn log_with_payload(dir: &Path, payload: usize) -> std::path::PathBuf {
    let arguments = format!("{{\"text\":\"{}\"}}", "x".repeat(payload));
    log_with_call(dir, "payload.log", "1", &arguments, "{\"content\":[]}")
}

/// `mcpdbg replay --format json ARGS LOG -- SERVER...`, killed (and the
/// test failed) if it has not ended within `limit`; the output and the new
/// transcript.
fn replay_within(
    log: &Path,
    args: &[&str],
    server: &[&str],
    limit: std::time::Duration,
) -> (std::process::Output, String) {
    let new = log.with_extension("replayed.log");
    let _ = std::fs::remove_file(&new);
    let child = mcpdbg()
        .args(["replay", "--format", "json", "--out"])
        .arg(&new)
        .args(args)
        .arg(log)
        .arg("--")
        .args(server)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("replay starts");
    let pid = child.id();
    let start = std::time::Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(limit) {
        Ok(out) => out.expect("replay ran"),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
            panic!("replay still running after {limit:?}");
        }
    };
    eprintln!("replay ended after {:?}", start.elapsed());
    let code = out.status.code().expect("exit status");
    assert!(code < 2, "replay failed:\n{}", transcript(&out));
    let text = std::fs::read(&new).expect("new transcript");
    (out, String::from_utf8_lossy(&text).into_owned())
}

#[test]
fn a_server_that_never_reads_its_stdin_does_not_stop_the_clock() {
    // 1 MB of client data, far more than a pipe holds (64 KiB on Linux):
    // writing it to a server that never reads used to block replay forever.
    let dir = scratch("never-reads");
    let log = log_with_payload(&dir, 1 << 20);
    let (out, new) = replay_within(
        &log,
        &["--timeout", "1", "--start-timeout", "1", "--grace", "1"],
        &["sleep", "600"],
        std::time::Duration::from_secs(60),
    );
    let doc = json_of(&out);
    assert_eq!(row(&doc, "echo")["verdict"], "new hang", "{doc:#}");
    // Nothing answered it: a hang, not an answer after the timeout.
    assert_eq!(row(&doc, "echo")["late"], false, "{doc:#}");
    assert!(
        new.contains("never written to the server (it did not read its stdin)"),
        "{new}"
    );
    assert!(new.contains("# server killed by signal"), "{new}");
}

#[test]
fn a_server_writing_an_endless_line_is_cut_and_the_clock_holds() {
    // `cat /dev/zero` writes one line that never ends: replay keeps none of
    // it past its line limit (16 MiB), stops at its time limits and says
    // how much was cut.
    let dir = scratch("endless-line");
    let log = log_with_payload(&dir, 10);
    let (out, new) = replay_within(
        &log,
        &["--timeout", "1", "--start-timeout", "1", "--grace", "1"],
        &["cat", "/dev/zero"],
        std::time::Duration::from_secs(60),
    );
    assert!(new.len() < 1 << 20, "{} bytes of transcript", new.len());
    assert!(new.contains("bytes of stdout were not recorded"), "{new}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("longer than the replay's limit (16 MiB)"),
        "{stderr}"
    );
}

#[test]
fn a_flooding_server_is_stopped_at_the_time_limits() {
    // `yes` writes short lines as fast as it can: the replay still ends at
    // its limits (the handshake's 1 s, then 3 s for the server to exit and
    // the kill), with what it read recorded and nothing held back.
    let dir = scratch("flood");
    let log = log_with_payload(&dir, 10);
    let (_, new) = replay_within(
        &log,
        &["--timeout", "1", "--start-timeout", "1", "--grace", "1"],
        &["yes"],
        std::time::Duration::from_secs(60),
    );
    assert!(
        new.contains("# replay: no answer to initialize"),
        "{}",
        &new[..new.len().min(2000)]
    );
    assert!(
        new.contains("# server killed by signal"),
        "{}",
        &new[new.len().saturating_sub(2000)..]
    );
}

// ------------------------------------------------- against FastMCP

/// FastMCP from PyPI (on the official Python SDK), pinned in
/// tests/probe/requirements-fastmcp.txt and installed by scripts/test.
fn fastmcp_python() -> std::path::PathBuf {
    let python = std::env::var_os("MCPDBG_TEST_FASTMCP_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root().join("target/probe-fastmcp/bin/python"));
    assert!(
        python.exists(),
        "{} does not exist: run scripts/test, which installs the pinned FastMCP",
        python.display()
    );
    python
}

/// `mcpdbg replay --format json ARGS LOG -- python fastmcp_triage_server.py`,
/// the server fixed or not; returns the exit status, the document and the
/// new transcript.
fn replay_triage(log: &Path, fixed: bool, args: &[&str]) -> (i32, Value, String) {
    let dir = log.parent().expect("dir");
    let new = dir.join(format!(
        "replayed-{}-{}.log",
        if fixed { "fixed" } else { "unfixed" },
        args.join("_").replace(['-', '.', '/', ':'], "")
    ));
    let _ = std::fs::remove_file(&new);
    let out = mcpdbg()
        .args(["replay", "--format", "json", "--out"])
        .arg(&new)
        .args(args)
        .arg(log)
        .arg("--")
        .arg(fastmcp_python())
        .arg(root().join("tests/corpus/python/fastmcp_triage_server.py"))
        .env("TRIAGE_FIXED", if fixed { "1" } else { "0" })
        .output()
        .expect("replay runs");
    let code = out.status.code().expect("exit status");
    assert!(code < 2, "replay failed:\n{}", transcript(&out));
    let transcript = std::fs::read_to_string(&new).expect("new transcript");
    (code, json_of(&out), transcript)
}

/// A hang the SDK client gave up on (its 2 s read timeout sent
/// `notifications/cancelled`), recorded from a real FastMCP server, is
/// proven fixed by a replay against the fixed server, and still reproduced
/// against the unfixed one: the recorded cancel goes out after its recorded
/// delay, not right after the request, so a fixed handler has its time; a
/// cancel whose request was answered is not sent. `--tool` and `--id`
/// target the verdict, which lists the rows it counted.
#[test]
fn a_cancelled_fastmcp_hang_is_proven_fixed_and_still_reproduced_unfixed() {
    let dir = scratch("fastmcp-cancelled");
    let log = dir.join("recorded.log");
    let out = std::process::Command::new(fastmcp_python())
        .arg(root().join("tests/corpus/python/triage_client.py"))
        .arg("cancelled-hang")
        .arg(&log)
        .arg("--")
        .arg(fastmcp_python())
        .arg(root().join("tests/corpus/python/fastmcp_triage_server.py"))
        .env("MCPDBG", env!("CARGO_BIN_EXE_mcpdbg"))
        .output()
        .expect("client runs");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = std::fs::read_to_string(&log).expect("recorded");
    assert!(
        recorded.contains(r#""method":"notifications/cancelled""#),
        "the client did not cancel:\n{recorded}"
    );

    // Fixed: the lookup is answered before its cancel is due, so the cancel
    // is not sent and nothing the replay caused is counted.
    let (code, doc, new) = replay_triage(&log, true, &["--expect", "fixed", "--tool", "lookup"]);
    assert_eq!(code, 0, "{doc:#}\n{new}");
    assert_eq!(doc["verdict"], "fixed");
    assert_eq!(row(&doc, "lookup")["verdict"], "hang gone");
    assert_eq!(row(&doc, "lookup")["counted"], true);
    assert_eq!(row(&doc, "add")["counted"], false);
    assert_eq!(doc["target"], "tool lookup");
    assert_eq!(doc["counted"].as_array().map(Vec::len), Some(1), "{doc:#}");
    assert!(
        !new.contains(r#""method":"notifications/cancelled""#),
        "a cancel for an answered request was sent:\n{new}"
    );
    assert!(new.contains("not sent: the server answered it"), "{new}");
    assert!(
        doc["findings"]["after"]
            .get("cancel-unknown-request")
            .is_none()
    );

    // Unfixed: still reproduced, and the cancel went out about 2 s (its
    // recorded delay) after the request, with the default fast pacing.
    let (code, doc, new) = replay_triage(&log, false, &["--expect", "fixed", "--id", "8"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(doc["verdict"], "differs");
    assert_eq!(row(&doc, "lookup")["verdict"], "hang reproduced");
    assert_eq!(doc["target"], "id 8");
    let lines = timed_lines(&new);
    let (_, sent) = at(&lines, ">", "8");
    let cancel = lines
        .iter()
        .find(|(_, m, text)| m == ">" && text.contains("notifications/cancelled"))
        .unwrap_or_else(|| panic!("no cancel sent:\n{new}"));
    let delay = cancel.0 - sent;
    assert!(
        (1.9..10.0).contains(&delay),
        "the cancel went out {delay} s after its request, recorded 2 s:\n{new}"
    );

    // The same replay, every row counted: the unfixed server differs too.
    let (code, doc, _) = replay_triage(&log, false, &["--expect", "fixed"]);
    assert_eq!(code, 1, "{doc:#}");
    assert!(doc["target"].is_null());
    assert_eq!(
        doc["counted"].as_array().map(Vec::len),
        doc["requests"].as_array().map(Vec::len)
    );
}

// ------------------------------------------------- replay --redact

/// A token the recorded session carries in a tool's arguments, in the
/// server's answer (the failing tool repeats its reason) and perhaps in the
/// server's stderr.
const SECRET: &str = "vq7Tz3-orchid-ledger-91xK";

/// `replay --redact` against the real SDK server: the secret of the
/// recorded session is nowhere in what the command writes (standard output
/// in the table and in JSON, standard error, the new transcript, which is
/// written redacted with the report's placeholders and still reads as a
/// native transcript), and the unredacted recording it compared is gone.
/// Without --redact the same replay carries the secret everywhere it was.
#[test]
fn replay_redact_writes_the_secret_nowhere() {
    let dir = scratch("redact");
    let log = dir.join("recorded.log");
    let out = std::process::Command::new(sdk_python())
        .arg(root().join("tests/sdk/client.py"))
        .args(["secret", "legacy", env!("CARGO_BIN_EXE_mcpdbg")])
        .arg(&log)
        .arg(&dir)
        .env("SCENARIO_SECRET", SECRET)
        .env("SERVER_VARIANT", "echo")
        .output()
        .expect("client runs");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = json_of(&out);
    assert!(
        seen["echo"].as_str().unwrap_or("").contains(SECRET),
        "the server's answer repeats the secret: {seen}"
    );
    let recorded = std::fs::read_to_string(&log).expect("recorded");
    // In the arguments, stderr, the answer's text and its structuredContent.
    assert_eq!(
        recorded.matches(SECRET).count(),
        4,
        "in the arguments, stderr and the answer:\n{recorded}"
    );
    let replay = |args: &[&str], new: &Path| {
        let _ = std::fs::remove_file(new);
        let out = mcpdbg()
            .arg("replay")
            .args(args)
            .arg("--out")
            .arg(new)
            .arg(&log)
            .arg("--")
            .arg(sdk_python())
            .arg(root().join("tests/sdk/server.py"))
            .env("SERVER_VARIANT", "echo")
            .env("SERVER_ECHO_PREFIX", "you wrote: ")
            .output()
            .expect("replay runs");
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        let written = std::fs::read_to_string(new).expect("new transcript");
        (out, written)
    };
    // The server now answers `you wrote: ...`: a difference, whose values
    // the report shows. Without --redact the secret is in the report and
    // the transcript.
    let (out, plain) = replay(&["--format", "json"], &dir.join("plain.log"));
    assert_eq!(plain.matches(SECRET).count(), 4, "{plain}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(SECRET));
    // With --redact, in the table and in JSON: nowhere.
    for (format, name) in [
        ("table", "redacted-table.log"),
        ("json", "redacted-json.log"),
    ] {
        let new = dir.join(name);
        let (out, written) = replay(&["--redact", "--format", format], &new);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        for (what, text) in [
            ("stdout", &stdout),
            ("stderr", &stderr),
            ("the transcript", &written),
        ] {
            for leak in [SECRET, "orchid-ledger", "vault refused"] {
                assert!(!text.contains(leak), "{format}: {leak} in {what}:\n{text}");
            }
        }
        // The comparison still finds the difference, at the echo, with
        // placeholders for its values.
        if format == "json" {
            let doc: Value = serde_json::from_str(&stdout).expect("json");
            assert_eq!(doc["verdict"], "differs", "{doc:#}");
            assert!(doc.to_string().contains("[redacted "), "{doc:#}");
        } else {
            assert!(stdout.contains("[redacted "), "{stdout}");
        }
        assert!(written.contains("[redacted "), "{written}");
        assert!(stderr.contains("(redacted)"), "{stderr}");
        // Still a native transcript: every line a record, the methods and
        // ids readable, and `check` reads it.
        for line in written.lines() {
            let mut words = line.splitn(3, ' ');
            let (time, marker) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            assert!(
                time.ends_with('Z') && [">", "<", "!", "#"].contains(&marker),
                "not a native record: {line}"
            );
        }
        assert!(written.contains(r#""method":"tools/call""#), "{written}");
        let check = mcpdbg()
            .args(["check", "--format", "json"])
            .arg(&new)
            .output()
            .expect("check runs");
        let doc = json_of(&check);
        assert_eq!(doc["files"][0]["format"], "native", "{doc:#}");
        // The unredacted recording is gone.
        let left: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("unredacted"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    // A transcript that exists is never overwritten, and nothing is run.
    let out = mcpdbg()
        .args(["replay", "--redact", "--out"])
        .arg(dir.join("plain.log"))
        .arg(&log)
        .arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .output()
        .expect("replay runs");
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(std::fs::read_to_string(dir.join("plain.log")).unwrap() == plain);
}

// ------------------------------------------------ numbers beyond a double

/// [`log_with_call`] whose arguments carry `n`, which the result's
/// `structuredContent` gives back.
fn log_with_number(dir: &Path, name: &str, id: &str, n: &str) -> std::path::PathBuf {
    let arguments = format!("{{\"n\":{n}}}");
    let result = format!("{{\"content\":[],\"structuredContent\":{arguments}}}");
    log_with_call(dir, name, id, &arguments, &result)
}

#[test]
fn diff_and_timeline_keep_numbers_a_double_would_change() {
    let dir = scratch("exact-numbers");
    // Each pair is one double apart from nothing: serde_json reads both
    // numbers of a pair as the same double.
    for (a, b) in [
        (
            "123456789012345678901234567890",
            "123456789012345678901234567891",
        ),
        ("0.12345678901234567890123", "0.12345678901234567890124"),
        ("-1e400", "-2e400"),
    ] {
        let before = log_with_number(&dir, "a.log", "1", a);
        let after = log_with_number(&dir, "b.log", "1", b);
        let out = mcpdbg()
            .args(["diff", "--format", "json"])
            .args([&before, &after])
            .output()
            .expect("diff runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{a} vs {b}\n{}",
            transcript(&out)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("\"before\": {a}")) && text.contains(&format!("\"after\": {b}")),
            "{a} vs {b}: the change is not named as written\n{text}"
        );
        let same = mcpdbg()
            .args(["diff", "--format", "json"])
            .args([&before, &before])
            .output()
            .expect("diff runs");
        assert_eq!(same.status.code(), Some(0), "{}", transcript(&same));
        let human = mcpdbg()
            .args(["diff"])
            .args([&before, &after])
            .output()
            .expect("diff");
        assert!(
            String::from_utf8_lossy(&human.stdout)
                .contains(&format!("result.structuredContent.n: {a} -> {b}")),
            "{}",
            transcript(&human)
        );
        let timeline = mcpdbg()
            .arg("timeline")
            .arg(&after)
            .output()
            .expect("timeline");
        assert!(
            String::from_utf8_lossy(&timeline.stdout).contains(&format!("echo(n={b})")),
            "{}",
            transcript(&timeline)
        );
        // The members of a batch too.
        let batch = dir.join("batch.log");
        std::fs::write(
            &batch,
            format!("> [{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"t\",\"progress\":1}}}},{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"n\":{b}}}}}}}]\n"),
        )
        .expect("write batch");
        let timeline = mcpdbg()
            .arg("timeline")
            .arg(&batch)
            .output()
            .expect("timeline");
        assert!(
            String::from_utf8_lossy(&timeline.stdout).contains(&format!("[batch 2/2] echo(n={b})")),
            "{}",
            transcript(&timeline)
        );
    }
}

#[test]
fn replay_sends_numbers_as_the_log_wrote_them() {
    // A JSON-RPC server on Python's json module, whose integers have no
    // size limit: it answers initialize and echoes a tool's arguments.
    let dir = scratch("exact-replay");
    let server = dir.join("echo.py");
    std::fs::write(
        &server,
        r#"import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    else:
        r = {"content": [], "structuredContent": m["params"]["arguments"]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}, separators=(",", ":")), flush=True)
"#,
    )
    .expect("write server");
    let big = "123456789012345678901234567890";
    let log = log_with_number(&dir, "big.log", big, big);
    let python = sdk_python();
    let (out, new) = replay_within(
        &log,
        &["--timeout", "10"],
        &[
            python.to_str().expect("path"),
            server.to_str().expect("path"),
        ],
        std::time::Duration::from_secs(120),
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let doc = json_of(&out);
    assert_eq!(row(&doc, "echo")["verdict"], "same", "{doc:#}");
    let sent = format!(
        "\"id\":{big},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"n\":{big}}}}}"
    );
    assert!(
        new.contains(&sent),
        "the replay changed the numbers:\n{new}"
    );
    assert!(
        new.contains(&format!("\"structuredContent\":{{\"n\":{big}}}")),
        "{new}"
    );
}

/// Absurd times are refused when parsed (exit 2, the limit said), for
/// replay and probe alike; the largest allowed one works against a live
/// server (`--timeout 1e19` panicked, exit 101, once the server had
/// started: its deadline overflowed the clock).
#[test]
fn absurd_times_are_refused_and_the_largest_allowed_works() {
    for args in [
        &["replay", "--timeout", "1e19"][..],
        &["replay", "--start-timeout", "1e19"],
        &["replay", "--grace", "1e19"],
        &["probe", "--timeout", "1e19"],
        &["probe", "--start-timeout", "1e19"],
        &["probe", "--grace", "1e19"],
    ] {
        let mut all = args.to_vec();
        if all[0] == "replay" {
            all.push("fixtures/sample-session.log");
        }
        all.extend(["--", "true"]);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", transcript(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("at most 1000000000 seconds"),
            "{args:?}: {}",
            transcript(&out)
        );
    }
    let dir = scratch("largest-timeout");
    let log = record(&dir, "session", "legacy", "");
    let (code, doc, _) = replay(&log, "", &["--timeout", "1e9", "--grace", "1e9"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["verdict"], "same");
}

/// Without --transcript, the new session goes under `.mcpdbg/replays/`
/// beside LOG, where a glob of captures (`DIR/*.log`) does not find it;
/// `-o` is the comparison and `--export-*` the check of the new session.
#[test]
fn a_replay_is_kept_out_of_a_glob_of_captures_and_reports_to_files() {
    let dir = scratch("default-place");
    let log = record(&dir, "session", "legacy", "");
    let logs_before: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    let (cmp, sarif, json) = (
        dir.join("cmp.json"),
        dir.join("r.sarif"),
        dir.join("r.json"),
    );
    let out = mcpdbg()
        .args(["replay", "--format", "json", "-o"])
        .arg(&cmp)
        .arg("--export-sarif")
        .arg(&sarif)
        .arg("--export-json")
        .arg(&json)
        .arg(&log)
        .arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .output()
        .expect("replay runs");
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(out.stdout.is_empty());
    let doc: Value = serde_json::from_slice(&std::fs::read(&cmp).expect("-o")).expect("JSON");
    assert_eq!(doc["verdict"], "same");
    let replays: Vec<_> = std::fs::read_dir(dir.join(".mcpdbg/replays"))
        .expect(".mcpdbg/replays")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(replays.len(), 1, "{replays:?}");
    assert!(
        replays[0].starts_with("recorded.log.replay-"),
        "{replays:?}"
    );
    let logs_after: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().ends_with(".log"))
        .collect();
    assert_eq!(
        logs_after,
        logs_before
            .into_iter()
            .filter(|n| n.to_string_lossy().ends_with(".log"))
            .collect::<Vec<_>>()
    );
    let new = format!("{}/.mcpdbg/replays/{}", dir.display(), replays[0]);
    let check: Value = serde_json::from_slice(&std::fs::read(&json).expect("JSON")).expect("JSON");
    assert_eq!(check["files"][0]["path"], new.as_str());
    let sarif: Value =
        serde_json::from_slice(&std::fs::read(&sarif).expect("SARIF")).expect("JSON");
    assert_eq!(sarif["version"], "2.1.0");
}
