/**
 * Operator commands, how the network is run: accounts, credentials of every kind, merchants,
 * programs, assignments and applications, catalog imports. Each takes parsed options and returns
 * a JSON-able result; bad input throws UsageError with a clear message.
 */
import { readFileSync } from 'node:fs';
import { createPublishers, reviewPublisher, setAccountStatus } from '@cw/account';
import { issueCredential, issueMerchantToken, revokeCredential, rotateCredential } from '@cw/auth';
import {
  appendPendingEvents,
  rebuildStats,
  bookLedgerEntry,
  changeStatus,
  conversionView,
  readEventLog,
  pruneEvents,
  type ConversionRecord,
} from '@cw/conversions';
import { parse as parseCsv } from 'csv-parse/sync';
import { importCatalogRows, parseCatalogCsv, parseCatalogXml } from '@cw/catalog';
import { API_KEY_KINDS, type ApiKeyKind } from '@cw/auth';
import { migrateIndexes, NotShardedClusterError, shardCollections } from '@cw/db';
import { APPLICATION_STATUSES, type ApplicationStatus } from '@cw/monetize';
import { regenerateMarket } from '@cw/feeds';
import { approveApplication, listApplications, rejectApplication } from '@cw/monetize';
import { createOffer, endOffer } from '@cw/offers';
import { deliveryView, open, redeliver, seal, sealedWithOlderKey, type SealedSecret } from '@cw/postbacks';
import { setAssignment, type AssignmentStatus } from '@cw/programs';
import { createPlan, releasePlan, subscribeTrending, type NewPlanItem } from '@cw/trending';
import type { PlatformConfig } from '@cw/config';
import type { Models, PlatformData } from '@cw/runtime';

/** What a command works with: the config, every domain's data and, for operations on the database as a whole, every model. */
export interface CliDeps {
  config: PlatformConfig;
  data: PlatformData;
  models: Models;
}
import { ApiError } from '@cw/errors';

export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export interface CommandSpec {
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; required?: boolean; doc: string }>;
  /** Runs through the same use cases and domain data as the API. */
  run(deps: CliDeps, o: Options, progress?: (done: number, total: number) => void): Promise<unknown>;
}

