//! `mcpdbg mock LOG`: a captured session stands in for its server. The log
//! is judged as every command judges one, its session read
//! ([`crate::views::served`]) and served on stdio ([`crate::live::mock`]).

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::PathBuf;

use crate::exit::ExitStatus;
use crate::live::mock::{self, Timing};
use crate::pipeline::{self, Options};
use crate::reader::Format;
use crate::rules::Rule;
use crate::views::served::{self, Pick, Picked};

/// `mcpdbg mock [OPTIONS] LOG`.
#[derive(Clone, Debug)]
pub struct MockCommand {
    pub log: PathBuf,
    pub input: Option<Format>,
    /// `--session N` (1-based); `None`: the first with a handshake.
    pub session: Option<usize>,
    pub timing: Timing,
    pub lenient: bool,
    pub faults: bool,
    pub allow_redacted: bool,
}

pub fn run(m: MockCommand) -> io::Result<ExitStatus> {
    let name = m.log.display().to_string();
    if m.log.as_os_str() == "-" {
        crate::say!(
            "mcpdbg mock: LOG must be a file: standard input is the client's (name the capture's file)"
        );
        return Ok(ExitStatus::Error);
    }
    let open = || {
        File::open(&m.log).map_err(|e| io::Error::new(e.kind(), format!("cannot read {name}: {e}")))
    };
    // Judged as every command judges a log: binary data, or no MCP message
    // in it, is refused. The check also says how each hang ended.
    let options = Options {
        format: m.input,
        ..Options::default()
    };
    let report = pipeline::input::check_log(&name, Box::new(open()?), &options)?;
    let pick = m.session.map_or(Pick::Default, Pick::Number);
    let served = match served::read(Box::new(open()?), m.input, pick)? {
        Ok(served) => served,
        Err(sessions) => {
            crate::say!(
                "mcpdbg mock: {name} holds {sessions} session{}; --session {} is not one",
                if sessions == 1 { "" } else { "s" },
                m.session.unwrap_or(0)
            );
            return Ok(ExitStatus::Error);
        }
    };
    let which = format!("session {} of {name}", served.number);
    if let Some((line, why)) = served.partial {
        crate::say!(
            "mcpdbg mock: {which} cannot be served: {why} (line {line}); mock needs the messages \
             themselves"
        );
        return Ok(ExitStatus::Error);
    }
    if let Some((line, mark)) = &served.redacted {
        if !m.allow_redacted {
            crate::say!(
                "mcpdbg mock: {name} is a redacted capture (line {line} holds {mark:?}): its \
                 placeholders would be served as data; --allow-redacted serves it anyway"
            );
            return Ok(ExitStatus::Error);
        }
    }
    if served.exchanges.is_empty() {
        crate::say!("mcpdbg mock: {which} holds no client request to answer");
        return Ok(ExitStatus::Error);
    }
    if served.sessions > 1 {
        let lines = match (served.first_line, served.last_line) {
            (Some(a), Some(b)) => format!(", lines {a}-{b}"),
            _ => String::new(),
        };
        let server = served
            .name
            .as_deref()
            .map_or(String::new(), |n| format!(", server {n}"));
        let why = match served.picked {
            Picked::Asked => "as asked",
            Picked::Handshake => "the first with a handshake",
            Picked::Answered => "none has a handshake; the first the server answered in",
            Picked::First => "the first",
        };
        crate::say!(
            "mcpdbg mock: {name} holds {} sessions; serving session {}{lines}{server} ({why}; \
             --session N serves another)",
            served.sessions,
            served.number
        );
    }
    if let Some(line) = served.first_cut {
        crate::say!(
            "mcpdbg mock: {which} shows {} server message{} only in part (the first at line \
             {line}): a cut answer is served as an error that says so",
            served.cut,
            if served.cut == 1 { "" } else { "s" }
        );
    }
    let mut left = Vec::new();
    if served.left_out > 0 {
        left.push(format!(
            "{} client messages past the first {} requests or notifications",
            served.left_out,
            served::MAX_REQUESTS
        ));
    }
    if let Some(line) = served.cut_at {
        left.push(format!(
            "what follows line {line}, past {} MiB kept",
            served::MAX_BYTES >> 20
        ));
    }
    if served.outputs_left_out > 0 {
        left.push(format!(
            "{} server messages past {} after one client message",
            served.outputs_left_out,
            served::MAX_OUTPUTS
        ));
    }
    if !left.is_empty() {
        crate::say!(
            "mcpdbg mock: {which} is served in part: not kept: {}",
            left.join("; ")
        );
    }
    // The hang model's words for each request the log never answered.
    let why: HashMap<u64, String> = report
        .findings
        .iter()
        .filter(|f| {
            f.session + 1 == served.number
                && matches!(f.rule, Rule::UnansweredRequest | Rule::CancelledRequest)
        })
        .map(|f| (f.line, f.message.clone()))
        .collect();
    let options = mock::Options {
        timing: m.timing,
        lenient: m.lenient,
        faults: m.faults,
        why,
    };
    let stdout = io::stdout();
    let outcome = mock::serve(&served, &options, Box::new(io::stdin()), stdout.lock())?;
    crate::say!(
        "mcpdbg mock: answered {} request{} from {which}; {} miss{}",
        outcome.answered,
        if outcome.answered == 1 { "" } else { "s" },
        outcome.misses,
        if outcome.misses == 1 { "" } else { "es" }
    );
    Ok(match outcome.exit {
        Some(status) => ExitStatus::Code(status.and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        None if outcome.misses > 0 => ExitStatus::Findings,
        None => ExitStatus::Clean,
    })
}
