//! Pairing: the requests each side has open, by exact id, and who sent a
//! message in a log without direction markers.
//!
//! This is the one request table of the crate: the session keeps its open
//! requests here (with what its rules need), and so do the conversation's
//! rows and the captures of `diff` and `replay` (with what they show). Each
//! side has its own id space. A table holds at most [`MAX_OPEN`] requests per
//! side, so memory is bounded whatever the log; every operation is O(1)
//! amortised except [`Pairing::loose_match`], which only scans small tables.

use crate::protocol::{self, Sender, Shape};
use crate::wire::dir::Side;
use crate::wire::event::{Ending, EventKind};
use crate::wire::message::{Kind, Message, RequestId};
use crate::wire::time::At;

type Hasher = foldhash::fast::RandomState;
type IndexMap<K, V> = indexmap::IndexMap<K, V, Hasher>;

/// The most requests followed per side at once; past it a side's new
/// requests are not followed (the session reports it once).
pub const MAX_OPEN: usize = 20_000;

/// A table with more open requests than this is not scanned for an id that
/// differs only by its JSON type (`1` against `"1"`).
const LOOSE_SCAN_LIMIT: usize = 1000;

/// What [`Pairing::open`] did with a request.
#[derive(Debug)]
pub enum Opened<T> {
    /// Now open (and no request of this side had its id open).
    New,
    /// Now open; it replaced a request of the same side with the same id
    /// that was still open (given back).
    Replaced(T),
    /// Not followed: the side already has [`MAX_OPEN`] requests open.
    Full,
}

/// The open requests of each side, with a `T` for each, and where each
/// side closed the connection.
#[derive(Debug)]
pub struct Pairing<T> {
    open: [IndexMap<RequestId, T>; 3],
    /// Where each side closed its stream (the client closed the server's
    /// stdin): past it, what the other side writes to its open requests
    /// may be its shutdown, not an answer ([`Pairing::shutdown_error`]).
    closed: [Option<At>; 3],
}

impl<T> Default for Pairing<T> {
    fn default() -> Self {
        Pairing {
            open: Default::default(),
            closed: Default::default(),
        }
    }
}

/// The JSON-RPC error code SDKs give a request still running when the
/// connection closes ("Connection closed"): an implementation-defined
/// server error, the same in the official Python and TypeScript SDKs.
pub const CONNECTION_CLOSED: i64 = -32000;

impl<T> Pairing<T> {
    /// Opens a request `id` sent by `side`.
    pub fn open(&mut self, side: Side, id: &RequestId, value: T) -> Opened<T> {
        let table = &mut self.open[side.index()];
        let full = table.len() >= MAX_OPEN;
        // One lookup for both cases (the id hashed once): the id is copied
        // before it is known to be new, which it nearly always is.
        match table.entry(id.clone()) {
            indexmap::map::Entry::Occupied(mut old) => {
                Opened::Replaced(std::mem::replace(old.get_mut(), value))
            }
            indexmap::map::Entry::Vacant(_) if full => Opened::Full,
            indexmap::map::Entry::Vacant(new) => {
                new.insert(value);
                Opened::New
            }
        }
    }

    /// The request `id` of `side` is answered: it is no longer open.
    /// O(1); the order of what stays open is not kept (sort by line where
    /// it is shown).
    pub fn answer(&mut self, side: Side, id: &RequestId) -> Option<T> {
        self.open[side.index()].swap_remove(id)
    }

    /// An open request of `side` whose id equals `id` but for its JSON type
    /// (an echo that changed `1` into `"1"`), if the table is small enough
    /// to scan.
    pub fn loose_match(&self, side: Side, id: &RequestId) -> Option<RequestId> {
        let table = &self.open[side.index()];
        if table.len() > LOOSE_SCAN_LIMIT {
            return None;
        }
        table.keys().find(|k| k.loosely_equals(id)).cloned()
    }

    /// Answers the one request of `side` whose id differs from `id` only by
    /// its JSON type (a type-changed echo, `1` against `"1"`): the request's
    /// id and value. A peer cannot match such an answer, but the request is
    /// settled by it (`id-type-mismatch` says so).
    pub fn answer_loosely(&mut self, side: Side, id: &RequestId) -> Option<(RequestId, T)> {
        let request_id = self.loose_match(side, id)?;
        let value = self.answer(side, &request_id)?;
        Some((request_id, value))
    }

