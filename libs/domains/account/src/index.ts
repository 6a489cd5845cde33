export { accountRecord, paymentStatus } from './account.service';
export { CHANNELS, createPublishers, setAccountStatus } from './accounts.admin';
export { ACCOUNT_SCHEMA, PAYMENT_STATUS_SCHEMA } from './account.schemas';
