"""A small notes server on FastMCP (PyPI fastmcp), written the way its README shows.

Tools: echo; weather (a typed result, so FastMCP declares an outputSchema); count_notes
(declares an outputSchema with an integer `count` but returns structured content with a
string `total`, a mistake FastMCP lets through when the handler builds the ToolResult
itself); fail (raises ToolError); wait_forever.
"""

import asyncio

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from pydantic import BaseModel

mcp = FastMCP("fastmcp-notes")


class Weather(BaseModel):
    city: str
    celsius: float


@mcp.tool
def echo(text: str) -> str:
    """Echo a text back."""
    return text


@mcp.tool
def weather(city: str) -> Weather:
    """Today's weather in a city."""
    return Weather(city=city, celsius=21.5)


@mcp.tool(output_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]})
def count_notes() -> ToolResult:
    """How many notes there are."""
    return ToolResult(content="12 notes", structured_content={"total": "12"})


@mcp.tool
def fail() -> str:
    """Always fails."""
    raise ToolError("notes database is locked")


@mcp.tool
async def wait_forever() -> str:
    """Never returns."""
    await asyncio.Event().wait()
    return "unreachable"


if __name__ == "__main__":
    mcp.run()
