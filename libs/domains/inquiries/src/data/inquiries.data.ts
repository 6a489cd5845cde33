/** The inquiries domain's data: missing-sale inquiries. Other domains reach it through `InquiriesData`'s methods. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { inquirySchema, type InquiryDoc, type InquiryRecord } from './inquiry.schema';

export interface InquiriesModels {
  Inquiry: Model<InquiryDoc>;
}

const { DomainHandle, open } = modelVault<InquiriesModels>('inquiries');

export class InquiriesData extends DomainHandle {
  /** Inquiries with events the events feed has not taken yet (of one account, or any), at most `limit`. */
  pendingEvents(limit: number, publisherId?: string): Promise<InquiryRecord[]> {
    return open(this)
      .Inquiry.find({ events_pending: true, ...(publisherId ? { publisher_id: publisherId } : {}) })
      .limit(limit)
      .lean<InquiryRecord[]>();
  }

  /** The events feed took this inquiry's events up to `count` (a later event keeps it pending). */
  async eventsTaken(id: string, count: number): Promise<void> {
    await open(this).Inquiry.updateOne({ _id: id, events: { $size: count } }, { $unset: { events_pending: '' } });
  }
}

export const inquiriesModels = (data: InquiriesData): InquiriesModels => open(data);

export const inquiriesDomain = defineDomain('inquiries', { Inquiry: [inquirySchema, 'inquiries'] }, (m: InquiriesModels) => new InquiriesData(m));
