import type { RouteSpec } from '@cw/http';
import { APPLY_TO_PROGRAM, JOINABLE_PROGRAMS, LIST_PROGRAMS } from '@cw/programs';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

export function programRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, [LIST_PROGRAMS, JOINABLE_PROGRAMS, APPLY_TO_PROGRAM]);
}
