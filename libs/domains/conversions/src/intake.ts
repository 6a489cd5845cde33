/**
 * The merchant's intake: a sale on a click id (./lifecycle.ts), else by an agent's attribution
 * token or a coupon code (./agent-attribution.ts). A click id, when given, decides alone: a code or
 * token beside it is ignored and not spent (docs/decisions/0057-codes-and-agent-tokens.md).
 */
import type { MerchantPrincipal } from '@cw/auth';
import type { InputOf } from '@cw/usecase';
import { recordSaleWithoutClick } from './agent-attribution';
import type { INTAKE_INPUT } from './conversion.schemas';
import type { IntakeDeps } from './deps';
import { recordClickSale, type RecordedSale } from './lifecycle';

/** A merchant reports a sale: 201 once per (merchant, order id), then the same conversion. */
export function recordSale(deps: IntakeDeps, merchant: MerchantPrincipal, input: InputOf<typeof INTAKE_INPUT>, now = new Date()): Promise<RecordedSale> {
  const clickId = input.click_id;
  if (clickId !== undefined) return recordClickSale(deps, merchant, { ...input, click_id: clickId }, now);
  return recordSaleWithoutClick(deps, merchant, input, now);
}
