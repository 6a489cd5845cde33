import { FILE_INQUIRY_INPUT, fileInquiry, INQUIRY_SCHEMA } from '@cw/inquiries';
import type { InputOf } from '@cw/usecase';
import { defineTool, idempotently, IDEMPOTENCY_KEY_INPUT } from '../tool';

const INPUT = { ...FILE_INQUIRY_INPUT, properties: { ...FILE_INQUIRY_INPUT.properties, idempotency_key: IDEMPOTENCY_KEY_INPUT } } as const;

export const fileInquiryTool = defineTool<InputOf<typeof INPUT>>({
  name: 'file_inquiry',
  title: 'File a missing-sale inquiry',
  description:
    "Ask a merchant to credit an order you believe you earned but that is not in your conversions (clicks but no sale): `program_id` (a program you are approved for), the merchant's `order_id`, `occurred_at` (ISO date-time, within the last 90 days), `amount` (decimal string) and `currency`, optionally the `click_id` and a `note` for the merchant. The platform attaches its evidence: your clicks on that program in its cookie window before the order, each with `verified` (signed click id, in the window). The answer's `status` is `open` until the merchant accepts (a conversion with channel `inquiry` appears in list_conversions) or rejects it with a `reason`; unanswered by `respond_by`, it is accepted if the evidence holds a verified click. The same order filed again returns the first inquiry. Pass `idempotency_key` to make a retry safe; it shares the HTTP API's Idempotency-Key scope for POST /inquiries/.",
  input: INPUT,
  output: INQUIRY_SCHEMA,
  policy: fileInquiry.policy,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  run: async ({ idempotency_key, ...body }, principal, call) => {
    const { view, status, replayed } = await idempotently(call, principal, { route: 'POST /inquiries', key: idempotency_key, request: body }, async () => {
      const r = await fileInquiry(call.deps, principal, body);
      return { status: r.created ? 201 : 200, view: r.inquiry };
    });
    const verified = view.evidence.clicks.filter((c) => c.verified).length;
    const what = replayed ? 'Replayed the answer stored for this idempotency_key' : status === 201 ? 'Filed' : 'Filed before';
    return {
      data: view,
      summary: `${what}: inquiry ${view.id}, ${view.status}, ${view.evidence.clicks.length} click(s) as evidence (${verified} verified); the merchant answers by ${new Date(view.respond_by).toISOString().slice(0, 10)}.`,
    };
  },
});
