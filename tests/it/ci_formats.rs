//! The CI output formats of `check` (`--format sarif|github|junit`), read
//! back by real tools and compared with the JSON output of the same run.
//!
//! - SARIF: Microsoft's SARIF Multitool (`validate`, with GitHub's ingestion
//!   rules) and jsonschema against the SARIF 2.1.0 schema the Multitool
//!   ships, both pinned in `tests/ci/` and installed by `scripts/test`.
//! - JUnit: parsed by junitparser (pinned in `tests/ci/requirements.txt`).
//! - GitHub workflow commands: decoded here, as the runner decodes them.
//!
//! None of these tests skips when a tool is missing: it fails and says to
//! run `scripts/test`. The sample's outputs are pinned in
//! `tests/snapshots/ci/` (`MCPDBG_UPDATE_SNAPSHOTS=1` rewrites them).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcpdbg::render::ci::CiOptions;
use mcpdbg::render::sarif;
use mcpdbg::report::{FileReport, Report};
use mcpdbg::rules::finding::Finding;
use mcpdbg::rules::{Rule, Severity};
use serde_json::Value;

use crate::common::*;

const SAMPLE: &str = "fixtures/sample-session.log";
const HOSTILE: &str = "fixtures/ci/hostile.log";
/// A file name the runner's and XML's syntax both trip on.
const HOSTILE_NAME: &str = "a,b:c%25 d\n::error::x]]>&<\".log";

/// The fixtures with the most findings, and the hostile one.
const RICH: &[&str] = &[
    "fixtures/rules/too-many-findings.log",
    "fixtures/tee/hang.client.log",
    SAMPLE,
    "fixtures/rules/corrupt-compressed-input.log",
    "fixtures/formats/claude-aggregate/two-servers.log",
    HOSTILE,
];

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/ci").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The hostile fixture again, under [`HOSTILE_NAME`] in `dir`.
fn hostile_copy(dir: &Path) -> PathBuf {
    let path = dir.join(HOSTILE_NAME);
    fs::copy(root().join(HOSTILE), &path).expect("copy the hostile fixture");
    path
}

fn run_os(args: &[&std::ffi::OsStr]) -> Output {
    mcpdbg().args(args).output().expect("binary runs")
}

/// Every fixture that holds an MCP message: `check` refuses the others
/// (exit 2, no report; tests/it/inputs.rs).
fn all_fixtures() -> Vec<String> {
    fixtures()
        .iter()
        .map(|p| p.to_str().expect("utf-8").to_string())
        .filter(|p| !p.starts_with("fixtures/inputs/") && p != "fixtures/tee/hang.stderr.log")
        .collect()
}

// ------------------------------------------------------------------ tools

/// The SARIF Multitool's executable for this platform, as its npm package
/// names it.
fn multitool() -> PathBuf {
    let package = root().join("target/ci-node/node_modules/@microsoft/sarif-multitool");
    assert!(
        package.is_dir(),
        "the SARIF Multitool is not installed in target/ci-node: run scripts/test (needs node and npm)"
    );
    let out = Command::new("node")
        .arg("-p")
        .arg(format!("require({:?})", package.to_str().expect("utf-8")))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = PathBuf::from(String::from_utf8(out.stdout).expect("utf-8").trim());
    assert!(path.exists(), "{}", path.display());
    path
}

/// The SARIF 2.1.0 JSON schema, as the Multitool's package ships it.
fn sarif_schema() -> PathBuf {
    let path = multitool().with_file_name("sarif-2.1.0.json");
    assert!(path.exists(), "{}", path.display());
    path
}

/// What the Multitool objects to in one SARIF file at warning or error
/// level, but its note that rules lack a help URI (mcpdbg's `explain` is
/// local): empty when GitHub would ingest the file as it is.
pub(crate) fn multitool_problems(sarif: &Path, out_dir: &Path) -> Vec<(String, String, String)> {
    multitool_validate(&[sarif.to_path_buf()], out_dir)
        .into_iter()
        .filter(|(level, rule, text)| {
            (level == "error" || level == "warning")
                && !(rule == "SARIF2005" && text.contains("nformationUri"))
        })
        .collect()
}

