//! Property tests: whatever the input, the analysis ends with a report (no
//! panic), renders valid JSON, and does not depend on how the input arrives
//! (read sizes).

use std::io::{self, Read};

use mcpdbg::pipeline::{self, Options};
use mcpdbg::render::{self, OutputFormat, Style};
use mcpdbg::report::Report;
use proptest::prelude::*;

/// Hands out the input `step` bytes at a time, as a pipe or a slow disk does.
struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The report of an input read `step` bytes at a time, as JSON.
fn report(data: &[u8], step: usize) -> serde_json::Value {
    report_with(data, step, &Options::default())
}

/// [`report`] with `options`.
fn report_with(data: &[u8], step: usize, options: &Options) -> serde_json::Value {
    let input = Trickle {
        data: data.to_vec(),
        at: 0,
        step,
    };
    let file = pipeline::check("p", Box::new(input), options).expect("in-memory input reads");
    let mut out = Vec::new();
    render::render(
        &Report { files: vec![file] },
        OutputFormat::Json,
        Style::default(),
        &mut out,
    )
    .expect("render");
    serde_json::from_slice(&out).expect("the JSON output is valid JSON")
}

/// Lines that exercise the readers and the session: markers, timestamps,
/// messages of every kind, broken JSON, text, events.
fn line() -> impl Strategy<Value = String> {
    let marker = prop_oneof![
        Just(""),
        Just("> "),
        Just("< "),
        Just("! "),
        Just("# "),
        Just("2026-11-02T09:00:00.000000Z > "),
        Just("2026-11-02T09:00:01.500000Z < ")
    ];
    let id = prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("\"1\"".to_string()),
        Just("null".to_string()),
        (0u32..5).prop_map(|n| n.to_string())
    ];
    let method = prop_oneof![
        Just("initialize"),
        Just("notifications/initialized"),
        Just("tools/call"),
        Just("tools/list"),
        Just("ping"),
        Just("notifications/cancelled"),
        Just("notifications/progress"),
        Just("server/discover"),
        Just("roots/list"),
        Just("tools/List"),
    ];
    let body = prop_oneof![
        (id.clone(), method.clone()).prop_map(|(i, m)| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"{m}","params":{{"protocolVersion":"2025-06-18","requestId":1,"progressToken":1,"progress":2}}}}"#)),
        method.prop_map(|m| format!(r#"{{"jsonrpc":"2.0","method":"{m}"}}"#)),
        id.clone().prop_map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"protocolVersion":"2025-03-26","content":[]}}}}"#)),
        id.prop_map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32603,"message":"Traceback (most recent call last)"}}}}"#)),
        Just("[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]".to_string()),
        Just("{\"jsonrpc\":\"2.0\",\"id\":".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("Content-Length: 12".to_string()),
        Just("start server".to_string()),
        "[ -~]{0,40}",
    ];
    (marker, body).prop_map(|(m, b)| format!("{m}{b}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn any_bytes_give_a_report(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let doc = report(&data, 4096);
        prop_assert_eq!(doc["version"].as_u64(), Some(1));
    }

    #[test]
    fn read_sizes_do_not_change_the_analysis(
        lines in proptest::collection::vec(line(), 0..40),
        step in 1usize..97,
        crlf in any::<bool>(),
    ) {
        let newline = if crlf { "\r\n" } else { "\n" };
        let data = lines.join(newline).into_bytes();
        prop_assert_eq!(report(&data, step), report(&data, 1 << 20));
    }

    /// Lines read ahead on a second thread give the same report as lines
    /// read on one (messages of every shape among the lines, some
    /// thousand lines so that several batches are in flight).
    #[test]
    fn reading_ahead_does_not_change_the_analysis(
        lines in proptest::collection::vec(
            prop_oneof![
                2 => line(),
                3 => (prop::sample::select(vec!["> ", "< "]), shaped_message())
                    .prop_map(|(m, l)| format!("{m}{l}")),
            ],
            0..40,
        ),
        repeat in 1usize..40,
        step in prop::sample::select(vec![7usize, 4096, 1 << 20]),
    ) {
        let data = lines.join("\n").repeat(repeat).into_bytes();
        let ahead = Options { read_ahead: true, ..Options::default() };
        prop_assert_eq!(report_with(&data, step, &ahead), report(&data, step));
    }
}

