/** The inquiries domain's data: missing-sale inquiries. Other domains reach it through `InquiriesData`'s methods. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { inquirySchema, type InquiryDoc, type InquiryRecord } from './inquiry.schema';

/** An inquiry just decided (by its merchant, an operator or the window): what its listeners are told. */
export interface InquiryNotice {
  kind: 'inquiry_decided';
  publisherId: string;
  inquiry: InquiryRecord;
}

export interface InquiriesModels {
  Inquiry: Model<InquiryDoc>;
}

const { DomainHandle, open } = modelVault<InquiriesModels>('inquiries');

export class InquiriesData extends DomainHandle {
  #onDecided: Array<(notice: InquiryNotice) => Promise<void>> = [];

  /**
   * Tells `listener` of each inquiry decided from now on, whichever process decides it (the
   * composition root: the owners' mail, @cw/notifications). This lib knows no people.
   */
  onDecided(listener: (notice: InquiryNotice) => Promise<void>): void {
    this.#onDecided.push(listener);
  }

  /** Called once a decision is stored; a listener's failure never undoes or fails the decision. */
  async decided(notice: InquiryNotice): Promise<void> {
    for (const listener of this.#onDecided) await listener(notice).catch(() => undefined);
  }

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
