//! The skim parser: one line of JSON -> a [`Frame`], without decoding long
//! payload strings.
//!
//! Tool results carry whole files as text blocks, base64 images and resource
//! contents; the rules only ask whether those are strings. Strings under
//! `text`, `data` or `blob` inside `params` or `result` that are longer than
//! [`SKIM_MIN_BYTES`] are checked (escapes, control characters) but neither
//! unescaped nor copied, and kept as their first [`SKIM_KEEP_CHARS`]
//! characters; such a message keeps its line so that
//! [`crate::wire::message::Message::fields`] can read them whole.
//!
//! Two stages. On a long line, [`excise`] first walks the string literals
//! (64 bytes at a time, with SIMD bit masks) and takes long payload strings
//! out of the text (a JSON string literal ends at its first unescaped quote
//! wherever it stands, so this walk finds exactly the literals serde_json
//! would). serde_json then
//! parses the short remainder with the visitors below, which put each taken
//! string back: cut in `params` and `result`, whole anywhere else. Anything
//! the walk is unsure of (a bad escape, an unterminated string) is left to
//! serde_json, whose verdict and error message stand.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::ops::Range;

use serde_core::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

mod fast;
mod keep;

pub(crate) use fast::Op;
pub(crate) use fast::{forget_back, give_spare, set_ahead, take_back};

use crate::wire::bound;
use keep::{
    BULK_KEYS, EXCISE_MIN_LINE, PICKED, Place, id_value, is_subtree, picking, unescape_head,
};
pub use keep::{SKIM_KEEP_CHARS, SKIM_MIN_BYTES};

use crate::wire::lex::{has_lone_surrogate, literal_end, number_end};
use crate::wire::message::{
    Body, Frame, IdField, Jsonrpc, Members, Message, Problem, Rare, Read, RequestId, classify_read,
};

/// Parses one line of JSON and classifies it, cutting long payload strings
/// (see the module docs). A message with a cut string keeps a copy of the
/// line; [`parse_cut`] lets the caller hand it over instead.
pub fn parse(text: &str) -> Result<Frame, serde_json::Error> {
    parse_keeping(text, Build::Checks)
}

/// What the parser builds of a message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// What the checks read: a busy notification's `params` are picked
    /// ([`Place::Picked`]), long payload strings and large subtrees cut.
    Checks,
    /// For the views, which show and compare every member: nothing picked
    /// (a picked message would be read again from its line, which cost
    /// `timeline` a quarter more), long payload strings still cut.
    Views,
}

/// [`parse`], building `build`.
pub fn parse_keeping(text: &str, build: Build) -> Result<Frame, serde_json::Error> {
    let (mut frame, cut) = parse_cut_as(text, build)?;
    if cut {
        frame.keep_line(text.as_bytes().to_vec());
    }
    Ok(frame)
}

/// [`parse`] without keeping the line: `true` when a string was cut, and the
/// caller hands the line over with [`Frame::keep_line`] (moved, not copied).
pub fn parse_cut(text: &str) -> Result<(Frame, bool), serde_json::Error> {
    parse_cut_as(text, Build::Checks)
}

/// [`parse_cut`], building `build`.
pub fn parse_cut_as(text: &str, build: Build) -> Result<(Frame, bool), serde_json::Error> {
    match parse_as_is(text, false, true, build == Build::Checks) {
        Ok((frame, cut, _)) => Ok((frame, cut)),
        // JSON that serde_json refuses but the grammar allows: a lone
        // surrogate escape, a number beyond a double's range. Read again
        // with those mended (see [`mend`]), nothing cut (so that the kept
        // line is never read whole again).
        Err(e) => match mend(text) {
            Some(mended) => match parse_as_is(&mended, true, false, false) {
                Ok((frame, cut, _)) => Ok((frame, cut)),
                Err(_) => Err(e),
            },
            None => Err(e),
        },
    }
}

/// A line read ahead with [`read_ahead`], perhaps on another thread: the
/// tape of what is to be built of it, whether something was left out, and
/// the line's text (its UTF-8 checked there).
#[derive(Clone, Copy)]
pub(crate) struct Ahead<'t> {
    pub(crate) tape: &'t [Op],
    pub(crate) cut: bool,
    pub(crate) text: &'t str,
}

/// What was read of a line ahead, perhaps on another thread: only of a line
/// the transport parses as it is (no byte order mark or carriage return,
/// valid UTF-8, JSON text and not a header), which it then does not check
/// again.
pub(crate) enum ReadAhead<'t> {
    /// A short line's tape ([`read_ahead`]).
    Tape(Ahead<'t>),
    /// A long line parsed whole ([`parse_cut_as`]) where it was read, with
    /// its text (its UTF-8 checked there): the frame and whether something
    /// was cut, or `None` when the parser refused the line (it is read
    /// again where the transport reports why).
    Parsed {
        text: &'t str,
        read: Option<(Frame, bool)>,
    },
}

impl<'t> ReadAhead<'t> {
    /// The line's text, as checked where it was read.
    pub(crate) fn text(&self) -> &'t str {
        match self {
            ReadAhead::Tape(ahead) => ahead.text,
            ReadAhead::Parsed { text, .. } => text,
        }
    }
}

/// Whether a line of `len` bytes may be read by [`read_ahead`] (a longer
/// one is left to the skim parser).
pub(crate) fn may_read_ahead(len: usize) -> bool {
    len < EXCISE_MIN_LINE
}

/// The first half of [`parse_cut_as`] for a short message object, which
/// may run on another thread than the second, [`parse_ahead`]: appends the
/// tape of what is to be built of `text` to `tape` and says whether
/// something was left out; `None` (and `tape` as it was) when the line is
/// not one the short-line reader reads, which [`parse_cut_as`] then reads
/// whole.
pub(crate) fn read_ahead(text: &str, build: Build, tape: &mut Vec<Op>) -> Option<bool> {
    fast::tokenize(text, build == Build::Checks, false, tape)
}

/// [`parse_cut_as`] of `text` with `build`, for a line whose tape
/// [`read_ahead`] wrote with the same `build`: the same frame, built from the
/// tape. `None` only when the tape is not one of `text`.
pub(crate) fn parse_ahead(text: &str, ahead: Ahead<'_>) -> Option<(Frame, bool)> {
    fast::replay(ahead.tape, text).map(|read| (classify_read(read), ahead.cut))
}

/// The lengths of the arrays that are members of a message's `result`,
/// where a tail was counted rather than built: `(key, elements)`.
pub type Counted = Vec<(String, u64)>;

