//! The assertions that make a capture a test (`--expect-tool`,
//! `--forbid-tool`, `--max-latency`, `--require-complete`,
//! `--max-result-bytes`): each rule on real corpus sessions in `check`'s
//! table, JSON and SARIF (validated by the pinned SARIF Multitool) with the
//! exit status `--fail-on` gives; in `replay` and `probe` against the MCP
//! Python SDK's server (tests/sdk/server.py), passing and failing; and
//! silence where no assertion is given. The expectations were written from
//! the sessions' raw lines (quoted above each test) before mcpdbg ran.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use mcpdbg::rules::{Group, Rule};
use serde_json::Value;

use crate::common::*;

/// fastmcp 4.2.3 with the mcp 2.3.0 client, recorded with timestamps:
/// line 2 `initialize` (sent as the server starts, answered at line 6 after
/// 1.75 s), line 8 `add` (answered at 9 after 317 ms), line 10 `tools/list`
/// (answered at 11: add, lookup, wait_for_ever, slow), lines 12, 14, 16, 18
/// `add` (answered at 13, 15, 17, 19 in under 10 ms), line 20 `lookup`
/// (cancelled at 21, never answered), line 22 `slow` (answered at 23 after
/// 2.6 s); the log ends at line 27. Each `add` result is 130 bytes as
/// compact JSON, `slow`'s 166. It has two warnings and no error of its own.
const SLOW: &str = "tests/corpus/fastmcp/slow-vs-client-timeout.log";

/// @modelcontextprotocol/sdk 1.32.2: line 5 `wait_forever` is never
/// answered; the host closes stdin at line 6; the log ends at line 9.
const HANG: &str = "tests/corpus/ts-sdk/hang-client-closes.log";

/// Two sessions of one server (@modelcontextprotocol/sdk 1.32.2): the first
/// lists echo, add, wait_forever, slow, fail and crash at line 6 and calls
/// nothing; the second (from line 11) calls `echo` at line 15; the log
/// ends at line 20.
const RESTART: &str = "tests/corpus/ts-sdk/restart.log";

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/assertions").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `mcpdbg check --format json ARGS FILE`: the exit status and the report.
fn check(args: &[&str], file: &str) -> (i32, Value) {
    let out = mcpdbg()
        .args(["check", "--format", "json"])
        .args(args)
        .arg(file)
        .output()
        .expect("check runs");
    let code = out.status.code().expect("exit status");
    assert!(code < 2, "{}", transcript(&out));
    (code, json_of(&out))
}

/// The findings of `rule` in a report (every file): (line, message).
fn found(doc: &Value, rule: &str) -> Vec<(u64, String)> {
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["findings"].as_array().expect("findings"))
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            (
                f["line"].as_u64().expect("line"),
                f["message"].as_str().expect("message").to_string(),
            )
        })
        .collect()
}

fn lines(found: &[(u64, String)]) -> Vec<u64> {
    found.iter().map(|(l, _)| *l).collect()
}

/// The assertion rules, by name, from the catalogue.
fn assertion_rules() -> Vec<&'static str> {
    Rule::ALL
        .iter()
        .filter(|r| r.info().group == Group::Assertions)
        .map(|r| r.name())
        .collect()
}

#[test]
fn the_catalogue_has_five_assertion_rules_each_explained_and_an_error() {
    let names = assertion_rules();
    assert_eq!(
        names,
        [
            "expected-tool-not-called",
            "forbidden-tool-called",
            "latency-over-budget",
            "request-not-completed",
            "result-over-budget"
        ]
    );
    let listed = String::from_utf8(run(&["rules", "--format", "markdown"]).stdout).expect("utf-8");
    for name in names {
        let out = run(&["explain", "--format", "json", name]);
        assert!(out.status.success(), "{}", transcript(&out));
        let doc = json_of(&out);
        let rule = &doc["rules"][0];
        assert_eq!(rule["name"], name, "{doc:#}");
        assert_eq!(rule["severity"], "error", "{name}");
        assert_eq!(rule["group"], "assertions", "{name}");
        assert!(
            rule["spec"]
                .as_str()
                .expect("spec")
                .contains("not a protocol rule"),
            "{name}"
        );
        assert!(
            listed.contains(&format!("| `{name}` | error | assertions |")),
            "{name} is not in `rules --format markdown`"
        );
    }
}

