export { CREDENTIALS_PATH, REPO_ROOT, startPlatform } from './platform';
export type { CredentialsFile, Platform, PlatformOptions } from './platform';
export { dashboardLiveJourney } from './portal-dashboard-journeys';
export { portalEnv, signIn } from './portal-journeys';
