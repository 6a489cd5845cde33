/**
 * The publisher's view of one conversion: the shape the list, the detail, the export, the operator
 * and the events feed all show (kept in the sales core, not in the report services, so that the feed
 * and the operator's acts need no report lib; decision record 0047).
 */
import { moneyIn } from '@cw/money';
import type { ConversionRecord } from './data/conversion.schema';

/** The publisher view of a conversion: never the merchant's order id or the network's margin. */
export function conversionView(c: ConversionRecord, merchantName: string | undefined) {
  return {
    id: c._id,
    status: c.status,
    subid: c.subid || null,
    campaign_id: c.campaign_id ?? null,
    program_id: c.program_id ?? null,
    merchant: c.campaign_id !== undefined && c.campaign_id !== null ? { id: c.campaign_id, name: merchantName ?? '' } : null,
    sale_amount: moneyIn(c.sale_amount, c.currency),
    commission: moneyIn(c.commission, c.currency),
    currency: c.currency,
    click_id: c.click_id ?? null,
    deeplink_id: c.link_id ?? null,
    source: c.source,
    channel: c.channel ?? 'link',
    ...(c.source === 'ledger' ? { reason: c.reason ?? null } : {}),
    reversed: c.reversed,
    occurred_at: c.occurred_at,
    updated_at: c.updated_at,
  };
}