/// Runs the Multitool's `validate` (SARIF's own rules and GitHub's
/// ingestion rules) over `files`; returns its findings as (level, rule,
/// text).
pub(crate) fn multitool_validate(
    files: &[PathBuf],
    out_dir: &Path,
) -> Vec<(String, String, String)> {
    let log = out_dir.join("multitool.sarif");
    let out = Command::new(multitool())
        .arg("validate")
        .args(files)
        .arg("--output")
        .arg(&log)
        .args(["--log", "ForceOverwrite", "--rule-kind", "Ghas;Sarif"])
        .args(["--config", "default"])
        .output()
        .expect("the Multitool runs");
    let console = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "the Multitool failed: {console}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&fs::read(&log).expect("Multitool log")).expect("JSON");
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let scanned = console
        .lines()
        .find(|l| l.contains("files scanned"))
        .unwrap_or_default()
        .to_string();
    assert!(
        scanned.contains(&format!("{} files scanned", files.len())),
        "the Multitool did not read every file: {console}"
    );
    run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let rule = r["ruleId"].as_str().expect("ruleId").to_string();
            // A result without a level takes its rule's (warning if none).
            let level = r["level"].as_str().map(str::to_string).unwrap_or_else(|| {
                rules
                    .iter()
                    .find(|d| d["id"] == rule.as_str())
                    .and_then(|d| d["defaultConfiguration"]["level"].as_str())
                    .unwrap_or("warning")
                    .to_string()
            });
            let text = format!("{} {}", r["message"], r["locations"][0]["physicalLocation"]);
            (level, rule, text)
        })
        .collect()
}

fn python(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(ci_python())
        .arg(root().join("tests/ci/validate.py"))
        .args(args)
        .output()
        .expect("python runs")
}

// ------------------------------------------------------------------ SARIF

/// Writes the SARIF outputs the validators read: every fixture in one run,
/// the richest fixtures one by one, hostile file names, a tee capture,
/// `validate`, standard input, a path outside the base and a run cut at a
/// small result limit.
fn sarif_corpus(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut keep = |name: &str, out: &Output| {
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.join(format!("{name}.sarif"));
        fs::write(&path, &out.stdout).expect("write");
        files.push(path);
    };
    let all = all_fixtures();
    let mut args = vec!["check", "--format", "sarif"];
    args.extend(all.iter().map(String::as_str));
    keep("all-fixtures", &run(&args));
    for (i, fixture) in RICH.iter().enumerate() {
        keep(
            &format!("rich-{i}"),
            &run(&["check", "--format", "sarif", fixture]),
        );
    }
    let hostile = hostile_copy(dir);
    keep(
        "hostile-name",
        &run_os(&[
            "check".as_ref(),
            "--format".as_ref(),
            "sarif".as_ref(),
            "--sarif-base".as_ref(),
            dir.as_os_str(),
            hostile.as_os_str(),
            root().join(HOSTILE).as_os_str(),
        ]),
    );
    keep(
        "tee",
        &run(&[
            "check",
            "--format",
            "sarif",
            "--client",
            "fixtures/tee/hang.client.log",
            "--server",
            "fixtures/tee/hang.server.log",
            "--stderr",
            "fixtures/tee/hang.stderr.log",
        ]),
    );
    keep(
        "validate",
        &run(&[
            "validate",
            "--format",
            "sarif",
            r#"{"jsonrpc":"1.0","id":null,"method":"tools/List"}"#,
        ]),
    );
    let sample = fs::read(root().join(SAMPLE)).expect("sample");
    keep(
        "stdin",
        &run_stdin(&["check", "--format", "sarif", "-"], &sample),
    );
    keep(
        "outside-base",
        &run(&[
            "check",
            "--format",
            "sarif",
            "--sarif-base",
            "fixtures/rules",
            SAMPLE,
        ]),
    );
    let mut limited = Vec::new();
    sarif::render_limited(&many_findings(40), &CiOptions::default(), 25, &mut limited)
        .expect("render");
    let path = dir.join("limited.sarif");
    fs::write(&path, limited).expect("write");
    files.push(path);
    files
}

