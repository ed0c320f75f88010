//! Which of a `tools/call`'s two failure channels an answer used, against
//! the one the spec assigns: an unknown tool is a -32602 protocol error in
//! every revision; invalid arguments are a protocol error up to 2025-06-18
//! and an `isError: true` result from 2025-11-25.
//!
//! The evidence is what the log shows: the names of the server's last
//! complete `tools/list` (bounded by [`MAX_NAMES`]), the answer's own words
//! ("Unknown tool: x", "Tool x not found", "Invalid arguments"), and the
//! `--schema-check` verdict on the call's arguments. Where none of them says
//! which case a failure is, the rules stay silent.

use crate::wire::message::Field;
use serde_json::Value;

use super::hash::HashSet;

/// Tool names kept from one listing; a longer listing is not used.
pub const MAX_NAMES: usize = 4096;

/// The names of the server's last listing, across its pages.
#[derive(Debug, Default)]
pub struct Listing {
    names: HashSet<Box<str>>,
    /// The line of the listing's first page.
    line: u64,
    /// The last page had a `nextCursor`: the next page adds to this one.
    pending: bool,
    /// Every page arrived, within [`MAX_NAMES`], and no
    /// `notifications/tools/list_changed` came since.
    complete: bool,
}

impl Listing {
    /// A `tools/list` result page.
    pub fn page(&mut self, line: u64, result: &Value) {
        if !self.pending {
            self.names.clear();
            self.line = line;
        }
        let Some(tools) = result.field("tools").and_then(Value::as_array) else {
            self.pending = false;
            self.complete = false;
            return;
        };
        let fits = self.names.len() + tools.len() <= MAX_NAMES;
        if fits {
            for name in tools.iter().filter_map(|t| t.field("name")?.as_str()) {
                self.names.insert(name.into());
            }
        } else {
            self.names.clear();
        }
        let next = result.field("nextCursor").is_some_and(|c| !c.is_null());
        self.pending = next && fits;
        self.complete = !next && fits;
    }

    /// `notifications/tools/list_changed`: the listing is out of date.
    pub fn changed(&mut self) {
        self.pending = false;
        self.complete = false;
    }

    /// The line of a complete listing that does not have `name`.
    pub fn lacks(&self, name: &str) -> Option<u64> {
        (self.complete && !self.names.contains(name)).then_some(self.line)
    }
}

/// The answer's text says the tool does not exist: "Unknown tool: x", "no
/// such tool", "tool not found", "Tool x not found" (the name quoted or not).
pub fn says_unknown_tool(text: &str, name: &str) -> bool {
    let text = text.to_ascii_lowercase();
    if ["unknown tool", "no such tool", "tool not found"]
        .iter()
        .any(|p| text.contains(p))
    {
        return true;
    }
    let name = name.to_ascii_lowercase();
    if name.is_empty() {
        return false;
    }
    ["", "'", "\"", "`"].iter().any(|q| {
        ["not found", "does not exist", "is not registered"]
            .iter()
            .any(|end| text.contains(&format!("tool {q}{name}{q} {end}")))
    })
}

/// The answer's text says the arguments were rejected: the SDKs' "Input
/// validation error", "Invalid arguments", "invalid params" for a tool.
pub fn says_invalid_arguments(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    [
        "input validation error",
        "invalid arguments",
        "invalid argument",
        "failed to deserialize parameters",
        "validation error for",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// The texts of a result's content blocks, joined.
pub fn result_text(result: &Value) -> String {
    result
        .field("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.field("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_tool_wordings() {
        assert!(says_unknown_tool("Unknown tool: nope", "nope"));
        assert!(says_unknown_tool(
            "MCP error -32602: Tool delete_all not found",
            "delete_all"
        ));
        assert!(says_unknown_tool("tool 'x' does not exist", "x"));
        assert!(!says_unknown_tool("file not found: a.txt", "read_file"));
        assert!(!says_unknown_tool(
            "Tool read_file failed: not found",
            "read_file"
        ));
    }

    #[test]
    fn invalid_argument_wordings() {
        assert!(says_invalid_arguments(
            "MCP error -32602: Input validation error: Invalid arguments for tool add"
        ));
        assert!(!says_invalid_arguments("file not found"));
    }

    #[test]
    fn a_listing_across_pages_and_its_changes() {
        let mut l = Listing::default();
        assert_eq!(l.lacks("a"), None, "no listing yet: nothing known");
        l.page(3, &json!({"tools": [{"name": "a"}], "nextCursor": "2"}));
        assert_eq!(l.lacks("z"), None, "an incomplete listing says nothing");
        l.page(5, &json!({"tools": [{"name": "b"}]}));
        assert_eq!(l.lacks("b"), None);
        assert_eq!(l.lacks("a"), None);
        assert_eq!(l.lacks("z"), Some(3));
        l.changed();
        assert_eq!(l.lacks("z"), None);
        l.page(9, &json!({"tools": [{"name": "z"}]}));
        assert_eq!(l.lacks("z"), None);
        assert_eq!(l.lacks("a"), Some(9), "a new listing replaces the old");
    }
}
