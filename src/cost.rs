//! What a server's tools cost a model's context: every tool definition a
//! server lists is sent to the model with every request, and every tool
//! result is added to the conversation. Measured here, the one place that
//! says what is counted (docs/guide.md, "Tool context cost"):
//!
//! - a tool's definition: the JSON object of its `name`, `title`,
//!   `description`, `inputSchema`, `outputSchema` and `annotations`
//!   members, those it has, in the order the server listed them, written
//!   compactly as a host that parses the list writes it again
//!   (serde_json's compact form: no whitespace, strings escaped minimally
//!   with non-ASCII text as UTF-8, numbers as a double holds them, so
//!   `874.30` is `874.3`). `_meta`,
//!   `icons`, `execution` and any other member are for the host, not the
//!   model, and are not counted;
//! - a tool's result: the `result` member of a `tools/call` response,
//!   written the same way (an error response has none: not counted);
//! - tokens: estimated at [`BYTES_PER_TOKEN`] bytes per token (rounded up,
//!   per definition and per result; a total is the sum of its parts), or,
//!   in a build with the `tokenizer` feature and `--tokens ENCODING`,
//!   counted exactly on that text by an OpenAI encoding. A host renders
//!   definitions into its own prompt format, so the true figure differs by
//!   host either way: these are the figures of the JSON the server sent.
//!
//! A message the reader cut (a long string, a long array of scalars: see
//! `wire/bound.rs`) is measured from its line as it is read
//! ([`result_of_text`], [`listed_of_text`]), never built whole: the same
//! bytes, in memory bounded by the minified text (not even that for the
//! estimate). Only a member given twice in one object differs: the parsed
//! object keeps one, the read text counts both.
//!
//! [`ToolCosts`] is the bounded table `stats` and `probe` keep: at most
//! [`MAX_TOOLS`] tools by name (the rest summed in one row), and per tool
//! at most [`SAMPLE`] result sizes, exact up to that many calls and a
//! uniform sample after (reservoir sampling with a fixed seed, so the same
//! log gives the same figures). No I/O.

use std::fmt;
use std::io::{self, Write};

use indexmap::IndexMap;
use serde_core::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};

/// The estimate's bytes per token: the usual rule of thumb for English
/// text and JSON under the OpenAI encodings.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The members of a tool counted in its definition, as the server may list
/// them (counted in the order it listed them).
pub const DEFINITION_MEMBERS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The most tools kept by name; the rest are summed in one row.
pub const MAX_TOOLS: usize = 1_000;

/// The most result sizes kept per tool for the median: exact up to this
/// many calls, a uniform sample of this many after.
pub const SAMPLE: usize = 1_000;

/// How tokens are counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// [`BYTES_PER_TOKEN`] bytes per token, rounded up.
    #[default]
    Estimate,
    /// OpenAI's `o200k_base` (GPT-4o and later), with the `tokenizer` feature.
    O200kBase,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5), with the `tokenizer` feature.
    Cl100kBase,
}

impl Tokenizer {
    pub const ALL: [Tokenizer; 3] = [
        Tokenizer::Estimate,
        Tokenizer::O200kBase,
        Tokenizer::Cl100kBase,
    ];

    /// The tokenizer `--tokens` names `name` ([`Tokenizer::as_str`]).
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Tokenizer::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The name in `--tokens` and in the JSON outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Tokenizer::Estimate => "estimate",
            Tokenizer::O200kBase => "o200k_base",
            Tokenizer::Cl100kBase => "cl100k_base",
        }
    }

    /// Whether this build can count with it (exact counts need the
    /// `tokenizer` feature).
    pub fn available(self) -> bool {
        self == Tokenizer::Estimate || cfg!(feature = "tokenizer")
    }

    /// How the tokens were counted, in words (the tables' legend).
    pub fn legend(self) -> String {
        match self {
            Tokenizer::Estimate => {
                format!("tokens estimated at {BYTES_PER_TOKEN} bytes per token")
            }
            exact => format!("tokens counted with {}", exact.as_str()),
        }
    }

    /// The estimate's bytes per token, `None` for an exact count.
    pub fn bytes_per_token(self) -> Option<u64> {
        (self == Tokenizer::Estimate).then_some(BYTES_PER_TOKEN)
    }

    /// The tokens of `text`, minified JSON of `text.len()` bytes.
    fn count(self, text: &[u8]) -> u64 {
        match self {
            Tokenizer::Estimate => estimate(text.len() as u64),
            exact => exact_count(exact, text),
        }
    }
}