/// [`parse_cut`] on the text as it is; `whole` when no string or subtree
/// may be cut, `cut_arrays` when a long array of scalars may still be (see
/// [`bound`]; the lengths of those in `result` are then counted), `pick`
/// when a busy notification's `params` may be picked ([`Place::Picked`]).
fn parse_as_is(
    text: &str,
    whole: bool,
    cut_arrays: bool,
    pick: bool,
) -> Result<(Frame, bool, Counted), serde_json::Error> {
    match parse_picking(text, whole, cut_arrays, pick)? {
        // `params` were picked for a method given again after them (a key
        // read twice keeps its last value): read the line again, all built.
        (_, true) => Ok(parse_picking(text, whole, cut_arrays, false)?.0),
        (done, false) => Ok(done),
    }
}

/// [`parse_as_is`], with a busy notification's `params` picked when `pick`
/// (see [`Place::Picked`]); `true` when they were picked for a method that
/// a later `method` member replaced.
fn parse_picking(
    text: &str,
    whole: bool,
    cut_arrays: bool,
    pick: bool,
) -> Result<((Frame, bool, Counted), bool), serde_json::Error> {
    // A short message object, read by hand when it can be read exactly as
    // below (see [`fast`]).
    if let Some((read, cut)) = fast::parse(text, pick && !whole, whole) {
        return Ok(((classify_read(read), cut, Vec::new()), false));
    }
    parse_visiting(text, whole, cut_arrays, pick)
}

/// [`parse_picking`] through serde_json and the visitors below.
fn parse_visiting(
    text: &str,
    whole: bool,
    cut_arrays: bool,
    pick: bool,
) -> Result<((Frame, bool, Counted), bool), serde_json::Error> {
    let excised = if text.len() >= EXCISE_MIN_LINE && may_excise(text.as_bytes()) {
        excise(text)
    } else {
        None
    };
    let (short, taken) = match &excised {
        Some((short, taken)) => (short.as_str(), taken.as_slice()),
        None => (text, &[][..]),
    };
    let ctx = Ctx {
        base: short.as_ptr() as usize,
        original: text,
        taken,
        cut: Cell::new(false),
        whole,
        cut_arrays,
        last_len: Cell::new(0),
        counted: RefCell::new(Vec::new()),
        big_id: RefCell::new(None),
        member: Cell::new(0),
        member_big_ids: RefCell::new(Vec::new()),
        batch_skipped: Cell::new(0),
        may_pick: Cell::new(if pick { None } else { Some(false) }),
        picked_wrong: Cell::new(false),
    };
    let mut de = serde_json::Deserializer::from_str(short);
    let read = Root(&ctx)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    let value = match read {
        Ok(value) => value,
        // The error's place is in the shortened text: read the line as it
        // is for the place the user sees (errors are rare; this costs one
        // more pass over a bad line, and nothing is built).
        Err(e) if excised.is_some() => {
            return Err(serde_json::from_str::<serde_core::de::IgnoredAny>(text)
                .err()
                .unwrap_or(e));
        }
        Err(e) => return Err(e),
    };
    let mut frame = classify_read(value);
    if let (Frame::Message(m), Some(text)) = (&mut frame, ctx.big_id.take()) {
        big_id(m, text);
    }
    if let Frame::Batch(items) = &mut frame {
        for (i, text) in ctx.member_big_ids.take() {
            if let Some(Ok(m)) = items.get_mut(i) {
                big_id(m, text);
            }
        }
        let skipped = ctx.batch_skipped.get();
        if skipped > 0 {
            frame = Frame::LongBatch {
                items: std::mem::take(items),
                skipped,
            };
        }
    }
    Ok((
        (frame, ctx.cut.get(), ctx.counted.take()),
        ctx.picked_wrong.get(),
    ))
}

/// An integer id beyond 64 bits: compared by its exact text, never by the
/// double it rounds to.
fn big_id(m: &mut Message, text: String) {
    m.id = IdField::Id(RequestId::Num(text.into()));
    for p in m.problems_mut() {
        if let Problem::InvalidIdType(what) = p {
            *what = TOO_LARGE;
        }
    }
}

/// What an integer id beyond 64 bits is called in `invalid-id-type`.
const TOO_LARGE: &str = super::message::BEYOND_2_53;

/// The text with what JSON allows but serde_json refuses mended: a lone
/// surrogate escape (`\ud83d` without its pair, which a JavaScript string
/// sliced inside an emoji gives) becomes `\ufffd`, and a number beyond a
/// double's range (a 309-digit integer) becomes the largest double of its
/// sign. `None` when there is nothing to mend.
fn mend(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    let hex = |at: usize| -> Option<u32> {
        let digits = text.get(at..at + 4)?;
        u32::from_str_radix(digits, 16).ok()
    };
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] != b'\\' {
                        i += 1;
                        continue;
                    }
                    if b.get(i + 1) != Some(&b'u') {
                        i += 2;
                        continue;
                    }
                    let Some(unit) = hex(i + 2) else {
                        i += 2;
                        continue;
                    };
                    let paired = (0xd800..0xdc00).contains(&unit)
                        && text.get(i + 6..i + 8) == Some("\\u")
                        && hex(i + 8).is_some_and(|low| (0xdc00..0xe000).contains(&low));
                    if paired {
                        i += 12;
                    } else if (0xd800..0xe000).contains(&unit) {
                        out.push_str(&text[copied..i]);
                        out.push_str("\\ufffd");
                        i += 6;
                        copied = i;
                    } else {
                        i += 6;
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i = number_end(b, i);
                let token = &text[start..i];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&text[copied..start]);
                    if token.starts_with('-') {
                        out.push('-');
                    }
                    out.push_str("1.7976931348623157e308");
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied.min(text.len())..]);
    Some(out)
}

/// A string literal taken out of the line: where its empty stand-in `""`
/// starts in the shortened text, and the literal (quotes included) in the
/// original.
#[derive(Debug, PartialEq)]
struct Taken {
    at: usize,
    span: Range<usize>,
}

