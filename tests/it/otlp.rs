//! `check --format otlp-json` and `--export-otlp`: the sessions as
//! OpenTelemetry traces, read back by the official `opentelemetry-proto`
//! package (pinned in tests/ci/requirements.txt, installed into
//! target/ci-venv by scripts/test) through `tests/ci/validate.py otlp`,
//! which parses each file into `ExportTraceServiceRequest` with unknown
//! fields refused and says whether writing it back loses anything.
//!
//! The expectations are counted here from the logs' raw lines, not taken
//! from mcpdbg: one CLIENT span per request, one SERVER span per request
//! answered, one root span per session.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::*;

const TRACED: &str = "fixtures/otlp/traceparent.log";

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/otlp").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// What opentelemetry-proto read of each file.
fn parsed(files: &[PathBuf]) -> Vec<Value> {
    let out = Command::new(ci_python())
        .arg(root().join("tests/ci/validate.py"))
        .arg("otlp")
        .args(files)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "opentelemetry-proto could not read the export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("validate.py prints JSON");
    let list = v.as_array().expect("one summary per file").clone();
    for file in &list {
        assert_eq!(
            file["lost"], false,
            "{}: read back, the export differs from what was written",
            file["file"]
        );
    }
    list
}

/// Exports `log` to a file in `dir`; the file's path.
fn export(dir: &Path, log: &str, extra: &[&str]) -> PathBuf {
    let name = log.replace('/', "_");
    let path = dir.join(format!("{name}.json"));
    let path_arg = path.to_str().expect("utf-8");
    let mut args = vec![
        "check",
        "--format",
        "otlp-json",
        "--fail-on",
        "never",
        "-o",
        path_arg,
    ];
    args.extend_from_slice(extra);
    args.push(log);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{log}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

fn spans(summary: &Value) -> &Vec<Value> {
    summary["spans"].as_array().expect("spans")
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

const CLIENT: u64 = 3;
const SERVER: u64 = 2;
const INTERNAL: u64 = 1;

fn of_kind(summary: &Value, kind: u64) -> Vec<&Value> {
    spans(summary)
        .iter()
        .filter(|s| s["kind"] == kind)
        .collect()
}

/// Requests and answered requests, counted from a log's raw lines: each
/// JSON value on a `>` or `<` line of a transcript, or on an unmarked line
/// of a plain log (several when framing headers or a missing newline run
/// them together; a batch's elements each). A request is an object with a
/// method and a non-null id whose method is not a notification's
/// (`notifications/...` with an id is a malformed notification nobody
/// waits on); an answer is a response whose id matches a request of the
/// other side still open (in a plain log, of either side), except an error
/// the server writes after the recorder saw its stdin close (`# stdin
/// closed`): the server's shutdown, not an answer. A recorder's `# start`
/// after traffic is a new session.
fn raw_counts(path: &Path) -> (usize, usize) {
    let text = fs::read(path).expect("read log");
    let text = String::from_utf8_lossy(&text);
    let mut requests = 0;
    let mut answered = 0;
    // Open requests by their sender: [client's, server's].
    let mut open: [HashMap<String, usize>; 2] = Default::default();
    let mut traffic = false;
    let mut stdin_closed = false;
    for line in text.lines() {
        let rest = match line.split_once(' ') {
            Some((stamp, rest)) if stamp.len() >= 20 && stamp.as_bytes()[4] == b'-' => rest,
            _ => line,
        };
        if rest.starts_with("# start") && traffic {
            open = Default::default();
            traffic = false;
            stdin_closed = false;
        }
        if rest.starts_with("# stdin closed") {
            stdin_closed = true;
        }
        // 0: the client, 1: the server, 2: unknown (a plain log).
        let (sender, payload) = match rest.split_at_checked(2) {
            Some(("> ", p)) => (0, p),
            Some(("< ", p)) => (1, p),
            _ if rest.starts_with(['{', '[']) => (2, rest),
            _ => continue,
        };
        let Some(at) = payload.find(['{', '[']) else {
            continue;
        };
        let mut values = Vec::new();
        for v in serde_json::Deserializer::from_str(&payload[at..]).into_iter::<Value>() {
            match v {
                Ok(Value::Array(items)) => values.extend(items),
                Ok(v) => values.push(v),
                Err(_) => break,
            }
        }
        for v in values {
            let Some(obj) = v.as_object() else { continue };
            traffic = true;
            let id = obj
                .get("id")
                .filter(|id| !id.is_null())
                .map(Value::to_string);
            let method = obj.get("method").and_then(Value::as_str);
            if let Some(method) = method {
                if let Some(id) = id.filter(|_| !method.starts_with("notifications/")) {
                    requests += 1;
                    *open[sender.min(1)].entry(id).or_default() += 1;
                }
            } else if obj.contains_key("result") || obj.contains_key("error") {
                let shutdown = sender == 1 && stdin_closed && obj.contains_key("error");
                if let Some(id) = id.filter(|_| !shutdown) {
                    let sides: &[usize] = match sender {
                        0 => &[1],
                        1 => &[0],
                        _ => &[0, 1],
                    };
                    for &side in sides {
                        if let Some(n) = open[side].get_mut(&id).filter(|n| **n > 0) {
                            *n -= 1;
                            answered += 1;
                            break;
                        }
                    }
                }
            }
        }
    }
    (requests, answered)
}

/// Every corpus session (real SDKs and libraries) and every recorded
/// session fixture exports to a request the official package reads whole:
/// a CLIENT span per request, a SERVER span per answered one, a root per
/// session, every parent in the file, no span ending before it starts,
/// trace and span ids of the right length.
#[test]
fn every_corpus_session_exports_as_a_valid_otlp_request() {
    let dir = scratch("corpus");
    let mut logs: Vec<PathBuf> = Vec::new();
    for group in fs::read_dir(root().join("tests/corpus")).expect("corpus") {
        let group = group.expect("entry").path();
        if group.is_dir() {
            for f in fs::read_dir(&group).expect("group") {
                let f = f.expect("entry").path();
                if f.extension().is_some_and(|e| e == "log") {
                    logs.push(f);
                }
            }
        }
    }
    for f in fs::read_dir(root().join("fixtures/sessions")).expect("sessions") {
        logs.push(f.expect("entry").path());
    }
    logs.push(root().join("fixtures/sample-session.log"));
    logs.push(root().join(TRACED));
    logs.sort();
    assert!(logs.len() > 50, "the corpus is there: {}", logs.len());
    let exports: Vec<PathBuf> = logs
        .iter()
        .map(|log| {
            let rel = log.strip_prefix(root()).expect("in the repository");
            export(&dir, rel.to_str().expect("utf-8"), &[])
        })
        .collect();
    let summaries = parsed(&exports);
    assert_eq!(summaries.len(), logs.len());
    let mut failures = Vec::new();
    for (log, summary) in logs.iter().zip(&summaries) {
        let rel = log.strip_prefix(root()).expect("in the repository");
        let (requests, answered) = raw_counts(log);
        let sessions = json_of(&run(&[
            "check",
            "--format",
            "json",
            rel.to_str().expect("utf-8"),
        ]))["files"][0]["sessions"]
            .as_array()
            .expect("sessions")
            .len();
        let counts = (
            of_kind(summary, CLIENT).len(),
            of_kind(summary, SERVER).len(),
            of_kind(summary, INTERNAL).len(),
        );
        if counts != (requests, answered, sessions) {
            failures.push(format!(
                "{}: spans (client, server, root) {counts:?}, raw lines say {:?}",
                rel.display(),
                (requests, answered, sessions)
            ));
        }
        // Each request is in the session `check` numbers it in: its line
        // within the lines of the root whose session id it carries.
        let roots: HashMap<&str, (u64, u64)> = of_kind(summary, INTERNAL)
            .iter()
            .map(|r| {
                (
                    r["trace_id"].as_str().expect("trace"),
                    (
                        attr(r, "mcpdbg.first_line").as_u64().unwrap_or(0),
                        attr(r, "mcpdbg.last_line").as_u64().unwrap_or(u64::MAX),
                    ),
                )
            })
            .collect();
        for s in of_kind(summary, CLIENT) {
            let session = attr(s, "mcp.session.id").as_str().expect("session id");
            let (first, last) = roots
                .get(session)
                .unwrap_or_else(|| panic!("{}: no root for {s}", rel.display()));
            let line = attr(s, "mcpdbg.line").as_u64().expect("line");
            assert!(
                (*first..=*last).contains(&line),
                "{}: line {line} outside its session's lines {first}..={last}",
                rel.display()
            );
        }
        let ids: BTreeSet<&str> = spans(summary)
            .iter()
            .map(|s| s["span_id"].as_str().expect("id"))
            .collect();
        assert_eq!(
            ids.len(),
            spans(summary).len(),
            "{}: span ids are unique",
            rel.display()
        );
        for s in spans(summary) {
            assert_eq!(s["trace_id"].as_str().expect("trace").len(), 32);
            assert_eq!(s["span_id"].as_str().expect("span").len(), 16);
            assert!(
                s["end"].as_u64() >= s["start"].as_u64(),
                "{}: {s}",
                rel.display()
            );
            assert!(
                s["start"].as_u64().expect("start") > 0,
                "{}: {s}",
                rel.display()
            );
            let parent = s["parent_span_id"].as_str().expect("parent");
            let joined = !s["links"].as_array().expect("links").is_empty();
            if s["kind"] == INTERNAL {
                assert_eq!(parent, "", "a root has no parent");
            } else if !joined {
                assert!(
                    ids.contains(parent),
                    "{}: the parent of {s} is in the file",
                    rel.display()
                );
            }
            assert!(
                attr(s, "mcp.method.name").is_string() || s["kind"] == INTERNAL,
                "{}: {s}",
                rel.display()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fixture's raw lines, read before the export was: seven requests
/// (ids 1, 2, 3, 100 from the server, 4, 5, 6), six answered; id 2 and id
/// 3 carry a W3C traceparent, id 4 an invalid one (an all-zero trace id);
/// id 4's result says isError, id 5 gets -32602, id 6 is never answered
/// (the log ends 30 s later, at 09:15:35).
#[test]
fn spans_follow_the_mcp_conventions_and_join_the_callers_trace() {
    let dir = scratch("traceparent");
    let summary = &parsed(&[export(&dir, TRACED, &[])])[0];
    let by_id = |id: &str, kind: u64| -> &Value {
        spans(summary)
            .iter()
            .find(|s| attr(s, "jsonrpc.request.id") == id && s["kind"] == kind)
            .unwrap_or_else(|| panic!("a span of kind {kind} for id {id}"))
    };
    let root = of_kind(summary, INTERNAL)[0];
    let session_trace = root["trace_id"].as_str().expect("trace");
    assert_eq!(attr(root, "mcp.session.id"), session_trace);
    assert_eq!(summary["resources"][0]["service.name"], "weather");
    assert_eq!(summary["resources"][0]["service.version"], "2.1.0");
    assert_eq!(summary["resources"][0]["mcpdbg.timestamps"], "log");

    // Joined: the traceparent's trace, its span as the parent, a link home.
    let list = by_id("2", CLIENT);
    assert_eq!(list["trace_id"], "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(list["parent_span_id"], "b7ad6b7169203331");
    assert_eq!(list["links"][0]["trace_id"], session_trace);
    assert_eq!(list["links"][0]["span_id"], root["span_id"]);
    let call = by_id("3", CLIENT);
    assert_eq!(call["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(call["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(call["name"], "tools/call get_forecast");
    assert_eq!(attr(call, "mcp.method.name"), "tools/call");
    assert_eq!(attr(call, "gen_ai.tool.name"), "get_forecast");
    assert_eq!(attr(call, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(attr(call, "mcp.protocol.version"), "2025-11-25");
    assert_eq!(attr(call, "network.transport"), "pipe");
    // 2026-12-02T09:15:01Z to 09:15:02.4Z.
    assert_eq!(call["start"], 1_796_202_901_000_000_000u64);
    assert_eq!(call["end"], 1_796_202_902_400_000_000u64);
    assert_eq!(call["status_code"], 0);
    let handled = by_id("3", SERVER);
    assert_eq!(handled["parent_span_id"], call["span_id"]);
    assert_eq!(handled["trace_id"], call["trace_id"]);
    assert_eq!(
        (handled["start"].clone(), handled["end"].clone()),
        (call["start"].clone(), call["end"].clone())
    );

    // An invalid traceparent is ignored: the session's trace, under the root.
    let bad = by_id("4", CLIENT);
    assert_eq!(bad["trace_id"], session_trace);
    assert_eq!(bad["parent_span_id"], root["span_id"]);
    assert!(bad["links"].as_array().expect("links").is_empty());
    // isError: a tool error, status ERROR (2).
    assert_eq!(attr(bad, "error.type"), "tool_error");
    assert_eq!(bad["status_code"], 2);
    // A JSON-RPC error: its code, its message as the status description.
    let invalid = by_id("5", CLIENT);
    assert_eq!(attr(invalid, "error.type"), "-32602");
    assert_eq!(attr(invalid, "rpc.response.status_code"), "-32602");
    assert_eq!(
        invalid["status_message"],
        "Invalid params: city is required"
    );
    // The server's own request: it is the CLIENT, the client the SERVER.
    assert_eq!(attr(by_id("100", CLIENT), "mcpdbg.sender"), "server");
    assert_eq!(attr(by_id("100", SERVER), "mcpdbg.responder"), "client");
    assert_eq!(by_id("100", CLIENT)["name"], "sampling/createMessage");

    // The hang: ends where the log ends, in error, with its finding.
    let hang = by_id("6", CLIENT);
    assert_eq!(hang["end"], 1_796_202_935_000_000_000u64);
    assert_eq!(hang["status_code"], 2);
    assert_eq!(attr(hang, "error.type"), "no_response");
    let events = hang["events"].as_array().expect("events");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["name"], "mcpdbg.finding");
    assert_eq!(events[0]["attributes"]["mcpdbg.rule"], "unanswered-request");
    assert_eq!(events[0]["attributes"]["mcpdbg.severity"], "error");
    assert_eq!(events[0]["attributes"]["mcpdbg.line"], 15);
    assert!(
        spans(summary)
            .iter()
            .filter(|s| s["kind"] == SERVER)
            .all(|s| attr(s, "jsonrpc.request.id") != "6"),
        "no SERVER span for a request never answered"
    );
}

/// The names are pinned: every attribute key each kind of span, event and
/// resource carries across the fixture, the sample and a 2026-era corpus
/// session. A renamed key fails here first.
#[test]
fn the_attribute_names_are_pinned() {
    let dir = scratch("names");
    let logs = [
        TRACED,
        "fixtures/sample-session.log",
        "tests/corpus/fastmcp/modern-auto-client.log",
    ];
    let files: Vec<PathBuf> = logs.iter().map(|l| export(&dir, l, &[])).collect();
    let mut keys: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for summary in parsed(&files) {
        for r in summary["resources"].as_array().expect("resources") {
            let set = keys.entry("resource".into()).or_default();
            set.extend(r.as_object().expect("map").keys().cloned());
        }
        for s in spans(&summary) {
            let kind = match s["kind"].as_u64() {
                Some(1) => "internal",
                Some(2) => "server",
                Some(3) => "client",
                other => panic!("kind {other:?}"),
            };
            let set = keys.entry(kind.into()).or_default();
            set.extend(s["attributes"].as_object().expect("map").keys().cloned());
            for e in s["events"].as_array().expect("events") {
                let name = e["name"].as_str().expect("name");
                let set = keys.entry(format!("event {name}")).or_default();
                set.extend(e["attributes"].as_object().expect("map").keys().cloned());
            }
        }
    }
    let expected: BTreeMap<String, BTreeSet<String>> = [
        (
            "resource",
            &[
                "service.name",
                "service.version",
                "mcpdbg.log.path",
                "mcpdbg.log.format",
                "mcpdbg.session.index",
                "mcpdbg.timestamps",
            ][..],
        ),
        (
            "client",
            &[
                "mcp.method.name",
                "jsonrpc.request.id",
                "mcp.session.id",
                "network.transport",
                "mcp.protocol.version",
                "gen_ai.tool.name",
                "gen_ai.operation.name",
                "gen_ai.prompt.name",
                "mcp.resource.uri",
                "error.type",
                "rpc.response.status_code",
                "mcpdbg.line",
                "mcpdbg.sender",
                "mcpdbg.response.line",
                "mcpdbg.unanswered",
            ][..],
        ),
        (
            "server",
            &[
                "mcp.method.name",
                "jsonrpc.request.id",
                "mcp.session.id",
                "network.transport",
                "mcp.protocol.version",
                "gen_ai.tool.name",
                "gen_ai.operation.name",
                "gen_ai.prompt.name",
                "mcp.resource.uri",
                "error.type",
                "rpc.response.status_code",
                "mcpdbg.line",
                "mcpdbg.response.line",
                "mcpdbg.responder",
            ][..],
        ),
        (
            "internal",
            &[
                "mcp.session.id",
                "network.transport",
                "mcp.protocol.version",
                "mcpdbg.era",
                "mcpdbg.client.name",
                "mcpdbg.client.version",
                "mcpdbg.first_line",
                "mcpdbg.last_line",
            ][..],
        ),
        (
            "event mcpdbg.finding",
            &[
                "mcpdbg.rule",
                "mcpdbg.severity",
                "mcpdbg.message",
                "mcpdbg.line",
            ][..],
        ),
        ("event notifications/cancelled", &["mcp.method.name"][..]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(keys, expected);
}

/// The whole export of the fixture, pinned (tests/snapshots/otlp/).
#[test]
fn the_export_of_the_fixture_is_pinned() {
    let out = run(&["check", "--format", "otlp-json", TRACED]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an error finding: exit 1 as the table"
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    if let Some(diff) = snapshot(Path::new("tests/snapshots/otlp/traceparent.json"), &text) {
        panic!("{diff}");
    }
}

/// A log without timestamps: times from the line numbers (one millisecond
/// a line), said on stderr and in the resource. The raw lines: initialize
/// on line 2 answered on 3, tools/list on 6 answered on 8, ping on 7 never
/// answered (the log ends on line 8).
#[test]
fn a_log_without_timestamps_is_timed_by_its_lines_and_says_so() {
    let log = "fixtures/rules/direction-inferred.log";
    let out = run(&["check", "--format", "otlp-json", "--fail-on", "never", log]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has no timestamps"), "{stderr}");
    let dir = scratch("untimed");
    let summary = &parsed(&[export(&dir, log, &[])])[0];
    assert!(
        summary["resources"][0]["mcpdbg.timestamps"]
            .as_str()
            .expect("said")
            .starts_with("synthetic")
    );
    let took = |id: &str| {
        let s = spans(summary)
            .iter()
            .find(|s| attr(s, "jsonrpc.request.id") == id && s["kind"] == CLIENT)
            .expect("span");
        s["end"].as_u64().expect("end") - s["start"].as_u64().expect("start")
    };
    assert_eq!(took("0"), 1_000_000);
    assert_eq!(took("1"), 2_000_000);
    assert_eq!(took("7"), 1_000_000);
}

/// `--redact` applies: the log's strings do not reach the traces.
#[test]
fn redaction_applies_to_the_export() {
    let out = run(&[
        "check",
        "--format",
        "otlp-json",
        "--redact",
        "--fail-on",
        "never",
        TRACED,
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for secret in ["Lisbon", "Atlantis", "city is required", "Porto"] {
        assert!(!text.contains(secret), "{secret} in the redacted export");
    }
    assert!(text.contains("[redacted"), "placeholders stand in");
    let dir = scratch("redacted");
    let path = dir.join("redacted.json");
    fs::write(&path, &text).expect("write");
    let summary = &parsed(&[path])[0];
    assert_eq!(of_kind(summary, CLIENT).len(), 7);
}

/// `--export-otlp FILE` (alias `--otlp`) writes the same traces beside
/// the table, from the same check; the exit status is the table's. The
/// traces cannot be made of standard input, and are `check`'s alone.
#[test]
fn the_export_goes_beside_another_format_and_refuses_what_it_cannot_read() {
    let dir = scratch("beside");
    let beside = dir.join("beside.json");
    let sarif = dir.join("x.sarif");
    let table = run(&["check", "--otlp", beside.to_str().expect("utf-8"), TRACED]);
    assert_eq!(table.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&table.stdout).contains("unanswered-request"));
    let main = run(&[
        "check",
        "--format",
        "otlp-json",
        "--export-sarif",
        sarif.to_str().expect("utf-8"),
        TRACED,
    ]);
    assert_eq!(main.status.code(), Some(1));
    assert_eq!(fs::read(&beside).expect("written"), main.stdout);
    let sarif: Value = serde_json::from_slice(&fs::read(&sarif).expect("sarif")).expect("json");
    // Line 13's `{}` breaks the inputSchema listed at line 6 (city
    // required), line 14 answers it with -32602 under 2025-11-25, and line
    // 15's call is never answered.
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["ruleId"].as_str().expect("ruleId"))
        .collect();
    assert_eq!(
        rules,
        [
            "arguments-violate-input-schema",
            "invalid-arguments-wrong-channel",
            "unanswered-request"
        ]
    );

    let stdin = run_stdin(&["check", "--format", "otlp-json", "-"], b"{}\n");
    assert_eq!(stdin.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&stdin.stderr).contains("standard input"));
    assert!(stdin.stdout.is_empty());
    let validate = run(&["validate", "--format", "otlp-json", "{}"]);
    assert_eq!(validate.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&validate.stderr).contains("otlp-json is `check`'s"));
    // A file that is no log: refused as every command refuses it.
    let not_a_log = run(&["check", "--format", "otlp-json", "Cargo.toml"]);
    assert_eq!(not_a_log.status.code(), Some(2));
}
