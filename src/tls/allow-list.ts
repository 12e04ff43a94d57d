/**
 * The host names Waymark wants certificates for, in memory, so that a TLS terminator's question
 * ("may I get a certificate for this name?", `GET /tls/allow`) is one set look-up:
 *
 * - the fixed names: the API hosts the operator named and the default short domain;
 * - the workspace domains that may have one (verified, or all when DOMAIN_VERIFICATION=off),
 *   loaded at start, and again every `refreshMs` (what no change announces: `waymark domains
 *   verify` run as another process on SQLite);
 * - each domain change announced on the change bus (this process, and on PostgreSQL the others
 *   through db/change-relay.ts) reloads that one name at once; the bus's resync (the relay
 *   reconnected, notifications may have been missed) reloads them all at once.
 *
 * Reloads run one after another, in the order they were asked for, and each reads the database
 * when it runs: a reload asked for after a change commits sees that change, so the set ends as the
 * database is, whatever order the answers would otherwise arrive in.
 *
 * @example
 * const list = createTlsAllowList({ fixed: ['api.example.com'], loadAll, loadOne, onError });
 * await list.start();
 * list.allows('go.acme.com'); // true once go.acme.com is a verified workspace domain
 */

export interface TlsAllowListOptions {
  /** Names always allowed, already in certificateName's form. */
  fixed: readonly string[];
  /** Every workspace domain that may have a certificate now. */
  loadAll(): Promise<readonly string[]>;
  /** Whether this workspace domain may have a certificate now (false: unknown, deleted, unverified). */
  loadOne(slug: string): Promise<boolean>;
  /** Full reloads apart (default 60 s, the link cache's lifetime). */
  refreshMs?: number;
  onError(err: unknown, context: string): void;
}

export interface TlsAllowList {
  /** True when `name` (certificateName's form) may have a certificate. Synchronous, no I/O. */
  allows(name: string): boolean;
  /** Loads the domains, then keeps reloading them every `refreshMs`. */
  start(): Promise<void>;
  /** Changes may have been missed: reload every domain (resolves once reloaded). */
  reload(): Promise<void>;
  /** A workspace domain changed: reload it (resolves once it is reloaded). */
  changed(slug: string): Promise<void>;
  /** Resolves once every reload asked for so far has run (tests). */
  settled(): Promise<void>;
  /** Stops the timer; queued reloads finish on their own. */
  close(): void;
}

export function createTlsAllowList(options: TlsAllowListOptions): TlsAllowList {
  const fixed = new Set(options.fixed);
  let domains = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const enqueue = (work: () => Promise<void>, context: string): Promise<void> =>
    (queue = queue.then(work).catch((err) => options.onError(err, context)));

  const reloadAll = () =>
    enqueue(async () => {
      domains = new Set(await options.loadAll());
    }, 'the domains allowed a certificate were not reloaded; the next reload tries again');

  return {
    allows: (name) => fixed.has(name) || domains.has(name),
    async start() {
      await reloadAll();
      timer = setInterval(() => void reloadAll(), options.refreshMs ?? 60_000);
      timer.unref();
    },
    reload: () => reloadAll(),
    changed(slug) {
      return enqueue(async () => {
        if (await options.loadOne(slug)) domains.add(slug);
        else domains.delete(slug);
      }, `domain ${slug} was not reloaded for certificates; the next full reload catches up`);
    },
    settled: () => queue,
    close() {
      clearInterval(timer);
    },
  };
}
