//! Message classification: a parsed JSON value -> a JSON-RPC [`Frame`].
//!
//! Pure functions, no I/O and no session state: what one message is
//! (request, notification, response, batch) and what is wrong with its
//! envelope on its own. Whether that matters in context (the revision, the
//! handshake, pairing) is the session's business.

use std::borrow::Cow;
use std::fmt;

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
    /// The id as a JSON value (for the JSON output, written with
    /// [`crate::wire::exact`]).
    pub fn to_json(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(*n),
            RequestId::Str(s) => Value::from(&**s),
            // Kept as written when a double would change it (an integer
            // beyond 64 bits): the JSON outputs write it back as that text.
            RequestId::Num(s) => crate::wire::exact::number(s),
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
            Value::String(s) => Ok(match crate::wire::exact::marked(s) {
                // What [`RequestId::to_json`] made of a number kept as written.
                Some(text) => RequestId::Num(text.into()),
                None => RequestId::Str(s.as_str().into()),
            }),
            Value::Number(n) => Ok(match (n.as_i64(), integral(n)) {
                (Some(i), _) if !n.is_f64() => RequestId::Int(i),
                // `1.0`, `1e3`: an integer by JSON Schema's definition, and
                // the same number to JavaScript's and Python's parsers.
                (_, Some(i)) => RequestId::Int(i),
                _ => RequestId::Num(n.to_string().into()),
            }),
            Value::Bool(_) => Err("a boolean"),
            Value::Object(_) => Err("an object"),
            Value::Array(_) => Err("an array"),
            Value::Null => Err("null"),
        }
    }
}

/// The integer a float written without a fraction stands for (`1.0`,
/// `1e3`), within the range a double holds exactly.
fn integral(n: &serde_json::Number) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let f = n.as_f64().filter(|_| n.is_f64())?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() <= EXACT).then_some(f as i64)
}

/// What an integer written as a float is called in `invalid-id-type`.
pub const INTEGRAL_FLOAT: &str = "an integer written as a float";

/// How many characters of a long id the text outputs show (the JSON
/// outputs keep it whole).
pub const ID_SHOWN_CHARS: usize = 64;

/// Strings print with their quotes so that `7` and `"7"` look different.
/// An id longer than [`ID_SHOWN_CHARS`] characters is shown as its head,
/// `…` and its length in bytes, so that a huge id cannot flood a view.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Num(s) => match crate::text::head(s, ID_SHOWN_CHARS) {
                Some(head) => write!(f, "{head}… ({} bytes)", s.len()),
                None => f.write_str(s),
            },
            // Invisible characters are shown as codes (JSON's quoting leaves
            // them as they are).
            RequestId::Str(s) => match crate::text::head(s, ID_SHOWN_CHARS) {
                Some(head) => write!(
                    f,
                    "{}… ({} bytes)",
                    crate::text::escape_control(&Value::from(head).to_string()),
                    s.len()
                ),
                None => write!(
                    f,
                    "{}",
                    crate::text::escape_control(&Value::from(&**s).to_string())
                ),
            },
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
    /// The members as read by [`crate::wire::skim::parse`]: long payload strings may be cut
    /// (see [`crate::wire::skim::SKIM_MIN_BYTES`]); then `raw` holds the line (valid UTF-8)
    /// to read them whole.
    obj: Map<String, Value>,
    raw: Option<crate::wire::line::LineBytes>,
    /// The message as JSON text with each number a double would change
    /// written as a marked string ([`crate::wire::exact`]), when a view asked
    /// for exact numbers ([`Frame::keep_exact`]) and it has such a number:
    /// [`Message::expand`] and [`Message::for_summary`] read it, so that views
    /// show and compare those numbers as written. The rules read `obj`.
    exact: Option<Box<str>>,
    /// Where `params`, `result` and `error` stand among the members, found
    /// while classifying: the accessors read them without hashing the key
    /// (checked against the key; forgotten when `fields_mut` lends the members).
    slots: Slots,
}

