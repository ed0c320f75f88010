//! A structurally valid host log with absurd values: the input picks one
//! valid log per reader format (the fixtures) and rewrites it line by line:
//! the JSON values of its messages (and of the envelopes of the JSON-lines
//! formats) become huge numbers, deep nesting, lone surrogates, giant ids,
//! control characters; the digits of the line prefixes (timestamps) change;
//! lines are repeated, dropped, swapped or cut. The whole analysis runs on
//! the result (with and without `--redact`), and every renderer: `check`'s
//! seven formats, the four timeline drawings (`--full` too) and both `stats`
//! outputs. Nothing may panic, and every JSON output must parse.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcpdbg::pipeline::{self, Options};
use mcpdbg::reader::Format;
use mcpdbg::render::{self, OutputFormat, Style};
use mcpdbg::report::Report;
use mcpdbg::views::{stats, timeline};
use serde_json::{Map, Value};

/// One valid log per reader format, and the format it is.
const LOGS: [(Format, &str); 18] = [
    (
        Format::Native,
        include_str!("../../fixtures/sample-session.log"),
    ),
    (
        Format::Ndjson,
        include_str!("../../fixtures/tee/clean.client.log"),
    ),
    (
        Format::ClaudeServer,
        include_str!("../../fixtures/formats/claude-server/clean.log"),
    ),
    (
        Format::ClaudeAggregate,
        include_str!("../../fixtures/formats/claude-aggregate/clean.log"),
    ),
    (
        Format::VsCode,
        include_str!("../../fixtures/formats/vscode/clean.log"),
    ),
    (
        Format::Zed,
        include_str!("../../fixtures/formats/zed/clean.log"),
    ),
    (
        Format::ZedRpc,
        include_str!("../../fixtures/formats/zed-rpc/clean.log"),
    ),
    (
        Format::Socat,
        include_str!("../../fixtures/formats/socat/clean.log"),
    ),
    (
        Format::Strace,
        include_str!("../../fixtures/formats/strace/clean.log"),
    ),
    (
        Format::Mcpsnoop,
        include_str!("../../fixtures/formats/mcpsnoop/clean.log"),
    ),
    (
        Format::Inspector,
        include_str!("../../fixtures/formats/inspector/clean.log"),
    ),
    (
        Format::JetBrains,
        include_str!("../../fixtures/formats/jetbrains/clean.log"),
    ),
    (
        Format::GhAw,
        include_str!("../../fixtures/formats/gh-aw/clean-v2.log"),
    ),
    (
        Format::GhAwServer,
        include_str!("../../fixtures/formats/gh-aw-server/clean.log"),
    ),
    (
        Format::ClaudeCode,
        include_str!("../../fixtures/formats/claude-code/clean.log"),
    ),
    (
        Format::ClaudeCodeDebug,
        include_str!("../../fixtures/formats/claude-code-debug/clean.log"),
    ),
    (
        Format::Codex,
        include_str!("../../fixtures/formats/codex/clean.log"),
    ),
    (
        Format::Cursor,
        include_str!("../../fixtures/formats/cursor/clean.log"),
    ),
];

/// At most this many bytes of log are built (libFuzzer's time per input
/// stays short).
const MAX_LOG: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((format, log)) = build(&mut u) else {
        return;
    };
    let forced = u.arbitrary::<bool>().unwrap_or(false).then_some(format);
    let redact = u.arbitrary::<bool>().unwrap_or(false);
    analyse(&log, forced, redact);
});

/// The log: a fixture of the chosen format, rewritten.
fn build(u: &mut Unstructured) -> Result<(Format, Vec<u8>)> {
    let (format, text) = LOGS[u.choose_index(LOGS.len())?];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() && !u.is_empty() {
        match u.int_in_range(0..=15u8)? {
            0 => {} // dropped
            1 => {
                out.push(lines[i].clone());
                out.push(lines[i].clone());
            }
            2 if i + 1 < lines.len() => {
                lines.swap(i, i + 1);
                out.push(lines[i].clone());
            }
            3 => {
                // Cut at a character boundary.
                let line = &lines[i];
                let mut at = u.int_in_range(0..=line.len())?;
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                out.push(line[..at].to_string());
            }
            4 => out.push(prefix_digits(u, &lines[i])?),
            _ => out.push(rewrite(u, &lines[i])?),
        }
        i += 1;
    }
    out.extend(lines[i..].iter().cloned());
    let mut log = out.join("\n");
    if u.arbitrary::<bool>()? {
        log.push('\n');
    }
    let mut log = log.into_bytes();
    log.truncate(MAX_LOG);
    Ok((format, log))
}

