//! The command-line adapter: parse arguments, call the library, map the
//! outcome to an exit code. No analysis happens here.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use mcpdbg::cmd::validate::{self, ValidateOptions};
use mcpdbg::live::progress::{Counted, Counter};
use mcpdbg::pipeline::{self, Filter, Options};
use mcpdbg::protocol::Revision;
use mcpdbg::reader::Format;
use mcpdbg::render::ci::CiOptions;
use mcpdbg::render::{self, OutputFormat, Style};
use mcpdbg::report::Report;
use mcpdbg::rules::{Rule, Severity};
use mcpdbg::session::Config;
use mcpdbg::views::conversation::EntryKind;
use mcpdbg::views::timeline;
use mcpdbg::wire::dir::Dir;
use mcpdbg::wire::dir::Side;

/// Debug Model Context Protocol (MCP) sessions over stdio, offline
///
/// mcpdbg reads a captured MCP session (JSON-RPC between a host and a server
/// process), runs it through a session state machine and reports what broke:
/// hangs, reused ids, stray output on stdout, handshake mistakes, version
/// downgrades and malformed messages, each with the line, the side and why it
/// matters.
#[derive(Parser)]
#[command(name = "mcpdbg", version, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(CheckArgs),
    Validate(ValidateArgs),
    Timeline(TimelineArgs),
    Stats(StatsArgs),
    Record(RecordArgs),
    Diff(DiffArgs),
    Replay(ReplayArgs),
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
///
/// `mcpdbg rules` lists what is checked.
#[derive(Parser)]
#[command(after_long_help = CHECK_EXAMPLES, verbatim_doc_comment)]
struct CheckArgs {
    /// Capture files to check; `-` or none reads standard input
    files: Vec<PathBuf>,

    /// Gate the rules on this protocol revision instead of the negotiated one
    ///
    /// One of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (or
    /// `draft`). Useful when the capture starts after the handshake.
    #[arg(long, value_name = "REV", value_parser = parse_revision)]
    revision: Option<Revision>,

    /// Report responses slower than this many seconds (needs timestamps)
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_seconds)]
    slow: f64,

    /// Read the input as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    input: Option<InputArg>,

    #[command(flatten)]
    rules: RuleArgs,

    #[command(flatten)]
    output: OutputArgs,

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

    /// Check this many files at once (default: one per core)
    ///
    /// Each file is an independent session, so several files use all cores.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,

    /// Keep reading FILE as it grows and print each finding as it appears
    ///
    /// Like `tail -f`: survives truncation and rotation (reading the new file
    /// from its start). While requests are open, prints the oldest one and
    /// how long it has waited every few seconds. Ctrl-C prints the report.
    #[arg(long, short)]
    follow: bool,

    /// No progress line (it is drawn on stderr, only on a terminal, once a
    /// check has run for a second) and no hints on stderr
    #[arg(long, short)]
    quiet: bool,

    /// Seconds between looks at a followed file
    #[arg(long, hide = true, default_value_t = 0.2, value_parser = parse_seconds)]
    poll_interval: f64,

    /// Seconds between status lines while following
    #[arg(long, hide = true, default_value_t = 5.0, value_parser = parse_seconds)]
    status_interval: f64,
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
    /// Output format: a table, one JSON document, SARIF 2.1.0 (code
    /// scanning), GitHub Actions annotations or JUnit XML
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Table)]
    format: ReportFormatArg,

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

const CHECK_EXAMPLES: &str = "\
Examples:
  mcpdbg check session.log
  mcpdbg check --follow /tmp/notes.log     # while `mcpdbg record` writes it
  mcpdbg check --format json a.log b.log | jq '.files[].findings[].rule'
  my-wrapper | mcpdbg check -
  mcpdbg check --revision 2025-06-18 --fail-on warning tail.log
  mcpdbg check --redact session.log > report.txt     # to paste in a public issue

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  usage error, or a file could not be read";

