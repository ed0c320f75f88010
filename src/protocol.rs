//! Protocol facts: the revisions, the eras and the method table.
//!
//! This module is data. It knows what the MCP specification says per revision
//! (who sends which method, whether it is a request or a notification, in which
//! revisions it exists) and nothing about transcripts, findings or output.

use std::fmt;

/// A released MCP protocol revision, ordered by date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

impl Revision {
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The newest released revision.
    pub const LATEST: Revision = Revision::V2026_07_28;

    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a protocol version string as it appears on the wire.
    /// `draft` is accepted as an alias of 2026-07-28 (the two are identical).
    pub fn parse(s: &str) -> Option<Revision> {
        if s == "draft" {
            return Some(Revision::V2026_07_28);
        }
        Revision::ALL.into_iter().find(|r| r.as_str() == s)
    }

    pub fn era(self) -> Era {
        if self >= Revision::V2026_07_28 {
            Era::Modern
        } else {
            Era::Legacy
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Legacy sessions open with the `initialize` handshake (2024-11-05 .. 2025-11-25);
/// modern ones (2026-07-28) carry the version in every request's `_meta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Modern,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

/// Whether a method is a request (expects a response) or a notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Request,
    Notification,
}

/// Which side may send a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sender {
    Client,
    Server,
    Either,
}

/// One row of the method table.
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    pub name: &'static str,
    pub shape: Shape,
    pub sender: Sender,
    /// First revision that has the method.
    pub since: Revision,
    /// Last revision that has the method (`None`: still present).
    pub until: Option<Revision>,
}

impl MethodInfo {
    pub fn in_revision(&self, rev: Revision) -> bool {
        rev >= self.since && self.until.is_none_or(|u| rev <= u)
    }
}

const fn m(
    name: &'static str,
    shape: Shape,
    sender: Sender,
    since: Revision,
    until: Option<Revision>,
) -> MethodInfo {
    MethodInfo {
        name,
        shape,
        sender,
        since,
        until,
    }
}

use Revision::*;
use Sender::{Client as C, Either as E, Server as S};
use Shape::{Notification as N, Request as R};

const LEGACY: Option<Revision> = Some(V2025_11_25);

/// The method table (PROTOCOL.md section 4). Directions are those of the legacy
/// era; the 2026 restrictions (no server requests) are era rules, not table rows.
#[rustfmt::skip]
pub const METHODS: &[MethodInfo] = &[
    m("initialize", R, C, V2024_11_05, LEGACY),
    m("notifications/initialized", N, C, V2024_11_05, LEGACY),
    m("ping", R, E, V2024_11_05, LEGACY),
    m("notifications/cancelled", N, E, V2024_11_05, None),
    m("notifications/progress", N, E, V2024_11_05, None),
    m("logging/setLevel", R, C, V2024_11_05, LEGACY),
    m("notifications/message", N, S, V2024_11_05, None),
    m("completion/complete", R, C, V2024_11_05, None),
    m("prompts/list", R, C, V2024_11_05, None),
    m("prompts/get", R, C, V2024_11_05, None),
    m("notifications/prompts/list_changed", N, S, V2024_11_05, None),
    m("resources/list", R, C, V2024_11_05, None),
    m("resources/templates/list", R, C, V2024_11_05, None),
    m("resources/read", R, C, V2024_11_05, None),
    m("resources/subscribe", R, C, V2024_11_05, LEGACY),
    m("resources/unsubscribe", R, C, V2024_11_05, LEGACY),
    m("notifications/resources/updated", N, S, V2024_11_05, None),
    m("notifications/resources/list_changed", N, S, V2024_11_05, None),
    m("tools/list", R, C, V2024_11_05, None),
    m("tools/call", R, C, V2024_11_05, None),
    m("notifications/tools/list_changed", N, S, V2024_11_05, None),
    m("sampling/createMessage", R, S, V2024_11_05, LEGACY),
    m("roots/list", R, S, V2024_11_05, LEGACY),
    m("notifications/roots/list_changed", N, C, V2024_11_05, LEGACY),
    m("elicitation/create", R, S, V2025_06_18, LEGACY),
    m("notifications/elicitation/complete", N, S, V2025_11_25, LEGACY),
    m("tasks/get", R, E, V2025_11_25, None),
    m("tasks/result", R, E, V2025_11_25, LEGACY),
    m("tasks/list", R, E, V2025_11_25, LEGACY),
    m("tasks/cancel", R, E, V2025_11_25, None),
    m("tasks/update", R, C, V2026_07_28, None),
    m("notifications/tasks/status", N, E, V2025_11_25, LEGACY),
    m("server/discover", R, C, V2026_07_28, None),
    m("subscriptions/listen", R, C, V2026_07_28, None),
    m("notifications/subscriptions/acknowledged", N, S, V2026_07_28, None),
];

