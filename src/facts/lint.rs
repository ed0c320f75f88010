//! `unportable-tool-schema`: what a listed schema uses that clients handle
//! inconsistently, read from the schema's JSON text without building it.
//!
//! A listing's schemas are linted when they are new (every schema of a
//! large listing, whatever the work budget), so the lint reads the text
//! once, in one pass, and keeps only what it judges: a [`Shape`]. Building
//! a `serde_json::Value` of each schema, walking it and dropping it took
//! three times as long (2026-12-07, callgrind on the schemas shape). The
//! judgement is that of the schema as a `Value` ([`Shape::of`]); a text
//! with a repeated key in an object (where the `Value` keeps the last) is
//! read as a `Value`, so both agree on every text (a property test holds
//! them equal).

use std::borrow::Cow;
use std::fmt;

use foldhash::{HashSet, HashSetExt};
use serde_core::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// JSON values in a schema that is linted or compiled (`schemas`).
pub const MAX_SCHEMA_NODES: usize = 4096;
/// Nesting of a schema that is linted or compiled.
pub const MAX_DEPTH: usize = 32;
/// Untyped properties a finding names (the rest are counted).
const MAX_NAMED: usize = 3;

/// Counts the JSON values in `v` up to `limit`, and whether it nests deeper
/// than `depth`. Returns `None` when either bound is passed.
pub(super) fn within(v: &Value, limit: usize, depth: usize) -> Option<usize> {
    let mut count = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        count += 1;
        if count > limit || d > depth {
            return None;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    Some(count)
}

/// The root's keywords that combine schemas: in an `inputSchema`, hosts
/// that flatten it for a model lose them.
const COMBINATORS: [&str; 4] = ["oneOf", "anyOf", "allOf", "not"];
/// The keywords that say something of a property's type.
const TYPING: [&str; 7] = ["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"];

/// What the lint judges of one schema: enough to word its findings for an
/// input or an output schema, with or without a named dialect.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Within [`MAX_SCHEMA_NODES`] values and [`MAX_DEPTH`] levels (else,
    /// or when it is not JSON, nothing is said of it).
    bounded: bool,
    /// The root's [`COMBINATORS`], present or not.
    combinators: [bool; 4],
    /// The root's `properties` that say nothing of their type: the first
    /// [`MAX_NAMED`] names (excerpts), and how many there are.
    untyped: Vec<String>,
    untyped_count: usize,
    /// A `$ref` starting with `#` anywhere in it.
    local_ref: bool,
    /// The first `$ref` not starting with `#` (an excerpt), in the order
    /// of [`Shape::of`]'s walk.
    external_ref: Option<String>,
    /// The root's `$schema`.
    dialect: Option<String>,
}

/// A property schema that says nothing of its value's type.
fn untyped(p: &Value) -> bool {
    match p {
        Value::Bool(b) => *b,
        Value::Object(o) => !TYPING.iter().any(|k| o.contains_key(*k)),
        _ => false,
    }
}

