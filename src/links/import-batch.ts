/**
 * Idempotent creation of many links for imports (CSV files, another service's API), in two steps
 * so that nothing is written before a row is judged: `judgeBatch` checks each input with the same
 * schema (`CreateLinkBody`) and rules (`prepare.ts`) as `POST /links` and answers skipped (the
 * workspace already has a link at the same domain and key, or, for an input without a key, to the
 * same destination URL), rejected (the message `POST /links` would give) or accepted, with the
 * tags and domain the import must create for it; `insertBatch` then writes the accepted rows. A
 * dry run is the first step alone, so it judges exactly as the real run. Re-running the same
 * inputs creates nothing twice.
 *
 * @example
 * const importer = createLinkImporter({ store, dialect, bus, shortDomain, shortLinkProtocol, now, limitMessage });
 * const judged = await importer.judgeBatch(caller, [{ input: { url: 'https://a.example', key: 'a' } }], { seen: new Set() });
 * const outcomes = await importer.insertBatch(caller, judged.filter(isAccepted), new Map());
 */
import type { ChangeBus } from '../db/change-bus.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError, formatZodError } from '../http/errors.js';
import { slices } from '../time-slice.js';
import { lookupKey, normaliseDomain, processKey } from './keys.js';
import { createPreparer, newBatch, prepareFields, tagRequestOf, type Caller, type PrepareDeps } from './prepare.js';
import { CreateLinkBody, type CreateLinkInput } from './schema.js';
import type { InTransaction, LinkRow, LinkStore, LinkWrite } from './store.js';

/** One link to import: a `POST /links` body, and optionally the creation time to keep (ms). */
export interface ImportItem {
  input: unknown;
  createdAt?: number;
}

export type ImportOutcome =
  | { status: 'created' | 'skipped'; id: string | null; domain: string; key: string }
  | { status: 'rejected'; error: string; code: string };

/** What an accepted row needs the import to create first: its domain, its new tags (lower-cased names). */
export interface ImportNeeds {
  domain?: string;
  tagNameKeys: string[];
}

/** A row the rules accept: its write (new tags as placeholders until they exist) and what it needs. */
export interface AcceptedRow {
  status: 'accepted';
  write: LinkWrite;
  needs: ImportNeeds;
}

export type JudgedRow = ImportOutcome | AcceptedRow;

export const isAccepted = (j: JudgedRow): j is AcceptedRow => j.status === 'accepted';

/** Runs in a transaction that inserts links, with their ids. */
export type AlsoOnInsert = (trx: Parameters<InTransaction>[0], linkIds: string[]) => Promise<void>;

