//! The logs of today's hosts (JetBrains, the gh-aw gateway, Claude Code,
//! Codex CLI, Cursor): each fixture's exact findings, worked out from its
//! raw lines, and the format detected with and without `--input`.

use serde_json::Value;

use crate::common::*;

/// `(rule, line, session)` of every finding of a file, in report order.
fn findings(args: &[&str]) -> Vec<(String, u64, u64)> {
    check_findings(args).0
}

fn expect(path: &str, expected: &[(&str, u64, u64)]) {
    let got = findings(&[path]);
    let expected: Vec<(String, u64, u64)> = expected
        .iter()
        .map(|(r, l, s)| (r.to_string(), *l, *s))
        .collect();
    assert_eq!(got, expected, "{path}");
}

/// The format detected, and the same findings when the format is given.
fn detected(path: &str, format: &str) {
    let doc = json_of(&run(&["check", "--format", "json", path]));
    assert_eq!(doc["files"][0]["format"], format, "{path}");
    assert_eq!(
        findings(&[path]),
        findings(&["--input", format, path]),
        "{path} with --input {format}"
    );
}

fn message_of(path: &str, rule: &str, line: u64) -> String {
    let doc = json_of(&run(&["check", "--format", "json", path]));
    doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == rule && f["line"] == line)
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("{path}: no {rule} at line {line}"))
        .to_string()
}

fn sessions(path: &str) -> Vec<Value> {
    let doc = json_of(&run(&["check", "--format", "json", path]));
    doc["files"][0]["sessions"]
        .as_array()
        .expect("sessions")
        .clone()
}

const NOTE: &str = "format-assumption";

#[test]
fn jetbrains_logs() {
    let dir = "fixtures/formats/jetbrains";
    for name in ["clean", "hang", "stray-stdout", "crash"] {
        detected(&format!("{dir}/{name}.log"), "jetbrains");
    }
    expect(&format!("{dir}/clean.log"), &[(NOTE, 1, 0)]);
    expect(
        &format!("{dir}/hang.log"),
        &[(NOTE, 1, 0), ("unanswered-request", 7, 0)],
    );
    // The server's non-JSON line, a broken JSON line, an id too large for
    // an integer (read as a float), and an empty stdout line; the WARN
    // line's continuation is skipped.
    expect(
        &format!("{dir}/stray-stdout.log"),
        &[
            (NOTE, 1, 0),
            ("stray-output", 3, 0),
            ("invalid-json", 10, 0),
            ("invalid-id-type", 11, 0),
            ("unanswered-request", 11, 0),
            ("blank-line", 12, 0),
        ],
    );
    expect(
        &format!("{dir}/crash.log"),
        &[(NOTE, 1, 0), ("unanswered-request", 5, 0)],
    );
    let crash = message_of(&format!("{dir}/crash.log"), "unanswered-request", 5);
    assert!(
        crash.contains("exited with code 1") && crash.contains("died with the request open"),
        "{crash}"
    );
    let s = &sessions(&format!("{dir}/clean.log"))[0];
    assert_eq!(s["protocol_version"], "2025-06-18");
    assert_eq!(s["server"]["name"], "notes");
}

#[test]
fn gh_aw_gateway_logs() {
    let dir = "fixtures/formats/gh-aw";
    for name in ["clean-v1", "clean-v2", "hang", "crash", "bad-input"] {
        detected(&format!("{dir}/{name}.log"), "gh-aw");
    }
    // One session per server_id, each with its note.
    expect(
        &format!("{dir}/clean-v1.log"),
        &[(NOTE, 1, 0), (NOTE, 3, 1)],
    );
    let names: Vec<Value> = sessions(&format!("{dir}/clean-v1.log"))
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(names, vec![Value::from("notes"), Value::from("github")]);
    // A tool error (isError), the gateway's error text for a failed call
    // and a verdict record: none is a finding.
    expect(&format!("{dir}/clean-v2.log"), &[(NOTE, 1, 0)]);
    // A timeout: the call the gateway gave up on is the hang; the next
    // response pairs with the next call.
    expect(
        &format!("{dir}/hang.log"),
        &[(NOTE, 1, 0), ("unanswered-request", 3, 0)],
    );
    expect(
        &format!("{dir}/crash.log"),
        &[(NOTE, 1, 0), ("unanswered-request", 3, 0)],
    );
    let crash = message_of(&format!("{dir}/crash.log"), "unanswered-request", 3);
    assert!(
        crash.contains("closed unexpectedly") && crash.contains("died with the request open"),
        "{crash}"
    );
    // Broken JSON (session of records without a server), a direction that
    // names neither side, a payload that is not an object (the record's
    // method is used), a result of the wrong shape, a line that is not an
    // object and a record cut off at the end; a response with no call
    // open and a timestamp that does not parse are shown, not judged.
    expect(
        &format!("{dir}/bad-input.log"),
        &[
            (NOTE, 1, 0),
            ("malformed-record", 4, 1),
            ("malformed-record", 5, 0),
            ("invalid-params", 6, 0),
            ("invalid-result", 7, 0),
            ("malformed-record", 8, 1),
            ("malformed-record", 9, 1),
        ],
    );

    let dir = "fixtures/formats/gh-aw-server";
    for name in ["clean", "stray-stdout", "start-failed"] {
        detected(&format!("{dir}/{name}.log"), "gh-aw-server");
    }
    expect(&format!("{dir}/clean.log"), &[(NOTE, 1, 0)]);
    // Stray stdout kills the connection at start: the Go decoder's words.
    expect(
        &format!("{dir}/stray-stdout.log"),
        &[
            (NOTE, 1, 0),
            ("stray-output", 4, 0),
            ("server-start-failed", 4, 0),
        ],
    );
    expect(
        &format!("{dir}/start-failed.log"),
        &[(NOTE, 1, 0), ("server-start-failed", 3, 0)],
    );
}

