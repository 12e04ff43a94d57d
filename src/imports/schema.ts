/**
 * Schemas of `POST /links/import`: the query (dry run, column mapping) and the report.
 */
import { z } from 'zod';
import { IMPORT_FIELDS } from './layouts.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const ImportQuery = z.object({
  dryRun: bool.optional().default(false).describe('Report what the import would do, without writing anything.'),
  map: z
    .union([z.string().max(300), z.array(z.string().max(300)).max(IMPORT_FIELDS.length)])
    .optional()
    .describe(`Column mapping, repeatable: \`field=Header\` with field one of ${IMPORT_FIELDS.join(', ')} (for example \`map=url=Long URL\`).`),
});
export type ImportQuery = z.infer<typeof ImportQuery>;

const Item = z.object({
  line: z.number().describe('Line of the file the row ends on; the header is line 1.'),
  status: z.enum(['created', 'skipped', 'rejected']),
  id: z.string().nullable().optional().describe('The link created or already present (null in a dry run).'),
  domain: z.string().optional(),
  key: z.string().optional(),
  error: z.string().optional().describe('Why the row was rejected: the message `POST /links` gives.'),
  code: z.string().optional(),
});

export const ImportReport = z
  .object({
    layout: z.enum(['dub', 'bitly', 'shlink', 'yourls', 'kutt', 'generic']),
    dryRun: z.boolean(),
    counts: z.object({ rows: z.number(), created: z.number(), skipped: z.number(), rejected: z.number() }),
    tagsCreated: z.array(z.string()),
    domainsCreated: z.array(z.string()),
    items: z.array(Item).describe('Per-row outcomes in file order, at most 1,000.'),
    truncated: z.boolean().describe('True when the file had more rows than `items` lists.'),
    importId: z.string().optional().describe('The import job (`GET /imports/{importId}`); absent in a dry run.'),
  })
  .meta({ id: 'LinkImportReport' });

export const ImportJobParams = z.object({ importId: z.string().max(64) });

export const ImportJob = z
  .object({
    id: z.string(),
    state: z.enum(['running', 'completed', 'interrupted', 'failed', 'undone']).describe('interrupted: the server stopped or the upload was cut; resume or undo it.'),
    source: z.string().describe('api or dashboard'),
    layout: z.string().nullable(),
    counts: z.object({ rows: z.number(), created: z.number(), skipped: z.number(), rejected: z.number() }).describe('Rows read and their outcomes so far.'),
    undone: z.number().describe('Links an undo removed.'),
    lastLine: z.number().describe('The last line of the file whose rows are written (the header is line 1).'),
    uploadComplete: z.boolean(),
    resumable: z.boolean(),
    undoable: z.boolean(),
    error: z.string().nullable().describe('Why it stopped, when it did not complete.'),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'LinkImportJob' });
