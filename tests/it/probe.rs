//! `mcpdbg probe` against a real server: the MCP Python SDK's, pinned in
//! `tests/sdk/requirements.txt` and installed by `scripts/test` (the
//! server is `tests/sdk/server.py`), and against servers that break.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::*;

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
        .args(args);
    // Generous waits for a loaded machine (a Python interpreter loading
    // the SDK can take many seconds), unless the test sets its own: a
    // hang is given up on after --timeout, so a test of a hang sets a
    // short one, and the waits of a server that answers cost nothing.
    for (flag, seconds) in [
        ("--timeout", "60"),
        ("--start-timeout", "120"),
        ("--grace", "20"),
    ] {
        if !args.contains(&flag) {
            cmd.args([flag, seconds]);
        }
    }
    cmd.arg("--").args(server);
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
        // The SDK's MCPServer (FastMCP before mcp 2) negotiates each era's
        // own revision: it speaks both.
        assert_eq!(
            session["protocol_version"],
            if era == "legacy" {
                "2025-11-25"
            } else {
                "2026-07-28"
            },
            "{era}"
        );
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
    // one (no ping). The 5 s timeout is the hang's wait: the other requests
    // go to a server that has started and answer in milliseconds.
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
                "5",
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
                "# probe: no answer to tools/call id {id} within 5.0 s"
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
fn a_server_printing_to_stdout_is_caught_in_both_eras() {
    let server = sdk_server();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    for era in ["legacy", "modern"] {
        // In a tool call.
        let dir = scratch(&format!("stray-{era}"));
        let (out, doc, _) = probe(&dir, &["--era", era, "--call", "stray"], &server, &[]);
        assert_eq!(out.status.code(), Some(1), "{era}: {doc:#}");
        assert_eq!(rules(&doc), ["stray-output"], "{era}: {doc:#}");
        // A banner before the server serves: the session goes on.
        let (out, doc, transcript) = probe(
            &dir,
            &["--era", era],
            &server,
            &[("SERVER_VARIANT", "banner")],
        );
        assert_eq!(out.status.code(), Some(1), "{era}: {doc:#}");
        assert_eq!(rules(&doc), ["stray-output"], "{era}: {doc:#}");
        let finding = &doc["files"][0]["findings"][0];
        assert!(
            finding["message"]
                .as_str()
                .expect("message")
                .contains("sdk test server listening on stdio"),
            "{era}: {doc:#}"
        );
        assert!(sent(&transcript).contains(&"prompts/list".to_string()));
    }
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
fn a_server_that_crashes_at_start_is_reported_in_both_eras() {
    let server = sdk_server();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    for (era, method) in [("legacy", "initialize"), ("modern", "server/discover")] {
        let dir = scratch(&format!("crash-{era}"));
        let (out, doc, transcript) = probe(
            &dir,
            &["--era", era],
            &server,
            &[("SERVER_VARIANT", "crash")],
        );
        assert_eq!(out.status.code(), Some(1), "{era}: {doc:#}\n{transcript}");
        let findings = doc["files"][0]["findings"].as_array().expect("findings");
        let hang: Vec<&Value> = findings
            .iter()
            .filter(|f| f["rule"] == "unanswered-request")
            .collect();
        assert_eq!(hang.len(), 1, "{era}: {doc:#}");
        let message = hang[0]["message"].as_str().expect("message");
        assert!(message.contains(&format!("`{method}`")), "{era}: {message}");
        // The server's own exit, not the probe's signal, and its last words.
        assert!(
            transcript.contains("# server exited with status 1"),
            "{era}: {transcript}"
        );
        assert!(
            transcript.contains("! RuntimeError: sdk test server: NOTES_DB is not set"),
            "{era}: {transcript}"
        );
        assert_eq!(sent(&transcript), [method], "{era}: {transcript}");
    }
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
    // A report file that is the transcript (`-o` once meant the transcript).
    let same = dir.join("same.log");
    let same = same.to_str().expect("utf-8");
    for args in [
        &["--transcript", same, "-o", same][..],
        &["--out", same, "--export-sarif", same][..],
    ] {
        let out = run(&[&["probe"][..], args, &["--", "true"]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("both the transcript and a report file"),
            "{}",
            transcript(&out)
        );
    }
}

fn drift_server(variant: &str) -> Vec<String> {
    vec![
        sdk_python().to_str().expect("utf-8").to_string(),
        root()
            .join("tests/probe/drift_server.py")
            .to_str()
            .expect("utf-8")
            .to_string(),
        variant.to_string(),
    ]
}

/// The findings of the baseline rules, as (rule, severity, message).
fn drift(doc: &Value) -> Vec<(String, String, String)> {
    doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"].as_str().expect("rule").starts_with("baseline-"))
        .map(|f| {
            let field = |k: &str| f[k].as_str().expect("string").to_string();
            (field("rule"), field("severity"), field("message"))
        })
        .collect()
}

#[test]
fn a_baseline_is_written_then_detects_added_removed_and_changed_tools() {
    let dir = scratch("baseline");
    let baseline = dir.join("mcp-baseline.json");
    let baseline_arg = baseline.to_str().expect("utf-8");
    let v1 = drift_server("v1");
    let v1: Vec<&str> = v1.iter().map(String::as_str).collect();

    // Missing: a usage error that says how to write it, before any server starts.
    let (out, _, transcript) = probe(&dir, &["--baseline", baseline_arg], &v1, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--update-baseline"), "{stderr}");
    assert!(
        transcript.is_empty(),
        "the server was started: {transcript}"
    );

    // Written, with no drift reported, in both eras: the same bytes.
    let mut written = Vec::new();
    for era in ["legacy", "modern"] {
        let (out, doc, transcript) = probe(
            &dir,
            &[
                "--era",
                era,
                "--baseline",
                baseline_arg,
                "--update-baseline",
            ],
            &v1,
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {doc:#}\n{transcript}");
        assert_eq!(rules(&doc), Vec::<String>::new(), "{era}: {doc:#}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("(2 tools, 1 resource, 0 resource templates, 1 prompt)"),
            "{era}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        written.push(fs::read_to_string(&baseline).expect("baseline written"));
    }
    assert_eq!(written[0], written[1], "the file depends on the era");
    let file: Value = serde_json::from_str(&written[0]).expect("JSON");
    assert_eq!(file["format"], "mcpdbg-baseline");
    assert_eq!(file["version"], 1);
    let names: Vec<&str> = file["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["add", "search"]);
    assert_eq!(file["resources"][0]["uri"], "notes://index");
    assert_eq!(file["prompts"][0]["name"], "summarise");
    documented_baseline_is(&written[0]);
    // The atomic write leaves no temporary file behind.
    let left: Vec<_> = fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n != "mcp-baseline.json" && n != "probe.log")
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // The same server: no drift.
    let (out, doc, _) = probe(&dir, &["--baseline", baseline_arg], &v1, &[]);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    assert_eq!(drift(&doc), Vec::new());

    let cases: [(&str, Option<i32>, &str, &str, &str); 4] = [
        (
            "added",
            Some(0),
            "baseline-tool-added",
            "info",
            "tool `export` is not in the baseline",
        ),
        (
            "removed",
            Some(1),
            "baseline-tool-removed",
            "error",
            "tool `search` is in the baseline",
        ),
        (
            "schema",
            Some(1),
            "baseline-schema-changed",
            "error",
            "the input schema of tool `add` differs from the baseline at /properties/c (added), /required",
        ),
        (
            "wording",
            Some(0),
            "baseline-tool-changed",
            "warning",
            "tool `search` differs from the baseline in its description",
        ),
    ];
    for (variant, code, rule, severity, words) in cases {
        for era in ["legacy", "modern"] {
            let server = drift_server(variant);
            let server: Vec<&str> = server.iter().map(String::as_str).collect();
            let (out, doc, transcript) = probe(
                &dir,
                &["--era", era, "--baseline", baseline_arg],
                &server,
                &[],
            );
            let found = drift(&doc);
            assert_eq!(found.len(), 1, "{variant} {era}: {found:?}\n{transcript}");
            let (r, s, m) = &found[0];
            assert_eq!(
                (r.as_str(), s.as_str()),
                (rule, severity),
                "{variant} {era}"
            );
            assert!(m.starts_with(words), "{variant} {era}: {m}");
            assert_eq!(out.status.code(), code, "{variant} {era}: {doc:#}");
            // The finding is on the baseline file: the line naming the
            // tool, or (for a tool the baseline lacks) its list.
            let finding = doc["files"][0]["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .find(|f| f["rule"] == rule)
                .expect("finding");
            assert_eq!(finding["file"], baseline_arg, "{finding:#}");
            let line = finding["line"].as_u64().expect("line");
            let text = written[0].lines().nth(line as usize - 1).expect("line");
            let expected = match variant {
                "added" => "\"tools\": [".to_string(),
                "removed" | "wording" => "\"name\": \"search\"".to_string(),
                _ => "\"name\": \"add\"".to_string(),
            };
            assert_eq!(
                text.trim().trim_end_matches(','),
                expected,
                "{variant} {era}"
            );
        }
    }
    // --fail-on warning fails on a changed description; the baseline is
    // left as it was by a comparison.
    let server = drift_server("wording");
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, _, _) = probe(
        &dir,
        &["--baseline", baseline_arg, "--fail-on", "warning"],
        &server,
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&baseline).expect("baseline"), written[0]);

    // JUnit lists the baseline rules as test cases when a baseline was
    // compared (and only then: tests/it/ci_formats.rs checks `check`).
    let out = mcpdbg()
        .args(["probe", "--format", "junit", "--out"])
        .arg(dir.join("junit.log"))
        .args(["--baseline", baseline_arg, "--"])
        .args(&server)
        .output()
        .expect("probe runs");
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(
        xml.contains(r#"<testcase name="baseline-tool-removed""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="baseline-tool-changed""#) && xml.contains("<system-out>"),
        "{xml}"
    );

    // A file that is not a baseline: exit 2, and says so.
    fs::write(&baseline, "{\"format\": \"something else\"}").expect("write");
    let (out, _, _) = probe(&dir, &["--baseline", baseline_arg], &v1, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a baseline"));
}

/// The definitions' bytes summed, and their tokens at 4 bytes each, as
/// the raw lines of a transcript show them.
fn raw_definitions(transcript: &str) -> (u64, u64) {
    let raw = raw_tool_costs(transcript);
    let bytes = raw.values().filter_map(|t| t.definition);
    (bytes.clone().sum(), bytes.map(|b| b.div_ceil(4)).sum())
}

/// The findings of `rule`.
fn of_rule<'a>(doc: &'a Value, rule: &str) -> Vec<&'a Value> {
    doc["files"][0]["findings"]
        .as_array()
        .map(|f| f.iter().filter(|x| x["rule"] == rule).collect())
        .unwrap_or_default()
}

/// The baseline records what each tool's definition costs (worked out
/// here from the transcript's tools/list), and `probe --baseline` reports
/// `tool-list-cost-grew` when the sum grows past --cost-growth (10% by
/// default) and not below it; a baseline from before the cost was recorded
/// still loads, with a note; `--max-tool-list-tokens` is a budget.
#[test]
fn the_tool_list_cost_is_recorded_and_its_growth_reported() {
    let dir = scratch("cost");
    let baseline = dir.join("b.json");
    let arg = baseline.to_str().expect("utf-8");
    let server = |variant: &str| drift_server(variant);
    let legacy = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--era".to_string(), "legacy".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let run_probe = |args: Vec<String>, variant: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let server = server(variant);
        let server: Vec<&str> = server.iter().map(String::as_str).collect();
        probe(&dir, &args, &server, &[])
    };
    let (out, _, transcript) = run_probe(legacy(&["--baseline", arg, "--update-baseline"]), "v1");
    assert_eq!(out.status.code(), Some(0), "{transcript}");
    let written = fs::read_to_string(&baseline).expect("baseline");
    let file: Value = serde_json::from_str(&written).expect("JSON");
    let raw = raw_tool_costs(&transcript);
    let (base, base_tokens) = raw_definitions(&transcript);
    assert_eq!(file["toolListCost"]["bytes"], base, "{written}");
    assert_eq!(raw.len(), 2);
    for (name, tool) in &raw {
        assert_eq!(
            file["toolListCost"]["tools"][name],
            tool.definition.expect("listed"),
            "{name}"
        );
    }

    for (variant, fires) in [("v1", false), ("wording", false), ("verbose", true)] {
        let (out, doc, transcript) = run_probe(legacy(&["--baseline", arg]), variant);
        let (now, _) = raw_definitions(&transcript);
        let percent = now.saturating_sub(base) as f64 * 100.0 / base as f64;
        // The fixture is what it says: under and over 10%.
        assert_eq!(
            percent > 10.0,
            fires,
            "{variant}: {now} bytes against {base}"
        );
        let grew = of_rule(&doc, "tool-list-cost-grew");
        assert_eq!(grew.len(), usize::from(fires), "{variant}: {doc:#}");
        assert_eq!(out.status.code(), Some(0), "{variant}: a warning");
        if let Some(f) = grew.first() {
            assert_eq!(f["severity"], "warning");
            assert_eq!(f["file"], arg);
            let line = f["line"].as_u64().expect("line") as usize;
            assert_eq!(
                written.lines().nth(line - 1).map(str::trim),
                Some("\"toolListCost\": {"),
                "{f:#}"
            );
            let message = f["message"].as_str().expect("message");
            assert!(
                message.starts_with(&format!(
                    "the tool list's definitions cost {now} bytes (about {} tokens), {percent:.1}% more than the {base} bytes of the baseline ({arg}), over --cost-growth 10%; grown: `search` (+{} bytes)",
                    now.div_ceil(4),
                    now - base
                )),
                "{message}"
            );
        }
        if variant == "wording" {
            assert!(percent > 0.0, "the wording variant's tool list grew");
            // Under a threshold below its growth, it fires.
            let threshold = format!("{:.3}", percent / 2.0);
            let (_, doc, _) = run_probe(
                legacy(&["--baseline", arg, "--cost-growth", &threshold]),
                variant,
            );
            assert_eq!(of_rule(&doc, "tool-list-cost-grew").len(), 1, "{doc:#}");
        }
    }

    // The configuration file holds the same settings, and the command line
    // wins over it: its budget one token under the list's cost fires, its
    // growth of 1000% does not (the verbose variant grew past 10%).
    let config = dir.join("mcpdbg.toml");
    fs::write(
        &config,
        format!(
            "cost-growth = 1000\nmax-tool-list-tokens = {}\ntokens = \"estimate\"\n",
            base_tokens - 1
        ),
    )
    .expect("write");
    let config = config.to_str().expect("utf-8");
    let (_, doc, _) = run_probe(legacy(&["--config", config, "--baseline", arg]), "verbose");
    assert_eq!(of_rule(&doc, "tool-list-cost-grew").len(), 0, "{doc:#}");
    let (_, doc, _) = run_probe(legacy(&["--config", config]), "v1");
    assert_eq!(of_rule(&doc, "tool-list-over-budget").len(), 1, "{doc:#}");
    let growth = ["--cost-growth", "10", "--max-tool-list-tokens", "100000"];
    let mut args = vec!["--config", config, "--baseline", arg];
    args.extend(growth);
    let (_, doc, _) = run_probe(legacy(&args), "verbose");
    assert_eq!(of_rule(&doc, "tool-list-cost-grew").len(), 1, "{doc:#}");
    assert_eq!(of_rule(&doc, "tool-list-over-budget").len(), 0, "{doc:#}");

    // A baseline written before the cost was recorded: compared as before,
    // the cost not compared, and stderr says so.
    let mut old: Value = serde_json::from_str(&written).expect("JSON");
    old.as_object_mut().expect("object").remove("toolListCost");
    fs::write(&baseline, serde_json::to_string_pretty(&old).expect("JSON")).expect("write");
    let (out, doc, _) = run_probe(legacy(&["--baseline", arg]), "verbose");
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    assert_eq!(of_rule(&doc, "tool-list-cost-grew").len(), 0, "{doc:#}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("records no tool-list cost"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The budget, with or without a baseline: at the tokens worked out from
    // the transcript, no finding; one below, an error on the tools/list
    // answer.
    for (budget, fires) in [(base_tokens, false), (base_tokens - 1, true)] {
        let budget = budget.to_string();
        let (out, doc, transcript) = run_probe(legacy(&["--max-tool-list-tokens", &budget]), "v1");
        let over = of_rule(&doc, "tool-list-over-budget");
        assert_eq!(over.len(), usize::from(fires), "{budget}: {doc:#}");
        assert_eq!(out.status.code(), Some(i32::from(fires)), "{budget}");
        if let Some(f) = over.first() {
            assert_eq!(f["severity"], "error");
            let line = f["line"].as_u64().expect("line") as usize;
            let text = transcript.lines().nth(line - 1).expect("the line");
            assert!(
                text.contains(" < ") && text.contains(r#""tools":["#),
                "{text}"
            );
            assert_eq!(
                f["message"],
                format!(
                    "the definitions of the 2 tools listed cost {base_tokens} tokens (estimated at 4 bytes per token), over the budget of {budget} (--max-tool-list-tokens)"
                )
            );
        }
    }
}

#[test]
fn a_baseline_is_not_written_from_a_list_that_was_not_answered() {
    let dir = scratch("baseline-hang");
    let baseline = dir.join("b.json");
    let python = sdk_python();
    let script = root().join("tests/probe/legacy_server.py");
    let server = [
        python.to_str().expect("utf-8"),
        script.to_str().expect("utf-8"),
        "silent",
    ];
    let (out, _, _) = probe(
        &dir,
        &[
            "--start-timeout",
            "1",
            "--baseline",
            baseline.to_str().expect("utf-8"),
            "--update-baseline",
        ],
        &server,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!baseline.exists());
}

/// docs/ci.md shows the baseline of `drift_server.py v1` after a
/// `<!-- baseline: ... -->` marker, with parts left out at lines `...`:
/// the parts must appear in the file in order, the first at its start and
/// the last at its end.
fn documented_baseline_is(written: &str) {
    let doc = fs::read_to_string(root().join("docs/ci.md")).expect("docs/ci.md");
    let at = doc
        .find("<!-- baseline: tests/probe/drift_server.py v1")
        .expect("docs/ci.md shows a baseline");
    let block = &doc[at..];
    let block = &block[block.find("```").expect("a block follows")..];
    let block = &block[block.find('\n').expect("newline") + 1..];
    let block = &block[..block.find("```").expect("block end")];
    let parts: Vec<&str> = block.split("\n...\n").collect();
    let stale = format!("docs/ci.md: the baseline block is stale; probe writes:\n{written}");
    assert!(written.starts_with(parts[0]), "{stale}");
    let mut from = 0;
    for part in &parts {
        let found = written[from..]
            .find(part)
            .unwrap_or_else(|| panic!("{stale}"));
        from += found + part.len();
    }
    assert!(written.ends_with(parts[parts.len() - 1]), "{stale}");
}

/// The reference server, `@modelcontextprotocol/server-everything` from
/// npm, pinned in tests/probe/package-lock.json and installed by
/// scripts/test into target/probe-node.
fn everything() -> Vec<String> {
    let script = root().join(
        "target/probe-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        script.exists(),
        "{} does not exist: run scripts/test, which installs the pinned server-everything",
        script.display()
    );
    vec![
        "node".to_string(),
        script.to_str().expect("utf-8").to_string(),
        "stdio".to_string(),
    ]
}

#[test]
fn the_reference_server_everything_is_clean() {
    let server = everything();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    // Its tools that answer on their own (no sampling, elicitation or
    // network), with arguments where they need them.
    let calls: &[(&str, &str)] = &[
        ("echo", r#"{"message":"hi"}"#),
        ("get-sum", r#"{"a":2,"b":3}"#),
        ("get-structured-content", r#"{"location":"Chicago"}"#),
        (
            "get-annotated-message",
            r#"{"messageType":"error","includeImage":true}"#,
        ),
        ("get-resource-links", r#"{"count":2}"#),
        ("get-resource-reference", r#"{}"#),
        ("get-tiny-image", r#"{}"#),
        (
            "trigger-long-running-operation",
            r#"{"duration":1,"steps":2}"#,
        ),
    ];
    let mut args: Vec<&str> = Vec::new();
    for (tool, arguments) in calls {
        args.extend(["--call", tool, "--arguments", arguments]);
    }
    let lists = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ];
    // It speaks only the legacy era (its SDK answers server/discover with
    // -32601): `auto` falls back, and `legacy` goes straight there.
    for era in ["legacy", "auto"] {
        let dir = scratch(&format!("everything-{era}"));
        let mut with_era = vec!["--era", era];
        with_era.extend(&args);
        let (out, doc, transcript) = probe(&dir, &with_era, &server, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{era}: {doc:#}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(rules(&doc), Vec::<String>::new(), "{era}: {doc:#}");
        let session = &doc["files"][0]["sessions"][0];
        assert_eq!(session["era"], "legacy", "{era}");
        assert_eq!(session["server"]["name"], "mcp-servers/everything", "{era}");
        let sent = sent(&transcript);
        for method in lists {
            assert!(sent.contains(&method.to_string()), "{era}: {sent:?}");
        }
        assert_eq!(
            sent.iter().filter(|m| *m == "tools/call").count(),
            calls.len(),
            "{era}"
        );
        assert!(
            transcript.contains(r#""structuredContent":"#),
            "{era}: the structured tool answered"
        );
        // What its tools cost, worked out from the tools/list and the
        // tools/call answers in the transcript.
        let raw = assert_tool_cost(&doc["files"][0]["tool_cost"], &transcript, era);
        assert_eq!(
            raw.values().filter(|t| !t.results.is_empty()).count(),
            calls.len(),
            "{era}: every call's result is measured"
        );
        assert_eq!(
            sent[0],
            if era == "legacy" {
                "initialize"
            } else {
                "server/discover"
            }
        );
    }
    // Asked for the modern era only, it refuses server/discover: nothing
    // is listed, and stderr says why.
    let dir = scratch("everything-modern");
    let (out, doc, transcript) = probe(&dir, &["--era", "modern"], &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    assert_eq!(sent(&transcript), ["server/discover"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the server refused server/discover"),
        "{stderr}"
    );
}

/// FastMCP from PyPI (on the official Python SDK), pinned in
/// tests/probe/requirements-fastmcp.txt and installed by scripts/test.
fn fastmcp_server() -> Vec<String> {
    let python = std::env::var_os("MCPDBG_TEST_FASTMCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/probe-fastmcp/bin/python"));
    assert!(
        python.exists(),
        "{} does not exist: run scripts/test, which installs the pinned FastMCP",
        python.display()
    );
    vec![
        python.to_str().expect("utf-8").to_string(),
        root()
            .join("tests/probe/fastmcp_server.py")
            .to_str()
            .expect("utf-8")
            .to_string(),
    ]
}

#[test]
fn a_fastmcp_server_is_clean_in_both_eras() {
    let server = fastmcp_server();
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    for (era, speaks, version) in [
        ("legacy", "legacy", "2025-11-25"),
        ("modern", "modern", "2026-07-28"),
        ("auto", "modern", "2026-07-28"),
    ] {
        let dir = scratch(&format!("fastmcp-{era}"));
        let (out, doc, transcript) = probe(
            &dir,
            &[
                "--era",
                era,
                "--call",
                "add",
                "--arguments",
                r#"{"a":2,"b":3}"#,
            ],
            &server,
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {doc:#}\n{transcript}");
        // A FastMCP server speaking 2026 declares `logging`, which 2026-07-28
        // deprecates: noted at its `server/discover` answer, and nothing else.
        let deprecated: Vec<&Value> = doc["files"][0]["findings"]
            .as_array()
            .map(|f| {
                f.iter()
                    .filter(|x| x["rule"] == "deprecated-feature")
                    .collect()
            })
            .unwrap_or_default();
        for finding in &deprecated {
            let message = finding["message"].as_str().expect("message");
            assert!(
                speaks == "modern" && message.contains("server `logging`"),
                "{era}: {message}"
            );
        }
        let others: Vec<String> = rules(&doc)
            .into_iter()
            .filter(|r| r != "deprecated-feature")
            .collect();
        assert_eq!(others, Vec::<String>::new(), "{era}: {doc:#}");
        let session = &doc["files"][0]["sessions"][0];
        assert_eq!(session["era"], speaks, "{era}");
        assert_eq!(session["protocol_version"], version, "{era}");
        assert_eq!(session["server"]["name"], "fastmcp-probe", "{era}");
        let sent = sent(&transcript);
        for method in ["tools/list", "resources/list", "prompts/list", "tools/call"] {
            assert!(sent.contains(&method.to_string()), "{era}: {sent:?}");
        }
        assert!(
            transcript.contains(r#""structuredContent":{"result":5}"#),
            "{era}: {transcript}"
        );
        // FastMCP lists `_meta` with each tool: not counted.
        assert!(transcript.contains(r#""_meta":{"fastmcp""#), "{era}");
        let raw = assert_tool_cost(&doc["files"][0]["tool_cost"], &transcript, era);
        assert_eq!(raw["add"].results.len(), 1, "{era}");
    }
}

/// A server's output is held to the same limits as `replay`'s: a line over
/// 16 MiB is skipped as it is read and a `# gap` event gives its size (the
/// probe read it whole: an endless line ran it out of memory), whatever
/// the stream, and the probe keeps its time limits.
#[test]
fn a_line_over_the_limit_is_a_gap_not_recorded() {
    let dir = scratch("long-line");
    for (stream, redirect) in [("stdout", ""), ("stderr", " >&2")] {
        let script = format!("head -c 20000000 /dev/zero{redirect}; echo; sleep 60");
        let (out, doc, transcript) = probe(
            &dir,
            &["--era", "legacy", "--start-timeout", "2", "--grace", "1"],
            &["sh", "-c", &script],
            &[],
        );
        assert_eq!(out.status.code(), Some(1), "{stream}: {doc:#}");
        assert!(
            transcript.len() < 100_000,
            "{stream}: the 20 MB line was recorded ({} bytes)",
            transcript.len()
        );
        assert!(
            transcript.contains(&format!(
                "# gap: 20000000 bytes of {stream} were not recorded"
            )),
            "{stream}: {transcript}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "a line of 20000000 bytes on its {stream}, longer than the probe's limit (16 MiB)"
            )),
            "{stream}: {stderr}"
        );
        let rules = rules(&doc);
        assert!(rules.contains(&"recording-gap".to_string()), "{rules:?}");
        assert!(
            rules.contains(&"unanswered-request".to_string()),
            "{rules:?}"
        );
    }
}

/// `mcpdbg probe ARGS -- SERVER...` from the repository root, with the
/// generous waits of [`probe`] and TMPDIR set to `tmp`; no transcript is
/// asked for unless ARGS do.
fn probe_in_ci(tmp: &Path, args: &[&str], server: &[String]) -> Output {
    fs::create_dir_all(tmp).expect("tmp dir");
    mcpdbg()
        .arg("probe")
        .args(args)
        .args(["--timeout", "60", "--start-timeout", "120", "--grace", "20"])
        .arg("--")
        .args(server)
        .env("TMPDIR", tmp)
        .output()
        .expect("probe runs")
}

/// The files directly in `dir`, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Each result's fingerprint and the URI of its location.
fn fingerprints(sarif: &Value) -> Vec<(String, String)> {
    let mut prints: Vec<(String, String)> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let print = r["partialFingerprints"]["mcpdbg/v1"]
                .as_str()
                .expect("fingerprint");
            assert_eq!(r["partialFingerprints"]["primaryLocationLineHash"], print);
            let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .expect("uri");
            (print.to_string(), uri.to_string())
        })
        .collect();
    prints.sort();
    prints
}

/// docs/ci.md: "the fingerprints stay the same from run to run". Two runs
/// of the same server with the same findings, some from a baseline and
/// some not, give the same `partialFingerprints`; the baseline's findings
/// are on the baseline file, the others on the server's stand-in, and no
/// transcript is left anywhere.
#[test]
fn probe_fingerprints_are_the_same_from_run_to_run() {
    let dir = scratch("fingerprints");
    let tmp = dir.join("tmp");
    let baseline = "target/test-scratch/probe/fingerprints/b.json";
    let v1 = drift_server("v1");
    let written = probe_in_ci(&tmp, &["--baseline", baseline, "--update-baseline"], &v1);
    assert_eq!(written.status.code(), Some(0), "{}", transcript(&written));
    let before = names(root());
    let mut runs = Vec::new();
    for _ in 0..2 {
        let out = probe_in_ci(
            &tmp,
            &[
                "--format",
                "sarif",
                "--baseline",
                baseline,
                "--call",
                "stray",
            ],
            &sdk_server(),
        );
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF");
        runs.push(fingerprints(&sarif));
    }
    assert!(!runs[0].is_empty());
    assert_eq!(runs[0], runs[1], "the fingerprints changed between runs");
    let uris: std::collections::BTreeSet<&str> = runs[0].iter().map(|(_, u)| u.as_str()).collect();
    assert_eq!(
        uris.into_iter().collect::<Vec<_>>(),
        ["%3Cprobe%3A%20tests/sdk/server.py%3E", baseline],
        "{:#?}",
        runs[0]
    );
    // No transcript kept: none in the working directory, none left in TMPDIR.
    assert_eq!(names(root()), before);
    assert_eq!(names(&tmp), Vec::<String>::new());
}

/// One run, several outputs: the table on stdout (saying once that no
/// transcript was kept), SARIF, JUnit and JSON beside it, each valid and
/// about the same findings; `-o` is the report, so a rerun replaces it.
#[test]
fn probe_exports_beside_the_table_and_o_is_the_report() {
    let dir = scratch("exports");
    let tmp = dir.join("tmp");
    let (sarif, junit, json) = (dir.join("a.sarif"), dir.join("b.xml"), dir.join("c.json"));
    let out = probe_in_ci(
        &tmp,
        &[
            "--call",
            "stray",
            "--export-sarif",
            sarif.to_str().expect("utf-8"),
            "--export-junit",
            junit.to_str().expect("utf-8"),
            "--export-json",
            json.to_str().expect("utf-8"),
        ],
        &sdk_server(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        table.matches("the transcript was not kept").count(),
        1,
        "{table}"
    );
    assert!(
        table.contains("<probe: tests/sdk/server.py> (native format)"),
        "{table}"
    );
    assert!(table.contains("stray-output"), "{table}");
    let doc: Value = serde_json::from_slice(&fs::read(&json).expect("JSON export")).expect("JSON");
    assert_eq!(rules(&doc), ["stray-output"]);
    let problems = crate::ci_formats::multitool_problems(&sarif, &dir);
    assert!(problems.is_empty(), "the Multitool objects:\n{problems:#?}");
    let sarif_doc: Value = serde_json::from_slice(&fs::read(&sarif).expect("SARIF")).expect("JSON");
    assert_eq!(sarif_doc["runs"][0]["results"][0]["ruleId"], "stray-output");
    let parsed = crate::ci_formats::junit_of(&fs::read(&junit).expect("JUnit"), &dir, "parsed");
    crate::ci_formats::check_junit(&parsed, &doc, Some("error"));
    assert_eq!(names(&tmp), Vec::<String>::new());

    // -o: the report in --format, replaced on a rerun; stdout stays empty.
    let report = dir.join("results.sarif");
    for _ in 0..2 {
        let out = probe_in_ci(
            &tmp,
            &["--format", "sarif", "-o", report.to_str().expect("utf-8")],
            &sdk_server(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        assert!(out.stdout.is_empty());
        let doc: Value =
            serde_json::from_slice(&fs::read(&report).expect("report")).expect("SARIF");
        assert_eq!(doc["version"], "2.1.0");
    }
    // --transcript keeps it, and the report is named by it.
    let kept = dir.join("kept.log");
    let out = probe_in_ci(
        &tmp,
        &[
            "--format",
            "json",
            "--transcript",
            kept.to_str().expect("utf-8"),
        ],
        &sdk_server(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert_eq!(
        json_of(&out)["files"][0]["path"],
        kept.to_str().expect("utf-8")
    );
    assert!(
        fs::read_to_string(&kept)
            .expect("kept")
            .contains("tools/list")
    );
}

/// README.md's CI command (after its `<!-- probe-ci` marker), with the
/// server, the baseline and the SARIF file put in a scratch directory:
/// annotations on stdout, SARIF beside them, the same fingerprints on a
/// second run, and nothing left in the working directory.
#[test]
fn the_readme_ci_command_gives_the_same_fingerprints_twice() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let at = readme
        .find("<!-- probe-ci:")
        .expect("README.md marks its CI command");
    let line = readme[at..]
        .lines()
        .find_map(|l| l.trim().strip_prefix("- run: mcpdbg "))
        .expect("a `run: mcpdbg probe` line");
    let dir = scratch("readme-ci");
    let tmp = dir.join("tmp");
    let baseline = "target/test-scratch/probe/readme-ci/mcp-baseline.json";
    let sarif = dir.join("probe.sarif");
    let sarif_arg = sarif.to_str().expect("utf-8").to_string();
    let written = probe_in_ci(
        &tmp,
        &["--baseline", baseline, "--update-baseline"],
        &drift_server("v1"),
    );
    assert_eq!(written.status.code(), Some(0), "{}", transcript(&written));
    let (options, server) = line.split_once(" -- ").expect("a server after --");
    assert_eq!(server, "python server.py");
    let args: Vec<String> = options
        .split_whitespace()
        .map(|w| match w {
            "mcp-baseline.json" => baseline.to_string(),
            "probe.sarif" => sarif_arg.clone(),
            w => w.to_string(),
        })
        .collect();
    assert_eq!(args[0], "probe");
    let before = names(root());
    let mut runs = Vec::new();
    for _ in 0..2 {
        let out = mcpdbg()
            .args(&args)
            .args(["--timeout", "60", "--start-timeout", "120", "--grace", "20"])
            .arg("--")
            .args(sdk_server())
            .env("SERVER_VARIANT", "banner")
            .env("TMPDIR", &tmp)
            .output()
            .expect("probe runs");
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("::error title=stray-output::"), "{stdout}");
        assert!(
            stdout.contains(&format!("::error file={baseline},line=")),
            "{stdout}"
        );
        let doc: Value = serde_json::from_slice(&fs::read(&sarif).expect("SARIF")).expect("JSON");
        runs.push(fingerprints(&doc));
    }
    assert!(runs[0].len() >= 2, "{:#?}", runs[0]);
    assert_eq!(runs[0], runs[1], "the fingerprints changed between runs");
    assert_eq!(names(root()), before);
    assert_eq!(names(&tmp), Vec::<String>::new());
}