/// Start a server, talk to it as a host does, record the session and check it
///
/// The conversation: the handshake (see --era); then
/// `tools/list`, `resources/list`, `resources/templates/list` and
/// `prompts/list` where the server declared the capability (every page);
/// `ping` (legacy era); and the tools named with --call, never one unasked. The probe
/// declares no client capabilities: the server's requests for roots,
/// sampling or elicitation get an error response, its ping an answer. The
/// session is written as a native transcript (--out) and checked as `check`
/// checks a file, reported in any of its formats, with its exit status.
#[derive(Parser)]
#[command(after_long_help = PROBE_EXAMPLES)]
struct ProbeArgs {
    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "SERVER")]
    command: Vec<std::ffi::OsString>,

    /// The era to speak: `legacy` (initialize), `modern` (server/discover,
    /// `_meta` on every request) or `auto` (discover, then initialize when
    /// the server does not know it)
    #[arg(long, value_enum, default_value_t = EraArg::Auto)]
    era: EraArg,

    /// Where to write the transcript; created, never overwritten
    /// [default: probe-TIME.log, TIME the UTC start time]
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

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

    #[command(flatten)]
    rules: RuleArgs,

    #[command(flatten)]
    output: OutputArgs,
}

const PROBE_EXAMPLES: &str = "\
Examples:
  mcpdbg probe -- python server.py
  mcpdbg probe --timeout 5 --call add --arguments '{\"a\":2,\"b\":3}' -- node build/index.js
  mcpdbg probe --format sarif --out probe.log -- python server.py > results.sarif

Exit status: as for `check` (0, 1 for findings at or above --fail-on, 2 when
the server cannot be started or the transcript cannot be written).";

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
struct TimelineArgs {
    /// The capture to show (a file: it is read twice)
    file: PathBuf,

    /// Output format: text rows, a Mermaid sequence diagram, or one
    /// self-contained HTML page with an SVG sequence diagram
    #[arg(long, value_enum, default_value_t = TimelineFormat::Text)]
    format: TimelineFormat,

    /// Write to this file instead of standard output
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Only this method (repeatable; `tools/*` matches a prefix); a response
    /// matches by the method of its request
    #[arg(long, value_name = "METHOD")]
    method: Vec<String>,

    /// Only this id, as JSON (`7`, `'"7"'`) or bare text (repeatable)
    #[arg(long, value_name = "ID")]
    id: Vec<String>,

    /// Only this direction (repeatable)
    #[arg(long, value_enum, value_name = "DIR")]
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

    /// Rows shown on each side of --around
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

    /// Gate the rules on this protocol revision (see `check --revision`)
    #[arg(long, value_name = "REV", value_parser = parse_revision)]
    revision: Option<Revision>,

    /// Report responses slower than this many seconds (see `check --slow`)
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_seconds)]
    slow: f64,

    /// Show the log's strings as placeholders (see `check --redact`)
    #[arg(long)]
    redact: bool,
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
  2  usage error, or the file could not be read or the output written";

/// Numbers per method and per side: counts, errors, latencies, bytes
///
/// For each method (and direction): how often it was sent, how many answers
/// were errors (or results with `isError: true`), how many were never
/// answered, the p50, p95 and largest latency (nearest rank; needs
/// timestamps) and the bytes that crossed the pipe each way for it and its
/// answers. Then the slowest requests (answered or not), the stderr volume,
/// and how long each side kept the other waiting. Several files are added
/// up into one set of numbers.
#[derive(Parser)]
#[command(after_long_help = STATS_EXAMPLES)]
struct StatsArgs {
    /// Capture files; `-` or none reads standard input
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
struct DiffArgs {
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
    #[arg(long, value_name = "PATH")]
    ignore: Vec<String>,

    /// What the later session should be: the same, or fixed (the earlier
    /// one's hangs and errors gone, nothing else changed)
    #[arg(long, value_enum, default_value_t = ExpectArg::Same)]
    expect: ExpectArg,

    /// Output format (`json` is a versioned document)
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
}

/// Play a captured session's client side against a server and compare
///
/// Starts SERVER and sends the client's recorded requests and notifications
/// in their original order, each once the responses it originally followed
/// have come again (ids as recorded unless --renumber). The server's own
/// requests (roots/list, sampling/createMessage, elicitation/create, ping)
/// get the client's recorded answers, by method and order; one with no
/// recorded answer gets an error response and counts as a difference. The
/// new session is written as a native transcript (--out), then compared
/// with LOG as `mcpdbg diff` does.
#[derive(Parser)]
#[command(after_long_help = REPLAY_EXAMPLES)]
struct ReplayArgs {
    /// The recorded session (any format that carries whole client messages)
    log: PathBuf,

