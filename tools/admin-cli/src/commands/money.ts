/** Money out: the ledger (verify, migrate, corrections). */
import { bookPendingSales, migrateLedger, operatorAddCorrection, verifyLedger } from '@cw/ledger';
import { conversionView } from '@cw/conversions';
import { int, mustProgram, str, type CommandSpec } from './shared';

export const MONEY_COMMANDS: Record<string, CommandSpec> = {
  'ledger:verify': {
    summary: 'Prove the ledger: every transaction balances in each currency and every balance equals its entries (exit 1 otherwise)',
    options: {},
    run: async (deps, _o, progress) => {
      await bookPendingSales(deps);
      const v = await verifyLedger(deps, { onProgress: progress ? (n) => progress(n, n) : undefined });
      const summary = `${v.entries} entries, ${v.transactions} transactions, ${v.balanced ? 'balanced' : 'NOT balanced'}`;
      if (!v.balanced) throw new Error(`ledger: ${summary}:\n  ${v.problems.join('\n  ')}`);
      return { ledger: summary, entries: v.entries, transactions: v.transactions, publishers: v.publishers, balanced: true };
    },
  },
  'ledger:migrate': {
    summary:
      'Book what happened before the ledger (approved and reversed sales, network bookings, commission paid before) for every account; resumable (safe to repeat), with progress',
    options: {
      publisher: { type: 'string', doc: 'only this account' },
      after: { type: 'string', doc: 'resume after this account id (the last one a stopped run reported)' },
    },
    run: async (deps, o, progress) =>
      migrateLedger(deps, {
        publisherId: str(o, 'publisher'),
        after: str(o, 'after'),
        onProgress: progress ? (p) => progress(p.accounts, p.accounts) : undefined,
      }),
  },
  'ledger:add': {
    summary: 'Book a bonus or correction for a publisher (a ledger correction; listed as a conversion of source ledger, counts in reports and the balance)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      amount: { type: 'string', required: true, doc: 'decimal amount; a correction is negative: --amount=-4.50' },
      currency: { type: 'string', required: true, doc: 'ISO 4217' },
      reason: { type: 'string', required: true, doc: 'shown to the publisher' },
      program: { type: 'string', doc: 'program id the entry belongs to' },
    },
    run: async (deps, o) => {
      const programId = int(o, 'program');
      const program = programId === undefined ? undefined : await mustProgram(deps, programId);
      const c = await operatorAddCorrection(deps, deps.operator, {
        publisherId: str(o, 'publisher')!,
        amount: str(o, 'amount')!,
        currency: str(o, 'currency')!.toUpperCase(),
        reason: str(o, 'reason')!,
        programId: program?._id,
        merchantId: program?.merchant_id,
      });
      return { ...conversionView(c, undefined), publisher_id: c.publisher_id };
    },
  },
};