/// Whether [`excise`] may take something out of a line: somewhere a `text`,
/// `data` or `blob` key as written, a colon, and a string literal that does
/// not plainly end within [`SKIM_MIN_BYTES`] (its first quote, unless a
/// backslash stands before it, ends it). A necessary condition found with
/// three substring searches, so that a long line of many small values
/// (database rows, tool schemas) is not walked literal by literal for
/// nothing; a key-like text inside a string only makes the walk run.
fn may_excise(b: &[u8]) -> bool {
    const KEYS: [&[u8]; 3] = [b"\"text\"", b"\"data\"", b"\"blob\""];
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let skip_space = |mut i: usize| {
        while b.get(i).is_some_and(is_space) {
            i += 1;
        }
        i
    };
    let long_value_at = |after_key: usize| {
        let colon = skip_space(after_key);
        if b.get(colon) != Some(&b':') {
            return false;
        }
        let q = skip_space(colon + 1);
        if b.get(q) != Some(&b'"') {
            return false;
        }
        match memchr::memchr(b'"', &b[q + 1..]) {
            // Unterminated: the walk finds out.
            None => true,
            Some(d) => {
                let end = q + 1 + d;
                b[end - 1] == b'\\' || end - q + 1 > SKIM_MIN_BYTES
            }
        }
    };
    KEYS.iter()
        .any(|key| memchr::memmem::find_iter(b, key).any(|at| long_value_at(at + key.len())))
}

/// Takes the long string values of `text`, `data` and `blob` members out of
/// a line, leaving `""` in their place. `None` when there is none, or when
/// the line is not plainly well formed (serde_json then reads it as it is).
fn excise(text: &str) -> Option<(String, Vec<Taken>)> {
    let b = text.as_bytes();
    let mut short = String::new();
    let mut taken = Vec::new();
    let mut copied = 0;
    let mut pos = 0;
    // The previous string literal, a candidate key.
    let mut prev: Option<Range<usize>> = None;
    while let Some(q) = memchr::memchr(b'"', &b[pos..]).map(|i| pos + i) {
        let end = literal_end(b, q + 1)?;
        let is_payload = end - q + 1 > SKIM_MIN_BYTES
            && prev.as_ref().is_some_and(|key| {
                BULK_KEYS
                    .iter()
                    .any(|k| &b[key.start + 1..key.end - 1] == k.as_bytes())
                    && is_colon(&b[key.end..q])
            });
        if is_payload {
            short.push_str(&text[copied..q]);
            taken.push(Taken {
                at: short.len(),
                span: q..end + 1,
            });
            short.push_str("\"\"");
            copied = end + 1;
        }
        prev = Some(q..end + 1);
        pos = end + 1;
    }
    if taken.is_empty() {
        return None;
    }
    short.push_str(&text[copied..]);
    Some((short, taken))
}

/// Whether the bytes between a key and a value are a colon in whitespace.
fn is_colon(between: &[u8]) -> bool {
    let mut colons = 0;
    for &c in between {
        match c {
            b':' => colons += 1,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => return false,
        }
    }
    colons == 1
}

/// What the visitors share: the shortened text's address (to recognise a
/// stand-in by where it is), the original line, what was taken out, and
/// whether anything was cut.
struct Ctx<'a> {
    base: usize,
    original: &'a str,
    taken: &'a [Taken],
    cut: Cell<bool>,
    /// No string or subtree is cut (a mended line, which cannot be read
    /// whole again, or a line read again whole).
    whole: bool,
    /// Long arrays of scalars in `params` or `result` may be cut.
    cut_arrays: bool,
    /// How many elements the array read last had, counted ones included.
    last_len: Cell<u64>,
    /// The members of `result` that are arrays with a counted tail.
    counted: RefCell<Counted>,
    /// The exact text of the message's integer id when it is beyond 64 bits.
    big_id: RefCell<Option<String>>,
    /// In a batch: how many members were begun, and the exact text of
    /// each member's id beyond 64 bits (by the member's index).
    member: Cell<usize>,
    member_big_ids: RefCell<Vec<(usize, String)>>,
    /// Members of a batch beyond [`bound::BATCH_ANALYSED`], counted.
    batch_skipped: Cell<u64>,
    /// Whether a busy notification's `params` may be picked (see
    /// [`Ctx::may_pick`]), once asked.
    may_pick: Cell<Option<bool>>,
    /// `params` were picked for a method that a later `method` replaced.
    picked_wrong: Cell<bool>,
}

impl Ctx<'_> {
    /// The text of `raw`, a value of the shortened text, as the line has
    /// it: with the literals [`excise`] took out of it put back (a value
    /// read from its text as plain JSON, an `id` or a payload member that
    /// is not a string, holds them whole).
    fn original_of<'r>(&self, raw: &'r str) -> Cow<'r, str> {
        let start = (raw.as_ptr() as usize).wrapping_sub(self.base);
        let first = self.taken.partition_point(|t| t.at < start);
        let inside = self.taken[first..]
            .iter()
            .take_while(|t| t.at < start + raw.len());
        let mut out = String::new();
        let mut copied = 0;
        for t in inside {
            out.push_str(&raw[copied..t.at - start]);
            out.push_str(&self.original[t.span.clone()]);
            copied = t.at - start + 2;
        }
        if copied == 0 {
            return Cow::Borrowed(raw);
        }
        out.push_str(&raw[copied..]);
        Cow::Owned(out)
    }

    /// Whether the `params` of a busy notification on this line may be read
    /// as the members the checks read only ([`Place::Picked`]): not on a
    /// line read whole, nor on one with a lone surrogate escape (refused
    /// when read but not when skipped; such a line is read as it is, and
    /// mended if need be, as [`stand_in`] does). A high-low pair (an emoji)
    /// is read and skipped alike.
    fn may_pick(&self) -> bool {
        if let Some(known) = self.may_pick.get() {
            return known;
        }
        let pick = !self.whole && !has_lone_surrogate(self.original.as_bytes());
        self.may_pick.set(Some(pick));
        pick
    }

    /// The value of a `text`, `data` or `blob` member, given as written.
    fn payload(&self, raw: &str, skim: bool) -> Result<Value, serde_json::Error> {
        let at = (raw.as_ptr() as usize).wrapping_sub(self.base);
        let literal = match self.taken.binary_search_by_key(&at, |t| t.at) {
            Ok(i) if raw == "\"\"" => &self.original[self.taken[i].span.clone()],
            _ => raw,
        };
        if skim && !self.whole && literal.len() > SKIM_MIN_BYTES && literal.starts_with('"') {
            self.cut.set(true);
            return Ok(Value::String(unescape_head(literal, SKIM_KEEP_CHARS)));
        }
        // A string without escapes is its text (its grammar was checked as it
        // was read): no second parser for the usual short `text` or `data`.
        if let Some(body) = literal
            .strip_prefix('"')
            .and_then(|l| l.strip_suffix('"'))
            .filter(|b| memchr::memchr(b'\\', b.as_bytes()).is_none())
        {
            return Ok(Value::String(body.to_owned()));
        }
        if std::ptr::eq(literal, raw) {
            serde_json::from_str(&self.original_of(literal))
        } else {
            serde_json::from_str(literal)
        }
    }
}

