/**
 * Admission of API requests while redirects fill the redirect thread. Redirects and the API share
 * one event loop: an API write costs ~1.5 ms of it, and a few clients writing back to back take
 * half a core from the redirects (bench/mixed-load). While the loop is saturated and redirects
 * are arriving, API requests start at most `ratePerSecond` a second (a token bucket of `burst`);
 * the others wait, in order, at most `maxWaitMs` (then they start whatever the rate), and at most
 * `maxQueued` wait (past it a request starts at once). An idle or unsaturated loop admits every
 * request at once. Saturation is the loop's utilisation (`performance.eventLoopUtilization`) over
 * the last `sampleMs`, which this thread alone measures.
 *
 * @example
 * const admission = createApiAdmission({ ratePerSecond: 200 });
 * const route = (req, res) => redirect.tryHandle(req, res) ? admission.redirected() : admission.admit(() => api(req, res));
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export interface AdmissionOptions {
  /** API starts a second while redirects are waiting; 0: no bound (every request starts at once). */
  ratePerSecond: number;
  /** Starts allowed back to back before the rate applies. */
  burst: number;
  /** The longest a request waits; past it, it starts. */
  maxWaitMs: number;
  /** Requests waiting at most; past it, a request starts at once. */
  maxQueued: number;
  /** The loop's utilisation at or above which it counts as saturated (0-1). */
  saturatedAt: number;
  /** How often the loop's utilisation is sampled, ms. */
  sampleMs: number;
}

export const ADMISSION_DEFAULTS: AdmissionOptions = { ratePerSecond: 200, burst: 4, maxWaitMs: 1000, maxQueued: 256, saturatedAt: 0.9, sampleMs: 100 };

/** A token bucket: `tokens` as of `at` (ms). */
export interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The admission rule: 0 when a request may start now (a token is taken while redirects are
 * waiting), else the ms until the next token. Pure apart from the bucket it updates.
 */
export function admissionDelay(bucket: Bucket, now: number, redirectsWaiting: boolean, o: Pick<AdmissionOptions, 'ratePerSecond' | 'burst'>): number {
  if (o.ratePerSecond <= 0) return 0;
  bucket.tokens = Math.min(o.burst, bucket.tokens + ((now - bucket.at) * o.ratePerSecond) / 1000);
  bucket.at = now;
  if (!redirectsWaiting) return 0;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return Math.ceil(((1 - bucket.tokens) * 1000) / o.ratePerSecond);
}

/** Whether redirects are waiting: the loop was saturated over the last sample and a redirect came in it. */
export const redirectsWaiting = (utilization: number, redirectsInSample: number, saturatedAt: number) => redirectsInSample > 0 && utilization >= saturatedAt;

export interface ApiAdmission {
  /** A redirect was answered (the redirect thread's handler calls it: a counter, nothing else). */
  redirected(): void;
  /** Starts `start` now or once admitted. */
  admit(start: () => void): void;
  /** Requests deferred so far, and waiting now. */
  stats(): { deferred: number; waiting: number; waitedPastLimit: number };
  /** Stops sampling and starts every waiting request. */
  close(): void;
}

export function createApiAdmission(options: Partial<AdmissionOptions> & { /** The loop's utilisation since the last sample (tests); default: measured. */ utilization?: () => number } = {}): ApiAdmission {
  const o: AdmissionOptions = { ...ADMISSION_DEFAULTS, ...options };
  const bucket: Bucket = { tokens: o.burst, at: performance.now() };
  const queue: { start: () => void; since: number }[] = [];
  let redirects = 0;
  let waiting = false;
  let deferred = 0;
  let waitedPastLimit = 0;
  let timer: NodeJS.Timeout | undefined;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const measured = () => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return utilization;
  };
  const utilization = options.utilization ?? measured;
  const sampler = o.ratePerSecond > 0
    ? setInterval(() => {
        waiting = redirectsWaiting(utilization(), redirects, o.saturatedAt);
        redirects = 0;
      }, o.sampleMs)
    : undefined;
  sampler?.unref();

  function drain(): void {
    timer = undefined;
    while (queue.length) {
      const now = performance.now();
      const head = queue[0]!;
      const overdue = now - head.since >= o.maxWaitMs;
      const delay = overdue ? 0 : admissionDelay(bucket, now, waiting, o);
      if (delay > 0) {
        timer = setTimeout(drain, Math.min(delay, o.maxWaitMs - (now - head.since)));
        return;
      }
      if (overdue) waitedPastLimit++;
      queue.shift();
      head.start();
    }
  }

  return {
    redirected() {
      redirects++;
    },
    admit(start) {
      if (!queue.length && admissionDelay(bucket, performance.now(), waiting, o) === 0) return start();
      if (queue.length >= o.maxQueued) return start();
      deferred++;
      queue.push({ start, since: performance.now() });
      if (!timer) timer = setTimeout(drain, 1);
    },
    stats: () => ({ deferred, waiting: queue.length, waitedPastLimit }),
    close() {
      clearInterval(sampler);
      clearTimeout(timer);
      for (const q of queue.splice(0)) q.start();
    },
  };
}
