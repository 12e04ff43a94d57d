/**
 * Bitly's public API v4 as the import reads it, over the shared source client (source.ts: bearer
 * token, timeouts, 429 waits, retries). Shapes follow Bitly's published OpenAPI document
 * "Bitly API 4.0.0" (https://dev.bitly.com/api-reference) and its note "Changes to Retrieve
 * Bitlinks By Group" (https://dev.bitly.com/docs/getting-started/changes-to-retrieve-bitlinks-by-group/):
 *
 * - `GET /v4/groups` → `{groups: [{guid, name, organization_guid, bsds: [domain], is_active, …}]}`
 * - `GET /v4/groups/{group_guid}/tags` → `{tags: [name]}`
 * - `GET /v4/groups/{group_guid}/bitlinks?size=…&archived=both[&search_after=…]` →
 *   `{links: [{id: "bit.ly/3xYz", link, custom_bitlinks: ["https://bit.ly/spring"], long_url, title,
 *   archived, created_at, tags: [name], …}], pagination: {search_after, next, size, …}}`; the next
 *   batch is asked with `search_after` while it is not empty (else with the query of `next`)
 * - `GET /v4/bitlinks/{bitlink}/clicks/summary?unit=day&units=-1` → `{total_clicks, units, unit, unit_reference}`
 * - errors → `{message, description, resource, errors: [{field, message, error_code}]}`
 *
 * @example
 * const bitly = createBitlySource({ baseUrl: 'https://api-ssl.bitly.com/v4', token });
 * for await (const links of bitly.bitlinks(group.guid)) …
 */
import { z } from 'zod';
import { createSource, SourceError, type SourceOptions } from './source.js';

export const BITLY_API = 'https://api-ssl.bitly.com/v4';

export const BitlyGroup = z.looseObject({ guid: z.string().min(1), name: z.string().nullish(), bsds: z.array(z.string()).nullish(), is_active: z.boolean().nullish() });
export type BitlyGroup = z.infer<typeof BitlyGroup>;

export const Bitlink = z.looseObject({
  /** `domain/hash` of the link Bitly made. */
  id: z.string().min(3),
  link: z.string().nullish(),
  long_url: z.string(),
  title: z.string().nullish(),
  archived: z.boolean().nullish(),
  created_at: z.string().nullish(),
  custom_bitlinks: z.array(z.string()).nullish(),
  tags: z.array(z.string()).nullish(),
});
export type Bitlink = z.infer<typeof Bitlink>;

const Pagination = z.looseObject({ search_after: z.string().nullish(), next: z.string().nullish() }).nullish();
const BitlinksPage = z.looseObject({ links: z.array(z.unknown()).nullish(), pagination: Pagination });

export function createBitlySource(options: SourceOptions) {
  const source = createSource(options);
  const parsed = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
    const r = schema.safeParse(value);
    if (!r.success) throw new SourceError(`${what}: Bitly answered an unexpected shape (${r.error.issues[0]?.message ?? 'invalid'})`);
    return r.data;
  };

  return {
    requests: source.requests,

    async groups(): Promise<BitlyGroup[]> {
      const body = parsed(z.object({ groups: z.array(BitlyGroup) }), await source.get('/groups'), 'GET /groups');
      return body.groups;
    },

    async tags(groupGuid: string): Promise<string[]> {
      const body = parsed(z.object({ tags: z.array(z.string()).nullish() }), await source.get(`/groups/${encodeURIComponent(groupGuid)}/tags`), 'GET /groups/{group_guid}/tags');
      return body.tags ?? [];
    },

    /**
     * The group's bitlinks (archived ones too), batch by batch. Each record comes as Bitly sends
     * it (the caller parses it, so one odd record is one rejection, not a stopped import).
     */
    async *bitlinks(groupGuid: string, size = 100): AsyncGenerator<unknown[]> {
      const path = `/groups/${encodeURIComponent(groupGuid)}/bitlinks`;
      let params: Record<string, string | number> = { size, archived: 'both' };
      const seen = new Set<string>();
      for (;;) {
        const page = parsed(BitlinksPage, await source.get(path, params), `GET ${path}`);
        const links = page.links ?? [];
        yield links;
        const next = nextParams(page.pagination ?? undefined);
        if (!links.length || !next) return;
        const token = JSON.stringify(next);
        if (seen.has(token)) throw new SourceError(`GET ${path}: Bitly answered the same next batch twice (${token})`);
        seen.add(token);
        params = { size, archived: 'both', ...next };
      }
    },

    /** The link's click total over all the time Bitly keeps for the plan. */
    async clicksTotal(bitlinkId: string): Promise<number> {
      const path = `/bitlinks/${bitlinkId.split('/').map(encodeURIComponent).join('/')}/clicks/summary`;
      const body = parsed(z.looseObject({ total_clicks: z.number().int().nonnegative() }), await source.get(path, { unit: 'day', units: -1 }), `GET ${path}`);
      return body.total_clicks;
    },
  };
}

export type BitlySource = ReturnType<typeof createBitlySource>;

/**
 * The parameters of the next batch: `search_after` while Bitly gives one, else those of the
 * `next` URL (only its query is used: the host and path stay those this import asked).
 */
export function nextParams(pagination: { search_after?: string | null; next?: string | null } | undefined): Record<string, string> | undefined {
  if (pagination?.search_after) return { search_after: pagination.search_after };
  if (!pagination?.next) return undefined;
  let url: URL;
  try {
    url = new URL(pagination.next);
  } catch {
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (k === 'search_after' || k === 'page') out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** An address of a bitlink, from its `domain/hash` id or a custom back-half URL. */
export function addressOf(text: string): { domain: string; key: string } | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
  } catch {
    return undefined;
  }
  if (!url.host || !key || key.includes('/')) return undefined;
  return { domain: url.host.toLowerCase(), key };
}
