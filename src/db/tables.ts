/**
 * Kysely table types: one `Database` interface for SQLite and PostgreSQL.
 *
 * Conventions that hold on both engines:
 * - timestamps are integer milliseconds since the epoch (`bigint` on PostgreSQL,
 *   parsed back to numbers in `open.ts`);
 * - booleans are stored as 0/1 integers, because better-sqlite3 cannot bind JS booleans;
 * - JSON values (geo, testVariants, metadata …) are stored as text.
 * Every table that belongs to a workspace carries `workspace_id`.
 */
import type { Generated, Kysely } from 'kysely';

export type Flag = 0 | 1;

export interface WorkspacesTable {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  invite_code: string;
  plan: string;
  plan_tier: number;
  billing_cycle_start: number;
  conversion_enabled: Flag;
  usage: number;
  usage_limit: number;
  links_usage: number;
  links_limit: number;
  total_links: number;
  domains_limit: number;
  tags_limit: number;
  folders_usage: number;
  folders_limit: number;
  users_limit: number;
  ai_usage: number;
  ai_limit: number;
  payouts_usage: number;
  payouts_limit: number;
  payout_fee: number;
  groups_limit: number;
  network_invites_limit: number;
  store: string | null;
  flags: string | null;
  allowed_hostnames: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  hashed_key: string;
  partial_key: string;
  /** Space-separated scopes, or null for full access. */
  scopes: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface DomainsTable {
  id: string;
  workspace_id: string;
  /** Lower-cased host name; unique across the whole service. */
  slug: string;
  verified: Flag;
  primary: Flag;
  archived: Flag;
  placeholder: string | null;
  expired_url: string | null;
  not_found_url: string | null;
  logo: string | null;
  asset_links: string | null;
  apple_app_site_association: string | null;
  created_at: number;
  updated_at: number;
}

export interface TagsTable {
  id: string;
  workspace_id: string;
  name: string;
  /** lower(name): tag names are unique per workspace without regard to case. */
  name_key: string;
  color: string;
  created_at: number;
  updated_at: number;
}

export interface FoldersTable {
  id: string;
  workspace_id: string;
  name: string;
  name_key: string;
  description: string | null;
  type: string;
  access_level: string | null;
  created_at: number;
  updated_at: number;
}

export interface LinksTable {
  id: string;
  workspace_id: string;
  domain: string;
  key: string;
  /** lower(key): keys are unique per domain without regard to case. */
  key_lower: string;
  url: string;
  short_link: string;
  archived: Flag;
  expires_at: number | null;
  expired_url: string | null;
  disabled_at: number | null;
  password: string | null;
  track_conversion: Flag;
  proxy: Flag;
  title: string | null;
  description: string | null;
  image: string | null;
  video: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  rewrite: Flag;
  do_index: Flag;
  ios: string | null;
  android: string | null;
  /** JSON object country → URL. */
  geo: string | null;
  /** JSON array of {url, percentage}. */
  test_variants: string | null;
  test_started_at: number | null;
  test_completed_at: number | null;
  user_id: string | null;
  folder_id: string | null;
  external_id: string | null;
  tenant_id: string | null;
  program_id: string | null;
  partner_id: string | null;
  public_stats: Flag;
  /** The public stats page shows leads, sales and revenue too (migration 0019; dashboard only). */
  public_stats_conversions: Flag;
  comments: string | null;
  clicks: number;
  leads: number;
  conversions: number;
  sales: number;
  sale_amount: number;
  last_clicked: number | null;
  created_at: number;
  updated_at: number;
}

export interface LinkTagsTable {
  link_id: string;
  tag_id: string;
  workspace_id: string;
  /** Order of the tag on the link (the order in which it was given). */
  position: number;
}

export interface CustomersTable {
  id: string;
  workspace_id: string;
  external_id: string;
  name: string;
  email: string | null;
  avatar: string | null;
  country: string | null;
  processor_customer_id: string | null;
  /** The click and link the customer was first attributed to (by their first lead). */
  click_id: string | null;
  link_id: string | null;
  sales: number;
  sale_amount: number;
  first_sale_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * One row per click, lead or sale. A single log keeps `composite` analytics to one scan and lets
 * every grouping work the same for the three kinds. Lead and sale rows copy the dimensions of the
 * click they are attributed to, so "sales by country" needs no join.
 * SQLite clusters it on (workspace_id, timestamp, id) (storage-benchmarks.md §2).
 */
export interface EventsTable {
  workspace_id: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Event id: the click id for clicks, `evt_…` for leads and sales. */
  id: string;
  kind: 'click' | 'lead' | 'sale';
  click_id: string;
  link_id: string;
  domain: string;
  key: string;
  url: string;
  country: string;
  city: string;
  region: string;
  continent: string;
  device: string;
  browser: string;
  os: string;
  referer: string;
  referer_url: string;
  trigger: string;
  ip: string;
  ua: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  customer_id: string | null;
  event_name: string | null;
  /** Sales: USD cents. */
  amount: number;
  currency: string | null;
  /** Sales: amount as sent, in the smallest unit of `currency`. */
  original_amount: number | null;
  payment_processor: string | null;
  invoice_id: string | null;
  sale_type: string | null;
  /** JSON text. */
  metadata: string | null;
}

/**
 * Attribution credits written with the sale (migration 0037, docs/decisions/0015): one row per
 * (sale, model, touch), the touch's dimensions copied as a lead copies its click's.
 */
export interface CreditsTable {
  workspace_id: string;
  model: string;
  /** The sale's time (ms). */
  timestamp: number;
  sale_id: string;
  /** The touch's click id. */
  click_id: string;
  customer_id: string | null;
  /** The sale's own link: a link scope applies to the sale. */
  sale_link_id: string;
  /** The touch's link. */
  link_id: string;
  domain: string | null;
  url: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  continent: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  trigger: string | null;
  referer: string | null;
  referer_url: string | null;
  /** Fraction of the sale counted for the touch (0 for a refund). */
  share: number;
  /** USD cents credited to the touch. */
  cents: number;
}

/** Sales whose credits are to be written again (migration 0038, attribution/backfill.ts). */
export interface CreditRecomputeTable {
  sale_id: string;
  workspace_id: string;
  queued_at: number;
}

/** Sales whose changed credits are still to be copied into the DuckDB event file (migration 0039, events/column/credit-copies.ts). */
export interface CreditCopiesTable {
  sale_id: string;
  workspace_id: string;
  /** New at each change: the copy deletes the row only with the mark it read. */
  mark: string;
}

/** How far the credits' backfill came (migration 0038, attribution/backfill.ts). */
export interface CreditBackfillTable {
  name: string;
  after_workspace_id: string | null;
  after_timestamp: number | null;
  after_id: string | null;
  done_at: number | null;
}

/**
 * Where an earlier version left how far its click fold had counted (migration 0008; SQLite, which
 * folded clicks into rollups and counters a second at a time). Read once by the SQL store's
 * upgrade (events/upgrades/fold-clicks.ts), which counts what was left and clears it.
 */
export interface ClickRollupStateTable {
  id: number;
  /** Every click event with `timestamp` below this was folded, none at or above it; null: all are. */
  folded_before: number | null;
}

/** Ids of click batches the metadata database has stored (migration 0021, events/click-log.ts). */
/** An erasure's hand-off to the column store (migration 0034, events/column/erasure.ts). */
export interface EventErasuresTable {
  id: string;
  target: string;
  created_at: number;
}

export interface ClickBatchesTable {
  batch_id: string;
  appended_at: number;
}

/** Per event log that numbers its click batches (a DuckDB file), the last one counted (migration 0021, events/log/fold.ts). */
export interface EventLogFoldsTable {
  log_id: string;
  folded_seq: number;
}

/** PostgreSQL only (db/rate-counters.ts): request counters shared by every process. */
export interface RateLimitCountersTable {
  bucket: string;
  window_ms: number;
  hits: number;
  /** When the current window ends, ms since the epoch (PostgreSQL's clock). */
  reset_at: number;
}

export interface Database {
  workspaces: WorkspacesTable;
  click_rollup_state: ClickRollupStateTable;
  click_batches: ClickBatchesTable;
  event_erasures: EventErasuresTable;
  event_log_folds: EventLogFoldsTable;
  api_keys: ApiKeysTable;
  domains: DomainsTable;
  tags: TagsTable;
  folders: FoldersTable;
  links: LinksTable;
  link_tags: LinkTagsTable;
  customers: CustomersTable;
  events: EventsTable;
  credits: CreditsTable;
  credit_backfill: CreditBackfillTable;
  credit_recompute: CreditRecomputeTable;
  credit_copies: CreditCopiesTable;
  rate_limit_counters: RateLimitCountersTable;
  outbox: OutboxTable;
  outbox_deliveries: OutboxDeliveriesTable;
  webhooks: WebhooksTable;
  link_webhooks: LinkWebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_click_batches: WebhookClickBatchesTable;
  webhook_click_cursors: WebhookClickCursorsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  user_identities: UserIdentitiesTable;
  sso_logins: SsoLoginsTable;
  invitations: InvitationsTable;
  setup_tokens: SetupTokensTable;
  audit_log: AuditLogTable;
  password_resets: PasswordResetsTable;
  utm_templates: UtmTemplatesTable;
  import_jobs: ImportJobsTable;
  import_job_links: ImportJobLinksTable;
  integrations: IntegrationsTable;
  integration_events: IntegrationEventsTable;
  sale_refunds: SaleRefundsTable;
  bio_pages: BioPagesTable;
  bio_page_links: BioPageLinksTable;
  ab_test_settings: AbTestSettingsTable;
}

/** A link's A/B test settings and the route its completed test settled on (migration 0035). */
export interface AbTestSettingsTable {
  link_id: string;
  workspace_id: string;
  /** `leads` | `clicks` | `sales` | `revenue`; null: leads. */
  metric: string | null;
  /** `keep_splitting` | `stop`; null: keep splitting. */
  on_inconclusive: string | null;
  /** `winner` | `split` | `stop`, decided once the test completed; null: not decided. */
  route: string | null;
  route_url: string | null;
  /** The link's `test_completed_at` the route was decided for. */
  decided_for: number | null;
  decided_at: number | null;
  updated_at: number;
}

export type { Generated };

/** Domain events written with the change they announce (migration 0010, src/outbox/outbox.ts). */
export interface OutboxTable {
  /** Event id, `evt_…`: subscribers de-duplicate on it. */
  id: string;
  workspace_id: string;
  /** `link.created`, `lead.created` … (DomainEventType). */
  type: string;
  /** JSON text: the stored form of the event's data (outbox.ts, OutboxPayloads). */
  payload: string;
  created_at: number;
}

/** Delivery of one outbox event to one subscriber (migration 0010, src/outbox/publisher.ts). */
export interface OutboxDeliveriesTable {
  subscriber: string;
  event_id: string;
  attempts: number;
  /** Until then the event is claimed by a process (lease) or waits for its next attempt. */
  not_before: number;
  delivered_at: number | null;
  last_error: string | null;
}

/** A workspace's webhook receiver (migration 0011, src/webhooks/). */
export interface WebhooksTable {
  /** `wh_…` */
  id: string;
  workspace_id: string;
  name: string;
  url: string;
  /** `whsec_` + base64; sent to nobody but the owner, never logged. */
  secret: string;
  /** JSON array of DomainEventType. */
  triggers: string;
  /** `workspace` | `folders` | `links`, for `link.clicked`; null without it. */
  link_scope: string | null;
  /** JSON arrays of ids (linkScope `links` / `folders`). */
  link_ids: string;
  folder_ids: string;
  disabled_at: number | null;
  consecutive_failures: number;
  created_at: number;
  updated_at: number;
}

/** A link's `webhookIds` (migration 0011). */
export interface LinkWebhooksTable {
  link_id: string;
  webhook_id: string;
  workspace_id: string;
  position: number;
}

/** One event to send to one webhook (migration 0011, src/webhooks/dispatcher.ts). */
export interface WebhookDeliveriesTable {
  /** `whd_…` */
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_id: string;
  event: string;
  /** The exact JSON body sent (and signed) on every attempt. */
  body: string;
  attempts: number;
  /** Due time, or a sending process's lease; null once delivered or given up. */
  next_attempt_at: number | null;
  delivered_at: number | null;
  /** Of the last attempt. */
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: number;
}

/** One attempt of a webhook delivery (migration 0019): kept 30 days, newest first in the API. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt of the delivery. */
  attempt: number;
  webhook_id: string;
  workspace_id: string;
  sent_at: number;
  /** Null when no answer came (refused, timed out, connection error). */
  status_code: number | null;
  latency_ms: number | null;
  /** The first 1 KB of the receiver's answer, as text. */
  response: string | null;
  /** Null on a 2xx. */
  error: string | null;
}

/**
 * The `link.clicked` work of one click batch (migration 0018, src/webhooks/click-batches.ts),
 * expanded into deliveries by the dispatcher (click-expand.ts).
 */
export interface WebhookClickBatchesTable {
  /** `whb_…`, in time order. */
  id: string;
  created_at: number;
  /** JSON array of the webhook ids covering any click of the batch. */
  hooks: string;
  /** JSON ClickBatchPayload: the covered clicks and which webhooks cover each. */
  payload: string;
  /** 1 once the dispatcher made the batch's cursors. */
  opened: number;
}

/** Where one webhook is in one click batch (migration 0018). */
export interface WebhookClickCursorsTable {
  batch_id: string;
  webhook_id: string;
  /** Index of the next click of the batch's payload to expand. */
  next_click: number;
}

/** Dashboard users (migration 0012, src/users/). */
export interface UsersTable {
  id: string;
  email: string;
  /** `email` lower-cased: unique, what logins look up. */
  email_key: string;
  name: string;
  /** `scrypt$N$r$p$salt$hash` (users/password.ts). */
  password_hash: string;
  created_at: number;
  /** When an owner allowed this single sign-on account a password; null: it may not get one (migration 0026). */
  password_allowed_at: number | null;
}

/** A user's role in a workspace (migration 0012). */
export interface MembershipsTable {
  user_id: string;
  workspace_id: string;
  /** `owner` | `member` | `viewer` (users/roles.ts). */
  role: string;
  created_at: number;
}

/** A dashboard login (migration 0012, users/sessions.ts). */
export interface SessionsTable {
  /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  /** Slides with use (idle timeout), never past `absolute_expires_at`. */
  expires_at: number;
  absolute_expires_at: number;
  /** The ID token of a session started by SSO (the hint of the provider's logout); null otherwise (migration 0025). */
  sso_id_token: string | null;
  /** When the user last signed in again at the provider in this session (account changes ask for it). */
  reauthenticated_at: number | null;
}

/** A provider's account linked to a user (migration 0025, src/sso/). */
export interface UserIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: number;
}

