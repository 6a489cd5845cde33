/**
 * The API reference's examples are real: every documented operation is called on a fresh demo
 * platform (tools/dev-stack/src/openapi-examples.ts, which also writes the examples the documents
 * carry) and must answer 2xx with a status, media type and body its document declares; and every
 * answer of every served document carries an example that holds to its schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, operationsOf, resolvedSchema, schemaErrors, type OpenApiDocument } from '@cw-tools/testing';
import { recordExamples, type Recorded } from '../src/openapi-examples';
import { startPlatform, type Platform } from './support/test-platform';

const DOCS = ['publisher', 'affiliate-reporting', 'monetize', 'feeds', 'track'].map((p) => `/api/v1/${p}/openapi.json`);

type Doc = OpenApiDocument & {
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Record<string, unknown>; example?: unknown }> }> }>
  >;
};

let platform: Platform;
let docs: Doc[];
let recorded: Recorded[];

beforeAll(async () => {
  platform = await startPlatform({
    env: { PORT: String(await freePort()), NODE_ENV: 'test', LOG_LEVEL: 'silent', FEATURE_TRENDING: 'true' },
    seedProducts: 400,
    credentialsPath: null,
  });
  docs = await Promise.all(DOCS.map(async (path) => (await (await fetch(`${platform.url}${path}`)).json()) as Doc));
  recorded = await recordExamples(platform.url, platform.credentials!);
}, 120_000);
afterAll(async () => platform?.stop());

const operations = () =>
  docs.flatMap((doc) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ doc, path, method, op }))));

describe('API reference examples', () => {
  it('calls every documented operation on the demo data and gets a declared 2xx answer that holds to its schema', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.length).toBe(operationsOf(docs).length);
    expect([...new Set(recorded.map((r) => r.operationId))].sort()).toEqual([...ids].sort());
    for (const r of recorded) {
      const { doc, op } = operations().find((o) => o.op.operationId === r.operationId)!;
      const content = op.responses[String(r.status)]?.content;
      expect(content, `${r.operationId} answered ${r.status}, which it does not declare`).toBeDefined();
      expect(Object.keys(content!), `${r.operationId} ${r.status}`).toContain(r.contentType);
      if (typeof r.body !== 'string')
        expect(schemaErrors(resolvedSchema(doc, content![r.contentType]!.schema), r.body), `${r.operationId} ${r.status}`).toBeUndefined();
    }
  });

  it('gives every answer of every served document an example that holds to its schema', () => {
    let checked = 0;
    for (const { doc, path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const where = `${method.toUpperCase()} ${path} ${status} ${type}`;
          expect(media.example, `${where} has no example`).toBeDefined();
          if (typeof media.example !== 'string') expect(schemaErrors(resolvedSchema(doc, media.schema), media.example), where).toBeUndefined();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});