export interface JudgeOptions {
  /**
   * Identities (domain + key, or URL) met earlier in the same import: a repeat is skipped. The
   * caller keeps it across batches (a dry run writes nothing, so only this set remembers).
   */
  seen: Set<string>;
  /**
   * Domains and tag names (lower-cased) the import may create, answered as present to the rules:
   * free, allowed names only, so a domain of another workspace is judged as `POST /links` does.
   */
  creatable?: { domains: ReadonlySet<string>; tagNameKeys: ReadonlySet<string> };
  /**
   * Why a row may not have what it needs created (the plan's tag or domain limit), asked before
   * the rules; `take` is told what an accepted row needs, so later rows count it.
   */
  quota?: { refuse(needs: ImportNeeds): ApiError | undefined; take(needs: ImportNeeds): void };
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
/** The tag id an accepted row carries for a tag the import has yet to create. */
const PENDING_TAG = 'pending\u0000';

/**
 * Rows per insert transaction. On SQLite an insert runs synchronously on the calling thread (with
 * the search index's triggers, 40-80 µs a link): 50 rows hold it for a few milliseconds at most.
 */
const INSERT_CHUNK = 50;

/**
 * The link store as one batch sees it: the keys of the batch's rows looked up in one query per
 * domain beforehand, the primary domain, domains and tags remembered once asked, and what the
 * import may create (domains, tags) answered as present, so the unchanged rules of `prepare.ts`
 * judge the rows at a few queries per batch instead of per row.
 */
function batchStore(store: LinkStore, known: ReadonlyMap<string, LinkRow | null>, creatable: JudgeOptions['creatable']): LinkStore {
  const domains = new Map<string, boolean>();
  const tags = new Map<string, string | null>();
  const primary = new Map<string, Promise<string | undefined>>();
  return {
    ...store,
    keyTaken: async (domain, keyLower) => {
      const hit = known.get(identityOfKey(domain, keyLower));
      return hit === undefined ? store.keyTaken(domain, keyLower) : hit !== null;
    },
    primaryDomain: (ws) => primary.get(ws) ?? primary.set(ws, store.primaryDomain(ws)).get(ws)!,
    hasDomain: async (ws, slug) => {
      if (creatable?.domains.has(slug)) return true;
      if (!domains.has(slug)) domains.set(slug, await store.hasDomain(ws, slug));
      return domains.get(slug)!;
    },
    tagsByNameKey: async (ws, keys) => {
      const missing = keys.filter((k) => !tags.has(k));
      if (missing.length) {
        const found = await store.tagsByNameKey(ws, missing);
        for (const k of missing) tags.set(k, found.get(k) ?? (creatable?.tagNameKeys.has(k) ? PENDING_TAG + k : null));
      }
      const out = new Map<string, string>();
      for (const k of keys) if (tags.get(k)) out.set(k, tags.get(k)!);
      return out;
    },
  };
}

/** The names a valid body asks the import to create: its domain and tag names among the creatable ones. */
function needsOf(data: CreateLinkInput, creatable: JudgeOptions['creatable']): ImportNeeds {
  const needs: ImportNeeds = { tagNameKeys: [] };
  if (!creatable) return needs;
  const domain = data.domain ? normaliseDomain(data.domain) : null;
  if (domain && creatable.domains.has(domain)) needs.domain = domain;
  const tags = tagRequestOf(data);
  if (tags && 'names' in tags) needs.tagNameKeys = [...new Set(tags.names.map((n) => n.toLowerCase()))].filter((k) => creatable.tagNameKeys.has(k));
  return needs;
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
  async function insert(caller: Caller, writes: LinkWrite[], also?: AlsoOnInsert): Promise<Map<LinkWrite, ImportOutcome>> {
    const out = new Map<LinkWrite, ImportOutcome>();
    const overLimit = { status: 'rejected' as const, code: 'forbidden', error: deps.limitMessage(Number(caller.workspace.links_limit), caller.workspace.plan) };
    const attempt = async (group: LinkWrite[]): Promise<'ok' | 'over_limit' | 'conflict'> => {
      try {
        return await store.insertLinks(caller.workspaceId, group, also && ((trx) => also(trx, group.map((w) => w.row.id))));
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
     * Judges the items without writing, answering one row per item in order. An accepted row's
     * new tags are placeholders that `insertBatch` replaces. `caller.workspace.links_usage` is
     * not advanced: the caller counts accepted rows against the link quota across batches.
     */
    async judgeBatch(caller: Caller, items: readonly ImportItem[], options: JudgeOptions): Promise<JudgedRow[]> {
      const prefs: { primary?: string } = {};
      // Pass 1: the schema, and what each row is known by.
      const parsed: { item: ImportItem; error?: string; data?: CreateLinkInput; identity?: Awaited<ReturnType<typeof identityOf>> }[] = [];
      for (const item of items) {
        await slices.pause();
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
      const preparing = createPreparer({ ...deps, store: batchStore(store, known, options.creatable) });
      const batch = newBatch();
      const judged: JudgedRow[] = [];
      let usage = Number(caller.workspace.links_usage);
      // Pass 2: skipped, over a quota, or judged by the rules of POST /links.
      for (const p of parsed) {
        await slices.pause();
        if (!p.data) {
          judged.push({ status: 'rejected', error: p.error!, code: 'unprocessable_entity' });
          continue;
        }
        const { identity } = p;
        if (identity && options.seen.has(identity.id)) {
          judged.push({ status: 'skipped', id: null, domain: identity.domain ?? '', key: identity.key ?? '' });
          continue;
        }
        const existing = identity?.keyLower ? known.get(identity.id) : identity?.url ? await store.findByUrl(caller.workspaceId, identity.url) : undefined;
        // A key held by another workspace is not "already imported": the rules refuse it below.
        if (existing && existing.workspace_id === caller.workspaceId) {
          if (identity) options.seen.add(identity.id);
          judged.push({ status: 'skipped', id: existing.id, domain: existing.domain, key: existing.key });
          continue;
        }
        if (usage + 1 > Number(caller.workspace.links_limit)) {
          judged.push({ status: 'rejected', code: 'forbidden', error: deps.limitMessage(Number(caller.workspace.links_limit), caller.workspace.plan) });
          continue;
        }
        const needs = needsOf(p.data, options.creatable);
        const refusal = options.quota?.refuse(needs);
        if (refusal) {
          judged.push({ status: 'rejected', error: refusal.message, code: refusal.code });
          continue;
        }
        try {
          const write = await preparing.prepareNew(caller, p.data, batch);
          if (p.item.createdAt !== undefined && p.item.createdAt <= write.row.created_at) write.row.created_at = p.item.createdAt;
          if (identity) options.seen.add(identity.id);
          usage++;
          options.quota?.take(needs);
          judged.push({ status: 'accepted', write, needs });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          judged.push({ status: 'rejected', error: err.message, code: err.code });
        }
      }
      return judged;
    },

    /**
     * Writes accepted rows, `INSERT_CHUNK` to a transaction, once the tags and domains they need
     * exist (`tagIds`: the created tags' ids by lower-cased name), answering one outcome per row
     * (fewer when `signal` aborts between two transactions: the rows written so far).
     * After each transaction it waits as long as that one took, so an import holds the write
     * lock at most half the time: on SQLite the click writer and API writes wait for it, and
     * SQLite's busy handler, polling, would otherwise rarely meet the moment it is free.
     * `caller.workspace.links_usage` is advanced by what was created, so the link quota holds
     * across batches. `also` runs in each transaction with the ids it inserts (an import job
     * records its links with them).
     */
    async insertBatch(caller: Caller, rows: readonly AcceptedRow[], tagIds: ReadonlyMap<string, string>, signal?: AbortSignal, also?: AlsoOnInsert): Promise<ImportOutcome[]> {
      const writes = rows.map(({ write }) => ({
        ...write,
        tagIds: write.tagIds.map((id) => (id.startsWith(PENDING_TAG) ? (tagIds.get(id.slice(PENDING_TAG.length)) ?? missingTag(id)) : id)),
      }));
      const outcomes: ImportOutcome[] = [];
      for (let i = 0; i < writes.length && !signal?.aborted; i += INSERT_CHUNK) {
        await slices.pause();
        const chunk = writes.slice(i, i + INSERT_CHUNK);
        const started = performance.now();
        const inserted = await insert(caller, chunk, also);
        for (const w of chunk) outcomes.push(inserted.get(w)!);
        if (i + INSERT_CHUNK < writes.length) await new Promise((r) => setTimeout(r, performance.now() - started));
      }
      return outcomes;
    },
  };
}

function missingTag(placeholder: string): never {
  throw new Error(`import: the tag "${placeholder.slice(PENDING_TAG.length)}" was not created before its rows were inserted`);
}

export type LinkImporter = ReturnType<typeof createLinkImporter>;
