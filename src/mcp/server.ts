/**
 * The SDK server that answers one `POST /mcp`: tools and resources of `tools.ts` for the request's
 * key. Each tool call checks the route's permission and plan, validates its arguments with the
 * route's zod schema, and turns any refusal into a tool error whose text is the API's error body
 * (`{"error":{"code","message","doc_url"}}`), so an assistant reads the same words a REST client does.
 *
 * The low-level `Server` rather than `McpServer`: McpServer validates arguments itself and words
 * the failure its own way; the API's wording (`formatZodError`) is the point here.
 *
 * @example
 * const server = mcpServerFor(request, catalog, { docsUrl, log: request.log });
 * await server.connect(transport);
 */
import { z } from 'zod';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ApiError, errorBody, formatZodError } from '../http/errors.js';
import { assertPermission, assertPlan } from '../access/auth.js';
import { callerOf } from '../links/routes.js';
import type { McpResource, McpTool, ToolCall } from './tools.js';

export interface Catalog {
  tools: McpTool[];
  resources: McpResource[];
  /** The `waymark://links/{linkId}` template's read. */
  linkOf(call: ToolCall, linkId: string): Promise<unknown>;
}

export interface ServerOptions {
  docsUrl: string;
  version: string;
  log: FastifyBaseLogger;
}

/** A link by id: the resource template beside the fixed resources. */
const LINK_URI = /^waymark:\/\/links\/(?!top$)([^/]+)$/;

/** A URI segment decoded; undefined when absent or not valid percent-encoding. */
function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The tools as `tools/list` answers them, worked out once: JSON Schema of each request schema's input side. */
export function toolListing(tools: readonly McpTool[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: z.toJSONSchema(t.input, { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as Tool['inputSchema'],
    annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: false, openWorldHint: false },
  }));
}

/** The refusal as the API's error body; anything that is not an ApiError is logged and hidden. */
function refusal(err: unknown, options: ServerOptions, request: FastifyRequest): { code: ApiError['code']; message: string } {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  options.log.error({ err, reqId: request.id }, 'MCP call failed');
  return { code: 'internal_server_error', message: `An internal server error occurred (request id ${request.id}).` };
}

export function mcpServerFor(request: FastifyRequest, catalog: Catalog, listing: Tool[], options: ServerOptions): Server {
  const server = new Server(
    { name: 'waymark', title: 'Waymark', version: options.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: `Short links, their analytics, events and customers of the Waymark workspace ${request.auth.workspaceId} (the API key's).`,
    },
  );
  const call: ToolCall = { request, auth: request.auth, caller: callerOf(request) };
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }): Promise<CallToolResult> => {
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${params.name}". tools/list names the tools.`);
    try {
      if (tool.permission) assertPermission(call.auth, tool.permission);
      if (tool.minPlan) assertPlan(call.auth, tool.minPlan);
      const parsed = tool.input.safeParse(params.arguments ?? {});
      if (!parsed.success) throw new ApiError('unprocessable_entity', formatZodError(parsed.error));
      return await tool.run(call, parsed.data);
    } catch (err) {
      const { code, message } = refusal(err, options, request);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(options.docsUrl, code, message)) }] };
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: catalog.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description, mimeType: 'application/json' })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: 'waymark://links/{linkId}', name: 'link', description: 'One link by id (or ext_ and its external id), as GET /links/{linkId} answers it (JSON).', mimeType: 'application/json' }],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    const fixed = catalog.resources.find((r) => r.uri === params.uri);
    const linkId = fixed ? undefined : decoded(LINK_URI.exec(params.uri)?.[1]);
    if (!fixed && !linkId) throw new McpError(-32002, `Resource not found: ${params.uri.slice(0, 200)}.`);
    try {
      assertPermission(call.auth, fixed?.permission ?? 'links.read');
      const value = fixed ? await fixed.read(call) : await catalog.linkOf(call, linkId!);
      return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(value) }] };
    } catch (err) {
      const { code, message } = refusal(err, options, request);
      // Resources have no error result of their own: a JSON-RPC error, with the API's body as its data.
      throw new McpError(code === 'not_found' ? -32002 : ErrorCode.InvalidRequest, message, errorBody(options.docsUrl, code, message));
    }
  });
  return server;
}
