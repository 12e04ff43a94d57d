/**
 * `waymark backup <file>` and `waymark restore <file>` (src/backup/sqlite.ts). They run before
 * the CLI opens the database: a restore must not count the CLI's own connection as a user.
 * PostgreSQL installations are pointed to pg_dump and pg_restore.
 */
import { isPostgresUrl, sqliteFileFromUrl } from '../db/open.js';
import { backupSqlite, restoreSqlite } from '../backup/sqlite.js';

export const BACKUP_USAGE = `  backup <file> [--force]
        SQLite: a consistent copy of the database, safe while the server runs (--force replaces <file>)
  restore <file>
        SQLite: replace the database by a backup; refused while a server or any program has it open
        (PostgreSQL: use pg_dump and pg_restore)
`;

const POSTGRES = (verb: string) =>
  `${verb} works on a SQLite installation; this one runs on PostgreSQL: use pg_dump -Fc "$DATABASE_URL" > waymark.dump to back it up and pg_restore --clean -d "$DATABASE_URL" waymark.dump to restore it`;

export async function runBackupCommand(input: { group: 'backup' | 'restore'; file?: string; databaseUrl: string; force?: boolean; out: (line: string) => void }): Promise<number> {
  if (isPostgresUrl(input.databaseUrl)) throw new Error(POSTGRES(input.group));
  const path = sqliteFileFromUrl(input.databaseUrl);
  if (path === ':memory:') throw new Error(`${input.group} needs a database file; DATABASE_URL names an in-memory database`);
  if (!input.file) throw new Error(`the file is required: waymark ${input.group} <file>`);
  if (input.group === 'backup') {
    const r = await backupSqlite(path, input.file, { overwrite: input.force });
    input.out(`Backed up ${path} to ${input.file}: ${r.pages} pages, ${r.bytes} bytes in ${r.ms} ms`);
  } else {
    const r = restoreSqlite(input.file, path);
    input.out(`Restored ${path} from ${input.file} (${r.bytes} bytes)`);
  }
  return 0;
}
