/**
 * The API's JSON body parser: Fastify's own (with its prototype-poisoning checks) behind a
 * nesting limit. `JSON.parse` takes any depth, but what walks the value afterwards (zod, the
 * `JSON.stringify` of metadata) recurses: a body of 100,000 nested levels overflowed the stack
 * and answered 500. Real bodies nest a few levels; metadata objects a few more.
 *
 * @example
 * installJsonBodyParser(app);                    // before routes are registered
 * jsonDepthExceeds('{"a":[[1]]}', 2);            // true: three levels
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

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

/** Replaces Fastify's `application/json` parser with the same parser behind the depth limit. */
export function installJsonBodyParser(app: FastifyInstance, maxDepth = MAX_JSON_DEPTH): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, maxDepth)) {
      done(new ApiError('bad_request', `The JSON body nests arrays and objects deeper than ${maxDepth} levels.`), undefined);
      return;
    }
    parse(request, text, done);
  });
}
