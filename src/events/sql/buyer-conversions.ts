/**
 * Attribution's read on SQL (`EventLog.buyerConversions`): one statement whose CTE is the sales an
 * aggregate of the spec counts (the same scan and conditions as its raw part), and whose second
 * branch is every lead and sale of those buyers since the journey's start, found through
 * `events_customer` (workspace_id, customer_id, kind, timestamp, click_id, link_id, amount:
 * covering, migration 0036) by an `in (select customer_id …)` subquery. Only the columns the
 * models read travel back; `sel` tells the branches apart.
 *
 * @example
 * const [rows] = await runner.run([buyerConversionsQuery(db, dialect, spec, range, range.from - lookbackMs)]);
 * const { sales, journeys } = splitBuyerRows(rows, spec.group.length);
 */
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import type { AggregateSpec, BuyerConversions, ConversionTouchRow, TimeSpan } from '../event-store.js';
import { rawColumn, rawScan } from './aggregate-sql.js';
import { scopeSubquery } from './link-scope.js';
import { buildScope } from '../link-scope.js';

/** The spec as the sales it selects: an aggregate of its `sale` kind, without slots. */
export const salesOf = (spec: AggregateSpec): AggregateSpec => ({ ...spec, kinds: ['sale'], timeseries: false });

/** The scope of a journey: every link of the workspace but disabled ones, in every folder. */
export const journeyScope = (workspaceId: string) => buildScope({ workspaceId, links: {}, named: false, everyFolder: true });

export function buyerConversionsQuery(db: Kysely<Database>, dialect: Dialect, spec: AggregateSpec, range: TimeSpan, since: number): CompiledQuery {
  const sales = salesOf(spec);
  const scan = rawScan(sales, { source: 'raw', from: range.from, to: range.to, sign: 1, links: 'scope' }, dialect);
  const groups = spec.group.map((c, i) => sql`${rawColumn(c)} as ${sql.ref(`g${i}`)}`);
  const columns = sql.join([sql`kind, customer_id, click_id, link_id, ${sql.ref('timestamp')}, coalesce(amount, 0) as amount`, ...groups]);
  const ts = sql.ref('timestamp');
  const disabled = scopeSubquery(journeyScope(spec.workspaceId).input);
  // Materialized: read once, then probed by the second branch (SQLite otherwise ran the sales'
  // scan again inside it: 614 against 152 ms at 250k events, bench/attribution/README.md).
  return sql`with sales as materialized (select ${columns} from ${scan.from} where ${sql.join(scan.conds, sql` and `)})
    select 1 as sel, sales.* from sales
    union all
    select 0 as sel, ${columns} from ${dialect.indexedBy('events', 'events_customer')}
    where workspace_id = ${spec.workspaceId} and customer_id is not null
      and customer_id in (select customer_id from sales where customer_id is not null)
      and kind in ('lead', 'sale') and ${ts} >= ${since} and ${ts} < ${range.to}
      and ${dialect.noIndex('link_id')} not in (${disabled})`.compile(db);
}

/** Rows of either engine's buyer query (a `sel` column, the touch columns, `g0…gN`) → the two lists. */
export function splitBuyerRows(rows: readonly Record<string, unknown>[], groupSize: number): BuyerConversions {
  const out: BuyerConversions = { sales: [], journeys: [] };
  for (const r of rows) {
    const g: string[] = [];
    for (let i = 0; i < groupSize; i++) g.push(String(r[`g${i}`] ?? ''));
    const row: ConversionTouchRow = {
      kind: r.kind as ConversionTouchRow['kind'],
      customer_id: r.customer_id === null || r.customer_id === undefined ? null : String(r.customer_id),
      click_id: String(r.click_id ?? ''),
      link_id: String(r.link_id),
      timestamp: Number(r.timestamp),
      amount: Number(r.amount ?? 0),
      g,
    };
    (Number(r.sel) === 1 ? out.sales : out.journeys).push(row);
  }
  return out;
}
