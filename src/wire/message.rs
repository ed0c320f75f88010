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
/// Hashed as its [`IdRef`], so that a table of ids can be asked with an id
/// borrowed from a message (`indexmap::Equivalent`) without copying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestId {
    /// An integer id that fits in an i64.
    Int(i64),
    /// A string id.
    Str(Box<str>),
    /// Any other number (a float or a huge integer), as serde_json prints it.
    Num(Box<str>),
}

impl std::hash::Hash for RequestId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.borrowed().hash(state);
    }
}

/// A [`RequestId`] borrowed: what a table of ids is asked with (a
/// progress token read from a notification) without building the id, a
/// string id's copy and its free. Hashes and compares as the id it
/// stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdRef<'a> {
    Int(i64),
    Str(&'a str),
    Num(&'a str),
}

impl IdRef<'_> {
    /// The id in a JSON value, when it is a string or an integer (what
    /// [`RequestId::from_json`] reads it as); `None` for anything else,
    /// a float among them (read with [`RequestId::from_json`]).
    pub fn from_json(v: &Value) -> Option<IdRef<'_>> {
        match v {
            Value::String(s) => Some(match crate::wire::exact::marked(s) {
                Some(text) => IdRef::Num(text),
                None => IdRef::Str(s),
            }),
            Value::Number(n) if !n.is_f64() => n.as_i64().map(IdRef::Int),
            _ => None,
        }
    }
}

impl indexmap::Equivalent<RequestId> for IdRef<'_> {
    fn equivalent(&self, key: &RequestId) -> bool {
        *self == key.borrowed()
    }
}

impl RequestId {
    /// The id borrowed, as a table is asked with it ([`IdRef`]).
    pub fn borrowed(&self) -> IdRef<'_> {
        match self {
            RequestId::Int(n) => IdRef::Int(*n),
            RequestId::Str(s) => IdRef::Str(s),
            RequestId::Num(s) => IdRef::Num(s),
        }
    }

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

/// What an integer id past 2^53 (within 64 bits or not) is called in
/// `invalid-id-type`: an integer by the schema, which a JavaScript peer's
/// `JSON.parse` reads rounded.
pub const BEYOND_2_53: &str = "an integer beyond 2^53";

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
#[derive(Clone, Debug)]
pub struct Message {
    pub kind: Kind,
    pub id: IdField,
    pub method: Option<String>,
    /// Rebuilt from a host's summary or a cut payload: only the id, the
    /// method and the outcome are real, so content rules do not apply.
    pub partial: bool,
    /// The log cut its payload (a host's `...[N chars truncated]...`, a
    /// line past the line limit): what is shown was recovered from what
    /// is left.
    pub cut: bool,
    /// The members as read by [`crate::wire::skim::parse`]: long payload strings may be cut
    /// (see [`crate::wire::skim::SKIM_MIN_BYTES`]); then `raw` holds the line (valid UTF-8)
    /// to read them whole.
    pub(super) body: Body,
    pub(super) raw: Option<crate::wire::line::LineBytes>,
    /// What few messages have, out of line ([`Message::problems`], the
    /// exact text): a message stays small enough to be moved between the
    /// layers without a call to copy it.
    pub(super) rare: Option<Box<Rare>>,
}

/// The parts of a [`Message`] most messages do not have.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Rare {
    pub(super) problems: Vec<Problem>,
    /// The message as JSON text with each number a double would change
    /// written as a marked string ([`crate::wire::exact`]), when a view asked
    /// for exact numbers ([`Frame::keep_exact`]) and it has such a number:
    /// [`Message::expand`] and [`Message::for_summary`] read it, so that views
    /// show and compare those numbers as written. The rules read `body`.
    pub(super) exact: Option<Box<str>>,
}

/// Messages are equal when they are read the same and hold the same
/// members (in the same order), however those are kept.
impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.kind == other.kind
            && self.id == other.id
            && self.method == other.method
            && self.problems() == other.problems()
            && self.partial == other.partial
            && self.cut == other.cut
            && self.raw == other.raw
            && self.exact() == other.exact()
            && *self.fields() == *other.fields()
    }
}

