//! Whole-process tests: the real binary over every fixture, compared with
//! the expected output kept in `tests/snapshots/`, plus the contracts
//! (rule coverage, clean sessions, the JSON schema, exit codes) and hostile
//! input.
//!
//! To accept new output after an intended change, run the tests with
//! `MCPDBG_UPDATE_SNAPSHOTS=1` and review the diff of `tests/snapshots/`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcpdbg::rules::{Group, Rule};

use crate::common::*;
use serde_json::Value;

/// The rules of the schema checks: the tool-schema rules (on by default,
/// off with `--no-tool-schemas`) and `schema-violation` (only with
/// `--schema-check`).
const SCHEMA_RULES: [&str; 5] = [
    "arguments-violate-input-schema",
    "structured-content-mismatch",
    "unlisted-tool-called",
    "unportable-tool-schema",
    "schema-violation",
];

/// The assertions each assertion rule's fixture and catalogue example are
/// checked with (tests/it/assertions.rs tests them on real sessions).
const ASSERTION_FLAGS: [(&str, &[&str]); 5] = [
    (
        "expected-tool-not-called",
        &[
            "--expect-tool",
            "search_notes",
            "--expect-tool",
            "sync",
            "--expect-tool",
            "export_notes",
        ],
    ),
    ("forbidden-tool-called", &["--forbid-tool", "delete_note"]),
    (
        "latency-over-budget",
        &["--max-latency", "2s", "--max-latency", "search_notes=500ms"],
    ),
    ("request-not-completed", &["--require-complete"]),
    ("result-over-budget", &["--max-result-bytes", "100"]),
];

/// The flags a fixture is checked with: `--schema-check` for the fixtures of
/// the rules it runs and for the clean fixture made for it; the assertion
/// rules' own assertions for theirs.
fn flags_for(path: &str) -> &'static [&'static str] {
    // The legacy fixture of deprecated-feature is judged for a move to
    // 2026-07-28 (its modern one needs no flag).
    if path.ends_with("rules/deprecated-feature.log") {
        &["--target-revision", "2026-07-28"]
    } else if SCHEMA_RULES.iter().any(|r| path.contains(r)) || path.contains("schema-check") {
        &["--schema-check"]
    } else if let Some((_, flags)) = ASSERTION_FLAGS.iter().find(|(r, _)| path.contains(r)) {
        flags
    } else {
        &[]
    }
}

