//! The rule catalogue and the rule families.
//!
//! The catalogue: every rule's stable name, default severity, the revisions
//! it applies to, a one-line summary, why it matters, how to fix it, the
//! spec sentence it enforces and an example transcript that triggers it,
//! each in one table row. The name is the rule's id in every output and
//! never changes. A row's revisions are applied in one place,
//! `Findings::judge_under`, to whatever is reported.
//!
//! The families make every finding (a test fails on one made elsewhere),
//! each with its own state, words and tests. The session (`session/`)
//! decides what a message is in its session and calls them in a fixed
//! order: `lifecycle` (the handshake, the era, the revision every family is
//! judged by), `ids` (pairing), `capabilities`, `utilities` (progress,
//! cancellation, tasks), `modern` (2026-07-28), `tools`, `timing`,
//! `schema` (`--schema-check`), `checks` (one message in its context),
//! `deprecations` (what the message's revision, or `--target-revision`,
//! deprecates), `hangs` (what is open at the end), `assertions` (the
//! contracts the user gives: `--expect-tool`, `--max-latency`, ...) and
//! `notes` (about the analysis). The
//! transport asks `framing`; `probe --baseline` asks `baseline`. Each
//! reports through [`ctx::Ctx`]. A test fails on a row no code fires.

pub mod assertions;
pub mod baseline;
pub(crate) mod capabilities;
pub mod checks;
pub(crate) mod ctx;
pub(crate) mod deprecations;
pub mod finding;
pub mod framing;
pub(crate) mod hangs;
pub(crate) mod ids;
pub(crate) mod lifecycle;
pub(crate) mod modern;
pub mod notes;
pub(crate) mod schema;
pub(crate) mod timing;
pub(crate) mod tools;
pub(crate) mod utilities;

use std::fmt;

use crate::protocol::Revision;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a rule comes from: the group shown in the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Transport,
    Envelope,
    Lifecycle,
    Pairing,
    Capabilities,
    Utilities,
    Tools,
    Security,
    Modern,
    Shapes,
    Baseline,
    Assertions,
    Analysis,
}

impl Group {
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Transport => "transport",
            Group::Envelope => "envelope",
            Group::Lifecycle => "lifecycle",
            Group::Pairing => "ids and pairing",
            Group::Capabilities => "capabilities",
            Group::Utilities => "progress, cancellation, tasks",
            Group::Tools => "tool calls",
            Group::Security => "security",
            Group::Modern => "2026 era",
            Group::Shapes => "message shapes",
            Group::Baseline => "baseline drift",
            Group::Assertions => "assertions",
            Group::Analysis => "analysis notes",
        }
    }
}

/// The revisions a rule applies to, typed: what the session, `explain` and
/// the JUnit output ask (`applies`), and the words shown for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    All,
    AllBut(Revision),
    /// From the first to the second, both included.
    Range(Revision, Revision),
    Only(Revision),
}

/// A rule's revisions: its span, and the words shown instead of the span's
/// own when the rule's form changes with the revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revisions {
    pub span: Span,
    words: Option<&'static str>,
}

/// Every revision.
pub const ALL: Revisions = Revisions {
    span: Span::All,
    words: None,
};

const fn range(from: Revision, to: Revision) -> Revisions {
    Revisions {
        span: Span::Range(from, to),
        words: None,
    }
}

const fn only(revision: Revision) -> Revisions {
    Revisions {
        span: Span::Only(revision),
        words: None,
    }
}

const fn all_but(revision: Revision) -> Revisions {
    Revisions {
        span: Span::AllBut(revision),
        words: None,
    }
}

impl Revisions {
    /// The same span, shown with these words.
    const fn worded(self, words: &'static str) -> Revisions {
        Revisions {
            span: self.span,
            words: Some(words),
        }
    }

    /// Whether the rule applies under `revision`.
    pub fn applies(&self, revision: Revision) -> bool {
        match self.span {
            Span::All => true,
            Span::AllBut(r) => revision != r,
            Span::Range(a, b) => (a..=b).contains(&revision),
            Span::Only(r) => revision == r,
        }
    }
}

impl Rule {
    /// The rule runs only under `check --schema-check`.
    pub fn needs_schema_check(self) -> bool {
        self == Rule::SchemaViolation
    }

    /// The rule is a tool-schema check: on by default, off with
    /// `check --no-tool-schemas`.
    pub fn needs_tool_schemas(self) -> bool {
        matches!(
            self,
            Rule::ArgumentsViolateInputSchema
                | Rule::StructuredContentMismatch
                | Rule::UnlistedToolCalled
                | Rule::UnportableToolSchema
        )
    }
}

impl Rule {
    /// The rule is an assertion (`--expect-tool`, `--max-latency`, ...):
    /// it runs only when its assertion is given.
    pub fn needs_assertion(self) -> bool {
        self.info().group == Group::Assertions
    }
}

impl RuleInfo {
    /// The rule's severity under `revision` (the default when it is not
    /// known).
    pub fn severity_in(&self, revision: Option<Revision>) -> Severity {
        match (self.before, revision) {
            (Some((from, lower)), Some(rev)) if rev < from => lower,
            _ => self.severity,
        }
    }
}

impl fmt::Display for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(words) = self.words {
            return f.write_str(words);
        }
        match self.span {
            Span::All => f.write_str("all"),
            Span::AllBut(r) => write!(f, "all but {r}"),
            Span::Range(a, b) => write!(f, "{a} to {b}"),
            Span::Only(r) => write!(f, "{r}"),
        }
    }
}

/// The static description of a rule.
#[derive(Debug)]
pub struct RuleInfo {
    pub name: &'static str,
    pub group: Group,
    pub severity: Severity,
    /// The revisions the rule applies to.
    pub revisions: Revisions,
    /// A lower severity before a revision (a SHOULD that became a MUST):
    /// `(revision, severity before it)`.
    pub before: Option<(Revision, Severity)>,
    pub summary: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// The spec revision(s) and sentence it enforces.
    pub spec: &'static str,
    /// A transcript excerpt (native format) that triggers it.
    pub example: &'static str,
}

macro_rules! rules {
    (@before) => { None };
    (@before $rev:ident, $sev:ident) => { Some((Revision::$rev, Severity::$sev)) };
    ($( $variant:ident => {
        name: $name:literal, group: $group:ident, severity: $sev:ident,
        revisions: $revs:expr, summary: $summary:literal,
        why: $why:literal, fix: $fix:literal, spec: $spec:literal, example: $example:literal
        $(, before: ($brev:ident, $bsev:ident))? $(,)?
    } ),* $(,)?) => {
        /// Every rule mcpdbg knows. See [`Rule::info`] for the metadata.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule { $($variant),* }

        impl Rule {
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            pub fn info(self) -> &'static RuleInfo {
                match self {
                    $(Rule::$variant => {
                        const INFO: RuleInfo = RuleInfo {
                            name: $name,
                            group: Group::$group,
                            severity: Severity::$sev,
                            revisions: $revs,
                            before: rules!(@before $($brev, $bsev)?),
                            summary: $summary,
                            why: $why,
                            fix: $fix,
                            spec: $spec,
                            example: $example,
                        };
                        &INFO
                    }),*
                }
            }
        }
    };
}