/// A report of one file with `n` findings of every severity, errors last.
fn many_findings(n: usize) -> Report {
    let findings = (0..n)
        .map(|i| {
            let (rule, severity) = match i * 3 / n {
                0 => (Rule::DirectionInferred, Severity::Info),
                1 => (Rule::SlowResponse, Severity::Warning),
                _ => (Rule::StrayOutput, Severity::Error),
            };
            let mut f = Finding::new(rule, i as u64 + 1, format!("finding {i}"));
            f.severity = severity;
            f
        })
        .collect();
    Report {
        files: vec![FileReport {
            path: "generated.log".into(),
            format: "native",
            sessions: Vec::new(),
            findings,
            message: None,
            read: Default::default(),
            tool_cost: None,
            tool_schemas: None,
        }],
    }
}

#[test]
fn sarif_passes_the_multitool_and_the_json_schema() {
    let dir = scratch("sarif-valid");
    let files = sarif_corpus(&dir);

    // The crate declares no repository or homepage yet, so the driver has
    // no informationUri, which the Multitool notes as a warning (SARIF2005);
    // with one declared, that warning must go too.
    let no_uri = env!("CARGO_PKG_REPOSITORY").is_empty() && env!("CARGO_PKG_HOMEPAGE").is_empty();
    let problems: Vec<_> = multitool_validate(&files, &dir)
        .into_iter()
        .filter(|(level, _, _)| level == "error" || level == "warning")
        .filter(|(_, rule, text)| {
            !(no_uri && rule == "SARIF2005" && text.contains("nformationUri"))
        })
        .collect();
    assert!(problems.is_empty(), "the Multitool objects:\n{problems:#?}");

    let mut args: Vec<&std::ffi::OsStr> = vec!["sarif".as_ref()];
    let schema = sarif_schema();
    args.push(schema.as_os_str());
    args.extend(files.iter().map(|f| f.as_os_str()));
    let out = python(&args);
    assert!(
        out.status.success(),
        "jsonschema objects:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn level(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        "info" => "note",
        other => panic!("unknown severity {other}"),
    }
}

