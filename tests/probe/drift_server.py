"""A small MCP server on the official Python SDK (MCPServer, the SDK's
FastMCP) whose surface is chosen by the argument, for the probe's
--baseline tests:

  v1       tools add(a, b) and search(query), resource notes://index,
           prompt summarise(text)
  added    v1 and the tool export(path)
  removed  v1 without search
  schema   v1 with add(a, b, c): a new required argument
  wording  v1 with another description for search, a few words longer
  verbose  v1 with a description for search many times as long (the
           tool list's cost grows by far more than 10%)
"""

import sys

from mcp.server.mcpserver import MCPServer

variant = sys.argv[1] if len(sys.argv) > 1 else "v1"
server = MCPServer("drift-server")

if variant == "schema":

    @server.tool()
    def add(a: int, b: int, c: int) -> int:
        """Add integers."""
        return a + b + c

else:

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add integers."""
        return a + b


if variant != "removed":
    words = {
        "wording": "Search the notes by words.",
        "verbose": "Search the notes. " + " ".join(
            f"Rule {n}: match every word of the query, in any order, in the title or the text."
            for n in range(1, 6)
        ),
    }.get(variant, "Search the notes.")

    @server.tool(description=words)
    def search(query: str) -> list[str]:
        return [query]


if variant == "added":

    @server.tool()
    def export(path: str) -> str:
        """Export the notes to a file."""
        return path


@server.resource("notes://index", mime_type="text/plain")
def index() -> str:
    """The list of notes."""
    return "no notes"


@server.prompt()
def summarise(text: str) -> str:
    """Summarise a text."""
    return f"Summarise: {text}"


if __name__ == "__main__":
    server.run("stdio")
