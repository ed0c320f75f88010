// A small notes server on the official TypeScript SDK (v1, @modelcontextprotocol/sdk),
// written the way its README shows. The first argument picks a behaviour for the corpus:
//   plain     the tools behave
//   stray     console.log() at start-up and inside a handler (goes to stdout)
//   exit      the "crash" tool ends the process while its request is open
//   lowlevel  the low-level Server, whose tool returns structuredContent that does not
//             match the outputSchema it declares (McpServer would catch that itself)
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const mode = process.argv[2] ?? 'plain';

if (mode === 'lowlevel') {
  const server = new Server({ name: 'ts-lowlevel-notes', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{
      name: 'count_notes',
      description: 'How many notes there are',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    // The schema says an integer `count`; the handler returns a string under another name.
    content: [{ type: 'text', text: '{"total":"12"}' }],
    structuredContent: { total: '12' },
  }));
  await server.connect(new StdioServerTransport());
} else {
  if (mode === 'stray') console.log('notes server starting, 3 notes loaded');
  const server = new McpServer({ name: 'ts-notes', version: '0.1.0' });
  server.registerTool('echo', {
    description: 'Echo a text back',
    inputSchema: { text: z.string() },
  }, async ({ text }) => {
    if (mode === 'stray') console.log(`echo called with ${text}`);
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('add', {
    description: 'Add two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool('wait_forever', {
    description: 'Never returns',
    inputSchema: {},
  }, async () => new Promise(() => {}));
  server.registerTool('slow', {
    description: 'Returns after two seconds',
    inputSchema: {},
  }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.registerTool('fail', {
    description: 'Throws',
    inputSchema: {},
  }, async () => {
    throw new Error('notes database is locked');
  });
  server.registerTool('crash', {
    description: 'Ends the process',
    inputSchema: {},
  }, async () => {
    console.error('fatal: out of file handles, exiting');
    process.exit(3);
  });
  await server.connect(new StdioServerTransport());
}
