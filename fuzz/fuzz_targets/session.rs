//! A structurally valid host log with absurd values: the input picks a
//! valid log of a reader format (every format of `Format::ALL` has one or
//! more) and rewrites it line by line: the JSON values of its messages (and
//! of the envelopes of the JSON-lines formats) become huge numbers, deep
//! nesting, lone surrogates, giant ids, control characters; the names and
//! numbers in the hosts' own texts (a tool between quotes, a program between
//! parentheses, a duration, an error code) become absurd; the digits of the
//! line prefixes (timestamps) change; lines are repeated (once, or a few
//! thousand times), dropped, swapped or cut. The whole analysis runs on
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

/// Valid logs of each reader format (the fixtures, and fuzz/templates/ for
/// shapes no single fixture has), and the format each is. The new hosts'
/// readers get several: the gateway's two record layouts, its timeouts and
/// lost servers; Claude Code's 2025 pretty-printed array (objects over
/// several lines) and every way a tool call ends; Cursor's tags, tool
/// calls, `[error] [` blocks and stderr over several lines; Codex's spans
/// and start failures; JetBrains' stray stdout and other tags.
const LOGS: &[(Format, &str)] = &[
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
        Format::JetBrains,
        include_str!("../../fixtures/formats/jetbrains/hang.log"),
    ),
    (
        Format::JetBrains,
        include_str!("../../fixtures/formats/jetbrains/stray-stdout.log"),
    ),
    (
        Format::GhAw,
        include_str!("../../fixtures/formats/gh-aw/clean-v1.log"),
    ),
    (
        Format::GhAw,
        include_str!("../../fixtures/formats/gh-aw/clean-v2.log"),
    ),
    (
        Format::GhAw,
        include_str!("../../fixtures/formats/gh-aw/hang.log"),
    ),
    (
        Format::GhAw,
        include_str!("../../fixtures/formats/gh-aw/crash.log"),
    ),
    (
        Format::GhAwServer,
        include_str!("../../fixtures/formats/gh-aw-server/clean.log"),
    ),
    (
        Format::GhAwServer,
        include_str!("../../fixtures/formats/gh-aw-server/start-failed.log"),
    ),
    (
        Format::GhAwServer,
        include_str!("../../fixtures/formats/gh-aw-server/stray-stdout.log"),
    ),
    (
        Format::ClaudeCode,
        include_str!("../../fixtures/formats/claude-code/clean.log"),
    ),
    (
        Format::ClaudeCode,
        include_str!("../../fixtures/formats/claude-code/host-words.log"),
    ),
    (
        Format::ClaudeCode,
        include_str!("../../fixtures/formats/claude-code/array-2025.log"),
    ),
    (
        Format::ClaudeCode,
        include_str!("../../fixtures/formats/claude-code/crash.log"),
    ),
    (
        Format::ClaudeCodeDebug,
        include_str!("../../fixtures/formats/claude-code-debug/clean.log"),
    ),
    (
        Format::ClaudeCodeDebug,
        include_str!("../../fixtures/formats/claude-code-debug/two-servers.log"),
    ),
    (
        Format::ClaudeCodeDebug,
        include_str!("../templates/claude-code-debug.log"),
    ),
    (
        Format::Codex,
        include_str!("../../fixtures/formats/codex/clean.log"),
    ),
    (
        Format::Codex,
        include_str!("../../fixtures/formats/codex/start-failed.log"),
    ),
    (Format::Codex, include_str!("../templates/codex.log")),
    (
        Format::Cursor,
        include_str!("../../fixtures/formats/cursor/hang.log"),
    ),
    (
        Format::Cursor,
        include_str!("../../fixtures/formats/cursor/start-failed.log"),
    ),
    (
        Format::Cursor,
        include_str!("../../fixtures/formats/cursor/stray-stdout.log"),
    ),
    (Format::Cursor, include_str!("../templates/cursor.log")),
];

/// Every format auto-detection can choose has a log above (checked when
/// the target builds: a new reader without one fails the build).
const _: () = {
    let mut i = 0;
    while i < Format::ALL.len() {
        let mut j = 0;
        while j < LOGS.len() && LOGS[j].0 as usize != Format::ALL[i] as usize {
            j += 1;
        }
        assert!(j < LOGS.len(), "a format of Format::ALL has no log in LOGS");
        i += 1;
    }
};

/// At most this many bytes of log are built (libFuzzer's time per input
/// stays short).
const MAX_LOG: usize = 1 << 20;
/// At most this many bytes of copies of one line.
const REPEAT_BYTES: usize = 64 << 10;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((format, log, many)) = build(&mut u) else {
        return;
    };
    let forced = (many || u.arbitrary::<bool>().unwrap_or(false)).then_some(format);
    let redact = u.arbitrary::<bool>().unwrap_or(false);
    analyse(&log, forced, redact);
});

