/** Missing-sale inquiries: a publisher's claim on an uncredited order, the platform's click evidence, the merchant's (or the window's, or an operator's) decision. */
export { INQUIRY_EVENT_TYPES, INQUIRY_STATUSES, REJECT_REASONS, DECIDERS } from './data/inquiry.schema';
export type { Decider, InquiryDoc, InquiryEventType, InquiryRecord, InquiryStatus, RejectReason } from './data/inquiry.schema';
export { InquiriesData, inquiriesDomain } from './data/inquiries.data';
export type { InquiriesModels, InquiryNotice } from './data/inquiries.data';
export type { InquiriesDeps } from './deps';
export { EVIDENCE_MAX, gatherEvidence } from './evidence';
export type { EvidenceClick, EvidenceQuery } from './evidence';
export {
  DEFAULT_RESPONSE_DAYS,
  FILE_INQUIRY_INPUT,
  INQUIRY_ID_INPUT,
  INQUIRY_MAX_AGE_DAYS,
  INQUIRY_SCHEMA,
  LIST_INQUIRIES_INPUT,
  REJECT_INQUIRY_INPUT,
} from './inquiry.schemas';
export {
  checkInquiryOrder,
  fileInquiry,
  getInquiry,
  INQUIRIES_READ_POLICY,
  INQUIRY_FILE_POLICY,
  inquiryId,
  inquiryView,
  listInquiries,
} from './inquiries.service';
export type { FiledInquiry, InquiryView } from './inquiries.service';
export { FILE_INQUIRY, GET_INQUIRY, LIST_INQUIRIES } from './inquiry.operations';
export { decideInquiry, decideOverdueInquiries, merchantAcceptInquiry, merchantGetInquiry, merchantListInquiries, merchantRejectInquiry } from './decide';
export type { Decision } from './decide';
export { operatorDecideInquiry, operatorListInquiries } from './operator.service';
export { inquiryEventBody, inquiryEventSource } from './inquiry-events';
