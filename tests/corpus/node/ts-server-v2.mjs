// A small notes server on the official TypeScript SDK v2 (@modelcontextprotocol/server),
// served with serveStdio, which picks the era from the opening message: a 2026-07-28
// request with _meta, or a 2025-era initialize.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'ts2-notes', version: '0.2.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', {
    description: 'Echo a text back',
    inputSchema: z.object({ text: z.string() }),
  }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('wait_forever', {
    description: 'Never returns',
    inputSchema: z.object({}),
  }, async () => new Promise(() => {}));
  return server;
});
