//! What the session has established, read by every rule family and kept
//! up to date by the session (`session/`): the requests each side has open
//! (`Open`), the ids each side has used (`UsedIds`), the facts a family
//! is judged with (`Facts`), the peers ([`Implementation`]), the running
//! [`Counts`], why a session restarted ([`Restart`]); and in the files
//! below, the request table (`pairing`), what may explain a hang
//! (`evidence`, `crash`), the compiled schemas (`schemas`, `official`) and
//! what a listed schema uses that clients handle inconsistently (`lint`).
//!
//! Plain data and the pure functions that read it: this module sits under
//! both the session and the rule families and names neither, so each
//! judgement here is made once and asked by both.

use serde_json::Value;

use crate::protocol::{self, Era, Revision};
use crate::wire::message::{Field, Message, RequestId};
use crate::wire::time::At;
use crate::wire::time::Timestamp;

use hash::HashMap;

pub(crate) mod crash;
pub(crate) mod evidence;
pub(crate) mod hash;
pub(crate) mod lint;
pub mod official;
pub mod pairing;
pub mod schemas;

/// A peer's `name` and `version` as it declared them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    pub name: String,
    pub version: Option<String>,
}

impl Implementation {
    pub(crate) fn from_value(v: Option<&Value>) -> Option<Implementation> {
        let v = v?;
        Some(Implementation {
            name: v.field("name")?.as_str()?.to_string(),
            version: v
                .field("version")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        })
    }
}

/// Running counts, per side, used for the summary and for hang stories
/// ("after the request, the server answered 3 others").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Messages sent, indexed by [`Side`](crate::wire::dir::Side).
    pub messages: [u64; 3],
    /// The other side's requests each side settled (answered, or ended a
    /// listen by cancelling it), indexed by [`Side`](crate::wire::dir::Side):
    /// not orphan or duplicate answers, nor a shutdown error.
    pub settled: [u64; 3],
    /// Lines on a JSON stream that were not messages, indexed by
    /// [`Side`](crate::wire::dir::Side).
    pub noise: [u64; 3],
    pub stderr: u64,
}

/// Why a new session began (see `session::Boundary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// A recorder's `# start`: the server process was started again.
    Started,
    /// The client sent `initialize` after the session had ended.
    Reinitialized,
    /// The client sent `initialize` with the id of the session's first:
    /// it started over with fresh ids (a server per operation).
    StartedOver,
}

/// What a rule family is judged with, as the session stands when it asks
/// (the handshake may move between two families' turns on one message).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    /// The revision rules are gated on: `--revision`, else the negotiated
    /// one, else the one the client asked for.
    pub(crate) revision: Option<Revision>,
    pub(crate) era: Option<Era>,
    /// The capture starts after the handshake.
    pub(crate) mid_session: bool,
    /// The log holds the host's calls, not the wire (no notifications).
    pub(crate) no_handshake: bool,
    /// The tool-schema checks run (on unless `--no-tool-schemas`).
    pub(crate) tool_schemas: bool,
    /// `--schema-check`: the tool-schema checks have no work budget.
    pub(crate) schema_check: bool,
    /// A recorder's `start` event came before the first message.
    pub(crate) known_start: bool,
    /// `--slow`.
    pub(crate) slow_seconds: f64,
    /// The client's requests open now.
    pub(crate) client_open: usize,
}

/// A request's method as the session keeps it: the protocol table's own
/// name when the method is in it (most are), so that following a request
/// allocates nothing for its name; else the name as sent.
pub(crate) type MethodName = std::borrow::Cow<'static, str>;

/// A request's tool, prompt or resource name as the session keeps it: in
/// place when it is as short as most are.
pub(crate) type SubjectText = crate::text::InlineText<30>;

pub(crate) fn method_name(method: &str) -> MethodName {
    match protocol::method(method) {
        Some(info) => MethodName::Borrowed(info.name),
        None => MethodName::Owned(method.to_owned()),
    }
}

