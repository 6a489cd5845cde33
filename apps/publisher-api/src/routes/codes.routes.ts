import { LIST_CODES, REQUEST_CODE } from '@cw/codes';
import type { RouteSpec } from '@cw/http';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

/** Personal coupon codes: the caller's, and asking for one at an approved program. */
export function codeRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, [LIST_CODES, REQUEST_CODE]);
}