/// The estimated tokens of `bytes` bytes.
pub fn estimate(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

#[cfg(feature = "tokenizer")]
fn exact_count(tokenizer: Tokenizer, text: &[u8]) -> u64 {
    use std::sync::OnceLock;
    static O200K: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    static CL100K: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    let bpe = match tokenizer {
        Tokenizer::O200kBase => O200K.get_or_init(|| tiktoken_rs::o200k_base().ok()),
        _ => CL100K.get_or_init(|| tiktoken_rs::cl100k_base().ok()),
    };
    let text = String::from_utf8_lossy(text);
    match bpe {
        // Ordinary text: a tool's description holding `<|endoftext|>` is
        // counted as the text it is, not as a special token.
        Some(bpe) => bpe.encode_ordinary(&text).len() as u64,
        None => estimate(text.len() as u64),
    }
}

#[cfg(not(feature = "tokenizer"))]
fn exact_count(_: Tokenizer, text: &[u8]) -> u64 {
    // Unreachable from the command line, which refuses a tokenizer this
    // build lacks (`Tokenizer::available`); the estimate, not a panic.
    estimate(text.len() as u64)
}

/// The size of one definition or result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub bytes: u64,
    pub tokens: u64,
}

impl Size {
    fn add(&mut self, other: Size) {
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.tokens = self.tokens.saturating_add(other.tokens);
    }
}

/// Counts the bytes written to it.
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes a tool's definition (see the module's header) to `out`.
fn write_definition(tool: &Map<String, Value>, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"{")?;
    let mut first = true;
    for (key, value) in tool {
        if !DEFINITION_MEMBERS.contains(&key.as_str()) {
            continue;
        }
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        serde_json::to_writer(&mut *out, value)?;
    }
    out.write_all(b"}")
}

/// The size of a tool's definition (the members of [`DEFINITION_MEMBERS`]
/// it has, in its order, minified).
pub fn definition(tool: &Map<String, Value>, tokenizer: Tokenizer) -> Size {
    if tokenizer == Tokenizer::Estimate {
        let mut counter = Counter(0);
        // A counter's writes never fail.
        let _ = write_definition(tool, &mut counter);
        return Size {
            bytes: counter.0,
            tokens: estimate(counter.0),
        };
    }
    let mut text = Vec::new();
    let _ = write_definition(tool, &mut text);
    Size {
        bytes: text.len() as u64,
        tokens: tokenizer.count(&text),
    }
}

/// The size of a JSON value (a tool result), minified.
pub fn value(v: &Value, tokenizer: Tokenizer) -> Size {
    if tokenizer == Tokenizer::Estimate {
        let mut counter = Counter(0);
        let _ = serde_json::to_writer(&mut counter, v);
        return Size {
            bytes: counter.0,
            tokens: estimate(counter.0),
        };
    }
    let text = serde_json::to_vec(v).unwrap_or_default();
    Size {
        bytes: text.len() as u64,
        tokens: tokenizer.count(&text),
    }
}

/// The tools of a `tools/list` result: each named one (a string `name`)
/// with its definition's size.
pub fn listed(result: &Value, tokenizer: Tokenizer) -> Vec<(String, Size)> {
    result
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let tool = tool.as_object()?;
            let name = tool.get("name")?.as_str()?;
            Some((name.to_string(), definition(tool, tokenizer)))
        })
        .collect()
}

