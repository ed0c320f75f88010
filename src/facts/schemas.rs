//! The tool-schema checks (on unless `--no-tool-schemas`): the tools a
//! server listed, with their `inputSchema` and `outputSchema`, to judge
//! `tools/call` arguments and structured results against them.
//!
//! Cheap first: a listing is read for its schemas' JSON texts only (no
//! tree is built), a schema is compiled at its tool's first call, compiled
//! validators and lints are kept by a hash of the schema's text and shared
//! by every listing and session of the file ([`Shared`]), and a value is
//! asked whether it is valid before its errors are collected. Then
//! bounded: the work is charged to a budget ([`Work::afford`]) of
//! [`BUDGET_BASE`] plus [`BUDGET_PERCENT`]% of the bytes read; what is past
//! it is counted, not done, and said once per file (`tool-schemas-unchecked`);
//! `--schema-check` lifts the budget.
//!
//! Every table and every piece of work is bounded: at most [`MAX_TOOLS`]
//! tools are kept (the rest of a listing is not checked), a schema larger
//! than [`MAX_SCHEMA_NODES`] JSON values or nested deeper than
//! [`MAX_DEPTH`] is not compiled, a value larger than [`MAX_VALUE_NODES`] is
//! not validated, a finding quotes at most [`MAX_ERRORS`] violations and
//! the caches hold at most [`MAX_CACHED`] schemas. Patterns are compiled
//! with the `regex` engine (linear time, size-limited) and `$ref`s outside
//! the schema are not fetched (such a schema is not compiled), so a hostile
//! schema costs at most its bounded size.

use std::borrow::Cow;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, MutexGuard};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use jsonschema::{PatternOptions, Validator};
use serde_core::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

pub use super::lint::{MAX_DEPTH, MAX_SCHEMA_NODES};
use super::lint::{Shape, within};

/// Tools kept per session (a session may list thousands).
pub const MAX_TOOLS: usize = 1024;
/// A schema whose local `$ref`s expand it past this many values is not
/// compiled ([`expanded`]): validation work per call stays bounded.
pub const MAX_EXPANDED: u64 = 32_768;
/// JSON values in arguments or structured content that are validated.
pub const MAX_VALUE_NODES: usize = 16384;
/// Violations quoted in one finding.
pub const MAX_ERRORS: usize = 3;
/// The compiled size limit of one pattern (bytes).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Compiled schemas (and linted ones) kept per file; past it the cache
/// starts afresh.
pub const MAX_CACHED: usize = 512;

/// The work budget: what a file may spend without `--schema-check`, in
/// units of about a byte of `check`'s own reading: this much, plus
/// [`BUDGET_PERCENT`]% of the bytes read so far. Calibrated on the bench
/// shapes (docs/performance.md, Schema check) to keep every shape within
/// 15% of `check --no-tool-schemas`.
pub const BUDGET_BASE: u64 = 2 << 20;
pub const BUDGET_PERCENT: u64 = 4;
/// What a byte of a listing read for its schemas' texts costs.
pub const LIST_WEIGHT: u64 = 2;
/// What a byte of a message read again whole and validated costs.
pub const VALIDATE_WEIGHT: u64 = 20;
/// What a byte of a schema's text compiled (or linted) costs.
pub const COMPILE_WEIGHT: u64 = 20;
/// The fixed cost of each piece of work.
pub const PER_MESSAGE: u64 = 1024;
/// The bytes a message counts for when its line was not kept (a short one).
pub const SHORT_LINE: u64 = 160;

/// A listed schema: its text until its tool's first call, then compiled.
#[derive(Clone)]
enum Schema {
    /// The listing was over the work budget: not read.
    Unread,
    Text {
        hash: u64,
        text: Arc<str>,
    },
    /// Compiled (`None`: it could not be, so nothing is judged by it).
    Compiled(Option<Arc<Validator>>),
}

struct Tool {
    /// The line of the `tools/list` result that declared it.
    line: u64,
    /// The listing (see [`Tools::generation`]) it was last in.
    seen: u64,
    /// A hash of its two schemas' texts (0: not read): a listing that
    /// repeats them keeps what was compiled (hosts list the tools again and
    /// again).
    print: u64,
    input: Option<Schema>,
    output: Option<Schema>,
}

/// One tool of a listing as read for the checks: its name and its schemas'
/// JSON texts.
pub struct Listed<'a> {
    pub name: Cow<'a, str>,
    pub input: Option<Cow<'a, str>>,
    pub output: Option<Cow<'a, str>>,
}

/// A `tools/list` result page as read for the checks.
#[derive(Default)]
pub struct Page<'a> {
    pub tools: Option<Vec<Listed<'a>>>,
    pub next: bool,
}

