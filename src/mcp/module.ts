/**
 * The built-in MCP server (docs/mcp.md): `POST /mcp` speaks the Model Context Protocol over
 * streamable HTTP with the official SDK, behind the API's own key check (access/auth.ts) and rate
 * limits (access/rate-limit.ts: one request of the key's per-minute limit, or of its analytics
 * limit for the analytics tools and the top-links resource).
 *
 * Stateless: every POST gets a fresh SDK server and transport and answers with one JSON body.
 * Nothing is kept between requests, so any process behind a load balancer answers any call, a
 * restart loses no session, and a revoked key stops working at the next call (each request is
 * authenticated again). The price: no server-to-client notifications, which these tools need not.
 *
 * @example
 * const mcp = createMcpModule({ links, domains, tags, customers, analytics, qr, docsUrl });
 * await app.register(mcp.routes);
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiError } from '../http/errors.js';
import { createTools, type ToolServices } from './tools.js';
import { mcpServerFor, toolListing } from './server.js';

export interface McpModuleOptions extends ToolServices {
  docsUrl: string;
}

/** Reported to clients as the server's version: npm's, when started by `npm start`. */
const VERSION = process.env.npm_package_version ?? 'unknown';

/** A JSON-RPC error body, for refusals the SDK's transport would word the same way. */
function rpcError(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

export function createMcpModule(options: McpModuleOptions) {
  const catalog = createTools(options);
  const listing = toolListing(catalog.tools);
  const analyticsTools = new Set(catalog.tools.filter((t) => t.analytics).map((t) => t.name));
  const analyticsResources = new Set(catalog.resources.filter((r) => r.analytics).map((r) => r.uri));

  /** Whether the JSON-RPC message asks for analytics: counted per second, as `GET /analytics` is. */
  function countsAsAnalytics(request: FastifyRequest): boolean {
    const message = (Array.isArray(request.body) ? request.body[0] : request.body) as { method?: unknown; params?: { name?: unknown; uri?: unknown } } | undefined;
    if (message?.method === 'tools/call') return analyticsTools.has(String(message.params?.name));
    if (message?.method === 'resources/read') return analyticsResources.has(String(message.params?.uri));
    return false;
  }

  const routes: FastifyPluginAsync = async (app) => {
    app.post('/mcp', { config: { countsAsAnalytics }, schema: { hide: true } }, async (request, reply) => {
      // One message per request: a batch would run many calls for one count of the rate limit
      // (batches left the protocol in 2025-06-18; the SDK's clients never send them).
      if (Array.isArray(request.body) && request.body.length !== 1) {
        throw new ApiError('bad_request', 'Send one JSON-RPC message per request to /mcp; batches are not accepted.');
      }
      const server = mcpServerFor(request, catalog, listing, { docsUrl: options.docsUrl, version: VERSION, log: request.log });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // The transport writes the answer itself; the rate limiter's headers go with it.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    });
    // No server-sent stream and no session to end in stateless mode: the protocol's 405.
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({ method, url: '/mcp', config: { public: true }, schema: { hide: true }, handler: (_request, reply) => rpcError(reply, 405, 'Method not allowed: this MCP server is stateless; send POST requests.') });
    }
  };
  return { routes, catalog };
}
export type McpModule = ReturnType<typeof createMcpModule>;
