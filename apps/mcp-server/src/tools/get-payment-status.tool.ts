import { PAYMENT_STATUS_SCHEMA, paymentStatus } from '@cw/account';
import { defineTool } from '../tool';

export const getPaymentStatusTool = defineTool<Record<string, never>>({
  name: 'get_payment_status',
  title: 'Payment status',
  description:
    'What you are owed: approved commission not yet paid and commission pending review (per currency, with a USD total), the next payment estimate and the payment method type. Takes no arguments. Test, sandbox, read-only and demo keys cannot read it.',
  input: { type: 'object', additionalProperties: false, properties: {} },
  output: PAYMENT_STATUS_SCHEMA,
  policy: paymentStatus.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (_input, principal, call) => {
    const status = await paymentStatus(call.deps, principal);
    return { data: status, summary: `Approved unpaid: ${status.approved_unpaid.total_usd} USD; pending review: ${status.pending_review.total_usd} USD.` };
  },
});
