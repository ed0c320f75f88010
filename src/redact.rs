//! `--redact`: reports that can be pasted into a public issue.
//!
//! The analysis always runs on the real log (a redacted log would fire
//! shape rules on the placeholders and hide leaked internals). What leaves
//! the program is redacted instead: every string value a message carries
//! (in params, results, errors) and every stderr line is remembered as it
//! streams past, and the report's text has each of them replaced by a
//! placeholder, `[redacted N]`, numbered by first appearance, so the same
//! string reads the same everywhere in a report and correlation survives.
//! Methods, ids, error codes, protocol versions, the protocol's own
//! vocabulary (`type`, `role`, `level`, ...), structure and timestamps are
//! kept. Text no message carries (stray stdout, a recorder's events, a
//! host's prose) is scanned for secret shapes instead: bearer tokens,
//! `Authorization` values, API keys, long token-like strings, e-mail
//! addresses, `password=...`.
//!
//! Memory: a remembered string is a 61-bit polynomial hash, its length and
//! a number (about 40 bytes with its head's entry), never the string itself; strings shorter than
//! [`MIN_CHARS`] characters are not worth hiding and would only blot out
//! ordinary words.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::report::Summary;
use crate::rules::finding::Finding;
use crate::text::{EXCERPT_CHARS, head};
use crate::transport::Item;
use crate::wire::message::{IdField, Message, RequestId};

/// Strings shorter than this (in characters) are kept.
pub const MIN_CHARS: usize = 4;

/// A remembered string shorter than this (in bytes) is replaced only as a
/// whole word: a tool result `fine` must not turn `defined` into
/// `de[redacted 3]d`. Longer ones are replaced wherever they appear.
const WHOLE_WORD_BELOW: usize = 8;

/// Keys whose string values are the protocol's vocabulary, not content.
const KEEP_KEYS: [&str; 14] = [
    "jsonrpc",
    "method",
    "protocolVersion",
    "io.modelcontextprotocol/protocolVersion",
    "type",
    "role",
    "level",
    "stopReason",
    "action",
    "status",
    "resultType",
    "mode",
    "mimeType",
    "format",
];

/// Keys whose values are ids (kept, like the message's own id).
const ID_KEYS: [&str; 3] = ["id", "requestId", "progressToken"];

/// Who is talking: kept so a report still says which SDK was involved.
const IMPLEMENTATION_KEYS: [&str; 2] = ["clientInfo", "serverInfo"];

/// Prefixes of well-known API key formats.
const KEY_PREFIXES: [&str; 24] = [
    "sk-",
    "sk-ant-",
    "sk-proj-",
    "sk_live_",
    "sk_test_",
    "pk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "npm_",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "xoxs-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
];

/// Words that make the value after them a secret (`password=hunter2`).
const SECRET_WORDS: [&str; 12] = [
    "password",
    "cvv",
    "cvc",
    "card_number",
    "cardnumber",
    "passwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "credential",
];

/// The strings of one report and their placeholders.
#[derive(Debug, Default)]
pub struct Redactor {
    /// A remembered string's polynomial hash and byte length, and its
    /// placeholder number.
    numbers: HashMap<(u64, usize), u32>,
    /// The first four bytes of every remembered string, with the byte
    /// lengths of the strings that start so (longest first): most positions
    /// of a text start none and are passed over; at the others only those
    /// lengths are tried, each in O(1) with the text's rolling hash.
    heads: HashMap<[u8; 4], Vec<usize>>,
    /// `BASE^len` for every remembered length.
    powers: HashMap<usize, u64>,
    /// The longest remembered string, in bytes.
    longest: usize,
    next: u32,
}

impl Redactor {
    /// Remembers the strings an item carries: the string values of its
    /// messages, or its stderr line.
    pub fn remember_item(&mut self, item: &Item) {
        match item {
            Item::Message { msg, .. } => self.message(msg),
            Item::Batch { items, .. } => {
                for msg in items.iter().flatten() {
                    self.message(msg);
                }
            }
            Item::Stderr { text, .. } => self.string(text.trim()),
            Item::Noise { .. } | Item::Event { .. } => {}
        }
    }

    /// Replaces the strings an item carries with their placeholders, in
    /// place (for the views, which show messages rather than quote them).
    pub fn redact_item(&mut self, item: &mut Item) {
        match item {
            Item::Message { msg, .. } => self.message_mut(msg),
            Item::Batch { items, .. } => {
                for msg in items.iter_mut().flatten() {
                    self.message_mut(msg);
                }
            }
            Item::Stderr { text, .. } => *text = self.whole(text),
            Item::Event { event, .. } => event.text = self.apply(&event.text),
            Item::Noise { .. } => {}
        }
    }