/// Every fixture in one run: one artifact per file, one result per finding
/// with the rule, level, message and lines of the JSON output.
#[test]
fn sarif_holds_what_the_json_output_holds() {
    let all = all_fixtures();
    let mut args = vec!["check", "--format", "json"];
    args.extend(all.iter().map(String::as_str));
    let json = json_of(&run(&args));
    args[2] = "sarif";
    let sarif = json_of(&run(&args));

    assert_eq!(sarif["version"], "2.1.0");
    assert!(
        sarif["$schema"]
            .as_str()
            .expect("$schema")
            .starts_with("https://")
    );
    let runs = sarif["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "mcpdbg");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));

    let rules = driver["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), Rule::ALL.len());
    for (descriptor, rule) in rules.iter().zip(Rule::ALL) {
        let info = rule.info();
        assert_eq!(descriptor["id"], info.name);
        assert_eq!(descriptor["shortDescription"]["text"], info.summary);
        assert_eq!(descriptor["fullDescription"]["text"], info.why);
        assert_eq!(
            descriptor["defaultConfiguration"]["level"],
            level(info.severity.as_str())
        );
        for form in ["text", "markdown"] {
            let help = descriptor["help"][form].as_str().expect("help");
            assert!(
                help.contains(info.why) && help.contains(info.fix),
                "{}: help.{form}",
                info.name
            );
        }
    }

    let files = json["files"].as_array().expect("files");
    let artifacts = run["artifacts"].as_array().expect("artifacts");
    let uris: Vec<&str> = artifacts
        .iter()
        .map(|a| a["location"]["uri"].as_str().expect("uri"))
        .collect();
    assert_eq!(
        uris,
        all.iter().map(String::as_str).collect::<Vec<_>>(),
        "one artifact per file, in order"
    );

    let results = run["results"].as_array().expect("results");
    let findings: Vec<(&Value, &Value)> = files
        .iter()
        .flat_map(|f| {
            f["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .map(move |x| (f, x))
        })
        .collect();
    assert!(findings.len() > 300, "{} findings", findings.len());
    assert_eq!(results.len(), findings.len());
    assert_eq!(run["properties"]["mcpdbg/resultsDropped"], 0);
    for (result, (file, finding)) in results.iter().zip(&findings) {
        let what = format!("{} line {}", file["path"], finding["line"]);
        assert_eq!(result["ruleId"], finding["rule"], "{what}");
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], finding["rule"], "{what}");
        assert_eq!(
            result["level"],
            level(finding["severity"].as_str().expect("severity")),
            "{what}"
        );
        assert_eq!(result["message"]["text"], finding["message"], "{what}");
        let loc = &result["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], file["path"], "{what}");
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{what}");
        let index = loc["artifactLocation"]["index"].as_u64().expect("index") as usize;
        assert_eq!(artifacts[index]["location"]["uri"], file["path"], "{what}");
        assert_eq!(loc["region"]["startLine"], finding["line"], "{what}");
        let related: Vec<&Value> = result["relatedLocations"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|l| &l["physicalLocation"]["region"]["startLine"])
                    .collect()
            })
            .unwrap_or_default();
        let expected: Vec<&Value> = finding["related"]
            .as_array()
            .map(|r| r.iter().collect())
            .unwrap_or_default();
        assert_eq!(related, expected, "{what}");
        let print = &result["partialFingerprints"]["mcpdbg/v1"];
        assert!(print.is_string(), "{what}");
        assert_eq!(
            &result["partialFingerprints"]["primaryLocationLineHash"],
            print
        );
    }
    let prints: BTreeSet<&str> = results
        .iter()
        .map(|r| {
            r["partialFingerprints"]["mcpdbg/v1"]
                .as_str()
                .expect("print")
        })
        .collect();
    assert_eq!(
        prints.len(),
        results.len(),
        "fingerprints are unique within a run"
    );
}

/// The fingerprints of a log's findings stay the same when unrelated lines
/// are added before and between them (which moves every line and shifts
/// the line numbers the messages quote).
#[test]
fn sarif_fingerprints_survive_unrelated_lines() {
    let prints = |base: &Path| -> Vec<(String, String, u64)> {
        let out = run_os(&[
            "check".as_ref(),
            "--format".as_ref(),
            "sarif".as_ref(),
            "--sarif-base".as_ref(),
            base.as_os_str(),
            base.join(SAMPLE).as_os_str(),
        ]);
        let doc = json_of(&out);
        doc["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().expect("rule").to_string(),
                    r["partialFingerprints"]["mcpdbg/v1"]
                        .as_str()
                        .expect("print")
                        .to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .expect("line"),
                )
            })
            .collect()
    };
    let before = prints(root());

    let dir = scratch("fingerprints");
    let text = fs::read_to_string(root().join(SAMPLE)).expect("sample");
    let mut edited = String::new();
    for (n, line) in text.lines().enumerate() {
        edited.push_str(line);
        edited.push('\n');
        let time = &line[..line.find(' ').expect("timestamp")];
        if n % 7 == 3 {
            edited.push_str(&format!("{time} ! unrelated stderr line {n}\n"));
        }
        if n == 6 {
            edited.push_str(&format!(
                "{time} > {{\"jsonrpc\":\"2.0\",\"id\":\"extra\",\"method\":\"ping\"}}\n{time} < {{\"jsonrpc\":\"2.0\",\"id\":\"extra\",\"result\":{{}}}}\n"
            ));
        }
    }
    fs::create_dir_all(dir.join("fixtures")).expect("mkdir");
    fs::write(dir.join(SAMPLE), edited).expect("write");
    let after = prints(&dir);

    assert_eq!(before.len(), after.len(), "{before:?}\n{after:?}");
    assert!(before.len() >= 4);
    for (b, a) in before.iter().zip(&after) {
        assert_eq!((&b.0, &b.1), (&a.0, &a.1), "{b:?} -> {a:?}");
        assert!(a.2 > b.2, "the finding moved: {b:?} -> {a:?}");
    }
}

