/**
 * Requests generated from served OpenAPI documents (fast-check): for every operation, valid and
 * invalid values for every parameter and body member, unknown and repeated parameters, wrong
 * types, huge and empty strings, hostile Unicode, numbers at and past their bounds, wrong
 * methods and content types. A route is fuzzed by being in its document: nothing here names one.
 */
import fc from 'fast-check';
import { resolvedSchema } from './openapi-conformance';

type Schema = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  'x-status-in-envelope'?: boolean;
}

export interface FuzzOperation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  /** The security schemes the operation names (empty: public). */
  security: string[];
  /** What the document promises: per status, per media type, the body's schema (no media type: no body). */
  responses: Record<string, Record<string, Schema | undefined>>;
  /** Every request to the path is answered HTTP 200 with its real status inside the body (HasOffers' envelope). */
  statusInEnvelope: boolean;
}

export interface FuzzCase {
  method: string;
  /** Path with its parameters filled in, and the query string. */
  url: string;
  body?: string;
  contentType?: string;
  /** Which credential the caller uses (an index into the caller's credential list) and how. */
  credential: number;
  scheme: 'x-api-key' | 'bearer';
  /** The operation the request was generated for (its method may have been swapped for another). */
  operation: FuzzOperation;
}

/** Every operation of the documents. */
export function operationsOf(docs: OpenApiDocument[]): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const doc of docs) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        out.push({
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          body: op.requestBody?.content?.['application/json']?.schema,
          security: (op.security ?? []).flatMap((r) => Object.keys(r)),
          statusInEnvelope: op['x-status-in-envelope'] === true,
          responses: Object.fromEntries(
            Object.entries(op.responses ?? {}).map(([status, r]) => [
              status,
              Object.fromEntries(Object.entries(r.content ?? {}).map(([t, c]) => [t, c.schema && resolvedSchema(doc, c.schema)])),
            ]),
          ),
        });
      }
    }
  }
  return out;
}

/** Strings that break naive code: NUL, controls, RTL overrides, emoji, combining marks, overlong-looking bytes, injection shapes. */
const HOSTILE = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202Egnp.exe',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301',
  '\uFEFF',
  '%00',
  '%C0%AF',
  '../../etc/passwd',
  '{"$gt":""}',
  '$where',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '=cmd|calc!A1',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '9'.repeat(40),
  '__proto__',
  'constructor',
  '\t\r\n',
);

const hugeString = fc.integer({ min: 1000, max: 3000 }).map((n) => 'x'.repeat(n));
const hugeBodyString = fc.integer({ min: 100_000, max: 300_000 }).map((n) => 'y'.repeat(n));

function patternArb(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return fc.string();
  }
}

/** A value the schema accepts (as far as a generator can tell: patterns, enums, bounds). */
export function validValue(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.string({ maxLength: 10 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as Schema[]).map((s) => validValue(s, depth + 1)));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => validValue(s, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : (schema.type as string | undefined);
  switch (type) {
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }));
    }
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
      return fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = validValue(schema.items as Schema | undefined, depth + 1);
      return fc.array(items, { minLength: (schema.minItems as number) ?? 0, maxLength: Math.min((schema.maxItems as number) ?? 5, 5) });
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[]) ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) model[k] = validValue(s, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    default: {
      if (schema.format === 'date')
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      if (schema.format === 'date-time')
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
      if (typeof schema.pattern === 'string') return patternArb(schema.pattern);
      const minLength = (schema.minLength as number) ?? 0;
      const maxLength = Math.min((schema.maxLength as number) ?? 40, 200);
      return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
    }
  }
}

/** A value the schema should refuse, or a hostile one it may accept. */
export function invalidValue(schema: Schema | undefined, inBody: boolean): fc.Arbitrary<unknown> {
  const bounds: unknown[] = [];
  if (schema && typeof schema.minimum === 'number') bounds.push(schema.minimum - 1, schema.minimum - 0.5);
  if (schema && typeof schema.maximum === 'number') bounds.push(schema.maximum + 1, schema.maximum + 0.5);
  if (schema && typeof schema.maxLength === 'number') bounds.push('z'.repeat(schema.maxLength + 1));
  const options: Array<fc.Arbitrary<unknown>> = [
    HOSTILE,
    inBody ? hugeBodyString : hugeString,
    fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53 + 1, -1e308, 1.5, true, false, null),
    fc.string({ unit: 'binary', maxLength: 30 }),
  ];
  if (bounds.length) options.push(fc.constantFrom(...bounds));
  if (inBody) options.push(fc.constantFrom({}, [], [[[[[]]]]], { $gt: '' }, { __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"x":1}}')));
  return fc.oneof(...options);
}

