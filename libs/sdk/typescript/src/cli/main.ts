#!/usr/bin/env node
/**
 * `cw`: the publisher CLI on the SDK. Credentials: --api-key, else CW_API_KEY, else what
 * `cw login` stored; the platform: --base-url, else CW_BASE_URL, else the stored login's.
 */
import { parseArgs } from 'node:util';
import { CwClient } from '../client.js';
import { CwApiError } from '../errors.js';
import { oauthTokenProvider } from '../oauth.js';
import { VERSION, env, normalizeBaseUrl } from '../transport.js';
import { configPath, readLogin, removeLogin, writeLogin } from './config.js';
import { listen } from './listen.js';
import { browserLogin } from './login.js';

const HELP = `cw ${VERSION}: the publisher platform from the command line

Usage: cw <command> [options]

  login [--api-key KEY] [--no-open]     store an API key, or sign in in the browser (OAuth) without one
  logout                                forget the stored credential
  whoami                                the account the credential acts for
  products search <words> [--country DE] [--brand B] [--limit N]
  links create --program ID [--campaign ID] [--subid S] [--landing-url URL] [--idempotency-key K]
  conversions list [--status S] [--subid S] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--limit N]
  reports [--group-by day|week|month|subid|campaign|status] [--from D] [--to D]
  events tail [--cursor C | --from-start]      every sale event as it happens
  listen --forward-to URL [--events sale.approved,...] [--secret whsec_...] [--from-start]
                                        deliver each event to a local URL as the real postback would be

Options: --base-url URL (or CW_BASE_URL), --api-key KEY (or CW_API_KEY), --json, --help, --version
Stored login: ${configPath()}`;

