//! Message classification: a parsed JSON value -> a JSON-RPC [`Frame`].
//!
//! Pure functions, no I/O and no session state: what one message is
//! (request, notification, response, batch) and what is wrong with its
//! envelope on its own. Whether that matters in context (the revision, the
//! handshake, pairing) is the session's business.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde_core::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A request id, compared by exact JSON value: `1`, `"1"` and `1.0` differ.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id that fits in an i64.
    Int(i64),
    /// A string id.
    Str(Box<str>),
    /// Any other number (a float or a huge integer), as serde_json prints it.
    Num(Box<str>),
}

impl RequestId {
    /// The id as a JSON value (for the JSON output).
    pub fn to_json(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(*n),
            RequestId::Str(s) => Value::from(&**s),
            RequestId::Num(s) => {
                serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
            }
        }
    }

    /// True when the two ids differ as JSON values but name the same number
    /// or text (`1`, `"1"`, `1.0`): what a careless echo produces.
    pub fn loosely_equals(&self, other: &RequestId) -> bool {
        self != other && self.loose_key() == other.loose_key()
    }

    fn loose_key(&self) -> String {
        let text = match self {
            RequestId::Int(n) => return n.to_string(),
            RequestId::Str(s) | RequestId::Num(s) => s,
        };
        match text.parse::<f64>() {
            Ok(f) if f.fract() == 0.0 && f.abs() < 9e15 => format!("{}", f as i64),
            _ => text.to_string(),
        }
    }

    /// The id in a JSON value, when it is a string or a number.
    pub fn from_json(v: &Value) -> Option<RequestId> {
        RequestId::from_value(v).ok()
    }

    fn from_value(v: &Value) -> Result<RequestId, &'static str> {
        match v {
            Value::String(s) => Ok(RequestId::Str(s.as_str().into())),
            Value::Number(n) => Ok(match n.as_i64() {
                Some(i) if !n.is_f64() => RequestId::Int(i),
                _ => RequestId::Num(n.to_string().into()),
            }),
            Value::Bool(_) => Err("a boolean"),
            Value::Object(_) => Err("an object"),
            Value::Array(_) => Err("an array"),
            Value::Null => Err("null"),
        }
    }
}

/// Strings print with their quotes so that `7` and `"7"` look different.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Num(s) => f.write_str(s),
            RequestId::Str(s) => write!(f, "{}", Value::from(&**s)),
        }
    }
}

/// The `id` member of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdField {
    Absent,
    Null,
    /// A usable id. Floats and huge numbers land here too, with an
    /// [`Problem::InvalidIdType`] attached, so that pairing still works.
    Id(RequestId),
    /// A boolean, object or array: unusable for pairing.
    BadType(&'static str),
}

impl IdField {
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            IdField::Id(id) => Some(id),
            _ => None,
        }
    }

    pub fn is_present(&self) -> bool {
        !matches!(self, IdField::Absent)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Has a string `method` and an `id` member (possibly null or bad).
    Request,
    /// Has a string `method` and no `id`.
    Notification,
    /// Has no `method`; has `result`, `error` or an `id`.
    Response,
}

/// What is wrong with a message's envelope, judged on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// `jsonrpc` missing or not "2.0"; the text says what was found.
    JsonrpcVersion(String),
    /// The id is a float, a huge number, a boolean, an object or an array.
    InvalidIdType(&'static str),
    /// A response with both `result` and `error` (`true`) or neither (`false`).
    ResultAndError { both: bool },
    /// The error object is not `{code: integer, message: string}`.
    MalformedError(String),
    /// `params` is present and not an object; names its type.
    ParamsNotObject(&'static str),
}

/// One JSON-RPC message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub kind: Kind,
    pub id: IdField,
    pub method: Option<String>,
    pub problems: Vec<Problem>,
    /// Rebuilt from a host's summary or a cut payload: only the id, the
    /// method and the outcome are real, so content rules do not apply.
    pub partial: bool,
    /// The members as read by [`parse`]: long payload strings may be cut
    /// (see [`SKIM_MIN_BYTES`]); then `raw` holds the line (valid UTF-8)
    /// to read them whole.
    obj: Map<String, Value>,
    raw: Option<Vec<u8>>,
}

/// What a line of JSON is.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    Message(Message),
    /// An array: each element a message or the reason it is not one.
    Batch(Vec<Result<Message, String>>),
    /// JSON that is no JSON-RPC message; the text says why.
    Invalid(String),
}

