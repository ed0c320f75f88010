//! The rule catalogue: every rule's stable name, default severity, the
//! revisions it applies to, a one-line summary and the explanation of why it
//! matters and how to fix it, each in one table row.
//!
//! The name is the rule's id in every output and never changes. This module
//! does not decide when a rule fires; `transport` and `session` do.

use std::fmt;

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
    Analysis,
}

impl Group {
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Transport => "transport",
            Group::Envelope => "envelope",
            Group::Lifecycle => "lifecycle",
            Group::Pairing => "ids and pairing",
            Group::Analysis => "analysis notes",
        }
    }
}

/// The static description of a rule.
#[derive(Debug)]
pub struct RuleInfo {
    pub name: &'static str,
    pub group: Group,
    pub severity: Severity,
    /// The revisions the rule applies to, in words.
    pub revisions: &'static str,
    pub summary: &'static str,
    /// Why it matters and how to fix it.
    pub explanation: &'static str,
}

macro_rules! rules {
    ($( $variant:ident => {
        name: $name:literal, group: $group:ident, severity: $sev:ident,
        revisions: $revs:literal, summary: $summary:literal, explanation: $expl:literal $(,)?
    } ),* $(,)?) => {
        /// Every rule mcpdbg knows. See [`Rule::info`] for the metadata.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule { $($variant),* }

        impl Rule {
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            pub fn info(self) -> &'static RuleInfo {
                match self {
                    $(Rule::$variant => &RuleInfo {
                        name: $name,
                        group: Group::$group,
                        severity: Severity::$sev,
                        revisions: $revs,
                        summary: $summary,
                        explanation: $expl,
                    }),*
                }
            }
        }
    };
}

