//! The command line as a whole: one spelling per concept across the
//! subcommands (read from each one's `--help`), the old spellings still
//! accepted, and the table fitting the width it is given.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::*;
use serde_json::Value;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpdbg-flags-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One option as `-h` shows it: its value name and its help text (the
/// continuation lines joined).
#[derive(Debug, Default)]
struct Flag {
    value: Option<String>,
    help: String,
}

impl Flag {
    /// `[possible values: a, b]`, when listed.
    fn values(&self) -> Vec<String> {
        let Some(at) = self.help.find("[possible values: ") else {
            return Vec::new();
        };
        let rest = &self.help[at + "[possible values: ".len()..];
        rest[..rest.find(']').expect("closing bracket")]
            .split(',')
            .map(|v| v.trim().to_string())
            .collect()
    }
}

fn subcommands() -> Vec<String> {
    let out = run(&["--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let list = &text[text.find("Commands:\n").expect("a command list")..];
    list.lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|name| name != "help")
        .collect()
}

/// The options of `mcpdbg SUB -h`, by long name.
fn flags(sub: &str) -> BTreeMap<String, Flag> {
    let out = run(&[sub, "-h"]);
    assert!(out.status.success(), "{sub} -h fails");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut flags = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_options = false;
    for line in text.lines() {
        if line == "Options:" {
            in_options = true;
            continue;
        }
        if !in_options {
            continue;
        }
        let trimmed = line.trim_start();
        let head = trimmed
            .strip_prefix("--")
            .or_else(|| trimmed.split_once(", --").map(|(_, rest)| rest));
        match head {
            Some(rest) if line.starts_with("  -") || line.starts_with("      --") => {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                let rest = &rest[name.len()..];
                let (value, help) = match rest.trim_start().strip_prefix('<') {
                    Some(v) => {
                        let end = v.find('>').expect("value name end");
                        (Some(v[..end].to_string()), v[end + 1..].trim().to_string())
                    }
                    None => (None, rest.trim().to_string()),
                };
                flags.insert(name.clone(), Flag { value, help });
                current = Some(name);
            }
            _ => {
                if let Some(name) = &current {
                    let flag: &mut Flag = flags.get_mut(name).unwrap();
                    flag.help.push(' ');
                    flag.help.push_str(line.trim());
                }
            }
        }
    }
    assert!(
        flags.contains_key("help"),
        "{sub}: no options parsed from:\n{text}"
    );
    flags
}

#[test]
fn every_subcommand_spells_a_shared_concept_the_same_way() {
    let subs = subcommands();
    assert!(subs.len() >= 10, "subcommands: {subs:?}");
    let mut with_redact = BTreeSet::new();
    let mut with_width = BTreeSet::new();
    let mut all_flags = BTreeMap::new();
    for sub in &subs {
        let flags = flags(sub);
        all_flags.insert(sub.clone(), flags.keys().cloned().collect::<BTreeSet<_>>());
        // The human format is `table` everywhere, JSON is `json`.
        if let Some(format) = flags.get("format") {
            let values = format.values();
            assert!(
                values.contains(&"table".to_string()) && values.contains(&"json".to_string()),
                "{sub} --format: {values:?}"
            );
            assert!(
                !values.contains(&"text".to_string()),
                "{sub} --format: {values:?}"
            );
        }
        // --ignore is rules; JSON paths are --ignore-path.
        if let Some(ignore) = flags.get("ignore") {
            assert_eq!(ignore.value.as_deref(), Some("RULE,..."), "{sub} --ignore");
        }
        if let Some(path) = flags.get("ignore-path") {
            assert_eq!(path.value.as_deref(), Some("PATH"), "{sub} --ignore-path");
        }
        // --out is a transcript; a report written to a file is --output.
        if let Some(out) = flags.get("out") {
            assert!(out.help.contains("transcript"), "{sub} --out: {}", out.help);
        }
        if let Some(output) = flags.get("output") {
            assert!(!output.help.contains("transcript"), "{sub} --output");
        }
        // A direction is --dir, spelt c2s / s2c.
        assert!(!flags.contains_key("direction"), "{sub} shows --direction");
        if let Some(dir) = flags.get("dir") {
            assert_eq!(dir.value.as_deref(), Some("DIR"), "{sub} --dir");
            let values = dir.values();
            assert!(values.iter().any(|v| v == "c2s"), "{sub} --dir: {values:?}");
            for v in &values {
                assert!(
                    ["c2s", "s2c", "stderr", "unknown"].contains(&v.as_str()),
                    "{sub} --dir value {v}"
                );
            }
        }
        // Durations are SECONDS.
        for name in ["slow", "timeout", "start-timeout", "grace", "max-gap"] {
            if let Some(f) = flags.get(name) {
                assert_eq!(f.value.as_deref(), Some("SECONDS"), "{sub} --{name}");
            }
        }
        if let Some(f) = flags.get("revision") {
            assert_eq!(f.value.as_deref(), Some("REV"), "{sub} --revision");
        }
        if let Some(f) = flags.get("input") {
            assert_eq!(f.value.as_deref(), Some("FORMAT"), "{sub} --input");
        }
        if flags.contains_key("redact") {
            with_redact.insert(sub.as_str());
        }
        if flags.contains_key("width") {
            with_width.insert(sub.as_str());
        }
    }
    for sub in ["check", "timeline", "stats", "diff", "replay"] {
        assert!(with_redact.contains(sub), "{sub} has no --redact");
    }
    for sub in [
        "check", "validate", "probe", "timeline", "stats", "diff", "replay", "rules", "explain",
    ] {
        assert!(with_width.contains(sub), "{sub} has no --width");
    }
    // The same judgement, the same flags: what changes the findings exists
    // wherever findings are made, and where the exit status follows them.
    let has = |sub: &str, flag: &str| all_flags[sub].contains(flag);
    for sub in ["check", "timeline", "probe"] {
        for flag in [
            "select",
            "ignore",
            "severity",
            "revision",
            "slow",
            "schema-check",
            "config",
            "no-config",
        ] {
            assert!(has(sub, flag), "{sub} has no --{flag}");
        }
    }
    for sub in ["check", "validate", "probe"] {
        for flag in ["fail-on", "color", "format", "config"] {
            assert!(has(sub, flag), "{sub} has no --{flag}");
        }
    }
    // A command that reads no configuration offers no --config.
    for sub in ["record", "rules", "explain", "stats", "diff"] {
        assert!(!has(sub, "config"), "{sub} offers --config it never reads");
    }
}

#[test]
fn old_spellings_are_still_accepted() {
    let dir = scratch_dir("old-spellings");
    let html = dir.join("t.html");
    let html_arg = html.to_str().unwrap();
    let sample = "fixtures/sample-session.log";
    for args in [
        vec!["timeline", "--format", "text", sample],
        vec!["timeline", "--out", html_arg, "--format", "html", sample],
        vec!["timeline", "--direction", "client-to-server", sample],
        vec!["explain", "--format", "text", "id-reuse"],
        vec!["rules", "--format", "text"],
        vec!["stats", "--format", "text", sample],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    }
    assert!(std::fs::metadata(&html).unwrap().len() > 1000);
    let out = run(&[
        "validate",
        "--direction",
        "server-to-client",
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    ]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    // --ignore in diff still names a JSON path.
    let before = "fixtures/replay/hang-before.log";
    let after = "fixtures/replay/changed-server.log";
    let old = run(&["diff", "--ignore", "serverInfo.version", before, after]);
    let new = run(&["diff", "--ignore-path", "serverInfo.version", before, after]);
    assert_eq!(old.stdout, new.stdout);
    let plain = run(&["diff", before, after]);
    assert_ne!(plain.stdout, new.stdout, "the path is left out");
    assert_eq!(
        run(&["check", "--format", "text", sample]).stdout,
        run(&["check", sample]).stdout
    );
}

#[test]
fn durations_take_units() {
    let sample = "fixtures/sample-session.log";
    let slow = |arg: &str| {
        let out = run(&["check", "--format", "json", "--slow", arg, sample]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "--slow {arg}: {}",
            stderr_of(&out)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "slow-response")
            .count()
    };
    // The sample's slow response took 7.9 s.
    assert_eq!(slow("5"), 1);
    assert_eq!(slow("2s"), slow("2"));
    assert_eq!(slow("8s"), 0);
    assert_eq!(slow("7000ms"), 1);
    assert_eq!(slow("1m"), 0);
    let out = run(&["check", "--slow", "2x", sample]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("500ms"), "{}", stderr_of(&out));
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_table_fits_the_width_it_is_given() {
    let mut fixtures: Vec<_> = std::fs::read_dir(root().join("fixtures/rules"))
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name();
            format!("fixtures/rules/{}", name.to_str().unwrap())
        })
        .collect();
    fixtures.push("fixtures/sample-session.log".to_string());
    fixtures.sort();
    let mut narrower = 0;
    for arg in &fixtures {
        let fixed = run(&["check", arg]);
        let fitted = run(&["check", "--width", "80", arg]);
        assert_eq!(fixed.status.code(), fitted.status.code());
        let text = String::from_utf8(fitted.stdout).unwrap();
        assert!(widest(&text) <= 80, "{arg} at 80 columns:\n{text}");
        if widest(&String::from_utf8_lossy(&fixed.stdout)) > 80 {
            narrower += 1;
        }
    }
    // The fixed layout (pipes, snapshots) is wider than 80 for most files,
    // so the fitting did something.
    assert!(
        narrower * 2 > fixtures.len(),
        "{narrower} of {}",
        fixtures.len()
    );
    // A wide terminal gets longer message lines than the fixed layout.
    let sample = "fixtures/sample-session.log";
    let wide = String::from_utf8(run(&["check", "--width", "200", sample]).stdout).unwrap();
    let fixed = String::from_utf8(run(&["check", sample]).stdout).unwrap();
    assert!(widest(&wide) > widest(&fixed) && widest(&wide) <= 200);
    assert!(wide.lines().count() < fixed.lines().count());
    // COLUMNS alone does not change a pipe's output.
    let piped = mcpdbg()
        .env("COLUMNS", "80")
        .args(["check", sample])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), fixed);
}