const str = (o: Options, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
const int = (o: Options, k: string): number | undefined => {
  const v = str(o, k);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${k} must be a positive integer, got "${v}"`);
  return Number(v);
};
/** An option that must be one of `allowed` (undefined when not given). */
function choice<T extends string>(o: Options, k: string, allowed: readonly T[]): T | undefined {
  const v = str(o, k);
  if (v !== undefined && !(allowed as readonly string[]).includes(v))
    throw new UsageError(`--${k} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
  return v as T | undefined;
}
const list = (o: Options, k: string): string[] | undefined =>
  str(o, k)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const countries = (o: Options, k: string): string[] | undefined => {
  const xs = list(o, k)?.map((c) => c.toUpperCase());
  for (const c of xs ?? []) if (!/^[A-Z]{2}$/.test(c)) throw new UsageError(`--${k}: "${c}" is not an ISO alpha-2 country`);
  return xs;
};

async function mustPublisher({ data }: CliDeps, id: string) {
  const p = await data.auth.publisherById(id);
  if (!p) throw new UsageError(`publisher ${id} does not exist`);
  return p;
}

async function mustProgram({ data }: CliDeps, id: number) {
  const p = await data.programs.byId(id);
  if (!p) throw new UsageError(`program ${id} does not exist`);
  return p;
}

function url(v: string | undefined, name: string): string {
  try {
    const u = new URL(v ?? '');
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    return u.toString();
  } catch {
    throw new UsageError(`--${name} must be an http(s) URL, got "${v ?? ''}"`);
  }
}

export const COMMANDS: Record<string, CommandSpec> = {
  'db:migrate': {
    summary: 'Create every index the models declare, rebuild any whose options changed (run before a deploy; services only verify)',
    options: {
      'drop-undeclared': { type: 'boolean', doc: 'also drop indexes no model declares' },
      shard: { type: 'boolean', doc: 'first shard the collections docs/scaling.md shards (on a mongos only)' },
    },
    run: async (deps, o, progress) => {
      const sharded =
        o.shard === true
          ? await shardCollections(deps.models, { onStep: progress ? (s) => process.stderr.write(`sharded  ${s.collection} ${s.index}\n`) : undefined }).catch(
              (e) => {
                throw e instanceof NotShardedClusterError ? new UsageError(e.message) : e;
              },
            )
          : [];
      const steps = await migrateIndexes(deps.models, {
        dropUndeclared: o['drop-undeclared'] === true,
        // For a person (not --json): one line per index as it happens, on standard error.
        onStep: progress ? (s) => process.stderr.write(`${s.action.padEnd(8)} ${s.collection}.${s.index}\n`) : undefined,
      });
      const count = (a: string) => steps.filter((s) => s.action === a).length;
      return {
        indexes: steps.length,
        created: count('created'),
        rebuilt: count('rebuilt'),
        modified: count('modified'),
        dropped: count('dropped'),
        present: count('present'),
        ...(o.shard === true ? { sharded: sharded.length } : {}),
      };
    },
  },
  'publisher:create': {
    summary: 'Create a publisher account',
    options: {
      name: { type: 'string', required: true, doc: 'display name' },
      id: { type: 'string', doc: 'account id (default pub_<random>)' },
      website: { type: 'string', doc: 'website URL' },
      markets: { type: 'string', doc: 'authorized feed markets, e.g. DE,GB (empty: no market list)' },
      channels: { type: 'string', doc: 'content,coupon,social' },
      'no-feed-access': { type: 'boolean', doc: 'product feed access inactive' },
      demo: { type: 'boolean', doc: 'demo account (test, nonpayable)' },
      inactive: { type: 'boolean', doc: 'create inactive' },
      trending: { type: 'boolean', doc: 'subscribe to trending opportunities (in its channels)' },
    },
    run: async (deps, o) => {
      const [id] = await createPublishers(deps, [
        {
          _id: str(o, 'id'),
          name: str(o, 'name')!,
          website: str(o, 'website') ? url(str(o, 'website'), 'website') : undefined,
          status: o.inactive ? 'inactive' : 'active',
          is_demo: !!o.demo,
          feed_access: !o['no-feed-access'],
          markets: countries(o, 'markets') ?? [],
          channels: list(o, 'channels') ?? [],
          trending_subscribed: !!o.trending,
          trending_channels: o.trending ? (list(o, 'channels') ?? []) : [],
        },
      ]);
      const doc = (await deps.data.auth.publisherById(id))!;
      return { account_id: doc._id, status: doc.status, feed_access: doc.feed_access, markets: doc.markets, is_demo: doc.is_demo };
    },
  },
  'publisher:list': {
    summary: 'List publisher accounts, newest first',
    options: {
      status: { type: 'string', doc: 'active, inactive, provisional or pending (signed up in the portal, awaiting review)' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: async (deps, o) => {
      const status = choice(o, 'status', ['active', 'inactive', 'provisional', 'pending'] as const);
      const rows = await deps.models.Publisher.find(status ? { status } : {})
        .sort({ created_at: -1, _id: 1 })
        .limit(int(o, 'limit') ?? 100)
        .lean();
      return rows.map((p) => ({
        account_id: p._id,
        name: p.name,
        status: p.status,
        website: p.website ?? null,
        markets: p.markets,
        channels: p.channels,
        feed_access: p.feed_access,
        comparison_site: p.comparison_site,
        is_demo: p.is_demo,
        created_at: p.created_at,
      }));
    },
  },
  'publisher:set-status': {
    summary: 'Activate or deactivate an account (applies to the next request)',
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, status: { type: 'string', required: true, doc: 'active or inactive' } },
    run: async (deps, o) => {
      const status = choice(o, 'status', ['active', 'inactive'] as const)!;
      await setAccountStatus(deps, str(o, 'publisher')!, status);
      return { account_id: str(o, 'publisher'), status };
    },
  },
  'publisher:approve': {
    summary: 'Approve an account signed up in the portal (pending review): it becomes active, and its people issue their keys in the portal',
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: (deps, o) => reviewPublisher(deps, str(o, 'publisher')!, 'approve'),
  },
  'publisher:reject': {
    summary: 'Reject an account signed up in the portal (pending review): it becomes inactive',
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: (deps, o) => reviewPublisher(deps, str(o, 'publisher')!, 'reject'),
  },
  'key:issue': {
    summary: 'Issue an API key (the secret is shown once)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      kind: { type: 'string', required: true, doc: API_KEY_KINDS.join('|') },
      label: { type: 'string', doc: 'label' },
    },
    run: async (deps, o) => {
      const kind = str(o, 'kind') as ApiKeyKind;
      if (!API_KEY_KINDS.includes(kind)) throw new UsageError(`--kind must be one of ${API_KEY_KINDS.join(', ')}`);
      await mustPublisher(deps, str(o, 'publisher')!);
      const c = await issueCredential(deps.data.auth, str(o, 'publisher')!, 'api_key', kind, str(o, 'label'));
      return { id: c.id, kind, prefix: c.prefix, secret: c.secret };
    },
  },
  'credential:issue': {
    summary: 'Issue a reporting token, offers credential or portal token (shown once)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      type: { type: 'string', required: true, doc: 'reporting_token|offers_credential|portal_token' },
    },
    run: async (deps, o) => {
      const type = str(o, 'type');
      if (type !== 'reporting_token' && type !== 'offers_credential' && type !== 'portal_token')
        throw new UsageError('--type must be reporting_token, offers_credential or portal_token');
      await mustPublisher(deps, str(o, 'publisher')!);
      const c = await issueCredential(deps.data.auth, str(o, 'publisher')!, type);
      return { id: c.id, type, prefix: c.prefix, secret: c.secret };
    },
  },
  'credential:list': {
    summary: "List an account's credentials (prefixes only, never secrets)",
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: async (deps, o) => {
      await mustPublisher(deps, str(o, 'publisher')!);
      const creds = await deps.models.Credential.find({ publisher_id: str(o, 'publisher') })
        .sort({ created_at: 1 })
        .lean();
      return creds.map((c) => ({ id: String(c._id), type: c.type, kind: c.key_kind ?? null, prefix: c.prefix, status: c.status }));
    },
  },
  'credential:revoke': {
    summary: 'Revoke a credential of any kind (applies to the next request)',
    options: { id: { type: 'string', required: true, doc: 'credential id' } },
    run: async (deps, o) => {
      if (!/^[a-f0-9]{24}$/.test(str(o, 'id') ?? '')) throw new UsageError('--id must be a credential id (24 hex characters)');
      if (!(await revokeCredential(deps.data.auth, str(o, 'id')!))) throw new UsageError(`no active credential ${str(o, 'id')}`);
      return { id: str(o, 'id'), status: 'revoked' };
    },
  },
  'credential:rotate': {
    summary: 'Replace a credential with a new one of the same kind; the old one stops at once',
    options: { id: { type: 'string', required: true, doc: 'credential id' } },
    run: async (deps, o) => {
      if (!/^[a-f0-9]{24}$/.test(str(o, 'id') ?? '')) throw new UsageError('--id must be a credential id (24 hex characters)');
      try {
        const c = await rotateCredential(deps.data.auth, str(o, 'id')!);
        return { revoked: str(o, 'id'), id: c.id, type: c.type, kind: c.keyKind ?? null, prefix: c.prefix, secret: c.secret };
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    },
  },
  'merchant:create': {
    summary: 'Create a merchant',
    options: {
      id: { type: 'string', required: true, doc: 'merchant id (integer)' },
      name: { type: 'string', required: true, doc: 'name' },
      domains: { type: 'string', doc: 'shop domains, comma-separated' },
    },
    run: async (deps, o) => {
      const id = int(o, 'id')!;
      if (await deps.data.programs.merchantExists(id)) throw new UsageError(`merchant ${id} already exists`);
      const domains = list(o, 'domains') ?? [];
      await deps.data.programs.createMerchants([{ _id: id, name: str(o, 'name')!, domains }]);
      return { id, name: str(o, 'name'), domains };
    },
  },
  'merchant:list': {
    summary: 'List merchants (the API calls a merchant id campaign_id), by id',
    options: { limit: { type: 'string', doc: 'at most this many (default 100)' } },
    run: async (deps, o) => {
      const rows = await deps.models.Merchant.find({})
        .sort({ _id: 1 })
        .limit(int(o, 'limit') ?? 100)
        .lean();
      return rows.map((m) => ({ id: m._id, name: m.name, domains: m.domains }));
    },
  },
  'program:list': {
    summary: 'List programs with their merchant and terms, by id',
    options: {
      merchant: { type: 'string', doc: 'only this merchant' },
      status: { type: 'string', doc: 'active, paused or closed' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: async (deps, o) => {
      const merchant = int(o, 'merchant');
      const status = choice(o, 'status', ['active', 'paused', 'closed'] as const);
      const rows = await deps.models.Program.find({ ...(merchant !== undefined ? { merchant_id: merchant } : {}), ...(status ? { status } : {}) })
        .sort({ _id: 1 })
        .limit(int(o, 'limit') ?? 100)
        .lean();
      const names = await deps.data.programs.merchantNames(rows.map((p) => p.merchant_id));
      return rows.map((p) => ({
        id: p._id,
        name: p.name,
        merchant: { id: p.merchant_id, name: names.get(p.merchant_id) ?? null },
        status: p.status,
        joinable: p.joinable,
        auto_approve: p.auto_approve,
        countries: p.countries,
        currency: p.currency,
        commission_rate: p.commission_rate ? p.commission_rate.toString() : null,
        commission_fixed: p.commission_fixed ? p.commission_fixed.toString() : null,
        cookie_days: p.cookie_days,
        default_landing_url: p.default_landing_url,
      }));
    },
  },
  'program:create': {
    summary: 'Create a program of a merchant',
    options: {
      id: { type: 'string', required: true, doc: 'program id (integer)' },
      merchant: { type: 'string', required: true, doc: 'merchant id' },
      name: { type: 'string', required: true, doc: 'name' },
      country: { type: 'string', required: true, doc: 'market, e.g. DE' },
      currency: { type: 'string', doc: 'ISO 4217 (default EUR)' },
      'landing-url': { type: 'string', required: true, doc: 'default landing URL' },
      'allowed-domains': { type: 'string', doc: 'hostnames landing URLs may use (default: the landing URL host)' },
      'click-id-param': { type: 'string', doc: 'query parameter for the click id (default cw_click_id)' },
      commission: { type: 'string', doc: 'commission shown to publishers, e.g. "8% per sale"' },
      'auto-approve': { type: 'boolean', doc: 'approve applications automatically' },
      'not-joinable': { type: 'boolean', doc: 'closed for applications' },
    },
    run: async (deps, o) => {
      const id = int(o, 'id')!;
      const merchant = int(o, 'merchant')!;
      if (!(await deps.data.programs.merchantExists(merchant))) throw new UsageError(`merchant ${merchant} does not exist`);
      if (await deps.data.programs.byId(id, { _id: 1 })) throw new UsageError(`program ${id} already exists`);
      const [country] = countries(o, 'country') ?? [];
      const currency = (str(o, 'currency') ?? 'EUR').toUpperCase();
      if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency must be an ISO 4217 code');
      const landing = url(str(o, 'landing-url'), 'landing-url');
      const param = str(o, 'click-id-param') ?? 'cw_click_id';
      if (!/^[A-Za-z0-9_]{1,40}$/.test(param)) throw new UsageError('--click-id-param must be letters, digits or _');
      const [doc] = await deps.data.programs.create([
        {
          _id: id,
          name: str(o, 'name')!,
          merchant_id: merchant,
          countries: [country],
          currency,
          default_landing_url: landing,
          allowed_domains: list(o, 'allowed-domains') ?? [new URL(landing).hostname.replace(/^www\./, '')],
          click_id_param: param,
          commission_description: str(o, 'commission') ?? '',
          auto_approve: !!o['auto-approve'],
          joinable: !o['not-joinable'],
        },
      ]);
      return {
        id: doc._id,
        merchant_id: doc.merchant_id,
        country,
        auto_approve: doc.auto_approve,
        joinable: doc.joinable,
        allowed_domains: doc.allowed_domains,
        click_id_param: doc.click_id_param,
      };
    },
  },
  'program:set-status': {
    summary: 'Pause, close or reactivate a program (its products and links stop or resume on the next request)',
    options: { id: { type: 'string', required: true, doc: 'program id' }, status: { type: 'string', required: true, doc: 'active, paused or closed' } },
    run: async (deps, o) => {
      const status = choice(o, 'status', ['active', 'paused', 'closed'] as const)!;
      const program = await mustProgram(deps, int(o, 'id')!);
      await deps.data.programs.setStatus(program._id, status);
      return { program_id: program._id, status };
    },
  },
  'program:assign': {
    summary: 'Assign a publisher to a program (approved, pending or rejected)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      program: { type: 'string', required: true, doc: 'program id' },
      status: { type: 'string', doc: 'approved (default), pending, rejected' },
    },
    run: async (deps, o) => decide(deps, o, str(o, 'status') ?? 'approved'),
  },
  'application:approve': {
    summary: "Approve a publisher's application to a program",
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, program: { type: 'string', required: true, doc: 'program id' } },
    run: async (deps, o) => decide(deps, o, 'approved', true),
  },
  'application:reject': {
    summary: "Reject a publisher's application to a program",
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, program: { type: 'string', required: true, doc: 'program id' } },
    run: async (deps, o) => decide(deps, o, 'rejected', true),
  },
  'merchant-token:issue': {
    summary:
      "Issue a merchant token (shown once) for a merchant's conversion intake and status changes; revoke or rotate it with credential:revoke / credential:rotate",
    options: { merchant: { type: 'string', required: true, doc: 'merchant id' }, label: { type: 'string', doc: 'label' } },
    run: async (deps, o) => {
      const merchant = int(o, 'merchant')!;
      if (!(await deps.data.programs.merchantExists(merchant))) throw new UsageError(`merchant ${merchant} does not exist`);
      const c = await issueMerchantToken(deps.data.auth, merchant, str(o, 'label'));
      return { id: c.id, type: c.type, merchant, prefix: c.prefix, secret: c.secret };
    },
  },
  'conversion:approve': conversionChange('approved', 'Approve pending conversions'),
  'conversion:decline': conversionChange('declined', 'Decline pending conversions (an approved one is reversed)'),
  'conversion:reverse': conversionChange('declined', 'Reverse approved conversions (they become declined)', 'approved'),
  'conversion:list': {
    summary: "List a publisher's or a merchant's conversions, newest first",
    options: {
      publisher: { type: 'string', doc: 'account id' },
      merchant: { type: 'string', doc: 'merchant id' },
      status: { type: 'string', doc: 'pending, approved or declined' },
      limit: { type: 'string', doc: 'at most this many (default 50)' },
    },
    run: async (deps, o) => {
      const filter: Record<string, unknown> = {};
      if (str(o, 'publisher')) filter.publisher_id = str(o, 'publisher');
      if (str(o, 'merchant')) filter.campaign_id = int(o, 'merchant');
      if (!filter.publisher_id && filter.campaign_id === undefined) throw new UsageError('give --publisher or --merchant');
      const status = choice(o, 'status', ['pending', 'approved', 'declined'] as const);
      if (status) filter.status = status;
      const rows = await deps.models.Conversion.find(filter, { events: 0 })
        .sort({ occurred_at: -1, _id: 1 })
        .limit(int(o, 'limit') ?? 50)
        .lean<ConversionRecord[]>();
      const names = await deps.data.programs.merchantNames(rows.flatMap((r) => (r.campaign_id === undefined || r.campaign_id === null ? [] : [r.campaign_id])));
      return rows.map((r) => ({
        ...conversionView(r, r.campaign_id === undefined ? undefined : names.get(r.campaign_id)),
        publisher_id: r.publisher_id,
        order_id: r.order_ref ?? null,
      }));
    },
  },
  'events:tail': {
    summary: "A publisher's sale events, oldest first, from a cursor; --follow prints each new one as it happens (one JSON line each) until interrupted",
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      cursor: { type: 'string', doc: 'start after this cursor (default: the first event)' },
      limit: { type: 'string', doc: 'without --follow: at most this many (default 100, at most 500)' },
      follow: { type: 'boolean', doc: 'keep printing new events (one JSON line each, with its cursor) until Ctrl-C' },
    },
    run: async (deps, o) => {
      const publisher = str(o, 'publisher')!;
      await mustPublisher(deps, publisher);
      const read = (cursor: string | undefined, limit: number) =>
        readEventLog(deps, publisher, { cursor, limit }).catch((e: unknown) => {
          throw e instanceof ApiError && e.status < 500 ? new UsageError(e.detail) : e;
        });
      if (!o.follow) {
        const limit = int(o, 'limit') ?? 100;
        if (limit < 1 || limit > 500) throw new UsageError('--limit must be 1 to 500');
        const page = await read(str(o, 'cursor'), limit);
        return {
          events: page.events.map((e) => ({ ...(JSON.parse(e.body) as object), cursor: e.cursor })),
          next_cursor: page.next_cursor,
          has_more: page.has_more,
        };
      }
      let cursor = str(o, 'cursor');
      let stop = false;
      const interrupt = () => (stop = true);
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        while (!stop) {
          const page = await read(cursor, 500);
          for (const e of page.events) process.stdout.write(`${JSON.stringify({ ...(JSON.parse(e.body) as object), cursor: e.cursor })}\n`);
          cursor = page.next_cursor;
          if (!page.has_more) await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
      // Where it stopped, for the person (standard error): standard output holds only event lines.
      process.stderr.write(`stopped; resume with --cursor ${cursor}\n`);
      return undefined;
    },
  },
  'stats:rebuild': {
    summary:
      'Recompute the stats read model (reports, summaries, getStats, payment status, earnings) from the raw conversions and clicks, month by month (progress bar); safe to repeat',
    options: {
      publisher: { type: 'string', doc: 'one account id (default: every account with conversions or clicks)' },
      from: { type: 'string', doc: 'YYYY-MM-DD: rebuild from the UTC month of this day on (default: all history)' },
    },
    run: async (deps, o, progress) => {
      const publisherId = str(o, 'publisher');
      if (publisherId !== undefined) await mustPublisher(deps, publisherId);
      const fromRaw = str(o, 'from');
      if (fromRaw !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(fromRaw) || Number.isNaN(Date.parse(`${fromRaw}T00:00:00Z`))))
        throw new UsageError(`--from must be a date YYYY-MM-DD, got "${fromRaw}"`);
      const from = fromRaw === undefined ? undefined : new Date(`${fromRaw}T00:00:00.000Z`);
      return rebuildStats(deps, { publisherId, from, onProgress: progress ? (p) => progress(p.done, p.total) : undefined });
    },
  },
  'clicks:migrate': {
    summary:
      'Move click rows of the older layout (one document per click) into buckets (many clicks per document), a batch at a time (progress bar); run while the services run; resumable after a crash, safe to repeat',
    options: { batch: { type: 'string', doc: 'rows per step (default 5000)' } },
    run: async (deps, o, progress) => {
      const batch = int(o, 'batch');
      if (batch === 0) throw new UsageError('--batch must be at least 1');
      const total = await deps.models.Click.estimatedDocumentCount();
      const { moved, buckets } = await deps.data.links.migrateClickRows({
        batch,
        onProgress: progress ? (done) => progress(done, Math.max(total, done)) : undefined,
      });
      return { moved, buckets, left: await deps.models.Click.estimatedDocumentCount() };
    },
  },
  'events:prune': {
    summary: 'Remove sale events logged more than N days ago from the events feed (cursors before them then answer 410)',
    options: { 'older-than-days': { type: 'string', required: true, doc: 'keep the last N days of events' } },
    run: async (deps, o) => {
      const days = int(o, 'older-than-days')!;
      return { removed: await pruneEvents(deps, new Date(Date.now() - days * 86_400_000)) };
    },
  },
  'events:backfill': {
    summary: 'Put the sale events of conversions from before the events feed existed into it (safe to repeat: logged events are skipped)',
    options: {},
    run: async (deps) => {
      const flagged = (await deps.models.Conversion.updateMany({ source: 'v1', 'events.0': { $exists: true } }, { $set: { log_pending: true } })).modifiedCount;
      let appended = 0;
      for (let n = -1; n !== 0;) appended += n = await appendPendingEvents(deps);
      return { conversions: flagged, appended };
    },
  },
  'ledger:add': {
    summary: 'Book a bonus or correction for a publisher (source ledger, approved; counts in conversions, reports and payment status)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      amount: { type: 'string', required: true, doc: 'decimal amount; a correction is negative: --amount=-4.50' },
      currency: { type: 'string', required: true, doc: 'ISO 4217' },
      reason: { type: 'string', required: true, doc: 'shown to the publisher' },
      program: { type: 'string', doc: 'program id the entry belongs to' },
    },
    run: async (deps, o) => {
      const programId = int(o, 'program');
      const program = programId === undefined ? undefined : await mustProgram(deps, programId);
      const c = await bookLedgerEntry(deps, {
        publisherId: str(o, 'publisher')!,
        amount: str(o, 'amount')!,
        currency: str(o, 'currency')!.toUpperCase(),
        reason: str(o, 'reason')!,
        programId: program?._id,
        merchantId: program?.merchant_id,
      });
      return { ...conversionView(c, undefined), publisher_id: c.publisher_id };
    },
  },
  'offer:create': {
    summary: 'Create a voucher or deal of a program in one country (offers pilot)',
    options: {
      program: { type: 'string', required: true, doc: 'program id' },
      type: { type: 'string', required: true, doc: 'voucher or deal' },
      title: { type: 'string', required: true, doc: 'shown to publishers' },
      code: { type: 'string', doc: 'the voucher code (vouchers only)' },
      country: { type: 'string', required: true, doc: 'ISO alpha-2' },
      url: { type: 'string', doc: "landing page (default: the program's)" },
      starts: { type: 'string', doc: 'start, ISO date or date-time (default: now)' },
      ends: { type: 'string', required: true, doc: 'end, ISO date or date-time' },
      description: { type: 'string', doc: 'longer text' },
      terms: { type: 'string', doc: 'conditions' },
    },
    run: async (deps, o) => {
      const program = await mustProgram(deps, int(o, 'program')!);
      const type = choice(o, 'type', ['voucher', 'deal'] as const)!;
      const country = str(o, 'country')!.toUpperCase();
      if (!/^[A-Z]{2}$/.test(country)) throw new UsageError(`--country: "${country}" is not an ISO alpha-2 country`);
      const when = (k: string, fallback?: Date) => {
        const v = str(o, k);
        if (v === undefined) return fallback!;
        const d = new Date(v);
        if (Number.isNaN(d.getTime())) throw new UsageError(`--${k} must be an ISO date or date-time, got "${v}"`);
        return d;
      };
      return createOffer(deps, {
        programId: program._id,
        type,
        title: str(o, 'title')!,
        code: str(o, 'code'),
        country,
        landingUrl: url(str(o, 'url') ?? program.default_landing_url, 'url'),
        startsAt: when('starts', new Date()),
        endsAt: when('ends'),
        description: str(o, 'description'),
        terms: str(o, 'terms'),
      });
    },
  },
  'offer:list': {
    summary: 'List offers, newest first, with their state (running, future, expired, ended)',
    options: {
      program: { type: 'string', doc: 'only this program' },
      country: { type: 'string', doc: 'only this country' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: async (deps, o) => {
      const program = int(o, 'program');
      const country = str(o, 'country')?.toUpperCase();
      const rows = await deps.models.Offer.find({ ...(program !== undefined ? { program_id: program } : {}), ...(country ? { country } : {}) })
        .sort({ created_at: -1, _id: 1 })
        .limit(int(o, 'limit') ?? 100)
        .lean();
      const now = new Date();
      return rows.map((r) => ({ ...r, state: r.ended_at ? 'ended' : r.starts_at > now ? 'future' : r.ends_at <= now ? 'expired' : 'running' }));
    },
  },
  'offer:end': {
    summary: 'End a running or future offer now',
    options: { id: { type: 'string', required: true, doc: 'offer id' } },
    run: async (deps, o) => {
      if (!(await endOffer(deps, str(o, 'id')!))) throw new UsageError(`offer ${str(o, 'id')} does not exist or has already ended`);
      return { id: str(o, 'id'), ended: true };
    },
  },
  'monetize:list': {
    summary: 'List instant-monetization applications, newest first (claims to review: --status under_review)',
    options: { status: { type: 'string', doc: APPLICATION_STATUSES.join('|') }, limit: { type: 'string', doc: 'at most this many (default 100)' } },
    run: async (deps, o) => {
      const status = str(o, 'status');
      if (status !== undefined && !(APPLICATION_STATUSES as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${APPLICATION_STATUSES.join(', ')}`);
      return listApplications(deps, { status: status as ApplicationStatus | undefined, limit: int(o, 'limit') });
    },
  },
  'monetize:approve': {
    summary:
      'Approve a claimed application: it becomes a publisher account keeping its links, clicks and conversions (claimed in the portal: its owner issues keys there; otherwise its API key is shown once)',
    options: { id: { type: 'string', required: true, doc: 'application id (app_…)' } },
    run: (deps, o) => approveApplication(deps, str(o, 'id')!),
  },
  'monetize:reject': {
    summary: 'Reject an application: its provisional publisher is deactivated',
    options: { id: { type: 'string', required: true, doc: 'application id (app_…)' }, note: { type: 'string', doc: 'why (kept on the application)' } },
    run: (deps, o) => rejectApplication(deps, str(o, 'id')!, str(o, 'note')),
  },
  'oauth-app:disable': {
    summary:
      'Disable an app registered through OAuth: it can no longer authorize or refresh, and every grant of it is revoked (its tokens stop at their next request)',
    options: { client: { type: 'string', required: true, doc: "the app's client_id" } },
    run: async (deps, o) => {
      const r = await deps.data.oauth.disableClient(str(o, 'client')!);
      if (!r.found) throw new ApiError({ code: 'not_found', detail: `no app ${str(o, 'client')} is registered` });
      return { client_id: str(o, 'client'), disabled: true, grants_revoked: r.grantsRevoked };
    },
  },
  'oauth-app:enable': {
    summary: 'Enable a disabled OAuth app again (its revoked grants stay revoked: people grant it anew)',
    options: { client: { type: 'string', required: true, doc: "the app's client_id" } },
    run: async (deps, o) => {
      if (!(await deps.data.oauth.enableClient(str(o, 'client')!)))
        throw new ApiError({ code: 'not_found', detail: `no app ${str(o, 'client')} is registered` });
      return { client_id: str(o, 'client'), disabled: false };
    },
  },
  'publisher:subscribe-trending': {
    summary: 'Subscribe an account to trending opportunities in some channels (--channels none unsubscribes)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      channels: { type: 'string', required: true, doc: 'coupon,content,social or none' },
    },
    run: async (deps, o) => {
      const channels = str(o, 'channels') === 'none' ? [] : (list(o, 'channels') ?? []);
      if (!channels.length && str(o, 'channels') !== 'none') throw new UsageError('--channels must list coupon, content or social, or be none');
      return subscribeTrending(deps, str(o, 'publisher')!, channels);
    },
  },
  'trending:plan-create': {
    summary: 'Create a trending plan for one audience country and channel (unreleased until trending:plan-release)',
    options: {
      title: { type: 'string', required: true, doc: 'shown to operators' },
      country: { type: 'string', required: true, doc: 'ISO alpha-2 audience country' },
      channel: { type: 'string', required: true, doc: 'coupon, content or social' },
      items: { type: 'string', required: true, doc: 'JSON array of {program_id, title, score 0-1, landing_url?}' },
    },
    run: async (deps, o) => {
      let items: NewPlanItem[];
      try {
        items = JSON.parse(str(o, 'items')!);
      } catch {
        throw new UsageError('--items must be a JSON array of {program_id, title, score, landing_url?}');
      }
      if (
        !Array.isArray(items) ||
        items.some(
          (i) =>
            typeof i !== 'object' ||
            i === null ||
            !Number.isInteger(i.program_id) ||
            typeof i.title !== 'string' ||
            typeof i.score !== 'number' ||
            (i.landing_url !== undefined && typeof i.landing_url !== 'string'),
        )
      ) {
        throw new UsageError('--items must be a JSON array of {program_id (integer), title (string), score (number), landing_url? (string)}');
      }
      for (const i of items) if (i.landing_url !== undefined) i.landing_url = url(i.landing_url, 'items landing_url');
      return createPlan(deps, { title: str(o, 'title')!, country: str(o, 'country')!.toUpperCase(), channel: str(o, 'channel')!, items });
    },
  },
  'trending:plan-release': {
    summary: 'Release a trending plan now (subscribed publishers see it)',
    options: { id: { type: 'string', required: true, doc: 'plan id (tpl_…)' } },
    run: async (deps, o) => {
      if (!(await releasePlan(deps, str(o, 'id')!))) throw new UsageError(`plan ${str(o, 'id')} does not exist or is already released`);
      return { id: str(o, 'id'), released: true };
    },
  },
  'publisher:set-comparison-site': {
    summary: 'Authorize an account as a comparison site (feeds may filter by merchant) or withdraw it (--off)',
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, off: { type: 'boolean', doc: 'withdraw the authorization' } },
    run: async (deps, o) => {
      await mustPublisher(deps, str(o, 'publisher')!);
      await deps.models.Publisher.updateOne({ _id: str(o, 'publisher') }, { $set: { comparison_site: !o.off, updated_at: new Date() } });
      return { account_id: str(o, 'publisher'), comparison_site: !o.off };
    },
  },
  'feed:regenerate': {
    summary: "Rewrite a market's prepared feed files now (the worker also does it after imports and every 6 hours)",
    options: { country: { type: 'string', required: true, doc: 'ISO alpha-2 market' } },
    run: async (deps, o) => {
      const country = str(o, 'country')!.toUpperCase();
      if (!/^[A-Z]{2}$/.test(country)) throw new UsageError(`--country: "${country}" is not an ISO alpha-2 country`);
      return regenerateMarket(deps.data, country);
    },
  },
  'postback:deliveries': {
    summary: "List an account's postback deliveries, newest first",
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      status: { type: 'string', doc: 'pending, succeeded, failed or dead' },
      limit: { type: 'string', doc: 'at most this many (default 50)' },
    },
    run: async (deps, o) => {
      const status = choice(o, 'status', ['pending', 'succeeded', 'failed', 'dead'] as const);
      const filter: Record<string, unknown> = { publisher_id: str(o, 'publisher'), ...(status ? { status } : {}) };
      const rows = await deps.models.PostbackDelivery.find(filter, { body: 0 })
        .sort({ created_at: -1, _id: 1 })
        .limit(int(o, 'limit') ?? 50)
        .lean();
      return rows.map((d) => deliveryView(d as never));
    },
  },
  'postback:reseal': {
    summary: 'Re-seal every stored postback signing secret under the newest key of SECRET_KEYS (after adding a key; then older keys can be retired)',
    options: {},
    run: async (deps, _o, progress) => {
      const total = await deps.models.PostbackConfig.countDocuments();
      let resealed = 0;
      let done = 0;
      for await (const c of deps.models.PostbackConfig.find({}, { secret: 1, previous_secret: 1 }).lean().cursor()) {
        const secret = c.secret as SealedSecret;
        const previous = (c.previous_secret ?? undefined) as SealedSecret | undefined;
        const $set: Record<string, SealedSecret> = {};
        if (sealedWithOlderKey(deps.config.keys, secret)) $set.secret = seal(deps.config.keys, open(deps.config.keys, secret));
        if (previous?.data && sealedWithOlderKey(deps.config.keys, previous)) $set.previous_secret = seal(deps.config.keys, open(deps.config.keys, previous));
        // Guarded by the values read: a secret rotated meanwhile is left as its rotation wrote it.
        if (Object.keys($set).length && (await deps.models.PostbackConfig.updateOne({ _id: c._id, 'secret.data': secret.data }, { $set })).modifiedCount)
          resealed++;
        progress?.(++done, total);
      }
      return { key: deps.config.keys.current.id, postbacks: total, resealed };
    },
  },
  'postback:backfill': {
    summary:
      'From a version before postbacks scaled out: put conversions with unpublished sale events in the outbox, and give deliveries their expiry by outcome (safe to repeat)',
    options: {},
    run: async (deps) => {
      const now = new Date();
      const outbox = (
        await deps.models.Conversion.updateMany(
          { outbox_since: { $exists: false }, events: { $elemMatch: { published_at: null } } },
          { $set: { outbox_since: now } },
        )
      ).modifiedCount;
      const DAY = 86_400_000;
      let deliveries = 0;
      for (const [statuses, days] of [
        [['succeeded'], deps.config.postbackSucceededRetentionDays],
        [['pending', 'failed', 'dead'], deps.config.postbackFailedRetentionDays],
      ] as const) {
        const r = await deps.models.PostbackDelivery.updateMany(
          { expires_at: { $exists: false }, status: { $in: [...statuses] } },
          [{ $set: { expires_at: { $add: ['$updated_at', days * DAY] } } }],
          { updatePipeline: true },
        );
        deliveries += r.modifiedCount;
      }
      return { conversions: outbox, deliveries };
    },
  },
  'postback:redeliver': {
    summary: 'Send failed or dead deliveries again under their delivery ids: one (--id) or every dead one of an account (--all-dead, progress bar)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      id: { type: 'string', doc: 'delivery id' },
      'all-dead': { type: 'boolean', doc: 'every dead delivery of the account' },
    },
    run: async (deps, o, progress) => {
      const publisher = await mustPublisher(deps, str(o, 'publisher')!);
      const principal = { publisher, credentialId: 'operator', prefix: 'operator', type: 'portal_token' as const };
      if (!str(o, 'id') === !o['all-dead']) throw new UsageError('give --id or --all-dead');
      const ids = str(o, 'id')
        ? [str(o, 'id')!]
        : (await deps.models.PostbackDelivery.find({ publisher_id: publisher._id, status: 'dead' }, { _id: 1 }).lean()).map((d) => String(d._id));
      const done: string[] = [];
      for (const [i, id] of ids.entries()) {
        done.push((await redeliver(deps, principal as never, id)).id);
        progress?.(i + 1, ids.length);
      }
      return { redelivered: done.length, ids: done };
    },
  },
  'catalog:import': {
    summary: "Import a merchant catalog file (Google Shopping CSV/TSV or XML) as a program's offers in one market",
    options: {
      file: { type: 'string', required: true, doc: 'path to the feed file' },
      program: { type: 'string', required: true, doc: 'program id' },
      country: { type: 'string', required: true, doc: 'market, e.g. DE' },
      format: { type: 'string', doc: 'csv, tsv or xml (default: from the file name)' },
      'fresh-hours': { type: 'string', doc: 'hours the rows stay fresh (default 72)' },
    },
    run: async (deps, o, progress) => {
      const file = str(o, 'file')!;
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new UsageError(`cannot read ${file}`);
      }
      const format = (str(o, 'format') ?? file.split('.').pop() ?? '').toLowerCase();
      let rows;
      try {
        rows = format === 'xml' ? parseCatalogXml(text) : format === 'tsv' ? parseCatalogCsv(text, '\t') : format === 'csv' ? parseCatalogCsv(text) : undefined;
      } catch (e) {
        throw new UsageError(`cannot parse ${file} as ${format}: ${(e as Error).message}`);
      }
      if (!rows) throw new UsageError('--format must be csv, tsv or xml');
      const program = await mustProgram(deps, int(o, 'program')!);
      const [country] = countries(o, 'country') ?? [];
      const result = await importCatalogRows(deps, rows, { programId: program._id, country, freshForHours: int(o, 'fresh-hours'), onProgress: progress });
      return { rows: rows.length, imported: result.imported, rejected: result.rejected.length, rejections: result.rejected.slice(0, 50) };
    },
  },
};

/** Conversion ids from --id, or from the first column of a CSV file (--file; a header line is skipped). */
function conversionIds(o: Options): string[] {
  const id = str(o, 'id');
  const file = str(o, 'file');
  if (!id === !file) throw new UsageError('give --id or --file');
  if (id) return [id];
  let text: string;
  try {
    text = readFileSync(file!, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const rows = parseCsv(text, { skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  return rows.map((r) => r[0]).filter((v) => v && /^cnv_/.test(v));
}

/**
 * A status change through the lifecycle (the same rules and one event per change), for one id or
 * for every id of a CSV file with a progress bar (networks approve thousands at month end).
 */
function conversionChange(to: 'approved' | 'declined', summary: string, onlyFrom?: 'approved'): CommandSpec {
  return {
    summary,
    options: { id: { type: 'string', doc: 'conversion id' }, file: { type: 'string', doc: 'CSV file whose first column holds conversion ids' } },
    run: async (deps, o, progress) => {
      const ids = conversionIds(o);
      const results: Array<{ id: string; status?: string; error?: string }> = [];
      for (const [i, id] of ids.entries()) {
        try {
          results.push({ id, status: (await changeStatus(deps, id, to, { onlyFrom })).status });
        } catch (e) {
          if (!(e instanceof ApiError) || e.status >= 500) throw e;
          results.push({ id, error: e.detail });
        }
        progress?.(i + 1, ids.length);
      }
      if (str(o, 'id')) {
        if (results[0].error) throw new UsageError(results[0].error);
        return results[0];
      }
      return { changed: results.filter((r) => !r.error).length, failed: results.filter((r) => r.error).length, errors: results.filter((r) => r.error) };
    },
  };
}

/** An assignment decision through the programs lib (the same rule and write as everywhere). */
async function decide(deps: CliDeps, o: Options, status: string, mustExist = false) {
  if (!['approved', 'pending', 'rejected'].includes(status)) throw new UsageError('--status must be approved, pending or rejected');
  return setAssignment(deps, str(o, 'publisher')!, int(o, 'program')!, status as AssignmentStatus, { mustExist });
}