    pub fn get(&self, side: Side, id: &RequestId) -> Option<&T> {
        self.open[side.index()].get(id)
    }

    pub fn get_mut(&mut self, side: Side, id: &RequestId) -> Option<&mut T> {
        self.open[side.index()].get_mut(id)
    }

    /// How many requests `side` has open.
    pub fn len(&self, side: Side) -> usize {
        self.open[side.index()].len()
    }

    /// The open requests of `side`, in no particular order.
    pub fn iter(&self, side: Side) -> impl Iterator<Item = (&RequestId, &T)> {
        self.open[side.index()].iter()
    }

    /// Every open request, with its sender, in no particular order.
    pub fn all(&self) -> impl Iterator<Item = (Side, &RequestId, &T)> {
        [Side::Client, Side::Server, Side::Unknown]
            .into_iter()
            .flat_map(move |side| self.iter(side).map(move |(id, v)| (side, id, v)))
    }

    /// Forgets every open request and every close (a new session begins).
    pub fn clear(&mut self) {
        self.open = Default::default();
        self.closed = Default::default();
    }

    /// A session event: the client closing the server's stdin closes the
    /// client's side of the connection.
    pub fn event(&mut self, at: &At, kind: &EventKind) {
        if *kind == EventKind::End(Ending::StdinClosed) {
            self.closed[Side::Client.index()].get_or_insert_with(|| at.clone());
        }
    }

    /// Where `side` closed the connection, if it did.
    pub fn closed(&self, side: Side) -> Option<&At> {
        self.closed[side.index()].as_ref()
    }

    /// Where `side` closed the connection after its request at `line`,
    /// with that request still open: its wait ends there.
    pub fn closed_after(&self, side: Side, line: u64) -> Option<&At> {
        self.closed(side).filter(|at| at.line > line)
    }

    /// Whether `msg`, a response to a request `requester` has open, is the
    /// other side's shutdown rather than an answer: an error with the
    /// connection-closed code written after the requester closed the
    /// connection (the official Python SDK answers each request still
    /// running with `-32000 "Connection closed"` once its stdin closes).
    /// Nothing was answered: the request stays open, a hang.
    pub fn shutdown_error(&self, requester: Side, msg: &Message) -> bool {
        self.closed(requester).is_some()
            && msg.kind == Kind::Response
            && msg.error().and_then(|e| e.code) == Some(CONNECTION_CLOSED)
            && msg
                .id
                .id()
                .is_some_and(|id| self.get(requester, id).is_some())
    }

    /// The one side that has `id` open, if exactly one does.
    pub fn opener_of(&self, id: &RequestId) -> Option<Side> {
        let mut sides = [Side::Client, Side::Server, Side::Unknown]
            .into_iter()
            .filter(|s| self.open[s.index()].contains_key(id));
        let first = sides.next()?;
        sides.next().is_none().then_some(first)
    }

    /// Who sent `msg`, in a log that does not say: a request or notification
    /// by the method table (a cancellation by the side that has its request
    /// open), a response by the side opposite to the one request it can
    /// answer. `Unknown` when the evidence does not place it, as for `ping`
    /// and other methods either side may send.
    pub fn infer_sender(&self, msg: &Message) -> Side {
        match msg.kind {
            Kind::Request | Kind::Notification => {
                let name = msg.method.as_deref().unwrap_or_default();
                match protocol::method(name).map(|m| m.sender) {
                    Some(Sender::Client) => Side::Client,
                    Some(Sender::Server) => Side::Server,
                    _ if name == "notifications/cancelled" => msg
                        .params()
                        .and_then(|p| p.get("requestId"))
                        .and_then(RequestId::from_json)
                        .and_then(|id| self.opener_of(&id))
                        .unwrap_or(Side::Unknown),
                    _ => Side::Unknown,
                }
            }
            Kind::Response => msg
                .id
                .id()
                .and_then(|id| self.opener_of(id))
                .map_or(Side::Unknown, Side::other),
        }
    }
}

/// The id of a request that waits for an answer: one with an id whose
/// method is not a notification method (`notifications/initialized` with an
/// id is a malformed notification, `notification-with-id`: nobody answers
/// it and nobody waits).
pub fn awaited(msg: &Message) -> Option<&RequestId> {
    let method = msg.method.as_deref().unwrap_or_default();
    let notification = protocol::method(method).is_some_and(|m| m.shape == Shape::Notification);
    msg.id.id().filter(|_| !notification)
}

