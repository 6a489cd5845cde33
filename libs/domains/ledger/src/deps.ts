import type { AuditData } from '@cw/audit';
import type { AuthData } from '@cw/auth';
import type { ConversionsData } from '@cw/conversions';
import type { EventsFeedData } from '@cw/events-feed';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { ledgerModels, type LedgerData, type LedgerModels } from './data/ledger.data';

/** The ledger's use cases: its journal, the sale events it consumes, the accounts and the audit log. */
export type LedgerDeps = UseCaseDeps<{
  ledger: LedgerData;
  eventsFeed: EventsFeedData;
  conversions: ConversionsData;
  programs: ProgramsData;
  links: LinksData;
  auth: AuthData;
  audit: AuditData;
}>;

export const own = (deps: { data: { ledger: LedgerData } }): LedgerModels => ledgerModels(deps.data.ledger);
