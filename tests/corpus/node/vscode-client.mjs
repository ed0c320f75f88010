// A naive MCP host on vscode-jsonrpc: it starts the server through the recorder and talks
// to it over a message connection with the library's default (Content-Length) framing.
// The last call is cancelled through a CancellationToken, which vscode-jsonrpc sends as
// its own $/cancelRequest notification; the host waits one more second for an answer, then
// closes the connection.
//   node vscode-client.mjs LOG -- SERVER ARGS...   (MCPDBG names the mcpdbg binary)
import { spawn } from 'node:child_process';
import * as rpc from 'vscode-jsonrpc/node';

const [log, dashdash, ...server] = process.argv.slice(2);
if (dashdash !== '--' || server.length === 0) {
  console.error('usage: node vscode-client.mjs LOG -- SERVER ARGS...');
  process.exit(2);
}
const child = spawn(process.env.MCPDBG ?? 'mcpdbg', ['record', '--out', log, '--', ...server], { stdio: ['pipe', 'pipe', 'inherit'] });
const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
connection.listen();

const init = await connection.sendRequest('initialize', {
  protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'vscode-jsonrpc-host', version: '0.1.0' },
});
console.error(`initialize: ${JSON.stringify(init)}`);
await connection.sendNotification('notifications/initialized');
console.error(`tools: ${JSON.stringify((await connection.sendRequest('tools/list', {})).tools.map((t) => t.name))}`);
console.error(`echo: ${JSON.stringify(await connection.sendRequest('tools/call', { name: 'echo', arguments: { text: 'framed' } }))}`);
const source = new rpc.CancellationTokenSource();
setTimeout(() => source.cancel(), 500);
const pending = connection.sendRequest('tools/call', { name: 'wait_forever', arguments: {} }, source.token)
  .then((r) => `answered ${JSON.stringify(r)}`, (e) => `failed: ${e.message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(() => resolve('no answer, closing'), ms));
console.error(`wait_forever: ${await Promise.race([pending, sleep(1500)])}`);
connection.dispose();
child.stdin.end();
await new Promise((resolve) => child.on('exit', resolve));
