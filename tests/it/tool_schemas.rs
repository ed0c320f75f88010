//! The tool-schema checks on by default (issue 45): plain `check` judges
//! tool calls and results against the schemas the server listed,
//! `--no-tool-schemas` turns them off with a note, a work budget bounds
//! them on large logs (`--schema-check` lifts it), and `schema-violation`
//! does not double a specific rule on the same line.

use crate::common::*;

/// The lines of `rule`'s findings among `found` ([`rule_lines`]).
fn lines_of(found: &[(String, u64)], rule: &str) -> Vec<u64> {
    found
        .iter()
        .filter(|(r, _)| r == rule)
        .map(|(_, l)| *l)
        .collect()
}

const MISMATCH: &str = "tests/corpus/fastmcp/output-schema-mismatch.log";

/// The raw log: the listing at line 28 declares `count_notes` with an
/// outputSchema that requires an integer `count`; the call at line 33 is
/// answered at line 34 with `structuredContent: {"total": "12"}`. The other
/// results conform (`echo` at 30 gives `{"result": "hello"}`, `weather` at
/// 32 gives a string city and a number), and `fail` at 37 is an error
/// result, which is not the tool's output.
#[test]
fn plain_check_finds_a_result_that_breaks_its_output_schema() {
    let doc = json_of(&run(&["check", "--format", "json", MISMATCH]));
    let found = rule_lines(&doc);
    assert_eq!(
        lines_of(&found, "structured-content-mismatch"),
        vec![34],
        "{found:?}"
    );
    let finding = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "structured-content-mismatch")
        .expect("the finding");
    assert_eq!(finding["related"], serde_json::json!([28]));
    let text = finding["message"].as_str().expect("message");
    assert!(
        text.contains("count_notes") && text.contains("\"count\""),
        "{text}"
    );
    // Everything was checked: no note.
    assert!(lines_of(&found, "tool-schemas-unchecked").is_empty());
    assert!(doc["files"][0].get("tool_schemas").is_none());
}

#[test]
fn no_tool_schemas_silences_them_and_says_so_once() {
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "--no-tool-schemas",
        MISMATCH,
    ]));
    let found = rule_lines(&doc);
    assert!(
        lines_of(&found, "structured-content-mismatch").is_empty(),
        "{found:?}"
    );
    // One note, at the listing that had the schemas (line 28).
    assert_eq!(lines_of(&found, "tool-schemas-unchecked"), vec![28]);
    let note = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "tool-schemas-unchecked")
        .expect("the note");
    assert_eq!(note["severity"], "info");
    assert!(
        note["message"]
            .as_str()
            .is_some_and(|m| m.contains("--no-tool-schemas")),
        "{note}"
    );
    // A log without tool schemas gets no note.
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "--no-tool-schemas",
        "fixtures/rules/stray-output.log",
    ]));
    assert!(lines_of(&rule_lines(&doc), "tool-schemas-unchecked").is_empty());
}

/// How many calls the generated log makes.
const CALLS: u64 = 60;

/// A session whose listing (line 5) declares `put` with an integer `n`,
/// then makes [`CALLS`] calls (the first at line 6, one every two lines),
/// each with `n: "bad"` and a 100 KB string beside it: about 6 MB, past
/// the work budget.
fn big_log() -> String {
    let mut log = String::new();
    log.push_str(r#"> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}"#);
    log.push('\n');
    log.push_str(r#"< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"store","version":"1"}}}"#);
    log.push('\n');
    log.push_str(r#"> {"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    log.push('\n');
    log.push_str(r#"> {"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    log.push('\n');
    log.push_str(r#"< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"put","inputSchema":{"type":"object","properties":{"n":{"type":"integer"},"blob":{"type":"string"}},"required":["n"]}}]}}"#);
    log.push('\n');
    let blob = "x".repeat(100_000);
    for i in 0..CALLS {
        let id = i + 2;
        log.push_str(&format!(
            r#"> {{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"put","arguments":{{"n":"bad","blob":"{blob}"}}}}}}"#
        ));
        log.push('\n');
        log.push_str(&format!(
            r#"< {{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"stored"}}]}}}}"#
        ));
        log.push('\n');
    }
    log
}

#[test]
fn past_the_work_budget_calls_are_counted_and_schema_check_checks_them_all() {
    let log = big_log();
    let call_line = |i: u64| 6 + 2 * i;
    let doc = json_of(&run_stdin(
        &["check", "--format", "json", "-"],
        log.as_bytes(),
    ));
    let found = rule_lines(&doc);
    let judged = lines_of(&found, "arguments-violate-input-schema");
    // The first calls are checked, in order, and not all of them.
    assert!(!judged.is_empty(), "{found:?}");
    assert!((judged.len() as u64) < CALLS / 2, "{judged:?}");
    let expected: Vec<u64> = (0..judged.len() as u64).map(call_line).collect();
    assert_eq!(judged, expected);
    // The note, once, at the first call left unchecked, with the counts.
    let first_unchecked = call_line(judged.len() as u64);
    assert_eq!(
        lines_of(&found, "tool-schemas-unchecked"),
        vec![first_unchecked]
    );
    let counts = &doc["files"][0]["tool_schemas"];
    assert_eq!(counts["checked"], judged.len() as u64, "{counts}");
    assert_eq!(counts["skipped"], CALLS - judged.len() as u64, "{counts}");
    assert_eq!(counts["unread_listings"], 0);
    assert_eq!(counts["first_line"], first_unchecked);
    let note = doc["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "tool-schemas-unchecked")
        .expect("the note");
    let text = note["message"].as_str().expect("message");
    assert!(text.contains("--schema-check"), "{text}");
    assert!(
        text.contains(&format!("{} were not", CALLS - judged.len() as u64)),
        "{text}"
    );
    // `--schema-check`: no budget, every call judged, no note.
    let doc = json_of(&run_stdin(
        &["check", "--format", "json", "--schema-check", "-"],
        log.as_bytes(),
    ));
    let found = rule_lines(&doc);
    assert_eq!(
        lines_of(&found, "arguments-violate-input-schema"),
        (0..CALLS).map(call_line).collect::<Vec<_>>()
    );
    assert!(lines_of(&found, "tool-schemas-unchecked").is_empty());
    assert!(doc["files"][0].get("tool_schemas").is_none());
}

/// `fixtures/rules/schema-violation.log`: line 6 lists a tool whose
/// `readOnlyHint` is the string "yes" (`invalid-result` says so; the
/// official schema would too), line 7 reads a resource with a number for
/// its `uri` and line 11 logs at level "loud", which no specific rule
/// covers.
#[test]
fn schema_violation_does_not_double_a_specific_rule() {
    let doc = json_of(&run(&[
        "check",
        "--format",
        "json",
        "--schema-check",
        "fixtures/rules/schema-violation.log",
    ]));
    let found = rule_lines(&doc);
    assert_eq!(lines_of(&found, "invalid-result"), vec![6], "{found:?}");
    assert_eq!(
        lines_of(&found, "schema-violation"),
        vec![7, 11],
        "{found:?}"
    );
}
