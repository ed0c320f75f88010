//! The 2026-07-28 family: what only a handshake-free session has. A retry
//! after `input_required` (`retry-reused-id`, `request-state-not-echoed`,
//! `input-required-misuse`), a listing's pages (`cache-scope-changed`), and
//! `subscriptions/listen` streams (`subscription-notification-unacknowledged`,
//! `subscription-notification-not-requested`, `server-cancel-not-listen`).
//!
//! Its tables are kept below [`KEPT`] entries each.

use serde_json::Value;

use crate::facts::hash::{HashMap, HashSet, bounded_insert};
use crate::facts::pairing::Pairing;
use crate::facts::{Facts, Open};
use crate::protocol;
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::rules::finding::Finding;
use crate::text::excerpt;
use crate::wire::dir::Side;
use crate::wire::message::{Field, Message, RequestId};
use crate::wire::time::At;

/// How many entries each table keeps.
const KEPT: usize = 4096;

/// What the family remembers.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Client request ids answered `input_required`, with their method.
    input_required: HashMap<RequestId, Box<str>>,
    /// `subscriptions/listen` ids the server acknowledged.
    acked: HashSet<RequestId>,
    /// 2026 client requests that may be answered `input_required`: the
    /// input kinds their `clientCapabilities` declare ([`INPUT_KINDS`] bits).
    declared: HashMap<RequestId, u8>,
    /// `input_required` answers awaiting their retry, by method and subject:
    /// the answer's line and its `requestState`.
    awaiting_retry: HashMap<Subject, (u64, Option<Value>)>,
    /// What each open `subscriptions/listen` asked for.
    listens: HashMap<RequestId, Filter>,
    /// A 2026 listing in pages: the method, the first page's line and its
    /// `cacheScope`, while a `nextCursor` says more pages follow.
    pages: HashMap<Box<str>, (u64, Value)>,
}

/// A request's method and the tool, prompt or resource it is about.
type Subject = (Box<str>, Box<str>);

/// The kinds an `input_required` result may ask for, with the
/// `clientCapabilities` member that declares each.
const INPUT_KINDS: [(&str, &str); 3] = [
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

/// Resource URIs kept per listen filter.
const LISTEN_URIS: usize = 256;

/// The notification types a `subscriptions/listen` asked for.
#[derive(Debug, Default)]
struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// `resourceSubscriptions` (at most [`LISTEN_URIS`]; `None` when there were more).
    uris: Option<Vec<Box<str>>>,
}

impl Filter {
    fn of(params: Option<&serde_json::Map<String, Value>>) -> Filter {
        let n = params.and_then(|p| p.field("notifications"));
        let flag = |k: &str| n.and_then(|n| n.field(k)) == Some(&Value::Bool(true));
        let uris = match n.and_then(|n| n.field("resourceSubscriptions")) {
            Some(Value::Array(list)) if list.len() > LISTEN_URIS => None,
            Some(Value::Array(list)) => Some(
                list.iter()
                    .filter_map(Value::as_str)
                    .map(Into::into)
                    .collect(),
            ),
            _ => Some(Vec::new()),
        };
        Filter {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris,
        }
    }

    /// Whether `method` (with its params) is of a type this filter asked for;
    /// `None` when it cannot tell.
    fn asked(&self, method: &str, msg: &Message) -> Option<bool> {
        Some(match method {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => {
                let uris = self.uris.as_ref()?;
                let uri = msg.params()?.field("uri")?.as_str()?;
                // The URI may be a sub-resource of a subscribed one.
                uris.iter().any(|u| uri.starts_with(&**u))
            }
            _ => return None,
        })
    }

    fn words(&self) -> String {
        let mut asked: Vec<&str> = Vec::new();
        for (on, name) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if on {
                asked.push(name);
            }
        }
        if self.uris.as_ref().is_some_and(|u| !u.is_empty()) {
            asked.push("resourceSubscriptions");
        }
        if asked.is_empty() {
            "nothing".to_string()
        } else {
            asked.join(", ")
        }
    }
}

