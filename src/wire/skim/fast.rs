//! The short-line reader: a message object of a short line read by hand,
//! without serde_json's visitors, into what the skim parser builds of it.
//!
//! Most of a busy session's lines are small objects (a progress
//! notification, a log line, a short tool call and its result). Reading
//! them through serde_json's deserializer and the skim visitors cost about
//! twice a bare skip-parse of the same line. This reader reads a line in
//! two steps. [`tokenize`] walks it once (string literals eight bytes at a
//! time, a long one with the skim parser's bit masks, [`literal_end`]),
//! checks its grammar and decides what is built, with the skim parser's
//! rules ([`Place`]: a busy notification's `params` picked, a tool call's
//! `arguments` standing as `{}`, an `id` read as written), and writes
//! that as a tape of [`Op`]s: positions in the line and numbers, nothing
//! allocated. [`replay`] then builds the members from the tape and the
//! line, deciding nothing. The two steps may run on two threads (see
//! [`crate::pipeline`]): what crosses between them is the tape, and when
//! the read-ahead thread builds a message too, the message, whose members
//! go back there once the session is done with them ([`give_spare`]), so
//! that memory is freed where it was allocated.
//!
//! A payload string (`text`, `data`, `blob`) longer than [`SKIM_MIN_BYTES`]
//! inside `params` or `result` is cut as the skim parser cuts it: its end
//! found with the bit masks, its escapes checked, its first
//! [`SKIM_KEEP_CHARS`] characters kept ([`Op::Cut`]); so a tool result of a
//! few kilobytes of text is read here too, without the skim parser's copy
//! of the line and serde_json's walk of it.
//!
//! It reads only what it is sure to read exactly as the skim parser would,
//! and gives up (`None`) on anything else, which the skim parser then reads
//! as before: a line of [`FAST_MAX_LINE`] bytes or more, anything but an
//! object, a `structuredContent` or schema subtree longer than
//! [`SKIM_MIN_BYTES`] (which the skim parser stands in for; given up as
//! soon as it is seen to be longer), a long array, an escaped key, a lone
//! surrogate escape outside a cut string, an integer id beyond 64 bits, a
//! number serde_json refuses, deep nesting, `params` picked for a `method`
//! that a later `method` member replaces, and any JSON error (so that
//! serde_json's verdict and words stand).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use serde_json::{Map, Number, Value};

use super::keep::{
    BULK_KEYS, FAST_MAX_LINE, PICKED, Place, SKIM_KEEP_CHARS, SKIM_MIN_BYTES, id_value,
    is_big_integer, is_subtree, picking, unescape_head,
};
use crate::wire::lex::{escape_end, has_lone_surrogate, hex4, literal_end, number_end, surrogate};
use crate::wire::message::{ERROR, ID, JSONRPC, Jsonrpc, METHOD, Members, PARAMS, RESULT, Read};

/// Arrays longer than this are left to the skim parser (which may cut a
/// long array of scalars, see [`crate::wire::bound`]).
const MAX_ITEMS: usize = 256;
/// Nesting deeper than this is left to the skim parser (and serde_json's
/// own limit).
const MAX_DEPTH: usize = 64;

/// One step of building a message read by [`tokenize`]; positions are byte
/// offsets in the line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    /// A string literal's body `start..end`; `escape`: where its first
    /// backslash is ([`NO_ESCAPE`]: none).
    Str {
        start: u32,
        end: u32,
        escape: u32,
    },
    /// A payload string literal's body `start..end` cut as the skim
    /// parser cuts it: its first [`SKIM_KEEP_CHARS`] characters.
    Cut {
        start: u32,
        end: u32,
    },
    /// A number, as serde_json holds it: a non-negative integer, a
    /// negative one, or a float (three variants, not a [`Number`], so
    /// that an op takes 16 bytes: the tape crosses between threads).
    Int(u64),
    Neg(i64),
    Float(f64),
    Bool(bool),
    Null,
    /// An object of `len` members (each a [`Op::Key`] and a value), or an
    /// array of `len` values, up to its [`Op::End`].
    Obj(u32),
    Arr(u32),
    Key {
        start: u32,
        end: u32,
    },
    End,
    /// The message's `jsonrpc` as `"2.0"`.
    Jsonrpc2,
    /// The envelope member `at` ([`JSONRPC`], [`METHOD`], ...): its value
    /// follows.
    Member(u8),
    /// Another member of the message, its key `start..end`: its value
    /// follows.
    Other {
        start: u32,
        end: u32,
    },
    /// The message's `id`, written at `start..end`.
    Id {
        start: u32,
        end: u32,
    },
}

// An op is 16 bytes: a batch's tape is written on one thread and read on
// the other.
const _: () = assert!(std::mem::size_of::<Op>() == 16);

/// [`Op::Str`] without an escape.
const NO_ESCAPE: u32 = u32::MAX;

/// Reads a short line's message object; `Some((read, cut))` when it is read
/// exactly as the skim parser reads it (`cut`: something was left out and
/// the message keeps its line), `None` to leave the line to the skim parser.
/// `pick`: a busy notification's or a tool call's `params` may be picked.
pub(super) fn parse(text: &str, pick: bool, whole: bool) -> Option<(Read, bool)> {
    thread_local! {
        static TAPE: RefCell<Vec<Op>> = const { RefCell::new(Vec::new()) };
    }
    TAPE.with(|tape| {
        let mut tape = tape.borrow_mut();
        tape.clear();
        let cut = tokenize(text, pick, whole, &mut tape)?;
        Some((replay(&tape, text)?, cut))
    })
}

/// The first step of [`parse`]: reads the line and appends what is to be
/// built of it to `tape`; `Some(cut)` when it is read, `None` (and `tape`
/// as it was) to leave the line to the skim parser. `whole`: no payload
/// string may be cut.
pub(crate) fn tokenize(text: &str, pick: bool, whole: bool, tape: &mut Vec<Op>) -> Option<bool> {
    if text.len() >= FAST_MAX_LINE {
        return None;
    }
    let from = tape.len();
    let mut r = Reader {
        b: text.as_bytes(),
        text,
        pos: 0,
        cut: false,
        may_cut: !whole,
        cut_literal: false,
        limit: usize::MAX,
        depth: 0,
        tape,
    };
    let read = r.message(pick);
    let cut = r.cut;
    match read {
        Some(()) => Some(cut),
        None => {
            tape.truncate(from);
            None
        }
    }
}