/// One value; `skim` when long payload strings inside may be cut, `at` its
/// place in the message.
#[derive(Clone, Copy)]
struct Skim<'c> {
    skim: bool,
    at: Place,
    ctx: &'c Ctx<'c>,
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
        let item = Skim {
            at: match self.at {
                Place::Tools => Place::Tool,
                _ => Place::Inner,
            },
            ..self
        };
        // Bounded as it is read (see [`bound`]; a batch is read by
        // [`Root`]): the tail of a long array of scalars in `params` or
        // `result` is counted, not built (then the message keeps its line).
        let (items, skipped) = if self.skim && self.ctx.cut_arrays {
            bound::read_seq(&mut seq, item, bound::TRIVIAL_KEPT, |items| {
                items.iter().all(bound::is_trivial)
            })?
        } else {
            bound::read_seq(&mut seq, item, usize::MAX, |_| false)?
        };
        self.ctx
            .last_len
            .set((items.len() as u64).saturating_add(skipped));
        if skipped > 0 {
            self.ctx.cut.set(true);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        match self.at {
            Place::Picked => return self.picked(map),
            Place::Skipped => {
                while map.next_key::<de::IgnoredAny>()?.is_some() {
                    map.next_value::<de::IgnoredAny>()?;
                    self.ctx.cut.set(true);
                }
                return Ok(Value::Object(Map::new()));
            }
            _ => {}
        }
        // Room for the usual few members: growing a map from empty rehashed
        // it twice per message (2-3% of `check`). An empty object allocates
        // nothing: `[{},{},...]` costs its values, not 4 slots each (it cost
        // 190x its line).
        let Some(first) = map.next_key::<Key<'de>>()?.map(|k| k.0) else {
            return Ok(Value::Object(Map::new()));
        };
        let mut obj = Map::with_capacity(4);
        let mut next = Some(first);
        while let Some(key) = next {
            let value = self.member(&key, &mut map)?;
            obj.insert(key.into_owned(), value);
            next = map.next_key::<Key<'de>>()?.map(|k| k.0);
        }
        Ok(Value::Object(obj))
    }
}

impl<'c> Skim<'c> {
    /// The value of the member `key` of an object at this place, read next
    /// from `map`.
    fn member<'de, A: MapAccess<'de>>(self, key: &str, map: &mut A) -> Result<Value, A::Error> {
        // Only an array read by the visitors below sets this again: one
        // read from its text (a payload, an id, a stand-in) is never
        // counted, whatever array was read before it.
        self.ctx.last_len.set(0);
        let root = self.at == Place::Root;
        let value = if (root || self.at == Place::Member) && key == "id" {
            let raw: &'de RawValue = map.next_value()?;
            let (value, big) =
                id_value(&self.ctx.original_of(raw.get())).map_err(de::Error::custom)?;
            if let Some(text) = big {
                if root {
                    *self.ctx.big_id.borrow_mut() = Some(text);
                } else {
                    let index = self.ctx.member.get().saturating_sub(1);
                    self.ctx.member_big_ids.borrow_mut().push((index, text));
                }
            }
            value
        } else if BULK_KEYS.contains(&key) && self.ctx.original.len() <= SKIM_MIN_BYTES {
            // On a line this short no literal is long enough to be cut or
            // was taken out: read as any other value, in one pass.
            map.next_value_seed(self.inner())?
        } else if BULK_KEYS.contains(&key) {
            let raw: &'de RawValue = map.next_value()?;
            self.ctx
                .payload(raw.get(), self.skim)
                .map_err(de::Error::custom)?
        } else if self.skim && !self.ctx.whole && is_subtree(self.at, key) {
            let raw: &'de RawValue = map.next_value()?;
            match stand_in(raw.get(), key != "structuredContent") {
                Some(value) => {
                    self.ctx.cut.set(true);
                    value
                }
                // Small (or unsure): read as any other value, from its text.
                None => {
                    let mut de = serde_json::Deserializer::from_str(raw.get());
                    Skim {
                        skim: true,
                        at: Place::Inner,
                        ctx: self.ctx,
                    }
                    .deserialize(&mut de)
                    .map_err(de::Error::custom)?
                }
            }
        } else {
            let skim = self.skim || (root && matches!(key, "params" | "result"));
            let at = match (self.at, key) {
                (Place::Root, "result") => Place::Result,
                (Place::Result, "tools") => Place::Tools,
                (Place::Call, "arguments") => Place::Skipped,
                _ => Place::Inner,
            };
            map.next_value_seed(Skim {
                skim,
                at,
                ctx: self.ctx,
            })?
        };
        // The array just read is this member's (inner ones end first).
        if let (Place::Result, Value::Array(items)) = (self.at, &value) {
            let len = self.ctx.last_len.get();
            if len > items.len() as u64 {
                self.ctx.counted.borrow_mut().push((key.to_string(), len));
            }
        }
        Ok(value)
    }

    /// The members of a busy notification's `params` the checks read, each
    /// read as any member is (last value, first place); the message keeps
    /// its line when any other member was skipped (checked, not built), so
    /// that what reads it whole ([`Message::fields`]) reads them all.
    ///
    /// [`Message::fields`]: crate::wire::message::Message::fields
    fn picked<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        let inner = Skim {
            at: Place::Inner,
            ..self
        };
        while let Some(key) = map.next_key::<Key<'de>>()?.map(|k| k.0) {
            if PICKED.contains(&&*key) {
                let value = inner.member(&key, &mut map)?;
                obj.insert(key.into_owned(), value);
            } else {
                map.next_value::<de::IgnoredAny>()?;
                self.ctx.cut.set(true);
            }
        }
        Ok(Value::Object(obj))
    }

    /// A value inside this one that nothing may cut.
    fn inner(self) -> Skim<'c> {
        Skim::plain(self.ctx)
    }

    /// A value read as it is: nothing cut, at no place of note.
    fn plain(ctx: &'c Ctx<'c>) -> Skim<'c> {
        Skim {
            skim: false,
            at: Place::Inner,
            ctx,
        }
    }

    /// The members of a message object (the line's, or a batch member's:
    /// `self.at`), the envelope's apart (see [`Members`]).
    fn members<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Box<Members>, A::Error> {
        let mut members = Box::new(Members::new());
        let mut picked = None;
        while let Some(key) = map.next_key::<Key<'de>>()?.map(|k| k.0) {
            let pick = if key == "params" && self.at == Place::Root {
                picking(members.method_str()).filter(|_| self.ctx.may_pick())
            } else {
                None
            };
            if key == "jsonrpc" {
                members.set_jsonrpc(map.next_value_seed(JsonrpcSeed(self.ctx))?);
            } else if let Some(at) = pick {
                // As the root's `params` (see `member`), but picked.
                let value = map.next_value_seed(Skim {
                    skim: true,
                    at,
                    ctx: self.ctx,
                })?;
                members.insert(key, value);
                picked = Some(at);
            } else {
                let value = self.member(&key, &mut map)?;
                members.insert(key, value);
            }
        }
        if picked.is_some() && picking(members.method_str()) != picked {
            self.ctx.picked_wrong.set(true);
        }
        Ok(members)
    }
}

