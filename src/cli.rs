//! The command line: clap's definitions and value parsers, and the
//! conversion of what was parsed into the library's options. The library
//! never sees clap; `main` only dispatches what this module builds.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{self, Settings};
use crate::values::{
    parse_budget, parse_bytes, parse_rule, parse_seconds, parse_severity, unknown_rule,
};

use mcpdbg::cmd::catalogue::CatalogueFormat;
use mcpdbg::cmd::check::{Check, Input};
use mcpdbg::cmd::diff::{Compare, DiffCommand, ReplayCommand};
use mcpdbg::cmd::mock::MockCommand;
use mcpdbg::cmd::probe::{Baseline, Cost};
use mcpdbg::cmd::stats::StatsCommand;
use mcpdbg::cmd::timeline::{Drawing, Timeline};
use mcpdbg::cmd::validate::ValidateOptions;
use mcpdbg::cmd::{Color, Form, Output};
use mcpdbg::cost::Tokenizer;
use mcpdbg::live::probe::{ProbeEra, ProbeOptions};
use mcpdbg::live::record::RecordOptions;
use mcpdbg::live::replay::Timing;
use mcpdbg::pipeline::{Filter, Options};
use mcpdbg::protocol::Revision;
use mcpdbg::reader::Format;
use mcpdbg::render::OutputFormat;
use mcpdbg::rules::assertions::Assertions;
use mcpdbg::rules::{Rule, Severity};
use mcpdbg::session::Config;
use mcpdbg::views::conversation::EntryKind;
use mcpdbg::views::diff::{Expect, Target};
use mcpdbg::views::timeline;
use mcpdbg::wire::dir::{Dir, Side};

/// A usage error found after parsing, with the whole message to print.
pub struct Usage(pub String);

/// The hint for a server command given without `--` (`mcpdbg record --out
/// s.log python server.py`): clap sees `python` as an unexpected argument.
pub fn server_command_hint(
    error: &clap::Error,
    args: impl Iterator<Item = std::ffi::OsString>,
) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let args: Vec<_> = args.skip(1).collect();
    let sub = args.first()?.to_str()?;
    if !["record", "replay", "probe"].contains(&sub) || args.iter().any(|a| a == "--") {
        return None;
    }
    let found = match (error.kind(), error.get(ContextKind::InvalidArg)) {
        (ErrorKind::UnknownArgument, Some(ContextValue::String(arg))) if !arg.starts_with('-') => {
            arg.clone()
        }
        (ErrorKind::MissingRequiredArgument, _) => "SERVER".to_string(),
        _ => return None,
    };
    Some(format!(
        "hint: the server command goes after `--`, so that its own options are not read as \
         mcpdbg's: mcpdbg {sub} [OPTIONS] -- {found} ARGS..."
    ))
}

/// Debug Model Context Protocol (MCP) sessions over stdio, offline
///
/// mcpdbg reads a captured MCP session (JSON-RPC between a host and a server
/// process), runs it through a session state machine and reports what broke:
/// hangs, reused ids, stray output on stdout, handshake mistakes, version
/// downgrades and malformed messages, each with the line, the side and why it
/// matters.
#[derive(Parser)]
#[command(name = "mcpdbg", version, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Where the settings come from (`check`, `probe`, `timeline`, `validate`).
#[derive(Args)]
pub struct ConfigArgs {
    /// Read settings from this file (`mcpdbg.toml`, or a `pyproject.toml`'s
    /// `[tool.mcpdbg]`) [default: the first `mcpdbg.toml`, `.mcpdbg.toml` or
    /// `pyproject.toml` with `[tool.mcpdbg]` from the working directory
    /// upward]
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Read no configuration file
    #[arg(long)]
    pub no_config: bool,
}

#[derive(Subcommand)]
pub enum Command {
    Check(CheckArgs),
    Validate(ValidateArgs),
    Timeline(TimelineArgs),
    Stats(StatsArgs),
    Record(RecordArgs),
    Diff(DiffArgs),
    Replay(ReplayArgs),
    Mock(MockArgs),
    Rules(RulesArgs),
    Explain(ExplainArgs),
    Probe(ProbeArgs),
}

/// Analyse captured sessions and report rule breaks
///
/// Reads each FILE as one capture (several files are separate sessions,
/// reported together). The format is detected from the first lines:
///
///   native   `[TIMESTAMP] MARKER RAW-LINE`, MARKER one of `>` (client to
///            server), `<` (server to client), `!` (server stderr), `#`
///            (event); also `->`/`<-`, `c2s`/`s2c`, `send`/`recv`, `stderr`
///   ndjson   plain newline-delimited JSON with no markers (a `tee` of the
///            pipe); directions are inferred
///   claude-server, claude-aggregate
///            Claude Desktop's mcp-server-NAME.log and mcp.log
///   vscode   VS Code's MCP output log (log level Debug or Trace)
///   zed, zed-rpc
///            Zed.log at TRACE level; Zed's RPC view copied from the app
///   socat    a `socat -v STDIO EXEC:server` capture (socat's stderr)
///   strace   `strace -f -tt -s 65535 -e trace=read,write` of the server
///   mcpsnoop, inspector
///            mcpsnoop's session log; the MCP Inspector's protocol export
///   jetbrains
///            a JetBrains IDE's mcp/SERVER.log (CLIENT / SERVER lines)
///   gh-aw, gh-aw-server
///            the GitHub Agentic Workflows gateway's mcp-logs/rpc-messages.jsonl
///            (its calls, paired per server in order) and mcp-logs/SERVER.log
///            (the server's stderr and start failures)
///   claude-code, claude-code-debug
///            Claude Code's mcp-logs-SERVER/TS.jsonl (or the 2025 .txt array)
///            and its --debug log: tool events, no JSON-RPC
///   codex    OpenAI Codex CLI's codex-tui.log (servers' stderr, start failures)
///   cursor   Cursor's MCP logs (lifecycle, stderr, stray stdout as parse errors)
///
/// `mcpdbg rules` lists what is checked.
#[derive(Parser)]
#[command(after_long_help = CHECK_EXAMPLES, verbatim_doc_comment)]
pub struct CheckArgs {
    /// Capture files to check; `-` or none reads standard input; a directory is its files
    files: Vec<PathBuf>,

    #[command(flatten)]
    judge: JudgeArgs,

    /// Read the input as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,

    #[command(flatten)]
    rules: RuleArgs,

    #[command(flatten)]
    output: OutputArgs,

    #[command(flatten)]
    report: ReportFileArgs,

    /// Also write the sessions as OpenTelemetry traces (OTLP/JSON, as
    /// `--format otlp-json` writes them) to this file, from the same check
    #[arg(long, value_name = "FILE", visible_alias = "otlp")]
    export_otlp: Option<PathBuf>,

    /// Hide the log's content in the report, to share it in public
    ///
    /// Every string a message carries in params, results and errors, and
    /// every stderr line, is shown as a stable placeholder (`[redacted 3]`:
    /// the same string reads the same everywhere in the report). Methods,
    /// ids, error codes, protocol versions, client and server names and
    /// timestamps are kept. Other text (stray stdout, events) keeps its
    /// words but loses secret shapes: bearer tokens, Authorization values,
    /// API keys, long tokens, e-mail addresses, `password=...`. The analysis
    /// itself runs on the real log.
    #[arg(long)]
    redact: bool,

    /// A three-file `tee` capture: what the client sent (the server's stdin)
    ///
    /// With --server (and optionally --stderr), instead of FILE arguments.
    /// The files have no timestamps, so the order between them is rebuilt
    /// from the ids and rules that need that order are not judged.
    #[arg(long, value_name = "FILE", requires = "server", conflicts_with_all = ["files", "follow"])]
    client: Option<PathBuf>,

    /// A three-file `tee` capture: what the server wrote to stdout
    #[arg(long, value_name = "FILE", requires = "client")]
    server: Option<PathBuf>,

    /// A three-file `tee` capture: what the server wrote to stderr
    #[arg(long = "stderr", value_name = "FILE", requires = "client")]
    stderr_file: Option<PathBuf>,

    /// Check the files named in FILE (`-`: standard input), one per line
    ///
    /// For lists too long for the command line (`find ... | mcpdbg check
    /// --files-from -`): the list is read as the checks go, never whole. A
    /// path that cannot be read is reported (an `error` record in JSON
    /// Lines) and the others are still checked. Empty lines are skipped;
    /// `-` cannot be named in a list.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["files", "follow", "client"])]
    files_from: Option<PathBuf>,

    /// With --files-from: the paths are separated by NUL bytes, not
    /// newlines (`find -print0`, `xargs -0`), so any name can be listed.
    /// It is about the input list only, as `xargs -0`: no output of mcpdbg
    /// is NUL-separated
    #[arg(long, short = '0')]
    null: bool,

    /// Check this many files at once (default: one per core)
    ///
    /// Each file is an independent session, so several files use all cores.
    /// A file checked alone (one file, or standard input among the files)
    /// has its lines read ahead on a second core when there is one; an
    /// explicit `--jobs 1` keeps every file on one thread.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,

