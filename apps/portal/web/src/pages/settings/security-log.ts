/** The security log's rows in words, apart from the page: an event's address and its detail. */
import type { SecurityEvent } from '../../api/types';
import { words } from '../../lib/words';

/** The address of an event: its own field, else the one in its detail. */
export function addressOf(e: SecurityEvent): string | null {
  if (e.address) return e.address;
  const d = e.detail as Record<string, unknown> | null;
  return d && typeof d === 'object' && typeof d.address === 'string' ? d.address : null;
}

/** An event's detail in words ("Reason: wrong_password · Attempts: 3"), its address left to its own column. */
export function detailText(detail: unknown): string | null {
  if (detail == null || detail === '') return null;
  if (typeof detail === 'string') return detail;
  if (typeof detail === 'object') {
    const parts = Object.entries(detail as Record<string, unknown>)
      .filter(([k, v]) => k !== 'address' && v != null && typeof v !== 'object')
      .map(([k, v]) => `${words(k)}: ${String(v)}`);
    return parts.length ? parts.join(' · ') : null;
  }
  return String(detail);
}
