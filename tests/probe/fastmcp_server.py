"""A small server on FastMCP (PyPI fastmcp, built on the official MCP Python
SDK), written the way its README shows, for the probe tests: one tool, one
resource, one prompt."""

from fastmcp import FastMCP

mcp = FastMCP("fastmcp-probe")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.resource("notes://index")
def index() -> str:
    """The list of notes."""
    return "no notes"


@mcp.prompt
def summarise(text: str) -> str:
    """Summarise a text."""
    return f"Summarise: {text}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
