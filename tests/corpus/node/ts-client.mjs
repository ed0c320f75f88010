// A small host on the official TypeScript SDK client (v1, @modelcontextprotocol/sdk).
// It starts the server through the recorder, so the recorder sits between the two:
//   node ts-client.mjs LOG STEPS -- SERVER ARGS...
// STEPS is a comma-free list of steps separated by spaces, run in order:
//   list                 tools/list
//   ping                 ping
//   call:NAME:JSON       tools/call with these arguments
//   timeout:NAME:MS      tools/call that the SDK gives up on after MS (it sends notifications/cancelled)
//   abort:NAME:MS        tools/call aborted by the host after MS (notifications/cancelled)
//   close:NAME:MS        tools/call; after MS the host closes the connection without cancelling
//   restart              close the connection and start the server again (recorded with --append)
// Errors are printed to stderr and the next step runs. MCPDBG names the mcpdbg binary.
// CONNECT_TIMEOUT_MS bounds the initialize handshake. SDK_PACKAGE picks the installed copy of
// the SDK (default @modelcontextprotocol/sdk; sdk-1-0 is the same SDK pinned at 1.0.4).
const sdk = process.env.SDK_PACKAGE ?? '@modelcontextprotocol/sdk';
const { Client } = await import(`${sdk}/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/client/stdio.js`);

const [log, steps, dashdash, ...server] = process.argv.slice(2);
if (dashdash !== '--' || server.length === 0) {
  console.error('usage: node ts-client.mjs LOG STEPS -- SERVER ARGS...');
  process.exit(2);
}
const mcpdbg = process.env.MCPDBG ?? 'mcpdbg';
const connectTimeout = Number(process.env.CONNECT_TIMEOUT_MS ?? 60000);

async function start(append) {
  const client = new Client({ name: 'corpus-ts-client', version: '0.1.0' }, { capabilities: {} });
  const args = ['record', ...(append ? ['--append'] : []), '--out', log, '--', ...server];
  const transport = new StdioClientTransport({ command: mcpdbg, args, stderr: 'inherit' });
  try {
    await client.connect(transport, { timeout: connectTimeout });
  } catch (e) {
    console.error(`connect failed: ${e.message}`);
  }
  return client;
}

const say = (what, value) => console.error(`${what}: ${JSON.stringify(value)}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let client = await start(false);
for (const step of steps.split(' ').filter(Boolean)) {
  const [kind, name, extra] = step.split(/:(.*?)(?::(.*))?$/s).filter((x) => x !== undefined);
  try {
    if (kind === 'list') say('tools', (await client.listTools()).tools.map((t) => t.name));
    else if (kind === 'ping') say('ping', await client.ping());
    else if (kind === 'call') say(name, await client.callTool({ name, arguments: JSON.parse(extra ?? '{}') }));
    else if (kind === 'timeout') say(name, await client.callTool({ name, arguments: {} }, undefined, { timeout: Number(extra) }));
    else if (kind === 'abort') {
      const ctl = new AbortController();
      setTimeout(() => ctl.abort('the user pressed stop'), Number(extra));
      say(name, await client.callTool({ name, arguments: {} }, undefined, { signal: ctl.signal }));
    } else if (kind === 'close') {
      const call = client.callTool({ name, arguments: {} });
      const first = await Promise.race([call, sleep(Number(extra)).then(() => 'gave up')]);
      if (first === 'gave up') {
        console.error(`${name}: giving up, closing the connection`);
        await client.close();
        await call.catch((e) => console.error(`${name}: ${e.message}`));
      } else say(name, first);
    } else if (kind === 'restart') {
      await client.close();
      await sleep(200);
      client = await start(true);
    } else throw new Error(`unknown step ${step}`);
  } catch (e) {
    console.error(`${step} failed: ${e.message} (code ${e.code})`);
  }
}
await client.close();
