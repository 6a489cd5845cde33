export { accountRecord, paymentStatus } from './account.service';
export { CHANNELS, createPublishers, reviewPublisher, setAccountStatus } from './accounts.admin';
export { ACCOUNT_SCHEMA, PAYMENT_STATUS_SCHEMA } from './account.schemas';
export { PAYMENT_STATUS } from './account.operations';
export { issueKey, listKeys, revokeKey, rotateKey } from './keys.service';
export { accountSettings, isTimeZone, updateAccountSettings } from './settings.service';
export { ACCOUNT_PATCH_INPUT, ISSUABLE_TYPES, KEY_ISSUE_INPUT, PAYOUT_METHOD_TYPES } from './settings.schemas';
export {
  operatorCreatePublisher,
  operatorIssueCredential,
  operatorIssueMerchantToken,
  operatorIssueOperatorToken,
  operatorListCredentials,
  operatorListPublishers,
  operatorReviewPublisher,
  operatorRevokeCredential,
  operatorRotateCredential,
  operatorSetComparisonSite,
  operatorSetPublisherStatus,
} from './operator.service';
export type { OperatorAccountDeps } from './operator.service';
