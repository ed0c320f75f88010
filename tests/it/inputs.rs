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

/// A fresh scratch directory under target/, removed and recreated.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = root().join("target").join("test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Issue 48: one input judgement for every subcommand that reads a log.
/// A Python source file, 3 MB of random bytes, mcpdbg's own binary and an
/// empty file are each refused by `check`, `stats`, `timeline`, `diff`
/// (either side) and `replay` (before it starts the server) with exit
/// status 2, nothing on stdout and the same words on stderr.
#[test]
fn every_subcommand_refuses_what_is_not_a_log_the_same_way() {
    let dir = scratch("not-a-log");
    let random = dir.join("random.bin");
    std::fs::write(&random, noise(48, 3 * 1024 * 1024)).expect("write");
    let empty = dir.join("empty.log");
    std::fs::write(&empty, b"").expect("write");
    let random = random.to_str().expect("utf-8");
    let empty = empty.to_str().expect("utf-8");
    let binary = env!("CARGO_BIN_EXE_mcpdbg");
    let started = dir.join("server-started");
    let server = format!("touch '{}'", started.display());
    let out_file = dir.join("replayed.log");
    let replay_out = out_file.to_str().expect("utf-8");
    let good = "fixtures/sample-session.log";
    for (file, expected) in [
        (
            "examples/fleet/fleet.py",
            "mcpdbg: no MCP message found in examples/fleet/fleet.py: none of its ".to_string(),
        ),
        (
            random,
            format!("mcpdbg: {random}: binary data, not a log: "),
        ),
        (
            binary,
            format!("mcpdbg: {binary}: binary data, not a log: first NUL byte at offset "),
        ),
        (
            empty,
            format!("mcpdbg: no MCP message found in {empty}: it is empty\n"),
        ),
    ] {
        let runs: [Vec<&str>; 8] = [
            vec!["check", file],
            vec!["check", "--format", "json", file],
            vec!["stats", file],
            vec!["timeline", file],
            vec!["timeline", "--format", "html", file],
            vec!["diff", file, good],
            vec!["diff", good, file],
            vec![
                "replay", "--out", replay_out, file, "--", "sh", "-c", &server,
            ],
        ];
        let mut first: Option<String> = None;
        for args in &runs {
            let out = run(args);
            let stderr = stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                out.stdout.is_empty(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(stderr.starts_with(&expected), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert_eq!(first.get_or_insert(stderr.clone()), &stderr, "{args:?}");
        }
        assert!(!started.exists(), "replay started the server for {file}");
        assert!(!out_file.exists(), "replay wrote a transcript for {file}");
    }
    // Random bytes without a single NUL are still binary data (most of
    // them are control bytes or invalid UTF-8).
    let no_nul: Vec<u8> = noise(5, 64 * 1024).into_iter().map(|b| b.max(1)).collect();
    let out = run_stdin(&["stats"], &no_nul);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).starts_with("mcpdbg: standard input: binary data, not a log: ")
            && stderr_of(&out).contains("control bytes or invalid UTF-8"),
        "{}",
        stderr_of(&out)
    );
    // Compressed binary data is judged by what it decompresses to.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &noise(9, 256 * 1024)).expect("gzip");
    let gz_file = dir.join("random.log.gz");
    std::fs::write(&gz_file, gz.finish().expect("gzip")).expect("write");
    let out = run(&["timeline", gz_file.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains(".log.gz: binary data, not a log: "),
        "{}",
        stderr_of(&out)
    );
}

/// The same refusal for standard input, from every subcommand that reads it.
#[test]
fn standard_input_that_is_not_a_log_is_refused_the_same_way() {
    for (input, expected) in [
        (
            std::fs::read(root().join("examples/fleet/fleet.py")).expect("read"),
            "mcpdbg: no MCP message found in standard input: none of its ",
        ),
        (
            noise(3, 3 * 1024 * 1024),
            "mcpdbg: standard input: binary data, not a log: ",
        ),
        (
            Vec::new(),
            "mcpdbg: no MCP message found in standard input: it is empty\n",
        ),
    ] {
        let mut first: Option<String> = None;
        for args in [
            &["check"][..],
            &["check", "-"],
            &["stats"],
            &["stats", "-"],
            &["timeline"],
            &["timeline", "-"],
        ] {
            let out = run_stdin(args, &input);
            let stderr = stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
            assert_eq!(first.get_or_insert(stderr.clone()), &stderr, "{args:?}");
        }
    }
}

/// What is a log stays one: lines of noise around a few messages, invalid
/// UTF-8, a stray NUL and control bytes are findings, not a refusal.
#[test]
fn a_log_with_noise_and_bad_bytes_is_still_read() {
    let dir = scratch("noisy-log");
    let mut log = Vec::new();
    for i in 0..400 {
        log.extend_from_slice(
            format!("! warning {i}: caf\u{e9} \x07 \x1b[33mslow\x1b[0m\n").as_bytes(),
        );
        if i % 100 == 0 {
            log.extend_from_slice(b"! a stray \xff\xfe byte and a \0 NUL\n");
            log.extend_from_slice(
                format!("> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n").as_bytes(),
            );
            log.extend_from_slice(
                format!("< {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}\n").as_bytes(),
            );
        }
    }
    let file = dir.join("noisy.log");
    std::fs::write(&file, &log).expect("write");
    let file = file.to_str().expect("utf-8");
    for args in [
        &["check", file][..],
        &["stats", file],
        &["timeline", file],
        &["diff", file, file],
    ] {
        let out = run(args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr_of(&out)
        );
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    // The fixture of invalid UTF-8 keeps its findings.
    let out = run(&[
        "check",
        "--format",
        "json",
        "fixtures/rules/invalid-utf8.log",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"invalid-utf8\""));
}

/// A directory is read as its files: sorted by name, hidden files and
/// other subdirectories skipped, each its own report as if named; Claude
/// Code's `mcp-logs-SERVER/` folders in the folder given are read too.
/// A directory with no file in it is refused, the same way everywhere.
#[test]
fn a_directory_is_read_as_its_files() {
    let dir = scratch("log-dir");
    let sample = std::fs::read(root().join("fixtures/sample-session.log")).expect("read");
    let clean = std::fs::read(root().join("fixtures/clean/legacy-2025-06-18.log")).expect("read");
    std::fs::write(dir.join("b.log"), &sample).expect("write");
    std::fs::write(dir.join("a.log"), &clean).expect("write");
    std::fs::write(dir.join(".hidden.log"), b"not read").expect("write");
    std::fs::create_dir_all(dir.join("old")).expect("mkdir");
    std::fs::write(dir.join("old/c.log"), &sample).expect("write");
    let name = dir.to_str().expect("utf-8");
    let paths = |doc: &serde_json::Value| -> Vec<String> {
        doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f["path"].as_str().expect("path").to_string())
            .collect()
    };
    let expected = vec![format!("{name}/a.log"), format!("{name}/b.log")];
    let out = run(&["check", "--format", "json", name]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(paths(&json_of(&out)), expected);
    // As if the files had been named.
    let named = run(&["check", "--format", "json", &expected[0], &expected[1]]);
    assert_eq!(out.stdout, named.stdout);
    let out = run(&["stats", "--format", "json", name]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(paths(&json_of(&out)), expected);
    let out = run(&["timeline", name]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let a = text
        .find(&format!("== {name}/a.log =="))
        .expect("a's heading");
    let b = text
        .find(&format!("== {name}/b.log =="))
        .expect("b's heading");
    assert!(a < b, "{text}");
    // One page draws one log.
    let out = run(&["timeline", "--format", "html", name]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("holds 2 logs"),
        "{}",
        stderr_of(&out)
    );

    // Claude Code's cache folder for a project: one folder per server.
    let project = scratch("log-dir-claude-code");
    for server in ["mcp-logs-notes", "mcp-logs-files"] {
        std::fs::create_dir_all(project.join(server)).expect("mkdir");
    }
    let session =
        std::fs::read(root().join("fixtures/formats/claude-code/clean.log")).expect("read");
    std::fs::write(
        project.join("mcp-logs-notes/2025-11-02T08-05-19-374Z.jsonl"),
        &session,
    )
    .expect("write");
    std::fs::write(
        project.join("mcp-logs-files/2025-11-03T09-00-00-000Z.jsonl"),
        &session,
    )
    .expect("write");
    let project_name = project.to_str().expect("utf-8");
    let out = run(&["check", "--format", "json", project_name]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        stderr_of(&out)
    );
    let doc = json_of(&out);
    assert_eq!(
        paths(&doc),
        [
            format!("{project_name}/mcp-logs-files/2025-11-03T09-00-00-000Z.jsonl"),
            format!("{project_name}/mcp-logs-notes/2025-11-02T08-05-19-374Z.jsonl"),
        ]
    );
    assert!(
        doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .all(|f| f["format"] == "claude-code")
    );
    // A server's own folder is a directory of logs like any other.
    let out = run(&[
        "stats",
        "--format",
        "json",
        &format!("{project_name}/mcp-logs-notes"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));

    // Nothing to read: the same refusal from each.
    let nothing = scratch("log-dir-empty");
    std::fs::write(nothing.join(".DS_Store"), b"x").expect("write");
    let nothing = nothing.to_str().expect("utf-8");
    let mut first: Option<String> = None;
    for command in ["check", "stats", "timeline"] {
        let out = run(&[command, nothing]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(out.stdout.is_empty(), "{command}");
        let stderr = stderr_of(&out);
        assert!(
            stderr.starts_with(&format!(
                "mcpdbg: {nothing}: a directory with no log file in it"
            )),
            "{command}: {stderr}"
        );
        assert_eq!(first.get_or_insert(stderr.clone()), &stderr, "{command}");
    }
}

/// `timeline` and `stats` read standard input as `check` does: with `-`
/// or no file, from a pipe, and on a terminal they say so first.
#[test]
fn timeline_and_stats_read_standard_input_like_check() {
    let sample = std::fs::read(root().join("fixtures/sample-session.log")).expect("read");
    let by_name = run(&["timeline", "fixtures/sample-session.log"]);
    for args in [&["timeline"][..], &["timeline", "-"]] {
        let out = run_stdin(args, &sample);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        let rows = |t: &str| t.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
        assert_eq!(rows(&text), rows(&String::from_utf8_lossy(&by_name.stdout)));
    }
    for args in [
        &["stats", "--format", "json"][..],
        &["stats", "--format", "json", "-"],
    ] {
        let out = run_stdin(args, &sample);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        assert_eq!(json_of(&out)["files"][0]["path"], "-");
    }
    // On a terminal: the note check gives, then one Ctrl-D ends the input.
    let message = r#"> {"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for command in ["check", "stats", "timeline"] {
        let shown = on_a_terminal(&[command], message).expect("ended after one Ctrl-D");
        assert!(
            shown.contains("mcpdbg: reading a capture from standard input (end it with Ctrl-D)"),
            "{command}: {shown}"
        );
        assert!(shown.contains("ping"), "{command}: {shown}");
    }
}

/// The README's table of inputs says what the commands do: its rows, the
/// thresholds it names (the library's constants) and the words it quotes
/// (what stderr says).
#[test]
fn the_readme_table_of_inputs_is_true() {
    use mcpdbg::pipeline::input;
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let start = readme
        .find("| input | read as |")
        .expect("the table of inputs");
    let rows: Vec<(String, String)> = readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            (cells[0].trim().to_string(), cells[1].trim().to_string())
        })
        .collect();
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "`-` or no file",
            "a directory",
            "gzip or zstd",
            "binary data",
            "no MCP message"
        ]
    );
    let cell = |name: &str| rows.iter().find(|(n, _)| n == name).expect(name).1.clone();
    let binary = cell("binary data");
    for said in [
        format!("more than {}% NUL bytes", input::BINARY_NUL_PERMILLE / 10),
        format!("more than {}% control bytes", input::BINARY_PERCENT),
        format!("first {} KiB", input::SNIFF_BYTES / 1024),
        format!("at least {} bytes", input::BINARY_MIN_BYTES),
    ] {
        assert!(binary.contains(&said), "{said:?} in {binary}");
    }
    assert!(cell("a directory").contains(&format!(
        "at most {},{:03} files",
        input::MAX_FILES / 1000,
        input::MAX_FILES % 1000
    )));
    // Each quoted message, its placeholders (FILE, DIR, WHY) aside, is what
    // stderr says.
    let quoted = |text: &str| -> String {
        let from = text.find("`mcpdbg: ").expect("a quoted message") + 1;
        let len = text[from..].find('`').expect("closing backtick");
        text[from..from + len].to_string()
    };
    let holds = |quote: &str, stderr: &str| {
        let mut at = 0;
        let literal = quote
            .replace("FILE", "\0")
            .replace("DIR", "\0")
            .replace("WHY", "\0");
        for part in literal.split('\0') {
            if part.is_empty() {
                continue;
            }
            match stderr[at..].find(part) {
                Some(i) => at += i + part.len(),
                None => return false,
            }
        }
        true
    };
    let dir = scratch("readme-inputs");
    let empty_dir = dir.join("none");
    std::fs::create_dir_all(&empty_dir).expect("mkdir");
    let cases = [
        (
            "a directory",
            vec!["stats".to_string(), empty_dir.display().to_string()],
        ),
        (
            "binary data",
            vec![
                "timeline".to_string(),
                env!("CARGO_BIN_EXE_mcpdbg").to_string(),
            ],
        ),
        (
            "no MCP message",
            vec![
                "diff".to_string(),
                "examples/fleet/fleet.py".to_string(),
                "fixtures/sample-session.log".to_string(),
            ],
        ),
    ];
    for (row, args) in cases {
        let quote = quoted(&cell(row));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{row}");
        assert!(
            holds(&quote, &stderr_of(&out)),
            "{row}: {quote:?} vs {}",
            stderr_of(&out)
        );
    }
    let stdin = quoted(&cell("`-` or no file"));
    assert_eq!(
        Some(stdin.as_str()),
        mcpdbg::cmd::reading_stdin_note(true, false)
    );
}