/// A request waiting for its response.
#[derive(Clone, Debug)]
pub(crate) struct Open {
    pub(crate) line: u64,
    pub(crate) time: Option<Timestamp>,
    pub(crate) method: MethodName,
    /// The tool, prompt or resource it is about, when the params say.
    pub(crate) subject: Option<SubjectText>,
    /// Its sender's cancellation (boxed: rare, and an answer moves the
    /// request out of the open table).
    pub(crate) cancelled: Option<Box<Cancel>>,
    /// What the side owing it had done when it was sent.
    pub(crate) before: Before,
    /// A list request that carried a `cursor` (a later page).
    pub(crate) paged: bool,
    /// The tool-schema check found its `tools/call` arguments breaking the
    /// listed `inputSchema`.
    pub(crate) bad_arguments: bool,
    /// Its id was already in use when it was sent (`id-reuse`).
    pub(crate) reused: bool,
    /// The log cut its payload; its id and method were recovered.
    pub(crate) cut: bool,
    /// The request it likely retries: the same method about the same thing,
    /// sent after its sender gave up on that one by a timeout (id, line).
    pub(crate) retry_of: Option<Box<(RequestId, u64)>>,
    /// The line of the other side's shutdown error to it, written after
    /// its sender closed the connection: no answer
    /// ([`pairing::Pairing::shutdown_error`]).
    pub(crate) shutdown: Option<u64>,
    /// How many requests of its sender were open when it was sent: those
    /// settled after it are not "later requests" in its hang story.
    pub(crate) earlier_open: u32,
    /// The revision its `_meta` declares: it rules the request's exchange
    /// (its answer, its cancellation, its hang), whatever the session's.
    pub(crate) declared: Option<Revision>,
}

/// The owing side's [`Counts`] when a request was sent, for the story of a
/// hang (what that side did after it): only that side's, so that an open
/// request is smaller.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Before {
    pub(crate) settled: u64,
    pub(crate) messages: u64,
    pub(crate) noise: u64,
    pub(crate) stderr: u64,
}

impl Before {
    /// `owner`'s part of `counts`.
    pub(crate) fn of(counts: &Counts, owner: crate::wire::dir::Side) -> Before {
        let i = owner.index();
        Before {
            settled: counts.settled[i],
            messages: counts.messages[i],
            noise: counts.noise[i],
            stderr: counts.stderr,
        }
    }
}

/// A request's cancellation by its sender.
#[derive(Clone, Debug)]
pub(crate) struct Cancel {
    pub(crate) at: At,
    /// The cancellation's reason when it is not a timeout ("no longer
    /// needed", a user's abort): the canceller's choice, not a hang.
    pub(crate) chosen: Option<Box<str>>,
    /// The cancellation's reason when it is a timeout ("timed out after
    /// 2.0s"), quoted in the hang story.
    pub(crate) timed_out: Option<Box<str>>,
}

/// An id a side has used: where first, and where it was answered.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Used {
    pub(crate) line: u64,
    pub(crate) answered: Option<u64>,
    /// Sent past the open-request cap: not followed, so its answer is
    /// accepted without a check.
    pub(crate) forgotten: bool,
}

/// The ids a side has used, compactly: integer ids counted up from 0 or 1
/// (what clients and SDKs send) in a vector indexed by the id, 8 bytes
/// each; other integers in a map (about 34 bytes each with the table);
/// string (and float) ids in a map by a 64-bit fingerprint, the same size
/// whatever the id's length (two ids of one session share a fingerprint
/// with odds of about 1 in 10^7 even among a million ids, and the seed
/// differs on every run). Lines are kept as u32 (saturating).
#[derive(Debug, Default)]
pub(crate) struct UsedIds {
    /// `dense[id]` for ids below its length; `(0, _)` is unused (lines
    /// count from 1).
    dense: Vec<(u32, u32)>,
    ints: HashMap<i64, (u32, u32)>,
    others: HashMap<u64, (u32, u32)>,
    fingerprint: foldhash::quality::RandomState,
}

/// An id as [`UsedIds`] finds it: an integer, or another id's fingerprint.
#[derive(Clone, Copy, Debug)]
pub(crate) enum UsedKey {
    Int(i64),
    Print(u64),
}

/// `answered` encoding: 0 none, `FORGOTTEN` not followed, else line + 1.
const FORGOTTEN: u32 = u32::MAX;
/// How far past the dense ids a new id may be and still extend them (the
/// gap is filled with unused slots): a few skipped ids cost little, a jump
/// to a large id goes to the map.
const DENSE_GAP: usize = 64;

fn line32(line: u64) -> u32 {
    line.clamp(1, u64::from(u32::MAX - 2)) as u32
}

impl UsedIds {
    /// Where `n` is in the dense ids, when it was kept there.
    fn dense_index(&self, n: i64) -> Option<usize> {
        usize::try_from(n)
            .ok()
            .filter(|&i| self.dense.get(i).is_some_and(|slot| slot.0 != 0))
    }

    fn slot(&mut self, id: &RequestId) -> Option<&mut (u32, u32)> {
        match id {
            RequestId::Int(n) => match self.dense_index(*n) {
                Some(i) => Some(&mut self.dense[i]),
                None => self.ints.get_mut(n),
            },
            other => {
                let print = self.print(other);
                self.others.get_mut(&print)
            }
        }
    }

    pub(crate) fn get(&self, id: &RequestId) -> Option<Used> {
        self.get_at(self.key(id))
    }