/// The visitor methods of the seeds below (each a `&Ctx`) for the values
/// other than an object: read by [`Skim::plain`] and wrapped by `$wrap`.
macro_rules! others_to_skim {
    ($wrap:expr) => {
        others_to_skim!(@scalars $wrap);
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_str(v).map($wrap)
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_string(v).map($wrap)
        }
    };
    (@scalars $wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_bool(v).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_i64(v).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_u64(v).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_f64(v).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Skim::plain(self.0).visit_unit().map($wrap)
        }
    };
}

/// The line's outermost value: a message object, a batch of them, or
/// anything else (which is no message).
#[derive(Clone, Copy)]
struct Root<'c>(&'c Ctx<'c>);

impl<'de> DeserializeSeed<'de> for Root<'_> {
    type Value = Read;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Read, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Root<'_> {
    type Value = Read;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    others_to_skim!(Read::Other);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read, A::Error> {
        let root = Skim {
            skim: false,
            at: Place::Root,
            ctx: self.0,
        };
        root.members(map).map(Read::Object)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read, A::Error> {
        // Bounded as it is read (see [`bound`]): a batch's members beyond
        // the cap are counted, not built.
        let (items, skipped) =
            bound::read_seq(&mut seq, Member(self.0), bound::BATCH_ANALYSED, |_| true)?;
        if skipped > 0 {
            self.0.batch_skipped.set(skipped);
        }
        Ok(Read::Batch(items))
    }
}

/// A member of a batch: a message object, or any other value.
#[derive(Clone, Copy)]
struct Member<'c>(&'c Ctx<'c>);

impl<'de> DeserializeSeed<'de> for Member<'_> {
    type Value = Result<Box<Members>, Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.member.set(self.0.member.get() + 1);
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Result<Box<Members>, Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    others_to_skim!(Err);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let member = Skim {
            skim: false,
            at: Place::Member,
            ctx: self.0,
        };
        member.members(map).map(Ok)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skim::plain(self.0).visit_seq(seq).map(Err)
    }
}

/// The `jsonrpc` member: `"2.0"` read without building a string.
#[derive(Clone, Copy)]
struct JsonrpcSeed<'c>(&'c Ctx<'c>);