#[test]
fn claude_code_logs() {
    let dir = "fixtures/formats/claude-code";
    for name in [
        "clean",
        "hang",
        "crash",
        "bad-input",
        "array-2025",
        "host-words",
    ] {
        detected(&format!("{dir}/{name}.log"), "claude-code");
    }
    // A completed call and a failed one (a tool failure, not a finding).
    expect(&format!("{dir}/clean.log"), &[(NOTE, 1, 0)]);
    expect(
        &format!("{dir}/hang.log"),
        &[(NOTE, 1, 0), ("unanswered-request", 3, 0)],
    );
    let hang = message_of(&format!("{dir}/hang.log"), "unanswered-request", 3);
    assert!(
        hang.contains("\"sync\"") && hang.contains("30.5 s"),
        "{hang}"
    );
    // A drop with a call open, then a retry that fails to connect: a second
    // session (the file's note is reported with the session open when the
    // file ends).
    expect(
        &format!("{dir}/crash.log"),
        &[
            (NOTE, 1, 1),
            ("unanswered-request", 3, 0),
            ("session-restarted", 7, 1),
            ("server-start-failed", 8, 1),
        ],
    );
    let crash = message_of(&format!("{dir}/crash.log"), "unanswered-request", 3);
    assert!(
        crash.contains("STDIO connection dropped")
            && crash.contains("crashed with the request open: it threw an exception (line 5"),
        "{crash}"
    );
    // A text that is not a string, a line that is not JSON, a completion
    // with no call open, a timestamp out of range, a record cut off at the
    // end.
    expect(
        &format!("{dir}/bad-input.log"),
        &[
            (NOTE, 1, 0),
            ("malformed-record", 2, 0),
            ("malformed-record", 3, 0),
            ("malformed-record", 7, 0),
        ],
    );
    // The host's own words (LOG-FORMATS 20a): a stdout line it could not
    // parse, before and after connecting, is stray output, not a failed
    // start; its timeout (-32001) is a cancelled request, not the server's
    // answer; -32602 is the server's error answer and a failure without
    // `MCP error` the tool's `isError` result (no finding); a ZodError dump
    // is one invalid message; `Connection closed` (-32000) after the drop
    // leaves the call unanswered, the server having died with it open.
    expect(
        &format!("{dir}/host-words.log"),
        &[
            (NOTE, 1, 0),
            ("stray-output", 2, 0),
            ("stray-output", 5, 0),
            ("cancelled-request", 6, 0),
            ("invalid-message", 13, 0),
            ("unanswered-request", 14, 0),
        ],
    );
    let timeout = message_of(&format!("{dir}/host-words.log"), "cancelled-request", 6);
    assert!(
        timeout.contains("\"rebuild_index\" (id 1) at line 8 after 1 min 00 s")
            && timeout.contains("the host's own timeout, after 60003ms")
            && timeout.contains("its timeout"),
        "{timeout}"
    );
    let closed = message_of(&format!("{dir}/host-words.log"), "unanswered-request", 14);
    assert!(
        closed.contains("\"export_notes\"")
            && closed.contains("line 17: STDIO connection dropped")
            && closed.contains("crashed with the request open"),
        "{closed}"
    );
    let rejected = message_of(&format!("{dir}/host-words.log"), "invalid-message", 13);
    assert!(
        rejected.contains("jsonrpc: Invalid input: expected \"2.0\""),
        "{rejected}"
    );
    // The error answer keeps its code; the tool's failure is a tool error.
    let doc = json_of(&run(&[
        "timeline",
        "--format",
        "json",
        &format!("{dir}/host-words.log"),
    ]));
    let rows = doc["rows"].as_array().expect("rows");
    let row = |line: u64| {
        rows.iter()
            .find(|r| r["line"] == line)
            .unwrap_or_else(|| panic!("no row at line {line}: {doc}"))
    };
    assert_eq!(row(10)["error"]["code"], -32602, "{}", row(10));
    assert_eq!(row(12)["is_error"], true, "{}", row(12));
    // The 2025 form: one pretty-printed array; each object is a record.
    expect(&format!("{dir}/array-2025.log"), &[(NOTE, 2, 0)]);

    let dir = "fixtures/formats/claude-code-debug";
    for name in ["clean", "two-servers"] {
        detected(&format!("{dir}/{name}.log"), "claude-code-debug");
    }
    expect(&format!("{dir}/clean.log"), &[(NOTE, 1, 0)]);
    expect(
        &format!("{dir}/two-servers.log"),
        &[
            (NOTE, 2, 0),
            (NOTE, 3, 1),
            ("server-start-failed", 6, 1),
            ("unanswered-request", 8, 0),
        ],
    );
    let names: Vec<Value> = sessions(&format!("{dir}/two-servers.log"))
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(names, vec![Value::from("notes"), Value::from("github")]);
}

