//! Rules that judge one message on its own, given what is known about its
//! context: the revision, the era, the sender and, for a response, the method
//! of the request it answers.
//!
//! Pure functions shared by the session (which supplies the context from the
//! conversation) and `mcpdbg validate` (which takes it from the command line).
//! Rules that need the conversation (pairing, the handshake, progress tokens,
//! capabilities) live in `session`.

use serde_json::{Map, Value};

use crate::protocol::{self, Era, Revision, Sender, Shape};
use crate::rules::finding::Finding;
use crate::rules::{Rule, Severity};
use crate::wire::dir::{Dir, Side};
use crate::wire::message::{
    BEYOND_2_53, ErrorInfo, Field, INTEGRAL_FLOAT, IdField, Kind, Message, Problem, type_name,
};
use crate::wire::time::At;

/// What is known about a message's surroundings.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The revision the session uses, if known.
    pub revision: Option<Revision>,
    pub era: Option<Era>,
    /// Who sent the message.
    pub side: Side,
    /// For a response: the method of the request it answers, if known.
    pub request_method: Option<&'a str>,
}

/// One rule break found in a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub rule: Rule,
    pub message: String,
    /// Set when the revision changes the rule's default severity.
    pub severity: Option<Severity>,
}

impl Hit {
    /// The finding at `line` (its severity the revision's, when it differs).
    pub(crate) fn finding(self, line: u64) -> Finding {
        let mut finding = Finding::new(self.rule, line, self.message);
        if let Some(severity) = self.severity {
            finding.severity = severity;
        }
        finding
    }
}

fn hit(hits: &mut Vec<Hit>, rule: Rule, message: impl Into<String>) {
    hits.push(Hit {
        rule,
        message: message.into(),
        severity: None,
    });
}

/// The `resultType` values 2026-07-28 defines, with the tasks extension's.
const KNOWN_RESULT_TYPES: [&str; 3] = ["complete", "input_required", "task"];

/// Results that carry cache hints in 2026-07-28 (`ttlMs`, `cacheScope`).
const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// 2026-07-28: a complete cacheable result carries `ttlMs` (an integer
/// >= 0) and `cacheScope` ("public" or "private").
fn cache_hints(result: &Map<String, Value>, method: Option<&str>, hits: &mut Vec<Hit>) {
    let Some(method) = method.filter(|m| CACHEABLE.contains(m)) else {
        return;
    };
    let mut problems = Vec::new();
    match result.field("ttlMs") {
        None => problems.push("has no `ttlMs` (clients take 0: never cached)".to_string()),
        Some(Value::Number(n)) if n.as_u64().is_some() => {}
        Some(other) => problems.push(format!(
            "has `ttlMs` {}, expected an integer of 0 or more",
            crate::text::excerpt(&other.to_string())
        )),
    }
    match result.field("cacheScope") {
        None => problems.push("has no `cacheScope`".to_string()),
        Some(Value::String(s)) if s == "public" || s == "private" => {}
        Some(other) => problems.push(format!(
            "has `cacheScope` {}, expected \"public\" or \"private\"",
            crate::text::excerpt(&other.to_string())
        )),
    }
    if !problems.is_empty() {
        hit(
            hits,
            Rule::MissingCacheHints,
            format!("the `{method}` result {}", problems.join(" and ")),
        );
    }
}

/// The `batch` rule: what is wrong with a batch of `items` under `revision`
/// (`None`: the revision is unknown, and nothing is said), as a phrase that
/// starts "a batch of". The session and `validate` both ask here.
pub fn batch(items: &[Result<Message, String>], revision: Option<Revision>) -> Option<String> {
    let has_initialize = items.iter().any(|m| {
        m.as_ref()
            .is_ok_and(|m| m.method.as_deref() == Some("initialize"))
    });
    let problem = match revision? {
        Revision::V2025_03_26 if has_initialize => {
            "`initialize` must not be part of a batch, even under 2025-03-26".to_string()
        }
        Revision::V2025_03_26 => return None,
        rev => format!(
            "batches are legal only under 2025-03-26, not under {rev}; the receiver rejects the whole line"
        ),
    };
    let n = items.len();
    Some(format!(
        "a batch of {n} message{}: {problem}",
        if n == 1 { "" } else { "s" }
    ))
}

/// The `batch` finding for a batch `dir`'s writer sent at `at`, if any.
pub(crate) fn batch_finding(
    at: &At,
    dir: Dir,
    items: &[Result<Message, String>],
    revision: Option<Revision>,
) -> Option<Finding> {
    let problem = batch(items, revision)?;
    Some(
        Finding::new(
            Rule::Batch,
            at.line,
            format!("{} sent {problem}", dir.writer()),
        )
        .time(at.time.as_ref())
        .dir(dir),
    )
}

/// The `batch` finding for a batch read on its own at `line` (`validate`).
pub(crate) fn batch_alone(
    line: u64,
    items: &[Result<Message, String>],
    revision: Revision,
) -> Option<Finding> {
    batch(items, Some(revision)).map(|problem| Finding::new(Rule::Batch, line, problem))
}