impl<'de> DeserializeSeed<'de> for JsonrpcSeed<'_> {
    type Value = Jsonrpc;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Jsonrpc, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JsonrpcSeed<'_> {
    type Value = Jsonrpc;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    others_to_skim!(@scalars Jsonrpc::Other);
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Jsonrpc, E> {
        Ok(match v {
            "2.0" => Jsonrpc::Two,
            other => Jsonrpc::Other(Value::from(other)),
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Jsonrpc, A::Error> {
        Skim::plain(self.0).visit_map(map).map(Jsonrpc::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Jsonrpc, A::Error> {
        Skim::plain(self.0).visit_seq(seq).map(Jsonrpc::Other)
    }
}

/// A member's key, borrowed from the line when it has no escapes (serde's
/// own `Cow<str>` always copies it): the envelope's keys and the skipped
/// ones cost no string.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde_core::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The stand-in for a subtree given as written: an empty object or array
/// for one longer than [`SKIM_MIN_BYTES`] (serde_json has checked its
/// grammar while skipping it), `None` to read it whole: a short one, a
/// scalar, or one with a `\u` escape of a surrogate (a lone surrogate, which
/// serde_json refuses when it reads the value but not when it skips it: the
/// line is then read as a whole, see [`mend`]).
///
/// A schema's stand-in keeps its `type` member (`schema`): the list-shape
/// check asks whether a listed tool's schema is an object schema.
fn stand_in(raw: &str, schema: bool) -> Option<Value> {
    if raw.len() <= SKIM_MIN_BYTES {
        return None;
    }
    let value = match raw.as_bytes()[0] {
        b'{' if schema => {
            // Read up to its first `type` member only (it usually comes
            // first): the visitor stops there, and the error that stop
            // makes is the expected one. A schema that gives `type` twice
            // stands as its first (a map read whole keeps the last): making
            // it the last costs a second walk of every schema, half again
            // the time of a listing-heavy session.
            let found = RefCell::new(None);
            let mut de = serde_json::Deserializer::from_str(raw);
            let _ = (&mut de).deserialize_map(SchemaType(&found));
            let mut obj = Map::new();
            if let Some(ty) = found.into_inner() {
                obj.insert("type".to_string(), ty);
            }
            Value::Object(obj)
        }
        b'{' => Value::Object(Map::new()),
        b'[' => Value::Array(Vec::new()),
        _ => return None,
    };
    (!has_lone_surrogate(raw.as_bytes())).then_some(value)
}

/// A schema's first `type` member, read as written into the cell; the
/// members before it skipped (checked, not built), the rest not read.
struct SchemaType<'a>(&'a RefCell<Option<Value>>);

impl<'de> Visitor<'de> for SchemaType<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key<'de>>()?.map(|k| k.0) {
            if &*key == "type" {
                *self.0.borrow_mut() = Some(map.next_value::<Value>()?);
                return Err(de::Error::custom("stopped at `type`"));
            }
            map.next_value::<de::IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Every member of a line kept by a cut message, read whole (nothing cut,
/// what serde_json refuses but the grammar allows mended as in [`parse`]).
pub(crate) fn whole_fields(text: &str) -> Option<Map<String, Value>> {
    let frame = match parse_as_is(text, true, false, false) {
        Ok((frame, _, _)) => frame,
        Err(_) => parse_as_is(&mend(text)?, true, false, false).ok()?.0,
    };
    match frame {
        Frame::Message(m) => Some(m.into_fields()),
        _ => None,
    }
}

/// The members of a line kept by a cut message as a summary reads them:
/// strings and subtrees whole, but a long array of scalars in `params` or
/// `result` still cut at [`bound::TRIVIAL_KEPT`] (so that its structure
/// never costs more than the line), with the lengths of those in `result`
/// counted.
pub(crate) fn summary_fields(text: &str) -> Option<(Map<String, Value>, Counted)> {
    let (frame, _, counted) = match parse_as_is(text, true, true, false) {
        Ok(done) => done,
        Err(_) => parse_as_is(&mend(text)?, true, true, false).ok()?,
    };
    match frame {
        Frame::Message(m) => Some((m.into_fields(), counted)),
        _ => None,
    }
}

/// What a [`Message`] reads again through this parser: the members of a cut
/// message whole or as a summary reads them, and the members given back to
/// the short-line reader's pool. Here, beside the parser, so that the
/// message model (`message.rs`) does not parse.
impl Message {
    /// The message as a summary reads it: cut strings and subtrees whole,
    /// long arrays of scalars still cut (see [`crate::wire::bound`]), with
    /// the counted lengths of the arrays that are members of `result`. The
    /// line is read, not copied.
    pub fn for_summary(&self) -> (Message, Counted) {
        let read = match self.exact() {
            Some(text) => summary_fields(text),
            None => self
                .raw
                .as_deref()
                .and_then(|raw| std::str::from_utf8(raw).ok())
                .and_then(summary_fields),
        };
        let (body, counted) = match read {
            Some((obj, counted)) => (Body::Whole(Box::new(obj)), counted),
            None => (self.body.clone(), Vec::new()),
        };
        let copy = Message {
            kind: self.kind,
            id: self.id.clone(),
            method: self.method.clone(),
            rare: self.rare.as_ref().and_then(|rare| {
                (!rare.problems.is_empty()).then(|| {
                    Box::new(Rare {
                        problems: rare.problems.clone(),
                        exact: None,
                    })
                })
            }),
            partial: self.partial,
            cut: self.cut,
            body,
            raw: None,
        };
        (copy, counted)
    }

    /// Done with: the members the short-line reader read are kept to read
    /// the next message of the same shape into (fewer allocations, see
    /// `fast::give_spare`); anything else is dropped.
    pub fn recycle(self) {
        if let Body::Split(mut members) = self.body {
            if members.spare {
                members.method = self.method.map(Value::String);
                members.method_moved = false;
                give_spare(members);
            }
        }
    }

    pub(super) fn whole(&self) -> Option<Map<String, Value>> {
        let raw = std::str::from_utf8(self.raw.as_deref()?).ok()?;
        whole_fields(raw)
    }

    /// The JSON text of a message whose payload was cut (see
    /// [`Message::is_cut`]), mended as [`whole_fields`] reads it when it
    /// was damaged: to walk its strings without building its tree.
    pub fn cut_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        let raw = std::str::from_utf8(self.raw.as_deref()?).ok()?;
        if serde_json::from_str::<serde_core::de::IgnoredAny>(raw).is_ok() {
            return Some(std::borrow::Cow::Borrowed(raw));
        }
        mend(raw).map(std::borrow::Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lex::*;
    use serde_json::json;

    /// A tools/call result whose text block is `text`, as one JSON line.
    fn long_result(text: &str) -> String {
        json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":text}],"isError":true}})
            .to_string()
    }

    #[test]
    fn lone_surrogates_are_told_from_pairs() {
        assert!(!has_lone_surrogate(
            br#""caf\u00e9 \ud83d\ude00 \uD83D\uDE00""#
        ));
        assert!(has_lone_surrogate(br#""\ud83d x""#));
        assert!(has_lone_surrogate(br#""\ude00""#));
        assert!(has_lone_surrogate(br#""\ud83d\u0041""#));
        assert!(has_lone_surrogate(br#""\ud83d"#));
        assert!(has_lone_surrogate(br#""\\\ud83d""#));
        // An escaped backslash, then the letters: no escape at all.
        assert!(!has_lone_surrogate(br#""\\ud83d \\\\udc00""#));
        assert!(!has_lone_surrogate(br#""\u12"#));
        // A backslash that ends the text (invalid JSON a fuzzer found).
        assert!(!has_lone_surrogate(br#""x\"#));
        assert!(!has_lone_surrogate(b"\\"));
        // A large structuredContent with pairs stands in; with a lone one it
        // is read whole, and the line fails as serde_json fails, then mended.
        let rows = "{\"n\":\"\\ud83d\\ude00\"},".repeat(60);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"structuredContent":{{"rows":[{rows}{{}}]}}}}}}"#
        );
        let Frame::Message(m) = parse(&line).unwrap() else {
            panic!()
        };
        assert!(m.is_cut());
        assert_eq!(m.result().unwrap()["structuredContent"], json!({}));
        let whole: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(Value::Object(m.fields().into_owned()), whole);
        let lone = line.replacen("\\ude00", "", 1);
        let Frame::Message(m) = parse(&lone).unwrap() else {
            panic!()
        };
        assert!(!m.is_cut());
        assert_eq!(
            m.result().unwrap()["structuredContent"]["rows"][0]["n"],
            json!("\u{fffd}")
        );
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// The block scanner ends a string literal where the plain reading
        /// does, and refuses what it refuses, whatever the runs of
        /// backslashes and wherever the 64-byte blocks fall.
        #[test]
        fn block_scanner_agrees_with_the_plain_reading(
            body in proptest::collection::vec(
                // Mostly valid escapes and backslash pairs (so that literals
                // span several 64-byte blocks and runs cross their edges);
                // now and then a lone backslash, a quote, a bad escape or a
                // control character.
                proptest::sample::select(
                    std::iter::repeat_n(
                        ["a", "a", "a", "\\\\", "\\n", "\\\"", "\\/", "\\u00e9", "\\uD83D\\uDE00", "é", " ", "u"],
                        20,
                    )
                    .flatten()
                    .chain(["\\\\\\\\", "\\", "\"", "\\x", "\\u12g4", "\x01"])
                    .collect::<Vec<&str>>(),
                ),
                0..200,
            ),
            offset in 0usize..70,
        ) {
            let mut b = vec![b'a'; offset];
            b.extend_from_slice(body.concat().as_bytes());
            let plain = plain_end(&b, offset);
            proptest::prop_assert_eq!(literal_end_sse2(&b, offset), plain);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                proptest::prop_assert_eq!(unsafe { literal_end_avx2(&b, offset) }, plain);
            }
        }

        /// Parsing with long strings taken out gives the same value as
        /// serde_json on the whole line (once the cut strings are read
        /// whole), and fails where serde_json fails.
        #[test]
        fn excising_changes_no_value(
            pieces in proptest::collection::vec(
                proptest::sample::select(
                    std::iter::repeat_n(
                        ["abc", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\\/", "é", " ", "\\t"],
                        100,
                    )
                    .flatten()
                    .chain(["\\x", "\\u12", "\"", "\\ud800"])
                    .collect::<Vec<&str>>(),
                ),
                0..400,
            ),
            key in proptest::sample::select(vec!["text", "data", "blob", "other"]),
            place in 0usize..5,
        ) {
            let body: String = pieces.concat();
            let filler = "w".repeat(2100);
            let line = match place {
                0 => format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","{key}":"{body}"}}],"pad":"{filler}"}}}}"#),
                1 => format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":1,"message":"m","{key}" : "{body}"}},"pad":"{filler}"}}"#),
                2 => format!(r#"[{{"jsonrpc":"2.0","method":"x","params":{{"{key}":"{body}","k":"{filler}"}}}}]"#),
                3 => format!(r#"{{"{key}":"{body}","params":{{"{key}":"{body}{filler}"}},"jsonrpc":"2.0","method":"m"}}"#),
                // A key's name as a string value, then a long string.
                _ => format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"list":["{key}","{body}{filler}"],"{key}":{{"{key}":"{key}"}},"x":"{body}"}}}}"#),
            };
            // The filter is a necessary condition: a line it passes over has
            // nothing the walk would take out.
            if !may_excise(line.as_bytes()) {
                proptest::prop_assert!(excise(&line).is_none(), "{}", line);
            }
            let expected = serde_json::from_str::<Value>(&line);
            // The one leniency: a cut string is checked as serde_json skips
            // strings, so a lone surrogate in it is not an error.
            let lenient = line.contains("\\ud800");
            match parse(&line) {
                Ok(Frame::Message(m)) => match &expected {
                    Ok(value) => {
                        proptest::prop_assert_eq!(&Value::Object(m.fields().into_owned()), value, "{}", line);
                        // Only `params` and `result` are ever cut.
                        for (key, member) in &m.skimmed() {
                            if !m.is_cut() || !matches!(key.as_str(), "params" | "result") {
                                proptest::prop_assert_eq!(Some(member), value.get(key), "{}", key);
                            }
                        }
                    }
                    Err(e) => proptest::prop_assert!(lenient, "{} accepted, serde_json: {}", line, e),
                },
                Ok(Frame::Batch(items)) => match &expected {
                    Ok(Value::Array(values)) => {
                        for (item, value) in items.iter().zip(values) {
                            let m = item.as_ref().expect("message");
                            proptest::prop_assert_eq!(&Value::Object(m.fields().into_owned()), value);
                        }
                    }
                    other => proptest::prop_assert!(lenient, "{} batch, serde_json: {:?}", line, other),
                },
                Ok(Frame::Invalid(_)) => proptest::prop_assert!(expected.is_ok() || lenient),
                Ok(Frame::LongBatch { .. }) => proptest::prop_assert!(false, "a long batch: {}", line),
                Err(_) => proptest::prop_assert!(expected.is_err(), "{}", line),
            }
        }
    }

    #[test]
    fn what_json_allows_is_accepted() {
        // A lone surrogate (a JavaScript string sliced inside an emoji),
        // alone, before a plain escape, and as a low half; a good pair stays.
        let line = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a\ud83d b \ude00\n \ud83d\ude00"}]}}"#;
        let Ok(Frame::Message(m)) = parse(line) else {
            panic!("refused: {line}")
        };
        assert_eq!(
            m.result().unwrap()["content"][0]["text"],
            "a\u{fffd} b \u{fffd}\n \u{1F600}"
        );
        // A 320-digit integer (what Python's factorial(200) writes).
        let digits = "1".repeat(320);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{"n":{digits},"m":-{digits},"s":"{digits}"}}}}"#
        );
        let Ok(Frame::Message(m)) = parse(&line) else {
            panic!("refused: {line}")
        };
        assert_eq!(m.id, IdField::Id(RequestId::Int(3)));
        assert_eq!(m.result().unwrap()["n"], f64::MAX);
        assert_eq!(m.result().unwrap()["m"], f64::MIN);
        assert_eq!(m.result().unwrap()["s"], digits);
        // Still refused: what JSON refuses.
        assert!(parse(r#"{"id":1,"x":"\ud83"}"#).is_err());
        assert!(parse(r#"{"id":1,"x":1e999"#).is_err());
    }

    #[test]
    fn ids_beyond_64_bits_keep_their_exact_text() {
        let ids = [
            "18446744073709551616",
            "18446744073709551617",
            "-9223372036854775809",
            &"7".repeat(400),
        ];
        let mut seen = Vec::new();
        for id in ids {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let Ok(Frame::Message(m)) = parse(&line) else {
                panic!("refused: {line}")
            };
            assert_eq!(m.id, IdField::Id(RequestId::Num(id.into())));
            assert_eq!(m.problems(), [Problem::InvalidIdType(TOO_LARGE)]);
            seen.push(m.id);
        }
        assert_ne!(seen[0], seen[1]);
        // 64-bit ids are plain integers as before.
        for (id, want) in [
            ("9223372036854775807", true),
            ("18446744073709551615", false),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let Ok(Frame::Message(m)) = parse(&line) else {
                panic!("refused")
            };
            assert_eq!(matches!(m.id, IdField::Id(RequestId::Int(_))), want, "{id}");
            assert!(m.id.id().unwrap().to_string() == id);
        }
    }

    #[test]
    fn long_arrays_of_scalars_stand_in_as_their_head() {
        let zeros = vec!["0"; 1_500_000].join(",");
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"x","arguments":{{"a":[{zeros}],"b":[{{}},[],null]}}}}}}"#
        );
        let Ok(Frame::Message(m)) = parse(&line) else {
            panic!("refused")
        };
        let kept = &m.params().unwrap()["arguments"]["a"];
        assert_eq!(kept.as_array().map(Vec::len), Some(bound::TRIVIAL_KEPT));
        assert!(m.is_cut());
        let whole: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(Value::Object(m.fields().into_owned()), whole);
        // Up to the cap, and arrays of non-empty objects, are read whole.
        let short = vec!["0"; bound::TRIVIAL_KEPT].join(",");
        let objects = vec![r#"{"a":1}"#; 3000].join(",");
        for array in [short, objects] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"v":[{array}]}}}}"#);
            let Ok(Frame::Message(m)) = parse(&line) else {
                panic!("refused")
            };
            assert!(!m.is_cut());
            let whole: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(Value::Object(m.members().into_owned()), whole);
        }
    }

    #[test]
    fn busy_notifications_keep_what_the_checks_read_and_their_line() {
        let read = |line: &str| match parse(line) {
            Ok(Frame::Message(m)) => m,
            other => panic!("{line}: {other:?}"),
        };
        let whole = |line: &str| match serde_json::from_str(line) {
            Ok(Value::Object(obj)) => obj,
            _ => panic!("{line}"),
        };
        // Progress: the token, the value and `_meta` in their places; the
        // rest left out, and read whole when asked.
        let line = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","total":3,"progress":1,"message":"step 1","_meta":{"k":1},"progress":2}}"#;
        let m = read(line);
        assert_eq!(
            Value::Object(m.params().unwrap().clone()),
            json!({"progressToken":"p-1","progress":2,"_meta":{"k":1}})
        );
        assert!(m.is_cut());
        assert_eq!(*m.fields(), whole(line));
        // The views build it whole (they would read it again).
        let Ok(Frame::Message(v)) = parse_keeping(line, Build::Views) else {
            panic!("{line}")
        };
        assert!(!v.is_cut());
        assert_eq!(*v.members(), whole(line));
        // A log line: nothing the checks read, nothing built.
        let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":{"rows":[1,2]}}}"#;
        let m = read(line);
        assert!(m.params().unwrap().is_empty());
        assert!(m.is_cut() && m.has_params());
        assert_eq!(*m.fields(), whole(line));
        // Nothing left out: nothing cut.
        let line = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}"#;
        let m = read(line);
        assert!(!m.is_cut());
        assert_eq!(*m.members(), whole(line));
        // An emoji's surrogate pair is read and skipped alike: picked.
        let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\ud83d\ude00 \\ud800"}}"#;
        let m = read(line);
        assert!(m.params().unwrap().is_empty() && m.is_cut());
        assert_eq!(*m.fields(), whole(line));
        // Read whole: another method, the method given again after
        // `params`, `params` not an object.
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"x"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":["info","x"]}"#,
            r#"{"jsonrpc":"2.0","params":{"level":"info","data":"x"},"method":"notifications/message"}"#,
        ] {
            let m = read(line);
            assert!(!m.is_cut(), "{line}");
            assert_eq!(*m.members(), whole(line), "{line}");
        }
        // A lone surrogate escape on the line, where it would be skipped:
        // nothing picked, the line read mended, as before.
        let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\ud800"}}"#;
        let m = read(line);
        assert_eq!(m.params().unwrap()["data"], json!("\u{fffd}"));
    }

    #[test]
    fn a_tool_calls_arguments_stand_as_an_empty_object_when_they_are_one() {
        let read = |line: &str, build: Build| match parse_keeping(line, build) {
            Ok(Frame::Message(m)) => m,
            other => panic!("{line}: {other:?}"),
        };
        let whole = |line: &str| match serde_json::from_str(line) {
            Ok(Value::Object(obj)) => obj,
            _ => panic!("{line}"),
        };
        let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"caf\u00e9","n":[1,2]},"_meta":{"progressToken":"p-3"},"task":{}}}"#;
        let m = read(line, Build::Checks);
        assert_eq!(
            Value::Object(m.params().unwrap().clone()),
            json!({"name":"search","arguments":{},"_meta":{"progressToken":"p-3"},"task":{}})
        );
        assert!(m.is_cut());
        assert_eq!(*m.fields(), whole(line));
        assert_eq!(
            Some(&whole(line)["params"]),
            m.whole_params()
                .map(|p| Value::Object(p.into_owned()))
                .as_ref()
        );
        // The views build them.
        let v = read(line, Build::Views);
        assert!(!v.is_cut());
        assert_eq!(*v.members(), whole(line));
        // Empty, or not an object (which the checks report): as they are.
        for line in [
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":["q",{"a":1}]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":"q=1"}}"#,
            // The method named after `params`, or replaced after them.
            r#"{"jsonrpc":"2.0","id":3,"params":{"name":"t","arguments":{"q":1}},"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"q":1}},"method":"prompts/get"}"#,
        ] {
            let m = read(line, Build::Checks);
            assert!(!m.is_cut(), "{line}");
            assert_eq!(*m.members(), whole(line), "{line}");
        }
    }

    #[test]
    fn a_batch_is_analysed_up_to_its_cap_and_counted_beyond() {
        let members: Vec<String> = (0..1500)
            .map(|i| {
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"n":{i}}}}}"#
                )
            })
            .collect();
        let line = format!("[{}]", members.join(","));
        let Ok(Frame::LongBatch { items, skipped }) = parse(&line) else {
            panic!("not a long batch")
        };
        assert_eq!((items.len(), skipped), (bound::BATCH_ANALYSED, 500));
        let line = format!("[{}]", members[..bound::BATCH_ANALYSED].join(","));
        let Ok(Frame::Batch(items)) = parse(&line) else {
            panic!("not a batch")
        };
        assert_eq!(items.len(), bound::BATCH_ANALYSED);
        // What is skipped is still checked as JSON.
        let bad = format!("[{},{{\"a\":}}]", members.join(","));
        assert!(parse(&bad).is_err());
    }

    #[test]
    fn batch_members_ids_beyond_64_bits_keep_their_exact_text() {
        let line = r#"[{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"},5,{"jsonrpc":"2.0","id":123456789012345678901234567891,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]"#;
        let Ok(Frame::Batch(items)) = parse(line) else {
            panic!("not a batch")
        };
        let ids: Vec<Option<RequestId>> = items
            .iter()
            .map(|m| m.as_ref().ok().and_then(|m| m.id.id().cloned()))
            .collect();
        assert_eq!(
            ids,
            [
                Some(RequestId::Num("123456789012345678901234567890".into())),
                None,
                Some(RequestId::Num("123456789012345678901234567891".into())),
                Some(RequestId::Int(7)),
            ]
        );
        let Ok(m) = &items[0] else { panic!() };
        assert_eq!(m.problems(), [Problem::InvalidIdType(TOO_LARGE)]);
    }
}
