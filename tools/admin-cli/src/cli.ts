/**
 * `npm run admin -- <command> [--options] [--json]`. Talks to MONGODB_URI, or to the running
 * `npm start` platform's embedded engine (its URI is in .local/platform.json).
 */
import { loadConfig } from '@cw/config';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { operatorTokensExist, verifyOperatorToken, type OperatorPrincipal } from '@cw/auth';
import { parseArgs } from 'node:util';
import { migrateIndexes } from '@cw/db';
import { createLogger } from '@cw/logging';
import { createHttpMetrics } from '@cw/metrics';
import { notifier } from '@cw/notifications';
import { openServiceDeps } from '@cw/runtime';
import { ApiError } from '@cw/errors';
import { progressBar } from '@cw-tools/demo-data';
import { COMMANDS, UsageError, type CommandSpec } from './commands';
import { livePlatformPid, localRunFiles } from './local-files';

function optionLines(c: CommandSpec): string[] {
  return Object.entries(c.options).map(
    ([opt, spec]) => `      --${opt}${spec.type === 'string' ? ' <value>' : ''}${spec.required ? ' (required)' : ''}  ${spec.doc}`,
  );
}

export function usage(): string {
  const lines = ['usage: npm run admin -- <command> [--option value ...] [--json]', '', 'commands (`<command> --help` for one):'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(22)} ${c.summary}`, ...optionLines(c));
  return lines.join('\n');
}

function commandUsage(name: string, c: CommandSpec): string {
  return [`usage: npm run admin -- ${name} [options] [--json]`, '', c.summary, '', ...optionLines(c), '      --json  machine-readable output'].join('\n');
}

/** What the running durable platform tells local tools (.local/platform.json), while its process lives. */
export function runningLocalPlatform(root: string): { url: string; mongodb_uri: string; store?: string; pid: number } | undefined {
  const file = localRunFiles(root, {}).infoPath;
  if (!livePlatformPid(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as { url: string; mongodb_uri: string; store?: string; pid: number };
}

/** MONGODB_URI (through the config loader), else the running local platform's engine. */
export function resolveMongoUri(env: Record<string, string | undefined>, root: string): string | undefined {
  const configured = loadConfig({ MONGODB_URI: env.MONGODB_URI }, { port: 0 }).mongodbUri;
  return configured ?? runningLocalPlatform(root)?.mongodb_uri;
}

/**
 * Who acts, for the use cases' policies and the audit log: with OPERATOR_TOKEN, that operator token's
 * operator and role (production: required); otherwise, outside production (the local platform,
 * tests), the local operator `OPERATOR_EMAIL`, default `local-operator@<hostname>`, an admin. In
 * production without a token only the very first operator token may be issued (`operator:issue`,
 * while none is active): whoever holds the database's credentials already holds the network.
 */
export async function operatorOf(
  env: Record<string, string | undefined>,
  deps: { config: { nodeEnv: string }; data: { auth: Parameters<typeof verifyOperatorToken>[0] } },
  command: string,
): Promise<OperatorPrincipal | string> {
  const requestId = `cli_${randomBytes(8).toString('hex')}`;
  if (env.OPERATOR_TOKEN) {
    try {
      return { ...(await verifyOperatorToken(deps.data.auth, env.OPERATOR_TOKEN)), requestId };
    } catch {
      return 'OPERATOR_TOKEN is not an active operator token (issue one with `operator:issue --email --role`)';
    }
  }
  const local: OperatorPrincipal = { type: 'operator', email: env.OPERATOR_EMAIL || `local-operator@${hostname()}`, role: 'admin', requestId };
  if (deps.config.nodeEnv !== 'production') return local;
  if (command === 'operator:issue' && !(await operatorTokensExist(deps.data.auth))) return local;
  return 'in production every command needs OPERATOR_TOKEN, an operator token (`operator:issue --email --role` by an admin operator)';
}

export async function runCli(argv: string[], env: Record<string, string | undefined>, root: string): Promise<{ code: number; out: string }> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json');
  const fail = (message: string, code = 2) => ({ code, out: json ? JSON.stringify({ error: message }) : `error: ${message}` });
  if (!name || name === '--help' || name === '-h' || name === 'help') return { code: name ? 0 : 2, out: usage() };
  const spec = COMMANDS[name];
  if (!spec) return fail(`unknown command "${name}" (npm run admin -- help lists the commands)`);
  if (rest.includes('--help') || rest.includes('-h')) return { code: 0, out: commandUsage(name, spec) };
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(Object.entries(spec.options).map(([k, v]) => [k, { type: v.type }]));
    const parsed = parseArgs({ args: rest, options: { ...options, json: { type: 'boolean' } }, strict: true, allowPositionals: 'file' in spec.options }) as {
      values: Record<string, string | boolean>;
      positionals: string[];
    };
    values = parsed.values;
    // `fx:import FILE`: a command with a --file option also takes the file as its one argument.
    if (parsed.positionals.length > 1) throw new Error(`${name} takes one file`);
    if (parsed.positionals[0] !== undefined && values.file === undefined) values.file = parsed.positionals[0];
  } catch (e) {
    return fail((e as Error).message);
  }
  const missing = Object.entries(spec.options)
    .filter(([k, v]) => v.required && (values[k] === undefined || values[k] === ''))
    .map(([k]) => `--${k}`);
  if (missing.length) return fail(`${name} needs ${missing.join(', ')}`);
  const uri = resolveMongoUri(env, root);
  if (!uri) return fail('no database: the local platform is not running (start it with `npm start`), and MONGODB_URI is not set');
  let config;
  try {
    config = loadConfig({ ...env, MONGODB_URI: undefined }, { port: 0 });
  } catch (e) {
    return fail((e as Error).message, 1);
  }
  // The composition root every service runs on. With Redis (one server or a cluster) the services
  // cache principals against its access versions: every change this command makes to credentials,
  // accounts, memberships or programs bumps them before it returns.
  let deps;
  try {
    deps = await openServiceDeps(config, uri, 'admin', {
      logger: createLogger({ level: 'silent' }),
      metrics: createHttpMetrics({ defaultMetrics: false }),
      indexes: 'none',
      serverSelectionTimeoutMS: 3000,
    });
  } catch (e) {
    return fail(`cannot connect to ${uri.replace(/\/\/[^@/]*@/, '//***@')}: ${(e as Error).message}`, 1);
  }
  try {
    // The operator's tool builds what is missing before any command (quick when all is there);
    // db:migrate reports each index, rebuilds changed ones and drops undeclared ones.
    if (name !== 'db:migrate') await migrateIndexes(deps.models);
    const operator = await operatorOf(env, { config, data: deps.data }, name);
    if (typeof operator === 'string') return fail(operator, 3);
    // Payout notices become mail jobs the worker sends (@cw/notifications), to whoever has them on.
    const notify = notifier({ data: deps.data });
    const result = publicIds(await spec.run({ config, data: deps.data, models: deps.models, operator, notify }, values, json ? undefined : progressBar(name)));
    return { code: 0, out: result === undefined ? '' : json ? JSON.stringify(result) : formatHuman(result) };
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message);
    // The use cases' own refusals (unknown account, invalid value) are the operator's input errors.
    // An operator whose role does not cover the act (support trying an admin act): exit code 3.
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return fail(`not allowed: ${e.detail}`, 3);
    if (e instanceof ApiError && e.status < 500) return fail(e.detail);
    return fail((e as Error).message, 1);
  } finally {
    await deps.close();
  }
}

/** Stored documents as the API shows them: the id under `id`, never the database's `_id`. */
function publicIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(publicIds);
  if (!value || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k === '_id' ? 'id' : k, publicIds(v)]));
}

function formatHuman(result: unknown): string {
  if (Array.isArray(result)) return result.map((r) => formatHuman(r)).join('\n');
  if (result && typeof result === 'object')
    return Object.entries(result)
      .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join('\n');
  return String(result);
}
