/** Apps registered through OAuth: through the OAuth lib's data. */
import { ApiError } from '@cw/errors';
import { str, type CommandSpec } from './shared';

export const OAUTH_COMMANDS: Record<string, CommandSpec> = {
  'oauth-app:disable': {
    summary:
      'Disable an app registered through OAuth: it can no longer authorize or refresh, and every grant of it is revoked (its tokens stop at their next request)',
    options: { client: { type: 'string', required: true, doc: "the app's client_id" } },
    run: async (deps, o) => {
      const r = await deps.data.oauth.disableClient(str(o, 'client')!);
      if (!r.found) throw new ApiError({ code: 'not_found', detail: `no app ${str(o, 'client')} is registered` });
      return { client_id: str(o, 'client'), disabled: true, grants_revoked: r.grantsRevoked };
    },
  },
  'oauth-app:enable': {
    summary: 'Enable a disabled OAuth app again (its revoked grants stay revoked: people grant it anew)',
    options: { client: { type: 'string', required: true, doc: "the app's client_id" } },
    run: async (deps, o) => {
      if (!(await deps.data.oauth.enableClient(str(o, 'client')!)))
        throw new ApiError({ code: 'not_found', detail: `no app ${str(o, 'client')} is registered` });
      return { client_id: str(o, 'client'), disabled: false };
    },
  },
};