/// Claude Desktop in its own words (LOG-FORMATS 20c): a ZodError block
/// after `[error] [` is one invalid message at its first line, not stderr;
/// a request the host cut in the middle keeps the method and tool from its
/// head and the id from its tail, so it pairs and its hang is found (and
/// says the payload was cut); `Era probe verdict` is the era.
#[test]
fn claude_desktop_in_its_own_words() {
    let path = "fixtures/formats/claude-server/host-words.log";
    detected(path, "claude-server");
    expect(
        path,
        &[
            (NOTE, 3, 0),
            ("invalid-message", 6, 0),
            ("unanswered-request", 16, 0),
        ],
    );
    let rejected = message_of(path, "invalid-message", 6);
    assert!(
        rejected.contains("jsonrpc: Invalid input: expected \"2.0\""),
        "{rejected}"
    );
    let hang = message_of(path, "unanswered-request", 16);
    assert!(
        hang.contains("`tools/call` \"echo\" (id 4)")
            && hang.contains("the log cut the request's payload"),
        "{hang}"
    );
    let session = &sessions(path)[0];
    assert_eq!(session["era"], "legacy", "{session}");
    // The dump's lines are not the server's stderr.
    assert_eq!(session["messages"]["server_stderr"], 0, "{session}");
    // A reconnect: `Initializing server...` launches a new process, so the
    // traceback it writes at start-up is not the story of the first
    // process's hang (issue 43 item 8).
    let path = "fixtures/formats/claude-server/reconnect.log";
    expect(
        path,
        &[
            (NOTE, 2, 1),
            ("unanswered-request", 5, 0),
            ("session-restarted", 7, 1),
        ],
    );
    let hang = message_of(path, "unanswered-request", 5);
    assert!(
        !hang.contains("RuntimeError") && hang.contains("line 6: Client transport closed"),
        "{hang}"
    );
    // A summary log shows a cancel but not its target: the hang says what
    // it saw and what it could not (issue 43 item 6).
    let path = "fixtures/formats/claude-server/summary-era.log";
    let hang = message_of(path, "unanswered-request", 8);
    assert!(
        hang.contains(
            "the client sent `notifications/cancelled` at line 13, whose target the log does not show"
        ),
        "{hang}"
    );
    // A second copy of the server, started for another surface, failed:
    // not this session's server, no restart and no failed start.
    let path = "fixtures/formats/claude-aggregate/second-copy.log";
    expect(path, &[(NOTE, 2, 0)]);
    assert_eq!(sessions(path).len(), 1);
}

/// A host that starts a server per operation (LOG-FORMATS 20d): each
/// `initialize` with the id of the first starts a new session, ids over;
/// the operation left open is a hang of its own session. A second
/// `initialize` with a fresh id inside a live session stays
/// `initialize-repeated`.
#[test]
fn a_server_per_operation_is_a_session_per_operation() {
    let path = "fixtures/sessions/per-operation.log";
    expect(
        path,
        &[
            ("direction-inferred", 1, 0),
            ("session-restarted", 6, 1),
            ("direction-inferred", 6, 1),
            ("unanswered-request", 9, 1),
            ("session-restarted", 10, 2),
            ("direction-inferred", 10, 2),
        ],
    );
    assert!(
        message_of(path, "session-restarted", 6).contains("starting its ids over"),
        "{}",
        message_of(path, "session-restarted", 6)
    );
    assert!(
        findings(&["fixtures/rules/initialize-repeated.log"])
            .iter()
            .any(|(rule, line, _)| rule == "initialize-repeated" && *line == 8)
    );
}

#[test]
fn codex_logs() {
    let dir = "fixtures/formats/codex";
    for name in ["clean", "start-failed", "bad-input"] {
        detected(&format!("{dir}/{name}.log"), "codex");
    }
    // One session per program; Codex's own lines are skipped.
    expect(&format!("{dir}/clean.log"), &[(NOTE, 2, 0), (NOTE, 3, 1)]);
    let names: Vec<Value> = sessions(&format!("{dir}/clean.log"))
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![Value::from("notes-server"), Value::from("github-mcp")]
    );
    assert_eq!(
        sessions(&format!("{dir}/clean.log"))[0]["messages"]["server_stderr"],
        2
    );
    // The failure names the server, the stderr the program: two sessions.
    expect(
        &format!("{dir}/start-failed.log"),
        &[(NOTE, 2, 0), ("server-start-failed", 4, 1), (NOTE, 4, 1)],
    );
    // Broken lines of Codex's MCP texts (no closing parenthesis, a time
    // out of range, no closing backtick, cut off at the end) are said; a
    // garbage line is not Codex's and is skipped.
    expect(
        &format!("{dir}/bad-input.log"),
        &[
            (NOTE, 2, 0),
            ("malformed-record", 4, 1),
            ("malformed-record", 5, 1),
            ("malformed-record", 7, 1),
        ],
    );
}

