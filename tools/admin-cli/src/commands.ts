/**
 * Operator commands, how the network is run, one file per domain under `commands/`: each command
 * parses its options and calls its domain's use cases (operator acts are bound to the operator's
 * role and recorded in the audit log); bad input throws UsageError with a clear message.
 */
import { ACCOUNT_COMMANDS } from './commands/account';
import { AUDIT_COMMANDS } from './commands/audit';
import { CATALOG_COMMANDS } from './commands/catalog';
import { CODES_COMMANDS } from './commands/codes';
import { CONVERSIONS_COMMANDS } from './commands/conversions';
import { DB_COMMANDS } from './commands/db';
import { INQUIRIES_COMMANDS } from './commands/inquiries';
import { MONETIZE_COMMANDS } from './commands/monetize';
import { MONEY_COMMANDS, PAYOUT_COMMANDS } from './commands/money';
import { OAUTH_COMMANDS } from './commands/oauth';
import { OFFERS_COMMANDS } from './commands/offers';
import { PEOPLE_COMMANDS } from './commands/people';
import { POSTBACKS_COMMANDS } from './commands/postbacks';
import { PROGRAMS_COMMANDS } from './commands/programs';
import { TAX_COMMANDS } from './commands/tax';
import { TRENDING_COMMANDS } from './commands/trending';
import type { CommandSpec } from './commands/shared';

export { UsageError } from './commands/shared';
export type { CliDeps, CommandSpec, Options } from './commands/shared';

export const COMMANDS: Record<string, CommandSpec> = {
  ...DB_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...PROGRAMS_COMMANDS,
  ...CONVERSIONS_COMMANDS,
  ...INQUIRIES_COMMANDS,
  ...CODES_COMMANDS,
  ...MONEY_COMMANDS,
  ...PAYOUT_COMMANDS,
  ...TAX_COMMANDS,
  ...OFFERS_COMMANDS,
  ...MONETIZE_COMMANDS,
  ...OAUTH_COMMANDS,
  ...TRENDING_COMMANDS,
  ...CATALOG_COMMANDS,
  ...POSTBACKS_COMMANDS,
  ...PEOPLE_COMMANDS,
  ...AUDIT_COMMANDS,
};
