//! Text from the log in every output. `fixtures/ci/hostile-fields.log`
//! puts a hostile string in every field that reaches an output (methods,
//! tool names, string ids, error messages, stderr and stray stdout lines,
//! client and server names and versions, the protocol version, resource
//! URIs, progress tokens, events; on Linux the file's own name too): a
//! newline followed by a forged `forged.log:7: error ...` finding, CR, ESC,
//! BEL, C1 controls, U+2028 and U+2029, and the markers a CI runner reads
//! as a command (`::error::` at a line start, `##[add-mask]`, `##vso[`).
//! Every command runs over it in every format (`probe`, and `replay` of the
//! log, against a `sh` server whose answers, stray line and stderr are
//! hostile too), and each output keeps the promise of its kind:
//!
//! - line-oriented (table, concise, timeline text, stats, diff, Mermaid,
//!   GitHub annotations, and every command's standard error): no raw
//!   control character but LF and tab, no U+2028/U+2029, no line that the
//!   log starts (a forged `PATH:LINE: error`), no line a GitHub runner reads
//!   as a workflow command (`::` at its start once leading white space is
//!   trimmed, or `##[` anywhere) and no Azure Pipelines logging command
//!   (`##vso[`), except the annotations `--format github` means to write;
//! - JSON (json, jsonl, SARIF, the timeline's, stats' and diff's): parses,
//!   and the log's strings are there exactly as they were;
//! - JUnit XML: well-formed XML 1.0 (quick-xml, plus the characters XML
//!   forbids);
//! - HTML: no raw control character but LF and tab.
//!
//! A failure names each broken output and the fields (the fixture's tags,
//! `forged-TAG`) whose text broke it.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::*;

const FIXTURE: &str = "fixtures/ci/hostile-fields.log";

/// The fields the fixture's JSON messages carry as `hostile(tag)`.
const JSON_FIELDS: &[&str] = &[
    "protocol",
    "client-name",
    "client-version",
    "server-name",
    "server-version",
    "listed-tool",
    "description",
    "key",
    "uri",
    "resource-name",
    "error-message",
    "id",
    "tool",
    "progress",
    "progress-message",
    "result-text",
    "method",
    "notification",
    "unknown-progress",
    "cancel-id",
    "cancel-reason",
    "open-id",
    "open-tool",
];

/// The fields written raw (not JSON strings): events, stderr, stray
/// stdout, a line that is no JSON, a method that starts with `::`.
const RAW_FIELDS: &[&str] = &[
    "start",
    "stderr",
    "stderr-indented",
    "stray",
    "bad-json",
    "exit",
    "method-start",
    "vso",
];

/// A field's hostile string, as the fixture's JSON messages hold it once
/// decoded: every way text can end a line, colour or beep a terminal, or
/// be read as a CI command, each tagged `forged-TAG`.
fn hostile(tag: &str) -> String {
    format!(
        "{tag}\u{1b}[31m\u{7}\r\nforged.log:7: error forged-{tag}: pwned\n::error::forged-{tag}\
         \u{2028}::warning::forged-{tag}\u{2029} ##[add-mask]forged-{tag}\u{85}\u{9b}"
    )
}

/// What kind of output a run writes on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Lines for people (and CI logs).
    Lines,
    /// `--format github`: workflow commands, then a summary line.
    Github,
    Json,
    JsonLines,
    Xml,
    Html,
}

