//! The session's hash tables. They hash with foldhash: ids are short and
//! many, and SipHash (std's default) cost a tenth of `check`'s time.

type Hasher = foldhash::fast::RandomState;
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, Hasher>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, Hasher>;

/// Inserts into a table kept below `cap` entries (emptied when full: what
/// it remembers is the recent past).
pub(crate) fn bounded_insert<K: std::hash::Hash + Eq, V>(
    map: &mut HashMap<K, V>,
    cap: usize,
    key: K,
    value: V,
) {
    if map.len() >= cap {
        map.clear();
    }
    map.insert(key, value);
}