/// How a message keeps its members.
#[derive(Clone, Debug)]
pub(super) enum Body {
    /// As read: the envelope's members apart, no map built for them (what
    /// the checks read, member by member).
    Split(Box<Members>),
    /// One map of every member, in order: once something asked to rewrite
    /// them ([`Message::fields_mut`]) or a view read them whole.
    Whole(Box<Map<String, Value>>),
}

/// The `jsonrpc` member as read: `"2.0"` costs no string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Jsonrpc {
    Absent,
    Two,
    Other(Value),
}

impl From<Value> for Jsonrpc {
    /// The member's value as read.
    fn from(value: Value) -> Jsonrpc {
        match value {
            Value::String(s) if s == "2.0" => Jsonrpc::Two,
            other => Jsonrpc::Other(other),
        }
    }
}

/// Which envelope member a key names, in [`Members::pos`] order.
pub(crate) const JSONRPC: usize = 0;
pub(crate) const ID: usize = 1;
pub(crate) const METHOD: usize = 2;
pub(crate) const PARAMS: usize = 3;
pub(crate) const RESULT: usize = 4;
pub(crate) const ERROR: usize = 5;
const ENVELOPE_KEYS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
/// Not among the members.
const NONE: u32 = u32::MAX;

/// The members of one message object as the parser reads them: the six
/// envelope members in their own places (a message is checked member by
/// member: building a map for them cost a hash table, a string per key and
/// a hash per key and per lookup, on every message), any other member in a
/// map, and where each stands, so that the object can be rebuilt exactly
/// (first place of a key, its last value, as serde_json's map keeps them).
#[derive(Clone)]
pub(crate) struct Members {
    /// Read by the short-line reader (so its values are small): once the
    /// session is done with the message, kept to be read into again
    /// ([`Message::recycle`]). Not part of what the members are.
    pub(crate) spare: bool,
    /// Read on the read-ahead thread (see `fast::give_spare`): its memory
    /// goes back there to be read into again. Not part of what the
    /// members are.
    pub(crate) ahead: bool,
    jsonrpc: Jsonrpc,
    id: Option<Value>,
    /// `None` once its string moved to [`Message::method`] (`method_moved`).
    pub(super) method: Option<Value>,
    pub(super) method_moved: bool,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
    /// Where each envelope member stands among the members ([`NONE`]: absent).
    pos: [u32; 6],
    /// How many distinct members were read.
    count: u32,
    /// The other members, when there are any.
    rest: Option<Box<Rest>>,
}

/// The members of a message other than the envelope's, in the order first
/// read, and where each stands among all of them.
#[derive(Clone, Debug, Default, PartialEq)]
struct Rest {
    members: Map<String, Value>,
    places: Vec<u32>,
}

/// The members, not how they were read.
impl fmt::Debug for Members {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Members")
            .field("jsonrpc", &self.jsonrpc)
            .field("id", &self.id)
            .field("method", &self.method)
            .field("method_moved", &self.method_moved)
            .field("params", &self.params)
            .field("result", &self.result)
            .field("error", &self.error)
            .field("pos", &self.pos)
            .field("count", &self.count)
            .field("rest", &self.rest)
            .finish()
    }
}

/// Members are equal when they hold the same members, however they were read.
impl PartialEq for Members {
    fn eq(&self, other: &Members) -> bool {
        self.jsonrpc == other.jsonrpc
            && self.id == other.id
            && self.method == other.method
            && self.method_moved == other.method_moved
            && self.params == other.params
            && self.result == other.result
            && self.error == other.error
            && self.pos == other.pos
            && self.count == other.count
            && self.rest == other.rest
    }
}

impl Members {
    pub(crate) fn new() -> Members {
        Members {
            spare: false,
            ahead: false,
            jsonrpc: Jsonrpc::Absent,
            id: None,
            method: None,
            method_moved: false,
            params: None,
            result: None,
            error: None,
            pos: [NONE; 6],
            count: 0,
            rest: None,
        }
    }

