/**
 * The first schema: workspaces, keys, domains, tags, folders, links, customers and the event log.
 * Written with Kysely's schema builder so one file serves SQLite and PostgreSQL.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  const dbl = dialect.doubleType;

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('logo', 'text')
    .addColumn('invite_code', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('plan_tier', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('billing_cycle_start', 'integer', (c) => c.notNull())
    .addColumn('conversion_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('usage', big, (c) => c.notNull().defaultTo(0))
    .addColumn('usage_limit', big, (c) => c.notNull())
    .addColumn('links_usage', big, (c) => c.notNull().defaultTo(0))
    .addColumn('links_limit', big, (c) => c.notNull())
    .addColumn('total_links', big, (c) => c.notNull().defaultTo(0))
    .addColumn('domains_limit', big, (c) => c.notNull())
    .addColumn('tags_limit', big, (c) => c.notNull())
    .addColumn('folders_usage', big, (c) => c.notNull().defaultTo(0))
    .addColumn('folders_limit', big, (c) => c.notNull())
    .addColumn('users_limit', big, (c) => c.notNull())
    .addColumn('ai_usage', big, (c) => c.notNull().defaultTo(0))
    .addColumn('ai_limit', big, (c) => c.notNull())
    .addColumn('payouts_usage', big, (c) => c.notNull().defaultTo(0))
    .addColumn('payouts_limit', big, (c) => c.notNull())
    .addColumn('payout_fee', dbl, (c) => c.notNull())
    .addColumn('groups_limit', big, (c) => c.notNull())
    .addColumn('network_invites_limit', big, (c) => c.notNull())
    .addColumn('store', 'text')
    .addColumn('flags', 'text')
    .addColumn('allowed_hostnames', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hashed_key', 'text', (c) => c.notNull().unique())
    .addColumn('partial_key', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('last_used_at', big)
    .addColumn('revoked_at', big)
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id']).execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('primary', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('placeholder', 'text')
    .addColumn('expired_url', 'text')
    .addColumn('not_found_url', 'text')
    .addColumn('logo', 'text')
    .addColumn('asset_links', 'text')
    .addColumn('apple_app_site_association', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('domains_workspace').on('domains').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tags_workspace_name').on('tags').columns(['workspace_id', 'name_key']).unique().execute();

  await db.schema
    .createTable('folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('access_level', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('folders_workspace_name').on('folders').columns(['workspace_id', 'name_key']).unique().execute();

  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('key_lower', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('short_link', 'text', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', big)
    .addColumn('expired_url', 'text')
    .addColumn('disabled_at', big)
    .addColumn('password', 'text')
    .addColumn('track_conversion', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('proxy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('image', 'text')
    .addColumn('video', 'text')
    .addColumn('utm_source', 'text')
    .addColumn('utm_medium', 'text')
    .addColumn('utm_campaign', 'text')
    .addColumn('utm_term', 'text')
    .addColumn('utm_content', 'text')
    .addColumn('rewrite', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('do_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ios', 'text')
    .addColumn('android', 'text')
    .addColumn('geo', 'text')
    .addColumn('test_variants', 'text')
    .addColumn('test_started_at', big)
    .addColumn('test_completed_at', big)
    .addColumn('user_id', 'text')
    .addColumn('folder_id', 'text')
    .addColumn('external_id', 'text')
    .addColumn('tenant_id', 'text')
    .addColumn('program_id', 'text')
    .addColumn('partner_id', 'text')
    .addColumn('public_stats', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('comments', 'text')
    .addColumn('clicks', big, (c) => c.notNull().defaultTo(0))
    .addColumn('leads', big, (c) => c.notNull().defaultTo(0))
    .addColumn('conversions', big, (c) => c.notNull().defaultTo(0))
    .addColumn('sales', big, (c) => c.notNull().defaultTo(0))
    .addColumn('sale_amount', big, (c) => c.notNull().defaultTo(0))
    .addColumn('last_clicked', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  // Redirect lookup and the case-insensitive uniqueness of keys (behaviour.md §1.5).
  await db.schema.createIndex('links_domain_key').on('links').columns(['domain', 'key_lower']).unique().execute();
  await db.schema.createIndex('links_workspace_external').on('links').columns(['workspace_id', 'external_id']).unique().execute();
  // One index per list sort, each led by the workspace (issue 3: lists over 100k links in ms).
  for (const col of ['created_at', 'clicks', 'sale_amount', 'last_clicked']) {
    await db.schema.createIndex(`links_workspace_${col}`).on('links').columns(['workspace_id', col]).execute();
  }
  await db.schema.createIndex('links_workspace_folder').on('links').columns(['workspace_id', 'folder_id', 'created_at']).execute();
  await db.schema.createIndex('links_workspace_tenant').on('links').columns(['workspace_id', 'tenant_id']).execute();
  await db.schema.createIndex('links_workspace_url').on('links').columns(['workspace_id', 'url']).execute();

  await db.schema
    .createTable('link_tags')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('tag_id', 'text', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('link_tags_pk', ['link_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('link_tags_tag').on('link_tags').columns(['tag_id', 'link_id']).execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('avatar', 'text')
    .addColumn('country', 'text')
    .addColumn('processor_customer_id', 'text')
    .addColumn('click_id', 'text')
    .addColumn('link_id', 'text')
    .addColumn('sales', big, (c) => c.notNull().defaultTo(0))
    .addColumn('sale_amount', big, (c) => c.notNull().defaultTo(0))
    .addColumn('first_sale_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customers_workspace_external').on('customers').columns(['workspace_id', 'external_id']).unique().execute();
  await db.schema.createIndex('customers_workspace_created').on('customers').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('customers_workspace_email').on('customers').columns(['workspace_id', 'email']).execute();

  let events = db.schema
    .createTable('events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('timestamp', big, (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('click_id', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('continent', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull())
    .addColumn('referer', 'text', (c) => c.notNull())
    .addColumn('referer_url', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('ua', 'text', (c) => c.notNull())
    .addColumn('utm_source', 'text')
    .addColumn('utm_medium', 'text')
    .addColumn('utm_campaign', 'text')
    .addColumn('utm_term', 'text')
    .addColumn('utm_content', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('event_name', 'text')
    .addColumn('amount', big, (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'text')
    .addColumn('original_amount', big)
    .addColumn('payment_processor', 'text')
    .addColumn('invoice_id', 'text')
    .addColumn('sale_type', 'text')
    .addColumn('metadata', 'text')
    .addPrimaryKeyConstraint('events_pk', ['workspace_id', 'timestamp', 'id']);
  if (dialect.clusteredTableSuffix) events = events.modifyEnd(dialect.clusteredTableSuffix);
  await events.execute();
  await db.schema.createIndex('events_link_ts').on('events').columns(['link_id', 'timestamp']).execute();
  await db.schema.createIndex('events_click').on('events').columns(['click_id', 'kind']).execute();
  await db.schema.createIndex('events_customer').on('events').columns(['workspace_id', 'customer_id', 'kind', 'timestamp']).execute();
  // Idempotency of sales: one sale per invoice id and workspace, enforced by the database,
  // so concurrent requests cannot both insert (issue 5).
  await db.schema
    .createIndex('events_invoice')
    .on('events')
    .columns(['workspace_id', 'invoice_id'])
    .unique()
    .where(sql.ref('invoice_id'), 'is not', null)
    .execute();
}