#[test]
fn concise_is_one_line_per_finding() {
    let sample = "fixtures/sample-session.log";
    let out = run(&["check", "--format", "concise", sample]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let doc: Value =
        serde_json::from_slice(&run(&["check", "--format", "json", sample]).stdout).unwrap();
    let findings = doc["files"][0]["findings"].as_array().unwrap();
    assert_eq!(text.lines().count(), findings.len());
    for (line, f) in text.lines().zip(findings) {
        let head = format!(
            "{sample}:{}: {} {}: ",
            f["line"],
            f["severity"].as_str().unwrap(),
            f["rule"].as_str().unwrap()
        );
        assert!(line.starts_with(&head), "{line} / {head}");
    }
    let clean = run(&[
        "check",
        "--format",
        "concise",
        "fixtures/clean/legacy-2025-06-18.log",
    ]);
    assert_eq!(clean.status.code(), Some(0));
    assert!(clean.stdout.is_empty());
}

#[test]
fn timeline_json_is_a_versioned_document_of_the_rows() {
    let sample = "fixtures/sample-session.log";
    let out = run(&["timeline", "--format", "json", sample]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["format"], "native");
    let rows = doc["rows"].as_array().unwrap();
    let text = String::from_utf8(run(&["timeline", sample]).stdout).unwrap();
    // The text view: a header, a title line, one line per row (a burst of
    // stderr, the JSON rows with the same `burst`, as one) and its findings,
    // a tally.
    let findings: usize = rows
        .iter()
        .map(|r| r["findings"].as_array().unwrap().len())
        .sum();
    let folded = rows
        .iter()
        .filter(|r| r.get("burst").is_some_and(|b| *b != r["line"]))
        .count();
    assert!(folded > 0, "the sample has bursts of stderr");
    assert_eq!(text.lines().count(), 2 + rows.len() - folded + findings + 1);
    assert!(
        rows.iter()
            .all(|r| r.get("burst").is_some() == (r["kind"] == "stderr")),
        "every stderr row names its burst"
    );
    assert_eq!(doc["shown"], rows.len());
    let call = rows
        .iter()
        .find(|r| r["method"] == "tools/call" && r["kind"] == "request")
        .expect("a tools/call request");
    assert_eq!(call["direction"], "client-to-server");
    assert_eq!(call["message"]["method"], "tools/call", "the whole message");
    let unanswered = doc["unanswered"].as_array().unwrap();
    assert!(unanswered.iter().any(|u| u["method"] == "tools/call"));
    let filtered: Value = serde_json::from_slice(
        &run(&["timeline", "--format", "json", "--kind", "stderr", sample]).stdout,
    )
    .unwrap();
    assert!(
        filtered["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "stderr")
    );
    assert_eq!(
        filtered["findings"], doc["findings"],
        "the file's findings, unfiltered"
    );
}

#[test]
fn diff_and_replay_redact_the_logs_strings() {
    let before = "fixtures/replay/hang-before.log";
    let after = "fixtures/replay/changed-server.log";
    let plain = String::from_utf8(run(&["diff", before, after]).stdout).unwrap();
    let out = run(&["diff", "--redact", before, after]);
    assert_eq!(out.status.code(), Some(1));
    let redacted = String::from_utf8(out.stdout).unwrap();
    assert!(
        plain.contains("file_note") && !redacted.contains("file_note"),
        "{redacted}"
    );
    assert!(redacted.contains("[redacted "));
    // The protocol's words stay: versions, methods, verdicts.
    for kept in ["2025-06-18", "tools/call", "hang reproduced", "\"integer\""] {
        assert!(redacted.contains(kept), "{kept} in\n{redacted}");
    }
    let json: Value = serde_json::from_slice(
        &run(&["diff", "--redact", "--format", "json", before, after]).stdout,
    )
    .unwrap();
    assert!(!json.to_string().contains("file_note"));
}

/// The other spellings of a direction, which the human outputs do not use:
/// they say `C->S` and `S->C`, as the rows' arrows do (the JSON, SARIF and
/// `--dir` values keep their own names).
const OTHER_DIRECTION_SPELLINGS: [&str; 4] = [
    "client->server",
    "server->client",
    "client-to-server",
    "server-to-client",
];

#[test]
fn human_outputs_spell_a_direction_as_the_rows_do() {
    let sample = "fixtures/sample-session.log";
    let mut runs: Vec<Vec<String>> = Vec::new();
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for format in ["table", "concise", "github", "junit"] {
        for file in [
            sample,
            "fixtures/ci/hostile.log",
            "fixtures/redact/secrets.log",
        ] {
            runs.push(args(&["check", "--format", format, file]));
        }
    }
    runs.push(args(&["check", "--redact", "fixtures/redact/secrets.log"]));
    runs.push(args(&["timeline", sample]));
    runs.push(args(&["timeline", "--full", sample]));
    runs.push(args(&["stats", sample]));
    runs.push(args(&[
        "diff",
        "fixtures/replay/hang-before.log",
        "fixtures/replay/changed-server.log",
    ]));
    runs.push(args(&["rules"]));
    for message in [
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    ] {
        runs.push(args(&["validate", message]));
    }
    let out = run(&["rules", "--format", "json"]);
    let rules: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<String> = rules
        .as_array()
        .or_else(|| rules["rules"].as_array())
        .expect("a list of rules")
        .iter()
        .map(|r| r["name"].as_str().expect("a name").to_string())
        .collect();
    assert!(names.len() > 20, "{names:?}");
    for name in &names {
        runs.push(vec!["explain".to_string(), name.clone()]);
    }
    let mut arrows = 0;
    for args in &runs {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&refs);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {}",
            stderr_of(&out)
        );
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            stderr_of(&out)
        );
        for other in OTHER_DIRECTION_SPELLINGS {
            assert!(!text.contains(other), "{args:?} says {other}:\n{text}");
        }
        arrows += usize::from(text.contains("C->S") || text.contains("S-&gt;C"));
    }
    // The spelling they use instead is there: the check table, its JUnit
    // text, the timeline, stats and validate's table.
    assert!(arrows >= 8, "{arrows} outputs name a direction");
    let validate = run(&[
        "validate",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a"}}"#,
    ]);
    let text = String::from_utf8(validate.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains("direction") && l.contains("C->S")),
        "{text}"
    );
}