const OPTIONS = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'no-open': { type: 'boolean' },
  country: { type: 'string' },
  brand: { type: 'string' },
  limit: { type: 'string' },
  program: { type: 'string' },
  campaign: { type: 'string' },
  subid: { type: 'string' },
  'landing-url': { type: 'string' },
  'idempotency-key': { type: 'string' },
  status: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'group-by': { type: 'string' },
  cursor: { type: 'string' },
  'from-start': { type: 'boolean' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  secret: { type: 'string' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const int = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a number`);
  return Number(v);
};

function baseUrlOf(flags: Flags): string {
  const url = flags['base-url'] ?? env('CW_BASE_URL') ?? readLogin()?.base_url;
  if (!url) throw new UsageError('No platform URL: pass --base-url, set CW_BASE_URL, or run cw login --base-url URL.');
  return normalizeBaseUrl(url);
}

function client(flags: Flags): CwClient {
  const baseUrl = baseUrlOf(flags);
  const stored = readLogin();
  const apiKey = flags['api-key'] ?? env('CW_API_KEY') ?? (stored?.base_url === baseUrl ? stored.api_key : undefined);
  const oauth = !apiKey && stored?.base_url === baseUrl ? stored.oauth : undefined;
  if (!apiKey && !oauth) throw new UsageError('No credential: pass --api-key, set CW_API_KEY, or run cw login.');
  return new CwClient({
    baseUrl,
    apiKey,
    userAgent: `cw-cli/${VERSION}`,
    accessToken: oauth
      ? oauthTokenProvider({
          tokenEndpoint: oauth.token_endpoint,
          clientId: oauth.client_id,
          resource: oauth.resource,
          tokens: oauth.tokens,
          // The refresh token rotates at each use: keep the new one.
          onTokens: (tokens) => void writeLogin({ ...stored!, oauth: { ...oauth, tokens } }),
        })
      : undefined,
  });
}

function untilInterrupted(): AbortSignal {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return ac.signal;
}

const money = (v: unknown, currency: unknown) => `${String(v ?? '')} ${String(currency ?? '')}`.trim();

async function run(argv: string[]): Promise<void> {
  const { values: flags, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, ...rest] = positionals;
  if (flags.version) return out(VERSION);
  if (flags.help || !command || command === 'help') return out(HELP);
  const print = (value: unknown, text: () => void) => (flags.json ? out(JSON.stringify(value, null, 2)) : text());

  switch (command) {
    case 'login': {
      const baseUrl = baseUrlOf(flags);
      const apiKey = flags['api-key'];
      if (apiKey) {
        const me = await new CwClient({ baseUrl, apiKey }).me();
        const path = writeLogin({ base_url: baseUrl, api_key: apiKey });
        return say(`Signed in to ${baseUrl} as ${me.name ?? me.account_id} (API key ${apiKey.slice(0, 12)}…). Stored in ${path} (mode 0600).`);
      }
      const login = await browserLogin(baseUrl, { open: !flags['no-open'], say });
      const path = writeLogin(login);
      const me = await client({ ...flags, 'api-key': undefined }).me();
      return say(`Signed in to ${baseUrl} as ${me.name ?? me.account_id} (OAuth; scopes ${login.oauth?.tokens.scope ?? ''}). Stored in ${path} (mode 0600).`);
    }
    case 'logout':
      return say(removeLogin() ? `Removed ${configPath()}.` : 'Not signed in.');
    case 'whoami': {
      const me = await client(flags).me();
      return print(me, () => out(`${String(me.name)} (${String(me.account_id)}), ${String(me.status)}`));
    }
    case 'products': {
      if (sub !== 'search' || !rest.length) throw new UsageError('cw products search <words> [--country CC] [--limit N]');
      const page = await client(flags).products.search({
        q: rest.join(' '),
        country: flags.country,
        brand: flags.brand,
        limit: int(flags.limit, 'limit') ?? 10,
      });
      return print(page, () => {
        for (const p of page.products) out(`${p.id}  ${money(p.price, p.currency).padStart(12)}  ${p.title}\n    ${p.url}`);
        out(`${page.count} products${page.next_offset !== null ? ` (more: --offset ${page.next_offset})` : ''}`);
      });
    }
    case 'links': {
      if (sub !== 'create') throw new UsageError('cw links create --program ID [--subid S] [--landing-url URL]');
      const campaign = flags.campaign;
      const link = await client(flags).links.create(
        {
          program_id: int(flags.program, 'program'),
          campaign_id: campaign === undefined ? undefined : /^\d+$/.test(campaign) ? Number(campaign) : campaign,
          subid: flags.subid,
          landing_url: flags['landing-url'],
        },
        { idempotencyKey: flags['idempotency-key'] },
      );
      return print(link, () => out(link.url));
    }
    case 'conversions': {
      if (sub !== 'list') throw new UsageError('cw conversions list [--status S] [--subid S] [--from D] [--to D] [--limit N]');
      const limit = int(flags.limit, 'limit') ?? 20;
      const rows: unknown[] = [];
      const query = {
        status: flags.status as 'pending' | 'approved' | 'declined' | undefined,
        subid: flags.subid,
        date_from: flags.from,
        date_to: flags.to,
        page_size: Math.min(limit, 500),
      };
      for await (const c of client(flags).conversions.list(query)) {
        rows.push(c);
        if (rows.length >= limit) break;
      }
      return print(rows, () => {
        for (const c of rows as Array<Record<string, unknown>>)
          out(
            `${String(c.id)}  ${String(c.status).padEnd(8)}  ${money(c.commission, c.currency).padStart(12)}  subid=${String(c.subid ?? '')}  ${String(c.occurred_at ?? '')}`,
          );
        out(`${rows.length} conversions`);
      });
    }
    case 'reports': {
      const report = await client(flags).report({
        group_by: (flags['group-by'] ?? 'day') as 'day',
        date_from: flags.from,
        date_to: flags.to,
        subid: flags.subid,
        status: flags.status as 'pending' | undefined,
      });
      return print(report, () => {
        for (const r of report.rows as Array<Record<string, unknown>>) out(Object.values(r).map(String).join('\t'));
      });
    }
    case 'events': {
      if (sub !== 'tail') throw new UsageError('cw events tail [--cursor C | --from-start]');
      const signal = untilInterrupted();
      const cw = client(flags);
      const cursor = flags.cursor ?? (flags['from-start'] ? undefined : await cw.events.latestCursor());
      say('Waiting for sale events (Ctrl-C stops)...');
      for await (const e of cw.events.stream({ cursor, signal })) {
        // Payout events (and types this version does not know) have no conversion.
        const c = 'conversion' in e.event ? e.event.conversion : undefined;
        if (flags.json) out(JSON.stringify({ cursor: e.cursor, event: e.event }));
        else
          out(`${e.event.created_at}  ${e.type.padEnd(14)} ${c?.id ?? ''}  ${money(c?.commission, c?.currency)}  subid=${c?.subid ?? ''}  cursor=${e.cursor}`);
      }
      return;
    }
    case 'listen': {
      const forwardTo = flags['forward-to'];
      if (!forwardTo) throw new UsageError('cw listen --forward-to http://localhost:3000/hook [--events sale.approved,...]');
      await listen(client(flags), {
        forwardTo,
        events: flags.events
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        secret: flags.secret,
        cursor: flags.cursor,
        fromStart: flags['from-start'],
        signal: untilInterrupted(),
        say: out,
        json: flags.json,
      });
      return;
    }
    default:
      throw new UsageError(`Unknown command "${command}" (cw --help lists them).`);
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: unknown) => {
    if (e instanceof CwApiError) say(`error: ${e.code}: ${e.detail}${e.request_id ? ` (request ${e.request_id})` : ''}`);
    else if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) say(`usage: ${(e as Error).message}`);
    else say(`error: ${(e as Error).message}`);
    process.exit(e instanceof UsageError ? 2 : 1);
  },
);
