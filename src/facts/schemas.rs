//! `--schema-check`: the tools a server listed, with their `inputSchema`
//! and `outputSchema` compiled once per listing, to judge `tools/call`
//! arguments and structured results against them.
//!
//! Every table and every piece of work is bounded: at most [`MAX_TOOLS`]
//! tools are kept (the rest of a listing is not checked), a schema larger
//! than [`MAX_SCHEMA_NODES`] JSON values or nested deeper than
//! [`MAX_DEPTH`] is not compiled, a value larger than [`MAX_VALUE_NODES`] is
//! not validated, and a finding quotes at most [`MAX_ERRORS`] violations.
//! Patterns are compiled with the `regex` engine (linear time, size-limited)
//! and `$ref`s outside the schema are not fetched (such a schema is not
//! compiled), so a hostile schema costs at most its bounded size.

use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::HashMap;
use jsonschema::{PatternOptions, Validator};
use serde_json::Value;

/// Tools kept per session (a session may list thousands).
pub const MAX_TOOLS: usize = 1024;
/// JSON values in a schema that is compiled.
pub const MAX_SCHEMA_NODES: usize = 4096;
/// Nesting of a schema that is compiled.
pub const MAX_DEPTH: usize = 32;
/// A schema whose local `$ref`s expand it past this many values is not
/// compiled ([`expanded`]): validation work per call stays bounded.
pub const MAX_EXPANDED: u64 = 32_768;
/// JSON values in arguments or structured content that are validated.
pub const MAX_VALUE_NODES: usize = 16384;
/// Violations quoted in one finding.
pub const MAX_ERRORS: usize = 3;
/// The compiled size limit of one pattern (bytes).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

