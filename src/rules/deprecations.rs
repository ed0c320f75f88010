//! The deprecations family (`deprecated-feature`): a feature the revision a
//! message is judged by deprecates, or the revision given with
//! `--target-revision` (what a session would meet if it moved there).
//!
//! The JSON Schema carries no deprecation flag, so the table is kept here
//! by hand, per revision, with the spec's words. Only what is visible on
//! stdio is in it: dynamic client registration (HTTP authorization) and
//! the HTTP+SSE transport are not. The family keeps no state: every check
//! looks at one message, O(1) in the session (an `input_required` answer's
//! requests are read up to [`INPUTS_READ`]).

use serde_json::Value;

use crate::protocol::Revision;
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::text::excerpt;
use crate::wire::dir::Side;
use crate::wire::message::{Field, Kind, Message};

/// How many requests of one `input_required` answer are read.
const INPUTS_READ: usize = 64;

/// A deprecated feature: its name, the revision that deprecates it and
/// what replaces it.
struct Deprecation {
    feature: &'static str,
    since: Revision,
    instead: &'static str,
}

const ROOTS: Deprecation = Deprecation {
    feature: "Roots",
    since: Revision::V2026_07_28,
    instead: "a server asks for roots inside an `input_required` result",
};

const SAMPLING: Deprecation = Deprecation {
    feature: "Sampling",
    since: Revision::V2026_07_28,
    instead: "a server asks for a completion inside an `input_required` result",
};

const LOGGING: Deprecation = Deprecation {
    feature: "Logging",
    since: Revision::V2026_07_28,
    instead: "a request turns logging on with `_meta[\"io.modelcontextprotocol/logLevel\"]`",
};

const INCLUDE_CONTEXT: Deprecation = Deprecation {
    feature: "`includeContext` values `thisServer` and `allServers`",
    since: Revision::V2025_11_25,
    instead: "send `none` (or leave it out) and put the context in the messages",
};

/// The feature a method belongs to.
fn of_method(method: &str) -> Option<&'static Deprecation> {
    match method {
        "roots/list" | "notifications/roots/list_changed" => Some(&ROOTS),
        "sampling/createMessage" => Some(&SAMPLING),
        "logging/setLevel" | "notifications/message" => Some(&LOGGING),
        _ => None,
    }
}

/// The feature a capability belongs to, for the side declaring it.
fn of_capability(side: Side, key: &str) -> Option<&'static Deprecation> {
    match (side, key) {
        (Side::Client, "roots") => Some(&ROOTS),
        (Side::Client, "sampling") => Some(&SAMPLING),
        (Side::Server, "logging") => Some(&LOGGING),
        _ => None,
    }
}

/// The revisions a message is judged by: its own (as the session decided)
/// and `--target-revision`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judged {
    pub(crate) own: Option<Revision>,
    pub(crate) target: Option<Revision>,
}

impl Judged {
    /// The words for why `dep` is deprecated here: under the message's own
    /// revision, or only under the target. `None` when neither deprecates it.
    fn because(self, dep: &Deprecation) -> Option<String> {
        if self.own.is_some_and(|r| r >= dep.since) {
            Some(format!("deprecated in {}", dep.since))
        } else if self.target.is_some_and(|r| r >= dep.since) {
            Some(format!("deprecated in {}, the target revision", dep.since))
        } else {
            None
        }
    }
}

/// The closing words of every finding.
const STILL_WORKS: &str = "it still works until it is removed, no earlier than the first revision released on or after 2027-07-28";

