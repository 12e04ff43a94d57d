/**
 * Carries link/domain changes between Waymark processes that share a PostgreSQL database
 * (`capabilities.changeRelay`, open.ts), so each drops its cached copy: NOTIFY goes out through
 * the normal pool, LISTEN runs on one dedicated connection. After that connection is lost and re-established, notifications may
 * have been missed, so `onReconnect` lets the cache start over.
 *
 * @example
 * const relay = createChangeRelay({ url, schema, db, bus, onReconnect: () => cache.clear() });
 * await relay.start(); … await relay.close();
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';
import type { Change, ChangeBus } from './change-bus.js';

export interface ChangeRelayOptions {
  url: string;
  /** The schema in use: processes on different schemas (tests) do not hear each other. */
  schema?: string;
  db: Kysely<Database>;
  bus: ChangeBus;
  onReconnect: () => void;
  onError: (err: unknown, context: string) => void;
}

export interface ChangeRelay {
  start(): Promise<void>;
  close(): Promise<void>;
}

function isChange(value: unknown): value is Change {
  const c = value as Change;
  return !!c && typeof c.domain === 'string' && (c.type === 'domain' || (c.type === 'link' && typeof c.key === 'string'));
}

/** Bytes of JSON per notification: PostgreSQL refuses payloads of 8,000 bytes or more. */
const PAYLOAD_BYTES = 7_000;

/** The payloads carrying `changes` in order, each holding as many as fit under PAYLOAD_BYTES. */
export function notificationPayloads(origin: string, changes: readonly Change[]): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  const close = () => {
    if (batch.length) payloads.push(`{"o":${JSON.stringify(origin)},"cs":[${batch.join(',')}]}`);
    batch = [];
    bytes = 0;
  };
  for (const change of changes) {
    const text = JSON.stringify(change);
    const size = Buffer.byteLength(text);
    if (bytes + size + 64 > PAYLOAD_BYTES) close();
    batch.push(text);
    bytes += size + 1;
  }
  close();
  return payloads;
}

export function createChangeRelay(options: ChangeRelayOptions): ChangeRelay {
  const channel = `waymark_changes${options.schema ? `_${options.schema}` : ''}`;
  // Our own notifications come back to us; the bus already delivered them locally.
  const origin = randomBytes(8).toString('hex');
  let client: pg.Client | null = null;
  let closing = false;
  let retry: NodeJS.Timeout | null = null;
  let attempts = 0;

  const onNotification = (msg: pg.Notification) => {
    if (msg.channel !== channel || !msg.payload) return;
    try {
      // `cs`: the changes of one turn, sent together; `c`: one change (as older versions send).
      const { o, c, cs } = JSON.parse(msg.payload) as { o: string; c?: unknown; cs?: unknown[] };
      if (o === origin) return;
      for (const change of cs ?? [c]) if (isChange(change)) options.bus.deliver(change);
    } catch {
      /* not ours */
    }
  };

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: options.url });
    c.on('notification', onNotification);
    c.on('error', (err) => {
      options.onError(err, 'change listener connection failed');
      lost(c);
    });
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`listen "${channel}"`);
    } catch (err) {
      c.removeAllListeners('end');
      void c.end().catch(() => undefined);
      throw err;
    }
    client = c;
  }

  // The changes published in one turn (an import's batch announces hundreds) go out as a few
  // notifications, each under PostgreSQL's 8,000-byte payload limit, not one query per change.
  let pending: Change[] = [];
  function flush() {
    const changes = pending;
    pending = [];
    for (const payload of notificationPayloads(origin, changes)) {
      sql`select pg_notify(${channel}, ${payload})`.execute(options.db).catch((err) => options.onError(err, 'change notification failed'));
    }
  }

  function lost(dead: pg.Client) {
    if (client !== dead) return;
    client = null;
    dead.removeAllListeners('notification');
    void dead.end().catch(() => undefined);
    scheduleConnect();
  }

  function scheduleConnect() {
    if (closing || retry) return;
    const delay = Math.min(10_000, 200 * 2 ** attempts++);
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => {
          attempts = 0;
          // Changes made while we were away were not heard: start the cache over.
          options.onReconnect();
        },
        (err) => {
          options.onError(err, 'change listener reconnect failed');
          scheduleConnect();
        },
      );
    }, delay);
    retry.unref();
  }

  return {
    async start() {
      await connect();
      options.bus.setRemote({
        send(change) {
          pending.push(change);
          if (pending.length === 1) setImmediate(flush);
        },
      });
    },
    async close() {
      closing = true;
      if (pending.length) flush();
      options.bus.setRemote(null);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => undefined);
    },
  };
}
