/**
 * The links operations, declared once for every surface (the API key's `/links`, the portal's
 * `/accounts/:account/links`): docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation, pageEnvelopeSchema } from '@cw/http';
import { listClicks } from './clicks';
import { createLink, createLinkBatch, listLinks } from './link-requests';
import { CLICK_SCHEMA, LINK_SCHEMA } from './link.views';

const LINK_BATCH_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          status: { type: 'string', enum: ['created', 'existing', 'error'] },
          link: LINK_SCHEMA,
          error: { type: 'object' },
        },
      },
    },
    created: { type: 'integer' },
    existing: { type: 'integer' },
    errors: { type: 'integer' },
  },
};

export const LIST_LINKS = operation({
  method: 'GET',
  path: '/links',
  operationId: 'listLinks',
  summary: 'Links created through the links API, newest first',
  tags: ['Links'],
  useCase: listLinks,
  input: 'query',
  responses: { 200: { description: 'Page envelope of links', schema: pageEnvelopeSchema(LINK_SCHEMA, { cursor: true }) } },
  wording: { portal: { summary: 'Links created through the links API and the portal, newest first (as GET /api/v1/publisher/links/)' } },
});

export const CREATE_LINK = operation({
  method: 'POST',
  path: '/links',
  operationId: 'createLink',
  summary: 'Create a tracking link: 201 created, 200 when the same link existed',
  description: 'Optional Idempotency-Key (max 255).',
  tags: ['Links'],
  useCase: createLink,
  input: 'body',
  responses: {
    200: { description: 'Existing link', schema: LINK_SCHEMA },
    201: { description: 'Created link', schema: LINK_SCHEMA },
    403: { description: 'program_not_approved: the program has not approved the account' },
    404: { description: 'Unknown program or campaign' },
  },
  result: (r) => ({ status: r.created ? 201 : 200, body: r.link }),
  wording: {
    portal: {
      summary: 'Create a tracking link (owners, developers): 201 created, 200 when the same link existed',
      description: 'Optional Idempotency-Key (max 255), the same scope as the API’s POST /links/.',
    },
  },
});

export const CREATE_LINK_BATCH = operation({
  method: 'POST',
  path: '/links/batch',
  operationId: 'createLinkBatch',
  summary: 'Create 1 to 50 links; each item reports created, existing or error',
  description: 'Optional Idempotency-Key (max 255). Counts once against the links budget.',
  tags: ['Links'],
  useCase: createLinkBatch,
  input: 'body',
  responses: { 200: { description: 'LinkBatchResult', schema: LINK_BATCH_RESULT_SCHEMA } },
  wording: {
    portal: {
      summary: 'Create 1 to 50 links (owners, developers); each item reports created, existing or its error',
      description: 'Optional Idempotency-Key (max 255), the same scope as the API’s POST /links/batch/.',
    },
  },
});

export const LIST_CLICKS = operation({
  method: 'GET',
  path: '/clicks',
  operationId: 'listClicks',
  summary: 'Recorded clicks on your links, newest first',
  tags: ['Clicks'],
  useCase: listClicks,
  input: 'query',
  responses: { 200: { description: 'Page envelope of clicks', schema: pageEnvelopeSchema(CLICK_SCHEMA, { cursor: true }) } },
  wording: {
    portal: { operationId: 'listPortalClicks', summary: 'Recorded clicks on your links, newest first (as GET /api/v1/publisher/clicks/)', tags: ['Activity'] },
  },
});

/** Every links operation both surfaces serve. */
export const LINK_OPERATIONS = [LIST_LINKS, CREATE_LINK, CREATE_LINK_BATCH];
