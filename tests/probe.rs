//! `mcpdbg probe` against a real server: the MCP Python SDK's, pinned in
//! `tests/sdk/requirements.txt` and installed by `scripts/test` (the
//! server is `tests/sdk/server.py`), and against servers that break.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::*;

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/probe").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs `mcpdbg probe --format json ARGS -- SERVER...`; returns the output,
/// the report and the transcript.
fn probe(
    dir: &Path,
    args: &[&str],
    server: &[&str],
    env: &[(&str, &str)],
) -> (Output, Value, String) {
    let out_path = dir.join("probe.log");
    let _ = fs::remove_file(&out_path);
    let mut cmd = mcpdbg();
    cmd.args(["probe", "--format", "json", "--out"])
        .arg(&out_path)
        .args(args)
        .arg("--")
        .args(server);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("probe runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let transcript = fs::read_to_string(&out_path).unwrap_or_default();
    (out, doc, transcript)
}

fn sdk_server() -> Vec<String> {
    vec![
        sdk_python().to_str().expect("utf-8").to_string(),
        root()
            .join("tests/sdk/server.py")
            .to_str()
            .expect("utf-8")
            .to_string(),
    ]
}

fn rules(doc: &Value) -> Vec<String> {
    doc["files"][0]["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| x["rule"].as_str().expect("rule").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The methods the probe sent, in order.
fn sent(transcript: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|l| l.split_once(" > ").map(|(_, m)| m))
        .filter_map(|m| serde_json::from_str::<Value>(m).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_clean_server_is_listed_and_reported_clean_in_both_eras() {
    let lists = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ];
    for era in ["legacy", "modern", "auto"] {
        let dir = scratch(&format!("clean-{era}"));
        let server = sdk_server();
        let server: Vec<&str> = server.iter().map(String::as_str).collect();
        let (out, doc, transcript) = probe(&dir, &["--era", era], &server, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{era}: {}\n{transcript}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(rules(&doc), Vec::<String>::new(), "{era}: {doc:#}");
        // The SDK's server speaks both eras, so `auto` goes modern.
        let expected: Vec<&str> = if era == "legacy" {
            ["initialize", "notifications/initialized"]
                .into_iter()
                .chain(lists)
                .chain(["ping"])
                .collect()
        } else {
            ["server/discover"].into_iter().chain(lists).collect()
        };
        assert_eq!(
            sent(&transcript),
            expected,
            "{era}: no tool is called unasked"
        );
        assert!(transcript.contains("# stdin closed"), "{transcript}");
        assert!(
            transcript.contains("# server exited with status 0"),
            "{transcript}"
        );
        let session = &doc["files"][0]["sessions"][0];
        assert_eq!(
            session["era"],
            if era == "legacy" { "legacy" } else { "modern" }
        );
        assert_eq!(session["server"]["name"], "sdk-test-server");
        assert_eq!(session["client"]["name"], "mcpdbg-probe");
    }
}

#[test]
fn auto_falls_back_to_initialize_on_a_legacy_server() {
    let dir = scratch("fallback");
    let python = sdk_python();
    let script = root().join("tests/probe/legacy_server.py");
    let server = [
        python.to_str().expect("utf-8"),
        script.to_str().expect("utf-8"),
    ];
    let (out, doc, transcript) = probe(&dir, &[], &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{doc:#}\n{transcript}");
    assert_eq!(rules(&doc), Vec::<String>::new(), "{doc:#}");
    assert_eq!(
        sent(&transcript),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "ping"
        ]
    );
    assert_eq!(doc["files"][0]["sessions"][0]["era"], "legacy");
}

#[test]
fn a_server_that_never_answers_is_a_hang() {
    let dir = scratch("silent");
    let python = sdk_python();
    let script = root().join("tests/probe/legacy_server.py");
    let server = [
        python.to_str().expect("utf-8"),
        script.to_str().expect("utf-8"),
        "silent",
    ];
    for era in ["legacy", "modern"] {
        let (out, doc, transcript) =
            probe(&dir, &["--era", era, "--start-timeout", "1"], &server, &[]);
        assert_eq!(out.status.code(), Some(1), "{era}: {doc:#}\n{transcript}");
        let findings = doc["files"][0]["findings"].as_array().expect("findings");
        let method = if era == "legacy" {
            "initialize"
        } else {
            "server/discover"
        };
        assert!(
            findings.iter().any(|f| f["rule"] == "unanswered-request"
                && f["message"]
                    .as_str()
                    .expect("message")
                    .contains(&format!("`{method}`"))),
            "{era}: {doc:#}"
        );
    }
}

#[test]
fn calls_run_only_when_asked_and_a_hang_is_reported_by_its_request() {
    // The hang is the 8th request in the legacy era, the 7th in the modern
    // one (no ping).
    for (era, id) in [("legacy", 8), ("modern", 7)] {
        let dir = scratch(&format!("calls-{era}"));
        let server = sdk_server();
        let server: Vec<&str> = server.iter().map(String::as_str).collect();
        let (out, doc, transcript) = probe(
            &dir,
            &[
                "--era",
                era,
                "--timeout",
                "3",
                "--call",
                "add",
                "--arguments",
                r#"{"a":2,"b":3}"#,
                "--call",
                "hang",
            ],
            &server,
            &[],
        );
        assert_eq!(out.status.code(), Some(1), "{era}: {doc:#}");
        assert!(
            transcript.contains(r#""structuredContent":{"result":5}"#),
            "{era}: {transcript}"
        );
        let findings = doc["files"][0]["findings"].as_array().expect("findings");
        let hang: Vec<&Value> = findings
            .iter()
            .filter(|f| f["rule"] == "unanswered-request")
            .collect();
        assert_eq!(hang.len(), 1, "{era}: {doc:#}");
        assert!(
            hang[0]["message"]
                .as_str()
                .expect("message")
                .contains(r#"`tools/call` "hang""#),
            "{era}: {doc:#}"
        );
        assert!(
            transcript.contains(&format!(
                "# probe: no answer to tools/call id {id} within 3.0 s"
            )),
            "{era}: {transcript}"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("SIGTERM"));
        // The probe's own SIGTERM is not taken for the server dying.
        assert!(
            !hang[0]["message"]
                .as_str()
                .expect("message")
                .contains("died"),
            "{era}: {doc:#}"
        );
    }
}

#[test]
fn a_server_printing_to_stdout_is_caught() {
    let dir = scratch("stray");
    let server = sdk_server();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, doc, _) = probe(&dir, &["--call", "stray"], &server, &[]);
    assert_eq!(out.status.code(), Some(1), "{doc:#}");
    assert!(rules(&doc).contains(&"stray-output".to_string()), "{doc:#}");
}

#[test]
fn server_requests_get_safe_refusals() {
    let dir = scratch("ask");
    let server = sdk_server();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (_, _, transcript) = probe(
        &dir,
        // Only the legacy era has server requests.
        &[
            "--era",
            "legacy",
            "--timeout",
            "5",
            "--call",
            "ask",
            "--arguments",
            r#"{"question":"why"}"#,
        ],
        &server,
        &[("SERVER_VARIANT", "ask")],
    );
    let refusals: Vec<&str> = transcript
        .lines()
        .filter(|l| l.contains(" > ") && l.contains("mcpdbg probe does not offer"))
        .collect();
    assert!(!refusals.is_empty(), "{transcript}");
    assert!(refusals.iter().all(|l| l.contains(r#""code":-32601"#)));
}

#[test]
fn a_server_that_crashes_at_start_is_reported() {
    let dir = scratch("crash");
    let python = sdk_python();
    let (out, doc, transcript) = probe(
        &dir,
        &["--timeout", "5"],
        &[
            python.to_str().expect("utf-8"),
            "-c",
            "import sys; print('boom', file=sys.stderr); sys.exit(3)",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{doc:#}\n{transcript}");
    assert!(
        rules(&doc).contains(&"unanswered-request".to_string()),
        "{doc:#}"
    );
    assert!(
        transcript.contains("# server exited with status 3"),
        "{transcript}"
    );
    assert!(transcript.contains("! boom"), "{transcript}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    let (out, _, _) = probe(&dir, &["--arguments", "{}"], &["true"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let (out, _, _) = probe(&dir, &["--call", "x", "--arguments", "[1]"], &["true"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let (out, _, _) = probe(&dir, &[], &["/nonexistent/server"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start"));
}