/// The tools listed so far in one session.
///
/// A listing is a `tools/list` result without `nextCursor`, with the pages
/// before it (results with a `nextCursor`); each listing replaces the one
/// before when its last page comes. Until then the tools of the last
/// complete listing and the new pages are both in effect.
#[derive(Default)]
pub struct Tools {
    tools: HashMap<Box<str>, Tool>,
    /// A `notifications/tools/list_changed` came and no listing completed
    /// since: the session does not show the server's current tools.
    stale: bool,
    /// Tools not kept because of [`MAX_TOOLS`].
    pub dropped: u64,
    /// Tool entries whose schemas were taken anew.
    compiled: u64,
    /// The listing being read: counted up at each first page.
    generation: u64,
    /// The last page had a `nextCursor`: the next result continues it.
    paging: bool,
    /// The latest listing whose last page came: its generation and line.
    complete: Option<(u64, u64)>,
    /// A tool of the current listing was not kept ([`MAX_TOOLS`]).
    overflow: bool,
    /// Tools a complete listing no longer had, with the line of the
    /// listing that had them and of the one that dropped them (bounded by
    /// [`MAX_TOOLS`]).
    removed: HashMap<Box<str>, (u64, u64)>,
}

/// What the tool-schema checks of one file share: the compiled schemas and
/// lints by their text's hash, and the work budget.
#[derive(Default)]
pub struct Work {
    compiled: HashMap<u64, (Arc<str>, Option<Arc<Validator>>)>,
    linted: Linted,
    /// `--schema-check`: no budget.
    pub unlimited: bool,
    /// Bytes read so far (what the allowance grows with) and units spent.
    read: u64,
    spent: u64,
    /// Calls and results validated, and those past the budget.
    pub checked: u64,
    pub skipped: u64,
    /// Listings past the budget (not read: calls of their tools are not
    /// validated).
    pub unread: u64,
    /// The first line whose check was skipped.
    pub first_skipped: Option<u64>,
    /// With the checks off: the first listing that had schemas.
    pub listed_unchecked: Option<u64>,
}

/// Lints by (text hash, an input schema, the dialect named), with the text.
type Linted = HashMap<(u64, bool, bool), (Arc<str>, Arc<[String]>)>;

/// [`Work`], shared by the sessions of one file (and cloned with the
/// session's configuration).
#[derive(Clone, Default)]
pub struct Shared(Arc<Mutex<Work>>);

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Shared")
    }
}

impl Shared {
    pub fn lock(&self) -> MutexGuard<'_, Work> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the tool-schema checks of a file left undone (the note's and the
/// JSON's `tool_schemas`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Undone {
    pub checked: u64,
    pub skipped: u64,
    pub unread: u64,
    pub first_line: u64,
}

impl Work {
    /// `bytes` more of the file were read.
    pub fn read(&mut self, bytes: u64) {
        self.read += bytes;
    }

    /// Whether work costing `cost` fits the budget (charged when it does).
    pub fn afford(&mut self, cost: u64) -> bool {
        if self.unlimited {
            return true;
        }
        let allowance = BUDGET_BASE + self.read / 100 * BUDGET_PERCENT;
        if self.spent + cost > allowance {
            return false;
        }
        self.spent += cost;
        true
    }

    /// Work that is done whatever the budget (a new schema's lint): charged.
    fn charge(&mut self, cost: u64) {
        self.spent += cost;
    }

    /// A call or result at `line` not validated: over the budget.
    pub fn skip(&mut self, line: u64) {
        self.skipped += 1;
        self.first_skipped.get_or_insert(line);
    }

    /// What was left undone, if anything.
    pub fn undone(&self) -> Option<Undone> {
        Some(Undone {
            checked: self.checked,
            skipped: self.skipped,
            unread: self.unread,
            first_line: self.first_skipped?,
        })
    }

    /// The compiled schema of `text` (by its `hash`), compiled now if it
    /// is new and the budget affords it (`Err` when it does not).
    fn validator(&mut self, hash: u64, text: &Arc<str>) -> Result<Option<Arc<Validator>>, ()> {
        if let Some((kept, v)) = self.compiled.get(&hash) {
            if **kept == **text {
                return Ok(v.clone());
            }
        }
        if !self.afford(PER_MESSAGE + text.len() as u64 * COMPILE_WEIGHT) {
            return Err(());
        }
        let v = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|s| compile(&s))
            .map(Arc::new);
        if self.compiled.len() >= MAX_CACHED {
            self.compiled.clear();
        }
        self.compiled.insert(hash, (text.clone(), v.clone()));
        Ok(v)
    }

    /// What a schema (an `input` one or not) uses that clients handle
    /// inconsistently ([`Shape::findings`]), by its text's hash.
    fn lint(&mut self, hash: u64, text: &str, input: bool, dialect: bool) -> Arc<[String]> {
        let key = (hash, input, dialect);
        if let Some((kept, found)) = self.linted.get(&key) {
            if **kept == *text {
                return found.clone();
            }
        }
        self.charge(PER_MESSAGE + text.len() as u64 * COMPILE_WEIGHT);
        let found: Arc<[String]> = Shape::of_text(text).findings(input, dialect).into();
        if self.linted.len() >= MAX_CACHED {
            self.linted.clear();
        }
        self.linted.insert(key, (text.into(), found.clone()));
        found
    }
}

