//! Whole-process tests of the views: `timeline` (text, Mermaid, HTML),
//! `stats` and `check --follow`, run as the real binary.
//!
//! The text timeline of every fixture and the outputs of the sample are
//! pinned in `tests/snapshots/` (`MCPDBG_UPDATE_SNAPSHOTS=1` rewrites them;
//! review the diff). The Mermaid diagrams are parsed by the official
//! Mermaid parser (pinned in `tests/mermaid/`, installed into
//! `target/mermaid` by `scripts/test`); the HTML page is rendered by headless
//! Chromium and its screenshot checked pixel by pixel.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

/// A fresh scratch directory under target/, removed and recreated.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("test-scratch").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn assert_no_failures(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} snapshot(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

const SAMPLE: &str = "fixtures/sample-session.log";
const HOSTILE: &str = "fixtures/views/markup-and-escapes.log";

// ---------------------------------------------------------------- timeline

#[test]
fn timeline_of_every_fixture_matches_its_snapshot() {
    let mut failures = Vec::new();
    for fixture in fixtures() {
        let out = run(&["timeline", fixture.to_str().expect("utf-8 path")]);
        // What is not a log is refused, as `check` refuses it.
        let expected = if not_a_log(&fixture) { 2 } else { 0 };
        assert_eq!(out.status.code(), Some(expected), "{}", transcript(&out));
        let rel = fixture
            .strip_prefix("fixtures")
            .expect("under fixtures")
            .with_extension("txt");
        failures.extend(snapshot(
            &Path::new("tests/snapshots/timeline").join(rel),
            &transcript(&out),
        ));
    }
    assert_no_failures(failures);
}

#[test]
fn timeline_filters_match_their_snapshots() {
    let cases: &[(&str, &[&str])] = &[
        (
            "method-errors-only",
            &["--method", "tools/*", "--errors-only"],
        ),
        ("around", &["--around", "37", "--context", "2"]),
        ("full", &["--full", "--lines", "35..37"]),
        (
            "kinds",
            &["--kind", "stderr", "--kind", "other", "--lines", "..20"],
        ),
        ("id-and-dir", &["--id", "0", "--dir", "s2c"]),
        ("string-id-matches-nothing", &["--id", "\"9\""]),
    ];
    let mut failures = Vec::new();
    for (name, args) in cases {
        let mut all = vec!["timeline"];
        all.extend_from_slice(args);
        all.push(SAMPLE);
        let out = run(&all);
        failures.extend(snapshot(
            &Path::new("tests/snapshots/timeline/options").join(format!("{name}.txt")),
            &format!("args: {}\n{}", args.join(" "), transcript(&out)),
        ));
    }
    assert_no_failures(failures);
}

