//! The corpus: sessions recorded with `mcpdbg record` from published MCP software and
//! generic JSON-RPC libraries (tests/corpus/*/*.log), each with an expectation written from
//! its raw lines (*.expect.json). For every session `mcpdbg check --schema-check --format
//! json` must report
//! each `must_fire` rule at its line, none of the `must_not_fire` rules, the expected
//! negotiated version, nothing at error or warning level when the session is `clean`, and
//! every `known_wrong` entry must still be wrong, so that fixing a class of mistakes makes
//! this test say which entries to move. docs/corpus.md describes the corpus.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn mcpdbg(args: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdbg"));
    cmd.current_dir(root()).args(args);
    for var in ["NO_COLOR", "COLUMNS", "TERM"] {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("mcpdbg runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "mcpdbg {args:?} did not print JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn expectations() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in std::fs::read_dir(root().join("tests/corpus")).expect("tests/corpus") {
        let group = group.expect("entry").path();
        if !group.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&group).expect("group dir") {
            let file = file.expect("entry").path();
            if file.to_string_lossy().ends_with(".expect.json") {
                out.push(file);
            }
        }
    }
    out.sort();
    out
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

/// A rule, and the line it must be at (`None`: anywhere in the file).
fn rule_at(v: &Value) -> (&str, Option<u64>) {
    match v.as_str() {
        Some(rule) => (rule, None),
        None => (text(v, "rule"), v["line"].as_u64()),
    }
}

/// Checks one session and returns what is wrong with it.
fn check(expect_path: &Path, rules: &BTreeSet<String>) -> Vec<String> {
    let rel = expect_path.strip_prefix(root()).expect("under root");
    let name = rel.to_string_lossy().replace(".expect.json", "");
    let log = format!("{name}.log");
    let expect: Value =
        serde_json::from_str(&std::fs::read_to_string(expect_path).expect("readable"))
            .unwrap_or_else(|e| panic!("{name}: the expectation is not JSON: {e}"));
    let mut problems = Vec::new();
    for key in ["software", "shows"] {
        if text(&expect, key).is_empty() {
            problems.push(format!("{name}: the expectation has no `{key}`"));
        }
    }

    let report = mcpdbg(&["check", "--schema-check", "--format", "json", &log]);
    let file = &report["files"][0];
    let findings: Vec<(&str, u64, &str)> = list(file, "findings")
        .iter()
        .map(|f| {
            let line = f["line"].as_u64().unwrap_or(0);
            (text(f, "rule"), line, text(f, "severity"))
        })
        .collect();
    let messages: Vec<&str> = list(file, "findings")
        .iter()
        .map(|f| text(f, "message"))
        .collect();
    let shown = || {
        findings
            .iter()
            .map(|(rule, line, _)| format!("{rule}@{line}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fires = |rule: &str, line: Option<u64>| {
        findings
            .iter()
            .any(|&(r, l, _)| r == rule && line.is_none_or(|line| l == line))
    };

    let known_wrong: Vec<(&str, Option<u64>, &str, &str)> = list(&expect, "known_wrong")
        .iter()
        .map(|k| {
            let (rule, line) = rule_at(k);
            (rule, line, text(k, "today"), text(k, "class"))
        })
        .collect();
    let known = |rule: &str, line: Option<u64>, today: &str| {
        known_wrong
            .iter()
            .any(|&(r, l, t, _)| r == rule && t == today && (line.is_none() || l == line))
    };

    for (key, entries) in [
        ("must_fire", list(&expect, "must_fire")),
        ("must_not_fire", list(&expect, "must_not_fire")),
        ("known_wrong", list(&expect, "known_wrong")),
    ] {
        for entry in entries {
            let (rule, _) = rule_at(entry);
            if !rules.contains(rule) {
                problems.push(format!(
                    "{name}: {key} names `{rule}`, which is not in `mcpdbg rules`"
                ));
            }
        }
    }
    for missing in list(&expect, "missing_rules") {
        let rule = text(missing, "rule");
        if rules.contains(rule) {
            problems.push(format!(
                "{name}: missing rule `{rule}` now exists in `mcpdbg rules`: turn the missing_rules entry into a must_fire (or a known_wrong if it stays silent here)"
            ));
        }
    }

    for entry in list(&expect, "must_fire") {
        let (rule, line) = rule_at(entry);
        if !known(rule, line, "silent") && !fires(rule, line) {
            problems.push(format!(
                "{name}: expected `{rule}` at line {}; mcpdbg reports [{}]",
                line.unwrap_or(0),
                shown()
            ));
        }
        // Optional: the severity and words the finding must have.
        let at = findings
            .iter()
            .position(|&(r, l, _)| r == rule && line.is_none_or(|line| l == line));
        if let Some(i) = at {
            let severity = text(entry, "severity");
            if !severity.is_empty() && findings[i].2 != severity {
                problems.push(format!(
                    "{name}: `{rule}` is a {}, expected a {severity}",
                    findings[i].2
                ));
            }
            for words in list(entry, "contains") {
                let words = words.as_str().unwrap_or_default();
                if !messages[i].contains(words) {
                    problems.push(format!(
                        "{name}: `{rule}` does not say {words:?}: {:?}",
                        messages[i]
                    ));
                }
            }
        }
    }
    let first = text(&expect, "first_rule");
    if !first.is_empty() && findings.first().map(|f| f.0) != Some(first) {
        problems.push(format!(
            "{name}: the first finding must be `{first}`; mcpdbg reports [{}]",
            shown()
        ));
    }
    for entry in list(&expect, "must_not_fire") {
        let (rule, line) = rule_at(entry);
        for &(r, l, _) in &findings {
            if r == rule && line.is_none_or(|line| l == line) && !known(r, Some(l), "fires") {
                problems.push(format!(
                    "{name}: `{r}` must not fire, but it does at line {l}"
                ));
            }
        }
    }
    for &(rule, line, today, class) in &known_wrong {
        let now = fires(rule, line);
        let at = line.map_or(String::new(), |l| format!(" at line {l}"));
        match today {
            "fires" if !now => problems.push(format!(
                "{name}: known_wrong `{rule}`{at} no longer fires ({class}). mcpdbg is fixed for this case: delete the known_wrong entry and keep `{rule}` in must_not_fire"
            )),
            "silent" if now => problems.push(format!(
                "{name}: known_wrong `{rule}`{at} fires now ({class}). mcpdbg is fixed for this case: move the entry into must_fire"
            )),
            "fires" | "silent" => {}
            other => problems.push(format!(
                "{name}: known_wrong `{rule}` has today {other:?}; use \"fires\" or \"silent\""
            )),
        }
    }

    if expect["clean"].as_bool() == Some(true) {
        for &(rule, line, severity) in &findings {
            if matches!(severity, "error" | "warning") && !known(rule, Some(line), "fires") {
                problems.push(format!(
                    "{name}: marked clean, but mcpdbg reports {severity} `{rule}` at line {line}"
                ));
            }
        }
    }

    let want = &expect["negotiated_version"];
    if !want.is_null() && !want.is_string() {
        problems.push(format!(
            "{name}: negotiated_version must be a string or null"
        ));
    }
    let sessions = list(file, "sessions");
    if sessions.is_empty() {
        problems.push(format!("{name}: mcpdbg found no session"));
    }
    for (i, session) in sessions.iter().enumerate() {
        let got = &session["protocol_version"];
        if got != want {
            problems.push(format!(
                "{name}: session {i} negotiated {got}, expected {want}"
            ));
        }
    }
    problems
}

#[test]
fn corpus_sessions_match_their_expectations() {
    let catalogue = mcpdbg(&["rules", "--format", "json"]);
    let rules: BTreeSet<String> = list(&catalogue, "rules")
        .iter()
        .map(|r| text(r, "name").to_string())
        .collect();
    assert!(
        !rules.is_empty(),
        "`mcpdbg rules --format json` listed no rules"
    );

    let expectations = expectations();
    assert!(
        expectations.len() >= 25,
        "the corpus has {} sessions, expected at least 25",
        expectations.len()
    );
    let mut problems = Vec::new();
    for path in &expectations {
        let log = PathBuf::from(path.to_string_lossy().replace(".expect.json", ".log"));
        assert!(
            log.is_file(),
            "{} has no transcript {}",
            path.display(),
            log.display()
        );
        problems.extend(check(path, &rules));
    }
    assert!(
        problems.is_empty(),
        "{} corpus problem(s) in {} sessions:\n{}",
        problems.len(),
        expectations.len(),
        problems.join("\n")
    );
}

/// The findings of `check` on a log, as `rule@line`, with the given flags.
fn findings_of(log: &str, flags: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["check", "--format", "json"];
    args.extend(flags);
    args.push(log);
    let report = mcpdbg(&args);
    list(&report["files"][0], "findings")
        .iter()
        .map(|f| format!("{}@{}", text(f, "rule"), f["line"].as_u64().unwrap_or(0)))
        .collect()
}

/// `--schema-check` adds no finding to any session the corpus calls clean: the
/// schemas real servers list are compiled and their own calls and results conform.
#[test]
fn schema_check_adds_nothing_to_clean_sessions() {
    let mut clean = 0;
    let mut problems = Vec::new();
    for path in expectations() {
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        if expect["clean"].as_bool() != Some(true) {
            continue;
        }
        clean += 1;
        let rel = path.strip_prefix(root()).expect("under root");
        let log = rel.to_string_lossy().replace(".expect.json", ".log");
        let plain = findings_of(&log, &[]);
        let checked = findings_of(&log, &["--schema-check"]);
        if plain != checked {
            problems.push(format!(
                "{log}: --schema-check adds {:?}",
                checked.difference(&plain).collect::<Vec<_>>()
            ));
        }
    }
    assert!(clean >= 10, "only {clean} clean sessions in the corpus");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every transcript has its expectation (a recording without one is checked by nothing).
#[test]
fn every_corpus_transcript_has_an_expectation() {
    let expected: BTreeSet<PathBuf> = expectations()
        .iter()
        .map(|p| PathBuf::from(p.to_string_lossy().replace(".expect.json", ".log")))
        .collect();
    for group in std::fs::read_dir(root().join("tests/corpus")).expect("tests/corpus") {
        let group = group.expect("entry").path();
        if !group.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&group).expect("group dir") {
            let file = file.expect("entry").path();
            if file.extension().is_some_and(|e| e == "log") {
                assert!(
                    expected.contains(&file),
                    "{} has no .expect.json",
                    file.display()
                );
            }
        }
    }
}

/// tests/corpus/README.md names every session once, in a row of its table,
/// and no session that is not in the corpus.
#[test]
fn the_corpus_readme_lists_every_session() {
    let readme = std::fs::read_to_string(root().join("tests/corpus/README.md"))
        .expect("tests/corpus/README.md");
    let listed: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let sessions: Vec<String> = expectations()
        .iter()
        .map(|p| {
            p.strip_prefix(root().join("tests/corpus"))
                .expect("under tests/corpus")
                .to_string_lossy()
                .replace(".expect.json", "")
        })
        .collect();
    let listed_set: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(listed.len(), listed_set.len(), "a session is listed twice");
    let sessions_set: BTreeSet<&String> = sessions.iter().collect();
    let missing: Vec<_> = sessions_set.difference(&listed_set).collect();
    let extra: Vec<_> = listed_set.difference(&sessions_set).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "tests/corpus/README.md does not list {missing:?}; it lists sessions that do not exist: {extra:?}"
    );
}