/** A sign-in between its start and the provider's answer (migration 0025, src/sso/); used once. */
export interface SsoLoginsTable {
  /** SHA-256 of the `wm_sso` cookie's value: the browser that started it. */
  browser_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  next: string;
  /** Token hash of the session asking for a fresh sign-in (reauthentication); null for a login. */
  reauth_session: string | null;
  created_at: number;
}

/** An invitation to a workspace (migration 0012, users/invitations.ts). */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  email_key: string;
  role: string;
  token_hash: string;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

/** The first-run setup address's token (migration 0012, users/setup.ts). */
export interface SetupTokensTable {
  token_hash: string;
  created_at: number;
  used_at: number | null;
}

/** "Forgot password?" links (migration 0024, users/password-resets.ts). */
export interface PasswordResetsTable {
  /** SHA-256 of the token the mail carries. */
  token_hash: string;
  user_id: string;
  created_at: number;
  /** 1 hour after `created_at`. */
  expires_at: number;
  /** Set when the link was used: it works once. */
  used_at: number | null;
}

/** Who changed what in a workspace (migration 0023, src/audit/). */
export interface AuditLogTable {
  /** `aud_…`, in time order. */
  id: string;
  workspace_id: string;
  at: number;
  /** 'user' | 'api_key' | 'cli'. */
  actor_type: string;
  /** The user's or API key's id; null for the CLI. */
  actor_id: string | null;
  ip: string | null;
  /** `<target_type>.<verb>`, e.g. `link.update`. */
  action: string;
  target_type: string;
  /** The one target's id; null for a bulk entry. */
  target: string | null;
  /** JSON array of every target id. */
  target_ids: string;
  /** JSON object: fields changed (never secrets), counts. */
  changes: string;
}

