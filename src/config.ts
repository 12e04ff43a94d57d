/**
 * The only reader of the settings: `process.env` as env-files.ts completes it (`<NAME>_FILE`
 * secrets, `.env`). Every setting is validated once at start; a bad value stops the start with a
 * message naming the variable.
 *
 * @example
 * const config = loadConfig(process.env);
 * console.log(config.port); // 3000 unless PORT is set
 */
import { z } from 'zod';
import { DOMAIN_EVENT_TYPES, type DomainEventType } from './outbox/outbox.js';
import { VISITOR_IP_MODES, type VisitorIpMode } from './visitors/visitor-ip.js';
import { parseTrustProxy, type TrustProxy } from './http/client-address.js';
import { WORKSPACE_CREATION_POLICIES, type CreationRule } from './workspaces/creation.js';
import type { TracingSettings } from './tracing/model.js';

export type { TracingSettings } from './tracing/model.js';

/** The defaults of IMPORT_MAX_ROWS and IMPORT_MAX_BYTES (imports/limits.ts says them in refusals). */
export const DEFAULT_IMPORT_MAX_ROWS = 100_000;
export const DEFAULT_IMPORT_MAX_BYTES = 64 * 2 ** 20;

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean),
);

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().min(1).default('file:./data/waymark.db'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DOCS_URL: z.url({ protocol: /^https?$/ }).optional(),
  WAYMARK_API_KEY: z
    .string()
    .regex(/^wm_[A-Za-z0-9_-]{1,200}$/, 'must start with "wm_" followed by letters, digits, "_" or "-"')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Default short-link domain for workspaces without a domain of their own. */
  SHORT_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d+)?$/i, 'must be a host name, optionally with :port')
    .optional(),
  /** Protocol used in `shortLink`: https in production, http for local set-ups. */
  SHORT_LINK_PROTOCOL: z.enum(['http', 'https']).optional(),
  /** Host names that reach the API; any other Host is treated as a short-link domain. */
  API_HOSTS: csv.optional(),
  /** Which X-Forwarded-For entry is the client: false, a number of proxies, their addresses/CIDRs, or true (any: the left-most). */
  TRUST_PROXY: z.string().optional().transform((v, ctx) => {
    try {
      return parseTrustProxy(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }),
  /** Trust CDN geo headers such as CF-IPCountry / X-Vercel-IP-Country. */
  TRUST_GEO_HEADERS: bool.default(false),
  /** Query parameter (and cookie) carrying the click id to the destination. */
  CLICK_ID_PARAM: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,31}$/)
    .default('waymark_id'),
  /** Path of a MaxMind/DB-IP city .mmdb that replaces the bundled DB-IP Lite data. */
  GEOIP_DB: z.string().optional(),
  /** Per-minute API rate limit override for every plan (requests per minute per key). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().optional(),
  /** Per-second analytics rate limit override (requests per second per key). */
  ANALYTICS_RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().optional(),
  /** GET /qr calls per minute per client address (IPv6: per /64); the route needs no key. */
  QR_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** GET /tls/allow calls per minute per client address (the TLS terminator's questions, docs/deploy.md). */
  TLS_ALLOW_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** The link builder's "Fetch from destination" (a request to another site): fetches per minute per user, and per workspace. */
  PREVIEW_FETCH_RATE_LIMIT_PER_USER: z.coerce.number().int().positive().default(30),
  PREVIEW_FETCH_RATE_LIMIT_PER_WORKSPACE: z.coerce.number().int().positive().default(120),
  /** Bearer token of GET /metrics on the main port (off without it, or on METRICS_PORT alone). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 24`)').regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces').optional(),
  /** A port of its own serving only GET /metrics, on HOST. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Requests answered 401 (missing, unknown or revoked key) per minute per client address; past it, 429. */
  FAILED_AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** Failed dashboard logins per 15 minutes from one client address (IPv6: per /64), any account; past it, 429. */
  LOGIN_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().positive().default(30),
  /** Failed dashboard logins per 15 minutes for one account from one client address, or from one browser it knows; past it, 429. */
  LOGIN_RATE_LIMIT_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  /** Failed dashboard logins per 15 minutes for one account from browsers it does not know, all addresses together; past it, 429 for them. */
  LOGIN_RATE_LIMIT_PER_ACCOUNT_ANYWHERE: z.coerce.number().int().positive().default(50),
  /** Who may create workspaces from the dashboard (workspaces/creation.ts): owners of a workspace, anyone signed in, or none (CLI only). */
  WORKSPACE_CREATION: z.enum(WORKSPACE_CREATION_POLICIES).default('owners'),
  /** Most workspaces one user owns; the dashboard refuses to create more (403). */
  WORKSPACE_CREATION_LIMIT: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Exports (links, events, analytics; API and dashboard) of one workspace streaming at once in a process; past it, 429. */
  EXPORTS_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(3),
  /**
   * The longest a click batch waits from its oldest click; above 100, shorter while the writes
   * leave the lag bound less room (click-writer.ts `flushIntervalWithin`), never below 100 ms.
   */
  CLICK_FLUSH_INTERVAL_MS: z.coerce.number().int().min(5).max(1000).default(100),
  CLICK_FLUSH_MAX_ROWS: z.coerce.number().int().min(1).max(2000).default(2000),
  CLICK_FOLD_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Clicks kept in memory while the database fails or the writes fall behind (~400 bytes each);
   * past it new clicks are still redirected but not recorded (counted and logged). */
  CLICK_BUFFER_MAX: z.coerce.number().int().min(1000).max(50_000_000).default(500_000),
  /** Nice value of the click writer's thread (Linux): while the cores are busy, redirects run
   * first and the writer takes the rest; 0 leaves it at the process's priority. */
  CLICK_WRITER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Nice value of libuv's pool threads (Linux), which run every DuckDB call, analytics queries
   * among them: above 0, redirects take the core first under a mixed load; 0 leaves them. */
  WORKER_POOL_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Age of the oldest click not yet committed past which answers of new clicks wait for the writer
   * (the clicks a crash can lose stay within this many ms of clicks); 0 never holds an answer. */
  CLICK_MAX_LAG_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  /** Longest an answer is held for the writer; past it the redirect goes out anyway. */
  CLICK_MAX_HOLD_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  /** SIGTERM to exit: clicks not committed within it are written to a spill file instead. */
  CLICK_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(2000).max(600_000).default(8000),
  /** Folder of spill files (clicks not committed at shutdown, replayed at the next start). */
  CLICK_SPILL_DIR: z.string().min(1).optional(),
  /** How added domains become `verified`: `off` marks them verified at once (the operator owns the
   * service), `dns` checks that the domain's CNAME/A records point at DOMAIN_DNS_TARGET. */
  DOMAIN_VERIFICATION: z.enum(['off', 'dns']).default('off'),
  /** Host name that custom domains must CNAME to (or resolve like) when DOMAIN_VERIFICATION=dns. */
  DOMAIN_DNS_TARGET: z.string().optional(),
  /** Path of a JSON file of exchange rates (units of each currency per 1 USD, e.g. { "eur": 0.97 }) replacing the bundled table. */
  CURRENCY_RATES_FILE: z.string().optional(),
  /** Key sealing the payment providers' signing secrets (32 bytes, base64 or hex); else SECRETS_KEY_PATH. */
  SECRETS_KEY: z
    .string()
    .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?)$/, 'must be 32 bytes written as base64 (44 characters) or 64 hex digits')
    .optional(),
  /** File holding that key, created with a random one on first use when SECRETS_KEY is unset. */
  SECRETS_KEY_PATH: z.string().min(1).default('data/secrets.key'),
  /** The most rows one import over HTTP reads (`POST /links/import`, the dashboard); the CLI has no limit. */
  IMPORT_MAX_ROWS: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_IMPORT_MAX_ROWS),
  /** The largest file one import over HTTP takes, bytes (the multipart body, for an upload). */
  IMPORT_MAX_BYTES: z.coerce.number().int().min(1024).max(2 ** 40).default(DEFAULT_IMPORT_MAX_BYTES),
  /** Where an import's file is kept until it has ended (to resume it): default beside the SQLite file (`<file>.imports`), else the temporary directory. */
  IMPORT_SPOOL_DIR: z.string().min(1).optional(),
  /** A running import silent this long (its process died) is answered as interrupted, seconds. */
  IMPORT_STALE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** How often the domain event publisher looks for events written by other processes, ms. */
  EVENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Path of a file to which every domain event is appended as one JSON line (src/outbox/file-sink.ts). */
  EVENTS_FILE: z.string().min(1).optional(),
  /** Event types written to EVENTS_FILE (comma-separated); all six by default. */
  EVENTS_FILE_EVENTS: csv
    .pipe(z.array(z.enum(DOMAIN_EVENT_TYPES)).min(1, 'must name at least one event type'))
    .optional(),
  /** Webhook receivers may be on loopback, private or link-local addresses (tests, a closed network). */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Delays between a webhook delivery's attempts (comma-separated ms); attempts in all: one more than the delays. */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated milliseconds')
    .transform((v) => v.split(',').map(Number))
    .optional(),
  /** How often the webhook dispatcher looks for due deliveries (retries, other processes'), ms. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * How long a claimed delivery is left to the process sending it; one killed mid-send has it sent
   * again after this. Longer than a send can take (10 s) in production; tests shorten it.
   */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
  /** Webhook sends in flight at once, in all (per process). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
  /** Webhook sends in flight at once to one receiver (the origin of its URL), per process; also its kept-alive sockets. */
  WEBHOOK_RECEIVER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** One webhook send's time limit, ms (keep it below WEBHOOK_LEASE_MS). */
  WEBHOOK_SEND_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(10_000),
  /** A receiver that timed out gets no send for this long, doubled per consecutive timeout up to 10 min, ms. */
  WEBHOOK_RECEIVER_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** What events store of the visitor's address: its /24 or /48 (`anonymized`), all of it, or nothing (docs/privacy.md). */
  VISITOR_IP: z.enum(VISITOR_IP_MODES).default('anonymized'),
  /** Raw events (clicks, leads, sales) older than this many days are deleted; unset: kept forever. */
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(100_000).optional(),
  /** Rollup rows (the analytics summaries) older than this many days are deleted; unset: kept forever. */
  ROLLUPS_RETENTION_DAYS: z.coerce.number().int().min(1).max(100_000).optional(),
  /** Audit log entries older than this many days are deleted (src/audit/). */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(100_000).default(365),
  /** SMTP server for mail (invitations, password resets, webhook alerts): `smtp://user:pass@host:587`, `smtps://…`; unset: no mail. */
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  /** Sender of mail: `Waymark <links@example.com>`; default `Waymark <no-reply@<BASE_URL's host>>`. */
  MAIL_FROM: z.string().min(3).max(300).optional(),
  /** Lifetime of the click-id cookie a redirect sets on the short link's domain, in days (may be fractional). */
  CLICK_ID_COOKIE_DAYS: z.coerce.number().positive().max(400).default(1 / 24),
  /**
   * Where the event log lives: `sql` (the database's own tables), `duckdb` (a file beside the SQLite
   * file), `duckdb:<path>`, or a ClickHouse server: `clickhouse://user:pass@host:8123/db`,
   * `clickhouses://…` (HTTPS) or `http(s)://…` (docs/events-stores.md). Unset: `duckdb` with a
   * SQLite database, `sql` with PostgreSQL (events/store-kind.ts, `eventsUrlFor`).
   */
  EVENTS_URL: z.string().regex(/^(sql|duckdb(:.+)?|(clickhouses?|https?):\/\/.+)$/i, 'must be "sql", "duckdb", "duckdb:<path>" or a clickhouse:// URL').optional(),
  /** DuckDB's memory limit (the column event store), e.g. 512MB or 2GB. */
  DUCKDB_MEMORY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, 'must be a size such as 512MB or 2GB').default('512MB'),
  /** DuckDB's worker threads (the column event store's scans). */
  DUCKDB_THREADS: z.coerce.number().int().min(1).max(256).default(2),
  /**
   * DuckDB's checkpoint threshold, MB: its write-ahead log is written into the event file past this
   * size. The rows since the last checkpoint are held in memory too (~1.5 × the log): the event
   * store's memory under a flood is about 1.5 × this plus what it caches (≤ DUCKDB_MEMORY_LIMIT).
   */
  DUCKDB_CHECKPOINT_MB: z.coerce.number().int().min(1).max(4096).default(64),
  /** Event log read queries (analytics, event pages, exports) run at once; the rest wait, so click
   * appends find a thread of libuv's pool (4, shared by the process) free. 0: unbounded. */
  EVENT_READ_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(2),
  /** API requests started per second at most while redirects fill the redirect thread (http/api-admission.ts); 0: no bound. */
  API_ADMISSION_RATE: z.coerce.number().int().min(0).max(1_000_000).default(200),
  /**
   * The API, dashboard and MCP on a worker thread of their own, behind a front on the main thread
   * that answers redirects itself and proxies the rest (src/api-thread/). A database in memory
   * cannot be shared between threads: it runs the API on the main thread whatever this says.
   */
  API_THREAD: bool.default(true),
  /** The API thread's nice value (0-19; thread-priority.ts): above 0, the redirect thread gets the core first. */
  API_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** OpenID Connect issuer of single sign-on (src/sso/): https, or http on a loopback address; unset: no SSO. */
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  /** Email domains whose people may sign in with SSO and get an account on first sign-in (comma-separated). */
  OIDC_ALLOWED_DOMAINS: csv.pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z0-9-]+$/, 'must be email domains such as example.com')).min(1, 'must name at least one email domain')).optional(),
  /** Role of a person whose account SSO creates, in OIDC_DEFAULT_WORKSPACE. */
  OIDC_DEFAULT_ROLE: z.enum(['owner', 'member', 'viewer']).default('viewer'),
  /** Slug of the workspace such a person joins; default: the first workspace. */
  OIDC_DEFAULT_WORKSPACE: z.string().min(1).max(100).optional(),
  /** Name of an ID token claim whose values `waymark:<slug>:<role>` set the memberships at each sign-in. */
  OIDC_ROLE_CLAIM: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be a claim name').optional(),
  /** Hide the password form of the login page (a password login stays at /dashboard/login?password=1). */
  OIDC_ONLY: bool.default(false),
  /** The provider's name on the login page's button: "Sign in with <OIDC_NAME>". */
  OIDC_NAME: z.string().min(1).max(60).default('single sign-on'),
  /** OpenTelemetry traces (src/tracing/, docs/tracing.md): the OTLP/HTTP collector's base URL (`/v1/traces` is added); unset: no traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** The whole traces URL, used as written (instead of the base URL's `/v1/traces`). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Headers of every export, `name=value` pairs separated by commas (a collector's token). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional().transform((v, ctx) => {
    const headers: Record<string, string> = {};
    for (const pair of (v ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
      const at = pair.indexOf('=');
      const name = at > 0 ? decodeURIComponent(pair.slice(0, at).trim()) : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        ctx.addIssue({ code: 'custom', message: 'must be name=value pairs separated by commas' });
        return z.NEVER;
      }
      headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
    }
    return headers;
  }),
  /** `service.name` of every span. */
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default('waymark'),
  /** Share of new traces recorded, 0 to 1 (a request that arrives with a sampled `traceparent` follows its caller). */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** How often finished spans are sent, ms. */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(10).max(600_000).default(5000),
  /** `true` turns traces off whatever the endpoint. */
  OTEL_SDK_DISABLED: bool.default(false),
});