/// The second step of [`parse`]: the members of the message `text` whose
/// tape [`tokenize`] wrote. `None` only when the tape is not one of `text`
/// (never for a tape `tokenize` wrote of it).
pub(crate) fn replay(tape: &[Op], text: &str) -> Option<Read> {
    let mut members = take_spare(tape, text).unwrap_or_else(Members::boxed);
    members.spare = true;
    members.ahead = AHEAD.get();
    let mut ops = tape.iter();
    while let Some(op) = ops.next() {
        match op {
            Op::Jsonrpc2 => members.set_jsonrpc(Jsonrpc::Two),
            Op::Member(at) if usize::from(*at) == JSONRPC => {
                let value = build(&mut ops, text)?;
                members.set(JSONRPC, value);
            }
            Op::Member(at) => match members.slot_mut(usize::from(*at)) {
                Some(value) => build_into(value, &mut ops, text)?,
                slot => *slot = Some(build(&mut ops, text)?),
            },
            Op::Other { start, end } => {
                let key = text.get(*start as usize..*end as usize)?;
                let value = build(&mut ops, text)?;
                members.insert(Cow::Borrowed(key), value);
            }
            Op::Id { start, end } => {
                let (value, _) = id_value(text.get(*start as usize..*end as usize)?).ok()?;
                members.set(ID, value);
            }
            _ => return None,
        }
    }
    members.drop_unread();
    Some(Read::Object(members))
}

/// How many members of finished messages are kept to be read into again:
/// on the thread that checks, one per shape, [`SPARES`] shapes; on the
/// read-ahead thread, which builds many messages before the first comes
/// back, up to [`SPARES_AHEAD`].
const SPARES: usize = 8;
const SPARES_AHEAD: usize = 2048;
/// How many members read on the read-ahead thread wait, on the thread that
/// checks, to go back ([`take_back`]); more are dropped. As many as the
/// read-ahead thread keeps: it builds most of a batch's messages while the
/// other thread is behind, and they come back a batch at a time (with 256
/// kept, on a busy small-message log, half of the members it read were
/// built anew, not read into spare ones).
const BACK: usize = SPARES_AHEAD;
/// How many of the latest spare members [`take_spare`] looks at for one of
/// a message's shape.
const SPARE_LOOK: usize = 64;

thread_local! {
    /// Members of messages the session is done with ([`give_spare`]),
    /// read into again by [`replay`] for a message of the same shape: its
    /// maps, arrays and strings are reused where the shapes agree, so that
    /// a stream of like messages (progress, log notifications, tool calls
    /// and their results) allocates little. Bounded: [`SPARES`] members
    /// ([`SPARES_AHEAD`] on the read-ahead thread), each from a short line.
    // Boxed: the box a message holds its members in is reused too.
    // Each with its shape's key, [`key_of`] its [`Members::spare_key`].
    #[allow(clippy::vec_box)]
    static SPARE: RefCell<Vec<(u64, Box<Members>)>> = const { RefCell::new(Vec::new()) };
    /// Whether this is the read-ahead thread ([`set_ahead`]).
    static AHEAD: Cell<bool> = const { Cell::new(false) };
    /// Members read on the read-ahead thread that the session here is done
    /// with, to go back there ([`take_back`]): memory is freed on the
    /// thread that allocated it, where it is cheap.
    #[allow(clippy::vec_box)]
    static BACKLOG: RefCell<Vec<Box<Members>>> = const { RefCell::new(Vec::new()) };
}

/// Marks this thread as the read-ahead thread: the members [`replay`] reads
/// here go back here once the session is done with them.
pub(crate) fn set_ahead() {
    AHEAD.set(true);
}

/// Moves the members waiting to go back to the read-ahead thread into
/// `into` (see [`give_spare`]).
#[allow(clippy::vec_box)]
pub(crate) fn take_back(into: &mut Vec<Box<Members>>) {
    BACKLOG.with(|back| {
        if let Ok(mut back) = back.try_borrow_mut() {
            into.append(&mut back);
        }
    });
}

/// Drops the members waiting to go back to a read-ahead thread that ended.
pub(crate) fn forget_back() {
    BACKLOG.with(|back| {
        if let Ok(mut back) = back.try_borrow_mut() {
            *back = Vec::new();
        }
    });
}

/// Keeps `members` (read by [`replay`], of a message the session is done
/// with) to read a later message into: here, or, read on the read-ahead
/// thread, back there.
pub(crate) fn give_spare(members: Box<Members>) {
    let ahead = AHEAD.get();
    if members.ahead && !ahead {
        BACKLOG.with(|back| {
            if let Ok(mut back) = back.try_borrow_mut() {
                if back.len() < BACK {
                    back.push(members);
                }
            }
        });
        return;
    }
    SPARE.with(|spare| {
        let Ok(mut spare) = spare.try_borrow_mut() else {
            return;
        };
        if ahead {
            if spare.len() < SPARES_AHEAD {
                spare.push((key_of(members.spare_key()), members));
            }
            return;
        }
        let key = key_of(members.spare_key());
        match spare.iter().position(|(k, _)| *k == key) {
            Some(i) => spare[i].1 = members,
            None if spare.len() < SPARES => spare.push((key, members)),
            // The oldest goes.
            None => {
                spare.remove(0);
                spare.push((key, members));
            }
        }
    });
}

/// Spare members of the shape the message of `tape` is likely to have
/// (the same method, or for a response the same first key of `result`),
/// ready to be read into.
fn take_spare(tape: &[Op], text: &str) -> Option<Box<Members>> {
    SPARE.with(|spare| {
        let mut spare = spare.try_borrow_mut().ok()?;
        // None kept (nothing gives them back, as in the views): no key to find.
        if spare.is_empty() {
            return None;
        }
        let key = key_of(tape_key(tape, text)?);
        // The latest first, and only the latest few: a message of a shape
        // none of them has costs a bounded look, however many are kept.
        let from = spare.len().saturating_sub(SPARE_LOOK);
        let i = from + spare[from..].iter().rposition(|(k, _)| *k == key)?;
        let (_, mut members) = spare.swap_remove(i);
        members.reuse();
        Some(members)
    })
}

/// A shape's key ([`Members::spare_key`]) as the spare members are found
/// by: its hash, compared without reading the members (two shapes of one
/// hash only make a message read into members of another shape, which
/// [`build_into`] reads into as into any).
fn key_of(key: (u8, &str)) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x5a4e_0b1e).hash_one(key)
}

/// [`Members::spare_key`] of the message whose tape this is, as far as
/// its first `method` or `result` tells (a guess: which spare members a
/// message is read into changes only how much is reused).
fn tape_key<'t>(tape: &[Op], text: &'t str) -> Option<(u8, &'t str)> {
    let mut ops = tape.iter();
    while let Some(op) = ops.next() {
        match op {
            Op::Member(at) if usize::from(*at) == METHOD => {
                if let Some(Op::Str { start, end, .. }) = ops.clone().next() {
                    return Some((0, text.get(*start as usize..*end as usize)?));
                }
                skip(&mut ops)?;
            }
            Op::Member(at) if usize::from(*at) == RESULT => {
                return Some(match (ops.next(), ops.next()) {
                    (Some(Op::Obj(_)), Some(Op::Key { start, end })) => {
                        (1, text.get(*start as usize..*end as usize)?)
                    }
                    (Some(Op::Obj(_)), _) => (1, ""),
                    _ => (2, ""),
                });
            }
            Op::Member(_) | Op::Other { .. } => skip(&mut ops)?,
            _ => {}
        }
    }
    Some((3, ""))
}