// A handshake for 2025-06-18 used by many examples:
// > initialize, < result, > notifications/initialized.
rules! {
    // ---- transport: how bytes become lines and lines become JSON ----
    StrayOutput => {
        name: "stray-output", group: Transport, severity: Error, revisions: ALL,
        summary: "non-JSON text on a JSON-RPC stream",
        why: "The stdio transport carries only JSON-RPC messages, one per line. Hosts react differently to other text, so its impact depends on the client: the TypeScript SDK v2 skips a line that is not JSON silently (a JSON line that is no message still errors), while Claude Desktop, Codex and Cursor fail on it. The usual cause is a print or logging call that writes to stdout.",
        fix: "Send logs to stderr: in Python `print(..., file=sys.stderr)` or a logging handler on stderr; in Node `console.error`.",
        spec: "stdio transport, all revisions: the server MUST NOT write anything to its stdout that is not a valid MCP message; the client MUST NOT write anything to the server's stdin that is not a valid MCP message",
        example: r#"< Starting notes server on stdio..."#,
    },
    InvalidJson => {
        name: "invalid-json", group: Transport, severity: Error, revisions: ALL,
        summary: "a line that looks like JSON but does not parse",
        why: "The receiver cannot parse the line, so the message is lost: a request on it is never answered and a response never reaches its caller. Common causes are a message cut off by a crash or a buffer limit, two messages written without a newline between them, and hand-built JSON.",
        fix: "Serialise messages with a JSON library and write each with exactly one newline after it.",
        spec: "JSON-RPC 2.0 and stdio transport, all revisions: every line is one JSON-RPC message",
        example: r#"< {"jsonrpc":"2.0","id":1,"result":{"tools":[,]}}"#,
    },
    MultiLineJson => {
        name: "multi-line-json", group: Transport, severity: Error, revisions: ALL,
        summary: "one message spread over several lines (e.g. pretty-printed)",
        why: "A pretty-printed message reaches the receiver as several lines, none of which parses, so the message is lost and the request it answers hangs. mcpdbg reassembles it to keep the analysis going.",
        fix: "Serialise without indentation: `json.dumps(msg)`, `JSON.stringify(msg)`, `serde_json::to_string`.",
        spec: "stdio transport, all revisions: messages are delimited by newlines and MUST NOT contain embedded newlines",
        example: "< {\n<   \"jsonrpc\": \"2.0\",\n<   \"id\": 1,\n<   \"result\": {}\n< }",
    },
    CrlfLineEnding => {
        name: "crlf-line-ending", group: Transport, severity: Warning, revisions: ALL,
        summary: "a line ends in CRLF instead of LF",
        why: "Messages are delimited by a newline (LF). Some readers strip the CR, others keep it in the line and fail to parse or compare it. It usually comes from writing in text mode on Windows. Reported once per side with the count.",
        fix: "Write LF only: open stdout in binary mode, or set `newline=\"\\n\"`.",
        spec: "stdio transport, all revisions: messages are delimited by newlines (the spec does not mention CR; the TypeScript SDK strips it, others do not)",
        example: "< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r",
    },
    BlankLine => {
        name: "blank-line", group: Transport, severity: Warning, revisions: ALL,
        summary: "an empty or whitespace-only line on a JSON-RPC stream",
        why: "An empty line is not a message. Most readers skip it, but a strict one answers it with a parse error or treats it as stray output. It usually comes from writing a newline twice. Reported once per side with the count.",
        fix: "Write exactly one newline after each message (`print(json.dumps(msg))`, not `print(json.dumps(msg) + \"\\n\")`).",
        spec: "stdio transport, all revisions: only valid MCP messages on stdin and stdout",
        example: "< ",
    },
    Bom => {
        name: "bom", group: Transport, severity: Error, revisions: ALL,
        summary: "a UTF-8 byte order mark in front of a message",
        why: "JSON parsers reject a byte order mark (EF BB BF) in front of the text, so the first message (usually `initialize`) is lost and the session never starts. It comes from encoders set to `utf-8-sig` or from Windows tools.",
        fix: "Write UTF-8 without a byte order mark.",
        spec: "JSON (RFC 8259): implementations MUST NOT add a byte order mark to networked JSON text",
        example: "> \u{feff}{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}",
    },
    InvalidUtf8 => {
        name: "invalid-utf8", group: Transport, severity: Error, revisions: ALL.worded("all (stated as a MUST from 2025-03-26)"),
        summary: "a line is not valid UTF-8",
        why: "A receiver either rejects the message or replaces the bad bytes, corrupting the data (often a file's contents or a path). The usual cause is writing text in a legacy encoding or cutting a multi-byte character in half. mcpdbg analyses the line with the bad bytes replaced.",
        fix: "Encode as UTF-8 and cut text on character boundaries.",
        spec: "base protocol, 2025-03-26 and later: JSON-RPC messages MUST be UTF-8 encoded",
        example: "(a line with a byte such as 0xff; not printable here)",
    },
    ContentLengthFraming => {
        name: "content-length-framing", group: Transport, severity: Error, revisions: ALL,
        summary: "LSP-style Content-Length headers on a newline-delimited stream",
        why: "MCP over stdio is newline-delimited JSON, not the Language Server Protocol's `Content-Length:` framing. Every MCP SDK reads the headers as stray output and messages glue together. It comes from reusing LSP transport code.",
        fix: "Write one JSON message per line with no headers.",
        spec: "stdio transport, all revisions: messages are delimited by newlines",
        example: "< Content-Length: 46\n< \n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}",
    },
    TruncatedLine => {
        name: "truncated-line", group: Transport, severity: Warning, revisions: ALL,
        summary: "a stream ends with a line that has no newline and does not parse",
        why: "The log ends in the middle of a message: the writer was killed, crashed, or the capture stopped while a message was being written. The message was probably never delivered. If the capture was cut, the session itself may be fine; if the server died, look at its stderr just before.",
        fix: "Nothing to fix in the message; find out why the writer stopped.",
        spec: "stdio transport, all revisions: each message is followed by a newline",
        example: r#"< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Q3 pla"#,
    },
    MalformedRecord => {
        name: "malformed-record", group: Transport, severity: Warning, revisions: ALL,
        summary: "a transcript line without a direction marker",
        why: "In the native transcript format every line is `[TIMESTAMP] MARKER RAW-LINE`. A line without a marker cannot be attributed to a side and is skipped. It comes from editing a transcript by hand or concatenating other text into it.",
        fix: "Prefix the line with `>` (client to server), `<` (server to client), `!` (stderr) or `#` (event), or remove it.",
        spec: "the native transcript format (docs/formats.md)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\nthis line has no marker",
    },
    RecordingGap => {
        name: "recording-gap", group: Transport, severity: Warning, revisions: ALL,
        summary: "the recorder could not keep up and dropped part of the session",
        why: "`mcpdbg record` never makes the session wait for the disk: when the disk is too slow or full, it relays the data but does not record it, and writes a `# gap` event. Findings near a gap may be wrong (a response in the gap looks like a hang).",
        fix: "Record to a faster or emptier disk.",
        spec: "the native transcript format (docs/formats.md)",
        example: "# gap: 73400320 bytes of stdout were not recorded",
    },

    LineTooLong => {
        name: "line-too-long", group: Transport, severity: Warning, revisions: ALL,
        summary: "a line longer than the line limit (256 MiB) was cut",
        why: "To keep memory bounded, mcpdbg holds at most 256 MiB of one line (`MCPDBG_MAX_LINE` sets another limit). A longer line is a decompression bomb, a stream of bytes without newlines (`/dev/zero`), or a message far larger than any client accepts: its first 64 KiB are kept and analysed (they usually fail to parse), the rest is skipped, and reading goes on with the next line.",
        fix: "Look at what wrote the line: a server that sends a result of that size should page it or write it to a resource; if the message is genuine, raise MCPDBG_MAX_LINE.",
        spec: "mcpdbg's own note",
        example: "(a line over 256 MiB; not printable here)",
    },

    MessageOverClientLimit => {
        name: "message-over-client-limit", group: Transport, severity: Warning, revisions: ALL,
        summary: "one message larger than a widely used client accepts (10 MiB)",
        why: "Readers bound the size of one line, and the impact of a larger message differs by client: the TypeScript SDK v2 keeps at most 10 MiB of one stdio message by default (`maxBufferSize`) and closes the connection on a longer one, so every request in flight fails with it; readers with a larger or no bound accept it. Such a message is usually a whole file, a database dump or an image inlined in a result.",
        fix: "Keep each message well under 10 MiB: page the result, return a resource link instead of the content, or compress images before embedding them.",
        spec: "mcpdbg's own note (stdio transport, all revisions: messages are delimited by newlines and carry no size limit; the TypeScript SDK v2's stdio read buffer is 10 MiB by default)",
        example: "(a line over 10 MiB; not printable here)",
    },

    CorruptCompressedInput => {
        name: "corrupt-compressed-input", group: Transport, severity: Warning, revisions: ALL,
        summary: "a gzip or zstd log that ends early or is damaged",
        why: "Rotated host logs are often compressed, and a copy taken while the log was written, or cut by a size limit, ends in the middle of a compressed block. mcpdbg analyses what it could decode; findings near the end (hangs in particular) may only mean the log was cut.",
        fix: "Copy the log again once the host has closed it, or decompress it yourself to see how far it goes.",
        spec: "mcpdbg's own note (gzip: RFC 1952; zstd: RFC 8878)",
        example: "(a gzip file cut in the middle; not printable here)",
    },

    // ---- envelope: one message on its own ----
    JsonrpcVersion => {
        name: "jsonrpc-version", group: Envelope, severity: Error, revisions: ALL,
        summary: "`jsonrpc` is missing or not \"2.0\"",
        why: "SDKs validate the field and drop or reject messages without it, so the message is lost.",
        fix: "Add `\"jsonrpc\": \"2.0\"` (the string, not the number 2.0).",
        spec: "base protocol, all revisions: messages MUST follow JSON-RPC 2.0 (`jsonrpc` is the constant \"2.0\")",
        example: r#"< {"jsonrpc":2.0,"id":1,"result":{}}"#,
    },
    NullId => {
        name: "null-id", group: Envelope, severity: Warning, revisions: ALL,
        summary: "`id` is null",
        why: "JSON-RPC allows `\"id\": null` in an error response to a message whose id could not be read, but MCP does not: its ids are strings or integers and never null. A request with a null id cannot be answered at all.",
        fix: "From 2025-11-25 omit `id` on an error for an unreadable request; always give requests string or integer ids.",
        spec: "base protocol, all revisions: the request ID MUST be a string or integer and MUST NOT be null; 2025-11-25: an error response may omit the id when it could not be read",
        example: r#"< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    },
    InvalidIdType => {
        name: "invalid-id-type", group: Envelope, severity: Error, revisions: ALL,
        summary: "`id` is a boolean, float, object or array",
        why: "SDKs reject other types, or compare inexactly, so responses never match their requests. An integer written as a float (`1.0`, `1e3`) is an integer by the JSON Schema definition the spec's RequestId uses and is paired as one; it is reported as info, because strictly typed parsers (serde, Go) still reject it. An integer past 2^53 (even past 64 bits) is an integer too, paired exactly; it is reported as a warning, because a JavaScript peer's `JSON.parse` rounds it.",
        fix: "Use an integer counter or a string.",
        spec: "base protocol, all revisions: RequestId is a string or integer",
        example: r#"> {"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
    },
    NotificationWithId => {
        name: "notification-with-id", group: Envelope, severity: Error, revisions: ALL,
        summary: "a notification method sent with an id",
        why: "With an id the message is a request to the receiver, which answers with an error or not at all, while the sender does not expect an answer; if the sender's library registered it as a request, it waits forever.",
        fix: "Send notifications without `id`.",
        spec: "base protocol, all revisions: notifications MUST NOT include an ID",
        example: r#"> {"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}"#,
    },
    RequestWithoutId => {
        name: "request-without-id", group: Envelope, severity: Error, revisions: ALL,
        summary: "a request method sent without an id",
        why: "Without an id the message is a notification: the receiver never answers, so the caller waits for a response that cannot arrive.",
        fix: "Give every request a unique string or integer id.",
        spec: "base protocol, all revisions: requests MUST include a string or integer ID",
        example: r#"> {"jsonrpc":"2.0","method":"tools/list"}"#,
    },
    ResultAndError => {
        name: "result-and-error", group: Envelope, severity: Error, revisions: ALL,
        summary: "a response with both `result` and `error`, or neither",
        why: "With both, the caller's library picks one (usually the error); with neither it rejects the message and the request hangs.",
        fix: "Send either a result object or an error object.",
        spec: "base protocol, 2024-11-05 to 2025-06-18: either a result or an error MUST be set, not both; later revisions split the two response types",
        example: r#"< {"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"failed"}}"#,
    },
    MalformedError => {
        name: "malformed-error", group: Envelope, severity: Error, revisions: ALL,
        summary: "an error object without an integer `code` and a string `message`",
        why: "A string code, a missing message or a bare string as error fails validation in the caller's library: the real error is replaced by a generic one, or the request hangs.",
        fix: "Send `{\"code\": -32603, \"message\": \"...\", \"data\": ...}` with a standard integer code.",
        spec: "base protocol, all revisions: error codes MUST be integers; `message` is a string",
        example: r#"< {"jsonrpc":"2.0","id":1,"error":{"code":"INDEX_MISSING","message":"index not loaded"}}"#,
    },
    ParamsNotObject => {
        name: "params-not-object", group: Envelope, severity: Error, revisions: ALL,
        summary: "`params` is present but not an object",
        why: "MCP params are always a JSON object (named parameters); positional array params and scalars are never valid. The receiver rejects the request with -32602 or ignores the params.",
        fix: "Send an object, or omit `params`.",
        spec: "schema, all revisions: every request's and notification's params are an object",
        example: r#"> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":["search",{"q":"x"}]}"#,
    },
    Batch => {
        name: "batch", group: Envelope, severity: Error, revisions: all_but(Revision::V2025_03_26),
        summary: "a JSON-RPC batch (array) outside 2025-03-26",
        why: "Under every revision but 2025-03-26 the receiver does not expect an array: the whole line is rejected or ignored, so every request in it hangs. `initialize` is never allowed in a batch. Silent when the log does not show the negotiated revision.",
        fix: "Send each message on its own line.",
        spec: "2025-03-26: implementations MAY send batches and MUST support receiving them, `initialize` MUST NOT be part of one; 2025-06-18 removed batching",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> [{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]",
    },
    InvalidMessage => {
        name: "invalid-message", group: Envelope, severity: Error, revisions: ALL,
        summary: "JSON that is not a JSON-RPC message",
        why: "The line parses as JSON but is not a request, notification or response: not an object, a `method` that is not a string, or a response without an id. The receiver drops it.",
        fix: "Send only JSON-RPC 2.0 messages on the stream; log other data to stderr.",
        spec: "base protocol, all revisions: every message is a JSON-RPC request, notification or response",
        example: r#"< {"status":"ready"}"#,
    },
    UnknownMethod => {
        name: "unknown-method", group: Envelope, severity: Warning, revisions: ALL,
        summary: "a method that no MCP revision defines",
        why: "The receiver answers an unknown request with -32601 (method not found) and ignores an unknown notification. Most often the name is misspelt or has the wrong case; mcpdbg suggests the known method it is closest to. Extension methods with a reverse-DNS prefix (`com.example/op`), `experimental/`, `x-` and `rpc.` are not reported.",
        fix: "Use the method's exact name (`tools/list`), or namespace a custom method (`com.example/op`).",
        spec: "schema, all revisions: the method table; unknown methods are answered with -32601",
        example: r#"> {"jsonrpc":"2.0","id":3,"method":"tools/List"}"#,
    },
    WrongDirection => {
        name: "wrong-direction", group: Envelope, severity: Error, revisions: ALL,
        summary: "a method sent by the side that must not send it",
        why: "Each MCP method has a fixed sender: the client calls `tools/call`, the server calls `sampling/createMessage`. A message from the wrong side is answered with -32601 or ignored. It often means direction markers are swapped, or a proxy echoes messages back.",
        fix: "Check who sends what in the method table (`mcpdbg explain` lists the rule's spec source).",
        spec: "schema, all revisions: ClientRequest / ServerRequest and ClientNotification / ServerNotification unions",
        example: r#"< {"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
    },

    // ---- lifecycle: the handshake ----
    MissingInitialize => {
        name: "missing-initialize", group: Lifecycle, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "the session does not start with `initialize`",
        why: "A server that has not been initialised rejects or ignores every other request. Reported only when the transcript is known to start at the beginning of the session (a `# start` event from `mcpdbg record`); otherwise a late capture is assumed and reported as `starts-mid-session`.",
        fix: "Send `initialize`, wait for its result, send `notifications/initialized`, then work.",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: the initialization phase MUST be the first interaction between client and server",
        example: "# start node server.js\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
    },
    RequestBeforeInitialized => {
        name: "request-before-initialized", group: Lifecycle, severity: Warning, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "a request other than ping before the handshake completed",
        why: "Many servers reject early requests or queue them until a timeout; many clients do the same with a server's early requests.",
        fix: "Client: wait for the initialize result and send `notifications/initialized` first. Server: wait for `notifications/initialized` before sending requests.",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: the client SHOULD NOT send requests other than pings before the server has responded to initialize; the server SHOULD NOT send requests other than pings and logging before receiving the initialized notification",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
    },
    MissingInitialized => {
        name: "missing-initialized", group: Lifecycle, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "`initialize` succeeded but `notifications/initialized` never followed",
        why: "Servers wait for the notification before they send their own requests, and some refuse work until it arrives, so the session stalls after the handshake.",
        fix: "Send `notifications/initialized` right after the initialize result.",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: after successful initialization, the client MUST send an initialized notification",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}",
    },
    NoLegacyFallback => {
        name: "no-legacy-fallback", group: Lifecycle, severity: Error, revisions: ALL,
        summary: "a client went on in the 2026 era after the server refused `server/discover` the legacy way",
        why: "A server that answers `server/discover` with an error other than a 2026 one (-32601 from the TypeScript SDK 1.x, -32602 from the Python SDK 1.x, or none at all) speaks 2025-11-25 or earlier: it needs `initialize` before any work. A client that goes on with `_meta`-versioned requests talks a revision the server does not know: the server was never initialised, ignores the `_meta` it does not understand, and answers in its own revision (no `resultType`, no cache hints), which the client may reject or misread. The fault is the client's missing fallback, not the server's answers.",
        fix: "On any error to `server/discover` other than a recognised 2026 error (-32022, unsupported version), or on a timeout, fall back to the legacy handshake: `initialize` on the same connection, then `notifications/initialized`. Do not key the fallback to one error code.",
        spec: "2026-07-28 era detection: a recognised modern error means modern; any other error or a timeout means legacy, and the client falls back to initialize (not keyed to one error code)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
    },
    InitializeRepeated => {
        name: "initialize-repeated", group: Lifecycle, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "a second `initialize` in the same session",
        why: "A session is initialised exactly once. A second `initialize` is rejected by most servers, or silently resets their state. It usually means the client restarted its protocol layer without restarting the server process. (An `initialize` with the id of the session's first is read as a new session of a host that starts a server per operation: `session-restarted`.)",
        fix: "Start a new server process for a new session (a retry after a failed `initialize` is fine).",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: initialization is the first phase of a session",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}",
    },
    InitializeFailed => {
        name: "initialize-failed", group: Lifecycle, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "the server answered `initialize` with an error",
        why: "The handshake failed, so nothing after it works. Version differences should not cause this: a server that does not support the client's version answers with a version it supports.",
        fix: "Read the error message and the server's stderr; -32602 usually means malformed initialize params.",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: version negotiation answers with a supported version, not an error",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32602,\"message\":\"Invalid request parameters\"}}",
    },
    ServerStartFailed => {
        name: "server-start-failed", group: Lifecycle, severity: Error, revisions: ALL,
        summary: "the host reports that the server did not start or connect",
        why: "The host could not launch the server, or the connection failed before the handshake completed: none of the server's tools exist for the session. Hosts that log only their own lifecycle (gateways, Cursor, Codex CLI) show this as a line of their own; a server that writes text on stdout before its first message often fails this way.",
        fix: "Run the server's command by hand and read its stderr; check the command, its path and its environment; make sure nothing but JSON-RPC reaches stdout.",
        spec: "lifecycle, all revisions: the initialization phase must complete before the session is used",
        example: "[2026-11-03T10:00:00.120Z] [ERROR] [backend] failed to connect: calling \"initialize\": EOF",
    },
    VersionDowngrade => {
        name: "version-downgrade", group: Lifecycle, severity: Warning, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "the server answered an older protocol revision than the client asked for",
        why: "This is legal (the server picks a version it supports), but every feature of the newer revision is now off: elicitation needs 2025-06-18, tasks need 2025-11-25, structured tool output needs 2025-06-18. When a feature silently does not work, this is usually why.",
        fix: "Upgrade the server's SDK, or expect the older behaviour.",
        spec: "lifecycle, 2024-11-05 to 2025-11-25: if the server supports the requested version it MUST respond with the same version, otherwise with another version it supports",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}",
    },
    VersionUpgrade => {
        name: "version-upgrade", group: Lifecycle, severity: Warning, revisions: ALL,
        summary: "the server answered a newer protocol revision than the client asked for",
        why: "A server that supports the requested revision must answer that same revision; a newer answer is legal only when it does not support the requested one, and then a client that does not know the newer revision must disconnect. The session usually ends right after the handshake, and the client is not at fault for the missing notifications/initialized (mcpdbg does not report it then).",
        fix: "Make the server answer the client's revision when it supports it (most SDKs do); otherwise upgrade the client.",
        spec: "lifecycle, all revisions with initialize: if the server supports the requested protocol version, it MUST respond with the same version; otherwise it MUST respond with another version it supports, and the client SHOULD disconnect if it does not support that version",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}",
    },
    PingNotAnswered => {
        name: "ping-not-answered", group: Lifecycle, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "a `ping` answered with an error instead of an empty result",
        why: "Either side may ping the other to check that the connection is alive, and the receiver must answer promptly with an empty result. Servers built on generic JSON-RPC libraries answer -32601 (method not found) because nobody registered a ping handler; a host that pings for liveness then treats the server as dead and restarts it. A ping that is never answered is reported as unanswered-request.",
        fix: "Register a `ping` handler that returns `{}` (the MCP SDKs do this for you).",
        spec: "ping, 2024-11-05 to 2025-11-25: the receiver MUST respond promptly with an empty response (2026-07-28 removed ping)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}",
    },
    UnknownProtocolVersion => {
        name: "unknown-protocol-version", group: Lifecycle, severity: Warning, revisions: ALL,
        summary: "a protocolVersion that is not a released revision",
        why: "The released revisions are 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28. Any other string (a pre-release like 2024-10-07, a typo, a semantic version) makes the other side fall back to a default or disconnect.",
        fix: "Send one of the released revision strings.",
        spec: "versioning, all revisions: versions are the dates of released revisions",
        example: r#"> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.0","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}"#,
    },

    // ---- ids and pairing ----
    UnansweredRequest => {
        name: "unanswered-request", group: Pairing, severity: Error, revisions: ALL,
        summary: "a request that never got a response (a hang)",
        why: "The caller waits until a timeout, or forever. mcpdbg names the side that owes the reply and what that side did afterwards (answered later requests, wrote stderr, exited). Usual causes: the handler blocked or crashed, the request was lost to stray output or bad framing, or the response used a different id. When the log itself stops in the middle of a message or a compressed log stops decoding, the answer may be in what is missing, and the finding says so. Reported at the end of the log.",
        fix: "Look at what the owing side did after the request: its stderr, its exit, the requests it answered instead.",
        spec: "base protocol, all revisions: responses MUST be sent in reply to requests",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n! sync: waiting for lock",
    },
    CancelledRequest => {
        name: "cancelled-request", group: Pairing, severity: Warning, revisions: ALL,
        summary: "a request that was cancelled and never answered",
        why: "The requester gave up, usually on a timeout, and sent `notifications/cancelled`; the receiver then (correctly) sent no response. The hang is still real: the handler took longer than the caller's timeout. A cancellation whose reason is not a timeout (\"no longer needed\", a user's abort) is the requester's own choice and is reported as info, not as a slow handler.",
        fix: "Make the handler faster, report progress, or raise the caller's timeout.",
        spec: "cancellation, all revisions: the receiver SHOULD NOT send a response for a cancelled request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4,\"reason\":\"timed out\"}}",
    },
    IdReuse => {
        name: "id-reuse", group: Pairing, severity: Error, revisions: ALL.worded("in flight: all; after completion: 2024-11-05 to 2025-11-25"),
        summary: "the same sender used the same request id twice",
        why: "With a reused id the receiver or the caller's library matches a response to the wrong request: a tool gets another call's data, or one caller hangs.",
        fix: "Use a counter that never resets within the session.",
        spec: "base protocol, 2024-11-05 to 2025-11-25: the request ID MUST NOT have been previously used by the requestor within the same session; 2026-07-28: it MUST NOT match a request still in flight",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"q\":\"a\"}}}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"q\":\"b\"}}}",
    },
    DuplicateResponse => {
        name: "duplicate-response", group: Pairing, severity: Error, revisions: ALL,
        summary: "a second response to a request that was already answered",
        why: "A request gets at most one response. The caller's library drops the second, or, if the id was reused meanwhile, hands it to the wrong caller. It usually means a handler both returned and sent an error, or a retry loop answered twice.",
        fix: "Answer each request exactly once.",
        spec: "base protocol, all revisions: a response per request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
    },
    OrphanResponse => {
        name: "orphan-response", group: Pairing, severity: Error, revisions: ALL,
        summary: "a response whose id matches no request of the other side",
        why: "An orphan is dropped, and the request it was meant for hangs. Causes: a handler that makes up its own id, a proxy that renumbers ids in one direction only, or a log that starts mid-session (then this rule is silent).",
        fix: "Echo the id of the request being answered.",
        spec: "base protocol, all revisions: responses MUST include the same ID as the request they correspond to",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}",
    },
    IdTypeMismatch => {
        name: "id-type-mismatch", group: Pairing, severity: Error, revisions: ALL,
        summary: "a response id equal to a request id only after a type change (1 vs \"1\")",
        why: "Ids are compared as exact JSON values: `1`, `\"1\"` and `1.0` are three different ids. A response that echoes the id with another type is not matched by the caller's library (a JavaScript Map or a Python dict), so the request hangs.",
        fix: "Echo the request's id unchanged.",
        spec: "base protocol, all revisions: responses MUST include the same ID as the request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n< {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}",
    },
    SlowResponse => {
        name: "slow-response", group: Pairing, severity: Warning, revisions: ALL,
        summary: "a response that took longer than --slow (default 5 s)",
        why: "Hosts time requests out (often after 10 to 60 seconds) and then cancel or give up. A request close to that limit is a hang waiting to happen. Only judged when the log has timestamps. Once a client cancel shows the client's own timeout (its reason, \"timed out after 3.0s\", or its timing), a later request that took 80% of it or more is slow too, whatever `--slow` says. A handshake request sent as the server starts (after a recorder's `start` event: `record`, `probe`, `replay`) includes the server's start, so it is judged against 30 s when `--slow` is lower.",
        fix: "Make the handler faster or report progress; raise `--slow` if the delay is expected.",
        spec: "lifecycle, all revisions: implementations SHOULD establish timeouts for all sent requests",
        example: "2026-11-02T09:00:00.100000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n2026-11-02T09:00:08.300000Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}",
    },

    ServerStalled => {
        name: "server-stalled", group: Pairing, severity: Warning, revisions: ALL,
        summary: "the server wrote nothing with several requests open, then answered normally fast ones in a burst when one slow request returned",
        why: "A blocking call in an async handler (`time.sleep`, a synchronous HTTP or database call in a FastMCP or TypeScript tool) stops the whole event loop: nothing else is read or answered until it returns. The requests sent meanwhile look slow, but the slow request answered first is the culprit. Judged when the log has timestamps: a silence of at least 1 s, the request answered at its end open all along, and requests sent during it answered right after it (within 0.5 s or a tenth of the silence, whichever is longer) at least 4 times slower than their median. The victims' waits are reported here, not as `slow-response`.",
        fix: "Make the culprit's handler non-blocking: await an async API, or run the blocking call in a worker thread (`asyncio.to_thread`, `anyio.to_thread.run_sync`, a worker pool).",
        spec: "lifecycle, all revisions: implementations SHOULD establish timeouts for all sent requests (a stall makes every request time out, not only the slow one)",
        example: "2026-11-02T09:00:00.000000Z > {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}}\n2026-11-02T09:00:00.003000Z < {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3\"}]}}\n2026-11-02T09:00:00.010000Z > {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n2026-11-02T09:00:01.000000Z > {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":2}}}\n2026-11-02T09:00:06.010000Z < {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n2026-11-02T09:00:06.012000Z < {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"4\"}]}}",
    },

    // ---- capabilities and revisions ----
    CapabilityNotNegotiated => {
        name: "capability-not-negotiated", group: Capabilities, severity: Error, revisions: ALL.worded("all (error from 2025-06-18, warning before)"),
        summary: "a method used although the other side did not declare its capability",
        why: "Capabilities say what each side supports: `tools/call` needs the server's `tools`, `sampling/createMessage` the client's `sampling`, a `list_changed` notification the matching `listChanged`. A peer that did not declare a capability answers -32601 or ignores the message. Reported as an error from 2025-06-18 (MUST) and as a warning before (SHOULD).",
        fix: "Declare the capability in `initialize` (or `server/discover`), or do not use the feature.",
        spec: "lifecycle: both parties SHOULD (2024-11-05, 2025-03-26) / MUST (2025-06-18 and later) only use capabilities that were successfully negotiated",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":10}}",
        before: (V2025_06_18, Warning),
    },
    CapabilityRevisionMismatch => {
        name: "capability-revision-mismatch", group: Capabilities, severity: Info, revisions: ALL,
        summary: "a capability declared that the negotiated revision does not have",
        why: "A capability from a newer revision (client `elicitation` under 2025-03-26, `tasks` before 2025-11-25, server `completions` under 2024-11-05) means nothing in the session's revision: the other side will not use it. Often a sign of a version downgrade the declaring side did not notice.",
        fix: "Declare only the capabilities of the negotiated revision, or negotiate the newer revision.",
        spec: "schema per revision: ClientCapabilities and ServerCapabilities",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}",
    },
    MethodNotInRevision => {
        name: "method-not-in-revision", group: Capabilities, severity: Error, revisions: ALL,
        summary: "a method the negotiated revision does not have",
        why: "`elicitation/create` needs 2025-06-18, `tasks/*` need 2025-11-25, and 2026-07-28 removed `initialize`, `ping`, `logging/setLevel` and `resources/subscribe`. The other side answers -32601 or ignores the message.",
        fix: "Negotiate the revision that has the method, or use that revision's replacement.",
        spec: "schema per revision: the request and notification unions",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"roots\":{}},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Delete?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}",
    },

    DeprecatedFeature => {
        name: "deprecated-feature", group: Capabilities, severity: Info, revisions: ALL.worded("2025-11-25 and later (any revision with --target-revision)"),
        summary: "a feature the session's revision (or --target-revision) deprecates",
        why: "2026-07-28 deprecates Roots (`roots/list`, `notifications/roots/list_changed`, the `roots` capability), Sampling (`sampling/createMessage`, the `sampling` capability) and Logging (`logging/setLevel`, `notifications/message`, the `logging` capability); 2025-11-25 deprecates the `includeContext` values `thisServer` and `allServers`. A deprecated feature still works, but it is removed no earlier than the first revision released on or after 2027-07-28. Under 2026-07-28, roots and sampling asked for inside an `input_required` result are the form that stays and are not reported. `--target-revision` shows what a session would meet if it moved to a newer revision.",
        fix: "Roots and sampling: ask for them inside an `input_required` result (2026-07-28). Logging: turn it on per request with `_meta[\"io.modelcontextprotocol/logLevel\"]`. `includeContext`: send `none` or leave it out, and pass the context the model needs in the messages.",
        spec: "2025-11-25 sampling: `thisServer` and `allServers` of includeContext are soft-deprecated; 2026-07-28: Roots, Sampling, Logging and dynamic client registration are deprecated, and deprecated features are removed no earlier than the first revision released on or after 2027-07-28",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"listing tools\"}}",
    },

    // ---- progress, cancellation, tasks ----
    ProgressUnknownToken => {
        name: "progress-unknown-token", group: Utilities, severity: Error, revisions: ALL,
        summary: "a progress notification for a token no request carried",
        why: "Progress is only for a request that opted in with `_meta.progressToken`. The receiver drops a notification with an unknown token, so the progress bar never moves. It usually means the token was made up, or taken from the request id.",
        fix: "Use the `progressToken` from the request's `_meta`, and only when it is there.",
        spec: "progress, all revisions: progress notifications MUST only reference tokens that were provided in an active request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":10}}",
    },
    ProgressNotIncreasing => {
        name: "progress-not-increasing", group: Utilities, severity: Warning, revisions: ALL,
        summary: "a progress value that is not greater than the previous one for the token",
        why: "Progress MUST increase with each notification, even when the total is unknown. Hosts may ignore or mis-draw a value that goes back or stays.",
        fix: "Send monotonically increasing `progress` values (a counter, bytes done, ...).",
        spec: "progress, all revisions: the progress value MUST increase with each notification",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":50}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":20}}",
    },
    ProgressAfterResponse => {
        name: "progress-after-response", group: Utilities, severity: Warning, revisions: ALL,
        summary: "a progress notification after the request was answered",
        why: "Progress notifications MUST stop when the operation completes; the receiver has already forgotten the token and drops them. It usually means a background task kept reporting after the handler returned. (Task-augmented requests may report until the task ends; they are not reported.)",
        fix: "Stop reporting progress before sending the response.",
        spec: "progress, all revisions: progress notifications MUST stop after completion",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":100}}",
    },
    InitializeCancelled => {
        name: "initialize-cancelled", group: Utilities, severity: Error, revisions: range(Revision::V2024_11_05, Revision::V2025_11_25),
        summary: "the client cancelled its `initialize` request",
        why: "`initialize` MUST NOT be cancelled: the session is left neither initialised nor closed. Usually a host timeout that is too short for a slow-starting server.",
        fix: "Give `initialize` a longer timeout; to give up, close the server's stdin and end the process.",
        spec: "cancellation, 2024-11-05 to 2025-11-25: the initialize request MUST NOT be cancelled by clients",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":0,\"reason\":\"timed out\"}}",
    },
    CancelUnknownRequest => {
        name: "cancel-unknown-request", group: Utilities, severity: Info, revisions: ALL,
        summary: "a cancellation for a request that is not in flight",
        why: "The receiver ignores it (the spec says it SHOULD). If the request was answered just before, this is a harmless race; if no such request was ever sent, the canceller has its ids wrong, and the request it meant to stop is still running.",
        fix: "Cancel only requests that are still in flight, by their exact id.",
        spec: "cancellation, all revisions: `requestId` MUST correspond to a request previously issued in the same direction; invalid cancellations SHOULD be ignored",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":42}}",
    },
    ResponseAfterCancel => {
        name: "response-after-cancel", group: Utilities, severity: Info, revisions: ALL,
        summary: "a response arrived for a request that had been cancelled",
        why: "A legal race: the response was probably on its way when the cancellation arrived, and the requester ignores it. Worth seeing, because the work was done after all, and in 2026-07-28 a server MUST NOT send further messages for a request it saw cancelled.",
        fix: "Nothing, unless it happens every time: then the receiver ignores cancellations.",
        spec: "cancellation, all revisions: the sender of the cancellation SHOULD ignore any response that arrives afterwards",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[]}}",
    },
    TaskCancelledByNotification => {
        name: "task-cancelled-by-notification", group: Utilities, severity: Error, revisions: only(Revision::V2025_11_25),
        summary: "a task-augmented request cancelled with `notifications/cancelled`",
        why: "A task outlives its request: `notifications/cancelled` does not stop it, so the task keeps running and consuming resources.",
        fix: "Cancel tasks with the `tasks/cancel` request and the task id.",
        spec: "cancellation, 2025-11-25: task-augmented requests MUST be cancelled with tasks/cancel, not this notification",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{},\"tasks\":{\"requests\":{\"tools\":{\"call\":{}}}}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"reindex\",\"arguments\":{},\"task\":{\"ttl\":60000}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
    },
    TaskStatusAfterTerminal => {
        name: "task-status-after-terminal", group: Utilities, severity: Error, revisions: only(Revision::V2025_11_25),
        summary: "a task's status changed after it was completed, failed or cancelled",
        why: "`completed`, `failed` and `cancelled` are terminal: a requestor that saw one has fetched or discarded the result. A later status means the receiver's task store is inconsistent, and results may be lost.",
        fix: "Never change a task once it is terminal.",
        spec: "tasks, 2025-11-25: tasks in a terminal status MUST NOT transition to any other status",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{},\"tasks\":{\"requests\":{\"tools\":{\"call\":{}}}}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"t1\",\"status\":\"completed\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:01Z\",\"ttl\":null}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":{\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:02Z\",\"ttl\":null}}",
    },

    // ---- tool calls ----
    ToolErrorAsProtocolError => {
        name: "tool-error-as-protocol-error", group: Tools, severity: Warning, revisions: ALL,
        summary: "a tool failure answered with a JSON-RPC error instead of `isError: true`",
        why: "A JSON-RPC error on a `tools/call` (any code but the protocol-level ones: -32700, -32600, -32601, -32602 and the codes MCP assigns) is a protocol failure: hosts show it to the user, or not at all, but the model never sees it, so it cannot react (retry, pick another file). Errors that come from the tool itself belong in the result.",
        fix: "Return `{\"content\": [{\"type\": \"text\", \"text\": \"file not found: a.txt\"}], \"isError\": true}`; keep JSON-RPC errors for unknown tools and malformed requests.",
        spec: "tools, all revisions: errors that originate from the tool SHOULD be reported inside the result object with isError set to true, not as an MCP protocol-level error response",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32603,\"message\":\"file not found: a.txt\"}}",
    },
    ErrorTextAsSuccess => {
        name: "error-text-as-success", group: Tools, severity: Info, revisions: ALL,
        summary: "a `tools/call` result without `isError: true` whose only text is an error message",
        why: "A tool that failed but answers a plain result (`isError` absent or false) whose only content is text such as `Error: file not found` or a traceback tells the host the call succeeded. Hosts show and log it as a success, and the model may take the error text as the tool's output and go on with it instead of retrying or changing course. Often a `try`/`except` in the handler returns the message instead of raising it.",
        fix: "Return the failure with `isError: true` (raise in the SDKs' tool decorators, or set `isError` in a hand-built result), so the host and the model see that the tool failed.",
        spec: "tools, all revisions: errors that originate from the tool are reported in the result with isError set to true",
        example: r#"> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Error: file not found: a.txt"}],"isError":false}}"#,
    },
    UnknownToolAsToolError => {
        name: "unknown-tool-as-tool-error", group: Tools, severity: Warning, revisions: ALL,
        summary: "a call of an unknown tool answered with `isError: true` instead of a -32602 error",
        why: "An unknown tool is a protocol error in every revision: the caller asked for something the server does not have, and only a -32602 error tells the host so (it can list the tools again, or drop a stale name). Answered as a tool failure, the model reads it as the tool having run and failed, and retries or reasons about a tool that is not there. mcpdbg fires when the server's complete `tools/list` lacks the name, or the answer's text says the tool is unknown; otherwise it cannot tell the two apart and stays silent.",
        fix: "Answer a `tools/call` of a name the server does not have with `{\"code\": -32602, \"message\": \"Unknown tool: x\"}`; keep `isError: true` for tools that ran and failed.",
        spec: "tools, all revisions: unknown tools are a protocol error (-32602, invalid params); errors that originate from the tool are reported in the result with isError",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_all\",\"arguments\":{}}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Unknown tool: delete_all\"}],\"isError\":true}}",
    },
    InvalidArgumentsWrongChannel => {
        name: "invalid-arguments-wrong-channel", group: Tools, severity: Warning, revisions: ALL.worded("all (the right answer changes in 2025-11-25)"),
        summary: "rejected tool arguments answered the way the other revisions ask",
        why: "Where invalid arguments go changed in 2025-11-25: up to 2025-06-18 they are a -32602 protocol error, from 2025-11-25 an `isError: true` result, so the model sees what it got wrong and can call again with fixed arguments. A server answering the other way is judged by a client of the negotiated revision as the wrong kind of failure. mcpdbg fires only when the log shows the arguments were the cause (the answer's text says so, or the tool-schema check found them breaking the listed `inputSchema`) and the answer is not about an unknown tool.",
        fix: "Up to 2025-06-18 answer invalid arguments with a -32602 error; from 2025-11-25 return `{\"content\": [{\"type\": \"text\", \"text\": \"a: expected a number\"}], \"isError\": true}`.",
        spec: "tools: invalid arguments are a protocol error (-32602) up to 2025-06-18; from 2025-11-25, input validation errors are tool execution errors (isError: true), not protocol errors",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"calc\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":\"two\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"Invalid arguments for tool add: a must be a number\"}}",
    },
    ArgsNotArguments => {
        name: "args-not-arguments", group: Tools, severity: Error, revisions: ALL,
        summary: "`tools/call` params with `args` and no `arguments`",
        why: "The parameter is `arguments`. Servers ignore the unknown `args`, so the tool runs with no arguments, and fails or does the wrong thing.",
        fix: "Rename `args` to `arguments`.",
        spec: "schema, all revisions: CallToolRequest params are `name` and `arguments`",
        example: r#"> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","args":{"path":"/tmp/a"}}}"#,
    },
    MissingContent => {
        name: "missing-content", group: Tools, severity: Error, revisions: ALL,
        summary: "a `tools/call` result without `content`",
        why: "`content` is required: clients validate the result and reject it, so the caller sees an error instead of the tool's output. It often happens when a server returns only `structuredContent`.",
        fix: "Always return `content` (an empty array at least; with structured output also its JSON as a text block).",
        spec: "schema, all revisions: CallToolResult.content is required",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"stats\",\"arguments\":{}}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"structuredContent\":{\"notes\":412}}}",
    },
    ArgumentsViolateInputSchema => {
        name: "arguments-violate-input-schema", group: Tools, severity: Warning, revisions: ALL,
        summary: "`tools/call` arguments the tool's listed `inputSchema` rejects",
        why: "The server listed the tool's input schema earlier in the session, and the call does not match it: a missing required argument, a string where a number is declared, a value outside an enum. The tool fails or, worse, runs on coerced data. It usually means the client (or the model behind it) built the arguments without the schema, or from an older listing. The finding names each failing path and the line of the listing. The server's right answer depends on the revision: a -32602 protocol error up to 2025-06-18, an `isError: true` result from 2025-11-25.",
        fix: "Build the arguments from the tool's latest `inputSchema` and validate them before sending; after `notifications/tools/list_changed`, list the tools again.",
        spec: "schema, all revisions: Tool.inputSchema is \"a JSON Schema object defining the expected parameters for the tool\"; 2025-11-25: input validation errors are reported in tool execution errors (isError), up to 2025-06-18 invalid arguments are a -32602 protocol error",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]}}]}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":\"two\"}}}",
    },
    StructuredContentMismatch => {
        name: "structured-content-mismatch", group: Tools, severity: Error, revisions: range(Revision::V2025_06_18, Revision::LATEST).worded("2025-06-18 and later"),
        summary: "a `tools/call` result whose `structuredContent` breaks the tool's listed `outputSchema`, or is missing",
        why: "A tool that declares an output schema promises results its callers can parse by it; SDK clients validate `structuredContent` against it and reject a non-conforming result with an error of their own, so the caller never sees the data, and nothing of that rejection is on the wire. The finding names each failing path and the line of the listing.",
        fix: "Return `structuredContent` that matches the declared `outputSchema` (fix the handler or the schema), on every successful result of the tool.",
        spec: "tools, 2025-06-18 and later: if an output schema is provided, servers MUST provide structured results that conform to this schema (structuredContent: an object up to 2025-11-25, any JSON value in 2026-07-28)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"count\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"}},\"required\":[\"count\"]}}]}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{}}}\n< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"total\\\":\\\"12\\\"}\"}],\"structuredContent\":{\"total\":\"12\"}}}",
    },
    UnlistedToolCalled => {
        name: "unlisted-tool-called", group: Tools, severity: Info, revisions: ALL,
        summary: "a `tools/call` of a tool the session's latest complete `tools/list` does not have",
        why: "Clients are meant to call the tools the server lists. A call of a tool that was never listed, or that a later listing dropped (after `notifications/tools/list_changed`), comes from a stale cache, a hard-coded name, another server's list or a model's guess; the server can only refuse it. mcpdbg says so only when the session shows a complete listing before the call (every page, up to a result without `nextCursor`), and not between a `list_changed` and the next complete listing. It is a note: the call may be deliberate (probing), and the server's answer is judged by its own rules.",
        fix: "Call only tools from the latest `tools/list` (all of its pages); after `notifications/tools/list_changed`, list again before calling.",
        spec: "tools, all revisions: to discover available tools, clients send a tools/list request; when the list of available tools changes, servers that declared listChanged SHOULD send notifications/tools/list_changed; an unknown tool is answered with an error (-32602)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"search_notes\",\"inputSchema\":{\"type\":\"object\"}}]}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_notes\",\"arguments\":{}}}",
    },
    UnportableToolSchema => {
        name: "unportable-tool-schema", group: Tools, severity: Info, revisions: ALL,
        summary: "a listed tool's schema uses constructs clients handle inconsistently",
        why: "Hosts do not all validate a tool's schema: many turn it into a form or into a model provider's function declaration, and those read a plain object with typed `properties`. A top-level `oneOf`, `anyOf`, `allOf` or `not` has no such reading: some hosts drop it (the model then sends arguments that match none of the branches), some providers reject the whole tool list. A `$ref` in `inputSchema` needs the schema resolved before use; hosts that flatten schemas for a provider often do not, and an external `$ref` (in either schema) is fetched by almost none (from 2026-07-28 implementations MUST NOT auto-dereference network references), so the constraint behind it is lost. A property with no `type` (nor `enum`, `const`, `$ref` or a combinator) leaves the model to guess the value's type, and strict providers refuse it. From 2025-11-25 the dialect of embedded schemas is 2020-12 by default and it is the only one implementations MUST support: a schema that names another `$schema` (draft-04, 2019-09, a custom meta-schema) may be validated with other rules or rejected. draft-07, the dialect of MCP's own schemas up to 2025-06-18 and what the official SDKs emit, is not flagged. Each distinct schema is named once per session, at the listing that first shows it.",
        fix: "Keep `inputSchema` a plain `{\"type\": \"object\", \"properties\": ...}` with a `type` on every property; express alternatives as optional properties (or separate tools), inline `$ref`s, and emit 2020-12 schemas (or none: the default) from 2025-11-25.",
        spec: "tools, all revisions: inputSchema is a JSON Schema object defining the expected parameters for the tool (type: object); 2025-11-25: schemas without $schema default to JSON Schema 2020-12, implementations MUST support 2020-12; 2026-07-28: implementations MUST NOT automatically dereference network $refs",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"find\",\"inputSchema\":{\"anyOf\":[{\"required\":[\"title\"]},{\"required\":[\"tag\"]}],\"properties\":{\"title\":{\"type\":\"string\"},\"tag\":{}}}}]}}",
    },
    // ---- security ----
    LeakedInternals => {
        name: "leaked-internals", group: Security, severity: Warning, revisions: ALL,
        summary: "an error carries a stack trace, a traceback or absolute file paths",
        why: "Error messages reach the host, its logs and often the model, and users paste them into public issues. A traceback or a path reveals the server's code layout, user names and installed software, and helps an attacker more than the user.",
        fix: "Log the details to stderr and answer with a short message (`\"file not found: a.txt\"`).",
        spec: "security considerations, all revisions: servers should not expose internal details in errors (mcpdbg's own rule)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"notes://a\"}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32603,\"message\":\"Traceback (most recent call last):\\n  File \\\"/home/ana/notes/server.py\\\", line 88, in read\\nKeyError: 'a'\"}}",
    },

    // ---- the modern era (2026-07-28) ----
    MissingRequestMeta => {
        name: "missing-request-meta", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a request without `_meta` protocolVersion or clientCapabilities",
        why: "With no handshake, every request carries its own version and capabilities. A server answers a request without them with -32602.",
        fix: "Put `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities` in every request's `params._meta`.",
        spec: "2026-07-28: `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities` are required on every request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},\"ttlMs\":0,\"cacheScope\":\"public\"}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
    },
    ServerSentRequest => {
        name: "server-sent-request", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a server sent a JSON-RPC request in the 2026 era",
        why: "In 2026-07-28 servers never send requests: sampling, roots and elicitation travel inside an `input_required` result instead. A modern client does not answer, so the server waits forever.",
        fix: "Return an `InputRequiredResult` with `inputRequests` from the request that needs the input.",
        spec: "2026-07-28 base protocol: servers MUST NOT initiate JSON-RPC requests",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}",
    },
    ClientSentResponse => {
        name: "client-sent-response", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a client sent a JSON-RPC response in the 2026 era",
        why: "In 2026-07-28 clients never send responses (the server sends no requests to answer). The server drops it.",
        fix: "Answer an `input_required` result by retrying the request with `inputResponses`.",
        spec: "2026-07-28 base protocol: clients never send responses",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n> {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
    },
    MissingResultType => {
        name: "missing-result-type", group: Modern, severity: Warning, revisions: only(Revision::V2026_07_28),
        summary: "a 2026 result without `resultType`",
        why: "Servers of 2026-07-28 MUST set `resultType` (`complete`, `input_required`, ...). Clients treat a missing one as `complete`, which hides an `input_required` answer from an old-style server.",
        fix: "Add `\"resultType\": \"complete\"` to every result.",
        spec: "2026-07-28: resultType is required on every result; clients MUST treat an absent value as complete",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[],\"ttlMs\":0,\"cacheScope\":\"private\"}}",
    },
    RetiredErrorCode => {
        name: "retired-error-code", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a 2026 server answered with the retired error code -32002",
        why: "Up to 2025-11-25 a missing resource was -32002; 2026-07-28 retires the code (it stays reserved) and asks for -32602. A 2026 client that dispatches on codes misreads the answer.",
        fix: "Answer a missing resource with -32602 (invalid params) under 2026-07-28.",
        spec: "error codes, 2026-07-28: -32002 MUST NOT be emitted; use -32602 (the code stays reserved, and clients SHOULD still accept it from older servers)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"notes://gone\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32002,\"message\":\"Resource not found\"}}",
    },
    MissingCacheHints => {
        name: "missing-cache-hints", group: Modern, severity: Warning, revisions: only(Revision::V2026_07_28),
        summary: "a complete list, read or discover result without valid `ttlMs` and `cacheScope`",
        why: "2026-07-28 makes caching explicit: complete results of server/discover, the lists and resources/read carry `ttlMs` (an integer of 0 or more) and `cacheScope` (public or private). Without them a client treats the result as never cacheable and asks again every time; a wrong scope can leak one user's listing to another through a shared cache.",
        fix: "Set `ttlMs` and `cacheScope` on those results (the 2026 SDKs do when you let them build the result).",
        spec: "caching, 2026-07-28: ttlMs (integer >= 0) and cacheScope (\"public\" | \"private\") are required on complete results of server/discover, the lists and resources/read",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"tools\":[]}}",
    },
    InputRequiredMisuse => {
        name: "input-required-misuse", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "an `input_required` result on the wrong method, or with nothing to ask",
        why: "Only `tools/call`, `prompts/get` and `resources/read` may answer `input_required`, and the result must carry `inputRequests` or `requestState`. An input request may only be `elicitation/create`, `sampling/createMessage` or `roots/list`, and only of a kind the request's `clientCapabilities` declared. Otherwise the client cannot answer, cannot retry, and the request fails.",
        fix: "Ask for input only from those three methods, and say what you need in `inputRequests`.",
        spec: "2026-07-28 multi round-trip requests: servers MUST NOT answer other methods with InputRequiredResult; at least one of inputRequests or requestState MUST be present; an InputRequest's method is elicitation/create, sampling/createMessage or roots/list, and the server MUST NOT include kinds the client did not declare in its capabilities",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\"}}",
    },
    RequestStateNotEchoed => {
        name: "request-state-not-echoed", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a retry after `input_required` altered, dropped or invented `requestState`",
        why: "`requestState` is the server's own record of where the request stood; the client must send it back exactly as given, or not at all when none was given. A changed, missing or made-up state makes the server start over, reject the retry, or (if it does not protect the state) act on a state it never issued.",
        fix: "Copy `requestState` from the `input_required` result into the retry unchanged; send none if the result had none.",
        spec: "2026-07-28 multi round-trip requests: the client retries the same method and params with inputResponses, and echoes requestState exactly (or omits it if none was given)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"ok\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Deploy?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}},\"requestState\":\"s1\"}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{},\"inputResponses\":{\"ok\":{\"action\":\"accept\"}},\"requestState\":\"s2\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}",
    },
    CacheScopeChanged => {
        name: "cache-scope-changed", group: Modern, severity: Warning, revisions: only(Revision::V2026_07_28),
        summary: "the pages of one listing carry different `cacheScope`s",
        why: "A listing is cached as a whole: a client that finds one page `public` and the next `private` cannot tell whether it may share the list between users, and may leak a private page or refuse to cache a public one.",
        fix: "Answer every page of a listing with the same `cacheScope`.",
        spec: "2026-07-28 caching: all pages of a list MUST share the same cacheScope",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"tools\":[],\"nextCursor\":\"p2\",\"ttlMs\":0,\"cacheScope\":\"public\"}}\n> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"cursor\":\"p2\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"tools\":[],\"ttlMs\":0,\"cacheScope\":\"private\"}}",
    },
    ServerCancelNotListen => {
        name: "server-cancel-not-listen", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a 2026 server sent `notifications/cancelled` for something other than a `subscriptions/listen`",
        why: "In 2026-07-28 only the client cancels its requests; a server sends `notifications/cancelled` only to end a listen stream. A server cancelling a client's `tools/call` is telling the client nothing it can act on: the request stays open on the client until its timeout, unless the server answers it.",
        fix: "To give up on a request, answer it (an error, or `isError: true` for a tool); keep `notifications/cancelled` for ending a `subscriptions/listen`.",
        spec: "2026-07-28 cancellation: the server sends notifications/cancelled only to tear down a subscriptions/listen and MUST NOT use it for anything else",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"shutting down\"}}",
    },
    ClosedWithoutCancel => {
        name: "closed-without-cancel", group: Modern, severity: Warning, revisions: only(Revision::V2026_07_28),
        summary: "a 2026 client closed the connection with a request still running, never cancelled",
        why: "On stdio a 2026-07-28 client that stops waiting for a request must say so with `notifications/cancelled`: the server then stops the work and frees what it holds. A client that just closes the server's stdin leaves the server to find out from the broken pipe, mid-handler: side effects may run to completion for nobody, and what the server logs is a `Connection closed` failure rather than a cancellation.",
        fix: "Before closing the connection (or whenever the client stops waiting), send `notifications/cancelled` with the request's id for each request still running; give the server a moment to stop before closing stdin.",
        spec: "2026-07-28 cancellation: only the client cancels its requests, and on stdio it MUST use notifications/cancelled",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n# stdin closed",
    },
    SubscriptionNotificationNotRequested => {
        name: "subscription-notification-not-requested", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a listen stream carries a notification type the `subscriptions/listen` did not ask for",
        why: "A client asks for exactly the notifications it handles (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`, `resourceSubscriptions`); one it did not ask for is at best dropped, at worst taken as a change it is not prepared for (a list reloaded, a resource read it never subscribed to).",
        fix: "Send on a listen stream only the types its request asked for (and acknowledged); for `notifications/resources/updated`, only URIs in `resourceSubscriptions`.",
        spec: "2026-07-28 subscriptions/listen: the server MUST NOT send notification types the client did not request",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":1}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":1}}}",
    },
    RetryReusedId => {
        name: "retry-reused-id", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "the retry after `input_required` reused the request's id",
        why: "The retry is a new request and MUST use a new id; servers that keep per-id state (or proxies) confuse the two rounds.",
        fix: "Give the retry a fresh id.",
        spec: "2026-07-28 multi round-trip requests: the retry MUST use a new JSON-RPC id",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"delete\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}\n< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"r1\"}}\n> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"delete\",\"arguments\":{},\"requestState\":\"r1\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}",
    },
    SubscriptionNotificationUnacknowledged => {
        name: "subscription-notification-unacknowledged", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a subscription notification before its acknowledgement, or for no open listen",
        why: "On a `subscriptions/listen` stream the server MUST first send `notifications/subscriptions/acknowledged`, and every notification carries the listen request's id as `subscriptionId`. Clients drop notifications they cannot attribute, so list changes go unnoticed.",
        fix: "Acknowledge each listen first, and tag notifications with the id of an open listen request.",
        spec: "2026-07-28 subscriptions: the acknowledgement MUST be the first message carrying the subscription's id; every stream notification MUST carry io.modelcontextprotocol/subscriptionId",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":1}}}",
    },
    NotificationNotAllowed => {
        name: "notification-not-allowed", group: Modern, severity: Error, revisions: only(Revision::V2026_07_28),
        summary: "a client notification other than `notifications/cancelled` in the 2026 era",
        why: "In 2026-07-28 the client's only notification is `notifications/cancelled`; there is no `initialized` and no roots change notification. The server ignores the rest.",
        fix: "Drop the notification (roots travel in `input_required` answers).",
        spec: "2026-07-28 schema: ClientNotification is notifications/cancelled only",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}",
    },

    // ---- shapes of the messages mcpdbg reads ----
    InvalidParams => {
        name: "invalid-params", group: Shapes, severity: Error, revisions: ALL,
        summary: "params of a known method with a wrong type or a missing required field",
        why: "The receiver validates params against the schema and answers -32602, or, if it does not validate, works with a missing or mistyped value. mcpdbg checks the params of `initialize` and `tools/call`, and names the JSON path of the problem.",
        fix: "Send the field with the schema's type (see the path in the finding).",
        spec: "schema per revision: InitializeRequestParams, CallToolRequestParams",
        example: r#"> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"host"}}}"#,
    },
    InvalidResult => {
        name: "invalid-result", group: Shapes, severity: Error, revisions: ALL,
        summary: "a result with a wrong type or a missing required field",
        why: "The caller validates the result and rejects it, so it sees an error instead of the answer, or works with a missing value. mcpdbg checks the results of `initialize` and `tools/call` and their content blocks, and every list result (`tools/list`: each tool's `name`, `title`, `description` and annotation types, `inputSchema` an object schema with `type: \"object\"`; `prompts/list`, `resources/list`, `resources/templates/list`, `tasks/list`; `nextCursor` a string), and names the JSON path of the problem (`result.content[0].type`). A listing matters most: SDK clients validate the whole result, and one bad tool makes them drop every tool, silently.",
        fix: "Send the field with the schema's type (see the path in the finding).",
        spec: "schema per revision: InitializeResult, CallToolResult, ContentBlock, ListToolsResult (Tool.inputSchema has type: \"object\"), ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ListTasksResult (2025-11-25); PaginatedResult.nextCursor is a string",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"stats\",\"arguments\":{}}}\n< {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"text\":\"412 notes\"}]}}",
    },
    SchemaViolation => {
        name: "schema-violation", group: Shapes, severity: Warning, revisions: ALL,
        summary: "a message that breaks the official JSON Schema of the session's revision (with `--schema-check`)",
        why: "The specification defines every request, notification, result and error as a type of its schema, published as JSON Schema per revision; SDKs parse messages with types generated from it, so a message that breaks it is rejected, or read with a field dropped or defaulted, by a peer that validates and silently accepted by one that does not. mcpdbg judges a request or notification by its method's definition (`CallToolRequest`), a result by the definition of the request it answers (`CallToolResult`), an error by `JSONRPCError`, and names the JSON Pointer of each violation. It is a warning, not an error: the JSON Schema is generated from the TypeScript source and is stricter in places than what SDKs accept, and the errors that break sessions outright have rules of their own (invalid-params, invalid-result, missing-content).",
        fix: "Change the field at the JSON Pointer to what the named definition of the revision's schema says; `mcpdbg explain` on the finding's other rules tells the usual cause.",
        spec: "basic, all revisions: all messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification, and the protocol's messages are the types of its schema (schema.ts, the normative source, published as schema.json)",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"logging\":{}},\"serverInfo\":{\"name\":\"notes\",\"version\":\"1\"}}}\n> {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n< {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"loud\",\"data\":\"index rebuilt\"}}",
    },

    // ---- baseline drift: `probe --baseline` against a stored baseline ----
    BaselineToolRemoved => {
        name: "baseline-tool-removed", group: Baseline, severity: Error, revisions: ALL,
        summary: "a tool in the baseline is no longer listed by the server",
        why: "Hosts and agents call tools by name: a prompt, a saved workflow or another program that calls the tool now gets an error, and a model that was told about it tries it anyway. A tool that disappears between two versions of a server is the drift that breaks clients silently, since nothing in the protocol announces it.",
        fix: "Bring the tool back (or keep the old name as an alias) if clients use it; if the removal is intended, run `mcpdbg probe --baseline FILE --update-baseline` and commit the new baseline.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); tools/list, all revisions",
        example: "(probe --baseline: the baseline lists the tool `search`, the server's tools/list no longer does)",
    },
    BaselineToolAdded => {
        name: "baseline-tool-added", group: Baseline, severity: Info, revisions: ALL,
        summary: "the server lists a tool the baseline does not have",
        why: "A new tool breaks no client, but it is new surface: the model is offered it from now on, and a host that asks users to approve tools will ask again. Recording it in the baseline keeps the next change visible.",
        fix: "If the tool is intended, run `mcpdbg probe --baseline FILE --update-baseline` and commit the new baseline.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); tools/list, all revisions",
        example: "(probe --baseline: the server's tools/list has `export`, the baseline does not)",
    },
    BaselineSchemaChanged => {
        name: "baseline-schema-changed", group: Baseline, severity: Error, revisions: ALL,
        summary: "a tool's input or output schema differs from the baseline",
        why: "Clients build a tool's arguments from its input schema and read its structured result by its output schema. A renamed or newly required argument makes old calls fail validation; a changed output schema breaks whoever parses `structuredContent`. The finding names the JSON paths that differ.",
        fix: "Keep the schemas compatible (add optional properties, do not rename or retype), or, for an intended change, update the baseline with `--update-baseline` and tell the tool's users.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); Tool.inputSchema, Tool.outputSchema (2025-06-18 and later)",
        example: "(probe --baseline: the input schema of `add` has a required property `c` the baseline does not)",
    },
    BaselineToolChanged => {
        name: "baseline-tool-changed", group: Baseline, severity: Warning, revisions: ALL,
        summary: "a tool's title, description or annotations differ from the baseline",
        why: "The model decides when and how to call a tool from its description, and hosts decide whether to ask for confirmation from its annotations (`readOnlyHint`, `destructiveHint`). A changed description changes the model's behaviour; a description that changes after users approved the tool is also how a malicious server slips new instructions in.",
        fix: "Review the change; if it is intended, run `mcpdbg probe --baseline FILE --update-baseline` and commit the new baseline.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); Tool.description, Tool.annotations",
        example: "(probe --baseline: the description of `search` differs from the baseline's)",
    },
    BaselineResourceRemoved => {
        name: "baseline-resource-removed", group: Baseline, severity: Warning, revisions: ALL,
        summary: "a resource or resource template in the baseline is no longer listed",
        why: "Clients read resources by URI and build URIs from templates: a host that attached the resource to a conversation, or a client that fills in the template, gets an error. Resource lists can also change with the data a server serves, hence a warning.",
        fix: "Keep the URI (or template) if clients use it; if the change is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); resources/list and resources/templates/list, all revisions",
        example: "(probe --baseline: the baseline lists the resource `file:///notes/index.md`, the server no longer does)",
    },
    BaselineResourceAdded => {
        name: "baseline-resource-added", group: Baseline, severity: Info, revisions: ALL,
        summary: "the server lists a resource or resource template the baseline does not have",
        why: "A new resource breaks no client; recording it in the baseline keeps the next change to it visible.",
        fix: "If it is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); resources/list and resources/templates/list, all revisions",
        example: "(probe --baseline: the server lists the resource template `notes://{id}`, the baseline does not)",
    },
    BaselineResourceChanged => {
        name: "baseline-resource-changed", group: Baseline, severity: Info, revisions: ALL,
        summary: "a resource's or template's name, title, description or MIME type differs from the baseline",
        why: "Hosts show resources by name and description and pick how to read them by MIME type; a change there is rarely breaking but is worth seeing in review.",
        fix: "If it is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); Resource, ResourceTemplate",
        example: "(probe --baseline: the MIME type of `file:///notes/index.md` differs from the baseline's)",
    },
    BaselinePromptRemoved => {
        name: "baseline-prompt-removed", group: Baseline, severity: Warning, revisions: ALL,
        summary: "a prompt in the baseline is no longer listed",
        why: "Hosts offer prompts to users by name (often as slash commands); a user's saved command or a script that gets the prompt by name now fails.",
        fix: "Keep the prompt if users rely on it; if the removal is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); prompts/list, all revisions",
        example: "(probe --baseline: the baseline lists the prompt `summarise`, the server no longer does)",
    },
    BaselinePromptAdded => {
        name: "baseline-prompt-added", group: Baseline, severity: Info, revisions: ALL,
        summary: "the server lists a prompt the baseline does not have",
        why: "A new prompt breaks no client; recording it in the baseline keeps the next change to it visible.",
        fix: "If it is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); prompts/list, all revisions",
        example: "(probe --baseline: the server lists the prompt `triage`, the baseline does not)",
    },
    BaselinePromptChanged => {
        name: "baseline-prompt-changed", group: Baseline, severity: Warning, revisions: ALL,
        summary: "a prompt's arguments, title or description differ from the baseline",
        why: "Hosts ask users for a prompt's arguments as it lists them: a renamed or newly required argument makes a saved invocation fail, and a changed description changes what users pick.",
        fix: "Keep arguments compatible (add optional ones); if the change is intended, update the baseline with `--update-baseline`.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); Prompt.arguments",
        example: "(probe --baseline: the prompt `summarise` has a required argument `style` the baseline does not)",
    },
    ToolListCostGrew => {
        name: "tool-list-cost-grew", group: Baseline, severity: Warning, revisions: ALL,
        summary: "the tool list's definitions grew past --cost-growth percent since the baseline",
        why: "A host sends the definition of every listed tool to the model with every request, before the user has said anything: a longer description or a bigger input schema costs context, money and latency on every turn of every conversation, and a long tool list crowds out the conversation itself (and makes the model worse at picking a tool). The growth is easy to miss in review when it comes a sentence at a time, and hosts' own counts are often wrong. mcpdbg measures each definition as minified JSON (name, title, description, inputSchema, outputSchema and annotations: what a host forwards), records their sum in the baseline, and reports a sum more than --cost-growth percent (10 by default) over the baseline's, naming the tools that grew most.",
        fix: "Shorten what grew: descriptions the model does not need, examples and long enums in schemas, tools rarely used (move them to another server); if the growth is intended, run `mcpdbg probe --baseline FILE --update-baseline` and commit the new baseline.",
        spec: "mcpdbg's own check against a baseline file (docs/ci.md); Tool (tools/list, all revisions): name, title, description, inputSchema, outputSchema, annotations",
        example: "(probe --baseline: the tool list's definitions cost 1,240 bytes, 24% more than the 1,000 bytes of the baseline)",
    },
    ToolListOverBudget => {
        name: "tool-list-over-budget", group: Baseline, severity: Error, revisions: ALL,
        summary: "the tool list's definitions cost more tokens than --max-tool-list-tokens",
        why: "A host sends the definition of every listed tool to the model with every request, so the tool list is a fixed cost on each turn, paid before the conversation starts. A budget in CI (`probe --max-tool-list-tokens N`) keeps it from creeping up: the tokens are estimated at 4 bytes of minified JSON per token (name, title, description, inputSchema, outputSchema and annotations), or counted with an OpenAI encoding in a build with the `tokenizer` feature (`--tokens`). A host renders definitions into its own prompt format, so its figure differs somewhat.",
        fix: "Shorten descriptions and schemas, drop tools the model rarely needs or move them to another server, or raise the budget if the cost is intended.",
        spec: "mcpdbg's own check of a probed server (docs/ci.md); Tool (tools/list, all revisions): name, title, description, inputSchema, outputSchema, annotations",
        example: "(probe --max-tool-list-tokens 2000: the definitions of the 12 tools listed cost 2,410 tokens)",
    },

    // ---- assertions: contracts the user states, not protocol rules ----
    ExpectedToolNotCalled => {
        name: "expected-tool-not-called", group: Assertions, severity: Error, revisions: ALL,
        summary: "the session never called a tool that --expect-tool names",
        why: "An assertion, not a protocol rule: a capture meant to exercise a tool (a CI probe, a replayed bug report, a host's session under test) that never calls it tests nothing about that tool. Judged over every session of the same server in the log, so a host that restarts the server and calls the tool afterwards has called it. The finding is at the `tools/list` answer that first listed the tool (it was offered and not used); when no answer listed it, at the end of the session, saying whether the server listed tools at all. Runs only when `--expect-tool` (or `expect-tool` in the configuration file) names a tool.",
        fix: "Make the client call the tool (with `probe`, name it with `--call TOOL` too); if the server does not list it, register it; if the expectation is out of date, drop it.",
        spec: "mcpdbg assertion (--expect-tool); not a protocol rule",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"search_notes\",\"inputSchema\":{\"type\":\"object\"}}]}}",
    },
    ForbiddenToolCalled => {
        name: "forbidden-tool-called", group: Assertions, severity: Error, revisions: ALL,
        summary: "the session called a tool that --forbid-tool names",
        why: "An assertion, not a protocol rule: some tools must never run in a given setting (a destructive tool in a read-only deployment, a tool a scenario must not reach for). Reported at each `tools/call` of the tool, whatever the answer, since the call itself is the breach (at most 200 per file, the rest counted). Runs only when `--forbid-tool` (or `forbid-tool` in the configuration file) names a tool.",
        fix: "Find why the client called it (the model's instructions, the host's tool filter) and keep the server from listing it in that setting; if the call is intended, drop the assertion.",
        spec: "mcpdbg assertion (--forbid-tool); not a protocol rule",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_note\",\"arguments\":{\"id\":\"n-17\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"deleted n-17\"}]}}",
    },
    LatencyOverBudget => {
        name: "latency-over-budget", group: Assertions, severity: Error, revisions: ALL,
        summary: "a request answered later than its --max-latency budget",
        why: "An assertion, not a protocol rule: a latency budget is a contract a server keeps with its hosts (which time requests out, often after 10 to 60 seconds) and with the people waiting on a model. The latency is the one `slow-response` measures, from the request's timestamp to its answer's, for the requests the client sent; a request never answered is not judged here (see `request-not-completed`). `--max-latency SECONDS` is every request's budget; `--max-latency NAME=SECONDS` is a tool's own (its `tools/call`s) or a method's (`tools/list`, `initialize`), and wins for it. A handshake request sent as the server starts (after a recorder's `start` event) includes the server's start, so only a budget named for its method judges it. A log without timestamps cannot be judged: a `format-assumption` note says how many answers were not. Runs only when `--max-latency` (or `max-latency` in the configuration file) is given.",
        fix: "Make the handler faster (move blocking work off the event loop, cache, page large results), or raise the budget if it was set too tight; `mcpdbg stats` gives each method's latency percentiles.",
        spec: "mcpdbg assertion (--max-latency); not a protocol rule",
        example: "2026-11-20T14:03:11.000Z > {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"search_notes\",\"arguments\":{\"query\":\"budget\"}}}\n2026-11-20T14:03:14.400Z < {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3 notes\"}]}}",
    },
    RequestNotCompleted => {
        name: "request-not-completed", group: Assertions, severity: Error, revisions: ALL,
        summary: "requests still open at the end of a session that --require-complete says must finish",
        why: "An assertion, not a protocol rule: a session meant to run to completion (a probe, a replayed scenario, a test run) must leave nothing open. The requests are the ones the hang model reports at the end as `unanswered-request` or `cancelled-request`, each with its story there; a cancelled request counts as not completed, even when its sender chose to cancel it. So as not to repeat every hang, this is one finding per session, at the first such request, naming up to five of them with their lines and how each ended. A `subscriptions/listen` is long-lived by design and not counted. Runs only with `--require-complete` (or `require-complete = true` in the configuration file).",
        fix: "Read the `unanswered-request` and `cancelled-request` findings at the lines it names: each says who owes the reply and the likely cause.",
        spec: "mcpdbg assertion (--require-complete); not a protocol rule",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"file_note\",\"arguments\":{\"title\":\"Q3\"}}}",
    },
    ResultOverBudget => {
        name: "result-over-budget", group: Assertions, severity: Error, revisions: ALL,
        summary: "a tools/call result larger than --max-result-bytes",
        why: "An assertion, not a protocol rule: a tool's result goes into the model's context, where a large one costs tokens, pushes the conversation out and can pass a host's limit on one message. The size is that of the answer's `result` written as compact JSON (its members as the server sent them, without whitespace); of a result the log cut, at least what is left, and it says so. Error answers are not measured. `--max-result-bytes` takes bytes (`65536`) or a size with a unit: `64KiB` (1,024-byte units: KiB, MiB, GiB) or `1MB` (1,000-byte units: KB, MB, GB). Runs only when `--max-result-bytes` (or `max-result-bytes` in the configuration file) is given.",
        fix: "Return less: page or summarise large outputs, return a resource link instead of the contents, or leave out fields the model does not need.",
        spec: "mcpdbg assertion (--max-result-bytes); not a protocol rule",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"read_note\",\"arguments\":{\"id\":\"n-17\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Q3 planning: budget review moved to Thursday; bring the revised forecast\"}]}}",
    },

    // ---- notes about the analysis itself ----
    SessionRestarted => {
        name: "session-restarted", group: Analysis, severity: Info, revisions: ALL,
        summary: "a second session begins in the same log (the server was restarted)",
        why: "Hosts restart servers that crash or time out, and reconnect; recorders appending to one file keep both sessions. Each session is judged on its own: ids, the handshake and open requests start afresh, so a restarted client reusing id 0 is not id-reuse and its second initialize is not initialize-repeated. mcpdbg sees a restart in a recorder's `# start` after traffic, in a client's `initialize` after the session ended (stdin closed, the server exited, the host closed the transport), and in a client's `initialize` with the id of the session's first (ids start over: hosts that start a fresh server per operation, such as stateless agent tool loaders, do this; a client re-initialising a live session could not reuse that id).",
        fix: "Nothing to fix here; if the restart was not expected, look at how the earlier session ended.",
        spec: "lifecycle, all revisions: the initialization phase MUST be the first interaction between client and server (of each connection)",
        example: "# start node build/index.js\n> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n# server exited with status 1\n# start node build/index.js\n> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}",
    },
    ProbeOnlySession => {
        name: "probe-only-session", group: Analysis, severity: Info, revisions: ALL,
        summary: "a session that is only an era probe (`server/discover`, its answer, the end)",
        why: "Clients in auto mode (the TypeScript SDK v2, the Python SDK v2, several hosts) send `server/discover` to learn whether the server speaks the 2026-07-28 revision, often in a short-lived process of its own, and then hold the real session in another one. Such a recording holds no handshake and no work, and that is correct behaviour, not a missing initialize. An error answer (-32601, -32602) means a legacy server: the client falls back to `initialize`.",
        fix: "Nothing to fix; look for the real session in the next recording (or the next session of this log).",
        spec: "versioning, 2026-07-28: a client MAY probe with server/discover; a legacy server's error answer tells it to fall back to initialize",
        example: "> {\"jsonrpc\":\"2.0\",\"id\":\"probe-1\",\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}\n< {\"jsonrpc\":\"2.0\",\"id\":\"probe-1\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n# server killed by signal 15 (SIGTERM)",
    },
    StartsMidSession => {
        name: "starts-mid-session", group: Analysis, severity: Info, revisions: ALL,
        summary: "the transcript starts after the handshake",
        why: "The first client message is not a handshake, so the capture began late. The rules that need the missing evidence stay silent: handshake order, responses to requests before the capture, capabilities, and rules that depend on a revision the log does not show.",
        fix: "Capture from the server's start (`mcpdbg record`), or give `--revision`.",
        spec: "mcpdbg's own note",
        example: r#"> {"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search","arguments":{}}}"#,
    },
    DirectionInferred => {
        name: "direction-inferred", group: Analysis, severity: Info, revisions: ALL,
        summary: "the format has no direction markers; directions were inferred",
        why: "In a plain newline-delimited log (a `tee` of the pipe) nothing says who wrote a line. mcpdbg infers it: a request's sender from the method table, a response from the request it answers. Messages it cannot place, and text lines that may be stderr or stray stdout, are counted here once instead of guessed.",
        fix: "Record with `mcpdbg record` to get exact directions.",
        spec: "mcpdbg's own note",
        example: r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
    },
    FormatAssumption => {
        name: "format-assumption", group: Analysis, severity: Info, revisions: ALL,
        summary: "what mcpdbg had to assume about this log's format",
        why: "Host logs are not the bytes on the wire: they re-serialise JSON, cut long payloads, log only summaries, or stamp local times without a zone. mcpdbg says once per file what it assumed and which rules stay silent because of it, instead of guessing line by line.",
        fix: "For byte-exact evidence, record the session with `mcpdbg record`.",
        spec: "mcpdbg's own note",
        example: "2026-08-30T16:35:23.976Z [notes] [info] Message from client: method=\"tools/call\" id=3 params { metadata: undefined }",
    },
    OpenRequestLimit => {
        name: "open-request-limit", group: Analysis, severity: Info, revisions: ALL,
        summary: "so many requests were open at once that later ones were not followed",
        why: "To keep memory bounded, mcpdbg follows at most 20,000 open requests per side. A log that goes past that (a client that never waits, a server that answers nothing) is itself the finding; requests sent past the limit are not followed: their answers are accepted unchecked and their hangs are not reported one by one.",
        fix: "Look at why so many requests were open: the server stopped answering long before, or the client sends without waiting.",
        spec: "mcpdbg's own note",
        example: "(100,001 requests open at once; not shown here)",
    },
    BatchTooLarge => {
        name: "batch-too-large", group: Analysis, severity: Warning, revisions: ALL,
        summary: "a batch of more than 1,000 messages: the rest were counted, not analysed",
        why: "To keep memory bounded (each message built costs about a kilobyte; 500,000 in one line cost 473 MiB), mcpdbg analyses the first 1,000 members of a batch; the others are checked as JSON and counted, not read: their requests are not followed, so answers to them are reported as orphans, and nothing else is said about them. A batch that size is itself the finding: no client or server is known to send one.",
        fix: "Look at what wrote the batch: send messages one per line, and page what would be thousands of them.",
        spec: "mcpdbg's own note",
        example: "(a batch of 1,001 messages; not shown here)",
    },
    TooManyFindings => {
        name: "too-many-findings", group: Analysis, severity: Info, revisions: ALL,
        summary: "a rule fired so often that later findings were counted, not listed",
        why: "Each rule lists at most 200 findings per file so that the report stays readable and memory stays bounded; the rest are counted in this finding.",
        fix: "Fix the first few and check again, or filter with `--ignore`.",
        spec: "mcpdbg's own note",
        example: "(201 or more findings of one rule)",
    },
    ToolSchemasUnchecked => {
        name: "tool-schemas-unchecked", group: Analysis, severity: Info, revisions: ALL,
        summary: "tool calls were not checked against the listed schemas: past the work budget, or with --no-tool-schemas",
        why: "Checking each `tools/call`'s arguments and structured result against the schemas the server listed reads those messages again and validates them, which costs more than the rest of the check on structured or schema-heavy traffic. So that `check` keeps its speed on any log, that work has a budget per file: 2 MiB of work plus 4% of the bytes read (a small log is always checked whole). Past it, calls and results are counted, not checked, and listings are not read; this note says once per file how many, where the first was, and that `--schema-check` checks every one. With `--no-tool-schemas` the checks are off, and the note says so once when the log lists tool schemas, so that a clean report is not read as a clean bill for the tool data.",
        fix: "Run `check --schema-check` to check every call (no budget), or check without `--no-tool-schemas`.",
        spec: "mcpdbg's own note",
        example: "(a 50 MB log of tool calls with structured results)",
    },
}
impl Rule {
    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn severity(self) -> Severity {
        self.info().severity
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.name() == name)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_typed_and_shown_as_before() {
        let r = range(Revision::V2024_11_05, Revision::V2025_11_25);
        assert!(r.applies(Revision::V2025_06_18) && !r.applies(Revision::V2026_07_28));
        assert_eq!(r.to_string(), "2024-11-05 to 2025-11-25");
        let but = all_but(Revision::V2025_03_26);
        assert!(!but.applies(Revision::V2025_03_26) && but.applies(Revision::V2024_11_05));
        assert_eq!(but.to_string(), "all but 2025-03-26");
        assert!(!only(Revision::V2026_07_28).applies(Revision::V2025_06_18));
        assert_eq!(ALL.to_string(), "all");
        let cap = Rule::CapabilityNotNegotiated.info();
        assert_eq!(
            cap.severity_in(Some(Revision::V2025_03_26)),
            Severity::Warning
        );
        assert_eq!(
            cap.severity_in(Some(Revision::V2025_06_18)),
            Severity::Error
        );
        assert_eq!(cap.severity_in(None), cap.severity);
    }

    #[test]
    fn names_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for rule in Rule::ALL {
            let info = rule.info();
            assert!(seen.insert(info.name), "duplicate rule name {}", info.name);
            assert!(
                info.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{} is not kebab-case",
                info.name
            );
            assert!(!info.name.starts_with('-') && !info.name.ends_with('-'));
            assert!(!info.summary.is_empty() && !info.summary.ends_with('.'));
            assert!(info.why.len() > 60, "{} needs a why", info.name);
            assert!(!info.fix.is_empty() && !info.spec.is_empty() && !info.example.is_empty());
            assert_eq!(Rule::from_name(info.name), Some(*rule));
        }
    }
}
