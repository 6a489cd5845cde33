/**
 * Indexes are a deploy step, not a boot step: `npm run admin -- db:migrate` creates every index
 * the models declare, changes a TTL's seconds in place (collMod) and rebuilds one whose other options changed (and, with `dropUndeclared`, drops
 * the ones no model declares), one progress line per index; services only verify at start that
 * what they need exists (`verifyIndexes`), and refuse to serve naming what is missing. On a
 * sharded cluster index builds behind a booting service are refused anyway. The local platform
 * and the tests run the same migration. With `shard` (on a mongos), collections are first sharded as
 * the shard-key table says (./sharding.ts, docs/scaling.md).
 */
import type { Model } from 'mongoose';
import type { ModelSet as Models } from './domain';
import { SHARD_KEYS } from './sharding';

type IndexKey = Record<string, number | string>;
interface IndexOptions {
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Record<string, unknown>;
  name?: string;
}

export interface DeclaredIndex {
  collection: string;
  key: IndexKey;
  options: IndexOptions;
}

export interface IndexStep {
  collection: string;
  index: string;
  action: 'created' | 'rebuilt' | 'modified' | 'dropped' | 'present' | 'sharded';
}

/** The options that make two indexes on the same key different. */
const MEANINGFUL = ['unique', 'sparse', 'expireAfterSeconds', 'partialFilterExpression'] as const;

const nameOf = (key: IndexKey, options: IndexOptions) =>
  options.name ??
  Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
const sameKey = (a: IndexKey, b: IndexKey) => JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
const sameOptions = (a: IndexOptions, b: IndexOptions) =>
  MEANINGFUL.every(
    (o) =>
      JSON.stringify(a[o] ?? (o === 'unique' || o === 'sparse' ? false : null)) === JSON.stringify(b[o] ?? (o === 'unique' || o === 'sparse' ? false : null)),
  );

/** Every index the models declare (the `_id` index aside), per collection. */
export function declaredIndexes(models: Models): DeclaredIndex[] {
  return Object.values(models).flatMap((m) => {
    const model = m as Model<unknown>;
    return model.schema
      .indexes()
      .map(([key, options]) => ({ collection: model.collection.collectionName, key: key as IndexKey, options: (options ?? {}) as IndexOptions }));
  });
}

async function existingIndexes(model: Model<unknown>): Promise<Array<{ key: IndexKey; name: string } & IndexOptions>> {
  try {
    return (await model.collection.listIndexes().toArray()) as Array<{ key: IndexKey; name: string } & IndexOptions>;
  } catch (e) {
    if ((e as { codeName?: string }).codeName === 'NamespaceNotFound' || (e as { code?: number }).code === 26) return [];
    throw e;
  }
}

/** What is missing or different: each declared index the database lacks, as `collection {key}` (empty: ready). */
export async function verifyIndexes(models: Models): Promise<string[]> {
  const missing: string[] = [];
  for (const m of Object.values(models)) {
    const model = m as Model<unknown>;
    const existing = await existingIndexes(model);
    for (const [key, options] of model.schema.indexes() as Array<[IndexKey, IndexOptions]>) {
      const found = existing.find((e) => sameKey(e.key, key));
      if (!found || !sameOptions(found, options ?? {}))
        missing.push(`${model.collection.collectionName} ${JSON.stringify(key)}${found ? ' (options differ)' : ''}`);
    }
  }
  return missing;
}

/** Creates what is missing, rebuilds what differs, drops the undeclared when asked; reports each index. */
export async function migrateIndexes(models: Models, opts: { dropUndeclared?: boolean; onStep?: (step: IndexStep) => void } = {}): Promise<IndexStep[]> {
  const steps: IndexStep[] = [];
  const step = (s: IndexStep) => {
    steps.push(s);
    opts.onStep?.(s);
  };
  for (const m of Object.values(models)) {
    const model = m as Model<unknown>;
    const collection = model.collection.collectionName;
    await model.createCollection().catch((e: { code?: number }) => {
      if (e.code !== 48) throw e; // 48: it exists already
    });
    const existing = await existingIndexes(model);
    const declared = model.schema.indexes() as Array<[IndexKey, IndexOptions]>;
    for (const [key, options = {}] of declared) {
      const found = existing.find((e) => sameKey(e.key, key));
      if (found && sameOptions(found, options)) {
        step({ collection, index: found.name, action: 'present' });
        continue;
      }
      // Only a TTL's seconds changed: collMod changes it in place (no rebuild, no window without the index).
      if (
        found &&
        found.expireAfterSeconds !== undefined &&
        options.expireAfterSeconds !== undefined &&
        sameOptions({ ...found, expireAfterSeconds: options.expireAfterSeconds }, options)
      ) {
        await model.db.db!.command({ collMod: collection, index: { name: found.name, expireAfterSeconds: options.expireAfterSeconds } });
        step({ collection, index: found.name, action: 'modified' });
        continue;
      }
      if (found) await model.collection.dropIndex(found.name);
      const name = await model.collection.createIndex(key as never, { ...options, name: nameOf(key, options) });
      step({ collection, index: name, action: found ? 'rebuilt' : 'created' });
    }
    if (opts.dropUndeclared) {
      for (const e of existing) {
        if (e.name === '_id_' || declared.some(([key]) => sameKey(key, e.key))) continue;
        await model.collection.dropIndex(e.name);
        step({ collection, index: e.name, action: 'dropped' });
      }
    }
  }
  return steps;
}

/** `db:migrate --shard` was run against a server that is not a mongos. */
export class NotShardedClusterError extends Error {}

/**
 * Shards every collection the shard-key table shards (docs/scaling.md), before its indexes are
 * built: on a mongos only. Already sharded on the same key is no change (MongoDB answers ok).
 */
export async function shardCollections(models: Models, opts: { onStep?: (step: IndexStep) => void } = {}): Promise<IndexStep[]> {
  const db = (Object.values(models)[0] as Model<unknown>).db.db!;
  const admin = db.admin();
  const hello = (await admin.command({ hello: 1 })) as { msg?: string };
  if (hello.msg !== 'isdbgrid') throw new NotShardedClusterError("--shard needs a mongos (a sharded cluster's router): this server is not one");
  await admin.command({ enableSharding: db.databaseName });
  const steps: IndexStep[] = [];
  for (const [collection, plan] of Object.entries(SHARD_KEYS)) {
    if (!('key' in plan)) continue;
    await admin.command({ shardCollection: `${db.databaseName}.${collection}`, key: plan.key });
    const step: IndexStep = {
      collection,
      index: Object.entries(plan.key)
        .map(([k, v]) => `${k}_${v}`)
        .join('_'),
      action: 'sharded',
    };
    steps.push(step);
    opts.onStep?.(step);
  }
  return steps;
}