/// Steps over the value whose ops come next.
fn skip(ops: &mut std::slice::Iter<'_, Op>) -> Option<()> {
    match ops.next()? {
        Op::Obj(_) => loop {
            match ops.next()? {
                Op::Key { .. } => skip(ops)?,
                Op::End => return Some(()),
                _ => return None,
            }
        },
        Op::Arr(len) => {
            for _ in 0..*len {
                skip(ops)?;
            }
            (ops.next()? == &Op::End).then_some(())
        }
        Op::Str { .. }
        | Op::Cut { .. }
        | Op::Int(_)
        | Op::Neg(_)
        | Op::Float(_)
        | Op::Bool(_)
        | Op::Null => Some(()),
        _ => None,
    }
}

/// [`build`] into `slot`, reusing what it holds where the shapes agree: a
/// string's buffer (its escapes decoded into it), a number or a boolean in
/// place, an object with the same keys in the same order (its values built
/// into in turn), or else each value of a key it had (a tool call with and
/// without `_meta`), an array's elements as far as both go; anything else
/// is built anew. The value is the one [`build`] gives, with fewer
/// allocations. What is reused is never larger than what it holds now (an
/// object or array has the size of the one it takes; a buffer at most about
/// twice the text), so that spare members stay the size of one short line's
/// message, whatever came before.
fn build_into(slot: &mut Value, ops: &mut std::slice::Iter<'_, Op>, text: &str) -> Option<()> {
    match (slot, ops.clone().next()?) {
        (Value::String(s), Op::Str { start, end, escape })
            if s.capacity() <= 2 * (*end - *start) as usize + 64 =>
        {
            ops.next();
            s.clear();
            let body = text.get(*start as usize..*end as usize)?;
            match *escape {
                NO_ESCAPE => s.push_str(body),
                at => unescape_into(s, body, at.checked_sub(*start)? as usize)?,
            }
        }
        (Value::Number(n), op @ (Op::Int(_) | Op::Neg(_) | Op::Float(_))) => {
            ops.next();
            *n = number(op)?;
        }
        (Value::Bool(b), Op::Bool(m)) => {
            ops.next();
            *b = *m;
        }
        (Value::Object(obj), Op::Obj(len)) => {
            let at = ops.clone();
            ops.next();
            // The same keys in the same order (the usual case: a stream of
            // like messages): each value built into in turn, the keys
            // compared as they come.
            if obj.len() == *len as usize && same_keys_into(obj, ops, text)? {
                return Some(());
            }
            // Else from the object's start again, each value of a key it
            // had built into (whatever the first pass built into it).
            *ops = at;
            ops.next();
            let mut old = std::mem::take(obj);
            let mut fresh = Map::with_capacity(*len as usize);
            members(ops, text, |key, ops| {
                match old.remove_entry(key) {
                    Some((key, mut value)) => {
                        build_into(&mut value, ops, text)?;
                        fresh.insert(key, value);
                    }
                    None => {
                        fresh.insert(key.to_owned(), build(ops, text)?);
                    }
                }
                Some(())
            })?;
            *obj = fresh;
        }
        (Value::Array(items), Op::Arr(len)) => {
            let len = *len as usize;
            ops.next();
            if items.capacity() > 2 * len + 4 {
                *items = Vec::with_capacity(len);
            }
            items.truncate(len);
            for item in items.iter_mut() {
                build_into(item, ops, text)?;
            }
            while items.len() < len {
                items.push(build(ops, text)?);
            }
            (ops.next()? == &Op::End).then_some(())?;
        }
        (slot, _) => *slot = build(ops, text)?,
    }
    Some(())
}

/// The members of an object whose ops come next (after its [`Op::Obj`])
/// built into `obj`'s values when they have its keys in its order (as
/// many: the caller checked): `Some(true)` then, with `ops` past the
/// object's [`Op::End`]; `Some(false)` at the first key that differs
/// (the values before it built into). `None` only for a tape that is not
/// one of `text`.
fn same_keys_into(
    obj: &mut Map<String, Value>,
    ops: &mut std::slice::Iter<'_, Op>,
    text: &str,
) -> Option<bool> {
    for (key, value) in obj.iter_mut() {
        match ops.next()? {
            Op::Key { start, end } if text.get(*start as usize..*end as usize)? == key => {}
            _ => return Some(false),
        }
        build_into(value, ops, text)?;
    }
    Some(ops.next()? == &Op::End)
}

/// The value whose ops come next.
fn build(ops: &mut std::slice::Iter<'_, Op>, text: &str) -> Option<Value> {
    Some(match ops.next()? {
        Op::Str { start, end, escape } => {
            let body = text.get(*start as usize..*end as usize)?;
            Value::String(match *escape {
                NO_ESCAPE => body.to_owned(),
                at => unescape(body, at.checked_sub(*start)? as usize)?,
            })
        }
        Op::Cut { start, end } => {
            let literal = text.get(*start as usize - 1..*end as usize + 1)?;
            Value::String(unescape_head(literal, SKIM_KEEP_CHARS))
        }
        op @ (Op::Int(_) | Op::Neg(_) | Op::Float(_)) => Value::Number(number(op)?),
        Op::Bool(b) => Value::Bool(*b),
        Op::Null => Value::Null,
        Op::Obj(len) => {
            let mut obj = Map::with_capacity(*len as usize);
            members(ops, text, |key, ops| {
                obj.insert(key.to_owned(), build(ops, text)?);
                Some(())
            })?;
            Value::Object(obj)
        }
        Op::Arr(len) => {
            let mut items = Vec::with_capacity(*len as usize);
            for _ in 0..*len {
                items.push(build(ops, text)?);
            }
            (ops.next()? == &Op::End).then_some(())?;
            Value::Array(items)
        }
        _ => return None,
    })
}

/// The number an [`Op::Int`], [`Op::Neg`] or [`Op::Float`] holds (the
/// very [`Number`] serde_json reads: `as_u64`, `as_i64` and `as_f64` give
/// back what it holds). `None` for any other op.
fn number(op: &Op) -> Option<Number> {
    match *op {
        Op::Int(u) => Some(Number::from(u)),
        Op::Neg(i) => Some(Number::from(i)),
        Op::Float(f) => Number::from_f64(f),
        _ => None,
    }
}

/// The members of an object whose ops come next, up to its `End`: each
/// key, with `ops` at its value, given to `member`, which reads the value.
#[inline]
fn members<'o>(
    ops: &mut std::slice::Iter<'o, Op>,
    text: &str,
    mut member: impl FnMut(&str, &mut std::slice::Iter<'o, Op>) -> Option<()>,
) -> Option<()> {
    loop {
        match ops.next()? {
            Op::Key { start, end } => member(text.get(*start as usize..*end as usize)?, ops)?,
            Op::End => return Some(()),
            _ => return None,
        }
    }
}