#[test]
fn cursor_logs() {
    let dir = "fixtures/formats/cursor";
    for name in ["clean", "stray-stdout", "start-failed", "hang"] {
        detected(&format!("{dir}/{name}.log"), "cursor");
    }
    expect(&format!("{dir}/clean.log"), &[(NOTE, 1, 0)]);
    assert_eq!(
        sessions(&format!("{dir}/clean.log"))[0]["messages"]["server_stderr"],
        1
    );
    // Stray stdout through the host's parse error; a multi-line stderr
    // chunk (three lines) and a spawn failure of another server.
    expect(
        &format!("{dir}/stray-stdout.log"),
        &[
            (NOTE, 1, 0),
            ("stray-output", 2, 0),
            (NOTE, 4, 1),
            ("server-start-failed", 7, 1),
        ],
    );
    assert_eq!(
        sessions(&format!("{dir}/stray-stdout.log"))[1]["messages"]["server_stderr"],
        3
    );
    // LOG-FORMATS 20b: a `Calling tool` never followed by `Successfully
    // called tool` is a hang, before `Client closed for command` (the server
    // gone with it) or the end of the log; each `Client error` parse error
    // is one stray line; an `[error]` block holding a ZodError dump is one
    // invalid message, not stderr; `Error in MCP` is the host's, not stderr.
    // (The file's note is reported with the session open when it ends.)
    expect(
        &format!("{dir}/hang.log"),
        &[
            (NOTE, 1, 1),
            ("stray-output", 6, 0),
            ("stray-output", 7, 0),
            ("invalid-message", 8, 0),
            ("unanswered-request", 17, 0),
            ("session-restarted", 21, 1),
            ("unanswered-request", 24, 1),
        ],
    );
    let died = message_of(&format!("{dir}/hang.log"), "unanswered-request", 17);
    assert!(
        died.contains("\"rebuild_index\"")
            && died.contains("line 19: Client closed for command")
            && died.contains("the server died with the request open"),
        "{died}"
    );
    let first = &sessions(&format!("{dir}/hang.log"))[0];
    assert_eq!(first["messages"]["server_stderr"], 1, "{first}");
    assert_eq!(first["messages"]["server_to_client"], 1, "{first}");
    // Early 2025's four-character tag; the retry connects, its stderr and
    // the close are lifecycle.
    expect(
        &format!("{dir}/start-failed.log"),
        &[(NOTE, 1, 0), ("server-start-failed", 2, 0)],
    );
    assert_eq!(
        sessions(&format!("{dir}/start-failed.log"))[0]["messages"]["server_stderr"],
        1
    );
}

#[test]
fn a_screenful_of_stderr_does_not_decide_the_format() {
    // 60 unprefixed lines (a traceback, a multi-line host entry), or 60
    // lines of VS Code's prefix without Cursor's words, then the log.
    let traceback: String = (0..60)
        .map(|i| format!("  File \"mod{i}.py\", line {i}, in <module>\n"))
        .collect();
    let cursor_stderr: String = (0..60)
        .map(|i| format!("2026-02-03 10:00:00.{i:03} [error] line {i} of a traceback\n"))
        .collect();
    let debug_noise: String = (0..60)
        .map(|i| format!("2026-10-03T04:26:18.{i:03}Z [DEBUG] Loading plugin {i}\n"))
        .collect();
    for (top, fixture, format) in [
        (&traceback, "jetbrains/hang.log", "jetbrains"),
        (&traceback, "gh-aw-server/clean.log", "gh-aw-server"),
        (&traceback, "codex/clean.log", "codex"),
        (
            &traceback,
            "claude-code-debug/two-servers.log",
            "claude-code-debug",
        ),
        (&cursor_stderr, "cursor/clean.log", "cursor"),
        (
            &debug_noise,
            "claude-code-debug/two-servers.log",
            "claude-code-debug",
        ),
    ] {
        let log = std::fs::read_to_string(root().join("fixtures/formats").join(fixture))
            .expect("fixture");
        let input = format!("{top}{log}");
        let doc = json_of(&run_stdin(
            &["check", "--format", "json", "-"],
            input.as_bytes(),
        ));
        assert_eq!(
            doc["files"][0]["format"], format,
            "{fixture} below a screenful"
        );
    }
}

#[test]
fn timeline_and_stats_read_every_host_log() {
    // (file, tools/call requests, of them never answered, of them timed)
    for (path, calls, unanswered, timed_calls) in [
        ("fixtures/formats/jetbrains/hang.log", 2u64, 1u64, 1u64),
        ("fixtures/formats/jetbrains/crash.log", 1, 1, 0),
        ("fixtures/formats/gh-aw/hang.log", 2, 1, 1),
        ("fixtures/formats/gh-aw/clean-v2.log", 2, 0, 2),
        ("fixtures/formats/claude-code/clean.log", 2, 0, 2),
        ("fixtures/formats/claude-code/hang.log", 2, 1, 1),
        ("fixtures/formats/claude-code-debug/clean.log", 1, 0, 0),
    ] {
        let out = run(&["timeline", path]);
        assert_eq!(out.status.code(), Some(0), "{path}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.lines()
                .filter(|l| l.contains("C->S") && l.contains(" tools/call "))
                .count() as u64,
            calls,
            "{path}:\n{text}"
        );
        let out = run(&["stats", "--format", "json", path]);
        assert_eq!(out.status.code(), Some(0), "{path}");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("stats json");
        let row = doc["methods"]
            .as_array()
            .expect("methods")
            .iter()
            .find(|m| m["method"] == "tools/call")
            .unwrap_or_else(|| panic!("{path}: no tools/call in {doc}"));
        assert_eq!(row["count"], calls, "{path}");
        assert_eq!(row["unanswered"], unanswered, "{path}");
        let timed = row["latency_seconds"]["count"].as_u64().unwrap_or(0);
        assert_eq!(timed, timed_calls, "{path}: {row}");
    }
}

