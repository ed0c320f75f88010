//! The session's hash tables. They hash with foldhash: ids are short and
//! many, and SipHash (std's default) cost a tenth of `check`'s time.

type Hasher = foldhash::fast::RandomState;
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, Hasher>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, Hasher>;
/// A table asked with borrowed keys (`indexmap::Equivalent`): ids read
/// from a message, looked up without copying them
/// ([`crate::wire::message::IdRef`]).
pub(crate) type IndexMap<K, V> = indexmap::IndexMap<K, V, Hasher>;

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

/// FNV-1a, 64 bits: small, and the same on every platform and release
/// (std's hashers promise neither): SARIF's fingerprints and the OTLP
/// export's trace and span ids, the same from run to run.
pub(crate) struct Fnv(pub(crate) u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Adds one field and a separator byte that UTF-8 never contains.
    pub(crate) fn field(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain(&[0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
