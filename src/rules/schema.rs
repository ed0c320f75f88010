//! `--schema-check`'s official half: every message against the official
//! JSON Schema of the session's revision (`schema-violation`), up to
//! [`official::MAX_FINDINGS`] messages, then one note that checking stopped.
//! Silent on a message a specific rule (an envelope, shape, tool or
//! 2026-07-28 rule) already reported on the same line: no rule doubles
//! another.

use serde_json::Value;

use crate::facts::official;
use crate::protocol::Revision;
use crate::rules::finding::{Finding, Findings};
use crate::rules::{Group, Rule};
use crate::text::excerpt;
use crate::wire::dir::Dir;
use crate::wire::message::{Field, Kind, Message};
use crate::wire::time::At;

/// Messages `schema-violation` reported.
#[derive(Debug, Default)]
pub(crate) struct State {
    violations: u64,
}

impl State {
    /// `--schema-check`: the message against the official schema of the
    /// session's revision (`schema-violation`).
    pub(crate) fn check(
        &mut self,
        revision: Option<Revision>,
        at: &At,
        dir: Dir,
        msg: &mut Message,
        request_method: Option<&str>,
        findings: &mut Findings,
    ) {
        if self.violations > official::MAX_FINDINGS {
            return;
        }
        // A rule of its own already said what is wrong with this message
        // (a malformed error, an invalid result, arguments against their
        // tool's schema): the official schema's word would double it.
        let specific = findings
            .listed()
            .iter()
            .rev()
            .take_while(|f| f.line == at.line)
            .any(|f| {
                f.rule != Rule::SchemaViolation
                    && matches!(
                        f.rule.info().group,
                        Group::Envelope | Group::Shapes | Group::Tools | Group::Modern
                    )
            });
        if specific {
            return;
        }
        let Some(revision) = revision else {
            return;
        };
        let method = msg.method.clone();
        let (kind, is_error) = (msg.kind, msg.is_error());
        let judge = |v: &Value| match (kind, method.as_deref(), request_method) {
            (Kind::Request | Kind::Notification, Some(m), _) => {
                official::check(revision, official::Part::Call(m), v)
            }
            (Kind::Response, _, _) if is_error => {
                official::check(revision, official::Part::Error, v)
            }
            (Kind::Response, _, Some(m)) => v
                .field("result")
                .and_then(|r| official::check(revision, official::Part::Result(m), r)),
            _ => None,
        };
        // The message whole: the parser may have cut long strings or left
        // large schemas and structured content out.
        let violation = if msg.is_cut() {
            judge(&Value::Object(msg.fields().into_owned()))
        } else {
            let whole = Value::Object(std::mem::take(msg.fields_mut()));
            let violation = judge(&whole);
            if let Value::Object(obj) = whole {
                *msg.fields_mut() = obj;
            }
            violation
        };
        let Some(v) = violation else {
            return;
        };
        self.violations += 1;
        let shown = request_method.or(method.as_deref());
        let what = match msg.kind {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Response if msg.is_error() => "error response",
            Kind::Response => "result",
        };
        let text = if self.violations > official::MAX_FINDINGS {
            format!(
                "more than {} messages break the {revision} schema; the rest of the session is not checked against it",
                official::MAX_FINDINGS
            )
        } else {
            format!(
                "{} {what}{} does not match {} of the {revision} schema: {}{}",
                dir.writer(),
                match (msg.kind, shown) {
                    (Kind::Response, Some(m)) => format!(" to `{}`", excerpt(m)),
                    (_, Some(m)) => format!(" `{}`", excerpt(m)),
                    _ => String::new(),
                },
                v.definition,
                v.errors.join("; "),
                if v.more { "; and more" } else { "" }
            )
        };
        findings.push(
            Finding::new(Rule::SchemaViolation, at.line, text)
                .time(at.time.as_ref())
                .dir(dir)
                .id(msg.id.id())
                .method(shown),
        );
    }
}