    /// Redacts a finding's words; its method and id are kept unless they
    /// are shaped like a secret (an API key, a JWT, a card number).
    pub fn finding(&mut self, finding: &mut Finding) {
        finding.message = self.apply(&finding.message);
        if let Some(subject) = &finding.subject {
            finding.subject = Some(self.whole(subject));
        }
        if let Some(method) = &finding.method {
            finding.method = Some(self.token(method));
        }
        if let Some(id) = &finding.id {
            finding.id = Some(self.id(id));
        }
    }

    /// A session's summary: the requests left open (their method and id)
    /// and the names of who talked, kept unless shaped like secrets.
    pub fn summary(&mut self, summary: &mut Summary) {
        for open in &mut summary.pending {
            open.method = self.token(&open.method);
            open.id = self.id(&open.id);
        }
        if let Some(name) = &summary.name {
            summary.name = Some(self.token(name));
        }
        for who in [&mut summary.client, &mut summary.server]
            .into_iter()
            .flatten()
        {
            who.name = self.token(&who.name);
            if let Some(version) = &who.version {
                who.version = Some(self.token(version));
            }
        }
    }

    /// A method name, an id's text or an object key: kept, unless it is
    /// shaped like a secret (then its placeholder).
    pub fn token(&mut self, text: &str) -> String {
        if secret_shaped(text) {
            placeholder(self.remember(text))
        } else {
            text.to_string()
        }
    }

    /// A request id: kept, unless shaped like a secret (a `ghp_...` string,
    /// a card number): then its placeholder, as a string id.
    pub fn id(&mut self, id: &RequestId) -> RequestId {
        let text = match id {
            RequestId::Int(n) => n.to_string(),
            RequestId::Str(s) | RequestId::Num(s) => s.to_string(),
        };
        if secret_shaped(&text) {
            RequestId::Str(placeholder(self.remember(&text)).into())
        } else {
            id.clone()
        }
    }

    /// An id as a JSON value (a string or a number), redacted as [`Redactor::id`].
    pub fn id_value(&mut self, id: &mut Value) {
        if let Some(parsed) = RequestId::from_json(id) {
            let redacted = self.id(&parsed);
            if redacted != parsed {
                *id = redacted.to_json();
            }
        }
    }

    /// A JSON path (`params.arguments.AKIA...`) with its secret-shaped
    /// keys replaced.
    pub fn path(&mut self, path: &str) -> String {
        let known = self.replace_known(path);
        let mut out = String::with_capacity(known.len());
        for (i, segment) in known.split('.').enumerate() {
            if i > 0 {
                out.push('.');
            }
            let (key, index) = segment.split_at(segment.find('[').unwrap_or(segment.len()));
            out.push_str(&self.token(key));
            out.push_str(index);
        }
        out
    }

    /// A whole line of text (stderr) as its placeholder.
    pub fn whole(&mut self, text: &str) -> String {
        let text = text.trim();
        if !worth_hiding(text) {
            return text.to_string();
        }
        placeholder(self.remember(head(text, EXCERPT_CHARS).unwrap_or(text)))
    }

    /// Raw lines as a view shows them: JSON with its strings replaced
    /// (re-serialised compactly), other text as [`Redactor::apply`] leaves it.
    pub fn raw(&mut self, raw: &str) -> String {
        match serde_json::from_str::<Value>(raw.trim_end_matches('\r')) {
            Ok(mut value) => {
                self.value_mut(&mut value, None);
                value.to_string()
            }
            Err(_) => self.apply(raw),
        }
    }

    /// A value found at `path` (`serverInfo.version`, `result.content[0].text`)
    /// with its strings replaced, judged under the keys of the path (so a
    /// protocol version or a `type` is kept, as in a message).
    pub fn value_at(&mut self, path: &str, value: &mut Value) {
        let keys: Vec<&str> = path
            .split('.')
            .map(|k| k.split('[').next().unwrap_or(k))
            .filter(|k| !k.is_empty())
            .collect();
        let mut nested = std::mem::take(value);
        for key in keys.iter().rev() {
            let mut m = Map::new();
            m.insert((*key).to_string(), nested);
            nested = Value::Object(m);
        }
        self.value_mut(&mut nested, None);
        for key in &keys {
            nested = match nested {
                Value::Object(mut m) => m.remove(*key).unwrap_or(Value::Null),
                other => other,
            };
        }
        *value = nested;
    }

    /// `text` with every remembered string and every secret shape replaced.
    /// ANSI colour codes (raw, or escaped as `\x1b[31m`, `\u{1b}[31m`,
    /// `\u001b[31m`) are dropped first: they would split a secret from the
    /// word before it (`password=\x1b[1mhunter2`).
    pub fn apply(&mut self, text: &str) -> String {
        let known = self.replace_known(text);
        let known = match strip_ansi(&known) {
            Cow::Borrowed(_) => known,
            Cow::Owned(plain) => self.replace_known(&plain),
        };
        self.mask_secrets(&known)
    }