/// `invalid-message`: a batch element that is no message (`why`).
pub(crate) fn not_a_message(at: &At, dir: Dir, why: &str) -> Finding {
    Finding::new(
        Rule::InvalidMessage,
        at.line,
        format!(
            "{} sent a batch element that is not a message: {why}",
            dir.writer()
        ),
    )
    .time(at.time.as_ref())
    .dir(dir)
}

/// The rules for one message. The method-level rules (unknown method, wrong
/// direction, revision, era) apply to requests and notifications; the result
/// rules to responses whose request method is known.
pub fn message(msg: &Message, ctx: &Context) -> Vec<Hit> {
    let mut hits = Vec::new();
    if msg.partial {
        // Only the method name is real in a rebuilt message.
        if let (Some(method), Kind::Request | Kind::Notification) =
            (msg.method.as_deref(), msg.kind)
        {
            method_rules(msg, method, ctx, &mut hits);
            hits.retain(|h| h.rule != Rule::MissingRequestMeta);
        }
        return hits;
    }
    envelope(msg, ctx, &mut hits);
    match msg.kind {
        Kind::Request | Kind::Notification => {
            if let Some(method) = msg.method.as_deref() {
                method_rules(msg, method, ctx, &mut hits);
                params_rules(msg, method, &mut hits);
            }
        }
        Kind::Response => response_rules(msg, ctx, &mut hits),
    }
    hits
}

/// The sender in prose: `client`, `server`, or `the` when unknown ("the
/// response has ...").
fn writer(side: Side) -> &'static str {
    match side {
        Side::Unknown => "the",
        side => side.as_str(),
    }
}

fn envelope(msg: &Message, ctx: &Context, hits: &mut Vec<Hit>) {
    let who = writer(ctx.side);
    let kind = match msg.kind {
        Kind::Request => "request",
        Kind::Notification => "notification",
        Kind::Response => "response",
    };
    for problem in msg.problems() {
        match problem {
            Problem::JsonrpcVersion(what) => {
                hit(hits, Rule::JsonrpcVersion, format!("{who} message: {what}"))
            }
            Problem::InvalidIdType(what) if *what == INTEGRAL_FLOAT => hits.push(Hit {
                rule: Rule::InvalidIdType,
                message: format!(
                    "{who} {kind} id is {what} (`1.0`, `1e3`): an integer by the JSON Schema definition MCP's RequestId uses, and paired as one, but a strictly typed parser (Rust's serde, Go) rejects it; write integers without a fraction"
                ),
                severity: Some(Severity::Info),
            }),
            Problem::InvalidIdType(what) if *what == BEYOND_2_53 => hits.push(Hit {
                rule: Rule::InvalidIdType,
                message: format!(
                    "{who} {kind} id {} is {what}: an integer by the JSON Schema definition MCP's RequestId uses, and paired exactly here, but a JavaScript peer's JSON.parse reads it rounded to the nearest double, so its answer may carry another id; keep integer ids within ±2^53 or send them as strings",
                    msg.id.id().map_or_else(String::new, ToString::to_string)
                ),
                severity: Some(Severity::Warning),
            }),
            Problem::InvalidIdType(what) => hit(
                hits,
                Rule::InvalidIdType,
                format!("{who} {kind} id is {what}; MCP ids are strings or integers"),
            ),
            Problem::ResultAndError { both: true } => hit(
                hits,
                Rule::ResultAndError,
                format!("{who} response has both `result` and `error`"),
            ),
            Problem::ResultAndError { both: false } => hit(
                hits,
                Rule::ResultAndError,
                format!("{who} response has neither `result` nor `error`"),
            ),
            Problem::MalformedError(what) => hit(
                hits,
                Rule::MalformedError,
                format!("{who} error response: {what}"),
            ),
            Problem::ParamsNotObject(what) => hit(
                hits,
                Rule::ParamsNotObject,
                format!(
                    "`params` of {} is {what}, expected an object",
                    msg.method.as_deref().unwrap_or("message")
                ),
            ),
        }
    }
    match (&msg.id, msg.kind) {
        (IdField::Null, Kind::Request) => hit(
            hits,
            Rule::NullId,
            format!(
                "{who} request `{}` has id null; MCP ids are strings or integers, so no response can be matched to it",
                msg.method.as_deref().unwrap_or_default()
            ),
        ),
        (IdField::Null, Kind::Response) => hit(
            hits,
            Rule::NullId,
            format!(
                "{who} response has id null: JSON-RPC allows it for unreadable requests, MCP does not{}",
                if ctx.revision.is_some_and(|r| r >= Revision::V2025_11_25) {
                    " (omit the id instead)"
                } else {
                    ""
                }
            ),
        ),
        (IdField::Absent, Kind::Response) => {
            let allowed = msg.is_error() && ctx.revision.is_none_or(|r| r >= Revision::V2025_11_25);
            if !allowed {
                let what = if msg.is_error() {
                    "error response has no id (allowed only from 2025-11-25, for requests whose id could not be read)"
                } else {
                    "response has no id, so it answers no request"
                };
                hit(hits, Rule::InvalidMessage, format!("{who} {what}"));
            }
        }
        _ => {}
    }
}

