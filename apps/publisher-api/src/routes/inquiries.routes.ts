/** Missing-sale inquiries (DESIGN.md "Attribution beyond the click"): file one with the platform's click evidence, list and read them. */
import type { RouteSpec } from '@cw/http';
import { FILE_INQUIRY, GET_INQUIRY, LIST_INQUIRIES } from '@cw/inquiries';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

export function inquiryRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, [FILE_INQUIRY, LIST_INQUIRIES, GET_INQUIRY]);
}
