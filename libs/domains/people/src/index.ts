export {
  ACCEPT_INVITATION_INPUT,
  CHANGE_PASSWORD_INPUT,
  FORGOT_PASSWORD_INPUT,
  INVITE_INPUT,
  REAUTH_INPUT,
  RESET_PASSWORD_INPUT,
  ROLE_INPUT,
  SIGNIN_INPUT,
  SIGNUP_INPUT,
  TOKEN_INPUT,
} from './people.schemas';
export { PeopleData, peopleDomain } from './data/people.data';
export type { UserRow } from './data/people.data';
export type { AccountMemberDoc, MailTokenDoc, SessionDoc, UserDoc } from './data/people.schemas.data';
export type { PeopleDeps, RequestOrigin } from './deps';
export { hashPassword } from './passwords';
export {
  accountsOf,
  endAllSessions,
  endSession,
  listSessions,
  portalPrincipal,
  reauthenticate,
  resolveSession,
  REAUTH_MS,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionView,
  signIn,
  signOut,
} from './sessions.service';
export type { SessionContext, SignedIn } from './sessions.service';
export { deviceOf, issueDevice, unlockSignin, UNLOCK_TRUST_MS } from './signin-guard';
export type { DeviceCookie, SigninGuardDeps } from './signin-guard';
export { assertPasswordAllowed, PASSWORD_PROBLEMS, passwordProblem } from './password-policy';
export type { PasswordContext } from './password-policy';
export { changePassword, forgotPassword, resetPassword, signUp, verifyEmail } from './signup.service';
export { acceptInvitation, changeRole, invitationInfo, inviteMember, listMembers, removeMember, revokeInvitation } from './team.service';
export { createPerson } from './seed';
export { findPerson, memberRole } from './persons';
export { operatorGrantRole, operatorRevokeRole, operatorRoleOf, sessionOperator } from './operator.service';
export type { OperatorPeopleDeps } from './operator.service';
