/**
 * Idempotent creation of many links for imports (CSV files, another service's API): each input
 * goes through the same schema (`CreateLinkBody`) and the same rules (`prepare.ts`) as
 * `POST /links`, and is reported as created, skipped (the workspace already has a link at the
 * same domain and key, or, for an input without a key, to the same destination URL) or rejected
 * (the message `POST /links` would give). Re-running the same inputs creates nothing twice.
 *
 * @example
 * const importer = createLinkImporter({ store, dialect, bus, preparer, shortDomain });
 * const outcomes = await importer.importBatch(caller, [{ input: { url: 'https://a.example', key: 'a' } }], { dryRun: false, seen: new Set() });
 */
import type { ChangeBus } from '../db/change-bus.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError, formatZodError } from '../http/errors.js';
import { lookupKey, normaliseDomain, processKey } from './keys.js';
import { createPreparer, newBatch, prepareFields, type Caller, type PrepareDeps } from './prepare.js';
import { CreateLinkBody, type CreateLinkInput } from './schema.js';
import type { LinkRow, LinkStore, LinkWrite } from './store.js';

/** One link to import: a `POST /links` body, and optionally the creation time to keep (ms). */
export interface ImportItem {
  input: unknown;
  createdAt?: number;
}

export type ImportOutcome =
  | { status: 'created' | 'skipped'; id: string | null; domain: string; key: string }
  | { status: 'rejected'; error: string; code: string };

export interface ImportBatchOptions {
  /** Report without writing. */
  dryRun: boolean;
  /**
   * Identities (domain + key, or URL) met earlier in the same import: a repeat is skipped. The
   * caller keeps it across batches (a dry run writes nothing, so only this set remembers).
   */
  seen: Set<string>;
  /** Dry run: domains and tag names (lower-cased) the import would have created before this batch. */
  assume?: { domains: ReadonlySet<string>; tagNameKeys: ReadonlySet<string> };
}

export interface LinkImporterDeps extends Omit<PrepareDeps, 'store'> {
  store: LinkStore;
  dialect: Dialect;
  bus: ChangeBus;
  /** The link quota's message (service.ts). */
  limitMessage: (limit: number, plan: string) => string;
}

const identityOfKey = (domain: string, keyLower: string) => `k\u0000${domain}\u0000${keyLower}`;
const identityOfUrl = (url: string) => `u\u0000${url}`;

/**
 * The link store as one batch sees it: the keys of the batch's rows looked up in one query per
 * domain beforehand, domains and tags remembered once asked, and, in a dry run, what the import
 * would have created (domains, tags) answered as present, so the unchanged rules of `prepare.ts`
 * judge the rows as the real import would, at a few queries per batch instead of per row.
 */
function batchStore(store: LinkStore, known: ReadonlyMap<string, LinkRow | null>, assume: ImportBatchOptions['assume']): LinkStore {
  const domains = new Map<string, boolean>();
  const tags = new Map<string, string | null>();
  return {
    ...store,
    keyTaken: async (domain, keyLower) => {
      const hit = known.get(identityOfKey(domain, keyLower));
      return hit === undefined ? store.keyTaken(domain, keyLower) : hit !== null;
    },
    hasDomain: async (ws, slug) => {
      if (assume?.domains.has(slug)) return true;
      if (!domains.has(slug)) domains.set(slug, await store.hasDomain(ws, slug));
      return domains.get(slug)!;
    },
    tagsByNameKey: async (ws, keys) => {
      const missing = keys.filter((k) => !tags.has(k));
      if (missing.length) {
        const found = await store.tagsByNameKey(ws, missing);
        for (const k of missing) tags.set(k, found.get(k) ?? (assume?.tagNameKeys.has(k) ? `tag_pending_${k}` : null));
      }
      const out = new Map<string, string>();
      for (const k of keys) if (tags.get(k)) out.set(k, tags.get(k)!);
      return out;
    },
  };
}