export type Env = z.input<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  baseUrl: string;
  docsUrl: string;
  apiKey?: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  shortDomain: string;
  shortLinkProtocol: 'http' | 'https';
  apiHosts: string[];
  /** `TRUST_PROXY` (http/client-address.ts). */
  trustProxy: TrustProxy;
  trustGeoHeaders: boolean;
  clickIdParam: string;
  geoipDb?: string;
  rateLimitPerMinute?: number;
  analyticsRateLimitPerSecond?: number;
  qrRateLimitPerMinute: number;
  tlsAllowRateLimitPerMinute: number;
  /** "Fetch from destination" per minute (dashboard/preview-limit.ts). */
  previewFetchRateLimit: { perUser: number; perWorkspace: number };
  /** GET /metrics: on the main port with this bearer token, and/or on a port of its own (src/metrics/). */
  metrics: { token?: string; port?: number };
  failedAuthRateLimitPerMinute: number;
  loginRateLimitPerAddress: number;
  loginRateLimitPerAccount: number;
  loginRateLimitPerAccountAnywhere: number;
  /** Dashboard workspace creation: who, and how many one user may own (workspaces/creation.ts). */
  workspaceCreation: CreationRule;
  /** Exports of one workspace streaming at once in this process (exports/gate.ts). */
  exportsPerWorkspace: number;
  clickFlushIntervalMs: number;
  clickFlushMaxRows: number;
  /** DuckDB: how often stored click batches are counted (link counters, usage, outbox, webhook work); slow folds stretch it up to 5× (events/log/fold.ts, nextFoldDelay). */
  clickFoldIntervalMs: number;
  clickBufferMax: number;
  /** Nice value of the event log's thread (src/event-log-thread.ts; 0: unchanged). */
  clickWriterNice: number;
  /** `WORKER_POOL_NICE`. */
  workerPoolNice: number;
  /** Lag bound of the click writer in ms (0: off); click-writer.ts. */
  clickMaxLagMs: number;
  /** Longest an answer waits for the click writer, ms. */
  clickMaxHoldMs: number;
  /** Time from SIGTERM to exit, ms; what is not committed by then is spilled (click-spill.ts). */
  clickShutdownGraceMs: number;
  /** Spill folder; by default beside the SQLite file, or ./data/click-spill (click-spill.ts). */
  clickSpillDir?: string;
  /** SECRETS_KEY: seals the integrations' signing secrets (integrations/secret-box.ts). */
  secretsKey?: string;
  secretsKeyPath: string;
  currencyRatesFile?: string;
  /** Caps of one import over HTTP (imports/limits.ts). */
  importMaxRows: number;
  importMaxBytes: number;
  importSpoolDir?: string;
  importStaleMs: number;
  domainVerification: 'off' | 'dns';
  domainDnsTarget?: string;
  /** Poll interval of the domain event publisher (outbox/publisher.ts), ms. */
  eventsPollMs: number;
  /** NDJSON file receiving domain events, and the event types it takes. */
  eventsFile?: string;
  eventsFileEvents?: DomainEventType[];
  /** Webhooks (src/webhooks/): private receivers allowed, retry delays (default: dispatcher.ts), poll interval. */
  webhookAllowPrivate: boolean;
  webhookRetryDelaysMs?: number[];
  webhookPollMs: number;
  webhookLeaseMs: number;
  /** Fairness (webhooks/fairness.ts): sends in flight in all and per receiver, a send's time limit, a timed-out receiver's first backoff. */
  webhookConcurrency: number;
  webhookReceiverConcurrency: number;
  webhookSendTimeoutMs: number;
  webhookReceiverBackoffMs: number;
  /** `VISITOR_IP` (visitors/visitor-ip.ts). */
  visitorIp: VisitorIpMode;
  /** Days raw events are kept (undefined: forever); events/retention.ts. */
  eventsRetentionDays?: number;
  /** Days rollup rows are kept (undefined: forever). */
  rollupsRetentionDays?: number;
  /** Days audit log entries are kept. */
  auditRetentionDays: number;
  /** SMTP_URL; undefined: no mail is sent (links are handed over as before). */
  smtpUrl?: string;
  mailFrom: string;
  /** Max-Age of the click-id cookie, seconds (default 3,600: one hour). */
  clickIdCookieSeconds: number;
  /**
   * `EVENTS_URL`: `sql`, `duckdb` or `duckdb:<path>` (events/duckdb/path.ts), or a ClickHouse URL
   * (events/clickhouse/executor.ts); undefined: chosen by the database (events/open.ts).
   */
  eventsUrl?: string;
  duckdbMemoryLimit: string;
  duckdbThreads: number;
  duckdbCheckpointMb: number;
  /** Event log reads at once on the log thread (events/log/read-slots.ts; 0: unbounded). */
  eventReadConcurrency: number;
  /** API starts per second while redirects fill the redirect thread (http/api-admission.ts; 0: off). */
  apiAdmissionRate: number;
  /** `API_THREAD`: the API on its own worker thread behind the redirect's front (src/api-thread/). */
  apiThread: boolean;
  /** `API_THREAD_NICE`. */
  apiThreadNice: number;
  /** Single sign-on with OpenID Connect (src/sso/); undefined without OIDC_ISSUER. */
  oidc?: OidcSettings;
  /** OpenTelemetry traces (src/tracing/); undefined (off) without OTEL_EXPORTER_OTLP_ENDPOINT. */
  tracing?: TracingSettings;
}