/// Every recorded or written log under `tests/` and `fixtures/` gives the
/// same report with its lines read ahead on a second thread as on one.
#[test]
fn reading_ahead_gives_the_same_report_on_every_log() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "snapshots") {
                    walk(&path, out);
                }
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("log" | "jsonl" | "txt" | "ndjson" | "zst")
            ) {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("tests"), &mut files);
    walk(&root.join("fixtures"), &mut files);
    assert!(
        files.len() > 100,
        "the logs under tests/ and fixtures/: {}",
        files.len()
    );
    let ahead = Options {
        read_ahead: true,
        ..Options::default()
    };
    for file in &files {
        let data = std::fs::read(file).expect("a log reads");
        assert_eq!(
            report_with(&data, 1 << 20, &ahead),
            report(&data, 1 << 20),
            "{}",
            file.display()
        );
    }
}

const MIB: usize = 1 << 20;

/// The line reader (1 MiB chunks shared by the lines read into them): lines of every length (empty, short, across chunk edges, longer than
/// a chunk), read in odd steps, some kept while later ones are read:
/// each comes out whole and unchanged, kept ones included.
#[test]
fn shared_lines_survive_refills_and_long_lines() {
    let lengths = [
        0,
        1,
        70,
        MIB / 2 - 3,
        MIB - 1,
        5,
        MIB + 17,
        3 * MIB,
        12,
        0,
        999,
    ];
    let expected: Vec<Vec<u8>> = lengths
        .iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|j| b'a' + ((i * 7 + j) % 26) as u8).collect())
        .collect();
    let mut data = expected.join(&b'\n');
    data.extend_from_slice(b"\ntail without newline");
    for step in [1 << 20, 4096, 65_537] {
        let mut lines = mcpdbg::reader::Lines::new(Box::new(Trickle {
            data: data.clone(),
            at: 0,
            step,
        }));
        let mut kept = Vec::new();
        for (i, want) in expected.iter().enumerate() {
            let (line, bytes, terminated) = lines.next_shared().unwrap().expect("a line");
            assert_eq!((line, terminated), (i as u64 + 1, true));
            assert!(&*bytes == want.as_slice(), "line {} (step {step})", i + 1);
            if i % 2 == 0 {
                kept.push((i, bytes));
            }
        }
        let (_, tail, terminated) = lines.next_shared().unwrap().expect("the tail");
        assert_eq!((&*tail, terminated), (&b"tail without newline"[..], false));
        assert!(lines.next_shared().unwrap().is_none());
        for (i, bytes) in kept {
            assert!(&*bytes == expected[i].as_slice(), "kept line {}", i + 1);
            assert_eq!(bytes.into_vec(), expected[i]);
        }
    }
}

/// A short JSON string body with escapes now and then (as written).
fn short_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(vec![
            "rows",
            "total",
            " ",
            "\\n",
            "\\\"",
            "\\\\",
            "\\u00e9",
            "\\ud83d\\ude00",
            "é",
            "\\t",
            "\\/",
            "日本",
        ]),
        0..12,
    )
    .prop_map(|p| p.concat())
}

