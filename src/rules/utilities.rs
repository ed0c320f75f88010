//! The utilities family: progress (`progress-unknown-token`,
//! `progress-not-increasing`, `progress-after-response`), cancellation
//! (`initialize-cancelled`, `cancel-unknown-request`,
//! `response-after-cancel`) and tasks (`task-cancelled-by-notification`,
//! `task-status-after-terminal`).
//!
//! Memory stays bounded: finished progress tokens, task-augmented ids and
//! task states are kept up to [`KEPT`].

use std::collections::VecDeque;

use serde_json::Value;

use crate::facts::hash::{HashMap, HashSet, IndexMap};
use crate::facts::{Facts, Open, Used};
use crate::protocol::{Era, Revision};
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::text::excerpt;
use crate::wire::dir::Side;
use crate::wire::message::{Field, IdRef, Message, RequestId};
use crate::wire::time::At;

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

/// What the family remembers: progress tokens and tasks.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Asked with the token of each progress notification, borrowed.
    tokens: IndexMap<RequestId, Token>,
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
    /// The last request each side gave up on by a timeout: its method, what
    /// it was about, its id and line. A later request of the same method
    /// about the same thing is a retry of it (one operation, tried again).
    gave_up: [Option<GaveUp>; 3],
}

/// A request its sender cancelled on a timeout.
#[derive(Debug)]
struct GaveUp {
    method: Box<str>,
    subject: Option<Box<str>>,
    id: RequestId,
    line: u64,
}

impl State {
    /// `side` gave up on its request `id` (line `line`) by a timeout.
    pub(crate) fn gave_up(
        &mut self,
        side: Side,
        id: &RequestId,
        line: u64,
        method: &str,
        subject: Option<&str>,
    ) {
        self.gave_up[side.index()] = Some(GaveUp {
            method: method.into(),
            subject: subject.map(Into::into),
            id: id.clone(),
            line,
        });
    }

    /// The request a new one of `side` retries: the last one it gave up on
    /// by a timeout, when it is the same method about the same thing.
    /// (`subject` is read only then: a kept name is checked as it is read.)
    pub(crate) fn retry_of(
        &self,
        side: Side,
        method: &str,
        subject: Option<&crate::facts::SubjectText>,
    ) -> Option<(RequestId, u64)> {
        self.gave_up[side.index()]
            .as_ref()
            .filter(|g| &*g.method == method && g.subject.as_deref() == subject.map(|s| &**s))
            .map(|g| (g.id.clone(), g.line))
    }