/// `--around` counts rows as shown: a folded burst of stderr is one row. In
/// the sample, the hang at line 37 is followed by a burst of five stderr
/// lines (38-42, the traceback), then a call (43), one stderr line (44), its
/// result (45), a prompt (46), its result (47) and a last stderr line (48).
#[test]
fn timeline_around_counts_a_folded_burst_as_one_row() {
    let lines_of = |context: &str| -> Vec<u64> {
        let out = run(&["timeline", "--around", "37", "--context", context, SAMPLE]);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .lines()
            .filter(|l| l.starts_with(' '))
            .filter_map(|l| l.split_whitespace().next()?.parse().ok())
            .collect()
    };
    assert_eq!(lines_of("2"), [35, 36, 37, 38, 43]);
    assert_eq!(lines_of("5"), [32, 33, 34, 35, 36, 37, 38, 43, 44, 45, 46]);
    assert_eq!(lines_of("0"), [37]);
    // Around a line inside the burst: the burst is the row, with two rows
    // on each side.
    let out = run(&["timeline", "--around", "40", "--context", "2", SAMPLE]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let rows: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(rows, [36, 37, 38, 43, 44], "{text}");
    assert!(text.contains("stderr ×5 (lines 38-42)"), "{text}");
}

#[test]
fn timeline_text_cannot_drive_the_terminal() {
    for args in [
        &["timeline", HOSTILE][..],
        &["timeline", "--full", HOSTILE][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).expect("utf-8");
        for bad in ['\x1b', '\x07', '\u{202e}'] {
            assert!(!text.contains(bad), "{bad:?} reached the terminal: {text}");
        }
        assert!(text.contains("\\x1b[2J"), "{text}");
    }
}

#[test]
fn timeline_usage_and_io_errors_exit_2() {
    let out = run(&["timeline", "fixtures/no-such-file.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open fixtures/no-such-file.log"));
    // `-` is standard input, read once into a temporary file (see
    // timeline_reads_a_pipe_fifo_or_dev_stdin_once_and_in_full).
    let out = run(&["timeline", "--lines", "9..3", SAMPLE]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["timeline", "--kind", "bogus", SAMPLE]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn views_survive_hostile_input() {
    let dir = scratch("views-hostile");
    let mut inputs: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("newline".into(), b"\n".to_vec()),
        (
            "deep".into(),
            format!("> {}{}\n", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        ),
    ];
    for seed in 1..=4 {
        inputs.push((format!("random-{seed}"), noise(seed, 32 * 1024)));
    }
    let mut mixed = Vec::new();
    for (i, chunk) in noise(99, 16 * 1024).chunks(97).enumerate() {
        mixed.extend_from_slice([&b"> "[..], b"< ", b"! ", b"# ", b"{"][i % 5]);
        mixed.extend_from_slice(chunk);
        mixed.push(b'\n');
    }
    inputs.push(("mixed".into(), mixed));
    for (name, bytes) in inputs {
        let path = dir.join(format!("{name}.log"));
        fs::write(&path, bytes).expect("write");
        let path = path.to_str().expect("utf-8");
        // Drawn, or refused as not a log (binary data, no MCP message):
        // then by every view in the same words, with nothing on stdout.
        let mut refusal: Option<String> = None;
        for args in [
            &["timeline", path][..],
            &["timeline", "--full", path][..],
            &["timeline", "--format", "mermaid", path][..],
            &["timeline", "--format", "html", path][..],
            &["stats", path][..],
            &["stats", "--format", "json", path][..],
        ] {
            let out = run(args);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            match out.status.code() {
                Some(0) => assert!(refusal.is_none(), "{name} {args:?}: drawn, refused before"),
                Some(2) => {
                    assert!(
                        stderr.contains(": binary data, not a log: ")
                            || stderr.contains("no MCP message found in "),
                        "{name} {args:?}: {stderr}"
                    );
                    assert!(out.stdout.is_empty(), "{name} {args:?}");
                    assert_eq!(refusal.get_or_insert(stderr.clone()), &stderr, "{name}");
                }
                other => panic!("{name} {args:?}: exit {other:?}: {stderr}"),
            }
        }
    }
}

#[test]
fn stats_notes_answers_stamped_before_their_requests() {
    let input = b"2026-11-20T14:00:01.000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n2026-11-20T14:00:00.500Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    let out = run_stdin(&["stats", "-"], input);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("note: 1 answer is stamped before its request (the log's clock went back"),
        "{text}"
    );
    let doc = json_of(&run_stdin(&["stats", "--format", "json", "-"], input));
    assert_eq!(doc["negative_latencies"], 1);
}

// ------------------------------------------------- inputs read only once

/// The timeline of the sample with its name replaced by `NAME`.
fn timeline_named(out: &std::process::Output, name: &str) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (head, rows) = text.split_once('\n').expect("a heading");
    let shown = if name == "-" { "<stdin>" } else { name };
    assert!(head.starts_with(&format!("{shown} (")), "{head}");
    rows.to_string()
}

#[test]
fn timeline_reads_a_pipe_fifo_or_dev_stdin_once_and_in_full() {
    let expected = timeline_named(&run(&["timeline", SAMPLE]), SAMPLE);
    assert!(!expected.contains("(no message)"), "{expected}");
    let input = fs::read(root().join(SAMPLE)).expect("sample");
    for name in ["-", "/dev/stdin"] {
        let got = timeline_named(&run_stdin(&["timeline", name], &input), name);
        assert_eq!(got, expected, "timeline {name}");
    }
    // A FIFO: its second open used to wait forever for a writer.
    let dir = scratch("fifo");
    let fifo = dir.join("session.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let (path, data) = (fifo.clone(), input.clone());
    let writer = std::thread::spawn(move || fs::write(&path, data).expect("write the FIFO"));
    let name = fifo.to_str().expect("utf-8");
    let mut child = mcpdbg()
        .args(["timeline", name])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("timeline starts");
    let start = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("timeline on a FIFO still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().expect("writer");
    let got = timeline_named(&child.wait_with_output().expect("output"), name);
    assert_eq!(got, expected);
}

#[test]
fn follow_refuses_a_compressed_file_with_the_reason() {
    for file in [
        "fixtures/compressed/unanswered-request.log.gz",
        "fixtures/compressed/unanswered-request.log.zst",
    ] {
        let mut child = mcpdbg()
            .args(["check", "--follow", file])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("check starts");
        let start = Instant::now();
        while child.try_wait().expect("try_wait").is_none() {
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("check --follow {file} is still following after 20 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("-compressed, and --follow reads a plain file"),
            "{err}"
        );
    }
}

// ----------------------------------------------------------------- mermaid

#[test]
fn mermaid_of_the_sample_matches_its_snapshot() {
    let out = run(&["timeline", "--format", "mermaid", SAMPLE]);
    assert_eq!(out.status.code(), Some(0));
    if let Some(diff) = snapshot(
        Path::new("tests/snapshots/timeline/sample-session.mmd"),
        &String::from_utf8_lossy(&out.stdout),
    ) {
        panic!("{diff}");
    }
}

/// The pinned Mermaid parser, installed by scripts/test.
fn mermaid_parser() -> PathBuf {
    let script = root().join("target/mermaid/parse.mjs");
    assert!(
        root().join("target/mermaid/node_modules/mermaid").is_dir() && script.exists(),
        "the Mermaid parser is not installed in target/mermaid: run scripts/test (needs node and npm)"
    );
    script
}

#[test]
fn mermaid_of_every_fixture_parses() {
    let dir = scratch("mermaid");
    let mut files = Vec::new();
    for fixture in fixtures() {
        let out = run(&[
            "timeline",
            "--format",
            "mermaid",
            fixture.to_str().expect("utf-8"),
        ]);
        if not_a_log(&fixture) {
            assert_eq!(out.status.code(), Some(2), "{}", fixture.display());
            continue;
        }
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert!(
            text.starts_with("sequenceDiagram\n"),
            "{}",
            fixture.display()
        );
        let name = fixture.to_str().expect("utf-8").replace('/', "_");
        let path = dir.join(format!("{name}.mmd"));
        fs::write(&path, text).expect("write");
        files.push(path);
    }
    // The same filters as the text view, and a diagram that must fail, to
    // show that the parser does reject.
    let out = run(&[
        "timeline",
        "--format",
        "mermaid",
        "--method",
        "tools/call",
        SAMPLE,
    ]);
    fs::write(dir.join("filtered.mmd"), out.stdout).expect("write");
    files.push(dir.join("filtered.mmd"));
    let broken = dir.join("broken.mmd");
    fs::write(&broken, "sequenceDiagram\n    C->>S: a ; b\n").expect("write");
    let script = mermaid_parser();
    let out = Command::new("node")
        .arg(&script)
        .args(&files)
        .current_dir(script.parent().expect("dir"))
        .output()
        .expect("node runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        report
            .lines()
            .filter(|l| l.starts_with("ok sequence"))
            .count(),
        files.len(),
        "{report}"
    );
    let out = Command::new("node")
        .arg(&script)
        .arg(&broken)
        .current_dir(script.parent().expect("dir"))
        .output()
        .expect("node runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the parser accepted a broken diagram"
    );
}

#[test]
fn a_file_name_cannot_configure_the_mermaid_diagram() {
    // A directive in the file name used to reach the comment line, where
    // the official parser applies it.
    let dir = scratch("mermaid-name");
    let log = dir.join("s%%{init: {\"theme\": \"forest\", \"themeCSS\": \"p{}\"}}%%.log");
    fs::copy(root().join(SAMPLE), &log).expect("copy");
    let out = run(&[
        "timeline",
        "--format",
        "mermaid",
        log.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!text.contains("%%{"), "{text}");
    let diagram = dir.join("named.mmd");
    fs::write(&diagram, &text).expect("write");
    let script = mermaid_parser();
    let out = Command::new("node")
        .arg(&script)
        .arg(&diagram)
        .current_dir(script.parent().expect("dir"))
        .output()
        .expect("node runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report.trim_end().ends_with(" config {}"), "{report}");
}

/// The text with every Mermaid entity code (`#59;`) removed.
fn strip_entities(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(';') {
            rest = &after[digits + 1..];
        } else {
            out.push('#');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn mermaid_keeps_log_text_out_of_the_syntax() {
    let out = run(&["timeline", "--format", "mermaid", HOSTILE]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let statements: Vec<&str> = text.lines().skip(2).collect();
    for line in &statements {
        // The text after the arrow or the note's position, or the alias.
        let label = match line.split_once(": ") {
            Some((_, label)) => label,
            None => line.split_once(" as ").expect("participant").1,
        };
        let plain = strip_entities(label);
        for bad in [
            '<', '>', ';', '%', '#', '\\', '\x1b', '\u{2028}', '\u{202e}',
        ] {
            assert!(!plain.contains(bad), "{bad:?} in {line}");
        }
    }
    // One statement per row: the newline in the tool name stayed text.
    assert!(
        !statements
            .iter()
            .any(|l| l.trim_start().starts_with("Note over C,S: injected"))
    );
    assert!(
        statements
            .iter()
            .any(|l| l.contains("#92;nNote over C,S: injected"))
    );
}

// -------------------------------------------------------------------- html

/// Tags the HTML page is made of; anything else came from the log.
const TAGS: &[&str] = &[
    "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "a",
    "nav", "button", "span", "label", "input", "i", "svg", "defs", "marker", "path", "div", "main",
    "section", "line", "rect", "text", "g", "circle", "script", "aside", "ul", "li", "b", "pre",
];

/// The tag names in an HTML text, in order.
fn tags(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = html.as_bytes();
    for (i, _) in html.match_indices('<') {
        let rest = &bytes[i + 1..];
        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
        let name: String = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'!')
            .map(|b| *b as char)
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

#[test]
fn html_escapes_everything_from_the_log() {
    let out = run(&["timeline", "--format", "html", HOSTILE]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).expect("utf-8");
    let unknown: BTreeSet<String> = tags(&html)
        .into_iter()
        .filter(|t| !TAGS.contains(&t.as_str()))
        .collect();
    assert!(unknown.is_empty(), "tags from the log: {unknown:?}");
    // Our script and one details block per page; nothing else runs.
    let scripts = html.matches("<script").count();
    let pages = html.matches("<section class=\"page").count();
    assert_eq!(scripts, pages + 1);
    assert_eq!(html.matches("<script>").count(), 1);
    for block in html
        .split("<script type=\"application/json\" class=\"details\">")
        .skip(1)
    {
        let json = &block[..block.find("</script>").expect("closed")];
        assert!(!json.contains('<') && !json.contains('>') && !json.contains('&'));
        let details: Value = serde_json::from_str(json).expect("details are JSON");
        assert!(details.as_array().is_some_and(|d| !d.is_empty()));
    }
    for bad in ['\x1b', '\x07', '\u{202e}'] {
        assert!(!html.contains(bad), "{bad:?} in the page");
    }
    for escaped in [
        "&lt;script&gt;alert(4)&lt;/script&gt;",
        "&lt;/svg&gt;&lt;script&gt;alert(5)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(1)&gt;",
    ] {
        assert!(html.contains(escaped), "{escaped} missing");
    }
    // Self-contained: no address to load anything from.
    for remote in ["http://", "https://", "src=\"", "//cdn"] {
        let allowed = "xmlns=\"http://www.w3.org/2000/svg\"";
        assert!(
            !html.replace(allowed, "").contains(remote),
            "{remote} in the page"
        );
    }
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
}

#[test]
fn long_sessions_are_paged() {
    let dir = scratch("views-long");
    let mut log = String::from(
        "2026-11-02T09:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n\
         2026-11-02T09:00:00.010000Z < {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\
         2026-11-02T09:00:00.020000Z > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    );
    let messages = 3000;
    for i in 1..=messages / 2 {
        let ms = 100 + i * 10;
        log.push_str(&format!(
            "2026-11-02T09:{:02}:{:02}.{:03}000Z > {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"t{i}\",\"arguments\":{{}}}}}}\n",
            ms / 60_000,
            ms / 1000 % 60,
            ms % 1000
        ));
        if i != 100 {
            let ms = ms + 5;
            log.push_str(&format!(
                "2026-11-02T09:{:02}:{:02}.{:03}000Z < {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[]}}}}\n",
                ms / 60_000,
                ms / 1000 % 60,
                ms % 1000
            ));
        }
    }
    let path = dir.join("long.log");
    fs::write(&path, log).expect("write");
    let html_path = dir.join("long.html");
    let out = run(&[
        "timeline",
        "--format",
        "html",
        "--out",
        html_path.to_str().expect("utf-8"),
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let html = fs::read_to_string(&html_path).expect("html written");
    let rows = html.matches("<g class=\"row\"").count();
    assert_eq!(rows, messages + 2);
    let pages: Vec<&str> = html.split("<section class=\"page").skip(1).collect();
    assert_eq!(pages.len(), rows.div_ceil(200));
    for page in &pages {
        assert!(page.matches("<g class=\"row\"").count() <= 200);
        assert_eq!(page.matches("<svg").count(), 1, "one small SVG per page");
    }
    // The request never answered (line 202) runs down every later page.
    let later = pages
        .iter()
        .skip(2)
        .filter(|p| p.contains("class=\"bar unanswered\""))
        .count();
    assert_eq!(later, pages.len() - 2);
}

/// Headless Chromium (`scripts/test` installs it).
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Waits for a child at most `limit`, killing it after that.
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An RGB image.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Image {
    fn read(path: &Path) -> Image {
        let decoder = png::Decoder::new(BufReader::new(fs::File::open(path).expect("png")));
        let mut reader = decoder.read_info().expect("png header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("png frame");
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected PNG colour type {other:?}"),
        };
        let rgb = buf[..info.buffer_size()]
            .chunks(channels)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Image {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }

    /// The column with the most pixels matching `f`: (count, column).
    fn best_column(&self, f: impl Fn([u8; 3]) -> bool) -> (usize, usize) {
        (0..self.width)
            .map(|x| ((0..self.height).filter(|&y| f(self.at(x, y))).count(), x))
            .max()
            .unwrap_or((0, 0))
    }

    /// Rows holding a horizontal run of at least `len` pixels matching `f`.
    fn rows_with_run(&self, len: usize, f: impl Fn([u8; 3]) -> bool) -> Vec<usize> {
        (0..self.height)
            .filter(|&y| {
                let mut run = 0;
                (0..self.width).any(|x| {
                    run = if f(self.at(x, y)) { run + 1 } else { 0 };
                    run >= len
                })
            })
            .collect()
    }
}

fn near(p: [u8; 3], hex: &str, tolerance: u8) -> bool {
    let c = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("hex");
    let want = [(c >> 16) as u8, (c >> 8) as u8, c as u8];
    p.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= tolerance)
}

/// The legend names every colour an arrow or bar of the page can have: the
/// amber of a cancelled request was missing (the sample has one).
#[test]
fn html_legend_names_every_arrow_colour() {
    let out = run(&["timeline", "--format", "html", SAMPLE]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(
        html.contains("head-cancelled"),
        "the sample draws a cancelled request"
    );
    let legend = html
        .split("<span class=\"legend\">")
        .nth(1)
        .and_then(|rest| rest.split("</span>").next())
        .expect("a legend");
    for (class, words) in [
        ("k-request", "request"),
        ("k-response", "result"),
        ("k-failed", "error"),
        ("k-unanswered", "never answered"),
        ("k-cancelled", "cancelled"),
        ("k-stderr", "stderr"),
    ] {
        assert!(
            legend.contains(&format!("<i class=\"{class}\"></i>{words}")),
            "{class}: {legend}"
        );
        assert!(
            html.contains(&format!(".{class}{{background:")),
            "{class} has a colour"
        );
    }
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let chromium = chromium().expect(
        "chromium is not installed: run scripts/test, which installs it (apt-get install chromium)",
    );
    let dir = scratch("chromium");
    let html = dir.join("sample.html");
    let out = run(&[
        "timeline",
        "--format",
        "html",
        "--out",
        html.to_str().expect("utf-8"),
        SAMPLE,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let png = dir.join("sample.png");
    let profile = dir.join("profile");
    let mut child = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1400,1000")
        .arg(format!("file://{}", html.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let status =
        wait_at_most(&mut child, Duration::from_secs(90)).expect("chromium finished in 90 s");
    assert!(status.success(), "chromium failed: {status}");
    let image = Image::read(&png);
    assert_eq!((image.width, image.height), (1400, 1000));
    // Both lanes: columns of the lane colours (arrows and notes cross them),
    // the client's left of the server's.
    let (client_px, client_x) = image.best_column(|p| near(p, "#1f6feb", 24));
    let (server_px, server_x) = image.best_column(|p| near(p, "#1a7f37", 24));
    assert!(client_px >= 600, "client lane: {client_px} px");
    assert!(server_px >= 600, "server lane: {server_px} px");
    assert!(
        client_x + 200 < server_x,
        "lanes at x={client_x} and x={server_x}"
    );
    // Arrows: rows mostly covered by a dark line (solid or dashed) between
    // the lanes.
    let dark = |p: [u8; 3]| {
        let (lo, hi) = (p.iter().min().copied(), p.iter().max().copied());
        hi < Some(140) && hi.zip(lo).is_some_and(|(h, l)| h - l < 40)
    };
    let between = client_x + 12..server_x - 12;
    let arrows: Vec<usize> = (0..image.height)
        .filter(|&y| {
            let n = between.clone().filter(|&x| dark(image.at(x, y))).count();
            n * 100 >= between.len() * 55
        })
        .collect();
    let distinct = arrows.windows(2).filter(|w| w[1] > w[0] + 2).count() + 1;
    assert!(
        distinct >= 15,
        "only {distinct} arrows found (rows {arrows:?})"
    );
    // The unanswered request: a long red arrow, and red running from it
    // down the server lane to the bottom of the window.
    let red = |p: [u8; 3]| near(p, "#d00000", 40) && p[1] < 40 && p[2] < 40;
    let red_arrow = image.rows_with_run(250, red);
    assert!(!red_arrow.is_empty(), "no red arrow");
    let (red_px, red_x) = image.best_column(red);
    assert!(red_px >= 40, "red bar only {red_px} px long");
    assert!(
        red_x > server_x && red_x < server_x + 20,
        "red bar at x={red_x}, server lane at x={server_x}"
    );
    let below = red_arrow[0] + 3..image.height;
    let covered = below.clone().filter(|&y| red(image.at(red_x, y))).count();
    assert!(
        covered * 100 >= below.len() * 85,
        "the red bar covers {covered} of the {} px from the red arrow (y={}) down",
        below.len(),
        red_arrow[0]
    );
}

// ------------------------------------------------------------------- stats

#[test]
fn stats_of_the_sample_match_their_snapshots() {
    let mut failures = Vec::new();
    for (format, ext) in [("table", "txt"), ("json", "json")] {
        let out = run(&["stats", "--format", format, SAMPLE]);
        assert_eq!(out.status.code(), Some(0));
        failures.extend(snapshot(
            &Path::new("tests/snapshots/stats").join(format!("sample-session.{ext}")),
            &String::from_utf8_lossy(&out.stdout),
        ));
    }
    let out = run(&[
        "stats",
        "fixtures/rules/direction-inferred.log",
        "fixtures/clean/legacy-2025-06-18.log",
    ]);
    failures.extend(snapshot(
        Path::new("tests/snapshots/stats/two-files.txt"),
        &transcript(&out),
    ));
    assert_no_failures(failures);
}

/// Checks that an object has exactly these keys.
fn keys(v: &Value, expected: &[&str], what: &str) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object: {v}"));
    let have: Vec<&str> = obj.keys().map(String::as_str).collect();
    assert_eq!(have, expected, "{what}");
}

#[test]
fn stats_json_version_1_is_pinned() {
    let all: Vec<PathBuf> = fixtures().into_iter().filter(|f| !not_a_log(f)).collect();
    let mut args = vec!["stats", "--format", "json"];
    args.extend(all.iter().map(|p| p.to_str().expect("utf-8")));
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    keys(
        &doc,
        &[
            "version",
            "files",
            "methods",
            "slowest",
            "stderr",
            "non_message_lines",
            "waiting",
            "bytes",
            "negative_latencies",
            "tool_cost",
        ],
        "document",
    );
    keys(
        &doc["tool_cost"],
        &[
            "tokenizer",
            "bytes_per_token",
            "tools",
            "other_tools",
            "total",
        ],
        "tool_cost",
    );
    keys(
        &doc["tool_cost"]["total"],
        &["listed", "definitions", "results", "result_sizes"],
        "tool_cost total",
    );
    let tools = doc["tool_cost"]["tools"].as_array().expect("tools");
    assert!(!tools.is_empty());
    for t in tools {
        keys(t, &["name", "definition", "results"], "tool");
        if !t["definition"].is_null() {
            keys(&t["definition"], &["bytes", "tokens"], "definition");
        }
        if !t["results"].is_null() {
            keys(
                &t["results"],
                &["count", "sampled", "median", "max", "total"],
                "results",
            );
        }
    }
    assert_eq!(doc["version"], 1);
    let bytes = [
        "client_to_server",
        "server_to_client",
        "server_stderr",
        "unknown",
    ];
    keys(&doc["bytes"], &bytes, "bytes");
    keys(&doc["stderr"], &["lines", "bytes"], "stderr");
    keys(
        &doc["non_message_lines"],
        &["lines", "bytes"],
        "non_message_lines",
    );
    keys(&doc["waiting"], &["on_server", "on_client"], "waiting");
    for side in ["on_server", "on_client"] {
        keys(
            &doc["waiting"][side],
            &["open_seconds", "answers", "latency_sum_seconds"],
            side,
        );
    }
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), all.len());
    for f in files {
        keys(
            f,
            &[
                "path",
                "format",
                "lines",
                "first_time",
                "last_time",
                "duration_seconds",
                "messages",
                "stderr_lines",
            ],
            "file",
        );
        keys(
            &f["messages"],
            &["client_to_server", "server_to_client", "unknown_direction"],
            "messages",
        );
    }
    let mut kinds = BTreeSet::new();
    for m in doc["methods"].as_array().expect("methods") {
        keys(
            m,
            &[
                "method",
                "direction",
                "kind",
                "count",
                "errors",
                "unanswered",
                "latency_seconds",
                "bytes",
            ],
            "method",
        );
        keys(&m["bytes"], &bytes, "method bytes");
        if !m["latency_seconds"].is_null() {
            keys(
                &m["latency_seconds"],
                &["count", "p50", "p95", "max"],
                "latency",
            );
        }
        kinds.insert(m["kind"].as_str().expect("kind").to_string());
    }
    assert_eq!(
        kinds,
        BTreeSet::from(["notification".into(), "request".into(), "response".into()])
    );
    for s in doc["slowest"].as_array().expect("slowest") {
        keys(
            s,
            &[
                "path",
                "line",
                "direction",
                "method",
                "subject",
                "id",
                "seconds",
                "answered",
                "cancelled",
                "closed",
            ],
            "slow request",
        );
    }
    // Ids keep their JSON type.
    let out = run(&["stats", "--format", "json", HOSTILE]);
    let doc = json_of(&out);
    assert!(
        doc["slowest"]
            .as_array()
            .expect("slowest")
            .iter()
            .any(|s| s["id"].is_string())
    );
}

/// `stats` on recorded sessions: each tool's definition and result sizes
/// are those worked out from the log's raw lines (the tools/list answer's
/// tools and the tools/call answers re-serialised compactly), whatever the
/// order of listing and calling; `--redact` shows placeholders and keeps
/// the sizes of what was sent.
#[test]
fn stats_tool_cost_is_what_the_raw_lines_say() {
    for log in [
        "tests/corpus/fastmcp/stalled-event-loop.log",
        "tests/corpus/reference/everything-clean.log",
        "fixtures/sample-session.log",
    ] {
        let text = fs::read_to_string(root().join(log)).expect("log");
        let doc = json_of(&run(&["stats", "--format", "json", log]));
        let raw = assert_tool_cost(&doc["tool_cost"], &text, log);
        let redacted = json_of(&run(&["stats", "--format", "json", "--redact", log]));
        let sizes = |doc: &Value| -> Vec<String> {
            let mut all: Vec<String> = doc["tool_cost"]["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|t| format!("{} {}", t["definition"], t["results"]))
                .collect();
            all.sort();
            all
        };
        assert_eq!(sizes(&redacted), sizes(&doc), "{log}");
        assert_eq!(redacted["tool_cost"]["total"], doc["tool_cost"]["total"]);
        if log.contains("stalled") {
            // Called before and after the list; eight answers.
            assert_eq!(raw["add"].results.len(), 8);
        }
    }
}

/// `--tokens o200k_base` counts exactly in a build with the `tokenizer`
/// feature (the same bytes, other tokens); without it, it is refused with
/// exit 2, saying which feature it needs.
#[test]
fn stats_tokens_need_the_tokenizer_feature() {
    let out = run(&[
        "stats",
        "--format",
        "json",
        "--tokens",
        "o200k_base",
        SAMPLE,
    ]);
    if cfg!(feature = "tokenizer") {
        assert_eq!(out.status.code(), Some(0));
        let exact = json_of(&out)["tool_cost"].clone();
        let estimate = json_of(&run(&["stats", "--format", "json", SAMPLE]))["tool_cost"].clone();
        assert_eq!(exact["tokenizer"], "o200k_base");
        assert!(exact["bytes_per_token"].is_null());
        assert_eq!(
            exact["total"]["definitions"]["bytes"],
            estimate["total"]["definitions"]["bytes"]
        );
        assert_ne!(
            exact["total"]["definitions"]["tokens"],
            estimate["total"]["definitions"]["tokens"]
        );
    } else {
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--features tokenizer"), "{stderr}");
    }
}

#[test]
fn stats_read_stdin_and_report_unreadable_files() {
    let input = fs::read(root().join(SAMPLE)).expect("fixture");
    let mut child = mcpdbg()
        .args(["stats", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)["files"][0]["path"], "-");
    let out = run(&["stats", "fixtures/no-such-file.log", SAMPLE]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tools/call"));
    // No file read: nothing on stdout (an empty report read as a clean
    // log), as the README's exit-status table says of every command.
    for format in ["table", "json"] {
        let out = run(&["stats", "--format", format, "fixtures/no-such-file.log"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            out.stdout.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot open fixtures/no-such-file.log")
        );
    }
}

// --------------------------------------------- views agree with `check`

/// The requests never answered as `check` has them (open, not cancelled),
/// as `timeline` has them, and how many `stats` counts (cancelled ones
/// too), for one log.
fn unanswered_by_command(log: &str) -> (Vec<u64>, Vec<u64>, u64, u64) {
    let check = run(&["check", "--format", "json", log]);
    let check = json_of(&check);
    let mut pending = Vec::new();
    let mut total = 0;
    for session in check["files"][0]["sessions"].as_array().expect("sessions") {
        total += session["pending_total"].as_u64().expect("pending_total");
        for p in session["pending"].as_array().expect("pending") {
            pending.push(p["line"].as_u64().expect("line"));
        }
    }
    pending.sort();
    assert_eq!(
        pending.len() as u64,
        total,
        "{log}: every pending request listed"
    );
    let timeline = json_of(&run(&["timeline", "--format", "json", log]));
    let unanswered = timeline["unanswered"].as_array().expect("unanswered");
    let waited: Vec<u64> = unanswered
        .iter()
        .filter(|u| u["cancelled"] == false)
        .map(|u| u["line"].as_u64().expect("line"))
        .collect();
    let stats = json_of(&run(&["stats", "--format", "json", log]));
    let counted = stats["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| m["unanswered"].as_u64().unwrap_or(0))
        .sum();
    (pending, waited, unanswered.len() as u64, counted)
}

/// What each command counts of `log`'s traffic: messages per direction
/// (check's sessions summed, and stats), and timed answers to requests
/// (timeline's rows that answer one with a latency, and stats' latencies).
fn answered_by_command(log: &str) -> ([u64; 2], [u64; 2], u64, u64) {
    let check = json_of(&run(&["check", "--format", "json", log]));
    let mut checked = [0, 0];
    for session in check["files"][0]["sessions"].as_array().expect("sessions") {
        for (i, dir) in ["client_to_server", "server_to_client"].iter().enumerate() {
            checked[i] += session["messages"][dir].as_u64().expect("messages");
        }
    }
    let stats = json_of(&run(&["stats", "--format", "json", log]));
    let mut counted = [0, 0];
    for file in stats["files"].as_array().expect("files") {
        for (i, dir) in ["client_to_server", "server_to_client"].iter().enumerate() {
            counted[i] += file["messages"][dir].as_u64().expect("messages");
        }
    }
    // Answers that pair with a request and are timed (stats' latencies):
    // a request displaced by a reused id, or never followed, is in stats'
    // count without being answered or open.
    let stats_answered = stats["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter(|m| m["kind"] == "request")
        .map(|m| m["latency_seconds"]["count"].as_u64().unwrap_or(0))
        .sum();
    let timeline = json_of(&run(&["timeline", "--format", "json", log]));
    let answered = timeline["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["answers"]["latency"].is_number())
        .count() as u64;
    (checked, counted, answered, stats_answered)
}

/// One session model: on every log in the repository (the fixtures and the
/// recorded corpus, multi-server logs among them), `timeline` marks as never
/// answered exactly the requests `check` reports open, and `stats` counts
/// the same, cancelled ones included; and they count the same messages and
/// the same answered requests. A log that interleaves servers is
/// split into the same sessions by each (they paired every server's ids in
/// one table, so one server's answer settled another's request).
#[test]
fn timeline_and_stats_agree_with_check_on_what_was_never_answered() {
    let mut logs: Vec<PathBuf> = fixtures();
    let corpus = root().join("tests/corpus");
    for group in fs::read_dir(&corpus).expect("tests/corpus") {
        let group = group.expect("entry").path();
        if !group.is_dir() {
            continue;
        }
        for file in fs::read_dir(&group).expect("group") {
            let file = file.expect("entry").path();
            if file.extension().is_some_and(|e| e == "log") {
                logs.push(file.strip_prefix(root()).expect("under root").to_path_buf());
            }
        }
    }
    let mut disagree = Vec::new();
    let mut multi = 0;
    for log in &logs {
        let log = log.to_str().expect("utf-8 path");
        let check = run(&["check", "--format", "json", log]);
        if check.status.code() == Some(2) {
            // No MCP message in it (a tee capture's stderr file, a VS Code
            // log without payloads): nothing to agree on.
            continue;
        }
        let check = json_of(&check);
        if check["files"][0]["sessions"]
            .as_array()
            .is_some_and(|s| s.iter().filter(|s| !s["name"].is_null()).count() > 1)
        {
            multi += 1;
        }
        let (pending, waited, unanswered, counted) = unanswered_by_command(log);
        if pending != waited || unanswered != counted {
            disagree.push(format!(
                "{log}: check {pending:?}, timeline {waited:?} ({unanswered} with cancelled ones), stats {counted}"
            ));
        }
        let (checked, stats_messages, answered, stats_answered) = answered_by_command(log);
        if checked != stats_messages || answered != stats_answered {
            disagree.push(format!(
                "{log}: messages: check {checked:?}, stats {stats_messages:?}; answered: timeline {answered}, stats {stats_answered}"
            ));
        }
    }
    assert!(logs.len() > 200, "only {} logs found", logs.len());
    assert!(multi >= 3, "only {multi} multi-server logs");
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    // The log that showed it: the notes server's `tools/call` id 2 (line
    // 10) is never answered; github's id 2 (line 13) is answered at line
    // 14, which must not settle it.
    let (pending, waited, _, counted) =
        unanswered_by_command("fixtures/formats/claude-aggregate/two-servers.log");
    assert_eq!((pending, waited, counted), (vec![10], vec![10], 1));
}

/// `check --follow` splits a multi-server log the same way: its status line
/// names the request one server still owes although another server answered
/// its own request of the same id.
#[test]
fn follow_status_names_what_each_server_still_owes() {
    let dir = scratch("follow-lanes");
    let path = dir.join("mcp.log");
    let log = fs::read_to_string(root().join("fixtures/formats/claude-aggregate/two-servers.log"))
        .expect("fixture");
    // Up to github's answer to its id 2 (line 14), before the notes
    // server's transport closes.
    let head: String = log.lines().take(14).map(|l| format!("{l}\n")).collect();
    fs::write(&path, head).expect("write");
    let mut child = follower(&path, &["--status-interval", "0.2"], false);
    let rx = lines_of(child.0.stdout.take().expect("stdout"));
    let seen = expect_line(&rx, "open: ");
    let status = seen.last().expect("a line");
    assert!(
        status.starts_with("open: tools/call \"sync\" id 2 (line 10) waiting"),
        "{status}"
    );
    assert!(!status.contains("more open"), "{status}");
}

// ------------------------------------------------------------------ follow

/// A child process that is killed when the test ends, even by a failed
/// assertion (a follower never stops on its own).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `check --follow` on `path`, polling every 50 ms, with `args` before the
/// path; stdout and stderr piped (stderr dropped with `quiet`).
fn follower(path: &Path, args: &[&str], quiet: bool) -> Killed {
    Killed(
        mcpdbg()
            .args(["check", "--follow", "--poll-interval", "0.05"])
            .args(args)
            .arg(path)
            .stdout(Stdio::piped())
            .stderr(if quiet { Stdio::null() } else { Stdio::piped() })
            .spawn()
            .expect("starts"),
    )
}

/// Reads a child's output on a thread, one line at a time.
fn lines_of(output: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (at most 20 s) for a line containing `want`; returns the lines read.
fn expect_line(rx: &mpsc::Receiver<String>, want: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(want);
                seen.push(line);
                if found {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no line containing {want:?} within 20 s; got {seen:?}");
}

fn append(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(text.as_bytes()).expect("append");
}

#[test]
fn follow_prints_findings_as_the_file_grows() {
    let dir = scratch("follow");
    let path = dir.join("live.log");
    fs::write(&path, "").expect("create");
    let sample = fs::read_to_string(root().join(SAMPLE)).expect("fixture");
    let lines: Vec<&str> = sample.lines().collect();
    let chunk = |a: usize, b: usize| {
        lines[a - 1..b]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let mut child = follower(&path, &["--status-interval", "0.3"], false);
    let child = &mut child.0;
    let rx = lines_of(child.stdout.take().expect("stdout"));
    let notes = lines_of(child.stderr.take().expect("stderr"));
    expect_line(&notes, "following");
    // The handshake and a stray line: the stray-output finding comes at once.
    append(&path, &chunk(1, 16));
    std::thread::sleep(Duration::from_millis(200));
    append(&path, &chunk(17, 17));
    let seen = expect_line(&rx, "stray-output");
    assert_eq!(
        seen.last().expect("line"),
        "line 17: error stray-output: server wrote non-JSON text to stdout: \"Loaded 412 notes from cache\""
    );
    // A request with no answer yet, written in two pieces (a partial line
    // is not read until it is complete): a status line names it.
    let request = chunk(37, 37);
    let (head, tail) = request.split_at(40);
    append(&path, head);
    std::thread::sleep(Duration::from_millis(300));
    append(&path, tail);
    let seen = expect_line(&rx, "open: tools/call \"file_note\" id 9 (line 18)");
    assert!(
        !seen.iter().any(|l| l.starts_with("line 18:")),
        "the first piece was read as a line of its own: {seen:?}"
    );
    // The slow answer to another request: its finding as it happens.
    append(&path, &chunk(26, 28).replace("\"id\":6", "\"id\":60"));
    expect_line(&rx, "line 21: warning slow-response");
    // Truncation: reading starts again, and is said on stderr.
    fs::write(&path, "").expect("truncate");
    expect_line(&notes, "was truncated; reading it again from the start");
    append(&path, &chunk(1, 2));
    std::thread::sleep(Duration::from_millis(300));
    // Rotation: a new file at the path.
    let rotated = dir.join("live.log.1");
    fs::rename(&path, &rotated).expect("rotate");
    fs::write(&path, chunk(1, 5)).expect("new file");
    expect_line(
        &notes,
        "was replaced (rotated); reading it again from the start",
    );
    // Ctrl-C: the final report, with the hang, and the usual exit status.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut rest = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => rest.push(line),
            Err(_) => break,
        }
    }
    let status = wait_at_most(child, Duration::from_secs(10)).expect("exits after SIGINT");
    let report = rest.join("\n");
    assert_eq!(status.code(), Some(1), "{report}");
    for part in [
        "live.log (part 1) (native format)",
        "live.log (part 2) (native format)",
        "live.log (part 3) (native format)",
        "unanswered-request",
        "errors,",
    ] {
        assert!(report.contains(part), "{part:?} missing from {report}");
    }
}

#[test]
fn follow_applies_select_ignore_and_severity_to_live_findings() {
    let dir = scratch("follow-filter");
    let path = dir.join("live.log");
    let sample = fs::read_to_string(root().join(SAMPLE)).expect("fixture");
    let head: String = sample.lines().take(28).map(|l| format!("{l}\n")).collect();
    fs::write(&path, head).expect("write");
    let mut child = follower(
        &path,
        &[
            "--ignore",
            "stray-output",
            "--severity",
            "slow-response=info",
        ],
        true,
    );
    let rx = lines_of(child.0.stdout.take().expect("stdout"));
    // Line 17's stray output comes before line 28's slow response: ignored,
    // it is not printed, and the slow response is printed at its new level.
    let seen = expect_line(&rx, "slow-response");
    assert!(
        !seen.iter().any(|l| l.contains("stray-output")),
        "an ignored rule was printed live: {seen:?}"
    );
    assert!(
        seen.last()
            .expect("line")
            .starts_with("line 28: info slow-response"),
        "{seen:?}"
    );
}

#[test]
fn follow_usage_errors_exit_2() {
    assert_eq!(
        run(&["check", "--follow", SAMPLE, SAMPLE]).status.code(),
        Some(2)
    );
    assert_eq!(run(&["check", "--follow", "-"]).status.code(), Some(2));
    assert_eq!(
        run(&["check", "--follow", "--format", "json", SAMPLE])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn follow_waits_for_a_missing_file_and_notices_the_server_exit() {
    let dir = scratch("follow-missing");
    let path = dir.join("later.log");
    let mut child = follower(&path, &["--status-interval", "0.2"], false);
    let child = &mut child.0;
    let rx = lines_of(child.stdout.take().expect("stdout"));
    let notes = lines_of(child.stderr.take().expect("stderr"));
    expect_line(&notes, "does not exist yet; waiting for it");
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().expect("wait").is_none(), "it waits");
    let t = "2026-11-20T14:00:0";
    fs::write(
        &path,
        format!(
            "{t}0.000000Z # start: python server.py\n\
             {t}0.100000Z > {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n\
             {t}0.200000Z < {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n\
             {t}0.300000Z > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
             {t}0.400000Z > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"wait_for_ever\",\"arguments\":{{}}}}}}\n"
        ),
    )
    .expect("write");
    // The open request is named by its tool.
    expect_line(&rx, "open: tools/call \"wait_for_ever\" id 2 (line 5)");
    append(
        &path,
        &format!("{t}9.000000Z # server exited with status 1\n"),
    );
    let seen = expect_line(
        &rx,
        "line 6: the server ended (server exited with status 1)",
    );
    assert!(
        seen.last()
            .expect("line")
            .ends_with("1 request still open will never be answered"),
        "{seen:?}"
    );
    // Once the server is gone, nothing is waited on: no more `open:` lines.
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut rest = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => rest.push(line),
            Err(_) => break,
        }
    }
    let status = wait_at_most(child, Duration::from_secs(10)).expect("exits after SIGINT");
    assert!(!rest.iter().any(|l| l.starts_with("open:")), "{rest:?}");
    assert_eq!(status.code(), Some(1), "{rest:?}");
    assert!(
        rest.iter().any(|l| l.contains("unanswered-request")),
        "{rest:?}"
    );
}

// ------------------------------------------------------ README and docs/

#[test]
fn documented_outputs_are_what_the_commands_print() {
    let marker = "<!-- output: mcpdbg ";
    let mut checked = 0;
    for (file, doc) in documentation() {
        for (at, _) in doc.match_indices(marker) {
            let rest = &doc[at + marker.len()..];
            let args: Vec<&str> = rest[..rest.find(" -->").expect("marker end")]
                .split_whitespace()
                .collect();
            let block = &rest[rest.find("```text\n").expect("a text block follows") + 8..];
            let block = &block[..block.find("```").expect("block end")];
            let out = run(&args);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                block,
                "{file}: block for `mcpdbg {}` is stale",
                args.join(" ")
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "only {checked} outputs of README.md and docs/*.md are checked"
    );
}

/// A long log message, whose `data` the parser cuts for `check`: the
/// timeline's summary still shows its first 120 characters and the ellipsis.
#[test]
fn summaries_of_long_payloads_read_them_whole() {
    let dir = scratch("long-summary");
    let path = dir.join("long.log");
    let data = format!("{}\\n{}", "abcdefghij".repeat(12), "z".repeat(900));
    std::fs::write(
        &path,
        format!(
            "< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{data}\"}}}}\n"
        ),
    )
    .expect("write");
    let out = run(&["timeline", path.to_str().expect("utf-8 path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.contains("notifications/message"))
        .unwrap_or_else(|| panic!("no row in {text}"));
    assert!(row.contains(&"abcdefghij".repeat(10)), "{row}");
    assert!(row.ends_with('…'), "{row}");
}

#[test]
fn a_damaged_compressed_log_is_said_in_every_view() {
    let fixture = "fixtures/rules/corrupt-compressed-input.log";
    let words = "could not be decoded to its end";
    let stats = run(&["stats", fixture]);
    assert_eq!(stats.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&stats.stderr).contains(words),
        "stats is silent about the missing rest"
    );
    let timeline = run(&["timeline", fixture]);
    assert!(String::from_utf8_lossy(&timeline.stdout).contains(words));
    let diff = run(&["diff", "--format", "json", fixture, fixture]);
    let doc = json_of(&diff);
    assert!(
        doc.to_string().contains("corrupt-compressed-input"),
        "diff counts the finding on both sides: {doc}"
    );
}

/// The HTML headline of a stalled server names the culprit (the slow call that
/// blocked the event loop), not its victims; recorded from FastMCP.
#[test]
fn html_headline_names_the_stall_culprit() {
    let out = mcpdbg()
        .args([
            "timeline",
            "--format",
            "html",
            "tests/corpus/fastmcp/stalled-event-loop.log",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).expect("utf-8");
    let start = html.find(r#"<p class="hangs">"#).expect("a headline");
    let headline = &html[start..start + html[start..].find("</p>").expect("its end")];
    assert!(
        headline.contains("a blocking call in `wait_for_ever` likely stalled the event loop"),
        "{headline}"
    );
    assert!(!headline.contains("`add`"), "{headline}");
    assert!(
        !headline.contains("every request was answered"),
        "{headline}"
    );
}

/// The Mermaid note of a stall starts with its culprit, so the cut note a
/// user pastes into an issue still names it, and the note is cut at a word.
#[test]
fn mermaid_stall_note_names_the_culprit_first() {
    let out = run(&[
        "timeline",
        "--format",
        "mermaid",
        "tests/corpus/fastmcp/stalled-event-loop.log",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let note = text
        .lines()
        .find(|l| l.contains("server-stalled"))
        .expect("a stall note");
    assert!(
        note.contains("server-stalled: #96;wait_for_ever#96; stalled the server"),
        "{note}"
    );
    let cut = note.strip_suffix("#8230;").expect("the note is cut");
    assert!(
        cut.ends_with(|c: char| c.is_alphanumeric() || c == ')' || c == ';'),
        "{note}"
    );
    let last_word = cut.rsplit(' ').next().unwrap_or_default();
    assert!(
        "`wait_for_ever` stalled the server for 6.0 s with 4 requests open (it took 6.0 s): 3 `add` calls (median"
            .replace('`', "#96;")
            .split(' ')
            .any(|w| w == last_word),
        "cut inside a word: {note}"
    );
}

// ------------------------------------------------------- bursts of stderr

/// A start-up banner recorded from the real FastMCP 4.2.3 (the corpus
/// session `fastmcp/output-schema-mismatch`, recorded with `mcpdbg
/// record`): lines 3-21 are its 19-line banner and lines 22-24 its first
/// log line (rich wraps it), all written within 4 ms, before the
/// initialize result at line 25; line 36 is a stderr line of its own.
const BANNER: &str = "tests/corpus/fastmcp/output-schema-mismatch.log";

#[test]
fn a_recorded_startup_banner_is_one_row_in_every_view() {
    let text = String::from_utf8(run(&["timeline", BANNER]).stdout).expect("utf-8");
    let rows: Vec<&str> = text.lines().skip(2).collect();
    // Written from the raw lines: the event, initialize, the burst, the result.
    assert!(rows[2].starts_with("   3 "), "{text}");
    assert!(
        rows[2].contains("S!          stderr ×22 (lines 3-24)")
            && rows[2].ends_with("  FastMCP 4.2.3"),
        "{text}"
    );
    assert!(rows[3].starts_with("  25 ") && rows[3].contains("result initialize"));
    assert_eq!(
        rows.iter().filter(|r| r.contains(" S! ")).count(),
        2,
        "the banner and line 36: {text}"
    );
    // --full: every line its own row.
    let full = String::from_utf8(run(&["timeline", "--full", BANNER]).stdout).expect("utf-8");
    let stderr_rows = full.lines().filter(|l| l.contains(" S!  ")).count();
    assert_eq!(stderr_rows, 23, "{full}");
    // JSON: one row per line, each stderr row naming its burst.
    let doc = json_of(&run(&["timeline", "--format", "json", BANNER]));
    let bursts: Vec<(u64, u64)> = doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["kind"] == "stderr")
        .map(|r| (r["line"].as_u64().unwrap(), r["burst"].as_u64().unwrap()))
        .collect();
    let mut expected: Vec<(u64, u64)> = (3..=24).map(|l| (l, 3)).collect();
    expected.push((36, 36));
    assert_eq!(bursts, expected);
    // Mermaid: one note for the burst, and the diagram still parses.
    let mermaid =
        String::from_utf8(run(&["timeline", "--format", "mermaid", BANNER]).stdout).expect("utf-8");
    let notes: Vec<&str> = mermaid
        .lines()
        .filter(|l| l.trim_start().starts_with("Note right of S: stderr"))
        .collect();
    assert_eq!(notes.len(), 2, "{mermaid}");
    assert!(
        notes[0].contains("stderr #215;22 (lines 3-24): FastMCP 4.2.3"),
        "{mermaid}"
    );
    let dir = scratch("banner");
    std::fs::write(dir.join("banner.mmd"), &mermaid).expect("write");
    let script = mermaid_parser();
    let parsed = Command::new("node")
        .arg(&script)
        .arg(dir.join("banner.mmd"))
        .current_dir(script.parent().expect("dir"))
        .output()
        .expect("node runs");
    assert!(
        parsed.status.success() && String::from_utf8_lossy(&parsed.stdout).contains("ok sequence"),
        "{}",
        transcript(&parsed)
    );
    // HTML: one note, and the lines in a <details> below the diagram, escaped.
    let html =
        String::from_utf8(run(&["timeline", "--format", "html", BANNER]).stdout).expect("utf-8");
    assert_eq!(html.matches("<details class=\"burst\"").count(), 1);
    let details = &html[html
        .find("<details class=\"burst\" id=\"burst-3\">")
        .expect("details")..];
    let details = &details[..details.find("</details>").expect("end")];
    let pre = &details[details.find("<pre>").expect("pre") + 5..details.find("</pre>").unwrap()];
    assert_eq!(pre.lines().count(), 22, "{pre}");
    assert!(pre.contains("FastMCP 4.2.3") && pre.contains("INFO     Starting MCP server"));
    assert!(pre.contains("&#39;fastmcp-notes&#39;"), "escaped: {pre}");
    assert!(details.contains("<summary>stderr ×22 (lines 3-24) · FastMCP 4.2.3</summary>"));
    // --redact: the lines are placeholders there too.
    let redacted =
        String::from_utf8(run(&["timeline", "--format", "html", "--redact", BANNER]).stdout)
            .expect("utf-8");
    let details = &redacted[redacted.find("<details class=\"burst\"").expect("details")..];
    let details = &details[..details.find("</details>").expect("end")];
    assert!(details.contains("[redacted "), "{details}");
    for word in ["gofastmcp", "Starting MCP server", "fastmcp-notes"] {
        assert!(!details.contains(word), "{word} in {details}");
    }
    // The snapshots of the text and the Mermaid.
    let mut failures = Vec::new();
    failures.extend(snapshot(
        Path::new("tests/snapshots/timeline/corpus/fastmcp-banner.txt"),
        &text,
    ));
    failures.extend(snapshot(
        Path::new("tests/snapshots/timeline/corpus/fastmcp-banner.mmd"),
        &mermaid,
    ));
    assert_no_failures(failures);
}

/// A click on the burst's row (here through the page's `#line-3` link,
/// which selects the row as a click does) opens its element; otherwise it
/// stays closed.
#[test]
fn a_burst_opens_when_its_row_is_chosen_in_headless_chromium() {
    let chromium = chromium().expect(
        "chromium is not installed: run scripts/test, which installs it (apt-get install chromium)",
    );
    let dir = scratch("burst-chromium");
    let html = dir.join("banner.html");
    let out = run(&[
        "timeline",
        "--format",
        "html",
        "--out",
        html.to_str().expect("utf-8"),
        BANNER,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let dom = |hash: &str| -> String {
        let out = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(format!("file://{}{hash}", html.display()))
            .stderr(Stdio::null())
            .output()
            .expect("chromium runs");
        assert!(out.status.success(), "chromium failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let opened = dom("#line-3");
    assert!(
        opened.contains(r#"<details class="burst" id="burst-3" open="">"#),
        "{opened}"
    );
    let closed = dom("");
    assert!(
        closed.contains(r#"<details class="burst" id="burst-3">"#),
        "{closed}"
    );
}

/// The page keeps at most 200 lines of a burst and counts the rest; the
/// text and Mermaid show one row, one note.
#[test]
fn a_long_burst_keeps_200_lines_in_the_page() {
    let dir = scratch("long-burst");
    let path = dir.join("burst.log");
    let mut log = String::from("> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    for n in 1..=250 {
        log.push_str(&format!("! worker {n} <ready>\n"));
    }
    std::fs::write(&path, log).expect("write");
    let path = path.to_str().expect("utf-8");
    let html =
        String::from_utf8(run(&["timeline", "--format", "html", path]).stdout).expect("utf-8");
    let pre = &html[html.find("<pre>").expect("pre") + 5..html.find("</pre>").expect("end")];
    let lines: Vec<&str> = pre.lines().collect();
    assert_eq!(lines.len(), 201, "{pre}");
    assert_eq!(lines[0], "worker 1 &lt;ready&gt;");
    assert_eq!(lines[199], "worker 200 &lt;ready&gt;");
    assert_eq!(
        lines[200],
        "… and 50 more lines (`mcpdbg timeline --full` prints them)"
    );
    let text = String::from_utf8(run(&["timeline", path]).stdout).expect("utf-8");
    let rows = text.lines().filter(|l| !l.trim_start().starts_with('└'));
    assert_eq!(
        rows.count(),
        5,
        "a title, a header, two rows, the tally: {text}"
    );
    assert!(
        text.contains("stderr ×250 (lines 2-251)") && text.contains("worker 1 <ready>"),
        "{text}"
    );
    let mermaid =
        String::from_utf8(run(&["timeline", "--format", "mermaid", path]).stdout).expect("utf-8");
    assert_eq!(mermaid.matches("Note right of S").count(), 1, "{mermaid}");
}