    /// Remembers a message's strings, and its method, id and keys when
    /// they are shaped like secrets.
    fn message(&mut self, msg: &Message) {
        // A message whose payload the parser cut is walked in its text, its
        // strings remembered as they are read: its tree is never built (a
        // structured result of a few MB took 25 times its size as one).
        match msg.cut_text() {
            Some(text) => {
                let mut de = serde_json::Deserializer::from_str(&text);
                let walked = serde_core::de::DeserializeSeed::deserialize(
                    Walk {
                        redactor: self,
                        key: None,
                        kept: false,
                    },
                    &mut de,
                );
                if walked.is_err() {
                    // Not JSON after all: what the parser kept is read.
                    self.object(&msg.members(), None);
                }
            }
            None => self.object(&msg.members(), None),
        }
        if let Some(method) = &msg.method {
            self.note(method);
        }
        if let IdField::Id(id) = &msg.id {
            self.id(id);
        }
    }

    /// [`Redactor::message`], replacing in place (the method and id the
    /// views read too).
    fn message_mut(&mut self, msg: &mut Message) {
        self.object_mut(msg.fields_mut(), None);
        if let Some(method) = &msg.method {
            msg.method = Some(self.token(method));
        }
        if let IdField::Id(id) = &msg.id {
            msg.id = IdField::Id(self.id(id));
        }
    }

    /// Remembers `text` if it is shaped like a secret.
    fn note(&mut self, text: &str) {
        if secret_shaped(text) {
            self.remember(text);
        }
    }

    fn object(&mut self, fields: &Map<String, Value>, parent: Option<&str>) {
        let implementation = parent.is_some_and(|p| IMPLEMENTATION_KEYS.contains(&p));
        for (key, value) in fields {
            self.note(key);
            if let Some(s) = value.as_str().filter(|_| kept(key, implementation)) {
                self.note(s);
                continue;
            }
            self.value(value, Some(key));
        }
    }

    fn object_mut(&mut self, fields: &mut Map<String, Value>, parent: Option<&str>) {
        let implementation = parent.is_some_and(|p| IMPLEMENTATION_KEYS.contains(&p));
        if fields.keys().any(|k| secret_shaped(k)) {
            let old = std::mem::take(fields);
            for (key, value) in old {
                let key = self.token(&key);
                fields.insert(key, value);
            }
        }
        for (key, value) in fields.iter_mut() {
            if let Value::String(s) = value {
                if kept(key, implementation) {
                    *s = self.token(s);
                    continue;
                }
            }
            if is_secret_word(key) && !matches!(value, Value::Array(_) | Value::Object(_)) {
                // `"cvv": 123`, `"pin": "42"`: too short to remember, still hidden.
                match value {
                    Value::String(s) if worth_hiding(s) => *s = placeholder(self.remember(s)),
                    Value::Null | Value::Bool(_) => {}
                    _ => *value = Value::String("[redacted]".to_string()),
                }
                continue;
            }
            self.value_mut(value, Some(key));
        }
    }

