//! A server's surface (its tools, resources, resource templates and
//! prompts, as its list requests answered them) and the baseline file that
//! stores it, for `probe --baseline`: `Surface::of` (in `views/baseline.rs`)
//! reads it from a capture, [`Surface::to_json`] and [`Surface::parse`]
//! write and read the file, the family (`rules/baseline/mod.rs`) turns the
//! differences into findings.
//!
//! The file (docs/ci.md): one JSON object, `{"format": "mcpdbg-baseline",
//! "version": 1, "tools": [...], "resources": [...], "resourceTemplates":
//! [...], "prompts": [...], "toolListCost": {"bytes": N, "tools": {NAME:
//! N}}}` (the cost added within version 1: a file without it still reads,
//! and an earlier mcpdbg ignores it), each list sorted by its key (`name`, `uri`,
//! `uriTemplate`, `name`), each item holding only the fields compared, keys
//! sorted at every depth, two-space indentation and a final newline, so
//! that the same surface always gives the same bytes and a change is a
//! small diff in review. No I/O here: the caller reads and writes the file.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The baseline file's `format` member.
pub const FORMAT: &str = "mcpdbg-baseline";

/// The baseline file's version: a file of a later version is refused.
pub const VERSION: u64 = 1;

/// The most items of one list taken (the probe reads at most 100 pages).
pub(crate) const MAX_ITEMS: usize = 100_000;

/// The four lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Tool, Kind::Resource, Kind::Template, Kind::Prompt];

    /// The member of the list result, and of the baseline file.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Tool => "tools",
            Kind::Resource => "resources",
            Kind::Template => "resourceTemplates",
            Kind::Prompt => "prompts",
        }
    }

    pub fn method(self) -> &'static str {
        match self {
            Kind::Tool => "tools/list",
            Kind::Resource => "resources/list",
            Kind::Template => "resources/templates/list",
            Kind::Prompt => "prompts/list",
        }
    }

    /// The member that names an item.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Kind::Tool | Kind::Prompt => "name",
            Kind::Resource => "uri",
            Kind::Template => "uriTemplate",
        }
    }

    /// The members kept and compared, besides the id. Not kept: what
    /// changes from run to run (a resource's `size`), `_meta` and icons.
    pub(crate) fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => &[
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
            ],
            Kind::Resource | Kind::Template => &["name", "title", "description", "mimeType"],
            Kind::Prompt => &["title", "description", "arguments"],
        }
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Template => "resource template",
            Kind::Prompt => "prompt",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// One list as the server answered it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Listed {
    /// By id: the kept members (keys sorted), and the line of the response
    /// that listed it (0 in a baseline file).
    pub items: BTreeMap<String, (Map<String, Value>, u64)>,
    /// The line of the list's first response.
    pub line: Option<u64>,
    /// Why the list is not complete (a page unanswered or refused), if it
    /// is not: it is then not compared, nor written.
    pub incomplete: Option<String>,
}

/// What the tool list costs a model's context: each tool's definition in
/// bytes (`crate::cost`: minified, which does not depend on the order of
/// members), and their sum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListCost {
    pub bytes: u64,
    pub tools: BTreeMap<String, u64>,
}

impl ListCost {
    /// The cost of the tools of `listed`.
    pub fn of(listed: &Listed) -> ListCost {
        let mut cost = ListCost::default();
        for (name, (kept, _)) in &listed.items {
            let mut tool = kept.clone();
            tool.insert("name".into(), Value::String(name.clone()));
            let bytes = crate::cost::definition(&tool, crate::cost::Tokenizer::Estimate).bytes;
            cost.bytes = cost.bytes.saturating_add(bytes);
            cost.tools.insert(name.clone(), bytes);
        }
        cost
    }
}

/// The baseline file's member for the tool list's cost.
pub const COST_KEY: &str = "toolListCost";

/// The server's tools, resources, resource templates and prompts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    pub lists: [Listed; 4],
    /// The line of the handshake's answer (where the capabilities were
    /// declared): where a list the server no longer offers is reported.
    pub handshake_line: u64,
    /// The tool list's cost: measured (a capture's), or as recorded (a
    /// baseline file's; `None` for a file written before mcpdbg recorded
    /// it).
    pub cost: Option<ListCost>,
}

impl Surface {
    pub fn list(&self, kind: Kind) -> &Listed {
        &self.lists[kind.index()]
    }

    /// The first list that is not complete, with why.
    pub fn incomplete(&self) -> Option<&str> {
        self.lists.iter().find_map(|l| l.incomplete.as_deref())
    }

