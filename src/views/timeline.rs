//! `mcpdbg timeline`: the session as a conversation, one row per message.
//!
//! Two passes over one file: [`passes::prepare`] checks it (findings are
//! marked on the rows they point at; requests never answered are known
//! before the first row is drawn), then [`passes::Entries`] streams the rows
//! through the filters to a [`Sink`] (one per output format, in `render/`).
//! Memory follows the open requests and the findings, not the file: only
//! `--around` buffers rows, at most its context.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};

use crate::pipeline;
use crate::reader::Format;
use crate::rules::Severity;
use crate::rules::finding::Finding;
use crate::views::conversation::{Entry, EntryKind};
use crate::views::passes::{self, Entries, Prepared};
use crate::wire::dir::Dir;
use crate::wire::message::RequestId;

/// Which rows to show. Every filter that is set must match.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Methods (a trailing `*` matches a prefix); a response matches by the
    /// method of the request it answers.
    pub methods: Vec<String>,
    /// Ids, compared as exact JSON values.
    pub ids: Vec<RequestId>,
    pub dirs: Vec<Dir>,
    pub kinds: Vec<EntryKind>,
    /// Inclusive line range.
    pub lines: Option<(u64, u64)>,
    /// Only error responses, results with `isError: true` and rows with an
    /// error finding.
    pub errors_only: bool,
}

impl Filter {
    fn matches(&self, row: &Row) -> bool {
        let entry = row.entry.as_ref();
        let method = entry.and_then(|e| e.method.as_deref());
        let kind = entry.map_or(EntryKind::Other, |e| e.kind);
        (self.methods.is_empty()
            || method.is_some_and(|m| self.methods.iter().any(|p| method_matches(p, m))))
            && (self.ids.is_empty()
                || entry
                    .and_then(|e| e.id.as_ref())
                    .is_some_and(|id| self.ids.contains(id)))
            && (self.dirs.is_empty() || entry.is_some_and(|e| self.dirs.contains(&e.dir)))
            && (self.kinds.is_empty() || self.kinds.contains(&kind))
            && self.lines.is_none_or(|(a, b)| (a..=b).contains(&row.line))
            && (!self.errors_only
                || entry.is_some_and(Entry::is_failure)
                || row.findings.iter().any(|f| f.severity == Severity::Error))
    }
}

fn method_matches(pattern: &str, method: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => method.starts_with(prefix),
        None => pattern == method,
    }
}

/// An id as given on the command line: JSON (`7`, `"7"`) or bare text.
pub fn parse_id(text: &str) -> RequestId {
    serde_json::from_str(text)
        .ok()
        .and_then(|v| RequestId::from_json(&v))
        .unwrap_or_else(|| RequestId::Str(text.into()))
}

/// What `timeline` shows.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub check: pipeline::Options,
    pub filter: Filter,
    /// Show only the rows around the first row at or after this line, with
    /// this many rows of context on each side.
    pub around: Option<(u64, usize)>,
    /// Keep the raw text of each message (for `--full` and HTML).
    pub keep_raw: bool,
    /// Fold each burst of stderr into one row, keeping the text of at most
    /// this many of its lines (`None`: a row per line, as `--full` and the
    /// JSON show them).
    pub fold: Option<usize>,
}

/// Stderr lines closer together than this (in seconds, when both have
/// timestamps) belong to one burst.
pub const BURST_GAP: f64 = 1.0;

/// The longest line of a burst kept for the page that expands it, in
/// characters.
const BURST_LINE_CHARS: usize = 1000;

/// Several stderr lines shown as one row: consecutive lines of the server's
/// stderr with no other row between them, each within [`BURST_GAP`] of the
/// one before, none with a finding. The row keeps the first line's entry;
/// memory is bounded by the lines it was asked to keep, whatever the count.
#[derive(Clone, Debug, PartialEq)]
pub struct Burst {
    /// How many lines the row stands for (2 or more).
    pub count: u64,
    /// The line of the last one.
    pub last_line: u64,
    /// The last line that reads like an error (`KeyError: ...`, the line of
    /// a traceback that names the exception), after `line N: ` when it is
    /// not the first; else the first line that says something (a letter or
    /// a digit; else the first that is not blank), on one line: a banner's
    /// first lines are often blank or drawing.
    pub headline: String,
    /// Whether the headline is a line that reads like an error.
    pub error: bool,
    /// The text of the first lines, at most as many as asked (each cut at
    /// [`BURST_LINE_CHARS`] characters).
    pub lines: Vec<String>,
}

