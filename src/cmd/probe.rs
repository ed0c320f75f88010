//! `mcpdbg probe -- SERVER...`: talk to a server as a host does, record the
//! session, then check it like `check`; with `--baseline`, compare the
//! server's lists with a stored baseline (or write it).
//!
//! Where the findings are, as every output names them (docs/ci.md, "Probe
//! in CI"): the findings of the baseline comparison are on the baseline
//! file, at the line of the item (or of its list); the others are on the
//! transcript, named by its path with `--transcript FILE`, and otherwise by
//! a stand-in that names no file, `<probe: SCRIPT>`, SCRIPT the first
//! word of the server command that names an existing file. Neither depends
//! on the time, so SARIF fingerprints stay the same from run to run.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Output, Removed, emit_with};
use crate::cost::Tokenizer;
use crate::exit::ExitStatus;
use crate::live::probe::{self, ProbeOptions};
use crate::pipeline::{self, Options};
use crate::render::OutputFormat;
use crate::render::ci::{self, Place};
use crate::report::Report;
use crate::rules::baseline::{Kind, Surface};
use crate::views::capture;

/// The tools' context cost: how tokens are counted (`--tokens`), how much
/// the tool list may grow over the baseline's (`--cost-growth PERCENT`) and
/// the most tokens it may cost (`--max-tool-list-tokens N`).
#[derive(Clone, Debug)]
pub struct Cost {
    pub tokens: Tokenizer,
    pub growth: f64,
    pub max_tokens: Option<u64>,
}

impl Default for Cost {
    fn default() -> Cost {
        Cost {
            tokens: Tokenizer::Estimate,
            growth: crate::rules::baseline::COST_GROWTH,
            max_tokens: None,
        }
    }
}

/// `--baseline FILE`, with `--update-baseline`.
#[derive(Clone, Debug)]
pub struct Baseline {
    pub path: PathBuf,
    /// Write the file from this run instead of comparing with it.
    pub update: bool,
}