/// Whether a `notifications/cancelled` from `canceller` for the other
/// side's open `method` ends it: in 2026-07-28 a server ends a client's
/// `subscriptions/listen` that way (the only cancel a server sends).
pub fn cancel_ends_listen(canceller: Side, method: &str) -> bool {
    canceller == Side::Server && method == "subscriptions/listen"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::message::{Frame, classify};

    fn message(json: &str) -> Message {
        match classify(serde_json::from_str(json).expect("json")) {
            Frame::Message(m) => m,
            _ => panic!("not a message: {json}"),
        }
    }

    fn id(n: i64) -> RequestId {
        RequestId::from_json(&serde_json::json!(n)).expect("an id")
    }

    #[test]
    fn each_side_has_its_own_ids_and_the_table_is_bounded() {
        let mut p = Pairing::default();
        assert!(matches!(p.open(Side::Client, &id(1), "a"), Opened::New));
        assert!(matches!(p.open(Side::Server, &id(1), "b"), Opened::New));
        assert!(matches!(
            p.open(Side::Client, &id(1), "c"),
            Opened::Replaced("a")
        ));
        assert_eq!(p.opener_of(&id(1)), None, "both sides have id 1 open");
        assert_eq!(p.answer(Side::Server, &id(1)), Some("b"));
        assert_eq!(p.opener_of(&id(1)), Some(Side::Client));
        for n in 2..=MAX_OPEN as i64 {
            assert!(matches!(p.open(Side::Client, &id(n), "x"), Opened::New));
        }
        assert_eq!(p.len(Side::Client), MAX_OPEN);
        assert!(matches!(p.open(Side::Client, &id(0), "over"), Opened::Full));
        assert!(p.get(Side::Client, &id(0)).is_none());
    }

    #[test]
    fn the_sender_is_inferred_from_the_method_table_and_the_pairing() {
        let mut p = Pairing::default();
        let call = message(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#);
        assert_eq!(p.infer_sender(&call), Side::Client);
        let sampling = message(r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}"#);
        assert_eq!(p.infer_sender(&sampling), Side::Server);
        let ping = message(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
        assert_eq!(p.infer_sender(&ping), Side::Unknown, "either side pings");
        let answer = message(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert_eq!(p.infer_sender(&answer), Side::Unknown, "nothing is open");
        p.open(Side::Client, &id(7), ());
        assert_eq!(p.infer_sender(&answer), Side::Server);
        let cancel = message(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
        );
        assert_eq!(p.infer_sender(&cancel), Side::Client);
    }

    /// A -32000 error to an open request is the other side's shutdown only
    /// after the requester closed the connection; a session boundary
    /// forgets the close.
    #[test]
    fn a_connection_closed_error_after_the_close_answers_nothing() {
        let mut p = Pairing::default();
        p.open(Side::Client, &id(4), ());
        let closed = message(
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"Connection closed"}}"#,
        );
        let other = message(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"x"}}"#);
        assert!(!p.shutdown_error(Side::Client, &closed), "still connected");
        let at = At {
            line: 9,
            time: None,
        };
        p.event(&at, &EventKind::End(Ending::Exited(Some(0))));
        assert!(p.closed(Side::Client).is_none(), "an exit is no close");
        p.event(&at, &EventKind::End(Ending::StdinClosed));
        assert_eq!(p.closed(Side::Client).map(|a| a.line), Some(9));
        assert!(p.shutdown_error(Side::Client, &closed));
        assert!(
            !p.shutdown_error(Side::Client, &other),
            "another code answers"
        );
        assert!(
            !p.shutdown_error(Side::Server, &closed),
            "the server closed nothing"
        );
        p.answer(Side::Client, &id(4));
        assert!(!p.shutdown_error(Side::Client, &closed), "no request open");
        p.clear();
        assert!(p.closed(Side::Client).is_none());
    }

    #[test]
    fn a_type_changed_echo_is_found_only_in_small_tables() {
        let mut p = Pairing::default();
        p.open(Side::Client, &id(1), ());
        let echo = RequestId::from_json(&serde_json::json!("1")).expect("an id");
        assert_eq!(p.loose_match(Side::Client, &echo), Some(id(1)));
        for n in 2..=(LOOSE_SCAN_LIMIT as i64 + 1) {
            p.open(Side::Client, &id(n), ());
        }
        assert_eq!(p.loose_match(Side::Client, &echo), None);
    }
}
