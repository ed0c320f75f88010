//! `mcpdbg diff` and `mcpdbg replay`: two captures compared; for replay,
//! the second is recorded by playing the first's client side against a
//! server.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Form, Removed};
use crate::exit::ExitStatus;
use crate::live::replay;
use crate::pipeline::{self, Options};
use crate::reader::Format;
use crate::redact::Redactor;
use crate::render;
use crate::rules::assertions::Assertions;
use crate::rules::finding::Finding;
use crate::views::capture::{self, Capture, Limits};
use crate::views::diff::{self, Change, Comparison, Expect, Labels, Pattern, Target};
use crate::views::passes::Entries;

/// What both commands compare by.
#[derive(Clone, Debug)]
pub struct Compare {
    /// `--ignore PATH`: JSON paths left out of the comparison.
    pub ignore: Vec<String>,
    pub expect: Expect,
    /// `--id`, `--method`, `--tool`: the request rows the verdict counts.
    pub target: Target,
    pub form: Form,
    /// `--redact`: the report's strings from the logs as placeholders.
    pub redact: bool,
    /// `--max-requests`: the client requests taken from each log.
    pub max_requests: usize,
    /// `--width`: the columns the text fits in, terminal or not.
    pub width: Option<usize>,
}

/// `mcpdbg diff BEFORE AFTER`.
#[derive(Clone, Debug)]
pub struct DiffCommand {
    pub before: PathBuf,
    pub after: PathBuf,
    pub compare: Compare,
    pub input: Option<Format>,
}

/// `mcpdbg replay LOG -- SERVER...`.
#[derive(Clone, Debug)]
pub struct ReplayCommand {
    pub log: PathBuf,
    /// The new transcript; under `.mcpdbg/replays/` beside LOG, stamped,
    /// when `None`.
    pub out: Option<PathBuf>,
    /// `-o`: the comparison goes to this file instead of standard output.
    pub output: Option<PathBuf>,
    /// `--export-*`: the findings of `check` on the new session, each in
    /// its format to its file.
    pub exports: Vec<(render::OutputFormat, PathBuf)>,
    pub command: Vec<OsString>,
    pub timing: replay::Timing,
    pub max_gap: f64,
    pub timeout: Option<f64>,
    pub start_timeout: f64,
    pub grace: f64,
    pub stop_on_hang: bool,
    pub renumber: bool,
    pub compare: Compare,
    pub input: Option<Format>,
    /// `--expect-tool`, `--max-latency`, ...: judged on the new session;
    /// each failure is a difference.
    pub assertions: Assertions,
}

pub fn diff(d: DiffCommand) -> io::Result<ExitStatus> {
    // diff compares requests: the client's other messages are not kept.
    let limits = Limits {
        sends: false,
        max_requests: d.compare.max_requests,
    };
    let (before, before_findings) = read_capture(&d.before, d.input, limits, Given::Log)?;
    let (after, after_findings) = read_capture(&d.after, d.input, limits, Given::Log)?;
    for (path, capture) in [(&d.before, &before), (&d.after, &after)] {
        if capture.more_sessions {
            crate::say!(
                "mcpdbg diff: {} holds several sessions; comparing the first",
                path.display()
            );
        }
    }
    let comparison = compare(
        &d.compare,
        (&before, &before_findings),
        (&after, &after_findings),
        &BTreeSet::new(),
    );
    let mut labels = Labels {
        kind: "diff",
        before: (d.before.display().to_string(), before.format.as_str()),
        after: (d.after.display().to_string(), after.format.as_str()),
        command: None,
    };
    let mut comparison = comparison;
    if d.compare.redact {
        redact(
            &[(&d.before, d.input), (&d.after, d.input)],
            &mut labels,
            &mut comparison,
        )?;
    }
    write_comparison(&labels, &comparison, &d.compare, &None)
}