/// A JSON value of small members: rows of objects, nested objects and
/// arrays, numbers, booleans, null, short strings.
fn small_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i32>().prop_map(|n| n.to_string()),
        (0u32..100_000, 0u32..100).prop_map(|(a, b)| format!("{a}.{b:02}")),
        short_text().prop_map(|t| format!("\"{t}\"")),
    ];
    leaf.prop_recursive(4, 400, 12, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..12)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec(
                ("[a-z]{1,8}|type|text|structuredContent|inputSchema", inner),
                0..12
            )
            .prop_map(|m| {
                let members: Vec<String> =
                    m.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// One message of each payload shape the parser treats apart: long text
/// results, structured results, tool listings with schemas, chatty small
/// messages (requests, progress, log notifications), errors.
fn shaped_message() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        (0u32..1000).prop_map(|n| n.to_string()),
        short_text().prop_map(|t| format!("\"{t}\"")),
    ];
    let long_text = (id.clone(), short_text(), 0usize..3000, any::<bool>()).prop_map(|(i, t, n, e)| {
        format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"{}{t}"}}],"isError":{e}}}}}"#, "x".repeat(n))
    });
    let structured = (id.clone(), small_json(), proptest::collection::vec(small_json(), 0..60)).prop_map(
        |(i, page, rows)| {
            format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"rows"}}],"structuredContent":{{"rows":[{}],"page":{page}}}}}}}"#, rows.join(","))
        },
    );
    let odd_structured = (id.clone(), small_json()).prop_map(|(i, v)| {
        format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[],"structuredContent":{v}}}}}"#)
    });
    let schemas = (id.clone(), proptest::collection::vec((short_text(), small_json(), small_json()), 0..8))
        .prop_map(|(i, tools)| {
            let tools: Vec<String> = tools
                .into_iter()
                .enumerate()
                .map(|(k, (d, a, b))| {
                    format!(r#"{{"name":"t{k}","description":"{d}","inputSchema":{{"type":"object","properties":{{"a":{a}}}}},"outputSchema":{b}}}"#)
                })
                .collect();
            format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"tools":[{}]}}}}"#, tools.join(","))
        });
    let chatty = prop_oneof![
        (id.clone(), short_text(), small_json()).prop_map(|(i, q, a)| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"{q}","arguments":{{"q":"{q}","more":{a}}},"_meta":{{"progressToken":{i}}}}}}}"#)),
        (id.clone(), small_json()).prop_map(|(i, a)| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"arguments":{a},"name":"t"}}}}"#)),
        (short_text(), small_json()).prop_map(|(t, d)| format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"{t}","data":{d}}}}}"#)),
        (0u32..9, short_text()).prop_map(|(n, t)| format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p","progress":{n},"message":"{t}"}}}}"#)),
        (id.clone(), short_text()).prop_map(|(i, t)| format!(r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32603,"message":"{t}","data":{{"structuredContent":"{t}"}}}}}}"#)),
        id.prop_map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#)),
    ];
    prop_oneof![long_text, structured, odd_structured, schemas, chatty]
}

/// The `params` of a message as the parser may keep them for the checks:
/// a busy notification's only the members the checks read (progress token
/// and value, `_meta`), in their places; a tool call's with `arguments`
/// standing as `{}` when they are an object; `None` for any other message.
fn picked_params(whole: &serde_json::Value) -> Option<serde_json::Value> {
    let method = whole.get("method")?.as_str()?;
    let params = whole.get("params")?.as_object()?;
    let kept = |k: &str, v: &serde_json::Value| match method {
        "notifications/progress" | "notifications/message" => {
            matches!(k, "progressToken" | "progress" | "_meta").then(|| v.clone())
        }
        "tools/call" if k == "arguments" && v.is_object() => Some(serde_json::json!({})),
        _ => Some(v.clone()),
    };
    if !matches!(
        method,
        "notifications/progress" | "notifications/message" | "tools/call"
    ) {
        return None;
    }
    Some(serde_json::Value::Object(
        params
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), kept(k, v)?)))
            .collect(),
    ))
}

/// `whole` with its `params` as [`picked_params`] keeps them.
fn with_picked_params(whole: &serde_json::Value) -> Option<serde_json::Value> {
    let picked = picked_params(whole)?;
    let mut copy = whole.clone();
    copy["params"] = picked;
    Some(copy)
}

