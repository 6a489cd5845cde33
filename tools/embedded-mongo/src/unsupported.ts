/**
 * Never silently wrong: what the engine does not implement is refused, never accepted and ignored.
 * A collation other than `simple` (binary comparison, what the engine does), views, time series, clustered and capped collections, validators, index types other than
 * ascending/descending/hashed and index options that change results are refused with
 * CommandNotSupported (115); what a 7.0 server itself refuses gets its error: `sort` on an update
 * statement (40415, an unknown field before 8.0), a `$`-prefixed field in `_id` (52).
 */
import type { Document } from './bson';
import { isPlainObject } from './documents';
import { MongoServerError } from './errors';

const notImplemented = (what: string) => new MongoServerError('CommandNotSupported', `${what} is not supported by the embedded engine`);

function checkCollation(where: string, collation: unknown): void {
  if (collation === undefined) return;
  if (isPlainObject(collation) && collation.locale === 'simple' && Object.keys(collation).length === 1) return;
  throw notImplemented(`${where}: collation ${JSON.stringify(collation)} (only {locale: 'simple'})`);
}

const CREATE_OPTIONS_REFUSED = [
  'viewOn',
  'pipeline',
  'timeseries',
  'clusteredIndex',
  'capped',
  'size',
  'max',
  'validator',
  'validationLevel',
  'validationAction',
  'changeStreamPreAndPostImages',
  'encryptedFields',
  'expireAfterSeconds',
] as const;

const INDEX_OPTIONS_REFUSED = [
  'hidden',
  'wildcardProjection',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'storageEngine',
] as const;

/** Refuses what `cmd` (a command named `name`) asks that the engine would otherwise ignore. */
export function refuseUnsupported(name: string, cmd: Document): void {
  switch (name) {
    case 'find':
    case 'aggregate':
    case 'count':
    case 'distinct':
      checkCollation(name, cmd.collation);
      return;
    case 'findAndModify':
    case 'findandmodify':
      checkCollation(name, cmd.collation);
      return;
    case 'update':
      for (const s of (cmd.updates ?? []) as Document[]) {
        checkCollation('update', s?.collation);
        if (s && s.sort !== undefined) throw new MongoServerError('Location40415', "BSON field 'update.updates.sort' is an unknown field.");
      }
      return;
    case 'delete':
      for (const s of (cmd.deletes ?? []) as Document[]) checkCollation('delete', s?.collation);
      return;
    case 'create':
      for (const o of CREATE_OPTIONS_REFUSED) if (cmd[o] !== undefined) throw notImplemented(`create: the '${o}' option`);
      checkCollation(name, cmd.collation);
      return;
    case 'createIndexes':
      for (const spec of (Array.isArray(cmd.indexes) ? cmd.indexes : []) as Document[]) {
        if (!spec || typeof spec !== 'object') continue;
        for (const o of INDEX_OPTIONS_REFUSED) if (spec[o] !== undefined) throw notImplemented(`createIndexes: the '${o}' index option`);
        checkCollation('createIndexes', spec.collation);
        for (const [field, type] of Object.entries((spec.key ?? {}) as Document)) {
          if (typeof type === 'string' && type !== 'hashed')
            throw new MongoServerError('CannotCreateIndex', `createIndexes: index type '${type}' is not supported by the embedded engine`);
          if (field.includes('$**'))
            throw new MongoServerError('CannotCreateIndex', 'createIndexes: wildcard indexes are not supported by the embedded engine');
        }
      }
      return;
    default:
  }
}

/** A 7.0 server refuses storing an `_id` that is (or holds) a document with `$`-prefixed field names. */
export function checkIdForStorage(id: unknown): void {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isPlainObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (k.startsWith('$'))
        throw new MongoServerError('DollarPrefixedFieldName', `_id fields may not contain '$'-prefixed fields: ${k} is not valid for storage.`);
      visit(x);
    }
  };
  visit(id);
}
