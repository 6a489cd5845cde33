/** The idempotency lib's data: one record per (account, method, route, key), with the first completed answer. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { idempotencySchema, type IdempotencyDoc } from './idempotency.schema';

export interface IdempotencyModels {
  Idempotency: Model<IdempotencyDoc>;
}

const { DomainHandle, open } = modelVault<IdempotencyModels>('idempotency');

export class IdempotencyData extends DomainHandle {}

/** The idempotency lib's own models (not exported from the lib). */
export const idempotencyModels = (data: IdempotencyData): IdempotencyModels => open(data);

export const idempotencyDomain = defineDomain(
  'idempotency',
  { Idempotency: [idempotencySchema, 'idempotency_keys'] },
  (m: IdempotencyModels) => new IdempotencyData(m),
);
