//! Inputs that are not what the user thinks: a file with no MCP message in
//! it, a file that is not there, a message cut short.

mod common;
use common::*;

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
