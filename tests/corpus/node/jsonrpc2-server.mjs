// A naive "MCP server" on the generic json-rpc-2.0 library, written from the JSON-RPC 2.0
// spec: each stdin line goes to JSONRPCServer.receiveJSON and the answer is written as one
// line. It echoes the client's protocolVersion. A failing tool throws, which the library
// answers with its default error code 0; an unknown tool gets -32602.
import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import readline from 'node:readline';

const tools = [
  { name: 'echo', description: 'Echo a text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } },
];

const server = new JSONRPCServer();
server.addMethod('initialize', ({ protocolVersion }) => ({
  protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'jsonrpc2-notes', version: '0.1.0' },
}));
server.addMethod('notifications/initialized', () => null);
server.addMethod('tools/list', () => ({ tools }));
server.addMethod('tools/call', ({ name, arguments: args }) => {
  if (name === 'echo') return { content: [{ type: 'text', text: args.text }] };
  if (name === 'fail') throw new Error('notes database is locked');
  throw new JSONRPCErrorException(`unknown tool ${name}`, -32602);
});

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const response = await server.receiveJSON(line);
  if (response) process.stdout.write(JSON.stringify(response) + '\n');
});
