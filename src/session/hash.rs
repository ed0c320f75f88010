//! The session's hash tables. They hash with foldhash: ids are short and
//! many, and SipHash (std's default) cost a tenth of `check`'s time.

type Hasher = foldhash::fast::RandomState;
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, Hasher>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, Hasher>;