/// Looks a method up in the table: one slot of [`BY_NAME`], one comparison
/// (asked for every request and notification, up to three times for a
/// request; the table searched in order cost a comparison of lengths per
/// row before the name's, about a hundred instructions for `tools/call`).
pub fn method(name: &str) -> Option<&'static MethodInfo> {
    let row = BY_NAME.slots[slot(signature(name.as_bytes()), BY_NAME.multiplier)];
    let info = METHODS.get(usize::from(row).checked_sub(1)?)?;
    (info.name == name).then_some(info)
}

/// The method table's rows by a hash of each name's [`signature`]: slot ->
/// row + 1 (0: no row), with the multiplier that spreads the table's names
/// over distinct slots, found when the crate is compiled ([`by_name`]).
struct ByName {
    multiplier: u32,
    slots: [u8; 1 << SLOT_BITS],
}

/// 128 slots for the table's 35 names: a multiplier that spreads them is
/// found in a few hundred tries.
const SLOT_BITS: u32 = 7;

static BY_NAME: ByName = by_name();

/// What tells the table's names apart in a few bytes: the length, the
/// fourth byte and the fifteenth (the first after `notifications/`) or,
/// in a shorter name, the last. Names the table does not have may share a
/// signature with one it has: [`method`] compares the name itself.
const fn signature(name: &[u8]) -> u32 {
    let len = name.len();
    if len < 4 {
        return len as u32;
    }
    let late = if len > 14 { name[14] } else { name[len - 1] };
    (len as u32 & 0xff) | (name[3] as u32) << 8 | (late as u32) << 16
}

const fn slot(signature: u32, multiplier: u32) -> usize {
    (signature.wrapping_mul(multiplier) >> (32 - SLOT_BITS)) as usize
}

/// Builds [`BY_NAME`] at compile time: tries odd multipliers until every
/// name of [`METHODS`] has a slot of its own. A row added with the
/// signature of another fails the build here (then [`signature`] needs
/// another byte).
const fn by_name() -> ByName {
    assert!(METHODS.len() < u8::MAX as usize, "a row number fits a byte");
    let mut i = 0;
    while i < METHODS.len() {
        let mut j = i + 1;
        while j < METHODS.len() {
            assert!(
                signature(METHODS[i].name.as_bytes()) != signature(METHODS[j].name.as_bytes()),
                "two methods of the table share a signature"
            );
            j += 1;
        }
        i += 1;
    }
    let mut multiplier: u32 = 0x9e37_79b9;
    let mut tries = 0;
    while tries < 100_000 {
        let mut slots = [0u8; 1 << SLOT_BITS];
        let mut row = 0;
        while row < METHODS.len() {
            let at = slot(signature(METHODS[row].name.as_bytes()), multiplier);
            if slots[at] != 0 {
                break;
            }
            slots[at] = row as u8 + 1;
            row += 1;
        }
        if row == METHODS.len() {
            return ByName { multiplier, slots };
        }
        multiplier = multiplier.wrapping_add(2);
        tries += 1;
    }
    panic!("no multiplier spreads the method table over the slots");
}

