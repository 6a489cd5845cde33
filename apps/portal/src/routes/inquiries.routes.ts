/**
 * Missing sales (`/inquiries`) for an account's people: its missing-sale inquiries (list, one) and
 * "File an inquiry", the publisher API's `/inquiries/` operations declared once in the inquiries
 * lib (the same policies: owners and developers file, every member reads, demo accounts never
 * file). The POST takes an optional Idempotency-Key under the API's own scope (`POST /inquiries`),
 * so a key replays across both surfaces; filing the same order again answers the first inquiry anyway.
 */
import type { RouteSpec } from '@cw/http';
import { FILE_INQUIRY, GET_INQUIRY, LIST_INQUIRIES } from '@cw/inquiries';
import type { PortalDeps } from '../portal-context';
import { memberRoutes } from '../surface';

export function inquiriesRoutes(deps: PortalDeps): RouteSpec[] {
  return memberRoutes(deps, [LIST_INQUIRIES, GET_INQUIRY, FILE_INQUIRY]);
}
