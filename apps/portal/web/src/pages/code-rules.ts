/** A program's coupon code rules in words (apart from the form that shows them). */
import type { CodeRules } from '../api/codes';

/** A program's rules in words. */
export function rulesInWords(r: CodeRules): string {
  const shape = `${r.min_length} to ${r.max_length} letters and digits${r.prefix ? `, starting with ${r.prefix}` : ''}`;
  return `${shape}. ${r.review === 'auto' ? 'Active at once.' : 'Reviewed by the network before it credits sales.'}`;
}
