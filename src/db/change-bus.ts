/**
 * Tells every process that a link or domain changed, so in-process caches drop stale entries.
 * In one process it is a plain emitter; on PostgreSQL the redirect module adds LISTEN/NOTIFY
 * so several Waymark processes behind a load balancer stay consistent.
 */
import { EventEmitter } from 'node:events';

export type Change =
  | { type: 'link'; domain: string; key: string }
  | { type: 'domain'; domain: string };

export interface ChangeBus {
  /** Announce a change to this process and to the others. */
  publish(change: Change): void;
  /** Receive changes from this process and from the others. */
  subscribe(listener: (change: Change) => void): () => void;
  /** Lets a transport (e.g. PostgreSQL NOTIFY) deliver changes made elsewhere and send ours out. */
  setRemote(remote: { send(change: Change): void } | null): void;
  /** Delivers a change received from another process to local subscribers only. */
  deliver(change: Change): void;
  /**
   * Changes may have been missed (the relay lost its connection): every cached copy in this
   * process, on any thread, starts over. Local only.
   */
  resync(): void;
  /** Hears `resync`. */
  onResync(listener: () => void): () => void;
}

export function createChangeBus(): ChangeBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(100);
  let remote: { send(change: Change): void } | null = null;
  return {
    publish(change) {
      emitter.emit('change', change);
      remote?.send(change);
    },
    subscribe(listener) {
      emitter.on('change', listener);
      return () => emitter.off('change', listener);
    },
    setRemote(r) {
      remote = r;
    },
    deliver(change) {
      emitter.emit('change', change);
    },
    resync() {
      emitter.emit('resync');
    },
    onResync(listener) {
      emitter.on('resync', listener);
      return () => emitter.off('resync', listener);
    },
  };
}
