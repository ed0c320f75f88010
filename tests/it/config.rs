//! The configuration file (`mcpdbg.toml`, `.mcpdbg.toml`, a `pyproject.toml`'s
//! `[tool.mcpdbg]`): found from the working directory upward, applied where
//! the command line says nothing, shown by `check --show-settings`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{mcpdbg, root};

const SAMPLE: &str = "fixtures/sample-session.log";

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/config").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("server/src")).expect("scratch dir");
    dir
}

/// `mcpdbg ARGS` run in `dir`, with the sample given by its absolute path:
/// (exit status, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let sample = root().join(SAMPLE);
    let args: Vec<&std::ffi::OsStr> = args
        .iter()
        .map(|a| {
            if *a == SAMPLE {
                sample.as_os_str()
            } else {
                std::ffi::OsStr::new(a)
            }
        })
        .collect();
    let out = mcpdbg().current_dir(dir).args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The rules of the findings of a JSON report.
fn rules_of(stdout: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    v["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule").to_string())
        .collect()
}

#[test]
fn a_pyproject_table_found_upward_applies_and_the_command_line_wins() {
    let dir = scratch("pyproject");
    fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"notes-mcp\"\n\n[tool.mcpdbg]\nignore = [\"stray-output\", \"unanswered-request\"]\nslow = \"10s\"\nfail-on = \"warning\"\n",
    )
    .unwrap();
    let here = dir.join("server/src");
    // Without the file the sample has stray-output, slow-response (7.9 s over
    // 5 s), cancelled-request and unanswered-request.
    let (code, out, _) = run_in(&here, &["check", "--no-config", "--format", "json", SAMPLE]);
    assert_eq!(code, Some(1));
    let all = rules_of(&out);
    for rule in ["stray-output", "slow-response", "unanswered-request"] {
        assert!(all.iter().any(|r| r == rule), "{all:?}");
    }
    // With it: the two rules ignored, 7.9 s under the 10 s limit, and the
    // remaining warning fails the run (fail-on warning).
    let (code, out, err) = run_in(&here, &["check", "--format", "json", SAMPLE]);
    assert_eq!(rules_of(&out), ["cancelled-request"], "{err}");
    assert_eq!(code, Some(1), "fail-on = warning with a warning left");
    // A flag given on the command line wins over the file.
    let (code, out, _) = run_in(
        &here,
        &[
            "check",
            "--format",
            "json",
            "--slow",
            "5",
            "--fail-on",
            "error",
            SAMPLE,
        ],
    );
    assert_eq!(rules_of(&out), ["slow-response", "cancelled-request"]);
    assert_eq!(code, Some(0));
    // --config names a file; mcpdbg.toml in a nearer directory wins over pyproject.
    fs::write(here.join("mcpdbg.toml"), "select = \"stray-output\"\n").unwrap();
    let (_, out, _) = run_in(&here, &["check", "--format", "json", SAMPLE]);
    assert_eq!(rules_of(&out), ["stray-output"]);
    let other = dir.join("other.toml");
    fs::write(
        &other,
        "severity = { stray-output = \"off\" }\nignore = []\n",
    )
    .unwrap();
    let (code, out, _) = run_in(
        &here,
        &[
            "check",
            "--config",
            other.to_str().unwrap(),
            "--format",
            "json",
            SAMPLE,
        ],
    );
    assert!(!rules_of(&out).iter().any(|r| r == "stray-output"));
    assert_eq!(code, Some(1), "unanswered-request is back");
}

#[test]
fn show_settings_says_what_applies_and_from_where() {
    let dir = scratch("show");
    fs::write(
        dir.join("mcpdbg.toml"),
        "fail-on = \"info\"\nseverity = { slow-response = \"error\" }\n",
    )
    .unwrap();
    let (code, out, err) = run_in(&dir, &["check", "--show-settings", "--slow", "2s"]);
    assert_eq!(code, Some(0), "{err}");
    let file = dir.join("mcpdbg.toml").display().to_string();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("configuration: {file}"));
    let row = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row: {out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("fail-on"), format!("fail-on info ({file})"));
    assert_eq!(
        row("severity"),
        format!("severity slow-response=error ({file})")
    );
    assert_eq!(row("slow"), "slow 2.0 s (command line)");
    assert_eq!(row("select"), "select (every rule) (default)");
    // It reads no input: standard input is not waited for.
    let (_, out, _) = run_in(&dir, &["check", "--show-settings", "--no-config"]);
    assert!(
        out.starts_with("configuration: none (--no-config)"),
        "{out}"
    );
}