    fn value_mut(&mut self, value: &mut Value, key: Option<&str>) {
        match value {
            Value::String(s) if worth_hiding(s) => {
                *s = placeholder(self.remember(s));
            }
            Value::Number(n) => {
                let text = n.to_string();
                if looks_like_card(&text) {
                    *value = Value::String(placeholder(self.remember(&text)));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.value_mut(v, key)),
            Value::Object(fields) => self.object_mut(fields, key),
            _ => {}
        }
    }

    fn value(&mut self, value: &Value, key: Option<&str>) {
        match value {
            Value::String(s) => self.string(s),
            Value::Array(items) => items.iter().for_each(|v| self.value(v, key)),
            Value::Object(fields) => self.object(fields, key),
            Value::Number(n) => {
                let text = n.to_string();
                if looks_like_card(&text) {
                    self.remember(&text);
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    fn string(&mut self, s: &str) {
        if !worth_hiding(s) {
            return;
        }
        self.remember(s);
        // Printable ASCII without quotes or backslashes reads the same quoted
        // as JSON and by Rust: no copy of a long string to find that out.
        let plain = s
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
        if !plain {
            // Quoted as JSON (`"a \"b\""`), a string with escapes reads otherwise.
            let json = Value::from(s).to_string();
            let escaped = &json[1..json.len() - 1];
            if escaped != s {
                self.remember(escaped);
            }
            // Quoted by a finding (`"\u{1b}[31m..."`, Rust's quoting).
            let debug = format!("{s:?}");
            let debug = &debug[1..debug.len() - 1];
            if debug != s && debug != escaped {
                self.remember(debug);
            }
        }
        // Without its colour codes, as [`Redactor::apply`] reads text.
        if let Cow::Owned(plain) = strip_ansi(s) {
            if worth_hiding(&plain) {
                self.remember(&plain);
            }
        }
        // What the report can quote of a long string: its excerpt (also
        // as JSON and Rust quote it).
        if let Some(head) = head(s, EXCERPT_CHARS) {
            self.remember(head);
            let json = Value::from(head).to_string();
            self.remember(&json[1..json.len() - 1]);
            let debug = format!("{head:?}");
            self.remember(&debug[1..debug.len() - 1]);
        }
        // Multi-line text is often quoted one line at a time.
        if s.contains('\n') {
            for line in s.lines().map(str::trim).filter(|l| worth_hiding(l)) {
                self.remember(line);
            }
        }
    }

    fn remember(&mut self, s: &str) -> u32 {
        let key = (poly(s.as_bytes()), s.len());
        if let Some(&n) = self.numbers.get(&key) {
            return n;
        }
        self.next += 1;
        self.numbers.insert(key, self.next);
        let head = first_four(s.as_bytes()).expect("at least four characters");
        let lengths = self.heads.entry(head).or_default();
        if let Err(at) = lengths.binary_search_by(|l| s.len().cmp(l)) {
            lengths.insert(at, s.len());
        }
        self.powers.entry(s.len()).or_insert_with(|| power(s.len()));
        self.longest = self.longest.max(s.len());
        self.next
    }

    /// Replaces remembered strings, longest first at each position. Linear
    /// in the text (times the remembered lengths that share a position's
    /// first four bytes): the text's prefix hashes are kept in a ring as
    /// long as the longest remembered string, so any candidate's hash is
    /// two lookups, and memory stays bounded by the longest string.
    fn replace_known(&self, text: &str) -> String {
        if self.numbers.is_empty() {
            return text.to_string();
        }
        let bytes = text.as_bytes();
        let span = self.longest.min(bytes.len()) + 1;
        let mut ring = vec![0u64; span];
        let mut computed = 0usize;
        let mut prefix = |ring: &mut Vec<u64>, k: usize| -> u64 {
            while computed < k {
                let h = ring[computed % span];
                ring[(computed + 1) % span] = add(mul(h, BASE), u64::from(bytes[computed]) + 1);
                computed += 1;
            }
            ring[k % span]
        };
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        'scan: while i < bytes.len() {
            let candidates = first_four(&bytes[i..]).and_then(|h| self.heads.get(&h));
            for &len in candidates.into_iter().flatten() {
                let end = i + len;
                if end > bytes.len()
                    || !text.is_char_boundary(end)
                    || (len < WHOLE_WORD_BELOW && !whole_word(text, i, end))
                {
                    continue;
                }
                let at_end = prefix(&mut ring, end);
                let at_start = ring[i % span];
                let h = sub(at_end, mul(at_start, self.powers[&len]));
                if let Some(n) = self.numbers.get(&(h, len)) {
                    out.push_str(&placeholder(*n));
                    i = end;
                    continue 'scan;
                }
            }
            let c = text[i..].chars().next().expect("i is on a char boundary");
            out.push(c);
            i += c.len_utf8();
            // Keep the ring ahead of the position: its start must not be
            // overwritten before it is read.
            prefix(&mut ring, i);
        }
        out
    }

    /// Replaces secret-shaped words of free text.
    /// The placeholder of a secret word; one too short to remember (under
    /// four bytes, a CVV) gets a placeholder without a number.
    fn mask(&mut self, word: &str) -> String {
        if word.len() >= 4 {
            placeholder(self.remember(word))
        } else {
            "[redacted]".to_string()
        }
    }

    fn mask_secrets(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut hide_next = false;
        let mut after_key = false;
        let mut rest = text;
        while !rest.is_empty() {
            // A placeholder is one word, already hidden (a text redacted twice
            // keeps it as it is).
            let start = rest
                .char_indices()
                .find(|&(at, c)| !is_separator(c) || rest[at..].starts_with("[redacted"))
                .map_or(rest.len(), |(at, _)| at);
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            if rest.starts_with("[redacted") {
                let end = rest.find(']').map_or(rest.len(), |at| at + 1);
                out.push_str(&rest[..end]);
                rest = &rest[end..];
                hide_next = false;
                after_key = false;
                continue;
            }
            let end = rest.find(is_separator).unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            if word.is_empty() {
                continue;
            }
            let lower = word.to_ascii_lowercase();
            let scheme = lower == "bearer" || lower == "basic";
            if hide_next && !scheme && !word.starts_with("[redacted") {
                hide_next = false;
                out.push_str(&self.mask(word));
                continue;
            }
            hide_next = false;
            // `"password": "..."` in a line that is not JSON (cut, broken):
            // the key, then `:` or `=` as a word of its own, then the value.
            let key_before = std::mem::take(&mut after_key);
            if key_before && (word == ":" || word == "=") {
                out.push_str(word);
                hide_next = true;
                continue;
            }
            if key_before && (word.starts_with(':') || word.starts_with('=')) && word.len() > 1 {
                out.push_str(&word[..1]);
                out.push_str(&self.mask(&word[1..]));
                continue;
            }
            if scheme || lower.trim_end_matches(':') == "authorization" {
                out.push_str(word);
                hide_next = true;
                continue;
            }
            if let Some((name, value)) = split_assignment(word) {
                if is_secret_word(name) && !value.is_empty() {
                    out.push_str(&word[..word.len() - value.len()]);
                    out.push_str(&self.mask(value));
                    continue;
                }
            }
            if is_secret_word(&lower) {
                out.push_str(word);
                if word.ends_with(':') {
                    hide_next = true;
                } else {
                    after_key = true;
                }
                continue;
            }
            if looks_secret(word) || looks_like_card(word) {
                out.push_str(&self.mask(word));
            } else {
                out.push_str(word);
            }
        }
        out
    }
}

/// [`Redactor::object`] and [`Redactor::value`] over a message's JSON text
/// as it is read: `key` is the member the value is under, `kept` whether
/// a string there is kept (only [`Redactor::note`]d).
struct Walk<'r, 'k> {
    redactor: &'r mut Redactor,
    key: Option<&'k str>,
    kept: bool,
}

impl<'de> serde_core::de::DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = ();

    fn deserialize<D: serde_core::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde_core::de::Visitor<'de> for Walk<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        if self.kept {
            self.redactor.note(s);
        } else {
            self.redactor.string(s);
        }
        Ok(())
    }

    fn visit_u64<E>(self, n: u64) -> Result<(), E> {
        self.number(&n.to_string());
        Ok(())
    }

    fn visit_i64<E>(self, n: i64) -> Result<(), E> {
        self.number(&n.to_string());
        Ok(())
    }

    fn visit_f64<E>(self, n: f64) -> Result<(), E> {
        if let Some(n) = serde_json::Number::from_f64(n) {
            self.number(&n.to_string());
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde_core::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Walk {
                redactor: &mut *self.redactor,
                key: self.key,
                kept: false,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: serde_core::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let implementation = self.key.is_some_and(|p| IMPLEMENTATION_KEYS.contains(&p));
        while let Some(key) = map.next_key::<crate::reader::shallow::Key<'de>>()? {
            let key = key.0;
            self.redactor.note(&key);
            map.next_value_seed(Walk {
                redactor: &mut *self.redactor,
                key: Some(&key),
                kept: kept(&key, implementation),
            })?;
        }
        Ok(())
    }
}

impl Walk<'_, '_> {
    fn number(self, text: &str) {
        if looks_like_card(text) {
            self.redactor.remember(text);
        }
    }
}

/// Whether a string under `key` is kept (vocabulary, an id, or who is talking).
fn kept(key: &str, implementation: bool) -> bool {
    KEEP_KEYS.contains(&key)
        || ID_KEYS.contains(&key)
        || (implementation && matches!(key, "name" | "version" | "title"))
}

/// Whether `text[start..end]` is not glued to letters or digits on either
/// side (an escape such as `\n` before it counts as a boundary).
fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let glued_before = text[..start].chars().next_back().is_some_and(word)
        && text[start..].chars().next().is_some_and(word)
        && !matches!(
            text.as_bytes().get(start.wrapping_sub(2)..start),
            Some(b"\\n" | b"\\t" | b"\\r")
        );
    let glued_after = text[..end].chars().next_back().is_some_and(word)
        && text[end..].chars().next().is_some_and(word);
    !glued_before && !glued_after
}

/// A method, id, key or number that is a secret by its shape: an API key
/// of a known format, a JWT, a long token, an e-mail address, a card number.
fn secret_shaped(text: &str) -> bool {
    text.len() >= 12 && (looks_secret(text) || looks_like_card(text))
}

/// `text` without ANSI escape sequences: raw (ESC `[` ... final byte, ESC
/// `]` ... BEL, ESC and one byte) and as the report may quote them
/// (`\x1b[`, `\u{1b}[`, `\u001b[`, `\033[`, `\e[`).
fn strip_ansi(text: &str) -> Cow<'_, str> {
    const ESCAPED: [&str; 7] = [
        "\\x1b[", "\\x1B[", "\\u{1b}[", "\\u001b[", "\\u001B[", "\\033[", "\\e[",
    ];
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut kept = 0;
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            0x1b => {
                let after = i + 1;
                match bytes.get(after) {
                    Some(b'[') => skip_csi(bytes, after + 1),
                    Some(b']') => {
                        let mut j = after + 1;
                        while j < bytes.len() && bytes[j] != 0x07 && bytes[j] != 0x1b {
                            j += 1;
                        }
                        if bytes.get(j) == Some(&0x07) {
                            j + 1
                        } else if bytes.get(j..j + 2) == Some(b"\x1b\\") {
                            j + 2
                        } else {
                            j
                        }
                    }
                    Some(b) if (0x40..=0x5f).contains(b) => after + 1,
                    _ => after,
                }
            }
            b'\\' => match ESCAPED
                .iter()
                .find(|e| bytes[i..].starts_with(e.as_bytes()))
            {
                Some(e) => skip_csi(bytes, i + e.len()),
                None => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[kept..i]);
        kept = end;
        i = end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[kept..]);
            Cow::Owned(o)
        }
    }
}

