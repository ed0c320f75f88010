// A naive "MCP server" on the generic jayson library, written from the JSON-RPC 2.0 spec:
// each stdin line goes to jayson's server.call and the answer is written as one line.
// It answers initialize with the version it was written against (2025-06-18), whatever
// the client asked for, and tool failures with a made-up error code -1.
import jayson from 'jayson';
import readline from 'node:readline';

const tools = [
  { name: 'echo', description: 'Echo a text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } },
];

const server = new jayson.Server({
  initialize(params, callback) {
    callback(null, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'jayson-notes', version: '0.1.0' } });
  },
  'notifications/initialized'(params, callback) {
    callback(null, null);
  },
  'tools/list'(params, callback) {
    callback(null, { tools });
  },
  'tools/call'(params, callback) {
    if (params.name === 'echo') callback(null, { content: [{ type: 'text', text: params.arguments.text }] });
    else if (params.name === 'fail') callback({ code: -1, message: 'notes database is locked' });
    else callback({ code: -32602, message: `unknown tool ${params.name}` });
  },
});

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  server.call(line, (error, response) => {
    const answer = error ?? response;
    if (answer) process.stdout.write(JSON.stringify(answer) + '\n');
  });
});
