/**
 * A missing-sale inquiry from the form's strings (apart from the form): partial on purpose, so
 * whatever is missing or wrong the API names, on its field; the order's time read in the browser's
 * zone (a datetime-local input) and sent as an instant.
 */
import type { InquiryInput } from '../api/inquiries';

/** A datetime-local value (the browser's zone) as an ISO instant; undefined when empty or not a time. */
export function instant(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export interface InquiryDraft {
  programId: string;
  orderId: string;
  occurredAt: string;
  amount: string;
  currency: string;
  clickId: string;
  note: string;
}

/** The request: members trimmed, empty ones left out (the currency always sent). */
export function inquiryInputOf(d: InquiryDraft): InquiryInput {
  const occurred = instant(d.occurredAt);
  const input = {
    ...(d.programId ? { program_id: Number(d.programId) } : {}),
    ...(d.orderId.trim() ? { order_id: d.orderId.trim() } : {}),
    ...(occurred ? { occurred_at: occurred } : {}),
    ...(d.amount.trim() ? { amount: d.amount.trim() } : {}),
    currency: d.currency,
    ...(d.clickId.trim() ? { click_id: d.clickId.trim() } : {}),
    ...(d.note.trim() ? { note: d.note.trim() } : {}),
  };
  return input as InquiryInput;
}