/// The hash of a schema's text.
fn hash_text(text: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0x5c4e_3a11).hash_one(text)
}

/// What a listing's new schemas use that clients handle inconsistently.
#[derive(Default, Debug)]
pub struct Lints {
    /// A tool's name and its constructs.
    pub tools: Vec<(String, Vec<String>)>,
    /// Further tools with such constructs.
    pub more: usize,
}

/// Whether a called tool is among the tools the session shows.
#[derive(Debug, PartialEq, Eq)]
pub enum Called {
    /// Listed (or nothing to judge by: no complete listing yet, a
    /// `list_changed` not yet followed by one, a listing over the bound).
    Yes,
    /// Not in the complete listing at this line.
    Never { listing: u64 },
    /// Listed at `listed`, but not in the later listing at `listing`.
    Removed { listed: u64, listing: u64 },
}

/// What a check found: the violations (at most [`MAX_ERRORS`]), how many
/// there were in all (capped at what was looked at) and the listing line.
pub struct Violations {
    pub errors: Vec<String>,
    pub more: bool,
    pub listed_at: u64,
}

/// What a result is, judged against the tool's `outputSchema`.
pub enum Output {
    Conforms,
    Missing { listed_at: u64 },
    Violates(Violations),
}

/// How many schema values a validation may visit, its local `$ref`s
/// followed: a chain of `anyOf`s that each name the next twice doubles it
/// at every link (22 links took 21 s and 7 GB to validate one call). A
/// reference back into the path being followed counts once (the
/// instance's depth bounds that recursion). Saturates past `limit`.
fn expanded(root: &Value, limit: u64) -> u64 {
    fn walk(
        v: &Value,
        root: &Value,
        memo: &mut HashMap<*const Value, u64>,
        path: &mut HashSet<*const Value>,
        limit: u64,
    ) -> u64 {
        let key: *const Value = v;
        if let Some(&n) = memo.get(&key) {
            return n;
        }
        if !path.insert(key) {
            return 1;
        }
        let mut n: u64 = 1;
        let children: Box<dyn Iterator<Item = (Option<&str>, &Value)>> = match v {
            Value::Object(o) => Box::new(o.iter().map(|(k, x)| (Some(k.as_str()), x))),
            Value::Array(a) => Box::new(a.iter().map(|x| (None, x))),
            _ => Box::new(std::iter::empty()),
        };
        for (k, x) in children {
            let target = match (k, x) {
                (Some("$ref"), Value::String(r)) => {
                    r.strip_prefix('#').and_then(|p| root.pointer(p))
                }
                _ => Some(x),
            };
            if let Some(target) = target {
                n = n.saturating_add(walk(target, root, memo, path, limit));
            }
            if n > limit {
                break;
            }
        }
        path.remove(&key);
        let n = n.min(limit + 1);
        memo.insert(key, n);
        n
    }
    walk(root, root, &mut HashMap::new(), &mut HashSet::new(), limit)
}

fn compile(schema: &Value) -> Option<Validator> {
    if !schema.is_object() && !schema.is_boolean() {
        return None;
    }
    within(schema, MAX_SCHEMA_NODES, MAX_DEPTH)?;
    if expanded(schema, MAX_EXPANDED) > MAX_EXPANDED {
        return None;
    }
    jsonschema::options()
        .with_pattern_options(PatternOptions::regex().size_limit(REGEX_SIZE_LIMIT))
        .build(schema)
        .ok()
}

/// Tools a `unportable-tool-schema` finding names (the rest are counted).
pub const MAX_LINTED: usize = 3;

/// The constructs in a tool's schemas that clients handle inconsistently
/// (`unportable-tool-schema`, [`Shape::findings`]). `dialect`: the
/// revision names 2020-12 as the dialect of embedded schemas (2025-11-25
/// and later). Schemas past the compile bounds are not looked at.
pub fn unportable(tool: &Value, dialect: bool) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(input) = tool.get("inputSchema") {
        out.extend(Shape::of(input).findings(true, dialect));
    }
    if let Some(output) = tool.get("outputSchema") {
        out.extend(Shape::of(output).findings(false, dialect));
    }
    out
}

/// `/a/0/b` as `base.a[0].b`.
fn path(base: &str, pointer: &str) -> String {
    let mut out = base.to_string();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            out.push('.');
            out.push_str(&seg);
        }
    }
    out
}

