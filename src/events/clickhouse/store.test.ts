/**
 * The column store on ClickHouse passes the event store contract (../contract.ts), run on real
 * ClickHouse SQL in-process through chdb (ClickHouse 26.7), with its metadata database the engine
 * under test: SQLite by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
 */
import { describeEventStoreContract } from '../contract.js';
import { openChdbExecutor } from './chdb-executor.js';
import { clickHouseFixture } from './testing.js';

describeEventStoreContract('column store on ClickHouse (chdb)', async () => clickHouseFixture(await openChdbExecutor()));
