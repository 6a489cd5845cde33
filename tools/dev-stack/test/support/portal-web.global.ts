/**
 * Vitest global setup: the portal's front end built once before any test starts a platform (each
 * would otherwise find it stale at the same moment and build it in parallel on two cores).
 */
import { defaultWebDir, ensureWebBuilt } from '@cw/app-portal';

export default async function setup(): Promise<void> {
  await ensureWebBuilt(defaultWebDir(), (m) => console.log(m));
}
