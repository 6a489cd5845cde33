import { APPLICATION_SCHEMA, APPLY_INPUT, applyToProgram } from '@cw/programs';
import type { InputOf } from '@cw/usecase';
import { defineTool, idempotently, IDEMPOTENCY_KEY_INPUT } from '../tool';

const INPUT = { ...APPLY_INPUT, properties: { ...APPLY_INPUT.properties, idempotency_key: IDEMPOTENCY_KEY_INPUT } } as const;

export const applyToProgramTool = defineTool<InputOf<typeof INPUT>>({
  name: 'apply_to_program',
  title: 'Apply to a program',
  description:
    'Apply to join a program (find joinable ones with list_programs include_available=true). Programs with auto-approval answer `approved` at once; others answer `pending` until the merchant decides. Applying again answers the existing assignment. Products and tracking links of a program are available only once approved. Read-only and demo keys cannot apply. Pass `idempotency_key` to make a retry safe.',
  input: INPUT,
  output: APPLICATION_SCHEMA,
  policy: applyToProgram.policy,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  run: async ({ idempotency_key, ...body }, principal, call) => {
    const { view } = await idempotently(call, principal, { route: 'POST /programs/apply', key: idempotency_key, request: body }, async () => {
      const outcome = await applyToProgram(call.deps, principal, body);
      return { status: outcome.approvedNow ? 201 : 200, view: outcome.view };
    });
    return { data: view, summary: `Program ${view.program_id}: ${view.status}${view.created ? '' : ' (existing assignment)'}.` };
  },
});