impl State {
    /// A 2026 client request: the input kinds it declares, what a listen
    /// asks for.
    pub(crate) fn request(&mut self, side: Side, id: &RequestId, msg: &Message) {
        let modern_request =
            side == Side::Client && msg.meta(protocol::META_PROTOCOL_VERSION).is_some();
        match msg.method.as_deref() {
            Some("tools/call" | "prompts/get" | "resources/read") if modern_request => {
                let caps = msg.meta(protocol::META_CLIENT_CAPABILITIES);
                let mut bits = 0u8;
                for (i, (_, cap)) in INPUT_KINDS.iter().enumerate() {
                    if caps
                        .and_then(|c| c.field(cap))
                        .is_some_and(|v| !v.is_null())
                    {
                        bits |= 1 << i;
                    }
                }
                if caps.is_some_and(Value::is_object) {
                    bounded_insert(&mut self.declared, KEPT, id.clone(), bits);
                }
            }
            Some("subscriptions/listen") if modern_request => {
                bounded_insert(
                    &mut self.listens,
                    KEPT,
                    id.clone(),
                    Filter::of(msg.params()),
                );
            }
            _ => {}
        }
    }

    /// The server ended a `subscriptions/listen` by cancelling it.
    pub(crate) fn listen_ended(&mut self, id: &RequestId) {
        self.acked.remove(id);
        self.listens.remove(id);
    }

    /// The server cancelled `id`, which is no open listen
    /// (`server-cancel-not-listen`); `open` is the client's request by
    /// that id, if any.
    pub(crate) fn server_cancelled(id: &RequestId, open: Option<&Open>, ctx: &mut Ctx<'_>) {
        let what = match open {
            Some(open) => format!("the client's `{}` (line {})", open.method, open.line),
            None => format!("request {id}, which is no open `subscriptions/listen`"),
        };
        ctx.fire(
            Rule::ServerCancelNotListen,
            format!("the server cancelled {what}; in 2026-07-28 a server sends `notifications/cancelled` only to end a `subscriptions/listen`"),
        );
    }

    /// `closed-without-cancel`: the client closed the connection (`closed`)
    /// with its request `id` still running and never cancelled.
    pub(crate) fn closed_without_cancel(closed: &At, id: &RequestId, open: &Open) -> Finding {
        let what = match &open.subject {
            Some(s) => format!("`{}` {:?}", open.method, s.as_str()),
            None => format!("`{}`", open.method),
        };
        Finding::new(
            Rule::ClosedWithoutCancel,
            closed.line,
            format!(
                "the client closed the connection with {what} (id {id}, line {}) still running and never sent `notifications/cancelled` for it; a 2026-07-28 client on stdio cancels what it stops waiting for",
                open.line
            ),
        )
        .related(open.line)
        .time(closed.time.as_ref())
        .dir(Side::Client.dir())
        .id(Some(id))
        .method(Some(&open.method))
    }

    /// `retry-reused-id`: a 2026 retry after `input_required` with the old id.
    pub(crate) fn retry(&mut self, side: Side, id: &RequestId, msg: &Message, ctx: &mut Ctx<'_>) {
        if side != Side::Client {
            return;
        }
        self.request_state_echo(msg, ctx);
        if let Some(method) = self.input_required.remove(id) {
            let retry = msg.params().is_some_and(|p| {
                p.field("inputResponses").is_some() || p.field("requestState").is_some()
            });
            if retry || msg.method.as_deref() == Some(&*method) {
                ctx.fire(
                    Rule::RetryReusedId,
                    format!("the retry of `{method}` after `input_required` reuses id {id}; a retry needs a new id"),
                );
            }
        }
    }