/// The positions of `params`, `result` and `error` in a message's members
/// (`NONE` when absent). Equal whatever they hold: a hint, not a member.
#[derive(Clone, Copy, Debug)]
struct Slots([u32; 3]);

/// Absent when classified.
const NONE: u32 = u32::MAX;
/// Not known: the members were lent to be rewritten ([`Message::fields_mut`]).
const UNKNOWN: u32 = u32::MAX - 1;
const PARAMS: usize = 0;
const RESULT: usize = 1;
const ERROR: usize = 2;
const SLOT_KEYS: [&str; 3] = ["params", "result", "error"];

impl PartialEq for Slots {
    fn eq(&self, _: &Slots) -> bool {
        true
    }
}

/// What a line of JSON is.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    Message(Message),
    /// An array: each element a message or the reason it is not one.
    Batch(Vec<Result<Message, String>>),
    /// A batch longer than [`crate::wire::bound::BATCH_ANALYSED`]: its
    /// first members as in `Batch`, and how many more there were (counted,
    /// not read).
    LongBatch {
        items: Vec<Result<Message, String>>,
        skipped: u64,
    },
    /// JSON that is no JSON-RPC message; the text says why.
    Invalid(String),
}

impl Frame {
    /// Gives a message whose strings [`crate::wire::skim::parse_cut`] cut the line it was read
    /// from (valid UTF-8), to read them whole when asked.
    pub fn keep_line(&mut self, line: impl Into<crate::wire::line::LineBytes>) {
        if let Frame::Message(m) = self {
            m.raw = Some(line.into());
        }
    }

    /// Keeps the numbers of `text` (the JSON this frame was read from) that a
    /// double would change, as written, for the views (see `Message::exact`).
    /// Costs one scan of the text; nothing is kept when it has none.
    pub fn keep_exact(&mut self, text: &str) {
        let Some(marked) = crate::wire::exact::marked_text(text) else {
            return;
        };
        match self {
            Frame::Message(m) => m.exact = Some(marked.into()),
            Frame::Batch(items) | Frame::LongBatch { items, .. } => {
                // The members analysed, as texts; those past the batch cap
                // are skipped, not read.
                let members = crate::wire::exact::first_members(&marked, items.len());
                for (item, text) in items.iter_mut().zip(members) {
                    if let Ok(m) = item {
                        m.exact = Some(text.into());
                    }
                }
            }
            Frame::Invalid(_) => {}
        }
    }
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
    fn of(obj: &'a Map<String, Value>) -> (Envelope<'a>, Slots) {
        let mut e = Envelope::default();
        let mut slots = Slots([NONE; 3]);
        for (at, (key, value)) in obj.iter().enumerate() {
            let (slot, index) = match key.as_str() {
                "jsonrpc" => (&mut e.jsonrpc, None),
                "id" => (&mut e.id, None),
                "method" => (&mut e.method, None),
                "params" => (&mut e.params, Some(PARAMS)),
                "result" => (&mut e.result, Some(RESULT)),
                "error" => (&mut e.error, Some(ERROR)),
                _ => continue,
            };
            *slot = Some(value);
            if let Some(index) = index {
                slots.0[index] = u32::try_from(at)
                    .ok()
                    .filter(|&at| at < UNKNOWN)
                    .unwrap_or(UNKNOWN);
            }
        }
        (e, slots)
    }
}

