//! `--schema-check`'s official pass: every message against the JSON Schema
//! of the session's revision, as the specification publishes it
//! (`schemas/<revision>.json`, embedded in the binary).
//!
//! A request or notification is judged by its method's definition
//! (`tools/call` -> `CallToolRequest`), a result by the definition of the
//! request it answers (`CallToolResult`; `CreateTaskResult` for a task,
//! `InputRequiredResult` for a 2026 `input_required` answer, `EmptyResult`
//! for a request without a result of its own), an error response by
//! `JSONRPCError` (`JSONRPCErrorResponse` from 2025-11-25). A method the
//! revision's schema does not define is skipped: other rules name it.
//!
//! Each revision's document is parsed once per process, and each definition
//! compiled once, when a message first needs it; validators are shared by
//! every session and every thread. Work per message is bounded: a message
//! of more than [`MAX_VALUE_NODES`] JSON values is not validated, a finding
//! quotes at most [`MAX_ERRORS`] violations, and a session reports at most
//! [`MAX_FINDINGS`] messages (then one note that it stopped).

use std::sync::{Arc, Mutex, OnceLock};

use foldhash::HashMap;
use jsonschema::Validator;
use serde_json::Value;

use crate::protocol::Revision;

/// JSON values in a message that is validated.
pub const MAX_VALUE_NODES: usize = 65536;
/// Violations quoted in one finding (the same cap as the tools' schemas).
pub use super::schemas::MAX_ERRORS;
/// Messages reported per session.
pub const MAX_FINDINGS: u64 = 100;

fn text(revision: Revision) -> &'static str {
    match revision {
        Revision::V2024_11_05 => include_str!("../../schemas/2024-11-05.json"),
        Revision::V2025_03_26 => include_str!("../../schemas/2025-03-26.json"),
        Revision::V2025_06_18 => include_str!("../../schemas/2025-06-18.json"),
        Revision::V2025_11_25 => include_str!("../../schemas/2025-11-25.json"),
        Revision::V2026_07_28 => include_str!("../../schemas/2026-07-28.json"),
    }
}

/// One revision's schema: the document, its method table and the
/// validators compiled so far (`None`: the definition did not compile).
struct Schema {
    doc: Value,
    /// `definitions` (draft-07) or `$defs` (2020-12).
    defs_key: &'static str,
    /// Method -> the definition of its request or notification.
    methods: HashMap<String, String>,
    validators: Mutex<HashMap<String, Option<Arc<Validator>>>>,
}

static SCHEMAS: [OnceLock<Option<Schema>>; Revision::ALL.len()] =
    [const { OnceLock::new() }; Revision::ALL.len()];

fn schema(revision: Revision) -> Option<&'static Schema> {
    let index = Revision::ALL.iter().position(|r| *r == revision)?;
    SCHEMAS[index]
        .get_or_init(|| Schema::parse(text(revision)))
        .as_ref()
}

impl Schema {
    fn parse(text: &str) -> Option<Schema> {
        let doc: Value = serde_json::from_str(text).ok()?;
        let defs_key = if doc.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let mut methods = HashMap::default();
        for (name, def) in doc.get(defs_key)?.as_object()? {
            // The unions (ClientRequest, ServerNotification, ...) and the
            // envelopes are not a method's own definition.
            let own = (name.ends_with("Request") || name.ends_with("Notification"))
                && !["Client", "Server", "JSONRPC"]
                    .iter()
                    .any(|p| name.starts_with(p));
            let method = def
                .pointer("/properties/method/const")
                .and_then(Value::as_str);
            if let (true, Some(method)) = (own, method) {
                methods
                    .entry(method.to_string())
                    .or_insert_with(|| name.clone());
            }
        }
        Some(Schema {
            doc,
            defs_key,
            methods,
            validators: Mutex::new(HashMap::default()),
        })
    }