/// A line with its JSON (from the first `{`) rewritten, or its prefix's
/// digits changed when it holds none.
fn rewrite(u: &mut Unstructured, line: &str) -> Result<String> {
    let mut raws = Vec::new();
    let Some(start) = line.find('{') else {
        return prefix_digits(u, line);
    };
    let mut stream = serde_json::Deserializer::from_str(&line[start..]).into_iter::<Value>();
    let Some(Ok(mut value)) = stream.next() else {
        return prefix_digits(u, line);
    };
    let end = start + stream.byte_offset();
    mutate(u, &mut value, None, 0, &mut raws)?;
    let head = if u.ratio(1u8, 4)? {
        prefix_digits(u, &line[..start])?
    } else {
        line[..start].to_string()
    };
    let mut json = value.to_string();
    // The sentinels become raw JSON text serde_json cannot hold: numbers
    // beyond a double, lone surrogates, nesting deeper than its limit.
    for (n, raw) in raws.iter().enumerate() {
        json = json.replacen(&format!("\"\\u0000raw{n}\\u0000\""), raw, 1);
    }
    Ok(format!("{head}{json}{}", &line[end..]))
}

/// The ASCII digits of `text`, some replaced (odd timestamps: month 19,
/// hour 99, a year 0000, a clock that goes back).
fn prefix_digits(u: &mut Unstructured, text: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_digit() && u.ratio(1u8, 3)? {
            out.push(char::from(b'0' + u.int_in_range(0..=9u8)?));
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// Rewrites some scalars of `value` (keys and structure stay, so the
/// envelope and the message still read as what they are).
fn mutate(
    u: &mut Unstructured,
    value: &mut Value,
    key: Option<&str>,
    depth: usize,
    raws: &mut Vec<String>,
) -> Result<()> {
    match value {
        Value::Object(fields) => {
            for (k, v) in fields.iter_mut() {
                mutate(u, v, Some(k), depth + 1, raws)?;
            }
            if depth < 4 && u.ratio(1u8, 16)? {
                let name = absurd_string(u)?;
                let extra = absurd(u, raws)?;
                fields.insert(name, extra);
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                mutate(u, v, key, depth + 1, raws)?;
            }
        }
        _ => {
            // The envelope's and the protocol's words change less often.
            let odds = match key {
                Some("jsonrpc" | "method" | "direction" | "type" | "event" | "level") => 24u8,
                Some("id") => 3,
                _ => 5,
            };
            if u.ratio(1u8, odds)? {
                *value = absurd(u, raws)?;
            }
        }
    }
    Ok(())
}

/// An absurd JSON value; the ones serde_json cannot hold are sentinels
/// replaced by their raw text once the line is written.
fn absurd(u: &mut Unstructured, raws: &mut Vec<String>) -> Result<Value> {
    let raw = |raws: &mut Vec<String>, text: String| {
        raws.push(text);
        Value::String(format!("\u{0}raw{}\u{0}", raws.len() - 1))
    };
    Ok(match u.int_in_range(0..=17u8)? {
        0 => Value::from(u64::MAX),
        1 => Value::from(i64::MIN),
        2 => raw(raws, "1".repeat(u.int_in_range(20..=400usize)?)),
        3 => raw(
            raws,
            format!("-0.{}e-99999", "0".repeat(u.int_in_range(1..=50usize)?)),
        ),
        4 => raw(raws, "1e400".to_string()),
        5 => Value::from(f64::MAX),
        6 => raw(raws, "\"\\ud83d\"".to_string()),
        7 => raw(raws, "\"a\\udc00b\\ud800\"".to_string()),
        8 => {
            let depth = u.int_in_range(1..=3000usize)?;
            raw(raws, format!("{}{}", "[".repeat(depth), "]".repeat(depth)))
        }
        9 => {
            let depth = u.int_in_range(1..=500usize)?;
            raw(
                raws,
                format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)),
            )
        }
        10 => Value::String("x".repeat(u.int_in_range(0..=100_000usize)?)),
        11 => Value::String(absurd_string(u)?),
        12 => Value::Null,
        13 => Value::Bool(u.arbitrary()?),
        14 => Value::Array(
            (0..u.int_in_range(0..=2000usize)?)
                .map(|_| Value::Object(Map::new()))
                .collect(),
        ),
        15 => Value::from(u.arbitrary::<i64>()?),
        16 => Value::from(u.arbitrary::<f64>()?),
        _ => Value::String(String::new()),
    })
}