fn method_rules(msg: &Message, method: &str, ctx: &Context, hits: &mut Vec<Hit>) {
    // A request whose `_meta` names a legacy revision is not a 2026 request
    // (read only in a 2026 session).
    let legacy_meta = || {
        msg.meta_str(protocol::META_PROTOCOL_VERSION)
            .and_then(Revision::parse)
            .is_some_and(|r| r.era() == Era::Legacy)
    };
    let modern = ctx.era == Some(Era::Modern) && !legacy_meta();
    let Some(info) = protocol::method(method) else {
        if !protocol::is_extension_method(method) {
            let hint = match protocol::did_you_mean(method) {
                Some(known) => format!("; did you mean `{known}`?"),
                None => String::new(),
            };
            hit(
                hits,
                Rule::UnknownMethod,
                format!("method `{method}` is not defined by any MCP revision{hint}"),
            );
        }
        if modern && ctx.side == Side::Server && msg.kind == Kind::Request {
            hit(
                hits,
                Rule::ServerSentRequest,
                format!("server sent request `{method}`; in 2026-07-28 servers send no requests"),
            );
        }
        return;
    };
    match (msg.kind, info.shape) {
        (Kind::Request, Shape::Notification) => hit(
            hits,
            Rule::NotificationWithId,
            format!(
                "notification `{method}` carries an id; the receiver treats it as a request and the sender waits for nothing"
            ),
        ),
        (Kind::Notification, Shape::Request) => hit(
            hits,
            Rule::RequestWithoutId,
            format!("request `{method}` has no id, so it is a notification: it is never answered"),
        ),
        _ => {}
    }
    let server_request_in_modern = modern && ctx.side == Side::Server && msg.kind == Kind::Request;
    let client_notification_in_modern = modern
        && ctx.side == Side::Client
        && msg.kind == Kind::Notification
        && method != "notifications/cancelled";
    if server_request_in_modern {
        hit(
            hits,
            Rule::ServerSentRequest,
            format!(
                "server sent request `{method}`; in 2026-07-28 servers send no requests (ask through an `input_required` result)"
            ),
        );
    } else if client_notification_in_modern {
        hit(
            hits,
            Rule::NotificationNotAllowed,
            format!(
                "client sent `{method}`; in 2026-07-28 its only notification is `notifications/cancelled`"
            ),
        );
    } else {
        let allowed = match info.sender {
            Sender::Either => true,
            Sender::Client => ctx.side != Side::Server,
            Sender::Server => ctx.side != Side::Client,
        };
        if !allowed {
            hit(
                hits,
                Rule::WrongDirection,
                format!(
                    "{} sent `{method}`, which only the {} sends",
                    writer(ctx.side),
                    writer(ctx.side.other())
                ),
            );
        }
        if let Some(rev) = ctx.revision {
            if !info.in_revision(rev) {
                let span = match info.until {
                    Some(until) => format!("{} to {until}", info.since),
                    None => format!("{} and later", info.since),
                };
                hit(
                    hits,
                    Rule::MethodNotInRevision,
                    format!(
                        "`{method}` is not part of {rev} (it exists in {span}); the receiver answers -32601 or ignores it"
                    ),
                );
            }
        }
    }
    if modern && ctx.side == Side::Client && msg.kind == Kind::Request {
        let missing: Vec<&str> = [
            protocol::META_PROTOCOL_VERSION,
            protocol::META_CLIENT_CAPABILITIES,
        ]
        .into_iter()
        // Present means the schema's type: a version string, a
        // capabilities object (`null` declares nothing).
        .filter(|key| {
            !msg.meta(key).is_some_and(|v| {
                if *key == protocol::META_CLIENT_CAPABILITIES {
                    v.is_object()
                } else {
                    v.is_string()
                }
            })
        })
        .collect();
        if !missing.is_empty() {
            let null = missing
                .iter()
                .any(|key| msg.meta(key).is_some_and(Value::is_null));
            hit(
                hits,
                Rule::MissingRequestMeta,
                format!(
                    "request `{method}` lacks `params._meta` {}{}; a 2026 server answers -32602",
                    missing.join(" and "),
                    if null {
                        " (`null` declares nothing: the schema asks for an object or a string)"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
}

fn params_rules(msg: &Message, method: &str, hits: &mut Vec<Hit>) {
    let Some(params) = msg.params() else {
        if msg.has_params() {
            return; // not an object: `params-not-object`
        }
        if method == "initialize" && msg.kind == Kind::Request {
            hit(
                hits,
                Rule::InvalidParams,
                "`params` of initialize is missing (it needs protocolVersion, capabilities, clientInfo)",
            );
        }
        if method == "tools/call" && msg.kind == Kind::Request {
            hit(
                hits,
                Rule::InvalidParams,
                "`params` of tools/call is missing (it needs `name`)",
            );
        }
        return;
    };
    let mut shape = Schema::new(hits, Rule::InvalidParams);
    match method {
        "initialize" => {
            shape.string(params, "protocolVersion", "params");
            shape.object(params, "capabilities", "params");
            if let Some(info) = shape.object(params, "clientInfo", "params") {
                implementation(&mut shape, info, "params.clientInfo");
            }
        }
        "tools/call" => {
            shape.string(params, "name", "params");
            if let Some(args) = params.field("arguments") {
                if !args.is_object() {
                    shape.wrong("params.arguments", "an object", args);
                }
            }
            if params.has("args") && !params.has("arguments") {
                hit(
                    shape.hits,
                    Rule::ArgsNotArguments,
                    format!(
                        "`tools/call` of `{}` sends `args` instead of `arguments`: the tool runs with no arguments",
                        params.field("name").and_then(Value::as_str).unwrap_or("?")
                    ),
                );
            }
        }
        _ => {}
    }
}

/// The error codes that say something about the request itself, not about
/// the tool's work: JSON-RPC's parse error, invalid request, method not
/// found and invalid params; the codes MCP assigns (resource not found,
/// URL elicitation required, the 2026 header, capability and version
/// errors); and the cancellation LSP-style libraries answer with. Any other
/// code on a `tools/call` (-32603, -32000, 0, 1, -1, an application's own)
/// is a tool that failed.
const PROTOCOL_CODES: [i64; 10] = [
    -32700, -32600, -32601, -32602, -32002, -32042, -32020, -32021, -32022, -32800,
];

/// The SDKs' own transport codes, which they also answer open requests
/// with when their input closes or a request times out: -32000 "Connection
/// closed" and -32001 "Request timed out". Not the tool's failure (a
/// generic library's -32000 "Server error" is).
fn sdk_transport_error(code: i64, error: &ErrorInfo) -> bool {
    let message = error.message.as_deref().unwrap_or("").to_ascii_lowercase();
    matches!(code, -32000 | -32001)
        && (message.contains("connection closed") || message.contains("timed out"))
}

fn response_rules(msg: &Message, ctx: &Context, hits: &mut Vec<Hit>) {
    if msg
        .problems()
        .iter()
        .any(|p| matches!(p, Problem::ResultAndError { .. }))
    {
        return; // which of the two counts is the receiver's guess
    }
    let method = ctx.request_method;
    let modern = ctx.era == Some(Era::Modern);
    if let Some(error) = msg.error() {
        if let (Some("tools/call"), Some(code)) = (method, error.code) {
            if !PROTOCOL_CODES.contains(&code) && !sdk_transport_error(code, &error) {
                hit(
                    hits,
                    Rule::ToolErrorAsProtocolError,
                    format!(
                        "`tools/call` failed with JSON-RPC error {code} ({:?}); the model never sees it: return a result with `isError: true`",
                        crate::text::excerpt(error.message.as_deref().unwrap_or(""))
                    ),
                );
            }
        }
        if modern && ctx.side == Side::Server && error.code == Some(-32002) {
            hit(
                hits,
                Rule::RetiredErrorCode,
                "error -32002 (resource not found) is retired in 2026-07-28: a 2026 server answers -32602",
            );
        }
        let mut text = error.message.unwrap_or_default();
        if let Some(data) = msg.error_data() {
            text.push('\n');
            match data {
                Value::String(s) => text.push_str(s),
                other => text.push_str(&other.to_string()),
            }
        }
        if let Some(what) = internals(&text) {
            hit(
                hits,
                Rule::LeakedInternals,
                format!("{} error carries {what}", writer(ctx.side)),
            );
        }
        return;
    }
    let Some(Value::Object(result)) = msg.result() else {
        if let Some(result) = msg.result() {
            hit(
                hits,
                Rule::InvalidResult,
                format!("`result` is {}, expected an object", type_name(result)),
            );
        }
        return;
    };
    if modern && ctx.side == Side::Client {
        hit(
            hits,
            Rule::ClientSentResponse,
            "client sent a response; in 2026-07-28 clients send no responses",
        );
        return;
    }
    let result_type_field = result.field("resultType");
    let result_type = result_type_field.and_then(Value::as_str);
    if modern && ctx.side == Side::Server && result_type_field.is_none() {
        hit(
            hits,
            Rule::MissingResultType,
            format!(
                "result{} has no `resultType`; clients take it as \"complete\"",
                method.map_or(String::new(), |m| format!(" of `{m}`"))
            ),
        );
    }
    if modern && ctx.side == Side::Server {
        match result_type_field {
            Some(Value::String(t)) if KNOWN_RESULT_TYPES.contains(&t.as_str()) => {}
            Some(Value::String(t)) => hits.push(Hit {
                rule: Rule::InvalidResult,
                message: format!(
                    "`resultType` {:?} is not a defined value (complete, input_required, task); a client that does not know the extension must treat the result as invalid",
                    crate::text::excerpt(t)
                ),
                severity: Some(Severity::Warning),
            }),
            Some(other) => hit(
                hits,
                Rule::InvalidResult,
                format!("`resultType` is {}, expected a string", type_name(other)),
            ),
            None => {}
        }
        if result_type.is_none_or(|t| t == "complete") {
            cache_hints(result, method, hits);
        }
    }
    if result_type == Some("input_required") {
        if let Some(m) =
            method.filter(|m| !["tools/call", "prompts/get", "resources/read"].contains(m))
        {
            hit(
                hits,
                Rule::InputRequiredMisuse,
                format!(
                    "`{m}` answered `input_required`; only tools/call, prompts/get and resources/read may"
                ),
            );
        }
        if !result.has("inputRequests") && !result.has("requestState") {
            hit(
                hits,
                Rule::InputRequiredMisuse,
                "`input_required` result with neither `inputRequests` nor `requestState`",
            );
        }
        return;
    }
    if result_type.is_some_and(|t| t != "complete") {
        return; // an extension's result type (e.g. a task): not ours to judge
    }
    let mut shape = Schema::new(hits, Rule::InvalidResult);
    match method {
        Some("initialize") => {
            shape.string(result, "protocolVersion", "result");
            shape.object(result, "capabilities", "result");
            if let Some(info) = shape.object(result, "serverInfo", "result") {
                implementation(&mut shape, info, "result.serverInfo");
            }
            if let Some(v) = result.field("instructions").filter(|v| !v.is_string()) {
                shape.wrong("result.instructions", "a string", v);
            }
        }
        Some("tools/call") => {
            if result.has("task") {
                return; // CreateTaskResult (2025-11-25)
            }
            match result.field("content") {
                None => hit(
                    shape.hits,
                    Rule::MissingContent,
                    format!(
                        "`tools/call` result has no `content`{}",
                        if result.has("structuredContent") {
                            " (only `structuredContent`)"
                        } else {
                            ""
                        }
                    ),
                ),
                Some(Value::Array(blocks)) => {
                    for (i, block) in blocks.iter().enumerate() {
                        if is_text_block(block) {
                            continue; // what `content_block` passes, without its path built
                        }
                        content_block(
                            &mut shape,
                            block,
                            &format!("result.content[{i}]"),
                            ctx.revision,
                        );
                    }
                }
                Some(other) => shape.wrong("result.content", "an array", other),
            }
            let is_error = result.field("isError");
            if let Some(v) = is_error.filter(|v| !v.is_boolean()) {
                shape.wrong("result.isError", "a boolean", v);
            }
            if let Some(v) = result.field("structuredContent") {
                if !v.is_object() && ctx.revision.is_some_and(|r| r < Revision::V2026_07_28) {
                    shape.wrong("result.structuredContent", "an object", v);
                }
            }
            if is_error == Some(&Value::Bool(true)) {
                // The texts whole: the parser may have cut long ones.
                let whole = msg.whole_result();
                let text: String = whole
                    .as_deref()
                    .and_then(|r| r.field("content"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b.field("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                if let Some(what) = internals(&text).filter(|w| !w.contains("path")) {
                    hit(
                        shape.hits,
                        Rule::LeakedInternals,
                        format!("tool error result carries {what}"),
                    );
                }
            }
        }
        Some(
            m @ ("tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "tasks/list"),
        ) => {
            let mut list = ListShape::default();
            // A large schema's stand-in keeps its `type`, all this reads of it.
            list_result(&mut list, m, result, ctx.revision);
            if let Some(text) = list.text(m) {
                hit(shape.hits, Rule::InvalidResult, text);
            }
        }
        _ => {}
    }
}

/// The problems found in one list result: the first few quoted, all counted.
#[derive(Default)]
struct ListShape {
    quoted: Vec<String>,
    count: usize,
}

/// Problems quoted in one `invalid-result` finding on a list.
const LIST_PROBLEMS_QUOTED: usize = 3;
/// Entries of one list that are looked at (the rest are not judged).
const LIST_ENTRIES_JUDGED: usize = 4096;

impl ListShape {
    fn problem(&mut self, text: String) {
        self.count += 1;
        if self.quoted.len() < LIST_PROBLEMS_QUOTED {
            self.quoted.push(text);
        }
    }

    fn wrong(&mut self, path: &str, expected: &str, found: &Value) {
        self.problem(format!(
            "`{path}` is {}, expected {expected}",
            type_name(found)
        ));
    }

    fn required_string(&mut self, obj: &Map<String, Value>, key: &str, path: &str) {
        match obj.field(key) {
            None => self.problem(format!("`{path}.{key}` is missing")),
            Some(v) if !v.is_string() => self.wrong(&format!("{path}.{key}"), "a string", v),
            Some(_) => {}
        }
    }

    fn optional(&mut self, obj: &Map<String, Value>, key: &str, path: &str, kind: Want) {
        if let Some(v) = obj.field(key) {
            let ok = match kind {
                Want::String => v.is_string(),
                Want::Bool => v.is_boolean(),
                Want::Number => v.is_number(),
                Want::Object => v.is_object(),
                Want::Array => v.is_array(),
            };
            if !ok {
                self.wrong(&format!("{path}.{key}"), kind.words(), v);
            }
        }
    }

    fn text(&self, method: &str) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        let more = self.count - self.quoted.len();
        Some(format!(
            "`{method}` result: {}{}; SDK clients validate the whole result and drop the listing over one bad value",
            self.quoted.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        ))
    }
}

#[derive(Clone, Copy)]
enum Want {
    String,
    Bool,
    Number,
    Object,
    Array,
}

impl Want {
    fn words(self) -> &'static str {
        match self {
            Want::String => "a string",
            Want::Bool => "a boolean",
            Want::Number => "a number",
            Want::Object => "an object",
            Want::Array => "an array",
        }
    }
}

/// A list result's shape (`tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`, `tasks/list`): the list, its entries' required
/// and typed fields, and `nextCursor` a string.
fn list_result(
    list: &mut ListShape,
    method: &str,
    result: &Map<String, Value>,
    revision: Option<Revision>,
) {
    let key = match method {
        "tools/list" => "tools",
        "prompts/list" => "prompts",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        _ => "tasks",
    };
    if let Some(cursor) = result.field("nextCursor") {
        if !cursor.is_string() {
            list.wrong("result.nextCursor", "a string (omitted at the end)", cursor);
        }
    }
    let entries = match result.field(key) {
        None => {
            list.problem(format!("`result.{key}` is missing"));
            return;
        }
        Some(Value::Array(entries)) => entries,
        Some(other) => {
            list.wrong(&format!("result.{key}"), "an array", other);
            return;
        }
    };
    let titled = revision.is_none_or(|r| r >= Revision::V2025_06_18);
    for (i, entry) in entries.iter().take(LIST_ENTRIES_JUDGED).enumerate() {
        let path = format!("result.{key}[{i}]");
        let Value::Object(e) = entry else {
            list.wrong(&path, "an object", entry);
            continue;
        };
        match key {
            "tools" => tool_entry(list, e, &path, revision),
            "prompts" => {
                list.required_string(e, "name", &path);
                if titled {
                    list.optional(e, "title", &path, Want::String);
                }
                list.optional(e, "description", &path, Want::String);
                match e.field("arguments") {
                    Some(Value::Array(args)) => {
                        for (j, arg) in args.iter().enumerate() {
                            let path = format!("{path}.arguments[{j}]");
                            let Value::Object(a) = arg else {
                                list.wrong(&path, "an object", arg);
                                continue;
                            };
                            list.required_string(a, "name", &path);
                            list.optional(a, "description", &path, Want::String);
                            list.optional(a, "required", &path, Want::Bool);
                        }
                    }
                    Some(other) => list.wrong(&format!("{path}.arguments"), "an array", other),
                    None => {}
                }
            }
            "resources" | "resourceTemplates" => {
                let uri = if key == "resources" {
                    "uri"
                } else {
                    "uriTemplate"
                };
                list.required_string(e, uri, &path);
                list.required_string(e, "name", &path);
                for k in ["title", "description", "mimeType"] {
                    if k != "title" || titled {
                        list.optional(e, k, &path, Want::String);
                    }
                }
                list.optional(e, "annotations", &path, Want::Object);
                if key == "resources" {
                    list.optional(e, "size", &path, Want::Number);
                }
            }
            _ => {
                list.required_string(e, "taskId", &path);
                list.required_string(e, "status", &path);
            }
        }
    }
}

/// One `tools/list` entry: `name`, the optional strings, the annotations'
/// types, and `inputSchema` an object schema with `type: "object"`.
fn tool_entry(
    list: &mut ListShape,
    tool: &Map<String, Value>,
    path: &str,
    revision: Option<Revision>,
) {
    // A field before the revision that defines it is an unknown member,
    // which clients ignore: its type is judged from that revision on.
    let since = |r: Revision| revision.is_none_or(|rev| rev >= r);
    list.required_string(tool, "name", path);
    if since(Revision::V2025_06_18) {
        list.optional(tool, "title", path, Want::String);
    }
    list.optional(tool, "description", path, Want::String);
    if since(Revision::V2025_11_25) {
        list.optional(tool, "icons", path, Want::Array);
        list.optional(tool, "execution", path, Want::Object);
    }
    match tool.field("annotations") {
        _ if !since(Revision::V2025_03_26) => {}
        Some(Value::Object(a)) => {
            let path = format!("{path}.annotations");
            list.optional(a, "title", &path, Want::String);
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                list.optional(a, hint, &path, Want::Bool);
            }
        }
        Some(other) => list.wrong(&format!("{path}.annotations"), "an object", other),
        None => {}
    }
    match tool.field("inputSchema") {
        None => list.problem(format!("`{path}.inputSchema` is missing")),
        Some(Value::Object(schema)) => match schema.field("type") {
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => list.problem(format!(
                "`{path}.inputSchema.type` is {}, expected \"object\"",
                shown(other)
            )),
            None => list.problem(format!(
                "`{path}.inputSchema` has no `type`, expected `\"type\": \"object\"`"
            )),
        },
        Some(other) => list.wrong(&format!("{path}.inputSchema"), "an object schema", other),
    }
    match tool.field("outputSchema") {
        _ if !since(Revision::V2025_06_18) => {}
        None => {}
        Some(Value::Object(schema)) => {
            // 2026: any schema; before, an object schema.
            let object_only = revision.is_none_or(|r| r < Revision::V2026_07_28);
            if object_only && schema.field("type").and_then(Value::as_str) != Some("object") {
                list.problem(format!(
                    "`{path}.outputSchema.type` is {}, expected \"object\"",
                    schema.field("type").map_or("missing".to_string(), shown)
                ));
            }
        }
        Some(Value::Bool(_)) if revision.is_some_and(|r| r >= Revision::V2026_07_28) => {}
        Some(other) => list.wrong(&format!("{path}.outputSchema"), "an object schema", other),
    }
}

/// A short rendering of a JSON value for a message.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{:?}", crate::text::excerpt(s)),
        Value::Array(_) | Value::Object(_) => type_name(v).to_string(),
        other => other.to_string(),
    }
}

/// `name` and `version`, both strings.
fn implementation(shape: &mut Schema, info: &Map<String, Value>, path: &str) {
    shape.string(info, "name", path);
    shape.string(info, "version", path);
}

/// A `text` block whose `text` is a string: valid in every revision, so
/// [`content_block`] would report nothing (most blocks are such).
fn is_text_block(block: &Value) -> bool {
    block.field("type").and_then(Value::as_str) == Some("text")
        && block.field("text").is_some_and(Value::is_string)
}

fn content_block(shape: &mut Schema, block: &Value, path: &str, revision: Option<Revision>) {
    let Value::Object(b) = block else {
        shape.wrong(path, "an object", block);
        return;
    };
    let Some(kind) = shape.string(b, "type", path) else {
        return;
    };
    let since = match kind {
        "text" => {
            shape.string(b, "text", path);
            Revision::V2024_11_05
        }
        "image" | "audio" => {
            shape.string(b, "data", path);
            shape.string(b, "mimeType", path);
            if kind == "audio" {
                Revision::V2025_03_26
            } else {
                Revision::V2024_11_05
            }
        }
        "resource" => {
            if let Some(r) = shape.object(b, "resource", path) {
                shape.string(r, "uri", &format!("{path}.resource"));
                if !r.has("text") && !r.has("blob") {
                    shape.message(format!("`{path}.resource` has neither `text` nor `blob`"));
                }
            }
            Revision::V2024_11_05
        }
        "resource_link" => {
            shape.string(b, "uri", path);
            shape.string(b, "name", path);
            Revision::V2025_06_18
        }
        other => {
            shape.message(format!(
                "`{path}.type` is {:?}, which is not a content block type (text, image, audio, resource, resource_link)",
                crate::text::excerpt(other)
            ));
            return;
        }
    };
    if let Some(rev) = revision.filter(|r| *r < since) {
        shape.message(format!(
            "`{path}` is a `{kind}` block, which {rev} does not have (it exists from {since})"
        ));
    }
}

/// A tiny schema checker that reports JSON paths.
struct Schema<'h> {
    hits: &'h mut Vec<Hit>,
    rule: Rule,
}

impl<'h> Schema<'h> {
    fn new(hits: &'h mut Vec<Hit>, rule: Rule) -> Schema<'h> {
        Schema { hits, rule }
    }

    fn message(&mut self, text: String) {
        hit(self.hits, self.rule, text);
    }

    fn wrong(&mut self, path: &str, expected: &str, found: &Value) {
        self.message(format!(
            "`{path}` is {}, expected {expected}",
            type_name(found)
        ));
    }

    fn field<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'v Value> {
        let value = obj.field(key);
        if value.is_none() {
            self.message(format!("`{path}.{key}` is missing"));
        }
        value
    }

    fn string<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'v str> {
        let value = self.field(obj, key, path)?;
        if value.as_str().is_none() {
            self.wrong(&format!("{path}.{key}"), "a string", value);
        }
        value.as_str()
    }

    fn object<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'v Map<String, Value>> {
        let value = self.field(obj, key, path)?;
        if value.as_object().is_none() {
            self.wrong(&format!("{path}.{key}"), "an object", value);
        }
        value.as_object()
    }
}

