// A host on the official TypeScript SDK client that talks to `mcpdbg mock`, for the mock tests.
//   node client.mjs SDK MODE STEPS -- COMMAND ARGS...
// SDK: v1 (@modelcontextprotocol/sdk) or v2 (@modelcontextprotocol/client). MODE (v2 only):
// legacy, auto, or a pinned version such as 2026-07-28; v1 always speaks legacy. STEPS is a
// JSON list of steps run in order: {"list": true}, {"ping": true}, {"call": NAME,
// "arguments": {...}, "timeout": MS}. The v2 client declares form elicitation and answers it
// with accept and {confirm: true} (the SDK fulfils input_required results itself). Prints one
// JSON document on stdout: {"steps": [...]}, each step's outcome as {"result": RESULT} or
// {"error": {"code": CODE, "message": TEXT}}, with the milliseconds it took ("ms").
const [sdk, mode, steps, dashdash, command, ...args] = process.argv.slice(2);
if (dashdash !== '--' || !command) {
  console.error('usage: node client.mjs SDK MODE STEPS -- COMMAND ARGS...');
  process.exit(2);
}
const info = { name: 'mcpdbg-mock-test', version: '0.1.0' };
let client;
let transport;
if (sdk === 'v1') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  client = new Client(info, { capabilities: {} });
  transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
} else {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const negotiation = mode === 'auto' || mode === 'legacy' ? { mode } : { mode: { pin: mode } };
  client = new Client(info, { versionNegotiation: negotiation, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
  transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
}
const outcomes = [];
try {
  await client.connect(transport);
  for (const s of JSON.parse(steps)) {
    const start = performance.now();
    try {
      if (s.list) outcomes.push({ result: await client.listTools() });
      else if (s.ping) outcomes.push({ result: await client.ping() });
      else {
        const options = s.timeout ? { timeout: s.timeout } : undefined;
        const params = { name: s.call, arguments: s.arguments ?? {} };
        const result = sdk === 'v1' ? await client.callTool(params, undefined, options) : await client.callTool(params, options);
        outcomes.push({ result });
      }
    } catch (e) {
      outcomes.push({ error: { code: e.code ?? null, message: String(e.message) } });
    }
    outcomes[outcomes.length - 1].ms = Math.round(performance.now() - start);
  }
} catch (e) {
  outcomes.push({ error: { code: e.code ?? null, message: `connect failed: ${e.message}` } });
}
console.log(JSON.stringify({ steps: outcomes }));
await client.close();