/// The parts of an error object that the analysis reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorInfo {
    pub code: Option<i64>,
    pub message: Option<String>,
}

/// Classifies a parsed JSON value.
pub fn classify(value: Value) -> Frame {
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return Frame::Invalid("an empty array is neither a message nor a batch".into());
            }
            Frame::Batch(
                items
                    .into_iter()
                    .map(|item| match item {
                        Value::Object(obj) => message(obj),
                        other => Err(format!("batch element is {}", type_name(&other))),
                    })
                    .collect(),
            )
        }
        Value::Object(obj) => match message(obj) {
            Ok(m) => Frame::Message(m),
            Err(why) => Frame::Invalid(why),
        },
        other => Frame::Invalid(format!(
            "a JSON-RPC message is an object, this is {}",
            type_name(&other)
        )),
    }
}

/// The envelope members of a message, found in one pass over its members.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a Value>,
    id: Option<&'a Value>,
    method: Option<&'a Value>,
    params: Option<&'a Value>,
    result: Option<&'a Value>,
    error: Option<&'a Value>,
}

impl<'a> Envelope<'a> {
    fn of(obj: &'a Map<String, Value>) -> Envelope<'a> {
        let mut e = Envelope::default();
        for (key, value) in obj {
            let slot = match key.as_str() {
                "jsonrpc" => &mut e.jsonrpc,
                "id" => &mut e.id,
                "method" => &mut e.method,
                "params" => &mut e.params,
                "result" => &mut e.result,
                "error" => &mut e.error,
                _ => continue,
            };
            *slot = Some(value);
        }
        e
    }
}

fn message(obj: Map<String, Value>) -> Result<Message, String> {
    let mut problems = Vec::new();
    let envelope = Envelope::of(&obj);
    match envelope.jsonrpc {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => problems.push(Problem::JsonrpcVersion(format!(
            "`jsonrpc` is {}, expected \"2.0\"",
            short_json(other)
        ))),
        None => problems.push(Problem::JsonrpcVersion("`jsonrpc` is missing".into())),
    }
    let id = match envelope.id {
        None => IdField::Absent,
        Some(Value::Null) => IdField::Null,
        Some(v) => match RequestId::from_value(v) {
            Ok(id) => {
                if matches!(id, RequestId::Num(_)) {
                    let what = match v {
                        Value::Number(n) if n.is_f64() => "a float",
                        _ => "an integer too large for 64 bits",
                    };
                    problems.push(Problem::InvalidIdType(what));
                }
                IdField::Id(id)
            }
            Err(what) => {
                problems.push(Problem::InvalidIdType(what));
                IdField::BadType(what)
            }
        },
    };
    let method = match envelope.method {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "`method` is {}, expected a string",
                type_name(other)
            ));
        }
    };
    let kind = if method.is_some() {
        if id.is_present() {
            Kind::Request
        } else {
            Kind::Notification
        }
    } else if envelope.result.is_some() || envelope.error.is_some() || id.is_present() {
        Kind::Response
    } else {
        return Err("an object with neither `method`, `result`, `error` nor `id`".into());
    };
    if let Some(params) = envelope.params {
        if !params.is_object() {
            problems.push(Problem::ParamsNotObject(type_name(params)));
        }
    }
    if kind == Kind::Response {
        match (envelope.result, envelope.error) {
            (Some(_), Some(_)) => problems.push(Problem::ResultAndError { both: true }),
            (None, None) => problems.push(Problem::ResultAndError { both: false }),
            (None, Some(err)) => {
                if let Some(why) = error_problem(err) {
                    problems.push(Problem::MalformedError(why));
                }
            }
            (Some(_), None) => {}
        }
    }
    Ok(Message {
        kind,
        id,
        method,
        problems,
        partial: false,
        obj,
        raw: None,
    })
}

/// Strings under these keys inside `params` or `result` are payload (a text
/// block, base64 data, a resource's text or blob): the rules ask only
/// whether they are strings, so [`parse`] skips long ones without decoding.
const BULK_KEYS: [&str; 3] = ["text", "data", "blob"];
/// A payload string longer than this (as written, with its escapes) is cut.
pub const SKIM_MIN_BYTES: usize = 512;
/// How many characters of a cut string are kept (for excerpts).
const SKIM_KEEP_CHARS: usize = 256;

