import { CODE_SCHEMA, REQUEST_CODE_INPUT, requestCode } from '@cw/codes';
import type { InputOf } from '@cw/usecase';
import { defineTool, idempotently, IDEMPOTENCY_KEY_INPUT } from '../tool';

const INPUT = { ...REQUEST_CODE_INPUT, properties: { ...REQUEST_CODE_INPUT.properties, idempotency_key: IDEMPOTENCY_KEY_INPUT } } as const;

export const requestCodeTool = defineTool<InputOf<typeof INPUT>>({
  name: 'request_code',
  title: 'Request a coupon code',
  description:
    "Ask for a personal coupon code at a program approved for you: `program_id`, and optionally the `code` you want (letters and digits; case does not matter) under the program's prefix and length, else one is made. Answers the code with `status` active (usable now) or pending_review (the network reviews it first). A code someone else holds answers code_taken (nobody is named): pick another. Pass `idempotency_key` to make a retry safe; it shares the HTTP API's Idempotency-Key scope for POST /codes/.",
  input: INPUT,
  output: CODE_SCHEMA,
  policy: requestCode.policy,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  run: async ({ idempotency_key, ...body }, principal, call) => {
    const { view, status, replayed } = await idempotently(call, principal, { route: 'POST /codes', key: idempotency_key, request: body }, async () => {
      const r = await requestCode(call.deps, principal, body);
      return { status: r.created ? 201 : 200, view: r.code };
    });
    const what = replayed ? 'Replayed the answer stored for this idempotency_key' : status === 201 ? 'New code' : 'You hold this code already';
    return { data: view, summary: `${what}: ${view.code} (${view.status})` };
  },
});