    /// [`Members::new`] on the heap (a message's members are boxed). Built
    /// in place with `Box::new_uninit` it took as many instructions
    /// (docs/performance.md, `unsafe` blocks): the compiler writes it there.
    pub(crate) fn boxed() -> Box<Members> {
        Box::new(Members::new())
    }

    fn from_map(obj: Map<String, Value>) -> Members {
        let mut members = Members::new();
        for (key, value) in obj {
            members.insert(Cow::Owned(key), value);
        }
        members
    }

    fn place(&mut self, at: usize) {
        if self.pos[at] == NONE {
            self.pos[at] = self.count;
            self.count = self.count.saturating_add(1);
        }
    }

    /// The `jsonrpc` member, read without building a string for `"2.0"`.
    pub(crate) fn set_jsonrpc(&mut self, jsonrpc: Jsonrpc) {
        self.place(JSONRPC);
        self.jsonrpc = jsonrpc;
    }

    /// The `method` read so far, when it is a string.
    pub(crate) fn method_str(&self) -> Option<&str> {
        self.method.as_ref().and_then(Value::as_str)
    }

    /// The envelope member `ENVELOPE_KEYS[at]` ([`ID`], [`METHOD`], ...):
    /// as [`Members::insert`] with its key, not looked up.
    pub(crate) fn set(&mut self, at: usize, value: Value) {
        match at {
            JSONRPC => {
                self.place(at);
                self.jsonrpc = value.into();
            }
            _ => *self.slot_mut(at) = Some(value),
        }
    }

    /// Where the envelope member `at` (not [`JSONRPC`]) is kept.
    fn value_slot(&mut self, at: usize) -> &mut Option<Value> {
        match at {
            ID => &mut self.id,
            METHOD => &mut self.method,
            PARAMS => &mut self.params,
            RESULT => &mut self.result,
            _ => &mut self.error,
        }
    }

    /// Members kept to be read into again: none read yet, the values of
    /// the last message still in their slots, to be built into
    /// ([`Members::slot_mut`]) or dropped ([`Members::drop_unread`]).
    pub(crate) fn reuse(&mut self) {
        self.jsonrpc = Jsonrpc::Absent;
        self.method_moved = false;
        self.pos = [NONE; 6];
        self.count = 0;
        if let Some(rest) = &mut self.rest {
            rest.members.clear();
            rest.places.clear();
        }
    }

    /// The slot of the envelope member `at` (not [`JSONRPC`]), placed as
    /// read: what it holds is built into ([`Members::set`] with the value
    /// built in place).
    pub(crate) fn slot_mut(&mut self, at: usize) -> &mut Option<Value> {
        self.place(at);
        if at == METHOD {
            self.method_moved = false;
        }
        self.value_slot(at)
    }

    /// After a reading into reused members: the slots it did not read are
    /// emptied, and an empty map of the other members goes.
    pub(crate) fn drop_unread(&mut self) {
        for at in [ID, METHOD, PARAMS, RESULT, ERROR] {
            if self.pos[at] == NONE {
                *self.value_slot(at) = None;
            }
        }
        if self.rest.as_ref().is_some_and(|r| r.places.is_empty()) {
            self.rest = None;
        }
    }

    /// What spare members are found by: the method, else the first key of
    /// an object `result`, else nothing (see `fast::take_spare`).
    pub(crate) fn spare_key(&self) -> (u8, &str) {
        if let Some(Value::String(m)) = &self.method {
            return (0, m);
        }
        match &self.result {
            Some(Value::Object(r)) => (1, r.keys().next().map_or("", String::as_str)),
            Some(_) => (2, ""),
            None => (3, ""),
        }
    }

