/**
 * How one request's failure stays that request's: `failed` logs and answers it (503 when the
 * database could not be read, 500 for a bug, 400 for an unreadable body), and `continueAfter`
 * runs each asynchronous step of a request guarded, so no throw or rejection reaches the process.
 */
import { errorPage } from './pages.js';
import { NOINDEX, sendHtml } from './answers.js';
import type { Req, RedirectHandlerDeps } from './handler-types.js';

export interface RequestGuard {
  /** Answers a request that could not be completed, and logs why. Never throws. */
  failed(r: Pick<Req, 'res' | 'host' | 'path'>, status: 400 | 500 | 503, err: unknown): void;
  /**
   * Continues request `r` once `pending` settles: `step` runs guarded (a throw answers 500 for this
   * request only, instead of an unhandled rejection that ends the process), a rejection answers
   * `failStatus`. Every asynchronous branch of a request goes through here.
   */
  continueAfter<T>(r: Req, pending: Promise<T>, failStatus: 400 | 503, step: (value: T) => void): void;
}

/** `deps.onError` logs each failure (read on each failure, as the handler's own deps are). */
export function createRequestGuard(deps: Pick<RedirectHandlerDeps, 'onError'>): RequestGuard {
  function failed(r: Pick<Req, 'res' | 'host' | 'path'>, status: 400 | 500 | 503, err: unknown) {
    try {
      deps.onError(err, `redirect ${r.host}${r.path} failed (${status})`);
    } catch {
      // A logger that throws must not take the request's answer with it.
    }
    const { res } = r;
    if (res.writableEnded) return; // answered already; the failure came after (e.g. the click)
    if (!res.headersSent) {
      try {
        sendHtml(res, status, errorPage(status), NOINDEX);
        return;
      } catch {
        // Fall through: the connection is the only thing left to close.
      }
    }
    res.destroy();
  }

  function continueAfter<T>(r: Req, pending: Promise<T>, failStatus: 400 | 503, step: (value: T) => void) {
    pending.then(
      (value) => {
        try {
          step(value);
        } catch (err) {
          failed(r, 500, err);
        }
      },
      (err) => failed(r, failStatus, err),
    );
  }

  return { failed, continueAfter };
}