struct Reader<'a, 't> {
    b: &'a [u8],
    text: &'a str,
    pos: usize,
    /// Something was left out (picked, skipped, a payload string cut): the
    /// message keeps its line.
    cut: bool,
    /// Long payload strings may be cut (the line is not read whole).
    may_cut: bool,
    /// A payload string was cut ([`Op::Cut`]).
    cut_literal: bool,
    /// Past this position the value being read is a subtree the skim parser
    /// stands in for (see [`Reader::object`]): the line is left to it.
    limit: usize,
    depth: usize,
    tape: &'t mut Vec<Op>,
}

impl<'a> Reader<'a, '_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn at(&self) -> u32 {
        self.pos as u32
    }

    /// Steps into the object or array whose bracket is next; `None` past
    /// [`MAX_DEPTH`].
    fn enter(&mut self) -> Option<()> {
        self.pos += 1;
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Whether the object or array just opened closes at once (`close`
    /// next, read), after whitespace.
    fn closes(&mut self, close: u8) -> Option<bool> {
        self.space();
        let closes = self.peek()? == close;
        if closes {
            self.pos += 1;
        }
        Some(closes)
    }

    /// The members of the object whose `{` was read, up to its `}`: each
    /// key handed to `each` with its value next (after whitespace), which
    /// `each` reads.
    fn each_member(
        &mut self,
        mut each: impl FnMut(&mut Self, (u32, u32)) -> Option<()>,
    ) -> Option<()> {
        if self.closes(b'}')? {
            return Some(());
        }
        loop {
            let key = self.key()?;
            self.expect(b':')?;
            self.space();
            each(self, key)?;
            if !self.next(b'}')? {
                return Some(());
            }
        }
    }

    /// Skips JSON whitespace.
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Expects `c` after whitespace.
    fn expect(&mut self, c: u8) -> Option<()> {
        self.space();
        (self.peek()? == c).then(|| self.pos += 1)
    }

    /// After a member or an element: `true` for a `,` (another follows),
    /// `false` for the closing `close`.
    fn next(&mut self, close: u8) -> Option<bool> {
        if self.pos > self.limit {
            return None;
        }
        self.space();
        let c = self.peek()?;
        self.pos += 1;
        match c {
            b',' => Some(true),
            c if c == close => Some(false),
            _ => None,
        }
    }

    fn key_str(&self, (start, end): (u32, u32)) -> &'a [u8] {
        &self.b[start as usize..end as usize]
    }

    fn key_text(&self, (start, end): (u32, u32)) -> &'a str {
        &self.text[start as usize..end as usize]
    }

    /// The message object, after whitespace, and nothing but whitespace
    /// after it.
    fn message(&mut self, pick: bool) -> Option<()> {
        self.space();
        if self.peek()? != b'{' {
            return None;
        }
        self.pos += 1;
        self.members(pick)?;
        self.space();
        (self.pos == self.b.len()).then_some(())
    }

    /// The members of the message object whose `{` was read.
    fn members(&mut self, pick: bool) -> Option<()> {
        // The `method` read so far, when it is a string (decoded).
        let mut method: Option<Cow<'a, str>> = None;
        let mut picked = None;
        self.each_member(|r, key| {
            match r.key_str(key) {
                b"jsonrpc" => {
                    // `"2.0"` as written is compared, not built.
                    if r.b[r.pos..].starts_with(b"\"2.0\"") {
                        r.pos += 5;
                        r.tape.push(Op::Jsonrpc2);
                    } else {
                        r.tape.push(Op::Member(JSONRPC as u8));
                        r.value(Place::Inner, false)?;
                    }
                }
                b"method" => {
                    r.tape.push(Op::Member(METHOD as u8));
                    let op = r.tape.len();
                    r.value(Place::Inner, false)?;
                    method = match r.tape[op] {
                        Op::Str { start, end, escape } => r.decoded(start, end, escape),
                        _ => None,
                    };
                }
                b"error" => {
                    r.tape.push(Op::Member(ERROR as u8));
                    r.value(Place::Inner, false)?;
                }
                b"id" => {
                    let start = r.pos;
                    r.skip_value()?;
                    // Read (checked) above; only an integer beyond 64 bits
                    // is left to the skim parser (see `id_value`).
                    if is_big_integer(&r.text[start..r.pos]) {
                        return None;
                    }
                    r.tape.push(Op::Id {
                        start: start as u32,
                        end: r.at(),
                    });
                }
                b"params" => {
                    let at = picking(method.as_deref()).filter(|_| pick);
                    r.tape.push(Op::Member(PARAMS as u8));
                    r.value(at.unwrap_or(Place::Inner), true)?;
                    if at.is_some() {
                        picked = at;
                    }
                }
                b"result" => {
                    r.tape.push(Op::Member(RESULT as u8));
                    r.value(Place::Result, true)?;
                }
                _ => {
                    r.tape.push(Op::Other {
                        start: key.0,
                        end: key.1,
                    });
                    r.value(Place::Inner, false)?;
                }
            }
            Some(())
        })?;
        // `params` picked for a method that a later `method` replaced: the
        // skim parser reads such a line again.
        if picked.is_some() && picking(method.as_deref()) != picked {
            return None;
        }
        // A cut string may hold a lone surrogate escape (no error there);
        // the skim parser picks nothing on such a line: left to it.
        if picked.is_some() && self.cut_literal && has_lone_surrogate(self.b) {
            return None;
        }
        Some(())
    }

    /// A string literal's body decoded (checked by [`Reader::string`]).
    fn decoded(&self, start: u32, end: u32, escape: u32) -> Option<Cow<'a, str>> {
        let body = self.text.get(start as usize..end as usize)?;
        match escape {
            NO_ESCAPE => Some(Cow::Borrowed(body)),
            at => unescape(body, (at - start) as usize).map(Cow::Owned),
        }
    }

    /// A member's key: a string literal without escapes (its bytes up to
    /// the first that is not plain must be its closing quote), as its
    /// body's `start..end`.
    fn key(&mut self) -> Option<(u32, u32)> {
        self.space();
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let end = plain_run(self.b, start);
        if *self.b.get(end)? != b'"' || end + 1 - self.pos > SKIM_MIN_BYTES {
            return None;
        }
        self.pos = end + 1;
        Some((start as u32, end as u32))
    }

    /// A string literal, its opening quote next, built whole (as the skim
    /// parser builds any string but a payload). A lone surrogate escape
    /// gives up (serde_json refuses it).
    fn string(&mut self) -> Option<()> {
        let start = self.pos + 1;
        let (end, escape, lone) = literal::<true>(self.b, start)?;
        if lone {
            return None;
        }
        self.pos = end + 1;
        self.tape.push(Op::Str {
            start: start as u32,
            end: end as u32,
            escape: escape.map_or(NO_ESCAPE, |at| at as u32),
        });
        Some(())
    }

    /// The value next, at `at` in the message; `skim`: inside the root's
    /// `params` or `result`.
    fn value(&mut self, at: Place, skim: bool) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' => {
                self.enter()?;
                match at {
                    Place::Picked => self.picked(skim)?,
                    Place::Skipped => self.skipped()?,
                    _ => self.object(at, skim)?,
                }
                self.depth -= 1;
                Some(())
            }
            b'[' => {
                self.enter()?;
                let item = match at {
                    Place::Tools => Place::Tool,
                    _ => Place::Inner,
                };
                self.array(item, skim)?;
                self.depth -= 1;
                Some(())
            }
            b't' => self.literal(b"true", Op::Bool(true)),
            b'f' => self.literal(b"false", Op::Bool(false)),
            b'n' => self.literal(b"null", Op::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// The value of a payload member ([`BULK_KEYS`]), next, as the skim
    /// parser reads it: a string literal longer than [`SKIM_MIN_BYTES`]
    /// inside `params` or `result` (`skim`) is cut (its escapes checked, not
    /// decoded; a lone surrogate escape in it is no error, as there); any
    /// other string is built whole; anything else is read as plain JSON,
    /// nothing cut inside it.
    fn payload(&mut self, skim: bool) -> Option<()> {
        if self.peek()? != b'"' {
            return self.value(Place::Inner, false);
        }
        if skim && self.may_cut {
            let start = self.pos + 1;
            let end = literal_end(self.b, start)?;
            if end + 1 - self.pos > SKIM_MIN_BYTES {
                self.pos = end + 1;
                self.cut = true;
                self.cut_literal = true;
                self.tape.push(Op::Cut {
                    start: start as u32,
                    end: end as u32,
                });
                return Some(());
            }
        }
        self.string()
    }

    fn literal(&mut self, word: &[u8], op: Op) -> Option<()> {
        if self.b.get(self.pos..self.pos + word.len())? != word {
            return None;
        }
        self.pos += word.len();
        self.tape.push(op);
        Some(())
    }

    /// A number: a plain non-negative integer read here, anything else
    /// (a sign, a fraction, an exponent) read by serde_json from its text,
    /// so that it is the same number serde_json reads in a line.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let end = number_end(self.b, start);
        self.pos = end;
        let token = &self.b[start..end];
        let plain = token.len() <= 19
            && token.iter().all(u8::is_ascii_digit)
            && (token[0] != b'0' || token.len() == 1);
        let op = if plain {
            Op::Int(
                token
                    .iter()
                    .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')),
            )
        } else {
            match serde_json::from_slice(token).ok()? {
                Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                    (Some(u), _) => Op::Int(u),
                    (None, Some(i)) => Op::Neg(i),
                    (None, None) => Op::Float(n.as_f64()?),
                },
                _ => return None,
            }
        };
        self.tape.push(op);
        Some(())
    }

    /// Skips the value next, checking its grammar, building nothing. A
    /// lone surrogate escape gives up here too: the skim parser picks
    /// nothing on such a line.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => {
                let start = self.pos + 1;
                let (end, _, lone) = literal::<true>(self.b, start)?;
                if lone {
                    return None;
                }
                self.pos = end + 1;
                Some(())
            }
            b'{' => {
                self.enter()?;
                self.each_member(|r, _| r.skip_value())?;
                self.depth -= 1;
                Some(())
            }
            b'[' => {
                self.enter()?;
                if !self.closes(b']')? {
                    loop {
                        self.space();
                        self.skip_value()?;
                        if !self.next(b']')? {
                            break;
                        }
                    }
                }
                self.depth -= 1;
                Some(())
            }
            _ => {
                let from = self.tape.len();
                self.value(Place::Inner, false)?;
                self.tape.truncate(from);
                Some(())
            }
        }
    }

    /// Opens an object or array on the tape: where its length is written
    /// when it ends.
    fn open(&mut self, op: Op) -> usize {
        self.tape.push(op);
        self.tape.len() - 1
    }

    /// Closes the object or array opened at `at` with `len` items.
    fn close(&mut self, at: usize, len: u32) {
        match &mut self.tape[at] {
            Op::Obj(n) | Op::Arr(n) => *n = len,
            _ => unreachable!("an object or array was opened here"),
        }
        self.tape.push(Op::End);
    }

    /// An object's members, its `{` read, at `at`.
    fn object(&mut self, at: Place, skim: bool) -> Option<()> {
        let open = self.open(Op::Obj(0));
        let mut len = 0;
        self.each_member(|r, key| {
            let k = r.key_str(key);
            let inner = match (at, k) {
                (Place::Result, b"tools") => Place::Tools,
                (Place::Call, b"arguments") => Place::Skipped,
                _ => Place::Inner,
            };
            r.tape.push(Op::Key {
                start: key.0,
                end: key.1,
            });
            let start = r.pos;
            if BULK_KEYS.iter().any(|b| b.as_bytes() == k) {
                r.payload(skim)?;
            } else if skim && is_subtree(at, r.key_text(key)) {
                // A subtree the skim parser may stand in for: only a short
                // one is read here (as the skim parser reads it); a long one
                // is given up as soon as it is seen to be long.
                let outer = r.limit;
                r.limit = outer.min(start + SKIM_MIN_BYTES);
                r.value(inner, skim)?;
                r.limit = outer;
                if r.pos - start > SKIM_MIN_BYTES {
                    return None;
                }
            } else {
                r.value(inner, skim)?;
            }
            len += 1;
            Some(())
        })?;
        self.close(open, len);
        Some(())
    }

    /// A busy notification's `params`, its `{` read: only the members the
    /// checks read are built, the others skipped.
    fn picked(&mut self, skim: bool) -> Option<()> {
        let open = self.open(Op::Obj(0));
        let mut len = 0;
        self.each_member(|r, key| {
            if PICKED.iter().any(|p| p.as_bytes() == r.key_str(key)) {
                r.tape.push(Op::Key {
                    start: key.0,
                    end: key.1,
                });
                r.value(Place::Inner, skim)?;
                len += 1;
            } else {
                r.skip_value()?;
                r.cut = true;
            }
            Some(())
        })?;
        self.close(open, len);
        Some(())
    }

    /// An object the checks ask only the type of, its `{` read: checked,
    /// standing as `{}`.
    fn skipped(&mut self) -> Option<()> {
        self.each_member(|r, _| {
            r.skip_value()?;
            r.cut = true;
            Some(())
        })?;
        self.tape.push(Op::Obj(0));
        self.tape.push(Op::End);
        Some(())
    }

    /// An array's elements, its `[` read, each at `at`.
    fn array(&mut self, at: Place, skim: bool) -> Option<()> {
        let open = self.open(Op::Arr(0));
        let mut len = 0;
        if !self.closes(b']')? {
            loop {
                if len == MAX_ITEMS {
                    return None;
                }
                self.space();
                self.value(at, skim)?;
                len += 1;
                if !self.next(b']')? {
                    break;
                }
            }
        }
        self.close(open, len as u32);
        Some(())
    }
}

