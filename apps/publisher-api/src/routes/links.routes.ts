import type { RouteSpec } from '@cw/http';
import { LINK_OPERATIONS } from '@cw/links';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

export function linkRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, LINK_OPERATIONS);
}
