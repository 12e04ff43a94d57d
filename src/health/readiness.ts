/**
 * Whether this process should be sent traffic (`GET /ready`), as opposed to whether it runs
 * (`GET /health`). The start goes through its steps (`enter`), then serves (`started`); a stop
 * makes it unready at once (`stopping`), so a load balancer drains it while it finishes. Once
 * serving, the database must answer too: `readyAnswer` decides from both, a pure function.
 *
 * @example
 * const readiness = createReadiness();
 * readiness.enter('migrations'); … readiness.started();
 * readyAnswer(readiness.state, await databaseAnswers()); // { status: 200, body: { status: 'ready' } }
 */

/** The steps of a start, in order (main.ts); each can take long on a large installation. */
export type StartPhase = 'starting' | 'migrations' | 'event store' | 'click writer' | 'spill replay';

export type ReadinessState = { kind: 'starting'; phase: StartPhase } | { kind: 'serving' } | { kind: 'stopping' };

export interface Readiness {
  readonly state: ReadinessState;
  enter(phase: StartPhase): void;
  started(): void;
  stopping(): void;
}

/** A start in progress (main.ts), or, with `serving`, a process that serves from the outset (tests, tools). */
export function createReadiness(initial: 'starting' | 'serving' = 'starting'): Readiness {
  let state: ReadinessState = initial === 'serving' ? { kind: 'serving' } : { kind: 'starting', phase: 'starting' };
  return {
    get state() {
      return state;
    },
    enter(phase) {
      if (state.kind === 'starting') state = { kind: 'starting', phase };
    },
    started() {
      if (state.kind === 'starting') state = { kind: 'serving' };
    },
    stopping() {
      state = { kind: 'stopping' };
    },
  };
}

export interface ReadyAnswer {
  status: 200 | 503;
  body: { status: 'ready' } | { status: 'starting'; phase: StartPhase } | { status: 'stopping' } | { status: 'unavailable'; reason: string };
}

/**
 * `GET /ready`'s answer. `database` is whether it answered just now; it is not asked while the
 * process starts or stops (undefined).
 */
export function readyAnswer(state: ReadinessState, database?: boolean): ReadyAnswer {
  if (state.kind === 'starting') return { status: 503, body: { status: 'starting', phase: state.phase } };
  if (state.kind === 'stopping') return { status: 503, body: { status: 'stopping' } };
  if (!database) return { status: 503, body: { status: 'unavailable', reason: 'The database does not answer.' } };
  return { status: 200, body: { status: 'ready' } };
}

/**
 * `ping` shared by the probes that arrive while it runs, answering false when it fails or takes
 * longer than `timeoutMs`. A ping that hangs (a database that drops packets: no answer until the
 * TCP timeout) is not started again by every probe: one is reused for up to `staleMs`, then a
 * fresh one starts, so a database that comes back is seen within that time.
 *
 * @example
 * const answers = sharedProbe(() => database.ping(), 2_000);
 * await answers(); // true or false, within 2 s
 */
export function sharedProbe(ping: () => Promise<void>, timeoutMs: number, staleMs = 10 * timeoutMs, now: () => number = Date.now): () => Promise<boolean> {
  let current: { result: Promise<boolean>; startedAt: number } | undefined;
  return () => {
    if (!current || now() - current.startedAt > staleMs) {
      const mine: { result: Promise<boolean>; startedAt: number } = {
        startedAt: now(),
        result: ping().then(
          () => true,
          () => false,
        ),
      };
      void mine.result.then(() => {
        if (current === mine) current = undefined;
      });
      current = mine;
    }
    const { result } = current;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      void result.then((ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
  };
}
