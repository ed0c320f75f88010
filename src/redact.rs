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
//! Memory: a remembered string is a 64-bit hash and a number (about 24
//! bytes), never the string itself; strings shorter than
//! [`MIN_CHARS`] characters are not worth hiding and would only blot out
//! ordinary words.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use serde_json::{Map, Value};

use crate::finding::Finding;
use crate::text::{EXCERPT_CHARS, head};
use crate::transport::Item;

/// Strings shorter than this (in characters) are kept.
pub const MIN_CHARS: usize = 4;

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
const KEY_PREFIXES: [&str; 14] = [
    "sk-",
    "sk_live_",
    "sk_test_",
    "pk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
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
    numbers: HashMap<u64, u32>,
    /// The first four bytes of every remembered string: most positions of
    /// a text start none, and are passed over without hashing.
    heads: HashSet<[u8; 4]>,
    /// The byte lengths of the remembered strings, to look them up in text.
    lengths: BTreeSet<usize>,
    next: u32,
}

impl Redactor {
    /// Remembers the strings an item carries: the string values of its
    /// messages, or its stderr line.
    pub fn remember_item(&mut self, item: &Item) {
        match item {
            Item::Message { msg, .. } => self.object(&msg.fields(), None),
            Item::Batch { items, .. } => {
                for msg in items.iter().flatten() {
                    self.object(&msg.fields(), None);
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
            Item::Message { msg, .. } => self.object_mut(msg.fields_mut(), None),
            Item::Batch { items, .. } => {
                for msg in items.iter_mut().flatten() {
                    self.object_mut(msg.fields_mut(), None);
                }
            }
            Item::Stderr { text, .. } => *text = self.whole(text),
            Item::Event { event, .. } => event.text = self.apply(&event.text),
            Item::Noise { .. } => {}
        }
    }

    /// Redacts a finding's words (its method and id are kept).
    pub fn finding(&mut self, finding: &mut Finding) {
        finding.message = self.apply(&finding.message);
        if let Some(subject) = &finding.subject {
            finding.subject = Some(self.whole(subject));
        }
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
    pub fn apply(&mut self, text: &str) -> String {
        let known = self.replace_known(text);
        self.mask_secrets(&known)
    }

    fn object(&mut self, fields: &Map<String, Value>, parent: Option<&str>) {
        let implementation = parent.is_some_and(|p| IMPLEMENTATION_KEYS.contains(&p));
        for (key, value) in fields {
            if value.is_string() && kept(key, implementation) {
                continue;
            }
            self.value(value, Some(key));
        }
    }

    fn object_mut(&mut self, fields: &mut Map<String, Value>, parent: Option<&str>) {
        let implementation = parent.is_some_and(|p| IMPLEMENTATION_KEYS.contains(&p));
        for (key, value) in fields.iter_mut() {
            if value.is_string() && kept(key, implementation) {
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
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn string(&mut self, s: &str) {
        if !worth_hiding(s) {
            return;
        }
        self.remember(s);
        // Quoted as JSON (`"a \"b\""`), a string with escapes reads otherwise.
        let json = Value::from(s).to_string();
        let escaped = &json[1..json.len() - 1];
        if escaped != s {
            self.remember(escaped);
        }
        // What the report can quote of a long string: its excerpt.
        if let Some(head) = head(s, EXCERPT_CHARS) {
            self.remember(head);
        }
        // Multi-line text is often quoted one line at a time.
        if s.contains('\n') {
            for line in s.lines().map(str::trim).filter(|l| worth_hiding(l)) {
                self.remember(line);
            }
        }
    }

    fn remember(&mut self, s: &str) -> u32 {
        let hash = hash(s);
        if let Some(&n) = self.numbers.get(&hash) {
            return n;
        }
        self.next += 1;
        self.numbers.insert(hash, self.next);
        self.heads
            .insert(first_four(s.as_bytes()).expect("at least four characters"));
        self.lengths.insert(s.len());
        self.next
    }

    /// Replaces remembered strings, longest first at each position.
    fn replace_known(&self, text: &str) -> String {
        if self.numbers.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        'scan: while i < text.len() {
            let known_head =
                first_four(&text.as_bytes()[i..]).is_some_and(|h| self.heads.contains(&h));
            for &len in self
                .lengths
                .range(..=text.len() - i)
                .rev()
                .filter(|_| known_head)
            {
                let end = i + len;
                if !text.is_char_boundary(end) {
                    continue;
                }
                if let Some(n) = self.numbers.get(&hash(&text[i..end])) {
                    out.push_str(&placeholder(*n));
                    i = end;
                    continue 'scan;
                }
            }
            let c = text[i..].chars().next().expect("i is on a char boundary");
            out.push(c);
            i += c.len_utf8();
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
            let start = rest.find(|c: char| !is_separator(c)).unwrap_or(rest.len());
            out.push_str(&rest[..start]);
            rest = &rest[start..];
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

/// Whether a string under `key` is kept (vocabulary, an id, or who is talking).
fn kept(key: &str, implementation: bool) -> bool {
    KEEP_KEYS.contains(&key)
        || ID_KEYS.contains(&key)
        || (implementation && matches!(key, "name" | "version" | "title"))
}

/// Whether a string is long enough to hide ([`MIN_CHARS`] or more).
fn worth_hiding(s: &str) -> bool {
    s.chars().nth(MIN_CHARS - 1).is_some()
}

fn placeholder(n: u32) -> String {
    format!("[redacted {n}]")
}

fn first_four(bytes: &[u8]) -> Option<[u8; 4]> {
    bytes.get(..4)?.try_into().ok()
}

fn hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
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
}