function encode(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
  try {
    return encodeURIComponent(s);
  } catch {
    // Lone surrogates: send the bytes percent-encoded as they are.
    return escape(s);
  }
}

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * One request for one operation: mostly well-formed, every part sometimes broken. `fitting`
 * gives the credential (index) the operation's security asks for, used half of the time so that
 * requests get past authentication; otherwise any of the `credentials`.
 */
export function caseFor(op: FuzzOperation, credentials: number, fitting: (op: FuzzOperation) => number = () => 0): fc.Arbitrary<FuzzCase> {
  const paramArb = (p: Parameter) =>
    fc.oneof({ weight: 3, arbitrary: validValue(p.schema) }, { weight: 1, arbitrary: invalidValue(p.schema, false) }).map((v) => [p.name, v] as const);
  const query = op.parameters.filter((p) => p.in === 'query');
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryArb = fc
    .tuple(
      fc.subarray(query).chain((chosen) => fc.tuple(...chosen.map(paramArb))),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant([] as Array<[string, string]>) },
        {
          weight: 1,
          arbitrary: fc.array(fc.tuple(fc.constantFrom('unknown', 'x', 'limit', 'page', '__proto__', 'a[b]', 'a[]'), fc.string({ maxLength: 8 })), {
            minLength: 1,
            maxLength: 2,
          }),
        },
      ),
      fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    )
    .map(([pairs, extra, repeat]) => {
      const all: Array<readonly [string, unknown]> = [...pairs, ...extra];
      if (repeat && pairs.length) all.push(pairs[0]);
      return all.map(([k, v]) => `${encodeURIComponent(k)}=${encode(v)}`).join('&');
    });
  const pathArb = fc.tuple(...pathParams.map(paramArb)).map((pairs) => {
    let path = op.path;
    // An empty segment, or a dot segment (".", "..", "%2e"), cannot reach the route as an id:
    // every URL parser removes it (RFC 3986 5.2.4) and the request names the parent path.
    for (const [name, v] of pairs) path = path.replace(`{${name}}`, /^((\.|%2e){1,2})?$/i.test(encode(v)) ? 'x' : encode(v));
    return path;
  });
  const bodyArb: fc.Arbitrary<{ body?: string; contentType?: string }> = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: validValue(op.body).map((b) => ({ body: JSON.stringify(b), contentType: 'application/json' })) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(validValue(op.body), fc.string({ maxLength: 12 }), invalidValue(undefined, true))
            .map(([b, k, v]) => ({ body: JSON.stringify({ ...(b as object), [k || 'unknown']: v }), contentType: 'application/json' })),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            { body: '{"a":', contentType: 'application/json' },
            { body: '[]', contentType: 'application/json' },
            { body: 'null', contentType: 'application/json' },
            { body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
            { body: 'plain', contentType: 'text/plain' },
            { body: '{}', contentType: 'application/xml' },
            { body: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' },
            { body: undefined, contentType: undefined },
          ),
        },
      )
    : fc.constantFrom({ body: undefined, contentType: undefined }, { body: '{"x":1}', contentType: 'application/json' });
  return fc
    .record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom(...methods) }),
      path: pathArb,
      query: queryArb,
      body: bodyArb,
      credential: fc.oneof(fc.constant(fitting(op)), fc.integer({ min: 0, max: credentials - 1 })),
      scheme: fc.constantFrom('x-api-key' as const, 'bearer' as const),
      slash: fc.boolean(),
    })
    .map((c) => {
      const path = c.slash ? c.path : c.path.replace(/\/$/, '');
      return {
        method: c.method,
        url: c.query ? `${path}?${c.query}` : path,
        body: c.method === 'GET' || c.method === 'OPTIONS' ? undefined : c.body.body,
        contentType: c.method === 'GET' || c.method === 'OPTIONS' ? undefined : c.body.contentType,
        credential: c.credential,
        scheme: c.scheme,
        operation: op,
      };
    });
}

/** A request for any operation of the documents. */
export function anyCase(ops: FuzzOperation[], credentials: number, fitting?: (op: FuzzOperation) => number): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...ops.map((op) => caseFor(op, credentials, fitting)));
}
