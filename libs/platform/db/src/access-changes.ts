/**
 * Changes to what decides access, announced from the data layer itself: every write through our
 * models to credentials, publishers, program memberships or programs calls the connection's
 * listeners after the write and before the write call returns. Whoever caches principals (the
 * auth lib) subscribes; no write path can forget to tell it, whichever process makes the change.
 * Writes to the catalog (products, merchant names) are announced the same way as `catalog`, for
 * caches of catalog answers.
 */
import type { Connection, Model, Query, Schema } from 'mongoose';

/**
 * Accounts whose access may have changed; `programs`: a program's status or terms; `all`: unknown
 * scope; `catalog`: products or merchant names (no access change).
 */
export type AccessChange = { accounts: string[] } | 'programs' | 'all' | 'catalog';
export type AccessChangeListener = (change: AccessChange) => Promise<void> | void;

const listeners = new WeakMap<Connection, Set<AccessChangeListener>>();

/** Calls `listener` after every access-relevant write on this connection; returns the unsubscribe. */
export function onAccessChange(conn: Connection, listener: AccessChangeListener): () => void {
  let set = listeners.get(conn);
  if (!set) listeners.set(conn, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

async function announce(conn: Connection | undefined, change: AccessChange): Promise<void> {
  const set = conn && listeners.get(conn);
  if (!set?.size) return;
  if (typeof change === 'object' && !change.accounts.length) return;
  // A listener that fails fails the write call (the data is written; the caller must know the
  // announcement was not made, so an operator retries instead of trusting a stale cache).
  await Promise.all([...set].map((l) => l(change)));
}

/** Account ids named by a filter or document field: a string, or `$in` of strings. */
function idsIn(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object' && Array.isArray((value as { $in?: unknown }).$in)) {
    const list = (value as { $in: unknown[] }).$in;
    if (list.every((v) => typeof v === 'string')) return list as string[];
  }
  return undefined;
}

const QUERY_WRITES = ['updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace'] as const;
type AnyQuery = Query<unknown, unknown> & { model: Model<unknown> };

/**
 * Registers the announcing hooks on one schema (the owning domain lib calls it beside the schema).
 * `accountField` names the field that holds the account id (`_id` for publishers); `resolveByIds`
 * maps a filter without it to account ids (credentials changed by their own id).
 */
export function announceAccessChanges(schema: Schema, scope: 'programs' | 'catalog' | { accountField: string; resolveByIds?: boolean }): void {
  const accountsOf = (docs: Array<Record<string, unknown>>): AccessChange => {
    if (typeof scope === 'string') return scope;
    const ids = docs.map((d) => d[scope.accountField]).filter((v): v is string => typeof v === 'string');
    return { accounts: [...new Set(ids)] };
  };
  schema.post('save', async function (this: { constructor: { db?: Connection } } & Record<string, unknown>) {
    await announce((this.constructor as Model<unknown>).db, accountsOf([this]));
  });
  schema.post('insertMany', async function (this: Model<unknown>, docs: unknown) {
    await announce(this.db, accountsOf(docs as Array<Record<string, unknown>>));
  });
  schema.post('bulkWrite', async function (this: Model<unknown>) {
    await announce(this.db, typeof scope === 'string' ? scope : 'all');
  });
  for (const op of QUERY_WRITES) {
    schema.post(op, async function (this: AnyQuery, res: unknown) {
      const conn = this.model.db;
      if (typeof scope === 'string') return announce(conn, scope);
      const filter = this.getFilter() as Record<string, unknown>;
      const named = idsIn(filter[scope.accountField]);
      if (named) return announce(conn, { accounts: named });
      const returned = res && typeof res === 'object' && scope.accountField in res ? (res as Record<string, unknown>)[scope.accountField] : undefined;
      if (typeof returned === 'string') return announce(conn, { accounts: [returned] });
      const byIds = scope.resolveByIds ? (idsIn(filter._id) ?? (filter._id !== undefined ? [String(filter._id)] : undefined)) : undefined;
      if (byIds) {
        const rows = (await this.model.find({ _id: { $in: byIds } }, { [scope.accountField]: 1 }).lean()) as Array<Record<string, unknown>>;
        return announce(conn, accountsOf(rows));
      }
      return announce(conn, 'all');
    });
  }
}

/**
 * The access change a raw write to a collection makes, for a database that reports its writes
 * itself (the embedded engine's change observer): undefined when the collection decides no access.
 */
export function accessChangeOfWrite(collection: string, doc: Record<string, unknown> | undefined): AccessChange | undefined {
  const account = (v: unknown): AccessChange => (typeof v === 'string' ? { accounts: [v] } : 'all');
  switch (collection) {
    case 'publishers':
      return doc ? account(doc._id) : 'all';
    case 'credentials':
    case 'program_memberships':
      return doc ? account(doc.publisher_id) : 'all';
    case 'account_members':
      return doc ? account(doc.account_id) : 'all';
    case 'oauth_records':
      // A removed record may be a revoked grant (whose account the removal does not tell): every
      // stamp moves. Writes that add or change records (tokens, codes, sessions) decide no access.
      return doc ? undefined : 'all';
    case 'programs':
      return 'programs';
    case 'products':
    case 'merchants':
      return 'catalog';
    default:
      return undefined;
  }
}