    /// Where `id` is looked for: a string id's fingerprint made once for a
    /// lookup and an insert.
    pub(crate) fn key(&self, id: &RequestId) -> UsedKey {
        match id {
            RequestId::Int(n) => UsedKey::Int(*n),
            other => UsedKey::Print(self.print(other)),
        }
    }

    pub(crate) fn get_at(&self, key: UsedKey) -> Option<Used> {
        let (line, answered) = *match key {
            UsedKey::Int(n) => match self.dense_index(n) {
                Some(i) => &self.dense[i],
                None => self.ints.get(&n)?,
            },
            UsedKey::Print(print) => self.others.get(&print)?,
        };
        Some(Used {
            line: u64::from(line),
            answered: (answered != 0 && answered != FORGOTTEN).then(|| u64::from(answered - 1)),
            forgotten: answered == FORGOTTEN,
        })
    }

    pub(crate) fn insert(&mut self, id: &RequestId, line: u64, forgotten: bool) {
        self.insert_at(self.key(id), line, forgotten);
    }

    pub(crate) fn insert_at(&mut self, key: UsedKey, line: u64, forgotten: bool) {
        let value = (line32(line), if forgotten { FORGOTTEN } else { 0 });
        match key {
            UsedKey::Int(n) => match usize::try_from(n) {
                Ok(i) if i < self.dense.len() && !self.ints.contains_key(&n) => {
                    self.dense[i] = value
                }
                Ok(i) if i <= self.dense.len() + DENSE_GAP && !self.ints.contains_key(&n) => {
                    self.dense.resize(i, (0, 0));
                    self.dense.push(value);
                }
                _ => {
                    self.ints.insert(n, value);
                }
            },
            UsedKey::Print(print) => {
                self.others.insert(print, value);
            }
        }
    }

    fn print(&self, id: &RequestId) -> u64 {
        std::hash::BuildHasher::hash_one(&self.fingerprint, id)
    }

    pub(crate) fn answer(&mut self, id: &RequestId, line: u64) {
        if let Some(slot) = self.slot(id) {
            slot.1 = line32(line) + 1;
        }
    }
}

/// Direction inference bookkeeping for logs without markers.
#[derive(Debug, Default)]
pub(crate) struct Inference {
    pub(crate) seen: u64,
    pub(crate) placed: u64,
    pub(crate) unplaced: u64,
    pub(crate) first_unplaced: Option<u64>,
    pub(crate) text_lines: u64,
    pub(crate) first_text: Option<u64>,
}

/// The revision a request's `_meta` declares (2026-07-28 requests carry
/// it; a legacy revision named there makes it a legacy request).
pub(crate) fn declared_revision(msg: &Message) -> Option<Revision> {
    msg.meta_str(protocol::META_PROTOCOL_VERSION)
        .and_then(Revision::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense vector, the integer map and the other map answer alike,
    /// whichever an id landed in.
    #[test]
    fn used_ids_find_every_id_wherever_it_is_kept() {
        let mut used = UsedIds::default();
        let ids: Vec<RequestId> = [0i64, 1, 2, 5, 1_000_000, 3, 70, 200, -4, 90, 4]
            .into_iter()
            .map(RequestId::Int)
            .chain([RequestId::Str("7".into()), RequestId::Num("1.5".into())])
            .collect();
        for (line, id) in ids.iter().enumerate() {
            assert!(used.get(id).is_none(), "{id} unused yet");
            used.insert(id, line as u64 + 1, false);
        }
        // Ids counted up from 0 stay dense; jumps and negatives go to the map.
        assert!(used.dense.len() >= 6 && used.dense.len() < 200);
        assert!(used.ints.contains_key(&1_000_000) && used.ints.contains_key(&-4));
        for (line, id) in ids.iter().enumerate() {
            let seen = used.get(id).unwrap_or_else(|| panic!("{id} lost"));
            assert_eq!(seen.line, line as u64 + 1);
            assert_eq!(seen.answered, None);
            used.answer(id, 500 + line as u64);
            assert_eq!(used.get(id).unwrap().answered, Some(500 + line as u64));
        }
        // An id kept in the map before the dense ids grew past it stays found.
        let mut used = UsedIds::default();
        used.insert(&RequestId::Int(100), 1, false);
        for n in 0..300 {
            if n != 100 {
                used.insert(&RequestId::Int(n), n as u64 + 2, true);
            }
        }
        assert_eq!(used.get(&RequestId::Int(100)).unwrap().line, 1);
        assert!(used.get(&RequestId::Int(7)).unwrap().forgotten);
        assert!(used.get(&RequestId::Int(300)).is_none());
        assert!(used.dense.len() >= 300);
    }
}
