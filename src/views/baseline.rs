//! The server's surface a capture shows, for `probe --baseline`: the data
//! and the baseline file are the baseline family's
//! (`rules/baseline/surface.rs`); reading it off a capture is a view's.

use serde_json::Value;

use crate::rules::baseline::surface::{Kind, ListCost, MAX_ITEMS, Surface, keep};
use crate::views::capture::{Capture, Outcome};

impl Surface {
    /// The surface a session showed: every page of each list request, and
    /// what its tools cost. A list never asked for (the capability was not
    /// declared) is empty.
    pub fn of(capture: &Capture) -> Surface {
        let handshake = capture
            .requests
            .iter()
            .filter(|e| matches!(e.method.as_str(), "initialize" | "server/discover"))
            .filter(|e| matches!(e.outcome, Outcome::Result(_)))
            .find_map(|e| e.answer_line);
        let mut surface = Surface {
            handshake_line: handshake.unwrap_or(1),
            ..Surface::default()
        };
        if handshake.is_none() {
            // Nothing was listed because nothing could be: not an empty server.
            for listed in &mut surface.lists {
                listed.incomplete = Some("the server did not complete the handshake".into());
            }
            return surface;
        }
        for exchange in &capture.requests {
            let Some(kind) = Kind::ALL
                .into_iter()
                .find(|k| k.method() == exchange.method)
            else {
                continue;
            };
            let listed = &mut surface.lists[kind.index()];
            let line = exchange.answer_line.unwrap_or(exchange.line);
            listed.line.get_or_insert(line);
            let page = match &exchange.outcome {
                Outcome::Result(result) if !exchange.partial => result.get(kind.key()),
                Outcome::Result(_) => {
                    listed.incomplete = Some(format!(
                        "the log shows {} id {} only in part",
                        kind.method(),
                        exchange.id
                    ));
                    continue;
                }
                Outcome::Error(_) => {
                    listed.incomplete = Some(format!(
                        "{} id {} was answered with an error",
                        kind.method(),
                        exchange.id
                    ));
                    continue;
                }
                Outcome::Open => {
                    listed.incomplete = Some(format!(
                        "{} id {} was not answered",
                        kind.method(),
                        exchange.id
                    ));
                    continue;
                }
            };
            for item in page.and_then(Value::as_array).into_iter().flatten() {
                if listed.items.len() >= MAX_ITEMS {
                    listed.incomplete = Some(format!(
                        "{} listed more than {MAX_ITEMS} items",
                        kind.method()
                    ));
                    break;
                }
                if let Some((id, kept)) = keep(kind, item) {
                    listed.items.entry(id).or_insert((kept, line));
                }
            }
        }
        surface.cost = Some(ListCost::of(surface.list(Kind::Tool)));
        surface
    }
}