/// Past a CSI sequence's parameters, intermediates and final byte
/// (ASCII: the end is on a char boundary).
fn skip_csi(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (0x30..=0x3f).contains(&bytes[i]) {
        i += 1;
    }
    while i < bytes.len() && (0x20..=0x2f).contains(&bytes[i]) {
        i += 1;
    }
    if i < bytes.len() && (0x40..=0x7e).contains(&bytes[i]) {
        i += 1;
    }
    i
}

/// Whether a string is long enough to hide ([`MIN_CHARS`] or more).
fn worth_hiding(s: &str) -> bool {
    s.chars().nth(MIN_CHARS - 1).is_some()
}

/// Whether `text` holds a mark [`Redactor`] writes (`[redacted 3]`, or
/// `[redacted]` for a secret too short to number): the placeholders of a
/// redacted log, which are not the data they stand for. The one test of a
/// redacted capture (`mock` refuses to serve one).
pub fn holds_mark(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("[redacted") {
        let after = &rest[at + "[redacted".len()..];
        if after.starts_with(']') {
            return true;
        }
        if let Some(number) = after.strip_prefix(' ') {
            let digits = number.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && number[digits..].starts_with(']') {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// The first string of `value` (member names included) that holds a mark
/// ([`holds_mark`]), as an excerpt.
pub fn mark_in(value: &Value) -> Option<String> {
    let found = |s: &str| holds_mark(s).then(|| head(s, EXCERPT_CHARS).unwrap_or(s).to_string());
    match value {
        Value::String(s) => found(s),
        Value::Array(items) => items.iter().find_map(mark_in),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| found(k).or_else(|| mark_in(v))),
        _ => None,
    }
}

fn placeholder(n: u32) -> String {
    format!("[redacted {n}]")
}

fn first_four(bytes: &[u8]) -> Option<[u8; 4]> {
    bytes.get(..4)?.try_into().ok()
}

/// The Mersenne prime 2^61 - 1: the modulus of the strings' hashes.
const MODULUS: u64 = (1 << 61) - 1;
/// The hashes' base (an arbitrary large odd number below the modulus).
const BASE: u64 = 0x1d2f_9a5b_c3e7_4f61 % MODULUS;

fn mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    let folded = (p & u128::from(MODULUS)) as u64 + (p >> 61) as u64;
    if folded >= MODULUS {
        folded - MODULUS
    } else {
        folded
    }
}

fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= MODULUS { s - MODULUS } else { s }
}

fn sub(a: u64, b: u64) -> u64 {
    if a >= b { a - b } else { a + MODULUS - b }
}

/// The polynomial hash of `bytes` (each byte plus one, so that leading
/// zero bytes count), the same the text's rolling hash gives its slices.
fn poly(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0, |h, &b| add(mul(h, BASE), u64::from(b) + 1))
}

