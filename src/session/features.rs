//! The session rules above the handshake and id pairing: capabilities,
//! progress, cancellation, tasks, the 2026 retry and subscription rules.
//!
//! An extension of [`Session`] (same state, same purity: no I/O, no clock).
//! Memory stays bounded: finished progress tokens, task-augmented ids and
//! task states are kept up to fixed caps.

use std::collections::VecDeque;

use super::hash::{HashMap, HashSet};

use serde_json::Value;

use super::ctx::Ctx;
use super::{Open, Session, Side, pairing};
use crate::protocol::{self, Era, Revision};
use crate::rules::Rule;
use crate::text::excerpt;
use crate::transport::At;
use crate::wire::message::{Field, Kind, Message, RequestId};

/// How many finished progress tokens, task-augmented request ids and tasks
/// are remembered.
const KEPT: usize = 4096;

/// A progress token and what became of its request.
#[derive(Clone, Debug)]
struct Token {
    /// The side that sent the request (the other side reports progress).
    requester: Side,
    request_line: u64,
    last: Option<f64>,
    /// The line of the response, once answered.
    done: Option<u64>,
    /// A task-augmented request reports progress until the task ends.
    task: bool,
}

/// What the feature rules remember.
#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) client_caps: Option<Value>,
    pub(super) server_caps: Option<Value>,
    tokens: HashMap<RequestId, Token>,
    /// The token of each request that carried one, by (requester, line):
    /// a response finds its token without scanning them all.
    token_of: HashMap<(Side, u64), RequestId>,
    finished_tokens: VecDeque<RequestId>,
    /// Task-augmented request ids per requester (bounded).
    task_requests: [HashSet<RequestId>; 3],
    task_order: VecDeque<(usize, RequestId)>,
    /// Task id -> last status and where it was seen (bounded).
    tasks: HashMap<String, (String, u64)>,
    task_ids: VecDeque<String>,
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

/// Which side must declare what for a method: the side and the path of the
/// capability, and whether the leaf must be `true` (a flag) rather than present.
fn gate_of(method: &str, msg: &Message, rev: Revision) -> Option<(Side, &'static [&'static str])> {
    let path: &'static [&'static str] = match method {
        "tools/list" | "tools/call" => &["tools"],
        "prompts/list" | "prompts/get" => &["prompts"],
        "resources/list" | "resources/templates/list" | "resources/read" => &["resources"],
        "resources/subscribe" | "resources/unsubscribe" | "notifications/resources/updated" => {
            &["resources", "subscribe"]
        }
        "logging/setLevel" | "notifications/message" => &["logging"],
        "completion/complete" if rev >= Revision::V2025_03_26 => &["completions"],
        "notifications/tools/list_changed" => &["tools", "listChanged"],
        "notifications/prompts/list_changed" => &["prompts", "listChanged"],
        "notifications/resources/list_changed" => &["resources", "listChanged"],
        "sampling/createMessage" => &["sampling"],
        "roots/list" => &["roots"],
        "notifications/roots/list_changed" => &["roots", "listChanged"],
        "elicitation/create" => {
            let url = msg
                .params()
                .and_then(|p| p.field("mode"))
                .and_then(Value::as_str)
                == Some("url");
            match (rev >= Revision::V2025_11_25, url) {
                (true, true) => &["elicitation", "url"],
                _ => &["elicitation"],
            }
        }
        _ => return None,
    };
    let owner = match path[0] {
        "sampling" | "roots" | "elicitation" => Side::Client,
        _ => Side::Server,
    };
    Some((owner, path))
}

/// Whether `caps` declares `path`: objects must be present, a final flag
/// (`subscribe`, `listChanged`, `url`) must be `true` or an object.
fn declares(caps: &Value, path: &[&str]) -> bool {
    let mut node = caps;
    for (i, key) in path.iter().enumerate() {
        match node.field(key) {
            Some(Value::Bool(true)) if i == path.len() - 1 => return true,
            Some(v @ Value::Object(_)) => node = v,
            _ => return false,
        }
    }
    true
}

fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