struct Run {
    name: String,
    kind: Kind,
    out: Output,
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/escapes").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The name the log is checked under, relative to its directory (where
/// the runs start, so that the name starts the concise lines): on Linux
/// the name is hostile too.
fn log_name() -> String {
    if cfg!(target_os = "linux") {
        "::error::forged-path\nforged.log:1: error forged-path: pwned\u{1b}[31m\r\u{7}\
         \u{2028} ##[add-mask]forged-path.log"
            .to_string()
    } else {
        "hostile-fields.log".to_string()
    }
}

/// `mcpdbg ARGS` in `dir`.
fn run_in(dir: &Path, args: &[&OsStr]) -> Output {
    mcpdbg()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs")
}

/// The tags (`forged-TAG`) on a line: the fields whose text is there.
fn tags(line: &str) -> BTreeSet<String> {
    line.match_indices("forged-")
        .map(|(at, m)| {
            line[at + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect::<String>()
                .trim_end_matches('-')
                .to_string()
        })
        .collect()
}

/// A character no line-oriented output may hold raw: controls but LF and
/// tab (ESC, BEL, CR, NUL, C1 such as NEL and CSI) and the Unicode line and
/// paragraph separators.
fn raw_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{2028}' || c == '\u{2029}'
}

/// An annotation `--format github` writes: `::error`, `::warning` or
/// `::notice`, then `file=`, `line=` and `title=RULE` properties, whose
/// values hold no `::` (the runner ends the properties at the first one).
fn annotation(line: &str) -> bool {
    let Some(rest) = ["::error ", "::warning ", "::notice "]
        .iter()
        .find_map(|c| line.strip_prefix(c))
    else {
        return false;
    };
    let Some((props, _data)) = rest.split_once("::") else {
        return false;
    };
    props.split(',').all(|p| match p.split_once('=') {
        Some(("file", v)) => !v.is_empty(),
        Some(("line", v)) => v.parse::<u64>().is_ok(),
        Some(("title", v)) => {
            !v.is_empty() && v.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        }
        _ => false,
    })
}

/// What is wrong with a line-oriented text (standard output of a `Lines`
/// or `Github` run, or any standard error), one description per problem,
/// with the fields to blame.
fn line_problems(text: &str, github: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut blame = |what: &str, line: &str| {
        let tags = tags(line);
        let who = if tags.is_empty() {
            "no field".to_string()
        } else {
            tags.into_iter().collect::<Vec<_>>().join(",")
        };
        problems.push(format!("{what} [{who}]: {line:?}"));
    };
    // CR ends a line for the runner as LF does.
    for line in text.split('\n') {
        if let Some(c) = line.chars().find(|&c| raw_control(c)) {
            blame(&format!("raw U+{:04X}", c as u32), line);
        }
        let trimmed = line.trim_start();
        // A table's cell starts a line of its own too.
        if line
            .split('│')
            .any(|cell| cell.trim_start().starts_with("forged.log:"))
        {
            blame("a forged finding line", line);
        }
        if github && annotation(line) {
            continue;
        }
        if trimmed.starts_with("::") {
            blame("a workflow command (`::` first on the line)", line);
        }
        if line.contains("##[") {
            blame("a legacy workflow command (`##[`)", line);
        }
        if line.contains("##vso[") {
            blame("an Azure Pipelines command (`##vso[`)", line);
        }
    }
    problems
}

/// Every string of a JSON value, keys included.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// The strings of `wanted` (tag, text) found in `docs`, whole and as they
/// were.
fn kept(docs: &[Value], wanted: &[(String, String)]) -> BTreeSet<String> {
    let mut all = Vec::new();
    for doc in docs {
        strings(doc, &mut all);
    }
    wanted
        .iter()
        .filter(|(_, text)| all.iter().any(|s| s.contains(text.as_str())))
        .map(|(tag, _)| tag.clone())
        .collect()
}

/// The characters XML 1.0 allows.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Whether `text` is one well-formed XML document: quick-xml's reader
/// (matching end tags, attributes, entities) and XML's character set.
fn xml_problem(text: &str) -> Option<String> {
    use quick_xml::events::Event;
    if let Some(c) = text.chars().find(|&c| !xml_char(c)) {
        return Some(format!("U+{:04X} is not allowed in XML", c as u32));
    }
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0usize;
    let mut roots = 0;
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => return Some(format!("at {}: {e}", reader.buffer_position())),
        };
        let attributes = |e: &quick_xml::events::BytesStart| -> Option<String> {
            for a in e.attributes().with_checks(true) {
                let a = match a {
                    Ok(a) => a,
                    Err(e) => return Some(format!("attribute: {e}")),
                };
                if let Err(e) = a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
                    return Some(format!("attribute value: {e}"));
                }
            }
            None
        };
        match event {
            Event::Start(e) => {
                if depth == 0 {
                    roots += 1;
                }
                depth += 1;
                if let Some(p) = attributes(&e) {
                    return Some(p);
                }
            }
            Event::Empty(e) => {
                if depth == 0 {
                    roots += 1;
                }
                if let Some(p) = attributes(&e) {
                    return Some(p);
                }
            }
            Event::End(_) => depth -= 1,
            Event::Text(t) => {
                let text = t.xml10_content();
                if depth == 0 && !text.trim().is_empty() {
                    return Some(format!("text outside the root: {text:?}"));
                }
            }
            Event::GeneralRef(r) => {
                let name = AsRef::<str>::as_ref(&r).to_string();
                let known = ["amp", "lt", "gt", "quot", "apos"].contains(&name.as_str())
                    || r.resolve_char_ref().is_ok_and(|c| c.is_some_and(xml_char));
                if !known {
                    return Some(format!("entity &{name};"));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    match (depth, roots) {
        (0, 1) => None,
        _ => Some(format!("{roots} root elements, {depth} left open")),
    }
}

/// A server that answers every request with hostile text: `initialize`
/// and `tools/list` with a hostile name, version and tool, anything else
/// with an error whose message is hostile; one stray stdout line and one
/// stderr line at its start, another stderr line per request. Written
/// into `dir` (its answers as files beside it); run as `sh server.sh`.
fn hostile_server(dir: &Path) -> PathBuf {
    let head = |result: Value| -> String {
        // The id goes last: the script appends it and the closing brace.
        let text = serde_json::json!({"jsonrpc": "2.0", "result": result}).to_string();
        format!("{},\"id\":", text.strip_suffix('}').expect("an object"))
    };
    fs::write(
        dir.join("initialize.json"),
        head(serde_json::json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": hostile("probe-server-name"), "version": hostile("probe-server-version")},
        })),
    )
    .expect("write");
    fs::write(
        dir.join("tools.json"),
        head(serde_json::json!({
            "tools": [{"name": hostile("probe-tool"), "inputSchema": {"type": "object"}}],
        })),
    )
    .expect("write");
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "error": {"code": -32000, "message": hostile("probe-error")},
    })
    .to_string();
    fs::write(
        dir.join("error.json"),
        format!("{},\"id\":", error.strip_suffix('}').expect("an object")),
    )
    .expect("write");
    fs::write(
        dir.join("stray.txt"),
        "::set-env name=X::forged-probe-stray \u{1b}[2J\r\u{7} ##[add-mask]forged-probe-stray",
    )
    .expect("write");
    fs::write(
        dir.join("stderr.txt"),
        "  ::error::forged-probe-stderr \u{1b}]0;t\u{7}\r\u{2028} ##vso[task.complete]forged-probe-stderr",
    )
    .expect("write");
    let script = dir.join("server.sh");
    fs::write(
        &script,
        r#"dir=$(dirname "$0")
printf '%s\n' "$(cat "$dir/stray.txt")"
printf '%s\n' "$(cat "$dir/stderr.txt")" >&2
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -nE 's/^.*"id":("[^"]*"|-?[0-9]+).*$/\1/p')
  case "$line" in
    *'"result"'*|*'"error"'*) continue ;;
  esac
  [ -n "$id" ] || continue
  case "$line" in
    *'"method":"initialize"'*) answer=initialize ;;
    *'"method":"tools/list"'*) answer=tools ;;
    *) answer=error ;;
  esac
  printf '%s\n' "$(cat "$dir/stderr.txt")" >&2
  printf '%s%s}\n' "$(cat "$dir/$answer.json")" "$id"
