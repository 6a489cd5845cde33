import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { PlatformConfig } from '@cw/config';
import type { Models, Repositories } from '@cw/db';

/** What a use case may use: configuration, the models and the repositories over them. No HTTP. */
export interface UseCaseDeps {
  config: PlatformConfig;
  models: Models;
  repos: Repositories;
}

/** The input type a use case receives: its JSON schema after validation (defaults applied). */
export type InputOf<S extends JSONSchema> = FromSchema<S>;

export type { JSONSchema };
