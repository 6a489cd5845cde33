import { createLink, LINK_REQUEST_INPUT, LINK_SCHEMA } from '@cw/links';
import type { InputOf } from '@cw/usecase';
import { defineTool, idempotently, IDEMPOTENCY_KEY_INPUT } from '../tool';

const INPUT = { ...LINK_REQUEST_INPUT, properties: { ...LINK_REQUEST_INPUT.properties, idempotency_key: IDEMPOTENCY_KEY_INPUT } } as const;

export const createTrackingLinkTool = defineTool<InputOf<typeof INPUT>>({
  name: 'create_tracking_link',
  title: 'Create a tracking link',
  description:
    "Create (or get back) your tracked link to a merchant page of an approved program: `program_id` (or `campaign_id`), optional `landing_url` on the program's allowed domains (default: its landing page), optional `routes` (rules by visitor country and device, each to another page on those domains; sent, they replace the link's rules) and optional `subid` (your own label, e.g. the conversation or placement, reported back on clicks and conversions). The same program, page and subid always give the same link. Share `url` as is. Pass `idempotency_key` to make a retry safe; it shares the HTTP API's Idempotency-Key scope for POST /links/.",
  input: INPUT,
  output: LINK_SCHEMA,
  policy: createLink.policy,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  run: async ({ idempotency_key, ...body }, principal, call) => {
    const { view, status, replayed } = await idempotently(call, principal, { route: 'POST /links', key: idempotency_key, request: body }, async () => {
      const r = await createLink(call.deps, principal, body);
      return { status: r.created ? 201 : 200, view: r.link };
    });
    const what = replayed ? 'Replayed the answer stored for this idempotency_key' : status === 201 ? 'Created' : 'Existing link';
    return { data: view, summary: `${what}: ${view.url}` };
  },
});
