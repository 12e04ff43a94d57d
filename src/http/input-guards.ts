/**
 * Input refused before any route runs. The JSON body parser is Fastify's own (with its
 * prototype-poisoning checks) behind a nesting limit and a refusal of NUL characters; a URL whose
 * path or query decodes to a NUL character is refused too. `JSON.parse` takes any depth, but what walks the value afterwards (zod, the
 * `JSON.stringify` of metadata) recurses: a body of 100,000 nested levels overflowed the stack
 * and answered 500. Real bodies nest a few levels; metadata objects a few more.
 *
 * @example
 * installInputGuards(app);                       // before routes are registered
 * jsonDepthExceeds('{"a":[[1]]}', 2);            // true: three levels
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

/**
 * An escaped NUL (`\u0000`) in JSON text: a backslash-u preceded by an even number of backslashes.
 * PostgreSQL cannot store NUL in text, so such a value reached the database as a 500; no field of
 * the API has a use for it.
 */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;

/** True when a JSON text holds a NUL character in a string or key. */
export function jsonHasNul(text: string): boolean {
  return text.includes('\\u0000') && ESCAPED_NUL.test(text);
}

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `text` nests arrays and objects deeper than `max`, ignoring brackets inside strings.
 * One pass over the text, no allocation; a malformed text is left to the parser to refuse.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

export const NUL_MESSAGE = 'Text must not contain NUL characters (\\u0000).';

/**
 * Replaces Fastify's `application/json` parser with the same parser behind the depth limit and
 * the NUL check, and refuses URLs holding `%00`. An empty body is read as `{}`: HTTP clients send
 * `Content-Type: application/json` without a body (the `dub` SDK on an update without fields,
 * many clients on DELETE), and the published API accepts it. A route that takes no body ignores
 * it; one whose fields are all optional runs with none; one with required fields answers its
 * validation error as for `{}`.
 */
export function installInputGuards(app: FastifyInstance, maxDepth = MAX_JSON_DEPTH): void {
  app.addHook('onRequest', async (request) => {
    if (request.url.includes('%00')) throw new ApiError('bad_request', NUL_MESSAGE);
  });
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(null, {});
      return;
    }
    if (jsonDepthExceeds(text, maxDepth)) {
      done(new ApiError('bad_request', `The JSON body nests arrays and objects deeper than ${maxDepth} levels.`), undefined);
      return;
    }
    if (jsonHasNul(text)) {
      done(new ApiError('bad_request', NUL_MESSAGE), undefined);
      return;
    }
    parse(request, text, done);
  });
}
