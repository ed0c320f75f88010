//! Where one session ends and the next begins in a log: the one
//! definition of that boundary, asked by the check, the row views and the
//! captures of diff and replay alike.

pub use crate::facts::Restart;
use crate::transport::Item;
use crate::wire::dir::Dir;
use crate::wire::event::EventKind;
use crate::wire::message::{Kind, RequestId};

/// Where one server process's session ends and the next begins: a
/// recorder's `# start` event after at least one message (a restarted
/// server, with fresh id spaces). The one definition of that boundary: the
/// check, the row views and the captures of diff and replay each keep one.
/// Also a client's `initialize` after the session ended (stdin closed, the
/// server exited, the host closed the transport): a host that restarted its
/// server without a recorder in front of it; and a client's `initialize`
/// with the id of the session's first one: the client started over with
/// fresh ids, as hosts that start a server per operation do (a client
/// re-initialising a live session could not reuse that id: ids are unique
/// for the session).
#[derive(Clone, Debug, Default)]
pub struct Boundary {
    traffic: bool,
    ended: bool,
    /// The id of the session's first `initialize`.
    first: Option<RequestId>,
}

impl Boundary {
    /// Takes the next item; true when it opens a new session (the item
    /// itself belongs to the new one).
    pub fn starts_session(&mut self, item: &Item) -> bool {
        self.restart(item).is_some()
    }

    /// Takes the next item; says why when it opens a new session.
    pub fn restart(&mut self, item: &Item) -> Option<Restart> {
        match item {
            Item::Message { dir, msg, .. }
                if *dir != Dir::ServerToClient
                    && msg.kind == Kind::Request
                    && msg.method.as_deref() == Some("initialize") =>
            {
                let id = msg.id.id();
                let restart = if self.ended {
                    Some(Restart::Reinitialized)
                } else if self.first.is_some() && self.first.as_ref() == id {
                    Some(Restart::StartedOver)
                } else {
                    None
                };
                self.traffic = true;
                if restart.is_some() || self.first.is_none() {
                    self.first = id.cloned();
                }
                self.ended = false;
                return restart;
            }
            Item::Message { .. } => self.traffic = true,
            Item::Batch { items, .. } if items.iter().any(Result::is_ok) => self.traffic = true,
            Item::Event { event, .. } if event.kind == EventKind::Start && self.traffic => {
                self.traffic = false;
                self.ended = false;
                self.first = None;
                return Some(Restart::Started);
            }
            Item::Event { event, .. }
                if matches!(event.kind, EventKind::End(_)) && self.traffic =>
            {
                self.ended = true;
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::time::At;

    /// A session ends at a recorder's `# start` only after a message: a
    /// start at the top, two starts in a row, a host's note, stderr, noise
    /// or an all-broken batch before it do not split.
    #[test]
    fn a_new_session_begins_at_a_start_after_traffic() {
        use crate::wire::event::Event;
        use crate::wire::message::{Frame, classify};
        let at = || At {
            line: 1,
            time: None,
        };
        let start = || Item::Event {
            at: at(),
            event: Event::start("server"),
        };
        let message = || {
            let Frame::Message(msg) =
                classify(serde_json::json!({"jsonrpc": "2.0", "method": "ping", "id": 1}))
            else {
                panic!("a request");
            };
            Item::Message {
                at: at(),
                dir: Dir::ClientToServer,
                msg,
            }
        };
        let mut b = Boundary::default();
        assert!(!b.starts_session(&start()), "a start before any traffic");
        assert!(!b.starts_session(&Item::Stderr {
            at: at(),
            text: "hi".into()
        }));
        assert!(!b.starts_session(&Item::Noise {
            at: at(),
            dir: Dir::ServerToClient
        }));
        assert!(!b.starts_session(&Item::Batch {
            at: at(),
            dir: Dir::ClientToServer,
            items: vec![Err("x".into())]
        }));
        assert!(!b.starts_session(&Item::Event {
            at: at(),
            event: Event::host("Starting server")
        }));
        assert!(!b.starts_session(&start()));
        assert!(!b.starts_session(&message()));
        assert!(b.starts_session(&start()), "a start after a message");
        assert!(!b.starts_session(&start()), "a second start in a row");
        assert!(!b.starts_session(&message()));
        assert!(b.starts_session(&start()));
    }
}
