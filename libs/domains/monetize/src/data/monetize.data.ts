/** The instant-monetization domain's data: applications (provisional accounts, their secret hashes, profiles and claims). The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { monetizeApplicationSchema, type MonetizeApplicationDoc } from './monetize-application.schema';

export interface MonetizeModels {
  MonetizeApplication: Model<MonetizeApplicationDoc>;
}

const { DomainHandle, open } = modelVault<MonetizeModels>('monetize');

export class MonetizeData extends DomainHandle {}

/** The monetize lib's own models (not exported from the lib). */
export const monetizeModels = (data: MonetizeData): MonetizeModels => open(data);

export const monetizeDomain = defineDomain(
  'monetize',
  { MonetizeApplication: [monetizeApplicationSchema, 'monetize_applications'] },
  (m: MonetizeModels) => new MonetizeData(m),
);
