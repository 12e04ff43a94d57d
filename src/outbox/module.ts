/**
 * Domain events module: the subscribers registered at start (those `buildApp` is given, and the
 * `EVENTS_FILE` sink), the registry the services ask before writing outbox rows, and the publisher
 * that delivers them after the commit. Its lifecycle starts the publisher and, at shutdown, waits
 * for the delivery in flight; what is left is delivered by the next start.
 */
import type { OpenDatabase } from '../db/open.js';
import type { Lifecycle } from '../lifecycle.js';
import { createOutbox } from './outbox.js';
import { createEventRegistry, createOutboxPublisher, type PublisherOptions, type Subscriber } from './publisher.js';
import type { DomainEventType } from './outbox.js';
import { createFileSink } from './file-sink.js';

export interface OutboxSettings {
  /** `EVENTS_FILE`: a JSON-lines file every event of `eventsFileEvents` is appended to. */
  eventsFile?: string;
  eventsFileEvents?: readonly DomainEventType[];
  /** `EVENTS_POLL_MS`: how often other processes' events are looked for. */
  eventsPollMs: number;
}

export function createOutboxModule(deps: {
  config: OutboxSettings;
  database: Pick<OpenDatabase, 'db'>;
  /** What subscribers receive of each stored row (webhooks/event-payloads.ts). */
  expander: PublisherOptions['expander'];
  now: () => number;
  subscribers?: readonly Subscriber[];
  onError: NonNullable<PublisherOptions['onError']>;
}) {
  const { config } = deps;
  const subscribers = [
    ...(deps.subscribers ?? []),
    ...(config.eventsFile ? [createFileSink({ path: config.eventsFile, events: config.eventsFileEvents })] : []),
  ];
  const registry = createEventRegistry(subscribers);
  const publisher = createOutboxPublisher({
    db: deps.database.db,
    subscribers,
    expander: deps.expander,
    pollMs: config.eventsPollMs,
    now: deps.now,
    onError: deps.onError,
  });
  const outbox = createOutbox(registry, () => publisher.nudge());
  const lifecycle: Lifecycle = {
    start: () => publisher.start(),
    close: () => publisher.close(),
  };
  return { registry, outbox, publisher, lifecycle };
}
export type OutboxModule = ReturnType<typeof createOutboxModule>;
