export {
  ACCESS_INPUT,
  CLAIM_INPUT,
  INSTANT_LINKS_INPUT,
  INSTANT_PROGRAMS_INPUT,
  MAX_POST_TEXT,
  PROFILE_PATCH_INPUT,
  SOCIAL_POST_INPUT,
} from './monetize.schemas';
export {
  applicationStatus,
  claimApplication,
  claimPreview,
  listInstantPrograms,
  readProfile,
  requestInstantLinks,
  rewriteSocialPost,
  updateProfile,
} from './monetize.service';
export type { ApplicationRow } from './monetize.service';
export { approveApplication, listApplications, rejectApplication } from './applications.admin';
export { operatorListApplications, operatorReviewApplication } from './operator.service';
export { MonetizeData, monetizeDomain } from './data/monetize.data';
export { APPLICATION_STATUSES } from './data/monetize-application.schema';
export type { ApplicationStatus, MonetizeApplicationDoc } from './data/monetize-application.schema';
export type { MonetizeDeps } from './deps';