#[test]
fn sarif_keeps_the_most_severe_results_within_githubs_limit() {
    // GitHub's own limit, on a report over it.
    let report = many_findings(sarif::MAX_RESULTS + 30);
    let mut out = Vec::new();
    sarif::render(&report, &CiOptions::default(), &mut out).expect("render");
    let doc: Value = serde_json::from_slice(&out).expect("JSON");
    let run = &doc["runs"][0];
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), sarif::MAX_RESULTS);
    assert_eq!(run["properties"]["mcpdbg/resultsDropped"], 30);
    let count = |level: &str| results.iter().filter(|r| r["level"] == level).count();
    let per_level = (sarif::MAX_RESULTS + 30) / 3;
    assert!(count("error") >= per_level && count("warning") >= per_level);
    assert_eq!(
        count("note"),
        results.len() - count("error") - count("warning")
    );

    // A small limit: only the most severe, still in line order.
    let mut out = Vec::new();
    sarif::render_limited(&many_findings(40), &CiOptions::default(), 25, &mut out).expect("render");
    let doc: Value = serde_json::from_slice(&out).expect("JSON");
    let run = &doc["runs"][0];
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 25);
    assert_eq!(run["properties"]["mcpdbg/resultsDropped"], 15);
    assert!(
        run["properties"]["mcpdbg/resultsDroppedNote"]
            .as_str()
            .expect("note")
            .contains("15 of 40")
    );
    assert!(results.iter().all(|r| r["level"] != "note"));
    let lines: Vec<u64> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .expect("line")
        })
        .collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
}

#[test]
fn sarif_paths_are_relative_to_the_base() {
    let uri = |args: &[&str]| -> (Value, Value) {
        let mut all = vec!["check", "--format", "sarif"];
        all.extend(args);
        let doc = json_of(&run(&all));
        let loc = doc["runs"][0]["artifacts"][0]["location"].clone();
        (loc["uri"].clone(), loc["uriBaseId"].clone())
    };
    let srcroot = Value::from("%SRCROOT%");
    assert_eq!(uri(&[SAMPLE]), (Value::from(SAMPLE), srcroot.clone()));
    let abs = root().join(SAMPLE);
    assert_eq!(
        uri(&[abs.to_str().expect("utf-8")]),
        (Value::from(SAMPLE), srcroot.clone())
    );
    assert_eq!(
        uri(&[
            "--sarif-base",
            "fixtures",
            "./fixtures/rules/../sample-session.log"
        ]),
        (Value::from("sample-session.log"), srcroot)
    );
    let (outside, base) = uri(&["--sarif-base", "fixtures/rules", SAMPLE]);
    assert_eq!(outside, Value::from(format!("file://{}", abs.display())));
    assert_eq!(base, Value::Null);
}

// ----------------------------------------------------------------- GitHub

