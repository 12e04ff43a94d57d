/**
 * Kysely types of the analytics rollup tables (migration 0002). Analytics code reaches them with
 * `db.withTables<RollupTables>()`, so the shared `Database` interface stays as it is.
 */

/** Per workspace and UTC hour: the four metrics of every event. */
export type AnalyticsHourlyTable = {
  workspace_id: string;
  /** Start of the UTC hour, ms. */
  bucket: number;
  clicks: number;
  leads: number;
  sales: number;
  /** USD cents. */
  sale_amount: number;
};

/** Per workspace, tuple ("dim"), UTC day and key tuple: the four metrics (see rollup-spec.ts). */
export type AnalyticsDailyTable = {
  workspace_id: string;
  dim: string;
  /** Start of the UTC day, ms. */
  bucket: number;
  /** Hash of dim + keys: a short primary key whatever the length of the values. */
  key_hash: string;
  k1: string;
  k2: string;
  k3: string;
  k4: string;
  k5: string;
  k6: string;
  k7: string;
  k8: string;
  clicks: number;
  leads: number;
  sales: number;
  sale_amount: number;
};

export type RollupTables = {
  analytics_hourly: AnalyticsHourlyTable;
  analytics_daily: AnalyticsDailyTable;
};