/// A short string of control, invisible, bidi and escape characters, or
/// the fuzzer's own text.
fn absurd_string(u: &mut Unstructured) -> Result<String> {
    const PIECES: [&str; 14] = [
        "\u{1b}[31m",
        "\u{0}",
        "\r",
        "\n",
        "\u{2028}",
        "\u{202e}",
        "\u{200b}",
        "\u{feff}",
        "\u{e0041}",
        "%%{init: {}}%%",
        "</script>",
        "ghp_0123456789abcdefghijABCDEFGHIJ012345",
        "Authorization: Bearer x",
        "\"",
    ];
    let mut s = String::new();
    for _ in 0..u.int_in_range(0..=8u8)? {
        if u.arbitrary::<bool>()? {
            s.push_str(PIECES[u.choose_index(PIECES.len())?]);
        } else {
            s.push_str(u.arbitrary::<&str>()?);
        }
    }
    Ok(s)
}

/// The analysis and every renderer.
fn analyse(log: &[u8], forced: Option<Format>, redact: bool) {
    let check = Options {
        format: forced,
        redact,
        ..Options::default()
    };
    let file = pipeline::check("fuzz", Box::new(std::io::Cursor::new(log.to_vec())), &check)
        .expect("in-memory reads succeed");
    let report = Report { files: vec![file] };
    for format in [
        OutputFormat::Table,
        OutputFormat::Concise,
        OutputFormat::Json,
        OutputFormat::Jsonl,
        OutputFormat::Sarif,
        OutputFormat::Github,
        OutputFormat::Junit,
    ] {
        let mut out = Vec::new();
        render::render(
            &report,
            format,
            Style {
                color: true,
                width: Some(80),
            },
            &mut out,
        )
        .expect("render");
        match format {
            OutputFormat::Json | OutputFormat::Sarif => json(&out),
            OutputFormat::Jsonl => out
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .for_each(json),
            _ => {}
        }
    }
    let open = || Ok(Box::new(std::io::Cursor::new(log.to_vec())) as Box<dyn std::io::Read>);
    for full in [false, true] {
        let options = timeline::Options {
            check: check.clone(),
            keep_raw: full,
            ..Default::default()
        };
        let mut text = Vec::new();
        timeline::run(
            "fuzz",
            &open,
            &options,
            &mut render::timeline::Text::new(&mut text, full),
        )
        .expect("timeline");
        let mut doc = Vec::new();
        timeline::run(
            "fuzz",
            &open,
            &options,
            &mut render::timeline_json::Json::new(&mut doc),
        )
        .expect("timeline json");
        json(&doc);
        let mut mermaid = Vec::new();
        timeline::run(
            "fuzz",
            &open,
            &options,
            &mut render::mermaid::Mermaid::new(&mut mermaid),
        )
        .expect("mermaid");
        let mut html = Vec::new();
        timeline::run(
            "fuzz",
            &open,
            &options,
            &mut render::html::Html::new(&mut html),
        )
        .expect("html");
    }
    let mut all = stats::Stats::default();
    let mut redactor = redact.then(mcpdbg::redact::Redactor::default);
    stats::collect(
        &mut all,
        "fuzz",
        Box::new(std::io::Cursor::new(log.to_vec())),
        forced,
        &mut redactor,
    )
    .expect("stats");
    let mut table = Vec::new();
    render::stats::render(&all, &mut table).expect("stats table");
    let mut doc = Vec::new();
    render::stats_json::render(&all, &mut doc).expect("stats json");
    json(&doc);
}

/// A JSON output parses (a failure is a bug). Its syntax is checked without
/// building values: the outputs write an id or a number beyond a double's
/// range as its exact digits, which JSON allows and `Value` refuses.
fn json(out: &[u8]) {
    match serde_json::from_slice::<serde::de::IgnoredAny>(out) {
        Ok(_) => {}
        // Valid, deeper than serde_json reads by default.
        Err(e) if e.to_string().contains("recursion limit") => {}
        Err(e) => panic!(
            "invalid JSON output ({e}): {}",
            String::from_utf8_lossy(&out[..out.len().min(2000)])
        ),
    }
}
