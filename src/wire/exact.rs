//! Numbers kept as written in the JSON outputs.
//!
//! serde_json holds a number as a 64-bit integer or a double, so an id
//! like `123456789012345678901234567890` would come out of a JSON output
//! as `1.2345678901234568e29`: another id. A number whose value a double
//! does not hold travels through a [`Value`] as a marked string (a prefix
//! with a random key per run, which no log can guess, then the number's
//! text), and [`to_writer`], [`to_writer_pretty`] and [`to_string`] write
//! it back as the number it was. Every JSON output is written by them.

use std::io;
use std::sync::OnceLock;

use serde_core::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The marker's prefix: a noncharacter and a key drawn once per run.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let draw = || {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(std::process::id().into());
            h.finish()
        };
        format!("\u{10FFFF}mcpdbg-exact-{:016x}{:016x}:", draw(), draw())
    })
}

/// The number written `text` as a value: itself when a 64-bit integer or a
/// double holds it, else marked so that the JSON outputs write `text`.
/// Text that is no JSON number stays a string.
pub fn number(text: &str) -> Value {
    if is_inexact(text) {
        return Value::String(format!("{}{text}", prefix()));
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// The number a marked value stands for (its text), if it is one.
pub fn marked(v: &str) -> Option<&str> {
    v.strip_prefix(prefix())
}

/// Whether serde_json would change the value of the number token `token`:
/// an integer beyond 64 bits, or a decimal a double does not hold (more
/// digits than a double keeps, or beyond its range).
pub fn is_inexact(token: &str) -> bool {
    // Up to 16 characters without an exponent: an integer of 64 bits or a
    // decimal of at most 15 digits, which a double gives back as written.
    if token.len() <= 16 && !token.contains(['e', 'E']) {
        return false;
    }
    let digits = token.strip_prefix('-').unwrap_or(token);
    if digits.is_empty() {
        return false;
    }
    if digits.bytes().all(|c| c.is_ascii_digit()) {
        return token.parse::<i64>().is_err() && token.parse::<u64>().is_err();
    }
    let Ok(f) = token.parse::<f64>() else {
        return false;
    };
    if !f.is_finite() {
        return true;
    }
    let printed = match serde_json::Number::from_f64(f) {
        Some(n) => n.to_string(),
        None => return true,
    };
    decimal(token) != decimal(&printed)
}

/// A decimal number's value as (negative, significant digits, position of
/// the decimal point before them): `1.50`, `15e-1` and `0.15e1` are equal.
fn decimal(token: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (
            &rest[..i],
            rest[i + 1..].trim_start_matches('+').parse::<i64>().ok()?,
        ),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let trimmed = all.trim_start_matches('0');
    let point = (int.len() as i64)
        .saturating_add(exponent)
        .saturating_sub((all.len() - trimmed.len()) as i64);
    let digits = trimmed.trim_end_matches('0');
    if digits.is_empty() {
        return Some((false, String::new(), 0));
    }
    Some((negative, digits.to_owned(), point))
}

/// Parses JSON text with each number that serde_json would change marked
/// (see [`number`]), so that the JSON outputs show it as written.
pub fn parse(text: &str) -> serde_json::Result<Value> {
    match marked_text(text) {
        Some(marked) => serde_json::from_str(&marked),
        None => serde_json::from_str(text),
    }
}

/// The text with each inexact number token replaced by its marked string
/// (so that serde_json reads it as such); `None` when it has none.
pub fn marked_text(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut copied = 0;
    tokens(text, |start, token| {
        if is_inexact(token) {
            out.push_str(&text[copied..start]);
            out.push('"');
            out.push_str(prefix());
            out.push_str(token);
            out.push('"');
            copied = start + token.len();
        }
        false
    });
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied.min(text.len())..]);
    Some(out)
}

/// The texts of the first `n` members of the JSON array `text` (the others
/// are skipped, not kept); empty when it is no array.
pub fn first_members(text: &str, n: usize) -> Vec<&str> {
    struct First(usize);
    impl<'de> serde_core::de::Visitor<'de> for First {
        type Value = Vec<&'de str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: serde_core::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(self.0.min(64));
            while out.len() < self.0 {
                match seq.next_element::<&'de RawValue>()? {
                    Some(raw) => out.push(raw.get()),
                    None => return Ok(out),
                }
            }
            while seq.next_element::<serde_core::de::IgnoredAny>()?.is_some() {}
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde_core::de::Deserializer::deserialize_seq(&mut de, First(n)).unwrap_or_default()
}

/// Calls `f(start, token)` for each number token outside string literals,
/// until it returns `true`.
fn tokens(text: &str, mut f: impl FnMut(usize, &str) -> bool) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
                        // The string runs to the end of the text.
                        None => return,
                        Some(at) if b[i + at] == b'"' => {
                            i += at + 1;
                            break;
                        }
                        Some(at) => i += at + 2,
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i = crate::wire::lex::number_end(b, i);
                // A token cut by a stray byte is no number to mark.
                if let Some(token) = text.get(start..i) {
                    if f(start, token) {
                        return;
                    }
                }
            }
            _ => i += 1,
        }
    }
}