impl Shape {
    /// The shape of a schema built as a `Value`: the reference that
    /// [`Shape::read`] agrees with.
    pub fn of(schema: &Value) -> Shape {
        let mut shape = Shape::default();
        if within(schema, MAX_SCHEMA_NODES, MAX_DEPTH).is_none() {
            return shape;
        }
        shape.bounded = true;
        for (present, key) in shape.combinators.iter_mut().zip(COMBINATORS) {
            *present = schema.get(key).is_some();
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, p) in props {
                if untyped(p) {
                    shape.untyped_named(name);
                }
            }
        }
        // The walk: an object's own `$ref` before its values, the last
        // value first.
        let mut stack = vec![schema];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(o) => {
                    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                        if r.starts_with('#') {
                            shape.local_ref = true;
                        } else if shape.external_ref.is_none() {
                            shape.external_ref = Some(crate::text::excerpt(r));
                        }
                    }
                    stack.extend(o.values());
                }
                Value::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        shape.dialect = schema
            .get("$schema")
            .and_then(Value::as_str)
            .map(str::to_owned);
        shape
    }

    /// The shape of a schema's JSON text, read in one pass with nothing
    /// built but what is judged. `None` when an object repeats a key (read
    /// it as a `Value`: [`Shape::of`] judges what the `Value` keeps).
    pub fn read(text: &str) -> Option<Shape> {
        let mut walk = Walk {
            shape: Shape::default(),
            nodes: 0,
            stop: None,
            keys: Vec::new(),
        };
        let mut d = serde_json::Deserializer::from_str(text);
        let node = Node {
            walk: &mut walk,
            depth: 0,
            role: Role::Root,
        };
        let read = node
            .deserialize(&mut d)
            .and_then(|seen| d.end().map(|()| seen));
        match (read, walk.stop) {
            (_, Some(Stop::Repeated)) => None,
            (Ok(seen), None) => {
                let mut shape = walk.shape;
                shape.bounded = true;
                shape.external_ref = seen.external.map(|r| crate::text::excerpt(&r));
                Some(shape)
            }
            // Past a bound, or not JSON: nothing is said.
            _ => Some(Shape::default()),
        }
    }

    /// The shape of a schema's text, however it reads.
    pub fn of_text(text: &str) -> Shape {
        Shape::read(text).unwrap_or_else(|| match serde_json::from_str::<Value>(text) {
            Ok(schema) => Shape::of(&schema),
            Err(_) => Shape::default(),
        })
    }

    /// A property of the root's `properties` says nothing of its type.
    fn untyped_named(&mut self, name: &str) {
        if self.untyped.len() < MAX_NAMED {
            self.untyped
                .push(format!("`{}`", crate::text::excerpt(name)));
        }
        self.untyped_count += 1;
    }

    /// The constructs clients handle inconsistently, worded for the
    /// tool's `inputSchema` (`input`) or `outputSchema`; `dialect`: the
    /// revision names 2020-12 as the dialect of embedded schemas
    /// (2025-11-25 and later).
    pub fn findings(&self, input: bool, dialect: bool) -> Vec<String> {
        let mut out = Vec::new();
        if !self.bounded {
            return out;
        }
        let key = if input { "inputSchema" } else { "outputSchema" };
        if input {
            for (present, keyword) in self.combinators.iter().zip(COMBINATORS) {
                if *present {
                    out.push(format!("a top-level `{keyword}` in inputSchema"));
                }
            }
            if self.untyped_count > 0 {
                let more = if self.untyped_count > MAX_NAMED {
                    ", ..."
                } else {
                    ""
                };
                let noun = if self.untyped_count == 1 {
                    "property"
                } else {
                    "properties"
                };
                out.push(format!("untyped {noun} {}{more}", self.untyped.join(", ")));
            }
        }
        // A local `$ref` matters where hosts flatten the schema for a model
        // (the input); clients validate output with a real validator.
        if let Some(r) = &self.external_ref {
            out.push(format!("an external `$ref` ({r}) in {key}"));
        } else if self.local_ref && input {
            out.push(format!("`$ref` in {key}"));
        }
        if let Some(d) = &self.dialect {
            // 2020-12 is the revision's; draft-07 is the dialect of MCP's
            // own schemas up to 2025-06-18 and what the official SDKs emit,
            // which every client in the corpus reads: not flagged.
            let bare = d.trim_end_matches('#');
            let named = bare == "https://json-schema.org/draft/2020-12/schema"
                || bare
                    .trim_start_matches("https://")
                    .trim_start_matches("http://")
                    == "json-schema.org/draft-07/schema";
            if dialect && !named {
                out.push(format!(
                    "`$schema` {} in {key} (the revision names 2020-12)",
                    crate::text::excerpt(d)
                ));
            }
        }
        out
    }
}

/// Why [`Shape::read`] stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Past [`MAX_SCHEMA_NODES`] or [`MAX_DEPTH`].
    Bounds,
    /// An object repeats a key.
    Repeated,
}

/// What the one pass keeps.
struct Walk<'de> {
    shape: Shape,
    nodes: usize,
    stop: Option<Stop>,
    /// The keys of the objects being read, each object's after its
    /// parent's (a repeated key is found among its own).
    keys: Vec<Cow<'de, str>>,
}

/// Where a value is, for what is judged of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    /// The root's `properties`: each member is a property.
    Properties,
    /// A `$ref`, or the root's `$schema`: its text is kept.
    Text,
    Other,
}

