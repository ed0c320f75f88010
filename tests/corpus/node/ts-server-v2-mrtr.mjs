// A deploy server on the official TypeScript SDK v2 (@modelcontextprotocol/server) that asks
// for input the 2026-07-28 way: `deploy` answers input_required with a form elicitation and
// a requestState, and completes on the retry that carries the accepted confirmation;
// `summarise` asks for sampling whatever the client declared.
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'ts2-deployer', version: '0.2.0' }, { capabilities: { tools: {} } });
  const confirmation = z.object({ confirm: z.boolean() });
  server.registerTool('deploy', {
    description: 'Deploy after a confirmation',
    inputSchema: z.object({ env: z.string() }),
  }, async ({ env }, ctx) => {
    const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
    if (confirmed?.confirm !== true) {
      return inputRequired({
        inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmation }) },
        requestState: `deploy:${env}:1`,
      });
    }
    return { content: [{ type: 'text', text: `deployed to ${env}` }] };
  });
  server.registerTool('summarise', {
    description: 'Summarise a text with the client model',
    inputSchema: z.object({ text: z.string() }),
  }, async ({ text }, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.summary;
    if (!answer) {
      return inputRequired({
        inputRequests: {
          summary: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: `Summarise: ${text}` } }],
            maxTokens: 50,
          }),
        },
      });
    }
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  });
  return server;
});