/// A value serialized with its marked numbers written as numbers.
pub struct Exact<'a>(pub &'a Value);

impl Serialize for Exact<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::String(text) => match marked(text)
                .filter(|t| is_inexact(t))
                .and_then(|t| RawValue::from_string(t.to_owned()).ok())
            {
                Some(raw) => raw.serialize(s),
                None => s.serialize_str(text),
            },
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Exact(item))?;
                }
                seq.end()
            }
            Value::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, &Exact(v))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

/// [`serde_json::to_writer`], marked numbers written as numbers.
pub fn to_writer(out: impl io::Write, v: &Value) -> serde_json::Result<()> {
    serde_json::to_writer(out, &Exact(v))
}

/// [`serde_json::to_writer_pretty`], marked numbers written as numbers.
pub fn to_writer_pretty(out: impl io::Write, v: &Value) -> serde_json::Result<()> {
    serde_json::to_writer_pretty(out, &Exact(v))
}

/// [`serde_json::to_vec`], marked numbers written as numbers.
pub fn to_vec(v: &Value) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&Exact(v))
}

/// `v.to_string()`, marked numbers written as numbers.
pub fn to_string(v: &Value) -> String {
    serde_json::to_string(&Exact(v)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_a_double_does_not_hold_are_written_as_they_came() {
        let id = "123456789012345678901234567890";
        let doc = serde_json::json!({"id": number(id), "ids": [number("-18446744073709551617")], "n": number("7")});
        assert_eq!(
            to_string(&doc),
            format!(r#"{{"id":{id},"ids":[-18446744073709551617],"n":7}}"#)
        );
        let mut pretty = Vec::new();
        to_writer_pretty(&mut pretty, &doc).unwrap();
        assert!(
            String::from_utf8(pretty)
                .unwrap()
                .contains(&format!("\"id\": {id},"))
        );
        // What a double holds is a plain number, however it was written.
        for exact in [
            "1",
            "-0",
            "1.5",
            "1e3",
            "0.1",
            "1.50",
            "18446744073709551615",
            "1e300",
        ] {
            assert!(!is_inexact(exact), "{exact}");
            assert!(!matches!(number(exact), Value::String(_)), "{exact}");
        }
        for inexact in [
            "18446744073709551616",
            "0.12345678901234567890123",
            "1e400",
            "-1e-400",
        ] {
            assert!(is_inexact(inexact), "{inexact}");
        }
        // A string from a log that looks like a marker without its key is
        // only a string.
        let forged = Value::String(format!("\u{10FFFF}mcpdbg-exact-0:{id}"));
        assert_eq!(to_string(&forged), serde_json::to_string(&forged).unwrap());
    }

    #[test]
    fn only_numbers_outside_strings_are_marked() {
        let big = "123456789012345678901234567890";
        // Digits in strings, escaped quotes, keys: not numbers.
        let quiet = format!(r#"{{"{big}":"{big}","s":"a\"{big}","n":[1,2.5,-3e2]}}"#);
        assert_eq!(marked_text(&quiet), None, "{quiet}");
        let loud = format!(r#"{{"s":"x\\","n":{big},"f":0.12345678901234567890123}}"#);
        assert!(marked_text(&loud).is_some());
        let v = parse(&loud).unwrap();
        assert_eq!(to_string(&v), loud);
        assert_eq!(marked(v["n"].as_str().unwrap()), Some(big));
        // A string that never ends hides what follows it.
        assert_eq!(marked_text(&format!(r#"{{"s":"{big} {big}"#)), None);
        assert_eq!(marked_text(r#"{"s":"\"#), None);
    }

    #[test]
    fn first_members_reads_no_further_than_asked() {
        assert_eq!(
            first_members(r#"[{"a":1}, 2 ,"x",[3]]"#, 2),
            vec![r#"{"a":1}"#, "2"]
        );
        assert_eq!(first_members("[1]", 5), vec!["1"]);
        assert!(first_members(r#"{"a":1}"#, 5).is_empty());
    }

    #[test]
    fn parse_marks_what_would_change() {
        let text = r#"{"a":123456789012345678901234567890,"s":"1234567890123456789012345","b":[1.5,2,-99999999999999999999]}"#;
        let v = parse(text).unwrap();
        assert_eq!(to_string(&v), text);
        assert_eq!(v["s"], "1234567890123456789012345");
        assert_eq!(v["b"][1], 2);
        // Nothing to mark: the same value serde_json gives.
        assert_eq!(
            parse(r#"{"a":[1,"x\"1e999"]}"#).unwrap(),
            serde_json::json!({"a":[1,"x\"1e999"]})
        );
    }
}