    fn has(&self, name: &str) -> bool {
        self.doc
            .get(self.defs_key)
            .is_some_and(|d| d.get(name).is_some())
    }

    /// The definition's validator, compiled on first use.
    fn validator(&self, name: &str) -> Option<Arc<Validator>> {
        let mut kept = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = kept.get(name) {
            return v.clone();
        }
        let compiled = self.has(name).then(|| self.compile(name)).flatten();
        kept.insert(name.to_string(), compiled.clone());
        compiled
    }

    fn compile(&self, name: &str) -> Option<Arc<Validator>> {
        // The whole document, entered by a `$ref` to the definition, so
        // that its own `$ref`s resolve inside it (never outside it: the
        // crate is built without network or file resolution).
        let mut root = self.doc.clone();
        let pointer = format!("#/{}/{}", self.defs_key, name.replace('~', "~0"));
        root.as_object_mut()?
            .insert("$ref".into(), Value::String(pointer));
        jsonschema::options().build(&root).ok().map(Arc::new)
    }

    /// The definition a result of `method` is judged by.
    fn result_of(&self, method: &str, result: &Value) -> Option<String> {
        if result.get("resultType").and_then(Value::as_str) == Some("input_required")
            && self.has("InputRequiredResult")
        {
            return Some("InputRequiredResult".into());
        }
        if result.get("task").is_some_and(Value::is_object) && self.has("CreateTaskResult") {
            return Some("CreateTaskResult".into());
        }
        let request = self.methods.get(method)?;
        let own = format!("{}Result", request.strip_suffix("Request")?);
        if self.has(&own) {
            Some(own)
        } else if self.has("EmptyResult") {
            Some("EmptyResult".into())
        } else {
            None
        }
    }

    fn error_definition(&self) -> Option<&'static str> {
        ["JSONRPCErrorResponse", "JSONRPCError"]
            .into_iter()
            .find(|n| self.has(n))
    }
}

