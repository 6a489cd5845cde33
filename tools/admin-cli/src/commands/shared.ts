/** What every operator command shares: its deps (with the operator acting), its spec, option parsing and lookups. */
import type { OperatorPrincipal } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import type { Models, PlatformData } from '@cw/runtime';
import type { PayoutNotice } from '@cw/payouts';

/**
 * What a command works with: the config, every domain's data, the operator acting (whom the audit
 * log names) and, for operations on the database as a whole (db:migrate, clicks:migrate), every model.
 */
export interface CliDeps {
  config: PlatformConfig;
  data: PlatformData;
  models: Models;
  operator: OperatorPrincipal;
  /** Payout notices (paid, returned) mailed to the account's owners after the command's work. */
  notify?: (notice: PayoutNotice) => Promise<void>;
}

export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

export interface CommandSpec {
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; required?: boolean; doc: string }>;
  /** Runs through the same use cases and domain data as the API. */
  run(deps: CliDeps, o: Options, progress?: (done: number, total: number) => void): Promise<unknown>;
}

export const str = (o: Options, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
export const int = (o: Options, k: string): number | undefined => {
  const v = str(o, k);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${k} must be a positive integer, got "${v}"`);
  return Number(v);
};
/** An option that must be one of `allowed` (undefined when not given). */
export function choice<T extends string>(o: Options, k: string, allowed: readonly T[]): T | undefined {
  const v = str(o, k);
  if (v !== undefined && !(allowed as readonly string[]).includes(v))
    throw new UsageError(`--${k} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
  return v as T | undefined;
}
export const list = (o: Options, k: string): string[] | undefined =>
  str(o, k)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const countries = (o: Options, k: string): string[] | undefined => {
  const xs = list(o, k)?.map((c) => c.toUpperCase());
  for (const c of xs ?? []) if (!/^[A-Z]{2}$/.test(c)) throw new UsageError(`--${k}: "${c}" is not an ISO alpha-2 country`);
  return xs;
};

export async function mustPublisher({ data }: Pick<CliDeps, 'data'>, id: string) {
  const p = await data.auth.publisherById(id);
  if (!p) throw new UsageError(`publisher ${id} does not exist`);
  return p;
}

export async function mustProgram({ data }: Pick<CliDeps, 'data'>, id: number) {
  const p = await data.programs.byId(id);
  if (!p) throw new UsageError(`program ${id} does not exist`);
  return p;
}

export function url(v: string | undefined, name: string): string {
  try {
    const u = new URL(v ?? '');
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    return u.toString();
  } catch {
    throw new UsageError(`--${name} must be an http(s) URL, got "${v ?? ''}"`);
  }
}
