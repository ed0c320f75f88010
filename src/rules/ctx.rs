//! The context the session's rules are checked in: the message at hand,
//! where it is, and the findings. A rule words a finding about the message
//! with [`Ctx::finding`] (its line, time, direction, id, method and, for a
//! request, subject) and reports it with [`Ctx::push`] or [`Ctx::fire`];
//! what is reported passes the catalogue's gate ([`Findings::judge_under`],
//! set by the session to the revision the message is judged by).

use crate::rules::Rule;
use crate::rules::finding::{Finding, Findings};
use crate::wire::dir::Dir;
use crate::wire::time::At;
use serde_json::Value;

use crate::wire::message::{Field, Kind, Message};

pub(crate) struct Ctx<'a> {
    at: &'a At,
    dir: Dir,
    msg: &'a Message,
    /// What the rules report into (and ask whether a rule is still
    /// listed, [`Findings::wants`]).
    pub(crate) findings: &'a mut Findings,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(
        at: &'a At,
        dir: Dir,
        msg: &'a Message,
        findings: &'a mut Findings,
    ) -> Ctx<'a> {
        Ctx {
            at,
            dir,
            msg,
            findings,
        }
    }

    /// Where the message is.
    pub(crate) fn at(&self) -> &'a At {
        self.at
    }

    /// The message at hand.
    pub(crate) fn msg(&self) -> &'a Message {
        self.msg
    }

    /// A finding of `rule` about the message, not yet reported.
    pub(crate) fn finding(&self, rule: Rule, text: String) -> Finding {
        about(self.at, self.dir, self.msg, rule, text)
    }

    /// Reports a finding.
    pub(crate) fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Reports a finding of `rule` about the message ([`Ctx::finding`]).
    pub(crate) fn fire(&mut self, rule: Rule, text: String) {
        self.fire_with(rule, || text);
    }

    /// [`Ctx::fire`] of words `text` makes only when the finding is listed:
    /// past the rule's limit it is counted, neither worded nor built
    /// ([`Findings::push_with`]).
    pub(crate) fn fire_with(&mut self, rule: Rule, text: impl FnOnce() -> String) {
        let (at, dir, msg) = (self.at, self.dir, self.msg);
        self.findings
            .push_with(rule, rule.severity(), || about(at, dir, msg, rule, text()));
    }
}

/// A finding of `rule` about `msg`, written by `dir`'s writer at `at`
/// ([`Ctx::finding`]).
fn about(at: &At, dir: Dir, msg: &Message, rule: Rule, text: String) -> Finding {
    // The tool or resource a request names, read only for a finding.
    let subject = match msg.kind {
        Kind::Request => request_subject(msg),
        _ => None,
    };
    Finding::new(rule, at.line, text)
        .time(at.time.as_ref())
        .dir(dir)
        .id(msg.id.id())
        .method(msg.method.as_deref())
        .subject(subject.as_deref())
}

/// What a request is about: its params' `name` (a tool, a prompt) or `uri`
/// (a resource), cut to an excerpt.
pub(crate) fn request_subject(msg: &Message) -> Option<std::borrow::Cow<'_, str>> {
    msg.params().and_then(|p| {
        ["name", "uri"]
            .iter()
            .find_map(|k| p.field(k).and_then(Value::as_str))
            .map(crate::text::excerpt_cow)
    })
}
