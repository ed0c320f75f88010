//! Helpers shared by the whole-process tests: the binary with a clean
//! environment, the fixtures, and snapshot comparison.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the repository root with a clean environment for
/// everything that changes output.
pub fn mcpdbg() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdbg"));
    cmd.current_dir(root());
    for var in [
        "NO_COLOR",
        "COLUMNS",
        "LINES",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TERM",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

pub fn run(args: &[&str]) -> Output {
    mcpdbg().args(args).output().expect("binary runs")
}

pub fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = mcpdbg()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may stop reading early; a broken pipe here is fine.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("binary ends");
    writer.join().expect("writer thread");
    out
}

pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Every fixture, as a path relative to the repository root, sorted.
pub fn fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("fixtures dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "log") {
                out.push(path.strip_prefix(root()).expect("under root").to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("fixtures"), &mut out);
    out.sort();
    out
}

/// The fixtures that are not logs of a session (a VS Code log at the
/// default Info level, the stderr file of a three-file capture read
/// alone): every subcommand that reads a log refuses them, the same way.
pub const NOT_LOGS: [&str; 2] = [
    "fixtures/inputs/vscode-info-level.log",
    "fixtures/tee/hang.stderr.log",
];

/// Whether `fixture` is one of [`NOT_LOGS`].
pub fn not_a_log(fixture: &Path) -> bool {
    NOT_LOGS.iter().any(|n| Path::new(n) == fixture)
}

/// The documentation whose examples and tables tests keep true: README.md,
/// then every Markdown file in docs/, by name, each as (path from the
/// repository root, text).
pub fn documentation() -> Vec<(String, String)> {
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            let name = path.file_name().expect("name").to_str().expect("utf-8");
            format!("docs/{name}")
        })
        .collect();
    docs.sort();
    assert!(!docs.is_empty(), "docs/ holds no Markdown file");
    std::iter::once("README.md".to_string())
        .chain(docs)
        .map(|file| {
            let text = std::fs::read_to_string(root().join(&file))
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            (file, text)
        })
        .collect()
}

pub fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Compares `actual` with the snapshot at `path`, or rewrites the snapshot
/// when MCPDBG_UPDATE_SNAPSHOTS is set. Returns a description of a mismatch.
pub fn snapshot(path: &Path, actual: &str) -> Option<String> {
    let path = root().join(path);
    if std::env::var_os("MCPDBG_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, actual).expect("write snapshot");
        return None;
    }
    let expected = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(_) => {
            return Some(format!(
                "{}: no snapshot (run with MCPDBG_UPDATE_SNAPSHOTS=1)",
                path.display()
            ));
        }
    };
    if expected == actual {
        return None;
    }
    // Split on '\n' only, so a difference in a final newline or a '\r' is a
    // difference (`lines()` would hide both, and the search would never end).
    let mut expected_lines = expected.split('\n');
    let mut actual_lines = actual.split('\n');
    let mut n = 0;
    let (e, a) = loop {
        n += 1;
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => continue,
            (e, a) => break (e.unwrap_or("<end>"), a.unwrap_or("<end>")),
        }
    };
    Some(format!(
        "{}: line {n} differs\n  expected: {e:?}\n  actual:   {a:?}",
        path.display()
    ))
}

/// The Python with the pinned SDK. These tests never skip: without it they
/// fail and say how to get it.
pub fn sdk_python() -> PathBuf {
    let path = std::env::var_os("MCPDBG_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/sdk-venv/bin/python"));
    assert!(
        path.exists(),
        "{} does not exist: run scripts/test, which installs the pinned MCP Python SDK",
        path.display()
    );
    path
}

/// A deterministic byte generator (xorshift) for hostile inputs.
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// `check --format json ARGS`: the first file's findings as `(rule, line,
/// session)`, in report order, and the JSON document for the rest.
pub fn check_findings(args: &[&str]) -> (Vec<(String, u64, u64)>, Value) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let doc = json_of(&run(&all));
    let found = rule_lines(&doc)
        .into_iter()
        .zip(first_findings(&doc))
        .map(|((rule, line), f)| (rule, line, f["session"].as_u64().expect("session")))
        .collect();
    (found, doc)
}

/// The findings of the first file of a JSON report.
fn first_findings(doc: &Value) -> &[Value] {
    doc["files"][0]["findings"].as_array().expect("findings")
}

/// [`check_findings`] of one file, as `(rule, line)`.
pub fn rules_and_lines(path: &str) -> (Vec<(String, u64)>, Value) {
    let doc = json_of(&run(&["check", "--format", "json", path]));
    (rule_lines(&doc), doc)
}

/// The `(rule, line)` of each finding of the first file of a JSON report.
pub fn rule_lines(doc: &Value) -> Vec<(String, u64)> {
    first_findings(doc)
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().expect("rule").to_string(),
                f["line"].as_u64().expect("line"),
            )
        })
        .collect()
}

/// One tool's figures as a native log shows them, worked out here from the
/// raw JSON lines (not by mcpdbg): the bytes of its definition as last
/// listed (its `name`, `title`, `description`, `inputSchema`,
/// `outputSchema` and `annotations` re-serialised compactly, in the order
/// sent), and the bytes of each `tools/call` result, compact too.
#[derive(Debug, Default)]
pub struct RawToolCost {
    pub definition: Option<u64>,
    pub results: Vec<u64>,
}

