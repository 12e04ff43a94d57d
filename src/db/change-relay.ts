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
      const { o, c } = JSON.parse(msg.payload) as { o: string; c: unknown };
      if (o !== origin && isChange(c)) options.bus.deliver(c);
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
          const payload = JSON.stringify({ o: origin, c: change });
          sql`select pg_notify(${channel}, ${payload})`.execute(options.db).catch((err) => options.onError(err, 'change notification failed'));
        },
      });
    },
    async close() {
      closing = true;
      options.bus.setRemote(null);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => undefined);
    },
  };
}