impl Burst {
    /// How many lines are not in [`Burst::lines`].
    pub fn left_out(&self) -> u64 {
        self.count.saturating_sub(self.lines.len() as u64)
    }
}

use crate::facts::evidence::looks_like_error;

/// Runs of whitespace as one space, trimmed, and a banner's frame (box
/// drawing and block characters) at either end left out.
fn one_line(text: &str) -> String {
    let frame = |c: char| c.is_whitespace() || ('\u{2500}'..='\u{259f}').contains(&c);
    text.trim_matches(frame)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn says_something(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// Which burst each stderr row belongs to, decided as the rows come, before
/// any filter: a row with no finding whose previous row was a stderr line of
/// the same burst (and close in time) joins it.
#[derive(Default)]
struct Bursts {
    /// The burst the previous row belonged to: its first line, and the time
    /// of the previous row.
    last: Option<(u64, Option<crate::wire::time::Timestamp>)>,
}

impl Bursts {
    /// The line of the first row of `row`'s burst, for a stderr row.
    fn of(&mut self, row: &Row) -> Option<u64> {
        let entry = row.entry.as_ref().filter(|e| {
            e.kind == EntryKind::Stderr && e.batch.is_none() && row.findings.is_empty()
        });
        let Some(entry) = entry else {
            self.last = None;
            return None;
        };
        let start = match self.last.take() {
            Some((start, before)) => {
                let close = match (&before, &entry.time) {
                    (Some(a), Some(b)) => a.seconds_until(b).abs() <= BURST_GAP,
                    _ => true,
                };
                if close { start } else { row.line }
            }
            None => row.line,
        };
        self.last = Some((start, entry.time.clone()));
        Some(start)
    }
}

/// Rows on their way to the sink, a burst held back until it ends.
struct Fold {
    keep: Option<usize>,
    /// The burst being gathered: its first row and what follows it.
    pending: Option<(Row, Burst)>,
}

impl Fold {
    fn push(&mut self, row: Row, sink: &mut dyn Sink) -> io::Result<()> {
        let Some(keep) = self.keep else {
            return sink.row(row);
        };
        if let (Some((first, burst)), Some(start)) = (&mut self.pending, row.burst_of) {
            if first.burst_of == Some(start) {
                burst.count += 1;
                burst.last_line = row.line;
                let text = row.entry.as_ref().map_or("", |e| e.summary.as_str());
                if looks_like_error(text) {
                    burst.headline = format!("line {}: {}", row.line, one_line(text));
                    burst.error = true;
                } else if !burst.error
                    && !says_something(&burst.headline)
                    && (says_something(text) || burst.headline.is_empty())
                {
                    burst.headline = one_line(text);
                }
                if burst.lines.len() < keep {
                    burst.lines.push(cut_line(text));
                }
                return Ok(());
            }
        }
        self.flush(sink)?;
        if row.burst_of.is_some() {
            let text = row.entry.as_ref().map_or("", |e| e.summary.as_str());
            let burst = Burst {
                count: 1,
                last_line: row.line,
                headline: one_line(text),
                error: looks_like_error(text),
                lines: if keep > 0 {
                    vec![cut_line(text)]
                } else {
                    Vec::new()
                },
            };
            self.pending = Some((row, burst));
            return Ok(());
        }
        sink.row(row)
    }

    fn flush(&mut self, sink: &mut dyn Sink) -> io::Result<()> {
        match self.pending.take() {
            Some((mut first, burst)) => {
                if burst.count > 1 {
                    first.burst = Some(burst);
                }
                sink.row(first)
            }
            None => Ok(()),
        }
    }
}

fn cut_line(text: &str) -> String {
    match crate::text::head(text, BURST_LINE_CHARS) {
        Some(head) => format!("{head}…"),
        None => text.to_string(),
    }
}

/// One row as the renderers see it.
#[derive(Clone, Debug)]
pub struct Row {
    pub line: u64,
    /// `None` for a line that holds no message but has findings (a blank
    /// line, a record without a marker).
    pub entry: Option<Entry>,
    /// Seconds since the first timestamp of the log.
    pub rel: Option<f64>,
    /// The findings that point at this line.
    pub findings: Vec<Finding>,
    /// For a stderr line: the line of the first stderr line of its burst
    /// (its own line when it starts one).
    pub burst_of: Option<u64>,
    /// Set when the row stands for a burst of stderr lines (see
    /// [`Options::fold`]).
    pub burst: Option<Burst>,
}

impl Row {
    /// A row for a line that holds no message, only findings.
    fn lone(line: u64, findings: Vec<Finding>) -> Row {
        Row {
            line,
            entry: None,
            rel: None,
            findings,
            burst_of: None,
            burst: None,
        }
    }
}

/// An output format of the timeline.
pub trait Sink {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()>;
    fn row(&mut self, row: Row) -> io::Result<()>;
    /// `shown` is how many rows passed the filters.
    fn end(&mut self, prepared: &Prepared, shown: u64) -> io::Result<()>;
}

/// The `--around` window. It counts rows as they are shown: when bursts are
/// folded, a stderr line that joins the burst of the row before it is part of
/// that row, not a row of its own.
enum Window {
    All,
    Before {
        target: u64,
        context: usize,
        /// The rows before the target, with whether each joins the one
        /// before it; at most `context` + 1 shown rows (the last may be the
        /// start of a burst the target joins).
        kept: VecDeque<(Row, bool)>,
        shown: usize,
    },
    /// After the target: `left` more shown rows; a row that joins the last
    /// one shown is part of it.
    After {
        left: usize,
    },
    Done,
}

/// Runs the timeline of one file. `open` is called once per pass.
/// `Err` only when reading or writing fails.
pub fn run(
    path: &str,
    open: &dyn Fn() -> io::Result<Box<dyn Read>>,
    options: &Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let mut prepared = passes::prepare(path, open()?, &options.check)?;
    // A log with no MCP message is refused as every subcommand refuses it.
    crate::pipeline::input::judge(&prepared.report, options.check.format.is_some())
        .map_err(crate::pipeline::input::Refusal::into_io)?;
    let mut entries = Entries::open(
        open()?,
        Format::from_name(prepared.report.format),
        options.keep_raw,
    )?;
    if let Some(redactor) = prepared.redactor.take() {
        entries.redact(redactor);
    }
    let mut findings: BTreeMap<u64, Vec<Finding>> = BTreeMap::new();
    for f in &prepared.report.findings {
        findings.entry(f.line).or_default().push(f.clone());
    }
    let mut window = match options.around {
        Some((target, context)) => Window::Before {
            target,
            context,
            kept: VecDeque::new(),
            shown: 0,
        },
        None => Window::All,
    };
    let mut shown = 0u64;
    sink.start(&prepared)?;
    let mut bursts = Bursts::default();
    let mut fold = Fold {
        keep: options.fold,
        pending: None,
    };
    // The burst of the last row that passed the filters, to tell a row that
    // joins it (folded into it) from one shown on its own.
    let mut last_burst: Option<u64> = None;
    let folding = options.fold.is_some();
    let mut emit = |mut row: Row,
                    window: &mut Window,
                    fold: &mut Fold,
                    sink: &mut dyn Sink|
     -> io::Result<()> {
        // Bursts are told before the filters: a message filtered out still
        // stands between two stderr lines.
        row.burst_of = bursts.of(&row);
        if !options.filter.matches(&row) {
            return Ok(());
        }
        let joins = folding && row.burst_of.is_some() && row.burst_of == last_burst;
        last_burst = row.burst_of;
        match window {
            Window::All => {
                shown += u64::from(!joins);
                fold.push(row, sink)
            }
            Window::Before {
                target,
                context,
                kept,
                shown: kept_shown,
            } => {
                if row.line < *target {
                    *kept_shown += usize::from(!joins);
                    kept.push_back((row, joins));
                    // Keep `context` shown rows, and one more in case the
                    // target joins the last.
                    while *kept_shown > *context + 1 {
                        kept.pop_front();
                        while kept.front().is_some_and(|(_, joins)| *joins) {
                            kept.pop_front();
                        }
                        *kept_shown -= 1;
                    }
                    return Ok(());
                }
                if !joins && *kept_shown > *context {
                    kept.pop_front();
                    while kept.front().is_some_and(|(_, joins)| *joins) {
                        kept.pop_front();
                    }
                }
                let left = *context;
                for (before, joins) in kept.drain(..) {
                    shown += u64::from(!joins);
                    fold.push(before, sink)?;
                }
                shown += u64::from(!joins);
                fold.push(row, sink)?;
                *window = Window::After { left };
                Ok(())
            }
            Window::After { left } => {
                if !joins {
                    if *left == 0 {
                        *window = Window::Done;
                        return Ok(());
                    }
                    *left -= 1;
                    shown += 1;
                }
                fold.push(row, sink)
            }
            Window::Done => Ok(()),
        }
    };
    let rel = |entry: &Entry| match (&prepared.first_time, &entry.time) {
        (Some(first), Some(t)) => Some(first.seconds_until(t)),
        _ => None,
    };
    let mut entries = entries.peekable();
    'rows: while let Some(entry) = entries.next() {
        // The rows of one line (a batch has several) travel together.
        let mut group = vec![entry?];
        let line = group[0].line;
        while let Some(next) = entries.next_if(|e| e.as_ref().is_ok_and(|e| e.line == line)) {
            group.push(next?);
        }
        // Findings on lines that hold no message come first, as rows of their own.
        while let Some(first) = findings.first_entry() {
            if *first.key() >= line {
                break;
            }
            let (line, list) = first.remove_entry();
            emit(Row::lone(line, list), &mut window, &mut fold, sink)?;
        }
        // A finding goes to the row with its id, else to the line's first row.
        let mut marked: Vec<Vec<Finding>> = vec![Vec::new(); group.len()];
        for f in findings.remove(&line).unwrap_or_default() {
            let by_id = f.id.as_ref().and_then(|id| {
                let mut rows = group
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.id.as_ref() == Some(id));
                let (i, _) = rows.next()?;
                rows.next().is_none().then_some(i)
            });
            marked[by_id.unwrap_or(0)].push(f);
        }
        for (entry, marked) in group.into_iter().zip(marked) {
            let row = Row {
                line,
                rel: rel(&entry),
                entry: Some(entry),
                findings: marked,
                burst_of: None,
                burst: None,
            };
            emit(row, &mut window, &mut fold, sink)?;
            if matches!(window, Window::Done) {
                break 'rows;
            }
        }
    }
    if !matches!(window, Window::Done) {
        for (line, list) in std::mem::take(&mut findings) {
            emit(Row::lone(line, list), &mut window, &mut fold, sink)?;
        }
    }
    fold.flush(sink)?;
    sink.end(&prepared, shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that keeps `(line, kind, finding rules)` per row.
    #[derive(Default)]
    struct Keep(Vec<(u64, &'static str, Vec<&'static str>)>);

    impl Sink for Keep {
        fn start(&mut self, _: &Prepared) -> io::Result<()> {
            Ok(())
        }
        fn row(&mut self, row: Row) -> io::Result<()> {
            self.0.push((
                row.line,
                row.entry.map_or("-", |e| e.kind.as_str()),
                row.findings.iter().map(|f| f.rule.name()).collect(),
            ));
            Ok(())
        }
        fn end(&mut self, _: &Prepared, _: u64) -> io::Result<()> {
            Ok(())
        }
    }

    const LOG: &str = "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\
\n\
< \n\
! warming up\n\
> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
< {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n\
> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"y\"}}\n";

    fn rows(options: &Options) -> Vec<(u64, &'static str, Vec<&'static str>)> {
        let mut keep = Keep::default();
        let open = || -> io::Result<Box<dyn Read>> {
            Ok(Box::new(io::Cursor::new(LOG.as_bytes().to_vec())))
        };
        run("t", &open, options, &mut keep).expect("in memory");
        keep.0
    }

    #[test]
    fn findings_are_marked_on_their_rows() {
        let all = rows(&Options::default());
        assert_eq!(
            all,
            vec![
                (1, "request", vec!["starts-mid-session"]),
                (2, "response", vec![]),
                (3, "-", vec!["malformed-record"]),
                (4, "-", vec!["blank-line"]),
                (5, "stderr", vec![]),
                // The listing at line 2 has no tools: both calls are of
                // tools it lacks.
                (6, "request", vec!["unlisted-tool-called"]),
                (7, "response", vec![]),
                (
                    8,
                    "request",
                    vec!["unlisted-tool-called", "unanswered-request"]
                ),
            ]
        );
    }

    #[test]
    fn filters_and_windows() {
        let only = |filter: Filter| -> Vec<u64> {
            rows(&Options {
                filter,
                ..Options::default()
            })
            .into_iter()
            .map(|r| r.0)
            .collect()
        };
        let methods = vec!["tools/c*".to_string()];
        assert_eq!(
            only(Filter {
                methods,
                ..Filter::default()
            }),
            vec![6, 7, 8]
        );
        let ids = vec![parse_id("2")];
        assert_eq!(
            only(Filter {
                ids,
                ..Filter::default()
            }),
            vec![6, 7]
        );
        assert_eq!(
            only(Filter {
                ids: vec![parse_id("\"2\"")],
                ..Filter::default()
            }),
            Vec::<u64>::new()
        );
        let kinds = vec![EntryKind::Stderr, EntryKind::Other];
        assert_eq!(
            only(Filter {
                kinds,
                ..Filter::default()
            }),
            vec![3, 4, 5]
        );
        let dirs = vec![Dir::ServerToClient];
        assert_eq!(
            only(Filter {
                dirs,
                ..Filter::default()
            }),
            vec![2, 7]
        );
        assert_eq!(
            only(Filter {
                lines: Some((2, 4)),
                ..Filter::default()
            }),
            vec![2, 3, 4]
        );
        assert_eq!(
            only(Filter {
                errors_only: true,
                ..Filter::default()
            }),
            vec![7, 8]
        );
        let around = |line, context| -> Vec<u64> {
            rows(&Options {
                around: Some((line, context)),
                ..Options::default()
            })
            .into_iter()
            .map(|r| r.0)
            .collect()
        };
        assert_eq!(around(5, 1), vec![4, 5, 6]);
        assert_eq!(around(1, 2), vec![1, 2, 3]);
        assert_eq!(around(8, 0), vec![8]);
        assert_eq!(around(99, 3), Vec::<u64>::new());
    }

    /// Keeps `(line, burst count, burst's last line, kept lines, headline)`
    /// per row: a row that is no burst has a count of 1.
    #[derive(Default)]
    struct Folded(Vec<(u64, u64, u64, usize, String)>);

    impl Sink for Folded {
        fn start(&mut self, _: &Prepared) -> io::Result<()> {
            Ok(())
        }
        fn row(&mut self, row: Row) -> io::Result<()> {
            self.0.push(match &row.burst {
                Some(b) => (
                    row.line,
                    b.count,
                    b.last_line,
                    b.lines.len(),
                    b.headline.clone(),
                ),
                None => (row.line, 1, row.line, 0, String::new()),
            });
            Ok(())
        }
        fn end(&mut self, _: &Prepared, _: u64) -> io::Result<()> {
            Ok(())
        }
    }

    fn folded(log: &str, options: &Options) -> Vec<(u64, u64, u64, usize, String)> {
        let mut sink = Folded::default();
        let log = log.as_bytes().to_vec();
        let open = || -> io::Result<Box<dyn Read>> { Ok(Box::new(io::Cursor::new(log.clone()))) };
        run("t", &open, options, &mut sink).expect("in memory");
        sink.0
    }

    /// Written from the lines of the log: the banner (lines 2-5) is one
    /// burst with its first line that says something; the line a second
    /// and a half later (6) starts another, which the request (8) ends;
    /// line 9 is a burst of one.
    const BANNER: &str = "2026-01-01T00:00:00.000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
2026-01-01T00:00:00.100Z ! \n\
2026-01-01T00:00:00.100Z ! \u{256d}\u{2500}\u{2500}\u{256e}\n\
2026-01-01T00:00:00.200Z ! \u{2502}   Demo   server 1.0   \u{2502}\n\
2026-01-01T00:00:01.100Z ! INFO ready\n\
2026-01-01T00:00:02.600Z ! INFO late\n\
2026-01-01T00:00:02.700Z ! INFO later\n\
2026-01-01T00:00:02.800Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n\
2026-01-01T00:00:02.900Z ! INFO alone\n";

    #[test]
    fn a_burst_of_stderr_is_one_row() {
        let fold = |keep| Options {
            fold: Some(keep),
            ..Options::default()
        };
        let rows = folded(BANNER, &fold(0));
        let shape: Vec<_> = rows.iter().map(|r| (r.0, r.1, r.2)).collect();
        assert_eq!(
            shape,
            vec![(1, 1, 1), (2, 4, 5), (6, 2, 7), (8, 1, 8), (9, 1, 9)]
        );
        assert_eq!(rows[1].4, "Demo server 1.0");
        assert_eq!(rows[2].4, "INFO late");
        // The page's lines: at most as many as asked.
        let rows = folded(BANNER, &fold(3));
        assert_eq!((rows[1].1, rows[1].3), (4, 3));
        assert_eq!((rows[2].1, rows[2].3), (2, 2));
        // Not folded: a row per line.
        let lines: Vec<u64> = folded(BANNER, &Options::default())
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(lines, (1..=9).collect::<Vec<_>>());
        // A filtered-out message still ends a burst; --lines cuts one.
        let only_stderr = Options {
            fold: Some(0),
            filter: Filter {
                kinds: vec![EntryKind::Stderr],
                ..Filter::default()
            },
            ..Options::default()
        };
        let shape: Vec<_> = folded(BANNER, &only_stderr)
            .iter()
            .map(|r| (r.0, r.1))
            .collect();
        assert_eq!(shape, vec![(2, 4), (6, 2), (9, 1)]);
        let cut = Options {
            fold: Some(0),
            filter: Filter {
                lines: Some((4, 6)),
                ..Filter::default()
            },
            ..Options::default()
        };
        let shape: Vec<_> = folded(BANNER, &cut).iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(shape, vec![(4, 2), (6, 1)]);
    }

    #[test]
    fn a_burst_is_headed_by_its_error_line() {
        // A Python traceback: the line naming the exception heads the row,
        // not the `Traceback` header; a burst without one keeps its first line.
        let log = "! INFO Processing request\n! Traceback (most recent call last):\n!   File \"server.py\", line 9, in lookup\n!     raise KeyError(name)\n! KeyError: 'missing'\n! INFO shutting down\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n! INFO a\n! INFO b\n";
        let fold = Options {
            fold: Some(0),
            ..Options::default()
        };
        let rows = folded(log, &fold);
        assert_eq!(rows[0].4, "line 5: KeyError: 'missing'");
        assert_eq!(rows[2].4, "INFO a");
    }

    #[test]
    fn a_stderr_line_with_a_finding_stands_alone_and_plain_logs_fold() {
        // Without timestamps, consecutive stderr lines fold whatever their
        // times; LOG's line 5 has no neighbour on stderr.
        let log = "! a one\n! b two\n! c three\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n! d four\n";
        let fold = Options {
            fold: Some(1),
            ..Options::default()
        };
        let shape: Vec<_> = folded(log, &fold).iter().map(|r| (r.0, r.1, r.3)).collect();
        assert_eq!(shape, vec![(1, 3, 1), (4, 1, 0), (5, 1, 0)]);
        let shape: Vec<_> = folded(LOG, &fold).iter().map(|r| (r.0, r.1)).collect();
        assert!(shape.iter().all(|r| r.1 == 1), "{shape:?}");
        // A finding on a stderr line ends the burst before it: the row with
        // the finding is shown on its own, and the next line starts anew.
        let mut bursts = Bursts::default();
        let stderr_row = |line: u64, findings: Vec<Finding>| Row {
            line,
            entry: Some(Entry {
                line,
                time: None,
                dir: Dir::Stderr,
                kind: EntryKind::Stderr,
                other: None,
                id: None,
                method: None,
                subject: None,
                error: None,
                is_error_result: false,
                shutdown: false,
                answers: None,
                summary: "x".into(),
                batch: None,
                bytes: 0,
                raw: None,
                cost: None,
                owed: [0; 2],
                session: 0,
                awaited: false,
                traceparent: None,
            }),
            rel: None,
            findings,
            burst_of: None,
            burst: None,
        };
        let finding = Finding::new(crate::rules::Rule::StrayOutput, 2, "m".to_string());
        assert_eq!(bursts.of(&stderr_row(1, vec![])), Some(1));
        assert_eq!(bursts.of(&stderr_row(2, vec![finding])), None);
        assert_eq!(bursts.of(&stderr_row(3, vec![])), Some(3));
        assert_eq!(bursts.of(&stderr_row(4, vec![])), Some(3));
    }

    /// A burst of a hundred thousand lines is one row that keeps only the
    /// lines it was asked for.
    #[test]
    fn a_long_burst_keeps_its_count_not_its_lines() {
        let mut log = String::from("> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        for n in 0..100_000 {
            log.push_str(&format!("! line {n}\n"));
        }
        let rows = folded(
            &log,
            &Options {
                fold: Some(5),
                ..Options::default()
            },
        );
        assert_eq!(
            rows,
            vec![
                (1, 1, 1, 0, String::new()),
                (2, 100_000, 100_001, 5, "line 0".to_string())
            ]
        );
    }

    #[test]
    fn ids_on_the_command_line_are_json_or_text() {
        assert_eq!(parse_id("7"), RequestId::Int(7));
        assert_eq!(parse_id("\"7\""), RequestId::Str("7".into()));
        assert_eq!(parse_id("abc"), RequestId::Str("abc".into()));
    }
}
