/**
 * The conversions list, declared once for every surface (the API key's `/conversions`, the
 * portal's `/accounts/:account/conversions`): docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation } from '@cw/http';
import { CONVERSION_PAGE_SCHEMA } from './conversion.views';
import { listConversions } from './reporting.service';

export const LIST_CONVERSIONS = operation({
  method: 'GET',
  path: '/conversions',
  operationId: 'listConversions',
  summary: 'Your conversions, newest first, with a sub-ID rollup of the filtered set',
  description: 'date_from/date_to are inclusive UTC days of occurred_at; updated_since for incremental sync.',
  tags: ['Reporting'],
  useCase: listConversions,
  input: 'query',
  responses: { 200: { description: 'Page envelope of conversions plus subid_rollup', schema: CONVERSION_PAGE_SCHEMA } },
  wording: {
    portal: {
      operationId: 'listPortalConversions',
      summary: 'Conversions, newest first, with the sub-ID rollup of the filtered set (as GET /api/v1/publisher/conversions/)',
      description: 'date_from/date_to are inclusive UTC days of occurred_at. Follow `next_cursor` with the same filters for the next page.',
      tags: ['Activity'],
    },
  },
});
