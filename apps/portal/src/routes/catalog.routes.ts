/** (being built for issue 43) */
import type { RouteSpec } from '@cw/http';
import type { PortalDeps } from '../portal-context';

export function catalogRoutes(_deps: PortalDeps): RouteSpec[] {
  return [];
}