/** A write a store runs inside its own transaction, on that transaction (the audit log's entry of the change). */
export type TransactionStep = (trx: Kysely<Database>) => Promise<void>;

/** A workspace's saved UTM values (migration 0022, src/utm-templates/). */
export interface UtmTemplatesTable {
  /** `utm_…` */
  id: string;
  workspace_id: string;
  name: string;
  /** `name` lower-cased: unique per workspace. */
  name_key: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  /** The user who saved it (no foreign key: the template outlives them). */
  created_by: string | null;
  created_at: number;
}

/** An import over HTTP (migration 0026, src/imports/jobs.ts). */
export interface ImportJobsTable {
  /** `imp_…` */
  id: string;
  workspace_id: string;
  /** running | completed | interrupted | failed | undone */
  state: string;
  /** api | dashboard */
  source: string;
  content_type: string;
  /** JSON: the column mapping. */
  options: string;
  spool_path: string | null;
  upload_complete: number;
  layout: string | null;
  rows: number;
  created: number;
  skipped: number;
  rejected: number;
  undone: number;
  /** The last line of the file whose batch is written (a resume starts after it). */
  last_line: number;
  error: string | null;
  created_by: string | null;
  created_at: number;
  heartbeat_at: number;
  finished_at: number | null;
}

/** A link an import created (written in the link's transaction). */
export interface ImportJobLinksTable {
  import_id: string;
  link_id: string;
}

