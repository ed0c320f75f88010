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
    let input = Trickle {
        data: data.to_vec(),
        at: 0,
        step,
    };
    let file =
        pipeline::check("p", Box::new(input), &Options::default()).expect("in-memory input reads");
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
