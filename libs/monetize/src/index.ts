export { ACCESS_INPUT, INSTANT_LINKS_INPUT, INSTANT_PROGRAMS_INPUT, MAX_POST_TEXT, PROFILE_PATCH_INPUT, SOCIAL_POST_INPUT } from './monetize.schemas';
export { applicationStatus, listInstantPrograms, readProfile, requestInstantLinks, rewriteSocialPost, updateProfile } from './monetize.service';
export type { ApplicationRow } from './monetize.service';
export { approveApplication, listApplications, rejectApplication } from './applications.admin';
