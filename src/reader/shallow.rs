//! A record's top level read without building its tree: each member's key
//! and its value's raw JSON text, borrowed from the line. The readers of
//! JSON records (gh-aw, mcpsnoop, the Inspector, Claude Code) read the few
//! fields they need from [`Fields`] and hand the message's text on as it
//! is ([`minify`]d when the export pretty-printed it) or with a member
//! added ([`Splice`]), so a record costs about its own size, not the 20 to
//! 30 times a `serde_json::Value` of a structured payload takes.

use std::borrow::Cow;
use std::fmt;

use indexmap::IndexMap;
use serde_core::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The members of a JSON object, in order, each key with its value's text.
pub struct Fields<'a> {
    members: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> Fields<'a> {
    /// The members of `bytes` when it is one JSON object; `None` otherwise
    /// (not JSON, not an object, nested past serde_json's limit).
    pub fn parse(bytes: &'a [u8]) -> Option<Fields<'a>> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let members = de.deserialize_map(MembersVisitor).ok()?;
        de.end().ok()?;
        Some(Fields { members })
    }

    /// The same from a value's raw text (a member that is itself an object).
    pub fn of(raw: &'a RawValue) -> Option<Fields<'a>> {
        Fields::parse(raw.get().as_bytes())
    }

    /// The raw text of member `key` (the last, as a parse into a map keeps).
    pub fn raw(&self, key: &str) -> Option<&'a RawValue> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|&(_, v)| v)
    }

    /// Member `key` when it is a string.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        string(self.raw(key)?)
    }

    /// Member `key` when it is a number.
    pub fn f64(&self, key: &str) -> Option<f64> {
        let raw = self.raw(key)?.get();
        if !raw.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            return None;
        }
        serde_json::from_str::<f64>(raw).ok()
    }

    /// Member `key` when it is a boolean.
    pub fn bool(&self, key: &str) -> Option<bool> {
        match self.raw(key)?.get() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    pub fn contains(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }
}

/// A raw value when it is a JSON string, unescaped.
pub fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    if !text.contains('\\') {
        return Some(Cow::Borrowed(&text[1..text.len() - 1]));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

/// The elements of a JSON array's raw text, each as its raw text; `None`
/// when it is not an array.
pub fn elements(raw: &str) -> Option<Vec<&RawValue>> {
    let mut de = serde_json::Deserializer::from_str(raw);
    let items = de.deserialize_seq(ElementsVisitor).ok()?;
    de.end().ok()?;
    Some(items)
}

/// `raw` JSON text without the whitespace between its tokens (as
/// `Value::to_string` would write it, but keeping each string's and
/// number's own spelling). `raw` is valid JSON: a `RawValue`'s text.
pub fn minify(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            out.extend_from_slice(&bytes[start..i]);
            start = i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out
}

/// A message rebuilt from a record's object, its members kept as their
/// text: some removed, some replaced or added at the end.
pub struct Splice<'a> {
    /// A repeated key keeps its last value at its first place, as a parse
    /// into an ordered map does.
    members: IndexMap<Cow<'a, str>, Cow<'a, str>, foldhash::fast::RandomState>,
}

impl<'a> Splice<'a> {
    pub fn new(fields: &Fields<'a>) -> Splice<'a> {
        let mut members = IndexMap::with_capacity_and_hasher(
            fields.members.len() + 2,
            foldhash::fast::RandomState::default(),
        );
        for (k, v) in &fields.members {
            members.insert(k.clone(), Cow::Borrowed(v.get()));
        }
        Splice { members }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.members.get(key).map(AsRef::as_ref)
    }

    /// Sets `key` to the JSON text `json` (replacing it where it is).
    pub fn set(&mut self, key: &str, json: String) {
        match self.members.get_mut(key) {
            Some(slot) => *slot = Cow::Owned(json),
            None => {
                self.members
                    .insert(Cow::Owned(key.to_string()), Cow::Owned(json));
            }
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.members.shift_remove(key);
    }

    /// The object's compact JSON text.
    pub fn to_bytes(&self) -> Vec<u8> {
        let len: usize = self
            .members
            .iter()
            .map(|(k, v)| k.len() + v.len() + 4)
            .sum();
        let mut out = Vec::with_capacity(len + 2);
        out.push(b'{');
        for (i, (k, v)) in self.members.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(
                serde_json::to_string(k.as_ref())
                    .expect("a string serialises")
                    .as_bytes(),
            );
            out.push(b':');
            out.extend_from_slice(&minify(v));
        }
        out.push(b'}');
        out
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            members.push((key.0, value));
        }
        Ok(members)
    }
}

struct ElementsVisitor;

impl<'de> Visitor<'de> for ElementsVisitor {
    type Value = Vec<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
            items.push(item);
        }
        Ok(items)
    }
}

/// A key, borrowed unless it holds an escape.
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

impl<'de> serde_core::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_from_the_top_level_only() {
        let line = br#"{"a":"x\ty","b":{"c":[1, 2]},"n":1.5,"t":true,"z":null,"a":"last"}"#;
        let f = Fields::parse(line).expect("object");
        assert_eq!(f.str("a").as_deref(), Some("last"));
        assert_eq!(f.raw("b").map(RawValue::get), Some(r#"{"c":[1, 2]}"#));
        assert_eq!(f.f64("n"), Some(1.5));
        assert_eq!(f.bool("t"), Some(true));
        assert!(f.raw("z").is_some_and(|v| v.get() == "null"));
        assert!(f.str("b").is_none() && f.f64("a").is_none());
        assert!(Fields::parse(b"[1]").is_none());
        assert!(Fields::parse(b"{\"a\":1} x").is_none());
        assert!(Fields::parse(b"{\"a\":").is_none());
        let escaped = Fields::parse(br#"{"k\u0041":"\u00e9"}"#).expect("object");
        assert_eq!(escaped.str("kA").as_deref(), Some("é"));
    }

    #[test]
    fn minify_keeps_strings_and_numbers_as_written() {
        let text = "{\n  \"a\": \"x  \\\" y\",\n  \"b\": [ 1.0 , 2e3 ],\n  \"c\": \"\\u00e9\"\n}";
        assert_eq!(
            String::from_utf8(minify(text)).expect("utf-8"),
            r#"{"a":"x  \" y","b":[1.0,2e3],"c":"\u00e9"}"#
        );
    }

    #[test]
    fn a_splice_sets_removes_and_keeps_the_rest_as_written() {
        let line = br#"{"method":"tools/call","params":null,"x":{ "y" : 1 },"method":"ping"}"#;
        let f = Fields::parse(line).expect("object");
        let mut s = Splice::new(&f);
        assert_eq!(s.get("method"), Some(r#""ping""#));
        s.remove("params");
        s.set("id", "7".into());
        s.set("jsonrpc", r#""2.0""#.into());
        assert_eq!(
            String::from_utf8(s.to_bytes()).expect("utf-8"),
            r#"{"method":"ping","x":{"y":1},"id":7,"jsonrpc":"2.0"}"#
        );
    }

    #[test]
    fn elements_of_an_array() {
        let items = elements("[ {\"a\": 1}, 2 ,\"x\"]").expect("array");
        let texts: Vec<&str> = items.iter().map(|r| r.get()).collect();
        assert_eq!(texts, vec!["{\"a\": 1}", "2", "\"x\""]);
        assert!(elements("{}").is_none());
    }
}
