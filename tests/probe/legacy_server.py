"""A legacy-only MCP server by hand, for the probe's `--era auto` test: it
answers `server/discover` with -32601 (as a server from before 2026-07-28
does), then speaks the 2025-11-25 handshake with one tool. With the
argument `silent` it reads its input and never answers anything."""

import json
import sys

silent = sys.argv[1:] == ["silent"]
for line in sys.stdin:
    if silent:
        continue
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy-by-hand", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    elif method == "ping":
        result = {}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
