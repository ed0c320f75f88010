"""A raw 2026-07-28 client without the legacy fallback, for the fixture
fixtures/rules/no-legacy-fallback.log: it probes with server/discover and,
whatever the answer, goes on with modern requests (tools/list, then
tools/call echo). usage: no_fallback_client.py SERVER-COMMAND..."""
import json, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(m):
    p.stdin.write((json.dumps(m, separators=(",",":"))+"\n").encode()); p.stdin.flush()
meta = {"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw-client","version":"0.1"}}
def call(i, method, params=None):
    params = dict(params or {}); params["_meta"] = meta
    send({"jsonrpc":"2.0","id":i,"method":method,"params":params})
    while True:
        line = p.stdout.readline()
        if not line: return None
        m = json.loads(line)
        if m.get("id") == i: return m
call(1, "server/discover")
call(2, "tools/list")
call(3, "tools/call", {"name":"echo","arguments":{"message":"hi"}})
p.stdin.close(); p.wait()
