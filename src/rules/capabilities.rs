//! The capabilities family: a method used that the side owning it did not
//! declare (`capability-not-negotiated`), and capabilities declared that
//! the negotiated revision does not have (`capability-revision-mismatch`).
//!
//! Its state is what each side declared in the handshake (the client in
//! `initialize`, the server in its result or its `server/discover` answer).

use serde_json::Value;

use crate::facts::Facts;
use crate::protocol::{Era, Revision};
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::rules::finding::Finding;
use crate::wire::dir::Side;
use crate::wire::message::{Field, Kind, Message};

/// What each side declared.
#[derive(Debug, Default)]
pub(crate) struct State {
    client: Option<Value>,
    server: Option<Value>,
}

impl State {
    /// The client's `initialize` capabilities.
    pub(crate) fn client_declared(&mut self, caps: Option<&Value>) {
        self.client = caps.cloned();
    }

    /// The server's capabilities, in its `initialize` result or its
    /// `server/discover` answer.
    pub(crate) fn server_declared(&mut self, caps: Option<&Value>) {
        self.server = caps.cloned();
    }

    /// What the client and the server declared, as far as known.
    pub(crate) fn declared(&self) -> (Option<&Value>, Option<&Value>) {
        (self.client.as_ref(), self.server.as_ref())
    }

    /// The handshake settled on `revision`: what either side declared
    /// that the revision does not have.
    pub(crate) fn negotiated(&self, revision: Option<Revision>, ctx: &mut Ctx<'_>) {
        let Some(rev) = revision else {
            return;
        };
        for (side, caps) in [(Side::Client, &self.client), (Side::Server, &self.server)] {
            for problem in caps.iter().flat_map(|c| revision_problems(c, side, rev)) {
                ctx.fire(Rule::CapabilityRevisionMismatch, problem);
            }
        }
    }

    /// `capability-not-negotiated`: a gated method the owning side did not declare.
    pub(crate) fn gate(&self, facts: &Facts, side: Side, msg: &Message, ctx: &mut Ctx<'_>) {
        let (Some(method), Some(rev)) = (msg.method.as_deref(), facts.revision) else {
            return;
        };
        if facts.mid_session || facts.era != Some(Era::Legacy) || side == Side::Unknown {
            return;
        }
        let severity = Rule::CapabilityNotNegotiated.info().severity_in(Some(rev));
        // The finding's text is made only when there is a finding.
        let mut check = |owner: Side, path: &[&str], what: &dyn Fn() -> String| {
            let caps = match owner {
                Side::Client => &self.client,
                _ => &self.server,
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

/// `capability-revision-mismatch` at `line` for each capability `side`
/// declares in `caps` that `rev` does not have (`validate`'s one message).
pub(crate) fn revision_findings(
    caps: &Value,
    side: Side,
    rev: Revision,
    line: u64,
) -> impl Iterator<Item = Finding> {
    revision_problems(caps, side, rev)
        .into_iter()
        .map(move |problem| Finding::new(Rule::CapabilityRevisionMismatch, line, problem))
}

/// Capabilities a side declares that do not exist in `rev`.
pub fn revision_problems(caps: &Value, side: Side, rev: Revision) -> Vec<String> {
    let Value::Object(caps) = caps else {
        return Vec::new();
    };
    let table: &[(&str, Revision)] = match side {
        Side::Client => &[
            ("elicitation", Revision::V2025_06_18),
            ("tasks", Revision::V2025_11_25),
        ],
        _ => &[
            ("completions", Revision::V2025_03_26),
            ("tasks", Revision::V2025_11_25),
        ],
    };
    let mut problems = Vec::new();
    for (key, since) in table {
        if caps.has(key) && rev < *since {
            problems.push(format!(
                "{} declares capability `{key}`, which {rev} does not have (it exists from {since})",
                side.as_str()
            ));
        }
    }
    if rev >= Revision::V2026_07_28 && caps.has("tasks") {
        problems.push(format!(
            "{} declares capability `tasks`, which is no longer core in {rev} (tasks moved to an extension)",
            side.as_str()
        ));
    }
    problems
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