/// Runs the probe (`options.out` is the transcript to keep) and reports its
/// check and what its tools cost, with the baseline's findings when one is
/// given and the budget's when one is set.
pub fn run(
    options: &ProbeOptions,
    baseline: Option<&Baseline>,
    cost: &Cost,
    check: &Options,
    output: &Output,
) -> io::Result<ExitStatus> {
    if let Err(why) = super::tokenizer(cost.tokens) {
        crate::say!("mcpdbg probe: {why}");
        return Ok(ExitStatus::Error);
    }
    // The baseline is read before the server starts: a missing or broken
    // file is a usage error, not a probe.
    let stored = match baseline {
        Some(b) if !b.update => match read_baseline(&b.path) {
            Ok(surface) => Some(surface),
            Err(e) => {
                crate::say!("mcpdbg probe: {e}");
                return Ok(ExitStatus::Error);
            }
        },
        _ => None,
    };
    // No transcript asked for: a temporary one, removed however this ends.
    let (path, _removed) = match &options.out {
        Some(path) => (path.clone(), None),
        None => {
            let path = probe::temporary_out();
            (path.clone(), Some(Removed(path)))
        }
    };
    let probed = match probe::run(options, &path) {
        Ok(probed) => probed,
        Err(e) => {
            crate::say!("mcpdbg probe: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    for note in &probed.notes {
        crate::say!("mcpdbg probe: {note}");
    }
    let out = &path;
    let kept = options.out.is_some();
    let name = if kept {
        crate::say!("mcpdbg probe: the session is in {}", out.display());
        out.display().to_string()
    } else {
        stand_in(&options.command, output.sarif_base.as_deref())
    };
    let open = || {
        File::open(out)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", out.display())))
    };
    let mut file = pipeline::check(&name, Box::new(open()?), check)?;
    let costs = crate::views::stats::tool_costs(Box::new(open()?), cost.tokens)?;
    let mut output = output.clone();
    let now = match (baseline, cost.max_tokens) {
        (None, None) => None,
        _ => Some(Surface::of(&capture::read(Box::new(open()?), None)?)),
    };
    if let (Some(max), Some(now)) = (cost.max_tokens, &now) {
        let tools = now.list(Kind::Tool);
        match &tools.incomplete {
            Some(why) => crate::say!(
                "mcpdbg probe: the tool list was not held to --max-tool-list-tokens: {why}"
            ),
            None => {
                let t = costs.totals();
                let line = tools.line.unwrap_or(now.handshake_line);
                let over = crate::rules::baseline::over_budget(
                    t.definitions.tokens,
                    max,
                    t.listed,
                    cost.tokens,
                    line,
                );
                file.findings.extend(over.and_then(|f| check.filter.one(f)));
                file.findings.sort_by_key(|f| (f.file.is_some(), f.line));
            }
        }
    }
    file.tool_cost = Some(costs);
    if let (Some(b), Some(now)) = (baseline, now) {
        output.baseline = true;
        let shown = b.path.display().to_string();
        if b.update {
            if let Some(why) = now.incomplete() {
                crate::say!(
                    "mcpdbg probe: the baseline {shown} was not written: {why}; fix the server or raise --timeout"
                );
                return Ok(ExitStatus::Error);
            }
            if let Err(e) = write_atomic(&b.path, now.to_json().as_bytes()) {
                crate::say!("mcpdbg probe: cannot write the baseline {shown}: {e}");
                return Ok(ExitStatus::Error);
            }
            crate::say!(
                "mcpdbg probe: wrote the baseline {shown} ({})",
                now.counts()
            );
        } else if let Some(stored) = &stored {
            let (found, notes) = crate::rules::baseline::compare(stored, &now, &shown, cost.growth);
            for note in notes {
                crate::say!("mcpdbg probe: {note}");
            }
            // On the baseline file: where the item is, else its list.
            let text = fs::read_to_string(&b.path).unwrap_or_default();
            file.findings
                .extend(
                    found
                        .into_iter()
                        .filter_map(|f| check.filter.one(f))
                        .map(|mut f| {
                            f.line = baseline_line(&text, &f);
                            f.related.clear();
                            f.file = Some(shown.clone());
                            f
                        }),
                );
            file.findings.sort_by_key(|f| (f.file.is_some(), f.line));
        }
    }
    let report = Report { files: vec![file] };
    let table = output.format == OutputFormat::Table;
    emit_with(&report, &output, &check.filter, false, &mut |out| {
        if table && !kept {
            writeln!(out, "{NOT_KEPT}")?;
        }
        Ok(())
    })
}

/// What the table says once when no transcript was kept.
pub const NOT_KEPT: &str =
    "the transcript was not kept (--transcript FILE keeps it); the lines are those it would have";

/// The name of a probe's report when no transcript is kept: `<probe:
/// SCRIPT>`, SCRIPT the first argument of the server command (then the
/// program) that names an existing file, relative to `base` (the working
/// directory by default) as CI paths are; when none does, the program's
/// file name and its first argument that is no option. It names no file
/// (so CI formats put no file on it) and holds no time.
pub fn stand_in(command: &[std::ffi::OsString], base: Option<&Path>) -> String {
    let words: Vec<String> = command
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let file = words
        .iter()
        .skip(1)
        .chain(words.first())
        .find(|w| !w.starts_with('-') && Path::new(w.as_str()).is_file());
    let what = match file {
        Some(file) => {
            let options = ci::CiOptions {
                base: base.map(Path::to_path_buf),
                ..ci::CiOptions::default()
            };
            match ci::place(file, options.dirs().as_ref()) {
                Place::Relative(path) => path,
                Place::Absolute(path) => path.display().to_string(),
                Place::Other(name) => name,
            }
        }
        None => {
            let program = words
                .first()
                .map(|p| {
                    Path::new(p)
                        .file_name()
                        .map_or(p.clone(), |n| n.to_string_lossy().into_owned())
                })
                .unwrap_or_default();
            match words.iter().skip(1).find(|w| !w.starts_with('-')) {
                Some(first) => format!("{program} {first}"),
                None => program,
            }
        }
    };
    format!("<probe: {what}>")
}

/// The line of the baseline file a comparison finding is about: the line
/// naming its item (`"name": "add"` at the shallowest depth in the item's
/// list), else the line of the list, else 1; the tool list's cost grown,
/// the line of the recorded cost.
fn baseline_line(text: &str, f: &crate::rules::finding::Finding) -> u64 {
    if f.rule == crate::rules::Rule::ToolListCostGrew {
        // The recorded cost's line.
        let key = format!("\"{}\":", crate::rules::baseline::surface::COST_KEY);
        return text
            .lines()
            .position(|l| l.trim_start().starts_with(&key))
            .map_or(1, |i| i as u64 + 1);
    }
    let Some(kind) = Kind::ALL
        .into_iter()
        .find(|k| f.method.as_deref() == Some(k.method()))
    else {
        return 1;
    };
    let lines: Vec<&str> = text.lines().collect();
    let list_key = format!("\"{}\":", kind.key());
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&list_key))
    else {
        return 1;
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let top = indent(lines[start]);
    let end = lines[start + 1..]
        .iter()
        .position(|l| indent(l) <= top && !l.trim().is_empty())
        .map_or(lines.len(), |i| start + 1 + i);
    // The item's id is the first `...` of the message.
    let id = f.message.split('`').nth(1);
    let item = id.and_then(|id| {
        let member = format!(
            "\"{}\": {}",
            kind.id(),
            serde_json::Value::String(id.to_string())
        );
        lines[start + 1..end]
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim();
                t == member || t.strip_suffix(',') == Some(member.as_str())
            })
            .min_by_key(|(_, l)| indent(l))
            .map(|(i, _)| start + 1 + i)
    });
    item.unwrap_or(start) as u64 + 1
}

fn read_baseline(path: &Path) -> Result<Surface, String> {
    let shown = path.display();
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!(
                "there is no baseline {shown}; write it with --baseline {shown} --update-baseline"
            ));
        }
        Err(e) => return Err(format!("cannot read the baseline {shown}: {e}")),
    };
    Surface::parse(&text).map_err(|e| {
        format!("{shown} is not a baseline: {e}; write it again with --update-baseline")
    })
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path`: a reader sees the old file or the new one, never half of one.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".into());
    let temp = dir.join(format!(".{base}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}