/// What a value tells its parent.
#[derive(Default)]
struct Seen<'de> {
    /// The first external `$ref` in it, in [`Shape::of`]'s walk order.
    external: Option<Cow<'de, str>>,
    /// A string's text (only for [`Role::Text`]).
    text: Option<Cow<'de, str>>,
    /// It says nothing of a type: `true`, or an object without a
    /// [`TYPING`] keyword.
    untyped: bool,
}

/// One value read at `depth`.
struct Node<'w, 'de> {
    walk: &'w mut Walk<'de>,
    depth: usize,
    role: Role,
}

impl<'de> Node<'_, 'de> {
    /// Counts the value against the bounds.
    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        self.walk.nodes += 1;
        if self.walk.nodes > MAX_SCHEMA_NODES || self.depth > MAX_DEPTH {
            self.walk.stop = Some(Stop::Bounds);
            return Err(E::custom("past the schema bounds"));
        }
        Ok(())
    }

    fn text<E: de::Error>(mut self, s: Cow<'de, str>) -> Result<Seen<'de>, E> {
        self.enter()?;
        Ok(Seen {
            text: (self.role == Role::Text).then_some(s),
            ..Seen::default()
        })
    }

    fn scalar<E: de::Error>(mut self) -> Result<Seen<'de>, E> {
        self.enter()?;
        Ok(Seen::default())
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, 'de> {
    type Value = Seen<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Seen<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, 'de> {
    type Value = Seen<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }

    fn visit_bool<E: de::Error>(mut self, b: bool) -> Result<Seen<'de>, E> {
        self.enter()?;
        Ok(Seen {
            untyped: b,
            ..Seen::default()
        })
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Seen<'de>, E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Seen<'de>, E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Seen<'de>, E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<Seen<'de>, E> {
        self.scalar()
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Seen<'de>, E> {
        self.text(Cow::Borrowed(s))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Seen<'de>, E> {
        // A string with escapes: copied only when its text is kept.
        if self.role == Role::Text {
            self.text(Cow::Owned(s.to_owned()))
        } else {
            self.scalar()
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Seen<'de>, A::Error> {
        self.enter()?;
        // Walked last element first: the last one holding an external
        // `$ref` names it.
        let mut external = None;
        loop {
            let child = Node {
                walk: &mut *self.walk,
                depth: self.depth + 1,
                role: Role::Other,
            };
            let Some(seen) = seq.next_element_seed(child)? else {
                break;
            };
            if seen.external.is_some() {
                external = seen.external;
            }
        }
        Ok(Seen {
            external,
            ..Seen::default()
        })
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Seen<'de>, A::Error> {
        self.enter()?;
        let first = self.walk.keys.len();
        // Past a few keys, a repeat is looked up in a set.
        let mut many: Option<HashSet<Cow<'de, str>>> = None;
        let (mut typed, mut own, mut external) = (false, None, None);
        while let Some(key) = map.next_key_seed(Key)? {
            let repeated = match &mut many {
                Some(set) => !set.insert(key.clone()),
                None => self.walk.keys[first..].contains(&key),
            };
            if repeated {
                self.walk.stop = Some(Stop::Repeated);
                return Err(de::Error::custom("a repeated key"));
            }
            if many.is_none() && self.walk.keys.len() - first >= 16 {
                let mut set = HashSet::with_capacity(64);
                set.extend(self.walk.keys.drain(first..));
                set.insert(key.clone());
                many = Some(set);
            } else if many.is_none() {
                self.walk.keys.push(key.clone());
            }
            let is_ref = key == "$ref";
            let role = match self.role {
                Role::Root if key == "properties" => Role::Properties,
                Role::Root if key == "$schema" => Role::Text,
                _ if is_ref => Role::Text,
                _ => Role::Other,
            };
            let child = Node {
                walk: &mut *self.walk,
                depth: self.depth + 1,
                role,
            };
            let seen = map.next_value_seed(child)?;
            typed |= TYPING.contains(&&*key);
            if is_ref {
                if let Some(r) = &seen.text {
                    if r.starts_with('#') {
                        self.walk.shape.local_ref = true;
                    } else {
                        own = Some(r.clone());
                    }
                }
            }
            match self.role {
                Role::Root => {
                    if let Some(at) = COMBINATORS.iter().position(|c| *c == key) {
                        self.walk.shape.combinators[at] = true;
                    }
                    if key == "$schema" {
                        self.walk.shape.dialect = seen.text.as_deref().map(str::to_owned);
                    }
                }
                Role::Properties if seen.untyped => self.walk.shape.untyped_named(&key),
                _ => {}
            }
            if seen.external.is_some() {
                external = seen.external;
            }
        }
        self.walk.keys.truncate(first);
        Ok(Seen {
            // Its own `$ref` comes first in the walk, then its values,
            // the last first.
            external: own.or(external),
            untyped: !typed,
            text: None,
        })
    }
}