/// The log: a fixture of the chosen format, rewritten; and whether a line
/// was repeated more than a few dozen times.
fn build(u: &mut Unstructured) -> Result<(Format, Vec<u8>, bool)> {
    let (format, text) = LOGS[u.choose_index(LOGS.len())?];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut out: Vec<String> = Vec::new();
    let mut size = 0;
    let mut many = false;
    let mut i = 0;
    while i < lines.len() && !u.is_empty() && size < MAX_LOG {
        let before = out.len();
        match u.int_in_range(0..=17u8)? {
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
            5 | 6 => out.push(words(u, &lines[i])?),
            7 => {
                // Many times: in the formats that gather lines, past their
                // bounds (an `[error] [` block's 2,000 lines), then read as
                // that format (detection could take the copies for JSON
                // lines, whose timeline is quadratic in a block's lines:
                // minutes per input under the sanitizer); a few dozen
                // times elsewhere.
                let most = if gathers(format) { 2_100 } else { 64 };
                let times = u.int_in_range(3..=most)?;
                let times = times.min(REPEAT_BYTES / (lines[i].len() + 1) + 1);
                many |= times > 64;
                out.extend(std::iter::repeat_n(lines[i].clone(), times));
            }
            _ => out.push(rewrite(u, &lines[i])?),
        }
        size += out[before..].iter().map(|l| l.len() + 1).sum::<usize>();
        i += 1;
    }
    out.extend(lines[i..].iter().cloned());
    let mut log = out.join("\n");
    if u.arbitrary::<bool>()? {
        log.push('\n');
    }
    let mut log = log.into_bytes();
    log.truncate(MAX_LOG);
    Ok((format, log, many))
}

/// Whether a format's reader gathers several lines into one record (and
/// bounds how many).
fn gathers(format: Format) -> bool {
    matches!(
        format,
        Format::Cursor | Format::ClaudeServer | Format::ClaudeAggregate | Format::ClaudeCode
    )
}

/// A host's text with some of its names and numbers rewritten: in a line
/// of JSON (from the first `{`), inside the strings of the object (the line
/// stays JSON: Claude Code's and the gateway's texts are strings there);
/// else in the line itself, escaped as in a JSON string when the line is a
/// member of a pretty-printed object.
fn words(u: &mut Unstructured, line: &str) -> Result<String> {
    if let Some(start) = line.find('{') {
        let mut stream = serde_json::Deserializer::from_str(&line[start..]).into_iter::<Value>();
        if let Some(Ok(mut value)) = stream.next() {
            let end = start + stream.byte_offset();
            respan_strings(u, &mut value)?;
            return Ok(format!("{}{value}{}", &line[..start], &line[end..]));
        }
    }
    let member = line.trim_start().starts_with('"');
    respan(u, line, member)
}

fn respan_strings(u: &mut Unstructured, value: &mut Value) -> Result<()> {
    match value {
        Value::String(s) if u.arbitrary::<bool>()? => *s = respan(u, s, false)?,
        Value::Array(items) => {
            for v in items {
                respan_strings(u, v)?;
            }
        }
        Value::Object(fields) => {
            for (_, v) in fields.iter_mut() {
                respan_strings(u, v)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `text` with one to three of its spans replaced: what is between a pair
/// of `'`, `"` or backquotes or between `(` and `)` by an absurd name, a
/// run of digits (with its sign) by an absurd number.
fn respan(u: &mut Unstructured, text: &str, escape: bool) -> Result<String> {
    let mut text = text.to_string();
    for _ in 0..u.int_in_range(1..=3u8)? {
        let spans = spans(&text);
        if spans.is_empty() {
            break;
        }
        let (from, to, digits) = spans[u.choose_index(spans.len())?];
        let new = if digits {
            absurd_number(u)?
        } else {
            absurd_name(u)?
        };
        let new = if escape {
            let quoted = Value::String(new).to_string();
            quoted[1..quoted.len() - 1].to_string()
        } else {
            new
        };
        text.replace_range(from..to, &new);
    }
    Ok(text)
}

/// The spans of `text` [`respan`] may replace (the first 64): byte ranges,
/// and whether the span is a number.
fn spans(text: &str) -> Vec<(usize, usize, bool)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    for quote in [b'\'', b'"', b'`'] {
        let at: Vec<usize> = positions(b, quote);
        for pair in at.chunks_exact(2) {
            spans.push((pair[0] + 1, pair[1], false));
        }
    }
    let mut open = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => open = Some(i + 1),
            b')' => {
                if let Some(from) = open.take() {
                    spans.push((from, i, false));
                }
            }
            _ => {}
        }
    }
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let from = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            spans.push((from, i, true));
        } else {
            i += 1;
        }
    }
    spans.truncate(64);
    spans
}

fn positions(b: &[u8], c: u8) -> Vec<usize> {
    b.iter()
        .enumerate()
        .filter(|&(_, &x)| x == c)
        .map(|(i, _)| i)
        .collect()
}

/// A name for a tool, a server or a program: the hosts' delimiters inside
/// it, empty, past the readers' 240-character cap, or absurd.
fn absurd_name(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => String::new(),
        1 => "n".repeat(u.int_in_range(200..=5_000usize)?),
        2 => ["a' b", "x\" y", "p) (q", "`", "': ", "\")", "user-x: y"][u.choose_index(7)?]
            .to_string(),
        3 => u.arbitrary::<&str>()?.to_string(),
        _ => absurd_string(u)?,
    })
}

/// A number for a duration, a code or a count: beyond 64 bits, negative,
/// zero, a float.
fn absurd_number(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => "9".repeat(u.int_in_range(1..=60usize)?),
        1 => format!("-{}", "9".repeat(u.int_in_range(1..=40usize)?)),
        2 => "0".to_string(),
        3 => u64::MAX.to_string(),
        4 => i64::MIN.to_string(),
        _ => format!("{}", u.arbitrary::<f64>()?),
    })
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
                Some("jsonrpc" | "method" | "direction" | "type" | "event" | "level" | "debug") => {
                    24u8
                }
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
        // A log with no MCP message is refused (pipeline::input), as every
        // command refuses it; anything else must be read.
        if let Err(e) = timeline::run(
            "fuzz",
            &open,
            &options,
            &mut render::timeline::Text::new(&mut text, full),
        ) {
            assert!(
                mcpdbg::pipeline::input::refusal(&e).is_some(),
                "timeline: {e:?}"
            );
            return;
        }
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