#[test]
fn expect_tool_is_located_where_the_tool_was_listed_or_at_the_end() {
    let (code, doc) = check(
        &[
            "--expect-tool",
            "add",
            "--expect-tool",
            "slow",
            "--expect-tool",
            "wait_for_ever",
            "--expect-tool",
            "nope",
        ],
        SLOW,
    );
    let missing = found(&doc, "expected-tool-not-called");
    assert_eq!(lines(&missing), [11, 27], "{missing:#?}");
    assert!(
        missing[0].1.contains("never called `wait_for_ever`")
            && missing[0].1.contains("the server listed it here"),
        "{}",
        missing[0].1
    );
    assert!(
        missing[1].1.contains("never called `nope`")
            && missing[1]
                .1
                .contains("tools/list answers (the first at line 11) never listed it"),
        "{}",
        missing[1].1
    );
    assert_eq!(code, 1, "an assertion is an error");
    // Tools that were called pass, and the session's own warnings leave
    // the exit status at 0.
    let (code, doc) = check(&["--expect-tool", "add", "--expect-tool", "slow"], SLOW);
    assert!(found(&doc, "expected-tool-not-called").is_empty());
    assert_eq!(code, 0);
    // A server restarted in the same log: a tool called in the second
    // session was called; one never called is said once, where the first
    // session listed it.
    let (code, doc) = check(&["--expect-tool", "echo"], RESTART);
    assert!(
        found(&doc, "expected-tool-not-called").is_empty(),
        "{doc:#}"
    );
    assert_eq!(code, 0);
    let (_, doc) = check(&["--expect-tool", "echo", "--expect-tool", "add"], RESTART);
    let missing = found(&doc, "expected-tool-not-called");
    assert_eq!(lines(&missing), [6], "{missing:#?}");
    assert!(
        missing[0]
            .1
            .contains("the server's 2 sessions in this log never called `add`"),
        "{}",
        missing[0].1
    );
}

#[test]
fn forbid_tool_is_a_finding_at_each_call() {
    let (code, doc) = check(&["--forbid-tool", "lookup"], SLOW);
    let calls = found(&doc, "forbidden-tool-called");
    assert_eq!(lines(&calls), [20], "{calls:#?}");
    assert!(
        calls[0]
            .1
            .contains("the client called `lookup` (id 8), a tool --forbid-tool forbids"),
        "{}",
        calls[0].1
    );
    assert_eq!(code, 1);
    let (_, doc) = check(&["--forbid-tool", "add", "--forbid-tool", "lookup"], SLOW);
    assert_eq!(
        lines(&found(&doc, "forbidden-tool-called")),
        [8, 12, 14, 16, 18, 20]
    );
    // --fail-on and --severity apply as to any rule.
    let (code, _) = check(&["--forbid-tool", "lookup", "--fail-on", "never"], SLOW);
    assert_eq!(code, 0);
    let (code, doc) = check(
        &[
            "--forbid-tool",
            "lookup",
            "--severity",
            "forbidden-tool-called=warning",
        ],
        SLOW,
    );
    assert_eq!(code, 0);
    assert_eq!(doc["files"][0]["findings"][0]["severity"], "warning");
    let (code, _) = check(
        &[
            "--forbid-tool",
            "lookup",
            "--severity",
            "forbidden-tool-called=warning",
            "--fail-on",
            "warning",
        ],
        SLOW,
    );
    assert_eq!(code, 1);
    let (code, doc) = check(&["--forbid-tool", "wait_for_ever"], SLOW);
    assert!(found(&doc, "forbidden-tool-called").is_empty());
    assert_eq!(code, 0);
}

