/**
 * A domain's data: the schemas and collections one domain lib owns, registered on a connection,
 * behind the handle that lib builds over them. The handle's methods are what other libs may ask of
 * that data; the models themselves stay inside the owning lib (it alone holds the accessor), so a
 * lib reads another domain's data only through that domain's exported functions.
 *
 * The write guards every model carries (shard-key routing, `./sharding.ts`; the request's query
 * budget, `./query-budget.ts`) are put on each schema here, once, before any connection compiles
 * a model from it.
 */
import type { Connection, Model, Schema } from 'mongoose';
import { applyQueryBudget } from './query-budget';
import { guardShardKeyWrites } from './sharding';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry of models of any document type
export type AnyModel = Model<any>;
/** Models by name (an interface of `Model`s): what the migration, the index check and the sharding walk. */
export type ModelSet = object;

/** Each model's schema and collection name, by model name. */
export type Collections<M extends ModelSet> = { [K in keyof M]: readonly [Schema, string] };

export interface Domain<N extends string, M extends ModelSet, H> {
  readonly name: N;
  readonly collections: Collections<M>;
  /** Registers the domain's models on `conn` (once per connection) and builds its handle over them. */
  open(conn: Connection): { models: M; handle: H };
}

export function defineDomain<N extends string, M extends ModelSet, H>(
  name: N,
  collections: NoInfer<Collections<M>>,
  handle: (models: M, conn: Connection) => H,
): Domain<N, M, H> {
  for (const [schema, collection] of Object.values(collections) as Array<readonly [Schema, string]>) {
    guardShardKeyWrites(schema, collection);
    applyQueryBudget(schema);
  }
  return {
    name,
    collections,
    open(conn) {
      const models = Object.fromEntries(
        (Object.entries(collections) as Array<[string, readonly [Schema, string]]>).map(([model, [schema, collection]]) => [
          model,
          conn.models[model] ?? conn.model(model, schema, collection),
        ]),
      ) as M;
      return { models, handle: handle(models, conn) };
    },
  };
}

/** A domain's handle: what other libs hold of its data (its lib adds the methods they may call). */
export interface DomainHandle {
  readonly domain: string;
}

/**
 * Where one domain's models are kept so that only its own lib can open them: the lib's handle
 * class extends `DomainHandle` (built with the models), and `open(handle)`, kept inside the lib and
 * never exported from its package, gives them back. Other libs hold the handle and call its methods.
 */
export function modelVault<M extends ModelSet>(domain: string): { DomainHandle: new (models: M) => DomainHandle; open: (handle: DomainHandle) => M } {
  const vault = new WeakMap<DomainHandle, M>();
  class Handle implements DomainHandle {
    readonly domain = domain;
    constructor(models: M) {
      vault.set(this, models);
    }
  }
  return {
    DomainHandle: Handle,
    open: (handle) => {
      const models = vault.get(handle);
      if (!models) throw new Error(`not a ${domain} handle`);
      return models;
    },
  };
}
