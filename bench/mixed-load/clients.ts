/**
 * The API clients of bench/mixed-load.ts, in a process of their own so that their priority can be
 * set apart from wrk's and the server's: `MIX_WRITERS` loops of `POST /links`, `MIX_ANALYTICS` loops
 * of `GET /analytics` cycling through the groupings, `MIX_EXPORTS` export streams read to their end
 * again and again, against `MIX_BASE` with `MIX_KEY`, until the parent sends `stop`; then they
 * answer with their counts. `MIX_NICE` above 0 lowers this process first (thread-priority.ts).
 */
import { lowerThreadPriority } from '../../src/thread-priority.js';

const GROUPINGS = ['count', 'timeseries', 'countries', 'browsers', 'devices', 'referers', 'top_links', 'cities'];
const WRITERS = Number(process.env.MIX_WRITERS ?? 4);
const ANALYTICS = Number(process.env.MIX_ANALYTICS ?? 3);
const EXPORTS = Number(process.env.MIX_EXPORTS ?? 1);

export interface MixCounts {
  writes: number;
  analytics: number;
  exports: number;
  exportBytes: number;
  errors: number;
  slowestApiMs: number;
}

/** The API side of the mix: loops that run until `stop()` and count what they did. */
function startMix(base: string, key: string, round: number): { stop(): Promise<MixCounts> } {
  const counts: MixCounts = { writes: 0, analytics: 0, exports: 0, exportBytes: 0, errors: 0, slowestApiMs: 0 };
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let running = true;
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    try {
      await fn();
    } catch {
      counts.errors++;
    }
    counts.slowestApiMs = Math.max(counts.slowestApiMs, performance.now() - t0);
  };
  const writer = async (w: number) => {
    for (let i = 0; running; i++) {
      await timed(async () => {
        const res = await fetch(`${base}/links`, { method: 'POST', headers, body: JSON.stringify({ url: `https://example.com/mix/${round}/${w}/${i}`, key: `m${round}-${w}-${i}`, tags: [] }) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`POST /links ${res.status}`);
        counts.writes++;
      });
    }
  };
  const analyst = async (a: number) => {
    for (let i = a; running; i++) {
      await timed(async () => {
        const res = await fetch(`${base}/analytics?groupBy=${GROUPINGS[i % GROUPINGS.length]}&interval=24h`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET /analytics ${res.status}`);
        counts.analytics++;
      });
    }
  };
  const exporter = async () => {
    while (running) {
      await timed(async () => {
        const res = await fetch(`${base}/events/export?event=clicks&interval=24h`, { headers });
        if (res.status !== 200) throw new Error(`GET /events/export ${res.status}`);
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          counts.exportBytes += chunk.byteLength;
          if (!running) break;
        }
        counts.exports++;
      });
    }
  };
  const loops = [
    ...Array.from({ length: WRITERS }, (_, w) => writer(w)),
    ...Array.from({ length: ANALYTICS }, (_, a) => analyst(a)),
    ...Array.from({ length: EXPORTS }, () => exporter()),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return counts;
    },
  };
}

if (process.send) {
  lowerThreadPriority(Number(process.env.MIX_NICE ?? 0));
  const mix = startMix(process.env.MIX_BASE!, process.env.MIX_KEY!, Number(process.env.MIX_ROUND ?? 0));
  process.on('message', (m: { type: string }) => {
    if (m.type !== 'stop') return;
    void mix.stop().then((counts) => {
      process.send!({ type: 'stopped', counts }, () => process.exit(0));
    });
  });
}