/** A workspace's payment provider integration (migration 0028, src/integrations/). */
export interface IntegrationsTable {
  workspace_id: string;
  /** `stripe`, `shopify` or `paddle`. */
  provider: string;
  /** The signing secret, sealed with AES-256-GCM (integrations/secret-box.ts); never stored in clear. */
  secret_sealed: string;
  created_at: number;
  updated_at: number;
}

/** One delivery received from a provider, by its event id (migration 0028). */
export interface IntegrationEventsTable {
  workspace_id: string;
  provider: string;
  event_id: string;
  type: string;
  /** `processing`, `recorded`, `duplicate`, `skipped` or `ignored` (integrations/store.ts). */
  outcome: string;
  message: string;
  /** The verified body, kept only while the event is `skipped` (it can be retried). */
  payload: string | null;
  received_at: number;
}

/** How much of a sale has been refunded (migration 0029). */
export interface SaleRefundsTable {
  workspace_id: string;
  sale_event_id: string;
  refunded_original: number;
  refunded_usd_cents: number;
  updated_at: number;
}

/** A link-in-bio profile (migration 0032, src/bio/). */
export interface BioPagesTable {
  id: string;
  workspace_id: string;
  /** The host it is served on, `/@<handle>`. */
  domain: string;
  handle: string;
  /** lower(handle): unique per domain. */
  handle_key: string;
  /** `domain` when the page is also that domain's root; unique. */
  root_domain: string | null;
  title: string;
  bio: string | null;
  avatar: string | null;
  theme: string;
  /** JSON object network → URL. */
  socials: string;
  views: number;
  created_at: number;
  updated_at: number;
}

/** A bio page's ordered links (migration 0033). */
export interface BioPageLinksTable {
  page_id: string;
  link_id: string;
  position: number;
}