#[test]
fn max_latency_judges_each_answer_by_its_own_budget() {
    let (code, doc) = check(&["--max-latency", "1s", "--max-latency", "add=100ms"], SLOW);
    let over = found(&doc, "latency-over-budget");
    // add id 2 (317 ms, over add's 100 ms) and slow (2.6 s, over 1 s); the
    // other adds took under 10 ms; initialize (1.75 s) includes the
    // server's start and no budget names it.
    assert_eq!(lines(&over), [9, 23], "{over:#?}");
    assert!(
        over[0].1.contains(
            "`tools/call` \"add\" (id 2, line 8) was answered after 317 ms, over `add`'s --max-latency budget of 100 ms"
        ),
        "{}",
        over[0].1
    );
    assert!(
        over[1].1.contains(
            "`tools/call` \"slow\" (id 9, line 22) was answered after 2.6 s, over the --max-latency budget of 1.0 s"
        ),
        "{}",
        over[1].1
    );
    assert_eq!(code, 1);
    // A budget named for the handshake's method judges it, start and all.
    let (_, doc) = check(&["--max-latency", "initialize=1s"], SLOW);
    let over = found(&doc, "latency-over-budget");
    assert_eq!(lines(&over), [6], "{over:#?}");
    assert!(over[0].1.contains("after 1.7 s"), "{}", over[0].1);
    // Budgets every answer keeps.
    let (code, doc) = check(&["--max-latency", "3s"], SLOW);
    assert!(found(&doc, "latency-over-budget").is_empty());
    assert_eq!(code, 0);
}

#[test]
fn a_log_without_timestamps_gets_a_note_not_a_latency_finding() {
    let dir = scratch("untimed");
    let untimed = dir.join("slow-untimed.log");
    let text: String = fs::read_to_string(root().join(SLOW))
        .expect("corpus log")
        .lines()
        .map(|l| {
            let (stamp, rest) = l.split_once(' ').expect("a timestamp");
            assert!(stamp.ends_with('Z'), "{l}");
            format!("{rest}\n")
        })
        .collect();
    fs::write(&untimed, text).expect("write");
    let path = untimed.to_str().expect("utf-8");
    let (code, doc) = check(&["--max-latency", "1ms"], path);
    assert!(found(&doc, "latency-over-budget").is_empty(), "{doc:#}");
    assert!(found(&doc, "slow-response").is_empty());
    // The answers the default budget applies to: add (5), tools/list and
    // slow; initialize includes the start.
    let notes = found(&doc, "format-assumption");
    assert_eq!(lines(&notes), [9], "{notes:#?}");
    assert!(
        notes[0]
            .1
            .contains("--max-latency could not be judged for 7 answers (the first at line 9)"),
        "{}",
        notes[0].1
    );
    assert_eq!(code, 0);
    // Without the assertion, no such note.
    let (_, doc) = check(&[], path);
    assert!(found(&doc, "format-assumption").is_empty(), "{doc:#}");
}

#[test]
fn require_complete_is_one_finding_naming_what_the_hang_model_left_open() {
    let (code, doc) = check(&["--require-complete"], SLOW);
    let open = found(&doc, "request-not-completed");
    assert_eq!(lines(&open), [20], "{open:#?}");
    assert!(
        open[0].1.contains(
            "1 request was not completed when the session ended (line 27), which --require-complete forbids: client `tools/call` \"lookup\" (id 8, line 20, cancelled)"
        ),
        "{}",
        open[0].1
    );
    // The hang model's own finding is still there, once.
    assert_eq!(lines(&found(&doc, "cancelled-request")), [20]);
    assert_eq!(code, 1);
    let (code, doc) = check(&["--require-complete"], HANG);
    let open = found(&doc, "request-not-completed");
    assert_eq!(lines(&open), [5], "{open:#?}");
    assert!(
        open[0]
            .1
            .contains("client `tools/call` \"wait_forever\" (id 1, line 5, never answered)"),
        "{}",
        open[0].1
    );
    assert_eq!(lines(&found(&doc, "unanswered-request")), [5]);
    assert_eq!(code, 1);
    // A session that completes passes.
    let (code, doc) = check(&["--require-complete"], RESTART);
    assert!(found(&doc, "request-not-completed").is_empty());
    assert_eq!(code, 0);
}