/// Undoes the runner's escaping (`%XX` for the characters it names).
fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// What the text of a finding reads like once its controls are shown as
/// `\xNN` / `\u{NNNN}` (tab, CR and LF kept), written here independently.
fn shown(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}');
        if (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || bidi {
            let n = c as u32;
            if n < 0x100 {
                out.push_str(&format!("\\x{n:02x}"));
            } else {
                out.push_str(&format!("\\u{{{n:04x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One workflow command as the runner reads it: the command, its
/// properties (split at `,` and the first `=`, then decoded) and its data.
fn parse_command(line: &str) -> (String, BTreeMap<String, String>, String) {
    let rest = line
        .strip_prefix("::")
        .unwrap_or_else(|| panic!("not a command: {line:?}"));
    let end = rest
        .find("::")
        .unwrap_or_else(|| panic!("no data: {line:?}"));
    let (head, data) = (&rest[..end], &rest[end + 2..]);
    let (command, props) = head.split_once(' ').unwrap_or((head, ""));
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .unwrap_or_else(|| panic!("bad property {p:?}"));
            (k.to_string(), unescape(v))
        })
        .collect();
    (command.to_string(), props, unescape(data))
}

#[test]
fn github_commands_decode_to_the_json_messages_on_hostile_text() {
    let dir = scratch("github");
    let hostile = hostile_copy(&dir);
    let outside = root().join(HOSTILE);
    let args = |format: &str| -> Vec<std::ffi::OsString> {
        vec![
            "check".into(),
            "--format".into(),
            format.into(),
            "--sarif-base".into(),
            dir.clone().into(),
            hostile.clone().into(),
            outside.clone().into(),
            root().join(SAMPLE).into(),
        ]
    };
    let refs = |v: &[std::ffi::OsString]| -> Vec<std::ffi::OsString> { v.to_vec() };
    let json = json_of(&mcpdbg().args(refs(&args("json"))).output().expect("runs"));
    let out = mcpdbg().args(refs(&args("github"))).output().expect("runs");
    let table = mcpdbg().args(refs(&args("table"))).output().expect("runs");
    assert_eq!(out.status.code(), table.status.code());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "raw control characters reach the runner: {text:?}"
    );

    let mut lines: Vec<&str> = text.lines().collect();
    let summary = lines.pop().expect("summary");
    let s = &json["summary"];
    assert_eq!(
        summary,
        format!(
            "mcpdbg: {} errors, {} warnings, {} notes in 3 files",
            s["error"], s["warning"], s["info"]
        )
    );
    assert!(!summary.starts_with("::"));

    let mut expected = Vec::new();
    for file in json["files"].as_array().expect("files") {
        let path = file["path"].as_str().expect("path");
        let shown_path = if Path::new(path).starts_with(&dir) {
            Path::new(path)
                .strip_prefix(&dir)
                .expect("under")
                .to_str()
                .expect("utf-8")
                .to_string()
        } else {
            path.to_string()
        };
        for f in file["findings"].as_array().expect("findings") {
            expected.push((shown_path.clone(), f));
        }
    }
    assert_eq!(lines.len(), expected.len(), "one command per finding");
    let mut hostile_messages = 0;
    for (line, (path, f)) in lines.iter().zip(&expected) {
        let (command, props, data) = parse_command(line);
        let severity = f["severity"].as_str().expect("severity");
        let want = match severity {
            "error" => "error",
            "warning" => "warning",
            _ => "notice",
        };
        assert_eq!(command, want, "{line}");
        assert_eq!(props["file"], shown(path), "{line}");
        assert_eq!(props["line"], f["line"].to_string(), "{line}");
        assert_eq!(props["title"], f["rule"].as_str().expect("rule"), "{line}");
        assert_eq!(props.len(), 3, "{line}");
        let message = f["message"].as_str().expect("message");
        assert_eq!(data, shown(message), "{line}");
        if message.contains('\n') || message.contains("::") || message.contains('%') {
            hostile_messages += 1;
        }
    }
    assert!(
        hostile_messages >= 6,
        "the hostile fixture was meant to be hostile"
    );
    assert!(expected.iter().any(|(p, _)| p == HOSTILE_NAME));
}

// ------------------------------------------------------------------ JUnit

/// What junitparser read of a JUnit file.
pub(crate) fn junit_of(xml: &[u8], dir: &Path, name: &str) -> Value {
    let path = dir.join(format!("{name}.xml"));
    fs::write(&path, xml).expect("write");
    let out = python(&["junit".as_ref(), path.as_os_str()]);
    assert!(
        out.status.success(),
        "junitparser cannot read {}:\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// What XML can carry of a finding's text: the characters XML 1.0 forbids
/// (controls but tab, LF and CR; U+FFFE, U+FFFF) shown as `\xNN` /
/// `\u{NNNN}`.
fn xml_shown(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let allowed = matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..);
        if allowed {
            out.push(c);
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    out
}

fn rank(severity: &str) -> u8 {
    match severity {
        "info" => 0,
        "warning" => 1,
        "error" => 2,
        other => panic!("{other}"),
    }
}

/// Checks a JUnit document against the JSON output of the same run.
pub(crate) fn check_junit(junit: &Value, json: &Value, fail_on: Option<&str>) {
    assert_eq!(junit["declared"], junit["recounted"], "the root's counts");
    let files = json["files"].as_array().expect("files");
    let suites = junit["suites"].as_array().expect("suites");
    assert_eq!(suites.len(), files.len(), "one suite per file");
    let catalogue: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    let mut total_failures = 0;
    for (suite, file) in suites.iter().zip(files) {
        let path = file["path"].as_str().expect("path");
        assert_eq!(suite["name"], xml_shown(path));
        assert_eq!(suite["declared"], suite["recounted"], "{path}: counts");
        assert_eq!(suite["declared"]["errors"], 0);
        assert_eq!(suite["declared"]["skipped"], 0);
        let cases = suite["cases"].as_array().expect("cases");
        let names: Vec<&str> = cases
            .iter()
            .map(|c| c["name"].as_str().expect("name"))
            .collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "{path}: one case per rule");
        assert!(unique.is_subset(&catalogue), "{path}: {names:?}");
        let findings = file["findings"].as_array().expect("findings");
        let fails = |f: &&Value| {
            fail_on.is_some_and(|t| rank(f["severity"].as_str().expect("severity")) >= rank(t))
        };
        let failing: Vec<&Value> = findings.iter().filter(fails).collect();
        assert_eq!(suite["declared"]["failures"], failing.len(), "{path}");
        total_failures += failing.len();
        for f in findings {
            let rule = f["rule"].as_str().expect("rule");
            assert!(
                unique.contains(rule),
                "{path}: {rule} fired but has no case"
            );
        }
        // The failures of each case are its rule's failing findings, in order.
        for case in cases {
            let rule = case["name"].as_str().expect("name");
            let got: Vec<(&Value, &Value)> = case["results"]
                .as_array()
                .expect("results")
                .iter()
                .map(|r| {
                    assert_eq!(r["kind"], "Failure");
                    (&r["message"], &r["type"])
                })
                .collect();
            let messages: Vec<Value> = failing
                .iter()
                .filter(|f| f["rule"] == rule)
                .map(|f| Value::from(xml_shown(f["message"].as_str().expect("message"))))
                .collect();
            let want: Vec<(&Value, &Value)> = messages
                .iter()
                .zip(
                    failing
                        .iter()
                        .filter(|f| f["rule"] == rule)
                        .map(|f| &f["severity"]),
                )
                .collect();
            assert_eq!(got, want, "{path}: {rule}");
            let below = findings
                .iter()
                .filter(|f| f["rule"] == rule && !fails(f))
                .count();
            assert_eq!(case["system_out"].is_string(), below > 0, "{path}: {rule}");
        }
    }
    assert_eq!(junit["declared"]["failures"], total_failures);
}

#[test]
fn junit_parses_with_junitparser_and_counts_what_the_json_counts() {
    let dir = scratch("junit");
    let all = all_fixtures();
    let hostile = hostile_copy(&dir);
    for fail_on in ["error", "warning", "info", "never"] {
        let mut args: Vec<std::ffi::OsString> = vec![
            "check".into(),
            "--fail-on".into(),
            fail_on.into(),
            "--format".into(),
            "json".into(),
        ];
        args.extend(all.iter().map(Into::into));
        args.push(hostile.clone().into());
        let json = json_of(&mcpdbg().args(&args).output().expect("runs"));
        args[4] = "junit".into();
        let out = mcpdbg().args(&args).output().expect("runs");
        assert!(
            !out.stdout
                .iter()
                .any(|&b| b < 0x20 && !b"\t\n\r".contains(&b)),
            "a character XML 1.0 forbids"
        );
        let junit = junit_of(&out.stdout, &dir, fail_on);
        check_junit(&junit, &json, (fail_on != "never").then_some(fail_on));
    }
}

/// The cases of the one suite of a `check --format junit` run.
fn cases(args: &[&str]) -> Vec<String> {
    let dir = scratch(&format!(
        "cases-{}",
        args.join("_").replace(['/', '.', '='], "-")
    ));
    let mut all = vec!["check", "--format", "junit"];
    all.extend(args);
    let out = run(&all);
    let junit = junit_of(&out.stdout, &dir, "cases");
    junit["suites"][0]["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn junit_cases_are_the_rules_in_effect() {
    let every: Vec<String> = cases(&[SAMPLE]);
    let has = |cases: &[String], rule: &str| cases.iter().any(|c| c == rule);
    // The sample is a 2025-06-18 session: the 2026-07-28 rules do not apply,
    // `batch` (all but 2025-03-26) does.
    assert!(has(&every, "stray-output") && has(&every, "batch"));
    assert!(!has(&every, "missing-result-type"));
    // The baseline rules apply only where `probe --baseline` compared one
    // (tests/it/probe.rs checks that they are listed there).
    assert!(!every.iter().any(|c| c.starts_with("baseline-")));
    assert!(has(
        &cases(&["fixtures/clean/modern-2026-07-28.log"]),
        "missing-result-type"
    ));
    assert!(!has(
        &cases(&["fixtures/clean/legacy-2025-03-26.log"]),
        "batch"
    ));

    let ignored = cases(&["--ignore", "stray-output", SAMPLE]);
    assert_eq!(ignored.len(), every.len() - 1);
    assert!(!has(&ignored, "stray-output"));
    let off = cases(&["--severity", "stray-output=off,slow-response=error", SAMPLE]);
    assert_eq!(off.len(), every.len() - 1);
    assert!(!has(&off, "stray-output") && has(&off, "slow-response"));
    assert_eq!(
        cases(&["--select", "unanswered-request,stray-output", SAMPLE]),
        ["stray-output", "unanswered-request"]
    );
}

// ------------------------------------------------------------- snapshots

#[test]
fn the_outputs_of_the_sample_and_the_hostile_log_match_their_snapshots() {
    let mut failures = Vec::new();
    for (fixture, name) in [(SAMPLE, "sample-session"), (HOSTILE, "hostile")] {
        for (format, ext) in [
            ("sarif", "sarif"),
            ("github", "github.txt"),
            ("junit", "junit.xml"),
        ] {
            let out = run(&["check", "--format", format, fixture]);
            assert_eq!(out.status.code(), Some(1), "{fixture} {format}");
            failures.extend(snapshot(
                &Path::new("tests/snapshots/ci").join(format!("{name}.{ext}")),
                &String::from_utf8(out.stdout).expect("utf-8"),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A newline in a method, an id, a tool name or the file's name writes no
/// line of its own into any output: JUnit's text wrote it as is, so the log
/// could forge a `PATH:LINE: error RULE: ...` line there.
#[test]
fn a_newline_from_the_log_writes_no_line_of_its_own_in_any_format() {
    let dir = scratch("forged-lines");
    let log = dir.join("forge\nforged.log:96: error forged-path: x.log");
    let forge = |n: u32, what: &str| format!("x\\nforged.log:{n}: error forged-{what}: pwned");
    let text = format!(
        "# start x\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n\
         < {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n\
         > {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":\"{}\",\"method\":\"tools/{}\",\"params\":{{}}}}\n\
         > {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\",\"arguments\":{{}}}}}}\n",
        forge(98, "id"),
        forge(99, "method"),
        forge(97, "tool"),
    );
    fs::write(&log, text).expect("write");
    let mut runs: Vec<Vec<&str>> = [
        "table", "concise", "github", "junit", "sarif", "json", "jsonl",
    ]
    .into_iter()
    .map(|f| vec!["check", "--format", f])
    .collect();
    runs.extend([
        vec!["timeline"],
        vec!["timeline", "--full"],
        vec!["timeline", "--format", "mermaid"],
        vec!["stats"],
    ]);
    for args in runs {
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        all.push(log.as_os_str());
        let out = run_os(&all);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {}",
            transcript(&out)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("forged.log:99"),
            "{args:?}: the method is not shown: {stdout}"
        );
        let forged: Vec<&str> = stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("forged.log:"))
            .collect();
        assert!(forged.is_empty(), "{args:?}: forged lines {forged:?}");
    }
}