/// Counts, or keeps, the minified text as it is written, then sizes it.
enum Sink {
    Count(Counter),
    Keep(Vec<u8>),
}

impl Sink {
    fn new(tokenizer: Tokenizer) -> Sink {
        match tokenizer {
            Tokenizer::Estimate => Sink::Count(Counter(0)),
            _ => Sink::Keep(Vec::new()),
        }
    }

    fn out(&mut self) -> &mut dyn Write {
        match self {
            Sink::Count(c) => c,
            Sink::Keep(v) => v,
        }
    }

    fn size(self, tokenizer: Tokenizer) -> Size {
        match self {
            Sink::Count(c) => Size {
                bytes: c.0,
                tokens: estimate(c.0),
            },
            Sink::Keep(text) => Size {
                bytes: text.len() as u64,
                tokens: tokenizer.count(&text),
            },
        }
    }
}

/// The size of the `result` of a message's JSON text (a line the reader
/// cut), read without building it; `None` when it has none.
pub fn result_of_text(text: &str, tokenizer: Tokenizer) -> Option<Size> {
    let mut sink = Sink::new(tokenizer);
    let seed = Member {
        key: "result",
        seed: Minify {
            out: sink.out(),
            comma: false,
        },
    };
    let mut reader = serde_json::Deserializer::from_str(text);
    seed.deserialize(&mut reader).ok()??;
    Some(sink.size(tokenizer))
}

/// The tools of the `tools/list` result of a message's JSON text (a line
/// the reader cut), as [`listed`] gives them, read without building them.
pub fn listed_of_text(text: &str, tokenizer: Tokenizer) -> Vec<(String, Size)> {
    let seed = Member {
        key: "result",
        seed: Member {
            key: "tools",
            seed: Tools(tokenizer),
        },
    };
    let mut reader = serde_json::Deserializer::from_str(text);
    seed.deserialize(&mut reader)
        .ok()
        .flatten()
        .flatten()
        .flatten()
        .unwrap_or_default()
}

fn write_err<E: de::Error>(e: io::Error) -> E {
    E::custom(e)
}

fn json<E: de::Error>(
    out: &mut dyn Write,
    v: &(impl serde_core::Serialize + ?Sized),
) -> Result<(), E> {
    serde_json::to_writer(out, v).map_err(E::custom)
}

fn raw<E: de::Error>(out: &mut dyn Write, bytes: &[u8]) -> Result<(), E> {
    out.write_all(bytes).map_err(write_err)
}

/// Writes the compact form of the value it reads (serde_json's, as
/// [`value`] writes a parsed one), a comma first when `comma`.
struct Minify<'a> {
    out: &'a mut dyn Write,
    comma: bool,
}

impl<'de> DeserializeSeed<'de> for Minify<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Minify<'_> {
    fn scalar<E: de::Error>(self, v: &(impl serde_core::Serialize + ?Sized)) -> Result<(), E> {
        if self.comma {
            raw(self.out, b",")?;
        }
        json(self.out, v)
    }
}

