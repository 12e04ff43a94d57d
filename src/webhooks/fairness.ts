/**
 * The dispatcher's fairness, as pure decisions (no I/O): which webhooks' deliveries to claim next,
 * and which receivers may be sent to now.
 *
 * - `planClaims` hands the free send slots out one at a time, round-robin over workspaces, then
 *   over the receivers of each workspace, then over the webhooks of each receiver, skipping
 *   receivers with no spare capacity; the starting workspace rotates from one pass to the next. So
 *   a workspace with a thousand due deliveries gets one slot per turn like a workspace with one.
 * - `createReceiverGate` counts the sends in flight per receiver (the origin of the webhook's URL,
 *   `scheme://host:port`) against a cap, and backs a receiver off after a send to it timed out:
 *   none of its deliveries is claimed until the backoff ends (they wait, not failed), the backoff
 *   doubling with each consecutive timeout up to `maxBackoffMs`; any answer (even an error status)
 *   ends the streak.
 *
 * @example
 * const gate = createReceiverGate({ cap: 8, backoffMs: 10_000, maxBackoffMs: 600_000, now: Date.now });
 * const plan = planClaims(candidates, { slots: 64, spare: gate.spare, turn: pass++ });
 */

/** A webhook with deliveries waiting (due, or click work not yet expanded). */
export interface Candidate {
  webhookId: string;
  workspaceId: string;
  receiver: string;
  /** Deliveries it could send now at most (Infinity: click work to expand). */
  available: number;
}

/** The receiver of a webhook URL: its origin (one host, port and scheme share connections and fate). */
export function receiverOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** How many deliveries to claim per webhook: `slots` in all, fair as described above. */
export function planClaims(candidates: readonly Candidate[], options: { slots: number; spare: (receiver: string) => number; turn: number }): Map<string, number> {
  const plan = new Map<string, number>();
  // workspace → receiver → webhooks, each level in a stable order.
  const byWorkspace = new Map<string, Map<string, Candidate[]>>();
  for (const c of [...candidates].sort((a, b) => (a.webhookId < b.webhookId ? -1 : 1))) {
    if (c.available <= 0) continue;
    let receivers = byWorkspace.get(c.workspaceId);
    if (!receivers) byWorkspace.set(c.workspaceId, (receivers = new Map()));
    let hooks = receivers.get(c.receiver);
    if (!hooks) receivers.set(c.receiver, (hooks = []));
    hooks.push(c);
  }
  const workspaces = [...byWorkspace.keys()].sort();
  if (!workspaces.length) return plan;
  const first = options.turn % workspaces.length;
  const order = [...workspaces.slice(first), ...workspaces.slice(0, first)];
  const spare = new Map<string, number>();
  const spareOf = (r: string) => spare.get(r) ?? (spare.set(r, Math.max(0, options.spare(r))), spare.get(r)!);
  const left = new Map(candidates.map((c) => [c.webhookId, c.available]));
  // Where each workspace's and each receiver's rotation is.
  const nextReceiver = new Map<string, number>();
  const nextHook = new Map<string, number>();
  let slots = options.slots;
  let progress = true;
  while (slots > 0 && progress) {
    progress = false;
    for (const w of order) {
      if (slots <= 0) break;
      const receivers = [...byWorkspace.get(w)!.entries()];
      const start = nextReceiver.get(w) ?? 0;
      for (let i = 0; i < receivers.length; i++) {
        const at = (start + i) % receivers.length;
        const [receiver, hooks] = receivers[at]!;
        if (spareOf(receiver) <= 0) continue;
        const hookStart = nextHook.get(`${w}\u0000${receiver}`) ?? 0;
        const pick = hooks.map((_, j) => hooks[(hookStart + j) % hooks.length]!).find((h) => left.get(h.webhookId)! > 0);
        if (!pick) continue;
        plan.set(pick.webhookId, (plan.get(pick.webhookId) ?? 0) + 1);
        left.set(pick.webhookId, left.get(pick.webhookId)! - 1);
        spare.set(receiver, spareOf(receiver) - 1);
        nextHook.set(`${w}\u0000${receiver}`, (hooks.indexOf(pick) + 1) % hooks.length);
        nextReceiver.set(w, (at + 1) % receivers.length);
        slots--;
        progress = true;
        break;
      }
    }
  }
  return plan;
}

export interface ReceiverGateOptions {
  /** Sends in flight per receiver at most. */
  cap: number;
  /** Backoff after a first timeout; doubles with each consecutive one. */
  backoffMs: number;
  maxBackoffMs: number;
  now: () => number;
}

export function createReceiverGate(options: ReceiverGateOptions) {
  const inFlight = new Map<string, number>();
  const streaks = new Map<string, { timeouts: number; until: number }>();
  return {
    /** Sends that may start for this receiver now: 0 while it is backed off or at its cap. */
    spare(receiver: string): number {
      const s = streaks.get(receiver);
      if (s && s.until > options.now()) return 0;
      return options.cap - (inFlight.get(receiver) ?? 0);
    },
    /** Until when the receiver is backed off, or null. */
    backedOffUntil(receiver: string): number | null {
      const s = streaks.get(receiver);
      return s && s.until > options.now() ? s.until : null;
    },
    begin(receiver: string): void {
      inFlight.set(receiver, (inFlight.get(receiver) ?? 0) + 1);
    },
    /** A send ended: `timedOut` backs the receiver off, an answer ends its streak, anything else (a connection error) leaves it. */
    end(receiver: string, outcome: 'answered' | 'timedOut' | 'other'): void {
      const n = (inFlight.get(receiver) ?? 1) - 1;
      if (n > 0) inFlight.set(receiver, n);
      else inFlight.delete(receiver);
      if (outcome === 'answered') streaks.delete(receiver);
      else if (outcome === 'timedOut') {
        const s = streaks.get(receiver) ?? { timeouts: 0, until: 0 };
        // Sends started together time out together: one backoff step for them, not one each.
        if (s.until > options.now()) return;
        s.timeouts++;
        s.until = options.now() + Math.min(options.maxBackoffMs, options.backoffMs * 2 ** Math.min(30, s.timeouts - 1));
        streaks.set(receiver, s);
      }
    },
    inFlight(receiver: string): number {
      return inFlight.get(receiver) ?? 0;
    },
  };
}
export type ReceiverGate = ReturnType<typeof createReceiverGate>;
