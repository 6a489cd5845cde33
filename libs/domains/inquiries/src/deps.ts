import type { AuditData } from '@cw/audit';
import type { ConversionsDeps } from '@cw/conversions';
import type { UseCaseDeps } from '@cw/usecase';
import { inquiriesModels, type InquiriesData, type InquiriesModels } from './data/inquiries.data';

/**
 * The inquiries' use cases: their own data, the sales core (a conversion an acceptance creates,
 * through the intake's own path; its clicks, links, programs and accounts), and the audit log.
 */
export type InquiriesDeps = UseCaseDeps<{ inquiries: InquiriesData; audit: AuditData } & ConversionsDeps['data']>;

export const own = (deps: { data: { inquiries: InquiriesData } }): InquiriesModels => inquiriesModels(deps.data.inquiries);