    /// `request-state-not-echoed`: a 2026 retry (it carries `inputResponses`
    /// or `requestState`) of a request answered `input_required` must send
    /// the answer's `requestState` back unchanged, or none if it had none.
    fn request_state_echo(&mut self, msg: &Message, ctx: &mut Ctx<'_>) {
        let Some(params) = msg.params() else { return };
        if params.field("inputResponses").is_none() && params.field("requestState").is_none() {
            return;
        }
        let method = msg.method.as_deref().unwrap_or_default();
        let key: Subject = (method.into(), subject_of(params).into());
        let Some((line, given)) = self.awaiting_retry.remove(&key) else {
            return;
        };
        let sent = params.field("requestState");
        let what = match (given.as_ref(), sent) {
            (Some(g), Some(s)) if g == s => return,
            (None, None) => return,
            (Some(_), Some(_)) => "alters the `requestState` of",
            (Some(_), None) => "drops the `requestState` of",
            (None, Some(_)) => "sends a `requestState` that was not in",
        };
        ctx.findings.push(
            ctx.finding(
                Rule::RequestStateNotEchoed,
                format!(
                    "the retry of `{method}` {what} the `input_required` answer at line {line}; a retry echoes it exactly, or sends none when none was given"
                ),
            )
            .related(line),
        );
    }

    pub(crate) fn subscription(&mut self, open: &Pairing<Open>, msg: &Message, ctx: &mut Ctx<'_>) {
        let method = msg.method.as_deref().unwrap_or_default();
        let stream_only = matches!(
            method,
            "notifications/tools/list_changed"
                | "notifications/prompts/list_changed"
                | "notifications/resources/list_changed"
                | "notifications/resources/updated"
                | "notifications/subscriptions/acknowledged"
        );
        let Some(sid) = msg
            .meta(protocol::META_SUBSCRIPTION_ID)
            .and_then(RequestId::from_json)
        else {
            if stream_only {
                ctx.fire(
                    Rule::SubscriptionNotificationUnacknowledged,
                    format!("`{method}` carries no `_meta` subscriptionId; in 2026-07-28 it belongs on a `subscriptions/listen` stream"),
                );
            }
            return;
        };
        let listening = open
            .get(Side::Client, &sid)
            .is_some_and(|o| &*o.method == "subscriptions/listen");
        if !listening {
            ctx.fire(
                Rule::SubscriptionNotificationUnacknowledged,
                format!("`{method}` is tagged with subscription {sid}, which is no open `subscriptions/listen` request"),
            );
        } else if method == "notifications/subscriptions/acknowledged" {
            self.acked.insert(sid);
        } else {
            if !self.acked.contains(&sid) {
                ctx.fire(
                    Rule::SubscriptionNotificationUnacknowledged,
                    format!("`{method}` on subscription {sid} came before its `notifications/subscriptions/acknowledged`"),
                );
            }
            if let Some(filter) = self.listens.get(&sid) {
                if filter.asked(method, msg) == Some(false) {
                    let listen_line = open.get(Side::Client, &sid).map_or(0, |o| o.line);
                    ctx.findings.push(
                        ctx.finding(
                            Rule::SubscriptionNotificationNotRequested,
                            format!(
                                "`{method}` on subscription {sid}, whose `subscriptions/listen` (line {listen_line}) asked for {}",
                                filter.words()
                            ),
                        )
                        .related(listen_line),
                    );
                }
            }
        }
    }

    /// A client request answered: what an `input_required` answer asks
    /// for, a listing's pages, a listen's end.
    pub(crate) fn answered(
        &mut self,
        facts: &Facts,
        requester: Side,
        id: &RequestId,
        open: &Open,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        let at = ctx.at();
        let declared = if requester == Side::Client {
            self.declared.remove(id)
        } else {
            None
        };
        let Some(result) = msg.result() else { return };
        if requester == Side::Client && facts.era == Some(protocol::Era::Modern) {
            self.inputs_asked(at, open, result, declared, ctx);
            self.page_scope(at, open, result, ctx);
        }
        if requester == Side::Client
            && result.field("resultType").and_then(Value::as_str) == Some("input_required")
        {
            self.input_required
                .insert(id.clone(), Box::from(&*open.method));
            if self.input_required.len() > KEPT {
                self.input_required.clear();
            }
        }
        if &*open.method == "subscriptions/listen" {
            self.listen_ended(id);
        }
    }

