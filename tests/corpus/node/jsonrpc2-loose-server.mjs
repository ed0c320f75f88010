// A naive "MCP server" on the generic json-rpc-2.0 library, written by someone who read the
// JSON-RPC 2.0 spec and skimmed MCP's tool listing: its tools' inputSchema leave out
// `type: "object"` (one has only `properties`), a title is a number, and the listing ends
// with `nextCursor: null`. It echoes the client's protocolVersion and checks arguments itself,
// answering bad ones with a -32602 "Invalid arguments" protocol error, as MCP asked up to
// 2025-06-18; an unknown tool gets -32602 too.
import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import readline from 'node:readline';

const tools = [
  { name: 'add', title: 2, description: 'Add two numbers', inputSchema: { properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  { name: 'echo', description: 'Echo a text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
];

const server = new JSONRPCServer();
server.addMethod('initialize', ({ protocolVersion }) => ({
  protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'jsonrpc2-loose', version: '0.1.0' },
}));
server.addMethod('notifications/initialized', () => null);
server.addMethod('tools/list', () => ({ tools, nextCursor: null }));
server.addMethod('tools/call', ({ name, arguments: args }) => {
  if (name === 'add') {
    if (typeof args?.a !== 'number' || typeof args?.b !== 'number') {
      throw new JSONRPCErrorException('Invalid arguments for tool add: a and b must be numbers', -32602);
    }
    return { content: [{ type: 'text', text: String(args.a + args.b) }] };
  }
  if (name === 'echo') return { content: [{ type: 'text', text: args.text }] };
  throw new JSONRPCErrorException(`unknown tool ${name}`, -32602);
});

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const response = await server.receiveJSON(line);
  if (response) process.stdout.write(JSON.stringify(response) + '\n');
});
