"""A FastMCP server script written for FastMCP 2.x, run under FastMCP 4: it imports ToolResult
from fastmcp.tools.tool, where 2.x kept it, so the process dies at start-up with an
ImportError before it can answer initialize.
"""

from fastmcp import FastMCP
from fastmcp.tools.tool import ToolResult  # moved to fastmcp.tools in later releases

mcp = FastMCP("fastmcp-notes")


@mcp.tool
def count_notes() -> ToolResult:
    """How many notes there are."""
    return ToolResult(content="12 notes")


if __name__ == "__main__":
    mcp.run()