/// Whether `cut` is `whole` with some long strings shortened and some
/// large subtrees replaced by empty ones of the same type (a schema's
/// keeping only its `type` member).
fn stands_for(cut: &serde_json::Value, whole: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (cut, whole) {
        // An empty stand-in stands for any object or array.
        (Value::Object(a), Value::Object(_)) if a.is_empty() => true,
        // A schema's stand-in: its first `type` member, as written (a whole
        // parse keeps the last of repeated keys: the generator repeats them,
        // and a schema may be nothing but two `type` members).
        (Value::Object(a), Value::Object(b))
            if a.len() == 1 && a.contains_key("type") && b.contains_key("type") =>
        {
            true
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && stands_for(va, vb))
        }
        (Value::Array(a), Value::Array(_)) if a.is_empty() => true,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| stands_for(x, y))
        }
        (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
        (a, b) => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// The message model against a full serde_json parse of the same line,
    /// on messages of every payload shape: the envelope (kind, id, method,
    /// problems) is what classifying the whole value gives, every member
    /// read whole (`fields`) is the value as sent, and what the parser left
    /// out (long payload strings, large `structuredContent` and tool
    /// schemas) stands for the whole: the same members and types, strings
    /// cut at a prefix, subtrees left empty only when the message says it
    /// was cut.
    #[test]
    fn the_message_model_agrees_with_serde_json(line in shaped_message()) {
        use mcpdbg::wire::message::{classify, Frame};
        let whole: serde_json::Value = serde_json::from_str(&line).expect("generated JSON is valid");
        let Ok(Frame::Message(m)) = mcpdbg::wire::skim::parse(&line) else {
            panic!("not a message: {line}");
        };
        let Frame::Message(full) = classify(whole.clone()) else {
            panic!("serde_json's value is not a message: {line}");
        };
        prop_assert_eq!(m.kind, full.kind);
        prop_assert_eq!(&m.id, &full.id);
        prop_assert_eq!(&m.method, &full.method);
        prop_assert_eq!(m.problems(), full.problems());
        prop_assert_eq!(m.error(), full.error());
        prop_assert_eq!(m.is_error(), full.is_error());
        prop_assert_eq!(m.has_params(), full.has_params());
        prop_assert_eq!(m.params().is_some(), full.params().is_some());
        prop_assert_eq!(m.error_data(), full.error_data());
        prop_assert_eq!(m.meta("progressToken"), full.meta("progressToken"));
        prop_assert_eq!(&serde_json::Value::Object(m.fields().into_owned()), &whole);
        prop_assert_eq!(
            m.whole_params().map(|p| serde_json::Value::Object(p.into_owned())),
            whole.get("params").filter(|p| p.is_object()).cloned()
        );
        // What the checks read of a busy notification's `params`.
        prop_assert_eq!(m.params().and_then(|p| p.get("progress")), full.params().and_then(|p| p.get("progress")));
        prop_assert_eq!(m.meta("protocolVersion"), full.meta("protocolVersion"));
        let members = serde_json::Value::Object(m.members().into_owned());
        // A busy notification's `params` may keep only what the checks read,
        // a tool call's stand for their `arguments`; the message then says
        // it was cut (when anything was left out).
        let picked = with_picked_params(&whole);
        let stands = |members: &serde_json::Value| {
            if m.is_cut() { stands_for(members, &whole) } else { members == &whole }
        };
        prop_assert!(
            stands(&members) || picked.as_ref().is_some_and(|p| members == *p && (m.is_cut() || p == &whole)),
            "{} stands for {}", members, line
        );
        // What the checks read of a result: the type of `structuredContent`
        // and of each listed schema, and whether they are there.
        let (cut_result, whole_result) = (m.result(), full.result());
        prop_assert_eq!(cut_result.is_some(), whole_result.is_some());
        if let (Some(a), Some(b)) = (cut_result, whole_result) {
            let kind = |v: Option<&serde_json::Value>| v.map(|v| (v.is_object(), v.is_array(), v.is_string()));
            prop_assert_eq!(kind(a.get("structuredContent")), kind(b.get("structuredContent")));
            let tools = |v: &serde_json::Value| {
                v.get("tools").and_then(|t| t.as_array()).map(|t| {
                    t.iter()
                        .map(|t| (kind(t.get("inputSchema")), kind(t.get("outputSchema")), t.get("name").cloned()))
                        .collect::<Vec<_>>()
                })
            };
            prop_assert_eq!(tools(a), tools(b));
        }
    }
}