#[test]
fn check_help_and_the_docs_name_every_format() {
    let out = run(&["check", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let formats = std::fs::read_to_string(root().join("docs/formats.md")).expect("formats");
    for format in mcpdbg::reader::Format::ALL {
        let name = format.as_str();
        assert!(help.contains(name), "check --help does not name {name}");
        assert!(
            readme.contains(&format!("`{name}`")),
            "README's format table does not name {name}"
        );
        assert!(
            formats.contains(&format!("| `{name}`")) || formats.contains(&format!(", `{name}` |")),
            "docs/formats.md's table does not name {name}"
        );
        // The flag takes the name.
        let out = run(&["check", "--input", name, "fixtures/sample-session.log"]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "--input {name}");
    }
}

#[test]
fn cut_and_mangled_host_logs_give_findings_not_panics() {
    use mcpdbg::pipeline::{Options, check};
    use mcpdbg::reader::Format;
    use mcpdbg::render::{self, OutputFormat, Style};
    use mcpdbg::report::Report;
    let dirs = [
        "jetbrains",
        "gh-aw",
        "gh-aw-server",
        "claude-code",
        "claude-code-debug",
        "codex",
        "cursor",
    ];
    let mut runs = 0;
    for dir in dirs {
        let format = Format::from_name(dir).expect("a format per directory");
        for entry in std::fs::read_dir(root().join("fixtures/formats").join(dir)).expect("dir") {
            let bytes = std::fs::read(entry.expect("entry").path()).expect("fixture");
            // Every cut (truncated records), and each byte flipped to a quote
            // or a brace (broken JSON), read as this format and detected.
            for at in (0..bytes.len()).step_by(11) {
                let mut inputs = vec![bytes[..at].to_vec()];
                for b in [b'"', b'{', 0xff] {
                    let mut m = bytes.clone();
                    m[at] = b;
                    inputs.push(m);
                }
                for input in inputs {
                    for forced in [Some(format), None] {
                        let options = Options {
                            format: forced,
                            ..Options::default()
                        };
                        let file = check(
                            "cut",
                            Box::new(std::io::Cursor::new(input.clone())),
                            &options,
                        )
                        .expect("in-memory input reads");
                        if forced.is_some() {
                            assert_eq!(file.format, dir);
                        }
                        let mut out = Vec::new();
                        render::render(
                            &Report { files: vec![file] },
                            OutputFormat::Json,
                            Style::default(),
                            &mut out,
                        )
                        .expect("render");
                        let doc: Value =
                            serde_json::from_slice(&out).expect("the JSON output is valid JSON");
                        assert!(doc["files"][0]["findings"].is_array());
                        runs += 1;
                    }
                }
            }
        }
    }
    assert!(runs > 500, "{runs}");
}

/// A host's info line is an end of the server only in the host's own words:
/// a VS Code line that mentions "received" and "exit" (a tool named `exit
/// planner`) is not the server dying. The hang of `tools/call` "sync" (line
/// 10 of the fixture) stays the server stuck on it, and its story does not
/// quote the line as an end.
#[test]
fn a_host_line_that_mentions_exit_is_not_the_server_ending() {
    let dir = root().join("target/test-scratch/host-words");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let fixture =
        std::fs::read_to_string(root().join("fixtures/formats/vscode/hang.log")).expect("fixture");
    let mut lines: Vec<&str> = fixture.lines().collect();
    lines.insert(
        11,
        "2026-10-05 09:49:31.000 [info] Received progress from the exit planner tool",
    );
    let path = dir.join("vscode-exit-words.log");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let path = path.to_str().expect("utf-8 path");
    let message = message_of(path, "unanswered-request", 10);
    assert!(
        message.contains("likely: the server is stuck on this request"),
        "{message}"
    );
    assert!(!message.contains("exit planner"), "{message}");
    assert!(!message.contains("the server died"), "{message}");
}

/// gh-aw: only the gateway's own transport errors are a hang or a crash.
/// A server's error answer quoted in the record's `error` field that says
/// "timed out" or "EOF:" is the server's error result: no hang, no crash
/// (it was drawn as `unanswered-request` and as the server dying).
#[test]
fn a_gh_aw_server_error_that_mentions_timeout_or_eof_is_an_error_answer() {
    let dir = root().join("target/test-scratch/gh-aw-words");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let record = |t: &str, event: &str, dir: &str, extra: &str, payload: &str| {
        format!(
            "{{\"timestamp\":\"2026-11-03T10:00:{t}Z\",\"event\":\"{event}\",\"_schema\":\"rpc-message/v2\",\"direction\":\"{dir}\",\"server_id\":\"notes\"{extra},\"payload\":{payload}}}\n"
        )
    };
    let call = |name: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"arguments\":{{}},\"name\":\"{name}\"}}}}"
        )
    };
    let failed = r#"{"_error":"invalid JSON","_raw":""}"#;
    let mut log = String::new();
    log += &record(
        "00.100",
        "rpc_request",
        "OUT",
        ",\"method\":\"tools/list\"",
        r#"{"jsonrpc":"2.0","method":"tools/list","params":null}"#,
    );
    log += &record(
        "00.180",
        "rpc_response",
        "IN",
        "",
        r#"{"id":1,"jsonrpc":"2.0","result":{"tools":[{"inputSchema":{"type":"object"},"name":"search"},{"inputSchema":{"type":"object"},"name":"reindex"}]}}"#,
    );
    log += &record(
        "01.000",
        "rpc_request",
        "OUT",
        ",\"method\":\"tools/call\"",
        &call("search"),
    );
    log += &record(
        "02.000",
        "rpc_response",
        "IN",
        ",\"error\":\"calling \\\"tools/call\\\": upstream search timed out after 1s\"",
        failed,
    );
    log += &record(
        "03.000",
        "rpc_request",
        "OUT",
        ",\"method\":\"tools/call\"",
        &call("reindex"),
    );
    log += &record(
        "03.500",
        "rpc_response",
        "IN",
        ",\"error\":\"calling \\\"tools/call\\\": EOF: unexpected end of the index file\"",
        failed,
    );
    let path = dir.join("rpc-messages.jsonl");
    std::fs::write(&path, log).expect("write");
    let path = path.to_str().expect("utf-8 path");
    let fired: Vec<String> = findings(&[path])
        .into_iter()
        .map(|(rule, ..)| rule)
        .collect();
    for rule in ["unanswered-request", "cancelled-request", "server-stalled"] {
        assert!(!fired.iter().any(|r| r == rule), "{rule} in {fired:?}");
    }
    let timeline = run(&["timeline", path]);
    let text = String::from_utf8_lossy(&timeline.stdout);
    assert!(text.contains("every request was answered"), "{text}");
    assert!(!text.contains("closed unexpectedly"), "{text}");
}