/// The tools of a native log (`[TIME] > JSON` / `[TIME] < JSON` lines):
/// the client's requests paired by id with the server's answers.
pub fn raw_tool_costs(log: &str) -> std::collections::BTreeMap<String, RawToolCost> {
    const MEMBERS: [&str; 6] = [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ];
    let mut asked: std::collections::HashMap<String, (String, Option<String>)> =
        std::collections::HashMap::new();
    let mut tools: std::collections::BTreeMap<String, RawToolCost> = Default::default();
    for line in log.lines() {
        let mut words = line.splitn(3, ' ');
        let first = words.next().unwrap_or_default();
        let (dir, json) = if first == ">" || first == "<" {
            (
                first,
                words
                    .next()
                    .map(|w| [w, words.next().unwrap_or("")].join(" ")),
            )
        } else {
            (
                words.next().unwrap_or_default(),
                words.next().map(str::to_string),
            )
        };
        let Some(Ok(Value::Object(msg))) = json.map(|j| serde_json::from_str::<Value>(&j)) else {
            continue;
        };
        let id = msg.get("id").map(Value::to_string);
        match (dir, id, msg.get("method").and_then(Value::as_str)) {
            (">", Some(id), Some(method)) => {
                let name = msg
                    .get("params")
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                asked.insert(id, (method.to_string(), name));
            }
            ("<", Some(id), None) => {
                let Some(result) = msg.get("result") else {
                    continue;
                };
                match asked.remove(&id) {
                    Some((method, _)) if method == "tools/list" => {
                        for tool in result["tools"].as_array().into_iter().flatten() {
                            let Some(name) = tool["name"].as_str() else {
                                continue;
                            };
                            let kept: serde_json::Map<String, Value> = tool
                                .as_object()
                                .expect("a tool object")
                                .iter()
                                .filter(|(k, _)| MEMBERS.contains(&k.as_str()))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect();
                            let bytes = serde_json::to_string(&kept).expect("JSON").len();
                            tools.entry(name.to_string()).or_default().definition =
                                Some(bytes as u64);
                        }
                    }
                    Some((method, Some(name))) if method == "tools/call" => {
                        let bytes = serde_json::to_string(result).expect("JSON").len();
                        tools.entry(name).or_default().results.push(bytes as u64);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    tools
}

/// Checks a `tool_cost` object (`stats`' or `probe`'s, counted with the
/// estimate) against the figures worked out from the raw log; returns
/// them. Fails when the log lists no tool or answers no call (the check
/// would hold nothing).
pub fn assert_tool_cost(
    cost: &Value,
    log: &str,
    what: &str,
) -> std::collections::BTreeMap<String, RawToolCost> {
    let expected = raw_tool_costs(log);
    assert!(
        expected.values().any(|t| t.definition.is_some())
            && expected.values().any(|t| !t.results.is_empty()),
        "{what}: the log lists no tool or answers no call: {expected:?}"
    );
    let tokens = |bytes: u64| bytes.div_ceil(4);
    assert_eq!(cost["tokenizer"], "estimate", "{what}");
    assert_eq!(cost["bytes_per_token"], 4, "{what}");
    let shown: std::collections::BTreeMap<String, &Value> = cost["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().expect("name").to_string(), t))
        .collect();
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: the tools"
    );
    let (mut listed, mut bytes, mut sum_tokens, mut results) = (0, 0, 0, 0);
    for (name, raw) in &expected {
        let tool = shown[name];
        match raw.definition {
            Some(b) => {
                assert_eq!(
                    tool["definition"],
                    serde_json::json!({"bytes": b, "tokens": tokens(b)}),
                    "{what}: {name}"
                );
                listed += 1;
                bytes += b;
                sum_tokens += tokens(b);
            }
            None => assert!(tool["definition"].is_null(), "{what}: {name}"),
        }
        if raw.results.is_empty() {
            assert!(tool["results"].is_null(), "{what}: {name}");
            continue;
        }
        let mut sorted = raw.results.clone();
        sorted.sort_unstable();
        // Nearest rank: the ⌈n/2⌉-th smallest.
        let median = sorted[sorted.len().div_ceil(2) - 1];
        let max = *sorted.last().expect("a result");
        let total: u64 = sorted.iter().sum();
        let total_tokens: u64 = sorted.iter().map(|b| tokens(*b)).sum();
        let r = &tool["results"];
        assert_eq!(r["count"], sorted.len(), "{what}: {name}");
        assert_eq!(r["sampled"], sorted.len(), "{what}: {name}");
        assert_eq!(
            (&r["median"], &r["max"], &r["total"]),
            (
                &serde_json::json!({"bytes": median, "tokens": tokens(median)}),
                &serde_json::json!({"bytes": max, "tokens": tokens(max)}),
                &serde_json::json!({"bytes": total, "tokens": total_tokens}),
            ),
            "{what}: {name}"
        );
        results += sorted.len();
    }
    let total = &cost["total"];
    assert_eq!(total["listed"], listed, "{what}");
    assert_eq!(
        total["definitions"],
        serde_json::json!({"bytes": bytes, "tokens": sum_tokens}),
        "{what}"
    );
    assert_eq!(total["results"], results, "{what}");
    assert!(cost["other_tools"].is_null(), "{what}");
    expected
}

/// The Python of target/ci-venv: the pinned validators and readers of the
/// CI formats and the OTLP export (jsonschema, junitparser,
/// opentelemetry-proto; tests/ci/requirements.txt).
pub fn ci_python() -> PathBuf {
    let path = std::env::var_os("MCPDBG_TEST_CI_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/ci-venv/bin/python"));
    assert!(
        path.exists(),
        "{} does not exist: run scripts/test, which installs the pinned validators (tests/ci/requirements.txt)",
        path.display()
    );
    path
}
