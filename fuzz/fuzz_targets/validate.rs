//! `mcpdbg validate` over any bytes, under every revision.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdbg::cmd::validate::{ValidateOptions, validate};
use mcpdbg::protocol::Revision;

fuzz_target!(|data: &[u8]| {
    for revision in Revision::ALL {
        let options = ValidateOptions {
            revision,
            side: None,
            answers: Some("tools/call".to_string()),
        };
        let _ = validate("fuzz", data, &options);
    }
});
