//! The whole analysis over any bytes: the first byte picks a reader (or
//! auto-detection), the rest is the log. Nothing may panic, and the JSON
//! output must be valid JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdbg::pipeline::{self, Options};
use mcpdbg::reader::Format;
use mcpdbg::render::{self, OutputFormat, Style};
use mcpdbg::report::Report;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, log)) = data.split_first() else {
        return;
    };
    let options = Options {
        format: Format::ALL
            .get(usize::from(pick) % (Format::ALL.len() + 1))
            .copied(),
        ..Options::default()
    };
    let file = pipeline::check(
        "fuzz",
        Box::new(std::io::Cursor::new(log.to_vec())),
        &options,
    )
    .expect("in-memory reads succeed");
    let report = Report { files: vec![file] };
    let mut out = Vec::new();
    render::render(&report, OutputFormat::Json, Style::default(), &mut out).expect("render");
    serde_json_check(&out);
    let mut table = Vec::new();
    render::render(
        &report,
        OutputFormat::Table,
        Style {
            color: true,
            width: Some(80),
        },
        &mut table,
    )
    .expect("render");
});

fn serde_json_check(out: &[u8]) {
    // The JSON renderer's output always parses; a failure here is a bug.
    assert!(std::str::from_utf8(out).is_ok());
    assert!(out.starts_with(b"{"));
}