/// The guide's table of `check` options names every option `check -h`
/// shows, each in one row, and lists every `--input` format.
#[test]
fn the_guides_check_options_table_is_complete() {
    let guide = std::fs::read_to_string(crate::common::root().join("docs/guide.md")).unwrap();
    let start = guide
        .find("## `mcpdbg check` options")
        .expect("the section");
    let table: Vec<&str> = guide[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect();
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    for row in &table {
        let first = row.split(" | ").next().unwrap_or_default();
        for (k, span) in first.split('`').enumerate() {
            if k % 2 == 1 {
                for word in span.split([' ', '/']) {
                    if let Some(name) = word.trim_matches(['[', ']']).strip_prefix("--") {
                        *named.entry(name.to_string()).or_default() += 1;
                    }
                }
            }
        }
    }
    let flags = flags("check");
    for name in flags.keys().filter(|n| *n != "help") {
        assert_eq!(
            named.get(name),
            Some(&1),
            "--{name} is in {} rows of the guide's check options table",
            named.get(name).unwrap_or(&0)
        );
    }
    for name in named.keys() {
        assert!(
            flags.contains_key(name),
            "the guide lists --{name}, which check lacks"
        );
    }
    let input = table
        .iter()
        .find(|r| r.starts_with("| `--input FORMAT`"))
        .expect("the --input row");
    for format in flags["input"].values() {
        assert!(
            input.contains(&format!("`{format}`")),
            "the guide's --input row lacks {format}"
        );
    }
}