/// Parses one line of JSON and classifies it, without decoding long payload
/// strings: `params` and `result` strings under `text`, `data` or `blob`
/// longer than [`SKIM_MIN_BYTES`] are skipped by the parser (checked, not
/// copied or unescaped) and kept as their first characters. Such a message
/// keeps the line, and [`Message::fields`] reads it whole. This is most of the
/// speed of `check` on logs of large tool results.
pub fn parse(text: &str) -> Result<Frame, serde_json::Error> {
    let (mut frame, cut) = parse_cut(text)?;
    if cut {
        frame.keep_line(text.as_bytes().to_vec());
    }
    Ok(frame)
}

/// [`parse`] without keeping the line: `true` when a string was cut, and the
/// caller hands the line over with [`Frame::keep_line`] (moved, not copied).
pub fn parse_cut(text: &str) -> Result<(Frame, bool), serde_json::Error> {
    let cut = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Top { cut: &cut }.deserialize(&mut de)?;
    de.end()?;
    Ok((classify(value), cut.get()))
}

impl Frame {
    /// Gives a message whose strings [`parse_cut`] cut the line it was read
    /// from (valid UTF-8), to read them whole when asked.
    pub fn keep_line(&mut self, line: Vec<u8>) {
        if let Frame::Message(m) = self {
            m.raw = Some(line);
        }
    }
}

/// The root of a line: an object's `params` and `result` are skimmed.
struct Top<'c> {
    cut: &'c Cell<bool>,
}

/// One value; `skim` when long payload strings inside may be cut.
#[derive(Clone, Copy)]
struct Skim<'c> {
    skim: bool,
    cut: &'c Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(TopVisitor(self.cut))
    }
}

struct TopVisitor<'c>(&'c Cell<bool>);

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let skim = matches!(&*key, "params" | "result");
            let value = map.next_value_seed(Skim { skim, cut: self.0 })?;
            obj.insert(key.into_owned(), value);
        }
        Ok(Value::Object(obj))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        Skim {
            skim: false,
            cut: self.0,
        }
        .visit_seq(seq)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

impl<'de> DeserializeSeed<'de> for Skim<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value = if self.skim && BULK_KEYS.contains(&&*key) {
                let raw: &'de RawValue = map.next_value()?;
                self.payload(raw.get()).map_err(de::Error::custom)?
            } else {
                map.next_value_seed(self)?
            };
            obj.insert(key.into_owned(), value);
        }
        Ok(Value::Object(obj))
    }
}

impl Skim<'_> {
    /// A payload member, already checked as JSON by the parser.
    fn payload(self, raw: &str) -> Result<Value, serde_json::Error> {
        if raw.len() > SKIM_MIN_BYTES && raw.starts_with('"') {
            self.cut.set(true);
            return Ok(Value::String(unescape_head(raw, SKIM_KEEP_CHARS)));
        }
        serde_json::from_str(raw)
    }
}

/// The first `max` characters of a JSON string literal (quotes included in
/// `raw`), unescaped. `raw` is known to be valid; a lone surrogate becomes
/// U+FFFD.
fn unescape_head(raw: &str, max: usize) -> String {
    let mut out = String::with_capacity(max + 4);
    let mut chars = raw[1..].chars();
    let hex = |chars: &mut std::str::Chars<'_>| -> Option<u32> {
        let digits = chars.as_str().get(..4)?;
        let n = u32::from_str_radix(digits, 16).ok()?;
        chars.nth(3);
        Some(n)
    };
    for _ in 0..max {
        let c = match chars.next() {
            None | Some('"') => break,
            Some('\\') => match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('r') => '\r',
                Some('b') => '\u{8}',
                Some('f') => '\u{c}',
                Some('u') => {
                    let high = hex(&mut chars).unwrap_or(0xfffd);
                    if (0xd800..0xdc00).contains(&high) && chars.as_str().starts_with("\\u") {
                        let mut ahead = chars.clone();
                        ahead.nth(1);
                        match hex(&mut ahead) {
                            Some(low) if (0xdc00..0xe000).contains(&low) => {
                                chars = ahead;
                                char::from_u32(0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00))
                                    .unwrap_or('\u{fffd}')
                            }
                            _ => '\u{fffd}',
                        }
                    } else {
                        char::from_u32(high).unwrap_or('\u{fffd}')
                    }
                }
                Some(other) => other,
                None => break,
            },
            Some(c) => c,
        };
        out.push(c);
    }
    out
}

