/**
 * Each domain owns its data: the composition root registers every domain's models on a connection,
 * and what it hands to use cases (`data`) are handles whose models only the owning lib can open.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import mongoose, { Model } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlatformData } from './platform-data';

// A connection that never connects: models compile and handles build without a server.
const conn = mongoose.createConnection('mongodb://127.0.0.1:1/none', { serverSelectionTimeoutMS: 300, bufferCommands: false });
conn.on('error', () => undefined);
conn.asPromise().catch(() => undefined);
afterAll(() => conn.close());

const libs = resolve(import.meta.dirname, '../../..');
/** Every lib of the platform and domain layers, by package name, read from the tree (a new lib is found, not listed). */
const LIB_PACKAGES = ['platform', 'domains'].flatMap((layer) =>
  readdirSync(resolve(libs, layer)).map((dir) => (JSON.parse(readFileSync(resolve(libs, layer, dir, 'package.json'), 'utf8')) as { name: string }).name),
);
const isDomain = (v: unknown): v is { name: string; open: unknown } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { name?: unknown }).name === 'string' &&
  typeof (v as { open?: unknown }).open === 'function' &&
  'collections' in v;

/** Each package that exports a domain (its data), by the domain's name. */
let PACKAGES: Record<string, Record<string, unknown>>;
beforeAll(async () => {
  PACKAGES = {};
  for (const name of LIB_PACKAGES) {
    const pkg = (await import(name)) as Record<string, unknown>;
    const domain = Object.values(pkg).find(isDomain);
    if (domain) PACKAGES[domain.name] = pkg;
  }
}, 60_000);

/**
 * The one exception: the libs split out of the conversions lib still read conversion rows (and the
 * reports the feed's rows) themselves, through these accessors, which the lint refuses outside that
 * family (decision record 0047).
 */
const FAMILY_ACCESSORS: Record<string, string[]> = { conversions: ['conversionsModels'], eventsFeed: ['eventsFeedModels'] };

describe('domain data', () => {
  it('hands use cases one handle per domain, every domain a lib exports registered, none of which exposes a model', () => {
    const { data } = openPlatformData(conn);
    expect(Object.keys(PACKAGES)).toContain('links');
    expect(Object.keys(data).sort()).toEqual(Object.keys(PACKAGES).sort());
    for (const [name, handle] of Object.entries(data)) {
      const reachable = [...Object.values(handle as object), ...Object.getOwnPropertyNames(Object.getPrototypeOf(handle))];
      expect(
        reachable.filter((v) => v instanceof Model || (typeof v === 'function' && (v as { prototype?: unknown }).prototype instanceof Model)),
        name,
      ).toEqual([]);
    }
  });

  it('no domain package exports the accessor of its models (other libs read through the handle), but for the conversions family', () => {
    for (const [name, pkg] of Object.entries(PACKAGES)) {
      expect(
        Object.keys(pkg).filter((k) => /models$/i.test(k)),
        name,
      ).toEqual(FAMILY_ACCESSORS[name] ?? []);
    }
  });

  it('registers each collection once, under one domain, and opening again reuses the models', () => {
    const first = openPlatformData(conn);
    const second = openPlatformData(conn);
    const collections = Object.values(first.models).map((m) => (m as Model<unknown>).collection.collectionName);
    expect(new Set(collections).size).toBe(collections.length);
    for (const [name, model] of Object.entries(first.models)) expect(second.models[name as keyof typeof second.models], name).toBe(model);
  });
});