    /// Keep reading FILE as it grows and print each finding as it appears
    ///
    /// Like `tail -F`: waits for a FILE that does not exist yet, survives
    /// truncation and rotation (reading the new file from its start). While
    /// requests are open, prints the oldest one (with its tool) and how long
    /// it has waited every few seconds; says when the server ended. Ctrl-C
    /// prints the report.
    #[arg(long, short)]
    follow: bool,

    /// No progress line (it is drawn on stderr, only on a terminal, once a
    /// check has run for a second) and no hints on stderr
    #[arg(long, short)]
    quiet: bool,

    /// Print the settings that apply (the rules, --slow, --fail-on, the
    /// assertions) and where each comes from (the command line, a configuration file, the
    /// default), then exit without reading any input
    #[arg(long)]
    show_settings: bool,

    #[command(flatten)]
    config: ConfigArgs,

    /// Seconds between looks at a followed file
    #[arg(long, hide = true, default_value_t = 0.2, value_parser = parse_seconds)]
    poll_interval: f64,

    /// Seconds between status lines while following
    #[arg(long, hide = true, default_value_t = 5.0, value_parser = parse_seconds)]
    status_interval: f64,
}

/// How a session is judged (`check`, `timeline`, `probe`): the same flags,
/// the same meaning.
#[derive(Args)]
struct JudgeArgs {
    /// Gate the rules on this protocol revision instead of the negotiated one
    ///
    /// One of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (or
    /// `draft`). Useful when the capture starts after the handshake.
    #[arg(long, value_name = "REV", value_parser = parse_revision)]
    revision: Option<Revision>,

    /// Also report what REV deprecates, as if the session moved to it (deprecated-feature)
    ///
    /// Judges a session for readiness: the features the revision REV
    /// deprecates that the session uses are reported besides those its own
    /// revision deprecates, each saying it is the target's. One of the
    /// revisions --revision takes.
    #[arg(long, value_name = "REV", value_parser = parse_revision)]
    target_revision: Option<Revision>,

    /// Report responses slower than this many seconds (needs timestamps)
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_seconds)]
    slow: f64,

    /// Check every message against the official JSON Schema, and every tool call against its listed schema
    ///
    /// Every request and notification is validated against its method's
    /// definition in the schema the specification publishes for the
    /// session's revision (shipped inside mcpdbg), each result against the
    /// definition of the request it answers, each error response against
    /// JSONRPCError, with the JSON Pointer of each violation
    /// (schema-violation). It also lifts the tool-schema checks' work
    /// budget: every `tools/call` is validated however large the log.
    /// Bounded: a message over 65536 JSON values is not checked against the
    /// official schema; at most 100 such messages are reported per session.
    #[arg(long)]
    schema_check: bool,

    /// Do not check tool calls against the schemas the server listed
    ///
    /// By default each `tools/call`'s arguments are validated against the
    /// `inputSchema` of the tool's latest `tools/list` entry
    /// (arguments-violate-input-schema), a successful result's
    /// `structuredContent` against its `outputSchema`
    /// (structured-content-mismatch); calls of tools the latest complete
    /// listing lacks (unlisted-tool-called) and listed schemas that clients
    /// handle inconsistently (unportable-tool-schema) are noted. Bounded: at
    /// most 1024 tools per session; a listed schema over 4096 JSON values or
    /// 32 levels deep, or a value over 16384, is not checked; past a work
    /// budget (2 MiB plus a share of the bytes read) further calls are
    /// counted, not checked, and a note says so (`--schema-check` checks
    /// them all). Example: `mcpdbg check --no-tool-schemas session.log`.
    #[arg(long)]
    no_tool_schemas: bool,

    #[command(flatten)]
    assert: AssertArgs,
}

impl JudgeArgs {
    fn config(&self) -> Config {
        Config {
            revision: self.revision,
            slow_seconds: self.slow,
            schema_check: self.schema_check,
            tool_schemas: !self.no_tool_schemas,
            work: Default::default(),
            target_revision: self.target_revision,
            assertions: self.assert.assertions(),
        }
    }
}

/// The assertions that make a session a test (`check`, `probe`,
/// `timeline` through [`JudgeArgs`], and `replay`): each failure is a
/// finding of its own rule, an error unless `--severity` says otherwise.
#[derive(Args)]
struct AssertArgs {
    /// Assert the session calls this tool, e.g. `--expect-tool search` (repeatable; expected-tool-not-called)
    ///
    /// Judged over every session of the same server in the log (a restarted
    /// server has called it if any of its sessions did); the finding is at
    /// the tools/list answer that listed the tool, else at the session's
    /// end. `probe` calls no tool unasked: name it with --call too.
    #[arg(long = "expect-tool", value_name = "TOOL")]
    expect_tool: Vec<String>,

    /// Assert the session never calls this tool, e.g. `--forbid-tool delete_note` (repeatable; forbidden-tool-called)
    #[arg(long = "forbid-tool", value_name = "TOOL")]
    forbid_tool: Vec<String>,

    /// Assert every request is answered within SECONDS, or NAME's within its own: `2s`, `search=500ms` (repeatable; latency-over-budget)
    ///
    /// `--max-latency 2s` is the budget of every request the client sends;
    /// `--max-latency search=500ms` is the budget of the tool `search`'s
    /// calls, or of a method's requests (`tools/list=1s`, `initialize=10s`),
    /// and wins for them. A handshake sent as the server starts includes
    /// the start: only a budget named for its method judges it. Needs
    /// timestamps; a log without them gets a note that says so.
    #[arg(long = "max-latency", value_name = "[NAME=]SECONDS", value_parser = parse_budget)]
    max_latency: Vec<(Option<String>, f64)>,

    /// Assert every request is answered by the end of the session (request-not-completed)
    ///
    /// The requests still open are those reported as unanswered-request or
    /// cancelled-request (a cancelled one is not completed): one finding
    /// per session names them, at the first.
    #[arg(long)]
    require_complete: bool,

    /// Assert no tools/call result is over BYTES, e.g. `65536`, `64KiB`, `1MB` (result-over-budget)
    ///
    /// The size of the answer's `result` written as compact JSON. KB, MB and
    /// GB are 1,000-byte units; KiB, MiB and GiB 1,024-byte units.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_result_bytes: Option<u64>,
}

impl AssertArgs {
    fn assertions(&self) -> Assertions {
        let mut out = Assertions {
            expect_tools: self.expect_tool.iter().cloned().collect(),
            forbid_tools: self.forbid_tool.iter().cloned().collect(),
            require_complete: self.require_complete,
            max_result_bytes: self.max_result_bytes,
            ..Assertions::default()
        };
        // A later budget for the same name wins.
        for (name, seconds) in &self.max_latency {
            match name {
                Some(name) => {
                    out.latency_for.insert(name.clone(), *seconds);
                }
                None => out.max_latency = Some(*seconds),
            }
        }
        out
    }

    /// The configuration's assertions where the command line gave none.
    fn configure(&mut self, matches: &clap::ArgMatches, settings: &Settings) {
        if let (false, Some(v)) = (given(matches, "expect_tool"), &settings.expect_tool) {
            self.expect_tool.clone_from(v);
        }
        if let (false, Some(v)) = (given(matches, "forbid_tool"), &settings.forbid_tool) {
            self.forbid_tool.clone_from(v);
        }
        if let (false, Some(v)) = (given(matches, "max_latency"), &settings.max_latency) {
            self.max_latency.clone_from(v);
        }
        if let (false, Some(v)) = (
            given(matches, "require_complete"),
            settings.require_complete,
        ) {
            self.require_complete = v;
        }
        if let (false, Some(v)) = (
            given(matches, "max_result_bytes"),
            settings.max_result_bytes,
        ) {
            self.max_result_bytes = Some(v);
        }
    }
}

/// Which rules to report (`check`).
#[derive(Args)]
struct RuleArgs {
    /// Report only these rules (comma-separated names; see `mcpdbg rules`)
    #[arg(long, value_name = "RULE,...", value_delimiter = ',', value_parser = parse_rule)]
    select: Vec<Rule>,

    /// Do not report these rules (comma-separated names)
    #[arg(long, value_name = "RULE,...", value_delimiter = ',', value_parser = parse_rule)]
    ignore: Vec<Rule>,

    /// Change a rule's severity: RULE=error|warning|info|off (repeatable, or comma-separated)
    #[arg(long, value_name = "RULE=LEVEL", value_delimiter = ',', value_parser = parse_severity)]
    severity: Vec<(Rule, Option<Severity>)>,
}

