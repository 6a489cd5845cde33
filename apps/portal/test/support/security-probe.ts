/**
 * What the security suites share: a tally of attacks tried and held (each file prints one summary
 * line, "security: N attacks tried, M held"), the portal's operations read from its OpenAPI
 * document (so a route added there is attacked without a test naming it), a request body each
 * operation's schema accepts, and a fingerprint of every collection of the database (an attack
 * that held changed nothing in it).
 */
import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';

/** One attack's outcome: `held` when the platform refused it as it should. */
export interface Attempt {
  attack: string;
  held: boolean;
  /** What came back (status, code), for the report of an attack that did not hold. */
  got: string;
}

/** Attacks tried in one file; `summary()` is the line the file prints once at its end. */
export class Tally {
  readonly attempts: Attempt[] = [];

  record(attack: string, held: boolean, got: string): boolean {
    this.attempts.push({ attack, held, got });
    return held;
  }

  /** The attacks that were not refused as they should be (empty: every one held). */
  get breaches(): Attempt[] {
    return this.attempts.filter((a) => !a.held);
  }

  count(prefix = ''): number {
    return this.attempts.filter((a) => a.attack.startsWith(prefix)).length;
  }

  summary(): string {
    return `security: ${this.attempts.length} attacks tried, ${this.attempts.length - this.breaches.length} held`;
  }
}

type Schema = Record<string, unknown>;

export interface PortalOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The document's path without the API prefix, e.g. `/accounts/{account}/keys/{id}/`. */
  path: string;
  operationId: string;
  pathParams: string[];
  body?: Schema;
  /** Whether the operation needs the session (`security: [PortalSession]`). */
  needsSession: boolean;
  /** An event stream (its answer never ends while the stream is open). */
  streams?: boolean;
}

interface DocOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** Every operation of the portal's OpenAPI document (paths under `prefix`). */
export function portalOperations(doc: Record<string, unknown>, prefix = '/portal/api'): PortalOperation[] {
  const paths = doc.paths as Record<string, Record<string, DocOperation>>;
  const out: PortalOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      out.push({
        method: method.toUpperCase() as PortalOperation['method'],
        path: path.startsWith(prefix) ? path.slice(prefix.length) : path,
        operationId: op.operationId,
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        body: op.requestBody?.content?.['application/json']?.schema,
        needsSession: (op.security ?? []).some((s) => 'PortalSession' in s),
        streams: Object.values(op.responses ?? {}).some((r) => 'text/event-stream' in (r.content ?? {})),
      });
    }
  }
  return out;
}

export const isWrite = (op: Pick<PortalOperation, 'method'>): boolean => op.method !== 'GET';

/** The path with its parameters filled in (`values[name]`, URL-encoded). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(v);
  });
}

/**
 * A body the schema accepts, built from its required members (and `prefer`'s values where given):
 * enough to get past validation, so that only the check under test can refuse the request.
 */
export function exampleOf(schema: Schema | undefined, prefer: Record<string, unknown> = {}): unknown {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.oneOf)) return exampleOf(schema.oneOf[0] as Schema);
  if (Array.isArray(schema.anyOf)) return exampleOf(schema.anyOf[0] as Schema);
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const name of (schema.required as string[] | undefined) ?? []) out[name] = exampleOf(props[name]);
      for (const [name, value] of Object.entries(prefer)) if (name in props || schema.additionalProperties !== false) out[name] = value;
      if (!Object.keys(out).length && typeof schema.minProperties === 'number' && schema.minProperties > 0) {
        const [first] = Object.keys(props);
        if (first) out[first] = exampleOf(props[first]);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(1, Number(schema.minItems ?? 1));
      const item = exampleOf(schema.items as Schema);
      return Array.from({ length: n }, () => item);
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default: {
      if (schema.format === 'email') return 'probe@attacker.example';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://attacker.example/probe';
      if (schema.format === 'date') return '2030-01-01';
      if (schema.format === 'date-time') return '2030-01-01T00:00:00.000Z';
      const min = Number(schema.minLength ?? 1);
      const max = Number(schema.maxLength ?? 64);
      return 'probe-value-'.repeat(Math.ceil(min / 12) || 1).slice(0, Math.max(min, Math.min(max, 12)));
    }
  }
}

/**
 * A digest of every document of every collection (sorted by id), fields named in `volatile`
 * (per collection, or '*' for all) left out: two equal fingerprints mean nothing was written.
 */
export async function databaseFingerprint(connection: Connection, volatile: Record<string, string[]> = {}): Promise<Map<string, string>> {
  const db = connection.db!;
  const out = new Map<string, string>();
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of names) {
    if (name.startsWith('system.')) continue;
    const drop = new Set([...(volatile[name] ?? []), ...(volatile['*'] ?? [])]);
    const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
    const hash = createHash('sha256');
    for (const doc of docs) hash.update(JSON.stringify(doc, (k, v: unknown) => (drop.has(k) ? undefined : v)));
    out.set(name, `${docs.length}:${hash.digest('base64url').slice(0, 16)}`);
  }
  return out;
}

/** The collections whose fingerprint differs (added, removed or changed). */
export function changedCollections(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((name) => before.get(name) !== after.get(name)).sort();
}
