"""A naive "MCP server" on the generic `json-rpc` library (PyPI json-rpc), written from the
JSON-RPC 2.0 spec and an old MCP tutorial only: it reads one request per line on stdin and
answers initialize (always with the 2024-11-05 version it was written for), tools/list and
tools/call. A failing tool raises, which the library turns into its default -32000 error.
"""

import sys

from jsonrpc import JSONRPCResponseManager, dispatcher

TOOLS = [
    {"name": "echo", "description": "Echo a text back",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "fail", "description": "Always fails", "inputSchema": {"type": "object", "properties": {}}},
]


@dispatcher.add_method(name="initialize")
def initialize(**params):
    return {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
            "serverInfo": {"name": "jsonrpc-notes", "version": "0.1.0"}}


@dispatcher.add_method(name="notifications/initialized")
def initialized(**params):
    return None


@dispatcher.add_method(name="tools/list")
def tools_list(**params):
    return {"tools": TOOLS}


@dispatcher.add_method(name="tools/call")
def tools_call(name, arguments=None):
    if name == "echo":
        return {"content": [{"type": "text", "text": arguments["text"]}]}
    if name == "fail":
        raise RuntimeError("notes database is locked")
    raise KeyError(name)


for line in iter(sys.stdin.readline, ""):
    response = JSONRPCResponseManager.handle(line, dispatcher)
    if response is not None:
        sys.stdout.write(response.json + "\n")
        sys.stdout.flush()
