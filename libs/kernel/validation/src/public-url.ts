/**
 * A URL a person gives as "my site": absolute http(s), no credentials, and a host that is a public
 * DNS name (with a dot, not localhost, .local, .internal, .localhost or .test) or a public IP
 * literal. Checked by its text only: the platform never fetches it, so no DNS lookup is made.
 */
import { isIP } from 'node:net';
import { isForbiddenAddress } from './addresses';

const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home', '.test', '.invalid', '.onion'];

/** The reason a URL is not a public http(s) URL, or undefined when it is. */
export function publicUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute http or https URL';
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(host)) return isForbiddenAddress(host) ? 'must be on a public host (not loopback, private, link-local or reserved)' : undefined;
  if (!host.includes('.') || host === 'localhost' || PRIVATE_SUFFIXES.some((s) => host.endsWith(s)))
    return 'must be on a public host (not loopback, private, link-local or reserved)';
  return undefined;
}
