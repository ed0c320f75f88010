//! The bare skip-parse baseline for `scripts/bench-check`.
//!
//! Reads a native transcript, and for every `> ` or `< ` line (after a
//! timestamp, when the line has one) deserialises
//! only the envelope: `jsonrpc`, `id` (integer or string), `method`, and
//! whether `result` or `error` is present. Everything else is skipped with
//! `IgnoredAny`; strings are borrowed from the line when they have no escapes.
//! No pairing, no rules, no report: the least work any JSON-RPC analysis must
//! do, so `mcpdbg check` can be measured against it.
//!
//! usage: cargo run --release --example skip_parse -- FILE

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::process::ExitCode;

use serde_core::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

/// A string borrowed from the input when it has no escapes (what
/// `#[serde(borrow)] Cow<str>` gives with serde's derive).
struct Str<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON-RPC id: an integer or a string.
enum Id<'a> {
    Int(i64),
    Str(Cow<'a, str>),
}

impl<'de> Deserialize<'de> for Id<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Id<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Id::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                i64::try_from(v)
                    .map(Id::Int)
                    .map_err(|_| E::custom("id out of range"))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Id::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Id::Str(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_any(V)
    }
}

enum Field {
    Jsonrpc,
    Id,
    Method,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(match v {
                    "jsonrpc" => Field::Jsonrpc,
                    "id" => Field::Id,
                    "method" => Field::Method,
                    "result" => Field::Result,
                    "error" => Field::Error,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// The envelope of one message; the rest of it is skipped.
struct Envelope<'a> {
    jsonrpc: Option<Str<'a>>,
    id: Option<Id<'a>>,
    method: Option<Str<'a>>,
    has_result: bool,
    has_error: bool,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Envelope<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON-RPC message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut e = Envelope {
                    jsonrpc: None,
                    id: None,
                    method: None,
                    has_result: false,
                    has_error: false,
                };
                while let Some(key) = map.next_key::<Field>()? {
                    match key {
                        Field::Jsonrpc => e.jsonrpc = Some(map.next_value()?),
                        Field::Id => e.id = Some(map.next_value()?),
                        Field::Method => e.method = Some(map.next_value()?),
                        Field::Result => {
                            map.next_value::<IgnoredAny>()?;
                            e.has_result = true;
                        }
                        Field::Error => {
                            map.next_value::<IgnoredAny>()?;
                            e.has_error = true;
                        }
                        Field::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(e)
            }
        }
        d.deserialize_map(V)
    }
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: skip_parse FILE");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("skip_parse: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::with_capacity(1 << 16);
    let (mut bytes, mut messages, mut invalid) = (0u64, 0u64, 0u64);
    let (mut requests, mut notifications, mut responses, mut bad_version) = (0u64, 0, 0, 0);
    let mut id_sum = 0i64;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(n) => bytes += n as u64,
            Err(e) => {
                eprintln!("skip_parse: {e}");
                return ExitCode::from(2);
            }
        }
        // An RFC 3339 timestamp and a space may come first (the noisy
        // shape's lines): skipped as the least a reader must do.
        let start = if line.first().is_some_and(u8::is_ascii_digit) {
            memchr::memchr(b' ', &line).map_or(line.len(), |i| i + 1)
        } else {
            0
        };
        let body = &line[start..];
        if !(body.starts_with(b"> ") || body.starts_with(b"< ")) {
            continue;
        }
        messages += 1;
        let Ok(msg) = serde_json::from_slice::<Envelope>(&body[2..]) else {
            invalid += 1;
            continue;
        };
        if msg.jsonrpc.as_ref().is_none_or(|v| v.0 != "2.0") {
            bad_version += 1;
        }
        match (&msg.method, &msg.id) {
            (Some(_), Some(_)) => requests += 1,
            (Some(_), None) => notifications += 1,
            (None, _) if msg.has_result || msg.has_error => responses += 1,
            (None, _) => invalid += 1,
        }
        match msg.id {
            Some(Id::Int(i)) => id_sum = id_sum.wrapping_add(i),
            Some(Id::Str(s)) => id_sum = id_sum.wrapping_add(s.len() as i64),
            None => {}
        }
    }
    println!(
        "{messages} messages, {bytes} bytes: {requests} requests, {notifications} notifications, \
         {responses} responses, {invalid} invalid, {bad_version} without jsonrpc 2.0 (id checksum {id_sum})"
    );
    ExitCode::SUCCESS
}
