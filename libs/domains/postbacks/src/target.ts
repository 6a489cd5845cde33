/**
 * A postback target URL: https (http only with POSTBACK_ALLOW_INSECURE), no credentials in it,
 * only the documented macros, and a host that is, and resolves only to, public addresses
 * (checked again on the address actually connected to at delivery).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError } from '@cw/errors';
import { isForbiddenAddress } from '@cw/validation';

export const MACROS = ['subid', 'commission', 'currency', 'status', 'event', 'conversion_id', 'program_id', 'campaign_id', 'click_id'] as const;
export type Macro = (typeof MACROS)[number];

const bad = (detail: string) => new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter 'url': ${detail}.`, errors: [{ param: 'url', detail }] });

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export async function validateTarget(raw: string, opts: { allowInsecure: boolean; resolve?: Resolver }): Promise<string> {
  const names = [...raw.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? '');
  const unknown = names.filter((n) => !(MACROS as readonly string[]).includes(n));
  if (unknown.length) throw bad(`unknown macro {${unknown[0]}}; known: ${MACROS.map((m) => `{${m}}`).join(' ')}`);
  if (/[{}]/.test(raw.replace(/\{[a-z_]+\}/g, ''))) throw bad('has an unbalanced brace');
  let url: URL;
  try {
    url = new URL(raw.replace(/\{([a-z_]+)\}/g, 'macro'));
  } catch {
    throw bad('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(opts.allowInsecure && url.protocol === 'http:')) throw bad('must use https');
  if (url.username || url.password) throw bad('must not carry credentials');
  if (url.hash) throw bad('must not have a fragment');
  if (opts.allowInsecure) return raw;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch {
      throw bad(`host ${host} does not resolve`);
    }
  }
  if (!addresses.length) throw bad(`host ${host} does not resolve`);
  if (addresses.some(isForbiddenAddress)) throw bad('must reach a public address (not loopback, private, link-local, multicast or reserved)');
  return raw;
}
