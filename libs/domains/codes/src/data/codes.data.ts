/** The codes domain's data: publishers' personal coupon codes. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { normaliseCode } from '../code-rules';
import { codeSchema, type CodeDoc, type CodeRow } from './code.schema';

export interface CodesModels {
  Code: Model<CodeDoc>;
}

const { DomainHandle, open } = modelVault<CodesModels>('codes');

/** What other domains may ask of codes: who holds an active code at a merchant (the sales core's intake). */
export class CodesData extends DomainHandle {
  private get models(): CodesModels {
    return open(this);
  }

  /** The active code a shopper typed at this merchant's checkout (any case), or null. */
  async activeAt(merchantId: number, typed: string): Promise<Pick<CodeRow, '_id' | 'publisher_id' | 'program_id' | 'merchant_id'> | null> {
    const key = normaliseCode(typed);
    if (!key) return null;
    return this.models.Code.findOne({ merchant_id: merchantId, key, status: 'active' }, { publisher_id: 1, program_id: 1, merchant_id: 1 }).lean<
      Pick<CodeRow, '_id' | 'publisher_id' | 'program_id' | 'merchant_id'>
    >();
  }
}

/** The codes lib's own models (not exported from the lib). */
export const codesModels = (data: CodesData): CodesModels => open(data);

export const codesDomain = defineDomain('codes', { Code: [codeSchema, 'codes'] }, (m: CodesModels) => new CodesData(m));
