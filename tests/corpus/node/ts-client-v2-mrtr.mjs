// A host on the official TypeScript SDK v2 client that declares form elicitation and answers
// every elicitation with accept and {confirm: true}; the SDK fulfils input_required results
// itself and retries.
//   node ts-client-v2-mrtr.mjs MODE LOG STEPS -- SERVER ARGS...   (STEPS: call:NAME:JSON)
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, log, steps, dashdash, ...server] = process.argv.slice(2);
if (dashdash !== '--' || server.length === 0) {
  console.error('usage: node ts-client-v2-mrtr.mjs MODE LOG STEPS -- SERVER ARGS...');
  process.exit(2);
}
const mcpdbg = process.env.MCPDBG ?? 'mcpdbg';
const negotiation = mode === 'auto' || mode === 'legacy' ? { mode } : { mode: { pin: mode } };
const client = new Client(
  { name: 'corpus-ts2-mrtr-client', version: '0.2.0' },
  { versionNegotiation: negotiation, capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
const transport = new StdioClientTransport({ command: mcpdbg, args: ['record', '--out', log, '--', ...server], stderr: 'inherit' });
const say = (what, value) => console.error(`${what}: ${JSON.stringify(value)}`);
try {
  await client.connect(transport);
  say('era', client.getProtocolEra());
  for (const step of steps.split(' ').filter(Boolean)) {
    const [kind, name, extra] = step.split(/:(.*?)(?::(.*))?$/s).filter((x) => x !== undefined);
    try {
      if (kind === 'call') say(name, await client.callTool({ name, arguments: JSON.parse(extra ?? '{}') }));
      else throw new Error(`unknown step ${step}`);
    } catch (e) {
      console.error(`${step} failed: ${e.message} (code ${e.code})`);
    }
  }
} catch (e) {
  console.error(`connect failed: ${e.message}`);
}
await client.close();
