import type { AuthData } from '@cw/auth';
import type { AuditData } from '@cw/audit';
import type { LedgerDeps } from '@cw/ledger';
import type { PayoutsDeps } from '@cw/payouts';
import type { ReportsDeps } from '@cw/reports';
import type { UseCaseDeps } from '@cw/usecase';

/** The account lib's use cases: the accounts and their credentials (auth), the stats of their sales (conversions), the ledger's balances, the security log (audit). */
export type AccountDeps = UseCaseDeps<{ auth: AuthData; audit: AuditData }> & Pick<ReportsDeps, 'data'> & Pick<LedgerDeps, 'data'> & Pick<PayoutsDeps, 'data'>;
