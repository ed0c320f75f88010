"""A notes server on the official MCP Python SDK 2.x low-level Server (no MCPServer/FastMCP).

Its count_notes tool declares an outputSchema with an integer `count` and returns
structuredContent {"total": "12"}: the low-level Server passes a handler's CallToolResult
through as it is, so nothing on the server side checks it against the declared schema.
usage: python py_lowlevel_server.py
"""

import asyncio

import mcp.server.stdio
import mcp_types as types
from mcp.server.lowlevel import Server

COUNT_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
}


async def list_tools(ctx, params):
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="count_notes",
                description="Count the notes.",
                input_schema={"type": "object", "properties": {}},
                output_schema=COUNT_SCHEMA,
            ),
        ]
    )


async def call_tool(ctx, params):
    if params.name == "count_notes":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text='{"total": "12"}')],
            structured_content={"total": "12"},
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"Unknown tool: {params.name}")],
        is_error=True,
    )


server = Server("py-lowlevel-notes", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with mcp.server.stdio.stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