/// How to report (`check`, `validate`).
#[derive(Args)]
struct OutputArgs {
    /// Output format: a table, one line per finding (`concise`:
    /// `path:line: severity rule: message`), one JSON document, JSON Lines
    /// (one record per line, written as each file finishes), SARIF 2.1.0
    /// (code scanning), GitHub Actions annotations, JUnit XML, or (`check`)
    /// OpenTelemetry traces as OTLP/JSON: a trace per session, a span per
    /// request, each finding a span event (docs/output.md)
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Table)]
    format: ReportFormatArg,

    /// Fit the table in this many columns [default: on a terminal, its
    /// width (or COLUMNS); otherwise a fixed layout]
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(20..))]
    width: Option<u16>,

    /// The directory SARIF and GitHub annotation paths are relative to
    /// [default: the working directory]
    #[arg(long, value_name = "DIR")]
    sarif_base: Option<PathBuf>,

    /// Exit with status 1 when a finding at or above this severity exists
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Error)]
    fail_on: FailOn,

    /// When to colour the table output (`auto`: on a terminal, unless NO_COLOR is set)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    color: ColorArg,
}

/// Where the report goes (`check`, `probe`): standard output or `-o FILE`,
/// and other formats beside it from the same run.
#[derive(Args)]
struct ReportFileArgs {
    /// Write the report (in --format) to this file instead of standard
    /// output; the file is replaced when it exists
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    exports: ExportArgs,
}

/// `--export-sarif`, `--export-junit`, `--export-json`: the report in
/// another format, beside the main output (`check`, `probe`, `replay`).
#[derive(Args)]
struct ExportArgs {
    /// Also write the report as SARIF 2.1.0 to this file (replaced when it
    /// exists), from the same run
    #[arg(long, value_name = "FILE")]
    export_sarif: Option<PathBuf>,

    /// Also write the report as JUnit XML to this file, from the same run
    #[arg(long, value_name = "FILE")]
    export_junit: Option<PathBuf>,

    /// Also write the report as one JSON document (the `--format json`
    /// of `check`) to this file, from the same run
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
}

/// A report file (`-o`, `--export-*`) that would overwrite the transcript
/// the same run writes: a usage error, said before the server starts.
fn report_on_transcript(
    command: &str,
    transcript: Option<&PathBuf>,
    reports: impl IntoIterator<Item = PathBuf>,
) -> Result<(), Usage> {
    let Some(transcript) = transcript else {
        return Ok(());
    };
    match reports.into_iter().find(|r| r == transcript) {
        Some(same) => Err(Usage(format!(
            "mcpdbg {command}: {} is both the transcript and a report file; name two files",
            same.display()
        ))),
        None => Ok(()),
    }
}

impl ExportArgs {
    fn exports(&self) -> Vec<(OutputFormat, PathBuf)> {
        [
            (OutputFormat::Sarif, &self.export_sarif),
            (OutputFormat::Junit, &self.export_junit),
            (OutputFormat::Json, &self.export_json),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.clone().map(|p| (format, p)))
        .collect()
    }
}

/// `--width`, for the human views that have no [`OutputArgs`].
#[derive(Args)]
struct WidthArgs {
    /// Fit the output in this many columns [default: on a terminal, its
    /// width (or COLUMNS); otherwise a fixed layout]
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(20..))]
    width: Option<u16>,
}

impl WidthArgs {
    fn get(&self) -> Option<usize> {
        self.width.map(usize::from)
    }
}