/// An object's key, borrowed from the text when it has no escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Both readings of `text` agree (a text that is not JSON says nothing).
    fn agree(text: &str) {
        let by_value = serde_json::from_str::<Value>(text)
            .map(|v| Shape::of(&v))
            .unwrap_or_default();
        assert_eq!(Shape::of_text(text), by_value, "{text}");
    }

    #[test]
    fn the_one_pass_judges_as_the_value_does() {
        for schema in [
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
                "properties": {"a": {"type": "string"}, "b": {}, "c": {"description": "x"},
                    "d": {"$ref": "https://example.com/d.json"}, "e": true, "f": false, "g": 3}}),
            json!({"type": "object", "$defs": {"n": {"type": "integer"}},
                "properties": {"n": {"$ref": "#/$defs/n"}}}),
            json!({"$ref": "a.json", "items": [{"$ref": "b.json"}, {"x": {"$ref": "c.json"}}]}),
            json!({"items": [{"$ref": "b.json"}, {"x": {"$ref": "c.json"}}, 1]}),
            json!({"properties": {"$ref": "x.json", "a": {}}, "not": null, "oneOf": []}),
            json!([{"$ref": "#/a"}, {"$ref": 3}]),
            json!(true),
            json!("text"),
        ] {
            let text = schema.to_string();
            agree(&text);
            assert!(Shape::read(&text).is_some(), "read in one pass: {text}");
        }
        // Escapes in keys and values; a repeated key, where the value keeps
        // the last (and its first place).
        agree(r#"{"prop\u0065rties": {"\u0061": {}}, "$ref": "\u0065xt.json"}"#);
        agree(r#"{"properties": {"a": {}, "b": {"type": "x"}, "a": {"type": "y"}}}"#);
        agree(r#"{"$ref": "e.json", "$ref": 1, "x": {"$ref": "f.json"}}"#);
        agree(r#"{"properties": {}, "properties": {"q": true}}"#);
        assert!(Shape::read(r#"{"a": 1, "b": {"a": 2}, "a": 3}"#).is_none());
        // Past the bounds, or not JSON: nothing is said.
        let deep = "[".repeat(40) + &"]".repeat(40);
        agree(&deep);
        assert!(!Shape::of_text(&deep).bounded);
        let wide = format!("[{}]", vec!["1"; MAX_SCHEMA_NODES].join(","));
        agree(&wide);
        assert!(!Shape::of_text(&wide).bounded);
        agree("{\"a\": ");
        agree("{} x");
        // A repeated key among many.
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {{}}")).collect();
        agree(&format!(
            "{{\"properties\": {{{}, \"k3\": {{\"type\": \"x\"}}}}}}",
            keys.join(",")
        ));
        agree(&format!("{{\"properties\": {{{}}}}}", keys.join(",")));
    }

    /// JSON text of schema-like values: the keywords the lint reads,
    /// nesting, repeated keys, escapes.
    fn schema_text() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("type".to_string()),
            Just("$ref".to_string()),
            Just("properties".to_string()),
            Just("anyOf".to_string()),
            Just("not".to_string()),
            Just("$schema".to_string()),
            Just("enum".to_string()),
            Just("items".to_string()),
            Just("a".to_string()),
            Just("b\\u0062".to_string()),
        ];
        let leaf = prop_oneof![
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string()),
            Just("12".to_string()),
            Just("\"#/$defs/x\"".to_string()),
            Just("\"https://e.com/s.json\"".to_string()),
            Just("\"\\u0068ttp://json-schema.org/draft-07/schema#\"".to_string()),
            Just("\"s\"".to_string()),
        ];
        leaf.prop_recursive(6, 80, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|m| {
                    let members: Vec<String> =
                        m.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_one_pass_agrees_with_the_value_on_any_schema(text in schema_text()) {
            agree(&text);
        }
    }
}