rules! {
    // ---- transport: how bytes become lines and lines become JSON ----
    StrayOutput => {
        name: "stray-output", group: Transport, severity: Error, revisions: "all",
        summary: "non-JSON text on a JSON-RPC stream",
        explanation: "The stdio transport carries only JSON-RPC messages, one per line: the server \
MUST NOT write anything else to stdout and the client MUST NOT write anything else to the \
server's stdin. Hosts react differently: some skip the line silently, some log a parse error, \
some close the connection. The usual cause is a print or logging call that writes to stdout. \
Fix: send logs to stderr (in Python `print(..., file=sys.stderr)` or a logging handler on \
stderr; in Node `console.error`)."
    },
    InvalidJson => {
        name: "invalid-json", group: Transport, severity: Error, revisions: "all",
        summary: "a line that looks like JSON but does not parse",
        explanation: "The receiver cannot parse the line, so the message is lost: a request on it \
is never answered and a response never reaches its caller. Common causes are a message cut off \
by a crash or a buffer limit, two messages written without a newline between them, and \
hand-built JSON. Fix: serialise messages with a JSON library and write each with one \
newline after it."
    },
    MultiLineJson => {
        name: "multi-line-json", group: Transport, severity: Error, revisions: "all",
        summary: "one message spread over several lines (e.g. pretty-printed)",
        explanation: "stdio framing is one message per line and messages MUST NOT contain \
embedded newlines. A pretty-printed message reaches the receiver as several lines, none of \
which parses, so the message is lost and a request it answers hangs. mcpdbg reassembles it to \
keep the analysis going. Fix: serialise without indentation (`json.dumps(msg)`, \
`JSON.stringify(msg)`)."
    },
    CrlfLineEnding => {
        name: "crlf-line-ending", group: Transport, severity: Warning, revisions: "all",
        summary: "a line ends in CRLF instead of LF",
        explanation: "Messages are delimited by a newline (LF). Some readers strip the CR, others \
keep it in the line and fail to parse it or compare it. It usually comes from writing in text \
mode on Windows. Fix: write LF only (open stdout in binary mode, or set `newline=\"\\n\"`). \
Reported once per side with the count."
    },
    BlankLine => {
        name: "blank-line", group: Transport, severity: Warning, revisions: "all",
        summary: "an empty or whitespace-only line on a JSON-RPC stream",
        explanation: "An empty line is not a message. Most readers skip it, but a strict one \
answers it with a parse error or treats it as stray output. It usually comes from writing a \
newline twice (`print(json.dumps(msg) + \"\\n\")`). Fix: write exactly one newline after each \
message. Reported once per side with the count."
    },
    Bom => {
        name: "bom", group: Transport, severity: Error, revisions: "all",
        summary: "a UTF-8 byte order mark in front of a message",
        explanation: "JSON parsers reject a byte order mark (EF BB BF) in front of the text, so the \
first message (usually `initialize`) is lost and the session never starts. It comes from \
encoders set to `utf-8-sig` or from Windows tools. Fix: write UTF-8 without BOM."
    },
    InvalidUtf8 => {
        name: "invalid-utf8", group: Transport, severity: Error, revisions: "all (stated as a MUST from 2025-03-26)",
        summary: "a line is not valid UTF-8",
        explanation: "JSON-RPC messages MUST be UTF-8. A receiver either rejects the message or \
replaces the bad bytes, corrupting the data (often a file's contents or a path). The usual \
cause is writing text in a legacy encoding or cutting a multi-byte character in half. Fix: \
encode as UTF-8 and cut text on character boundaries; mcpdbg analyses the line with the bad \
bytes replaced."
    },
    ContentLengthFraming => {
        name: "content-length-framing", group: Transport, severity: Error, revisions: "all",
        summary: "LSP-style Content-Length headers on a newline-delimited stream",
        explanation: "MCP over stdio is newline-delimited JSON, not the Language Server Protocol's \
`Content-Length:` framing. A peer that frames messages with headers is unreadable to every MCP \
SDK: the header lines are stray output and messages glue together. It comes from reusing LSP \
transport code. Fix: write one JSON message per line with no headers."
    },
    TruncatedLine => {
        name: "truncated-line", group: Transport, severity: Warning, revisions: "all",
        summary: "the last line has no newline and does not parse",
        explanation: "The log ends in the middle of a message: the writer was killed, crashed or \
the capture stopped while a message was being written. The message was probably never \
delivered. If the capture was cut, nothing is wrong with the session itself; if the server \
died, look at its stderr just before."
    },
    MalformedRecord => {
        name: "malformed-record", group: Transport, severity: Warning, revisions: "all",
        summary: "a transcript line without a direction marker",
        explanation: "In the native transcript format every line is `[TIMESTAMP] MARKER RAW-LINE` \
with a marker such as `>` (client to server), `<` (server to client), `!` (server stderr) or \
`#` (event). A line without one cannot be attributed to a side and is skipped. It comes from \
editing a transcript by hand or concatenating other text into it."
    },

    RecordingGap => {
        name: "recording-gap", group: Transport, severity: Warning, revisions: "all",
        summary: "the recorder could not keep up and dropped part of the session",
        explanation: "`mcpdbg record` never makes the session wait for the disk: when the disk \
is too slow or full, it drops lines and writes a `# gap: ...` event saying how many bytes of \
which stream are missing. Findings near a gap may be wrong (a response in the gap looks like \
a hang). Record to a faster or emptier disk."
    },

    // ---- envelope: one message on its own ----
    JsonrpcVersion => {
        name: "jsonrpc-version", group: Envelope, severity: Error, revisions: "all",
        summary: "`jsonrpc` is missing or not \"2.0\"",
        explanation: "Every MCP message MUST carry `\"jsonrpc\": \"2.0\"`. SDKs validate it and \
drop or reject messages without it, so the message is lost. Fix: add the field with the \
string value \"2.0\" (not the number 2.0)."
    },
    NullId => {
        name: "null-id", group: Envelope, severity: Warning, revisions: "all",
        summary: "`id` is null",
        explanation: "JSON-RPC allows `\"id\": null` in an error response to a message whose id \
could not be read, but MCP does not: its ids are strings or integers and never null. From \
2025-11-25 the id of such an error response is omitted instead. A request with a null id \
cannot be answered at all. Fix: omit `id` on errors for unreadable requests (2025-11-25 and \
later) and always use string or integer request ids."
    },
    InvalidIdType => {
        name: "invalid-id-type", group: Envelope, severity: Error, revisions: "all",
        summary: "`id` is a boolean, float, object or array",
        explanation: "MCP request ids MUST be strings or integers. Other types are rejected by the \
SDKs' validation, or compared inexactly (`1.0` against `1`), so responses never match their \
requests. Fix: use an integer counter or a string."
    },
    NotificationWithId => {
        name: "notification-with-id", group: Envelope, severity: Error, revisions: "all",
        summary: "a notification method sent with an id",
        explanation: "Notifications MUST NOT carry an id. With an id the message is a request to \
the receiver, which answers with an error or not at all, while the sender does not expect an \
answer; if the sender's library registered it as a request it waits forever. Fix: send \
notifications without `id`."
    },
    RequestWithoutId => {
        name: "request-without-id", group: Envelope, severity: Error, revisions: "all",
        summary: "a request method sent without an id",
        explanation: "Without an id the message is a notification: the receiver handles it (or \
not) and never answers, so the caller waits for a response that cannot arrive. Fix: give \
every request a unique string or integer id."
    },
    ResultAndError => {
        name: "result-and-error", group: Envelope, severity: Error, revisions: "all",
        summary: "a response with both `result` and `error`, or neither",
        explanation: "A response MUST carry exactly one of `result` or `error`. With both, the \
caller's library picks one (usually the error); with neither it rejects the message and the \
request hangs. Fix: send either a result object or an error object."
    },
    MalformedError => {
        name: "malformed-error", group: Envelope, severity: Error, revisions: "all",
        summary: "an error object without an integer `code` and a string `message`",
        explanation: "The error object MUST be `{code: integer, message: string, data?}`. A string \
code, a missing message or a bare string as error fails validation in the caller's library: \
the real error is replaced by a generic one, or the request hangs. Fix: use the standard \
codes (-32602 invalid params, -32603 internal error, ...) as integers."
    },
    ParamsNotObject => {
        name: "params-not-object", group: Envelope, severity: Error, revisions: "all",
        summary: "`params` is present but not an object",
        explanation: "MCP params are always a JSON object (named parameters); positional array \
params and scalars are never valid. The receiver rejects the request with -32602 or ignores \
the params. Fix: send an object, or omit `params`."
    },
    Batch => {
        name: "batch", group: Envelope, severity: Error, revisions: "all but 2025-03-26",
        summary: "a JSON-RPC batch (array) outside 2025-03-26",
        explanation: "Batches are legal only in revision 2025-03-26 (and `initialize` is never \
allowed inside one). Under every other revision the receiver does not expect an array: the \
whole line is rejected or ignored, so every request in it hangs. Fix: send each message on \
its own line. Silent when the log does not show the negotiated revision."
    },
    InvalidMessage => {
        name: "invalid-message", group: Envelope, severity: Error, revisions: "all",
        summary: "JSON that is not a JSON-RPC message",
        explanation: "The line parses as JSON but is not a request, notification or response: not \
an object, a `method` that is not a string, or a response without an id. The receiver drops \
it. Fix: send only JSON-RPC 2.0 messages on the stream; log other data to stderr."
    },
    UnknownMethod => {
        name: "unknown-method", group: Envelope, severity: Warning, revisions: "all",
        summary: "a method that no MCP revision defines",
        explanation: "The receiver answers an unknown request with -32601 (method not found) and \
ignores an unknown notification. Most often the name is misspelt or has the wrong case \
(`tools/List`); mcpdbg suggests the known method it is closest to. Extension methods with a \
reverse-DNS prefix (`com.example/op`), `experimental/`, `x-` and `rpc.` are not reported."
    },
    WrongDirection => {
        name: "wrong-direction", group: Envelope, severity: Error, revisions: "all",
        summary: "a method sent by the side that must not send it",
        explanation: "Each MCP method has a fixed sender: the client calls `tools/call`, the \
server calls `sampling/createMessage`. A message from the wrong side is answered with \
-32601 or ignored. This often means the transcript's direction markers are swapped, or a \
proxy echoes messages back. Fix: check who sends what in the method table."
    },

    // ---- lifecycle: the handshake ----
    MissingInitialize => {
        name: "missing-initialize", group: Lifecycle, severity: Error, revisions: "2024-11-05 to 2025-11-25",
        summary: "the session does not start with `initialize`",
        explanation: "In the legacy era `initialize` MUST be the first interaction. A server that \
has not been initialised rejects or ignores every other request. Reported when the transcript \
is known to start at the beginning of the session (a `# start` event from `mcpdbg record`, or \
a server that rejected the first request); otherwise a late start is assumed and reported as \
`starts-mid-session`. Fix: send `initialize`, wait for its result, send \
`notifications/initialized`, then work."
    },
    RequestBeforeInitialized => {
        name: "request-before-initialized", group: Lifecycle, severity: Warning, revisions: "2024-11-05 to 2025-11-25",
        summary: "a request other than ping before the handshake completed",
        explanation: "The client SHOULD NOT send requests other than `ping` before the server has \
answered `initialize` (and the handshake ends with its `notifications/initialized`); the \
server SHOULD NOT send requests other than `ping` (and logging) before it received \
`notifications/initialized`. Many servers reject such early requests or queue them until \
a timeout. Fix: wait for the handshake to complete."
    },
    MissingInitialized => {
        name: "missing-initialized", group: Lifecycle, severity: Error, revisions: "2024-11-05 to 2025-11-25",
        summary: "`initialize` succeeded but `notifications/initialized` never followed",
        explanation: "After a successful `initialize` result the client MUST send \
`notifications/initialized`. Servers wait for it before they send their own requests, and \
some refuse work until it arrives, so the session stalls after the handshake. Fix: send the \
notification right after the initialize result."
    },
    InitializeRepeated => {
        name: "initialize-repeated", group: Lifecycle, severity: Error, revisions: "2024-11-05 to 2025-11-25",
        summary: "a second `initialize` in the same session",
        explanation: "A session is initialised exactly once. A second `initialize` is rejected by \
most servers, or silently resets their state. It usually means the client restarted its \
protocol layer without restarting the server process. Fix: start a new server process for a \
new session (a retry after a failed `initialize` is fine)."
    },
    InitializeFailed => {
        name: "initialize-failed", group: Lifecycle, severity: Error, revisions: "2024-11-05 to 2025-11-25",
        summary: "the server answered `initialize` with an error",
        explanation: "The handshake failed, so nothing after it works. Version problems should \
not produce this: a server that does not support the client's version answers with a version \
it supports. Look at the error message and the server's stderr; -32602 often means malformed \
initialize params."
    },
    VersionDowngrade => {
        name: "version-downgrade", group: Lifecycle, severity: Warning, revisions: "2024-11-05 to 2025-11-25",
        summary: "the server answered an older protocol revision than the client asked for",
        explanation: "This is legal (the server picks a version it supports), but every feature of \
the newer revision is now off: elicitation needs 2025-06-18, tasks need 2025-11-25, \
structured tool output needs 2025-06-18. When a feature silently does not work, this is \
usually why. Fix: upgrade the server's SDK, or expect the older behaviour."
    },
    UnknownProtocolVersion => {
        name: "unknown-protocol-version", group: Lifecycle, severity: Warning, revisions: "all",
        summary: "a protocolVersion that is not a released revision",
        explanation: "The released revisions are 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 \
and 2026-07-28. Any other string (a pre-release like 2024-10-07, a typo, a semantic version) \
makes the other side fall back to a default or disconnect. mcpdbg gates its rules on the \
nearest known revision it can infer. Fix: send one of the released revision strings."
    },

    // ---- ids and pairing ----
    UnansweredRequest => {
        name: "unanswered-request", group: Pairing, severity: Error, revisions: "all",
        summary: "a request that never got a response (a hang)",
        explanation: "Every request MUST get exactly one response. One that never arrives is a \
hang: the caller waits until a timeout, or forever. mcpdbg names the side that owes the \
reply and what that side did afterwards (answered later requests, wrote stderr, exited). \
Usual causes: the handler blocked or crashed, the request was lost to stray output or bad \
framing, or the response used a different id. Reported at the end of the log."
    },
    CancelledRequest => {
        name: "cancelled-request", group: Pairing, severity: Warning, revisions: "all",
        summary: "a request that was cancelled and never answered",
        explanation: "The requester gave up, usually on a timeout, and sent \
`notifications/cancelled`; the receiver then (correctly) sent no response. The hang is \
still real: the handler took longer than the caller's timeout. Look at how long it waited \
and what the other side did meanwhile."
    },
    IdReuse => {
        name: "id-reuse", group: Pairing, severity: Error, revisions: "in flight: all; after completion: 2024-11-05 to 2025-11-25",
        summary: "the same sender used the same request id twice",
        explanation: "Up to 2025-11-25 a request id MUST NOT have been used before by the same \
sender within the session; from 2026-07-28 it must only differ from requests still in \
flight. With a reused id the receiver or the caller's library matches a response to the \
wrong request: a tool gets another call's data, or one caller hangs. Fix: use a counter \
that never resets within the session."
    },
    DuplicateResponse => {
        name: "duplicate-response", group: Pairing, severity: Error, revisions: "all",
        summary: "a second response to a request that was already answered",
        explanation: "A request gets at most one response. The caller's library drops the second \
(or, if the id was reused meanwhile, hands it to the wrong caller). It usually means a \
handler both returned and sent an error, or a retry loop answered twice."
    },
    OrphanResponse => {
        name: "orphan-response", group: Pairing, severity: Error, revisions: "all",
        summary: "a response whose id matches no request of the other side",
        explanation: "Responses must carry the id of a request the other side sent. An orphan is \
dropped, and the request it was meant for hangs. Causes: a handler that makes up its own id, \
a proxy that renumbers ids in one direction only, or a log that starts mid-session (then this \
rule is silent)."
    },
    IdTypeMismatch => {
        name: "id-type-mismatch", group: Pairing, severity: Error, revisions: "all",
        summary: "a response id equal to a request id only after a type change (1 vs \"1\")",
        explanation: "Ids are compared as exact JSON values: `1`, `\"1\"` and `1.0` are three \
different ids. A response that echoes the id with another type is not matched by the \
caller's library (a JavaScript Map or a Python dict), so the request hangs. Fix: echo the \
request's id unchanged."
    },
    SlowResponse => {
        name: "slow-response", group: Pairing, severity: Warning, revisions: "all",
        summary: "a response that took longer than --slow (default 5 s)",
        explanation: "Hosts time requests out (often after 10 to 60 seconds) and then cancel or \
give up. A request close to that limit is a hang waiting to happen. Only judged when the log \
has timestamps; the threshold is set with `--slow`."
    },

    // ---- notes about the analysis itself ----
    StartsMidSession => {
        name: "starts-mid-session", group: Analysis, severity: Info, revisions: "all",
        summary: "the transcript starts after the handshake",
        explanation: "The first client message is not a handshake, so the capture began late. The \
rules that need the missing evidence stay silent: handshake order, responses to requests \
before the capture, and rules that depend on a revision the log does not show (set it with \
`--revision`)."
    },
    DirectionInferred => {
        name: "direction-inferred", group: Analysis, severity: Info, revisions: "all",
        summary: "the format has no direction markers; directions were inferred",
        explanation: "In a plain newline-delimited log (a `tee` of the pipe) nothing says who \
wrote a line. mcpdbg infers it: a request's sender from the method table, a response from the \
request it answers. Messages it cannot place, and text lines that may be stderr or stray \
stdout, are counted here once instead of guessed. Record with `mcpdbg record` to get exact \
directions."
    },
    TooManyFindings => {
        name: "too-many-findings", group: Analysis, severity: Info, revisions: "all",
        summary: "a rule fired so often that later findings were counted, not listed",
        explanation: "Each rule lists at most 200 findings per file so that the report stays \
readable and memory stays bounded; the rest are counted in this finding. Fix the first few \
and check again, or filter the log."
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
            assert!(
                info.explanation.len() > 80,
                "{} needs an explanation",
                info.name
            );
            assert_eq!(Rule::from_name(info.name), Some(*rule));
        }
    }
}
