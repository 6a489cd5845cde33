import { CURSOR_PAGING, pageSizeInput } from '@cw/usecase';

/** A campaign (merchant) id sent as a string. */
export const CAMPAIGN_ID_PATTERN = '^[1-9][0-9]{0,9}$';

const SEARCH = { type: 'string', minLength: 1, maxLength: 200, description: 'Case-insensitive text in the program name.' } as const;

export const LIST_PROGRAMS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { search: SEARCH, include_available: { type: 'boolean', default: false }, ...CURSOR_PAGING, page_size: pageSizeInput(1000) },
} as const;

export const PROGRAM_BY_ID_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id'],
  properties: { program_id: { type: 'integer', minimum: 1, maximum: 2147483647 } },
} as const;

export const JOINABLE_PROGRAMS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { search: SEARCH, ...CURSOR_PAGING, page_size: pageSizeInput(1000) },
} as const;

export const APPLY_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id'],
  properties: {
    program_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
    campaign_id: {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: CAMPAIGN_ID_PATTERN },
      ],
      description: "Optional; must be the program's campaign.",
    },
  },
} as const;