/// What in an error text reveals the server's internals, if anything.
pub fn internals(text: &str) -> Option<&'static str> {
    if text.contains("Traceback (most recent call last)")
        || (text.contains("File \"") && text.contains("\", line "))
    {
        return Some("a Python traceback");
    }
    if text
        .lines()
        .filter(|l| l.trim_start().starts_with("at ") && l.contains(':') && l.contains('('))
        .count()
        >= 1
    {
        return Some("a JavaScript stack trace");
    }
    if text.contains("panicked at") || text.contains("stack backtrace:") {
        return Some("a Rust panic");
    }
    if text.contains("Exception in thread") || (text.contains("\tat ") && text.contains(".java:")) {
        return Some("a Java stack trace");
    }
    const ROOTS: [&str; 10] = [
        "/home/",
        "/Users/",
        "/root/",
        "/srv/",
        "/opt/",
        "/var/",
        "/usr/",
        "/tmp/",
        "C:\\",
        "/private/",
    ];
    if ROOTS.iter().any(|r| text.contains(r)) {
        return Some("an absolute file path");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::message::{Frame, classify};
    use serde_json::json;

    fn rules(
        v: Value,
        side: Side,
        revision: Option<Revision>,
        request_method: Option<&str>,
    ) -> Vec<Rule> {
        let Frame::Message(m) = classify(v) else {
            panic!("not a message")
        };
        let ctx = Context {
            revision,
            era: revision.map(Revision::era),
            side,
            request_method,
        };
        message(&m, &ctx).into_iter().map(|h| h.rule).collect()
    }

    #[test]
    fn a_tool_failure_is_judged_by_its_code_not_being_a_protocol_one() {
        for code in [-32603, -32000, -32001, 0, 1, -1, 42] {
            let error = json!({"jsonrpc":"2.0","id":4,"error":{"code":code,"message":"boom"}});
            assert_eq!(
                rules(error, Side::Server, None, Some("tools/call")),
                vec![Rule::ToolErrorAsProtocolError],
                "code {code}"
            );
        }
        for code in [-32700, -32600, -32601, -32602, -32002, -32800] {
            let error = json!({"jsonrpc":"2.0","id":4,"error":{"code":code,"message":"no"}});
            assert!(
                rules(error, Side::Server, None, Some("tools/call")).is_empty(),
                "code {code}"
            );
        }
        // What the SDKs answer an open request with when their input closes.
        let closed =
            json!({"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"Connection closed"}});
        assert!(rules(closed, Side::Server, None, Some("tools/call")).is_empty());
    }

    #[test]
    fn tool_calls() {
        let call = json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","args":{"path":"/tmp/a"}}});
        assert_eq!(
            rules(call, Side::Client, None, None),
            vec![Rule::ArgsNotArguments]
        );
        let result = json!({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text"}, 3, {"type":"video"}]}});
        assert_eq!(
            rules(result, Side::Server, None, Some("tools/call")),
            vec![
                Rule::InvalidResult,
                Rule::InvalidResult,
                Rule::InvalidResult
            ]
        );
        let error =
            json!({"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"file not found"}});
        assert_eq!(
            rules(error, Side::Server, None, Some("tools/call")),
            vec![Rule::ToolErrorAsProtocolError]
        );
        let unknown =
            json!({"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Unknown tool: x"}});
        assert_eq!(
            rules(unknown, Side::Server, None, Some("tools/call")),
            vec![]
        );
    }

    #[test]
    fn content_blocks_are_gated_on_the_revision() {
        let audio = json!({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}});
        assert_eq!(
            rules(
                audio.clone(),
                Side::Server,
                Some(Revision::V2024_11_05),
                Some("tools/call")
            ),
            vec![Rule::InvalidResult]
        );
        assert_eq!(
            rules(
                audio,
                Side::Server,
                Some(Revision::V2025_03_26),
                Some("tools/call")
            ),
            vec![]
        );
    }

    #[test]
    fn modern_era_rules() {
        let rev = Some(Revision::V2026_07_28);
        let bare = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}});
        assert_eq!(
            rules(bare, Side::Client, rev, None),
            vec![Rule::MissingRequestMeta]
        );
        let ping = json!({"jsonrpc":"2.0","id":1,"method":"roots/list"});
        assert_eq!(
            rules(ping, Side::Server, rev, None),
            vec![Rule::ServerSentRequest]
        );
        let result = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}});
        assert_eq!(
            rules(result, Side::Server, rev, Some("tools/list")),
            vec![Rule::MissingResultType, Rule::MissingCacheHints]
        );
        let hinted = json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}});
        assert_eq!(rules(hinted, Side::Server, rev, Some("tools/list")), vec![]);
        // A call's result carries no cache hints; an unknown or non-string
        // resultType is an invalid result.
        for (result_type, expected) in [
            (json!("complete"), vec![]),
            (json!("task"), vec![]),
            (json!("partial"), vec![Rule::InvalidResult]),
            (json!(1), vec![Rule::InvalidResult]),
        ] {
            let call =
                json!({"jsonrpc":"2.0","id":1,"result":{"resultType":result_type,"content":[]}});
            assert_eq!(rules(call, Side::Server, rev, Some("tools/call")), expected);
        }
        let retired = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"gone"}});
        assert_eq!(
            rules(retired.clone(), Side::Server, rev, Some("resources/read")),
            vec![Rule::RetiredErrorCode]
        );
        assert_eq!(
            rules(
                retired,
                Side::Server,
                Some(Revision::V2025_11_25),
                Some("resources/read")
            ),
            vec![]
        );
        let ask = json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}});
        assert_eq!(
            rules(ask, Side::Server, rev, Some("tools/list")),
            vec![Rule::InputRequiredMisuse, Rule::InputRequiredMisuse]
        );
        let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
        assert_eq!(
            rules(note, Side::Client, rev, None),
            vec![Rule::NotificationNotAllowed]
        );
    }

    #[test]
    fn leaks() {
        assert_eq!(
            internals("Traceback (most recent call last):\n  File \"x.py\", line 3"),
            Some("a Python traceback")
        );
        assert_eq!(
            internals("Error: boom\n    at read (/app/index.js:12:3)"),
            Some("a JavaScript stack trace")
        );
        assert_eq!(
            internals("cannot open /home/ana/notes.db"),
            Some("an absolute file path")
        );
        assert_eq!(internals("file not found: a.txt"), None);
    }
}
