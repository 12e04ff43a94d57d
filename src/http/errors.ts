/**
 * The one error type and the one error handler. Only this module knows HTTP statuses and builds
 * the spec's body `{ error: { code, message, doc_url } }`.
 *
 * @example
 * throw new ApiError('not_found', 'Link not found.');
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * Statuses the spec does not name, raised below the API's own rules by HTTP framing and size
 * limits. They carry the same body with a code of their own, so every answer of status ≥ 400 is
 * `{ error: { code, message, doc_url } }`, whatever refused the request.
 */
export const PROTOCOL_ERROR_STATUS = {
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  request_header_fields_too_large: 431,
  service_unavailable: 503,
} as const;

export type SpecErrorCode = keyof typeof ERROR_STATUS;
export type ErrorCode = SpecErrorCode | keyof typeof PROTOCOL_ERROR_STATUS;

/** Every code with its status: the spec's nine, then the protocol ones. */
export const ALL_ERROR_STATUS: Readonly<Record<ErrorCode, number>> = { ...ERROR_STATUS, ...PROTOCOL_ERROR_STATUS };

export const ERROR_CODES = Object.keys(ALL_ERROR_STATUS) as ErrorCode[];

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers?: Record<string, string>;
  /**
   * The request field the refusal concerns (`key`, `domain`, `testVariants`…), for forms that
   * print a message at its field (the dashboard's builder) without reading the message. Never
   * part of the API's error body.
   */
  readonly field?: string;
  constructor(code: ErrorCode, message: string, options: { headers?: Record<string, string>; cause?: unknown; field?: string } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = ALL_ERROR_STATUS[code];
    this.headers = options.headers;
    this.field = options.field;
  }
}

/** Maps a status to its code, for errors raised by Fastify or plugins. */
export function codeForStatus(status: number): ErrorCode {
  const found = ERROR_CODES.find((c) => ALL_ERROR_STATUS[c] === status);
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
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(400).send(errorBody(docsUrl, 'bad_request', 'Unsupported Content-Type: send the body as application/json.'));
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(413).send(errorBody(docsUrl, 'payload_too_large', `Request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 'the server'} bytes.`));
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = codeForStatus(status);
      return reply.status(ALL_ERROR_STATUS[code]).send(errorBody(docsUrl, code, fe.message || 'Bad request.'));
    }
    request.log.error({ err, reqId: request.id }, 'unhandled error');
    return reply.status(500).send(errorBody(docsUrl, 'internal_server_error', `${INTERNAL_MESSAGE} (request id ${request.id})`));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(docsUrl, 'not_found', `Route ${request.method} ${clip(request.url.split('?')[0]!)} not found.`));
  });
}

/** A request value quoted in a message, cut so that an error never echoes kilobytes back. */
function clip(value: string, max = 200): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * Fastify's `frameworkErrors`: failures of its router before any route runs (a malformed `%`
 * escape in the path, a path parameter over `maxParamLength`), answered with the spec's body.
 */
export function frameworkErrorHandler(docsUrl: string) {
  return (err: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    if (err.code === 'FST_ERR_BAD_URL') {
      return reply.status(400).send(errorBody(docsUrl, 'bad_request', 'The URL path holds a malformed percent-encoding (a "%" not followed by two hex digits).'));
    }
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return reply.status(414).send(errorBody(docsUrl, 'uri_too_long', `A path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters.`));
    }
    return reply.status(500).send(errorBody(docsUrl, 'internal_server_error', INTERNAL_MESSAGE));
  };
}

/** Longest path parameter: 190-character domain slugs and `ext_` + 255-character external ids fit. */
export const MAX_PATH_PARAM_LENGTH = 512;

/**
 * Node's `clientError`: a request the HTTP parser refused (headers over 16 KB, a timeout, bytes
 * that are not HTTP). No request object exists yet, so the answer is written to the socket
 * directly, with the spec's body, and the connection is closed (as Node's own handler does).
 */
export function clientErrorHandler(docsUrl: string) {
  return (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let status: number;
    let code: ErrorCode;
    let message: string;
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      [status, code, message] = [431, 'request_header_fields_too_large', 'The request headers are larger than 16 KB.'];
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      [status, code, message] = [408, 'request_timeout', 'The request was not received in time.'];
    } else {
      [status, code, message] = [400, 'bad_request', 'The request is not valid HTTP.'];
    }
    if (socket.writable) {
      const body = JSON.stringify(errorBody(docsUrl, code, message));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