#[test]
fn max_result_bytes_measures_each_tool_result() {
    // The largest result is slow's 166 bytes: a budget of 166 holds.
    let (code, doc) = check(&["--max-result-bytes", "166"], SLOW);
    assert!(found(&doc, "result-over-budget").is_empty(), "{doc:#}");
    assert_eq!(code, 0);
    let (_, doc) = check(&["--max-result-bytes", "130"], SLOW);
    assert_eq!(lines(&found(&doc, "result-over-budget")), [23]);
    let (_, doc) = check(&["--max-result-bytes", "129"], SLOW);
    assert_eq!(
        lines(&found(&doc, "result-over-budget")),
        [9, 13, 15, 17, 19, 23]
    );
    let (code, doc) = check(&["--max-result-bytes", "150"], SLOW);
    let over = found(&doc, "result-over-budget");
    assert_eq!(lines(&over), [23]);
    assert!(
        over[0].1.contains(
            "`tools/call` \"slow\" (id 9, line 22) returned a result of 166 bytes, over the --max-result-bytes budget of 150 bytes"
        ),
        "{}",
        over[0].1
    );
    assert_eq!(code, 1);
    // Sizes with units.
    let (_, doc) = check(&["--max-result-bytes", "0.1KiB"], SLOW);
    assert_eq!(found(&doc, "result-over-budget").len(), 6);
    let (_, doc) = check(&["--max-result-bytes", "1MB"], SLOW);
    assert!(found(&doc, "result-over-budget").is_empty());
    let out = run(&["check", "--max-result-bytes", "64 furlongs", SLOW]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
}

/// Every assertion at once, failing: the table names each rule, the SARIF
/// carries each at its line and passes the Multitool.
#[test]
fn the_table_and_sarif_carry_every_assertion() {
    let args = [
        "--expect-tool",
        "wait_for_ever",
        "--forbid-tool",
        "lookup",
        "--max-latency",
        "1s",
        "--require-complete",
        "--max-result-bytes",
        "150",
    ];
    let expected = [
        ("expected-tool-not-called", 11),
        ("forbidden-tool-called", 20),
        ("request-not-completed", 20),
        ("latency-over-budget", 23),
        ("result-over-budget", 23),
    ];
    let table = mcpdbg()
        .arg("check")
        .args(args)
        .arg(SLOW)
        .output()
        .expect("check runs");
    assert_eq!(table.status.code(), Some(1));
    let text = String::from_utf8_lossy(&table.stdout);
    for (rule, line) in expected {
        assert!(
            text.lines()
                .any(|l| l.contains(rule) && l.contains(&format!("│ {line} "))),
            "{rule} at line {line}:\n{text}"
        );
    }
    let dir = scratch("sarif");
    let sarif = dir.join("assertions.sarif");
    let out = mcpdbg()
        .args(["check", "--format", "sarif", "-o"])
        .arg(&sarif)
        .args(args)
        .arg(SLOW)
        .output()
        .expect("check runs");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let doc: Value = serde_json::from_slice(&fs::read(&sarif).expect("SARIF")).expect("JSON");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    for (rule, line) in expected {
        assert!(
            results.iter().any(|r| r["ruleId"] == rule
                && r["level"] == "error"
                && r["locations"][0]["physicalLocation"]["region"]["startLine"] == line),
            "{rule} at line {line}: {results:#?}"
        );
    }
    let problems = crate::ci_formats::multitool_problems(&sarif, &dir);
    assert!(problems.is_empty(), "the Multitool objects:\n{problems:#?}");
    // JUnit lists an assertion's rule as a test case only when it is given.
    let junit = |args: &[&str]| {
        let out = mcpdbg()
            .args(["check", "--format", "junit"])
            .args(args)
            .arg(SLOW)
            .output()
            .expect("check runs");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let plain = junit(&[]);
    let given = junit(&["--forbid-tool", "nope"]);
    for rule in assertion_rules() {
        let case = format!("<testcase name=\"{rule}\"");
        assert!(
            !plain.contains(&case),
            "{rule} is a case without its assertion"
        );
        assert_eq!(
            given.contains(&case),
            rule == "forbidden-tool-called",
            "{rule}"
        );
    }
}

/// No assertion given: no assertion rule fires on any corpus session, nor
/// on the assertion rules' own fixtures.
#[test]
fn without_assertions_no_assertion_rule_fires() {
    let mut files: Vec<String> = Vec::new();
    for entry in fs::read_dir(root().join("tests/corpus")).expect("corpus") {
        let dir = entry.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        for log in fs::read_dir(&dir).expect("corpus dir") {
            let log = log.expect("entry").path();
            if log.extension().is_some_and(|e| e == "log") {
                files.push(log.to_str().expect("utf-8").to_string());
            }
        }
    }
    files.sort();
    assert!(files.len() >= 40, "{files:?}");
    for rule in assertion_rules() {
        files.push(format!("fixtures/rules/{rule}.log"));
    }
    let out = mcpdbg()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .args(&files)
        .output()
        .expect("check runs");
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let doc = json_of(&out);
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(files.len()));
    for rule in assertion_rules() {
        assert!(found(&doc, rule).is_empty(), "{rule} fired unasked");
    }
}

/// Every command that judges a session takes the assertions.
#[test]
fn check_probe_replay_and_timeline_take_the_assertions() {
    for sub in ["check", "probe", "replay", "timeline"] {
        let help = String::from_utf8(run(&[sub, "-h"]).stdout).expect("utf-8");
        for flag in [
            "--expect-tool <TOOL>",
            "--forbid-tool <TOOL>",
            "--max-latency <[NAME=]SECONDS>",
            "--require-complete",
            "--max-result-bytes <BYTES>",
        ] {
            assert!(help.contains(flag), "{sub} -h lacks {flag}:\n{help}");
        }
    }
    // timeline shows the findings under their rows, as check reports them.
    let out = run(&["timeline", "--forbid-tool", "lookup", SLOW]);
    assert!(out.status.success(), "{}", transcript(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("forbidden-tool-called"), "{text}");
}

// ------------------------------------------------------ replay and probe

/// Records the SDK client's `session` scenario (tools/list, add, count,
/// fail) against tests/sdk/server.py through `mcpdbg record`.
fn record(dir: &Path) -> PathBuf {
    let transcript = dir.join("recorded.log");
    let out = std::process::Command::new(sdk_python())
        .arg(root().join("tests/sdk/client.py"))
        .args(["session", "legacy", env!("CARGO_BIN_EXE_mcpdbg")])
        .arg(&transcript)
        .arg(dir)
        .output()
        .expect("client runs");
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    transcript
}

/// `mcpdbg replay --format json ARGS LOG -- python server.py` (with
/// SERVER_VARIANT=variant): the exit status, the comparison and the SARIF
/// export.
fn replay(dir: &Path, log: &Path, variant: &str, args: &[&str]) -> (i32, Value, PathBuf) {
    let n = fs::read_dir(dir).expect("dir").count();
    let new = dir.join(format!("replayed-{n}.log"));
    let sarif = dir.join(format!("replayed-{n}.sarif"));
    let out = mcpdbg()
        .args(["replay", "--format", "json", "--out"])
        .arg(&new)
        .arg("--export-sarif")
        .arg(&sarif)
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
    (code, json_of(&out), sarif)
}

fn notes(doc: &Value) -> Vec<String> {
    doc["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n.as_str().expect("note").to_string())
        .collect()
}

fn sarif_rules(path: &Path) -> Vec<String> {
    let doc: Value = serde_json::from_slice(&fs::read(path).expect("SARIF")).expect("JSON");
    doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["ruleId"].as_str().expect("ruleId").to_string())
        .collect()
}

/// Replayed against the same server, every assertion that holds passes
/// (the verdict stays `same`, exit 0); each one that fails is a difference,
/// said in the comparison's notes (exit 1) and carried by the export.
#[test]
fn replay_judges_the_new_session_by_the_assertions() {
    let dir = scratch("replay");
    let log = record(&dir);
    let (code, doc, sarif) = replay(
        &dir,
        &log,
        "",
        &[
            "--expect-tool",
            "add",
            "--forbid-tool",
            "hang",
            "--max-latency",
            "60s",
            "--require-complete",
            "--max-result-bytes",
            "1MB",
        ],
    );
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["verdict"], "same");
    assert_eq!(notes(&doc), Vec::<String>::new());
    let rules = sarif_rules(&sarif);
    for rule in assertion_rules() {
        assert!(!rules.iter().any(|r| r == rule), "{rule}: {rules:?}");
    }
    let (code, doc, sarif) = replay(
        &dir,
        &log,
        "",
        &[
            "--expect-tool",
            "stray",
            "--forbid-tool",
            "add",
            "--max-latency",
            "add=0s",
            "--max-result-bytes",
            "10",
        ],
    );
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(doc["verdict"], "differs");
    let said = notes(&doc);
    for rule in [
        "expected-tool-not-called",
        "forbidden-tool-called",
        "latency-over-budget",
        "result-over-budget",
    ] {
        assert!(
            said.iter()
                .any(|n| n.starts_with("assertion failed at line ") && n.contains(rule)),
            "{rule}: {said:#?}"
        );
    }
    assert!(
        said.iter().any(|n| n.contains("never called `stray`")),
        "{said:#?}"
    );
    // Each failure is one note and one difference, not two (its rule is
    // not also counted as a rule only the new session fired).
    assert_eq!(
        doc["differences"].as_u64(),
        Some(said.len() as u64),
        "{doc:#}"
    );
    let rules = sarif_rules(&sarif);
    for rule in [
        "expected-tool-not-called",
        "forbidden-tool-called",
        "latency-over-budget",
        "result-over-budget",
    ] {
        assert!(rules.iter().any(|r| r == rule), "{rule}: {rules:?}");
    }
    // A server that never answers `add`: the replay gives up on it, and
    // --require-complete fails on what it left open.
    let (code, doc, sarif) = replay(
        &dir,
        &log,
        "hang",
        &["--timeout", "3", "--require-complete"],
    );
    assert_eq!(code, 1, "{doc:#}");
    let said = notes(&doc);
    assert!(
        said.iter()
            .any(|n| n.contains("request-not-completed") && n.contains("`tools/call` \"add\"")),
        "{said:#?}"
    );
    assert!(
        sarif_rules(&sarif)
            .iter()
            .any(|r| r == "request-not-completed")
    );
}

/// `mcpdbg probe --format json ARGS -- python server.py`, with generous
/// waits for a loaded machine unless ARGS set them.
fn probe(args: &[&str], env: &[(&str, &str)], tmp: &Path) -> (Output, Value) {
    fs::create_dir_all(tmp).expect("tmp");
    let mut cmd = mcpdbg();
    cmd.args(["probe", "--format", "json"]).args(args);
    for (flag, seconds) in [
        ("--timeout", "60"),
        ("--start-timeout", "120"),
        ("--grace", "20"),
    ] {
        if !args.contains(&flag) {
            cmd.args([flag, seconds]);
        }
    }
    cmd.arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .env("TMPDIR", tmp);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("probe runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, doc)
}

#[test]
fn probe_checks_the_assertions_passing_and_failing() {
    let dir = scratch("probe");
    let tmp = dir.join("tmp");
    let (out, doc) = probe(
        &[
            "--call",
            "add",
            "--arguments",
            r#"{"a":2,"b":3}"#,
            "--expect-tool",
            "add",
            "--forbid-tool",
            "stray",
            "--max-latency",
            "30s",
            "--require-complete",
            "--max-result-bytes",
            "64KiB",
        ],
        &[],
        &tmp,
    );
    assert_eq!(out.status.code(), Some(0), "{}\n{doc:#}", transcript(&out));
    assert_eq!(doc["files"][0]["findings"], Value::Array(Vec::new()));
    // Each fails: `count` is never called, `add` is forbidden, over a zero
    // budget and over 10 bytes, and `hang` is given up on after 5 s.
    let sarif = dir.join("probe.sarif");
    let (out, doc) = probe(
        &[
            "--call",
            "add",
            "--arguments",
            r#"{"a":2,"b":3}"#,
            "--call",
            "hang",
            "--timeout",
            "5",
            "--expect-tool",
            "count",
            "--forbid-tool",
            "add",
            "--max-latency",
            "add=0s",
            "--require-complete",
            "--max-result-bytes",
            "10",
            "--export-sarif",
            sarif.to_str().expect("utf-8"),
        ],
        &[],
        &tmp,
    );
    assert_eq!(out.status.code(), Some(1), "{}\n{doc:#}", transcript(&out));
    for rule in assertion_rules() {
        assert_eq!(found(&doc, rule).len(), 1, "{rule}: {doc:#}");
    }
    assert!(
        found(&doc, "request-not-completed")[0]
            .1
            .contains("`tools/call` \"hang\""),
        "{doc:#}"
    );
    let problems = crate::ci_formats::multitool_problems(&sarif, &dir);
    assert!(problems.is_empty(), "the Multitool objects:\n{problems:#?}");
    let rules = sarif_rules(&sarif);
    for rule in assertion_rules() {
        assert!(rules.iter().any(|r| r == rule), "{rule}: {rules:?}");
    }
}

/// README.md's CI section runs a probe with assertions (after its
/// `<!-- assert-ci` marker): against the SDK's server, whose `add` answers
/// in milliseconds, it passes; against the variant whose `add` never
/// answers, the probe gives up and the assertions fail.
#[test]
fn the_readme_assertion_command_runs() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let at = readme
        .find("<!-- assert-ci:")
        .expect("README.md marks its assertion command");
    let line = readme[at..]
        .lines()
        .find_map(|l| l.trim().strip_prefix("- run: mcpdbg "))
        .expect("a `run: mcpdbg probe` line");
    let (options, server) = line.split_once(" -- ").expect("a server after --");
    assert_eq!(server, "python server.py");
    let words = shell_words(options);
    assert_eq!(words[0], "probe");
    assert!(words.iter().any(|a| a == "--expect-tool"), "{words:?}");
    // The report as JSON here, whatever format the README's step prints.
    let mut args: Vec<&str> = Vec::new();
    let mut rest = words[1..].iter().map(String::as_str);
    while let Some(word) = rest.next() {
        if word == "--format" {
            rest.next();
        } else {
            args.push(word);
        }
    }
    let tmp = scratch("readme").join("tmp");
    let (out, doc) = probe(&args, &[], &tmp);
    assert_eq!(out.status.code(), Some(0), "{}\n{doc:#}", transcript(&out));
    assert_eq!(doc["files"][0]["findings"], Value::Array(Vec::new()));
    let mut hung = args.clone();
    hung.extend(["--timeout", "5"]);
    let (out, doc) = probe(&hung, &[("SERVER_VARIANT", "hang")], &tmp);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let fired: Vec<&str> = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(fired.contains(&"unanswered-request"), "{fired:?}");
    assert!(fired.contains(&"request-not-completed"), "{fired:?}");
}

/// Splits a command line as a POSIX shell does for the words the README
/// uses: single quotes keep what they enclose.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in text.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// The table of `probe` and of `replay` carries a failed assertion too, as
/// their JSON and SARIF do (above): the SDK server calls `add`, which
/// `--forbid-tool add` forbids.
#[test]
fn probe_and_replay_tables_carry_a_failed_assertion() {
    let dir = scratch("tables");
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).expect("tmp");
    let out = mcpdbg()
        .args(["probe", "--call", "add", "--arguments", r#"{"a":2,"b":3}"#])
        .args([
            "--forbid-tool",
            "add",
            "--timeout",
            "60",
            "--start-timeout",
            "120",
        ])
        .arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .env("TMPDIR", &tmp)
        .output()
        .expect("probe runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(table.contains("forbidden-tool-called"), "{table}");
    assert!(table.contains("`add`"), "{table}");

    let log = record(&dir);
    let out = mcpdbg()
        .args(["replay", "--forbid-tool", "add", "--out"])
        .arg(dir.join("replayed.log"))
        .arg(&log)
        .arg("--")
        .arg(sdk_python())
        .arg(root().join("tests/sdk/server.py"))
        .output()
        .expect("replay runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(table.contains("forbidden-tool-called"), "{table}");
}
