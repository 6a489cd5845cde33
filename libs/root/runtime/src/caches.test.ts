/**
 * One cache abstraction (docs/decisions/0045-one-cache-abstraction.md): every namespace a process
 * builds is declared, and docs/caches.md's table says what the declarations say.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import mongoose from 'mongoose';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheTableRows, readMarkdownTable, registerCacheMetrics, renderCacheTable } from '@cw/cache';
import { loadConfig } from '@cw/config';
import { MemoryAccessVersions } from '@cw/auth';
import { openPlatformData } from './platform-data';
import { createPlatformCaches, PLATFORM_CACHES, platformNamespaces } from './service-deps';

const root = resolve(import.meta.dirname, '../../../..');

// A connection that never connects: handles build without a server.
const conn = mongoose.createConnection('mongodb://127.0.0.1:1/none', { serverSelectionTimeoutMS: 300, bufferCommands: false });
conn.on('error', () => undefined);
conn.asPromise().catch(() => undefined);
afterAll(() => conn.close());

describe('the caches of a process', () => {
  it('are each a declared namespace, named once', () => {
    const config = loadConfig({ NODE_ENV: 'test' }, { port: 0 });
    const { data } = openPlatformData(conn);
    const built = platformNamespaces(createPlatformCaches(config, new MemoryAccessVersions()), data).map((n) => n.name);
    expect(new Set(built).size).toBe(built.length);
    expect(built.sort()).toEqual(PLATFORM_CACHES.map((s) => s.name).sort());
  });

  it('each show at /metrics under their namespace', async () => {
    const config = loadConfig({ NODE_ENV: 'test' }, { port: 0 });
    const registry = new Registry();
    const namespaces = platformNamespaces(createPlatformCaches(config, new MemoryAccessVersions()), openPlatformData(conn).data);
    registerCacheMetrics(registry, () => namespaces);
    const text = await registry.metrics();
    for (const { name } of PLATFORM_CACHES) {
      expect(text).toContain(`cache_entries{namespace="${name}"} 0`);
      expect(text).toContain(`cache_events_total{namespace="${name}",event="hit"} 0`);
    }
  });

  it('take their bounds and expiry from config where a setting names them, with the declared defaults', () => {
    const config = loadConfig({ NODE_ENV: 'test' }, { port: 0 });
    const caches = createPlatformCaches(config, new MemoryAccessVersions());
    expect(caches.productPages.pages.maxEntries).toBe(config.productPageCacheEntries);
    expect(caches.productPages.pages.freshMs).toBe(config.productPageCacheMaxAgeMs);
    expect(caches.productRows.rows.maxEntries).toBe(config.productRowCacheEntries);
    expect(caches.productPages.pages.spec.maxEntries).toBe(config.productPageCacheEntries);
    expect(caches.productPages.pages.spec.freshMs).toBe(config.productPageCacheMaxAgeMs);
    expect(caches.productRows.rows.spec.maxEntries).toBe(config.productRowCacheEntries);
  });

  it('are the table of docs/caches.md, row for row', () => {
    const doc = readFileSync(resolve(root, 'docs/caches.md'), 'utf8');
    const table = readMarkdownTable(doc, '## Namespaces');
    expect(table, `docs/caches.md's table should read:\n\n${renderCacheTable(PLATFORM_CACHES)}\n`).toEqual(cacheTableRows(PLATFORM_CACHES));
  });
});