pub fn replay(r: ReplayCommand) -> io::Result<ExitStatus> {
    let limits = Limits {
        sends: true,
        max_requests: r.compare.max_requests,
    };
    let (before, before_findings) = read_capture(&r.log, r.input, limits, Given::Log)?;
    let name = r.log.display();
    if let Some((line, why)) = &before.not_replayable {
        crate::say!("mcpdbg replay: {name} cannot be replayed: {why} (line {line})");
        return Ok(ExitStatus::Error);
    }
    if before.sends.is_empty() {
        crate::say!("mcpdbg replay: {name} holds no client message to replay");
        return Ok(ExitStatus::Error);
    }
    if before.more_sessions {
        crate::say!("mcpdbg replay: {name} holds several sessions; replaying the first");
    }
    let out = r.out.clone().unwrap_or_else(|| replay::default_out(&r.log));
    // With --redact nothing the command writes carries the log's strings:
    // the session is recorded to a hidden owner-only file beside OUT,
    // compared, then written to OUT redacted, and the hidden file removed.
    let unredacted = r
        .compare
        .redact
        .then(|| Removed(replay::unredacted_path(&out)));
    let recording = unredacted.as_ref().map_or(out.clone(), |u| u.0.clone());
    if r.compare.redact && out.symlink_metadata().is_ok() {
        crate::say!(
            "mcpdbg replay: cannot create {}: it exists (a transcript is never overwritten)",
            out.display()
        );
        return Ok(ExitStatus::Error);
    }
    let options = replay::Options {
        command: r.command.clone(),
        out: recording.clone(),
        timing: r.timing,
        max_gap: r.max_gap,
        timeout: r.timeout,
        start_timeout: r.start_timeout,
        grace: r.grace,
        stop_on_hang: r.stop_on_hang,
        renumber: r.renumber,
    };
    let replayed = match replay::run(&before, &options) {
        Ok(replayed) => replayed,
        Err(e) => {
            crate::say!("mcpdbg replay: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    if !r.compare.redact {
        for note in &replayed.notes {
            crate::say!("mcpdbg replay: {note}");
        }
        crate::say!("mcpdbg replay: new session written to {}", out.display());
    }
    let (after, mut after_findings) =
        read_capture(&recording, None, limits, Given::Recorded(&r.assertions))?;
    after_findings.retain(|f| !replay_caused(&after, f));
    let mut comparison = compare(
        &r.compare,
        (&before, &before_findings),
        (&after, &after_findings),
        &replayed.timed_out,
    );
    comparison.notes = replayed.differences;
    // A failed assertion is a difference in itself: the contract the new
    // session had to keep.
    comparison.notes.extend(
        after_findings
            .iter()
            .filter(|f| f.rule.needs_assertion())
            .map(|f| {
                format!(
                    "assertion failed at line {}: {}: {}",
                    f.line, f.rule, f.message
                )
            }),
    );
    let shown: Vec<String> = r
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut labels = Labels {
        kind: "replay",
        before: (r.log.display().to_string(), before.format.as_str()),
        after: (out.display().to_string(), after.format.as_str()),
        command: Some(shown.join(" ")),
    };
    if !r.exports.is_empty() {
        // The new session checked as `check OUT` checks it (with --redact,
        // as `check --redact`), less what the replay itself caused.
        let mut options = Options {
            redact: r.compare.redact,
            ..Options::default()
        };
        options.session.assertions = r.assertions.clone();
        let file = File::open(&recording)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", out.display())))?;
        let mut file = pipeline::check(&out.display().to_string(), Box::new(file), &options)?;
        file.findings.retain(|f| !replay_caused(&after, f));
        let report = crate::report::Report { files: vec![file] };
        let output = super::Output {
            assertions: r.assertions.rules(),
            ..super::Output::default()
        };
        super::export(
            &report,
            &r.exports,
            &super::ci_options(&output, &options.filter),
        )?;
    }
    if r.compare.redact {
        // The new transcript is native, whatever LOG was.
        let mut redactor = redact(
            &[(&r.log, r.input), (&recording, None)],
            &mut labels,
            &mut comparison,
        )?;
        replay::write_redacted(&recording, &out, &mut redactor)?;
        drop(unredacted);
        for note in &replayed.notes {
            crate::say!("mcpdbg replay: {}", redactor.apply(note));
        }
        crate::say!(
            "mcpdbg replay: new session written to {} (redacted)",
            out.display()
        );
    }
    write_comparison(&labels, &comparison, &r.compare, &r.output)
}

/// The comparison of two captures, with the findings of `check` on each
/// side counted by rule.
fn compare(
    options: &Compare,
    (before, before_findings): (&Capture, &[Finding]),
    (after, after_findings): (&Capture, &[Finding]),
    late: &BTreeSet<usize>,
) -> Comparison {
    let ignore: Vec<_> = options.ignore.iter().map(|p| Pattern::parse(p)).collect();
    let mut comparison = diff::compare(before, after, &ignore, options.expect, late);
    comparison.findings_before = diff::rule_counts(before_findings);
    comparison.findings_after = diff::rule_counts(after_findings);
    comparison.target = options.target.clone();
    comparison
}

/// `--redact`: every string the logs' messages and stderr carry is
/// remembered (both files, in order, so a string reads the same on both
/// sides), then the comparison's text and values are shown with
/// placeholders. Methods, ids, JSON paths, verdicts, outcomes and the
/// rules' counts are kept; the server command keeps its words but loses
/// secret shapes, as `check --redact` does with text no message carries.
fn redact(
    files: &[(&Path, Option<Format>)],
    labels: &mut Labels,
    comparison: &mut Comparison,
) -> io::Result<Redactor> {
    let mut redactor = Some(Redactor::default());
    for &(path, format) in files {
        let file = File::open(path).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
        })?;
        let mut entries = Entries::open(Box::new(file), format, false)?;
        if let Some(r) = redactor.take() {
            entries.redact(r);
        }
        let read = entries.try_for_each(|entry| entry.map(drop));
        redactor = entries.take_redactor();
        read?;
    }
    let mut r = redactor.unwrap_or_default();
    let changes = |list: &mut Vec<Change>, r: &mut Redactor| {
        for c in list.iter_mut() {
            for v in [&mut c.before, &mut c.after].into_iter().flatten() {
                r.value_at(&c.path, v);
            }
            c.path = r.path(&c.path);
        }
    };
    changes(&mut comparison.handshake, &mut r);
    for l in &mut comparison.lists {
        l.name = r.whole(&l.name);
        changes(&mut l.changes, &mut r);
    }
    for row in &mut comparison.rows {
        if let Some(subject) = &row.subject {
            row.subject = Some(r.whole(subject));
        }
        row.method = r.token(&row.method);
        for side in [&mut row.before, &mut row.after].into_iter().flatten() {
            side.id = r.id(&side.id);
        }
        changes(&mut row.changes, &mut r);
    }
    for note in &mut comparison.notes {
        *note = r.apply(note);
    }
    if let Some(command) = &labels.command {
        labels.command = Some(r.apply(command));
    }
    Ok(r)
}