/// Bytes that may stand in a string literal as they are (not a quote, a
/// backslash or a control character).
const PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = false;
        c += 1;
    }
    t[b'"' as usize] = false;
    t[b'\\' as usize] = false;
    t
};

/// The index of the first byte at or after `i` that may not stand in a
/// string literal as it is (see [`PLAIN`]), or the end: eight bytes at a
/// time (the zero-byte tests of "Bit Twiddling Hacks"), the last ones a
/// byte at a time.
#[inline]
fn plain_run(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        // A byte is flagged when it is zero (the quote or backslash tests)
        // or below 0x20; a false flag can only stand above a true one, so
        // the lowest flag is exact.
        let flags = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | x.wrapping_sub(ONES * 0x20) & !x)
            & HIGH;
        if flags != 0 {
            return i + (flags.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b.get(i).is_some_and(|&c| PLAIN[c as usize]) {
        i += 1;
    }
    i
}

/// How far a literal is scanned a byte at a time before the skim parser's
/// block scanner takes over.
const SHORT_LITERAL: usize = 64;

/// The index of the quote that ends the string literal whose body starts at
/// `start`, where its first escape is (its backslash's index), and, with
/// `LONE`, whether it has a lone surrogate escape (as [`has_lone_surrogate`]
/// says; `false` without `LONE`); `None` when it is not a JSON string (a bad
/// escape, a control character, no end). A short literal is read eight bytes
/// at a time, its escapes one by one (a surrogate pair is two), a long one
/// with [`literal_end`] (setting up its block masks costs more).
#[inline(always)]
fn literal<const LONE: bool>(b: &[u8], start: usize) -> Option<(usize, Option<usize>, bool)> {
    // Most literals have no escape: their plain run ends at their quote.
    let i = plain_run(b, start);
    if b.get(i) == Some(&b'"') {
        return Some((i, None, false));
    }
    escaped_literal::<LONE>(b, start, i)
}

/// [`literal`] past its first plain run, which ended at `i`, not at a
/// quote: out of line, so that the common case stays small where it is
/// inlined.
#[inline(never)]
fn escaped_literal<const LONE: bool>(
    b: &[u8],
    start: usize,
    mut i: usize,
) -> Option<(usize, Option<usize>, bool)> {
    let mut first_escape = None;
    let mut lone = false;
    loop {
        match *b.get(i)? {
            b'"' => return Some((i, first_escape, lone)),
            b'\\' => {
                first_escape.get_or_insert(i);
                let pair = LONE
                    && match surrogate(b, i) {
                        // The pair's two escapes, read as one.
                        Some(false) => true,
                        Some(true) => {
                            lone = true;
                            false
                        }
                        None => false,
                    };
                i = if pair { i + 12 } else { escape_end(b, i)? };
            }
            _ => return None,
        }
        if i - start >= SHORT_LITERAL {
            break;
        }
        i = plain_run(b, i);
    }
    let end = literal_end(b, start)?;
    let rest = if first_escape.is_none() || (LONE && !lone) {
        memchr::memchr(b'\\', &b[i..end]).map(|k| i + k)
    } else {
        None
    };
    if LONE && !lone {
        lone = rest.is_some_and(|at| has_lone_surrogate(&b[at..end]));
    }
    Some((end, first_escape.or(rest), lone))
}

/// A string literal's body decoded, its first backslash at `first` (the
/// escapes' grammar was checked by [`literal_end`]); `None` for a lone
/// surrogate escape, which serde_json refuses.
fn unescape(body: &str, first: usize) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    unescape_into(&mut out, body, first)?;
    Some(out)
}

