/**
 * A module's lifecycle hooks, called by app.ts at start and at shutdown (in the order app.ts
 * lists them; closing in the same order, once the server stopped accepting requests).
 *
 * @example
 * const lifecycle: Lifecycle = { start: () => timer.start(), close: () => timer.stop() };
 */
export interface Lifecycle {
  start?(): Promise<void> | void;
  /** Called after the server stopped accepting requests; must flush anything buffered. */
  close?(): Promise<void> | void;
}
