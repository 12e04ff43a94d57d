/**
 * Answers waiting for the click writer to catch up (click-writer.ts): redirects whose click is
 * already queued but whose 302 is not sent yet. They go out in arrival order when the writer is
 * back under its lag bound (`releaseAll`), and each at the latest `maxHoldMs` after it was held:
 * a database that takes no batch for that long must not stop the redirects (`onExpired` counts
 * those, whose click is then answered before it is committed).
 *
 * @example
 * const held = createHeldAnswers({ maxHoldMs: 2000 });
 * held.hold(() => res.end());   // the writer is behind
 * held.releaseAll();            // caught up: every held answer is sent now
 */
export interface HeldAnswersOptions {
  maxHoldMs: number;
  /** Answers sent because they waited `maxHoldMs` (not because the writer caught up). */
  onExpired?: (count: number) => void;
  /** An answer threw (its request failed; the others still go out). */
  onError?: (err: unknown, context: string) => void;
}

export interface HeldAnswers {
  hold(answer: () => void): void;
  /** Sends every held answer now. */
  releaseAll(): void;
  readonly size: number;
}

interface Held {
  answer: () => void;
  /** Date.now() past which it goes out anyway. */
  until: number;
}

export function createHeldAnswers(options: HeldAnswersOptions): HeldAnswers {
  const { maxHoldMs } = options;
  let held: Held[] = [];
  let timer: NodeJS.Timeout | null = null;

  const send = (h: Held) => {
    try {
      h.answer();
    } catch (err) {
      options.onError?.(err, 'sending a held redirect failed');
    }
  };

  // One timer, for the oldest answer: they are held in order and each for the same time.
  const arm = (delay: number) => {
    timer = setTimeout(expire, Math.max(1, delay));
    timer.unref();
  };

  function expire() {
    timer = null;
    const now = Date.now();
    let i = 0;
    while (i < held.length && held[i]!.until <= now) i++;
    const due = held.slice(0, i);
    held = held.slice(i);
    if (held.length) arm(held[0]!.until - now);
    for (const h of due) send(h);
    if (due.length) options.onExpired?.(due.length);
  }

  return {
    hold(answer) {
      held.push({ answer, until: Date.now() + maxHoldMs });
      if (timer === null) arm(maxHoldMs);
    },
    releaseAll() {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      const all = held;
      held = [];
      for (const h of all) send(h);
    },
    get size() {
      return held.length;
    },
  };
}