/// What backs one claim of a "what can be judged" cell.
enum Evidence {
    /// The fixture, in the row's format, on which the rule fires.
    Fires(&'static str, &'static str),
    /// A test of this suite that checks the claim (by its function name).
    Test(&'static str),
    /// The fixture's session has this string value at this key.
    Session(&'static str, &'static str, &'static str),
    /// `stats` times the fixture's `tools/call`s.
    Timed(&'static str),
    /// A limit of the format: the rule never fires on the fixture, whose
    /// log cannot show what it needs.
    Never(&'static str, &'static str),
}

use Evidence::{Fires, Never, Session, Test, Timed};

/// The claims of the README's and `docs/formats.md`'s "what can be
/// judged" columns, by the first format of their row, with what backs
/// each. "Every rule" claims are backed by the rule fixtures (native) or
/// by a sample of the format's own fixtures across families (the hang
/// model, framing, content), not by every rule in every format.
const CLAIMS: &[(&str, &str, Evidence)] = &[
    (
        "native",
        "every rule",
        Test("every_rule_fires_on_its_own_fixture"),
    ),
    (
        "ndjson",
        "every rule",
        Fires("fixtures/tee/hang.server.log", "unanswered-request"),
    ),
    (
        "ndjson",
        "directions inferred",
        Fires(
            "fixtures/rules/direction-inferred.log",
            "direction-inferred",
        ),
    ),
    (
        "tee",
        "every rule but the three that need the order between files",
        Test("a_three_file_tee_capture_is_paired_by_ids"),
    ),
    (
        "claude-server",
        "pairing",
        Test("the_same_hang_reads_the_same_in_every_format"),
    ),
    (
        "claude-server",
        "hangs",
        Fires(
            "fixtures/formats/claude-server/hang.log",
            "unanswered-request",
        ),
    ),
    (
        "claude-server",
        "handshake",
        Session(
            "fixtures/formats/claude-server/clean.log",
            "protocol_version",
            "2024-11-05",
        ),
    ),
    (
        "claude-server",
        "ids",
        Fires("fixtures/formats/claude-server/content.log", "id-reuse"),
    ),
    (
        "claude-server",
        "content when not summarised",
        Fires(
            "fixtures/formats/claude-server/content.log",
            "invalid-result",
        ),
    ),
    (
        "claude-server",
        "content unless summarised",
        Fires(
            "fixtures/formats/claude-server/content.log",
            "invalid-result",
        ),
    ),
    (
        "claude-server",
        "stray stdout through the host's parse error",
        Fires(
            "fixtures/formats/claude-server/stray-stdout.log",
            "stray-output",
        ),
    ),
    (
        "claude-server",
        "stray stdout via the host's parse error",
        Fires(
            "fixtures/formats/claude-server/stray-stdout.log",
            "stray-output",
        ),
    ),
    (
        "vscode",
        "every rule but byte-level framing",
        Fires(
            "fixtures/formats/vscode/initialize-rejected.log",
            "initialize-failed",
        ),
    ),
    (
        "vscode",
        "every rule but byte framing",
        Fires(
            "fixtures/formats/vscode/initialize-rejected.log",
            "initialize-failed",
        ),
    ),
    (
        "vscode",
        "stray stdout quoted",
        Fires("fixtures/formats/vscode/stray-stdout.log", "stray-output"),
    ),
    (
        "vscode",
        "stray stdout",
        Fires("fixtures/formats/vscode/stray-stdout.log", "stray-output"),
    ),
    (
        "zed",
        "every rule but byte-level framing",
        Fires("fixtures/formats/zed/hang.log", "unanswered-request"),
    ),
    (
        "zed",
        "every rule but byte framing",
        Fires("fixtures/formats/zed-rpc/hang.log", "unanswered-request"),
    ),
    (
        "zed",
        "no stray stdout",
        Never("fixtures/formats/zed/hang.log", "stray-output"),
    ),
    (
        "socat",
        "every rule (socat: no UTF-8 rules; strace: approximate latency)",
        Test("a_socat_line_split_over_chunks_is_reported_where_it_begins"),
    ),
    (
        "socat",
        "every rule",
        Fires("fixtures/formats/strace/stray-stdout.log", "stray-output"),
    ),
    (
        "mcpsnoop",
        "every rule but byte-level framing",
        Fires("fixtures/formats/mcpsnoop/stray-stdout.log", "stray-output"),
    ),
    (
        "mcpsnoop",
        "every rule but byte framing",
        Fires("fixtures/formats/inspector/hang.log", "unanswered-request"),
    ),
    (
        "jetbrains",
        "every rule but client-side framing",
        Fires(
            "fixtures/formats/jetbrains/stray-stdout.log",
            "invalid-id-type",
        ),
    ),
    (
        "jetbrains",
        "every rule but client-side byte framing",
        Fires("fixtures/formats/jetbrains/stray-stdout.log", "blank-line"),
    ),
    (
        "jetbrains",
        "stray stdout as read",
        Fires(
            "fixtures/formats/jetbrains/stray-stdout.log",
            "stray-output",
        ),
    ),
    (
        "jetbrains",
        "stray stdout",
        Fires(
            "fixtures/formats/jetbrains/stray-stdout.log",
            "stray-output",
        ),
    ),
    (
        "gh-aw",
        "hangs and timeouts per call",
        Fires("fixtures/formats/gh-aw/hang.log", "unanswered-request"),
    ),
    (
        "gh-aw",
        "a server dying with a call open",
        Fires("fixtures/formats/gh-aw/crash.log", "unanswered-request"),
    ),
    (
        "gh-aw",
        "crashes",
        Fires("fixtures/formats/gh-aw/crash.log", "unanswered-request"),
    ),
    (
        "gh-aw",
        "tool errors vs error answers",
        Test("a_gh_aw_server_error_that_mentions_timeout_or_eof_is_an_error_answer"),
    ),
    (
        "gh-aw",
        "tool vs error answers",
        Test("a_gh_aw_server_error_that_mentions_timeout_or_eof_is_an_error_answer"),
    ),
    (
        "gh-aw",
        "result shapes",
        Fires("fixtures/formats/gh-aw/bad-input.log", "invalid-result"),
    ),
    (
        "gh-aw",
        "latency",
        Timed("fixtures/formats/gh-aw/clean-v2.log"),
    ),
    ("gh-aw", "per server", Test("gh_aw_gateway_logs")),
    (
        "gh-aw",
        "start failures",
        Fires(
            "fixtures/formats/gh-aw-server/start-failed.log",
            "server-start-failed",
        ),
    ),
    (
        "gh-aw-server",
        "start failures (stray stdout at start)",
        Fires(
            "fixtures/formats/gh-aw-server/stray-stdout.log",
            "stray-output",
        ),
    ),
    ("gh-aw-server", "stderr", Test("gh_aw_gateway_logs")),
    (
        "claude-code",
        "hangs (a call not completed before the end, a drop, or the host's own timeout)",
        Fires(
            "fixtures/formats/claude-code/host-words.log",
            "cancelled-request",
        ),
    ),
    (
        "claude-code",
        "hung tool calls (the host's timeouts too)",
        Fires(
            "fixtures/formats/claude-code/hang.log",
            "unanswered-request",
        ),
    ),
    ("claude-code", "drops", Test("claude_code_logs")),
    (
        "claude-code",
        "connect failures",
        Fires(
            "fixtures/formats/claude-code/crash.log",
            "server-start-failed",
        ),
    ),
    (
        "claude-code",
        "a crash after a call",
        Test("claude_code_logs"),
    ),
    (
        "claude-code",
        "stray stdout and non-JSON-RPC lines through the host's parse errors",
        Fires(
            "fixtures/formats/claude-code/host-words.log",
            "invalid-message",
        ),
    ),
    (
        "claude-code",
        "stray stdout via the host's parse error",
        Fires(
            "fixtures/formats/claude-code/host-words.log",
            "stray-output",
        ),
    ),
    (
        "claude-code",
        "error answers vs tool errors",
        Test("claude_code_logs"),
    ),
    (
        "claude-code",
        "era",
        Session("fixtures/formats/claude-code/clean.log", "era", "legacy"),
    ),
    (
        "claude-code",
        "era and version",
        Session(
            "fixtures/formats/claude-code/clean.log",
            "protocol_version",
            "2025-11-25",
        ),
    ),
    (
        "claude-code",
        "version and server",
        Session(
            "fixtures/formats/claude-code/clean.log",
            "protocol_version",
            "2025-11-25",
        ),
    ),
    (
        "claude-code",
        "tool latency",
        Timed("fixtures/formats/claude-code/clean.log"),
    ),
    ("claude-code", "stderr", Test("claude_code_logs")),
    (
        "codex",
        "start failures",
        Fires(
            "fixtures/formats/codex/start-failed.log",
            "server-start-failed",
        ),
    ),
    ("codex", "stderr per server program", Test("codex_logs")),
    ("codex", "stderr", Test("codex_logs")),
    (
        "cursor",
        "hangs (a call not completed before the end, a close or a restart)",
        Fires("fixtures/formats/cursor/hang.log", "unanswered-request"),
    ),
    (
        "cursor",
        "hung tool calls",
        Fires("fixtures/formats/cursor/hang.log", "unanswered-request"),
    ),
    (
        "cursor",
        "stray stdout through the host's parse error",
        Fires("fixtures/formats/cursor/stray-stdout.log", "stray-output"),
    ),
    (
        "cursor",
        "stray stdout",
        Fires("fixtures/formats/cursor/stray-stdout.log", "stray-output"),
    ),
    (
        "cursor",
        "non-JSON-RPC lines",
        Fires("fixtures/formats/cursor/hang.log", "invalid-message"),
    ),
    (
        "cursor",
        "start failures",
        Fires(
            "fixtures/formats/cursor/start-failed.log",
            "server-start-failed",
        ),
    ),
    ("cursor", "stderr", Test("cursor_logs")),
    (
        "cursor",
        "lifecycle",
        Fires("fixtures/formats/cursor/hang.log", "session-restarted"),
    ),
    (
        "cursor",
        "tool latency",
        Timed("fixtures/formats/cursor/hang.log"),
    ),
];

/// A cell's claims: split at `;` and at `, ` outside parentheses.
fn claims_of(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let mut chars = cell.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            ',' if depth == 0 && chars.peek() == Some(&' ') => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The rows of a markdown table whose header starts with `header`: the
/// first format named in the first cell, and the last cell.
fn judged_rows(text: &str, header: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with(header) {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        if line.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        let format = cells[0]
            .split('`')
            .nth(1)
            .expect("a format in backticks")
            .to_string();
        rows.push((format, cells[cells.len() - 1].trim().to_string()));
    }
    assert!(!rows.is_empty(), "no table under {header:?}");
    rows
}

/// Every claim of the "what can be judged" columns is backed by a fixture
/// on which its rule fires, or by a test that checks it.
#[test]
fn every_judged_claim_is_backed() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let formats = std::fs::read_to_string(root().join("docs/formats.md")).expect("formats.md");
    let tests: String = std::fs::read_dir(root().join("tests/it"))
        .expect("tests/it")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default())
        .collect();
    let mut rows = judged_rows(&readme, "| `--input` | the log | what can be judged |");
    rows.extend(judged_rows(
        &formats,
        "| format | host or tool | messages | what can be judged |",
    ));
    let mut missing = Vec::new();
    for (format, cell) in &rows {
        for claim in claims_of(cell) {
            let backed = CLAIMS
                .iter()
                .filter(|(f, c, _)| f == format && *c == claim)
                .collect::<Vec<_>>();
            if backed.is_empty() {
                missing.push(format!("(\"{format}\", \"{claim}\")"));
            }
            for (_, _, evidence) in backed {
                match evidence {
                    Fires(path, rule) | Never(path, rule) => {
                        let doc = json_of(&run(&["check", "--format", "json", path]));
                        let fired = doc["files"][0]["findings"]
                            .as_array()
                            .expect("findings")
                            .iter()
                            .any(|f| f["rule"] == *rule);
                        let expected = matches!(evidence, Fires(..));
                        assert_eq!(fired, expected, "{format}: {claim:?}: {rule} on {path}");
                    }
                    Test(name) => assert!(
                        tests.contains(&format!("fn {name}(")),
                        "{format}: {claim:?}: no test {name}"
                    ),
                    Session(path, key, value) => {
                        let doc = json_of(&run(&["check", "--format", "json", path]));
                        let session = &doc["files"][0]["sessions"][0];
                        assert_eq!(session[key], *value, "{format}: {claim:?}: {path}");
                    }
                    Timed(path) => {
                        let doc = json_of(&run(&["stats", "--format", "json", path]));
                        let timed = doc["methods"]
                            .as_array()
                            .expect("methods")
                            .iter()
                            .filter(|m| m["method"] == "tools/call")
                            .filter_map(|m| m["latency_seconds"]["count"].as_u64())
                            .sum::<u64>();
                        assert!(timed > 0, "{format}: {claim:?}: nothing timed in {path}");
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "claims without evidence:\n{}",
        missing.join("\n")
    );
}

/// Claude Desktop logs whole payloads (before its summary era): content and
/// id rules are judged on them. The result at line 9 gives `content` as a
/// string; the call at line 10 reuses the answered id 2 under 2025-06-18.
#[test]
fn claude_desktop_payloads_are_judged_for_content_and_ids() {
    expect(
        "fixtures/formats/claude-server/content.log",
        &[(NOTE, 3, 0), ("invalid-result", 9, 0), ("id-reuse", 10, 0)],
    );
}
