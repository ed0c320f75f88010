//! Timestamps as the log writes them, with their parsed value.

use chrono::{DateTime, FixedOffset};

/// A timestamp as written in the log, with its parsed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// The text exactly as written (zone and precision kept).
    pub text: Box<str>,
    pub at: DateTime<FixedOffset>,
}

impl Timestamp {
    pub fn parse(text: &str) -> Option<Timestamp> {
        // Cheap shape check before chrono: `YYYY-MM-DDT...`.
        let b = text.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        DateTime::parse_from_rfc3339(text).ok().map(|at| Timestamp {
            text: text.into(),
            at,
        })
    }

    /// A local time without a zone (`2026-10-05 09:49:21.376`), as some hosts
    /// write it. It is read as if it were UTC: differences within one log
    /// are right, and such times are never compared with zoned ones.
    pub fn parse_local(text: &str) -> Option<Timestamp> {
        let naive = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").ok()?;
        Some(Timestamp {
            text: text.into(),
            at: naive.and_utc().fixed_offset(),
        })
    }

    /// Seconds from `self` to `later` (negative if `later` is earlier).
    pub fn seconds_until(&self, later: &Timestamp) -> f64 {
        let d = later.at.signed_duration_since(self.at);
        d.num_microseconds()
            .map(|us| us as f64 / 1e6)
            .unwrap_or_else(|| d.num_milliseconds() as f64 / 1e3)
    }
}
