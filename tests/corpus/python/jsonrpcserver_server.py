"""A naive "MCP server" on the generic `jsonrpcserver` library, written from the JSON-RPC 2.0
spec only: one request per line on stdin, answers on stdout. It echoes the client's
protocolVersion, and a failing tool returns Error(1, ...), a code the developer made up.
"""

import sys

from jsonrpcserver import Error, Result, Success, dispatch, method

TOOLS = [
    {"name": "echo", "description": "Echo a text back",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "fail", "description": "Always fails", "inputSchema": {"type": "object", "properties": {}}},
]


@method(name="initialize")
def initialize(protocolVersion, capabilities, clientInfo) -> Result:
    return Success({"protocolVersion": protocolVersion, "capabilities": {"tools": {}},
                    "serverInfo": {"name": "jsonrpcserver-notes", "version": "0.1.0"}})


@method(name="notifications/initialized")
def initialized() -> Result:
    return Success(None)


@method(name="tools/list")
def tools_list() -> Result:
    return Success({"tools": TOOLS})


@method(name="tools/call")
def tools_call(name, arguments=None) -> Result:
    if name == "echo":
        return Success({"content": [{"type": "text", "text": arguments["text"]}]})
    if name == "fail":
        return Error(1, "notes database is locked")
    return Error(-32602, f"unknown tool {name}")


for line in iter(sys.stdin.readline, ""):
    response = dispatch(line)
    if response:
        sys.stdout.write(response + "\n")
        sys.stdout.flush()
