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

use crate::finding::Finding;
use crate::pipeline;
use crate::reader::Format;
use crate::rules::Severity;
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
}

/// An output format of the timeline.
pub trait Sink {
    fn start(&mut self, prepared: &Prepared) -> io::Result<()>;
    fn row(&mut self, row: Row) -> io::Result<()>;
    /// `shown` is how many rows passed the filters.
    fn end(&mut self, prepared: &Prepared, shown: u64) -> io::Result<()>;
}

/// The `--around` window.
enum Window {
    All,
    Before {
        target: u64,
        context: usize,
        kept: VecDeque<Row>,
    },
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
        },
        None => Window::All,
    };
    let mut shown = 0u64;
    sink.start(&prepared)?;
    let mut emit = |row: Row, window: &mut Window, sink: &mut dyn Sink| -> io::Result<()> {
        if !options.filter.matches(&row) {
            return Ok(());
        }
        match window {
            Window::All => {
                shown += 1;
                sink.row(row)
            }
            Window::Before {
                target,
                context,
                kept,
            } => {
                if row.line < *target {
                    if kept.len() == *context {
                        kept.pop_front();
                    }
                    if *context > 0 {
                        kept.push_back(row);
                    }
                    return Ok(());
                }
                let left = *context;
                for before in kept.drain(..) {
                    shown += 1;
                    sink.row(before)?;
                }
                shown += 1;
                sink.row(row)?;
                *window = if left == 0 {
                    Window::Done
                } else {
                    Window::After { left }
                };
                Ok(())
            }
            Window::After { left } => {
                shown += 1;
                *left -= 1;
                if *left == 0 {
                    *window = Window::Done;
                }
                sink.row(row)
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
            let row = Row {
                line,
                entry: None,
                rel: None,
                findings: list,
            };
            emit(row, &mut window, sink)?;
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
            };
            emit(row, &mut window, sink)?;
            if matches!(window, Window::Done) {
                break 'rows;
            }
        }
    }
    if !matches!(window, Window::Done) {
        for (line, list) in std::mem::take(&mut findings) {
            let row = Row {
                line,
                entry: None,
                rel: None,
                findings: list,
            };
            emit(row, &mut window, sink)?;
        }
    }
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
                (6, "request", vec![]),
                (7, "response", vec![]),
                (8, "request", vec!["unanswered-request"]),
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

    #[test]
    fn ids_on_the_command_line_are_json_or_text() {
        assert_eq!(parse_id("7"), RequestId::Int(7));
        assert_eq!(parse_id("\"7\""), RequestId::Str("7".into()));
        assert_eq!(parse_id("abc"), RequestId::Str("abc".into()));
    }
}