impl<'de> Visitor<'de> for Minify<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(&v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(&v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.scalar(&v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.scalar(&v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.scalar(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(&())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let out = self.out;
        raw(out, if self.comma { b",[" } else { b"[" })?;
        let mut comma = false;
        while seq
            .next_element_seed(Minify {
                out: &mut *out,
                comma,
            })?
            .is_some()
        {
            comma = true;
        }
        raw(out, b"]")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        raw(out, if self.comma { b",{" } else { b"{" })?;
        let mut comma = false;
        while let Some(key) = map.next_key::<KeyText>()? {
            if comma {
                raw(out, b",")?;
            }
            json(out, key.0.as_str())?;
            raw(out, b":")?;
            map.next_value_seed(Minify {
                out: &mut *out,
                comma: false,
            })?;
            comma = true;
        }
        raw(out, b"}")
    }
}

/// A member's key (serde_json hands keys over as strings).
struct KeyText(String);

impl<'de> de::Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyText, D::Error> {
        String::deserialize(d).map(KeyText)
    }
}

/// The member `key` of an object, read with `seed`; `None` when the value
/// is no object or has no such member (the rest is checked, not built).
struct Member<S> {
    key: &'static str,
    seed: S,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Member<S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// What reads a value it has no use for: `None`, the value checked.
macro_rules! none_but_maps {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Member<S> {
    type Value = Option<S::Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    none_but_maps!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seed = Some(self.seed);
        let mut found = None;
        while let Some(key) = map.next_key::<KeyText>()? {
            match seed.take() {
                Some(s) if key.0 == self.key => found = Some(map.next_value_seed(s)?),
                other => {
                    seed = other;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// The `tools` array: each named tool with its definition's size.
struct Tools(Tokenizer);

impl<'de> DeserializeSeed<'de> for Tools {
    type Value = Option<Vec<(String, Size)>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tools {
    type Value = Option<Vec<(String, Size)>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    none_but_maps!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut tools = Vec::new();
        while let Some(tool) = seq.next_element_seed(Tool(self.0))? {
            tools.extend(tool);
        }
        Ok(Some(tools))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// One tool: its name (when a string) and its definition's size, as
/// [`definition`] counts it.
struct Tool(Tokenizer);

impl<'de> DeserializeSeed<'de> for Tool {
    type Value = Option<(String, Size)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tool {
    type Value = Option<(String, Size)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    none_but_maps!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut sink = Sink::new(self.0);
        let mut name = None;
        let mut comma = false;
        raw(sink.out(), b"{")?;
        while let Some(key) = map.next_key::<KeyText>()? {
            if !DEFINITION_MEMBERS.contains(&key.0.as_str()) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let out = sink.out();
            if comma {
                raw(out, b",")?;
            }
            json(out, key.0.as_str())?;
            raw(out, b":")?;
            if key.0 == "name" {
                name = map.next_value_seed(Name(out))?;
            } else {
                map.next_value_seed(Minify { out, comma: false })?;
            }
            comma = true;
        }
        raw(sink.out(), b"}")?;
        Ok(name.map(|n| (n, sink.size(self.0))))
    }
}

/// A tool's `name`, written as [`Minify`] writes it, and kept when a
/// string.
struct Name<'a>(&'a mut dyn Write);

impl<'de> DeserializeSeed<'de> for Name<'_> {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Name<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        json(self.0, v)?;
        Ok(Some(v.to_string()))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        json(self.0, &v).map(|()| None)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        json(self.0, &v).map(|()| None)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        json(self.0, &v).map(|()| None)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        json(self.0, &v).map(|()| None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        json(self.0, &()).map(|()| None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let minify = Minify {
            out: self.0,
            comma: false,
        };
        minify.visit_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let minify = Minify {
            out: self.0,
            comma: false,
        };
        minify.visit_map(map).map(|()| None)
    }
}

/// What one answer to `tools/list` or `tools/call` cost (measured by the
/// views' driver, `views/passes.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measured {
    /// The tools of one page, by name, each with its definition's size.
    Listed(Vec<(String, Size)>),
    /// A call's result.
    Result(Size),
}

/// The sizes of one tool's results: every one counted (count, max, total),
/// at most [`SAMPLE`] kept for the median.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub count: u64,
    pub max: Size,
    pub total: Size,
    /// `(bytes, tokens)`, saturated at `u32::MAX` (a line is far shorter).
    kept: Vec<(u32, u32)>,
    /// The reservoir's random state (splitmix64, a fixed seed).
    state: u64,
}

impl Results {
    fn push(&mut self, size: Size) {
        self.count += 1;
        self.total.add(size);
        self.max.bytes = self.max.bytes.max(size.bytes);
        self.max.tokens = self.max.tokens.max(size.tokens);
        let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let pair = (small(size.bytes), small(size.tokens));
        if self.kept.len() < SAMPLE {
            self.kept.push(pair);
            return;
        }
        // Algorithm R: the n-th size replaces a kept one with probability
        // SAMPLE / n, so the kept ones stay a uniform sample.
        let at = self.next() % self.count;
        if let Some(slot) = usize::try_from(at).ok().and_then(|i| self.kept.get_mut(i)) {
            *slot = pair;
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The median result (nearest rank: the ⌈n/2⌉-th smallest of the sizes
    /// kept), bytes and tokens each taken on their own.
    pub fn median(&self) -> Option<Size> {
        if self.kept.is_empty() {
            return None;
        }
        let rank = self.kept.len().div_ceil(2) - 1;
        let mut bytes: Vec<u32> = self.kept.iter().map(|k| k.0).collect();
        let mut tokens: Vec<u32> = self.kept.iter().map(|k| k.1).collect();
        let (_, b, _) = bytes.select_nth_unstable(rank);
        let b = u64::from(*b);
        let (_, t, _) = tokens.select_nth_unstable(rank);
        Some(Size {
            bytes: b,
            tokens: u64::from(*t),
        })
    }

    /// How many sizes the median was taken from (all of them, up to
    /// [`SAMPLE`]).
    pub fn sampled(&self) -> usize {
        self.kept.len()
    }
}

/// One tool's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCost {
    pub name: String,
    /// Its definition as last listed; `None`: called, never listed.
    pub definition: Option<Size>,
    pub results: Results,
}

/// The tools of one or more sessions and what they cost, bounded.
#[derive(Clone, Debug, Default)]
pub struct ToolCosts {
    pub tokenizer: Tokenizer,
    tools: IndexMap<String, ToolCost>,
    /// The tools past [`MAX_TOOLS`], summed: each listing of one adds its
    /// definition (a tool listed twice counts twice), each result joins
    /// one sample.
    other: Option<ToolCost>,
    /// How many listings went to `other`.
    other_listed: u64,
}

/// The whole tool list's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Tools listed (those past the cap counted by listing).
    pub listed: u64,
    /// Their definitions, summed.
    pub definitions: Size,
    /// Results measured, and their sizes summed.
    pub results: u64,
    pub result_sizes: Size,
}

impl ToolCosts {
    pub fn new(tokenizer: Tokenizer) -> ToolCosts {
        ToolCosts {
            tokenizer,
            ..ToolCosts::default()
        }
    }

    fn row(&mut self, name: &str) -> &mut ToolCost {
        if !self.tools.contains_key(name) && self.tools.len() >= MAX_TOOLS {
            return self.other.get_or_insert_with(ToolCost::default);
        }
        self.tools
            .entry(name.to_string())
            .or_insert_with(|| ToolCost {
                name: name.to_string(),
                ..ToolCost::default()
            })
    }

    /// A tool listed with a definition of `size` (a later listing of the
    /// same name replaces it: what the model is sent from then on).
    pub fn listed(&mut self, name: &str, size: Size) {
        let capped = !self.tools.contains_key(name) && self.tools.len() >= MAX_TOOLS;
        if capped {
            self.other_listed += 1;
        }
        let row = self.row(name);
        match (&mut row.definition, capped) {
            (Some(sum), true) => sum.add(size),
            (definition, _) => *definition = Some(size),
        }
    }

    /// A result of `size` to a call of tool `name`.
    pub fn result(&mut self, name: &str, size: Size) {
        self.row(name).results.push(size);
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.other.is_none()
    }

    /// The tools by name, the costliest definition first (then the
    /// largest result, then by name); tools only called come last.
    pub fn sorted(&self) -> Vec<&ToolCost> {
        let mut all: Vec<&ToolCost> = self.tools.values().collect();
        all.sort_by(|a, b| {
            let def = |t: &ToolCost| t.definition.map(|d| d.bytes);
            def(b)
                .cmp(&def(a))
                .then_with(|| b.results.max.bytes.cmp(&a.results.max.bytes))
                .then_with(|| a.name.cmp(&b.name))
        });
        all
    }

    /// The tools past [`MAX_TOOLS`], summed, and how many listings went
    /// there.
    pub fn other(&self) -> Option<(&ToolCost, u64)> {
        self.other.as_ref().map(|o| (o, self.other_listed))
    }

    /// The whole list's figures.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for tool in self.tools.values() {
            if let Some(d) = tool.definition {
                t.listed += 1;
                t.definitions.add(d);
            }
            t.results += tool.results.count;
            t.result_sizes.add(tool.results.total);
        }
        if let Some(other) = &self.other {
            if let Some(d) = other.definition {
                t.definitions.add(d);
            }
            t.listed += self.other_listed;
            t.results += other.results.count;
            t.result_sizes.add(other.results.total);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn a_definition_counts_its_six_members_minified_in_the_listed_order() {
        let t = tool(json!({
            "_meta": {"x": 1},
            "name": "add",
            "description": "Add «two» integers.\n",
            "icons": [],
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1.5}}},
        }));
        let text = r#"{"name":"add","description":"Add «two» integers.\n","inputSchema":{"type":"object","properties":{"a":{"type":"integer","minimum":1.5}}}}"#;
        let size = definition(&t, Tokenizer::Estimate);
        assert_eq!(size.bytes, text.len() as u64);
        assert_eq!(size.tokens, (text.len() as u64).div_ceil(4));
        assert_eq!(
            definition(&tool(json!({})), Tokenizer::Estimate),
            Size {
                bytes: 2,
                tokens: 1
            }
        );
    }

    /// With the `tokenizer` feature (scripts/test runs this module with
    /// it): the counts of texts whose tokens tiktoken's own examples give.
    #[cfg(feature = "tokenizer")]
    #[test]
    fn exact_counts_are_the_encodings_own() {
        assert!(Tokenizer::O200kBase.available() && Tokenizer::Cl100kBase.available());
        assert_eq!(Tokenizer::Cl100kBase.count(b"tiktoken is great!"), 6);
        assert_eq!(
            Tokenizer::Cl100kBase.count(b"Hello, how are you doing today?"),
            8
        );
        assert_eq!(Tokenizer::O200kBase.count(b"Hello world"), 2);
        // A special token's text is counted as text.
        assert!(Tokenizer::O200kBase.count(b"<|endoftext|>") > 1);
        let v = json!({"text": "Hello, how are you doing today?"});
        let size = value(&v, Tokenizer::Cl100kBase);
        assert_eq!(size.bytes, 42);
        assert!(size.tokens > 8 && size.tokens < size.bytes);
    }

    #[cfg(not(feature = "tokenizer"))]
    #[test]
    fn without_the_feature_only_the_estimate_is_available() {
        assert!(Tokenizer::Estimate.available());
        assert!(!Tokenizer::O200kBase.available() && !Tokenizer::Cl100kBase.available());
    }

    #[test]
    fn numbers_are_counted_as_a_host_writes_them_again() {
        let v: Value = serde_json::from_str(r#"{"price": 874.30, "n": 1e3}"#).expect("JSON");
        assert_eq!(
            value(&v, Tokenizer::Estimate).bytes,
            r#"{"price":874.3,"n":1000.0}"#.len() as u64
        );
    }

    /// A line the reader cut is measured from its text: the same sizes as
    /// the parsed value's, whatever the value holds.
    #[test]
    fn the_text_of_a_cut_line_measures_as_its_parsed_value() {
        let results = [
            r#"{"content":[{"type":"text","text":"Z\u00fcrich \"q\" \t é 🙂"}],"structuredContent":{"price":874.30,"n":1e3,"big":123456789012345678901234567890,"neg":-5,"ok":true,"none":null,"list":[[],{},[1,2]]}}"#,
            r#"[1,"two"]"#,
            r#""just text""#,
        ];
        for result in results {
            let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
            let parsed: Value = serde_json::from_str(result).expect("JSON");
            assert_eq!(
                result_of_text(&line, Tokenizer::Estimate),
                Some(value(&parsed, Tokenizer::Estimate)),
                "{result}"
            );
        }
        assert_eq!(
            result_of_text(
                r#"{"jsonrpc":"2.0","id":1,"error":{}}"#,
                Tokenizer::Estimate
            ),
            None
        );
        let list = r#"{"tools":[{"_meta":{"a":[1]},"name":"add","description":"Add «two».","inputSchema":{"type":"object","properties":{"a":{"type":"number","minimum":0.50}}},"annotations":{"readOnlyHint":true}},{"name":7,"description":"a number for a name"},"not a tool",{"title":"no name"},{"name":"b"}]}"#;
        let line = format!(r#"{{"id":2,"jsonrpc":"2.0","result":{list}}}"#);
        let parsed: Value = serde_json::from_str(list).expect("JSON");
        let from_text = listed_of_text(&line, Tokenizer::Estimate);
        assert_eq!(from_text, listed(&parsed, Tokenizer::Estimate));
        let names: Vec<&str> = from_text.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["add", "b"]);
        assert!(listed_of_text(r#"{"result":{"tools":{}}}"#, Tokenizer::Estimate).is_empty());
        assert!(listed_of_text("not JSON", Tokenizer::Estimate).is_empty());
    }

    #[test]
    fn the_median_is_exact_up_to_the_sample_then_sampled() {
        let mut r = Results::default();
        for bytes in [5, 1, 4, 2, 3, 100] {
            r.push(Size {
                bytes,
                tokens: estimate(bytes),
            });
        }
        // Nearest rank of six: the third smallest.
        assert_eq!(r.median().map(|m| m.bytes), Some(3));
        assert_eq!((r.count, r.max.bytes, r.total.bytes), (6, 100, 115));
        let mut r = Results::default();
        for i in 0..10 * SAMPLE as u64 {
            r.push(Size {
                bytes: i % 100,
                tokens: 0,
            });
        }
        assert_eq!(r.sampled(), SAMPLE);
        assert_eq!(r.count, 10 * SAMPLE as u64);
        // A uniform sample of 0..100 repeated: its median is near 50.
        let m = r.median().expect("median").bytes;
        assert!((40..=60).contains(&m), "{m}");
        // The same pushes give the same sample.
        let mut again = Results::default();
        for i in 0..10 * SAMPLE as u64 {
            again.push(Size {
                bytes: i % 100,
                tokens: 0,
            });
        }
        assert_eq!(again, r);
    }

    #[test]
    fn tools_past_the_cap_are_summed_and_the_totals_stay_whole() {
        let mut costs = ToolCosts::default();
        let one = Size {
            bytes: 10,
            tokens: 3,
        };
        for i in 0..MAX_TOOLS + 5 {
            costs.listed(&format!("t{i}"), one);
        }
        costs.listed("t0", one);
        costs.result("t0", one);
        costs.result("beyond", one);
        assert_eq!(costs.sorted().len(), MAX_TOOLS);
        let (other, seen) = costs.other().expect("capped");
        assert_eq!(other.definition.map(|d| d.bytes), Some(50));
        assert_eq!(seen, 5);
        let t = costs.totals();
        assert_eq!(t.listed, MAX_TOOLS as u64 + 5);
        assert_eq!(t.definitions.bytes, 10 * (MAX_TOOLS as u64 + 5));
        assert_eq!(t.results, 2);
    }
}