#[test]
fn every_fixture_matches_its_snapshot() {
    let mut failures = Vec::new();
    for fixture in fixtures() {
        let path = fixture.to_str().expect("utf-8 path");
        let mut args = vec!["check", "--color", "never"];
        args.extend(flags_for(path));
        args.push(path);
        let out = run(&args);
        let rel = fixture
            .strip_prefix("fixtures")
            .expect("under fixtures")
            .with_extension("txt");
        failures.extend(snapshot(
            &Path::new("tests/snapshots").join(rel),
            &transcript(&out),
        ));
    }
    assert!(
        failures.is_empty(),
        "{} snapshot(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn json_output_of_the_sample_matches_its_snapshot() {
    let out = run(&["check", "--format", "json", "fixtures/sample-session.log"]);
    assert_eq!(out.status.code(), Some(1));
    if let Some(diff) = snapshot(
        Path::new("tests/snapshots/sample-session.json"),
        &String::from_utf8_lossy(&out.stdout),
    ) {
        panic!("{diff}");
    }
}

fn rules_fired(path: &str) -> Vec<String> {
    let mut args = vec!["check", "--format", "json"];
    args.extend(flags_for(path));
    args.push(path);
    let doc = json_of(&run(&args));
    doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule").to_string())
        .collect()
}

#[test]
fn every_rule_fires_on_its_own_fixture() {
    let mut missing = Vec::new();
    // Rules whose input is too large to keep as a fixture have a test that
    // generates it (below).
    let generated = [
        "open-request-limit",
        "line-too-long",
        "batch-too-large",
        "message-over-client-limit",
        "tool-schemas-unchecked",
    ];
    // The baseline rules compare a server with a baseline file, not a log
    // on its own: tests/it/probe.rs fires each of them.
    for rule in Rule::ALL
        .iter()
        .filter(|r| !generated.contains(&r.name()) && r.info().group != Group::Baseline)
    {
        let path = format!("fixtures/rules/{}.log", rule.name());
        if !root().join(&path).exists() {
            missing.push(format!("{path} does not exist"));
            continue;
        }
        let fired = rules_fired(&path);
        if !fired.iter().any(|r| r == rule.name()) {
            missing.push(format!(
                "{path} does not fire {} (fired: {fired:?})",
                rule.name()
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_rule_fixture_is_named_after_a_rule() {
    for fixture in fixtures()
        .iter()
        .filter(|f| f.starts_with("fixtures/rules"))
    {
        let stem = fixture.file_stem().and_then(|s| s.to_str()).expect("name");
        assert!(
            Rule::from_name(stem).is_some(),
            "{} names no rule",
            fixture.display()
        );
    }
}

#[test]
fn clean_sessions_have_no_findings() {
    let clean: Vec<_> = fixtures()
        .into_iter()
        .filter(|f| f.starts_with("fixtures/clean"))
        .collect();
    assert!(
        clean.len() >= 7,
        "expected a clean fixture per revision and the special cases"
    );
    for fixture in clean {
        let path = fixture.to_str().expect("utf-8");
        let out = run(&["check", "--format", "json", "--fail-on", "info", path]);
        assert_eq!(rules_fired(path), Vec::<String>::new(), "{path}");
        assert_eq!(out.status.code(), Some(0), "{path}");
    }
}

#[test]
fn schema_check_is_opt_in_and_silent_on_conforming_sessions() {
    let fired_with = |path: &str, flags: &[&str]| -> Vec<String> {
        let mut args = vec!["check", "--format", "json"];
        args.extend(flags);
        args.push(path);
        let doc = json_of(&run(&args));
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["rule"].as_str().map(str::to_owned))
            .collect()
    };
    // The tool-schema rules need no flag, and `--no-tool-schemas` silences
    // them (with a note that says so); the official pass needs
    // `--schema-check`.
    for rule in SCHEMA_RULES {
        let path = format!("fixtures/rules/{rule}.log");
        let plain = fired_with(&path, &[]);
        let tool_schema = Rule::from_name(rule).expect("a rule").needs_tool_schemas();
        assert_eq!(
            plain.iter().any(|r| r == rule),
            tool_schema,
            "{path}: plain check fires {plain:?}"
        );
        let off = fired_with(&path, &["--no-tool-schemas"]);
        assert!(
            !off.iter().any(|r| r == rule) || !tool_schema,
            "{path}: {off:?}"
        );
        if tool_schema {
            assert!(
                off.iter().any(|r| r == "tool-schemas-unchecked"),
                "{path}: no note with --no-tool-schemas: {off:?}"
            );
        }
        assert!(rules_fired(&path).iter().any(|r| r == rule), "{path}");
    }
    // With it, every clean fixture still reports nothing.
    let clean: Vec<_> = fixtures()
        .into_iter()
        .filter(|f| f.starts_with("fixtures/clean"))
        .collect();
    assert!(
        clean
            .iter()
            .any(|f| f.to_string_lossy().contains("schema-check"))
    );
    for fixture in clean {
        let path = fixture.to_str().expect("utf-8");
        let out = run(&[
            "check",
            "--schema-check",
            "--format",
            "json",
            "--fail-on",
            "info",
            path,
        ]);
        let doc = json_of(&out);
        assert_eq!(doc["files"][0]["findings"], Value::Array(vec![]), "{path}");
        assert_eq!(out.status.code(), Some(0), "{path}");
    }
}

#[test]
fn each_era_and_revision_is_recognised() {
    for (fixture, era, version) in [
        ("legacy-2024-11-05", "legacy", "2024-11-05"),
        ("legacy-2025-03-26", "legacy", "2025-03-26"),
        ("legacy-2025-06-18", "legacy", "2025-06-18"),
        ("legacy-2025-11-25", "legacy", "2025-11-25"),
        ("modern-2026-07-28", "modern", "2026-07-28"),
        ("discover-fallback-to-initialize", "legacy", "2025-11-25"),
    ] {
        let doc = json_of(&run(&[
            "check",
            "--format",
            "json",
            &format!("fixtures/clean/{fixture}.log"),
        ]));
        let session = &doc["files"][0]["sessions"][0];
        assert_eq!(session["era"], era, "{fixture}");
        assert_eq!(session["protocol_version"], version, "{fixture}");
        assert!(session["client"]["name"].is_string(), "{fixture}");
        assert!(session["server"]["name"].is_string(), "{fixture}");
    }
}

/// Recursively checks that an object has exactly the `required` keys plus
/// some of the `optional` ones.
fn keys(v: &Value, required: &[&str], optional: &[&str], what: &str) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object"));
    let have: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
    for k in required {
        assert!(have.contains(k), "{what} lacks {k}");
    }
    for k in &have {
        assert!(
            required.contains(k) || optional.contains(k),
            "{what} has unexpected key {k}"
        );
    }
}

#[test]
fn json_schema_version_1_is_pinned() {
    let out = run(&[
        "check",
        "--format",
        "json",
        "fixtures/sample-session.log",
        "fixtures/rules/id-reuse.log",
    ]);
    let doc = json_of(&out);
    keys(&doc, &["version", "files", "summary"], &[], "document");
    assert_eq!(doc["version"], 1);
    keys(
        &doc["summary"],
        &["error", "warning", "info"],
        &[],
        "summary",
    );
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    let mut optional_seen = BTreeSet::new();
    for file in files {
        keys(
            file,
            &["path", "format", "sessions", "findings"],
            &[],
            "file",
        );
        for session in file["sessions"].as_array().expect("sessions") {
            keys(session, &SESSION_KEYS, &["era_evidence"], "session");
            keys(&session["client"], &["name", "version"], &[], "client");
            keys(
                &session["messages"],
                &[
                    "client_to_server",
                    "server_to_client",
                    "unknown_direction",
                    "server_stderr",
                    "non_message_lines",
                ],
                &[],
                "messages",
            );
            for p in session["pending"].as_array().expect("pending") {
                keys(
                    p,
                    &["id", "method", "direction", "line"],
                    &[],
                    "pending request",
                );
            }
        }
        for f in file["findings"].as_array().expect("findings") {
            let optional = [
                "time",
                "direction",
                "id",
                "method",
                "subject",
                "related",
                "file",
            ];
            keys(
                f,
                &["rule", "severity", "session", "line", "message"],
                &optional,
                "finding",
            );
            optional_seen.extend(
                f.as_object()
                    .expect("object")
                    .keys()
                    .filter(|k| optional.contains(&k.as_str()))
                    .cloned(),
            );
            assert!(
                ["error", "warning", "info"].contains(&f["severity"].as_str().expect("severity"))
            );
            assert!(Rule::from_name(f["rule"].as_str().expect("rule")).is_some());
        }
    }
    assert_eq!(
        optional_seen.len(),
        6,
        "the fixtures should show every optional finding field: {optional_seen:?}"
    );
    // Ids keep their JSON type: a string id stays a string.
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "fixtures/rules/id-type-mismatch.log",
    ]));
    assert_eq!(doc["files"][0]["findings"][0]["id"], Value::from("1"));
}

#[test]
fn exit_codes_follow_fail_on() {
    let clean = "fixtures/clean/legacy-2025-06-18.log";
    let warns = "fixtures/rules/slow-response.log";
    let errs = "fixtures/rules/unanswered-request.log";
    let info = "fixtures/rules/starts-mid-session.log";
    let code = |args: &[&str]| run(args).status.code();
    assert_eq!(code(&["check", clean]), Some(0));
    assert_eq!(code(&["check", warns]), Some(0));
    assert_eq!(code(&["check", "--fail-on", "warning", warns]), Some(1));
    assert_eq!(code(&["check", errs]), Some(1));
    assert_eq!(code(&["check", "--fail-on", "never", errs]), Some(0));
    assert_eq!(code(&["check", info]), Some(0));
    assert_eq!(code(&["check", "--fail-on", "info", info]), Some(1));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let out = run(&["check", "fixtures/no-such-file.log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot open fixtures/no-such-file.log"),
        "{err}"
    );
    // The files that could be read are still reported.
    let out = run(&[
        "check",
        "fixtures/no-such-file.log",
        "fixtures/clean/legacy-2025-06-18.log",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("legacy-2025-06-18.log"));
    let out = run(&[
        "check",
        "--revision",
        "2025-01-01",
        "fixtures/sample-session.log",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown revision"));
    // A directory is read as its files; one with none in it is refused.
    let empty = root().join("target/test-scratch/empty-dir");
    std::fs::create_dir_all(&empty).expect("scratch dir");
    let out = run(&["check", empty.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2), "a directory with no file");
    assert!(String::from_utf8_lossy(&out.stderr).contains("a directory with no log file in it"));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let fixture = "fixtures/rules/too-many-findings.log";
    let mut args = vec!["check", "--format", "json"];
    args.extend(std::iter::repeat_n(fixture, 40));
    let mut child = mcpdbg()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("ends");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stdin_is_read_with_dash_or_no_file() {
    let input =
        std::fs::read(root().join("fixtures/rules/unanswered-request.log")).expect("fixture");
    for args in [
        &["check", "--format", "json", "-"][..],
        &["check", "--format", "json"][..],
    ] {
        let out = run_stdin(args, &input);
        assert_eq!(out.status.code(), Some(1));
        let doc = json_of(&out);
        assert_eq!(doc["files"][0]["path"], "-");
        assert_eq!(doc["files"][0]["findings"][0]["rule"], "unanswered-request");
    }
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let fixture = "fixtures/rules/unanswered-request.log";
    let plain = run(&["check", fixture]);
    assert!(
        !plain.stdout.contains(&0x1b),
        "no colour when stdout is a pipe"
    );
    let forced = run(&["check", "--color", "always", fixture]);
    assert!(forced.stdout.contains(&0x1b));
}

#[test]
fn text_from_the_log_cannot_drive_the_terminal() {
    let input = b"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\\u001b]0;pwned\\u0007\"}}\n\
< \x1b[2J\x1b]0;title\x07cleared\n! \x1b[31mred\n";
    let out = run_stdin(&["check", "-"], input);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !out.stdout.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!out.stdout.contains(&0x07));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\\x1b[2J"));
}

#[test]
fn invisible_and_line_breaking_characters_are_shown_as_codes() {
    // Zero-width space and joiner, U+061C, soft hyphen, a tag character
    // (as its surrogate pair), U+2028/2029, a BOM and a newline, in the
    // client's and server's names, an id and a tool name.
    let input = concat!(
        r#"> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c\nfake row\u200b\u2028x\u00ad\u061c","version":"1\udb40\udc41"}}}"#,
        "\n",
        r#"< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s\u2029\u200dz\ufeff","version":"1"}}}"#,
        "\n",
        r#"> {"jsonrpc":"2.0","id":"a\u200bb","method":"tools/call","params":{"name":"t\u2028x"}}"#,
        "\n",
    );
    let dir = root().join("target").join("test-scratch").join("invisible");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let file = dir.join("invisible.jsonl");
    std::fs::write(&file, input).expect("write");
    let file = file.to_str().expect("utf-8");
    let invisible = [
        '\u{200b}',
        '\u{200d}',
        '\u{061c}',
        '\u{ad}',
        '\u{e0041}',
        '\u{2028}',
        '\u{2029}',
        '\u{feff}',
    ];
    for args in [&["check", file][..], &["timeline", file], &["stats", file]] {
        let out = run(args);
        let text = String::from_utf8(out.stdout).expect("utf-8");
        for c in invisible {
            assert!(
                !text.contains(c),
                "{args:?} prints U+{:04X} raw:\n{text}",
                c as u32
            );
        }
        assert!(
            !text
                .lines()
                .any(|l| l.contains("fake row") && !l.contains("c\\nfake row")),
            "{args:?}: a newline in a name starts a row:\n{text}"
        );
        if args[0] != "stats" {
            assert!(text.contains("\\u{200b}"), "{args:?}: {text}");
        }
    }
    // A file name with an escape sequence, in the "cannot open" error.
    for command in ["check", "timeline", "stats"] {
        let out = run(&[command, "no\x1b[31msuch\u{2028}file"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8(out.stderr).expect("utf-8");
        assert!(
            !err.contains('\x1b') && !err.contains('\u{2028}'),
            "{command}: {err}"
        );
        assert!(
            err.contains("no\\x1b[31msuch\\u{2028}file"),
            "{command}: {err}"
        );
    }
}

fn assert_survives(name: &str, input: &[u8]) {
    for format in ["json", "table"] {
        let out = run_stdin(&["check", "--format", format, "-"], input);
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Input with no MCP message in it is refused, said on stderr.
        if code == Some(2) && stderr.contains("no MCP message found in standard input") {
            assert!(out.stdout.is_empty(), "{name} ({format})");
            continue;
        }
        // Random bytes are binary data, refused before they are read; a log
        // with a few bytes of invalid UTF-8 is not.
        if name.starts_with("random bytes")
            && code == Some(2)
            && stderr.starts_with("mcpdbg: standard input: binary data, not a log: ")
        {
            assert!(out.stdout.is_empty(), "{name} ({format})");
            continue;
        }
        assert!(
            matches!(code, Some(0 | 1)),
            "{name} ({format}): exit {code:?}, stderr: {stderr}"
        );
        if format == "json" {
            json_of(&out);
        }
    }
}

#[test]
fn hostile_inputs_never_crash() {
    assert_survives("empty", b"");
    assert_survives("one newline", b"\n");
    assert_survives(
        "invalid utf-8",
        b"> \xff\xfe{\"a\x80\"}\n< \xc3\x28\n\xed\xa0\x80\n",
    );
    assert_survives(
        "no markers, invalid utf-8",
        b"\xff\xff\xff\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}\n",
    );
    for seed in 1..=8 {
        assert_survives(&format!("random bytes {seed}"), &noise(seed, 64 * 1024));
    }
    let mut mixed = Vec::new();
    for (i, chunk) in noise(99, 32 * 1024).chunks(97).enumerate() {
        mixed.extend_from_slice(
            [
                &b"> "[..],
                b"< ",
                b"! ",
                b"# ",
                b"2026-11-02T09:00:00Z > ",
                b"{",
            ][i % 6],
        );
        mixed.extend_from_slice(chunk);
        mixed.push(b'\n');
    }
    assert_survives("random bytes behind markers", &mixed);
    let deep = format!("> {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert_survives("deep nesting", deep.as_bytes());
    let deep_object = format!("> {}\n", "{\"a\":".repeat(50_000));
    assert_survives("deep unterminated object", deep_object.as_bytes());
    // A valid Inspector export whose durations are absurd: no time for the
    // response, never an overflow.
    for duration in ["1e300", "-5", "9.3e15", "1e-300"] {
        let export = format!(
            "[\n  {{\n    \"id\": 1,\n    \"timestamp\": \"2026-11-02T09:00:00Z\",\n    \"direction\": \"request\",\n    \"message\": {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}},\n    \"response\": {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}}}},\n    \"duration\": {duration}\n  }}\n]\n"
        );
        assert_survives(&format!("inspector duration {duration}"), export.as_bytes());
    }
}

#[test]
fn a_50_mb_single_line_is_handled() {
    // A tool result of 50 MB of text, in one line, without a newline at the end.
    let mut big =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
            .to_vec();
    big.resize(big.len() + 50 * 1024 * 1024, b'x');
    big.extend_from_slice(b"\"}]}}");
    let mut input = b"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\"}}\n< ".to_vec();
    input.extend_from_slice(&big);
    let out = run_stdin(&["check", "--format", "json", "-"], &input);
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let doc = json_of(&out);
    // Answered: no hang, and nothing quotes the 50 MB.
    assert!(
        !doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["rule"] == "unanswered-request")
    );
    assert!(out.stdout.len() < 64 * 1024);
    // And 50 MB of garbage in one line, after a message (printable: random
    // bytes are binary data, refused before they are read).
    let mut garbage = b"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n< ".to_vec();
    garbage.extend(
        noise(7, 50 * 1024 * 1024)
            .into_iter()
            .map(|b| b' ' + b % 95),
    );
    let out = run_stdin(&["check", "--format", "json", "-"], &garbage);
    assert!(matches!(out.status.code(), Some(0 | 1)));
    assert!(
        out.stdout.len() < 64 * 1024,
        "findings quote excerpts, not lines"
    );
}

#[test]
fn a_huge_id_is_shortened_in_text_views_and_kept_whole_in_json() {
    let id = "i".repeat(1024 * 1024);
    let input = format!(
        "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n\
< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n\
> {{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"ping\"}}\n\
> {{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"ping\"}}\n\
< {{\"jsonrpc\":\"2.0\",\"id\":\"{id}x\",\"result\":{{}}}}\n"
    );
    let shown = format!("\"{}\"… (1048576 bytes)", &id[..64]);
    let dir = root().join("target").join("test-scratch").join("huge-id");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let file = dir.join("huge-id.jsonl");
    std::fs::write(&file, &input).expect("write");
    let file = file.to_str().expect("utf-8");
    for args in [
        &["check", file][..],
        &["timeline", file],
        &["stats", file],
        &["timeline", "--format", "mermaid", file],
    ] {
        let out = run(args);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
        assert!(
            out.stdout.len() < 16 * 1024,
            "{args:?}: {} bytes",
            out.stdout.len()
        );
        let text = String::from_utf8_lossy(&out.stdout);
        // (Mermaid spells the quotes and the ellipsis as entities.)
        if args[0] != "stats" && args.len() == 2 {
            assert!(text.contains(&shown), "{args:?}: {text}");
        }
    }
    let doc = json_of(&run_stdin(
        &["check", "--format", "json", "-"],
        input.as_bytes(),
    ));
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let ids: Vec<&str> = findings.iter().filter_map(|f| f["id"].as_str()).collect();
    assert!(ids.contains(&id.as_str()), "the JSON keeps the id whole");
    assert!(ids.contains(&format!("{id}x").as_str()));
}

#[test]
fn rules_command_lists_the_catalogue() {
    let out = run(&["rules", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    let names: Vec<&str> = doc["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    let expected: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(names, expected);
    let table = String::from_utf8(run(&["rules"]).stdout).expect("utf-8");
    for name in expected {
        assert!(table.contains(name), "{name} missing from the table");
    }
}

#[test]
fn documented_rules_table_matches_the_catalogue() {
    // The table lives in one of README.md and docs/*.md, whichever holds
    // the markers; it must be in exactly one.
    let holders: Vec<(String, String)> = documentation()
        .into_iter()
        .filter(|(_, text)| text.contains("<!-- rules:start"))
        .collect();
    assert_eq!(
        holders.len(),
        1,
        "the rules table (`<!-- rules:start` ... `<!-- rules:end -->`) must be in exactly one \
         of README.md and docs/*.md; found in {:?}",
        holders.iter().map(|(file, _)| file).collect::<Vec<_>>()
    );
    let (file, doc) = &holders[0];
    let start = doc.find("<!-- rules:start").expect("rules:start marker");
    let start = start + doc[start..].find('\n').expect("marker line") + 1;
    let end = doc.find("<!-- rules:end -->").expect("rules:end marker");
    assert!(start <= end, "{file}: rules:end comes before rules:start");
    let generated = run(&["rules", "--format", "markdown"]);
    assert_eq!(
        &doc[start..end],
        String::from_utf8(generated.stdout).expect("utf-8"),
        "regenerate the table in {file} with `mcpdbg rules --format markdown`"
    );
    // And the catalogue has every rule once.
    let rows = doc[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .count();
    assert_eq!(rows, Rule::ALL.len());
}

#[test]
fn every_rule_example_triggers_its_rule() {
    // Examples that cannot be shown as text are described instead.
    let described = [
        "invalid-utf8",
        "too-many-findings",
        "corrupt-compressed-input",
        "open-request-limit",
        "line-too-long",
        "batch-too-large",
        "message-over-client-limit",
        "tool-schemas-unchecked",
    ];
    let mut failures = Vec::new();
    for rule in Rule::ALL {
        let info = rule.info();
        // A baseline rule's example describes a probe against a baseline.
        if described.contains(&info.name) || info.group == Group::Baseline {
            continue;
        }
        let mut args = vec!["check", "--format", "json"];
        args.extend(flags_for(info.name));
        args.push("-");
        let out = run_stdin(&args, info.example.as_bytes());
        let doc = json_of(&out);
        let fired: Vec<String> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().expect("rule").to_string())
            .collect();
        if !fired.iter().any(|r| r == info.name) {
            failures.push(format!("{}: example fires {fired:?}", info.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn revision_gated_rules_stay_silent_where_the_revision_allows() {
    for (rule, fixture) in [
        ("batch", "clean/legacy-2025-03-26"),
        ("id-reuse", "clean/modern-2026-07-28"),
        (
            "capability-not-negotiated",
            "silent/completion-ungated-2024-11-05",
        ),
        ("method-not-in-revision", "clean/legacy-2025-06-18"),
        ("method-not-in-revision", "clean/legacy-2025-11-25"),
        ("capability-revision-mismatch", "clean/legacy-2025-06-18"),
        ("invalid-message", "clean/legacy-2025-11-25"),
        ("missing-request-meta", "clean/legacy-2025-06-18"),
        ("server-sent-request", "clean/legacy-2025-06-18"),
        ("client-sent-response", "clean/legacy-2025-06-18"),
        ("missing-result-type", "clean/legacy-2025-06-18"),
        ("notification-not-allowed", "clean/legacy-2025-06-18"),
        ("input-required-misuse", "clean/modern-2026-07-28"),
        ("retry-reused-id", "clean/modern-2026-07-28"),
        (
            "subscription-notification-unacknowledged",
            "clean/modern-2026-07-28",
        ),
        ("missing-initialize", "clean/modern-2026-07-28"),
        (
            "task-cancelled-by-notification",
            "silent/task-cancel-before-tasks-2025-06-18",
        ),
        ("progress-after-response", "clean/legacy-2025-11-25"),
        (
            "invalid-arguments-wrong-channel",
            "silent/invalid-arguments-as-error-2025-06-18",
        ),
        // Requests that declare 2025-11-25 in a 2026-07-28 session: their
        // results, and a cancel of them, are judged by 2025-11-25.
        (
            "missing-result-type",
            "silent/legacy-request-in-modern-session-2025-11-25",
        ),
        (
            "missing-cache-hints",
            "silent/legacy-request-in-modern-session-2025-11-25",
        ),
        (
            "server-cancel-not-listen",
            "silent/legacy-request-in-modern-session-2025-11-25",
        ),
    ] {
        let path = format!("fixtures/{fixture}.log");
        assert!(root().join(&path).exists(), "{path} missing");
        let fired = rules_fired(&path);
        assert!(
            !fired.iter().any(|r| r == rule),
            "{rule} fired on {path}: {fired:?}"
        );
    }
}

/// The tool-error channel rules by revision: invalid arguments answered
/// `isError: true` are wrong up to 2025-06-18 and right from 2025-11-25
/// (with `--schema-check` as the evidence, or the answer's own words); an
/// unknown tool answered `isError: true` is wrong in every revision.
#[test]
fn tool_error_channels_follow_the_revision() {
    let session = |rev: &str, answer: &str| {
        format!(
            concat!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{rev}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"h\",\"version\":\"1\"}}}}}}\n",
                "< {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"{rev}\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n",
                "> {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n",
                "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n",
                "< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[{{\"name\":\"add\",\"inputSchema\":{{\"type\":\"object\",\"properties\":{{\"a\":{{\"type\":\"number\"}}}}}}}}]}}}}\n",
                "> {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":\"two\"}}}}}}\n",
                "< {{\"jsonrpc\":\"2.0\",\"id\":2,{answer}}}\n",
            ),
            rev = rev,
            answer = answer
        )
    };
    let is_error =
        r#""result":{"content":[{"type":"text","text":"a: expected a number"}],"isError":true}"#;
    let protocol = r#""error":{"code":-32602,"message":"a: expected a number"}"#;
    let fired = |input: String, flags: &[&str]| -> Vec<String> {
        let mut args = vec!["check", "--format", "json"];
        args.extend(flags);
        args.push("-");
        let doc = json_of(&run_stdin(&args, input.as_bytes()));
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| format!("{}@{}", f["rule"].as_str().unwrap(), f["line"]))
            .collect()
    };
    let rule = "invalid-arguments-wrong-channel@7";
    let schema = &["--schema-check"][..];
    assert!(fired(session("2025-06-18", is_error), schema).contains(&rule.to_string()));
    assert!(!fired(session("2025-06-18", protocol), schema).contains(&rule.to_string()));
    assert!(fired(session("2025-11-25", protocol), schema).contains(&rule.to_string()));
    assert!(!fired(session("2025-11-25", is_error), schema).contains(&rule.to_string()));
    // The schema verdict is the default (the tool-schema checks are on);
    // without it the answer's words do not say the arguments were the
    // cause: silent.
    assert!(fired(session("2025-06-18", is_error), &[]).contains(&rule.to_string()));
    assert!(
        !fired(session("2025-06-18", is_error), &["--no-tool-schemas"]).contains(&rule.to_string())
    );
    let conforming = session("2025-06-18", is_error).replace(r#""a":"two""#, r#""a":2"#);
    assert!(!fired(conforming, schema).contains(&rule.to_string()));
    let unknown =
        r#""result":{"content":[{"type":"text","text":"Tool add not found"}],"isError":true}"#;
    for rev in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let got = fired(session(rev, unknown), &[]);
        assert!(
            got.contains(&"unknown-tool-as-tool-error@7".to_string()),
            "{rev}: {got:?}"
        );
        assert!(
            !got.iter().any(|r| r.starts_with("invalid-arguments")),
            "{rev}: {got:?}"
        );
    }
}

/// Every list result's shape: one `invalid-result` per bad listing (the
/// first problems quoted), none for a well-formed one.
#[test]
fn list_results_are_judged_by_their_shape() {
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "fixtures/shapes/list-results.log",
    ]));
    let found: Vec<(String, u64, String)> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let lines: Vec<u64> = found
        .iter()
        .filter(|(r, ..)| r == "invalid-result")
        .map(|(_, l, _)| *l)
        .collect();
    assert_eq!(lines, [6, 8, 10], "{found:?}");
    let tools = &found[0].2;
    for part in [
        "`result.nextCursor` is a number",
        "`result.tools[1].title` is a number",
        "`result.tools[1].inputSchema` has no `type`",
        "and 1 more",
    ] {
        assert!(tools.contains(part), "{part} not in {tools}");
    }
    assert!(
        found[1]
            .2
            .contains("arguments[0].required` is a string, expected a boolean")
    );
    assert!(found[2].2.contains("`result.resources[0].name` is missing"));
    // `validate` judges one listing the same way, and a field by the revision
    // that defines it: `title` is no member of a 2024-11-05 tool.
    let listing = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":3,"inputSchema":{"type":"object"}}]}}"#;
    let judged = |rev: &str| -> Vec<String> {
        let doc = json_of(&run(&[
            "validate",
            "--format",
            "json",
            "--revision",
            rev,
            "--answers",
            "tools/list",
            listing,
        ]));
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(judged("2025-06-18"), ["invalid-result"]);
    assert!(judged("2024-11-05").is_empty());
}

/// 2026 `input_required` answers may ask only for elicitation, sampling or
/// roots, and only for kinds the request declared.
#[test]
fn input_required_asks_only_for_declared_kinds() {
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "fixtures/modern/input-required-kinds.log",
    ]));
    let found: Vec<String> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{}@{}: {}",
                f["rule"].as_str().unwrap(),
                f["line"],
                f["message"]
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("input-required-misuse@5") && found[0].contains("no `sampling`"));
    assert!(found[1].starts_with("input-required-misuse@7") && found[1].contains("`tools/list`"));
}

/// `validate -` holds at most the line limit of standard input: more is
/// refused with exit 2 and the reason (it read stdin whole before).
#[test]
fn validate_reads_at_most_the_line_limit_of_stdin() {
    let mut child = mcpdbg()
        .env("MCPDBG_MAX_LINE", "1M")
        .args(["validate", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let chunk = vec![b' '; 1 << 20];
        // 64 MiB offered; the binary stops reading after the limit.
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().expect("binary ends");
    writer.join().expect("writer thread");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MCPDBG_MAX_LINE"), "{err}");
}

#[test]
fn validate_judges_one_message() {
    let json = |args: &[&str]| {
        let mut all = vec!["validate", "--format", "json"];
        all.extend_from_slice(args);
        let out = run(&all);
        (out.status.code(), json_of(&out))
    };
    let rules = |doc: &Value| -> Vec<String> {
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().expect("rule").to_string())
            .collect()
    };
    // The null id of a parse error: JSON-RPC allows it, MCP does not.
    let (code, doc) = json(&[
        r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}"#,
    ]);
    assert_eq!(code, Some(0), "a warning does not fail by default");
    assert_eq!(rules(&doc), vec!["null-id"]);
    let message = doc["files"][0]["findings"][0]["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains("JSON-RPC allows it") && message.contains("MCP does not"),
        "{message}"
    );
    assert_eq!(doc["files"][0]["format"], "message");
    assert_eq!(doc["files"][0]["message"]["kind"], "error response");
    assert_eq!(doc["files"][0]["message"]["revision"], "2026-07-28");
    assert!(
        doc["files"][0]["message"]["cannot_show"]
            .as_array()
            .expect("notes")
            .len()
            >= 2
    );
    keys(
        &doc["files"][0],
        &["path", "format", "sessions", "findings", "message"],
        &[],
        "validate file",
    );
    keys(
        &doc["files"][0]["message"],
        &[
            "kind",
            "direction",
            "method",
            "id",
            "revision",
            "cannot_show",
        ],
        &[],
        "validate message",
    );
    // A batch under 2025-06-18.
    let (code, doc) = json(&[
        "--revision",
        "2025-06-18",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(rules(&doc), vec!["batch"]);
    assert_eq!(doc["files"][0]["message"]["kind"], "batch");
    // ... and the same batch is fine under 2025-03-26.
    let (code, doc) = json(&[
        "--revision",
        "2025-03-26",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
    ]);
    assert_eq!((code, rules(&doc)), (Some(0), vec![]));
    // args instead of arguments.
    let (_, doc) = json(&[
        "--revision",
        "2025-06-18",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","args":{"path":"/tmp/a"}}}"#,
    ]);
    assert_eq!(rules(&doc), vec!["args-not-arguments"]);
    assert_eq!(doc["files"][0]["message"]["direction"], "client-to-server");
    // A misspelt method gets a suggestion.
    let (_, doc) = json(&[r#"{"jsonrpc":"2.0","id":1,"method":"tools/List"}"#]);
    assert_eq!(rules(&doc), vec!["unknown-method"]);
    assert!(
        doc["files"][0]["findings"][0]["message"]
            .as_str()
            .expect("message")
            .contains("did you mean `tools/list`")
    );
    // A result is checked when we know what it answers.
    let (_, doc) = json(&[
        "--answers",
        "tools/call",
        "--revision",
        "2025-06-18",
        r#"{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{}}}"#,
    ]);
    assert_eq!(rules(&doc), vec!["missing-content"]);
    // Standard input, and the table output.
    let out = run_stdin(
        &["validate", "--revision", "2025-06-18"],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no findings: well formed for 2025-06-18"),
        "{text}"
    );
    assert!(text.contains("one message cannot show"), "{text}");
}

#[test]
fn explain_tells_why_how_and_where() {
    let out = run(&["explain", "args-not-arguments"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for part in [
        "Why it matters:",
        "How to fix it:",
        "Spec:",
        "Revisions:",
        "Example",
        "\"args\"",
    ] {
        assert!(text.contains(part), "{part} missing from {text}");
    }
    let out = run(&["explain", "--format", "json", "id-reuse"]);
    let doc = json_of(&out);
    assert_eq!(doc["rules"][0]["name"], "id-reuse");
    let out = run(&["explain", "id-reus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `id-reuse`"));
}

#[test]
fn select_ignore_and_severity_shape_the_report() {
    let fixture = "fixtures/sample-session.log";
    let rules = |args: &[&str]| {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        all.push(fixture);
        let out = run(&all);
        let doc = json_of(&out);
        let found: Vec<(String, String)> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().expect("rule").to_string(),
                    f["severity"].as_str().expect("sev").to_string(),
                )
            })
            .collect();
        (out.status.code(), found)
    };
    let (_, all) = rules(&[]);
    assert!(all.len() >= 4, "{all:?}");
    let (code, only) = rules(&["--select", "slow-response,cancelled-request"]);
    assert_eq!(code, Some(0), "only warnings left");
    assert_eq!(
        only.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
        vec!["slow-response", "cancelled-request"]
    );
    let (_, ignored) = rules(&["--ignore", "stray-output"]);
    assert_eq!(ignored.len(), all.len() - 1);
    let (code, changed) = rules(&["--severity", "unanswered-request=warning,stray-output=off"]);
    assert!(!changed.iter().any(|(r, _)| r == "stray-output"));
    assert!(changed.contains(&("unanswered-request".to_string(), "warning".to_string())));
    assert_eq!(code, Some(0));
    let out = run(&["check", "--select", "no-such-rule", fixture]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown rule `no-such-rule`"));
}

#[test]
fn documented_outputs_are_what_the_commands_print() {
    let mut checked = 0;
    let mut in_readme = 0;
    for (file, doc) in documentation() {
        for (at, _) in doc.match_indices("<!-- output: ") {
            let rest = &doc[at + "<!-- output: ".len()..];
            if !rest.starts_with('[') {
                continue; // `<!-- output: mcpdbg ... -->` blocks are checked in tests/it/views.rs
            }
            let args_end = rest
                .find("] ")
                .or_else(|| rest.find("]-->"))
                .or_else(|| rest.find("] -->"))
                .expect("args");
            let args: Vec<String> =
                serde_json::from_str(&rest[..=args_end]).expect("args are a JSON array");
            // The fenced block after the marker, whatever its language.
            let block = &rest[rest.find("```").expect("a block follows")..];
            let block = &block[block.find('\n').expect("newline") + 1..];
            let block = &block[..block.find("```").expect("block end")];
            // A `$ mcpdbg ...` first line shows the command; the rest is its output.
            let expected = match block.strip_prefix("$ ") {
                Some(shown) => &shown[shown.find('\n').expect("newline") + 1..],
                None => block,
            };
            let out = mcpdbg().args(&args).output().expect("runs");
            let printed = String::from_utf8_lossy(&out.stdout);
            let stale =
                format!("{file}: block for {args:?} is stale; the command prints:\n{printed}");
            // A block may leave parts out, each marked by a line `...`: then
            // its parts appear in the output in order, the first at its start
            // and the last at its end.
            let parts: Vec<&str> = expected.split("\n...\n").collect();
            if parts.len() == 1 {
                assert_eq!(printed, expected, "{stale}");
            } else {
                assert!(printed.starts_with(parts[0]), "{stale}");
                let mut at = parts[0].len();
                for part in &parts[1..] {
                    let found = printed[at..]
                        .find(part)
                        .unwrap_or_else(|| panic!("{stale}"));
                    at += found + part.len();
                }
                assert!(printed.ends_with(parts[parts.len() - 1]), "{stale}");
            }
            checked += 1;
            in_readme += usize::from(file == "README.md");
        }
    }
    assert!(
        checked >= 3,
        "expected the example outputs of README.md and docs/*.md to be marked; {checked} are"
    );
    assert!(
        in_readme >= 1,
        "the README's quick start shows a marked output"
    );
}

/// Words of a shell command line: quotes ('...', "...") and backslash
/// escapes as a POSIX shell reads them, no expansion; `None` for an
/// unbalanced quote.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                words.extend(word.take());
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => w.push(chars.next()?),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// Every mcpdbg command the documentation shows: in a fenced block (a shell
/// or YAML line, or a `$ mcpdbg` line before an output), or in inline code in
/// the prose (`mcpdbg timeline --around LINE FILE`), but not a synopsis with
/// `[...]`, `...` or alternatives `a|b`. Cut at the shell's `|`, `>`, `<`,
/// `&&`, `;` and `#`. `(file, line, whole, arguments after mcpdbg)`: inline
/// code may name a command without all it needs (`mcpdbg record`), which
/// `whole` says a block never does. A placeholder for a number (`LINE`,
/// `N`, `SECONDS`, `ID`, `COLUMNS`) is given one.
fn documented_commands() -> Vec<(String, usize, bool, Vec<String>)> {
    let mut out = Vec::new();
    let mut push = |file: &str, n: usize, whole: bool, text: &str| {
        let Some(at) = text.find("mcpdbg ") else {
            return;
        };
        // Only `mcpdbg` as a command, not a path or a word in a sentence.
        let before = text[..at].trim_end();
        if !(before.is_empty()
            || before.ends_with('|')
            || before.ends_with("run:")
            || before.ends_with('$')
            || before.ends_with("- run:"))
        {
            return;
        }
        let command = &text[at + "mcpdbg ".len()..];
        let end = [" | ", " > ", " < ", " && ", " ; ", " #", " 2>", " >>"]
            .iter()
            .filter_map(|op| command.find(op))
            .min()
            .unwrap_or(command.len());
        let Some(words) = shell_words(&command[..end]) else {
            return;
        };
        let words: Vec<String> = words
            .into_iter()
            .map(|w| match w.as_str() {
                "LINE" | "N" | "ID" => "7".to_string(),
                "SECONDS" => "5".to_string(),
                "COLUMNS" => "80".to_string(),
                _ => w,
            })
            .collect();
        if words
            .first()
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        {
            out.push((file.to_string(), n, whole, words));
        }
    };
    for (file, doc) in documentation() {
        let mut fence: Option<String> = None;
        for (i, line) in doc.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(info) = trimmed.strip_prefix("```") {
                fence = match fence {
                    Some(_) => None,
                    None => Some(info.trim().to_string()),
                };
                continue;
            }
            match fence.as_deref() {
                Some("sh" | "bash" | "shell" | "console" | "yaml" | "yml") => {
                    push(
                        &file,
                        i + 1,
                        true,
                        trimmed.trim_start_matches("- ").trim_start_matches("$ "),
                    );
                }
                Some(_) => {
                    if let Some(command) = trimmed.strip_prefix("$ ") {
                        push(&file, i + 1, true, command);
                    }
                }
                None => {
                    for (k, span) in line.split('`').enumerate() {
                        let synopsis = span.contains('[')
                            || span.contains("...")
                            || span.contains('…')
                            || span.contains('|');
                        if k % 2 == 1 && span.starts_with("mcpdbg ") && !synopsis {
                            push(&file, i + 1, false, span);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every command the README and docs/ show parses: the subcommand exists and
/// takes every flag and value shown (a clap usage error is a stale
/// document). Each runs in a scratch directory with no input, and is
/// stopped after a few seconds if it waits (`check --follow FILE` does).
#[test]
fn documented_commands_are_accepted() {
    let commands = documented_commands();
    assert!(
        commands.len() >= 60,
        "expected the documentation's commands to be found; {} are",
        commands.len()
    );
    assert!(commands.iter().any(|(f, _, _, _)| f == "README.md"));
    let dir = root().join("target/test-scratch/documented-commands");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let mut stale = Vec::new();
    for (file, line, whole, args) in &commands {
        let mut child = mcpdbg()
            .current_dir(&dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut stderr = child.stderr.take().expect("stderr");
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(5) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let err = reader.join().expect("stderr reader");
        let fragment = !whole && err.contains("required arguments were not provided");
        let usage = status.is_some_and(|s| s.code() == Some(2))
            && (err.starts_with("error:") || err.contains("\nUsage:"))
            && !fragment;
        if usage || err.contains("panicked") {
            stale.push(format!("{file}:{line}: mcpdbg {}\n{err}", args.join(" ")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        stale.is_empty(),
        "documented commands that mcpdbg refuses:\n{}",
        stale.join("\n")
    );
}

#[test]
fn shell_words_read_quotes() {
    assert_eq!(
        shell_words(r#"check --format json 'a b' "c \"d\"" e\ f"#).unwrap(),
        ["check", "--format", "json", "a b", "c \"d\"", "e f"]
    );
    assert_eq!(shell_words("check 'open"), None);
}

/// Lines of Markdown outside fenced code blocks, with their line numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((n + 1, line));
        }
    }
    out
}

/// The anchors GitHub gives a file's headings: lower case, punctuation
/// dropped, spaces as hyphens, `-1`, `-2`, ... on repeats.
fn heading_anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while !anchors.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
    }
    anchors
}

/// Every relative link of README.md and docs/*.md names a file that exists
/// and, with `#anchor`, a heading of that file; and the README links every
/// page of docs/.
#[test]
fn documentation_links_resolve() {
    let docs = documentation();
    let mut broken = Vec::new();
    let mut checked = 0;
    for (file, text) in &docs {
        let dir = Path::new(file).parent().expect("parent");
        for (n, line) in prose_lines(text) {
            // Inline code may hold brackets that are no link.
            let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join("``");
            for (at, _) in prose.match_indices("](") {
                let rest = &prose[at + 2..];
                let target = &rest[..rest.find(')').expect("link end")];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
                let resolved = if path.is_empty() {
                    PathBuf::from(file)
                } else {
                    dir.join(path)
                };
                let Ok(target_text) = std::fs::read_to_string(root().join(&resolved)) else {
                    if !root().join(&resolved).exists() {
                        broken.push(format!("{file}:{n}: {target}: no such file"));
                    }
                    continue;
                };
                if !anchor.is_empty() && !heading_anchors(&target_text).contains(anchor) {
                    broken.push(format!("{file}:{n}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 20, "only {checked} relative links were found");
    let readme = &docs[0].1;
    for (file, _) in &docs[1..] {
        assert!(
            readme.contains(&format!("]({file})")),
            "README.md does not link {file}"
        );
    }
}

#[test]
fn host_formats_are_detected_by_their_first_lines() {
    let host: Vec<_> = fixtures()
        .into_iter()
        .filter(|f| f.starts_with("fixtures/formats"))
        .collect();
    assert!(host.len() >= 19, "{host:?}");
    for fixture in host {
        let expected = fixture
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .expect("dir");
        let doc = json_of(&run(&[
            "check",
            "--format",
            "json",
            fixture.to_str().expect("utf-8"),
        ]));
        assert_eq!(doc["files"][0]["format"], expected, "{}", fixture.display());
    }
}

/// One hang, one verdict: the `sync` call that never returns, logged by
/// every host and capture format, is one `unanswered-request` error on the
/// same request (id, method, tool), whatever the format shows of it; a
/// host whose log has no wire ids (Claude Code) names the same call.
#[test]
fn the_same_hang_reads_the_same_in_every_format() {
    let hang_of = |path: &str, session: usize, rule: &str| -> Vec<Value> {
        let doc = json_of(&run(&["check", "--format", "json", path]));
        let hangs: Vec<&Value> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == rule && f["session"] == session)
            .collect();
        assert_eq!(hangs.len(), 1, "{path}: {hangs:?}");
        let h = hangs[0];
        vec![
            h["rule"].clone(),
            h["severity"].clone(),
            h["id"].clone(),
            h["method"].clone(),
            h["subject"].clone(),
        ]
    };
    let hang = |path: &str, session: usize| -> (Value, Value) {
        let all = hang_of(path, session, "unanswered-request");
        assert_eq!(
            (&all[0], &all[1]),
            (&"unanswered-request".into(), &"error".into()),
            "{path}"
        );
        // Claude Desktop's summary era logs no params: no tool to name.
        if !path.ends_with("summary-era.log") {
            assert_eq!(all[4], "sync", "{path}");
        }
        (all[2].clone(), all[3].clone())
    };
    // Formats without the wire's ids, or with their own: the same verdict
    // on the same call.
    for path in [
        "fixtures/formats/claude-code/hang.log",
        "fixtures/formats/gh-aw/hang.log",
        "fixtures/formats/jetbrains/hang.log",
    ] {
        hang(path, 0);
    }
    // A call the host gave up on by its timeout (Claude Code's -32001)
    // reads as the native capture of a timeout's cancel: one
    // `cancelled-request` warning, and the rest of that log's hangs aside.
    let native = hang_of(
        "fixtures/rules/cancelled-request.log",
        0,
        "cancelled-request",
    );
    let claude_code = hang_of(
        "fixtures/formats/claude-code/host-words.log",
        0,
        "cancelled-request",
    );
    assert_eq!(native[..2], claude_code[..2]);
    assert_eq!(native[1], "warning");
    let expected = (Value::from(2), Value::from("tools/call"));
    assert_eq!(hang("fixtures/rules/unanswered-request.log", 0), expected);
    assert_eq!(hang("fixtures/formats/claude-server/hang.log", 0), expected);
    assert_eq!(
        hang("fixtures/formats/claude-server/summary-era.log", 0),
        expected
    );
    assert_eq!(hang("fixtures/formats/vscode/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/zed/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/zed-rpc/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/socat/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/strace/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/mcpsnoop/hang.log", 0), expected);
    assert_eq!(hang("fixtures/formats/inspector/hang.log", 0), expected);
    // The aggregate log: the `notes` server is the second session.
    assert_eq!(
        hang("fixtures/formats/claude-aggregate/two-servers.log", 1),
        expected
    );
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "fixtures/formats/claude-aggregate/two-servers.log",
    ]));
    let names: Vec<&str> = doc["files"][0]["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, vec!["github", "notes"]);
}

#[test]
fn host_logs_show_stray_stdout_through_the_host() {
    for path in [
        "fixtures/formats/claude-server/stray-stdout.log",
        "fixtures/formats/vscode/stray-stdout.log",
        "fixtures/formats/socat/stray-stdout.log",
        "fixtures/formats/strace/stray-stdout.log",
        "fixtures/formats/mcpsnoop/stray-stdout.log",
        "fixtures/formats/claude-aggregate/stray-stdout.log",
    ] {
        let fired = rules_fired(path);
        assert!(
            fired.contains(&"stray-output".to_string()),
            "{path}: {fired:?}"
        );
    }
    // Claude's cut payloads and summaries are notes, not server bugs.
    for path in [
        "fixtures/formats/claude-server/truncated-payload.log",
        "fixtures/formats/claude-server/clean.log",
        "fixtures/formats/vscode/clean.log",
        "fixtures/formats/zed/clean.log",
        "fixtures/formats/zed-rpc/clean.log",
        "fixtures/formats/socat/clean.log",
        "fixtures/formats/strace/clean.log",
        "fixtures/formats/mcpsnoop/clean.log",
        "fixtures/formats/inspector/clean.log",
        "fixtures/formats/claude-aggregate/clean.log",
    ] {
        let fired = rules_fired(path);
        assert_eq!(fired, vec!["format-assumption".to_string()], "{path}");
    }
}

/// A Claude Desktop server log whose first screens are the server's
/// stderr (Python warnings, a traceback, a rich banner, a pretty-printed
/// object) is still read as Claude's: each parse error the host reports
/// is one `stray-output` at its line, and the request open when the server
/// died is a hang that says so. Stray text inside a socat chunk is reported
/// at its own line.
#[test]
fn host_logs_under_much_stderr_keep_their_verdicts() {
    let found = |path: &str| -> Vec<String> {
        let doc = json_of(&run(&["check", "--format", "json", path]));
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| format!("{}@{}", f["rule"].as_str().unwrap(), f["line"]))
            .collect()
    };
    let path = "fixtures/formats/claude-server/stderr-first-screens.log";
    let doc = json_of(&run(&["check", "--format", "json", path]));
    assert_eq!(doc["files"][0]["format"], "claude-server");
    assert_eq!(
        doc["files"][0]["sessions"][0]["protocol_version"],
        "2025-06-18"
    );
    assert_eq!(
        found(path),
        [
            "format-assumption@54",
            "stray-output@55",
            "unanswered-request@68",
            "stray-output@69",
            "stray-output@70"
        ]
    );
    let hang = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "unanswered-request")
        .expect("the hang");
    assert!(
        hang["message"]
            .as_str()
            .unwrap()
            .contains("likely: the server died with the request open"),
        "{hang}"
    );
    assert_eq!(
        found("fixtures/formats/socat/stray-inside-chunk.log"),
        ["format-assumption@1", "stray-output@4", "stray-output@12"]
    );
}

#[test]
fn forcing_the_wrong_format_says_so() {
    for (input, path) in [
        ("vscode", "fixtures/formats/claude-server/hang.log"),
        ("claude-server", "fixtures/formats/vscode/hang.log"),
        ("claude-aggregate", "fixtures/sample-session.log"),
    ] {
        let out = run(&["check", "--format", "json", "--input", input, path]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{input} on {path}"
        );
        let doc = json_of(&out);
        let message = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["rule"] == "format-assumption")
            .map(|f| f["message"].as_str().expect("message").to_string())
            .unwrap_or_default();
        assert!(
            message.contains(&format!("--input {input}")),
            "{input} on {path}: {doc:#}"
        );
    }
}

#[test]
fn compressed_logs_are_read_transparently() {
    let plain = rules_fired("fixtures/rules/unanswered-request.log");
    for path in [
        "fixtures/compressed/unanswered-request.log.gz",
        "fixtures/compressed/unanswered-request.log.zst",
    ] {
        assert_eq!(rules_fired(path), plain, "{path}");
    }
    // A gzip file cut in the middle: what was decoded is analysed, and said.
    let fired = rules_fired("fixtures/rules/corrupt-compressed-input.log");
    assert!(
        fired.contains(&"corrupt-compressed-input".to_string()),
        "{fired:?}"
    );
    assert!(
        fired.contains(&"stray-output".to_string()),
        "the decoded part was analysed: {fired:?}"
    );
}

/// A session of `n` answered tools/list requests, ids from `from`, as lines.
fn answered_session(from: u32, n: u32) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n< {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"tools\":[]}}}}\n"
            )
        })
        .collect()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

fn check_json(input: &[u8]) -> Value {
    json_of(&run_stdin(&["check", "--format", "json", "-"], input))
}

fn rules_of(doc: &Value) -> Vec<String> {
    doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn zstd_is_read_to_its_last_frame_and_pzstd_output_is_recognised() {
    // Two frames, the second holding an unanswered request; then the same
    // behind a skippable frame first, as pzstd writes.
    let mut input = zstd(answered_session(0, 1000).as_bytes());
    input.extend(zstd(
        b"> {\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"tools/list\"}\n",
    ));
    let mut pzstd = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
    pzstd.extend_from_slice(&input);
    for input in [input, pzstd] {
        let doc = check_json(&input);
        let rules = rules_of(&doc);
        assert!(
            rules.contains(&"unanswered-request".to_string()),
            "{rules:?}"
        );
        assert!(
            !rules.contains(&"corrupt-compressed-input".to_string()),
            "{rules:?}"
        );
        assert_eq!(doc["files"][0]["format"], "native");
    }
}

#[test]
fn a_cut_zstd_file_is_analysed_up_to_its_cut() {
    let plain = answered_session(0, 40_000);
    let mut input = zstd(plain.as_bytes());
    let cut = input.len() * 3 / 4;
    input.truncate(cut);
    let doc = check_json(&input);
    let findings = doc["files"][0]["findings"].as_array().unwrap();
    let corrupt = findings
        .iter()
        .find(|f| f["rule"] == "corrupt-compressed-input")
        .expect("the cut is reported");
    // The lines read reach into the last quarter of the file (the window
    // the decoder kept is not lost), and the message says how many.
    let lines = corrupt["line"].as_u64().unwrap();
    assert!(lines > 80_000 * 2 / 3, "{lines} of 80,000 lines read");
    assert!(
        corrupt["message"]
            .as_str()
            .unwrap()
            .contains(&format!("the first {lines} lines were analysed")),
        "{corrupt}"
    );
    // A small cut file: its lines are read, not "the first 0".
    let mut small = zstd(answered_session(0, 50).as_bytes());
    small.truncate(small.len() - 3);
    let doc = check_json(&small);
    let findings = doc["files"][0]["findings"].as_array().unwrap();
    let corrupt = findings
        .iter()
        .find(|f| f["rule"] == "corrupt-compressed-input")
        .expect("the cut is reported");
    assert!(corrupt["line"].as_u64().unwrap() > 50, "{corrupt}");
}

/// The messages of the `unanswered-request` findings `check` gives on `path`.
fn unanswered_messages(path: &str) -> Vec<String> {
    let doc = json_of(&run(&["check", "--format", "json", path]));
    let findings = doc["files"][0]["findings"].as_array().unwrap();
    findings
        .iter()
        .filter(|f| f["rule"] == "unanswered-request")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

/// The message of the one `unanswered-request` that `check` finds in `path`.
fn unanswered_message(path: &str) -> String {
    let hangs = unanswered_messages(path);
    assert_eq!(hangs.len(), 1, "{hangs:?}");
    hangs[0].clone()
}

#[test]
fn a_request_open_where_the_log_is_cut_is_blamed_on_the_cut() {
    // The fixture's last line (7) is the start of the answer to the
    // tools/call at line 6, cut without a newline: no stray text.
    let hang = unanswered_message("fixtures/rules/truncated-line.log");
    assert!(
        hang.contains("likely: the log ends in the middle of a server message at line 7")
            && hang.contains("the answer may be that message"),
        "{hang}"
    );
    assert!(!hang.contains("choked on"), "{hang}");
    // The compressed fixture stops decoding after the tools/call (id 7),
    // its progress and a log message cut short: the answer is not there.
    let hang = unanswered_message("fixtures/rules/corrupt-compressed-input.log");
    assert!(
        hang.contains(
            "likely: the log is cut short: the compressed input could not be decoded past line"
        ) && hang.contains("the answer may be in what is missing"),
        "{hang}"
    );
    assert!(!hang.contains("choked on"), "{hang}");
    // Its last line (23) is the client's tools/call cut short: the server's
    // answers to the open requests cannot be that message.
    let hangs = unanswered_messages("fixtures/redact/hostile.log");
    assert!(!hangs.is_empty());
    for hang in hangs {
        assert!(
            hang.contains("likely: the log ends in the middle of a client message at line 23")
                && hang.contains("the answer may be in what is missing"),
            "{hang}"
        );
    }
    // Stray text that is not where the log stops is still blamed.
    let hang = unanswered_message("fixtures/rules/invalid-json.log");
    assert!(
        hang.contains("which the reader may have choked on"),
        "{hang}"
    );
}

/// A log cut short inside an escape, its last byte a backslash (what a
/// fuzzer found: the escape scan stepped past the end of the line and
/// panicked): the cut message is a finding like any other, and the
/// request it held is not taken for one.
#[test]
fn a_log_cut_inside_an_escape_is_a_finding_not_a_panic() {
    // Without a newline, a line cut short (a warning: exit 0); with one, a
    // line of JSON that never completes (an error: exit 1).
    for (end, cut, status) in [("", "truncated-line", 0), ("\n", "invalid-json", 1)] {
        let log = format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"a\\{end}"
        );
        let out = run_stdin(&["check", "--format", "json", "-"], log.as_bytes());
        assert_eq!(out.status.code(), Some(status), "{out:?}");
        assert_eq!(rules_of(&json_of(&out)), vec![cut], "{end:?}");
    }
}

#[test]
fn a_zstd_window_over_the_limit_is_refused_with_a_finding() {
    // A frame asking for a 1 GiB window (`zstd --long=30` from a pipe), and
    // one whose single segment claims 2^40 bytes: each a finding, no panic.
    let long = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa0, 1, 0, 0].to_vec();
    let mut crafted = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    crafted.extend((1u64 << 40).to_le_bytes());
    crafted.extend([1, 0, 0]);
    for (input, window) in [(long, "1024 MiB"), (crafted, "1048576 MiB")] {
        let out = run_stdin(&["check", "--format", "json", "-"], &input);
        // A warning: exit 0, not a panic's 101.
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let doc = json_of(&out);
        let findings = doc["files"][0]["findings"].as_array().unwrap();
        let message = findings
            .iter()
            .find(|f| f["rule"] == "corrupt-compressed-input")
            .and_then(|f| f["message"].as_str())
            .expect("a finding");
        assert!(
            message.contains(&format!("needs a window of {window}"))
                && message.contains("limit of 128 MiB"),
            "{message}"
        );
    }
}

#[test]
fn a_gzip_bomb_line_is_cut_at_the_line_limit_and_reading_goes_on() {
    use std::io::Write;
    // One line of 40 MB of zeros in a 40 KB gzip file, then a request, read
    // under a line limit of 4 MiB: the line is cut, the request is analysed.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"< ").unwrap();
    let zeros = vec![b'0'; 1 << 20];
    for _ in 0..40 {
        gz.write_all(&zeros).unwrap();
    }
    gz.write_all(b"\n> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n")
        .unwrap();
    let bomb = gz.finish().unwrap();
    let out = crate::common::mcpdbg()
        .env("MCPDBG_MAX_LINE", "4M")
        .args(["check", "--format", "json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(&bomb)?;
            child.wait_with_output()
        })
        .expect("binary runs");
    let doc = json_of(&out);
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let cut: Vec<_> = findings
        .iter()
        .filter(|f| f["rule"] == "line-too-long")
        .collect();
    assert_eq!(cut.len(), 1, "{findings:?}");
    assert_eq!(cut[0]["line"], 1);
    let message = cut[0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{} bytes", 2 + (40 << 20))) && message.contains("4 MiB"),
        "{message}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["rule"] == "unanswered-request" && f["line"] == 2),
        "the line after the cut one is read: {findings:?}"
    );
}

/// The findings of `check --format json` on `log` given on stdin.
fn findings_of_stdin(args: &[&str], log: &[u8]) -> Vec<Value> {
    let mut all = vec!["check", "--format", "json"];
    all.extend(args);
    all.push("-");
    let doc = json_of(&run_stdin(&all, log));
    doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .clone()
}

#[test]
fn message_over_client_limit_fires_on_a_generated_line() {
    use std::io::Write;
    let limit = 10 << 20;
    let handshake = "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    // A tool result whose line is `size` bytes.
    let result = |id: u32, size: usize| {
        let head = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\""
        );
        let tail = "\"}]}}";
        let mut line = head.into_bytes();
        line.resize(size - tail.len(), b'x');
        line.extend_from_slice(tail.as_bytes());
        line
    };
    let call = |id: u32| {
        format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"dump\",\"arguments\":{{}}}}}}\n"
        )
    };
    let mut log = handshake.as_bytes().to_vec();
    for (id, size) in [(1, limit), (2, limit + 1)] {
        log.extend_from_slice(call(id).as_bytes());
        log.extend_from_slice(b"< ");
        log.extend_from_slice(&result(id, size));
        log.push(b'\n');
    }
    let findings = findings_of_stdin(&[], &log);
    let over: Vec<_> = findings
        .iter()
        .filter(|f| f["rule"] == "message-over-client-limit")
        .collect();
    // Exactly at the limit is accepted; one byte more is not.
    assert_eq!(over.len(), 1, "{findings:?}");
    assert_eq!(over[0]["line"], 7);
    assert_eq!(over[0]["severity"], "warning");
    let message = over[0]["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("{} bytes", limit + 1))
            && message.contains("maxBufferSize")
            && message.contains("TypeScript SDK v2"),
        "{message}"
    );
    // The message itself is read as usual: the call is answered.
    assert!(
        findings.iter().all(|f| f["rule"] != "unanswered-request"),
        "{findings:?}"
    );
    // A line cut at the line limit is `line-too-long` only.
    let out = crate::common::mcpdbg()
        .env("MCPDBG_MAX_LINE", "4M")
        .args(["check", "--format", "json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(&log)?;
            child.wait_with_output()
        })
        .expect("binary runs");
    let doc = json_of(&out);
    let rules: Vec<&str> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert_eq!(
        rules.iter().filter(|r| **r == "line-too-long").count(),
        2,
        "{rules:?}"
    );
    assert!(!rules.contains(&"message-over-client-limit"), "{rules:?}");
}

#[test]
fn deprecated_feature_judges_a_session_by_its_revision_or_the_target() {
    let legacy = "fixtures/rules/deprecated-feature.log";
    let log = std::fs::read(root().join(legacy)).expect("fixture");
    let deprecated = |findings: &[Value]| -> Vec<(u64, String)> {
        findings
            .iter()
            .filter(|f| f["rule"] == "deprecated-feature")
            .map(|f| {
                (
                    f["line"].as_u64().expect("line"),
                    f["message"].as_str().expect("message").to_string(),
                )
            })
            .collect()
    };
    // A 2025-06-18 session: nothing it uses is deprecated in 2025-06-18.
    assert_eq!(deprecated(&findings_of_stdin(&[], &log)), vec![]);
    // Moved to 2026-07-28: the handshake's capabilities, each deprecated
    // method, and the includeContext value beside sampling on line 10.
    let moved = deprecated(&findings_of_stdin(
        &["--target-revision", "2026-07-28"],
        &log,
    ));
    let lines: Vec<u64> = moved.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![3, 5, 7, 8, 10, 10, 12], "{moved:?}");
    for (line, message) in &moved {
        assert!(message.contains("the target revision"), "{line}: {message}");
        assert!(message.contains("2027-07-28"), "{line}: {message}");
    }
    assert!(moved[0].1.contains("client `roots`") && moved[0].1.contains("server `logging`"));
    assert!(
        moved[5]
            .1
            .contains("deprecated in 2025-11-25, the target revision")
    );
    // Moved to 2025-11-25: only the includeContext value.
    let lines: Vec<u64> = deprecated(&findings_of_stdin(
        &["--target-revision", "2025-11-25"],
        &log,
    ))
    .iter()
    .map(|(l, _)| *l)
    .collect();
    assert_eq!(lines, vec![10]);
    // A 2026-07-28 session: its own revision deprecates; what another rule
    // refuses there (`logging/setLevel`, a server's plain sampling request)
    // is not reported again, nor the `sampling` capability its requests
    // declare for `input_required`.
    let modern =
        std::fs::read(root().join("fixtures/modern/deprecated-feature.log")).expect("fixture");
    let findings = findings_of_stdin(&[], &modern);
    let own = deprecated(&findings);
    let lines: Vec<u64> = own.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![3, 7, 8], "{own:?}");
    assert!(own.iter().all(|(_, m)| !m.contains("target")));
    assert!(own[1].1.contains("io.modelcontextprotocol/logLevel"));
    assert!(own[2].1.contains("allServers"));
    for (rule, line) in [("method-not-in-revision", 4), ("server-sent-request", 11)] {
        assert!(
            findings
                .iter()
                .any(|f| f["rule"] == rule && f["line"] == line),
            "{rule} at {line}: {findings:?}"
        );
    }
}

#[test]
fn open_request_limit_fires_on_a_generated_log() {
    // 20,005 requests that are never answered, then an answer to one past
    // the limit (accepted unchecked, not an orphan).
    let mut log = String::from(
        "# start\n> {\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n\
         < {\"jsonrpc\":\"2.0\",\"id\":\"i\",\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\
         > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    );
    for i in 0..20_005 {
        log.push_str(&format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n"
        ));
    }
    log.push_str("< {\"jsonrpc\":\"2.0\",\"id\":20004,\"result\":{\"tools\":[]}}\n");
    let out = run_stdin(&["check", "--format", "json", "-"], log.as_bytes());
    let doc = json_of(&out);
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let count = |rule: &str| findings.iter().filter(|f| f["rule"] == rule).count();
    assert_eq!(count("open-request-limit"), 1);
    assert_eq!(
        count("orphan-response"),
        0,
        "an answer past the limit is accepted"
    );
    // Hangs are listed up to the per-rule limit and counted beyond it.
    assert_eq!(count("unanswered-request"), 200);
    let note = findings
        .iter()
        .find(|f| f["rule"] == "too-many-findings")
        .expect("a count of the rest");
    assert!(
        note["message"]
            .as_str()
            .expect("message")
            .contains("unanswered-request fired 20000 times"),
        "{note}"
    );
    assert_eq!(doc["files"][0]["sessions"][0]["pending_total"], 20_000);
    assert_eq!(
        doc["files"][0]["sessions"][0]["pending"]
            .as_array()
            .map(Vec::len),
        Some(1000)
    );
}

#[test]
fn several_files_in_parallel_report_as_one_by_one() {
    let files: Vec<String> = fixtures()
        .iter()
        .filter(|f| f.starts_with("fixtures/formats") || f.starts_with("fixtures/rules"))
        .map(|f| f.to_str().expect("utf-8").to_string())
        .collect();
    let with = |jobs: &str| {
        let mut args = vec!["check", "--format", "json", "--jobs", jobs];
        args.extend(files.iter().map(String::as_str));
        let out = run(&args);
        (out.status.code(), out.stdout)
    };
    let one = with("1");
    assert_eq!(one, with("2"));
    assert_eq!(one, with("8"));
    // And a file that cannot be opened is reported in its place.
    let out = run(&[
        "check",
        "--jobs",
        "2",
        "fixtures/sample-session.log",
        "fixtures/missing.log",
        "fixtures/rules/bom.log",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open fixtures/missing.log"));
}

#[test]
fn a_three_file_tee_capture_is_paired_by_ids() {
    let out = run(&[
        "check",
        "--format",
        "json",
        "--client",
        "fixtures/tee/hang.client.log",
        "--server",
        "fixtures/tee/hang.server.log",
        "--stderr",
        "fixtures/tee/hang.stderr.log",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let file = &doc["files"][0];
    assert_eq!(file["format"], "tee");
    let findings = file["findings"].as_array().expect("findings");
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect();
    // The same hang as in every other format; nothing else (the server's
    // roots/list and the client's answer are in different files).
    assert_eq!(rules, vec!["format-assumption", "unanswered-request"]);
    let hang = &findings[1];
    assert_eq!(
        (hang["id"].clone(), hang["method"].clone()),
        (Value::from(2), Value::from("tools/call"))
    );
    assert_eq!(hang["file"], "fixtures/tee/hang.client.log");
    assert_eq!(hang["line"], 5);
    // A clean pair is silent but for the note; a server that prints a
    // banner to stdout is caught in its own file, with nothing invented.
    let tee_rules = |server: &str| -> Vec<String> {
        let doc = json_of(&run(&[
            "check",
            "--format",
            "json",
            "--client",
            "fixtures/tee/clean.client.log",
            "--server",
            server,
        ]));
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                format!(
                    "{}@{}",
                    f["rule"].as_str().expect("rule"),
                    f["file"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        tee_rules("fixtures/tee/clean.server.log"),
        vec!["format-assumption@"]
    );
    assert_eq!(
        tee_rules("fixtures/tee/stray.server.log"),
        vec![
            "stray-output@fixtures/tee/stray.server.log",
            "format-assumption@"
        ]
    );
    // --client needs --server, and they replace FILE arguments.
    let out = run(&["check", "--client", "fixtures/tee/hang.client.log"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&[
        "check",
        "--client",
        "a",
        "--server",
        "b",
        "fixtures/sample-session.log",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The string values of a message that `--redact` must hide: all but the
/// protocol's vocabulary, ids, the client's and server's names, and strings
/// too short to carry anything.
fn hidden_strings(v: &Value, key: Option<&str>, parent: Option<&str>, out: &mut Vec<String>) {
    const KEEP: [&str; 17] = [
        "jsonrpc",
        "method",
        "protocolVersion",
        "io.modelcontextprotocol/protocolVersion",
        "type",
        "role",
        "level",
        "stopReason",
        "action",
        "status",
        "resultType",
        "mode",
        "mimeType",
        "format",
        "id",
        "requestId",
        "progressToken",
    ];
    match v {
        Value::String(s) => {
            let implementation = matches!(parent, Some("clientInfo" | "serverInfo"))
                && matches!(key, Some("name" | "version" | "title"));
            if !implementation && !key.is_some_and(|k| KEEP.contains(&k)) && s.chars().count() >= 4
            {
                out.push(s.clone());
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|i| hidden_strings(i, key, parent, out)),
        Value::Object(fields) => {
            for (k, v) in fields {
                hidden_strings(v, Some(k), key, out);
            }
        }
        _ => {}
    }
}

/// What a report says in words: every finding's message.
fn messages(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["findings"].as_array().expect("findings").iter())
        .map(|f| f["message"].as_str().expect("message").to_string())
        .collect()
}

#[test]
fn redact_leaves_no_string_of_the_log_but_the_allowed_ones() {
    let path = "fixtures/redact/secrets.log";
    let text = std::fs::read_to_string(path).expect("fixture");
    let mut hidden = Vec::new();
    for line in text.lines() {
        let rest = line.split_once(' ').expect("timestamp").1;
        let (marker, body) = rest.split_once(' ').expect("marker");
        match (marker, serde_json::from_str::<Value>(body)) {
            (">" | "<", Ok(v)) => hidden_strings(&v, None, None, &mut hidden),
            ("!", _) => hidden.push(body.trim().to_string()),
            _ => {}
        }
    }
    // Secret shapes in text no message carries (stray stdout, events).
    hidden.extend(
        [
            "ghp_R2d2C3poExampleToken0123456789",
            "AIzaSyExample0123456789abcdefXYZ",
            "ops-desk@example.org",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJl",
        ]
        .map(String::from),
    );
    let plain = run(&["check", "--format", "json", path]);
    let redacted = run(&["check", "--format", "json", "--redact", path]);
    assert_eq!(plain.status.code(), redacted.status.code());
    let (plain, redacted) = (json_of(&plain), json_of(&redacted));
    // The plain report does quote the log (else this test shows nothing).
    let quoted = |doc: &Value| -> Vec<String> {
        let text = messages(doc).join("\n");
        hidden
            .iter()
            .filter(|s| text.contains(s.as_str()))
            .cloned()
            .collect()
    };
    assert!(quoted(&plain).len() >= 3, "{:?}", quoted(&plain));
    assert_eq!(quoted(&redacted), Vec::<String>::new());
    // The same findings, at the same lines, with methods, ids and names kept.
    let shape = |doc: &Value| -> Vec<(Value, Value, Value, Value)> {
        doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["rule"].clone(),
                    f["line"].clone(),
                    f["id"].clone(),
                    f["method"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(shape(&plain), shape(&redacted));
    assert_eq!(
        plain["files"][0]["sessions"],
        redacted["files"][0]["sessions"]
    );
    let all = messages(&redacted);
    let hang = all
        .iter()
        .find(|m| m.contains("was never answered"))
        .expect("the hang is reported");
    assert!(
        hang.contains("`tools/call` \"[redacted ") && hang.contains("(id 4)"),
        "{hang}"
    );
    // The table says the same.
    let table = run(&["check", "--redact", "--color", "never", path]);
    let table = String::from_utf8(table.stdout).expect("utf-8");
    for s in &hidden {
        assert!(!table.contains(s.as_str()), "{s} in\n{table}");
    }
    assert!(table.contains("[redacted "), "{table}");
    // And so does every view: the timeline in each format, and the stats.
    let html = std::env::temp_dir().join(format!("mcpdbg-redact-{}.html", std::process::id()));
    let html_arg = html.display().to_string();
    for args in [
        vec!["timeline", "--redact", "--full", path],
        vec!["timeline", "--redact", "--format", "mermaid", path],
        vec![
            "timeline", "--redact", "--format", "html", "--out", &html_arg, path,
        ],
        vec!["stats", "--redact", path],
        vec!["stats", "--redact", "--format", "json", path],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let mut text = String::from_utf8(out.stdout).expect("utf-8");
        if args.contains(&"html") {
            text = std::fs::read_to_string(&html).expect("html written");
            std::fs::remove_file(&html).expect("remove html");
        }
        for s in &hidden {
            assert!(!text.contains(s.as_str()), "{args:?}: {s} in\n{text}");
        }
        // The plain view does show the log.
        let plain: Vec<&str> = args.iter().copied().filter(|a| *a != "--redact").collect();
        let out = run(&plain);
        let text = if args.contains(&"html") {
            let text = std::fs::read_to_string(&html).expect("html written");
            std::fs::remove_file(&html).expect("remove html");
            text
        } else {
            String::from_utf8(out.stdout).expect("utf-8")
        };
        assert!(
            text.contains("lookup_invoice"),
            "{plain:?} shows the tool's name"
        );
    }
}

/// Whether `text` quotes `s`: anywhere, or for a string under 8 bytes
/// (which `--redact` replaces only as a whole word: the tool result `fine`
/// leaves `defined` alone) as a word not glued to letters or digits.
fn quotes(text: &str, s: &str) -> bool {
    if s.len() >= 8 {
        return text.contains(s);
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(s).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + s.len()..].chars().next();
        let first = s.chars().next();
        let last = s.chars().next_back();
        let glued_before = before.is_some_and(word) && first.is_some_and(word);
        let glued_after = after.is_some_and(word) && last.is_some_and(word);
        !glued_before && !glued_after
    })
}

#[test]
fn redact_hides_message_strings_in_every_fixture() {
    // Whatever a rule quotes, in any format: no string a message carries
    // survives `--redact`.
    let mut leaks = Vec::new();
    let mut quoted_plain = 0;
    for path in fixtures() {
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        let mut hidden = Vec::new();
        for line in text.lines() {
            // A message anywhere in the line (host logs wrap them in prose).
            let Some(start) = line.find('{') else {
                continue;
            };
            let mut stream =
                serde_json::Deserializer::from_str(&line[start..]).into_iter::<Value>();
            match stream.next() {
                // A capture tool's envelope (mcpsnoop): the message inside.
                Some(Ok(v)) if v.get("jsonrpc").is_none() => {
                    if let Some(raw) = v.get("raw").filter(|r| r.get("jsonrpc").is_some()) {
                        hidden_strings(raw, None, None, &mut hidden);
                    }
                }
                Some(Ok(v)) => hidden_strings(&v, None, None, &mut hidden),
                _ => {}
            }
        }
        let path = path.display().to_string();
        let out = run(&["check", "--format", "json", "--redact", &path]);
        if !matches!(out.status.code(), Some(0 | 1)) {
            continue;
        }
        let said = messages(&json_of(&out)).join("\n");
        let plain = messages(&json_of(&run(&["check", "--format", "json", &path]))).join("\n");
        quoted_plain += hidden.iter().filter(|s| quotes(&plain, s)).count();
        leaks.extend(
            hidden
                .iter()
                .filter(|s| quotes(&said, s))
                .map(|s| format!("{path}: {s:?}")),
        );
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    // Without --redact the same sweep finds the log quoted.
    assert!(quoted_plain >= 20, "only {quoted_plain} quoted strings");
}

/// `fixtures/long-tool-results.log`: tool results whose texts the parser
/// skims (2 KB and more of escaped text each): a traceback past the first
/// kilobytes of an error result (line 5), a block with a long text and no
/// `type` (line 7), a long image `data` without `mimeType` (line 9) and a
/// clean long text (line 11).
#[test]
fn long_tool_results_are_judged_whole() {
    let path = "fixtures/long-tool-results.log";
    let doc = json_of(&run(&["check", "--format", "json", path]));
    let findings: Vec<(String, u64, String)> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let at = |rule: &str, line: u64| {
        findings
            .iter()
            .find(|(r, l, _)| r == rule && *l == line)
            .map(|(_, _, m)| m.clone())
            .unwrap_or_else(|| panic!("no {rule} at line {line} in {findings:?}"))
    };
    assert!(at("leaked-internals", 5).contains("Python traceback"));
    assert!(at("invalid-result", 7).contains("`result.content[0].type` is missing"));
    assert!(at("invalid-result", 9).contains("`result.content[0].mimeType` is missing"));
    assert_eq!(findings.len(), 3, "{findings:?}");
    // The text of the last result reaches the views whole.
    let out = run(&["timeline", "--full", path]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("KeyError"),
        "traceback tail"
    );
}

// ------------------------------------------------------------ architecture

/// The crate's modules, one per file of `src/` (`reader::claude`,
/// `wire::skim::fast`; a folder's `mod.rs` is the folder's module), and the
/// modules each names outside comments and unit tests: through `crate::`,
/// `super::` and `self::` paths (a path names the deepest module it
/// reaches), and a parent through its children's names (`features::State`).
/// The Rust files under `dir`, at any depth.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a source folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files
}

/// The paths a `use` tree (or a plain path) at the start of `text` names,
/// groups expanded at any depth: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`,
/// `a::c::e`.
fn use_paths(text: &str) -> Vec<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let stem_len = text.find(|c: char| !ident(c)).unwrap_or(text.len());
    let (stem, rest) = text.split_at(stem_len);
    let Some(group) = rest.strip_prefix('{') else {
        return vec![stem.to_owned()];
    };
    // The group up to its matching brace, split at its own commas.
    let (mut depth, mut start, mut paths) = (0, 0, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                paths.extend(
                    use_paths(group[start..i].trim())
                        .into_iter()
                        .map(|p| format!("{stem}{p}")),
                );
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                paths.extend(
                    use_paths(group[start..i].trim())
                        .into_iter()
                        .map(|p| format!("{stem}{p}")),
                );
                start = i + 1;
            }
            _ => {}
        }
    }
    paths
}

fn module_graph() -> Graph {
    let src = root().join("src");
    let files = rust_files(&src);
    // Module path (as segments) -> its file's code.
    let mut modules: std::collections::BTreeMap<Vec<String>, String> =
        std::collections::BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let mut path: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if path.last().is_some_and(|l| l == "mod") {
            path.pop();
        }
        if path == ["main"] || path == ["lib"] {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source");
        // The code before the tests module (`mod tests` or `pub(crate) mod
        // tests`, whose `super::` is the file itself).
        let code = text
            .match_indices("#[cfg(test)]\n")
            .find(|(at, m)| {
                let next = text[at + m.len()..].lines().next().unwrap_or("");
                next.trim_start_matches("pub(crate) ")
                    .starts_with("mod tests")
            })
            .map_or(text.as_str(), |(at, _)| &text[..at]);
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        modules.insert(path, code);
    }
    let resolve = |segments: &[String]| -> Option<String> {
        (1..=segments.len())
            .rev()
            .find(|n| modules.contains_key(&segments[..*n]))
            .map(|n| segments[..n].join("::"))
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut graph = std::collections::BTreeMap::new();
    for (module, code) in &modules {
        let name = module.join("::");
        let mut edges = std::collections::BTreeSet::new();
        for (prefix, base) in [
            ("crate::", Vec::new()),
            ("super::", module[..module.len() - 1].to_vec()),
            ("self::", module.clone()),
        ] {
            let mut rest = code.as_str();
            while let Some(pos) = rest.find(prefix) {
                let before = rest[..pos].chars().next_back();
                rest = &rest[pos + prefix.len()..];
                if before.is_some_and(|c| ident(c) || c == ':') {
                    continue;
                }
                // `use crate::{a, b::{c, d}}` names several paths.
                let paths = use_paths(rest);
                for path in &paths {
                    let mut segments = base.clone();
                    segments.extend(
                        path.trim()
                            .split("::")
                            .map(|s| s.split(|c: char| !ident(c)).next().unwrap_or(""))
                            .take_while(|s| !s.is_empty())
                            .map(str::to_owned),
                    );
                    if let Some(to) = resolve(&segments) {
                        if to != name {
                            edges.insert(to);
                        }
                    }
                }
            }
        }
        // A parent naming a child (`features::State`).
        for child in modules.keys() {
            if child.len() == module.len() + 1 && child[..module.len()] == module[..] {
                let word = format!("{}::", child[module.len()]);
                let named = code.match_indices(&word).any(|(at, _)| {
                    !code[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| ident(c) || c == ':')
                });
                if named {
                    edges.insert(child.join("::"));
                }
            }
        }
        graph.insert(name, edges);
    }
    graph
}

#[test]
fn modules_have_no_import_cycles() {
    let graph = module_graph();
    assert!(
        graph.len() >= 80 && graph.values().filter(|e| !e.is_empty()).count() >= 60,
        "the module graph was not read: {graph:?}"
    );
    // The graph sees what it must: a file's parent, a sibling, a leaf.
    for (from, to) in [
        ("reader::claude", "reader::record"),
        ("reader::envelope", "reader::claude"),
        ("wire::skim::fast", "wire::skim::keep"),
        ("wire::skim", "wire::lex"),
        ("session", "rules::tools"),
        ("rules::tools", "facts"),
    ] {
        assert!(
            graph[from].contains(to),
            "{from} -> {to} not seen: {:?}",
            graph[from]
        );
    }
    let cycles = cycles_of(&graph);
    assert!(
        cycles.is_empty(),
        "import cycles between modules: {cycles:?}"
    );
    // And between the top-level modules, the layers of the pipeline
    // (docs/development.md): a file of one naming a file of another is an
    // edge between the two.
    let mut top = Graph::new();
    for (from, to) in &graph {
        let layer = |m: &str| m.split("::").next().unwrap_or(m).to_owned();
        let edges = top.entry(layer(from)).or_default();
        edges.extend(to.iter().map(|t| layer(t)).filter(|t| *t != layer(from)));
    }
    for (from, to) in [
        ("session", "rules"),
        ("rules", "facts"),
        ("session", "facts"),
        ("transport", "rules"),
        ("views", "pipeline"),
    ] {
        assert!(top[from].contains(to), "{from} -> {to} not seen: {top:?}");
    }
    let cycles = cycles_of(&top);
    assert!(
        cycles.is_empty(),
        "import cycles between top-level modules: {cycles:?}"
    );
}

type Graph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// The cycles a depth-first search meets: a module met again while still
/// on the path closes one.
fn cycles_of(graph: &Graph) -> Vec<String> {
    fn visit<'a>(
        m: &'a str,
        graph: &'a Graph,
        path: &mut Vec<&'a str>,
        done: &mut std::collections::BTreeSet<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == m) {
            cycles.push(format!("{} -> {m}", path[at..].join(" -> ")));
            return;
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        for next in graph.get(m).into_iter().flatten() {
            if graph.contains_key(next) {
                visit(next, graph, path, done, cycles);
            }
        }
        path.pop();
    }
    let mut cycles = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    for m in graph.keys() {
        visit(m, graph, &mut Vec::new(), &mut done, &mut cycles);
    }
    cycles
}

/// Every `unsafe` block outside tests has a `SAFETY` comment just above it,
/// and docs/performance.md lists each file that has them with their count
/// and what they buy (`| `src/FILE` (N) |`).
#[test]
fn every_unsafe_block_is_justified() {
    let doc = std::fs::read_to_string(root().join("docs/performance.md")).expect("performance.md");
    let files = rust_files(&root().join("src"));
    let mut total = 0;
    for file in files {
        let rel = file
            .strip_prefix(root())
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).expect("source");
        let lines: Vec<&str> = text
            .split("\n#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .collect();
        let mut count = 0;
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let opens = code
                .match_indices("unsafe")
                .any(|(at, _)| code[at + "unsafe".len()..].trim_start().starts_with('{'));
            if !opens {
                continue;
            }
            count += 1;
            let above = &lines[i.saturating_sub(6)..=i];
            assert!(
                above.iter().any(|l| l.contains("SAFETY")),
                "{rel}:{}: an unsafe block without a SAFETY comment",
                i + 1
            );
        }
        if count > 0 {
            let row = format!("| `{rel}` ({count}) |");
            assert!(
                doc.contains(&row),
                "docs/performance.md has no row `{row}` for its unsafe blocks"
            );
        }
        total += count;
    }
    assert!(
        total >= 10,
        "only {total} unsafe blocks found: the scan is broken"
    );
}

/// A finding is made only in a rule family (`src/rules/`): the rest of the
/// code decides what a message or a line is and asks a family for its
/// words. The finding cap's own note is made beside the cap, in
/// `rules/finding.rs`.
#[test]
fn findings_are_made_only_in_the_rule_families() {
    let src = root().join("src");
    let files = rust_files(&src);
    let mut outside = Vec::new();
    let mut inside = 0;
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).expect("source");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let made = code.matches("Finding::new(").count();
        if rel.starts_with("rules/") {
            inside += made;
        } else if made > 0 {
            outside.push(format!("{rel} ({made})"));
        }
    }
    assert!(
        inside >= 20,
        "only {inside} findings made in src/rules/: the scan is broken"
    );
    assert!(
        outside.is_empty(),
        "findings made outside src/rules/: {outside:?}"
    );
}

/// Every rule of the catalogue is fired by code outside it: a row without
/// logic (or logic without a row) cannot be left behind.
#[test]
fn every_catalogue_rule_is_fired_by_code() {
    let out = run(&["rules", "--format", "json"]);
    let doc = json_of(&out);
    let rules = doc["rules"].as_array().expect("rules");
    assert!(rules.len() > 50, "the catalogue was not read");
    let mut sources = String::new();
    fn walk(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).expect("src dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("rules/mod.rs")
            {
                let text = std::fs::read_to_string(&path).expect("source");
                out.push_str(text.split("#[cfg(test)]\nmod tests").next().unwrap_or(""));
            }
        }
    }
    walk(&root().join("src"), &mut sources);
    let unfired: Vec<&str> = rules
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .filter(|name| {
            let variant: String = name
                .split('-')
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect();
            !sources.contains(&format!("Rule::{variant}"))
        })
        .collect();
    assert!(unfired.is_empty(), "rules no code fires: {unfired:?}");
}

/// A hang next to a crash names the crash and its line (issue 21, item 6):
/// one fixture per runtime, the expected line read from the raw stderr.
#[test]
fn a_hang_next_to_a_crash_names_the_crash() {
    let cases = [
        (
            "rust-panic",
            "the server crashed with the request open: it panicked (line 6:",
        ),
        (
            "go-panic",
            "the server crashed with the request open: it panicked (line 6:",
        ),
        (
            "node-uncaught",
            "the server crashed with the request open: it threw an exception (line 10: \"Error: ENOENT",
        ),
        (
            "python-traceback",
            "the handler threw an exception (line 9: \"KeyError: 'index'\") and never answered",
        ),
        (
            "dotnet-unhandled",
            "the server crashed with the request open: it threw an exception (line 6: \"Unhandled exception.",
        ),
    ];
    for (name, likely) in cases {
        let path = format!("fixtures/hangs/{name}.log");
        let doc = json_of(&run(&["check", "--format", "json", &path]));
        let findings = doc["files"][0]["findings"].as_array().expect("findings");
        let hangs: Vec<&str> = findings
            .iter()
            .filter(|f| f["rule"] == "unanswered-request")
            .map(|f| f["message"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(hangs.len(), 1, "{name}: {findings:?}");
        assert!(
            hangs[0].contains(&format!("likely: {likely}")),
            "{name}: {}",
            hangs[0]
        );
    }
}

#[test]
fn a_handshake_sent_as_the_server_starts_is_judged_with_the_start() {
    // fixtures/clean/slow-server-start.log: initialize answered 8.4 s after
    // the recorder's start event, which includes the server's start.
    let clean = std::fs::read_to_string(root().join("fixtures/clean/slow-server-start.log"))
        .expect("fixture");
    let slow = |text: &str, args: &[&str]| -> Vec<String> {
        let mut all = vec!["check", "--format", "json"];
        all.extend(args);
        all.push("-");
        json_of(&run_stdin(&all, text.as_bytes()))["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == "slow-response")
            .map(|f| f["message"].as_str().expect("message").to_string())
            .collect()
    };
    assert_eq!(slow(&clean, &[]), Vec::<String>::new());
    // Past the start limit, it is slow, and said to include the start.
    let late = clean.replace("10:00:08.", "10:00:38.");
    let found = slow(&late, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("with the server's start"), "{found:?}");
    // Without the start event it is any request.
    let no_start: String = clean.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert_eq!(slow(&no_start, &[]).len(), 1);
    // A --slow above the start limit is the limit.
    assert_eq!(slow(&late, &["--slow", "60"]), Vec::<String>::new());
}

/// The keys of a JSON Lines record, in order.
fn key_order(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("a record is an object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// `expected` keys present in `record`, in `expected`'s order, must be
/// exactly the record's keys in its order (the optional ones may be absent).
fn in_order(record: &Value, required: &[&str], optional: &[&str], expected: &[&str]) {
    let have = key_order(record);
    for k in required {
        assert!(have.contains(k), "{record} lacks {k}");
    }
    let wanted: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|k| have.contains(k))
        .collect();
    assert_eq!(have, wanted, "key order of {record}");
    for k in &have {
        assert!(
            required.contains(k) || optional.contains(k),
            "{record} has unexpected key {k}"
        );
    }
}

fn jsonl_of(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const SESSION_KEYS: [&str; 13] = [
    "name",
    "era",
    "protocol_version",
    "requested_version",
    "revision",
    "client",
    "server",
    "messages",
    "pending",
    "pending_total",
    "first_line",
    "last_line",
    "mid_session",
];

#[test]
fn jsonl_records_version_1_are_pinned() {
    let files = [
        "fixtures/sample-session.log",
        "fixtures/rules/id-reuse.log",
        "fixtures/compressed/unanswered-request.log.gz",
        "fixtures/formats/claude-aggregate/two-servers.log",
    ];
    let mut args = vec!["check", "--format", "jsonl", "--jobs", "1"];
    args.extend(files);
    args.push("no-such-file.log");
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2), "an unreadable file: exit 2");
    let records = jsonl_of(&out);
    let doc = json_of(&run(
        &[&["check", "--format", "json"][..], &files[..]].concat()
    ));
    // With one job the records come in the order of the files: each file's
    // `file` record, its sessions, its findings; the document says the same.
    let mut at = 0;
    for (i, want) in doc["files"].as_array().expect("files").iter().enumerate() {
        let path = files[i];
        let head = &records[at];
        in_order(
            head,
            &[
                "type", "version", "path", "format", "bytes", "lines", "seconds", "sessions",
                "summary",
            ],
            &[],
            &[
                "type", "version", "path", "format", "bytes", "lines", "seconds", "sessions",
                "summary",
            ],
        );
        assert_eq!(head["type"], "file");
        assert_eq!(head["version"], 1);
        assert_eq!(head["path"], path);
        assert_eq!(head["format"], want["format"]);
        let on_disk = std::fs::metadata(root().join(path)).expect("fixture").len();
        assert_eq!(head["bytes"], on_disk, "{path}: bytes as stored");
        assert!(head["lines"].as_u64().expect("lines") > 0, "{path}");
        assert!(head["seconds"].as_f64().expect("seconds") >= 0.0);
        keys(
            &head["summary"],
            &["error", "warning", "info"],
            &[],
            "summary",
        );
        let sessions = want["sessions"].as_array().expect("sessions");
        let findings = want["findings"].as_array().expect("findings");
        assert_eq!(head["sessions"], sessions.len());
        for severity in ["error", "warning", "info"] {
            let n = findings
                .iter()
                .filter(|f| f["severity"] == severity)
                .count();
            assert_eq!(head["summary"][severity], n, "{path} {severity}");
        }
        at += 1;
        for (index, session) in sessions.iter().enumerate() {
            let r = &records[at];
            let order: Vec<&str> = ["type", "version", "path", "session"]
                .into_iter()
                .chain(SESSION_KEYS)
                .collect();
            in_order(r, &order, &[], &order);
            assert_eq!(
                (&r["type"], &r["version"], &r["path"]),
                (&"session".into(), &1.into(), &path.into())
            );
            assert_eq!(r["session"], index);
            for k in SESSION_KEYS {
                assert_eq!(r[k], session[k], "{path} session {index} {k}");
            }
            at += 1;
        }
        for finding in findings {
            let r = &records[at];
            let optional = [
                "file",
                "time",
                "direction",
                "id",
                "method",
                "subject",
                "related",
            ];
            in_order(
                r,
                &[
                    "type", "version", "path", "rule", "severity", "session", "line", "message",
                ],
                &optional,
                &[
                    "type",
                    "version",
                    "path",
                    "rule",
                    "severity",
                    "session",
                    "line",
                    "file",
                    "message",
                    "time",
                    "direction",
                    "id",
                    "method",
                    "subject",
                    "related",
                ],
            );
            assert_eq!(
                (&r["type"], &r["version"], &r["path"]),
                (&"finding".into(), &1.into(), &path.into())
            );
            let mut fields = r.as_object().expect("object").clone();
            for k in ["type", "version", "path"] {
                fields.remove(k);
            }
            assert_eq!(&Value::Object(fields), finding, "{path}");
            at += 1;
        }
    }
    let error = &records[at];
    in_order(
        error,
        &["type", "version", "path", "message"],
        &[],
        &["type", "version", "path", "message"],
    );
    assert_eq!(error["type"], "error");
    assert_eq!(error["path"], "no-such-file.log");
    assert!(
        error["message"]
            .as_str()
            .expect("message")
            .contains("no-such-file.log"),
        "{error}"
    );
    assert_eq!(records.len(), at + 1, "nothing after the last file");
    // Two servers in one log are two session records.
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "session" && r["session"] == 1)
    );
}

#[test]
fn jsonl_exit_codes_are_those_of_json() {
    for (args, code) in [
        (vec!["fixtures/clean/legacy-2025-06-18.log"], 0),
        (vec!["fixtures/sample-session.log"], 1),
        (vec!["--fail-on", "never", "fixtures/sample-session.log"], 0),
        (
            vec!["fixtures/clean/legacy-2025-06-18.log", "missing.log"],
            2,
        ),
    ] {
        for format in ["json", "jsonl"] {
            let out = run(&[&["check", "--format", format][..], &args[..]].concat());
            assert_eq!(out.status.code(), Some(code), "{format} {args:?}");
        }
    }
}

/// `json-lines` (ruff's name) is `jsonl`: the same records.
#[test]
fn json_lines_is_jsonl() {
    let args = ["check", "--jobs", "1", "--format"];
    let file = "fixtures/sample-session.log";
    // The records, without the time each file took.
    let records = |format: &str| {
        let out = run(&[&args[..], &[format, file]].concat());
        let mut records = jsonl_of(&out);
        for r in &mut records {
            if let Some(r) = r.as_object_mut() {
                r.remove("seconds");
            }
        }
        (out.status.code(), records)
    };
    let jsonl = records("jsonl");
    assert_eq!(records("json-lines"), jsonl);
    assert!(jsonl.1.len() > 2, "{:?}", jsonl.1);
}

/// Every `file` and `error` record's path, sorted, and the findings' (path,
/// rule, line), sorted: what a run found, whatever order files finished in.
type Found = (Vec<(String, String)>, Vec<(String, String, u64)>);

fn found(records: &[Value]) -> Found {
    let mut files: Vec<(String, String)> = records
        .iter()
        .filter(|r| r["type"] == "file" || r["type"] == "error")
        .map(|r| {
            (
                r["type"].as_str().unwrap().into(),
                r["path"].as_str().unwrap().into(),
            )
        })
        .collect();
    files.sort();
    let mut findings: Vec<(String, String, u64)> = records
        .iter()
        .filter(|r| r["type"] == "finding")
        .map(|r| {
            (
                r["path"].as_str().unwrap().into(),
                r["rule"].as_str().unwrap().into(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect();
    findings.sort();
    (files, findings)
}

#[test]
fn files_from_reads_lines_or_nul_separated_paths_with_jobs() {
    let dir = root().join("target/test-scratch/files-from");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    // A name with a newline in it can only be listed NUL-separated.
    let odd = dir.join("two\nlines.log");
    std::fs::copy(root().join("fixtures/rules/id-reuse.log"), &odd).expect("copy");
    let odd = odd
        .strip_prefix(root())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let listed = [
        "fixtures/sample-session.log",
        "fixtures/compressed/unanswered-request.log.gz",
        "fixtures/compressed/unanswered-request.log.zst",
        "fixtures/clean/legacy-2025-06-18.log",
        "missing.log",
    ];
    let direct = run(&[&["check", "--format", "jsonl", "-j", "1"][..], &listed[..]].concat());
    let (direct_files, mut direct_findings) = found(&jsonl_of(&direct));
    assert_eq!(direct_files.len(), 5);
    assert!(direct_files.contains(&("error".into(), "missing.log".into())));

    // Lines: CRLF, empty lines and a last line without its newline.
    let lines = format!(
        "{}\r\n\n{}\n{}\n\n{}\n{}",
        listed[0], listed[1], listed[2], listed[3], listed[4]
    );
    for jobs in ["1", "2"] {
        let out = run_stdin(
            &[
                "check",
                "--format",
                "jsonl",
                "-j",
                jobs,
                "--files-from",
                "-",
            ],
            lines.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(2), "missing.log: exit 2");
        assert_eq!(
            found(&jsonl_of(&out)),
            (direct_files.clone(), direct_findings.clone()),
            "-j {jobs}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot open missing.log"), "{stderr}");
    }

    // NUL-separated, from a file, with the odd name; the long option too.
    let mut nul = Vec::new();
    for p in listed.iter().copied().chain([odd.as_str()]) {
        nul.extend_from_slice(p.as_bytes());
        nul.push(0);
    }
    let list = dir.join("list0");
    std::fs::write(&list, &nul).expect("list");
    let list = list.to_str().unwrap();
    let odd_direct = run(&["check", "--format", "jsonl", &odd]);
    let (_, odd_findings) = found(&jsonl_of(&odd_direct));
    assert!(!odd_findings.is_empty());
    direct_findings.extend(odd_findings);
    direct_findings.sort();
    for flag in ["-0", "--null"] {
        let out = run(&[
            "check",
            "--format",
            "jsonl",
            "-j",
            "2",
            flag,
            "--files-from",
            list,
        ]);
        let (files, findings) = found(&jsonl_of(&out));
        assert_eq!(files.len(), 6, "{flag}");
        assert!(
            files.contains(&("file".into(), odd.clone())),
            "{flag}: {files:?}"
        );
        assert_eq!(findings, direct_findings, "{flag}");
    }
    // Without -0 the same list is two lines (split at the odd name's
    // newline), neither of which names a file.
    let out = run(&["check", "--format", "jsonl", "--files-from", list]);
    let records = jsonl_of(&out);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["type"] == "error"), "{records:?}");

    // The other formats read the list too, in its order.
    let json = json_of(&run_stdin(
        &["check", "--format", "json", "-j", "2", "--files-from", "-"],
        lines.as_bytes(),
    ));
    let paths: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, &listed[..4]);

    // A list that is not there is a usage-level error; `-` in a list is an
    // error record, and FILE arguments conflict with a list.
    let out = run(&["check", "--files-from", "no-such-list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot open the path list no-such-list")
    );
    let out = run_stdin(&["check", "--format", "jsonl", "--files-from", "-"], b"-\n");
    assert_eq!(jsonl_of(&out)[0]["type"], "error");
    // A list that names no file (empty, or blank lines only) checked
    // nothing: exit 2 and the reason, in every output format (it exited 0
    // with "0 errors", so a CI step that gathered no logs passed).
    for (format, list) in [
        ("table", &b""[..]),
        ("json", b"\n\n"),
        ("jsonl", b""),
        ("sarif", b"\r\n"),
    ] {
        let out = run_stdin(&["check", "--format", format, "--files-from", "-"], list);
        assert_eq!(out.status.code(), Some(2), "{format}: {}", transcript(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("the list on standard input names no file, so nothing was checked"),
            "{format}: {}",
            transcript(&out)
        );
    }
    // An entry longer than any path is an error of its own, bounded, and
    // the next entry is still checked.
    let mut long = vec![b'a'; 70_000];
    long.extend_from_slice(b"\nfixtures/sample-session.log\n");
    let out = run_stdin(
        &["check", "--format", "jsonl", "-j", "1", "--files-from", "-"],
        &long,
    );
    let records = jsonl_of(&out);
    assert_eq!(records[0]["type"], "error");
    assert!(
        records[0]["message"]
            .as_str()
            .unwrap()
            .contains("longer than 65536 bytes")
    );
    assert!(records[0]["path"].as_str().unwrap().len() <= 200);
    assert_eq!(records[1]["type"], "file");
    assert_eq!(records[1]["path"], "fixtures/sample-session.log");
    let out = run(&["check", "--files-from", list, "fixtures/sample-session.log"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "-0", "fixtures/sample-session.log"]);
    assert_eq!(out.status.code(), Some(2), "-0 needs --files-from");
}

/// The list is read as the checks go: the first file's records come out
/// while the list is still open.
#[test]
fn files_from_streams_the_list_and_the_records() {
    use std::io::{BufRead, BufReader, Write};
    for jobs in ["1", "2"] {
        let mut child = mcpdbg()
            .args([
                "check",
                "--format",
                "jsonl",
                "-j",
                jobs,
                "--files-from",
                "-",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"fixtures/sample-session.log\n")
            .expect("write");
        stdin.flush().expect("flush");
        let stdout = child.stdout.take().expect("stdout");
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let mut stdout = BufReader::new(stdout);
            let _ = stdout.read_line(&mut first);
            let _ = send.send(first);
            let rest: Vec<String> = stdout.lines().map_while(Result::ok).collect();
            rest.len()
        });
        let first = receive
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a record before the list ends");
        let first: Value = serde_json::from_str(&first).expect("json");
        assert_eq!(first["type"], "file");
        assert_eq!(first["path"], "fixtures/sample-session.log");
        stdin
            .write_all(b"fixtures/rules/id-reuse.log\n")
            .expect("write");
        drop(stdin);
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(1), "-j {jobs}");
    }
}

#[test]
fn a_bad_timestamp_is_named_as_such_not_as_a_missing_marker() {
    let input = b"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n2026-13-45T99:00:00Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    let out = run_stdin(&["check", "--format", "json", "-"], input);
    let doc = json_of(&out);
    let text = doc.to_string();
    assert!(
        text.contains("but `2026-13-45T99:00:00Z` before it is not an RFC 3339 timestamp"),
        "{text}"
    );
    assert!(!text.contains("no direction marker"), "{text}");
}

#[test]
fn redact_hides_secrets_in_a_cut_json_line_and_card_numbers_in_every_format() {
    let input = b"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"pay\",\"arguments\":{\"password\": \"hunter2\", \"card\": 4111111111111111, \"cvv\": 987\n";
    let dir = std::env::temp_dir().join(format!("mcpdbg-redact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let log = dir.join("cut.log");
    std::fs::write(&log, input).expect("write");
    let log = log.to_str().expect("utf-8");
    let mut runs: Vec<Vec<&str>> = ["table", "json", "jsonl", "sarif", "github", "junit"]
        .iter()
        .map(|f| vec!["check", "--redact", "--format", f, log])
        .collect();
    runs.push(vec!["timeline", "--redact", log]);
    runs.push(vec!["timeline", "--redact", "--format", "html", log]);
    for args in runs {
        let out = run(&args);
        // The run's own timing (`"seconds":0.000987` in the JSON Lines
        // header) is not the log's and may hold the digits of the cvv.
        let text = without_run_seconds(&String::from_utf8_lossy(&out.stdout));
        assert!(!text.is_empty(), "{args:?}");
        for secret in ["hunter2", "4111111111111111", "987"] {
            assert!(
                !text.contains(secret),
                "{secret} in the output of {args:?}: {text}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `text` without the number of each `"seconds":` member: how long the run
/// took, which no redaction is about.
fn without_run_seconds(text: &str) -> String {
    let key = "\"seconds\":";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        let (head, tail) = rest.split_at(at + key.len());
        out.push_str(head);
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit() || ".eE+-".contains(c));
    }
    out.push_str(rest);
    out
}

#[test]
fn without_run_seconds_drops_only_the_timing() {
    assert_eq!(
        without_run_seconds(r#"{"bytes":987,"seconds":0.000987,"x":"987"}"#),
        r#"{"bytes":987,"seconds":,"x":"987"}"#
    );
}

/// A listed schema large enough for the parser to leave out is still judged
/// by its `type` (the stand-in keeps it): a missing and a wrong `type` are
/// reported, an object schema is not.
#[test]
fn large_listed_schemas_keep_their_type() {
    let props: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "\"p{i}\":{{\"type\":\"string\",\"description\":\"{}\"}}",
                "x".repeat(20)
            )
        })
        .collect();
    let props = props.join(",");
    let log = format!(
        concat!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n",
            "< {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n",
            "> {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n",
            "> {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n",
            "< {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":[",
            "{{\"name\":\"a\",\"inputSchema\":{{\"properties\":{{{p}}}}}}},",
            "{{\"name\":\"b\",\"inputSchema\":{{\"properties\":{{{p}}},\"type\":\"array\"}}}},",
            "{{\"name\":\"c\",\"inputSchema\":{{\"type\":\"object\",\"properties\":{{{p}}}}}}}]}}}}\n"
        ),
        p = props
    );
    let doc = json_of(&run_stdin(
        &["check", "--format", "json", "-"],
        log.as_bytes(),
    ));
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let shapes: Vec<&str> = findings
        .iter()
        .filter(|f| f["rule"] == "invalid-result")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert_eq!(shapes.len(), 1, "{findings:#?}");
    assert!(
        shapes[0].contains("`result.tools[0].inputSchema` has no `type`"),
        "{}",
        shapes[0]
    );
    assert!(
        shapes[0].contains("`result.tools[1].inputSchema.type` is \"array\""),
        "{}",
        shapes[0]
    );
    assert!(!shapes[0].contains("tools[2]"), "{}", shapes[0]);
}

/// A handshake (2025-06-18) as native transcript lines, with times.
const TIMED_HANDSHAKE: &str = concat!(
    "2026-12-01T10:00:00.000Z > {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
    "2026-12-01T10:00:00.100Z < {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n",
    "2026-12-01T10:00:00.200Z > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
);

#[test]
fn a_batch_beyond_the_cap_is_analysed_up_to_it_and_counted_in_one_finding() {
    let members: Vec<String> = (0..1500)
        .map(|i| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"t\",\"progress\":{i}}}}}"
            )
        })
        .collect();
    let log = format!("{TIMED_HANDSHAKE}> [{}]\n", members.join(","));
    let doc = json_of(&run_stdin(
        &["check", "--format", "json", "-"],
        log.as_bytes(),
    ));
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let capped: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "batch-too-large")
        .collect();
    assert_eq!(capped.len(), 1, "{findings:?}");
    let message = capped[0]["message"].as_str().expect("message");
    assert!(
        message.contains("a batch of 1500 messages: the first 1000 were analysed, the other 500"),
        "{message}"
    );
    assert_eq!(capped[0]["line"], 4);
    // The members analysed are counted as messages: 1,000 of the batch.
    let counted = &doc["files"][0]["sessions"][0]["messages"]["client_to_server"];
    assert_eq!(counted, 1002, "{doc}");
}

#[test]
fn ids_and_numbers_beyond_a_double_keep_their_text_in_every_json_output() {
    let log = format!(
        "{TIMED_HANDSHAKE}{}{}{}",
        "2026-12-01T10:00:01.000Z > {\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"n\":123456789012345678901234567891}}}\n",
        "2026-12-01T10:00:02.000Z > [{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567892,\"method\":\"ping\"}]\n",
        "2026-12-01T10:00:03.000Z < {\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"result\":{\"content\":[]}}\n",
    );
    let dir = std::env::temp_dir().join(format!("mcpdbg-huge-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("huge-ids.log");
    std::fs::write(&path, &log).expect("write log");
    let path = path.to_str().expect("utf-8 path");
    let outputs = [
        vec!["check", "--format", "json", path],
        vec!["check", "--format", "jsonl", path],
        vec!["check", "--format", "sarif", path],
        vec!["timeline", "--format", "json", path],
        vec!["stats", "--format", "json", path],
        vec!["diff", "--format", "json", path, path],
    ];
    for args in outputs {
        let out = run(&args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // Valid JSON, one document or one per line.
        for doc in text.lines().filter(|_| args[2] == "jsonl") {
            serde_json::from_str::<Value>(doc).expect("a JSON line");
        }
        if args[2] != "jsonl" {
            json_of(&out);
        }
        // No id became a double (the timeline's `summary` is text, made
        // from the parsed arguments).
        assert!(
            !text.contains("\"id\":1.2") && !text.contains("\"id\": 1.2"),
            "{args:?}: {text}"
        );
        let id = regex_free_find(&text, "123456789012345678901234567890");
        assert!(id, "{args:?} lost the id: {text}");
        if args[0] != "stats" && args[0] != "diff" {
            // The batch member's id, never answered (stats shows the answered).
            assert!(
                regex_free_find(&text, "123456789012345678901234567892"),
                "{args:?} lost the batch member's id: {text}"
            );
        }
    }
    // The message itself in the timeline, its number as written.
    let timeline = run(&["timeline", "--format", "json", path]);
    let text = String::from_utf8_lossy(&timeline.stdout);
    assert!(
        text.contains("\"arguments\":{\"n\":123456789012345678901234567891}"),
        "{text}"
    );
    // The two ids are two ids: no id-reuse, one hang (the batch member's).
    let doc = json_of(&run(&["check", "--format", "json", path]));
    let rules: Vec<&str> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"id-reuse"), "{rules:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether `text` holds `id` written as a JSON number (not inside a string).
fn regex_free_find(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + id.len()..].chars().next();
        before != Some('"') && after != Some('"') && after.is_none_or(|c| !c.is_ascii_digit())
    })
}

/// The secrets of fixtures/redact/hostile.log, one in every slot a log has:
/// a start event's argument, key-shaped ids (`ghp_`, `github_pat_`,
/// `sk-proj-`, `AKIA`, a card number), key-shaped methods (`xoxb-`,
/// `sk-ant-`, `github_pat_`), object keys (`AKIA`, a JWT, `sk-`), a card
/// number as a value, stderr lines with ANSI colour codes around and inside
/// `Authorization: Bearer`, `password=` and `token:`, coloured stray stdout,
/// a broken JSON line and a cut last line.
const HOSTILE_SECRETS: [&str; 22] = [
    "StartArg0123456789",
    "IdShaped0123456789",
    "AKIAKEYSHAPED0PROP12",
    "AKIAKEYSHAPED0ARGKEY",
    "eyJhbGciOiJIUzI1NiJ9",
    "4111111111111111",
    "ResultKey0123456789",
    "MethodSlackTok",
    "NotifMethod0123456789",
    "ansiBearerTok",
    "ansiHunter2pw",
    "ansiTokVal9876",
    "StdoutShaped",
    "brokenPass77",
    "AIzaBrokenKey",
    "11AAIdShaped",
    "IdHang0123456789",
    "MethodShaped0123456789",
    "ansiLastBearer",
    "ansiSplitPw42",
    "AKIACUTIDSHAPED",
    "cutTokenValue9",
];

/// A server for `replay` that answers every request, echoing its id, with
/// a key-shaped result key, and writes a coloured bearer token on stderr.
const HOSTILE_SERVER: &str = "import json, sys
sys.stderr.write('\\x1b[31mAuthorization: Bearer ansiReplayTok0123456789\\x1b[0m\\n')
sys.stderr.flush()
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if isinstance(m, dict) and 'method' in m and 'id' in m:
        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'sk-ReplayKey0123456789abcdef': 1}}), flush=True)
";

#[test]
fn redact_hides_secrets_in_every_slot_from_every_command_and_format() {
    let log = "fixtures/redact/hostile.log";
    let other = "fixtures/redact/secrets.log";
    let dir = std::env::temp_dir().join(format!("mcpdbg-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut runs: Vec<Vec<String>> = Vec::new();
    let strings = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for format in [
        "table", "concise", "json", "jsonl", "sarif", "github", "junit",
    ] {
        runs.push(strings(&["check", "--format", format, log]));
    }
    runs.push(strings(&["check", "--color", "always", log]));
    for format in ["table", "json", "mermaid", "html"] {
        runs.push(strings(&["timeline", "--format", format, log]));
        runs.push(strings(&["timeline", "--full", "--format", format, log]));
    }
    for format in ["table", "json"] {
        runs.push(strings(&["stats", "--format", format, log]));
        runs.push(strings(&["diff", "--format", format, log, other]));
        runs.push(strings(&["diff", "--format", format, other, log]));
    }
    let python = sdk_python();
    let python = python.to_str().expect("utf-8");
    for format in ["table", "json"] {
        let out = dir.join(format!("replay-{format}.log"));
        runs.push(strings(&[
            "replay",
            "--format",
            format,
            "--timeout",
            "2",
            "--grace",
            "0.2",
            "--out",
            out.to_str().expect("utf-8"),
            log,
            "--",
            python,
            "-c",
            HOSTILE_SERVER,
        ]));
    }
    let replay_secrets = ["ansiReplayTok", "ReplayKey0123456789"];
    let mut seen_plain = String::new();
    for (n, args) in runs.iter().enumerate() {
        let (command, rest) = args.split_first().expect("a command");
        // Without --redact, the same run shows the secrets (so this test
        // can fail); a replay writes a new transcript each time.
        let mut plain: Vec<String> = vec![command.clone()];
        plain.extend(
            rest.iter()
                .map(|a| a.replace("replay-", &format!("plain-{n}-"))),
        );
        let plain_args: Vec<&str> = plain.iter().map(String::as_str).collect();
        let out = run(&plain_args);
        seen_plain.push_str(&String::from_utf8_lossy(&out.stdout));
        seen_plain.push_str(&String::from_utf8_lossy(&out.stderr));

        let mut redacted: Vec<&str> = vec![command, "--redact"];
        redacted.extend(rest.iter().map(String::as_str));
        let out = run(&redacted);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{redacted:?}: {}",
            transcript(&out)
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("[redacted "), "{redacted:?}: {text}");
        for secret in HOSTILE_SECRETS.iter().chain(&replay_secrets) {
            assert!(
                !text.contains(secret),
                "{secret} in the output of {redacted:?}:\n{text}"
            );
        }
    }
    for secret in HOSTILE_SECRETS.iter().chain(&replay_secrets) {
        assert!(
            seen_plain.contains(secret),
            "{secret} is in no output without --redact"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The HTML page's size as docs/guide.md states it: about 10 KB of its own,
/// then about 4.3 times the log for short messages and 1.3 times for long
/// tool results (the messages are in it, pretty-printed). Bounds with some
/// room: 5x and 1.6x, plus 16 KB.
#[test]
fn the_html_page_is_the_documented_multiple_of_the_log() {
    let dir = std::env::temp_dir().join(format!("mcpdbg-html-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let handshake = concat!(
        "2026-11-21T09:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
        "2026-11-21T09:00:00.010000Z < {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n",
        "2026-11-21T09:00:00.020000Z > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    );
    let time = |n: usize| {
        format!(
            "2026-11-21T09:{:02}:{:02}.{:06}Z",
            n / 60_000 % 60,
            n / 1000 % 60,
            n % 1000 * 1000
        )
    };
    let mut short = handshake.to_string();
    for i in 1..=2000 {
        short.push_str(&format!(
            "{} > {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"search_notes\",\"arguments\":{{\"query\":\"meeting notes {i}\",\"limit\":10}}}}}}\n",
            time(2 * i)
        ));
        short.push_str(&format!(
            "{} < {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Found {} notes matching the query; the first is titled Weekly sync {i}.\"}}]}}}}\n",
            time(2 * i + 1),
            i % 7
        ));
    }
    let mut long = handshake.to_string();
    for i in 1..=300 {
        long.push_str(&format!(
            "{} > {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"read_file\",\"arguments\":{{\"path\":\"/notes/{i}.md\"}}}}}}\n",
            time(2 * i)
        ));
        long.push_str(&format!(
            "{} < {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n",
            time(2 * i + 1),
            format!("line of the file {i}\\n").repeat(200)
        ));
    }
    for (name, log, ratio) in [("short", short, 5.0), ("long", long, 1.6)] {
        let path = dir.join(format!("{name}.log"));
        std::fs::write(&path, &log).expect("write");
        let out = run(&[
            "timeline",
            "--format",
            "html",
            path.to_str().expect("utf-8"),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        let page = out.stdout.len() as f64;
        let bound = ratio * log.len() as f64 + 16_384.0;
        assert!(
            page <= bound,
            "{name}: a {} byte log gave a {page} byte page ({:.1}x), above {ratio}x + 16 KB",
            log.len(),
            page / log.len() as f64
        );
        // The page holds the messages: it is at least the log's size.
        assert!(page >= log.len() as f64, "{name}: {page} bytes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `invalid-json` finding says where the error is as the user sees the
/// line: the column in the line, the native format's time and marker
/// included, also past a long text the parser skims.
#[test]
fn invalid_json_columns_count_in_the_line() {
    let dir = std::env::temp_dir().join(format!("mcpdbg-columns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let request = "2026-11-21T09:15:00.100000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n";
    let short = "2026-11-21T09:15:00.200000Z < {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{}}\n";
    let long = format!(
        "2026-11-21T09:15:00.200000Z < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],,}}}}\n",
        "x".repeat(5000)
    );
    for (name, bad) in [("short", short.to_string()), ("long", long)] {
        let path = dir.join(format!("{name}.log"));
        std::fs::write(&path, format!("{request}{bad}")).expect("write");
        let doc = json_of(&run(&[
            "check",
            "--format",
            "json",
            path.to_str().expect("utf-8"),
        ]));
        let finding = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["rule"] == "invalid-json")
            .unwrap_or_else(|| panic!("{name}: no invalid-json in {doc}"));
        // The second comma of `,,`, counted from 1 in the line.
        let column = bad.find(",,").expect("two commas") + 2;
        let message = finding["message"].as_str().expect("message");
        assert!(
            message.contains(&format!("at column {column})")),
            "{name}: expected column {column}: {message}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `invalid-json` finding's message for `log`, checked as a file of its
/// own (the format detected from its lines).
fn invalid_json_message(dir: &std::path::Path, name: &str, log: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, log).expect("write");
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        path.to_str().expect("utf-8"),
    ]));
    let finding = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "invalid-json")
        .unwrap_or_else(|| panic!("{name}: no invalid-json in {doc}"))
        .clone();
    finding["message"].as_str().expect("message").to_string()
}

/// A host's log whose line holds the message as a slice (its prefix, then
/// the JSON) says the column in that line, as an editor shows it: one
/// broken message per reader kind, the column counted in the raw line.
#[test]
fn invalid_json_columns_in_host_logs_count_in_the_line() {
    let dir = std::env::temp_dir().join(format!("mcpdbg-host-columns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let cases: [(&str, &str, &str); 6] = [
        (
            "jetbrains.log",
            "2026-11-03 10:00:00,131 CLIENT - {\"id\":1,\"method\":\"tools/list\",\"params\":{},\"jsonrpc\":\"2.0\"}\n",
            "2026-11-03 10:00:00,402 SERVER - {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}}\n",
        ),
        (
            "vscode.log",
            "2026-10-05 11:00:00.250 [debug] [editor -> server] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n",
            "2026-10-05 11:00:00.270 [debug] [server -> editor] {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}}\n",
        ),
        (
            "claude-server.log",
            "2025-03-10T17:03:18.764Z [notes] [info] Message from client: {\"method\":\"tools/list\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":1} { metadata: undefined }\n",
            "2025-03-10T17:03:18.829Z [notes] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}} { metadata: undefined }\n",
        ),
        (
            "claude-aggregate.log",
            "2025-04-17T04:45:39.334Z [info] [filesystem] Message from client: {\"method\":\"tools/list\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":1} { metadata: undefined }\n",
            "2025-04-17T04:45:39.401Z [info] [filesystem] Message from server: {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}} { metadata: undefined }\n",
        ),
        (
            "zed.log",
            "2026-09-20T10:15:02+07:00 TRACE [context_server::client] outgoing message: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n",
            "2026-09-20T10:15:03+07:00 TRACE [context_server::client] recv: {\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}}\n",
        ),
        (
            "plain.jsonl",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{\"tools\":[]}}\n",
        ),
    ];
    for (name, request, bad) in cases {
        let message = invalid_json_message(&dir, name, &format!("{request}{bad}"));
        // The second comma of `,,`, counted in bytes from 1 in the raw line.
        let column = bad.find(",,").expect("two commas") + 2;
        assert!(
            message.contains(&format!("key must be a string at column {column}")),
            "{name}: expected column {column}: {message}"
        );
    }
    // A JSON-lines log holding the message as an escaped string member: the
    // text parsed is not a slice of the line, so the byte of the message.
    let message = invalid_json_message(
        &dir,
        "mcpsnoop.jsonl",
        concat!(
            "{\"session_id\":\"s-1\",\"seq\":1,\"ts\":\"2026-11-02T09:00:00.010Z\",\"direction\":\"c2s\",\"transport\":\"stdio\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}}\n",
            "{\"session_id\":\"s-1\",\"seq\":2,\"ts\":\"2026-11-02T09:00:00.060Z\",\"direction\":\"s2c\",\"transport\":\"stdio\",\"text\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,,\\\"result\\\":{}}\"}\n",
        ),
    );
    // `{"jsonrpc":"2.0","id":1,,`: the second comma is byte 25 of the text.
    assert!(
        message.contains("key must be a string at byte 25 of the message"),
        "{message}"
    );
    // strace escapes the bytes written, and VS Code quotes a line of stdout
    // it could not parse as a JSON string: the byte of the message too.
    let escaped: [(&str, &str); 2] = [
        (
            "strace.log",
            concat!(
                r#"21:30:00.002011 read(0, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n", 65536) = 47"#,
                "\n",
                r#"21:30:00.004022 write(1, "{\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{}}\n", 38) = 38"#,
                "\n",
            ),
        ),
        (
            "vscode-stray.log",
            concat!(
                r#"2026-10-05 10:12:00.100 [debug] [editor -> server] {"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
                "\n",
                r#"2026-10-05 10:12:00.200 [warning] Failed to parse message: "{\"jsonrpc\":\"2.0\",\"id\":1,,\"result\":{}}\n""#,
                "\n",
            ),
        ),
    ];
    for (name, log) in escaped {
        let message = invalid_json_message(&dir, name, log);
        assert!(
            message.contains("key must be a string at byte 25 of the message"),
            "{name}: {message}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The per-rule cap never hides a more severe finding: 205 request ids
/// written `N.0` (each `invalid-id-type` as info, twice: request and
/// answer) and then one `7.5` (an error) said "0 errors" and exited 0; the
/// errors are listed past the notes' cap, and the exit status is 1.
#[test]
fn the_finding_cap_never_hides_a_more_severe_finding() {
    let mut log = String::from(
        "# start x\n\
         > {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n\
         < {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\
         > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    );
    for id in (1..=205)
        .map(|n| format!("{n}.0"))
        .chain(["7.5".to_string()])
    {
        log += &format!("> {{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        log += &format!("< {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
    }
    let out = run_stdin(&["check", "--format", "json", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let doc = json_of(&out);
    assert_eq!(doc["summary"]["error"], 2, "{}", doc["summary"]);
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let errors: Vec<u64> = findings
        .iter()
        .filter(|f| f["rule"] == "invalid-id-type" && f["severity"] == "error")
        .map(|f| f["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(errors, [415, 416]);
    let note = findings
        .iter()
        .find(|f| f["rule"] == "too-many-findings")
        .expect("the cap's note");
    assert_eq!(
        note["message"],
        "invalid-id-type fired 412 times; the first 202 are listed (at most 200 of each severity), 210 more are not"
    );
}

/// A message the socat and strace readers put together from pieces (data
/// chunks, write calls) is held to the line limit like a line read whole:
/// past it, one `line-too-long`, its head kept (the request still pairs),
/// and memory bounded (a 0.9 MB `.gz` made a 590 MB line before).
#[test]
fn assembled_lines_are_held_to_the_line_limit() {
    let request = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"put\",\"arguments\":{{\"blob\":\"{}\"}}}}}}",
        "x".repeat(2_000_000)
    );
    let answer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}";
    let pieces: Vec<&str> = request
        .as_bytes()
        .chunks(100_000)
        .map(|c| std::str::from_utf8(c).expect("ascii"))
        .collect();
    // socat -v: each chunk's header, then its data; the last ends the line.
    let mut socat = String::new();
    let mut from = 0;
    for (i, piece) in pieces.iter().enumerate() {
        let length = piece.len() + usize::from(i == pieces.len() - 1);
        socat.push_str(&format!(
            "> 2026/11/29 21:20:05.000000000  length={length} from={from} to={}\n{piece}\n",
            from + length - 1
        ));
        from += length;
    }
    socat.push_str(&format!(
        "< 2026/11/29 21:20:06.000000000  length={} from=0 to={}\n{answer}\n",
        answer.len() + 1,
        answer.len()
    ));
    // strace: one read call per piece, the last with the newline.
    let escape = |t: &str| t.replace('"', "\\\"");
    let mut strace = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let nl = if i == pieces.len() - 1 { "\\n" } else { "" };
        let n = piece.len() + usize::from(i == pieces.len() - 1);
        strace.push_str(&format!(
            "21:30:00.0100{i:02} read(0, \"{}{nl}\", 2097152) = {n}\n",
            escape(piece)
        ));
    }
    strace.push_str(&format!(
        "21:30:00.020000 write(1, \"{}\\n\", {}) = {}\n",
        escape(answer),
        answer.len() + 1,
        answer.len() + 1
    ));
    let dir = root().join("target/test-scratch/assembled");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for (name, text, input) in [
        ("socat.log", socat, "socat"),
        ("strace.log", strace, "strace"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let out = mcpdbg()
            .env("MCPDBG_MAX_LINE", "1M")
            .args(["check", "--format", "json", "--input", input])
            .arg(&path)
            .output()
            .expect("runs");
        let doc = json_of(&out);
        let fired: Vec<&str> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert!(fired.contains(&"line-too-long"), "{name}: {fired:?}");
        for wrong in ["invalid-json", "orphan-response", "unanswered-request"] {
            assert!(!fired.contains(&wrong), "{name}: {fired:?}");
        }
    }
}

/// A line cut at the line limit is one finding, `line-too-long`: its head
/// is not the client's broken JSON (`invalid-json`), and the request it
/// holds is recovered from the head, so its answer is no `orphan-response`
/// (two false errors before). With one thread and with the read-ahead.
#[test]
fn a_line_cut_at_the_limit_is_one_finding_and_its_request_pairs() {
    let blob = "x".repeat(2_000_000);
    let log = format!(
        "# start x\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n\
         < {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n\
         > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"put\",\"arguments\":{{\"blob\":\"{blob}\"}}}}}}\n\
         < {{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"stored\"}}]}}}}\n"
    );
    let dir = root().join("target/test-scratch/overlong");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("overlong.log");
    std::fs::write(&path, log).expect("write");
    for jobs in ["1", "2"] {
        let out = mcpdbg()
            .env("MCPDBG_MAX_LINE", "1M")
            .args(["check", "--format", "json", "--jobs", jobs])
            .arg(&path)
            .output()
            .expect("runs");
        let doc = json_of(&out);
        let fired: Vec<(&str, u64)> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| (f["rule"].as_str().unwrap(), f["line"].as_u64().unwrap()))
            .collect();
        assert_eq!(fired, [("line-too-long", 5)], "--jobs {jobs}");
        assert_eq!(doc["files"][0]["sessions"][0]["pending_total"], 0);
    }
}

/// An integer id past 2^53, within 64 bits or past them, is an integer by
/// the schema (issue 43 item 14): a warning that a JavaScript peer rounds
/// it, never an error; two such ids that differ only past a double's
/// precision are two ids (no `id-reuse`), each paired with its answer.
#[test]
fn integer_ids_past_2_53_are_integers() {
    let (found, doc) = rules_and_lines("fixtures/sessions/big-integer-ids.log");
    let lines: Vec<u64> = vec![7, 8, 9, 10, 11, 12];
    assert_eq!(
        found,
        lines
            .iter()
            .map(|l| ("invalid-id-type".to_string(), *l))
            .collect::<Vec<_>>()
    );
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    assert!(findings.iter().all(|f| f["severity"] == "warning"), "{doc}");
    let message = findings[2]["message"].as_str().expect("message");
    assert!(
        message.contains("id 18446744073709551617 is an integer beyond 2^53"),
        "{message}"
    );
}

/// `io.modelcontextprotocol/clientCapabilities: null` declares nothing (the
/// schema asks for an object): the request lacks the member, as the 2026
/// server that refused it with -32602 says (issue 43 item 14).
#[test]
fn null_client_capabilities_are_not_a_declaration() {
    let (found, doc) = rules_and_lines("fixtures/modern/client-capabilities-null.log");
    assert_eq!(found, vec![("missing-request-meta".to_string(), 4)]);
    let message = doc["files"][0]["findings"][0]["message"]
        .as_str()
        .expect("message");
    assert!(message.contains("`null` declares nothing"), "{message}");
}

/// socat -v: a line whose newline arrives in a later chunk is reported at
/// the data line where its text begins (issue 43 item 15): the request
/// split over lines 8 and 10 is the hang of line 8.
#[test]
fn a_socat_line_split_over_chunks_is_reported_where_it_begins() {
    let (found, _) = rules_and_lines("fixtures/formats/socat/split-line.log");
    assert_eq!(
        found,
        vec![
            ("format-assumption".to_string(), 1),
            ("unanswered-request".to_string(), 8)
        ]
    );
}

/// A call retried under a new id after the client gave up on it by a
/// timeout is one operation tried again, and the second hang says so
/// (issue 43 item 11): two cancelled requests, the second naming the first.
#[test]
fn a_call_retried_after_a_timeout_names_the_first() {
    let (found, doc) = rules_and_lines("fixtures/hangs/retried-after-timeout.log");
    assert_eq!(
        found,
        vec![
            ("cancelled-request".to_string(), 5),
            ("cancelled-request".to_string(), 7)
        ]
    );
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let first = findings[0]["message"].as_str().expect("message");
    let second = findings[1]["message"].as_str().expect("message");
    assert!(!first.contains("retries"), "{first}");
    assert!(
        second
            .contains("it retries id 1 (line 5), the same call its sender gave up on by a timeout"),
        "{second}"
    );
}

/// The official Python SDK (mcp 2.3.0, MCPServer, recorded with `mcpdbg
/// probe`): a tool that returns its error as a string gets a result with
/// `isError: false`, the text and `structuredContent: {"result": text}`;
/// the wrapped copy does not make it a success (line 13).
#[test]
fn a_python_sdk_tool_returning_its_error_is_noted() {
    let (found, _) = rules_and_lines("fixtures/sessions/py-sdk-2-error-text-as-success.log");
    assert_eq!(found, vec![("error-text-as-success".to_string(), 13)]);
}

/// The official Python SDK on both sides (mcp 2.3.0, `tests/sdk/client.py
/// close`, recorded through `mcpdbg record`): the client leaves with the
/// `hang` call (line 8) still running and sends no cancel; the server
/// answers it with `-32000 "Connection closed"` (line 12) after its stdin
/// closed (line 11). That error is the server's shutdown, not an answer:
/// the call is a hang that ran until the connection closed, and the `add`
/// sent after it (line 9) is the one later request answered.
#[test]
fn a_shutdown_error_after_the_client_closed_is_not_an_answer() {
    let (found, doc) = rules_and_lines("fixtures/sessions/py-sdk-2-closed-while-running.log");
    assert_eq!(found, vec![("unanswered-request".to_string(), 8)]);
    let message = doc["files"][0]["findings"][0]["message"]
        .as_str()
        .expect("message");
    for part in [
        "when the client closed the connection at line 11",
        "after it the server answered 1 later request",
        "its error -32000 at line 12, written after the client closed the connection, is the server's shutdown, not an answer",
        "likely: the client closed the connection while the server was still on the request",
    ] {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
    // The views agree: the timeline does not call the call answered.
    let out = run(&[
        "timeline",
        "fixtures/sessions/py-sdk-2-closed-while-running.log",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("never answered: tools/call id 3 (line 8)"),
        "{text}"
    );
    assert!(
        text.contains("the server's shutdown, not an answer"),
        "{text}"
    );
}

/// The same in the 2026-07-28 era (the SDK client in `auto` mode): the
/// hang (line 7) is the server's, and closing the connection without
/// `notifications/cancelled` (line 10) is the client's fault on stdio.
/// When the client cancels before it leaves (`cancel-close`), neither is
/// said: the call is a `cancelled-request` note, in either era.
#[test]
fn a_2026_client_that_closes_without_cancelling_is_told() {
    let (found, _) = rules_and_lines("fixtures/sessions/py-sdk-2-2026-closed-without-cancel.log");
    assert_eq!(
        found,
        vec![
            ("unanswered-request".to_string(), 7),
            ("closed-without-cancel".to_string(), 10),
        ]
    );
    let (found, _) = rules_and_lines("fixtures/sessions/py-sdk-2-2026-cancelled-then-closed.log");
    assert_eq!(found, vec![("cancelled-request".to_string(), 7)]);
    let (found, _) = rules_and_lines("fixtures/sessions/py-sdk-2-cancelled-then-closed.log");
    assert_eq!(found, vec![("cancelled-request".to_string(), 8)]);
}

/// A 2026-07-28 client that does not fall back (tests/sdk/no_fallback_client.py)
/// against the reference server-everything 2026.8.31 (TypeScript SDK 1.x,
/// legacy only), recorded with `mcpdbg record`: `server/discover` is
/// refused with -32601 (line 4), the legacy signal, and the client goes on
/// with `_meta`-versioned `tools/list` (line 5) and `tools/call`. The fault
/// is the client's missing fallback, said once; the legacy server's
/// results are judged by no 2026 rule (no `missing-result-type`, no
/// `missing-cache-hints`), and the session is legacy.
#[test]
fn a_2026_client_without_the_legacy_fallback_is_told_not_the_server() {
    let (found, doc) = rules_and_lines("fixtures/rules/no-legacy-fallback.log");
    assert_eq!(found, vec![("no-legacy-fallback".to_string(), 5)]);
    let file = &doc["files"][0];
    assert_eq!(file["findings"][0]["related"], serde_json::json!([4]));
    let session = &file["sessions"][0];
    assert_eq!(session["era"], "legacy", "{session}");
    assert_eq!(session["revision"], Value::Null, "{session}");
}

/// A capture attached mid-session whose first client message (a cancel)
/// shows no revision: the server's `resultType` at line 2 shows the
/// 2026-07-28 era, the summary says so, and the revision's rules apply
/// from there: the retry under the old id is `retry-reused-id` (line 5),
/// not the legacy `id-reuse`, and the last result without `resultType` is
/// `missing-result-type` (line 6).
#[test]
fn a_mid_session_capture_takes_its_era_from_2026_only_evidence() {
    let path = "fixtures/modern/mid-session-evidence.log";
    let (found, doc) = rules_and_lines(path);
    assert_eq!(
        found,
        vec![
            ("starts-mid-session".to_string(), 1),
            ("retry-reused-id".to_string(), 5),
            ("missing-result-type".to_string(), 6),
        ]
    );
    let session = &doc["files"][0]["sessions"][0];
    assert_eq!(session["era"], "modern", "{session}");
    assert_eq!(session["revision"], "2026-07-28", "{session}");
    assert_eq!(
        session["era_evidence"],
        serde_json::json!({"line": 2, "what": "a `resultType` in a result"})
    );
    let out = run(&["check", path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "modern (shown at line 2 by a `resultType` in a result; the log starts mid-session)"
        ),
        "{text}"
    );
}

/// An era probe the server never answers: the client waits, then stops the
/// process (SIGTERM forwarded at line 4, killed at line 5). The request is
/// a hang (a server that never answers its first request, or a legacy one
/// that ignores `server/discover`, which the note explains), but the
/// process died of the client's signal, not on its own: the story says
/// the client stopped it.
#[test]
fn a_server_the_client_stopped_did_not_die_on_its_own() {
    let (found, doc) = rules_and_lines("fixtures/sessions/probe-unanswered-then-killed.log");
    assert_eq!(
        found,
        vec![
            ("probe-only-session".to_string(), 2),
            ("unanswered-request".to_string(), 2)
        ]
    );
    let message = doc["files"][0]["findings"][1]["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains("likely: the server had not answered when the client stopped it (line 4: SIGTERM received; forwarded to the server)"),
        "{message}"
    );
}

/// A stall after an idle minute (the user's think time is no stall): the
/// blocking `reindex` (line 11) held the event loop for 3 s; `lookup` id 7
/// (line 13) was answered in the burst when it returned, and `lookup` id 6
/// (line 12), which the client gave up on by its timeout during the stall,
/// is a victim too: its story says so, not "stuck on this request", and
/// "later requests" counts only id 7 (id 5 was sent before it).
#[test]
fn every_victim_of_a_stall_is_named_as_one() {
    let path = "fixtures/hangs/stall-victim-cancelled.log";
    let (found, doc) = rules_and_lines(path);
    assert_eq!(
        found,
        vec![
            ("server-stalled".to_string(), 11),
            ("cancelled-request".to_string(), 12),
        ]
    );
    let findings = doc["files"][0]["findings"].as_array().expect("findings");
    let stall = findings[0]["message"].as_str().expect("message");
    assert!(
        stall.starts_with("`reindex` stalled the server")
            && stall.contains("was answered only when it returned")
            && stall.contains("line 13"),
        "{stall}"
    );
    let victim = findings[1]["message"].as_str().expect("message");
    assert!(
        victim.contains("after it the server answered 1 later request")
            && victim.contains("likely: it was sent while the server stalled (3.0 s of silence until `reindex`, line 11, returned)")
            && !victim.contains("stuck on this request"),
        "{victim}"
    );
}