/// What a message is, for the official schema.
pub enum Part<'a> {
    /// A request or notification with this method: the whole message.
    Call(&'a str),
    /// A result of a request with this method: the `result` member.
    Result(&'a str),
    /// An error response: the whole message.
    Error,
}

/// A message that breaks its definition.
pub struct Violation {
    /// The definition, as the schema names it (`CallToolRequest`).
    pub definition: String,
    /// At most [`MAX_ERRORS`] violations: `JSON Pointer: what is wrong`.
    pub errors: Vec<String>,
    pub more: bool,
}

/// Counts the JSON values in `v`, up to `limit`.
fn within(v: &Value, limit: usize) -> bool {
    let mut count = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        count += 1;
        if count > limit {
            return false;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    true
}

/// Judges one message (`value`: the whole message for a call or an error,
/// the `result` member for a result) against `revision`'s schema. `None`:
/// it conforms, is too large, or the schema does not define it.
pub fn check(revision: Revision, part: Part<'_>, value: &Value) -> Option<Violation> {
    let schema = schema(revision)?;
    let (definition, prefix) = match part {
        Part::Call(method) => (schema.methods.get(method)?.clone(), ""),
        Part::Result(method) => (schema.result_of(method, value)?, "/result"),
        Part::Error => (schema.error_definition()?.to_string(), ""),
    };
    if !within(value, MAX_VALUE_NODES) {
        return None;
    }
    let validator = schema.validator(&definition)?;
    if validator.is_valid(value) {
        return None;
    }
    let (errors, more) = super::schemas::first_errors(&validator, value, |pointer| {
        let pointer = format!("{prefix}{pointer}");
        if pointer.is_empty() {
            "(the message)".to_string()
        } else {
            crate::text::excerpt(&pointer)
        }
    });
    (!errors.is_empty()).then_some(Violation {
        definition,
        errors,
        more,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_revision_parses_and_names_its_methods() {
        for revision in Revision::ALL {
            let s = schema(revision).expect("parses");
            assert_eq!(
                s.methods.get("tools/call").map(String::as_str),
                Some("CallToolRequest")
            );
            assert!(
                s.methods.contains_key("notifications/progress"),
                "{revision}"
            );
            assert!(s.error_definition().is_some(), "{revision}");
        }
        let legacy = schema(Revision::V2025_06_18).expect("parses");
        assert_eq!(legacy.defs_key, "definitions");
        assert_eq!(legacy.methods["initialize"], "InitializeRequest");
        assert_eq!(
            legacy.result_of("ping", &json!({})).as_deref(),
            Some("EmptyResult")
        );
        let modern = schema(Revision::V2026_07_28).expect("parses");
        assert_eq!(modern.defs_key, "$defs");
        assert!(!modern.methods.contains_key("initialize"));
        assert_eq!(modern.methods["server/discover"], "DiscoverRequest");
        assert_eq!(
            modern
                .result_of("tools/call", &json!({"resultType": "input_required"}))
                .as_deref(),
            Some("InputRequiredResult")
        );
    }

    #[test]
    fn violations_carry_json_pointers() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": 7, "arguments": []}});
        for revision in [Revision::V2024_11_05, Revision::V2025_11_25] {
            let v = check(revision, Part::Call("tools/call"), &call).expect("violates");
            assert_eq!(v.definition, "CallToolRequest");
            assert!(
                v.errors.iter().any(|e| e.starts_with("/params/name: ")),
                "{revision}: {:?}",
                v.errors
            );
            assert!(
                v.errors
                    .iter()
                    .any(|e| e.starts_with("/params/arguments: ")),
                "{revision}: {:?}",
                v.errors
            );
        }
        let good = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1}}});
        assert!(check(Revision::V2025_11_25, Part::Call("tools/call"), &good).is_none());
        // A result: pointers under /result.
        let v = check(
            Revision::V2025_06_18,
            Part::Result("tools/call"),
            &json!({"content": [{"type": "text"}]}),
        )
        .expect("violates");
        assert_eq!(v.definition, "CallToolResult");
        assert!(
            v.errors[0].starts_with("/result/content/0: "),
            "{:?}",
            v.errors
        );
        assert!(
            check(
                Revision::V2025_06_18,
                Part::Result("tools/call"),
                &json!({"content": [{"type": "text", "text": "hi"}]})
            )
            .is_none()
        );
        // A missing required member is reported at the object that lacks it.
        let v = check(
            Revision::V2025_11_25,
            Part::Error,
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602}}),
        )
        .expect("violates");
        assert_eq!(v.definition, "JSONRPCErrorResponse");
        assert!(v.errors[0].starts_with("/error: "), "{:?}", v.errors);
        let v = check(
            Revision::V2025_03_26,
            Part::Call("notifications/initialized"),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": 3}),
        )
        .expect("violates");
        assert!(v.errors[0].starts_with("/params: "), "{:?}", v.errors);
    }

    #[test]
    fn unknown_methods_and_huge_messages_are_skipped() {
        let odd = json!({"jsonrpc": "2.0", "id": 1, "method": "x/unknown", "params": 1});
        assert!(check(Revision::V2025_11_25, Part::Call("x/unknown"), &odd).is_none());
        assert!(check(Revision::V2025_11_25, Part::Result("x/unknown"), &json!(1)).is_none());
        let big: Vec<Value> = (0..MAX_VALUE_NODES).map(|_| json!({"type": 1})).collect();
        let huge = json!({"content": big});
        assert!(check(Revision::V2025_11_25, Part::Result("tools/call"), &huge).is_none());
        let v = check(
            Revision::V2025_11_25,
            Part::Result("tools/call"),
            &json!({"content": [{"type": 1}, {"type": 1}, {"type": 1}, {"type": 1}]}),
        )
        .expect("violates");
        assert_eq!(v.errors.len(), MAX_ERRORS);
        assert!(v.more);
    }
}