done
"#,
    )
    .expect("write");
    script
}

const CHECK_FORMATS: &[(&str, Kind)] = &[
    ("table", Kind::Lines),
    ("concise", Kind::Lines),
    ("github", Kind::Github),
    ("json", Kind::Json),
    ("jsonl", Kind::JsonLines),
    ("sarif", Kind::Json),
    ("junit", Kind::Xml),
];

/// Every command in every format over the hostile log (and, for `probe`
/// and `replay`, against the hostile server).
fn runs(dir: &Path) -> Vec<Run> {
    let log = log_name();
    fs::copy(root().join(FIXTURE), dir.join(&log)).expect("copy the fixture");
    let text = fs::read_to_string(root().join(FIXTURE)).expect("read the fixture");
    // The later session for `diff`: a result changed under a hostile key.
    let after = format!("{log}.after.log");
    fs::write(dir.join(&after), text.replace("\"before\"", "\"after\"")).expect("write");

    let os = |args: &[&str]| -> Vec<OsString> { args.iter().map(OsString::from).collect() };
    let mut cases: Vec<(String, Kind, Vec<OsString>)> = Vec::new();
    for &(format, kind) in CHECK_FORMATS {
        let mut args = os(&["check", "--format", format]);
        args.push(log.clone().into());
        cases.push((format!("check --format {format}"), kind, args));
    }
    let mut narrow = os(&["check", "--width", "40"]);
    narrow.push(log.clone().into());
    cases.push(("check --width 40".into(), Kind::Lines, narrow));

    // One message on its own: the hostile call.
    let call = text
        .lines()
        .find(|l| l.contains("\"method\":\"tools/call\"") && l.contains("\"progressToken\""))
        .and_then(|l| l.split_once(" > "))
        .expect("the hostile call")
        .1
        .to_string();
    for &(format, kind) in CHECK_FORMATS {
        let mut args = os(&["validate", "--format", format]);
        args.push(call.clone().into());
        cases.push((format!("validate --format {format}"), kind, args));
    }

    for (name, kind, extra) in [
        ("timeline", Kind::Lines, &[][..]),
        ("timeline --full", Kind::Lines, &["--full"][..]),
        (
            "timeline --format json",
            Kind::Json,
            &["--format", "json"][..],
        ),
        (
            "timeline --format mermaid",
            Kind::Lines,
            &["--format", "mermaid"][..],
        ),
        (
            "timeline --format html",
            Kind::Html,
            &["--format", "html"][..],
        ),
    ] {
        let mut args = os(&["timeline"]);
        args.extend(os(extra));
        args.push(log.clone().into());
        cases.push((name.into(), kind, args));
    }
    for (format, kind) in [("table", Kind::Lines), ("json", Kind::Json)] {
        let mut args = os(&["stats", "--format", format]);
        args.push(log.clone().into());
        cases.push((format!("stats --format {format}"), kind, args));
        let mut args = os(&["diff", "--format", format]);
        args.push(log.clone().into());
        args.push(after.clone().into());
        cases.push((format!("diff --format {format}"), kind, args));
    }

    let server = hostile_server(dir);
    for (n, &(format, kind)) in CHECK_FORMATS.iter().enumerate() {
        let mut args = os(&[
            "probe",
            "--era",
            "legacy",
            "--timeout",
            "3",
            "--grace",
            "1",
            "--call",
            "run",
            "--format",
            format,
            "--out",
        ]);
        args.push(format!("{log}.probe-{n}.log").into());
        args.extend(os(&["--", "sh"]));
        args.push(server.clone().into());
        cases.push((format!("probe --format {format}"), kind, args));
    }
    for (n, (format, kind)) in [("table", Kind::Lines), ("json", Kind::Json)]
        .into_iter()
        .enumerate()
    {
        let mut args = os(&[
            "replay",
            "--timeout",
            "3",
            "--grace",
            "1",
            "--format",
            format,
            "--out",
        ]);
        args.push(format!("{log}.replay-{n}.log").into());
        args.push(log.clone().into());
        args.extend(os(&["--", "sh"]));
        args.push(server.clone().into());
        cases.push((format!("replay --format {format}"), kind, args));
    }

    cases
        .into_iter()
        .map(|(name, kind, args)| {
            let refs: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
            Run {
                out: run_in(dir, &refs),
                name,
                kind,
            }
        })
        .collect()
}