/// [`unescape`] appended to `out` (a buffer read into again).
fn unescape_into(out: &mut String, body: &str, first: usize) -> Option<()> {
    let b = body.as_bytes();
    // Room for it all at once (a text decoded is never longer than its
    // escaped form): not grown piece by piece.
    out.reserve_exact(body.len());
    out.push_str(&body[..first]);
    let mut i = first;
    while i < b.len() {
        let Some(off) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&body[i..]);
            break;
        };
        out.push_str(&body[i..i + off]);
        i += off;
        let c = match b[i + 1] {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(b, i + 2)?;
                i += 6;
                let c = match unit {
                    0xd800..=0xdbff => {
                        if b.get(i..i + 2) != Some(&b"\\u"[..]) {
                            return None;
                        }
                        let low = hex4(b, i + 2)?;
                        if !(0xdc00..=0xdfff).contains(&low) {
                            return None;
                        }
                        i += 6;
                        char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))?
                    }
                    0xdc00..=0xdfff => return None,
                    _ => char::from_u32(unit)?,
                };
                out.push(c);
                continue;
            }
            _ => return None,
        };
        out.push(c);
        i += 2;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::{SKIM_MIN_BYTES, parse_visiting};
    use super::*;
    use crate::wire::message::{Frame, classify_read};
    use proptest::prelude::*;

    /// The ways the skim parser is asked to read a line, `(whole, pick)`:
    /// for the checks, for the views, and a cut line read whole.
    const MODES: [(bool, bool); 3] = [(false, true), (false, false), (true, false)];

    /// What the short-line reader gives, and what the visitors give, for a
    /// line read in the mode `(whole, pick)`: equal whenever the reader
    /// reads it.
    fn both(line: &str, mode: (bool, bool)) -> Option<(String, String)> {
        both_then(line, mode, false)
    }

    /// [`both`]; `recycle`: the message read is then given back as spare
    /// members, for the next line to be read into.
    fn both_then(
        line: &str,
        (whole, pick): (bool, bool),
        recycle: bool,
    ) -> Option<(String, String)> {
        let (read, cut) = parse(line, pick && !whole, whole)?;
        let frame = classify_read(read);
        let fast = format!("{:?}", (&frame, cut));
        if let (Frame::Message(m), true) = (frame, recycle) {
            m.recycle();
        }
        let slow = match parse_visiting(line, whole, true, pick) {
            Ok(((frame, cut, counted), wrong)) => {
                assert!(counted.is_empty() && !wrong, "{counted:?} {wrong} {line}");
                format!("{:?}", (frame, cut))
            }
            Err(e) => format!("error: {e}"),
        };
        Some((fast, slow))
    }

    #[test]
    fn busy_lines_are_read_as_the_visitors_read_them() {
        let lines = [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-2","progress":1,"total":5,"message":"step 1 of 5"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"x","data":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"q":"x","n":[1,2]},"_meta":{"progressToken":3}}}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0041","result":{"content":[{"type":"text","text":"ok"}],"isError":false,"structuredContent":{"n":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}"#,
            r#" { "jsonrpc" : "1.0" , "id" : -0 , "error" : { "code" : -32601 , "message" : "no" , "data" : [ 1.5 , -2 , 1e3 , true , false , null ] } } "#,
            r#"{"id":1,"id":2,"method":"ping","method":"tools/call","params":{"arguments":[]}}"#,
            // `params` before the method: built whole, as the visitors do.
            r#"{"params":{"progress":1,"total":2},"method":"notifications/progress"}"#,
            r#"{"method":"tools/call","params":{"arguments":{}},"extra":{"a":{"b":[{}]}},"jsonrpc":{"v":2}}"#,
        ];
        // A skipped string whose surrogate pair stands across the end of
        // the escapes read one by one (64 bytes), or after it.
        let x = "x".repeat(60);
        let pairs = [
            format!(
                r#"{{"method":"notifications/message","params":{{"data":"{x}\ud83d\ude00 y"}}}}"#
            ),
            format!(
                r#"{{"method":"notifications/message","params":{{"data":"{x}{x}\ud83d\ude00"}}}}"#
            ),
        ];
        // A `result` member read from its text (`text` on a line longer
        // than a cut literal) after a longer array: not counted.
        let pad: Vec<String> = (0..SKIM_MIN_BYTES / 16)
            .map(|i| format!(r#""k{i}":"pppppppp""#))
            .collect();
        let counted = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":[1,2]}},"result":{{"text":[],"method":[null]}},"pad":{{{}}}}}"#,
            pad.join(",")
        );
        // Long strings: a payload inside `params` or `result` cut (escapes,
        // a pair across the cut, a lone surrogate escape in it, on a short
        // line and on one the visitors excise from), any other built whole:
        // outside `params` and `result`, under another key, a payload key
        // whose value is not a string (nothing cut inside it).
        let long = "x".repeat(SKIM_MIN_BYTES);
        let escaped = r#"{\"hits\":[{\"t\":\"caf\u00e9 \ud83d\ude00\n\"}],"#.repeat(20);
        let longs = [
            format!(r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{long}"}}]}}}}"#),
            format!(r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{escaped}"}}]}}}}"#),
            format!(
                r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{escaped}{escaped}{escaped}{escaped}"}}]}}}}"#
            ),
            format!(
                r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{}\ud83d\ude00{long}"}}]}}}}"#,
                "y".repeat(63)
            ),
            format!(
                r#"{{"method":"notifications/message","params":{{"level":"info","data":"{long}"}}}}"#
            ),
            format!(r#"{{"id":1,"text":"{long}","result":{{}}}}"#),
            format!(r#"{{"id":1,"result":{{"content":[{{"type":"text","title":"{long}"}}]}}}}"#),
            format!(r#"{{"id":1,"result":{{"data":{{"text":"{long}","n":[1]}}}}}}"#),
            format!(r#"{{"id":1,"error":{{"code":1,"message":"m","data":"{long}"}}}}"#),
            format!(
                r#"{{"id":1,"result":{{"structuredContent":{{"a":1}},"content":[{{"type":"text","text":"{escaped}"}}]}}}}"#
            ),
        ];
        for line in lines
            .iter()
            .copied()
            .chain(pairs.iter().map(String::as_str))
            .chain([counted.as_str()])
            .chain(longs.iter().map(String::as_str))
        {
            for mode in MODES {
                let (fast, slow) = both(line, mode).unwrap_or_else(|| panic!("not read: {line}"));
                assert_eq!(fast, slow, "{line}");
            }
        }
        // A lone surrogate escape in a payload string: cut, it is read (as
        // the visitors read it); read whole, it is left to them (serde_json
        // refuses it).
        let lone = format!(
            r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{long}\ud83d{long}"}}],"isError":false}}}}"#
        );
        // The same on a busy notification's line: nothing picked there.
        let lone_picked = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":[{{"text":"{long}\ud83d{long}"}}],"jsonrpc":null}}}}"#
        );
        for mode in MODES {
            match both(&lone_picked, mode) {
                Some((fast, slow)) => assert_eq!(fast, slow, "{lone_picked}"),
                // Left to the visitors where they would pick (or read whole).
                None => assert!(mode.0 || mode.1, "not read: {lone_picked}"),
            }
        }
        for mode in MODES {
            match both(&lone, mode) {
                Some((fast, slow)) => assert_eq!(fast, slow, "{lone}"),
                None => assert!(mode.0, "not read: {lone}"),
            }
        }
        // Left to the visitors: what they may stand in for, or refuse, or
        // read again, and a line too long for this reader.
        let rows = r#"{"n":1},"#.repeat(80);
        let left = [
            format!(r#"{{"id":1,"result":{{"structuredContent":{{"rows":[{rows}{{}}]}}}}}}"#),
            format!(
                r#"{{"id":1,"result":{{"structuredContent":{{"rows":[{rows}{{}}]}},"content":[]}}}}"#
            ),
            format!(
                r#"{{"id":1,"result":{{"tools":[{{"name":"a","inputSchema":{{"rows":[{rows}{{}}]}}}}]}}}}"#
            ),
            format!(
                r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{}"}}]}}}}"#,
                "x".repeat(FAST_MAX_LINE)
            ),
            r#"{"id":123456789012345678901234,"result":{}}"#.to_string(),
            r#"{"id":1,"result":{"x":1e400}}"#.to_string(),
            r#"{"method":"notifications/message","params":{"data":"\ud83d"}}"#.to_string(),
            // Lone surrogates of a skipped string after its first 64 bytes.
            format!(
                r#"{{"method":"notifications/message","params":{{"data":"{x}\ud83d\ud83d"}}}}"#
            ),
            format!(r#"{{"method":"notifications/message","params":{{"data":"{x}{x}\ude00"}}}}"#),
            format!(r#"{{"method":"notifications/message","params":{{"data":"{x}\n{x}\ud83d"}}}}"#),
            r#"{"method":"notifications/progress","params":{"progress":1},"method":"ping"}"#
                .to_string(),
            r#"{"k\u0065y":1,"method":"ping"}"#.to_string(),
            r#"[{"method":"ping"}]"#.to_string(),
            r#"{"method":"ping",}"#.to_string(),
            r#"{"method":"ping"} x"#.to_string(),
            r#"{"id":01,"method":"ping"}"#.to_string(),
            format!("{}1{}", r#"{"a":"#.repeat(70), "}".repeat(70)),
        ];
        for line in &left {
            assert!(parse(line, true, false).is_none(), "read: {line}");
        }
    }

    /// A JSON value in the shapes of MCP traffic, as text: the envelope's
    /// keys, busy methods, the places the skim parser treats apart, escapes
    /// (a lone surrogate among them), numbers of every form, whitespace.
    fn value(depth: u32) -> BoxedStrategy<String> {
        let scalar = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            prop::sample::select(vec![
                "0",
                "-0",
                "7",
                "-7",
                "1.5",
                "-2.5e-3",
                "1e3",
                "1E+2",
                "01",
                "1.",
                "-",
                "18446744073709551615",
                "18446744073709551616",
                "9999999999999999999",
                "123456789012345678901234567890",
                "1e400",
                "2.0",
            ])
            .prop_map(str::to_string),
            prop::sample::select(vec![
                r#""""#,
                r#""p-2""#,
                r#""2.0""#,
                r#""notifications/progress""#,
                r#""notifications/message""#,
                r#""tools/call""#,
                r#""ping""#,
                r#""caf\u00e9""#,
                r#""\ud83d\ude00""#,
                r#""\ud83d""#,
                r#""\ude00 x""#,
                r#""a\"b\\c\/d\n\t""#,
                r#""\u0000""#,
                r#""bad \q""#,
                "\"tab\there\"",
                r#""\\ud83d""#,
                r#""日本""#,
                r#""unterminated"#,
            ])
            .prop_map(str::to_string),
            // Payload strings long enough to be cut: escapes, a pair across
            // the cut, a lone surrogate escape, a bad escape.
            prop::sample::select(vec![
                format!("\"{}\"", "a\\n\\\"".repeat(120)),
                format!("\"{}\\ud83d\\ude00{}\"", "b".repeat(63), "c".repeat(600)),
                format!("\"{}\\ud83d{}\"", "d".repeat(300), "e".repeat(300)),
                format!("\"{}\\q\"", "f".repeat(600)),
            ]),
        ];
        if depth == 0 {
            return scalar.boxed();
        }
        let key = prop::sample::select(vec![
            "jsonrpc",
            "id",
            "method",
            "params",
            "result",
            "error",
            "progressToken",
            "progress",
            "_meta",
            "arguments",
            "name",
            "content",
            "type",
            "text",
            "data",
            "blob",
            "structuredContent",
            "tools",
            "inputSchema",
            "outputSchema",
            "isError",
            "k\\u0065y",
            "",
        ]);
        let space = prop::sample::select(vec!["", " ", "\n", "\t "]);
        prop_oneof![
            2 => scalar,
            3 => prop::collection::vec((key, space.clone(), value(depth - 1)), 0..6).prop_map(
                |members| {
                    let inner: Vec<String> = members
                        .into_iter()
                        .map(|(k, s, v)| format!(r#"{s}"{k}"{s}:{s}{v}{s}"#))
                        .collect();
                    format!("{{{}}}", inner.join(","))
                }
            ),
            1 => prop::collection::vec(value(depth - 1), 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
        ]
        .boxed()
    }

    /// A message object: the envelope's members first, in any order.
    fn message() -> impl Strategy<Value = String> {
        let method = prop::sample::select(vec![
            r#""notifications/progress""#,
            r#""notifications/message""#,
            r#""tools/call""#,
            r#""ping""#,
            "3",
        ]);
        (
            prop::option::of(method),
            prop::option::of(value(1)),
            prop::option::of(value(3)),
            prop::option::of(value(3)),
            prop::collection::vec(value(2), 0..2),
            any::<bool>(),
        )
            .prop_map(|(method, id, params, result, rest, params_first)| {
                let mut members = vec![r#""jsonrpc":"2.0""#.to_string()];
                let method = method.map(|m| format!(r#""method":{m}"#));
                let params = params.map(|p| format!(r#""params":{p}"#));
                if params_first {
                    members.extend(params.clone());
                    members.extend(method);
                } else {
                    members.extend(method);
                    members.extend(params);
                }
                members.extend(id.map(|i| format!(r#""id":{i}"#)));
                members.extend(result.map(|r| format!(r#""result":{r}"#)));
                members.extend(rest.into_iter().map(|v| format!(r#""x":{v}"#)));
                format!("{{{}}}", members.join(","))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whenever the short-line reader reads a line, it reads it as the
        /// visitors do: the same frame, the same cut; and it reads no line
        /// that serde_json refuses.
        #[test]
        fn the_short_line_reader_agrees_with_the_visitors(
            line in message(),
            mode in prop::sample::select(MODES.to_vec()),
            cut in prop::option::of(0usize..400),
        ) {
            // Now and then a line cut short or with a byte dropped.
            let line = match cut {
                Some(at) if at < line.len() && line.is_char_boundary(at) => {
                    if at % 2 == 0 {
                        line[..at].to_string()
                    } else {
                        let next = line[at..].chars().next().map_or(0, char::len_utf8);
                        format!("{}{}", &line[..at], &line[at + next..])
                    }
                }
                _ => line,
            };
            if let Some((fast, slow)) = both(&line, mode) {
                prop_assert_eq!(fast, slow, "{}", line);
            }
        }

        /// Read into the members of earlier messages (spares), a line is
        /// read as the visitors read it: a sequence drawn from a few lines
        /// (shapes that agree wholly, in part or not at all).
        #[test]
        fn lines_read_into_spare_members_are_read_as_the_visitors_read_them(
            pool in prop::collection::vec(message(), 1..5),
            order in prop::collection::vec(0usize..5, 1..24),
            mode in prop::sample::select(MODES.to_vec()),
        ) {
            for i in order {
                let line = &pool[i % pool.len()];
                if let Some((fast, slow)) = both_then(line, mode, true) {
                    prop_assert_eq!(fast, slow, "{}", line);
                }
            }
        }
    }

    #[test]
    fn spare_members_stay_the_size_of_the_message_they_hold() {
        let read = |line: &str| match parse(line, true, false).map(|(read, _)| classify_read(read))
        {
            Some(Frame::Message(m)) => m,
            other => panic!("not read: {other:?}"),
        };
        let big = |n: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"s":"{}","a":[{}]}}}}"#,
                "x".repeat(n),
                vec!["1"; n / 2].join(",")
            )
        };
        for _ in 0..3 {
            // Strings and arrays as long as the short-line reader reads.
            read(&big(400)).recycle();
            let m = read(&big(8));
            let params = m.params().expect("params");
            match (params.get("s"), params.get("a")) {
                (Some(Value::String(s)), Some(Value::Array(a))) => {
                    assert_eq!(s.len(), 8);
                    assert!(s.capacity() <= 2 * 8 + 64, "{}", s.capacity());
                    assert!(a.capacity() <= 4, "{}", a.capacity());
                }
                other => panic!("{other:?}"),
            }
            m.recycle();
        }
    }

    #[test]
    fn spare_members_are_read_into_as_fresh_ones() {
        // One method or first `result` key, shapes that agree in part:
        // other values, keys added, dropped or reordered, arrays longer and
        // shorter, a string for an object, escapes, members gone.
        let lines = [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-2","progress":1,"total":5}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-20000","progress":2}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3,"progressToken":7}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a\nb","progress":4,"_meta":{"x":[1,2]}}}"#,
            r#"{"method":"notifications/progress","params":{"progressToken":{"k":1},"progress":"5"},"extra":1}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"one"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"two"},{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":true}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":"4","result":{"content":"none","isError":false},"x":{"y":null}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"five","type":"text"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"no"}}"#,
            r#"{"jsonrpc":"1.0","id":7,"result":{"content":[{"type":"text","text":"caf\u00e9"}]}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t","arguments":{"q":1},"_meta":{"progressToken":8}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"tt","arguments":{},"_meta":{"progressToken":"nine"}}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
        ];
        for mode in MODES {
            for round in 0..3 {
                for line in lines.iter().skip(round).chain(lines.iter().rev()) {
                    let (fast, slow) =
                        both_then(line, mode, true).unwrap_or_else(|| panic!("not read: {line}"));
                    assert_eq!(fast, slow, "{line}");
                }
            }
        }
    }
}