    /// A request: its progress token and task augmentation remembered.
    pub(crate) fn request(&mut self, at: &At, side: Side, id: &RequestId, msg: &Message) {
        let task = msg.params().is_some_and(|p| p.field("task").is_some());
        if task {
            self.remember_task_request(side, id);
        }
        if let Some(token) = msg.meta("progressToken").and_then(RequestId::from_json) {
            self.token_of.insert((side, at.line), token.clone());
            self.tokens.insert(
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
        let f = self;
        if f.task_requests[side.index()].insert(id.clone()) {
            f.task_order.push_back((side.index(), id.clone()));
            if f.task_order.len() > KEPT {
                if let Some((s, old)) = f.task_order.pop_front() {
                    f.task_requests[s].remove(&old);
                }
            }
        }
    }

    /// A `notifications/cancelled` of request `id` sent by `side` (before
    /// the session marks the request cancelled): `initialize-cancelled`,
    /// `task-cancelled-by-notification`. True when the request is a task.
    pub(crate) fn cancelled(
        &self,
        facts: &Facts,
        side: Side,
        id: &RequestId,
        init_id: Option<&RequestId>,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        if side == Side::Client && init_id == Some(id) && facts.era != Some(Era::Modern) {
            ctx.fire(
                Rule::InitializeCancelled,
                format!("client cancelled its `initialize` (id {id}); the session is left neither initialised nor closed"),
            );
        }
        let legacy_2025_11_25 = facts.revision == Some(Revision::V2025_11_25);
        let task = legacy_2025_11_25 && self.task_requests[side.index()].contains(id);
        if task {
            ctx.fire(
                Rule::TaskCancelledByNotification,
                format!("request {id} is task-augmented: `notifications/cancelled` does not stop its task; use `tasks/cancel`"),
            );
        }
        task
    }

    /// A cancel of no open request: `used` says whether `side` ever sent
    /// it (`cancel-unknown-request`).
    pub(crate) fn cancel_unknown(
        facts: &Facts,
        side: Side,
        id: &RequestId,
        used: Option<Used>,
        ctx: &mut Ctx<'_>,
    ) {
        let message = match used {
            Some(used) => format!(
                "{} cancelled request {id} (line {}), which was already answered at line {}; a harmless race",
                side.as_str(),
                used.line,
                used.answered.unwrap_or_default()
            ),
            None if facts.mid_session => return,
            None => format!(
                "{} cancelled request {id}, but it never sent a request with that id",
                side.as_str()
            ),
        };
        ctx.fire(Rule::CancelUnknownRequest, message);
    }

    pub(crate) fn progress(&mut self, facts: &Facts, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let Some(params) = msg.params() else { return };
        let Some(token) = params.field("progressToken") else {
            return;
        };
        // The token as the id it is read as, for a finding's words.
        let token_id = || RequestId::from_json(token).map_or_else(String::new, |id| id.to_string());
        // Looked up borrowed (a string token is not copied); a float one
        // as the id it is read as.
        let found = match IdRef::from_json(token) {
            Some(key) => self.tokens.get_mut(&key),
            None => match RequestId::from_json(token) {
                Some(id) => self.tokens.get_mut(&id),
                None => return,
            },
        };
        let value = params.field("progress").and_then(Value::as_f64);
        let Some(token) = found.filter(|t| t.requester != side) else {
            if !facts.mid_session && side != Side::Unknown {
                ctx.fire_with(Rule::ProgressUnknownToken, || {
                    format!(
                        "{} reported progress for token {}, which no request of the {} carried",
                        side.as_str(),
                        token_id(),
                        side.other().as_str()
                    )
                });
            }
            return;
        };
        if let (Some(done), false) = (token.done, token.task) {
            ctx.findings.push(
                ctx.finding(
                    Rule::ProgressAfterResponse,
                    format!(
                        "progress for token {} after its request (line {}) was answered at line {done}",
                        token_id(),
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
                    format!(
                        "progress for token {} went from {last} to {value}; it must increase",
                        token_id()
                    ),
                );
            }
            token.last = Some(value);
        }
    }

    pub(crate) fn task_status(
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
        let f = self;
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

    /// A request answered: `response-after-cancel`, its progress token
    /// ended, a task's status from the result.
    pub(crate) fn answered(
        &mut self,
        at: &At,
        requester: Side,
        id: &RequestId,
        open: &Open,
        msg: &Message,
        ctx: &mut Ctx<'_>,
    ) {
        if let Some(cancel) = &open.cancelled {
            ctx.findings.push(
                ctx.finding(
                    Rule::ResponseAfterCancel,
                    format!(
                        "`{}` (id {id}) was answered after the {} cancelled it at line {}; the answer is ignored",
                        open.method,
                        requester.as_str(),
                        cancel.at.line
                    ),
                )
                .method(Some(&open.method))
                .subject(open.subject.as_deref())
                .related(cancel.at.line),
            );
        }
        let f = &mut *self;
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
                        f.tokens.swap_remove(&old);
                    }
                }
            }
        }
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
    }
}

fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// Whether a cancellation's reason says the canceller gave up waiting
/// (the SDKs write "Request timed out", "timeout", "deadline exceeded").
pub(crate) fn is_timeout(reason: &str) -> bool {
    let r = reason.to_ascii_lowercase();
    ["timed out", "timeout", "time out", "deadline"]
        .iter()
        .any(|w| r.contains(w))
}
