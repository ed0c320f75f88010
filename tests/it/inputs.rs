//! Inputs that are not what the user thinks: a file with no MCP message in
//! it, a file that is not there, a message cut short.

use crate::common::*;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_file_with_no_mcp_message_says_so_and_exits_2() {
    // A VS Code log at the default Info level: lifecycle and stderr only.
    let out = run(&["check", "fixtures/inputs/vscode-info-level.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = stderr_of(&out);
    assert!(
        err.contains("no MCP message found in fixtures/inputs/vscode-info-level.log")
            && err.contains("Debug or Trace"),
        "{err}"
    );
    // A Python source file.
    let out = run(&["check", "examples/fleet/fleet.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        stderr_of(&out).contains("is a JSON-RPC message"),
        "{}",
        stderr_of(&out)
    );
    // Empty standard input.
    let out = run_stdin(&["check", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(stderr_of(&out).contains("no MCP message found in standard input: it is empty"));
    // JSON Lines: the refusal is the file's `error` record.
    let out = run(&["check", "--format", "jsonl", "examples/fleet/fleet.py"]);
    assert_eq!(out.status.code(), Some(2));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["type"], "error");
    assert!(
        record["message"]
            .as_str()
            .unwrap()
            .contains("no MCP message found")
    );
}

#[test]
fn nothing_on_stdout_when_no_file_could_be_read() {
    let out = run(&["check", "fixtures/no-such-file.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr_of(&out).contains("cannot open fixtures/no-such-file.log"));
    // With one good file, its report is printed and the run still fails.
    let out = run(&[
        "check",
        "fixtures/no-such-file.log",
        "fixtures/clean/legacy-2025-06-18.log",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("fixtures/clean/legacy-2025-06-18.log (native format)"),
        "{text}"
    );
    // A host log with no messages but with what went wrong is still reported.
    let out = run(&["check", "fixtures/formats/vscode/hang.log"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_server_command_without_double_dash_gets_a_hint() {
    for args in [
        &["record", "--out", "s.log", "python3", "server.py"][..],
        &["record", "--out", "s.log"][..],
        &["probe", "python3", "server.py"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_of(&out);
        assert!(
            err.contains("hint: the server command goes after `--`"),
            "{args:?}: {err}"
        );
    }
    // Other usage errors get no such hint.
    let out = run(&["record", "--bogus", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr_of(&out).contains("hint: the server command"));
    let out = run(&["check", "a", "--nope"]);
    assert!(!stderr_of(&out).contains("hint: the server command"));
}

/// Runs `mcpdbg ARGS` on a pseudo-terminal (Python's `pty`), types `typed`
/// (once mcpdbg has said it reads the terminal), then one Ctrl-D; returns
/// what the terminal showed once it exited, or `None` if it was still
/// reading 5 s later.
fn on_a_terminal(args: &[&str], typed: &str) -> Option<String> {
    on_a_terminal_with(args, typed, &[])
}

fn on_a_terminal_with(args: &[&str], typed: &str, env: &[(&str, &str)]) -> Option<String> {
    let script = r#"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], ["mcpdbg"] + sys.argv[3:])
out = b""
# Typed text waits for the prompt that says mcpdbg reads the terminal: on a
# loaded machine it can start later than any fixed pause, and text typed
# before it reads would need a second Ctrl-D.
if sys.argv[2]:
    deadline = time.time() + 20
    while b"Ctrl-D" not in out and time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
else:
    time.sleep(0.3)
os.write(fd, sys.argv[2].encode())
time.sleep(0.2)
os.write(fd, b"\x04")
def read_more():
    # What the terminal holds within 0.2 s: b"" when nothing, None at its end.
    r, _, _ = select.select([fd], [], [], 0.2)
    if not r:
        return b""
    try:
        return os.read(fd, 4096) or None
    except OSError:
        return None
deadline = time.time() + 5
while time.time() < deadline:
    chunk = read_more()
    if chunk is None:
        break
    out += chunk
    done, _ = os.waitpid(pid, os.WNOHANG)
    if done:
        # It may have written its last output between the read above and
        # its exit: read what the terminal still holds.
        chunk = read_more()
        while chunk:
            out += chunk
            chunk = read_more()
        break
else:
    os.kill(pid, 9)
    sys.exit(3)
sys.stdout.write(out.decode(errors="replace"))
"#;
    let out = std::process::Command::new(sdk_python())
        .args(["-c", script, env!("CARGO_BIN_EXE_mcpdbg"), typed])
        .args(args)
        .current_dir(root())
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .output()
        .expect("python runs");
    match out.status.code() {
        Some(0) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Some(3) => None,
        other => panic!("pty script: {other:?} {}", stderr_of(&out)),
    }
}

#[test]
fn one_ctrl_d_ends_a_message_typed_at_a_terminal() {
    let shown = on_a_terminal(
        &[
            "validate",
            "--format",
            "concise",
            "--revision",
            "2025-06-18",
        ],
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/List"}"#,
    )
    .expect("validate ended after one Ctrl-D");
    assert!(shown.contains("unknown-method"), "{shown}");
}

#[test]
fn validate_judges_a_message_cut_short_as_broken_json() {
    for input in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\n",
    ] {
        let out = run_stdin(
            &["validate", "--format", "json", "--revision", "2025-06-18"],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1), "{input}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rules: Vec<_> = doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            rules,
            [("invalid-json".to_string(), "error".to_string())],
            "{input}"
        );
    }
}

#[test]
fn on_a_terminal_the_table_and_the_timeline_fit_columns() {
    let widths = |text: &str, rows_only: bool| -> usize {
        text.lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.starts_with("mcpdbg:"))
            // The timeline's rows start with their line number.
            .filter(|l| !rows_only || l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    };
    let sample = "fixtures/sample-session.log";
    // check's tables fit 80 columns; the timeline's rows fit 120 (its fixed
    // columns take 78), their summaries cut with `…`.
    for (args, columns, rows_only) in [
        (&["check", "--color", "never", sample][..], "80", false),
        (&["timeline", sample][..], "120", true),
    ] {
        let shown = on_a_terminal_with(args, "", &[("COLUMNS", columns)]).expect("ends");
        assert!(shown.lines().count() > 10, "{shown}");
        let limit: usize = columns.parse().unwrap();
        assert!(
            widths(&shown, rows_only) <= limit,
            "{args:?} at COLUMNS={columns}:\n{shown}"
        );
        let wide = on_a_terminal_with(args, "", &[("COLUMNS", "300")]).expect("ends");
        assert!(
            widths(&wide, rows_only) > limit,
            "{args:?} at COLUMNS=300:\n{wide}"
        );
    }
}

/// A log of plain JSON lines with a pretty-printed text cut short, whose
/// every line opens a block: each failed reassembly read the lines after it
/// again, and each of those started a reassembly of its own, so the work
/// and `timeline --full`'s rows grew with the square of the lines (found
/// by the fuzz run). Now a line is read again at most twice: twice the
/// lines make about twice the output.
#[test]
fn unclosed_blocks_nested_in_each_other_cost_linear_work() {
    let output_of = |blocks: usize| {
        let mut log = String::from("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        for i in 0..blocks {
            log.push_str(if i % 2 == 0 { "{\n" } else { "  {\n" });
        }
        let timeline = run_stdin(
            &["timeline", "--full", "--format", "json", "-"],
            log.as_bytes(),
        );
        let check = run_stdin(&["check", "--format", "json", "-"], log.as_bytes());
        assert_eq!(check.status.code(), Some(1));
        let doc = json_of(&check);
        let rules: Vec<&str> = doc["files"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["rule"].as_str())
            .collect();
        assert!(rules.contains(&"invalid-json"), "{rules:?}");
        timeline.stdout.len()
    };
    let (small, large) = (output_of(1_000), output_of(2_000));
    let ratio = large as f64 / small as f64;
    assert!(
        ratio < 2.5,
        "1,000 blocks: {small} bytes of timeline; 2,000: {large} bytes ({ratio:.1}x)"
    );
}
