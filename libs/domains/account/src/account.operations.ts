/**
 * The account operations both surfaces serve (the API key's `/payment-status`, the portal's
 * `/accounts/:account/payment-status`), declared once: docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation } from '@cw/http';
import { PAYMENT_STATUS_SCHEMA } from './account.schemas';
import { paymentStatus } from './account.service';

export const PAYMENT_STATUS = operation({
  method: 'GET',
  path: '/payment-status',
  operationId: 'getPaymentStatus',
  summary: 'Approved unpaid and pending commission, next payment estimate, payment method type',
  description: 'Read-only. Test, sandbox and read-only keys get 403. OAuth scope affiliate:read.',
  tags: ['Account'],
  useCase: paymentStatus,
  responses: { 200: { description: 'Payment status', schema: PAYMENT_STATUS_SCHEMA } },
  wording: { portal: { operationId: 'getPaymentStatus', summary: 'Payment status, as the API’s GET /payment-status/', description: '' } },
});
