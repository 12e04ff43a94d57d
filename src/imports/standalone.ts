/**
 * The import service on an open database, without the HTTP app: the links, tags and domains
 * services it needs, built on that connection. The CLI (`waymark import csv`) and the import
 * thread (import-worker.ts) use it. Changes are announced on `bus`: the thread forwards them to
 * the app's bus (the redirect's link cache, other processes); the CLI's reaches no server, and new
 * links need no invalidation there (a cached "not found" expires on its own).
 *
 * @example
 * const importer = createStandaloneImporter(config, await openDatabase(config.databaseUrl));
 * await importer.importCsv(workspace, createReadStream('links.csv'), { dryRun: true });
 */
import type { Config } from '../config.js';
import { createChangeBus, type ChangeBus } from '../db/change-bus.js';
import type { OpenDatabase } from '../db/open.js';
import { createDomainService } from '../domains/service.js';
import { createDomainStore } from '../domains/store.js';
import { defaultResolver } from '../domains/verification.js';
import { createLinkService } from '../links/service.js';
import { createLinkStore } from '../links/store.js';
import { createTagService } from '../tags/service.js';
import { createTagStore } from '../tags/store.js';
import { createImportService, type ImportRequestLimits } from './service.js';
import { createJobWriter } from './jobs.js';

export function createStandaloneImporter(config: Config, database: OpenDatabase, options: { bus?: ChangeBus; requestLimits?: ImportRequestLimits } = {}) {
  const { db, dialect } = database;
  const bus = options.bus ?? createChangeBus();
  const links = createLinkService({ db, dialect, store: createLinkStore(db, dialect), bus, now: Date.now, config });
  const tags = createTagService(createTagStore(db, dialect), dialect);
  const domains = createDomainService({ store: createDomainStore(db, dialect), dialect, config, bus, resolver: defaultResolver() });
  return createImportService({ links, tags, domains, shortDomain: config.shortDomain, requestLimits: options.requestLimits, jobWriter: (id) => createJobWriter(db, id) });
}