fn violations(validator: &Validator, value: &Value, base: &str, line: u64) -> Option<Violations> {
    within(value, MAX_VALUE_NODES, usize::MAX)?;
    if validator.is_valid(value) {
        return None;
    }
    let (errors, more) = first_errors(validator, value, |pointer| path(base, pointer));
    (!errors.is_empty()).then_some(Violations {
        errors,
        more,
        listed_at: line,
    })
}

/// The first [`MAX_ERRORS`] ways `value` fails `validator`, each as
/// `place: what is wrong` (`place` made from the error's JSON Pointer), and
/// whether there were more. Shared with the official-schema check.
pub(super) fn first_errors(
    validator: &Validator,
    value: &Value,
    place: impl Fn(&str) -> String,
) -> (Vec<String>, bool) {
    let mut errors = Vec::new();
    for error in validator.iter_errors(value) {
        if errors.len() == MAX_ERRORS {
            return (errors, true);
        }
        let text = crate::text::excerpt(&error.to_string());
        errors.push(format!("{}: {text}", place(error.instance_path().as_str())));
    }
    (errors, false)
}

/// A `tools/list` result page read from its message's line: the tools'
/// names and schemas' texts, nothing built but them (`None`: not JSON, or
/// not an object with a `result`).
pub fn read_page(line: &str) -> Option<Page<'_>> {
    struct Envelope;
    impl<'de> Visitor<'de> for Envelope {
        type Value = Option<Page<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut page = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "result" {
                    page = Some(map.next_value_seed(PageSeed)?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(page)
        }
    }
    /// A scalar where `tools` or a tool should be: nothing listed.
    macro_rules! scalars_are_none {
        () => {
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
        };
    }
    struct PageSeed;
    impl<'de> de::DeserializeSeed<'de> for PageSeed {
        type Value = Page<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Page<'de>, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for PageSeed {
        type Value = Page<'de>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a result")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Page<'de>, A::Error> {
            let mut page = Page::default();
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "tools" => page.tools = map.next_value_seed(ToolsSeed)?,
                    "nextCursor" => {
                        page.next = map
                            .next_value::<Option<Cow<'de, str>>>()
                            .ok()
                            .flatten()
                            .is_some();
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(page)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Page<'de>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Page::default())
        }
    }
    struct ToolsSeed;
    impl<'de> de::DeserializeSeed<'de> for ToolsSeed {
        type Value = Option<Vec<Listed<'de>>>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for ToolsSeed {
        type Value = Option<Vec<Listed<'de>>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("tools")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut tools = Vec::new();
            while let Some(tool) = seq.next_element_seed(ToolSeed)? {
                tools.extend(tool);
            }
            Ok(Some(tools))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        scalars_are_none!();
    }
    struct ToolSeed;
    impl<'de> de::DeserializeSeed<'de> for ToolSeed {
        type Value = Option<Listed<'de>>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for ToolSeed {
        type Value = Option<Listed<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a tool")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut name, mut input, mut output) = (None, None, None);
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "name" => {
                        name = map
                            .next_value::<Value>()?
                            .as_str()
                            .map(|s| Cow::Owned(s.to_owned()))
                    }
                    "inputSchema" => {
                        input = Some(Cow::Borrowed(map.next_value::<&'de RawValue>()?.get()))
                    }
                    "outputSchema" => {
                        output = Some(Cow::Borrowed(map.next_value::<&'de RawValue>()?.get()))
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(name.map(|name| Listed {
                name,
                input,
                output,
            }))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        scalars_are_none!();
    }
    let mut d = serde_json::Deserializer::from_str(line);
    let page = d.deserialize_map(Envelope).ok()?;
    d.end().ok()?;
    page
}

/// A member of a message's `params` or `result` (`outer`), read from its
/// line with only it built: a `tools/call`'s `arguments`, a result's
/// `structuredContent` (`None`: the line is not read so; `Some(None)`:
/// absent).
pub fn read_member(line: &str, outer: &str, inner: &str) -> Option<Option<Value>> {
    struct Envelope<'k>(&'k str, &'k str);
    impl<'de> Visitor<'de> for Envelope<'_> {
        type Value = Option<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == self.0 {
                    found = map.next_value_seed(Params(self.1))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    struct Params<'k>(&'k str);
    impl<'de> de::DeserializeSeed<'de> for Params<'_> {
        type Value = Option<&'de RawValue>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Params<'_> {
        type Value = Option<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("params")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == self.0 {
                    found = Some(map.next_value::<&'de RawValue>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut d = serde_json::Deserializer::from_str(line);
    let raw = d.deserialize_map(Envelope(outer, inner)).ok()?;
    d.end().ok()?;
    match raw {
        Some(raw) => serde_json::from_str(raw.get()).ok().map(Some),
        None => Some(None),
    }
}

/// A `tools/list` result page read from its parsed value (a short line,
/// whose schemas the parser built whole).
pub fn page_of(result: &Value) -> Page<'static> {
    let text = |v: &Value| Cow::Owned(serde_json::to_string(v).unwrap_or_default());
    Page {
        tools: result.get("tools").and_then(Value::as_array).map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    Some(Listed {
                        name: Cow::Owned(t.get("name")?.as_str()?.to_owned()),
                        input: t.get("inputSchema").map(text),
                        output: t.get("outputSchema").map(text),
                    })
                })
                .collect()
        }),
        next: result.get("nextCursor").and_then(Value::as_str).is_some(),
    }
}

impl Schema {
    /// The schema compiled (compiled now at its first use): `Err` when it
    /// was not read or the budget does not afford compiling it.
    fn ready(&mut self, work: &mut Work) -> Result<Option<Arc<Validator>>, ()> {
        match self {
            Schema::Unread => Err(()),
            Schema::Compiled(v) => Ok(v.clone()),
            Schema::Text { hash, text } => {
                let v = work.validator(*hash, text)?;
                *self = Schema::Compiled(v.clone());
                Ok(v)
            }
        }
    }
}

impl Tools {
    /// A server's `notifications/tools/list_changed`.
    pub fn changed(&mut self) {
        self.stale = true;
    }

    /// A page begins: the first of a new listing, or the next.
    fn begin(&mut self) -> u64 {
        if !self.paging {
            self.generation += 1;
            self.overflow = false;
        }
        self.generation
    }

    /// A tool named `name` may be kept (within [`MAX_TOOLS`]).
    fn room(&mut self, name: &str) -> bool {
        if self.tools.len() >= MAX_TOOLS && !self.tools.contains_key(name) {
            self.dropped += 1;
            self.overflow = true;
            return false;
        }
        self.removed.remove(name);
        true
    }

    /// A page ends; `next`: it had a `nextCursor`.
    fn end(&mut self, line: u64, next: bool) {
        self.paging = next;
        if self.paging {
            return;
        }
        // The listing is complete: it replaces the one before.
        let generation = self.generation;
        self.complete = Some((generation, line));
        self.stale = false;
        let removed = &mut self.removed;
        self.tools.retain(|name, tool| {
            let keep = tool.seen == generation;
            if !keep && removed.len() < MAX_TOOLS {
                removed.insert(name.clone(), (tool.line, line));
            }
            keep
        });
    }

    /// A `tools/list` result at `line` whose schemas were not read (over
    /// the work budget): its tools' names (and whether each declares an
    /// input and an output schema), from `result` as parsed.
    pub fn unread(&mut self, line: u64, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let generation = self.begin();
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if !self.room(name) {
                continue;
            }
            let schema = |key: &str| tool.get(key).map(|_| Schema::Unread);
            self.tools.insert(
                name.into(),
                Tool {
                    line,
                    seen: generation,
                    print: 0,
                    input: schema("inputSchema"),
                    output: schema("outputSchema"),
                },
            );
        }
        self.end(
            line,
            result.get("nextCursor").and_then(Value::as_str).is_some(),
        );
    }

    /// A `tools/list` result page at `line`: a page of the listing being
    /// read, or the first page of a new one.
    ///
    /// Returns the tools whose schemas are new to the session and use
    /// unportable constructs (at most [`MAX_LINTED`], with the count of the
    /// rest), judged with `dialect` as in [`unportable`].
    pub fn listed(&mut self, line: u64, page: &Page<'_>, dialect: bool, work: &mut Work) -> Lints {
        let mut lints = Lints::default();
        let Some(tools) = &page.tools else {
            return lints;
        };
        let generation = self.begin();
        for tool in tools {
            let name = &*tool.name;
            if !self.room(name) {
                continue;
            }
            let hashes = [&tool.input, &tool.output].map(|t| t.as_deref().map(hash_text));
            let print = foldhash::fast::FixedState::with_seed(0x7001)
                .hash_one(hashes)
                .max(1);
            if let Some(kept) = self.tools.get_mut(name).filter(|t| t.print == print) {
                kept.line = line;
                kept.seen = generation;
                continue;
            }
            self.compiled += 1;
            let mut found = Vec::new();
            for (input, (text, hash)) in [
                (true, (&tool.input, hashes[0])),
                (false, (&tool.output, hashes[1])),
            ] {
                if let (Some(text), Some(hash)) = (text, hash) {
                    found.extend(work.lint(hash, text, input, dialect).iter().cloned());
                }
            }
            if !found.is_empty() {
                if lints.tools.len() < MAX_LINTED {
                    lints.tools.push((crate::text::excerpt(name), found));
                } else {
                    lints.more += 1;
                }
            }
            let schema = |text: &Option<Cow<'_, str>>, hash: Option<u64>| {
                Some(Schema::Text {
                    hash: hash?,
                    text: text.as_deref()?.into(),
                })
            };
            self.tools.insert(
                name.into(),
                Tool {
                    line,
                    seen: generation,
                    print,
                    input: schema(&tool.input, hashes[0]),
                    output: schema(&tool.output, hashes[1]),
                },
            );
        }
        self.end(line, page.next);
        lints
    }

    /// The tool as the session shows it: listed in the current listing (or
    /// in pages of the one being read).
    fn current(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name)
    }

    /// Whether a called tool was listed.
    pub fn called(&self, name: &str) -> Called {
        let Some((_, listing)) = self.complete else {
            return Called::Yes;
        };
        if self.stale || self.overflow || self.current(name).is_some() {
            return Called::Yes;
        }
        match self.removed.get(name) {
            Some(&(listed, _)) => Called::Removed { listed, listing },
            None => Called::Never { listing },
        }
    }

    /// Whether the tool listed as `name` declares an `inputSchema`: its
    /// calls have something to be judged by.
    pub fn declares_input(&self, name: &str) -> bool {
        self.tools.get(name).is_some_and(|t| t.input.is_some())
    }

    /// The violations of a `tools/call`'s arguments at `line` (`None`:
    /// conforming, nothing to judge them by, or over the budget: then
    /// counted in `work`). `cost`: what reading them costs; `arguments`
    /// reads them (`Ok(None)`: absent, an empty object).
    pub fn arguments(
        &mut self,
        name: &str,
        line: u64,
        cost: u64,
        work: &mut Work,
        arguments: impl FnOnce() -> Option<Value>,
    ) -> Option<Violations> {
        let tool = self.tools.get_mut(name)?;
        let listed_at = tool.line;
        let schema = tool.input.as_mut()?;
        let validator = match schema.ready(work) {
            Ok(v) => v?,
            Err(()) => {
                work.skip(line);
                return None;
            }
        };
        if !work.afford(cost) {
            work.skip(line);
            return None;
        }
        work.checked += 1;
        let value = arguments().unwrap_or_else(|| Value::Object(Default::default()));
        violations(&validator, &value, "arguments", listed_at)
    }

    /// Whether the tool listed as `name` declares an `outputSchema`.
    pub fn declares_output(&self, name: &str) -> bool {
        self.tools.get(name).is_some_and(|t| t.output.is_some())
    }

    /// A successful `tools/call` result at `line`, against the tool's
    /// `outputSchema`. `structured`: whether it has `structuredContent`;
    /// `cost` and `read`: what reading it whole costs, and the reading.
    pub fn output(
        &mut self,
        name: &str,
        line: u64,
        structured: bool,
        cost: u64,
        work: &mut Work,
        read: impl FnOnce() -> Option<Value>,
    ) -> Output {
        let Some(tool) = self.tools.get_mut(name) else {
            return Output::Conforms;
        };
        let listed_at = tool.line;
        let Some(schema) = tool.output.as_mut() else {
            return Output::Conforms;
        };
        if !structured {
            return Output::Missing { listed_at };
        }
        let validator = match schema.ready(work) {
            Ok(Some(v)) => v,
            Ok(None) => return Output::Conforms,
            Err(()) => {
                work.skip(line);
                return Output::Conforms;
            }
        };
        if !work.afford(cost) {
            work.skip(line);
            return Output::Conforms;
        }
        work.checked += 1;
        let Some(value) = read() else {
            return Output::Conforms;
        };
        match violations(&validator, &value, "structuredContent", listed_at) {
            Some(v) => Output::Violates(v),
            None => Output::Conforms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The checks as the tool family calls them, with a budget of its own.
    trait Check {
        fn list(&mut self, line: u64, result: &Value, dialect: bool) -> Lints;
        fn args(&mut self, name: &str, arguments: Option<&Value>) -> Option<Violations>;
        fn out(&mut self, name: &str, result: &Value) -> Output;
    }

    impl Check for Tools {
        fn list(&mut self, line: u64, result: &Value, dialect: bool) -> Lints {
            self.listed(line, &page_of(result), dialect, &mut Work::default())
        }
        fn args(&mut self, name: &str, arguments: Option<&Value>) -> Option<Violations> {
            self.arguments(name, 1, 0, &mut Work::default(), || arguments.cloned())
        }
        fn out(&mut self, name: &str, result: &Value) -> Output {
            let structured = result.get("structuredContent").is_some();
            self.output(name, 1, structured, 0, &mut Work::default(), || {
                result.get("structuredContent").cloned()
            })
        }
    }

    /// A chain of `anyOf`s each naming the next twice expands to 2^N
    /// values: not compiled (its validation took 21 s and 7 GB at N = 22),
    /// while a recursive schema (a tree whose children are trees) and one
    /// that reuses a definition a few times still are.
    #[test]
    fn a_schema_whose_references_explode_is_not_compiled() {
        let mut defs = serde_json::Map::new();
        for i in 0..22 {
            let next = if i < 21 {
                json!({"$ref": format!("#/$defs/a{}", i + 1)})
            } else {
                json!({"type": "string"})
            };
            defs.insert(format!("a{i}"), json!({"anyOf": [next, {"allOf": [next]}]}));
        }
        let chain =
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "$defs": defs});
        assert!(within(&chain, MAX_SCHEMA_NODES, MAX_DEPTH).is_some());
        assert!(expanded(&chain, MAX_EXPANDED) > MAX_EXPANDED);
        assert!(compile(&chain).is_none());
        let tree = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}}
        }});
        assert!(compile(&tree).is_some());
        let reused = json!({"type": "object", "properties": {
            "a": {"$ref": "#/$defs/p"}, "b": {"$ref": "#/$defs/p"}, "c": {"$ref": "#/$defs/p"}
        }, "$defs": {"p": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}}}}});
        assert!(expanded(&reused, MAX_EXPANDED) < 64);
        assert!(compile(&reused).is_some());
    }

    fn listed(tools: Value) -> Tools {
        let mut t = Tools::default();
        t.list(6, &json!({ "tools": tools }), true);
        t
    }

    #[test]
    fn arguments_are_judged_with_their_paths() {
        let mut t = listed(json!([{"name": "add", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}}]));
        let v = t.args("add", Some(&json!({"a": "two"}))).expect("violates");
        assert_eq!(v.listed_at, 6);
        assert_eq!(v.errors.len(), 2, "{:?}", v.errors);
        assert!(v.errors.iter().any(|e| e.starts_with("arguments.a: ")));
        assert!(
            v.errors
                .iter()
                .any(|e| e.starts_with("arguments: ") && e.contains("\"b\""))
        );
        assert!(t.args("add", Some(&json!({"a": 1, "b": 2}))).is_none());
        assert!(t.args("unlisted", Some(&json!({}))).is_none());
    }

    #[test]
    fn output_is_missing_or_violating() {
        let mut t = listed(json!([{"name": "n", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "required": ["count"]}}]));
        assert!(matches!(
            t.out("n", &json!({"content": []})),
            Output::Missing { listed_at: 6 }
        ));
        assert!(matches!(
            t.out(
                "n",
                &json!({"content": [], "structuredContent": {"total": "12"}})
            ),
            Output::Violates(_)
        ));
        assert!(matches!(
            t.out(
                "n",
                &json!({"content": [], "structuredContent": {"count": 1}})
            ),
            Output::Conforms
        ));
    }

    #[test]
    fn tables_and_work_are_bounded() {
        let many: Vec<Value> = (0..MAX_TOOLS + 5)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
            .collect();
        let t = listed(Value::Array(many));
        assert_eq!(t.tools.len(), MAX_TOOLS);
        assert_eq!(t.dropped, 5);
        // A schema nested past the bound is not compiled, so nothing is judged.
        let mut deep = json!({"type": "object"});
        for _ in 0..MAX_DEPTH {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        let mut t = listed(json!([{"name": "deep", "inputSchema": deep}]));
        assert!(t.args("deep", Some(&json!(1))).is_none());
        // A recursive $ref compiles and terminates on a finite value.
        let mut t = listed(
            json!([{"name": "r", "inputSchema": {"$defs": {"n": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}}]),
        );
        assert!(t.args("r", Some(&json!({"next": {"next": 3}}))).is_some());
        // A `$ref` outside the schema is not fetched: the schema is not compiled.
        let mut t = listed(json!([{"name": "x", "inputSchema": {"type": "object",
            "properties": {"a": {"$ref": "https://example.com/s.json"}}, "required": ["b"]}}]));
        assert!(t.args("x", Some(&json!({"a": 1}))).is_none());
        // A pattern that backtracks exponentially elsewhere runs in linear time.
        let mut t = listed(json!([{"name": "p", "inputSchema": {"type": "object",
            "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}}]));
        let s = format!("{}b", "a".repeat(5000));
        assert!(t.args("p", Some(&json!({"s": s}))).is_some());
        // Violations are capped.
        let mut t = listed(json!([{"name": "m", "inputSchema": {"type": "object",
            "additionalProperties": {"type": "integer"}}}]));
        let args: serde_json::Map<String, Value> =
            (0..10).map(|i| (format!("k{i}"), json!("s"))).collect();
        let v = t.args("m", Some(&Value::Object(args))).expect("violates");
        assert_eq!(v.errors.len(), MAX_ERRORS);
        assert!(v.more);
    }

    #[test]
    fn a_repeated_listing_keeps_what_was_compiled_and_a_changed_one_does_not() {
        let schema = json!({"type": "object", "required": ["x"]});
        let mut t = listed(json!([{"name": "a", "inputSchema": schema}]));
        t.list(
            9,
            &json!({"tools": [{"name": "a", "inputSchema": schema}]}),
            true,
        );
        assert_eq!(t.compiled, 1);
        assert_eq!(t.args("a", None).expect("violates").listed_at, 9);
        t.list(
            12,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert_eq!(t.compiled, 2);
        assert!(t.args("a", None).is_none(), "the new schema is used");
    }

    #[test]
    fn a_list_after_list_changed_replaces() {
        let mut t =
            listed(json!([{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}]));
        t.list(
            7,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}],
                "nextCursor": "2"}),
            true,
        );
        t.list(
            8,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert!(t.args("a", None).is_some(), "pages add up");
        assert_eq!(t.called("b"), Called::Yes);
        t.changed();
        assert_eq!(
            t.called("zzz"),
            Called::Yes,
            "the current list is not shown"
        );
        t.list(
            9,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert!(t.args("a", None).is_none(), "a was removed");
        assert_eq!(
            t.called("a"),
            Called::Removed {
                listed: 7,
                listing: 9
            }
        );
        assert_eq!(t.called("zzz"), Called::Never { listing: 9 });
    }

    #[test]
    fn unportable_constructs_are_named_once_per_schema() {
        let tool = json!({"name": "find", "inputSchema": {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
            "properties": {"a": {"type": "string"}, "b": {}, "c": {"description": "x"},
                "d": {"$ref": "https://example.com/d.json"}}}});
        let found = unportable(&tool, true);
        assert_eq!(
            found,
            vec![
                "a top-level `anyOf` in inputSchema".to_string(),
                "untyped properties `b`, `c`".to_string(),
                "an external `$ref` (https://example.com/d.json) in inputSchema".to_string(),
                "`$schema` http://json-schema.org/draft-04/schema# in inputSchema (the revision names 2020-12)".to_string(),
            ]
        );
        // Before 2025-11-25 no dialect is named: draft-04 is not flagged.
        assert_eq!(unportable(&tool, false).len(), 3);
        // draft-07 (MCP's own dialect up to 2025-06-18, what the SDKs emit)
        // is not flagged either.
        let seven = json!({"name": "s", "inputSchema": {"type": "object",
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"type": "string"}}}});
        assert!(unportable(&seven, true).is_empty());
        let plain = json!({"name": "add", "inputSchema": {"type": "object",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {"a": {"type": "integer"}, "b": {"enum": [1, 2]}}},
            "outputSchema": {"type": "object", "$defs": {"n": {"type": "integer"}},
            "properties": {"n": {"$ref": "#/$defs/n"}}}});
        assert!(
            unportable(&plain, true).is_empty(),
            "a local $ref in outputSchema is fine"
        );
        let local = json!({"name": "n", "inputSchema": {"type": "object", "$defs": {"n": {"type": "integer"}},
            "properties": {"n": {"$ref": "#/$defs/n"}}}});
        assert_eq!(
            unportable(&local, true),
            vec!["`$ref` in inputSchema".to_string()]
        );
        let mut t = Tools::default();
        let list = json!({"tools": [tool, plain]});
        let lints = t.list(3, &list, true);
        assert_eq!(lints.tools.len(), 1);
        assert!(
            t.list(5, &list, true).tools.is_empty(),
            "a repeated listing is not linted again"
        );
    }

    #[test]
    fn a_call_is_judged_only_after_a_complete_listing() {
        let mut t = Tools::default();
        assert_eq!(t.called("a"), Called::Yes, "nothing listed yet");
        t.list(
            4,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "p2"}), true);
        assert_eq!(t.called("b"), Called::Yes, "the listing is not complete");
        t.list(
            5,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert_eq!(t.called("a"), Called::Yes);
        assert_eq!(t.called("b"), Called::Yes);
        assert_eq!(t.called("c"), Called::Never { listing: 5 });
        // While a new listing is read, the last complete one still holds.
        t.list(
            8,
            &json!({"tools": [{"name": "c", "inputSchema": {"type": "object"}}], "nextCursor": "p2"}), true);
        assert_eq!(t.called("a"), Called::Yes);
        assert_eq!(t.called("c"), Called::Yes);
        t.list(9, &json!({"tools": []}), true);
        assert_eq!(
            t.called("a"),
            Called::Removed {
                listed: 4,
                listing: 9
            }
        );
        // A listing over the bound is not judged.
        let many: Vec<Value> = (0..MAX_TOOLS + 1)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
            .collect();
        t.list(12, &json!({ "tools": many }), true);
        assert_eq!(t.called("unknown"), Called::Yes);
    }
}