export function createLinkImporter(deps: LinkImporterDeps) {
  const { store } = deps;

  /** The (domain, key) or URL an input is known by, or undefined when the rules will refuse it anyway. */
  async function identityOf(caller: Caller, input: { url?: string; domain?: string; key?: string }, prefs: { primary?: string }) {
    if (!input.key) {
      const url = prepareFields(input, '').url ?? input.url;
      return url ? { id: identityOfUrl(url), url } : undefined;
    }
    let domain = input.domain ? normaliseDomain(input.domain) : (prefs.primary ??= (await store.primaryDomain(caller.workspaceId)) ?? deps.shortDomain);
    if (!domain) return undefined;
    const processed = processKey(input.key, { onDefaultDomain: domain === deps.shortDomain });
    if (!processed.ok) return undefined;
    return { id: identityOfKey(domain, lookupKey(processed.key)), domain, keyLower: lookupKey(processed.key), key: processed.key };
  }

  /** Inserts in one transaction; a lost race for a key (another writer) falls back to one at a time. */
  async function insert(caller: Caller, writes: LinkWrite[]): Promise<Map<LinkWrite, ImportOutcome>> {
    const out = new Map<LinkWrite, ImportOutcome>();
    const overLimit = { status: 'rejected' as const, code: 'forbidden', error: deps.limitMessage(Number(caller.workspace.links_limit), caller.workspace.plan) };
    const attempt = async (group: LinkWrite[]): Promise<'ok' | 'over_limit' | 'conflict'> => {
      try {
        return await store.insertLinks(caller.workspaceId, group);
      } catch (err) {
        if (deps.dialect.isUniqueViolation(err)) return 'conflict';
        throw err;
      }
    };
    const verdict = await attempt(writes);
    const groups = verdict === 'conflict' ? writes.map((w) => [w]) : [writes];
    for (const group of groups) {
      const v = groups.length === 1 ? verdict : await attempt(group);
      for (const w of group) {
        if (v === 'ok') out.set(w, { status: 'created', id: w.row.id, domain: w.row.domain, key: w.row.key });
        else if (v === 'over_limit') out.set(w, overLimit);
        else out.set(w, { status: 'rejected', code: 'conflict', error: 'Duplicate key: This short link already exists (or the externalId is taken).' });
      }
      if (v === 'ok') {
        caller.workspace.links_usage = Number(caller.workspace.links_usage) + group.length;
        for (const w of group) deps.bus.publish({ type: 'link', domain: w.row.domain, key: w.row.key });
      }
    }
    return out;
  }

  return {
    /**
     * Judges and (unless `dryRun`) creates the items in one transaction, answering one outcome per
     * item in order. `caller.workspace.links_usage` is advanced by what was created, so the link
     * quota holds across batches.
     */
    async importBatch(caller: Caller, items: readonly ImportItem[], options: ImportBatchOptions): Promise<ImportOutcome[]> {
      const prefs: { primary?: string } = {};
      // Pass 1: the schema, and what each row is known by.
      const parsed: { item: ImportItem; error?: string; data?: CreateLinkInput; identity?: Awaited<ReturnType<typeof identityOf>> }[] = [];
      for (const item of items) {
        const body = CreateLinkBody.safeParse(item.input);
        parsed.push(body.success ? { item, data: body.data, identity: await identityOf(caller, body.data, prefs) } : { item, error: formatZodError(body.error) });
      }
      // The batch's keys, one query per domain.
      const known = new Map<string, LinkRow | null>();
      const keysByDomain = new Map<string, Set<string>>();
      for (const p of parsed) if (p.identity?.keyLower) (keysByDomain.get(p.identity.domain) ?? keysByDomain.set(p.identity.domain, new Set()).get(p.identity.domain)!).add(p.identity.keyLower);
      for (const [domain, keys] of keysByDomain) {
        for (const k of keys) known.set(identityOfKey(domain, k), null);
        for (const row of await store.findByDomainKeys(domain, [...keys])) known.set(identityOfKey(row.domain, row.key_lower), row);
      }
      const preparing = createPreparer({ ...deps, store: batchStore(store, known, options.dryRun ? options.assume : undefined) });
      const batch = newBatch();
      const outcomes: (ImportOutcome | LinkWrite)[] = [];
      let usage = Number(caller.workspace.links_usage);
      // Pass 2: skipped, over the quota, or judged by the rules of POST /links.
      for (const p of parsed) {
        if (!p.data) {
          outcomes.push({ status: 'rejected', error: p.error!, code: 'unprocessable_entity' });
          continue;
        }
        const { identity } = p;
        if (identity && options.seen.has(identity.id)) {
          outcomes.push({ status: 'skipped', id: null, domain: identity.domain ?? '', key: identity.key ?? '' });
          continue;
        }
        const existing = identity?.keyLower ? known.get(identity.id) : identity?.url ? await store.findByUrl(caller.workspaceId, identity.url) : undefined;
        // A key held by another workspace is not "already imported": the rules refuse it below.
        if (existing && existing.workspace_id === caller.workspaceId) {
          if (identity) options.seen.add(identity.id);
          outcomes.push({ status: 'skipped', id: existing.id, domain: existing.domain, key: existing.key });
          continue;
        }
        if (usage + 1 > Number(caller.workspace.links_limit)) {
          outcomes.push({ status: 'rejected', code: 'forbidden', error: deps.limitMessage(Number(caller.workspace.links_limit), caller.workspace.plan) });
          continue;
        }
        try {
          const write = await preparing.prepareNew(caller, p.data, batch);
          if (p.item.createdAt !== undefined && p.item.createdAt <= write.row.created_at) write.row.created_at = p.item.createdAt;
          if (identity) options.seen.add(identity.id);
          usage++;
          outcomes.push(write);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          outcomes.push({ status: 'rejected', error: err.message, code: err.code });
        }
      }
      const writes = outcomes.filter((o): o is LinkWrite => 'row' in o);
      if (options.dryRun) {
        return outcomes.map((o) => ('row' in o ? { status: 'created', id: null, domain: o.row.domain, key: o.row.key } : o));
      }
      const inserted = await insert(caller, writes);
      return outcomes.map((o) => ('row' in o ? inserted.get(o)! : o));
    },
  };
}

export type LinkImporter = ReturnType<typeof createLinkImporter>;
