import { createHash } from 'node:crypto';

/**
 * The canonical product id of one GTIN offered by one program in one market. Derived, so it stays
 * the same across price and stock refreshes and across catalog imports.
 */
export function productId(gtin: string, programId: number, country: string): string {
  const h = createHash('sha256').update(`${gtin}|${programId}|${country}`).digest('hex');
  return `p_${h.slice(0, 20)}`;
}
