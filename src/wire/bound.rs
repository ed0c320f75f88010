//! What one line of JSON may cost: the caps the parser applies to arrays as
//! it reads them, so that a line's structure cannot multiply its size in
//! memory (each JSON value built is an 80-byte node: a line of 1.5 million
//! zeros cost 37 times its size, a batch of 500,000 notifications 473 MiB).
//!
//! - A batch (a line that is an array) has its first [`BATCH_ANALYSED`]
//!   members read and analysed; the rest are checked (JSON grammar) and
//!   counted, not built, and `batch-too-large` reports them.
//! - An array inside `params` or `result` whose first [`TRIVIAL_KEPT`]
//!   elements are all scalars or empty objects or arrays stands in as those
//!   elements: the rest are checked and counted, not built. No rule reads
//!   such a tail; the message keeps its line, so that whatever shows or
//!   compares it whole (the views, `diff`, `--schema-check`) reads it again.

use serde_core::de::{DeserializeSeed, IgnoredAny, SeqAccess};
use serde_json::Value;

/// How many members of a batch are analysed.
pub const BATCH_ANALYSED: usize = 1000;

/// How many leading scalars (or empty objects and arrays) of an array in
/// `params` or `result` are kept when the array is longer.
pub const TRIVIAL_KEPT: usize = 1000;

/// Whether a value costs only its node: a scalar, `{}` or `[]`.
pub fn is_trivial(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => true,
    }
}

/// Reads the elements of `seq` with `seed`. Once `keep` elements are read
/// and `cut(&elements)` agrees, the rest are skipped (their grammar
/// checked) and counted: the elements read and how many were skipped.
pub fn read_seq<'de, A, S>(
    seq: &mut A,
    seed: S,
    keep: usize,
    cut: impl Fn(&[S::Value]) -> bool,
) -> Result<(Vec<S::Value>, u64), A::Error>
where
    A: SeqAccess<'de>,
    S: DeserializeSeed<'de> + Copy,
{
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
    while let Some(item) = seq.next_element_seed(seed)? {
        items.push(item);
        if items.len() == keep && cut(&items) {
            let mut skipped = 0u64;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                skipped += 1;
            }
            return Ok((items, skipped));
        }
    }
    Ok((items, 0))
}
