/**
 * The sale event as publishers receive it: the postback body, and an entry of the events feed
 * (the same id in both). The conversion is shown as of the event: a `sale.created` event says
 * pending even when it is published after the sale was approved.
 */
import { conversionView, type ConversionRecord } from '@cw/conversions';

export interface SaleEventBody {
  id: string;
  type: string;
  event: string;
  created_at: string;
  publisher_id: string;
  test?: boolean;
  conversion: {
    id: string;
    status: string;
    subid: string | null;
    commission: string;
    sale_amount: string;
    currency: string;
    program_id: number | null;
    campaign_id: number | null;
    merchant: { id: number; name: string } | null;
    click_id: string | null;
    occurred_at: string;
  };
}

/** The status a conversion has right after each event. */
const STATUS_AFTER: Record<string, string> = {
  'sale.created': 'pending',
  'sale.approved': 'approved',
  'sale.declined': 'declined',
  'sale.reversed': 'declined',
};

export function saleEventBody(
  c: ConversionRecord,
  ev: { _id: string; type: string; created_at: Date },
  merchantName: string | undefined,
  test = false,
): SaleEventBody {
  const v = conversionView(c, merchantName);
  return {
    id: ev._id,
    type: ev.type,
    event: ev.type.replace('sale.', ''),
    created_at: ev.created_at.toISOString(),
    publisher_id: c.publisher_id,
    ...(test ? { test: true } : {}),
    conversion: {
      id: v.id,
      status: STATUS_AFTER[ev.type] ?? v.status,
      subid: v.subid,
      commission: v.commission,
      sale_amount: v.sale_amount,
      currency: v.currency,
      program_id: v.program_id,
      campaign_id: v.campaign_id,
      merchant: v.merchant,
      click_id: v.click_id,
      occurred_at: new Date(v.occurred_at).toISOString(),
    },
  };
}
