/**
 * The platform's secret keys, rotatable. `SECRET_ENCRYPTION_KEY` is the base key: it never
 * changes, because what derives from it must stay stable (tracked-link codes, address hashes).
 * `SECRET_KEYS` (`id:base64,id:base64`, newest first) adds keys for what can be re-sealed or
 * re-issued: the newest seals postback secrets and signs feed URLs and click ids; every key of
 * the ring still opens and verifies what it sealed or signed. The base key's id is `base`.
 */
export interface SecretKey {
  id: string;
  key: Buffer;
}

export interface KeyRing {
  /** What new seals and signatures use: the first of SECRET_KEYS, else the base key. */
  current: SecretKey;
  /** Every key, current first, the base key last. */
  all: readonly SecretKey[];
  byId(id: string): Buffer | undefined;
}

export const BASE_KEY_ID = 'base';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export function keyRing(base: Buffer, extra: readonly SecretKey[] = []): KeyRing {
  const all = [...extra, { id: BASE_KEY_ID, key: base }];
  const ids = new Map(all.map((k) => [k.id, k.key]));
  return { current: all[0]!, all, byId: (id) => ids.get(id) };
}

/** SECRET_KEYS as a list of keys, with every problem named. */
export function parseSecretKeys(raw: string | undefined, problems: string[]): SecretKey[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys: SecretKey[] = [];
  for (const entry of raw.split(',').map((s) => s.trim())) {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (at < 1 || !KEY_ID.test(id) || id === BASE_KEY_ID)
      problems.push(`SECRET_KEYS: "${id || entry.slice(0, 8)}" is not a key id (1-32 of A-Z a-z 0-9 _ -, not "${BASE_KEY_ID}")`);
    else if (key.length !== 32) problems.push(`SECRET_KEYS: key ${id} must be 32 bytes, base64-encoded`);
    else if (keys.some((k) => k.id === id)) problems.push(`SECRET_KEYS: key id ${id} is given twice`);
    else keys.push({ id, key });
  }
  return keys;
}