impl Session {
    /// `capability-not-negotiated`: a gated method the owning side did not declare.
    pub(super) fn gate(&self, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let (Some(method), Some(rev)) = (msg.method.as_deref(), self.revision()) else {
            return;
        };
        if self.mid_session || self.era() != Some(Era::Legacy) || side == Side::Unknown {
            return;
        }
        let severity = Rule::CapabilityNotNegotiated.info().severity_in(Some(rev));
        // The finding's text is made only when there is a finding.
        let mut check = |owner: Side, path: &[&str], what: &dyn Fn() -> String| {
            let caps = match owner {
                Side::Client => &self.features.client_caps,
                _ => &self.features.server_caps,
            };
            // Only judged once the owner's capabilities are known.
            let Some(caps) = caps else { return };
            if !declares(caps, path) {
                let mut finding = ctx.finding(
                    Rule::CapabilityNotNegotiated,
                    format!(
                        "{}, but the {} did not declare the `{}` capability",
                        what(),
                        owner.as_str(),
                        path.join(".")
                    ),
                );
                finding.severity = severity;
                ctx.findings.push(finding);
            }
        };
        if let Some((owner, path)) = gate_of(method, msg, rev) {
            let what = || {
                if owner == side {
                    format!("{} sent `{method}`", side.as_str())
                } else {
                    format!("{} used `{method}`", side.as_str())
                }
            };
            check(owner, path, &what);
        }
        // Task augmentation needs the receiver's `tasks.requests.*` (2025-11-25).
        let tasks_exist = rev == Revision::V2025_11_25;
        if tasks_exist
            && msg.kind == Kind::Request
            && msg.params().is_some_and(|p| p.field("task").is_some())
        {
            let path: Option<&[&str]> = match method {
                "tools/call" => Some(&["tasks", "requests", "tools", "call"]),
                "sampling/createMessage" => {
                    Some(&["tasks", "requests", "sampling", "createMessage"])
                }
                "elicitation/create" => Some(&["tasks", "requests", "elicitation", "create"]),
                _ => None,
            };
            if let Some(path) = path {
                check(side.other(), path, &|| {
                    format!("{} made `{method}` a task", side.as_str())
                });
            }
        }
    }

    /// `retry-reused-id`: a 2026 retry after `input_required` with the old id.
    pub(super) fn retry_check(
        &mut self,
        side: Side,
        id: &RequestId,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        if side != Side::Client {
            return;
        }
        self.request_state_echo(msg, ctx);
        if let Some(method) = self.features.input_required.remove(id) {
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
        let Some((line, given)) = self.features.awaiting_retry.remove(&key) else {
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

    /// Remembers a request's progress token and task augmentation.
    pub(super) fn request_features(&mut self, at: &At, side: Side, id: &RequestId, msg: &Message) {
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
                    bounded_insert(&mut self.features.declared, id.clone(), bits);
                }
            }
            Some("subscriptions/listen") if modern_request => {
                bounded_insert(
                    &mut self.features.listens,
                    id.clone(),
                    Filter::of(msg.params()),
                );
            }
            _ => {}
        }
        let task = msg.params().is_some_and(|p| p.field("task").is_some());
        if task {
            self.remember_task_request(side, id);
        }
        if let Some(token) = msg.meta("progressToken").and_then(RequestId::from_json) {
            self.features
                .token_of
                .insert((side, at.line), token.clone());
            self.features.tokens.insert(
                token,
                Token {
                    requester: side,
                    request_line: at.line,
                    last: None,
                    done: None,
                    task,
                },
            );
        }
    }

    fn remember_task_request(&mut self, side: Side, id: &RequestId) {
        let f = &mut self.features;
        if f.task_requests[side.index()].insert(id.clone()) {
            f.task_order.push_back((side.index(), id.clone()));
            if f.task_order.len() > KEPT {
                if let Some((s, old)) = f.task_order.pop_front() {
                    f.task_requests[s].remove(&old);
                }
            }
        }
    }

    /// Progress, cancellation, task status and subscription notifications.
    pub(super) fn notification_features(
        &mut self,
        at: &At,
        side: Side,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        match msg.method.as_deref() {
            Some("notifications/cancelled") => self.cancelled(at, side, msg, ctx),
            Some("notifications/progress") => self.progress(side, msg, ctx),
            Some("notifications/tasks/status") => {
                if let Some(params) = msg.params() {
                    self.task_status(at, params.field("taskId"), params.field("status"), ctx);
                }
            }
            _ => {}
        }
        if self.era() == Some(Era::Modern) && side == Side::Server {
            self.subscription(msg, ctx);
        }
    }

