//! `mcpdbg diff` over the fixtures in `fixtures/replay/` (snapshots and the
//! pinned JSON schema), and `mcpdbg replay` against real software: servers
//! on the official MCP Python SDK (installed, pinned, by `scripts/test` into
//! `target/sdk-venv`), driven by a session recorded with the SDK's client.

mod common;
use common::*;

use std::path::Path;

use serde_json::Value;

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
        ],
        "document",
    );
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