/// Methods outside the table that are clearly custom or extension methods and
/// so are not reported as unknown: a reverse-DNS first segment
/// (`com.example/op`), `experimental/` and `x-` prefixes, and JSON-RPC's
/// reserved `rpc.` prefix.
pub fn is_extension_method(name: &str) -> bool {
    let first = name.split('/').next().unwrap_or(name);
    (name.contains('/') && first.contains('.'))
        || name.starts_with("experimental/")
        || name.starts_with("x-")
        || name.starts_with("rpc.")
}

/// A known method that `name` was probably meant to be: equal ignoring case,
/// or within a small edit distance.
pub fn did_you_mean(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if let Some(m) = METHODS
        .iter()
        .find(|m| m.name.to_ascii_lowercase() == lower)
    {
        return Some(m.name);
    }
    let limit = if name.len() <= 6 { 1 } else { 2 };
    METHODS
        .iter()
        .map(|m| (edit_distance(&lower, &m.name.to_ascii_lowercase()), m.name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Levenshtein distance between a name from the log and a known method;
/// names of very different or absurd lengths are not compared at all.
fn edit_distance(a: &str, b: &str) -> usize {
    if a.len().abs_diff(b.len()) > 2 || a.len() > 256 || b.len() > 256 {
        return usize::MAX;
    }
    strsim::levenshtein(a, b)
}

/// The `_meta` key that carries the protocol version on every 2026 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key with the client's capabilities on every 2026 request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key that ties a 2026 notification to its `subscriptions/listen`.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The `_meta` key with the client's name and version (2026, SHOULD).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key with the server's name and version on results (2026, SHOULD).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Error codes that mark a modern server answering `server/discover`:
/// `UnsupportedProtocolVersion` (and its pre-release number).
pub fn is_modern_discover_error(code: i64) -> bool {
    code == -32022 || code == -32004
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row is found by its name, and only by it.
    #[test]
    fn every_method_is_found_by_its_name() {
        for info in METHODS {
            assert_eq!(method(info.name).map(|m| m.name), Some(info.name));
            for other in [
                info.name.to_uppercase(),
                format!("{}x", info.name),
                info.name[1..].to_string(),
            ] {
                assert!(method(&other).is_none(), "{other}");
            }
        }
        for name in ["", "x", "abc", "pong", "tools/cal", "notifications/other"] {
            assert!(method(name).is_none(), "{name}");
        }
    }

    #[test]
    fn revisions_parse_and_order() {
        for r in Revision::ALL {
            assert_eq!(Revision::parse(r.as_str()), Some(r));
        }
        assert_eq!(Revision::parse("draft"), Some(Revision::V2026_07_28));
        assert_eq!(Revision::parse("2024-10-07"), None);
        assert!(Revision::V2025_03_26 < Revision::V2025_06_18);
        assert_eq!(Revision::V2025_11_25.era(), Era::Legacy);
        assert_eq!(Revision::V2026_07_28.era(), Era::Modern);
    }

    #[test]
    fn method_names_are_unique() {
        for (i, a) in METHODS.iter().enumerate() {
            for b in &METHODS[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("tools/List"), Some("tools/list"));
        assert_eq!(did_you_mean("tool/call"), Some("tools/call"));
        assert_eq!(
            did_you_mean("notifications/initialised"),
            Some("notifications/initialized")
        );
        assert_eq!(did_you_mean("weather/forecast"), None);
    }

    #[test]
    fn extension_methods() {
        assert!(is_extension_method("com.example/frobnicate"));
        assert!(is_extension_method("experimental/thing"));
        assert!(!is_extension_method("tools/lst"));
        assert!(!is_extension_method("foo"));
    }

    #[test]
    fn gates() {
        let ping = method("ping").unwrap();
        assert!(ping.in_revision(Revision::V2025_11_25));
        assert!(!ping.in_revision(Revision::V2026_07_28));
        let discover = method("server/discover").unwrap();
        assert!(!discover.in_revision(Revision::V2025_11_25));
    }
}