    fn cancelled(&mut self, at: &At, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let Some(id) = msg
            .params()
            .and_then(|p| p.field("requestId"))
            .and_then(RequestId::from_json)
        else {
            return;
        };
        if self.era() == Some(Era::Modern) && side == Side::Server {
            let listen = self
                .open
                .get(Side::Client, &id)
                .is_some_and(|o| pairing::cancel_ends_listen(side, &o.method));
            if listen {
                self.open.answer(Side::Client, &id);
                self.features.acked.remove(&id);
                self.features.listens.remove(&id);
                return;
            }
            let what = match self.open.get(Side::Client, &id) {
                Some(open) => format!("the client's `{}` (line {})", open.method, open.line),
                None => format!("request {id}, which is no open `subscriptions/listen`"),
            };
            ctx.fire(
                Rule::ServerCancelNotListen,
                format!("the server cancelled {what}; in 2026-07-28 a server sends `notifications/cancelled` only to end a `subscriptions/listen`"),
            );
            return;
        }
        let legacy_2025_11_25 = self.revision() == Some(Revision::V2025_11_25);
        if side == Side::Client
            && self.init_id.as_ref() == Some(&id)
            && self.era() != Some(Era::Modern)
        {
            ctx.fire(
                Rule::InitializeCancelled,
                format!("client cancelled its `initialize` (id {id}); the session is left neither initialised nor closed"),
            );
        }
        let task = legacy_2025_11_25 && self.features.task_requests[side.index()].contains(&id);
        if task {
            ctx.fire(
                Rule::TaskCancelledByNotification,
                format!("request {id} is task-augmented: `notifications/cancelled` does not stop its task; use `tasks/cancel`"),
            );
        }
        if let Some(open) = self.open.get_mut(side, &id) {
            open.cancelled = Some(at.clone());
            let reason = msg
                .params()
                .and_then(|p| p.field("reason"))
                .and_then(serde_json::Value::as_str);
            open.chosen = reason
                .filter(|r| !is_timeout(r))
                .map(|r| crate::text::excerpt(r).into_boxed_str());
            if let Some(r) = reason.filter(|r| is_timeout(r)) {
                let r = crate::text::excerpt(r).into_boxed_str();
                // The client's own timeout: the reason's number, else the wait.
                let waited = match (&open.time, &at.time) {
                    (Some(sent), Some(now)) => Some(sent.seconds_until(now)),
                    _ => None,
                };
                let seconds = super::reason_seconds(&r).or(waited.filter(|w| *w > 0.0));
                open.timed_out = Some(r.clone());
                if let (Some(seconds), Side::Client) = (seconds, side) {
                    self.client_timeout = Some((seconds, at.line, r));
                }
            }
            return;
        }
        if task {
            return; // answered with its task long ago: the rule above says it all
        }
        let message = match self.used[side.index()].get(&id) {
            Some(used) => format!(
                "{} cancelled request {id} (line {}), which was already answered at line {}; a harmless race",
                side.as_str(),
                used.line,
                used.answered.unwrap_or_default()
            ),
            None if self.mid_session => return,
            None => format!(
                "{} cancelled request {id}, but it never sent a request with that id",
                side.as_str()
            ),
        };
        ctx.fire(Rule::CancelUnknownRequest, message);
    }

    fn progress(&mut self, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let Some(params) = msg.params() else { return };
        let Some(token_id) = params.field("progressToken").and_then(RequestId::from_json) else {
            return;
        };
        let value = params.field("progress").and_then(Value::as_f64);
        let Some(token) = self
            .features
            .tokens
            .get_mut(&token_id)
            .filter(|t| t.requester != side)
        else {
            if !self.mid_session && side != Side::Unknown {
                ctx.fire(
                    Rule::ProgressUnknownToken,
                    format!(
                        "{} reported progress for token {token_id}, which no request of the {} carried",
                        side.as_str(),
                        side.other().as_str()
                    ),
                );
            }
            return;
        };
        if let (Some(done), false) = (token.done, token.task) {
            ctx.findings.push(
                ctx.finding(
                    Rule::ProgressAfterResponse,
                    format!(
                        "progress for token {token_id} after its request (line {}) was answered at line {done}",
                        token.request_line
                    ),
                )
                .related(done),
            );
        }
        if let Some(value) = value {
            if let Some(last) = token.last.filter(|last| value <= *last) {
                ctx.fire(
                    Rule::ProgressNotIncreasing,
                    format!("progress for token {token_id} went from {last} to {value}; it must increase"),
                );
            }
            token.last = Some(value);
        }
    }

    fn task_status(
        &mut self,
        at: &At,
        task_id: Option<&Value>,
        status: Option<&Value>,
        ctx: &mut Ctx<'_>,
    ) {
        let (Some(task_id), Some(status)) = (
            task_id.and_then(Value::as_str),
            status.and_then(Value::as_str),
        ) else {
            return;
        };
        let f = &mut self.features;
        if let Some((old, line)) = f.tasks.get(task_id) {
            if is_terminal(old) && old != status {
                ctx.findings.push(
                    ctx.finding(
                        Rule::TaskStatusAfterTerminal,
                        format!(
                            "task {:?} moved from terminal status `{old}` (line {line}) to `{}`",
                            excerpt(task_id),
                            excerpt(status)
                        ),
                    )
                    .related(*line),
                );
                return;
            }
        } else {
            f.task_ids.push_back(task_id.to_string());
            if f.task_ids.len() > KEPT {
                if let Some(old) = f.task_ids.pop_front() {
                    f.tasks.remove(&old);
                }
            }
        }
        f.tasks
            .insert(task_id.to_string(), (status.to_string(), at.line));
    }