/// The findings and summary of one session fed `lines` (each with the side
/// that wrote it), every line made a message by `parse`.
fn session_verdict(
    lines: &[(bool, String)],
    schema_check: bool,
    parse: impl Fn(&str) -> mcpdbg::wire::message::Frame,
) -> (
    Vec<mcpdbg::rules::finding::Finding>,
    mcpdbg::session::Summary,
) {
    use mcpdbg::session::{Config, Session};
    use mcpdbg::transport::{At, Item};
    use mcpdbg::wire::dir::Dir;
    use mcpdbg::wire::message::Frame;
    let mut session = Session::new(Config {
        schema_check,
        ..Config::default()
    });
    let mut findings = mcpdbg::rules::finding::Findings::default();
    for (i, (from_client, line)) in lines.iter().enumerate() {
        let at = At {
            line: i as u64 + 1,
            time: None,
        };
        let dir = if *from_client {
            Dir::ClientToServer
        } else {
            Dir::ServerToClient
        };
        let mut item = match parse(line) {
            Frame::Message(msg) => Item::Message { at, dir, msg },
            Frame::Batch(items) => Item::Batch { at, dir, items },
            Frame::LongBatch { .. } => panic!("generated batches are short: {line}"),
            Frame::Invalid(why) => panic!("generated line is no message ({why}): {line}"),
        };
        session.observe(&mut item, &mut findings);
    }
    let summary = session.finish(&mut findings);
    (findings.finish(), summary)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, .. ProptestConfig::default() })]

    /// Whole sessions of messages of every payload shape: the session and
    /// its rules give the same findings and summary whether each message
    /// comes from the skim parser (payload strings cut, large subtrees
    /// standing in, the envelope read apart) or from a full
    /// serde_json parse classified as it is, with and without
    /// `--schema-check`.
    #[test]
    fn the_message_model_gives_the_findings_of_a_full_parse(
        traffic in proptest::collection::vec((any::<bool>(), shaped_message()), 0..24),
        schema_check in any::<bool>(),
    ) {
        let mut lines = vec![
            (true, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_string()),
            (false, r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}"#.to_string()),
            (true, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string()),
        ];
        lines.extend(traffic);
        let skimmed = session_verdict(&lines, schema_check, |l| {
            mcpdbg::wire::skim::parse(l).expect("generated JSON is valid")
        });
        let full = session_verdict(&lines, schema_check, |l| {
            mcpdbg::wire::message::classify(serde_json::from_str(l).expect("generated JSON is valid"))
        });
        prop_assert_eq!(&skimmed.0, &full.0);
        prop_assert_eq!(&skimmed.1, &full.1);
    }
}

