// A naive "MCP server" on vscode-jsonrpc, the JSON-RPC library under VS Code's language
// servers, used as its README shows: a message connection over stdin/stdout with the
// library's default stream reader and writer, which frame every message with LSP-style
// Content-Length headers. It echoes the client's protocolVersion.
import * as rpc from 'vscode-jsonrpc/node';

const tools = [
  { name: 'echo', description: 'Echo a text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'wait_forever', description: 'Never returns', inputSchema: { type: 'object', properties: {} } },
];

const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);
connection.onRequest('initialize', (params) => ({
  protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'vscode-jsonrpc-notes', version: '0.1.0' },
}));
connection.onNotification('notifications/initialized', () => {});
connection.onRequest('tools/list', () => ({ tools }));
connection.onRequest('tools/call', (params) => {
  if (params.name === 'echo') return { content: [{ type: 'text', text: params.arguments.text }] };
  return new Promise(() => {});
});
connection.onClose(() => process.exit(0));
connection.listen();