    fn subscription(&mut self, msg: &Message, ctx: &mut Ctx<'_>) {
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
        let open = self
            .open
            .get(Side::Client, &sid)
            .is_some_and(|o| &*o.method == "subscriptions/listen");
        if !open {
            ctx.fire(
                Rule::SubscriptionNotificationUnacknowledged,
                format!("`{method}` is tagged with subscription {sid}, which is no open `subscriptions/listen` request"),
            );
        } else if method == "notifications/subscriptions/acknowledged" {
            self.features.acked.insert(sid);
        } else {
            if !self.features.acked.contains(&sid) {
                ctx.fire(
                    Rule::SubscriptionNotificationUnacknowledged,
                    format!("`{method}` on subscription {sid} came before its `notifications/subscriptions/acknowledged`"),
                );
            }
            if let Some(filter) = self.features.listens.get(&sid) {
                if filter.asked(method, msg) == Some(false) {
                    let listen_line = self.open.get(Side::Client, &sid).map_or(0, |o| o.line);
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

    /// Progress tokens end, tasks start or move, `input_required` is noted.
    pub(super) fn response_features(
        &mut self,
        at: &At,
        requester: Side,
        id: &RequestId,
        open: &Open,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        let f = &mut self.features;
        let token_id = f.token_of.remove(&(requester, open.line));
        if let Some((token_id, token)) = token_id.and_then(|token_id| {
            f.tokens
                .get_mut(&token_id)
                .filter(|t| t.requester == requester && t.request_line == open.line)
                .map(|t| (token_id, t))
        }) {
            token.done = Some(at.line);
            f.finished_tokens.push_back(token_id);
            if f.finished_tokens.len() > KEPT {
                if let Some(old) = f.finished_tokens.pop_front() {
                    if f.tokens.get(&old).is_some_and(|t| t.done.is_some()) {
                        f.tokens.remove(&old);
                    }
                }
            }
        }
        let declared = if requester == Side::Client {
            self.features.declared.remove(id)
        } else {
            None
        };
        let Some(result) = msg.result() else { return };
        match &*open.method {
            "tasks/get" | "tasks/cancel" => {
                self.task_status(at, result.field("taskId"), result.field("status"), ctx)
            }
            _ => {
                if let Some(task) = result.field("task") {
                    self.task_status(at, task.field("taskId"), task.field("status"), ctx);
                }
            }
        }
        if requester == Side::Client && self.era() == Some(Era::Modern) {
            self.inputs_asked(at, open, result, declared, ctx);
            self.page_scope(at, open, result, ctx);
        }
        if requester == Side::Client
            && result.field("resultType").and_then(Value::as_str) == Some("input_required")
        {
            self.features
                .input_required
                .insert(id.clone(), Box::from(&*open.method));
            if self.features.input_required.len() > KEPT {
                self.features.input_required.clear();
            }
        }
        if &*open.method == "subscriptions/listen" {
            self.features.acked.remove(id);
            self.features.listens.remove(id);
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
            &mut self.features.awaiting_retry,
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
        let pages = &mut self.features.pages;
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
                bounded_insert(pages, Box::from(&*open.method), entry);
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

/// Inserts into a table kept below [`KEPT`] entries (emptied when full: what
/// it remembers is the recent past).
fn bounded_insert<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= KEPT {
        map.clear();
    }
    map.insert(key, value);
}

/// Whether a cancellation's reason says the canceller gave up waiting
/// (the SDKs write "Request timed out", "timeout", "deadline exceeded").
fn is_timeout(reason: &str) -> bool {
    let r = reason.to_ascii_lowercase();
    ["timed out", "timeout", "time out", "deadline"]
        .iter()
        .any(|w| r.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capability_paths() {
        let caps = json!({"tools": {}, "resources": {"subscribe": true, "listChanged": false}});
        assert!(declares(&caps, &["tools"]));
        assert!(declares(&caps, &["resources", "subscribe"]));
        assert!(!declares(&caps, &["resources", "listChanged"]));
        assert!(!declares(&caps, &["prompts"]));
        assert!(!declares(&caps, &["tools", "listChanged"]));
    }
}