/// A message of the session: a deprecated method, or a deprecated
/// `includeContext` value (in a sampling request, or in an `input_required`
/// answer's requests). `refused`: another rule already reports the message
/// as not allowed in its revision (a 2026 server request, a 2026 client
/// notification, a method the revision does not have), so its method is
/// not reported again.
pub(crate) fn message(
    judged: Judged,
    msg: &Message,
    request_method: Option<&str>,
    refused: bool,
    ctx: &mut Ctx<'_>,
) {
    if judged.own.is_none() && judged.target.is_none() {
        return;
    }
    if refused {
        return;
    }
    match msg.kind {
        Kind::Request | Kind::Notification => {
            let Some(method) = msg.method.as_deref() else {
                return;
            };
            if let Some(dep) = of_method(method) {
                if let Some(because) = judged.because(dep) {
                    ctx.fire(
                        Rule::DeprecatedFeature,
                        format!(
                            "`{method}` uses {}, {because}: {}; {STILL_WORKS}",
                            dep.feature, dep.instead
                        ),
                    );
                }
            }
            if method == "sampling/createMessage" {
                if let Some(value) = deprecated_context(msg.params()) {
                    include_context(judged, value, "this request", ctx);
                }
            }
        }
        Kind::Response => {
            // The 2026 form: sampling inside an `input_required` answer.
            let Some(Value::Object(inputs)) = msg.result().and_then(|r| r.field("inputRequests"))
            else {
                return;
            };
            let found = inputs.iter().take(INPUTS_READ).find_map(|(key, request)| {
                let sampling = request.field("method").and_then(Value::as_str)
                    == Some("sampling/createMessage");
                let params = request.field("params").and_then(Value::as_object);
                sampling
                    .then(|| deprecated_context(params))
                    .flatten()
                    .map(|v| (key, v))
            });
            if let Some((key, value)) = found {
                let answer = match request_method {
                    Some(m) => format!("the input request `{}` of this `{m}` answer", excerpt(key)),
                    None => format!("the input request `{}`", excerpt(key)),
                };
                include_context(judged, value, &answer, ctx);
            }
        }
    }
}

/// A deprecated `includeContext` value in sampling params.
fn deprecated_context(params: Option<&serde_json::Map<String, Value>>) -> Option<&'static str> {
    match params?.field("includeContext")?.as_str()? {
        "thisServer" => Some("thisServer"),
        "allServers" => Some("allServers"),
        _ => None,
    }
}

fn include_context(judged: Judged, value: &str, where_: &str, ctx: &mut Ctx<'_>) {
    let dep = &INCLUDE_CONTEXT;
    if let Some(because) = judged.because(dep) {
        ctx.fire(
            Rule::DeprecatedFeature,
            format!(
                "{where_} asks for `includeContext: \"{value}\"`, one of the {}, {because}: {}; {STILL_WORKS}",
                dep.feature, dep.instead
            ),
        );
    }
}

/// The handshake's answer (`initialize` or `server/discover`): one finding
/// naming the deprecated capabilities each side declared (`client`: the
/// `initialize` request's, `server`: the answer's).
pub(crate) fn capabilities(
    judged: Judged,
    client: Option<&Value>,
    server: Option<&Value>,
    ctx: &mut Ctx<'_>,
) {
    if judged.own.is_none() && judged.target.is_none() {
        return;
    }
    let mut named = Vec::new();
    let mut target_only = true;
    for (side, caps) in [(Side::Client, client), (Side::Server, server)] {
        let Some(Value::Object(caps)) = caps else {
            continue;
        };
        for key in ["roots", "sampling", "logging"] {
            let Some(dep) = of_capability(side, key).filter(|_| caps.has(key)) else {
                continue;
            };
            if judged.because(dep).is_none() {
                continue;
            }
            target_only &= judged.own.is_none_or(|r| r < dep.since);
            named.push(format!("{} `{key}` ({})", side.as_str(), dep.feature));
        }
    }
    if named.is_empty() {
        return;
    }
    // Every capability in the table is deprecated by 2026-07-28.
    let because = if target_only {
        "deprecated in 2026-07-28, the target revision"
    } else {
        "deprecated in 2026-07-28"
    };
    ctx.fire(
        Rule::DeprecatedFeature,
        format!(
            "the handshake declares {}, {because}: roots and sampling are asked for inside an `input_required` result, logging is turned on per request with `_meta[\"io.modelcontextprotocol/logLevel\"]`; {STILL_WORKS}",
            named.join(", ")
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_dates_each_feature() {
        let legacy = Judged {
            own: Some(Revision::V2025_06_18),
            target: None,
        };
        assert!(legacy.because(&ROOTS).is_none());
        assert!(legacy.because(&INCLUDE_CONTEXT).is_none());
        let moved = Judged {
            target: Some(Revision::V2026_07_28),
            ..legacy
        };
        assert_eq!(
            moved.because(&LOGGING).as_deref(),
            Some("deprecated in 2026-07-28, the target revision")
        );
        let late = Judged {
            own: Some(Revision::V2025_11_25),
            target: Some(Revision::V2026_07_28),
        };
        assert_eq!(
            late.because(&INCLUDE_CONTEXT).as_deref(),
            Some("deprecated in 2025-11-25")
        );
        assert!(of_method("tools/call").is_none());
        assert!(of_capability(Side::Server, "roots").is_none());
    }
}
