/**
 * The operator's erasure of one visitor (`npx waymark erase`, src/cli/erase.ts): everything the
 * event log holds about an IP address or a click id, in every workspace, through the event store
 * (which also takes the events off the rollups and the link counters).
 *
 * Addresses are stored in the form `VISITOR_IP` gives them (../visitors/visitor-ip.ts), so an address is
 * looked for in that form: anonymized, it is the address's /24 (IPv4) or /48 (IPv6), shared with
 * every other visitor of that network, and all their events go. The exact address is looked for
 * too, for events stored while `VISITOR_IP` was `full`.
 *
 * @example
 * const erasure = createErasure({ events, visitorIp: 'anonymized' });
 * await erasure.eraseIp('203.0.113.7'); // → [{ stored: '203.0.113.0', clicks: 4, … }, { stored: '203.0.113.7', … }]
 */
import { isIP } from 'node:net';
import type { EventLog, ForgetResult } from '../events/index.js';
import { anonymizeIp, type VisitorIpMode } from '../visitors/visitor-ip.js';
import { normaliseIp } from '../http/client-address.js';

export interface ErasedForm extends ForgetResult {
  /** The stored value the events were matched on. */
  stored: string;
}

/** The stored forms under which events of `address` may be found (pure). Throws when it is no address. */
export function storedForms(address: string, mode: VisitorIpMode): string[] {
  const ip = normaliseIp(address.trim());
  if (!isIP(ip.split('%')[0]!)) throw new Error(`"${address}" is not an IP address`);
  const forms = mode === 'anonymized' ? [anonymizeIp(ip), ip] : [ip];
  return [...new Set(forms)];
}

export function createErasure(deps: { events: Pick<EventLog, 'forgetIp' | 'forgetClick'>; visitorIp: VisitorIpMode }) {
  return {
    async eraseIp(address: string): Promise<ErasedForm[]> {
      const out: ErasedForm[] = [];
      for (const stored of storedForms(address, deps.visitorIp)) out.push({ stored, ...(await deps.events.forgetIp(stored)) });
      return out;
    },
    async eraseClick(clickId: string): Promise<ErasedForm> {
      if (!clickId.trim()) throw new Error('a click id is required');
      return { stored: clickId, ...(await deps.events.forgetClick(clickId)) };
    },
  };
}

/** One line of the CLI's report. */
export function describeErased(what: string, r: ForgetResult): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const line = `${what}: erased ${plural(r.clicks, 'click')}, ${plural(r.leads, 'lead')}, ${plural(r.sales, 'sale')}`;
  return r.pending ? `${line}; ${plural(r.pending, 'click')} too recent to erase yet (not folded into the rollups): run again in a few seconds` : line;
}