#[test]
fn a_broken_file_is_named_with_exit_2_but_never_stops_record() {
    let dir = scratch("broken");
    fs::write(dir.join(".mcpdbg.toml"), "fail_on = \"warning\"\n").unwrap();
    let (code, out, err) = run_in(&dir, &["check", SAMPLE]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(".mcpdbg.toml: unknown setting `fail_on`; did you mean `fail-on`?"),
        "{err}"
    );
    fs::write(dir.join(".mcpdbg.toml"), "select = [\"no-such-rule\"]\n").unwrap();
    let (code, _, err) = run_in(&dir, &["timeline", SAMPLE]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown rule `no-such-rule`"), "{err}");
    // --no-config reads none.
    let (code, _, _) = run_in(&dir, &["check", "--no-config", SAMPLE]);
    assert_eq!(code, Some(1));
    // A host starts `record`: a broken file in its directory is not read.
    let transcript = dir.join("t.log");
    let (code, _, err) = run_in(
        &dir,
        &[
            "record",
            "--out",
            transcript.to_str().unwrap(),
            "--",
            "true",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(transcript.exists());
}

/// fastmcp's `slow-vs-client-timeout` corpus session (its raw lines: `add`
/// at line 8 answered after 317 ms at 9, four more `add`s answered in
/// under 10 ms, `tools/list` at 10 listing add, lookup, wait_for_ever and
/// slow, `lookup` at 20 cancelled and never answered, `slow` at 22
/// answered after 2.6 s at 23 with a 166-byte result, the end at line 27).
const SLOW: &str = "tests/corpus/fastmcp/slow-vs-client-timeout.log";

/// The rules and lines of the findings of a JSON report.
fn found_of(stdout: &str) -> Vec<(String, u64)> {
    crate::common::rule_lines(&serde_json::from_str(stdout).expect("JSON"))
}

#[test]
fn assertions_in_the_file_apply_and_the_command_line_wins() {
    let dir = scratch("assertions");
    fs::write(
        dir.join("mcpdbg.toml"),
        "expect-tool = [\"add\", \"nope\"]\nforbid-tool = \"lookup\"\nmax-latency = { default = \"1s\", add = \"100ms\" }\nrequire-complete = true\nmax-result-bytes = \"150\"\nselect = \"expected-tool-not-called,forbidden-tool-called,latency-over-budget,request-not-completed,result-over-budget\"\n",
    )
    .unwrap();
    let log = root().join(SLOW);
    let log = log.to_str().unwrap();
    let here = dir.join("server/src");
    let (code, out, err) = run_in(&here, &["check", "--format", "json", log]);
    assert_eq!(code, Some(1), "{err}");
    let rule = |r: &str, line: u64| (r.to_string(), line);
    assert_eq!(
        found_of(&out),
        [
            rule("latency-over-budget", 9),
            rule("forbidden-tool-called", 20),
            rule("request-not-completed", 20),
            rule("latency-over-budget", 23),
            rule("result-over-budget", 23),
            rule("expected-tool-not-called", 27),
        ]
    );
    // A flag on the command line replaces the file's setting of the same
    // name (--max-latency replaces the default and the named budgets); the
    // others still apply.
    let (code, out, err) = run_in(
        &here,
        &[
            "check",
            "--format",
            "json",
            "--forbid-tool",
            "add",
            "--max-latency",
            "3s",
            "--expect-tool",
            "slow",
            log,
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        found_of(&out),
        [
            rule("forbidden-tool-called", 8),
            rule("forbidden-tool-called", 12),
            rule("forbidden-tool-called", 14),
            rule("forbidden-tool-called", 16),
            rule("forbidden-tool-called", 18),
            rule("request-not-completed", 20),
            rule("result-over-budget", 23),
        ]
    );
    // --no-config: none of them.
    let (code, out, _) = run_in(&here, &["check", "--no-config", "--format", "json", log]);
    assert_eq!(code, Some(0));
    assert!(
        !found_of(&out)
            .iter()
            .any(|(r, _)| r.contains("tool") || r.contains("budget") || r.contains("completed")),
        "{out}"
    );
    // --show-settings says each and where it comes from.
    let (code, out, err) = run_in(
        &here,
        &["check", "--show-settings", "--max-latency", "search=2s"],
    );
    assert_eq!(code, Some(0), "{err}");
    let file = dir.join("mcpdbg.toml").display().to_string();
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row: {out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("expect-tool"), format!("expect-tool add,nope ({file})"));
    assert_eq!(row("forbid-tool"), format!("forbid-tool lookup ({file})"));
    assert_eq!(
        row("max-latency"),
        "max-latency search=2.0 s (command line)"
    );
    assert_eq!(
        row("require-complete"),
        format!("require-complete yes ({file})")
    );
    assert_eq!(
        row("max-result-bytes"),
        format!("max-result-bytes 150 bytes ({file})")
    );
    let (_, out, _) = run_in(&here, &["check", "--show-settings", "--no-config"]);
    assert!(
        out.contains("require-complete") && out.contains("no"),
        "{out}"
    );
}
