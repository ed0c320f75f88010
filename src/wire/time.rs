//! Timestamps as the log writes them, with their parsed value.

use chrono::{DateTime, FixedOffset};

use crate::text::InlineText;

/// Where and when something was seen.
#[derive(Clone, Debug, PartialEq)]
pub struct At {
    pub line: u64,
    pub time: Option<Timestamp>,
}

/// A timestamp as written in the log, with its parsed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// The text exactly as written (zone and precision kept).
    pub text: StampText,
    pub at: DateTime<FixedOffset>,
}

/// How many bytes of a timestamp's text are kept in place (an RFC 3339 time
/// with nanoseconds and an offset takes 35).
const INLINE: usize = 38;

/// A timestamp's text: kept in place when short, as every log's times are,
/// so that a record's time costs no allocation. Records are read on one
/// thread and checked on another (see [`crate::pipeline`]), and the session
/// keeps a copy of the last time: a text on the heap was allocated on the
/// reading thread and freed on the checking one, once per record, which
/// cost more than reading the time. Reads as a `str`.
pub type StampText = InlineText<INLINE>;

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
        let naive = match local_digits(text.as_bytes()) {
            Some(naive) => naive,
            None => chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").ok()?,
        };
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

/// The usual local time, `YYYY-MM-DD HH:MM:SS` with up to 9 digits of a
/// fraction, read digit by digit (chrono's format parser costs about 2,700
/// instructions a line, more than the rest of a host log's prefix). `None`
/// for anything else, which chrono then reads (or refuses) as before: a
/// leap second, a signed or longer year, a longer fraction.
fn local_digits(b: &[u8]) -> Option<chrono::NaiveDateTime> {
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        b[range].iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let nanos = match &b[19..] {
        [] => 0,
        [b'.', digits @ ..] if (1..=9).contains(&digits.len()) => {
            num(20..b.len())? * 10u32.pow(9 - digits.len() as u32)
        }
        _ => return None,
    };
    let second = num(17..19)?;
    if second > 59 {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let time = chrono::NaiveTime::from_hms_nano_opt(num(11..13)?, num(14..16)?, second, nanos)?;
    Some(date.and_time(time))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_local(text: &str) -> Option<chrono::NaiveDateTime> {
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").ok()
    }

    #[test]
    fn stamp_texts_read_as_written_in_place_or_not() {
        let long = "2026-10-05 09:49:21.376 (+12 ms) \u{e9}\u{e9}\u{e9}";
        for text in [
            "",
            "2026-10-05T09:49:21.376Z",
            "2026-03-01T10:00:00.123456789+02:00",
            &"9".repeat(INLINE),
            &"9".repeat(INLINE + 1),
            long,
        ] {
            let stamp = StampText::from(text);
            assert_eq!(stamp.as_str(), text);
            assert_eq!(StampText::from(text.to_owned()), stamp);
            assert_eq!(format!("{stamp}"), text);
            assert_eq!(format!("{stamp:?}"), format!("{text:?}"));
            assert_eq!(stamp.is_inline(), text.len() <= INLINE, "{text}");
        }
    }

    #[test]
    fn local_times_read_by_digits_are_read_as_chrono_reads_them() {
        for text in [
            "2026-10-05 09:49:21.376",
            "2026-10-05 09:49:21",
            "2026-10-05 09:49:21.1",
            "2026-10-05 09:49:21.123456789",
            "0001-01-01 00:00:00.000",
            "2024-02-29 23:59:59.999",
            "1970-01-01 12:00:00.5",
        ] {
            assert_eq!(local_digits(text.as_bytes()), chrono_local(text), "{text}");
            assert!(local_digits(text.as_bytes()).is_some(), "{text}");
        }
        // Not a time: neither reads it.
        for text in [
            "2025-02-29 10:00:00.000",
            "2026-13-01 10:00:00",
            "2026-10-05 24:00:00",
            "2026-10-05 09:60:00",
            "2026-10-05 09:49:2x.376",
            "2026-10-05 09:49:21.",
            "2026-10-05 09:49:21.37a",
            "2026-10-05T09:49:21.376",
            "2026-10-05 09:49:21 ",
        ] {
            assert_eq!(local_digits(text.as_bytes()), None, "{text}");
            assert_eq!(
                Timestamp::parse_local(text).map(|t| t.at),
                chrono_local(text).map(|n| n.and_utc().fixed_offset()),
                "{text}"
            );
        }
        // What the digits leave to chrono, chrono still reads.
        for text in ["2026-10-05 09:49:21.1234567891", "2016-12-31 23:59:60.5"] {
            assert_eq!(local_digits(text.as_bytes()), None, "{text}");
            assert_eq!(
                Timestamp::parse_local(text).map(|t| t.at),
                chrono_local(text).map(|n| n.and_utc().fixed_offset()),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_local_time_of_the_usual_shape_reads_as_chrono_reads_it(
            y in 0u32..10000, mo in 0u32..14, d in 0u32..33, h in 0u32..25, mi in 0u32..61,
            s in 0u32..61, frac in proptest::option::of("[0-9]{1,9}"),
        ) {
            let text = format!(
                "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{}",
                frac.map(|f| format!(".{f}")).unwrap_or_default()
            );
            proptest::prop_assert_eq!(
                Timestamp::parse_local(&text).map(|t| t.at),
                chrono_local(&text).map(|n| n.and_utc().fixed_offset()),
                "{}", text
            );
        }
    }
}