    /// The baseline file's text.
    pub fn to_json(&self) -> String {
        let mut doc = Map::new();
        doc.insert("format".into(), FORMAT.into());
        doc.insert("version".into(), VERSION.into());
        for kind in Kind::ALL {
            let items = self
                .list(kind)
                .items
                .iter()
                .map(|(id, (kept, _))| {
                    let mut item = kept.clone();
                    item.insert(kind.id().into(), Value::String(id.clone()));
                    Value::Object(sorted(item))
                })
                .collect();
            doc.insert(kind.key().into(), Value::Array(items));
        }
        if let Some(cost) = &self.cost {
            let tools: Map<String, Value> = cost
                .tools
                .iter()
                .map(|(name, bytes)| (name.clone(), Value::from(*bytes)))
                .collect();
            let mut member = Map::new();
            member.insert("bytes".into(), cost.bytes.into());
            member.insert("tools".into(), Value::Object(tools));
            doc.insert(COST_KEY.into(), Value::Object(member));
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(doc)).expect("JSON values");
        text.push('\n');
        text
    }

    /// Reads a baseline file. `Err` says what is wrong with it.
    pub fn parse(text: &str) -> Result<Surface, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("it is not JSON ({e})"))?;
        let Value::Object(doc) = doc else {
            return Err("it is not a JSON object".into());
        };
        if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!("it has no \"format\": \"{FORMAT}\""));
        }
        match doc.get("version").and_then(Value::as_u64) {
            Some(VERSION) => {}
            Some(v) if v > VERSION => {
                return Err(format!(
                    "it is version {v}, written by a later mcpdbg (this one reads version {VERSION})"
                ));
            }
            _ => return Err(format!("it has no \"version\": {VERSION}")),
        }
        let mut surface = Surface::default();
        for kind in Kind::ALL {
            let items = match doc.get(kind.key()) {
                None => continue,
                Some(Value::Array(items)) => items,
                Some(_) => return Err(format!("\"{}\" is not an array", kind.key())),
            };
            for item in items.iter().take(MAX_ITEMS) {
                let (id, kept) = keep(kind, item).ok_or_else(|| {
                    format!(
                        "an item of \"{}\" is not an object with a string \"{}\"",
                        kind.key(),
                        kind.id()
                    )
                })?;
                surface.lists[kind.index()].items.insert(id, (kept, 0));
            }
        }
        surface.cost = match doc.get(COST_KEY) {
            None => None,
            Some(cost) => Some(read_cost(cost).ok_or_else(|| {
                format!("\"{COST_KEY}\" is not an object of \"bytes\" and \"tools\" (tool names to bytes)")
            })?),
        };
        Ok(surface)
    }

    /// How many items of each list, in words (`3 tools, 1 resource, ...`).
    pub fn counts(&self) -> String {
        Kind::ALL
            .iter()
            .map(|k| {
                let n = self.list(*k).items.len();
                let word = k.word();
                if n == 1 {
                    format!("1 {word}")
                } else {
                    format!("{n} {word}s")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The recorded tool-list cost, when it is well formed.
fn read_cost(v: &Value) -> Option<ListCost> {
    let bytes = v.get("bytes")?.as_u64()?;
    let tools = v
        .get("tools")?
        .as_object()?
        .iter()
        .take(MAX_ITEMS)
        .map(|(name, b)| Some((name.clone(), b.as_u64()?)))
        .collect::<Option<BTreeMap<String, u64>>>()?;
    Some(ListCost { bytes, tools })
}

/// An item's id and the members kept, with keys sorted at every depth.
pub(crate) fn keep(kind: Kind, item: &Value) -> Option<(String, Map<String, Value>)> {
    let item = item.as_object()?;
    let id = item.get(kind.id())?.as_str()?.to_string();
    let kept = kind
        .fields()
        .iter()
        .filter_map(|f| item.get(*f).map(|v| (f.to_string(), canonical(v))))
        .collect();
    Some((id, sorted(kept)))
}

fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

/// The value with the keys of every object sorted.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(sorted(
            map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect(),
        )),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A surface of these tools, listed at line 10 on.
    pub(crate) fn surface(tools: Value) -> Surface {
        let mut s = Surface::default();
        for (i, t) in tools.as_array().expect("array").iter().enumerate() {
            let (id, kept) = keep(Kind::Tool, t).expect("tool");
            s.lists[0].items.insert(id, (kept, 10 + i as u64));
        }
        s.lists[0].line = Some(10);
        s
    }

    #[test]
    fn the_file_is_deterministic_and_reads_back() {
        let a = surface(json!([
            {"name": "b", "inputSchema": {"type": "object", "properties": {"y": {}, "x": {}}}, "size": 3},
            {"name": "a", "description": "first"}
        ]));
        let text = a.to_json();
        assert!(text.find("\"a\"").expect("a") < text.find("\"b\"").expect("b"));
        assert!(text.find("\"x\"").expect("x") < text.find("\"y\"").expect("y"));
        assert!(!text.contains("size"));
        assert!(text.ends_with("}\n"));
        let back = Surface::parse(&text).expect("reads back");
        assert_eq!(back.to_json(), text);
        assert!(
            Surface::parse("{\"format\":\"mcpdbg-baseline\",\"version\":2}")
                .expect_err("later version")
                .contains("later mcpdbg")
        );
        assert!(Surface::parse("[]").is_err());
        assert!(
            Surface::parse("{\"format\":\"mcpdbg-baseline\",\"version\":1,\"tools\":[1]}").is_err()
        );
    }
}