    /// One member; a key read again keeps its first place and takes the
    /// new value (as serde_json's map does).
    pub(crate) fn insert(&mut self, key: Cow<'_, str>, value: Value) {
        let Some(at) = ENVELOPE_KEYS.iter().position(|k| *k == key) else {
            let count = self.count;
            let rest = self.rest.get_or_insert_with(Default::default);
            if rest.members.insert(key.into_owned(), value).is_none() {
                rest.places.push(count);
                self.count = self.count.saturating_add(1);
            }
            return;
        };
        self.set(at, value);
    }

    fn slot(&self, at: usize) -> Option<&Value> {
        match at {
            PARAMS => self.params.as_ref(),
            RESULT => self.result.as_ref(),
            _ => self.error.as_ref(),
        }
    }

    /// Every member as one map, in the order read. `method` is the
    /// message's method, for a string moved there.
    fn into_map(self, method: Option<&str>) -> Map<String, Value> {
        let Members {
            jsonrpc,
            id,
            method: method_value,
            method_moved,
            params,
            result,
            error,
            pos,
            rest,
            ..
        } = self;
        let jsonrpc = match jsonrpc {
            Jsonrpc::Absent => None,
            Jsonrpc::Two => Some(Value::from("2.0")),
            Jsonrpc::Other(v) => Some(v),
        };
        let method_value = match (method_value, method_moved) {
            (_, true) => method.map(Value::from),
            (v, false) => v,
        };
        let envelope = [jsonrpc, id, method_value, params, result, error];
        let mut entries: Vec<(u32, String, Value)> = Vec::new();
        for ((key, value), at) in ENVELOPE_KEYS.iter().zip(envelope).zip(pos) {
            if let (Some(value), true) = (value, at != NONE) {
                entries.push((at, (*key).to_owned(), value));
            }
        }
        let sorted = match rest {
            None => entries.len() <= 1 || entries.windows(2).all(|w| w[0].0 < w[1].0),
            Some(rest) => {
                let Rest { members, places } = *rest;
                entries.extend(
                    places
                        .into_iter()
                        .zip(members)
                        .map(|(at, (k, v))| (at, k, v)),
                );
                false
            }
        };
        if !sorted {
            entries.sort_unstable_by_key(|e| e.0);
        }
        let mut obj = Map::with_capacity(entries.len());
        for (_, key, value) in entries {
            obj.insert(key, value);
        }
        obj
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
            Frame::Message(m) => m.set_exact(Some(marked.into())),
            Frame::Batch(items) | Frame::LongBatch { items, .. } => {
                // The members analysed, as texts; those past the batch cap
                // are skipped, not read.
                let members = crate::wire::exact::first_members(&marked, items.len());
                for (item, text) in items.iter_mut().zip(members) {
                    if let Ok(m) = item {
                        m.set_exact(Some(text.into()));
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
    classify_read(match value {
        Value::Array(items) => Read::Batch(
            items
                .into_iter()
                .map(|item| match item {
                    Value::Object(obj) => Ok(Box::new(Members::from_map(obj))),
                    other => Err(other),
                })
                .collect(),
        ),
        Value::Object(obj) => Read::Object(Box::new(Members::from_map(obj))),
        other => Read::Other(other),
    })
}

/// A line of JSON as the parser reads it ([`crate::wire::skim`]): a
/// message object's members apart, without a map.
pub(crate) enum Read {
    Object(Box<Members>),
    /// An array: each element an object's members, or another value.
    Batch(Vec<Result<Box<Members>, Value>>),
    Other(Value),
}

/// Classifies a line as read.
pub(crate) fn classify_read(read: Read) -> Frame {
    match read {
        Read::Batch(items) => {
            if items.is_empty() {
                return Frame::Invalid("an empty array is neither a message nor a batch".into());
            }
            Frame::Batch(
                items
                    .into_iter()
                    .map(|item| match item {
                        Ok(members) => message(members),
                        Err(other) => Err(format!("batch element is {}", type_name(&other))),
                    })
                    .collect(),
            )
        }
        Read::Object(members) => match message(members) {
            Ok(m) => Frame::Message(m),
            Err(why) => Frame::Invalid(why),
        },
        Read::Other(other) => Frame::Invalid(format!(
            "a JSON-RPC message is an object, this is {}",
            type_name(&other)
        )),
    }
}

fn message(mut members: Box<Members>) -> Result<Message, String> {
    let mut problems = Vec::new();
    match &members.jsonrpc {
        Jsonrpc::Two => {}
        Jsonrpc::Other(other) => problems.push(Problem::JsonrpcVersion(format!(
            "`jsonrpc` is {}, expected \"2.0\"",
            short_json(other)
        ))),
        Jsonrpc::Absent => problems.push(Problem::JsonrpcVersion("`jsonrpc` is missing".into())),
    }
    let id = match &members.id {
        None => IdField::Absent,
        Some(Value::Null) => IdField::Null,
        Some(v) => match RequestId::from_value(v) {
            Ok(id) => {
                let what = match (&id, v) {
                    (RequestId::Int(_), Value::Number(n)) if n.is_f64() => Some(INTEGRAL_FLOAT),
                    (RequestId::Num(_), Value::Number(n)) if n.is_f64() => Some("a float"),
                    (RequestId::Num(_), _) => Some(BEYOND_2_53),
                    (RequestId::Int(i), _) if i.unsigned_abs() > 1 << 53 => Some(BEYOND_2_53),
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
    let method = match members.method.take() {
        None => None,
        Some(Value::String(s)) => {
            // Kept once, in the message; the members give it back from there.
            members.method_moved = true;
            Some(s)
        }
        Some(other) => {
            return Err(format!(
                "`method` is {}, expected a string",
                type_name(&other)
            ));
        }
    };
    let kind = if method.is_some() {
        if id.is_present() {
            Kind::Request
        } else {
            Kind::Notification
        }
    } else if members.result.is_some() || members.error.is_some() || id.is_present() {
        Kind::Response
    } else {
        return Err("an object with neither `method`, `result`, `error` nor `id`".into());
    };
    if let Some(params) = &members.params {
        if !params.is_object() {
            problems.push(Problem::ParamsNotObject(type_name(params)));
        }
    }
    if kind == Kind::Response {
        match (&members.result, &members.error) {
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
        partial: false,
        cut: false,
        body: Body::Split(members),
        raw: None,
        rare: (!problems.is_empty()).then(|| {
            Box::new(Rare {
                problems,
                exact: None,
            })
        }),
    })
}

fn error_problem(err: &Value) -> Option<String> {
    let Value::Object(e) = err else {
        return Some(format!("`error` is {}, expected an object", type_name(err)));
    };
    match e.field("code") {
        None => return Some("`error.code` is missing".into()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        Some(other) => {
            return Some(format!(
                "`error.code` is {}, expected an integer",
                short_json(other)
            ));
        }
    }
    match e.field("message") {
        Some(Value::String(_)) => None,
        None => Some("`error.message` is missing".into()),
        Some(other) => Some(format!(
            "`error.message` is {}, expected a string",
            type_name(other)
        )),
    }
}

impl Message {
    /// What is wrong with the envelope, judged on its own.
    pub fn problems(&self) -> &[Problem] {
        self.rare.as_ref().map_or(&[], |rare| &rare.problems)
    }

    /// [`Message::problems`], to rewrite in place.
    pub(crate) fn problems_mut(&mut self) -> &mut [Problem] {
        match &mut self.rare {
            Some(rare) => &mut rare.problems,
            None => &mut [],
        }
    }

    pub(super) fn exact(&self) -> Option<&str> {
        self.rare.as_ref()?.exact.as_deref()
    }

    fn set_exact(&mut self, exact: Option<Box<str>>) {
        match (&mut self.rare, exact) {
            (Some(rare), exact) => rare.exact = exact,
            (None, None) => {}
            (rare @ None, exact) => {
                *rare = Some(Box::new(Rare {
                    problems: Vec::new(),
                    exact,
                }))
            }
        }
    }

    /// Every member of the message, as sent, long payload strings included
    /// (read again from the line when [`crate::wire::skim::parse`] cut them).
    pub fn fields(&self) -> Cow<'_, Map<String, Value>> {
        match self.whole() {
            Some(obj) => Cow::Owned(obj),
            None => self.members(),
        }
    }

    /// The members, whole, to rewrite their strings (`--redact` in the
    /// views); the id and method stay as they were read.
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        self.expand();
        self.make_whole()
    }

    /// The members as parsed: payload strings and large subtrees may be cut
    /// (see [`Message::is_cut`]); [`Message::fields`] reads them whole.
    /// Built as one map when asked (the checks read them one by one).
    pub fn members(&self) -> Cow<'_, Map<String, Value>> {
        match &self.body {
            Body::Split(members) => {
                Cow::Owned(Members::clone(members).into_map(self.method.as_deref()))
            }
            Body::Whole(obj) => Cow::Borrowed(&**obj),
        }
    }

    /// The members as one map, kept so from now on.
    fn make_whole(&mut self) -> &mut Map<String, Value> {
        if let Body::Split(members) = &mut self.body {
            let members = std::mem::replace(&mut **members, Members::new());
            self.body = Body::Whole(Box::new(members.into_map(self.method.as_deref())));
        }
        match &mut self.body {
            Body::Whole(obj) => obj,
            Body::Split(_) => unreachable!("made whole just above"),
        }
    }

    /// Reads the cut payload strings whole, so that every accessor sees the
    /// message as sent (for views and captures, which show or compare it).
    pub fn expand(&mut self) {
        if let Some(obj) = self.exact_fields() {
            self.body = Body::Whole(Box::new(obj));
        } else if let Some(obj) = self.whole() {
            self.body = Body::Whole(Box::new(obj));
        }
        self.raw = None;
        self.set_exact(None);
        // One map from here on: the views read `fields()` again and again,
        // and split members would be rebuilt as a new map each time.
        self.make_whole();
    }

    /// Whether the message keeps numbers a double would change as written
    /// (see [`Frame::keep_exact`]): views read it with [`Message::for_summary`].
    pub fn has_exact(&self) -> bool {
        self.exact().is_some()
    }

    /// Every member, read from [`Message::exact`]'s text (numbers marked).
    fn exact_fields(&self) -> Option<Map<String, Value>> {
        match serde_json::from_str(self.exact()?) {
            Ok(Value::Object(obj)) => Some(obj),
            _ => None,
        }
    }

    /// Whether [`crate::wire::skim::parse`] cut a payload string of this message: `params()`
    /// and `result()` then hold its first characters only.
    pub fn is_cut(&self) -> bool {
        self.raw.is_some()
    }

    /// The line a cut message keeps, as read (`None` for a message not cut,
    /// or a line that is not UTF-8): what the tool-schema checks read the
    /// parts they need of, and charge to their work budget by its length.
    pub fn line_text(&self) -> Option<&str> {
        simdutf8::basic::from_utf8(self.raw.as_deref()?).ok()
    }

    /// The length of the line a cut message keeps.
    pub fn line_len(&self) -> Option<usize> {
        self.raw.as_ref().map(|r| r.len())
    }

    /// The members as parsed, cut strings included (for tests).
    #[cfg(test)]
    pub(crate) fn skimmed(&self) -> Map<String, Value> {
        self.members().into_owned()
    }

    /// The members as parsed (what [`crate::wire::skim::whole_fields`] gives back).
    pub(crate) fn into_fields(self) -> Map<String, Value> {
        match self.body {
            Body::Split(members) => members.into_map(self.method.as_deref()),
            Body::Whole(obj) => *obj,
        }
    }

    /// Lends the message as one JSON object (its members as read, cut
    /// strings included), without copying it.
    pub fn with_value<R>(&mut self, f: impl FnOnce(&Value) -> R) -> R {
        let value = Value::Object(std::mem::take(self.make_whole()));
        let out = f(&value);
        if let Value::Object(obj) = value {
            *self.make_whole() = obj;
        }
        out
    }

    /// The envelope member `ENVELOPE_KEYS[slot]` (`params`, `result` or
    /// `error`): in its place as read, or looked up by its key in a map.
    fn slot(&self, slot: usize) -> Option<&Value> {
        match &self.body {
            Body::Split(members) => members.slot(slot),
            Body::Whole(obj) => obj.get(ENVELOPE_KEYS[slot]),
        }
    }

    /// `result` whole: read again from the line when a payload string in it
    /// was cut (the texts of an error result), else as it is.
    pub fn whole_result(&self) -> Option<Cow<'_, Value>> {
        match self.whole() {
            Some(mut obj) => obj.remove("result").map(Cow::Owned),
            None => self.result().map(Cow::Borrowed),
        }
    }

    /// `params` whole, when an object: read again from the line when
    /// something in them was cut or skipped (a tool call's `arguments`, for
    /// `--schema-check`), else as they are.
    pub fn whole_params(&self) -> Option<Cow<'_, Map<String, Value>>> {
        match self.whole() {
            Some(mut obj) => match obj.remove("params") {
                Some(Value::Object(params)) => Some(Cow::Owned(params)),
                _ => None,
            },
            None => self.params().map(Cow::Borrowed),
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
            code: e.field("code").and_then(Value::as_i64),
            message: e
                .field("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// `error.data`, when present.
    pub fn error_data(&self) -> Option<&Value> {
        self.slot(ERROR)?.field("data")
    }

    /// A string member of `params._meta`.
    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.params()?.field("_meta")?.field(key)?.as_str()
    }

    /// A member of `params._meta`.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params()?.field("_meta")?.field(key)
    }
}

/// A member of a JSON object by its key, as the checks read them: a short
/// object (most in a message have a few members) is read in order, which
/// costs a few comparisons where its hash table costs a keyed hash; a long
/// one through the table. The same answer as `get` either way.
pub trait Field {
    fn field(&self, key: &str) -> Option<&Value>;

    /// Whether the object has the member `key` (as `contains_key`, read the
    /// same way as [`Field::field`]).
    fn has(&self, key: &str) -> bool {
        self.field(key).is_some()
    }
}

/// Up to how many members an object is read in order.
const FIELD_SCAN: usize = 12;

impl Field for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= FIELD_SCAN {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.field(key)
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
        assert_eq!(float.problems(), [Problem::InvalidIdType("a float")]);
        // 1.0 and 1e3 are integers (JSON Schema's `integer`), noted as written.
        for (written, n) in [(json!(1.0), 1), (json!(1e3), 1000), (json!(-0.0), 0)] {
            let m = msg(json!({"jsonrpc":"2.0","id":written,"result":{}}));
            assert_eq!(m.id, IdField::Id(RequestId::Int(n)));
            assert_eq!(m.problems(), [Problem::InvalidIdType(INTEGRAL_FLOAT)]);
        }
        let huge = msg(json!({"jsonrpc":"2.0","id":1e300,"result":{}}));
        assert_eq!(huge.problems(), [Problem::InvalidIdType("a float")]);
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
            m.problems(),
            [
                Problem::JsonrpcVersion("`jsonrpc` is \"1.0\", expected \"2.0\"".into()),
                Problem::InvalidIdType("a boolean"),
                Problem::ResultAndError { both: true },
            ]
        );
        let m = msg(json!({"jsonrpc":"2.0","id":2,"error":{"code":"x","message":"m"}}));
        assert_eq!(
            m.problems(),
            [Problem::MalformedError(
                "`error.code` is \"x\", expected an integer".into()
            )]
        );
        let m = msg(json!({"jsonrpc":"2.0","id":2,"method":"a","params":[1]}));
        assert_eq!(m.problems(), [Problem::ParamsNotObject("an array")]);
        let m = msg(json!({"jsonrpc":"2.0","id":2}));
        assert_eq!(m.problems(), [Problem::ResultAndError { both: false }]);
    }
}