/// The fixture holds what this file says it holds.
#[test]
fn the_hostile_fixture_holds_every_field() {
    let text = fs::read_to_string(root().join(FIXTURE)).expect("fixture");
    let mut all = Vec::new();
    for line in text.lines() {
        let json = line.split_once(" > ").or_else(|| line.split_once(" < "));
        if let Some(doc) = json.and_then(|(_, j)| serde_json::from_str::<Value>(j).ok()) {
            strings(&doc, &mut all);
        }
    }
    for tag in JSON_FIELDS {
        let want = hostile(tag);
        assert!(
            all.iter().any(|s| s.contains(&want)),
            "{FIXTURE} has no hostile {tag}"
        );
    }
    for tag in RAW_FIELDS {
        assert!(
            text.contains(&format!("forged-{tag}")),
            "{FIXTURE} has no hostile {tag}"
        );
    }
}

#[test]
fn text_from_the_log_keeps_to_the_rules_of_every_output_format() {
    let dir = scratch("all");
    let runs = runs(&dir);
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    let mut kept_by_json = BTreeSet::new();
    let mut wanted: Vec<(String, String)> = JSON_FIELDS
        .iter()
        .map(|tag| (tag.to_string(), hostile(tag)))
        .collect();
    wanted.push(("path".to_string(), log_name()));
    for run in &runs {
        let code = run.out.status.code();
        if code.is_none_or(|c| c >= 2) {
            failures.push(format!("{}: {}", run.name, transcript(&run.out)));
            continue;
        }
        let stdout = String::from_utf8_lossy(&run.out.stdout);
        let stderr = String::from_utf8_lossy(&run.out.stderr);
        seen.extend(tags(&stdout));
        for p in line_problems(&stderr, false) {
            failures.push(format!("{} (stderr): {p}", run.name));
        }
        match run.kind {
            Kind::Lines | Kind::Github => {
                for p in line_problems(&stdout, run.kind == Kind::Github) {
                    failures.push(format!("{}: {p}", run.name));
                }
            }
            Kind::Json | Kind::JsonLines => {
                let docs: Result<Vec<Value>, _> = match run.kind {
                    Kind::Json => serde_json::from_str(&stdout).map(|v| vec![v]),
                    _ => stdout.lines().map(serde_json::from_str).collect(),
                };
                match docs {
                    Ok(docs) => kept_by_json.extend(kept(&docs, &wanted)),
                    Err(e) => failures.push(format!("{}: not JSON: {e}", run.name)),
                }
            }
            Kind::Xml => {
                if let Some(p) = xml_problem(&stdout) {
                    failures.push(format!("{}: not well-formed XML: {p}", run.name));
                }
            }
            Kind::Html => {
                if let Some(c) = stdout.chars().find(|&c| raw_control(c)) {
                    failures.push(format!("{}: raw U+{:04X} in HTML", run.name, c as u32));
                }
            }
        }
    }
    // Every field reached some output, so the rules above were put to it.
    let mut fields: Vec<&str> = JSON_FIELDS.iter().chain(RAW_FIELDS).copied().collect();
    fields.extend([
        "probe-server-name",
        "probe-server-version",
        "probe-tool",
        "probe-error",
        "probe-stray",
    ]);
    if cfg!(target_os = "linux") {
        fields.push("path");
    }
    for field in fields {
        if !seen.contains(field) {
            failures.push(format!("the field {field} reached no output"));
        }
    }
    // The JSON outputs keep the log's strings as they were.
    for (tag, _) in &wanted {
        if !kept_by_json.contains(tag) {
            failures.push(format!("no JSON output keeps the {tag} exactly"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