/// `BASE^n` modulo the modulus.
fn power(mut n: usize) -> u64 {
    let (mut result, mut base) = (1u64, BASE);
    while n > 0 {
        if n & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        n >>= 1;
    }
    result
}

fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>'
        )
}

/// `name=value` or `name:value` (one word).
fn split_assignment(word: &str) -> Option<(&str, &str)> {
    let at = word.find(['=', ':'])?;
    Some((&word[..at], &word[at + 1..]))
}

fn is_secret_word(name: &str) -> bool {
    let name = name.trim_end_matches(':').to_ascii_lowercase();
    // `progressToken` and `nextCursor` are protocol words, not secrets.
    SECRET_WORDS.iter().any(|w| name.ends_with(w)) && !name.contains("progress")
}

/// A payment card number: 13 to 19 digits (dashes or no separators)
/// that pass the Luhn check.
fn looks_like_card(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ':']);
    if !word.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
        return false;
    }
    let digits: Vec<u32> = word
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| u32::from(b - b'0'))
        .collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// An e-mail address, a known API key format or a long random-looking token.
fn looks_secret(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ':']);
    if let Some((local, domain)) = word.split_once('@') {
        if !local.is_empty() && domain.contains('.') && !domain.starts_with('.') {
            return true;
        }
    }
    if KEY_PREFIXES
        .iter()
        .any(|p| word.starts_with(p) && word.len() >= p.len() + 8)
    {
        return true;
    }
    // A JWT: base64url header `{"` (`eyJ`), then payload and signature.
    if word.starts_with("eyJ") && word.len() >= 16 && word.split('.').count() >= 2 {
        return true;
    }
    // Tokens: 32+ characters of a token alphabet, letters and digits mixed
    // (hex digests, base64 keys, JWTs); paths and prose do not qualify.
    word.len() >= 32
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=' | '.'))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
        && word.matches('/').count() < 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_told_from_text_that_mentions_redaction() {
        assert!(holds_mark("[redacted 12]"));
        assert!(holds_mark("token [redacted] here"));
        assert!(!holds_mark("the [redacted text] of a report"));
        assert!(!holds_mark("[redacted 1"));
        assert!(!holds_mark("redacted 3"));
        let v = serde_json::json!({"content": [{"type": "text", "text": "a [redacted 3] b"}]});
        assert_eq!(mark_in(&v).as_deref(), Some("a [redacted 3] b"));
        assert_eq!(mark_in(&serde_json::json!({"a": [1, "x"]})), None);
        // What the redactor writes is found again.
        let mut r = Redactor::default();
        let mut v = serde_json::json!({"text": "a secret value"});
        r.value_at("", &mut v);
        assert!(mark_in(&v).is_some(), "{v}");
    }

    #[test]
    fn strings_become_stable_placeholders() {
        let mut r = Redactor::default();
        let msg: Value = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":"abc-1","method":"tools/call","params":{"name":"read_file","arguments":{"path":"/srv/private/plan.txt"},"_meta":{"progressToken":"tok-77"}}}"#,
        )
        .expect("json");
        r.object(msg.as_object().expect("object"), None);
        let out = r.apply("tool read_file was called with /srv/private/plan.txt (read_file)");
        assert_eq!(
            out,
            "tool [redacted 1] was called with [redacted 2] ([redacted 1])"
        );
        // Ids, methods and protocol words are kept.
        assert_eq!(
            r.apply("id abc-1 tools/call tok-77"),
            "id abc-1 tools/call tok-77"
        );
    }

    #[test]
    fn implementation_names_and_short_strings_are_kept() {
        let mut r = Redactor::default();
        let msg: Value = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"notes","version":"1.2.0"},"instructions":"ask"}}"#,
        )
        .expect("json");
        r.object(msg.as_object().expect("object"), None);
        assert_eq!(
            r.apply("notes 1.2.0 2025-06-18 ask"),
            "notes 1.2.0 2025-06-18 ask"
        );
    }

    #[test]
    fn secrets_in_a_broken_json_line_and_card_numbers_are_masked() {
        let mut r = Redactor::default();
        let text = r.apply(
            r#"{"arguments":{"password": "hunter2", "card": 4111111111111111, "cvv": 123, "token"="abc", "n": 1234567890123"#,
        );
        for secret in ["hunter2", "4111111111111111", "123,", "abc"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        // A number that fails the Luhn check is no card.
        assert!(text.contains("1234567890123"), "{text}");
        assert!(
            r.apply("paid with 4111-1111-1111-1111.")
                .contains("[redacted")
        );
        assert!(looks_like_card("4111111111111111"));
        assert!(!looks_like_card("4111111111111112"));
    }

    #[test]
    fn secret_shapes_are_masked_in_free_text() {
        let mut r = Redactor::default();
        let out = r.apply(
            "Authorization: Bearer abc.def.ghi mail ops@example.org key sk-0123456789abcdef password=hunter22 at 3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a",
        );
        for secret in [
            "abc.def.ghi",
            "ops@example.org",
            "sk-0123456789abcdef",
            "hunter22",
            "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a",
        ] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(
            out.starts_with("Authorization: Bearer [redacted 1] mail [redacted 2]"),
            "{out}"
        );
        // Ordinary prose and paths are left alone.
        let mut r = Redactor::default();
        let plain =
            "server wrote non-JSON text to stdout: \"Loading /usr/lib/node_modules/x/index.js\"";
        assert_eq!(r.apply(plain), plain);
    }

    #[test]
    fn multi_line_and_long_strings_are_hidden_in_their_quoted_forms() {
        let mut r = Redactor::default();
        let long = "z".repeat(EXCERPT_CHARS + 50);
        r.string(&long);
        r.string("Traceback (most recent call last):\n  File \"/app/secret_service.py\", line 3");
        let out = r.apply(&format!(
            "{}… and   File \"/app/secret_service.py\", line 3",
            &long[..EXCERPT_CHARS]
        ));
        assert!(!out.contains("zzzz"), "{out}");
        assert!(!out.contains("secret_service"), "{out}");
    }

    #[test]
    fn ansi_codes_do_not_shield_a_secret() {
        assert_eq!(
            strip_ansi("\x1b[31mred\x1b[0m \x1b]0;title\x07x \\u{1b}[1mb\\x1b[0m \\u001b[32mg"),
            "red x b g"
        );
        assert_eq!(strip_ansi("C:\\e\\x1"), "C:\\e\\x1");
        let mut r = Redactor::default();
        for text in [
            "\x1b[31mAuthorization: Bearer tok0123456789\x1b[0m",
            "\\u{1b}[35mretrying with password=\\u{1b}[0m\\u{1b}[1mhunter2x\\u{1b}[0m",
            "\\x1b[31mERROR token:\\x1b[0m hunter2x",
            "key \x1b[1mghp_0123456789abcdefghijABCDEFGHIJ012345\x1b[0m",
        ] {
            let out = r.apply(text);
            for secret in ["tok0123456789", "hunter2x", "ghp_0123"] {
                assert!(!out.contains(secret), "{secret} in {out}");
            }
            assert!(out.contains("[redacted"), "{out}");
        }
    }

    #[test]
    fn secret_shaped_methods_ids_and_keys_get_placeholders() {
        let mut r = Redactor::default();
        for secret in [
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "github_pat_11AAAAAAA0123456789_abcdefghij",
            "sk-ant-api03-abcdefghij0123456789",
            "xoxb-1234567890-abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "4111111111111111",
        ] {
            assert!(r.token(secret).starts_with("[redacted "), "{secret}");
        }
        for kept in [
            "tools/call",
            "notifications/initialized",
            "abc-1",
            "42",
            "2025-06-18",
        ] {
            assert_eq!(r.token(kept), kept);
        }
        assert!(matches!(
            r.id(&RequestId::Int(4111111111111111)),
            RequestId::Str(s) if s.starts_with("[redacted ")
        ));
        assert_eq!(r.id(&RequestId::Int(7)), RequestId::Int(7));
        assert_eq!(
            r.path("params.arguments.AKIAIOSFODNN7EXAMPLE[0].x"),
            format!("params.arguments.{}[0].x", r.token("AKIAIOSFODNN7EXAMPLE"))
        );
        // In a message: the key, the card number and the method are hidden.
        let mut value: Value = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":"sk-proj-0123456789abcdef","method":"xoxb-1234567890-abcdefghij","params":{"AKIAIOSFODNN7EXAMPLE":4111111111111111,"cvv":987}}"#,
        )
        .expect("json");
        r.value_mut(&mut value, None);
        let text = value.to_string();
        for secret in ["sk-proj", "xoxb", "AKIA", "4111", "987"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }

    #[test]
    fn short_strings_are_replaced_as_whole_words_only() {
        let mut r = Redactor::default();
        r.string("fine");
        assert_eq!(
            r.apply("not defined; said fine, `fine`"),
            "not defined; said [redacted 1], `[redacted 1]`"
        );
        // Applied twice, a placeholder stays one.
        let once = r.apply(r#"{"password":"hunter2x"}"#);
        assert_eq!(r.apply(&once), once);
    }

    /// Strings that share their first bytes and differ in length: each is
    /// found where it stands, the longest first, across multi-byte
    /// characters, and the text's hash agrees with the strings' own.
    #[test]
    fn strings_sharing_a_head_are_each_found_longest_first() {
        let mut r = Redactor::default();
        for len in [9, 12, 30] {
            r.string(&"a".repeat(len));
        }
        r.string("aaaaé-tail-part");
        let text = format!(
            "<{}> <{}> <{}> <aaaaé-tail-part>",
            "a".repeat(12),
            "a".repeat(31),
            "a".repeat(9)
        );
        assert_eq!(
            r.apply(&text),
            "<[redacted 2]> <[redacted 3]a> <[redacted 1]> <[redacted 4]>"
        );
        // Every slice's rolling hash is its own polynomial hash.
        let bytes = "xy\u{0}zé🙂 long enough".as_bytes();
        for len in 1..bytes.len() {
            let (a, b) = (poly(&bytes[..1]), poly(&bytes[..1 + len]));
            assert_eq!(sub(b, mul(a, power(len))), poly(&bytes[1..1 + len]));
        }
    }
}