    /// An `input_required` answer: what it asks for (`input-required-misuse`
    /// for a kind that is not elicitation, sampling or roots, or one the
    /// request's `clientCapabilities` did not declare), and its
    /// `requestState` kept for the retry.
    fn inputs_asked(
        &mut self,
        at: &At,
        open: &Open,
        result: &Value,
        declared: Option<u8>,
        ctx: &mut Ctx<'_>,
    ) {
        if result.field("resultType").and_then(Value::as_str) != Some("input_required") {
            return;
        }
        let key: Subject = (
            Box::from(&*open.method),
            open.subject.as_deref().map(Box::from).unwrap_or_default(),
        );
        bounded_insert(
            &mut self.awaiting_retry,
            KEPT,
            key,
            (at.line, result.field("requestState").cloned()),
        );
        let Some(Value::Object(requests)) = result.field("inputRequests") else {
            return;
        };
        let mut problems = Vec::new();
        for (key, request) in requests.iter().take(64) {
            let method = request.field("method").and_then(Value::as_str);
            match INPUT_KINDS.iter().position(|(m, _)| Some(*m) == method) {
                None => problems.push(format!(
                    "`{}` asks for {}, which is not elicitation/create, sampling/createMessage or roots/list",
                    excerpt(key),
                    method.map_or("no method".to_string(), |m| format!("`{}`", excerpt(m)))
                )),
                Some(i) if declared.is_some_and(|bits| bits & (1 << i) == 0) => {
                    problems.push(format!(
                        "`{}` asks for `{}`, but the request (line {}) declared no `{}` in its clientCapabilities",
                        excerpt(key),
                        INPUT_KINDS[i].0,
                        open.line,
                        INPUT_KINDS[i].1
                    ));
                }
                Some(_) => {}
            }
        }
        if !problems.is_empty() {
            ctx.findings.push(
                ctx.finding(
                    Rule::InputRequiredMisuse,
                    format!(
                        "the `input_required` answer to `{}`: {}",
                        open.method,
                        problems.join("; ")
                    ),
                )
                .related(open.line),
            );
        }
    }

    /// `cache-scope-changed`: the pages of one 2026 listing (followed by
    /// `cursor`) with different `cacheScope`s.
    fn page_scope(&mut self, at: &At, open: &Open, result: &Value, ctx: &mut Ctx<'_>) {
        if !matches!(
            &*open.method,
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
        ) || result.field("resultType").is_some_and(|t| t != "complete")
        {
            return;
        }
        let scope = result.field("cacheScope").cloned();
        let more = result.field("nextCursor").is_some_and(Value::is_string);
        let pages = &mut self.pages;
        let first = if open.paged {
            pages.remove(&*open.method)
        } else {
            pages.remove(&*open.method);
            None
        };
        if let (Some((line, was)), Some(now)) = (&first, &scope) {
            if was != now {
                ctx.findings.push(
                    ctx.finding(
                        Rule::CacheScopeChanged,
                        format!(
                            "this page of `{}` has `cacheScope` {now}, the listing's first page (line {line}) {was}; every page must share one",
                            open.method
                        ),
                    )
                    .related(*line),
                );
            }
        }
        if more {
            let entry = match (first, scope) {
                (Some(first), _) => Some(first),
                (None, Some(scope)) => Some((at.line, scope)),
                (None, None) => None,
            };
            if let Some(entry) = entry {
                bounded_insert(pages, KEPT, Box::from(&*open.method), entry);
            }
        }
    }
}

/// The tool, prompt or resource a request is about (`name` or `uri`).
fn subject_of(params: &serde_json::Map<String, Value>) -> String {
    ["name", "uri"]
        .iter()
        .find_map(|k| params.field(k).and_then(Value::as_str))
        .map(excerpt)
        .unwrap_or_default()
}