    /// Where to write the new session; created, never overwritten
    /// [default: LOG.replay-TIME.log, TIME the UTC start time]
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

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
  mcpdbg replay --expect fixed --out after-fix.log notes.log -- python notes_server.py
  mcpdbg replay --timing original --stop-on-hang notes.log -- ./server
  mcpdbg replay --ignore result.structuredContent.time notes.log -- ./server

Exit status:
  0  the server behaved as recorded (or as --expect fixed says)
  1  it did not
  2  usage error, LOG cannot be read or replayed, the server cannot be
     started or the new transcript cannot be written";

#[derive(Clone, Copy, ValueEnum)]
enum ExpectArg {
    Same,
    Fixed,
}

const DIFF_EXAMPLES: &str = "\
Examples:
  mcpdbg diff yesterday.log today.log
  mcpdbg diff --ignore result.structuredContent.time old.log new.log
  mcpdbg diff --format json old.log new.log | jq '.requests[] | select(.verdict != \"same\")'

Exit status:
  0  the sessions behave the same (or as --expect fixed says)
  1  they differ
  2  usage error, or a file could not be read";

const STATS_EXAMPLES: &str = "\
Examples:
  mcpdbg stats session.log
  mcpdbg stats --format json ~/.mcp-logs/*.log | jq '.methods[0]'

Exit status:
  0  the numbers were written
  2  usage error, or a file could not be read";

#[derive(Clone, Copy, ValueEnum)]
enum TimelineFormat {
    Text,
    Mermaid,
    Html,
}

#[derive(Clone, Copy, ValueEnum)]
enum DirArg {
    /// client to server
    C2s,
    /// server to client
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
/// `mcpdbg record --out FILE -- SERVER ARGS...` and talks to it as to the
/// server. Bytes are relayed unchanged in both directions; stderr is copied to
/// mcpdbg's own stderr; FILE receives the native transcript (created
/// owner-only), which `mcpdbg check FILE` analyses.
#[derive(Parser)]
#[command(after_long_help = RECORD_EXAMPLES)]
struct RecordArgs {
    /// Where to write the transcript; `{time}` and `{pid}` are replaced
    ///
    /// `{time}` becomes the UTC start time (20261129T140311Z) and `{pid}` the
    /// recorder's process id, so one host config line gives a file per session.
    /// An existing file is never overwritten (see --append) and a symbolic link
    /// is never followed.
    #[arg(long, short, value_name = "FILE")]
    out: String,

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
  mcpdbg record --out /tmp/notes-{time}.log -- python notes_server.py
  mcpdbg record --append --out ~/mcp.log --check -- npx -y @example/server

Exit status:
  the server's exit status (128 + N when it was killed by signal N);
  2 when the transcript cannot be opened, 127 when the server cannot be started";

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
struct ValidateArgs {
    /// The message (JSON text); `-` or nothing reads standard input
    message: Option<String>,

    /// Judge it under this protocol revision
    #[arg(long, value_name = "REV", value_parser = parse_revision, default_value = Revision::LATEST.as_str())]
    revision: Revision,

    /// Who sent it (inferred from the method when not given)
    #[arg(long, value_enum, value_name = "DIR")]
    direction: Option<DirectionArg>,

    /// For a response: the method of the request it answers (enables result checks)
    #[arg(long, value_name = "METHOD")]
    answers: Option<String>,

    #[command(flatten)]
    output: OutputArgs,
}

const VALIDATE_EXAMPLES: &str = "\
Examples:
  mcpdbg validate '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/List\"}'
  mcpdbg validate --revision 2025-06-18 '[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]'
  mcpdbg validate --answers tools/call < response.json

Exit status: as for `check` (0, 1 for findings at or above --fail-on, 2 for usage errors).";

#[derive(Clone, Copy, ValueEnum)]
enum DirectionArg {
    ClientToServer,
    ServerToClient,
}

/// Explain one rule: why it matters, how to fix it, its spec source, an example
#[derive(Parser)]
struct ExplainArgs {
    /// The rule's name, as `check` prints it (e.g. `id-reuse`)
    rule: String,

    /// Output format
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    format: ExplainFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    Text,
    Json,
}

/// List every rule with its severity and summary
///
/// The rule name is the id used in every output of `check`.
#[derive(Parser)]
struct RulesArgs {
    /// Output format (`markdown` prints the README's table)
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    format: RulesFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum RulesFormat {
    Table,
    Json,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum EraArg {
    Legacy,
    Modern,
    Auto,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormatArg {
    Table,
    Json,
    Sarif,
    Github,
    Junit,
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

fn parse_rule(s: &str) -> Result<Rule, String> {
    Rule::from_name(s.trim()).ok_or_else(|| unknown_rule(s))
}

/// An error for an unknown rule name, with the closest known one.
fn unknown_rule(name: &str) -> String {
    let close = Rule::ALL
        .iter()
        .map(|r| r.name())
        .min_by_key(|known| strsim::levenshtein(known, name));
    match close {
        Some(known) if strsim::levenshtein(known, name) <= 3 => {
            format!("unknown rule `{name}`; did you mean `{known}`? (`mcpdbg rules` lists them)")
        }
        _ => format!("unknown rule `{name}` (`mcpdbg rules` lists them)"),
    }
}

fn parse_severity(s: &str) -> Result<(Rule, Option<Severity>), String> {
    let (rule, level) = s
        .split_once('=')
        .ok_or_else(|| "expected RULE=LEVEL, such as id-reuse=warning".to_string())?;
    let level = match level.trim() {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "info" => Some(Severity::Info),
        "off" => None,
        other => {
            return Err(format!(
                "unknown level `{other}`; expected error, warning, info or off"
            ));
        }
    };
    Ok((parse_rule(rule)?, level))
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

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("expected a number of seconds, such as 5 or 0.5".into()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => run_check(args),
        Command::Timeline(args) => run_timeline(args),
        Command::Stats(args) => run_stats(args),
        Command::Record(args) => run_record(args),
        Command::Diff(args) => run_diff(args),
        Command::Replay(args) => run_replay(args),
        Command::Validate(args) => run_validate(args),
        Command::Rules(args) => run_rules(args),
        Command::Explain(args) => run_explain(args),
        Command::Probe(args) => run_probe(args),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpdbg: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_check(args: CheckArgs) -> io::Result<ExitCode> {
    let files = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files.clone()
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let options = Options {
        session: Config {
            revision: args.revision,
            slow_seconds: args.slow,
        },
        format: input_format(args.input),
        filter: Filter {
            select: args.rules.select,
            ignore: args.rules.ignore,
            severity: args.rules.severity,
        },
        redact: args.redact,
    };
    let mut report = Report::default();
    let mut failed = false;
    if args.follow {
        let [path] = &files[..] else {
            eprintln!("mcpdbg: --follow takes exactly one file");
            return Ok(ExitCode::from(2));
        };
        if path.as_os_str() == "-" || !matches!(args.output.format, ReportFormatArg::Table) {
            eprintln!("mcpdbg: --follow reads a file (not standard input) and prints a table");
            return Ok(ExitCode::from(2));
        }
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // The first signal asks for the report; a second one ends at once.
            signal_hook::flag::register_conditional_shutdown(signal, 130, stop.clone())?;
            signal_hook::flag::register(signal, stop.clone())?;
        }
        let follow = mcpdbg::live::follow::FollowOptions {
            check: options.clone(),
            poll: std::time::Duration::from_secs_f64(args.poll_interval),
            status_every: std::time::Duration::from_secs_f64(args.status_interval),
        };
        eprintln!(
            "mcpdbg: following {}; Ctrl-C prints the report",
            path.display()
        );
        report = match mcpdbg::live::follow::follow(
            path,
            &follow,
            &stop,
            &mut io::stdout(),
            &mut io::stderr(),
        ) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("mcpdbg: cannot follow {}: {e}", path.display());
                return Ok(ExitCode::from(2));
            }
        };
    }
    if let (Some(client), Some(server)) = (&args.client, &args.server) {
        let open = |path: &PathBuf| -> Result<(String, Box<dyn Read>), String> {
            let name = path.display().to_string();
            let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
            Ok((name, Box::new(file)))
        };
        let tee = (|| -> Result<pipeline::Tee, String> {
            Ok(pipeline::Tee {
                client: open(client)?,
                server: open(server)?,
                stderr: args.stderr_file.as_ref().map(open).transpose()?,
            })
        })();
        match tee.and_then(|tee| {
            pipeline::check_tee(tee, &options).map_err(|e| format!("cannot read the capture: {e}"))
        }) {
            Ok(file) => report.files.push(file),
            Err(message) => {
                eprintln!("mcpdbg: {message}");
                failed = true;
            }
        }
        return emit(&report, &args.output, &options.filter, failed);
    }
    if !args.follow {
        let counter = std::sync::Arc::new(mcpdbg::live::progress::Counter::default());
        let work = || check_files(&files, &options, jobs, &counter, args.quiet);
        let results = if !args.quiet && io::stderr().is_terminal() {
            let total = files
                .iter()
                .map(|f| {
                    std::fs::metadata(f)
                        .ok()
                        .filter(|m| m.is_file())
                        .map(|m| m.len())
                })
                .sum::<Option<u64>>();
            mcpdbg::live::progress::run(&counter, total, files.len(), io::stderr(), work)
        } else {
            work()
        };
        for result in results {
            match result {
                Ok(file) => report.files.push(file),
                Err(message) => {
                    eprintln!("mcpdbg: {message}");
                    failed = true;
                }
            }
        }
    }
    emit(&report, &args.output, &options.filter, failed)
}

/// Checks one file (or standard input for `-`); the error is a message.
fn check_one(
    path: &std::path::Path,
    options: &Options,
    counter: &std::sync::Arc<Counter>,
    quiet: bool,
) -> Result<mcpdbg::report::FileReport, String> {
    let name = path.display().to_string();
    let input: Box<dyn Read> = if name == "-" {
        if io::stdin().is_terminal() && !quiet {
            eprintln!("mcpdbg: reading a capture from standard input (end it with Ctrl-D)");
        }
        Box::new(Counted::new(io::stdin(), counter.clone()))
    } else {
        let file = File::open(path).map_err(|e| format!("cannot open {name}: {e}"))?;
        Box::new(Counted::new(file, counter.clone()))
    };
    let result =
        pipeline::check(&name, input, options).map_err(|e| format!("cannot read {name}: {e}"));
    counter.file_done();
    result
}

/// Checks files on up to `jobs` threads (each file is an independent
/// session); the results come back in the order the files were given.
fn check_files(
    files: &[PathBuf],
    options: &Options,
    jobs: usize,
    counter: &std::sync::Arc<Counter>,
    quiet: bool,
) -> Vec<Result<mcpdbg::report::FileReport, String>> {
    if jobs <= 1 || files.len() <= 1 || files.iter().any(|f| f.as_os_str() == "-") {
        return files
            .iter()
            .map(|f| check_one(f, options, counter, quiet))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<_, String>>>> =
        files.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(files.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    let result = check_one(path, options, counter, quiet);
                    *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err("internal error: a file was not checked".to_string()))
        })
        .collect()
}

/// Renders a report to stdout and maps it to an exit status.
fn emit(
    report: &Report,
    output: &OutputArgs,
    filter: &Filter,
    failed: bool,
) -> io::Result<ExitCode> {
    let format = match output.format {
        ReportFormatArg::Table => OutputFormat::Table,
        ReportFormatArg::Json => OutputFormat::Json,
        ReportFormatArg::Sarif => OutputFormat::Sarif,
        ReportFormatArg::Github => OutputFormat::Github,
        ReportFormatArg::Junit => OutputFormat::Junit,
    };
    let stdout = io::stdout();
    let style = Style {
        color: match output.color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        },
    };
    let threshold = match output.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    let ci = CiOptions {
        fail_on: threshold,
        filter: filter.clone(),
        base: output.sarif_base.clone(),
    };
    let mut out = io::BufWriter::new(stdout.lock());
    render::render_with(report, format, style, &ci, &mut out)?;
    out.flush()?;
    Ok(if failed {
        ExitCode::from(2)
    } else if threshold.is_some_and(|t| report.worst().is_some_and(|w| w >= t)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
    })
}

/// Where a command writes: a file (`--out`) or standard output.
fn output(out: &Option<PathBuf>) -> io::Result<Box<dyn Write>> {
    Ok(match out {
        Some(path) => Box::new(io::BufWriter::new(File::create(path).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
        })?)),
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
    })
}

fn run_timeline(args: TimelineArgs) -> io::Result<ExitCode> {
    let name = args.file.display().to_string();
    if name == "-" {
        eprintln!(
            "mcpdbg: timeline reads its file twice and cannot read standard input; save the capture to a file first"
        );
        return Ok(ExitCode::from(2));
    }
    let options = timeline::Options {
        check: Options {
            session: Config {
                revision: args.revision,
                slow_seconds: args.slow,
            },
            format: input_format(args.input),
            filter: Filter::default(),
            redact: args.redact,
        },
        filter: timeline::Filter {
            methods: args.method,
            ids: args.id.iter().map(|s| timeline::parse_id(s)).collect(),
            dirs: args
                .dir
                .iter()
                .map(|d| match d {
                    DirArg::C2s => Dir::ClientToServer,
                    DirArg::S2c => Dir::ServerToClient,
                    DirArg::Stderr => Dir::Stderr,
                    DirArg::Unknown => Dir::Unknown,
                })
                .collect(),
            kinds: args
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
            lines: args.lines,
            errors_only: args.errors_only,
        },
        around: args.around.map(|line| (line, args.context)),
        keep_raw: args.full || matches!(args.format, TimelineFormat::Html),
    };
    let path = args.file.clone();
    let open = move || -> io::Result<Box<dyn Read>> {
        File::open(&path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display())))
    };
    let mut out = output(&args.out)?;
    let mut sink: Box<dyn timeline::Sink + '_> = match args.format {
        TimelineFormat::Text => Box::new(render::timeline::Text::new(&mut out, args.full)),
        TimelineFormat::Mermaid => Box::new(render::mermaid::Mermaid::new(&mut out)),
        TimelineFormat::Html => Box::new(render::html::Html::new(&mut out)),
    };
    timeline::run(&name, &open, &options, sink.as_mut())?;
    drop(sink);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn run_validate(args: ValidateArgs) -> io::Result<ExitCode> {
    let (name, bytes) = match args.message.as_deref() {
        Some(text) if text != "-" => ("<argument>", text.as_bytes().to_vec()),
        _ => {
            if io::stdin().is_terminal() {
                eprintln!("mcpdbg: reading a message from standard input (end it with Ctrl-D)");
            }
            let mut buf = Vec::new();
            io::stdin().read_to_end(&mut buf)?;
            ("-", buf)
        }
    };
    let options = ValidateOptions {
        revision: args.revision,
        side: args.direction.map(|d| match d {
            DirectionArg::ClientToServer => Side::Client,
            DirectionArg::ServerToClient => Side::Server,
        }),
        answers: args.answers,
    };
    let report = Report {
        files: vec![validate::validate(name, &bytes, &options)],
    };
    emit(&report, &args.output, &Filter::default(), false)
}

fn run_probe(args: ProbeArgs) -> io::Result<ExitCode> {
    if args.arguments.len() > args.calls.len() {
        eprintln!("mcpdbg probe: more --arguments than --call");
        return Ok(ExitCode::from(2));
    }
    let mut calls = Vec::new();
    for (i, name) in args.calls.iter().enumerate() {
        let arguments = match args.arguments.get(i) {
            None => serde_json::json!({}),
            Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                _ => {
                    eprintln!("mcpdbg probe: --arguments for {name} is not a JSON object: {text}");
                    return Ok(ExitCode::from(2));
                }
            },
        };
        calls.push((name.clone(), arguments));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "probe-{}.log",
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ")
        ))
    });
    let options = mcpdbg::live::probe::ProbeOptions {
        command: args.command.clone(),
        era: match args.era {
            EraArg::Legacy => mcpdbg::live::probe::ProbeEra::Legacy,
            EraArg::Modern => mcpdbg::live::probe::ProbeEra::Modern,
            EraArg::Auto => mcpdbg::live::probe::ProbeEra::Auto,
        },
        out: out.clone(),
        timeout: args.timeout,
        start_timeout: args.start_timeout,
        calls,
        grace: args.grace,
    };
    let probed = match mcpdbg::live::probe::run(&options) {
        Ok(probed) => probed,
        Err(e) => {
            eprintln!("mcpdbg probe: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    for note in &probed.notes {
        eprintln!("mcpdbg probe: {note}");
    }
    eprintln!("mcpdbg probe: the session is in {}", out.display());
    let check = Options {
        filter: Filter {
            select: args.rules.select,
            ignore: args.rules.ignore,
            severity: args.rules.severity,
        },
        ..Options::default()
    };
    let name = out.display().to_string();
    let file = File::open(&out)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open {name}: {e}")))?;
    let report = Report {
        files: vec![pipeline::check(&name, Box::new(file), &check)?],
    };
    emit(&report, &args.output, &check.filter, false)
}

fn run_explain(args: ExplainArgs) -> io::Result<ExitCode> {
    let Some(rule) = Rule::from_name(args.rule.trim()) else {
        eprintln!("mcpdbg explain: {}", unknown_rule(&args.rule));
        return Ok(ExitCode::from(2));
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    match args.format {
        ExplainFormat::Text => render::text::explain(rule, &mut out)?,
        ExplainFormat::Json => render::json::rules(&[rule], &mut out)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn run_stats(args: StatsArgs) -> io::Result<ExitCode> {
    let files = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files
    };
    let mut stats = mcpdbg::views::stats::Stats::default();
    let mut redactor = args.redact.then(mcpdbg::redact::Redactor::default);
    let mut failed = false;
    for path in &files {
        let name = path.display().to_string();
        let input: Box<dyn Read> = if name == "-" {
            Box::new(io::stdin())
        } else {
            match File::open(path) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    eprintln!("mcpdbg: cannot open {name}: {e}");
                    failed = true;
                    continue;
                }
            }
        };
        if let Err(e) = mcpdbg::views::stats::collect(
            &mut stats,
            &name,
            input,
            input_format(args.input),
            &mut redactor,
        ) {
            eprintln!("mcpdbg: cannot read {name}: {e}");
            failed = true;
        }
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    match args.format {
        FormatArg::Table => render::stats::render(&stats, &mut out)?,
        FormatArg::Json => render::stats_json::render(&stats, &mut out)?,
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_record(args: RecordArgs) -> io::Result<ExitCode> {
    let options = mcpdbg::live::record::RecordOptions {
        out: args.out,
        append: args.append,
        command: args.command,
    };
    let recorded = match mcpdbg::live::record::run(&options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpdbg record: {e}");
            return Ok(ExitCode::from(e.exit_code()));
        }
    };
    if args.check {
        let name = recorded.path.display().to_string();
        let report = Report {
            files: vec![pipeline::check(
                &name,
                Box::new(File::open(&recorded.path)?),
                &Options::default(),
            )?],
        };
        let stderr = io::stderr();
        let style = Style {
            color: stderr.is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        };
        render::render(&report, OutputFormat::Table, style, &mut stderr.lock())?;
    }
    Ok(ExitCode::from((recorded.exit_code & 0xff) as u8))
}

/// The comparison of two captures with the `diff`/`replay` options, and
/// the findings of `check` on each side counted by rule.
fn compare(
    args: &CompareArgs,
    (before, before_findings): (
        &mcpdbg::views::capture::Capture,
        &[mcpdbg::finding::Finding],
    ),
    (after, after_findings): (
        &mcpdbg::views::capture::Capture,
        &[mcpdbg::finding::Finding],
    ),
    late: &std::collections::BTreeSet<usize>,
) -> mcpdbg::views::diff::Comparison {
    let ignore: Vec<_> = args
        .ignore
        .iter()
        .map(|p| mcpdbg::views::diff::Pattern::parse(p))
        .collect();
    let mut comparison =
        mcpdbg::views::diff::compare(before, after, &ignore, expect(args.expect), late);
    comparison.findings_before = mcpdbg::views::diff::rule_counts(before_findings);
    comparison.findings_after = mcpdbg::views::diff::rule_counts(after_findings);
    comparison
}

fn read_capture(
    path: &PathBuf,
    format: Option<Format>,
) -> io::Result<(
    mcpdbg::views::capture::Capture,
    Vec<mcpdbg::finding::Finding>,
)> {
    let open = || {
        File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display())))
    };
    let capture = mcpdbg::views::capture::read(Box::new(open()?), format)?;
    let options = Options {
        format,
        ..Options::default()
    };
    let report = pipeline::check(&path.display().to_string(), Box::new(open()?), &options)?;
    Ok((capture, report.findings))
}

fn expect(arg: ExpectArg) -> mcpdbg::views::diff::Expect {
    match arg {
        ExpectArg::Same => mcpdbg::views::diff::Expect::Same,
        ExpectArg::Fixed => mcpdbg::views::diff::Expect::Fixed,
    }
}

fn write_comparison(
    labels: &mcpdbg::views::diff::Labels,
    comparison: &mcpdbg::views::diff::Comparison,
    format: FormatArg,
) -> io::Result<ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        FormatArg::Table => render::diff::render(labels, comparison, &mut out)?,
        FormatArg::Json => render::diff_json::render(labels, comparison, &mut out)?,
    }
    out.flush()?;
    Ok(ExitCode::from(u8::from(comparison.differences() > 0)))
}

fn run_diff(args: DiffArgs) -> io::Result<ExitCode> {
    let format = input_format(args.input);
    let (before, before_findings) = read_capture(&args.before, format)?;
    let (after, after_findings) = read_capture(&args.after, format)?;
    for (path, capture) in [(&args.before, &before), (&args.after, &after)] {
        if capture.more_sessions {
            eprintln!(
                "mcpdbg diff: {} holds several sessions; comparing the first",
                path.display()
            );
        }
    }
    let comparison = compare(
        &args.compare,
        (&before, &before_findings),
        (&after, &after_findings),
        &Default::default(),
    );
    let labels = mcpdbg::views::diff::Labels {
        kind: "diff",
        before: (args.before.display().to_string(), before.format.as_str()),
        after: (args.after.display().to_string(), after.format.as_str()),
        command: None,
    };
    write_comparison(&labels, &comparison, args.compare.format)
}

fn run_replay(args: ReplayArgs) -> io::Result<ExitCode> {
    let format = input_format(args.input);
    let (before, before_findings) = read_capture(&args.log, format)?;
    let name = args.log.display();
    if let Some((line, why)) = &before.not_replayable {
        eprintln!(
            "mcpdbg replay: {name} cannot be replayed: {} (line {line})",
            mcpdbg::text::escape_control(why)
        );
        return Ok(ExitCode::from(2));
    }
    if before.sends.is_empty() {
        eprintln!("mcpdbg replay: {name} holds no client message to replay");
        return Ok(ExitCode::from(2));
    }
    if before.more_sessions {
        eprintln!("mcpdbg replay: {name} holds several sessions; replaying the first");
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let mut path = args.log.clone().into_os_string();
        path.push(format!(".replay-{stamp}.log"));
        PathBuf::from(path)
    });
    let options = mcpdbg::live::replay::Options {
        command: args.command.clone(),
        out: out.clone(),
        timing: match args.timing {
            TimingArg::Fast => mcpdbg::live::replay::Timing::Fast,
            TimingArg::Original => mcpdbg::live::replay::Timing::Original,
        },
        max_gap: args.max_gap,
        timeout: args.timeout,
        grace: args.grace,
        stop_on_hang: args.stop_on_hang,
        renumber: args.renumber,
    };
    let replayed = match mcpdbg::live::replay::run(&before, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpdbg replay: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    for note in &replayed.notes {
        eprintln!("mcpdbg replay: {note}");
    }
    eprintln!("mcpdbg replay: new session written to {}", out.display());
    let (after, after_findings) = read_capture(&out, None)?;
    let mut comparison = compare(
        &args.compare,
        (&before, &before_findings),
        (&after, &after_findings),
        &replayed.timed_out,
    );
    comparison.notes = replayed.differences;
    let shown: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let labels = mcpdbg::views::diff::Labels {
        kind: "replay",
        before: (args.log.display().to_string(), before.format.as_str()),
        after: (out.display().to_string(), after.format.as_str()),
        command: Some(shown.join(" ")),
    };
    write_comparison(&labels, &comparison, args.compare.format)
}

fn run_rules(args: RulesArgs) -> io::Result<ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match args.format {
        RulesFormat::Table => render::table::rules(Rule::ALL, &mut out)?,
        RulesFormat::Json => render::json::rules(Rule::ALL, &mut out)?,
        RulesFormat::Markdown => render::markdown::rules(Rule::ALL, &mut out)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