fn error_problem(err: &Value) -> Option<String> {
    let Value::Object(e) = err else {
        return Some(format!("`error` is {}, expected an object", type_name(err)));
    };
    match e.get("code") {
        None => return Some("`error.code` is missing".into()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        Some(other) => {
            return Some(format!(
                "`error.code` is {}, expected an integer",
                short_json(other)
            ));
        }
    }
    match e.get("message") {
        Some(Value::String(_)) => None,
        None => Some("`error.message` is missing".into()),
        Some(other) => Some(format!(
            "`error.message` is {}, expected a string",
            type_name(other)
        )),
    }
}

impl Message {
    /// Every member of the message, as sent, long payload strings included
    /// (read again from the line when [`parse`] cut them).
    pub fn fields(&self) -> Cow<'_, Map<String, Value>> {
        match self.whole() {
            Some(obj) => Cow::Owned(obj),
            None => Cow::Borrowed(&self.obj),
        }
    }

    /// The members, whole, to rewrite their strings (`--redact` in the
    /// views); the id and method stay as they were read.
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        self.expand();
        &mut self.obj
    }

    /// Reads the cut payload strings whole, so that every accessor sees the
    /// message as sent (for views and captures, which show or compare it).
    pub fn expand(&mut self) {
        if let Some(obj) = self.whole() {
            self.obj = obj;
        }
        self.raw = None;
    }

    /// Whether [`parse`] cut a payload string of this message: `params()`
    /// and `result()` then hold its first characters only.
    pub fn is_cut(&self) -> bool {
        self.raw.is_some()
    }

    fn whole(&self) -> Option<Map<String, Value>> {
        match serde_json::from_slice(self.raw.as_deref()?) {
            Ok(Value::Object(obj)) => Some(obj),
            _ => None,
        }
    }

    /// `params`, when an object. Payload strings longer than
    /// [`SKIM_MIN_BYTES`] may be cut (see [`Message::is_cut`]).
    pub fn params(&self) -> Option<&Map<String, Value>> {
        self.obj.get("params").and_then(Value::as_object)
    }

    /// Whether `params` is present at all (object or not).
    pub fn has_params(&self) -> bool {
        self.obj.contains_key("params")
    }

    /// `result`; payload strings may be cut as in [`Message::params`].
    pub fn result(&self) -> Option<&Value> {
        self.obj.get("result")
    }

    pub fn is_error(&self) -> bool {
        self.obj.contains_key("error") && !self.obj.contains_key("result")
    }

    pub fn error(&self) -> Option<ErrorInfo> {
        let e = self.obj.get("error")?;
        Some(ErrorInfo {
            code: e.get("code").and_then(Value::as_i64),
            message: e.get("message").and_then(Value::as_str).map(str::to_owned),
        })
    }

    /// `error.data`, when present.
    pub fn error_data(&self) -> Option<&Value> {
        self.obj.get("error")?.get("data")
    }

    /// A string member of `params._meta`.
    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.params()?.get("_meta")?.get(key)?.as_str()
    }

    /// A member of `params._meta`.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params()?.get("_meta")?.get(key)
    }
}

