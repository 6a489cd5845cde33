import type { AuthData } from '@cw/auth';
import type { ConversionsDeps } from '@cw/conversions';
import type { UseCaseDeps } from '@cw/usecase';

/** The account lib's use cases: the accounts themselves (auth) and the stats of their sales (conversions). */
export type AccountDeps = UseCaseDeps<{ auth: AuthData }> & Pick<ConversionsDeps, 'data'>;
