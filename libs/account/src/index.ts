export { ACCOUNT_POLICY, accountRecord, PAYMENT_STATUS_POLICY, paymentStatus } from './account.service';