const CHECK_EXAMPLES: &str = "\
Examples:
  mcpdbg check session.log
  mcpdbg check --follow /tmp/notes.log     # while `mcpdbg record` writes it
  mcpdbg check --format json a.log b.log | jq '.files[].findings[].rule'
  find logs -name '*.log.gz' -print0 | mcpdbg check -0 --files-from - --format jsonl
  my-wrapper | mcpdbg check -
  mcpdbg check --revision 2025-06-18 --fail-on warning tail.log
  mcpdbg check --redact session.log > report.txt     # to paste in a public issue
  mcpdbg check --format github --export-sarif mcp.sarif --export-junit mcp.xml logs/*.log
  mcpdbg check --format otlp-json session.log > traces.json   # OpenTelemetry traces

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  usage error, a file could not be read, or a file is not a log: binary
     data, or no MCP message in it (said on stderr, with the likely reason),
     or a directory with no file in it; when no file could be checked,
     nothing is printed on stdout";

/// Start a server, talk to it as a host does, record the session and check it
///
/// The conversation: the handshake (see --era); then
/// `tools/list`, `resources/list`, `resources/templates/list` and
/// `prompts/list` where the server declared the capability (every page);
/// `ping` (legacy era); and the tools named with --call, never one unasked. The probe
/// declares no client capabilities: the server's requests for roots,
/// sampling or elicitation get an error response, its ping an answer. The
/// session is recorded as a native transcript and checked as `check` checks
/// a file, reported in any of its formats (-o FILE, --export-*), with its
/// exit status. The transcript is kept only with --transcript FILE; the
/// findings' lines are those of the transcript --transcript would keep.
#[derive(Parser)]
#[command(after_long_help = PROBE_EXAMPLES)]
pub struct ProbeArgs {
    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "SERVER")]
    command: Vec<std::ffi::OsString>,

    /// The era to speak: `legacy` (initialize), `modern` (server/discover,
    /// `_meta` on every request) or `auto` (discover, then initialize when
    /// the server does not know it)
    #[arg(long, value_enum, default_value_t = EraArg::Auto)]
    era: EraArg,

    /// Keep the session's native transcript in this file; created, never
    /// overwritten [default: none is kept (the session is recorded to a
    /// temporary file, removed at the end)]
    #[arg(long, visible_alias = "out", value_name = "FILE")]
    transcript: Option<PathBuf>,

    /// Seconds to wait for each response; a request not answered in time
    /// is reported as a hang
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_seconds)]
    timeout: f64,

    /// Seconds to wait for the answer to `initialize`, which includes the
    /// server's start
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_seconds)]
    start_timeout: f64,

    /// Call this tool (repeatable), after the lists
    #[arg(long = "call", value_name = "TOOL")]
    calls: Vec<String>,

    /// The arguments of a --call, as a JSON object: the first --arguments
    /// goes with the first --call, and so on [default: {}]
    #[arg(long = "arguments", value_name = "JSON")]
    arguments: Vec<String>,

    /// Seconds to wait for the server to exit once its stdin is closed,
    /// before SIGTERM, and again before SIGKILL
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, value_parser = parse_seconds)]
    grace: f64,

    /// Compare the server's tools, resources, resource templates and
    /// prompts with this baseline file and report what changed
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,

    /// Write the --baseline file from this run (atomically) instead of
    /// comparing with it
    #[arg(long, requires = "baseline")]
    update_baseline: bool,

    /// With --baseline: report `tool-list-cost-grew` when the tool list's
    /// definitions cost more than this percent over the baseline's (e.g.
    /// `--cost-growth 5`)
    #[arg(long, value_name = "PERCENT", default_value_t = 10.0, value_parser = crate::values::parse_percent, requires = "baseline")]
    cost_growth: f64,

    /// Report `tool-list-over-budget` when the tool list's definitions cost
    /// more tokens than this (e.g. `--max-tool-list-tokens 4000`; counted
    /// as --tokens says)
    #[arg(long, value_name = "N")]
    max_tool_list_tokens: Option<u64>,

    #[command(flatten)]
    tokens: TokensArgs,

    #[command(flatten)]
    judge: JudgeArgs,

    #[command(flatten)]
    rules: RuleArgs,

    #[command(flatten)]
    config: ConfigArgs,

    #[command(flatten)]
    output: OutputArgs,

    #[command(flatten)]
    report: ReportFileArgs,
}

const PROBE_EXAMPLES: &str = "\
Examples:
  mcpdbg probe -- python server.py
  mcpdbg probe --timeout 5 --call add --arguments '{\"a\":2,\"b\":3}' -- node build/index.js
  mcpdbg probe --format sarif -o results.sarif -- python server.py
  mcpdbg probe --transcript probe.log --export-junit probe.xml -- python server.py
  mcpdbg probe --baseline mcp-baseline.json --update-baseline -- python server.py
  mcpdbg probe --baseline mcp-baseline.json --format github --export-sarif probe.sarif -- python server.py
  mcpdbg probe --baseline mcp-baseline.json --cost-growth 5 --max-tool-list-tokens 4000 -- python server.py

Exit status: as for `check` (0, 1 for findings at or above --fail-on, 2 when
the server cannot be started, the transcript or a report cannot be written,
or the --baseline file is missing or is not a baseline).";

/// Show a session as a conversation, one row per message
///
/// Each row: the line, seconds since the first timestamp, the direction
/// (C->S client to server, S->C server to client, S! server stderr, # event,
/// ? unknown), the id, the method (`result METHOD` or `error CODE METHOD` for
/// a response, with the line of the request it answers and its latency) and
/// a short summary of the payload. The findings of `mcpdbg check` are shown
/// under the rows they point at. Filters combine: a row is shown when it
/// matches every filter given (and any value of a repeated one).
#[derive(Parser)]
#[command(after_long_help = TIMELINE_EXAMPLES, verbatim_doc_comment)]
pub struct TimelineArgs {
    /// The capture to show; `-` or none reads standard input (`-`, a pipe or a FIFO is first
    /// copied to a temporary file: it is read twice); a directory is its files, drawn one
    /// after another
    file: Option<PathBuf>,

    /// Output format: aligned rows, one versioned JSON document, a Mermaid
    /// sequence diagram, or one self-contained HTML page with an SVG
    /// sequence diagram
    #[arg(long, value_enum, default_value_t = TimelineFormat::Table)]
    format: TimelineFormat,

    /// Write the output to this file instead of standard output
    #[arg(long, short, value_name = "FILE", alias = "out")]
    output: Option<PathBuf>,

    /// Only this method (repeatable; `tools/*` matches a prefix); a response
    /// matches by the method of its request
    #[arg(long, value_name = "METHOD")]
    method: Vec<String>,

    /// Only this id, as JSON (`7`, `'"7"'`) or bare text (repeatable)
    #[arg(long, value_name = "ID")]
    id: Vec<String>,

    /// Only this direction (repeatable)
    #[arg(long, value_enum, value_name = "DIR", alias = "direction")]
    dir: Vec<DirArg>,

    /// Only this kind of row (repeatable)
    #[arg(long, value_enum, value_name = "KIND")]
    kind: Vec<KindArg>,

    /// Only lines A to B, inclusive (`A..B`, `A..`, `..B`)
    #[arg(long, value_name = "A..B", value_parser = parse_lines)]
    lines: Option<(u64, u64)>,

    /// Only the rows around the first row at or after LINE
    #[arg(long, value_name = "LINE")]
    around: Option<u64>,

    /// Rows shown on each side of --around (a folded burst of stderr is one row)
    #[arg(long, value_name = "N", default_value_t = 5)]
    context: usize,

    /// Only error responses, results with `isError: true` and rows with an
    /// error finding
    #[arg(long)]
    errors_only: bool,

    /// Print each whole message, pretty-printed, under its row (text format)
    #[arg(long)]
    full: bool,

    /// Read the input as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,

    #[command(flatten)]
    judge: JudgeArgs,

    #[command(flatten)]
    rules: RuleArgs,

    #[command(flatten)]
    config: ConfigArgs,

    /// Show the log's strings as placeholders (see `check --redact`)
    #[arg(long)]
    redact: bool,

    #[command(flatten)]
    width: WidthArgs,
}

const TIMELINE_EXAMPLES: &str = "\
Examples:
  mcpdbg timeline session.log
  mcpdbg timeline --method tools/call --errors-only session.log
  mcpdbg timeline --around 37 --context 3 --full session.log
  mcpdbg timeline --format mermaid --lines 1..40 session.log > diagram.mmd
  mcpdbg timeline --format html --out session.html session.log

Exit status:
  0  the timeline was written
  2  usage error, the file could not be read or the output written, or the
     file is not a log (binary data, or no MCP message in it: said on
     stderr, as check says it)";

/// Numbers per method and per side: counts, errors, latencies, bytes
///
/// For each method (and direction): how often it was sent, how many answers
/// were errors (or results with `isError: true`), how many were never
/// answered, the p50, p95 and largest latency (nearest rank; needs
/// timestamps) and the bytes that crossed the pipe each way for it and its
/// answers. Then the slowest requests (answered or not), what each tool's
/// definition and results cost a model's context (minified JSON bytes and
/// tokens, see --tokens), the stderr volume, and how long each side kept
/// the other waiting. Several files are added up into one set of numbers.
#[derive(Parser)]
#[command(after_long_help = STATS_EXAMPLES)]
pub struct StatsArgs {
    /// Capture files; `-` or none reads standard input; a directory is its files
    files: Vec<PathBuf>,

    /// Output format (`json` is a versioned document)
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,

    /// Read the input as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,

    /// Show the log's strings as placeholders (see `check --redact`)
    #[arg(long)]
    redact: bool,

    #[command(flatten)]
    tokens: TokensArgs,

    #[command(flatten)]
    width: WidthArgs,
}

/// How the tools' context cost counts tokens (`stats`, `probe`).
#[derive(Args)]
struct TokensArgs {
    /// How to count the tokens of tool definitions and results: `estimate`
    /// (4 bytes per token), or exactly with an OpenAI encoding, `o200k_base`
    /// or `cl100k_base` (a build with the `tokenizer` feature; e.g.
    /// `--tokens o200k_base`)
    #[arg(long, value_enum, value_name = "ENCODING", default_value_t = TokensArg::Estimate)]
    tokens: TokensArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum TokensArg {
    Estimate,
    #[value(name = "o200k_base")]
    O200kBase,
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

impl TokensArgs {
    fn tokenizer(&self) -> Tokenizer {
        match self.tokens {
            TokensArg::Estimate => Tokenizer::Estimate,
            TokensArg::O200kBase => Tokenizer::O200kBase,
            TokensArg::Cl100kBase => Tokenizer::Cl100kBase,
        }
    }
}

/// The flag's value naming `tokenizer` (the other way of
/// [`TokensArgs::tokenizer`]).
impl From<Tokenizer> for TokensArg {
    fn from(tokenizer: Tokenizer) -> TokensArg {
        match tokenizer {
            Tokenizer::Estimate => TokensArg::Estimate,
            Tokenizer::O200kBase => TokensArg::O200kBase,
            Tokenizer::Cl100kBase => TokensArg::Cl100kBase,
        }
    }
}

/// Compare two captured sessions: handshake, lists, each request's outcome
///
/// Compares the negotiated version, capabilities and client and server
/// info, the tool, resource and prompt lists (added, removed, changed), and
/// each client request of BEFORE with its match in AFTER (same method, in
/// order, preferring equal params): same outcome, different result (named
/// by JSON path), error now or before, hang reproduced, gone or new, and the
/// latencies. Then the findings of `check` on both.
#[derive(Parser)]
#[command(after_long_help = DIFF_EXAMPLES)]
pub struct DiffArgs {
    /// The earlier (recorded) session
    before: PathBuf,

    /// The later session
    after: PathBuf,

    #[command(flatten)]
    compare: CompareArgs,

    /// Read both inputs as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,
}

/// Options shared by `diff` and `replay`.
#[derive(Args)]
struct CompareArgs {
    /// Do not compare this JSON path (`result.meta.time`, `result.content[*].id`,
    /// `serverInfo.version`); repeatable
    #[arg(long, value_name = "PATH", alias = "ignore")]
    ignore_path: Vec<String>,

    /// What the later session should be: the same, or fixed (the earlier
    /// one's hangs and errors gone, nothing else changed)
    #[arg(long, value_enum, default_value_t = ExpectArg::Same)]
    expect: ExpectArg,

    /// Count only this request in the verdict, by its recorded id, as JSON
    /// (`7`, `'"7"'`) or bare text (repeatable; other rows are shown, not
    /// counted)
    #[arg(long = "id", value_name = "ID")]
    ids: Vec<String>,

    /// Count only this method's requests in the verdict (repeatable;
    /// `tools/*` matches a prefix)
    #[arg(long = "method", value_name = "METHOD")]
    methods: Vec<String>,

    /// Count only the calls of this tool (or the requests about this prompt
    /// or resource) in the verdict (repeatable)
    #[arg(long = "tool", value_name = "NAME")]
    tools: Vec<String>,

    /// Output format (`json` is a versioned document)
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,

    /// Show the logs' strings as placeholders (see `check --redact`); `replay`
    /// also writes its new transcript so
    #[arg(long)]
    redact: bool,

    /// The client requests taken from each log (about 500 bytes each in
    /// memory, more with their params and results); the rest of a session
    /// is counted, not compared, and every output says so
    #[arg(long, value_name = "N", default_value_t = mcpdbg::views::capture::MAX_REQUESTS as u64, value_parser = clap::value_parser!(u64).range(1..))]
    max_requests: u64,

    #[command(flatten)]
    width: WidthArgs,
}

/// Play a captured session's client side against a server and compare
///
/// Starts SERVER and sends the client's recorded requests and notifications
/// in their original order, each once the responses it originally followed
/// have come again (ids as recorded unless --renumber). The server's own
/// requests (roots/list, sampling/createMessage, elicitation/create, ping)
/// get the client's recorded answers, by method and order; one with no
/// recorded answer gets an error response and counts as a difference. The
/// new session is written as a native transcript (--transcript), then
/// compared with LOG as `mcpdbg diff` does; --export-* write the findings
/// of `mcpdbg check` on the new session.
#[derive(Parser)]
#[command(after_long_help = REPLAY_EXAMPLES)]
pub struct ReplayArgs {
    /// The recorded session (any format that carries whole client messages)
    log: PathBuf,

    /// Where to write the new session's transcript; created, never
    /// overwritten [default: .mcpdbg/replays/NAME.replay-TIME.log in LOG's
    /// directory, NAME LOG's file name and TIME the UTC start time, where a
    /// glob of captures such as `logs/*.log` does not find it]
    #[arg(long, visible_alias = "out", value_name = "FILE")]
    transcript: Option<PathBuf>,

    /// Write the comparison (in --format) to this file instead of standard
    /// output; the file is replaced when it exists
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    exports: ExportArgs,

    /// `fast`: each message as soon as allowed; `original`: also keep the
    /// recorded gap since the previous client message (up to --max-gap)
    #[arg(long, value_enum, default_value_t = TimingArg::Fast)]
    timing: TimingArg,

    /// The longest recorded gap kept by --timing original, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_seconds)]
    max_gap: f64,

    /// Seconds to wait for each response [default: twice its recorded
    /// latency, at least 5 s (30 s without timestamps); no limit for requests
    /// never answered in LOG]
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,

    /// Seconds to wait for the answer to the handshake (`initialize` or
    /// `server/discover`), which includes the server's start
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_seconds)]
    start_timeout: f64,

    /// Seconds to wait at the end for requests with no limit
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_seconds)]
    grace: f64,

    /// Stop at the first request that gets no answer in time
    #[arg(long)]
    stop_on_hang: bool,

    /// Send fresh request ids (1, 2, ...) instead of the recorded ones
    #[arg(long)]
    renumber: bool,

    #[command(flatten)]
    compare: CompareArgs,

    /// Read LOG as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,

    #[command(flatten)]
    assert: AssertArgs,

    #[command(flatten)]
    config: ConfigArgs,

    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "SERVER")]
    command: Vec<std::ffi::OsString>,
}

#[derive(Clone, Copy, ValueEnum)]
enum TimingArg {
    Fast,
    Original,
}

const REPLAY_EXAMPLES: &str = "\
Examples:
  mcpdbg replay notes.log -- python notes_server.py
  mcpdbg replay --expect fixed --transcript after-fix.log notes.log -- python notes_server.py
  mcpdbg replay -o replay.txt --export-sarif replay.sarif notes.log -- python notes_server.py
  mcpdbg replay --timing original --stop-on-hang notes.log -- ./server
  mcpdbg replay --ignore-path result.structuredContent.time notes.log -- ./server

Exit status:
  0  the server behaved as recorded (or as --expect fixed says)
  1  it did not
  2  usage error, LOG cannot be read or replayed or is not a log (binary
     data, or no MCP message in it: refused before the server starts), the
     server cannot be started or the new transcript cannot be written";

#[derive(Clone, Copy, ValueEnum)]
enum ExpectArg {
    Same,
    Fixed,
}

const DIFF_EXAMPLES: &str = "\
Examples:
  mcpdbg diff yesterday.log today.log
  mcpdbg diff --ignore-path result.structuredContent.time old.log new.log
  mcpdbg diff --format json old.log new.log | jq '.requests[] | select(.verdict != \"same\")'

Exit status:
  0  the sessions behave the same (or as --expect fixed says)
  1  they differ
  2  usage error, a file could not be read, or a file is not a log (binary
     data, or no MCP message in it: said on stderr, as check says it)";

const STATS_EXAMPLES: &str = "\
Examples:
  mcpdbg stats session.log
  mcpdbg stats --format json ~/.mcp-logs/*.log | jq '.methods[0]'
  mcpdbg stats --format json session.log | jq '.tool_cost.total'

Exit status:
  0  the numbers were written
  2  usage error, a file could not be read, or a file is not a log (binary
     data, or no MCP message in it: said on stderr, as check says it)";

#[derive(Clone, Copy, ValueEnum)]
enum TimelineFormat {
    #[value(alias = "text")]
    Table,
    Json,
    Mermaid,
    Html,
}

#[derive(Clone, Copy, ValueEnum)]
enum DirArg {
    /// client to server
    #[value(alias = "client-to-server")]
    C2s,
    /// server to client
    #[value(alias = "server-to-client")]
    S2c,
    /// the server's stderr
    Stderr,
    /// not known (plain logs) and events
    Unknown,
}

#[derive(Clone, Copy, ValueEnum)]
enum KindArg {
    Request,
    Response,
    Notification,
    Stderr,
    /// events, lines that are no message, findings on lines without one
    Other,
}

/// Run a server and record its stdio session byte for byte
///
/// Use it as the server command in a host's configuration: the host starts
/// `mcpdbg record --transcript FILE -- SERVER ARGS...` (or `--out FILE`) and talks to it as to the
/// server. Bytes are relayed unchanged in both directions; stderr is copied to
/// mcpdbg's own stderr; FILE receives the native transcript (created
/// owner-only), which `mcpdbg check FILE` analyses.
#[derive(Parser)]
#[command(after_long_help = RECORD_EXAMPLES)]
pub struct RecordArgs {
    /// Where to write the transcript; `{time}` and `{pid}` are replaced
    ///
    /// `{time}` becomes the UTC start time (20261129T140311Z) and `{pid}` the
    /// recorder's process id, so one host config line gives a file per session
    /// (when that name is taken, as by a session started in the same second,
    /// -2, -3, ... is added before the extension).
    /// An existing file is never overwritten (see --append) and a symbolic link
    /// is never followed. A missing directory is made (owner-only).
    /// `--out` is the same option.
    #[arg(
        long,
        visible_alias = "out",
        value_name = "FILE",
        required_unless_present = "old_short"
    )]
    transcript: Option<String>,

    /// Deprecated: `-o FILE` is `--transcript FILE` (kept for old host
    /// configurations; says so on stderr)
    #[arg(
        short = 'o',
        value_name = "FILE",
        hide = true,
        conflicts_with = "transcript"
    )]
    old_short: Option<String>,

    /// Add this session to the end of an existing transcript
    #[arg(long)]
    append: bool,

    /// When the session ends, check the recording and print the report to stderr
    #[arg(long)]
    check: bool,

    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "SERVER")]
    command: Vec<std::ffi::OsString>,
}

const RECORD_EXAMPLES: &str = "\
Examples:
  mcpdbg record --transcript /tmp/notes-{time}.log -- python notes_server.py
  mcpdbg record --append --out ~/mcp.log --check -- npx -y @example/server

Exit status:
  the server's exit status (128 + N when it was killed by signal N);
  127 when the server cannot be started. A transcript that cannot be opened
  (it exists, is a symbolic link, or its directory cannot be made) never
  keeps the server from starting: the session runs unrecorded, said on
  stderr.";

/// Check one JSON-RPC message on its own
///
/// Says what the message is (request, notification, response, error, batch),
/// whether it is well formed, and which MCP rules it breaks under a revision
/// (default: the latest released one). One message cannot show id reuse,
/// ordering, or whether a capability was negotiated; the report says what it
/// could not judge. The message is the argument, or standard input with `-`
/// or no argument.
#[derive(Parser)]
#[command(after_long_help = VALIDATE_EXAMPLES)]
pub struct ValidateArgs {
    /// The message (JSON text); `-` or nothing reads standard input
    message: Option<String>,

    /// Judge it under this protocol revision
    #[arg(long, value_name = "REV", value_parser = parse_revision, default_value = Revision::LATEST.as_str())]
    revision: Revision,

    /// Who sent it: c2s (client to server) or s2c (server to client);
    /// inferred from the method when not given
    #[arg(long, value_enum, value_name = "DIR", alias = "direction")]
    dir: Option<DirectionArg>,

    /// For a response: the method of the request it answers (enables result checks)
    #[arg(long, value_name = "METHOD")]
    answers: Option<String>,

    #[command(flatten)]
    output: OutputArgs,

    #[command(flatten)]
    config: ConfigArgs,
}

const VALIDATE_EXAMPLES: &str = "\
Examples:
  mcpdbg validate '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/List\"}'
  mcpdbg validate --revision 2025-06-18 '[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]'
  mcpdbg validate --answers tools/call < response.json

Exit status: as for `check` (0, 1 for findings at or above --fail-on, 2 for usage errors).";

#[derive(Clone, Copy, ValueEnum)]
enum DirectionArg {
    /// client to server
    #[value(alias = "client-to-server")]
    C2s,
    /// server to client
    #[value(alias = "server-to-client")]
    S2c,
}

/// Explain one rule: why it matters, how to fix it, its spec source, an example
#[derive(Parser)]
pub struct ExplainArgs {
    /// The rule's name, as `check` prints it (e.g. `id-reuse`)
    rule: String,

    /// Output format
    #[arg(long, value_enum, default_value_t = ExplainFormat::Table)]
    format: ExplainFormat,

    #[command(flatten)]
    width: WidthArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    #[value(alias = "text")]
    Table,
    Json,
}

/// List every rule with its severity and summary
///
/// The rule name is the id used in every output of `check`.
#[derive(Parser)]
pub struct RulesArgs {
    /// Output format (`markdown` prints the table of docs/rules.md)
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    format: RulesFormat,

    #[command(flatten)]
    width: WidthArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum RulesFormat {
    #[value(alias = "text")]
    Table,
    Json,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    #[value(alias = "text")]
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum EraArg {
    Legacy,
    Modern,
    Auto,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormatArg {
    #[value(alias = "text")]
    Table,
    Concise,
    Json,
    /// Also `json-lines`, ruff's name for it.
    #[value(alias = "json-lines")]
    Jsonl,
    Sarif,
    Github,
    Junit,
    /// OpenTelemetry traces (`check` only).
    OtlpJson,
}

#[derive(Clone, Copy, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum InputArg {
    Native,
    Ndjson,
    ClaudeServer,
    ClaudeAggregate,
    Vscode,
    Zed,
    ZedRpc,
    Socat,
    Strace,
    Mcpsnoop,
    Inspector,
    Jetbrains,
    GhAw,
    GhAwServer,
    ClaudeCode,
    ClaudeCodeDebug,
    Codex,
    Cursor,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

fn parse_revision(s: &str) -> Result<Revision, String> {
    Revision::parse(s).ok_or_else(|| {
        let known: Vec<_> = Revision::ALL.iter().map(|r| r.as_str()).collect();
        format!(
            "unknown revision; expected one of {} or draft",
            known.join(", ")
        )
    })
}

fn parse_lines(s: &str) -> Result<(u64, u64), String> {
    let usage = || "expected A..B, A.. or ..B with line numbers, such as 10..40".to_string();
    let (a, b) = s.split_once("..").ok_or_else(usage)?;
    let bound = |t: &str, default: u64| -> Result<u64, String> {
        if t.is_empty() {
            Ok(default)
        } else {
            t.parse().map_err(|_| usage())
        }
    };
    let (a, b) = (bound(a, 1)?, bound(b, u64::MAX)?);
    if a > b {
        return Err(usage());
    }
    Ok((a, b))
}

impl RuleArgs {
    fn filter(self) -> Filter {
        Filter {
            select: self.select,
            ignore: self.ignore,
            severity: self.severity,
        }
    }
}

impl OutputArgs {
    fn output(&self) -> Output {
        Output {
            format: match self.format {
                ReportFormatArg::Table => OutputFormat::Table,
                ReportFormatArg::Concise => OutputFormat::Concise,
                ReportFormatArg::Json => OutputFormat::Json,
                ReportFormatArg::Jsonl => OutputFormat::Jsonl,
                ReportFormatArg::Sarif => OutputFormat::Sarif,
                ReportFormatArg::Github => OutputFormat::Github,
                ReportFormatArg::Junit => OutputFormat::Junit,
                // The report's formats stay for --export-*; the main
                // output is the traces (`Output::otlp`).
                ReportFormatArg::OtlpJson => OutputFormat::Json,
            },
            otlp: self.format == ReportFormatArg::OtlpJson,
            otlp_file: None,
            color: match self.color {
                ColorArg::Auto => Color::Auto,
                ColorArg::Always => Color::Always,
                ColorArg::Never => Color::Never,
            },
            fail_on: match self.fail_on {
                FailOn::Error => Some(Severity::Error),
                FailOn::Warning => Some(Severity::Warning),
                FailOn::Info => Some(Severity::Info),
                FailOn::Never => None,
            },
            sarif_base: self.sarif_base.clone(),
            baseline: false,
            schema_check: false,
            tool_schemas: true,
            assertions: Vec::new(),
            width: self.width.map(usize::from),
            file: None,
            exports: Vec::new(),
        }
    }
}

impl FormatArg {
    fn form(self) -> Form {
        match self {
            FormatArg::Table => Form::Table,
            FormatArg::Json => Form::Json,
        }
    }
}

impl CompareArgs {
    fn compare(self) -> Compare {
        Compare {
            ignore: self.ignore_path,
            expect: match self.expect {
                ExpectArg::Same => Expect::Same,
                ExpectArg::Fixed => Expect::Fixed,
            },
            target: Target {
                ids: self.ids.iter().map(|i| timeline::parse_id(i)).collect(),
                methods: self.methods,
                tools: self.tools,
            },
            form: self.format.form(),
            redact: self.redact,
            max_requests: usize::try_from(self.max_requests).unwrap_or(usize::MAX),
            width: self.width.get(),
        }
    }
}

fn input_format(input: Option<InputArg>) -> Option<Format> {
    input.map(|i| match i {
        InputArg::Native => Format::Native,
        InputArg::Ndjson => Format::Ndjson,
        InputArg::ClaudeServer => Format::ClaudeServer,
        InputArg::ClaudeAggregate => Format::ClaudeAggregate,
        InputArg::Vscode => Format::VsCode,
        InputArg::Zed => Format::Zed,
        InputArg::ZedRpc => Format::ZedRpc,
        InputArg::Socat => Format::Socat,
        InputArg::Strace => Format::Strace,
        InputArg::Mcpsnoop => Format::Mcpsnoop,
        InputArg::Inspector => Format::Inspector,
        InputArg::Jetbrains => Format::JetBrains,
        InputArg::GhAw => Format::GhAw,
        InputArg::GhAwServer => Format::GhAwServer,
        InputArg::ClaudeCode => Format::ClaudeCode,
        InputArg::ClaudeCodeDebug => Format::ClaudeCodeDebug,
        InputArg::Codex => Format::Codex,
        InputArg::Cursor => Format::Cursor,
    })
}

/// No file, or `-`: standard input.
fn files_or_stdin(files: Vec<PathBuf>) -> Vec<PathBuf> {
    if files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        files
    }
}

impl CheckArgs {
    pub fn into_check(self) -> Result<Check, Usage> {
        if self.null && self.files_from.is_none() {
            return Err(Usage(
                "mcpdbg: -0/--null says how --files-from's list is separated; give --files-from FILE".into(),
            ));
        }
        let files = files_or_stdin(self.files);
        let input = if let (Some(client), Some(server)) = (self.client, self.server) {
            Input::Tee {
                client,
                server,
                stderr: self.stderr_file,
            }
        } else if self.follow {
            let [path] = &files[..] else {
                return Err(Usage("mcpdbg: --follow takes exactly one file".into()));
            };
            if path.as_os_str() == "-" || !matches!(self.output.format, ReportFormatArg::Table) {
                return Err(Usage(
                    "mcpdbg: --follow reads a file (not standard input) and prints a table".into(),
                ));
            }
            Input::Follow {
                path: path.clone(),
                poll: Duration::from_secs_f64(self.poll_interval),
                status_every: Duration::from_secs_f64(self.status_interval),
            }
        } else if let Some(list) = self.files_from {
            Input::FilesFrom {
                list,
                null: self.null,
            }
        } else {
            Input::Files(files)
        };
        if self.output.format == ReportFormatArg::OtlpJson || self.export_otlp.is_some() {
            match &input {
                Input::Files(files) if files.iter().all(|f| f.as_os_str() != "-") => {}
                Input::Files(_) => {
                    return Err(Usage(
                        "mcpdbg: the OpenTelemetry export reads each log twice, and standard input can be read once: save it to a file and name the file".into(),
                    ));
                }
                _ => {
                    return Err(Usage(
                        "mcpdbg: the OpenTelemetry export (--format otlp-json, --export-otlp) reads log files named on the command line, not --follow, --files-from or a tee capture".into(),
                    ));
                }
            }
        }
        Ok(Check {
            input,
            options: Options {
                session: self.judge.config(),
                format: input_format(self.input),
                filter: self.rules.filter(),
                redact: self.redact,
                read_ahead: false,
            },
            output: Output {
                schema_check: self.judge.schema_check,
                tool_schemas: !self.judge.no_tool_schemas,
                assertions: self.judge.assert.assertions().rules(),
                file: self.report.output,
                exports: self.report.exports.exports(),
                otlp_file: self.export_otlp,
                ..self.output.output()
            },
            jobs: self.jobs,
            quiet: self.quiet,
        })
    }
}

impl ValidateArgs {
    pub fn into_validate(self) -> Result<(Option<String>, ValidateOptions, Output), Usage> {
        if self.output.format == ReportFormatArg::OtlpJson {
            return Err(Usage(
                "mcpdbg validate: --format otlp-json is `check`'s: a message alone is no trace"
                    .into(),
            ));
        }
        let options = ValidateOptions {
            revision: self.revision,
            side: self.dir.map(|d| match d {
                DirectionArg::C2s => Side::Client,
                DirectionArg::S2c => Side::Server,
            }),
            answers: self.answers,
        };
        Ok((self.message, options, self.output.output()))
    }
}

impl TimelineArgs {
    pub fn into_timeline(self) -> Result<Timeline, Usage> {
        let options = timeline::Options {
            check: Options {
                session: self.judge.config(),
                format: input_format(self.input),
                filter: self.rules.filter(),
                redact: self.redact,
                read_ahead: false,
            },
            filter: timeline::Filter {
                methods: self.method,
                ids: self.id.iter().map(|s| timeline::parse_id(s)).collect(),
                dirs: self
                    .dir
                    .iter()
                    .map(|d| match d {
                        DirArg::C2s => Dir::ClientToServer,
                        DirArg::S2c => Dir::ServerToClient,
                        DirArg::Stderr => Dir::Stderr,
                        DirArg::Unknown => Dir::Unknown,
                    })
                    .collect(),
                kinds: self
                    .kind
                    .iter()
                    .map(|k| match k {
                        KindArg::Request => EntryKind::Request,
                        KindArg::Response => EntryKind::Response,
                        KindArg::Notification => EntryKind::Notification,
                        KindArg::Stderr => EntryKind::Stderr,
                        KindArg::Other => EntryKind::Other,
                    })
                    .collect(),
                lines: self.lines,
                errors_only: self.errors_only,
            },
            around: self.around.map(|line| (line, self.context)),
            keep_raw: self.full
                || matches!(self.format, TimelineFormat::Html | TimelineFormat::Json),
            // A burst of stderr is one row, but in the JSON and with --full;
            // the HTML page folds it too and keeps its lines to expand.
            fold: match self.format {
                TimelineFormat::Json => None,
                TimelineFormat::Html => Some(mcpdbg::render::html::BURST_LINES),
                TimelineFormat::Table | TimelineFormat::Mermaid if self.full => None,
                TimelineFormat::Table | TimelineFormat::Mermaid => Some(0),
            },
        };
        Ok(Timeline {
            file: self.file.unwrap_or_else(|| PathBuf::from("-")),
            options,
            drawing: match self.format {
                TimelineFormat::Table => Drawing::Text,
                TimelineFormat::Json => Drawing::Json,
                TimelineFormat::Mermaid => Drawing::Mermaid,
                TimelineFormat::Html => Drawing::Html,
            },
            out: self.output,
            full: self.full,
            width: self.width.get(),
        })
    }
}

impl StatsArgs {
    pub fn into_stats(self) -> StatsCommand {
        StatsCommand {
            files: files_or_stdin(self.files),
            form: self.format.form(),
            input: input_format(self.input),
            redact: self.redact,
            width: self.width.get(),
            tokens: self.tokens.tokenizer(),
        }
    }
}

impl RecordArgs {
    /// The recorder's options, and `--check`.
    pub fn into_record(self) -> (RecordOptions, bool) {
        (
            RecordOptions {
                out: match (self.transcript, self.old_short) {
                    (Some(path), _) => path,
                    (None, Some(path)) => {
                        mcpdbg::say!(
                            "mcpdbg record: -o is deprecated; it means --transcript (or --out) here, and the report file elsewhere"
                        );
                        path
                    }
                    (None, None) => String::new(),
                },
                append: self.append,
                command: self.command,
            },
            self.check,
        )
    }
}

impl DiffArgs {
    pub fn into_diff(self) -> DiffCommand {
        DiffCommand {
            before: self.before,
            after: self.after,
            compare: self.compare.compare(),
            input: input_format(self.input),
        }
    }
}

impl ReplayArgs {
    pub fn into_replay(self) -> Result<ReplayCommand, Usage> {
        let exports = self.exports.exports();
        report_on_transcript(
            "replay",
            self.transcript.as_ref(),
            self.output
                .iter()
                .cloned()
                .chain(exports.iter().map(|(_, p)| p.clone())),
        )?;
        Ok(ReplayCommand {
            log: self.log,
            out: self.transcript,
            output: self.output,
            exports,
            command: self.command,
            timing: match self.timing {
                TimingArg::Fast => Timing::Fast,
                TimingArg::Original => Timing::Original,
            },
            max_gap: self.max_gap,
            timeout: self.timeout,
            start_timeout: self.start_timeout,
            grace: self.grace,
            stop_on_hang: self.stop_on_hang,
            renumber: self.renumber,
            compare: self.compare.compare(),
            input: input_format(self.input),
            assertions: self.assert.assertions(),
        })
    }
}

/// What `--format otlp-json` says outside `check`.
const OTLP_IS_CHECKS: &str = "mcpdbg COMMAND: --format otlp-json is `check`'s: keep the transcript (--transcript FILE) and run `mcpdbg check --format otlp-json FILE`";

/// Serve a captured session's server side on stdio, standing in for the server
///
/// Runs as an MCP server: point a host's configuration at `mcpdbg mock
/// LOG` instead of the real server. LOG (any input format that shows the
/// messages) is read and judged as `check` reads it, and one session's
/// server side is served: the live handshake gets the recorded one
/// (`initialize`, or 2026-07-28's `server/discover`), and each request the
/// recorded response of the matching recorded request: the same method
/// and params, `_meta`'s progress token, client info and capabilities and
/// trace context left out; repeats get the recorded answers in order (past
/// the last, the last again); the reply carries the live request's id.
/// What the server sent after a request (progress, list changes, log
/// messages, its own requests) follows in order, progress tokens rewritten
/// to the live ones. A request no recorded one matches is a miss: a
/// JSON-RPC error naming the method and the nearest recorded requests, a
/// line on stderr, and exit status 1 at the end. A request the log never
/// answered gets an error that says so (left unanswered with --faults or
/// --timing recorded); `ping` is answered `{}` when the log has none left.
#[derive(Parser)]
#[command(after_long_help = MOCK_EXAMPLES)]
pub struct MockArgs {
    /// The captured session (a file; standard input is the client's)
    log: PathBuf,

    /// Serve session N of LOG, as `check` numbers them (`--session 2`)
    /// [default: the only one, or the first with a handshake, said on stderr]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    session: Option<u64>,

    /// A miss is an error (the default)
    #[arg(long, overrides_with = "lenient")]
    strict: bool,

    /// Answer a miss with the nearest recorded request's answer (same
    /// method, closest params), said on stderr
    #[arg(long, overrides_with = "strict")]
    lenient: bool,

    /// When to answer (`--timing recorded`)
    #[arg(long, value_enum, default_value_t = MockTiming::Fast)]
    timing: MockTiming,

    /// Reproduce the capture's faults: the stray stdout lines the server
    /// wrote (where it wrote them), requests it never answered left
    /// unanswered, its exit where it crashed (with its status)
    #[arg(long)]
    faults: bool,

    /// Serve a capture that holds mcpdbg's redaction marks (`[redacted 3]`),
    /// which are refused by default: they would be served as data
    #[arg(long)]
    allow_redacted: bool,

    /// Read LOG as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum MockTiming {
    /// At once
    Fast,
    /// After the recorded delays; a request never answered in LOG is never
    /// answered (also `original`, as `replay --timing` says)
    #[value(alias = "original")]
    Recorded,
}

const MOCK_EXAMPLES: &str = "\
Examples:
  mcpdbg mock session.log
  mcpdbg mock --session 2 --lenient notes.log
  mcpdbg mock --faults --timing recorded hang.log

  In a host's configuration (Claude Desktop, VS Code), in place of the server:
    \"notes\": {\"command\": \"mcpdbg\", \"args\": [\"mock\", \"/path/to/session.log\"]}

Exit status:
  0  every live request was answered from the recording
  1  a miss: a request no recorded one matched
  2  usage error, LOG cannot be read, is not a log, is redacted (without
     --allow-redacted), shows only summaries, or holds no such session
  N  with --faults, the recorded server's exit status where it crashed";

impl MockArgs {
    pub fn into_mock(self) -> MockCommand {
        MockCommand {
            log: self.log,
            input: input_format(self.input),
            session: self
                .session
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            timing: match self.timing {
                MockTiming::Fast => mcpdbg::live::mock::Timing::Fast,
                MockTiming::Recorded => mcpdbg::live::mock::Timing::Recorded,
            },
            lenient: self.lenient && !self.strict,
            faults: self.faults,
            allow_redacted: self.allow_redacted,
        }
    }
}

impl ProbeArgs {
    /// The configuration's tool-list cost settings where the command line
    /// gave none.
    fn configure_cost(&mut self, matches: &clap::ArgMatches, settings: &Settings) {
        if let (false, Some(v)) = (given(matches, "cost_growth"), settings.cost_growth) {
            self.cost_growth = v;
        }
        if let (false, Some(v)) = (
            given(matches, "max_tool_list_tokens"),
            settings.max_tool_list_tokens,
        ) {
            self.max_tool_list_tokens = Some(v);
        }
        if let (false, Some(tokens)) = (given(matches, "tokens"), settings.tokens) {
            self.tokens.tokens = tokens.into();
        }
    }

    /// The probe's options, its baseline, its tools' cost, the check of its
    /// transcript, and the report's.
    pub fn into_probe(
        self,
    ) -> Result<(ProbeOptions, Option<Baseline>, Cost, Options, Output), Usage> {
        if self.arguments.len() > self.calls.len() {
            return Err(Usage("mcpdbg probe: more --arguments than --call".into()));
        }
        if self.output.format == ReportFormatArg::OtlpJson {
            return Err(Usage(OTLP_IS_CHECKS.replace("COMMAND", "probe")));
        }
        report_on_transcript(
            "probe",
            self.transcript.as_ref(),
            self.report
                .output
                .iter()
                .cloned()
                .chain(self.report.exports.exports().into_iter().map(|(_, p)| p)),
        )?;
        let mut calls = Vec::new();
        for (i, name) in self.calls.iter().enumerate() {
            let arguments = match self.arguments.get(i) {
                None => serde_json::json!({}),
                Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
                    Ok(v @ serde_json::Value::Object(_)) => v,
                    _ => {
                        return Err(Usage(format!(
                            "mcpdbg probe: --arguments for {name} is not a JSON object: {text}"
                        )));
                    }
                },
            };
            calls.push((name.clone(), arguments));
        }
        let options = ProbeOptions {
            command: self.command,
            era: match self.era {
                EraArg::Legacy => ProbeEra::Legacy,
                EraArg::Modern => ProbeEra::Modern,
                EraArg::Auto => ProbeEra::Auto,
            },
            out: self.transcript,
            timeout: self.timeout,
            start_timeout: self.start_timeout,
            calls,
            grace: self.grace,
        };
        let check = Options {
            session: self.judge.config(),
            filter: self.rules.filter(),
            ..Options::default()
        };
        let baseline = self.baseline.map(|path| Baseline {
            path,
            update: self.update_baseline,
        });
        let cost = Cost {
            tokens: self.tokens.tokenizer(),
            growth: self.cost_growth,
            max_tokens: self.max_tool_list_tokens,
        };
        let output = Output {
            file: self.report.output,
            exports: self.report.exports.exports(),
            schema_check: self.judge.schema_check,
            tool_schemas: !self.judge.no_tool_schemas,
            assertions: self.judge.assert.assertions().rules(),
            ..self.output.output()
        };
        Ok((options, baseline, cost, check, output))
    }
}

impl RulesArgs {
    pub fn format(&self) -> CatalogueFormat {
        match self.format {
            RulesFormat::Table => CatalogueFormat::Table,
            RulesFormat::Json => CatalogueFormat::Json,
            RulesFormat::Markdown => CatalogueFormat::Markdown,
        }
    }

    /// `--width`.
    pub fn width(&self) -> Option<usize> {
        self.width.get()
    }
}

impl ExplainArgs {
    /// The rule, the format and `--width`.
    pub fn into_explain(self) -> Result<(Rule, CatalogueFormat, Option<usize>), Usage> {
        let rule = Rule::from_name(self.rule.trim())
            .ok_or_else(|| Usage(format!("mcpdbg explain: {}", unknown_rule(&self.rule))))?;
        let format = match self.format {
            ExplainFormat::Table => CatalogueFormat::Text,
            ExplainFormat::Json => CatalogueFormat::Json,
        };
        Ok((rule, format, self.width.get()))
    }
}

/// Whether `id` was given on the command line of this subcommand (not a
/// default), so that it wins over the configuration file.
fn given(matches: &clap::ArgMatches, id: &str) -> bool {
    matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
}

impl RuleArgs {
    /// The configuration's rule settings where the command line gave none.
    fn configure(&mut self, matches: &clap::ArgMatches, settings: &Settings) {
        if let (false, Some(v)) = (given(matches, "select"), &settings.select) {
            self.select.clone_from(v);
        }
        if let (false, Some(v)) = (given(matches, "ignore"), &settings.ignore) {
            self.ignore.clone_from(v);
        }
        if let (false, Some(v)) = (given(matches, "severity"), &settings.severity) {
            self.severity.clone_from(v);
        }
    }
}

impl OutputArgs {
    fn configure(&mut self, matches: &clap::ArgMatches, settings: &Settings) {
        if let (false, Some(v)) = (given(matches, "fail_on"), settings.fail_on) {
            self.fail_on = match v {
                config::FailOn::Error => FailOn::Error,
                config::FailOn::Warning => FailOn::Warning,
                config::FailOn::Info => FailOn::Info,
                config::FailOn::Never => FailOn::Never,
            };
        }
    }
}

/// Where this command's settings come from, for the commands that read the
/// configuration file: the ones with rule, `--slow`, `--fail-on` or
/// assertion settings.
/// `record` never does: a host starts it, and a broken file in its working
/// directory must not keep the server from starting.
pub fn config_args(command: &Command) -> Option<&ConfigArgs> {
    match command {
        Command::Check(a) => Some(&a.config),
        Command::Probe(a) => Some(&a.config),
        Command::Validate(a) => Some(&a.config),
        Command::Timeline(a) => Some(&a.config),
        Command::Replay(a) => Some(&a.config),
        _ => None,
    }
}

/// Applies the configuration's settings to `command` where its command line
/// (`matches`, the whole command line's) did not give them.
pub fn configure(command: &mut Command, matches: &clap::ArgMatches, settings: &Settings) {
    let Some((_, sub)) = matches.subcommand() else {
        return;
    };
    let slow = |sub: &clap::ArgMatches, slow: &mut f64| {
        if let (false, Some(v)) = (given(sub, "slow"), settings.slow) {
            *slow = v;
        }
    };
    match command {
        Command::Check(a) => {
            a.rules.configure(sub, settings);
            a.output.configure(sub, settings);
            slow(sub, &mut a.judge.slow);
            a.judge.assert.configure(sub, settings);
        }
        Command::Probe(a) => {
            a.rules.configure(sub, settings);
            a.output.configure(sub, settings);
            slow(sub, &mut a.judge.slow);
            a.judge.assert.configure(sub, settings);
            a.configure_cost(sub, settings);
        }
        Command::Validate(a) => a.output.configure(sub, settings),
        Command::Timeline(a) => {
            a.rules.configure(sub, settings);
            slow(sub, &mut a.judge.slow);
            a.judge.assert.configure(sub, settings);
        }
        Command::Replay(a) => a.assert.configure(sub, settings),
        _ => {}
    }
}

impl CheckArgs {
    /// `--show-settings`: whether it was asked for.
    pub fn show_settings(&self) -> bool {
        self.show_settings
    }

    /// What `--show-settings` prints: each setting, its value and where it
    /// comes from.
    pub fn settings_text(&self, matches: &clap::ArgMatches, loaded: &config::Loaded) -> String {
        let sub = matches.subcommand().map(|(_, m)| m);
        let file = match &loaded.origin {
            config::Origin::File(path) => Some(path.display().to_string()),
            _ => None,
        };
        let from = |id: &str, in_file: bool| -> String {
            if sub.is_some_and(|m| given(m, id)) {
                "command line".into()
            } else if let (true, Some(f)) = (in_file, &file) {
                f.clone()
            } else {
                "default".into()
            }
        };
        let names = |rules: &[Rule], none: &str| -> String {
            if rules.is_empty() {
                none.into()
            } else {
                rules.iter().map(|r| r.name()).collect::<Vec<_>>().join(",")
            }
        };
        let tools = |names: &[String]| -> String {
            if names.is_empty() {
                "(none)".into()
            } else {
                names.join(",")
            }
        };
        let assert = &self.judge.assert;
        let s = &loaded.settings;
        let rows = [
            (
                "select",
                names(&self.rules.select, "(every rule)"),
                from("select", s.select.is_some()),
            ),
            (
                "ignore",
                names(&self.rules.ignore, "(none)"),
                from("ignore", s.ignore.is_some()),
            ),
            (
                "severity",
                if self.rules.severity.is_empty() {
                    "(the catalogue's)".into()
                } else {
                    self.rules
                        .severity
                        .iter()
                        .map(|(r, l)| format!("{}={}", r.name(), l.map_or("off", Severity::as_str)))
                        .collect::<Vec<_>>()
                        .join(",")
                },
                from("severity", s.severity.is_some()),
            ),
            (
                "slow",
                mcpdbg::text::duration(self.judge.slow),
                from("slow", s.slow.is_some()),
            ),
            (
                "fail-on",
                match self.output.fail_on {
                    FailOn::Error => "error",
                    FailOn::Warning => "warning",
                    FailOn::Info => "info",
                    FailOn::Never => "never",
                }
                .into(),
                from("fail_on", s.fail_on.is_some()),
            ),
            (
                "expect-tool",
                tools(assert.expect_tool.as_slice()),
                from("expect_tool", s.expect_tool.is_some()),
            ),
            (
                "forbid-tool",
                tools(assert.forbid_tool.as_slice()),
                from("forbid_tool", s.forbid_tool.is_some()),
            ),
            (
                "max-latency",
                if assert.max_latency.is_empty() {
                    "(none)".into()
                } else {
                    assert
                        .max_latency
                        .iter()
                        .map(|(name, seconds)| match name {
                            Some(name) => format!("{name}={}", mcpdbg::text::duration(*seconds)),
                            None => mcpdbg::text::duration(*seconds),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                from("max_latency", s.max_latency.is_some()),
            ),
            (
                "require-complete",
                if assert.require_complete { "yes" } else { "no" }.into(),
                from("require_complete", s.require_complete.is_some()),
            ),
            (
                "max-result-bytes",
                assert
                    .max_result_bytes
                    .map_or("(none)".into(), |n| format!("{n} bytes")),
                from("max_result_bytes", s.max_result_bytes.is_some()),
            ),
        ];
        let mut out = match &loaded.origin {
            config::Origin::File(path) => format!("configuration: {}\n", path.display()),
            config::Origin::Disabled => "configuration: none (--no-config)\n".to_string(),
            config::Origin::NotFound(dir) => format!(
                "configuration: none (no mcpdbg.toml, .mcpdbg.toml or pyproject.toml with [tool.mcpdbg] from {} upward)\n",
                dir.display()
            ),
        };
        let names = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let widest = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        for (name, value, origin) in rows {
            out.push_str(&format!("{name:<names$} {value:<widest$}  ({origin})\n"));
        }
        out
    }
}