fn message(obj: Map<String, Value>) -> Result<Message, String> {
    let mut problems = Vec::new();
    let (envelope, slots) = Envelope::of(&obj);
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
                let what = match (&id, v) {
                    (RequestId::Int(_), Value::Number(n)) if n.is_f64() => Some(INTEGRAL_FLOAT),
                    (RequestId::Num(_), Value::Number(n)) if n.is_f64() => Some("a float"),
                    (RequestId::Num(_), _) => Some("an integer too large for 64 bits"),
                    _ => None,
                };
                if let Some(what) = what {
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
        exact: None,
        slots,
    })
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
    /// (read again from the line when [`crate::wire::skim::parse`] cut them).
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
        self.slots = Slots([UNKNOWN; 3]);
        &mut self.obj
    }

    /// The members as parsed: payload strings and large subtrees may be cut
    /// (see [`Message::is_cut`]); [`Message::fields`] reads them whole.
    pub fn members(&self) -> &Map<String, Value> {
        &self.obj
    }

    /// Reads the cut payload strings whole, so that every accessor sees the
    /// message as sent (for views and captures, which show or compare it).
    pub fn expand(&mut self) {
        if let Some(obj) = self.exact_fields() {
            self.obj = obj;
        } else if let Some(obj) = self.whole() {
            self.obj = obj;
        }
        self.raw = None;
        self.exact = None;
    }

    /// Whether the message keeps numbers a double would change as written
    /// (see [`Frame::keep_exact`]): views read it with [`Message::for_summary`].
    pub fn has_exact(&self) -> bool {
        self.exact.is_some()
    }

    /// Every member, read from [`Message::exact`]'s text (numbers marked).
    fn exact_fields(&self) -> Option<Map<String, Value>> {
        match serde_json::from_str(self.exact.as_deref()?) {
            Ok(Value::Object(obj)) => Some(obj),
            _ => None,
        }
    }

    /// The message as a summary reads it: cut strings and subtrees whole,
    /// long arrays of scalars still cut (see [`crate::wire::bound`]), with
    /// the counted lengths of the arrays that are members of `result`. The
    /// line is read, not copied.
    pub fn for_summary(&self) -> (Message, crate::wire::skim::Counted) {
        let read = match &self.exact {
            Some(text) => crate::wire::skim::summary_fields(text),
            None => self
                .raw
                .as_deref()
                .and_then(|raw| std::str::from_utf8(raw).ok())
                .and_then(crate::wire::skim::summary_fields),
        };
        let (obj, counted) = read.unwrap_or_else(|| (self.obj.clone(), Vec::new()));
        let copy = Message {
            kind: self.kind,
            id: self.id.clone(),
            method: self.method.clone(),
            problems: self.problems.clone(),
            partial: self.partial,
            obj,
            raw: None,
            exact: None,
            // The same members in the same order, whichever text was read.
            slots: self.slots,
        };
        (copy, counted)
    }

    /// Whether [`crate::wire::skim::parse`] cut a payload string of this message: `params()`
    /// and `result()` then hold its first characters only.
    pub fn is_cut(&self) -> bool {
        self.raw.is_some()
    }

    /// The members as parsed, cut strings included (for tests).
    #[cfg(test)]
    pub(crate) fn skimmed(&self) -> &Map<String, Value> {
        &self.obj
    }

    fn whole(&self) -> Option<Map<String, Value>> {
        let raw = std::str::from_utf8(self.raw.as_deref()?).ok()?;
        crate::wire::skim::whole_fields(raw)
    }

    /// The members as parsed (what [`crate::wire::skim::whole_fields`] gives back).
    pub(crate) fn into_fields(self) -> Map<String, Value> {
        self.obj
    }

    /// Lends the message as one JSON object (its members as read, cut
    /// strings included), without copying it.
    pub fn with_value<R>(&mut self, f: impl FnOnce(&Value) -> R) -> R {
        let value = Value::Object(std::mem::take(&mut self.obj));
        let out = f(&value);
        if let Value::Object(obj) = value {
            self.obj = obj;
        }
        out
    }

    /// The envelope member `SLOT_KEYS[slot]`: at the position found when
    /// classifying, or looked up by its key when the members have moved.
    fn slot(&self, slot: usize) -> Option<&Value> {
        let key = SLOT_KEYS[slot];
        match self.slots.0[slot] {
            UNKNOWN => self.obj.get(key),
            NONE => None,
            at => match self.obj.iter().nth(at as usize) {
                Some((k, v)) if k == key => Some(v),
                _ => self.obj.get(key),
            },
        }
    }

    /// `params`, when an object. Payload strings longer than
    /// [`crate::wire::skim::SKIM_MIN_BYTES`] may be cut (see [`Message::is_cut`]).
    pub fn params(&self) -> Option<&Map<String, Value>> {
        self.slot(PARAMS).and_then(Value::as_object)
    }

    /// Whether `params` is present at all (object or not).
    pub fn has_params(&self) -> bool {
        self.slot(PARAMS).is_some()
    }

    /// `result`; payload strings may be cut as in [`Message::params`].
    pub fn result(&self) -> Option<&Value> {
        self.slot(RESULT)
    }

    pub fn is_error(&self) -> bool {
        self.slot(ERROR).is_some() && self.slot(RESULT).is_none()
    }

    pub fn error(&self) -> Option<ErrorInfo> {
        let e = self.slot(ERROR)?;
        Some(ErrorInfo {
            code: e.get("code").and_then(Value::as_i64),
            message: e.get("message").and_then(Value::as_str).map(str::to_owned),
        })
    }

    /// `error.data`, when present.
    pub fn error_data(&self) -> Option<&Value> {
        self.slot(ERROR)?.get("data")
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
    fn long_ids_are_shown_short_and_kept_whole() {
        let long = "x".repeat(200_000);
        let id = RequestId::Str(long.as_str().into());
        let shown = id.to_string();
        assert_eq!(
            shown,
            format!("\"{}\"… (200000 bytes)", "x".repeat(ID_SHOWN_CHARS))
        );
        assert_eq!(id.to_json(), Value::from(long));
        let digits = "7".repeat(400);
        let num = RequestId::Num(digits.as_str().into());
        assert_eq!(
            num.to_string(),
            format!("{}… (400 bytes)", "7".repeat(ID_SHOWN_CHARS))
        );
        // Up to the cap, shown as written.
        let edge = "é".repeat(ID_SHOWN_CHARS);
        assert_eq!(
            RequestId::Str(edge.as_str().into()).to_string(),
            format!("\"{edge}\"")
        );
        assert_eq!(RequestId::Int(-5).to_string(), "-5");
    }

    #[test]
    fn ids_are_exact_values() {
        let int = msg(json!({"jsonrpc":"2.0","id":1,"result":{}}));
        let string = msg(json!({"jsonrpc":"2.0","id":"1","result":{}}));
        let float = msg(json!({"jsonrpc":"2.0","id":1.5,"result":{}}));
        assert_eq!(int.id, IdField::Id(RequestId::Int(1)));
        assert_eq!(string.id, IdField::Id(RequestId::Str("1".into())));
        assert_eq!(float.id, IdField::Id(RequestId::Num("1.5".into())));
        assert_eq!(float.problems, vec![Problem::InvalidIdType("a float")]);
        // 1.0 and 1e3 are integers (JSON Schema's `integer`), noted as written.
        for (written, n) in [(json!(1.0), 1), (json!(1e3), 1000), (json!(-0.0), 0)] {
            let m = msg(json!({"jsonrpc":"2.0","id":written,"result":{}}));
            assert_eq!(m.id, IdField::Id(RequestId::Int(n)));
            assert_eq!(m.problems, vec![Problem::InvalidIdType(INTEGRAL_FLOAT)]);
        }
        let huge = msg(json!({"jsonrpc":"2.0","id":1e300,"result":{}}));
        assert_eq!(huge.problems, vec![Problem::InvalidIdType("a float")]);
        let (a, b) = (int.id.id().unwrap(), string.id.id().unwrap());
        assert!(a.loosely_equals(b) && b.loosely_equals(a));
        assert!(!a.loosely_equals(float.id.id().unwrap()));
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
}
