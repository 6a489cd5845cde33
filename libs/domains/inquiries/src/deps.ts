import type { AuditData } from '@cw/audit';
import type { ConversionsDeps } from '@cw/conversions';
import type { UseCaseDeps } from '@cw/usecase';
import { inquiriesModels, type InquiriesData, type InquiriesModels } from './data/inquiries.data';
import type { InquiryRecord } from './data/inquiry.schema';

/** What happened to an inquiry that its publisher's owners are told of (the composition root sends the mail; this lib knows no people). */
export interface InquiryNotice {
  kind: 'inquiry_decided';
  publisherId: string;
  inquiry: InquiryRecord;
}

/**
 * The inquiries' use cases: their own data, the sales core (a conversion an acceptance creates,
 * through the intake's own path; its clicks, links, programs and accounts), and the audit log.
 */
export type InquiriesDeps = UseCaseDeps<{ inquiries: InquiriesData; audit: AuditData } & ConversionsDeps['data']> & {
  /** Tells the account's owners an inquiry was decided (mail); absent: nobody is told. */
  notify?: (notice: InquiryNotice) => Promise<void>;
};

export const own = (deps: { data: { inquiries: InquiriesData } }): InquiriesModels => inquiriesModels(deps.data.inquiries);
