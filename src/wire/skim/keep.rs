//! What the skim parsers keep and cut: the payload keys, the sizes, the
//! places in a message whose members stand in for subtrees, the busy
//! notifications whose `params` are picked, and how an `id` is read. Shared
//! by the skim parser (`skim.rs`) and its short-line reader (`fast.rs`), so
//! that neither reaches into the other for them.

use serde_json::Value;

/// The notifications whose `params` the checks read only a few members of:
/// most of a busy session's messages (a progress bar, a server's log lines).
/// Their other members are skipped, not built ([`Place::Picked`]); the
/// message keeps its line for what reads it whole (views, `--schema-check`,
/// `--redact`), as a message with a cut string does.
pub(crate) const PICKED_METHODS: [&str; 2] = ["notifications/progress", "notifications/message"];
/// The members of those `params` the session and the checks read: the
/// progress token and value, and `_meta`.
pub(crate) const PICKED: [&str; 3] = ["progressToken", "progress", "_meta"];
/// A tool call's `arguments` are read only by `--schema-check` (from the
/// whole message) and for whether they are an object: an object stands as
/// `{}` ([`Place::Call`]), and the message keeps its line.
pub(crate) const CALL: &str = "tools/call";

/// Strings under these keys inside `params` or `result` are payload (a text
/// block, base64 data, a resource's text or blob).
pub(crate) const BULK_KEYS: [&str; 3] = ["text", "data", "blob"];
/// A payload string longer than this (as written, with its escapes) is cut.
pub const SKIM_MIN_BYTES: usize = 512;
/// How many characters of a cut string are kept (for excerpts).
pub const SKIM_KEEP_CHARS: usize = 64;
/// Lines shorter than this are parsed as they are (nothing worth taking out).
pub(crate) const EXCISE_MIN_LINE: usize = 4 * SKIM_MIN_BYTES;
/// Lines shorter than this may be read by the short-line reader (`fast.rs`),
/// which cuts payload strings as the skim parser does; a longer line is
/// most likely a large subtree, which the skim parser stands in for.
pub(crate) const FAST_MAX_LINE: usize = 64 * 1024;

/// The value of a message's `id` member, given as written: an integer of
/// up to 18 digits is read directly; one beyond 64 bits stands as the
/// nearest double, with its exact text beside it.
pub(crate) fn id_value(raw: &str) -> Result<(Value, Option<String>), serde_json::Error> {
    match integer(raw) {
        Some(Integer::Fits(n)) => Ok((n, None)),
        Some(Integer::Beyond) => {
            let f: f64 = raw.parse().unwrap_or(f64::INFINITY);
            Ok((
                Value::from(f.clamp(f64::MIN, f64::MAX)),
                Some(raw.to_owned()),
            ))
        }
        None => Ok((serde_json::from_str(raw)?, None)),
    }
}

/// Whether `raw`, a JSON value as written, is an integer that fits
/// neither `i64` nor `u64` (which [`id_value`] reads as the nearest double
/// with its text beside it). Not a value built: the short-line reader
/// asks it of every `id`.
pub(crate) fn is_big_integer(raw: &str) -> bool {
    // Eighteen digits fit an i64.
    raw.strip_prefix('-').unwrap_or(raw).len() > 18 && matches!(integer(raw), Some(Integer::Beyond))
}

/// An integer as written (digits, and a `-` before them).
enum Integer {
    /// It fits an `i64` or a `u64`.
    Fits(Value),
    /// It fits neither.
    Beyond,
}

/// `raw` read as an [`Integer`] (`None`: not one).
fn integer(raw: &str) -> Option<Integer> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if let Ok(n) = raw.parse::<i64>() {
        return Some(Integer::Fits(Value::from(n)));
    }
    if let Ok(n) = raw.parse::<u64>() {
        return Some(Integer::Fits(Value::from(n)));
    }
    Some(Integer::Beyond)
}

/// Where a value stands in the message: the members that may stand in for
/// a large subtree are known by their place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The line's outermost value (whose `params` and `result` are skimmed).
    Root,
    /// A member of a batch (its `id` read as written, nothing skimmed).
    Member,
    /// The message's `result` (its `structuredContent` is a subtree).
    Result,
    /// `result.tools`, and one tool in it (its `inputSchema` and
    /// `outputSchema` are subtrees).
    Tools,
    Tool,
    /// The `params` of a busy notification ([`PICKED_METHODS`]): only the
    /// members the checks read are built ([`PICKED`]), the others skipped.
    Picked,
    /// The `params` of a tool call ([`CALL`]): every member built but
    /// `arguments`, read at [`Place::Skipped`].
    Call,
    /// A value the checks ask only the type of: an object is checked but
    /// not built, and stands as `{}`; anything else is built.
    Skipped,
    /// Anywhere else.
    Inner,
}

/// How the `params` of a message whose `method` read so far is `method`
/// (`None`: absent or not a string) may be picked: [`Place::Picked`],
/// [`Place::Call`], or not at all.
pub(crate) fn picking(method: Option<&str>) -> Option<Place> {
    match method {
        Some(m) if PICKED_METHODS.contains(&m) => Some(Place::Picked),
        Some(CALL) => Some(Place::Call),
        _ => None,
    }
}

/// A member that may stand in for a large subtree: `result.structuredContent`
/// (rows of a database-style tool) and a listed tool's `inputSchema` and
/// `outputSchema`. The checks ask only what type they are; what reads them
/// whole (`--schema-check`, the views) asks [`Message::fields`].
///
/// [`Message::fields`]: crate::wire::message::Message::fields
pub(crate) fn is_subtree(at: Place, key: &str) -> bool {
    match at {
        Place::Result => key == "structuredContent",
        Place::Tool => matches!(key, "inputSchema" | "outputSchema"),
        _ => false,
    }
}

/// The first `max` characters of a JSON string literal (quotes included in
/// `raw`), unescaped. `raw` is known to be valid; a lone surrogate becomes
/// U+FFFD.
pub(crate) fn unescape_head(raw: &str, max: usize) -> String {
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