/// "a string", "an array", ... for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short JSON rendering of a scalar, or the type name of a container.
fn short_json(v: &Value) -> String {
    match v {
        Value::Array(_) | Value::Object(_) => type_name(v).to_string(),
        Value::String(s) if s.len() > 40 => "a long string".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: Value) -> Message {
        match classify(v) {
            Frame::Message(m) => m,
            other => panic!("not a message: {other:?}"),
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(
            msg(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).kind,
            Kind::Request
        );
        assert_eq!(
            msg(json!({"jsonrpc":"2.0","method":"x"})).kind,
            Kind::Notification
        );
        assert_eq!(
            msg(json!({"jsonrpc":"2.0","id":1,"result":{}})).kind,
            Kind::Response
        );
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0"})),
            Frame::Invalid(_)
        ));
        assert!(matches!(classify(json!(42)), Frame::Invalid(_)));
        assert!(matches!(classify(json!([])), Frame::Invalid(_)));
        assert!(matches!(classify(json!({"method": 3})), Frame::Invalid(_)));
    }

    #[test]
    fn ids_are_exact_values() {
        let int = msg(json!({"jsonrpc":"2.0","id":1,"result":{}}));
        let string = msg(json!({"jsonrpc":"2.0","id":"1","result":{}}));
        let float = msg(json!({"jsonrpc":"2.0","id":1.0,"result":{}}));
        assert_eq!(int.id, IdField::Id(RequestId::Int(1)));
        assert_eq!(string.id, IdField::Id(RequestId::Str("1".into())));
        assert_eq!(float.id, IdField::Id(RequestId::Num("1.0".into())));
        assert_eq!(float.problems, vec![Problem::InvalidIdType("a float")]);
        let (a, b) = (int.id.id().unwrap(), string.id.id().unwrap());
        assert!(a.loosely_equals(b) && b.loosely_equals(a));
        assert!(a.loosely_equals(float.id.id().unwrap()));
        assert!(!a.loosely_equals(a));
        assert_eq!(b.to_string(), "\"1\"");
        assert_eq!(a.to_string(), "1");
    }

    #[test]
    fn envelope_problems() {
        let m = msg(json!({"jsonrpc":"1.0","id":true,"result":{},"error":{"code":"x"}}));
        assert_eq!(
            m.problems,
            vec![
                Problem::JsonrpcVersion("`jsonrpc` is \"1.0\", expected \"2.0\"".into()),
                Problem::InvalidIdType("a boolean"),
                Problem::ResultAndError { both: true },
            ]
        );
        let m = msg(json!({"jsonrpc":"2.0","id":2,"error":{"code":"x","message":"m"}}));
        assert_eq!(
            m.problems,
            vec![Problem::MalformedError(
                "`error.code` is \"x\", expected an integer".into()
            )]
        );
        let m = msg(json!({"jsonrpc":"2.0","id":2,"method":"a","params":[1]}));
        assert_eq!(m.problems, vec![Problem::ParamsNotObject("an array")]);
        let m = msg(json!({"jsonrpc":"2.0","id":2}));
        assert_eq!(m.problems, vec![Problem::ResultAndError { both: false }]);
    }

    /// A tools/call result whose text block is `text`, as one JSON line.
    fn long_result(text: &str) -> String {
        json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":text}],"isError":true}})
            .to_string()
    }

    #[test]
    fn long_payload_strings_are_cut_and_read_whole_on_demand() {
        let text = format!(
            "{}\nTraceback (most recent call last):\n  \u{1F600} \"x\"",
            "é\\".repeat(900)
        );
        let line = long_result(&text);
        let Frame::Message(m) = parse(&line).unwrap() else {
            panic!("not a message")
        };
        assert!(m.is_cut());
        let head = m.result().unwrap()["content"][0]["text"].as_str().unwrap();
        assert_eq!(head.chars().count(), SKIM_KEEP_CHARS);
        assert!(text.starts_with(head));
        let whole: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(Value::Object(m.fields().into_owned()), whole);
        let mut m = m;
        m.expand();
        assert!(!m.is_cut());
        assert_eq!(
            m.result().unwrap()["content"][0]["text"].as_str(),
            Some(&*text)
        );
        // Short strings, and long ones under other keys, are read whole.
        let Frame::Message(short) = parse(&long_result("short")).unwrap() else {
            panic!("not a message")
        };
        assert!(!short.is_cut());
        let other = json!({"jsonrpc":"2.0","id":1,"result":{"description": "d".repeat(5000)}});
        let Frame::Message(other) = parse(&other.to_string()).unwrap() else {
            panic!("not a message")
        };
        assert!(!other.is_cut());
        // The envelope and error objects are never cut.
        let error = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","data":"t".repeat(5000)}});
        let Frame::Message(error) = parse(&error.to_string()).unwrap() else {
            panic!("not a message")
        };
        assert!(!error.is_cut());
    }

    #[test]
    fn the_head_of_a_cut_string_is_unescaped_exactly() {
        let cases = [
            "plain words",
            "quote \" backslash \\ slash / tab \t cr \r nl \n bell \u{7} ff \u{c}",
            "caf\u{e9} \u{2014} \u{1F600}\u{1F600} 日本語",
        ];
        for text in cases {
            let raw = serde_json::to_string(text).unwrap();
            for n in 0..text.chars().count() + 2 {
                let want: String = text.chars().take(n).collect();
                assert_eq!(unescape_head(&raw, n), want, "{raw} {n}");
                // \uXXXX escapes, surrogate pairs included.
                let escaped: String = serde_json::to_string(text)
                    .unwrap()
                    .chars()
                    .flat_map(|c| {
                        if c.is_ascii() {
                            vec![c.to_string()]
                        } else {
                            let mut units = [0u16; 2];
                            c.encode_utf16(&mut units)
                                .iter()
                                .map(|u| format!("\\u{u:04x}"))
                                .collect()
                        }
                    })
                    .collect();
                assert_eq!(unescape_head(&escaped, n), want, "{escaped} {n}");
            }
        }
        assert_eq!(unescape_head("\"\\ud800x\"", 5), "\u{fffd}x");
    }
}
