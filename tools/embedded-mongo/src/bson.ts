/**
 * The engine's bson: the package's CommonJS build, the one the MongoDB driver loads, so the
 * process holds one copy of bson (an ESM import would load the package's second, ESM build).
 */
import { createRequire } from 'node:module';

const bson = createRequire(import.meta.url)('bson') as typeof import('bson');

export const {
  Binary,
  BSONRegExp,
  calculateObjectSize,
  Decimal128,
  deserialize,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  serializeWithBufferAndIndex,
  Timestamp,
  UUID,
} = bson;
export type Binary = import('bson').Binary;
export type BSONRegExp = import('bson').BSONRegExp;
export type Decimal128 = import('bson').Decimal128;
export type Long = import('bson').Long;
export type MaxKey = import('bson').MaxKey;
export type MinKey = import('bson').MinKey;
export type ObjectId = import('bson').ObjectId;
export type Timestamp = import('bson').Timestamp;
export type UUID = import('bson').UUID;
export type { Document } from 'bson';
