// A small host on the official TypeScript SDK v2 client (@modelcontextprotocol/client).
//   node ts-client-v2.mjs MODE LOG STEPS -- SERVER ARGS...
// MODE: auto (probe with server/discover, fall back to initialize), legacy, or a pinned
// version such as 2026-07-28. LOG may hold {pid}: in auto mode the SDK probes in a sibling
// process started from the same command, so that probe gets a recording of its own.
// STEPS as in ts-client.mjs: list, call:NAME:JSON, timeout:NAME:MS.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, log, steps, dashdash, ...server] = process.argv.slice(2);
if (dashdash !== '--' || server.length === 0) {
  console.error('usage: node ts-client-v2.mjs MODE LOG STEPS -- SERVER ARGS...');
  process.exit(2);
}
const mcpdbg = process.env.MCPDBG ?? 'mcpdbg';
const negotiation = mode === 'auto' || mode === 'legacy' ? { mode } : { mode: { pin: mode } };
const client = new Client({ name: 'corpus-ts2-client', version: '0.2.0' }, { versionNegotiation: negotiation });
const transport = new StdioClientTransport({
  command: mcpdbg,
  args: ['record', '--out', log, '--', ...server],
  stderr: 'inherit',
});
const say = (what, value) => console.error(`${what}: ${JSON.stringify(value)}`);
try {
  await client.connect(transport);
  say('era', client.getProtocolEra());
  for (const step of steps.split(' ').filter(Boolean)) {
    const [kind, name, extra] = step.split(/:(.*?)(?::(.*))?$/s).filter((x) => x !== undefined);
    try {
      if (kind === 'list') say('tools', (await client.listTools()).tools.map((t) => t.name));
      else if (kind === 'call') say(name, await client.callTool({ name, arguments: JSON.parse(extra ?? '{}') }));
      else if (kind === 'timeout') say(name, await client.callTool({ name, arguments: {} }, { timeout: Number(extra) }));
      else throw new Error(`unknown step ${step}`);
    } catch (e) {
      console.error(`${step} failed: ${e.message} (code ${e.code})`);
    }
  }
} catch (e) {
  console.error(`connect failed: ${e.message}`);
}
await client.close();
