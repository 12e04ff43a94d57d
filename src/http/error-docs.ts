/**
 * `GET /api-reference/errors`: the page that every error's `doc_url` points at when DOCS_URL is
 * not set, so the link in an error body always leads somewhere useful. Static text, no input.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ALL_ERROR_STATUS, type ErrorCode } from './errors.js';
import { pageHeaders, styleSource } from './page-headers.js';

const EXPLANATIONS: Record<ErrorCode, string> = {
  bad_request: 'The request could not be read: malformed JSON, a malformed Authorization header, or a missing required combination of parameters.',
  unauthorized: 'No API key was sent, or the key is unknown or revoked. Send <code>Authorization: Bearer &lt;key&gt;</code>.',
  forbidden: "The key lacks the scope the operation needs, the workspace's plan does not include the feature, or a quota (links, domains, tags, folders) is used up. The message names which.",
  not_found: 'The resource does not exist in the workspace of the key. Resources of other workspaces are reported the same way.',
  conflict: 'The resource already exists: a short link key on the same domain, a domain, a tag or folder name, an external id, or a slug.',
  invite_expired: 'The workspace invitation has expired.',
  unprocessable_entity: 'The body or query failed validation. The message has the form <code>rule: field: explanation</code> for the first problem found.',
  rate_limit_exceeded: 'Too many requests with this key, or from this address without a valid key (QR codes, failed authentications), or too many CSV imports of one workspace at once. Wait for the number of seconds in <code>Retry-After</code>.',
  internal_server_error: 'An unexpected failure. It is logged on the server with the request id quoted in the message.',
  request_timeout: 'The request was not received completely in time; the connection is closed.',
  payload_too_large: 'The request body is larger than the server accepts: 4 MB, or for a CSV import the file size the message names (<code>IMPORT_MAX_BYTES</code>, 64 MiB by default).',
  uri_too_long: 'A path parameter is longer than 512 characters.',
  request_header_fields_too_large: 'The request headers together are larger than 16 KB.',
  service_unavailable: 'The process is starting (migrations, replaying clicks); <code>Retry-After</code> says when to try again. <code>GET /ready</code> answers 200 once it serves.',
};

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .25rem}';
/** No script, no frame, only its own stylesheet (page-headers.ts). */
const HEADERS = pageHeaders({ style: styleSource(STYLE) });

function renderPage(): string {
  const rows = (Object.keys(ALL_ERROR_STATUS) as ErrorCode[])
    .map(
      (code) =>
        `<section id="${code.replace('_', '-')}"><h2><code>${code}</code> — HTTP ${ALL_ERROR_STATUS[code]}</h2><p>${EXPLANATIONS[code]}</p></section>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Waymark API errors</title>
<style>${STYLE}</style></head>
<body><h1>Waymark API errors</h1><p>Every error response has the body <code>{"error": {"code", "message", "doc_url"}}</code>.</p>
${rows}</body></html>`;
}

export const errorDocsRoutes: FastifyPluginAsync = async (app) => {
  const page = renderPage();
  app.get('/api-reference/errors', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').headers(HEADERS).send(page),
  );
};
