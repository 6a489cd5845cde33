/** Money out: the ledger (verify, migrate, corrections), exchange rates and payout runs. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bookPendingSales, migrateLedger, operatorAddCorrection, verifyLedger } from '@cw/ledger';
import {
  operatorApprovePayoutRun,
  operatorCreatePayoutRun,
  operatorDecideHold,
  operatorExportPayoutRun,
  operatorImportFx,
  operatorListPayoutRuns,
  operatorPayoutRun,
  operatorReissueStatement,
  operatorSettlePayoutRun,
} from '@cw/payouts';
import { conversionView } from '@cw/conversions';
import { int, mustProgram, str, UsageError, type CommandSpec, type Options } from './shared';

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

const run = (o: Options) => str(o, 'run')!;
const RUN = { run: { type: 'string' as const, required: true, doc: 'payout run id (prun_…)' } };

/** Payout runs: create (one admin), approve (another), export the rails' files, settle with the bank's answer. */
export const PAYOUT_COMMANDS: Record<string, CommandSpec> = {
  'fx:import': {
    summary: 'Import exchange rates from an ECB euro reference-rates XML file (eurofxref-daily.xml, or the 90-day file): payouts convert at the newest',
    options: { file: { type: 'string', required: true, doc: 'the XML file (also as the one argument)' } },
    run: async (deps, o) => operatorImportFx(deps, deps.operator, readFileSync(str(o, 'file')!, 'utf8')),
  },
  'payout-run:create': {
    summary: 'Open a payout run of every publisher due (balance at or above threshold, a method set; held ones listed with why)',
    options: {},
    run: async (deps) => operatorCreatePayoutRun(deps, deps.operator),
  },
  'payout-run:list': {
    summary: 'Payout runs, newest first',
    options: { limit: { type: 'string', doc: 'at most this many (default 50)' } },
    run: async (deps, o) => operatorListPayoutRuns(deps, deps.operator, { limit: int(o, 'limit') }),
  },
  'payout-run:show': {
    summary: 'A payout run and its payouts',
    options: RUN,
    run: async (deps, o) => operatorPayoutRun(deps, deps.operator, { runId: run(o) }),
  },
  'payout-run:approve': {
    summary: 'Approve a run (an admin other than its creator): every payout booked in the ledger and in transit; safe to repeat',
    options: RUN,
    run: async (deps, o) => {
      try {
        return await operatorApprovePayoutRun(deps, deps.operator, { runId: run(o) });
      } catch (e) {
        // Four eyes: the creator's refusal is a failed command (exit 1), not a missing role (exit 3).
        if ((e as { code?: string }).code === 'forbidden') throw new Error((e as Error).message);
        throw e;
      }
    },
  },
  'payout-run:export': {
    summary: "Write the approved run's files into a folder: pain.001.001.09 for EUR bank payouts, PayPal Payouts batch files, a CSV for the rest",
    options: { ...RUN, out: { type: 'string', required: true, doc: 'folder to write into (made if missing)' } },
    run: async (deps, o) => {
      const files = await operatorExportPayoutRun(deps, deps.operator, { runId: run(o) });
      const dir = str(o, 'out')!;
      mkdirSync(dir, { recursive: true });
      for (const f of files) writeFileSync(join(dir, f.name), f.content);
      return { files: files.map((f) => join(dir, f.name)) };
    },
  },
  'payout-run:settle': {
    summary: "Settle a run with the bank's status report (pain.002) or a results CSV (payout_id,status,reason_code,reason_message), or --sandbox",
    options: {
      ...RUN,
      file: { type: 'string', doc: 'pain.002 XML or results CSV' },
      sandbox: { type: 'boolean', doc: "the local platform's bank pays every exported payment (not in production)" },
    },
    run: async (deps, o) => {
      const sandbox = o.sandbox === true;
      if (sandbox && deps.config.nodeEnv === 'production') throw new UsageError('--sandbox is for the local platform, not production');
      const file = str(o, 'file');
      if (!sandbox && !file) throw new UsageError('give --file (pain.002 or results CSV) or --sandbox');
      return operatorSettlePayoutRun(deps, deps.operator, { runId: run(o), sandbox, file: file ? readFileSync(file, 'utf8') : undefined });
    },
  },
  'payout:release': {
    summary: 'Release a held payout (it joins its run; booked at once when the run is approved)',
    options: { payout: { type: 'string', required: true, doc: 'payout id (po_…)' } },
    run: async (deps, o) => operatorDecideHold(deps, deps.operator, { payoutId: str(o, 'payout')!, action: 'release' }),
  },
  'payout:cancel': {
    summary: 'Cancel a held payout (its balance stays for a later payout)',
    options: { payout: { type: 'string', required: true, doc: 'payout id (po_…)' } },
    run: async (deps, o) => operatorDecideHold(deps, deps.operator, { payoutId: str(o, 'payout')!, action: 'cancel' }),
  },
  'statement:reissue': {
    summary:
      "Correct a paid payout's self-billing statement: a new statement (next number) from today's data, naming the one it supersedes; earlier ones stay as issued",
    options: { payout: { type: 'string', required: true, doc: 'payout id (po_…)' } },
    run: async (deps, o) => operatorReissueStatement(deps, deps.operator, { payoutId: str(o, 'payout')! }),
  },
};
