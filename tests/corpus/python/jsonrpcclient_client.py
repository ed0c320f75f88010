"""A naive MCP host on the generic `jsonrpcclient` library, written from the JSON-RPC 2.0 spec
only: it starts the server through the recorder and sends every message, including
notifications/initialized, with jsonrpcclient's request_json (so each one gets an id).

usage: python jsonrpcclient_client.py LOG -- SERVER ARGS...   (MCPDBG names the mcpdbg binary)
"""

import os
import subprocess
import sys

from jsonrpcclient import parse_json, request_json

log, dashdash, *server = sys.argv[1:]
assert dashdash == "--" and server, __doc__
proc = subprocess.Popen([os.environ.get("MCPDBG", "mcpdbg"), "record", "--out", log, "--", *server],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def rpc(method, params=None):
    proc.stdin.write(request_json(method, params=params) + "\n")
    proc.stdin.flush()
    answer = parse_json(proc.stdout.readline())
    print(f"{method}: {answer}", file=sys.stderr)
    return answer


rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "jsonrpcclient-host", "version": "0.1.0"}})
rpc("notifications/initialized")
rpc("tools/list")
rpc("tools/call", {"name": "echo", "arguments": {"text": "hello"}})
rpc("tools/call", {"name": "fail", "arguments": {}})
rpc("ping")
proc.stdin.close()
proc.wait()