struct Tool {
    /// The line of the `tools/list` result that declared it.
    line: u64,
    /// The listing (see [`Tools::generation`]) it was last in.
    seen: u64,
    /// A fingerprint of its two schemas: a listing that repeats them keeps
    /// what was compiled (hosts list the tools again and again).
    print: u64,
    input: Option<Validator>,
    output: Option<Validator>,
    /// It declared an `outputSchema` (compiled or not).
    declares_output: bool,
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
    /// Tool entries whose schemas were compiled.
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
pub enum Listed {
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

/// Counts the JSON values in `v` up to `limit`, and whether it nests deeper
/// than `depth`. Returns `None` when either bound is passed.
fn within(v: &Value, limit: usize, depth: usize) -> Option<usize> {
    let mut count = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        count += 1;
        if count > limit || d > depth {
            return None;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    Some(count)
}

/// A 64-bit fingerprint of a JSON value (bounded by the caller's size check).
fn fingerprint(v: &Value, h: &mut impl Hasher) {
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
        Value::Number(n) => {
            h.write_u8(3);
            n.to_string().hash(h);
        }
        Value::String(s) => {
            h.write_u8(4);
            s.hash(h);
        }
        Value::Array(a) => {
            h.write_u8(5);
            h.write_usize(a.len());
            a.iter().for_each(|x| fingerprint(x, h));
        }
        Value::Object(o) => {
            h.write_u8(6);
            h.write_usize(o.len());
            for (k, x) in o {
                k.hash(h);
                fingerprint(x, h);
            }
        }
    }
}

fn print_of(tool: &Value) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x5c4e_3a11).build_hasher();
    for key in ["inputSchema", "outputSchema"] {
        match tool.get(key) {
            Some(v) if within(v, MAX_SCHEMA_NODES, MAX_DEPTH).is_some() => fingerprint(v, &mut h),
            Some(_) => h.write_u8(7),
            None => h.write_u8(8),
        }
    }
    h.finish()
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
        memo: &mut std::collections::HashMap<*const Value, u64>,
        path: &mut std::collections::HashSet<*const Value>,
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
    walk(
        root,
        root,
        &mut Default::default(),
        &mut Default::default(),
        limit,
    )
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

/// A property schema that says nothing of its value's type.
fn untyped(p: &Value) -> bool {
    match p {
        Value::Bool(b) => *b,
        Value::Object(o) => !["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| o.contains_key(*k)),
        _ => false,
    }
}

/// The constructs in a tool's schemas that clients handle inconsistently
/// (`unportable-tool-schema`). `dialect`: the revision names 2020-12 as the
/// dialect of embedded schemas (2025-11-25 and later). Schemas past the
/// compile bounds are not looked at.
pub fn unportable(tool: &Value, dialect: bool) -> Vec<String> {
    let mut out = Vec::new();
    let bounded = |key: &str| {
        tool.get(key)
            .filter(|s| within(s, MAX_SCHEMA_NODES, MAX_DEPTH).is_some())
    };
    if let Some(input) = bounded("inputSchema") {
        for key in ["oneOf", "anyOf", "allOf", "not"] {
            if input.get(key).is_some() {
                out.push(format!("a top-level `{key}` in inputSchema"));
            }
        }
        if let Some(props) = input.get("properties").and_then(Value::as_object) {
            let names: Vec<String> = props
                .iter()
                .filter(|(_, p)| untyped(p))
                .map(|(k, _)| format!("`{}`", crate::text::excerpt(k)))
                .collect();
            if !names.is_empty() {
                let shown = names.iter().take(MAX_ERRORS).cloned().collect::<Vec<_>>();
                let more = if names.len() > MAX_ERRORS {
                    ", ..."
                } else {
                    ""
                };
                let noun = if names.len() == 1 {
                    "property"
                } else {
                    "properties"
                };
                out.push(format!("untyped {noun} {}{more}", shown.join(", ")));
            }
        }
    }
    for key in ["inputSchema", "outputSchema"] {
        let Some(schema) = bounded(key) else {
            continue;
        };
        let (mut local, mut external) = (false, None::<String>);
        let mut stack = vec![schema];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(o) => {
                    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                        if r.starts_with('#') {
                            local = true;
                        } else if external.is_none() {
                            external = Some(crate::text::excerpt(r));
                        }
                    }
                    stack.extend(o.values());
                }
                Value::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        // A local `$ref` matters where hosts flatten the schema for a model
        // (the input); clients validate output with a real validator.
        if let Some(r) = external {
            out.push(format!("an external `$ref` ({r}) in {key}"));
        } else if local && key == "inputSchema" {
            out.push(format!("`$ref` in {key}"));
        }
        if let Some(d) = schema.get("$schema").and_then(Value::as_str) {
            // 2020-12 is the revision's; draft-07 is the dialect of MCP's
            // own schemas up to 2025-06-18 and what the official SDKs emit,
            // which every client in the corpus reads: not flagged.
            let bare = d.trim_end_matches('#');
            let named = bare == "https://json-schema.org/draft/2020-12/schema"
                || bare
                    .trim_start_matches("https://")
                    .trim_start_matches("http://")
                    == "json-schema.org/draft-07/schema";
            if dialect && !named {
                out.push(format!(
                    "`$schema` {} in {key} (the revision names 2020-12)",
                    crate::text::excerpt(d)
                ));
            }
        }
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

impl Tools {
    /// A server's `notifications/tools/list_changed`.
    pub fn changed(&mut self) {
        self.stale = true;
    }

    /// A `tools/list` result at `line`: a page of the listing being read,
    /// or the first page of a new one.
    ///
    /// Returns the tools whose schemas are new to the session and use
    /// unportable constructs (at most [`MAX_LINTED`], with the count of the
    /// rest), judged with `dialect` as in [`unportable`].
    pub fn listed(&mut self, line: u64, result: &Value, dialect: bool) -> Lints {
        let mut lints = Lints::default();
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return lints;
        };
        if !self.paging {
            self.generation += 1;
            self.overflow = false;
        }
        let generation = self.generation;
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if self.tools.len() >= MAX_TOOLS && !self.tools.contains_key(name) {
                self.dropped += 1;
                self.overflow = true;
                continue;
            }
            self.removed.remove(name);
            let print = print_of(tool);
            if let Some(kept) = self.tools.get_mut(name).filter(|t| t.print == print) {
                kept.line = line;
                kept.seen = generation;
                continue;
            }
            self.compiled += 1;
            let found = unportable(tool, dialect);
            if !found.is_empty() {
                if lints.tools.len() < MAX_LINTED {
                    lints.tools.push((crate::text::excerpt(name), found));
                } else {
                    lints.more += 1;
                }
            }
            let input = tool.get("inputSchema").and_then(compile);
            let output_schema = tool.get("outputSchema");
            let output = output_schema.and_then(compile);
            self.tools.insert(
                name.into(),
                Tool {
                    line,
                    seen: generation,
                    print,
                    input,
                    output,
                    declares_output: output_schema.is_some(),
                },
            );
        }
        self.paging = result.get("nextCursor").and_then(Value::as_str).is_some();
        if !self.paging {
            // The listing is complete: it replaces the one before.
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
        lints
    }

    /// The tool as the session shows it: listed in the current listing (or
    /// in pages of the one being read).
    fn current(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name)
    }

    /// Whether a called tool was listed.
    pub fn called(&self, name: &str) -> Listed {
        let Some((_, listing)) = self.complete else {
            return Listed::Yes;
        };
        if self.stale || self.overflow || self.current(name).is_some() {
            return Listed::Yes;
        }
        match self.removed.get(name) {
            Some(&(listed, _)) => Listed::Removed { listed, listing },
            None => Listed::Never { listing },
        }
    }

    /// The violations of a `tools/call`'s arguments (`None`: conforming, or
    /// nothing to judge them by). Absent arguments are an empty object.
    pub fn arguments(&self, name: &str, arguments: Option<&Value>) -> Option<Violations> {
        let tool = self.current(name)?;
        let validator = tool.input.as_ref()?;
        let empty = Value::Object(Default::default());
        violations(
            validator,
            arguments.unwrap_or(&empty),
            "arguments",
            tool.line,
        )
    }

    /// Whether the tool listed as `name` declares an `outputSchema`.
    pub fn declares_output(&self, name: &str) -> bool {
        self.tools.get(name).is_some_and(|t| t.declares_output)
    }

    /// A successful `tools/call` result, against the tool's `outputSchema`.
    pub fn output(&self, name: &str, result: &Value) -> Output {
        let Some(tool) = self.current(name) else {
            return Output::Conforms;
        };
        if !tool.declares_output {
            return Output::Conforms;
        }
        let Some(structured) = result.get("structuredContent") else {
            return Output::Missing {
                listed_at: tool.line,
            };
        };
        match tool
            .output
            .as_ref()
            .and_then(|v| violations(v, structured, "structuredContent", tool.line))
        {
            Some(v) => Output::Violates(v),
            None => Output::Conforms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        t.listed(6, &json!({ "tools": tools }), true);
        t
    }

    #[test]
    fn arguments_are_judged_with_their_paths() {
        let t = listed(json!([{"name": "add", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}}]));
        let v = t
            .arguments("add", Some(&json!({"a": "two"})))
            .expect("violates");
        assert_eq!(v.listed_at, 6);
        assert_eq!(v.errors.len(), 2, "{:?}", v.errors);
        assert!(v.errors.iter().any(|e| e.starts_with("arguments.a: ")));
        assert!(
            v.errors
                .iter()
                .any(|e| e.starts_with("arguments: ") && e.contains("\"b\""))
        );
        assert!(t.arguments("add", Some(&json!({"a": 1, "b": 2}))).is_none());
        assert!(t.arguments("unlisted", Some(&json!({}))).is_none());
    }

    #[test]
    fn output_is_missing_or_violating() {
        let t = listed(json!([{"name": "n", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "required": ["count"]}}]));
        assert!(matches!(
            t.output("n", &json!({"content": []})),
            Output::Missing { listed_at: 6 }
        ));
        assert!(matches!(
            t.output(
                "n",
                &json!({"content": [], "structuredContent": {"total": "12"}})
            ),
            Output::Violates(_)
        ));
        assert!(matches!(
            t.output(
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
        let t = listed(json!([{"name": "deep", "inputSchema": deep}]));
        assert!(t.arguments("deep", Some(&json!(1))).is_none());
        // A recursive $ref compiles and terminates on a finite value.
        let t = listed(
            json!([{"name": "r", "inputSchema": {"$defs": {"n": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}}]),
        );
        assert!(
            t.arguments("r", Some(&json!({"next": {"next": 3}})))
                .is_some()
        );
        // A `$ref` outside the schema is not fetched: the schema is not compiled.
        let t = listed(json!([{"name": "x", "inputSchema": {"type": "object",
            "properties": {"a": {"$ref": "https://example.com/s.json"}}, "required": ["b"]}}]));
        assert!(t.arguments("x", Some(&json!({"a": 1}))).is_none());
        // A pattern that backtracks exponentially elsewhere runs in linear time.
        let t = listed(json!([{"name": "p", "inputSchema": {"type": "object",
            "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}}]));
        let s = format!("{}b", "a".repeat(5000));
        assert!(t.arguments("p", Some(&json!({"s": s}))).is_some());
        // Violations are capped.
        let t = listed(json!([{"name": "m", "inputSchema": {"type": "object",
            "additionalProperties": {"type": "integer"}}}]));
        let args: serde_json::Map<String, Value> =
            (0..10).map(|i| (format!("k{i}"), json!("s"))).collect();
        let v = t
            .arguments("m", Some(&Value::Object(args)))
            .expect("violates");
        assert_eq!(v.errors.len(), MAX_ERRORS);
        assert!(v.more);
    }

    #[test]
    fn a_repeated_listing_keeps_what_was_compiled_and_a_changed_one_does_not() {
        let schema = json!({"type": "object", "required": ["x"]});
        let mut t = listed(json!([{"name": "a", "inputSchema": schema}]));
        t.listed(
            9,
            &json!({"tools": [{"name": "a", "inputSchema": schema}]}),
            true,
        );
        assert_eq!(t.compiled, 1);
        assert_eq!(t.arguments("a", None).expect("violates").listed_at, 9);
        t.listed(
            12,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert_eq!(t.compiled, 2);
        assert!(t.arguments("a", None).is_none(), "the new schema is used");
    }

    #[test]
    fn a_list_after_list_changed_replaces() {
        let mut t =
            listed(json!([{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}]));
        t.listed(
            7,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}],
                "nextCursor": "2"}),
            true,
        );
        t.listed(
            8,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert!(t.arguments("a", None).is_some(), "pages add up");
        assert_eq!(t.called("b"), Listed::Yes);
        t.changed();
        assert_eq!(
            t.called("zzz"),
            Listed::Yes,
            "the current list is not shown"
        );
        t.listed(
            9,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert!(t.arguments("a", None).is_none(), "a was removed");
        assert_eq!(
            t.called("a"),
            Listed::Removed {
                listed: 7,
                listing: 9
            }
        );
        assert_eq!(t.called("zzz"), Listed::Never { listing: 9 });
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
        let lints = t.listed(3, &list, true);
        assert_eq!(lints.tools.len(), 1);
        assert!(
            t.listed(5, &list, true).tools.is_empty(),
            "a repeated listing is not linted again"
        );
    }

    #[test]
    fn a_call_is_judged_only_after_a_complete_listing() {
        let mut t = Tools::default();
        assert_eq!(t.called("a"), Listed::Yes, "nothing listed yet");
        t.listed(
            4,
            &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "p2"}), true);
        assert_eq!(t.called("b"), Listed::Yes, "the listing is not complete");
        t.listed(
            5,
            &json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}]}),
            true,
        );
        assert_eq!(t.called("a"), Listed::Yes);
        assert_eq!(t.called("b"), Listed::Yes);
        assert_eq!(t.called("c"), Listed::Never { listing: 5 });
        // While a new listing is read, the last complete one still holds.
        t.listed(
            8,
            &json!({"tools": [{"name": "c", "inputSchema": {"type": "object"}}], "nextCursor": "p2"}), true);
        assert_eq!(t.called("a"), Listed::Yes);
        assert_eq!(t.called("c"), Listed::Yes);
        t.listed(9, &json!({"tools": []}), true);
        assert_eq!(
            t.called("a"),
            Listed::Removed {
                listed: 4,
                listing: 9
            }
        );
        // A listing over the bound is not judged.
        let many: Vec<Value> = (0..MAX_TOOLS + 1)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
            .collect();
        t.listed(12, &json!({ "tools": many }), true);
        assert_eq!(t.called("unknown"), Listed::Yes);
    }
}