/** The OIDC_* settings, checked together (OIDC_ISSUER needs the client and the allowed domains). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Lower-case email domains that may sign in (and get an account on first sign-in). */
  allowedDomains: string[];
  defaultRole: 'owner' | 'member' | 'viewer';
  /** Slug; undefined: the first workspace. */
  defaultWorkspace?: string;
  roleClaim?: string;
  /** The login page shows no password form (it stays at /dashboard/login?password=1). */
  only: boolean;
  /** The button's label: "Sign in with <name>". */
  name: string;
}

/** Raised when the environment holds a bad value; the message names the variable. */
export class ConfigError extends Error {}

/**
 * Reads and validates the settings. Defaults are merged here and nowhere else.
 * `overrides` lets tests and the CLI replace single values without touching the environment.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid value for ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  const oidc = oidcSettings(e);
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const base = new URL(baseUrl);
  const local = base.hostname === 'localhost' || base.hostname === '127.0.0.1';
  // Locally, a *.localhost short domain resolves to 127.0.0.1 without DNS set-up,
  // so the shortLink printed by POST /links can be opened with curl at once.
  const shortDomain = (e.SHORT_DOMAIN ?? (local ? `wm.localhost:${e.PORT}` : `go.${base.host}`)).toLowerCase();
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    baseUrl,
    // Without DOCS_URL, doc_url links point at this service's own error page (/api-reference/errors).
    docsUrl: (e.DOCS_URL ?? baseUrl).replace(/\/+$/, ''),
    apiKey: e.WAYMARK_API_KEY,
    logLevel: e.LOG_LEVEL,
    shortDomain,
    shortLinkProtocol: e.SHORT_LINK_PROTOCOL ?? (local ? 'http' : 'https'),
    apiHosts: [...new Set([base.hostname.toLowerCase(), 'localhost', '127.0.0.1', '[::1]', ...(e.API_HOSTS ?? [])])],
    trustProxy: e.TRUST_PROXY,
    trustGeoHeaders: e.TRUST_GEO_HEADERS,
    clickIdParam: e.CLICK_ID_PARAM,
    geoipDb: e.GEOIP_DB,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    analyticsRateLimitPerSecond: e.ANALYTICS_RATE_LIMIT_PER_SECOND,
    qrRateLimitPerMinute: e.QR_RATE_LIMIT_PER_MINUTE,
    tlsAllowRateLimitPerMinute: e.TLS_ALLOW_RATE_LIMIT_PER_MINUTE,
    previewFetchRateLimit: { perUser: e.PREVIEW_FETCH_RATE_LIMIT_PER_USER, perWorkspace: e.PREVIEW_FETCH_RATE_LIMIT_PER_WORKSPACE },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    failedAuthRateLimitPerMinute: e.FAILED_AUTH_RATE_LIMIT_PER_MINUTE,
    loginRateLimitPerAddress: e.LOGIN_RATE_LIMIT_PER_ADDRESS,
    loginRateLimitPerAccount: e.LOGIN_RATE_LIMIT_PER_ACCOUNT,
    loginRateLimitPerAccountAnywhere: e.LOGIN_RATE_LIMIT_PER_ACCOUNT_ANYWHERE,
    workspaceCreation: { policy: e.WORKSPACE_CREATION, limit: e.WORKSPACE_CREATION_LIMIT },
    exportsPerWorkspace: e.EXPORTS_PER_WORKSPACE,
    clickFlushIntervalMs: e.CLICK_FLUSH_INTERVAL_MS,
    clickFlushMaxRows: e.CLICK_FLUSH_MAX_ROWS,
    clickFoldIntervalMs: e.CLICK_FOLD_INTERVAL_MS,
    clickBufferMax: e.CLICK_BUFFER_MAX,
    clickWriterNice: e.CLICK_WRITER_NICE,
    workerPoolNice: e.WORKER_POOL_NICE,
    clickMaxLagMs: e.CLICK_MAX_LAG_MS,
    clickMaxHoldMs: e.CLICK_MAX_HOLD_MS,
    clickShutdownGraceMs: e.CLICK_SHUTDOWN_GRACE_MS,
    clickSpillDir: e.CLICK_SPILL_DIR,
    currencyRatesFile: e.CURRENCY_RATES_FILE,
    secretsKey: e.SECRETS_KEY,
    secretsKeyPath: e.SECRETS_KEY_PATH,
    importMaxRows: e.IMPORT_MAX_ROWS,
    importMaxBytes: e.IMPORT_MAX_BYTES,
    importSpoolDir: e.IMPORT_SPOOL_DIR,
    importStaleMs: e.IMPORT_STALE_SECONDS * 1000,
    domainVerification: e.DOMAIN_VERIFICATION,
    domainDnsTarget: e.DOMAIN_DNS_TARGET,
    eventsPollMs: e.EVENTS_POLL_INTERVAL_MS,
    eventsFile: e.EVENTS_FILE,
    eventsFileEvents: e.EVENTS_FILE_EVENTS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    webhookRetryDelaysMs: e.WEBHOOK_RETRY_DELAYS_MS,
    webhookPollMs: e.WEBHOOK_POLL_INTERVAL_MS,
    webhookLeaseMs: e.WEBHOOK_LEASE_MS,
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    webhookReceiverConcurrency: e.WEBHOOK_RECEIVER_CONCURRENCY,
    webhookSendTimeoutMs: e.WEBHOOK_SEND_TIMEOUT_MS,
    webhookReceiverBackoffMs: e.WEBHOOK_RECEIVER_BACKOFF_MS,
    visitorIp: e.VISITOR_IP,
    eventsRetentionDays: e.EVENTS_RETENTION_DAYS,
    rollupsRetentionDays: e.ROLLUPS_RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `Waymark <no-reply@${base.hostname}>`,
    clickIdCookieSeconds: Math.max(1, Math.round(e.CLICK_ID_COOKIE_DAYS * 86_400)),
    eventsUrl: e.EVENTS_URL,
    duckdbMemoryLimit: e.DUCKDB_MEMORY_LIMIT,
    duckdbThreads: e.DUCKDB_THREADS,
    duckdbCheckpointMb: e.DUCKDB_CHECKPOINT_MB,
    eventReadConcurrency: e.EVENT_READ_CONCURRENCY,
    apiAdmissionRate: e.API_ADMISSION_RATE,
    apiThread: e.API_THREAD,
    apiThreadNice: e.API_THREAD_NICE,
    oidc,
    tracing: tracingSettings(e),
  };
  return { ...config, ...overrides };
}

/** The OTEL_* settings, or undefined (no traces) without an endpoint or with OTEL_SDK_DISABLED. */
function tracingSettings(e: z.infer<typeof EnvSchema>): TracingSettings | undefined {
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!url || e.OTEL_SDK_DISABLED) return undefined;
  return { url, headers: e.OTEL_EXPORTER_OTLP_HEADERS, serviceName: e.OTEL_SERVICE_NAME, sampleRatio: e.OTEL_TRACES_SAMPLER_ARG, exportDelayMs: e.OTEL_BSP_SCHEDULE_DELAY };
}