/// A finding the replay itself caused, not the server: a
/// `cancel-unknown-request` for a recorded cancel whose request the new
/// server had already answered (the cancel was on its way).
fn replay_caused(after: &Capture, f: &Finding) -> bool {
    if f.rule != crate::rules::Rule::CancelUnknownRequest {
        return false;
    }
    let Some(cancel) = after.sends.iter().find(|s| s.line == f.line) else {
        return false;
    };
    let Some(id) = cancel
        .fields()
        .get("params")
        .and_then(|p| p.get("requestId"))
        .and_then(crate::wire::message::RequestId::from_json)
    else {
        return false;
    };
    after
        .requests
        .iter()
        .any(|e| e.id == id && e.line < f.line && e.answer_line.is_some_and(|a| a < f.line))
}

/// Where a capture comes from.
#[derive(Clone, Copy)]
enum Given<'a> {
    /// A log the user named: judged.
    Log,
    /// The session `replay` just recorded: compared whatever it holds (a
    /// server that answered nothing is what the comparison shows), and
    /// judged by the assertions given.
    Recorded(&'a Assertions),
}

/// A capture and its findings. A given log is judged first, as every
/// subcommand judges one (binary data, or no MCP message: refused), so
/// that `replay` refuses it before starting the server.
fn read_capture(
    path: &Path,
    format: Option<Format>,
    limits: Limits,
    given: Given<'_>,
) -> io::Result<(Capture, Vec<Finding>)> {
    let open = || {
        File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display())))
    };
    let mut options = Options {
        format,
        ..Options::default()
    };
    let name = path.display().to_string();
    let report = match given {
        Given::Log => pipeline::input::check_log(&name, Box::new(open()?), &options)?,
        Given::Recorded(assertions) => {
            options.session.assertions = assertions.clone();
            pipeline::check(&name, Box::new(open()?), &options)?
        }
    };
    let capture = capture::read_with(Box::new(open()?), format, limits)?;
    Ok((capture, report.findings))
}

fn write_comparison(
    labels: &Labels,
    comparison: &Comparison,
    compare: &Compare,
    file: &Option<PathBuf>,
) -> io::Result<ExitStatus> {
    // On a terminal the text fits it; a file gets it whole unless --width.
    let width = match file {
        Some(_) => compare.width,
        None => super::width(compare.width, &io::stdout()),
    };
    let mut out = super::writer(file)?;
    match compare.form {
        Form::Table => render::diff::render_fitted(labels, comparison, width, &mut out)?,
        Form::Json => render::diff_json::render(labels, comparison, &mut out)?,
    }
    out.flush()?;
    Ok(if comparison.differences() > 0 {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn capture(text: &'static str) -> Capture {
        capture::read(Box::new(text.as_bytes()), None).expect("a capture")
    }

    /// A cancel that crossed the answer on the wire is the replay's doing;
    /// a cancel of a request still open, or of an id never sent, is not.
    #[test]
    fn only_a_cancel_of_an_answered_request_is_replay_caused() {
        let answered_first = capture(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\
             > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"timed out\"}}\n",
        );
        let f = Finding::new(
            Rule::CancelUnknownRequest,
            3,
            "cancel of an answered request",
        );
        assert!(replay_caused(&answered_first, &f));
        let other = Finding::new(Rule::ResponseAfterCancel, 3, "another rule");
        assert!(!replay_caused(&answered_first, &other));

        let unknown_id = capture(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\
             > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9,\"reason\":\"timed out\"}}\n",
        );
        assert!(!replay_caused(&unknown_id, &f));

        let answered_after = capture(
            "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
             > {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"timed out\"}}\n\
             < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n",
        );
        let at_2 = Finding::new(Rule::CancelUnknownRequest, 2, "cancel before the answer");
        assert!(!replay_caused(&answered_after, &at_2));
    }
}
