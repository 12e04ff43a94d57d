/**
 * The ordered list of schema migrations, run on both engines at start (`migrateToLatest`).
 * Add a file `NNNN-name.ts` exporting `up(db, dialect)` and list it here; never edit a released one.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-analytics-rollups.js';
import * as m0003 from './0003-customer-indexes.js';
import * as m0006 from './0006-link-list-indexes.js';
import * as m0007 from './0007-events-customer-partial.js';
import * as m0008 from './0008-click-rollup-state.js';
import * as m0009 from './0009-rate-limit-counters.js';
import * as m0010 from './0010-outbox.js';
import * as m0011 from './0011-webhooks.js';
import * as m0012 from './0012-users.js';
import * as m0016 from './0016-link-search-index.js';
import * as m0014 from './0014-column-store-upgrade.js';
import * as m0017 from './0017-click-journal.js';
import * as m0018 from './0018-webhook-click-batches.js';
import * as m0019 from './0019-webhook-attempts.js';
import * as m0020 from './0020-public-stats-conversions.js';
import * as m0021 from './0021-click-batches.js';
import * as m0022 from './0022-utm-templates.js';
import * as m0023 from './0023-audit-log.js';
import * as m0024 from './0024-password-resets.js';
import * as m0025 from './0025-sso.js';
import * as m0026 from './0026-sso-password-allowed.js';
import * as m0027 from './0027-import-jobs.js';
import * as m0028 from './0028-integrations.js';
import * as m0029 from './0029-refunds-processor-ids.js';
import * as m0034 from './0034-event-erasures.js';
import * as m0032 from './0032-bio-pages.js';
import * as m0033 from './0033-bio-page-links.js';
import * as m0035 from './0035-ab-test-settings.js';
import * as m0036 from './0036-events-customer-covering.js';
import * as m0037 from './0037-credits.js';
import * as m0038 from './0038-credit-backfill.js';
import * as m0039 from './0039-credit-copies.js';
import * as m0040 from './0040-credits-links-covering.js';

type DialectMigration = { up(db: Kysely<any>, dialect: Dialect): Promise<void> };

const ALL: Record<string, DialectMigration> = {
  '0001-initial': m0001,
  '0002-analytics-rollups': m0002,
  '0003-customer-indexes': m0003,
  '0006-link-list-indexes': m0006,
  '0007-events-customer-partial': m0007,
  '0008-click-rollup-state': m0008,
  '0009-rate-limit-counters': m0009,
  '0010-outbox': m0010,
  '0011-webhooks': m0011,
  '0012-users': m0012,
  '0016-link-search-index': m0016,
  '0014-column-store-upgrade': m0014,
  '0017-click-journal': m0017,
  '0018-webhook-click-batches': m0018,
  '0019-webhook-attempts': m0019,
  '0020-public-stats-conversions': m0020,
  '0021-click-batches': m0021,
  '0022-utm-templates': m0022,
  '0023-audit-log': m0023,
  '0024-password-resets': m0024,
  '0025-sso': m0025,
  '0026-sso-password-allowed': m0026,
  '0027-import-jobs': m0027,
  '0028-integrations': m0028,
  '0029-refunds-processor-ids': m0029,
  '0034-event-erasures': m0034,
  '0032-bio-pages': m0032,
  '0033-bio-page-links': m0033,
  '0035-ab-test-settings': m0035,
  '0036-events-customer-covering': m0036,
  '0037-credits': m0037,
  '0038-credit-backfill': m0038,
  '0039-credit-copies': m0039,
  '0040-credits-links-covering': m0040,
};

/** Binds each migration to the engine's dialect for Kysely's Migrator. */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(ALL).map(([name, m]) => [name, { up: (db: Kysely<any>) => m.up(db, dialect) }]),
  );
}
