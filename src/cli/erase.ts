/**
 * `waymark erase --ip <address>` and `waymark erase --click <clickId>`: the operator's erasure of
 * one visitor's events (src/privacy/erasure.ts, docs/privacy.md), with the counts printed.
 */
import { CLI } from '../audit/record.js';
import { recordInEveryWorkspace } from '../audit/module.js';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { openEventStores } from '../events/index.js';
import { createErasure, describeErased } from '../privacy/erasure.js';

export const ERASE_USAGE = `  erase --ip <address>
        delete every click, lead and sale stored with this address (in its stored form: by default
        the address's /24 or /48, so every visitor of that network), in all workspaces
  erase --click <clickId>
        delete the click and the leads and sales attributed to it
`;

export async function runErase(input: { config: Config; database: OpenDatabase; ip?: string; click?: string; out: (line: string) => void }): Promise<number> {
  if (!input.ip === !input.click) throw new Error('erase needs exactly one of --ip <address> or --click <clickId>');
  // The event log the server uses (EVENTS_URL): with DuckDB, its file, which the server must not hold open.
  const stores = await openEventStores({ config: input.config, database: input.database });
  try {
    const erasure = createErasure({ events: stores.events, visitorIp: input.config.visitorIp });
    if (input.click) {
      input.out(describeErased(`click ${input.click}`, await erasure.eraseClick(input.click)));
      await recordErasure(input.database, 'click');
      return 0;
    }
    for (const form of await erasure.eraseIp(input.ip!)) input.out(describeErased(`ip ${form.stored}`, form));
    await recordErasure(input.database, 'ip');
    return 0;
  } finally {
    await stores.close();
  }
}

/**
 * The audit entry of an erasure, in every workspace (it looks in all of them). It names what was
 * matched on, never the address or click id: the entry must not keep what the erasure removed.
 */
function recordErasure(database: OpenDatabase, by: 'ip' | 'click'): Promise<void> {
  return recordInEveryWorkspace(database, CLI, { action: 'visitor.erase', targetIds: [], changes: { by } });
}
