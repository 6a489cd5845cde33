/**
 * The platform's own evidence for an inquiry: the publisher's human clicks on the program in the
 * program's cookie window before the order, newest first, at most EVIDENCE_MAX, each click id's
 * signature verified under the key ring; plus the click id the publisher named, when it is one of
 * theirs on that program (another publisher's click, or an unknown id, is left out unnamed).
 */
import type { KeyRing } from '@cw/config';
import type { ListPage } from '@cw/db';
import { readClickId, type ClickRow, type LinksData } from '@cw/links';

/** At most this many clicks of the window are attached (the newest). */
export const EVIDENCE_MAX = 20;
/** Clicks of the merchant read per round while looking for the program's. */
const ROUND = 50;
const DAY = 86_400_000;

export interface EvidenceClick {
  click_id: string;
  clicked_at: Date;
  verified: boolean;
}

export interface EvidenceQuery {
  publisherId: string;
  program: { _id: number; merchant_id: number; cookie_days?: number | null };
  occurredAt: Date;
  /** The click id the publisher named, if any. */
  clickId?: string;
}

/** A page of the clicks list strictly before `[at, id]` (newest first), as the list's cursor would narrow it. */
function before(at: Date, id: string): ListPage {
  return {
    skip: 0,
    sort: { created_at: -1, _id: 1 },
    after: [at, id],
    filter: (base) => ({ $and: [base, { $or: [{ created_at: { $lt: at } }, { created_at: at, _id: { $gt: id } }] }] }),
  };
}

/** Whether a click id is signed under the ring, for this very link, by a human, not a link preview. */
function signedFor(keys: KeyRing, clickId: string, linkId: string): boolean {
  const claims = readClickId(keys, clickId);
  return !!claims && claims.linkId === linkId && !claims.isBot && !claims.preview;
}

/** The evidence of an inquiry (see the module's comment). */
export async function gatherEvidence(deps: { config: { keys: KeyRing }; data: { links: LinksData } }, q: EvidenceQuery): Promise<EvidenceClick[]> {
  const windowDays = q.program.cookie_days ?? 30;
  const from = q.occurredAt.getTime() - windowDays * DAY;
  const found: EvidenceClick[] = [];
  let cursor = before(q.occurredAt, '');
  // The merchant's clicks newest first (its buckets through their merchant index), until the window's start.
  for (let done = false; !done && found.length < EVIDENCE_MAX;) {
    const rows: ClickRow[] = await deps.data.links.listClicks(
      { publisherId: q.publisherId, merchantId: q.program.merchant_id, includeBots: false },
      cursor,
      ROUND,
    );
    for (const c of rows) {
      if (c.created_at.getTime() < from) {
        done = true;
        break;
      }
      if (c.program_id !== q.program._id) continue;
      found.push({ click_id: c._id, clicked_at: c.created_at, verified: signedFor(deps.config.keys, c._id, c.link_id) });
      if (found.length >= EVIDENCE_MAX) break;
    }
    const last = rows[rows.length - 1];
    if (rows.length < ROUND || !last) break;
    cursor = before(last.created_at, last._id);
  }
  if (q.clickId && !found.some((c) => c.click_id === q.clickId)) {
    const named = await namedClick(deps, q, from);
    if (named) found.push(named);
  }
  return found.sort((a, b) => b.clicked_at.getTime() - a.clicked_at.getTime());
}

/** The click the publisher named, when it is theirs on this program: verified only when signed and in the window before the order. */
async function namedClick(deps: { config: { keys: KeyRing }; data: { links: LinksData } }, q: EvidenceQuery, from: number): Promise<EvidenceClick | null> {
  const id = q.clickId!;
  const claims = readClickId(deps.config.keys, id);
  const inWindow = (at: Date) => at.getTime() >= from && at.getTime() <= q.occurredAt.getTime();
  if (claims) {
    if (claims.preview) return null;
    const link = await deps.data.links.byCode(claims.linkId);
    if (!link || link.publisher_id !== q.publisherId || link.program_id !== q.program._id) return null;
    return { click_id: id, clicked_at: claims.at, verified: !claims.isBot && inWindow(claims.at) };
  }
  // An id of another layout (older clicks, demo data) is found as stored, but no signature vouches for it.
  const stored = await deps.data.links.clickById(id);
  if (!stored || stored.publisher_id !== q.publisherId || stored.program_id !== q.program._id) return null;
  return { click_id: id, clicked_at: stored.created_at, verified: false };
}
