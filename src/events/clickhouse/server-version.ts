/**
 * Which ClickHouse servers Waymark runs on, decided from `SELECT version()` before any statement
 * of the schema: an older server would fail later on a raw syntax or setting error (a setting it
 * does not know), which says nothing of the cause.
 *
 * The oldest supported release is 24.8 (LTS): the engine needs lightweight `DELETE` waited for
 * with `lightweight_deletes_sync` (24.4), the `final` query setting (23.2) and
 * `insert_deduplication_token` (22.2); 24.8 is the first long-term-support release with all of
 * them. The tests run on chdb's embedded ClickHouse (TESTED_CLICKHOUSE below).
 *
 * @example
 * clickHouseVersionProblem('23.8.2.7'); // 'ClickHouse 23.8.2.7 is not supported: …'
 * clickHouseVersionProblem('24.8.4.13'); // undefined
 */

/** The oldest supported release, [major, minor]. */
export const MIN_CLICKHOUSE: readonly [number, number] = [24, 8];
/** The release the test suite runs on (chdb 3.x embeds it). */
export const TESTED_CLICKHOUSE = '26.7';

export const SUPPORTED_CLICKHOUSE = `ClickHouse ${MIN_CLICKHOUSE.join('.')} (LTS) or newer (tested on ${TESTED_CLICKHOUSE})`;

/** Why a server of `version` (as `SELECT version()` answers) cannot be used, or undefined when it can. */
export function clickHouseVersionProblem(version: string): string | undefined {
  const match = /^\s*(\d+)\.(\d+)(?:\.|\s*$)/.exec(version);
  if (!match) return `the ClickHouse server answered version "${version}", which Waymark cannot read; it needs ${SUPPORTED_CLICKHOUSE}`;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const [minMajor, minMinor] = MIN_CLICKHOUSE;
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return `ClickHouse ${version.trim()} is not supported: Waymark needs ${SUPPORTED_CLICKHOUSE} (docs/events-stores.md). Upgrade the server, or set EVENTS_URL to another event store`;
}