/// A message object of envelope members in any order, with values of any
/// type, other members beside them and keys given twice: what the parser
/// reads member by member (the envelope apart, no map) must be what a full
/// serde_json parse gives.
fn envelope_object() -> impl Strategy<Value = String> {
    let member = prop_oneof![
        proptest::sample::select(vec![r#""2.0""#, r#""1.0""#, "2.0", "null"])
            .prop_map(|v| format!(r#""jsonrpc":{v}"#)),
        proptest::sample::select(vec!["7", "0", "-3", r#""a\"b""#, r#""7""#, "null", "1.5", "1.0", "true", "{}", "[1]"])
            .prop_map(|v| format!(r#""id":{v}"#)),
        proptest::sample::select(vec![r#""ping""#, r#""tools/call""#, r#""notifications/progress""#, r#""caf\u00e9""#, "3", "null", "{}"])
            .prop_map(|v| format!(r#""method":{v}"#)),
        proptest::sample::select(vec![
            r#"{"progressToken":"p","progress":1}"#,
            r#"{"name":"t","arguments":{"q":"x\ny"},"_meta":{"progressToken":4}}"#,
            r#"{"name":"t","arguments":[1,{"a":2}],"task":{}}"#,
            r#"{"arguments":{},"args":{"q":1},"arguments":{"q":[2]},"name":"t"}"#,
            r#"{"level":"info","data":{"text":"hi"}}"#,
            "[1]",
            r#""x""#,
            "{}",
        ])
        .prop_map(|v| format!(r#""params":{v}"#)),
        proptest::sample::select(vec![
            "{}",
            r#"{"content":[{"type":"text","text":"hi \u00e9"}],"isError":true}"#,
            r#"{"content":[{"type":"text","text":"Traceback (most recent call last)"}],"isError":true}"#,
            "[]",
            "null",
        ])
        .prop_map(|v| format!(r#""result":{v}"#)),
        proptest::sample::select(vec![
            r#"{"code":-32601,"message":"no such method"}"#,
            r#"{"code":"x","message":"m"}"#,
            r#"{"message":"m"}"#,
            r#""e""#,
        ])
        .prop_map(|v| format!(r#""error":{v}"#)),
        (proptest::sample::select(vec!["x", "_meta", "Jsonrpc", "ids", "text", "data"]), small_json())
            .prop_map(|(k, v)| format!(r#""{k}":{v}"#)),
    ];
    proptest::collection::vec(member, 0..9).prop_map(|m| format!("{{{}}}", m.join(",")))
}

/// A line: one such object, a batch of them (with a stray element now and
/// then), or another JSON value.
fn envelope_line() -> impl Strategy<Value = String> {
    let element = prop_oneof![
        4 => envelope_object(),
        1 => proptest::sample::select(vec!["1", "null", r#""x""#, "[]"]).prop_map(str::to_string),
    ];
    prop_oneof![
        6 => envelope_object(),
        2 => proptest::collection::vec(element, 0..4).prop_map(|e| format!("[{}]", e.join(","))),
        1 => proptest::sample::select(vec!["1", "null", r#""x""#, "true"]).prop_map(str::to_string),
    ]
}

/// One message as the parser reads it against the same object as
/// serde_json's value: the envelope, every accessor the checks use, and
/// the members, in order (compared as written: serde_json's maps compare
/// equal in any order).
fn same_message(
    m: &mcpdbg::wire::message::Message,
    whole: &serde_json::Value,
) -> Result<(), TestCaseError> {
    use mcpdbg::wire::message::{Frame, classify};
    let Frame::Message(full) = classify(whole.clone()) else {
        return Err(TestCaseError::fail(format!(
            "serde_json's value is no message: {whole}"
        )));
    };
    prop_assert_eq!(m.kind, full.kind);
    prop_assert_eq!(&m.id, &full.id);
    prop_assert_eq!(&m.method, &full.method);
    prop_assert_eq!(m.problems(), full.problems());
    // A busy notification's `params` may keep only what the checks read, a
    // tool call's stand for their `arguments` (the message then says it was
    // cut); everything else is the whole value.
    let picked = with_picked_params(whole);
    let params = m.params().cloned().map(serde_json::Value::Object);
    let params_whole = whole.get("params").filter(|p| p.is_object()).cloned();
    let params_picked = picked.as_ref().map(|p| p["params"].clone());
    prop_assert!(
        params == params_whole || (params == params_picked && m.is_cut()),
        "params {:?} of {}",
        params,
        whole
    );
    prop_assert_eq!(
        m.params().and_then(|p| p.get("progressToken")),
        whole.get("params").and_then(|p| p.get("progressToken"))
    );
    prop_assert_eq!(
        m.params().and_then(|p| p.get("progress")),
        whole.get("params").and_then(|p| p.get("progress"))
    );
    prop_assert_eq!(m.has_params(), full.has_params());
    prop_assert_eq!(m.result(), whole.get("result"));
    prop_assert_eq!(m.error(), full.error());
    prop_assert_eq!(m.is_error(), full.is_error());
    prop_assert_eq!(m.error_data(), full.error_data());
    prop_assert_eq!(m.meta("progressToken"), full.meta("progressToken"));
    let written =
        |map: &serde_json::Map<String, serde_json::Value>| serde_json::to_string(map).unwrap();
    prop_assert_eq!(written(&m.fields()), whole.to_string());
    let members = written(&m.members());
    let (whole_text, picked_text) = (whole.to_string(), picked.as_ref().map(|p| p.to_string()));
    prop_assert!(
        members == whole_text || (m.is_cut() && picked_text.as_ref() == Some(&members)),
        "members {} of {}",
        members,
        whole
    );
    prop_assert_eq!(written(&m.clone().fields_mut().clone()), whole.to_string());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Lines of envelope members in any order, of any type, given twice,
    /// beside other members, alone or in batches: the parser's frame is
    /// the one classifying serde_json's whole value gives (the same
    /// verdict on what is no message, word for word).
    #[test]
    fn the_envelope_read_apart_is_the_envelope_of_a_full_parse(line in envelope_line()) {
        use mcpdbg::wire::message::{classify, Frame};
        let whole: serde_json::Value = serde_json::from_str(&line).expect("generated JSON is valid");
        let read = mcpdbg::wire::skim::parse(&line).expect("generated JSON is valid");
        match (&read, classify(whole.clone())) {
            (Frame::Message(m), Frame::Message(_)) => same_message(m, &whole)?,
            (Frame::Batch(items), Frame::Batch(full)) => {
                prop_assert_eq!(items.len(), full.len());
                for (i, (item, full)) in items.iter().zip(&full).enumerate() {
                    match (item, full) {
                        (Ok(m), Ok(_)) => same_message(m, &whole[i])?,
                        (Err(a), Err(b)) => prop_assert_eq!(a, b),
                        _ => prop_assert!(false, "member {} differs: {}", i, line),
                    }
                }
            }
            (Frame::Invalid(a), Frame::Invalid(b)) => prop_assert_eq!(a, &b),
            (a, b) => prop_assert!(false, "{:?} against {:?}: {}", a, b, line),
        }
    }
}

/// Both ways of reading ahead give the same report as one thread: an input
/// whose first lines are long (read here, short lines' tapes written on
/// the other thread) and one whose first lines are short (read on the
/// other thread too), each with batches of both kinds of lines after.
#[test]
fn reading_ahead_long_or_short_lines_first_gives_the_same_report() {
    let short = |i: usize| {
        format!(
            "< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"p-{}\",\"progress\":{i}}}}}",
            i % 7
        )
    };
    let call = |i: usize, text: &str| {
        format!(
            "> {{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"arguments\":{{}}}}}}\n< {{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],\"isError\":false}}}}"
        )
    };
    let long_text = "word ".repeat(1200);
    let open = "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    let ahead = Options {
        read_ahead: true,
        ..Options::default()
    };
    for long_first in [true, false] {
        let mut lines = vec![open.to_string()];
        let mut id = 1;
        for round in 0..40 {
            let long_now = (round < 20) == long_first;
            for _ in 0..if long_now { 30 } else { 2 } {
                lines.push(call(id, &long_text));
                id += 1;
            }
            for i in 0..150 {
                lines.push(short(i));
            }
            // An id answered twice and a call left open, so that there is
            // something to find.
            lines.push(call(id - 1, "again"));
            lines.push(format!(
                "> {{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\"}}}}",
                100_000 + round
            ));
            // Long lines the parser refuses or does not read as JSON (read
            // on the other thread in one way, here in the other): broken
            // JSON, stray text, a carriage return.
            lines.push(format!(
                "< {{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"text\":\"{long_text}\"}}",
                200_000 + round
            ));
            lines.push(format!("< [INFO] {long_text}"));
            lines.push(format!(
                "< {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{long_text}\"}}}}\r"
            ));
        }
        let data = lines.join("\n").into_bytes();
        let one = report(&data, 1 << 20);
        let found = one["files"][0]["findings"].as_array().map_or(0, Vec::len);
        assert!(found >= 40, "the input has findings to compare: {found}");
        assert_eq!(
            report_with(&data, 1 << 20, &ahead),
            one,
            "long lines first: {long_first}"
        );
    }
}
