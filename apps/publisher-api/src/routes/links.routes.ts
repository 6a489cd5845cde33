import type { RouteSpec } from '@cw/http';
import { LINK_OPERATIONS } from '@cw/links';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

/** The standard errors of the routes not yet declared as operations (docs/decisions/0071-one-declaration-per-operation.md). */
export const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed, or program not approved' },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};

export function linkRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, LINK_OPERATIONS);
}