/** The OIDC_* settings, or undefined without OIDC_ISSUER; a half-configured SSO refuses the start. */
function oidcSettings(e: z.infer<typeof EnvSchema>): OidcSettings | undefined {
  const others = (['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS', 'OIDC_DEFAULT_WORKSPACE', 'OIDC_ROLE_CLAIM'] as const).filter((k) => e[k] !== undefined);
  if (!e.OIDC_ISSUER) {
    if (others.length > 0 || e.OIDC_ONLY) throw new ConfigError(`Invalid value for OIDC_ISSUER: required when ${others[0] ?? 'OIDC_ONLY'} is set`);
    return undefined;
  }
  for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS'] as const) {
    if (e[name] === undefined) throw new ConfigError(`Invalid value for ${name}: required when OIDC_ISSUER is set`);
  }
  const issuer = new URL(e.OIDC_ISSUER);
  if (issuer.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)) {
    throw new ConfigError('Invalid value for OIDC_ISSUER: must be an https URL (http only on localhost)');
  }
  return {
    // The issuer is compared with the provider's `iss` as written: keep it as given.
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID!,
    clientSecret: e.OIDC_CLIENT_SECRET!,
    allowedDomains: e.OIDC_ALLOWED_DOMAINS!,
    defaultRole: e.OIDC_DEFAULT_ROLE,
    defaultWorkspace: e.OIDC_DEFAULT_WORKSPACE,
    roleClaim: e.OIDC_ROLE_CLAIM,
    only: e.OIDC_ONLY,
    name: e.OIDC_NAME,
  };
}
