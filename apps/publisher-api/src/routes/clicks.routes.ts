import type { RouteSpec } from '@cw/http';
import { LIST_CLICKS } from '@cw/links';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

export function clickRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, [LIST_CLICKS]);
}
