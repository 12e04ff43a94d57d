/**
 * The one error type and the one error handler. Only this module knows HTTP statuses and builds
 * the spec's body `{ error: { code, message, doc_url } }`.
 *
 * @example
 * throw new ApiError('not_found', 'Link not found.');
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ZodError } from 'zod';

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invite_expired: 410,
  unprocessable_entity: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, message: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = options.headers;
  }
}

/** Maps a status to its code, for errors raised by Fastify or plugins. */
export function codeForStatus(status: number): ErrorCode {
  const found = ERROR_CODES.find((c) => ERROR_STATUS[c] === status);
  if (found) return found;
  return status >= 500 ? 'internal_server_error' : 'bad_request';
}

/**
 * `doc_url` anchor. The published service replaces only the first underscore
 * (`rate_limit_exceeded` → `#rate-limit_exceeded`, behaviour.md §3.1); clients that match on it keep working.
 */
export function docUrl(docsUrl: string, code: ErrorCode): string {
  return `${docsUrl}/api-reference/errors#${code.replace('_', '-')}`;
}

export function errorBody(docsUrl: string, code: ErrorCode, message: string) {
  return { error: { code, message, doc_url: docUrl(docsUrl, code) } };
}

/** Renders a path like `testVariants[0].percentage` from zod path segments. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number' || /^\d+$/.test(String(seg))) out += `[${String(seg)}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/** `code: path: message` for the first issue, as the published API formats zod errors (behaviour.md §3.2). */
export function formatZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request.';
  return `${issue.code}: ${formatIssuePath(issue.path)}: ${issue.message}`;
}

const INTERNAL_MESSAGE = 'An internal server error occurred. Please report it to the operator of this service if the problem persists.';

/** Installs the error and not-found handlers that turn every failure into the spec's body. */
export function installErrorHandlers(app: FastifyInstance, docsUrl: string): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, request, reply) => {
    if (err instanceof ApiError) {
      if (err.headers) reply.headers(err.headers);
      return reply.status(err.status).send(errorBody(docsUrl, err.code, err.message));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0]!;
      const path = formatIssuePath(first.instancePath.split('/').filter(Boolean));
      const message = `${first.keyword}: ${path}: ${first.message}`;
      return reply.status(422).send(errorBody(docsUrl, 'unprocessable_entity', message));
    }
    const fe = err as FastifyError;
    if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (fe.statusCode === 400 && err instanceof SyntaxError)) {
      return reply
        .status(400)
        .send(errorBody(docsUrl, 'bad_request', 'Invalid JSON format in request body. Please ensure the request body is a valid JSON object.'));
    }
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return reply.status(400).send(errorBody(docsUrl, 'bad_request', 'Request body is empty but Content-Type is application/json.'));
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(400).send(errorBody(docsUrl, 'bad_request', 'Unsupported Content-Type: send the body as application/json.'));
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(400).send(errorBody(docsUrl, 'bad_request', 'Request body is too large.'));
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = codeForStatus(status);
      return reply.status(ERROR_STATUS[code]).send(errorBody(docsUrl, code, fe.message || 'Bad request.'));
    }
    request.log.error({ err, reqId: request.id }, 'unhandled error');
    return reply.status(500).send(errorBody(docsUrl, 'internal_server_error', `${INTERNAL_MESSAGE} (request id ${request.id})`));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(docsUrl, 'not_found', `Route ${request.method} ${request.url.split('?')[0]} not found.`));
  });
}
